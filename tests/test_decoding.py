"""Structured decoding: schema per entry, grammar-constrained generation on the tiny model, repair."""

import json

import pytest
import torch

from petool.decoding import CallGrammar, call_schema, close_call, constrained_generate, restore_cut_examples, tokens_starting_with
from petool.schema import Parameter, Tool
from tests.fixtures.entries import FLIGHT, NEWS, WEATHER_A, weather_entry

ODD = Tool('<Ads>.<👋 Demo Project_v12 >.<get {id}/x\\y "q">', "odd characters in the name")


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


@pytest.fixture(scope="module")
def tiny(tiny_llama_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_llama_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_llama_dir).eval()
    return model, tok, CallGrammar(tok, model.config.vocab_size)


def _prompt(tok, text="hello"):
    return tok(tok.apply_chat_template([{"role": "user", "content": text}], tokenize=False, add_generation_prompt=True), add_special_tokens=False)["input_ids"]


@pytest.mark.parametrize("prompt", ["hello", "weather in Rome", "{}{}{}", "ünïcode 📰"])
def test_random_model_always_writes_a_call_on_a_candidate(tiny, prompt):
    model, tok, grammar = tiny
    candidates = weather_entry().candidates + [ODD]
    result = constrained_generate(model, tok, _prompt(tok, prompt), grammar.matcher(candidates), 200)
    call = json.loads(tok.decode(result.token_ids, skip_special_tokens=True))
    assert result.complete
    tool = next(t for t in candidates if t.name == call["tool_name"])
    assert set(call["parameters"]) <= set(tool.parameter_names)
    assert list(call) == ["tool_name", "parameters"]


def test_forced_text_is_jumped_not_decoded(tiny):
    model, tok, grammar = tiny
    # One candidate without parameters: the whole call is forced but for nothing; no model step.
    only = [Tool(FLIGHT)]
    result = constrained_generate(model, tok, _prompt(tok), grammar.matcher([Tool(NEWS)]), 100)
    assert result.complete and result.model_steps <= 3 and result.forced_tokens > 10
    result = constrained_generate(model, tok, _prompt(tok), grammar.matcher(only), 100)
    assert tok.decode(result.token_ids).startswith('{"tool_name": "' + FLIGHT + '", "parameters": {')


def test_names_with_quotes_backslashes_and_emoji_round_trip(tiny):
    model, tok, grammar = tiny
    result = constrained_generate(model, tok, _prompt(tok), grammar.matcher([ODD]), 100)
    assert json.loads(tok.decode(result.token_ids))["tool_name"] == ODD.name


def test_budget_cut_is_closed_into_a_valid_call(tiny):
    model, tok, grammar = tiny
    tool = Tool(WEATHER_A, required_parameters=[Parameter("city")], optional_parameters=[Parameter("days", "NUMBER")])
    for budget in range(1, 40, 3):
        result = constrained_generate(model, tok, _prompt(tok), grammar.matcher([tool]), budget)
        text = tok.decode(result.token_ids)
        assert len(result.token_ids) <= budget
        call = json.loads(close_call(text, [tool]))
        assert call["tool_name"] == WEATHER_A and set(call["parameters"]) <= {"city", "days"}


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


def test_grammar_bounds_strings_and_numbers(tiny):
    _, _, grammar = tiny
    tool = [Tool("<A>.<B>.<c>", required_parameters=[Parameter("q", "")])]  # untyped: any scalar
    head = '{"tool_name": "<A>.<B>.<c>", "parameters": {"q": '
    cases = {
        '123}}': True, "-1.5e10}}": True, '"é 😀 ok"}}': True, "true}}": True,
        "1" * 16 + "}}": False,  # runaway digits
        '"' + "a" * 129 + '"}}': False,  # runaway string
        '"a\x13b"}}': False,  # control character: invalid JSON
        '"a\\"b"}}': True,  # escapes are fine
        '"{{city}}"}}': False, '"a}"}}': False,  # the authors' regex would cut the call at a "}}" inside
        "null}}": False, '{"x": 1}}}': False, "[1]}}": False,
    }
    for text, ok in cases.items():
        m = grammar.matcher(tool)
        assert (m.accept_string(head + text) and m.is_terminated()) == ok, text
    m = grammar.matcher(tool)
    assert not m.accept_string('{"tool_name": "<A>.<B>.<c>", "parameters": {"x": 1}}')  # unknown parameter
    braced = Tool("<A>.<B>.</v1/{city}>", required_parameters=[Parameter("city", "STRING")])  # braces in a name are fine
    m = grammar.matcher([braced])
    assert m.accept_string('{"tool_name": "<A>.<B>.</v1/{city}>", "parameters": {"city": "Rome"}}') and m.is_terminated()


def test_grammar_requires_required_parameters_and_allows_skipping_optional_ones(tiny):
    _, _, grammar = tiny
    tool = Tool("<A>.<B>.<c>", required_parameters=[Parameter("city", "STRING")],
                optional_parameters=[Parameter("days", "NUMBER"), Parameter("units", "ENUM")])
    head = '{"tool_name": "<A>.<B>.<c>", "parameters": '
    cases = {
        '{"city": "Rome"}}': True, '{"city": "Rome", "units": "metric"}}': True,
        '{"city": "Rome", "days": 2, "units": "metric"}}': True,
        "{}}": False, '{"days": 2}}': False,  # the required city is missing
    }
    for text, ok in cases.items():
        m = grammar.matcher([tool])
        assert (m.accept_string(head + text) and m.is_terminated()) == ok, text


def test_the_last_forced_token_is_left_to_the_model(tiny):
    """Forcing `": ` whole would end on a lone space token, which the model never saw before a
    value in training (it writes ` "` as one token); so the jump stops one token short."""
    from petool.decoding import _forced_tokens

    model, tok, grammar = tiny
    matcher = grammar.matcher([Tool(NEWS)])
    text = matcher.find_jump_forward_string()
    full = tok.encode(text, add_special_tokens=False)
    jumped = _forced_tokens(matcher, tok)
    assert len(full) > 1 and jumped == full[:-1]


def test_a_jump_that_would_stop_inside_a_character_is_left_to_the_model(tiny):
    """After the first byte of an emoji the grammar forces the rest of its bytes, which are not
    text on their own (xgrammar raises UnicodeDecodeError); decoding must go on step by step."""
    from petool.decoding import _forced_tokens

    model, tok, grammar = tiny
    tool = Tool("<A>.<📰 News>.<x>")
    matcher = grammar.matcher([tool])
    assert matcher.accept_string('{"tool_name": "<A>.<') and matcher.accept_token(tok.convert_tokens_to_ids("ð"))
    with pytest.raises(UnicodeDecodeError):
        matcher.find_jump_forward_string()
    assert _forced_tokens(matcher, tok) == []
    # the whole loop gets through such a name (the model is free to pick byte tokens)
    result = constrained_generate(model, tok, _prompt(tok), grammar.matcher([tool, Tool("<A>.<📰 Old>.<y>")]), 120)
    assert result.complete and json.loads(tok.decode(result.token_ids))["tool_name"].startswith("<A>.<📰")


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
def test_values_follow_the_declared_type(tiny, param_type, good, bad):
    _, _, grammar = tiny
    tool = [Tool("<A>.<B>.<c>", optional_parameters=[Parameter("v", param_type)])]
    head = '{"tool_name": "<A>.<B>.<c>", "parameters": {"v": '
    for text, ok in [(g, True) for g in good] + [(b, False) for b in bad]:
        m = grammar.matcher(tool)
        assert (m.accept_string(head + text + "}}") and m.is_terminated()) == ok, (param_type, text)


def test_tool_bias_chooses_the_whole_name_and_reports_each_names_likelihood(tiny):
    import torch

    from petool.decoding import call_head

    model, tok, grammar = tiny
    candidates = weather_entry().candidates + [ODD]
    prompt = _prompt(tok, "weather in Rome")
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


def test_tool_bias_zero_follows_the_likeliest_name(tiny):
    model, tok, grammar = tiny
    candidates = weather_entry().candidates
    result = constrained_generate(model, tok, _prompt(tok), grammar.matcher(candidates), 200,
                                  tool_bias={t.name: 0.0 for t in candidates})
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
    from petool.schema import extends_name

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
        ({"<D>.<A>.<Get>": -20.0, "<D>.<A>.<GetNews>": -19.0, "<D>.<A>.<GetNewsByTopic>": -0.5},
         {"<D>.<A>.<Get>": 0.0, "<D>.<A>.<GetNews>": -5.0, "<D>.<A>.<GetNewsByTopic>": -9.0}, "<D>.<A>.<Get>"),
        # two names that extend a third but not each other keep their own scores between them
        ({NEWS_ALL: -10.0, NEWS_TOPIC: -1.0, "<Data>.<Azure>.<GetNewsByDate>": -5.0},
         {NEWS_ALL: -3.0, NEWS_TOPIC: -3.0, "<Data>.<Azure>.<GetNewsByDate>": 0.0}, NEWS_TOPIC),
        # no bias: the model alone
        ({NEWS_ALL: -0.3, NEWS_TOPIC: -15.5}, {}, NEWS_ALL),
    ],
)
def test_choose_tool_table(scores, bias, expected):
    from petool.decoding import choose_tool

    assert choose_tool(scores, bias) == expected


def test_tool_bias_decides_between_names_that_extend_one_another(tiny):
    model, tok, grammar = tiny
    candidates = [Tool(NEWS_ALL, "Get Azure news"), Tool(NEWS_TOPIC, "Get Azure news by topic")]
    prompt = _prompt(tok, "Azure news on compute")
    free = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 60, tool_bias={t.name: 0.0 for t in candidates})
    worse = min(free.tool_scores, key=free.tool_scores.get)
    # a bias far below the model's margin still decides: the two names share their best score
    bias = {t.name: (0.01 if t.name == worse else 0.0) for t in candidates}
    result = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 60, tool_bias=bias)
    assert json.loads(tok.decode(result.token_ids))["tool_name"] == worse
    assert free.tool_scores[worse] < max(free.tool_scores.values())


def test_call_head_is_how_a_whole_call_starts():
    from petool.decoding import call_head

    call = json.dumps({"tool_name": ODD.name, "parameters": {"a": 1}}, ensure_ascii=False)
    assert call.startswith(call_head(ODD.name)) and call_head(ODD.name).endswith('",')


def test_score_names_matches_the_scores_decoding_used(tiny):
    from petool.decoding import score_names

    model, tok, grammar = tiny
    candidates = weather_entry().candidates
    prompt = _prompt(tok, "news")
    result = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 50, tool_bias={t.name: 0.0 for t in candidates})
    scores = score_names(model, tok, prompt, [t.name for t in candidates])
    assert scores == pytest.approx(result.tool_scores, abs=1e-3)


def test_tokens_starting_with_a_character(tiny):
    _, tok, _ = tiny
    closers, commas = set(tokens_starting_with(tok, "}")), set(tokens_starting_with(tok, ","))
    assert tok.convert_tokens_to_ids("}") in closers and tok.convert_tokens_to_ids(",") in commas
    assert all(tok.decode([i]).startswith("}") for i in closers) and all(tok.decode([i]).startswith(",") for i in commas)
    assert tok.convert_tokens_to_ids("{") not in closers and len(closers) < 200 and not closers & commas


def test_close_penalty_keeps_the_call_open_while_a_stated_value_is_missing(tiny):
    model, tok, grammar = tiny
    tool = Tool("<A>.<B>.<c>", optional_parameters=[Parameter(n, "NUMBER") for n in ("a", "b", "c")])
    written = {}
    for penalty, stated in [(0.0, ["unwritten"]), (1e9, ["unwritten"]), (1e9, [])]:
        result = constrained_generate(model, tok, _prompt(tok, "values"), grammar.matcher([tool]), 200,
                                      stated=stated, close_penalty=penalty)
        written[(penalty, bool(stated))] = json.loads(tok.decode(result.token_ids))["parameters"]
    # a value that never gets written: closing is held back until the grammar allows nothing
    # else, i.e. after the last parameter (the grammar keeps the declared order)
    assert list(written[(1e9, True)])[-1] == "c" and "c" not in written[(0.0, True)], written
    # only the close-or-go-on choice moves: what the model wrote before it would have closed stays
    assert all(written[(1e9, True)][k] == v for k, v in written[(0.0, True)].items())
    # without a stated value, or without a penalty, the model closes when it likes
    assert written[(1e9, False)] == written[(0.0, True)] and len(written[(0.0, True)]) < 3


def test_close_penalty_sets_a_named_default_the_model_left_out(tiny):
    model, tok, grammar = tiny
    shop = Tool("<A>.<B>.<c>", optional_parameters=[Parameter("q"), Parameter("sort", default="recent")])
    flags = Tool("<A>.<B>.<d>", optional_parameters=[Parameter("fresh", "BOOLEAN", default="true")])
    named = {shop.name: {"sort": "recent"}, flags.name: {"fresh": "true"}, "<other>.<tool>.<x>": {"q": "x"}}
    calls = {}
    for tool in (shop, flags):
        for penalty in (0.0, 1e9):
            result = constrained_generate(model, tok, _prompt(tok, "defaults"), grammar.matcher([tool]), 200,
                                          close_penalty=penalty, named_values=named)
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
        result = constrained_generate(model, tok, _prompt(tok, prompt), grammar.matcher([tool]), budget,
                                      close_penalty=penalty, **kwargs)
        calls[penalty] = json.loads(tok.decode(result.token_ids))["parameters"]
    return calls


def test_named_values_go_in_first_and_nothing_unstated_follows(tiny):
    """A named value is written where the model would open the next key, before any later key
    (the grammar keeps schema order); once all that is stated and named is written, the
    parameters close although the model would go on."""
    model, tok, grammar = tiny
    eager = _Eager(model, tokens_starting_with(tok, ",") + tokens_starting_with(tok, '"')).eval()
    tool = Tool("<A>.<B>.<e>", required_parameters=[Parameter("id", "NUMBER")],
                optional_parameters=[Parameter("country", default="US"), Parameter("size", "NUMBER"),
                                     Parameter("sort", default="recent"), Parameter("extra")])
    calls = _params_with_and_without_penalty(eager, tok, grammar, "order", tool, 300,
                                             named_values={tool.name: {"country": "SG", "sort": "recent"}})
    # left alone, it writes the keys in schema order up to the last one, with its own values
    assert list(calls[0.0])[:2] == ["id", "country"] and "extra" in calls[0.0] and calls[0.0]["country"] != "SG", calls
    assert list(calls[1e9]) == ["id", "country", "sort"], calls
    assert calls[1e9]["country"] == "SG" and calls[1e9]["sort"] == "recent", calls


def test_a_forced_number_is_not_lengthened(tiny):
    """A named number is whole: a model keen on digits may not grow "2" into "22..."."""
    model, tok, grammar = tiny
    digits = [i for d in "0123456789" for i in tokens_starting_with(tok, d)]
    keen = _Eager(model, digits).eval()
    tool = Tool("<A>.<B>.<f>", optional_parameters=[Parameter("number", "NUMBER"), Parameter("size", "NUMBER")])
    result = constrained_generate(keen, tok, _prompt(tok, "page"), grammar.matcher([tool]), 200,
                                  close_penalty=1e9, named_values={tool.name: {"number": "2"}})
    assert json.loads(tok.decode(result.token_ids))["parameters"] == {"number": 2}


def test_a_key_the_grammar_opens_gets_its_named_value(tiny):
    """A required key is the grammar's to write; its value, where the instruction names it, is
    then the named one, not the model's copy ("5002, 6020" for "5002,6020")."""
    model, tok, grammar = tiny
    tool = Tool("<A>.<B>.<g>", required_parameters=[Parameter("ids", "STRING"), Parameter("page", "NUMBER")],
                optional_parameters=[Parameter("lang", default="en")])
    calls = _params_with_and_without_penalty(model, tok, grammar, "ids", tool,
                                             named_values={tool.name: {"ids": "5002,6020", "page": "3"}})
    assert calls[0.0]["ids"] != "5002,6020" and calls[0.0]["page"] != 3, calls  # the random model's own values
    assert calls[1e9] == {"ids": "5002,6020", "page": 3}, calls  # a number as a number; nothing unstated after


def test_a_brace_merged_with_a_key_quote_does_not_open_an_unstated_key(tiny):
    """' {"' opens the parameters and a key in one token; split, the key is a guess and the
    parameters close (a model fond of that token wrote {"q": ...} on "/random" calls)."""
    model, tok, grammar = tiny
    merged = [i for i in tokens_starting_with(tok, " {") + tokens_starting_with(tok, "{")
              if tok.decode([i]).strip() not in ("{", "{}") and tok.decode([i]).strip().startswith('{"')]
    assert merged, "the tokenizer has a brace-quote token"
    keen = _Eager(model, merged).eval()
    tool = Tool("<A>.<B>.<h>", optional_parameters=[Parameter("q"), Parameter("search")])
    calls = _params_with_and_without_penalty(keen, tok, grammar, "random", tool, stated=[], named_values={tool.name: {}})
    assert calls[0.0] != {} and calls[1e9] == {}, calls


@pytest.mark.parametrize(
    "written, where",
    [
        (': {', "first"),
        (': {"q": "New York', "string"),
        (': {"q": "New York"', "after"),
        (': {"q": "New York",', "next"),
        (': {"q": "a \\" b"', "after"),  # an escaped quote stays inside the string
        (': {"q": "a", "page": ', "value"),
        (': {"q": "a", "page": 1', "after"),  # a number may go on or end here
    ],
)
def test_position_in_the_parameters(written, where):
    from petool.decoding import _position

    assert _position(written) == where


def test_an_echoed_value_may_take_its_own_json_type():
    """The user's earlier call for the same instruction wrote "start": "1" under NUMBER (and the
    ground truth does too): the grammar then allows that parameter a string as well, and only it."""
    tool = Tool("<A>.<B>.<s>", optional_parameters=[Parameter("start", "NUMBER"), Parameter("num", "NUMBER"),
                                                    Parameter("q", "STRING"), Parameter("tags", "STRING")])
    echoed = {tool.name: {"start": "1", "q": 10, "num": 15, "tags": ["a"]}, "<X>.<Y>.<z>": {"start": "1"}}
    params = call_schema([tool], echoed)["anyOf"][0]["properties"]["parameters"]["properties"]
    assert params["start"] == {"anyOf": [{"type": "number"}, {"type": "string"}]}
    assert params["q"] == {"anyOf": [{"type": "string"}, {"type": "number"}]}
    assert params["num"] == {"type": "number"} and params["tags"] == {"type": "string"}  # already allowed; a list is not a scalar
    assert call_schema([tool]) == call_schema([tool], {}) == call_schema([tool], {"<X>.<Y>.<z>": {"start": "1"}})


def test_echoed_values_are_written_with_their_own_types(tiny):
    model, tok, grammar = tiny
    tool = Tool("<A>.<B>.<s>", required_parameters=[Parameter("q", "STRING")],
                optional_parameters=[Parameter("start", "NUMBER"), Parameter("num", "STRING"), Parameter("gl", "STRING")])
    echo = {"q": "Word Cup", "start": "1", "num": 15}
    result = constrained_generate(model, tok, _prompt(tok, "images"), grammar.matcher([tool], {tool.name: echo}), 200,
                                  close_penalty=1e9, named_values={tool.name: echo})
    written = json.loads(tok.decode(result.token_ids))["parameters"]
    assert written == echo and type(written["start"]) is str and type(written["num"]) is int, written


_URI = Tool("<M>.<S>.<radio>", required_parameters=[Parameter("uri", default="spotify:artist:2w9zwq3AktTeYYMuhMjju8"),
                                                    Parameter("n", "NUMBER", default="5")],
            optional_parameters=[Parameter("seed", default="spotify:track:4WNcduiCmDNfmTEz7JvmLv")])


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
