"""scripts/same_predictions.py: two runs' predictions compared byte for byte apart from timing."""

import json

import pytest

from petool.baselines import RuleBaseline
from petool.evaluate import evaluate
from scripts.same_predictions import differences, main, masked
from tests.fixtures.entries import weather_entry


def _record(**changes) -> dict:
    record = {
        "entry_id": 1,
        "setting": "p",
        "raw": '{"latency_s": 9}',
        "call": {"tool_name": "<A>.<B>.<c>", "parameters": {}},
        "tool_ok": True,
        "latency_s": 0.0123,
        "prompt_tokens": None,
    }
    return record | changes


def _write(path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_only_the_records_own_timing_is_masked():
    line = json.dumps(_record())
    assert masked(line) == line.replace('"latency_s": 0.0123', '"latency_s": _')
    assert '"raw": "{\\"latency_s\\": 9}"' in masked(line)  # the same words inside a string stay
    assert masked(json.dumps(_record(latency_s=None))) == masked(line)
    assert masked(line, ()) == line


def test_a_field_that_cannot_be_told_from_a_nested_one_is_an_error():
    nested = _record(call={"tool_name": "<A>.<B>.<c>", "parameters": {"q": 1, "latency_s": 2}})
    with pytest.raises(ValueError, match="latency_s"):
        masked(json.dumps(nested))


def test_runs_differing_in_timing_only_are_the_same(tmp_path, capsys):
    _write(tmp_path / "a.jsonl", [_record(), _record(entry_id=2)])
    _write(tmp_path / "b.jsonl", [_record(latency_s=4.5), _record(entry_id=2, latency_s=1e-05)])
    assert differences(tmp_path / "a.jsonl", tmp_path / "b.jsonl") == []
    assert main([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 0
    assert capsys.readouterr().out.startswith("same: 2 predictions")


@pytest.mark.parametrize(
    "after",
    [
        [_record(), _record(entry_id=2, tool_ok=False)],  # another answer
        [_record(), _record(entry_id=2, prompt_tokens=0)],  # another field, even one about cost
        [_record()],  # a prediction missing
    ],
)
def test_any_other_difference_is_reported_with_its_line(tmp_path, capsys, after):
    _write(tmp_path / "a.jsonl", [_record(), _record(entry_id=2)])
    _write(tmp_path / "b.jsonl", after)
    assert main([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("different:") and ("line 2:" in out or "has 2 lines" in out)


def test_a_field_can_be_ignored_by_name_and_a_missing_file_is_one_clear_line(tmp_path, capsys):
    _write(tmp_path / "a.jsonl", [_record()])
    _write(tmp_path / "b.jsonl", [_record(prompt_tokens=7)])
    assert main([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--ignore", "latency_s", "--ignore", "prompt_tokens"]) == 0
    assert main([str(tmp_path / "a.jsonl"), str(tmp_path / "none")]) == 2
    assert "no predictions file" in capsys.readouterr().err


def test_the_evaluation_writers_records_are_read_and_masked(tmp_path):
    entries = [weather_entry()]
    for name in ("before", "after"):
        evaluate(entries, ["p", "r"], RuleBaseline("evidence"), tmp_path / name, progress=False)
    lines = (tmp_path / "before" / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all('"latency_s": _' in masked(line) for line in lines)
    assert main([str(tmp_path / "before"), str(tmp_path / "after")]) == 0
