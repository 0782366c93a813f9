"""One record for "a model answer, parsed and scored": ``schema.Prediction``, built by
``evaluate.record_for`` for an evaluation's predictions.jsonl and for the app's comparison sides,
and what the store keeps of it. These tables fail when the record and a stored or exported shape
drift apart."""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest

from petool.appconfig import AppConfig
from petool.dashboards import tool_choice_of
from petool.evaluate import evaluate, read_predictions, read_run_folder, record_for
from petool.predictors import ModelSpec, build_predictor
from petool.schema import Entry, Generation, Prediction, ToolCall, entry_from_dict, entry_to_dict
from petool.scoring import ERROR_CODES
from petool.store import Store
from petool.store_rows import STORED_PREDICTION_FIELDS
from petool.ui import comparison
from petool.ui.services import BASE, TUNED, Services, _build_generated
from tests.app_fakes import FakePredictor
from tests.fixtures.entries import FLIGHT, WEATHER_A, weather_entry

NOT_STORED = ("parse_detail", "gold", "cluster_size", "tool_choice")
"""The Prediction fields the predictions table does not keep (they stay in predictions.jsonl)."""


def gold_less() -> Entry:
    """An entry as built in the app without a gold call."""
    e = weather_entry()
    e.ground_truth = ToolCall("", {})
    return e


def stored_part(p: Prediction) -> Prediction:
    """What the store gives back of ``p``: its stored fields, the entry id as text, the rest None."""
    kept = {f: getattr(p, f) for f in STORED_PREDICTION_FIELDS}
    kept["entry_id"] = str(p.entry_id)
    return Prediction(**{f.name: kept.get(f.name) for f in dataclasses.fields(Prediction)})


# ---------------------------------------------------------------- the record and its shapes


def test_every_field_is_stored_or_named_as_not_stored():
    fields = [f.name for f in dataclasses.fields(Prediction)]
    assert sorted(fields) == sorted(STORED_PREDICTION_FIELDS + NOT_STORED)
    store = Store()
    columns = set(store.schema_columns("predictions")) - {"id", "run_id"}
    assert columns == set(STORED_PREDICTION_FIELDS)


A_CALL = json.dumps({"tool_name": WEATHER_A, "parameters": {"city": "Rome", "days": 5}})

RECORD_CASES = [
    # (label, entry, text or None, model error, error, tool_ok, params_ok)
    ("right", weather_entry, A_CALL, "", "ok", True, True),
    ("wrong function", weather_entry, json.dumps({"tool_name": FLIGHT, "parameters": {}}), "", "tool:functionality_mismatch", False, False),
    ("no call", weather_entry, "I cannot help", "", "format:no_call", False, False),
    ("no response", weather_entry, None, "", "missing:no_response", False, False),
    ("model failed", weather_entry, None, "RuntimeError: no weights", "model:error", False, False),
    ("no gold, a candidate", gold_less, A_CALL, "", "unscored", None, None),
    (
        "no gold, not a candidate",
        gold_less,
        json.dumps({"tool_name": "<X>.<Y>.<Z>", "parameters": {}}),
        "",
        "tool:hallucinated",
        None,
        None,
    ),
    ("no gold, no call", gold_less, "nope", "", "format:no_call", None, None),
    ("no gold, model failed", gold_less, None, "RuntimeError: no weights", "model:error", None, None),
]


@pytest.mark.parametrize("label, make, text, model_error, error, tool_ok, params_ok", RECORD_CASES, ids=[c[0] for c in RECORD_CASES])
def test_record_table(label, make, text, model_error, error, tool_ok, params_ok):
    """Every answer becomes one Prediction whose error is in the ERROR_CODES table; it survives
    JSON and, for the fields the table keeps, the store."""
    entry = make()
    gen = Generation(text, 0.123456, 10, 5, tool_scores={WEATHER_A: -0.5}, tool_bias={WEATHER_A: 0.0}) if text is not None else None
    p = record_for(entry, "p", "m", gen, "robust", model_error)
    assert (p.error, p.tool_ok, p.params_ok) == (error, tool_ok, params_ok)
    assert p.error in ERROR_CODES and (p.param_error in ERROR_CODES or p.param_error is None)
    assert p.gold == (entry.ground_truth if entry.ground_truth.tool_name else None)
    if model_error:
        assert p.parse_detail == model_error and p.raw is None and p.latency_s is None
    assert Prediction.from_json(json.loads(json.dumps(p.to_json()))) == p
    store = Store()
    store.save_run({"id": "r"}, [p])
    assert store.prediction_records(["r"]) == [stored_part(p)]


def test_an_evaluation_line_is_stored_as_its_record(tmp_path):
    """predictions.jsonl lines, read back as a run folder and imported, give the records the
    evaluation wrote (their stored fields)."""
    entries = [weather_entry()]
    evaluate(entries, ["p", "r", "none"], build_predictor(ModelSpec.parse("baseline:rules")), tmp_path, progress=False)
    lines = read_predictions(tmp_path / "predictions.jsonl")
    written = [Prediction.from_json(line) for line in lines]
    assert [p.to_json() for p in written] == lines  # the line is exactly the record's JSON
    store = Store()
    store.save_run(read_run_folder(tmp_path).run, read_run_folder(tmp_path).predictions)
    assert store.prediction_records() == [stored_part(p) for p in written]


# ---------------------------------------------------------------- reading stored predictions


def _mixed_runs(store: Store) -> list[Prediction]:
    """Two runs of one entry: right, wrong tool, wrong parameter, no call, a failed model."""
    answers = [
        ("r1", "p", A_CALL, ""),
        ("r1", "r", json.dumps({"tool_name": FLIGHT, "parameters": {}}), ""),
        ("r1", "c", json.dumps({"tool_name": WEATHER_A, "parameters": {"city": "Oslo", "days": 5}}), ""),
        ("r2", "p", "no idea", ""),
        ("r2", "none", None, "RuntimeError: boom"),
    ]
    made = []
    for run in ("r1", "r2"):
        mine = [
            record_for(weather_entry(), s, f"model-{run}", None if t is None else Generation(t, 0.5, 9, 3), "robust", e)
            for r, s, t, e in answers
            if r == run
        ]
        store.save_run({"id": run}, mine)
        made += mine
    return made


def test_stored_predictions_filter_and_page(tmp_path):
    store = Store(tmp_path / "p.db")
    made = _mixed_runs(store)
    every = store.stored_predictions()
    assert every.total == 5 and [s.id for s in every.rows] == sorted(s.id for s in every.rows)
    assert [s.run_id for s in every.rows] == ["r1"] * 3 + ["r2"] * 2
    # without their output, each row is its record's stored part
    assert [s.record for s in every.rows] == [dataclasses.replace(stored_part(p), raw=None, call=None) for p in made]
    errors = [p.error for p in made]
    assert [s.record.error for s in store.stored_predictions(only_wrong=True).rows] == errors[1:]
    assert store.stored_predictions("r2").total == 2 and store.stored_predictions(["r1", "r2"]).total == 5
    assert store.stored_predictions([]).total == 0  # an empty choice matches nothing
    assert [s.record.setting for s in store.stored_predictions(setting=["p", "none"]).rows] == ["p", "p", "none"]
    assert store.stored_predictions(error="model:error", model="model-r2").total == 1
    assert store.stored_predictions(error="model:error", model="model-r1").total == 0
    assert store.stored_predictions(bucket="0-19").total == 5 and store.stored_predictions(bucket="unknown").total == 0
    assert store.stored_predictions(category="Weather", run_ids="r1", only_wrong=True).total == 2
    page = store.stored_predictions(offset=1, limit=2)
    assert (page.total, [s.id for s in page.rows]) == (5, [s.id for s in every.rows[1:3]])
    # with their output: the whole stored record
    whole = store.stored_predictions(ids=every.rows[2].id, with_output=True)
    assert [s.record for s in whole.rows] == [stored_part(made[2])] and whole.rows[0].record.call.parameters["city"] == "Oslo"
    assert store.prediction_records(setting="p") == [stored_part(made[0]), stored_part(made[3])]
    assert store.stored_predictions(ids=10_000, with_output=True).rows == []
    store.close()


def test_stored_predictions_are_read_once_per_change_and_beside_the_writer(tmp_path):
    """Filtering again reads nothing new; a write is seen at once; reads go on while another
    thread holds the writer's lock (a long import), on the reader's own connection."""
    store = Store(tmp_path / "p.db")
    _mixed_runs(store)
    first = store._scored_predictions()
    assert store._scored_predictions() is first
    store.save_run({"id": "r3"}, [record_for(weather_entry(), "p", "m3", Generation(A_CALL, 0.1), "robust")])
    assert store._scored_predictions() is not first and store.stored_predictions(run_ids="r3").total == 1
    held, release = threading.Event(), threading.Event()

    def hold_the_writer():
        with store._lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_writer)
    holder.start()
    held.wait(5)
    try:
        answer = []
        reader = threading.Thread(target=lambda: answer.append(store.stored_predictions(setting="p", with_output=True)))
        reader.start()
        reader.join(5)
        assert answer and answer[0].total == 3 and answer[0].rows[0].record.raw == A_CALL
    finally:
        release.set()
        holder.join()
    store.close()


def test_a_stored_call_that_is_not_a_tool_call_reads_as_no_call():
    """An imported line may hold anything as its call: the record has none, the row still reads."""
    store = Store()
    store.save_run(
        {"id": "odd"},
        [{"entry_id": 1, "setting": "p", "call": {"name": "x"}, "error": "ok"}, {"entry_id": 2, "setting": "p", "call": "text"}],
    )
    records = store.prediction_records("odd")
    assert [(p.entry_id, p.call) for p in records] == [("1", None), ("2", None)]


# ---------------------------------------------------------------- comparison sides


@pytest.fixture
def services(tmp_path):
    config = AppConfig(db_path=str(tmp_path / "petool.db"), data_path=None)
    generated = _build_generated(n=4, seed=1)
    s = Services(config, predictor_factory=FakePredictor, generated=[entry_from_dict(entry_to_dict(e)) for e in generated])
    yield s
    s.store.close()


def test_a_side_is_a_prediction_plus_the_comparisons_fields(services):
    entry = services.generated()[0]
    result = comparison.run_compare(services, entry_to_dict(entry), "r", BASE, TUNED)
    for side, choice in zip(result["sides"], (BASE, TUNED), strict=True):
        p = Prediction.from_json(side)
        assert side == {**p.to_json(), "choice": choice, "model_error": "", "note": ""}
        assert set(side) - set(p.to_json()) == set(comparison.SIDE_FIELDS)
        # the same record evaluate would write for this answer
        gen = Generation(side["raw"], side["latency_s"], side["prompt_tokens"], side["output_tokens"], **_choice(side))
        assert p == record_for(entry, "r", side["model"], gen, "robust")


def _choice(side: dict) -> dict:
    tc = side.get("tool_choice") or {}
    return {"tool_scores": tc.get("scores"), "tool_bias": tc.get("bias")}


def test_a_side_round_trips_through_the_store(services):
    """Each scored side is stored in its model's app run as the same Prediction (its stored
    fields), in the same row shape an imported evaluation gets."""
    entry = services.generated()[0]
    result = comparison.run_compare(services, entry_to_dict(entry), "r", BASE, TUNED)
    for side in result["sides"]:
        run_id = f"app:{side['model']}"
        assert services.store.prediction_records([run_id]) == [stored_part(Prediction.from_json(side))]
        services.store.save_run({"id": "imported"}, [Prediction.from_json(side)], replace=True)
        [app_row] = services.store.predictions([run_id])
        [imported_row] = services.store.predictions(["imported"])
        assert {k: v for k, v in app_row.items() if k not in ("id", "run_id")} == {
            k: v for k, v in imported_row.items() if k not in ("id", "run_id")
        }


def test_a_failed_model_side_carries_the_error_code(services):
    def broken():
        raise RuntimeError("no weights here")

    services.model._factory = broken
    result = comparison.run_compare(services, entry_to_dict(services.generated()[0]), "p", BASE, "baseline:rules")
    failed, rule = result["sides"]
    assert failed["error"] == "model:error" and failed["error"] in ERROR_CODES
    assert failed["param_error"] == "model:error" and failed["parse_detail"] == failed["model_error"]
    assert "no weights here" in failed["model_error"] and failed["choice"] == BASE and failed["raw"] is None
    assert rule["error"] in ERROR_CODES and rule["tool_ok"] is not None
    # a failed side is not an answer of its model: only the rule's reaches the dashboards
    assert [r["id"] for r in services.store.runs()] == ["app:baseline:rules"]


# ---------------------------------------------------------------- how the sides chose their tool


@pytest.mark.parametrize(
    "mode, weight, expected",
    [
        (comparison.OWN_CHOICE, None, 0.0),
        (comparison.OWN_CHOICE, 4, 0.0),  # the weight waits for the fused mode
        ("own", 2.5, 0.0),
        (comparison.FUSED_CHOICE, None, 2.5),
        (comparison.FUSED_CHOICE, 4, 4.0),
        ("fused", 0, 0.0),
    ],
)
def test_choice_rank_prior(mode, weight, expected):
    assert comparison.choice_rank_prior(mode, weight) == expected


def test_an_unknown_choice_mode_is_refused():
    with pytest.raises(ValueError, match="unknown tool-choice mode"):
        comparison.choice_rank_prior("the ranking alone")


def test_the_comparison_record_says_how_its_sides_chose(services):
    d = entry_to_dict(services.generated()[0])
    own = comparison.run_compare(services, d, "r", BASE, TUNED, rank_prior=0)
    fused = comparison.run_compare(services, d, "r", BASE, TUNED)
    assert (own["choice_mode"], own["rank_prior"], fused["choice_mode"], fused["rank_prior"]) == ("own", 0.0, "fused", 2.5)
    assert [s["model"] for s in own["sides"]] == ["fake-base[rank-prior 0]", "fake-base+fake-adapter[rank-prior 0]"]
    assert [s["model"] for s in fused["sides"]] == ["fake-base", "fake-base+fake-adapter"]
    assert {r["id"] for r in services.store.runs()} == {f"app:{s['model']}" for s in own["sides"] + fused["sides"]}


@pytest.mark.parametrize(
    "model, words",
    [
        ("SmolLM2+PEToolLLaMA[rank-prior 0]", "model's own choice"),
        ("SmolLM2+PEToolLLaMA", "model + ranking (weight 2.5)"),
        ("SmolLM2[rank-prior 4]", "model + ranking (weight 4)"),
        ("SmolLM2+DPO job #3[rank-prior 0.5][close-penalty 0]", "model + ranking (weight 0.5)"),
        ("SmolLM2+PEToolLLaMA[paper,paper]", "model's own choice"),
        ("openai:gpt-4o-mini", "model's own choice"),
        ("baseline:rules", "rule"),
    ],
)
def test_tool_choice_of_a_model_name(model, words):
    assert tool_choice_of(model) == words
