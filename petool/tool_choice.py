"""The tool chosen as a whole: each candidate's name is scored by the model's log-likelihood of the
call's head after the prompt, plus a bias (petool passes its ranking's log prior), and the best
is forced before decoding goes on with its parameters (``petool.decoding``'s ``tool_bias``).
"""

from __future__ import annotations

import json

from petool.schema import extends_name


def call_head(tool_name: str) -> str:
    """The start of a call through its tool name and the comma after it, as the grammar writes it.

    The comma belongs in: the tokenizer merges a name's closing quote with it (``>",``), so a
    head cut at the quote would be tokenized unlike every call the model was trained on.
    """
    return '{"tool_name": ' + json.dumps(tool_name, ensure_ascii=False) + ","


def name_logprobs(model, tokenizer, cache, last_logits, names: list[str]) -> dict[str, list]:
    """Log-likelihood of each name's call head after the prompt in ``cache`` (``last_logits``:
    the prompt's last position); the cache is cropped back to the prompt after each name.
    Returns ``{name: [logprob, token_ids]}``."""
    import torch

    first = torch.log_softmax(last_logits.float(), dim=-1)[0]
    out = {}
    for name in names:
        ids = tokenizer.encode(call_head(name), add_special_tokens=False)
        score = float(first[ids[0]])
        if len(ids) > 1:
            device = next(model.parameters()).device
            logits = model(input_ids=torch.tensor([ids[:-1]], device=device), past_key_values=cache, use_cache=True).logits
            logp = torch.log_softmax(logits[0].float(), dim=-1)
            score += float(logp[torch.arange(len(ids) - 1), torch.tensor(ids[1:])].sum())
            cache.crop(-(len(ids) - 1))  # transformers 5: a negative count removes that many tokens
        out[name] = [score, ids]
    return out


def choose_tool(scores: dict[str, float], bias: dict[str, float]) -> str:
    """The name with the best model score + bias, where names that extend one another share
    their best model score and the model's own scores only break ties.

    Why: between "GetNews" and "GetNewsByTopic" the model chooses at one token, close the name
    or go on, and the trained adapter closes it against the instruction (the untuned base goes
    on): petool's generated catalog rarely has a name that goes on past another's end, so
    training never showed it. Such names are told apart by the bias (the ranking's prior, which
    reads the instruction against each description); where the bias ties them, by the model.
    What this changed, measured: docs/experiments.md.
    """
    # One hop is enough: extending is transitive (a < ab < abc), and two names that extend a third
    # but not each other ("...ByTopic", "...ByDate") part at an ordinary token the model can judge.
    best = {n: max(scores[m] for m in scores if m == n or extends_name(m, n) or extends_name(n, m)) for n in scores}
    return max(scores, key=lambda n: (best[n] + bias.get(n, 0.0), scores[n]))


def score_names(model, tokenizer, prompt_ids: list[int], names: list[str]) -> dict[str, float]:
    """Each name's log-likelihood as the start of the answer to ``prompt_ids`` (as ``tool_bias``
    scores them), without decoding further; for tuning the prior's weight offline."""
    import torch
    from transformers import DynamicCache

    device = next(model.parameters()).device
    cache = DynamicCache()
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([prompt_ids], device=device), past_key_values=cache, use_cache=True, logits_to_keep=1).logits[
            :, -1, :
        ]
        scored = name_logprobs(model, tokenizer, cache, logits, names)
    return {name: v[0] for name, v in scored.items()}
