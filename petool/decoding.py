"""Structured decoding: greedy generation under a call's grammar (``petool.call_grammar``).

A greedy loop masks the logits with the grammar's token bitmask. Two things make it fast on CPU:

- jump-forward: text the grammar forces (``{"tool_name": "<``, the rest of a tool name once its
  prefix is unique, ``"}}``) is appended without a model step, several tokens in one forward;
- the loop stops the moment the call is complete (no end-of-turn token needed).

If the token budget runs out mid-call, ``petool.call_repair.close_call`` keeps the complete part
and closes it, so the output always parses to a call on a candidate.

Optionally the tool is chosen as a whole rather than token by token (``tool_bias``,
``petool.tool_choice``), and the parameters are held to what the instruction states
(``close_penalty``, ``petool.value_filling``).
"""

from __future__ import annotations

from dataclasses import dataclass

from petool.tool_choice import choose_tool, name_logprobs
from petool.value_filling import hold_to_the_instruction, tokens_starting_with


@dataclass
class DecodeResult:
    """Token ids produced by ``constrained_generate`` and how they were obtained."""

    token_ids: list[int]
    complete: bool
    model_steps: int
    forced_tokens: int
    prefill_s: float = 0.0
    decode_s: float = 0.0
    timed_out: bool = False
    """Stopped by ``max_time_s`` before the call was complete."""
    tool_scores: dict[str, float] | None = None
    """With ``tool_bias``: each candidate name's log-likelihood under the model (bias not added)."""


def _forced_tokens(matcher, tokenizer) -> list[int]:
    """Tokens for the text the grammar forces next, accepted into ``matcher`` (or none)."""
    try:
        text = matcher.find_jump_forward_string()
    except UnicodeDecodeError:
        # The forced bytes can stop inside a multi-byte character (the model has written the
        # first bytes of an "é" or an emoji): nothing to jump; the model decodes it step by step.
        return []
    if not text:
        return []
    # The last forced token is left to the model: it may merge with what follows (`": ` then `"`
    # is naturally one ` "` token), and a lone forced space pushes a small model off its training
    # distribution (it then writes numbers where strings belong).
    ids = tokenizer.encode(text, add_special_tokens=False)[:-1]
    for n, tok in enumerate(ids):
        if not matcher.accept_token(tok):
            # The tokenizer split the forced text in a way the grammar rejects (e.g. a
            # SentencePiece prefix space): undo and let the model decode it step by step.
            if n:
                matcher.rollback(n)
            return []
    return ids


def constrained_generate(
    model,
    tokenizer,
    prompt_ids: list[int],
    matcher,
    max_new_tokens: int,
    max_time_s: float | None = None,
    tool_bias: dict[str, float] | None = None,
    stated: list[str] | None = None,
    close_penalty: float = 0.0,
    named_values: dict[str, dict[str, object]] | None = None,
) -> DecodeResult:
    """Greedy decoding under ``matcher``'s grammar, with jump-forward and a KV cache.

    Args:
        model: a causal LM (or PeftModel) already on its device, in eval mode.
        tokenizer: its tokenizer (used to tokenize forced text).
        prompt_ids: the prompt's token ids (chat template applied).
        matcher: from ``CallGrammar.matcher``; consumed.
        max_new_tokens: budget for generated plus forced tokens.
        max_time_s: wall-clock budget; no model step starts after it (one step may overrun it),
            and the result is marked ``timed_out`` (``close_call`` then closes the partial call).
        tool_bias: ``{candidate name: bias}`` for every candidate the matcher allows: the tool
            is the name with the highest log-likelihood + bias (``choose_tool``: names that
            extend one another share their best likelihood), then decoding continues. Greedy
            token-by-token choice picks a name by its first differing token; scoring whole names
            lets a prior weigh in. None: token by token.
        stated: values the instruction states (``query.stated_values``), lower-cased.
        close_penalty: holds the parameters to what the instruction states. While some stated
            value is not yet in them and the model's choice would close them, the likeliest
            allowed token that goes on (a "," before the next parameter, or the first
            parameter's opening quote) is taken instead if its logit plus this margin beats the
            closing one: a small model tends to stop before copying every value. Once every
            stated and named value is written, a key the model would open is a guess (on the
            real dev entries' gold tools, nearly every ground truth holds no other optional
            parameter), so the parameters close there if the grammar allows. Only the
            close-or-go-on choice moves (a penalty on closing alone would lengthen a number
            instead: "page": 1.00000000e+00). 0 turns all of this off.
        named_values: ``{tool name: {parameter: value}}`` for the parameters whose value the
            instruction names (``query.named_values``; an earlier call's for the same
            instruction, ``query.echoed_values``, keep their JSON type). Under the close penalty,
            wherever the model would open the next parameter or close them (outside a string
            value) while one of the chosen tool's is not yet written, that parameter goes in
            with its value instead (the first one the grammar still allows), so it keeps its
            place before later keys; a named key already open (a required key the grammar
            wrote) gets its named value.
    """
    import time

    import torch
    import xgrammar as xgr
    from transformers import DynamicCache

    device = next(model.parameters()).device
    vocab_size = model.config.vocab_size if hasattr(model, "config") else len(tokenizer)
    bitmask = xgr.allocate_token_bitmask(1, vocab_size)
    cache = DynamicCache()
    out: list[int] = []
    pending = list(prompt_ids)
    steps = forced = 0
    prefill_s = decode_s = 0.0
    timed_out = False
    tool_scores = None
    closers = set(tokens_starting_with(tokenizer, "}")) if close_penalty else None
    # what goes on instead: a "," after a value, a '"' (or ' "') opening the first key
    go_on_ids = (
        tokens_starting_with(tokenizer, ",") + tokens_starting_with(tokenizer, '"') + tokens_starting_with(tokenizer, ' "')
        if closers
        else []
    )
    go_on_ids = torch.tensor([i for i in go_on_ids if i < vocab_size])
    quote = tokenizer.encode('"', add_special_tokens=False)
    quote_id = quote[0] if len(quote) == 1 else None
    closer_ids = torch.tensor(sorted(i for i in (closers or ()) if i < vocab_size), dtype=torch.long)
    value_enders = (
        torch.tensor(
            sorted(set(closer_ids.tolist()) | {i for i in tokens_starting_with(tokenizer, ",") if i < vocab_size}), dtype=torch.long
        )
        if closers
        else None
    )
    ended_raw = False
    start = time.perf_counter()
    with torch.inference_mode():
        if tool_bias:
            logits = model(
                input_ids=torch.tensor([pending], device=device), past_key_values=cache, use_cache=True, logits_to_keep=1
            ).logits[:, -1, :]
            scored = name_logprobs(model, tokenizer, cache, logits, list(tool_bias))
            tool_scores = {name: round(v[0], 4) for name, v in scored.items()}
            best = choose_tool({name: v[0] for name, v in scored.items()}, tool_bias)
            head = scored[best][1][:max_new_tokens]
            accepted = 0
            for tok in head:
                if not matcher.accept_token(tok):
                    break
                accepted += 1
            if accepted < len(head):  # a name the grammar does not allow: choose token by token
                if accepted:
                    matcher.rollback(accepted)
                tool_scores, cache = None, DynamicCache()  # the loop prefills the prompt again
            else:
                out, pending, forced = list(head), list(head), len(head)
            steps = 1
            prefill_s = time.perf_counter() - start
        while len(out) < max_new_tokens and not matcher.is_terminated():
            jump = _forced_tokens(matcher, tokenizer)[: max_new_tokens - len(out)]
            out += jump
            pending += jump
            forced += len(jump)
            if matcher.is_terminated() or len(out) >= max_new_tokens:
                break
            if max_time_s is not None and time.perf_counter() - start >= max_time_s:
                timed_out = True
                break
            t0 = time.perf_counter()
            ids = torch.tensor([pending], device=device)
            logits = model(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1).logits[:, -1, :]
            logits = logits.float().cpu()
            matcher.fill_next_token_bitmask(bitmask)
            xgr.apply_token_bitmask_inplace(logits, bitmask)
            if ended_raw and bool(torch.isfinite(logits[0, value_enders]).any()):
                # a forced number or boolean is whole: "2" must not grow into "20"
                keep = torch.full_like(logits, float("-inf"))
                keep[0, value_enders] = 0.0
                logits = logits + keep
            ended_raw = False
            token = int(torch.argmax(logits, dim=-1)[0])
            fill_ids = []
            head, _, written = tokenizer.decode(out).partition('"parameters"') if closers else ("", "", "")
            if written:
                fill_ids, token = hold_to_the_instruction(
                    matcher,
                    tokenizer,
                    logits,
                    token,
                    head,
                    written,
                    stated,
                    named_values,
                    close_penalty,
                    closers,
                    closer_ids,
                    go_on_ids,
                    quote_id,
                )
            if steps == 0:
                prefill_s += time.perf_counter() - t0
            else:
                decode_s += time.perf_counter() - t0
            steps += 1
            if fill_ids:  # already accepted into the matcher
                ended_raw = not tokenizer.decode(fill_ids).rstrip().endswith('"')
                out += fill_ids
                pending = fill_ids
                forced += len(fill_ids)
                continue
            if not matcher.accept_token(token):
                break  # cannot happen with a valid mask; stop rather than emit invalid text
            out.append(token)
            pending = [token]
    return DecodeResult(out, matcher.is_terminated(), steps, forced, prefill_s, decode_s, timed_out, tool_scores)
