"""Structured decoding: grammar-constrained generation on the tiny model, jump-forward, the budget."""

import json

import pytest

from petool.call_repair import close_call
from petool.decoding import _forced_tokens, constrained_generate
from petool.schema import Parameter, Tool
from tests.fixtures.entries import FLIGHT, NEWS, ODD_TOOL, WEATHER_A, weather_entry
from tests.tiny_model import chat_prompt_ids


@pytest.mark.parametrize("prompt", ["hello", "weather in Rome", "{}{}{}", "ünïcode 📰"])
def test_random_model_always_writes_a_call_on_a_candidate(tiny_decoder, prompt):
    model, tok, grammar = tiny_decoder
    candidates = weather_entry().candidates + [ODD_TOOL]
    result = constrained_generate(model, tok, chat_prompt_ids(tok, prompt), grammar.matcher(candidates), 200)
    call = json.loads(tok.decode(result.token_ids, skip_special_tokens=True))
    assert result.complete
    tool = next(t for t in candidates if t.name == call["tool_name"])
    assert set(call["parameters"]) <= set(tool.parameter_names)
    assert list(call) == ["tool_name", "parameters"]


def test_forced_text_is_jumped_not_decoded(tiny_decoder):
    model, tok, grammar = tiny_decoder
    # One candidate without parameters: the whole call is forced but for nothing; no model step.
    only = [Tool(FLIGHT)]
    result = constrained_generate(model, tok, chat_prompt_ids(tok), grammar.matcher([Tool(NEWS)]), 100)
    assert result.complete and result.model_steps <= 3 and result.forced_tokens > 10
    result = constrained_generate(model, tok, chat_prompt_ids(tok), grammar.matcher(only), 100)
    assert tok.decode(result.token_ids).startswith('{"tool_name": "' + FLIGHT + '", "parameters": {')


def test_names_with_quotes_backslashes_and_emoji_round_trip(tiny_decoder):
    model, tok, grammar = tiny_decoder
    result = constrained_generate(model, tok, chat_prompt_ids(tok), grammar.matcher([ODD_TOOL]), 100)
    assert json.loads(tok.decode(result.token_ids))["tool_name"] == ODD_TOOL.name


def test_budget_cut_is_closed_into_a_valid_call(tiny_decoder):
    model, tok, grammar = tiny_decoder
    tool = Tool(WEATHER_A, required_parameters=[Parameter("city")], optional_parameters=[Parameter("days", "NUMBER")])
    for budget in range(1, 40, 3):
        result = constrained_generate(model, tok, chat_prompt_ids(tok), grammar.matcher([tool]), budget)
        text = tok.decode(result.token_ids)
        assert len(result.token_ids) <= budget
        call = json.loads(close_call(text, [tool]))
        assert call["tool_name"] == WEATHER_A and set(call["parameters"]) <= {"city", "days"}


def test_the_last_forced_token_is_left_to_the_model(tiny_decoder):
    """Forcing `": ` whole would end on a lone space token, which the model never saw before a
    value in training (it writes ` "` as one token); so the jump stops one token short."""
    _, tok, grammar = tiny_decoder
    matcher = grammar.matcher([Tool(NEWS)])
    text = matcher.find_jump_forward_string()
    full = tok.encode(text, add_special_tokens=False)
    jumped = _forced_tokens(matcher, tok)
    assert len(full) > 1 and jumped == full[:-1]


def test_a_jump_that_would_stop_inside_a_character_is_left_to_the_model(tiny_decoder):
    """After the first byte of an emoji the grammar forces the rest of its bytes, which are not
    text on their own (xgrammar raises UnicodeDecodeError); decoding must go on step by step."""
    model, tok, grammar = tiny_decoder
    tool = Tool("<A>.<📰 News>.<x>")
    matcher = grammar.matcher([tool])
    assert matcher.accept_string('{"tool_name": "<A>.<') and matcher.accept_token(tok.convert_tokens_to_ids("ð"))
    with pytest.raises(UnicodeDecodeError):
        matcher.find_jump_forward_string()
    assert _forced_tokens(matcher, tok) == []
    # the whole loop gets through such a name (the model is free to pick byte tokens)
    result = constrained_generate(model, tok, chat_prompt_ids(tok), grammar.matcher([tool, Tool("<A>.<📰 Old>.<y>")]), 120)
    assert result.complete and json.loads(tok.decode(result.token_ids))["tool_name"].startswith("<A>.<📰")
