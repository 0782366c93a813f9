"""Labels -> DPO pairs: one table row per policy rule; and the benchmark's own DPO negatives."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from petool.bench import BuildConfig, build_entries
from petool.catalog import load_catalog
from petool.pairs import (
    PairPolicy,
    dpo_negatives,
    explain_labels,
    label_pairs,
    latest_labels,
    near_miss_negatives,
    negative_kind,
    pair_accounting,
    pairs_from_labels,
    preference_examples,
)
from petool.ranking import fit_scores
from petool.schema import Parameter, Tool, ToolCall, split_tool_name
from tests.fixtures.entries import FLIGHT, WEATHER_A, WEATHER_B, empty_history_entry, weather_entry

A = {"tool_name": "<W>.<A>.<f>", "parameters": {"x": 1}}
B = {"tool_name": "<W>.<B>.<f>", "parameters": {"x": 1}}
G = {"tool_name": "<W>.<G>.<f>", "parameters": {"x": 2}}


def t(call):
    return json.dumps(call, ensure_ascii=False)


def lab(verdict, call_a=A, call_b=B, gold=None, **kw):
    row = {
        "id": kw.pop("id", 1),
        "annotator": "ann",
        "created": "2025-01-01T00:00:00+00:00",
        "entry_key": "e",
        "setting": "p",
        "prompt": "SYS",
        "query": "Q",
        "call_a": call_a,
        "call_b": call_b,
        "raw_a": "",
        "raw_b": "",
        "verdict": verdict,
        "gold_call": gold,
        "entry": {"ground_truth": G},
    }
    row.update(kw)
    return row


@pytest.mark.parametrize(
    "label, policy, expected",
    [
        (lab("A"), PairPolicy(), [(t(A), t(B))]),
        (lab("B"), PairPolicy(), [(t(B), t(A))]),
        (lab("tie"), PairPolicy(), []),
        (lab("both_bad"), PairPolicy(both_bad="skip"), []),
        (lab("both_bad"), PairPolicy(both_bad="ground_truth"), [(t(G), t(A)), (t(G), t(B))]),
        (lab("both_bad", entry={}), PairPolicy(), []),  # gold unknown
        (lab("tie", gold=G), PairPolicy(), [(t(G), t(A)), (t(G), t(B))]),
        (lab("A", gold=G), PairPolicy(), [(t(G), t(A)), (t(G), t(B))]),  # corrected winner rejected too
        (lab("A", gold=A), PairPolicy(), [(t(A), t(B))]),  # gold equal to A: A not rejected
        (lab("A", call_b=A), PairPolicy(), []),  # identical sides
        (lab("A", call_b=None, raw_b="def f(): pass"), PairPolicy(), [(t(A), "def f(): pass")]),
        (lab("B", call_b=None, raw_b="def f(): pass"), PairPolicy(), []),  # unparsed side never chosen
        (lab("A", call_b=None, raw_b=""), PairPolicy(), []),
    ],
)
def test_label_pairs(label, policy, expected):
    assert label_pairs(label, policy) == expected


def test_every_label_has_a_status_and_the_accounting_adds_up():
    """Each label either yields pairs or has exactly the reason the pair builder stopped it for."""
    c = {"tool_name": "<W>.<C>.<f>", "parameters": {}}
    rows = [
        lab("A", id=1),  # replaced by #2 (same calls, same annotator)
        lab("B", id=2, created="2025-01-02T00:00:00+00:00"),  # pair B over A
        lab("tie", id=3, call_b=c),  # tie
        lab("A", id=4, call_b=A, entry_key="e2"),  # identical calls
        lab("both_bad", id=5, entry={}, entry_key="e3"),  # both bad, gold unknown
        lab("A", id=6, entry={"extra": {"split": "test"}}, entry_key="e4"),  # test data
        lab("A", id=7, annotator="bob", call_a=B, call_b=A),  # same pair as #2, by another annotator
        lab("B", id=8, annotator="cat", call_a=c, call_b=G),  # G over C
        lab("A", id=9, annotator="dan", call_a=c, call_b=G),  # C over G: contradicts #8
        lab("B", id=10, call_b=None, raw_b="oops", entry_key="e5"),  # unparsed winner
        lab("A", id=11, entry_key="e6", withdrawn={"replaced_by": None}),  # undone
        lab("B", id=12, entry_key="e7", query="Q7", withdrawn={"replaced_by": 13}),  # edited
        lab("A", id=13, entry_key="e7", query="Q7"),  # the edit: a pair
    ]
    pairs, status = explain_labels(rows)
    assert pairs == pairs_from_labels(rows)
    got = {i: (st.reason, st.other) for i, st in status.items()}
    assert got == {
        1: ("replaced", 2),
        2: (None, None),
        3: ("tie", None),
        4: ("identical", None),
        5: ("both_bad_no_gold", None),
        6: ("test", None),
        7: ("duplicate", 2),
        8: ("conflict", 9),
        9: ("conflict", 8),
        10: ("unparsed_winner", None),
        11: ("undone", None),
        12: ("edited", 13),
        13: (None, None),
    }
    assert sorted(int(p.source.split(":")[1]) for p in pairs) == [2, 13]
    counts = pair_accounting(status)
    assert counts["labels"] == len(rows) == counts["with_pairs"] + sum(counts["reasons"].values())
    assert counts["pairs"] == len(pairs) == 2
    assert "label #2" in status[1].text and status[2].text == "becomes 1 pair"
    # Under the "skip" policy a both-bad verdict says so, and "keep" keeps both contradicting pairs.
    assert explain_labels(rows, PairPolicy(both_bad="skip"))[1][5].reason == "both_bad_skipped"
    kept = explain_labels(rows, PairPolicy(conflicts="keep"))[1]
    assert (kept[8].pairs, kept[9].pairs) == (1, 1)


def test_an_undone_revote_brings_back_the_earlier_vote():
    first, second = lab("A", id=1), lab("B", id=2, created="2025-01-02T00:00:00+00:00")
    [p] = pairs_from_labels([first, {**second, "withdrawn": {"replaced_by": None}}])
    assert (p.chosen, p.source) == (t(A), "label:1:p")


def test_relabel_replaces_earlier_label_of_same_annotator():
    rows = [lab("A", id=1), lab("B", id=2, created="2025-01-02T00:00:00+00:00")]
    assert [r["id"] for r in latest_labels(rows)] == [2]
    [p] = pairs_from_labels(rows)
    assert (p.chosen, p.rejected, p.source) == (t(B), t(A), "label:2:p")


def test_sides_swapped_count_as_same_comparison():
    rows = [lab("A", id=1), lab("A", id=2, call_a=B, call_b=A, created="2025-01-02")]
    assert [r["id"] for r in latest_labels(rows)] == [2]


def test_conflicts_between_annotators_are_dropped_or_kept():
    rows = [lab("A", id=1), lab("B", id=2, annotator="bob")]
    assert pairs_from_labels(rows) == []
    assert len(pairs_from_labels(rows, PairPolicy(conflicts="keep"))) == 2


def test_duplicates_collapse():
    rows = [lab("A", id=1), lab("A", id=2, annotator="bob")]
    [p] = pairs_from_labels(rows)
    assert (p.system, p.user) == ("SYS", "Q")


def test_policy_validates():
    with pytest.raises(ValueError, match="both_bad"):
        PairPolicy(both_bad="maybe")


def test_labels_on_test_entries_never_become_pairs_by_default():
    rows = [lab("A", entry={"extra": {"split": "test"}})]
    assert pairs_from_labels(rows) == []
    assert len(pairs_from_labels(rows, PairPolicy(include_test=True))) == 1


# ---------------------------------------------------------------- benchmark pairs (DPO negatives)


@pytest.fixture(scope="module")
def shipped_entries():
    train, test = build_entries(load_catalog(), BuildConfig(seed=3, n_train=150, n_test=300, n_users=60))
    return train, test


def test_dpo_negatives(shipped_entries):
    _, test = shipped_entries
    kinds = Counter()
    for e in test[:100]:
        negs = dpo_negatives(e, random.Random(1))
        gt = e.ground_truth
        assert negs and all(n.to_json() != gt.to_json() for n in negs)
        for n in negs:
            kind = negative_kind(e, n)
            kinds[kind] += 1
            if kind == "preference":
                assert n.tool_name in e.cluster and n.tool_name != gt.tool_name
                # values carried onto the alternative's own parameter names (those it has)
                carried, given = Counter(map(json.dumps, n.parameters.values())), Counter(map(json.dumps, gt.parameters.values()))
                assert not carried - given
            if kind == "param_name" and set(n.parameters) < set(gt.parameters):
                kinds["param_missing"] += 1
                assert len(n.parameters) == len(gt.parameters) - 1 and n.parameters.items() <= gt.parameters.items()
    assert kinds["preference"] and kinds["param_value"] and kinds["param_name"] and kinds["param_missing"]


# ---------------------------------------------------------------- near misses (other clusters, same category)

ALERTS = "<Weather>.<SkyCast Pro>.<alerts>"
AIR = "<Weather>.<AirNow>.<air quality>"
TRIP = "<Travel>.<Trip Planner>.<weather for trips>"


def near_miss_entry():
    """The weather fixture with three more candidates outside the gold's cluster: a close one and
    a far one of its category (Weather), and one of another category that fits the query best."""
    e = weather_entry()
    e.candidates += [
        Tool(AIR, "Air quality index by zip code", [Parameter("zip", "STRING", "", "")]),
        Tool(
            ALERTS,
            "Weather alerts for a city over the next days",
            [Parameter("city", "STRING", "", "")],
            [Parameter("days", "NUMBER", "", 1)],
        ),
        Tool(TRIP, "Weather forecast for the next days of a trip to Rome", [Parameter("city", "STRING", "", "")]),
    ]
    return e


def test_near_miss_fixture_is_what_the_table_assumes():
    e = near_miss_entry()
    fit = fit_scores(e.query, e.candidates)
    assert fit[TRIP] == 1.0 > fit[ALERTS] > fit[AIR]  # the best fit overall is another category's
    assert {WEATHER_A, WEATHER_B} == set(e.cluster)


@pytest.mark.parametrize(
    "n, among, expected",
    [
        (0, None, []),
        # the best-fitting candidate of the gold's category outside its cluster, the gold's values on
        # the parameters it names alike (city, days; units it lacks)
        (1, None, [ToolCall(ALERTS, {"city": "Rome", "days": 5})]),
        (2, None, [ToolCall(ALERTS, {"city": "Rome", "days": 5}), ToolCall(AIR, {})]),
        (5, None, [ToolCall(ALERTS, {"city": "Rome", "days": 5}), ToolCall(AIR, {})]),  # no more there
        (1, [WEATHER_A, WEATHER_B, AIR, TRIP], [ToolCall(AIR, {})]),  # only among the shown ones
        (1, [WEATHER_A, WEATHER_B, TRIP], []),  # another category's tool is never a near miss
    ],
)
def test_near_miss_negatives(n, among, expected):
    assert near_miss_negatives(near_miss_entry(), n, among) == expected


def test_near_misses_never_name_the_gold_or_its_equivalents(shipped_entries):
    train, test = shipped_entries
    found = 0
    for e in train + test:
        fit = fit_scores(e.query, e.candidates)
        category = split_tool_name(e.ground_truth.tool_name)[0]
        negs = near_miss_negatives(e, 2)
        found += bool(negs)
        others = [t.name for t in e.candidates if t.name not in e.cluster and split_tool_name(t.name)[0] == category]
        assert len(negs) == min(2, len(others)) and len({n.tool_name for n in negs}) == len(negs)
        for neg in negs:
            assert neg.tool_name not in e.cluster and neg.tool_name != e.ground_truth.tool_name
            assert split_tool_name(neg.tool_name)[0] == category and negative_kind(e, neg) == "near_miss"
            assert neg.parameters.items() <= e.ground_truth.parameters.items()
        if negs:  # the first is the best fit among them
            assert fit[negs[0].tool_name] == max(fit[name] for name in others)
    assert found > len(train + test) // 4


# What preference_examples gave before near misses existed, on the fixture entries (paper style):
# the default must not change (the shipped adapter's recipe rebuilds its data from it).
GOLD_WEATHER = '{"tool_name": "<Weather>.<SkyCast Pro>.</v1/forecast/{city}>", "parameters": {"city": "Rome", "days": 5}}'
OTHER_WEATHER = '{"tool_name": "<Weather>.<OpenMeteo Lite>.<Daily Forecast>", "parameters": {"q": "Rome"}}'
DAYS_WRONG = '{"tool_name": "<Weather>.<SkyCast Pro>.</v1/forecast/{city}>", "parameters": {"city": "Rome", "days": 10}}'
GOLD_FLIGHT = '{"tool_name": "<Travel>.<flight | flight aggregator>.<flight>", "parameters": {}}'
DATE_ADDED = '{"tool_name": "<Travel>.<flight | flight aggregator>.<flight>", "parameters": {"date": "2024-05-01"}}'
PINNED = {
    ("weather", "p"): [(GOLD_WEATHER, OTHER_WEATHER, "bench:preference")],
    ("weather", "r"): [(GOLD_WEATHER, OTHER_WEATHER, "bench:preference"), (GOLD_WEATHER, DAYS_WRONG, "bench:param_value")],
    ("weather", "c"): [(GOLD_WEATHER, OTHER_WEATHER, "bench:preference")],
    ("empty", "p"): [(GOLD_FLIGHT, DATE_ADDED, "bench:param_name")],
    ("empty", "r"): [(GOLD_FLIGHT, DATE_ADDED, "bench:param_name")],
    ("empty", "c"): [(GOLD_FLIGHT, DATE_ADDED, "bench:param_name")],
}


@pytest.mark.parametrize("name, setting", sorted(PINNED))
def test_benchmark_pairs_without_near_misses_are_pinned(name, setting):
    make = {"weather": weather_entry, "empty": empty_history_entry}[name]
    pairs = preference_examples([make()], setting, 7, 0.5)
    assert [(p.chosen, p.rejected, p.source) for p in pairs] == PINNED[(name, setting)]
    assert preference_examples([make()], setting, 7, 0.5, near_misses=0) == pairs


@pytest.mark.parametrize("style", ["paper", "shortlist"])
def test_near_miss_pairs_come_after_the_default_ones_on_shown_candidates(shipped_entries, style):
    from petool.prompts import prompt_candidates

    train, _ = shipped_entries
    for setting in ("p", "r", "c"):
        plain = preference_examples(train[:60], setting, 7, 0.5, style)
        more = preference_examples(train[:60], setting, 7, 0.5, style, near_misses=1)
        extra = [p for p in more if p.source == "bench:near_miss"]
        assert [p for p in more if p.source != "bench:near_miss"] == plain and extra
        by_query = {e.query: e for e in train[:60]}
        for p in extra:
            e = by_query[p.user]
            rejected = json.loads(p.rejected)["tool_name"]
            assert rejected in {t.name for t in prompt_candidates(e, setting, style)} and rejected not in e.cluster


def test_near_miss_pairs_on_the_fixture_entry():
    pairs = preference_examples([near_miss_entry()], "r", 7, 0.5, near_misses=1)
    assert [(p.rejected, p.source) for p in pairs][-1] == (
        '{"tool_name": "<Weather>.<SkyCast Pro>.<alerts>", "parameters": {"city": "Rome", "days": 5}}',
        "bench:near_miss",
    )
    assert FLIGHT not in {json.loads(p.rejected)["tool_name"] for p in pairs}
