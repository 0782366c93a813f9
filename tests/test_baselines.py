"""Rule baselines: each rule's choice on a hand-made entry, and the reference numbers on real data."""

from pathlib import Path

import pytest

from petool.baselines import BASELINES, RuleBaseline, expected_random_accuracy
from petool.parsing import parse_call
from tests.fixtures.entries import NEWS, WEATHER_A, WEATHER_B, empty_history_entry, weather_entry

DEV = Path(__file__).resolve().parents[2] / "shared" / "petoolbench" / "early_test_dev.json.gz"


@pytest.mark.parametrize(
    "rule, setting, expected",
    [
        ("frequent", "p", WEATHER_A),  # SkyCast Pro appears once, OpenMeteo never
        ("ratings", "r", WEATHER_A),  # +1 for SkyCast Pro, -1 for OpenMeteo
        ("latest", "c", WEATHER_A),  # SkyCast Pro's turn comes after OpenMeteo's
        ("frequent", "c", WEATHER_A),  # one turn each: the seeded draw decides, see below
        ("nohistory", "none", WEATHER_A),  # "weather", "days"... overlap the forecast API most
    ],
)
def test_rules_pick_the_expected_candidate(rule, setting, expected):
    choice = RuleBaseline(rule).choose(weather_entry(), setting)
    if (rule, setting) == ("frequent", "c"):
        assert choice.name in (WEATHER_A, WEATHER_B)
    else:
        assert choice.name == expected


def test_ratings_rule_avoids_a_tool_rated_zero():
    entry = weather_entry()
    entry.histories["r"] = [t for t in entry.histories["r"] if t.rating == 0]  # only OpenMeteo, rated 0
    assert RuleBaseline("ratings").choose(entry, "r").name == WEATHER_A


def test_output_parses_to_the_tool_with_required_defaults():
    gen = RuleBaseline("rules").generate(weather_entry(), "p")
    assert parse_call(gen.text).call.to_json() == {"tool_name": WEATHER_A, "parameters": {"city": "Paris"}}


def test_random_is_seeded_and_stays_in_the_cluster():
    entry = weather_entry()
    picks = {RuleBaseline("random", seed=s).choose(entry, "p").name for s in range(30)}
    assert picks == {WEATHER_A, WEATHER_B}
    assert RuleBaseline("random", seed=3).choose(entry, "p") == RuleBaseline("random", seed=3).choose(entry, "p")
    assert NEWS not in picks


def test_empty_history_falls_back_to_random_and_expected_value():
    assert RuleBaseline("frequent").choose(empty_history_entry(), "p").name.startswith("<Travel>")
    assert expected_random_accuracy([weather_entry(), empty_history_entry()]) == pytest.approx((1 / 2 + 1) / 2)


def test_unknown_rule_names_the_valid_ones():
    with pytest.raises(ValueError, match="valid: " + ", ".join(BASELINES)):
        RuleBaseline("smart")


@pytest.mark.skipif(not DEV.exists(), reason="real dev entries (../shared/petoolbench) absent")
def test_history_rules_on_real_entries_match_the_reference_numbers(tmp_path):
    from petool.evaluate import evaluate
    from petool.formats import load_entries

    entries = load_entries(DEV).entries
    assert expected_random_accuracy(entries) == pytest.approx(0.46, abs=0.01)
    metrics = evaluate(entries, ["p", "r", "c"], RuleBaseline("rules"), tmp_path, progress=False)
    acc = {row["setting"]: row["tool_acc"] for row in metrics["by_setting"]}
    assert acc["r"] == pytest.approx(0.95, abs=0.02)  # docs/petoolbench.md §6: most positive ratings 0.95
    assert acc["c"] == pytest.approx(0.40, abs=0.02)  # latest tool 0.40
    assert 0.68 <= acc["p"] <= 0.78  # most frequent 0.70 (ties drawn at random here)


def test_history_ceiling_splits_runs_by_whether_the_gold_tool_is_in_the_history():
    from benchmarks.history_ceiling import ceiling_rows, history_groups

    used, unused = weather_entry(), weather_entry()
    unused.entry_id = 8
    unused.histories["p"] = [t for t in unused.histories["p"] if "SkyCast" not in t.call.tool_name]  # the tool never called
    groups = history_groups([used, unused], "p")
    assert groups["7"]["gold_in_history"] and not groups["8"]["gold_in_history"]
    assert (groups["7"]["rule_expected"], groups["8"]["rule_expected"]) == (1.0, 0.5)  # a tie between the two weather tools
    run = [
        {"entry_id": 7, "tool_ok": True, "call": {"tool_name": WEATHER_A}},
        {"entry_id": 8, "tool_ok": False, "call": {"tool_name": NEWS}},
    ]
    rows = ceiling_rows(groups, {"run": run})
    assert rows[1][1:4] == ["100.0", "50.0", "75.0"]  # the oracle rule: sure when used, a coin flip otherwise
    assert rows[2][1:4] == ["100.0", "100.0", "100.0"]  # ties to the first listed: the gold comes before WEATHER_B
    unused.candidates = unused.candidates[::-1]  # now WEATHER_B is listed first and takes the tie
    assert history_groups([unused], "p")["8"]["rule_first_listed"] == 0.0
    assert history_groups([unused], "p")["8"]["rule_expected"] == 0.5
    assert rows[3][1:4] == ["100.0", "100.0", "100.0"]  # each entry's cluster-mate says WEATHER_A
    assert rows[4] == ["run", "100.0", "0.0", "50.0", "0", "1"]  # the miss picked outside the cluster


def test_history_ceiling_cross_user_row_leaves_the_entry_itself_out():
    from dataclasses import replace

    from benchmarks.history_ceiling import history_groups
    from petool.schema import ToolCall

    a, b, c = weather_entry(), weather_entry(), weather_entry()
    b.entry_id, c.entry_id = 8, 9
    c.ground_truth = ToolCall(WEATHER_B, {"q": "Rome"})
    groups = history_groups([a, b, c], "p")
    # a's mates: one WEATHER_A (b), one WEATHER_B (c) -> a tie, half a hit; c's mates: two WEATHER_A -> a miss
    assert [groups[k]["cross_user_expected"] for k in ("7", "8", "9")] == [0.5, 0.5, 0.0]
    alone = history_groups([a], "p")["7"]  # no other entry of its cluster: a uniform guess
    assert alone["cross_user_expected"] == 0.5
    other = replace(b, func="4")  # another cluster id does not count, even with the same members
    assert history_groups([a, other], "p")["7"]["cross_user_expected"] == 0.5
