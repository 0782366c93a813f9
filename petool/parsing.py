"""Turn model text into a ToolCall, or a failure value. Never raises.

Two modes:
- ``paper``: the authors' extraction, quirks included: the first match of their regex on a
  single line (no DOTALL, lazy braces, so nested parameter objects break it), then ``json.loads``.
- ``robust``: the first JSON object anywhere in the text that has ``tool_name`` and
  ``parameters`` (code fences, pretty-printed JSON, prose around it, parameters given as a JSON
  string).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from petool.schema import ToolCall

PAPER_PATTERN = re.compile(r'\{.*"tool_name":\s*".*?",\s*"parameters":\s*\{.*?\}\}')
PARSE_MODES = ("paper", "robust")
MAX_SCAN_CHARS = 200_000
"""Robust parsing looks at this many characters at most, so a runaway output costs bounded time."""


@dataclass
class Parsed:
    """The outcome of parsing: ``call`` is set when ``error`` is ``"ok"``."""

    call: ToolCall | None
    error: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.call is not None


def parse_call(text: Any, mode: str = "robust") -> Parsed:
    """Extract a tool call from model output.

    Args:
        text: the raw model output (anything; non-strings fail as ``format:empty``).
        mode: ``paper`` or ``robust``.
    Returns:
        Parsed with the call, or with ``call=None`` and a ``format:*`` error code.

    Example:
        >>> parse_call('```json\\n{"tool_name": "<A>.<B>.<C>", "parameters": {}}\\n```').call
        ToolCall(tool_name='<A>.<B>.<C>', parameters={})
    """
    if not isinstance(text, str) or not text.strip():
        return Parsed(None, "format:empty", "the output is empty")
    if mode == "paper":
        return _parse_paper(text)
    if mode == "robust":
        return _parse_robust(text)
    return Parsed(None, "format:bad_mode", f"unknown parse mode {mode!r}; valid: {', '.join(PARSE_MODES)}")


def _parse_paper(text: str) -> Parsed:
    match = PAPER_PATTERN.search(text)
    if not match:
        return Parsed(None, "format:no_call", "no single-line match of the authors' tool-call pattern")
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        return Parsed(None, "format:bad_json", f"the matched text is not valid JSON: {exc.msg}")
    return _to_call(value, allow_string_parameters=False)


def _parse_robust(text: str) -> Parsed:
    text = text[:MAX_SCAN_CHARS]
    decoder = json.JSONDecoder()
    first_failure: Parsed | None = None
    saw_brace = False
    for match in re.finditer(r"\{", text):
        saw_brace = True
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if not isinstance(value, dict):
            continue
        if "tool_name" in value:
            parsed = _to_call(value, allow_string_parameters=True)
            if parsed.ok:
                return parsed
            first_failure = first_failure or parsed
    if first_failure:
        return first_failure
    if saw_brace and '"tool_name"' in text:
        return Parsed(None, "format:bad_json", "a tool call is started but is not valid JSON (truncated?)")
    return Parsed(None, "format:no_call", "no JSON object with tool_name and parameters")


def _to_call(value: Any, allow_string_parameters: bool) -> Parsed:
    if not isinstance(value, dict) or not isinstance(value.get("tool_name"), str):
        return Parsed(None, "format:bad_shape", "tool_name is missing or not a string")
    if "parameters" not in value:
        return Parsed(None, "format:bad_shape", "parameters are missing")
    params = value["parameters"]
    if isinstance(params, str) and allow_string_parameters:
        try:
            params = json.loads(params) if params.strip() else {}
        except json.JSONDecodeError:
            return Parsed(None, "format:bad_shape", "parameters is a string that is not a JSON object")
    if not isinstance(params, dict):
        return Parsed(None, "format:bad_shape", f"parameters must be an object, got {type(params).__name__}")
    return Parsed(ToolCall(value["tool_name"], params), "ok")
