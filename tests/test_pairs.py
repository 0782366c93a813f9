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
    negative_kind,
    pair_accounting,
    pairs_from_labels,
)

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
