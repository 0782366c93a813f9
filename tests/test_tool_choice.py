"""The tool chosen as a whole: names scored by the model plus a bias, names that extend one another."""

import json

import pytest

from petool.decoding import constrained_generate
from petool.schema import Tool, extends_name
from petool.tool_choice import call_head, choose_tool, score_names
from tests.fixtures.entries import ODD_TOOL, weather_entry
from tests.tiny_model import chat_prompt_ids


def test_tool_bias_chooses_the_whole_name_and_reports_each_names_likelihood(tiny_decoder):
    import torch

    model, tok, grammar = tiny_decoder
    candidates = weather_entry().candidates + [ODD_TOOL]
    prompt = chat_prompt_ids(tok, "weather in Rome")
    for favoured in candidates:
        bias = {t.name: (1e4 if t is favoured else 0.0) for t in candidates}  # random-model names differ by ~100s
        result = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 200, tool_bias=bias)
        call = json.loads(tok.decode(result.token_ids, skip_special_tokens=True))
        assert result.complete and call["tool_name"] == favoured.name
        assert set(result.tool_scores) == {t.name for t in candidates}
    # each score is the log-likelihood of the call's head after the prompt, computed without a cache
    for name, score in result.tool_scores.items():
        head = tok.encode(call_head(name), add_special_tokens=False)
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=torch.tensor([prompt + head])).logits[0].float(), dim=-1)
        direct = sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(head))
        assert score == pytest.approx(direct, abs=1e-3), name


def test_tool_bias_zero_follows_the_likeliest_name(tiny_decoder):
    model, tok, grammar = tiny_decoder
    candidates = weather_entry().candidates
    result = constrained_generate(
        model, tok, chat_prompt_ids(tok), grammar.matcher(candidates), 200, tool_bias={t.name: 0.0 for t in candidates}
    )
    best = max(result.tool_scores, key=result.tool_scores.get)
    assert json.loads(tok.decode(result.token_ids))["tool_name"] == best


NEWS_ALL = "<Data>.<Azure>.<GetNews>"


NEWS_TOPIC = "<Data>.<Azure>.<GetNewsByTopic>"


@pytest.mark.parametrize(
    "short, long, expected",
    [
        (NEWS_ALL, NEWS_TOPIC, True),  # the API name goes on
        ("<Music>.<Spotify>.<Search>", "<Music>.<Spotify Web>.<Search>", True),  # the tool name goes on
        ("<A>.<T>.<news>", "<A>.<T>.<news/{id}>", True),
        (NEWS_TOPIC, NEWS_ALL, False),  # the longer one first
        (NEWS_ALL, NEWS_ALL, False),
        (NEWS_ALL, "<Data>.<Azure>.<GetEvents>", False),  # they part inside a part
        ("<Data>.<Azure>.<Get>", "<Data>.<Azure Smartable>.<GetNews>", True),
        ("<A>.<T>.<x>", "<A>.<T>.<x>.<y>", False),  # only a part that closes where the other goes on
    ],
)
def test_extends_name_table(short, long, expected):
    assert extends_name(short, long) is expected


@pytest.mark.parametrize(
    "scores, bias, expected",
    [
        # the model closes the name early by 15 nats; the ranking's prior picks the longer name
        ({NEWS_ALL: -0.3, NEWS_TOPIC: -15.5, "<X>.<Y>.<z>": -9.0}, {NEWS_ALL: -7.0, NEWS_TOPIC: -0.3, "<X>.<Y>.<z>": -9.4}, NEWS_TOPIC),
        # the prior ties them: the model's own scores break the tie, either way
        ({NEWS_ALL: -2.0, NEWS_TOPIC: -8.7}, {NEWS_ALL: -1.8, NEWS_TOPIC: -1.8}, NEWS_ALL),
        ({NEWS_ALL: -8.7, NEWS_TOPIC: -2.0}, {NEWS_ALL: -1.8, NEWS_TOPIC: -1.8}, NEWS_TOPIC),
        # names that do not extend each other keep their own scores: the model outvotes the prior
        ({"<A>.<T>.<a>": -0.3, "<A>.<T>.<b>": -15.5}, {"<A>.<T>.<a>": -7.0, "<A>.<T>.<b>": -0.3}, "<A>.<T>.<a>"),
        # the group's best score does not lift it over an unrelated name the model and prior prefer
        ({NEWS_ALL: -5.0, NEWS_TOPIC: -15.0, "<X>.<Y>.<z>": -0.1}, {NEWS_ALL: -3.0, NEWS_TOPIC: -2.0, "<X>.<Y>.<z>": -1.0}, "<X>.<Y>.<z>"),
        # a chain shares one score: get < getNews < getNewsByTopic
        (
            {"<D>.<A>.<Get>": -20.0, "<D>.<A>.<GetNews>": -19.0, "<D>.<A>.<GetNewsByTopic>": -0.5},
            {"<D>.<A>.<Get>": 0.0, "<D>.<A>.<GetNews>": -5.0, "<D>.<A>.<GetNewsByTopic>": -9.0},
            "<D>.<A>.<Get>",
        ),
        # two names that extend a third but not each other keep their own scores between them
        (
            {NEWS_ALL: -10.0, NEWS_TOPIC: -1.0, "<Data>.<Azure>.<GetNewsByDate>": -5.0},
            {NEWS_ALL: -3.0, NEWS_TOPIC: -3.0, "<Data>.<Azure>.<GetNewsByDate>": 0.0},
            NEWS_TOPIC,
        ),
        # no bias: the model alone
        ({NEWS_ALL: -0.3, NEWS_TOPIC: -15.5}, {}, NEWS_ALL),
    ],
)
def test_choose_tool_table(scores, bias, expected):
    assert choose_tool(scores, bias) == expected


def test_tool_bias_decides_between_names_that_extend_one_another(tiny_decoder):
    model, tok, grammar = tiny_decoder
    candidates = [Tool(NEWS_ALL, "Get Azure news"), Tool(NEWS_TOPIC, "Get Azure news by topic")]
    prompt = chat_prompt_ids(tok, "Azure news on compute")
    free = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 60, tool_bias={t.name: 0.0 for t in candidates})
    worse = min(free.tool_scores, key=free.tool_scores.get)
    # a bias far below the model's margin still decides: the two names share their best score
    bias = {t.name: (0.01 if t.name == worse else 0.0) for t in candidates}
    result = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 60, tool_bias=bias)
    assert json.loads(tok.decode(result.token_ids))["tool_name"] == worse
    assert free.tool_scores[worse] < max(free.tool_scores.values())


def test_call_head_is_how_a_whole_call_starts():
    call = json.dumps({"tool_name": ODD_TOOL.name, "parameters": {"a": 1}}, ensure_ascii=False)
    assert call.startswith(call_head(ODD_TOOL.name)) and call_head(ODD_TOOL.name).endswith('",')


def test_score_names_matches_the_scores_decoding_used(tiny_decoder):
    model, tok, grammar = tiny_decoder
    candidates = weather_entry().candidates
    prompt = chat_prompt_ids(tok, "news")
    result = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 50, tool_bias={t.name: 0.0 for t in candidates})
    scores = score_names(model, tok, prompt, [t.name for t in candidates])
    assert scores == pytest.approx(result.tool_scores, abs=1e-3)
