"""Parsing: the authors' regex with its quirks, the robust mode, and failures as values."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from petool.parsing import parse_call
from petool.schema import ToolCall

A = "<Weather>.<SkyCast Pro>.</v1/forecast/{city}>"

# (text, paper result, robust result): a call dict, or the expected error code.
CASES = [
    ("plain one line", f'{{"tool_name": "{A}", "parameters": {{"city": "Rome"}}}}', {"city": "Rome"}, {"city": "Rome"}),
    ("prose around it", f'Sure! {{"tool_name": "{A}", "parameters": {{}}}} done', {}, {}),
    ("code fence", f'```json\n{{"tool_name": "{A}", "parameters": {{"days": 3}}}}\n```', {"days": 3}, {"days": 3}),
    (
        "pretty printed: paper is single-line only",
        f'{{\n  "tool_name": "{A}",\n  "parameters": {{"days": 3}}\n}}',
        "format:no_call",
        {"days": 3},
    ),
    (
        "one nested level still matches",
        f'{{"tool_name": "{A}", "parameters": {{"o": {{"u": 1}}, "k": 2}}}}',
        {"o": {"u": 1}, "k": 2},
        {"o": {"u": 1}, "k": 2},
    ),
    (
        "nested object at the end: lazy braces cut the paper match",
        f'{{"tool_name": "{A}", "parameters": {{"o": {{"u": {{"v": 1}}}}}}}}',
        "format:bad_json",
        {"o": {"u": {"v": 1}}},
    ),
    (
        "parameters as a JSON string",
        f'{{"tool_name": "{A}", "parameters": "{{\\"city\\": \\"Rome\\"}}"}}',
        "format:no_call",
        {"city": "Rome"},
    ),
    ("python code instead of a call", "import requests\nrequests.get('http://x')", "format:no_call", "format:no_call"),
    ("truncated json", f'{{"tool_name": "{A}", "parameters": {{"city": "Ro', "format:no_call", "format:bad_json"),
    ("empty", "   ", "format:empty", "format:empty"),
    ("tool_name not a string", '{"tool_name": 5, "parameters": {}}', "format:no_call", "format:bad_shape"),
    ("parameters missing", f'{{"tool_name": "{A}"}}', "format:no_call", "format:bad_shape"),
    (
        "first of two calls wins",
        f'{{"tool_name": "{A}", "parameters": {{"a": 1}}}} {{"tool_name": "x", "parameters": {{}}}}',
        "format:bad_json",
        {"a": 1},
    ),
]


@pytest.mark.parametrize("label, text, paper, robust", CASES, ids=[c[0] for c in CASES])
def test_parse_table(label, text, paper, robust):
    for mode, expected in (("paper", paper), ("robust", robust)):
        got = parse_call(text, mode)
        if isinstance(expected, dict):
            assert got.error == "ok", (mode, got)
            assert got.call == ToolCall(A, expected)
        else:
            assert got.call is None and got.error == expected, (mode, got)


def test_non_string_and_unknown_mode_are_failures_not_exceptions():
    assert parse_call(None).error == "format:empty"
    assert parse_call(b"bytes").error == "format:empty"
    assert parse_call('{"tool_name": "a", "parameters": {}}', "fancy").error == "format:bad_mode"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(name=st.text(), params=st.dictionaries(st.text(), json_values, max_size=4))
def test_formatting_and_robust_parsing_are_inverses(name, params):
    call = ToolCall(name, params)
    assert parse_call(call.to_text(), "robust").call == call
    assert parse_call(f"Here you go:\n```json\n{call.to_text()}\n```", "robust").call == call


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parser_never_raises(text):
    for mode in ("paper", "robust"):
        parsed = parse_call(text, mode)
        assert (parsed.call is None) == (parsed.error != "ok")
