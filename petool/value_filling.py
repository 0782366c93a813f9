"""Holding a call's parameters to what the instruction states (the close penalty's step).

While decoding writes the parameters, a value the instruction names goes in where a key may
open, a close the model would take is held back while a stated value is missing, and once every
stated and named value is written the parameters close (``petool.decoding``'s ``close_penalty``
and ``named_values``). Works on the decoded text and the grammar matcher; token ids come from
``tokens_starting_with``.
"""

from __future__ import annotations

import json
import re


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
        _STARTING[key] = [
            i for i in tokens_starting_with(tokenizer, "{") + tokens_starting_with(tokenizer, " {") if tokenizer.decode([i]).strip() == "{"
        ]
    return _STARTING[key]


def hold_to_the_instruction(
    matcher,
    tokenizer,
    logits,
    token: int,
    head: str,
    written: str,
    stated,
    named_values,
    close_penalty: float,
    closers: set[int],
    closer_ids,
    go_on_ids,
    quote_id,
) -> tuple[list[int], int]:
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
        if (
            quote_id is not None
            and text.startswith('"')
            and text[1:].lstrip().startswith(",")
            and float(logits[0, quote_id]) > float("-inf")
        ):
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
