"""Scoring: the paper's accuracies, the error taxonomy, and aggregation."""

import pytest

from petool.parsing import Parsed, parse_call
from petool.schema import ToolCall
from petool.scoring import ERROR_CODES, aggregate, error_counts, format_table, history_bucket, params_error, score_call
from tests.fixtures.entries import FLIGHT, NEWS, WEATHER_A, WEATHER_B, weather_entry

GOLD = {"city": "Rome", "days": 5}

CASES = [
    ("exact", WEATHER_A, GOLD, True, True, "ok"),
    ("key order does not matter", WEATHER_A, {"days": 5, "city": "Rome"}, True, True, "ok"),
    ("type-sensitive value", WEATHER_A, {"city": "Rome", "days": "5"}, True, False, "params:value_mismatch"),
    ("int vs float", WEATHER_A, {"city": "Rome", "days": 5.0}, True, False, "params:value_mismatch"),
    ("missing parameter", WEATHER_A, {"city": "Rome"}, True, False, "params:name_mismatch"),
    ("preference mismatch, params still right", WEATHER_B, GOLD, False, True, "tool:preference_mismatch"),
    ("functionality mismatch", NEWS, {"country": "us"}, False, False, "tool:functionality_mismatch"),
    ("hallucinated tool", "<Weather>.<Made Up>.<x>", GOLD, False, True, "tool:hallucinated"),
    ("candidate outside cluster", FLIGHT, {}, False, False, "tool:functionality_mismatch"),
]


@pytest.mark.parametrize("label, tool, params, tool_ok, params_ok, error", CASES, ids=[c[0] for c in CASES])
def test_score_table(label, tool, params, tool_ok, params_ok, error):
    score = score_call(weather_entry(), "p", Parsed(ToolCall(tool, params), "ok"))
    assert (score.tool_ok, score.params_ok, score.error) == (tool_ok, params_ok, error)


def test_unparseable_and_missing_are_wrong_on_both():
    entry = weather_entry()
    bad = score_call(entry, "r", parse_call("not json"))
    assert (bad.tool_ok, bad.params_ok, bad.error) == (False, False, "format:no_call")
    missing = score_call(entry, "r", None)
    assert (missing.tool_ok, missing.params_ok, missing.error) == (False, False, "missing:no_response")


def test_every_error_code_produced_is_documented():
    codes = {c[-1] for c in CASES} | {"format:no_call", "missing:no_response", "format:empty", "format:bad_json", "format:bad_shape"}
    # a model that raised (petool.evaluate) and a call on an entry without gold (the Compare tab)
    codes |= {"model:error", "unscored"}
    assert codes <= set(ERROR_CODES)
    assert [c for c in ERROR_CODES if ":" not in c] == ["ok", "unscored"]


def test_params_error_ignores_order_but_not_types():
    assert params_error({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}) == "ok"
    assert params_error({"a": True}, {"a": 1}) == "params:value_mismatch"
    assert params_error({}, {"a": 1}) == "params:name_mismatch"


def test_aggregate_uses_all_records_as_denominator():
    records = [
        {"setting": "p", "model": "m", "tool_ok": True, "params_ok": True, "history_length": 3},
        {"setting": "p", "model": "m", "tool_ok": False, "params_ok": True, "history_length": 45},
        {"setting": "p", "model": "m", "tool_ok": False, "params_ok": False, "history_length": 90},
        {"setting": "r", "model": "m", "tool_ok": True, "params_ok": False, "history_length": None},
    ]
    rows = aggregate(records, ["model", "setting"])
    assert rows[0] == {"model": "m", "setting": "p", "n": 3, "tool_acc": 1 / 3, "param_acc": 2 / 3, "both_acc": 1 / 3}
    buckets = [r["history_bucket"] for r in aggregate(records, ["history_bucket"])]
    assert buckets == ["0-19", "40-59", "80+", "unknown"]


def test_error_counts_and_table():
    rows = error_counts([{"setting": "p", "error": "ok"}, {"setting": "p", "error": "tool:hallucinated"}, {"setting": "p", "error": "ok"}])
    assert rows[0] == {"setting": "p", "error": "ok", "count": 2, "share": 2 / 3}
    table = format_table(aggregate([{"setting": "p", "tool_ok": True, "params_ok": False}]), ["setting", "n", "tool_acc"])
    assert table.splitlines()[2].split() == ["p", "1", "100.0%"]


@pytest.mark.parametrize("length, bucket", [(0, "0-19"), (19, "0-19"), (20, "20-39"), (79, "60-79"), (80, "80+"), (None, "unknown")])
def test_history_bucket(length, bucket):
    assert history_bucket(length) == bucket
