"""Per-candidate evidence: functional fit, history counts, and the no-oracle evidence rule."""

import pytest

from petool.baselines import RuleBaseline
from petool.evidence import ToolEvidence, fit_scores, history_evidence, preference_score, rank_candidates, words
from petool.schema import Parameter, Tool
from tests.fixtures.entries import FLIGHT, NEWS, WEATHER_A, WEATHER_B, weather_entry


def test_words_split_case_and_drop_stop_words():
    assert words("getUserProfile for the my_account ID 420") == ["user", "profile", "account", "420"]


def test_fit_prefers_tools_that_share_rare_words_with_the_query():
    tools = [
        Tool("<A>.<X>.<forecast>", "Daily weather forecast for a city", [Parameter("city")]),
        Tool("<A>.<Y>.<weather>", "Weather forecast by place", [Parameter("place")]),
        Tool("<B>.<Z>.<news>", "Top news headlines", [Parameter("country")]),
    ]
    fit = fit_scores("weather forecast for the city of Rome", tools)
    assert fit["<A>.<X>.<forecast>"] == 1.0
    assert fit["<A>.<Y>.<weather>"] > 0.5 > fit["<B>.<Z>.<news>"]
    assert fit_scores("", tools) == {t.name: 0.0 for t in tools}


def test_history_evidence_counts_uses_ratings_positions_and_the_leading_block():
    entry = weather_entry()
    fit = fit_scores(entry.query, entry.candidates)
    r = history_evidence(entry.history("r"), entry.candidates, fit)
    assert r[WEATHER_B] == ToolEvidence(uses=1, liked=0, disliked=1, first=2, last=2, in_leading_block=False)
    assert (r[WEATHER_A].uses, r[WEATHER_A].liked) == (1, 1)  # another API of SkyCast Pro, rated 1
    c = history_evidence(entry.history("c"), entry.candidates, fit)
    assert c[WEATHER_B].in_leading_block and c[WEATHER_B].first == 1
    assert not c[WEATHER_A].in_leading_block
    assert history_evidence([], entry.candidates, fit)[NEWS] == ToolEvidence()


@pytest.mark.parametrize(
    "setting, ev, score",
    [
        ("r", ToolEvidence(uses=3, liked=2, disliked=1), 0.0),
        ("c", ToolEvidence(uses=2, in_leading_block=True), -1.0),
        ("c", ToolEvidence(uses=2), 1.0),
        ("p", ToolEvidence(uses=4), 4.0),
    ],
)
def test_preference_score_table(setting, ev, score):
    assert preference_score(ev, setting) == score


@pytest.mark.parametrize("setting", ["p", "r", "c"])
def test_evidence_rule_finds_the_preferred_tool_without_the_cluster_oracle(setting):
    entry = weather_entry()
    entry.cluster = []  # no oracle
    ranked = rank_candidates(entry, setting)
    assert ranked[0][0].name == WEATHER_A
    assert RuleBaseline("evidence").choose(entry, setting).name == WEATHER_A
    assert {t.name for t, _, _ in ranked} == {WEATHER_A, WEATHER_B, NEWS, FLIGHT}
