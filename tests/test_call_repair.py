"""Repairs of a decoded call: a call cut by the budget closed, a cut example value given back whole."""

import json

import pytest

from petool.call_repair import close_call, restore_cut_examples
from petool.schema import Parameter, Tool


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"tool_name": "<A>.<B>.<c>", "parameters": {}}', {"tool_name": "<A>.<B>.<c>", "parameters": {}}),
        ('{"tool_name": "<A>.<B>.<c>", "parameters": {"x": 1, "y": "ab', {"tool_name": "<A>.<B>.<c>", "parameters": {"x": 1}}),
        ('{"tool_name": "<A>.<B>.<c>", "parameters": {"x": "a\\"b", "y": 12', {"tool_name": "<A>.<B>.<c>", "parameters": {"x": 'a"b'}}),
        ('{"tool_name": "<A>.<B>.<c>", "parameters": {"x": true, "y"', {"tool_name": "<A>.<B>.<c>", "parameters": {"x": True}}),
        ('{"tool_name": "<A>.<B>.<d', {"tool_name": "<A>.<B>.<d>", "parameters": {}}),
        ('{"tool_na', {"tool_name": "<A>.<B>.<c>", "parameters": {}}),
        ("", {"tool_name": "<A>.<B>.<c>", "parameters": {}}),
    ],
)
def test_close_call_table(text, expected):
    candidates = [Tool("<A>.<B>.<c>"), Tool("<A>.<B>.<d>")]
    assert json.loads(close_call(text, candidates)) == expected


_URI = Tool(
    "<M>.<S>.<radio>",
    required_parameters=[Parameter("uri", default="spotify:artist:2w9zwq3AktTeYYMuhMjju8"), Parameter("n", "NUMBER", default="5")],
    optional_parameters=[Parameter("seed", default="spotify:track:4WNcduiCmDNfmTEz7JvmLv")],
)


def _call(params, name=_URI.name):
    return json.dumps({"tool_name": name, "parameters": params}, ensure_ascii=False)


@pytest.mark.parametrize(
    "params, expected",
    [
        ({"uri": "spotify:artist:2w9zwq3A...", "n": 5}, {"uri": "spotify:artist:2w9zwq3AktTeYYMuhMjju8", "n": 5}),
        ({"n": 5, "uri": "spotify:artist:2w9zwq3A..."}, {"n": 5, "uri": "spotify:artist:2w9zwq3AktTeYYMuhMjju8"}),  # order kept
        ({"uri": "spotify:artist:XYZ..."}, None),  # not the example's beginning
        ({"uri": "spotify:artist:2w9zwq3A"}, None),  # no cut mark
        ({"uri": "..."}, None),  # a cut mark alone
        ({"uri": "spotify:artist:2w9zwq3AktTeYYMuhMjju8..."}, None),  # longer than the example
        ({"uri": "x", "seed": "spotify:track:4WNc..."}, None),  # optional examples are not shown
    ],
)
def test_a_value_copied_from_a_cut_example_gets_the_whole_example(params, expected):
    out = restore_cut_examples(_call(params), [_URI])
    assert out == _call(expected if expected is not None else params)


@pytest.mark.parametrize("text", ["not json", _call({"uri": "spotify:artist:2w9z..."}, "<X>.<Y>.<z>"), '{"tool_name": 3}', "[]"])
def test_restoring_cut_examples_leaves_other_text_alone(text):
    assert restore_cut_examples(text, [_URI]) == text
