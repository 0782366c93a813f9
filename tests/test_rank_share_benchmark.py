"""benchmarks/tool_choice.py --ranks-only --split-by category: the gold's rank histogram, the
shares fitted from it, and a shares table's mean log prior of the gold's rank."""

from __future__ import annotations

import dataclasses
import math

import pytest

from benchmarks import tool_choice as tc
from petool.ranking import GOLD_RANK_SHARE, rank_candidates, rank_log_prior
from petool.schema import ToolCall
from tests.fixtures.entries import WEATHER_B, weather_entry

# a hand-made table of 0-based gold ranks: 6 first, 2 second, 1 third, none fourth, 1 past the shortlist
RANKS = [0] * 6 + [1] * 2 + [2] + [7]
UNTIED = [False] * 4


def test_the_histogram_counts_each_rank_and_puts_the_rest_past_the_shortlist():
    assert tc.rank_histogram(RANKS) == pytest.approx([0.6, 0.2, 0.1, 0.0, 0.1])
    assert tc.rank_histogram([]) == [0.0] * 5


def test_fitted_shares_are_the_shortlisted_ranks_shares_with_half_an_entry_each():
    # 9 ground truths within the first 4, plus 4 half entries: (6.5, 2.5, 1.5, 0.5) / 11
    assert tc.fit_rank_shares(RANKS) == (0.591, 0.227, 0.136, 0.045)
    assert min(tc.fit_rank_shares([0] * 50)) > 0  # an empty rank keeps a prior


def test_mean_log_prior_is_the_decoding_prior_at_the_golds_rank_over_shortlisted_golds():
    shares = (0.5, 0.25, 0.15, 0.1)
    rows = [(r, UNTIED) for r in RANKS]
    mean, n = tc.mean_log_prior(rows, "r", shares)
    assert n == 9  # the gold past the shortlist is left out
    assert mean == pytest.approx((6 * math.log(0.5) + 2 * math.log(0.25) + math.log(0.15)) / 9)
    # tied candidates share their ranks' prior, as decoding gives it; a shorter shortlist renormalizes
    tied, short = [(1, [False, True, False, False])], [(1, [False, False])]
    assert tc.mean_log_prior(tied, "r", shares)[0] == pytest.approx(math.log(0.375))
    assert tc.mean_log_prior(short, "r", shares)[0] == pytest.approx(math.log(0.25 / 0.75))
    # the table fitted on the ranks scores them better than a flat one or one fitted elsewhere
    fitted = tc.fit_rank_shares(RANKS)
    assert mean < tc.mean_log_prior(rows, "r", fitted)[0]
    assert tc.mean_log_prior(rows, "r", (0.25,) * 4)[0] < tc.mean_log_prior(rows, "r", fitted)[0]


def test_rank_log_prior_reads_the_constant_unless_given_shares():
    assert rank_log_prior("c", 4, [False, True, False, False], GOLD_RANK_SHARE["c"]) == rank_log_prior("c", 4, [False, True, False, False])
    assert rank_log_prior("c", 2, shares=(0.5, 0.5)) == [pytest.approx(math.log(0.5))] * 2


def test_gold_ranks_give_the_golds_place_in_the_ranking_and_the_shortlists_ties():
    entry = weather_entry()
    # the same entry asking for OpenMeteo: second in p (fits, unused), last in r (rated 0)
    other = dataclasses.replace(entry, ground_truth=ToolCall(WEATHER_B, {"q": "Rome"}))
    for s in "pr":
        names = [t.name for t, _, _ in rank_candidates(other, s)]
        rows = tc.gold_ranks([entry, other], s)
        assert [r for r, _ in rows] == [0, names.index(WEATHER_B)]
        assert all(len(tied) == min(4, len(entry.candidates)) and not tied[0] for _, tied in rows)
    assert tc.gold_ranks([entry, other], "p")[1][0] == 1 and tc.gold_ranks([entry, other], "r")[1][0] == len(entry.candidates) - 1


def test_the_paired_difference_is_the_mean_gain_per_entry_with_its_standard_error():
    rows = [(r, UNTIED) for r in RANKS]
    fitted, flat = tc.fit_rank_shares(RANKS), (0.25,) * 4
    mean, se = tc.paired_difference(rows, "r", fitted, flat)
    assert mean == pytest.approx(tc.mean_log_prior(rows, "r", fitted)[0] - tc.mean_log_prior(rows, "r", flat)[0]) and mean > 0
    gains = [math.log(fitted[r] / sum(fitted) / 0.25) for r in RANKS if r < 4]  # no ties: each rank's share, renormalized
    spread = sum((g - mean) ** 2 for g in gains) / (len(gains) - 1)
    assert se == pytest.approx(math.sqrt(spread / len(gains)))
    assert tc.paired_difference(rows, "r", flat, flat) == (0.0, 0.0)


def test_the_category_table_fits_each_builds_seen_part_and_scores_validation_and_held_out():
    old = {"r": (0.901, 0.062, 0.023, 0.013)}
    table = tc.category_rank_tables(12, seed=3, builds=[0.0, 0.9], settings="r", given=old)
    scores, differences = table.split("Difference from now")
    lines = scores.splitlines()
    assert sum(line.startswith("| 0 | ") or line.startswith("| 0.9 | ") for line in lines) == 6  # 2 builds x 3 parts
    scored = [line for line in lines if line.startswith("| r | ")]
    assert [line.split(":")[0] for line in scored] == [
        "| r | now",
        "| r | given",
        "| r | fit, copied 0",
        "| r | fit, copied 0.9",
        "| r | fit, mean of builds",
    ]
    assert "0.901 / 0.062 / 0.023 / 0.013" in scored[1]
    for line in scored:
        # validation and held-out of each build, then their means over the builds: log priors, below 0
        val0, held0, val9, held9, val_mean, held_mean = (float(c) for c in line.split("|")[3:-1])
        assert max(val0, held0, val9, held9) < 0
        assert val_mean == pytest.approx((val0 + val9) / 2, abs=1e-4) and held_mean == pytest.approx((held0 + held9) / 2, abs=1e-4)
    # every table but the constant itself, against the constant
    compared = [line.split("|")[2].strip() for line in differences.splitlines() if line.startswith("| r | ")]
    assert compared == ["given", "fit, copied 0", "fit, copied 0.9", "fit, mean of builds"]
