"""Structured decoding: the model can only write a JSON call to one of the entry's candidates.

Per entry we build a JSON schema (anyOf over candidates: ``tool_name`` is a const, and
``parameters`` an object with that tool's required parameters and, optionally, its other
parameters), compile it
with xgrammar for the model's tokenizer, and run a greedy loop that masks the logits with the
grammar's token bitmask. Two things make it fast on CPU:

- jump-forward: text the grammar forces (``{"tool_name": "<``, the rest of a tool name once its
  prefix is unique, ``"}}``) is appended without a model step, several tokens in one forward;
- the loop stops the moment the call is complete (no end-of-turn token needed).

If the token budget runs out mid-call, ``close_call`` keeps the complete part and closes it, so
the output always parses to a call on a candidate.

Optionally the tool is chosen as a whole rather than token by token (``tool_bias``): each
candidate's name is scored by the model's log-likelihood plus a bias (petool passes its ranking's
log prior), the best is forced, and decoding goes on with its parameters.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from petool.schema import Tool, extends_name

MAX_STRING_CHARS = 128
"""Longest string value the grammar allows (gold values on the dev data are at most 37 chars)."""

SCALAR_VALUE = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}
"""Values of a parameter whose declared type says nothing usable."""


def value_schema(param_type: str) -> dict:
    """The JSON values a parameter of this ToolBench type may take.

    Scoring is type-sensitive (5 != "5") and small models often quote numbers, so the declared
    type decides: on the real dev entries NUMBER golds are numbers in 280 of 302 values and
    STRING/ENUM golds strings in 436 of 441, so following the declaration wins far more than it
    loses. Types outside these (DATE, ARRAY, OBJECT, GEOPOINT...) are written as strings, as the
    real golds write them; an empty or unknown type allows any scalar.

    Example:
        >>> value_schema("NUMBER"), value_schema("DATE (YYYY-MM-DD)"), value_schema("")
        ({'type': 'number'}, {'type': 'string'}, {'anyOf': [{'type': 'string'}, {'type': 'number'}, {'type': 'boolean'}]})
    """
    kind = (param_type or "").strip().upper()
    if kind.startswith(("NUMBER", "INTEGER", "INT", "FLOAT")):
        return {"type": "number"}
    if kind.startswith("BOOL"):
        return {"type": "boolean"}
    if kind.startswith(("STRING", "ENUM", "DATE", "ARRAY", "OBJECT", "GEOPOINT", "BINARY", "TIME")):
        return {"type": "string"}
    return SCALAR_VALUE


def call_schema(candidates: list[Tool], echoed: dict[str, dict] | None = None) -> dict:
    """JSON schema of a call to one of ``candidates``: parameters in declared order, the tool's
    required ones always present, values of their declared type (``value_schema``).

    ``echoed`` (``{tool name: {parameter: value}}``, ``query.echoed_values``) lets those
    parameters also take their value's own JSON type: the user's earlier call for the same
    instruction wrote it so (``"start": "1"`` under NUMBER), and so does the ground truth.

    Required parameters are required because the benchmark's calls always carry them (all 450
    real dev golds do; 68% carry exactly them) and a small model otherwise stops early: 37 of
    the shipped adapter's 137 wrong parameter sets on the right tool (r, all 450) lacked one.

    Example:
        >>> s = call_schema([Tool("<A>.<B>.<c>", required_parameters=[])])
        >>> s["anyOf"][0]["properties"]["tool_name"]
        {'const': '<A>.<B>.<c>'}
    """
    if not candidates:
        raise ValueError("cannot build a call grammar for an entry with no candidate tools")
    options = []
    for tool in candidates:
        types: dict[str, str] = {}
        for param in tool.required_parameters + tool.optional_parameters:
            types.setdefault(param.name, param.type)  # a repeated name keeps its first declaration
        required = list(dict.fromkeys(p.name for p in tool.required_parameters))
        values = {n: value_schema(t) for n, t in types.items()}
        for name, value in ((echoed or {}).get(tool.name) or {}).items():
            if name in values and (kind := _json_type(value)) and not _allows(values[name], kind):
                values[name] = {"anyOf": [values[name], {"type": kind}]}
        options.append({
            "type": "object",
            "properties": {
                "tool_name": {"const": tool.name},
                "parameters": {
                    "type": "object",
                    "properties": values,
                    **({"required": required} if required else {}),
                    "additionalProperties": False,
                },
            },
            "required": ["tool_name", "parameters"],
            "additionalProperties": False,
        })
    return {"anyOf": options}


def _json_type(value) -> str | None:
    """The JSON schema type of a scalar value (None for lists, objects and null)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else None


def _allows(schema: dict, kind: str) -> bool:
    return schema.get("type") == kind or any(option.get("type") == kind for option in schema.get("anyOf", []))


class CallGrammar:
    """Compiles per-entry call grammars for one tokenizer (compiling the tokenizer info once).

    Args:
        tokenizer: a Hugging Face tokenizer.
        vocab_size: the model's logits width (``config.vocab_size``), which may exceed the
            tokenizer's length when the embedding is padded.
    """

    def __init__(self, tokenizer, vocab_size: int | None = None):
        import xgrammar as xgr

        self.tokenizer = tokenizer
        self.vocab_size = vocab_size or len(tokenizer)
        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=self.vocab_size)
        self._compiled: dict = {}
        self.compiler = xgr.GrammarCompiler(info, max_threads=max(1, min(8, os.cpu_count() or 1)))

    def matcher(self, candidates: list[Tool], echoed: dict[str, dict] | None = None):
        """A fresh grammar matcher for one generation over ``candidates`` (``echoed``: see ``call_schema``)."""
        import xgrammar as xgr

        schema = json.dumps(call_schema(candidates, echoed), ensure_ascii=False)
        compiled = self._compiled.pop(schema, None)
        if compiled is None:
            # any_whitespace=False: the output is json.dumps' one-line layout, as in the SFT data.
            grammar = xgr.Grammar.from_json_schema(schema, any_whitespace=False, strict_mode=True)
            compiled = self.compiler.compile_grammar(xgr.Grammar.from_ebnf(bound_values(str(grammar))))
        self._compiled[schema] = compiled  # most recent last; one entry is asked for p, r, c, base, adapter
        while len(self._compiled) > 32:
            self._compiled.pop(next(iter(self._compiled)))
        return xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)


BOUNDED_RULES = {
    # strings: at most MAX_STRING_CHARS characters (escapes allowed, control characters not), and
    # no "}": the authors' evaluator cuts a call at its first "}}" (docs/petoolbench.md §5), so a value
    # holding one would be scored as broken JSON; none of the 28,607 string values of the real
    # dev golds and histories holds a "}" (tool names and keys are literals, not this rule)
    'basic_string ::= (("\\"" basic_string_sub))':
        f'basic_string ::= (("\\"" basic_string_char{{0, {MAX_STRING_CHARS}}} "\\""))\n'
        'basic_string_char ::= (([^\\0-\\x1f\\"\\\\\\r\\n}]) | ("\\\\" basic_escape))',
    # numbers: integer part at most 15 digits; fraction and exponent at most 8
    "([1-9] [0-9]*)": "([1-9] [0-9]{0,14})",
    "basic_number_digits{1, -1}": "basic_number_digits{1, 8}",
}


def bound_values(ebnf: str) -> str:
    """Bound the length of JSON strings and numbers in xgrammar's EBNF for a JSON schema.

    A small model, once inside a value, can repeat a character until the budget is spent.
    xgrammar 0.2.8 ignores ``maximum``, and its ``maxLength`` string admits control characters
    (invalid JSON) while a ``pattern`` string makes compiling take seconds per entry; so the bounds
    go into the grammar text. Raises ValueError if a rule is not there (another xgrammar version:
    update BOUNDED_RULES).
    """
    for old, new in BOUNDED_RULES.items():
        if old not in ebnf:
            raise ValueError(f"xgrammar's JSON rule {old!r} not found; update petool.decoding.BOUNDED_RULES")
        ebnf = ebnf.replace(old, new)
    return ebnf


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


def call_head(tool_name: str) -> str:
    """The start of a call through its tool name and the comma after it, as the grammar writes it.

    The comma belongs in: the tokenizer merges a name's closing quote with it (``>",``), so a
    head cut at the quote would be tokenized unlike every call the model was trained on.
    """
    return '{"tool_name": ' + json.dumps(tool_name, ensure_ascii=False) + ","


def _name_logprobs(model, tokenizer, cache, last_logits, names: list[str]) -> dict[str, list]:
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
    or go on, and the trained adapter closes it against the instruction (-15 nats for "By" on the
    real dev entries where "...ByTopic" is right; the untuned base prefers "By"): petool's
    generated catalog rarely has a name that goes on past another's end (4 of 621 APIs), so
    training never showed it. Such names are told apart by the bias (the ranking's prior, which
    reads the instruction against each description); where the bias ties them, by the model.
    Measured (shipped adapter, w = 2.5): all 450 real dev entries p / r / c 69.3 / 94.0 / 92.2 ->
    70.4 / 95.6 / 93.8 (5, 7, 7 fixed, none broken); generated entries with narrowed twins
    (``benchmarks/tool_choice.py --narrowed 0.5 --copied 0.9``, 418 per setting) p 56.9 -> 62.2,
    r 77.8 -> 81.1 (23 fixed / 1 broken, 14 / 0); on 400 r entries of clusters no adapter
    trained on, 353 -> 358: the longer name right 65 -> 75, the shorter 93 -> 88 (the ranking
    puts the twin first, its description holding every word of the other's).
    """
    # One hop is enough: extending is transitive (a < ab < abc), and two names that extend a third
    # but not each other ("...ByTopic", "...ByDate") part at an ordinary token the model can judge.
    best = {n: max(scores[m] for m in scores if m == n or extends_name(m, n) or extends_name(n, m)) for n in scores}
    return max(scores, key=lambda n: (best[n] + bias.get(n, 0.0), scores[n]))


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


def score_names(model, tokenizer, prompt_ids: list[int], names: list[str]) -> dict[str, float]:
    """Each name's log-likelihood as the start of the answer to ``prompt_ids`` (as ``tool_bias``
    scores them), without decoding further; for tuning the prior's weight offline."""
    import torch
    from transformers import DynamicCache

    device = next(model.parameters()).device
    cache = DynamicCache()
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([prompt_ids], device=device), past_key_values=cache, use_cache=True,
                       logits_to_keep=1).logits[:, -1, :]
        scored = _name_logprobs(model, tokenizer, cache, logits, names)
    return {name: v[0] for name, v in scored.items()}


def _chosen_values(head: str, named: dict[str, dict[str, str]] | None) -> dict[str, str]:
    """The named values of the tool that ``head`` (the text before "parameters") calls."""
    found = re.search(r'"tool_name":\s*"((?:[^"\\]|\\.)*)"', head)
    if not named or not found:
        return {}
    return named.get(json.loads(f'"{found.group(1)}"'), {})


def _missing_values(head: str, written: str, named: dict[str, dict[str, str]] | None) -> dict[str, str]:
    """The chosen tool's named values not yet in ``written`` (the text after "parameters")."""
    return {k: v for k, v in _chosen_values(head, named).items() if json.dumps(k, ensure_ascii=False) + ":" not in written}


_OPEN_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*$')


def _accept_text(matcher, tokenizer, texts) -> list[int]:
    """Tokens of the first of ``texts`` the grammar accepts whole, accepted into ``matcher`` (or none)."""
    for text in texts:
        ids = tokenizer.encode(text, add_special_tokens=False)
        for n, tok in enumerate(ids):
            if not matcher.accept_token(tok):
                if n:
                    matcher.rollback(n)
                break
        else:
            return ids
    return []


def _as_written(value) -> tuple[str, ...]:
    # a JSON string first; as written where the grammar wants a number or a boolean. A value
    # that is not a string (an earlier call's, query.echoed_values) keeps its own JSON type.
    if not isinstance(value, str):
        return (json.dumps(value, ensure_ascii=False),)
    return json.dumps(value, ensure_ascii=False), value


def _accept_first_value(matcher, tokenizer, missing: dict[str, str], prefix: str) -> list[int]:
    """Tokens that set the first missing parameter the grammar still allows to its named value.

    ``prefix`` is what goes before the key where decoding stands (", " after a value, " "
    after a comma, "" after the opening brace). The value is tried as a JSON string, then as
    written (a number or boolean parameter); the tokens are accepted into ``matcher``, or none is.
    """
    for key, named in missing.items():
        ids = _accept_text(matcher, tokenizer, [prefix + json.dumps(key, ensure_ascii=False) + ": " + v for v in _as_written(named)])
        if ids:
            return ids
    return []


def _position(written: str) -> str:
    """Where decoding stands in the parameters' text: "string" (inside a string), "value"
    (after a colon), "first" (after the opening brace), "next" (after a comma) or "after" (a
    value is complete or may go on: a number)."""
    if len(re.findall(r'(?<!\\)"', written)) % 2:
        return "string"
    end = written.rstrip()[-1:]
    return {":": "value", "{": "first", ",": "next"}.get(end, "after")


def tokens_starting_with(tokenizer, char: str) -> list[int]:
    """Ids of the tokens whose text starts with ``char`` (cached per tokenizer).

    Outside string values, a token starting with "}" closes the parameters, and one starting
    with "," (or, before the first, '"') opens another; the grammar keeps "}" out of string
    values altogether.
    """
    key = (getattr(tokenizer, "name_or_path", ""), len(tokenizer), char)
    if key not in _STARTING:
        vocab = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        _STARTING[key] = [i for i, t in enumerate(vocab) if t and tokenizer.convert_tokens_to_string([t]).startswith(char)]
    return _STARTING[key]


_STARTING: dict = {}


def _bare_braces(tokenizer) -> list[int]:
    """Ids of the tokens that are an opening brace alone ("{", " {"; cached per tokenizer)."""
    key = (getattr(tokenizer, "name_or_path", ""), len(tokenizer), "bare {")
    if key not in _STARTING:
        _STARTING[key] = [i for i in tokens_starting_with(tokenizer, "{") + tokens_starting_with(tokenizer, " {")
                          if tokenizer.decode([i]).strip() == "{"]
    return _STARTING[key]


def _hold_to_the_instruction(matcher, tokenizer, logits, token: int, head: str, written: str, stated, named_values,
                             close_penalty: float, closers: set[int], closer_ids, go_on_ids, quote_id) -> tuple[list[int], int]:
    """The close penalty's step: (tokens forced into the matcher, or [], and the token to take).

    Where a key may open (after "{", ",", or where the model ends a value) a missing named
    value goes in; once every stated and named value is written, a key the model would open
    becomes the close; while a stated value is missing, a close the model would take becomes
    the likeliest continuation if its logit plus ``close_penalty`` beats it. A token that ends
    a string and opens the next key at once (``",``) is cut to the quote, so that choice is
    made at the next step.
    """
    import torch

    where = _position(written)
    text = tokenizer.decode([token])
    if where == "string":
        if quote_id is not None and text.startswith('"') and text[1:].lstrip().startswith(",") and \
                float(logits[0, quote_id]) > float("-inf"):
            return [], quote_id
        return [], token
    if where == "value":
        # a key whose value the instruction names (the grammar forces a required key, or the
        # model opened it) gets that value, not the model's copy of it ("5002, 6020")
        key = _OPEN_KEY.search(written)
        value = _chosen_values(head, named_values).get(json.loads(f'"{key.group(1)}"')) if key else None
        if value is not None:
            prefix = "" if written.endswith(" ") else " "
            fill = _accept_text(matcher, tokenizer, [prefix + v for v in _as_written(value)])
            if fill:
                return fill, token
        if not key and text.strip().startswith("{") and text.strip() != "{":
            # the parameters' brace merged with the first key's quote (' {"'): take the brace
            # alone, so that whether a key opens at all is decided at the next step
            braces = [i for i in _bare_braces(tokenizer) if i < logits.shape[-1]]
            if braces:
                best = max(braces, key=lambda i: float(logits[0, i]))
                if float(logits[0, best]) > float("-inf"):
                    return [], best
        return [], token
    missing = _missing_values(head, written, named_values)
    values_missing = any(v not in written.lower() for v in stated or [])
    ends_value = where == "after" and text.lstrip()[:1] in (",", "}")
    if missing and (where in ("first", "next") or ends_value):
        prefix = {"first": "", "next": " "}.get(where, ", ")
        fill = _accept_first_value(matcher, tokenizer, missing, prefix)
        if fill:
            return fill, token
    opens_key = (where == "first" and token not in closers) or (ends_value and text.lstrip().startswith(","))
    if opens_key and not values_missing:
        # all the instruction states is written: another key would be a guess
        close = logits[0, closer_ids]
        best = int(torch.argmax(close))
        if float(close[best]) > float("-inf"):
            return [], int(closer_ids[best])
    elif values_missing and where in ("first", "after") and text.lstrip().startswith("}"):
        go_on = logits[0, go_on_ids]
        best = int(torch.argmax(go_on))
        if float(go_on[best]) + close_penalty > float(logits[0, token]):
            return [], int(go_on_ids[best])
    return [], token


def constrained_generate(model, tokenizer, prompt_ids: list[int], matcher, max_new_tokens: int,
                         max_time_s: float | None = None, tool_bias: dict[str, float] | None = None,
                         stated: list[str] | None = None, close_penalty: float = 0.0,
                         named_values: dict[str, dict[str, object]] | None = None) -> DecodeResult:
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
            real dev entries' gold tools, 410 of 450 ground truths hold no other optional
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
    go_on_ids = tokens_starting_with(tokenizer, ",") + tokens_starting_with(tokenizer, '"') + tokens_starting_with(tokenizer, ' "') if closers else []
    go_on_ids = torch.tensor([i for i in go_on_ids if i < vocab_size])
    quote = tokenizer.encode('"', add_special_tokens=False)
    quote_id = quote[0] if len(quote) == 1 else None
    closer_ids = torch.tensor(sorted(i for i in (closers or ()) if i < vocab_size), dtype=torch.long)
    value_enders = torch.tensor(sorted(set(closer_ids.tolist()) | {i for i in tokens_starting_with(tokenizer, ",") if i < vocab_size}),
                                dtype=torch.long) if closers else None
    ended_raw = False
    start = time.perf_counter()
    with torch.inference_mode():
        if tool_bias:
            logits = model(input_ids=torch.tensor([pending], device=device), past_key_values=cache, use_cache=True,
                           logits_to_keep=1).logits[:, -1, :]
            scored = _name_logprobs(model, tokenizer, cache, logits, list(tool_bias))
            tool_scores = {name: round(v[0], 4) for name, v in scored.items()}
            best = choose_tool({name: v[0] for name, v in scored.items()}, tool_bias)
            head = scored[best][1][: max_new_tokens]
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
                fill_ids, token = _hold_to_the_instruction(matcher, tokenizer, logits, token, head, written, stated,
                                                           named_values, close_penalty, closers, closer_ids, go_on_ids, quote_id)
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


_PAIR_RE = re.compile(r'\s*"((?:[^"\\]|\\.)*)"\s*:\s*')


def close_call(text: str, candidates: list[Tool]) -> str:
    """Turn a call cut off by the token budget into a complete call on a candidate.

    Keeps every complete ``"name": value`` pair of the parameters and drops the rest; a cut tool
    name becomes the first candidate it is a prefix of. Complete calls come back unchanged.

    Example:
        >>> close_call('{"tool_name": "<A>.<B>.<c>", "parameters": {"x": 1, "y": "ab',
        ...            [Tool("<A>.<B>.<c>")])
        '{"tool_name": "<A>.<B>.<c>", "parameters": {"x": 1}}'
    """
    try:
        json.loads(text)
        return text
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    head = '{"tool_name": "'
    name_part = text[len(head):] if text.startswith(head) else ""
    name = None
    try:
        name, end = decoder.raw_decode(text, len(head) - 1)
    except ValueError:
        end = len(text)
    if not isinstance(name, str) or all(t.name != name for t in candidates):
        prefix = name if isinstance(name, str) else name_part
        match = next((t for t in candidates if t.name.startswith(prefix)), candidates[0])
        return json.dumps({"tool_name": match.name, "parameters": {}}, ensure_ascii=False)
    params: dict = {}
    rest = text[end:]
    start = rest.find("{")
    pos = start + 1 if start >= 0 else len(rest)
    while pos < len(rest):
        m = _PAIR_RE.match(rest, pos)
        if not m:
            break
        try:
            value, after = decoder.raw_decode(rest, m.end())
        except ValueError:
            break
        if after >= len(rest) and isinstance(value, (int, float)) and not isinstance(value, bool):
            break  # a number at the very end may have been cut mid-digits
        params[json.loads(f'"{m.group(1)}"')] = value
        pos = after
        while pos < len(rest) and rest[pos] in ", ":
            pos += 1
    return json.dumps({"tool_name": name, "parameters": params}, ensure_ascii=False)


def restore_cut_examples(text: str, candidates: list[Tool]) -> str:
    """Give back the whole example value where the call copied one the prompt cut short.

    The compact and shortlist prompts show a required parameter's example cut at
    ``prompts.COMPACT_DEFAULT_CHARS`` characters with "..."; a model asked to use "the given URI"
    copies what it sees ("spotify:artist:2w9zwq3A..."), a value no API takes. A string value
    that ends with "..." and begins the parameter's example becomes the example. Other calls
    come back unchanged.

    Example:
        >>> from petool.schema import Parameter
        >>> t = Tool("<A>.<B>.<c>", required_parameters=[Parameter("uri", default="spotify:artist:2w9zwq3AktTeYYMuhMjju8")])
        >>> restore_cut_examples('{"tool_name": "<A>.<B>.<c>", "parameters": {"uri": "spotify:artist:2w9z..."}}', [t])
        '{"tool_name": "<A>.<B>.<c>", "parameters": {"uri": "spotify:artist:2w9zwq3AktTeYYMuhMjju8"}}'
    """
    try:
        call = json.loads(text)
        tool = next(t for t in candidates if t.name == call["tool_name"])
        params = call["parameters"]
    except (ValueError, TypeError, KeyError, StopIteration):
        return text
    examples = {p.name: str(p.default) for p in tool.required_parameters if p.default not in ("", None)}
    cut = {k: examples[k] for k, v in params.items() if isinstance(v, str) and k in examples and len(v) > 3
           and v.endswith("...") and len(examples[k]) > len(v) - 3 and examples[k].startswith(v[:-3])}
    if not cut:
        return text
    return json.dumps({**call, "parameters": {k: cut.get(k, v) for k, v in params.items()}}, ensure_ascii=False)
