"""The grammar of a call: the schema per entry, and what the compiled grammar accepts."""

import pytest

from petool.call_grammar import call_schema
from petool.schema import Parameter, Tool
from tests.fixtures.entries import weather_entry


def test_schema_is_any_of_candidates_with_declared_parameters_required_ones_required():
    entry = weather_entry()
    schema = call_schema(entry.candidates)
    assert [o["properties"]["tool_name"]["const"] for o in schema["anyOf"]] == [t.name for t in entry.candidates]
    weather = schema["anyOf"][1]["properties"]["parameters"]
    assert list(weather["properties"]) == ["city", "days", "units"]
    assert weather["additionalProperties"] is False and weather["required"] == ["city"]
    flight = schema["anyOf"][2]["properties"]["parameters"]  # only optional parameters
    assert list(flight["properties"]) == ["date"] and "required" not in flight


def test_schema_needs_candidates():
    with pytest.raises(ValueError, match="no candidate tools"):
        call_schema([])


def test_grammar_bounds_strings_and_numbers(tiny_decoder):
    _, _, grammar = tiny_decoder
    tool = [Tool("<A>.<B>.<c>", required_parameters=[Parameter("q", "")])]  # untyped: any scalar
    head = '{"tool_name": "<A>.<B>.<c>", "parameters": {"q": '
    cases = {
        "123}}": True,
        "-1.5e10}}": True,
        '"é 😀 ok"}}': True,
        "true}}": True,
        "1" * 16 + "}}": False,  # runaway digits
        '"' + "a" * 129 + '"}}': False,  # runaway string
        '"a\x13b"}}': False,  # control character: invalid JSON
        '"a\\"b"}}': True,  # escapes are fine
        '"{{city}}"}}': False,
        '"a}"}}': False,  # the authors' regex would cut the call at a "}}" inside
        "null}}": False,
        '{"x": 1}}}': False,
        "[1]}}": False,
    }
    for text, ok in cases.items():
        m = grammar.matcher(tool)
        assert (m.accept_string(head + text) and m.is_terminated()) == ok, text
    m = grammar.matcher(tool)
    assert not m.accept_string('{"tool_name": "<A>.<B>.<c>", "parameters": {"x": 1}}')  # unknown parameter
    braced = Tool("<A>.<B>.</v1/{city}>", required_parameters=[Parameter("city", "STRING")])  # braces in a name are fine
    m = grammar.matcher([braced])
    assert m.accept_string('{"tool_name": "<A>.<B>.</v1/{city}>", "parameters": {"city": "Rome"}}') and m.is_terminated()


def test_grammar_requires_required_parameters_and_allows_skipping_optional_ones(tiny_decoder):
    _, _, grammar = tiny_decoder
    tool = Tool(
        "<A>.<B>.<c>",
        required_parameters=[Parameter("city", "STRING")],
        optional_parameters=[Parameter("days", "NUMBER"), Parameter("units", "ENUM")],
    )
    head = '{"tool_name": "<A>.<B>.<c>", "parameters": '
    cases = {
        '{"city": "Rome"}}': True,
        '{"city": "Rome", "units": "metric"}}': True,
        '{"city": "Rome", "days": 2, "units": "metric"}}': True,
        "{}}": False,
        '{"days": 2}}': False,  # the required city is missing
    }
    for text, ok in cases.items():
        m = grammar.matcher([tool])
        assert (m.accept_string(head + text) and m.is_terminated()) == ok, text


@pytest.mark.parametrize(
    "param_type, good, bad",
    [
        ("NUMBER", ["3", "-1.5"], ['"3"', "true"]),
        ("STRING", ['"3"', '"Rome"'], ["3", "false"]),
        ("ENUM", ['"asc"'], ["1"]),
        ("DATE (YYYY-MM-DD)", ['"2024-05-01"'], ["20240501"]),
        ("BOOLEAN", ["true", "false"], ['"true"', "1"]),
        ("", ["3", '"3"', "true"], ["null"]),
    ],
)
def test_values_follow_the_declared_type(tiny_decoder, param_type, good, bad):
    _, _, grammar = tiny_decoder
    tool = [Tool("<A>.<B>.<c>", optional_parameters=[Parameter("v", param_type)])]
    head = '{"tool_name": "<A>.<B>.<c>", "parameters": {"v": '
    for text, ok in [(g, True) for g in good] + [(b, False) for b in bad]:
        m = grammar.matcher(tool)
        assert (m.accept_string(head + text + "}}") and m.is_terminated()) == ok, (param_type, text)


def test_an_echoed_value_may_take_its_own_json_type():
    """The user's earlier call for the same instruction wrote "start": "1" under NUMBER (and the
    ground truth does too): the grammar then allows that parameter a string as well, and only it."""
    tool = Tool(
        "<A>.<B>.<s>",
        optional_parameters=[
            Parameter("start", "NUMBER"),
            Parameter("num", "NUMBER"),
            Parameter("q", "STRING"),
            Parameter("tags", "STRING"),
        ],
    )
    echoed = {tool.name: {"start": "1", "q": 10, "num": 15, "tags": ["a"]}, "<X>.<Y>.<z>": {"start": "1"}}
    params = call_schema([tool], echoed)["anyOf"][0]["properties"]["parameters"]["properties"]
    assert params["start"] == {"anyOf": [{"type": "number"}, {"type": "string"}]}
    assert params["q"] == {"anyOf": [{"type": "string"}, {"type": "number"}]}
    assert params["num"] == {"type": "number"} and params["tags"] == {"type": "string"}  # already allowed; a list is not a scalar
    assert call_schema([tool]) == call_schema([tool], {}) == call_schema([tool], {"<X>.<Y>.<z>": {"start": "1"}})
