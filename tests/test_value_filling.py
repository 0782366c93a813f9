"""Holding the parameters to what the instruction states: the close penalty and named values, on the tiny model."""

import json

import pytest
import torch

from petool.decoding import constrained_generate
from petool.schema import Parameter, Tool
from petool.value_filling import _position, tokens_starting_with
from tests.tiny_model import chat_prompt_ids


def test_tokens_starting_with_a_character(tiny_decoder):
    _, tok, _ = tiny_decoder
    closers, commas = set(tokens_starting_with(tok, "}")), set(tokens_starting_with(tok, ","))
    assert tok.convert_tokens_to_ids("}") in closers and tok.convert_tokens_to_ids(",") in commas
    assert all(tok.decode([i]).startswith("}") for i in closers) and all(tok.decode([i]).startswith(",") for i in commas)
    assert tok.convert_tokens_to_ids("{") not in closers and len(closers) < 200 and not closers & commas


def test_close_penalty_keeps_the_call_open_while_a_stated_value_is_missing(tiny_decoder):
    model, tok, grammar = tiny_decoder
    tool = Tool("<A>.<B>.<c>", optional_parameters=[Parameter(n, "NUMBER") for n in ("a", "b", "c")])
    written = {}
    for penalty, stated in [(0.0, ["unwritten"]), (1e9, ["unwritten"]), (1e9, [])]:
        result = constrained_generate(
            model, tok, chat_prompt_ids(tok, "values"), grammar.matcher([tool]), 200, stated=stated, close_penalty=penalty
        )
        written[(penalty, bool(stated))] = json.loads(tok.decode(result.token_ids))["parameters"]
    # a value that never gets written: closing is held back until the grammar allows nothing
    # else, i.e. after the last parameter (the grammar keeps the declared order)
    assert list(written[(1e9, True)])[-1] == "c" and "c" not in written[(0.0, True)], written
    # only the close-or-go-on choice moves: what the model wrote before it would have closed stays
    assert all(written[(1e9, True)][k] == v for k, v in written[(0.0, True)].items())
    # without a stated value, or without a penalty, the model closes when it likes
    assert written[(1e9, False)] == written[(0.0, True)] and len(written[(0.0, True)]) < 3


def test_close_penalty_sets_a_named_default_the_model_left_out(tiny_decoder):
    model, tok, grammar = tiny_decoder
    shop = Tool("<A>.<B>.<c>", optional_parameters=[Parameter("q"), Parameter("sort", default="recent")])
    flags = Tool("<A>.<B>.<d>", optional_parameters=[Parameter("fresh", "BOOLEAN", default="true")])
    named = {shop.name: {"sort": "recent"}, flags.name: {"fresh": "true"}, "<other>.<tool>.<x>": {"q": "x"}}
    calls = {}
    for tool in (shop, flags):
        for penalty in (0.0, 1e9):
            result = constrained_generate(
                model, tok, chat_prompt_ids(tok, "defaults"), grammar.matcher([tool]), 200, close_penalty=penalty, named_values=named
            )
            calls[tool.name, penalty] = json.loads(tok.decode(result.token_ids))["parameters"]
    # left alone, the model closes at once; held, it sets the named default (a string as a
    # string, a boolean as a boolean: the typed grammar refuses "true" in quotes), and another
    # tool's named defaults are not asked for
    assert calls[shop.name, 0.0] == {} and calls[flags.name, 0.0] == {}, calls
    assert calls[shop.name, 1e9] == {"sort": "recent"} and calls[flags.name, 1e9] == {"fresh": True}, calls


class _Eager(torch.nn.Module):
    """A model that always wants another parameter: its "," and '"' tokens get +50."""

    def __init__(self, inner, boosted):
        super().__init__()
        self.inner, self.config, self.boosted = inner, inner.config, boosted

    def forward(self, **kwargs):
        out = self.inner(**kwargs)
        out.logits[..., self.boosted] += 50.0
        return out


def _params_with_and_without_penalty(model, tok, grammar, prompt: str, tool: Tool, budget: int = 200, **kwargs) -> dict:
    """The parameters written with the close penalty off (0.0) and on (1e9)."""
    calls = {}
    for penalty in (0.0, 1e9):
        result = constrained_generate(
            model, tok, chat_prompt_ids(tok, prompt), grammar.matcher([tool]), budget, close_penalty=penalty, **kwargs
        )
        calls[penalty] = json.loads(tok.decode(result.token_ids))["parameters"]
    return calls


def test_named_values_go_in_first_and_nothing_unstated_follows(tiny_decoder):
    """A named value is written where the model would open the next key, before any later key
    (the grammar keeps schema order); once all that is stated and named is written, the
    parameters close although the model would go on."""
    model, tok, grammar = tiny_decoder
    eager = _Eager(model, tokens_starting_with(tok, ",") + tokens_starting_with(tok, '"')).eval()
    tool = Tool(
        "<A>.<B>.<e>",
        required_parameters=[Parameter("id", "NUMBER")],
        optional_parameters=[
            Parameter("country", default="US"),
            Parameter("size", "NUMBER"),
            Parameter("sort", default="recent"),
            Parameter("extra"),
        ],
    )
    calls = _params_with_and_without_penalty(
        eager, tok, grammar, "order", tool, 300, named_values={tool.name: {"country": "SG", "sort": "recent"}}
    )
    # left alone, it writes the keys in schema order up to the last one, with its own values
    assert list(calls[0.0])[:2] == ["id", "country"] and "extra" in calls[0.0] and calls[0.0]["country"] != "SG", calls
    assert list(calls[1e9]) == ["id", "country", "sort"], calls
    assert calls[1e9]["country"] == "SG" and calls[1e9]["sort"] == "recent", calls


def test_a_forced_number_is_not_lengthened(tiny_decoder):
    """A named number is whole: a model keen on digits may not grow "2" into "22..."."""
    model, tok, grammar = tiny_decoder
    digits = [i for d in "0123456789" for i in tokens_starting_with(tok, d)]
    keen = _Eager(model, digits).eval()
    tool = Tool("<A>.<B>.<f>", optional_parameters=[Parameter("number", "NUMBER"), Parameter("size", "NUMBER")])
    result = constrained_generate(
        keen, tok, chat_prompt_ids(tok, "page"), grammar.matcher([tool]), 200, close_penalty=1e9, named_values={tool.name: {"number": "2"}}
    )
    assert json.loads(tok.decode(result.token_ids))["parameters"] == {"number": 2}


def test_a_key_the_grammar_opens_gets_its_named_value(tiny_decoder):
    """A required key is the grammar's to write; its value, where the instruction names it, is
    then the named one, not the model's copy ("5002, 6020" for "5002,6020")."""
    model, tok, grammar = tiny_decoder
    tool = Tool(
        "<A>.<B>.<g>",
        required_parameters=[Parameter("ids", "STRING"), Parameter("page", "NUMBER")],
        optional_parameters=[Parameter("lang", default="en")],
    )
    calls = _params_with_and_without_penalty(model, tok, grammar, "ids", tool, named_values={tool.name: {"ids": "5002,6020", "page": "3"}})
    assert calls[0.0]["ids"] != "5002,6020" and calls[0.0]["page"] != 3, calls  # the random model's own values
    assert calls[1e9] == {"ids": "5002,6020", "page": 3}, calls  # a number as a number; nothing unstated after


def test_a_brace_merged_with_a_key_quote_does_not_open_an_unstated_key(tiny_decoder):
    """' {"' opens the parameters and a key in one token; split, the key is a guess and the
    parameters close (a model fond of that token wrote {"q": ...} on "/random" calls)."""
    model, tok, grammar = tiny_decoder
    merged = [
        i
        for i in tokens_starting_with(tok, " {") + tokens_starting_with(tok, "{")
        if tok.decode([i]).strip() not in ("{", "{}") and tok.decode([i]).strip().startswith('{"')
    ]
    assert merged, "the tokenizer has a brace-quote token"
    keen = _Eager(model, merged).eval()
    tool = Tool("<A>.<B>.<h>", optional_parameters=[Parameter("q"), Parameter("search")])
    calls = _params_with_and_without_penalty(keen, tok, grammar, "random", tool, stated=[], named_values={tool.name: {}})
    assert calls[0.0] != {} and calls[1e9] == {}, calls


@pytest.mark.parametrize(
    "written, where",
    [
        (": {", "first"),
        (': {"q": "New York', "string"),
        (': {"q": "New York"', "after"),
        (': {"q": "New York",', "next"),
        (': {"q": "a \\" b"', "after"),  # an escaped quote stays inside the string
        (': {"q": "a", "page": ', "value"),
        (': {"q": "a", "page": 1', "after"),  # a number may go on or end here
    ],
)
def test_position_in_the_parameters(written, where):
    assert _position(written) == where


def test_echoed_values_are_written_with_their_own_types(tiny_decoder):
    model, tok, grammar = tiny_decoder
    tool = Tool(
        "<A>.<B>.<s>",
        required_parameters=[Parameter("q", "STRING")],
        optional_parameters=[Parameter("start", "NUMBER"), Parameter("num", "STRING"), Parameter("gl", "STRING")],
    )
    echo = {"q": "Word Cup", "start": "1", "num": 15}
    result = constrained_generate(
        model,
        tok,
        chat_prompt_ids(tok, "images"),
        grammar.matcher([tool], {tool.name: echo}),
        200,
        close_penalty=1e9,
        named_values={tool.name: echo},
    )
    written = json.loads(tok.decode(result.token_ids))["parameters"]
    assert written == echo and type(written["start"]) is str and type(written["num"]) is int, written
