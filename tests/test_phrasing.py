"""Wording: optional values stated in clauses, instructions that state every value of their call,
and the paraphraser that keeps the original when a rewrite loses a value or the endpoint fails."""

from __future__ import annotations

import random

import pytest

from petool.catalog import load_catalog
from petool.phrasing import Paraphraser, add_clauses, optional_clause, phrase
from tests.fake_llm import FakeLLM, running_fake_llm


@pytest.fixture()
def fake_llm():
    with running_fake_llm() as url:
        yield url


def test_paraphraser_keeps_values_or_falls_back(fake_llm):
    p = Paraphraser(fake_llm, "sk-test")
    FakeLLM.reply = "Could you tell me the weather in Lima using ...?"
    assert p("What's the weather in Lima on ...?", {"q": "Lima"}) == FakeLLM.reply
    FakeLLM.reply = "Tell me the weather somewhere."  # drops the value: keep the original
    assert p("What's the weather in Lima on ...?", {"q": "Lima"}) == "What's the weather in Lima on ...?"
    assert (p.calls, p.kept, p.failed) == (2, 1, 0)
    down = Paraphraser("http://127.0.0.1:9/v1", timeout=0.5)
    assert down("Weather in Lima.", {"q": "Lima"}) == "Weather in Lima." and down.failed == 1


@pytest.mark.parametrize(
    "name, value, expected",
    [
        ("sortBy", "price_asc", {"sorted by price_asc", "ordered by price_asc"}),
        ("page", 2, {"on page 2", "page 2"}),
        ("limit", 20, {"with limit 20", "limited to 20 results", "limit 20"}),
        ("lang", "en", {"in language en", "with lang en"}),
        ("currency", "USD", {"in USD currency", "with currency USD"}),
        ("nonstop", True, {"with nonstop on", "nonstop set to true"}),
        ("tags", ["a", "b"], {"with tags a, b", "tags a, b", "with tags set to a, b", "using tags a, b"}),
    ],
)
def test_optional_clause_states_the_value_in_words_named_after_the_parameter(name, value, expected):
    seen = {optional_clause(name, value, random.Random(seed)) for seed in range(40)}
    assert seen == expected


@pytest.mark.parametrize(
    "text, clauses, expected",
    [
        ("List hotels in Rome.", ["sorted by price"], "List hotels in Rome, sorted by price."),
        ("Who is Radiohead?", ["in language pt", "page 2"], "Who is Radiohead, in language pt and page 2?"),
        ("Show repos", ["a", "b", "c"], "Show repos, a, b and c."),
        ("Show repos.", [], "Show repos."),
    ],
)
def test_add_clauses_table(text, clauses, expected):
    assert add_clauses(text, clauses) == expected


def test_stated_optional_parameters_are_in_the_call_and_the_text():
    catalog = load_catalog()
    api = next(a for t in catalog.tools for a in t.apis if len(a.optional) >= 3 and a.templates)
    rng = random.Random(3)
    for _ in range(20):
        text, params, _ = phrase(api, catalog, rng, masked=True, p_example=0.0, p_optional=1.0)
        assert {p.name for p in api.optional} <= set(params)
        for p in api.optional:
            value = params[p.name]
            if not isinstance(value, bool):
                assert str(value if not isinstance(value, list) else value[0]) in text
    text, params, _ = phrase(api, catalog, random.Random(3), masked=True, p_example=0.0, p_optional=0.0)
    assert not {p.name for p in api.optional} <= set(params)  # without clauses the templates state fewer
