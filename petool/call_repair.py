"""Repairs of a decoded call: a call cut off by the token budget closed into a complete one, and
an example value the prompt showed cut short given back whole.
"""

from __future__ import annotations

import json
import re

from petool.schema import Tool

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
    name_part = text[len(head) :] if text.startswith(head) else ""
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
    cut = {
        k: examples[k]
        for k, v in params.items()
        if isinstance(v, str)
        and k in examples
        and len(v) > 3
        and v.endswith("...")
        and len(examples[k]) > len(v) - 3
        and examples[k].startswith(v[:-3])
    }
    if not cut:
        return text
    return json.dumps({**call, "parameters": {k: cut.get(k, v) for k, v in params.items()}}, ensure_ascii=False)
