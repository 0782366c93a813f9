"""The evaluation loop: files written, resume after a crash, model errors recorded, responses scored."""

import json

import pytest

from petool.evaluate import evaluate, read_predictions, score_responses
from petool.schema import Generation
from tests.fixtures.entries import WEATHER_A, empty_history_entry, weather_entry


class ScriptedModel:
    """A fake model answering from a script; fails on entries listed in ``explode``."""

    def __init__(self, answers, explode=(), name="scripted"):
        self.answers, self.explode, self.name, self.calls = answers, set(explode), name, []

    has_adapter = False

    def describe(self):
        return {"model": self.name}

    def generate(self, entry, setting, **options):
        self.calls.append((entry.key, setting))
        if (entry.key, setting) in self.explode:
            raise RuntimeError("boom")
        return Generation(self.answers.get(setting, "no idea"), 0.5, 100, 20)


GOOD = json.dumps({"tool_name": WEATHER_A, "parameters": {"city": "Rome", "days": 5}})


def test_run_writes_predictions_metrics_and_config(tmp_path):
    model = ScriptedModel({"p": GOOD, "r": GOOD})
    metrics = evaluate([weather_entry(), empty_history_entry()], ["p", "r", "c"], model, tmp_path, progress=False)
    rows = read_predictions(tmp_path / "predictions.jsonl")
    assert len(rows) == 6
    first = rows[0]
    for key in ("entry_id", "setting", "raw", "call", "tool_ok", "params_ok", "error", "latency_s", "prompt_tokens", "output_tokens"):
        assert key in first
    by = {r["setting"]: r for r in metrics["by_setting"]}
    assert by["p"]["tool_acc"] == 0.5 and by["c"]["tool_acc"] == 0.0
    assert json.loads((tmp_path / "metrics.json").read_text())["n"] == 6
    assert json.loads((tmp_path / "config.json").read_text())["model"] == "scripted"


def test_interrupted_run_resumes_without_redoing_work(tmp_path):
    entries = [weather_entry(), empty_history_entry()]
    evaluate(entries[:1], ["p"], ScriptedModel({"p": GOOD}), tmp_path, progress=False)
    with (tmp_path / "predictions.jsonl").open("a") as f:
        f.write('{"entry_id": "e-2", "setting"')  # a line torn by a crash
    model = ScriptedModel({"p": GOOD})
    metrics = evaluate(entries, ["p"], model, tmp_path, progress=False)
    assert model.calls == [("e-2", "p")]
    assert metrics["n"] == 2


def test_a_failing_entry_is_recorded_and_the_run_goes_on(tmp_path):
    model = ScriptedModel({"p": GOOD}, explode={("7", "p")})
    evaluate([weather_entry(), empty_history_entry()], ["p"], model, tmp_path, progress=False)
    rows = read_predictions(tmp_path / "predictions.jsonl")
    assert rows[0]["error"] == "model:error" and "boom" in rows[0]["parse_detail"]
    assert len(rows) == 2


def test_another_model_cannot_append_to_a_run(tmp_path):
    evaluate([weather_entry()], ["p"], ScriptedModel({}), tmp_path, progress=False)
    with pytest.raises(ValueError, match="holds a run of 'scripted'"):
        evaluate([weather_entry()], ["p"], ScriptedModel({}, name="other"), tmp_path, progress=False)


def test_score_responses_counts_missing_as_wrong():
    records = score_responses([weather_entry(), empty_history_entry()], [{"entry_id": 7, "setting": "r", "response": GOOD}])
    assert [(r["entry_id"], r["tool_ok"], r["error"]) for r in records] == [(7, True, "ok"), ("e-2", False, "missing:no_response")]
    with pytest.raises(ValueError, match="response #0"):
        score_responses([weather_entry()], [{"response": "x"}])


def test_a_prediction_line_reads_back_to_the_same_line(tmp_path):
    """predictions.jsonl rows are Prediction records: from_json then to_json gives the line back,
    byte for byte, with and without the tool choice of a whole-name decoder."""
    from petool.evaluate import record_for
    from petool.schema import Generation, Prediction

    entry = weather_entry()
    chosen = Generation(GOOD, 0.123456, 100, 20, tool_scores={WEATHER_A: -0.5}, tool_bias={WEATHER_A: 0.0})
    rows = [
        record_for(entry, "p", "m", chosen, "robust"),
        record_for(entry, "r", "m", Generation("no idea"), "robust"),
        record_for(entry, "c", "m", None, "robust", "RuntimeError: boom"),
    ]
    assert rows[0].to_json()["tool_choice"] == {"scores": {WEATHER_A: -0.5}, "bias": {WEATHER_A: 0.0}}
    assert "tool_choice" not in rows[1].to_json() and rows[0].latency_s == 0.1235
    for row in rows:
        line = json.dumps(row.to_json(), ensure_ascii=False)
        assert json.dumps(Prediction.from_json(json.loads(line)).to_json(), ensure_ascii=False) == line
    assert list(rows[2].to_json())[:4] == ["entry_id", "setting", "model", "raw"] and rows[2].error == "model:error"
