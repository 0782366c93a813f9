"""What the Errors tab shows for stored runs: its table under each filter, its filter choices and
each prediction's details, pinned in a golden file (through the handlers and through the running
app's API), so a change in how stored predictions are read cannot change what the tab shows.

The runs hold a right answer, a wrong tool, a wrong parameter, an unparsable answer, a failed
model, an answer on an entry without a gold call, and a prediction whose entry is not stored.
Regenerate the golden file (after a change meant to alter the tab) with PETOOL_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from petool.appconfig import AppConfig
from petool.evaluate import record_for
from petool.schema import Entry, Generation, ToolCall
from petool.store import Store
from petool.ui import errors
from petool.ui.services import Services
from tests.app_fakes import FakePredictor, api_client, app_config, running_app
from tests.fixtures.entries import FLIGHT, WEATHER_A, WEATHER_B, empty_history_entry, weather_entry

GOLDEN = Path(__file__).parent / "golden" / "errors_tab.json"
UPDATE = os.environ.get("PETOOL_UPDATE_GOLDEN") == "1"


def _call(name: str, **params) -> str:
    return json.dumps({"tool_name": name, "parameters": params})


def _gold_less() -> Entry:
    return dataclasses.replace(weather_entry(), entry_id="g-1", ground_truth=ToolCall("", {}), category=None)


def _lost() -> Entry:
    """An entry whose prediction is stored but which is itself stored nowhere (a longer history)."""
    return dataclasses.replace(weather_entry(), entry_id="gone", history_length=45)


ANSWERS = [
    # (run, model, entry, setting, text or None, model error)
    ("mix", "m-one", weather_entry, "p", _call(WEATHER_A, city="Rome", days=5), ""),  # right
    ("mix", "m-one", weather_entry, "r", _call(FLIGHT), ""),  # wrong tool
    ("mix", "m-one", weather_entry, "c", _call(WEATHER_B, q="Rome"), ""),  # the other tool of the cluster
    ("mix", "m-one", weather_entry, "none", _call(WEATHER_A, city="Milan", days=5), ""),  # wrong parameter
    ("mix", "m-one", empty_history_entry, "p", "Sorry, I <b>cannot</b> help", ""),  # unparsable
    ("mix", "m-one", empty_history_entry, "none", None, "RuntimeError: no weights"),  # the model failed
    ("mix", "m-one", empty_history_entry, "r", _call(FLIGHT), ""),  # right, no parameters
    ("other", "m-two", weather_entry, "p", '{"tool_name": "' + WEATHER_A + '", "parameters": {"city": ', ""),  # torn JSON
    ("other", "m-two", _gold_less, "p", _call(WEATHER_A, city="Rome"), ""),  # no gold: unscored
    ("other", "m-two", _lost, "r", _call(WEATHER_A, city="Rome", days=5), ""),  # its entry is not stored
]


def store_runs(store: Store) -> None:
    """The runs of ANSWERS, the "mix" run in the paper style and "other" in one the app does not know."""
    for run_id, style in (("mix", "paper"), ("other", "house-style")):
        predictions = [
            record_for(make(), setting, model, None if text is None else Generation(text, 0.25 + i / 100, 50 + i, 7), "robust", error)
            for i, (run, model, make, setting, text, error) in enumerate(ANSWERS)
            if run == run_id
        ]
        store.save_run({"id": run_id, "model": predictions[0].model, "style": style, "created": f"2026-12-0{len(run_id)}"}, predictions)
    store.save_entries([weather_entry(), empty_history_entry()], source="run:mix")
    store.save_entry(_gold_less(), source="saved")


FILTERS = {
    "default (only wrong)": {},
    "everything": {"only_wrong": False},
    "run mix": {"run_id": "mix", "only_wrong": False},
    "model m-two": {"model": "m-two"},
    "setting p": {"setting": "p", "only_wrong": False},
    "error format:no_call": {"error": "format:no_call"},
    "category Travel": {"category": "Travel", "only_wrong": False},
    "bucket 0-19": {"bucket": "0-19", "only_wrong": False},
    "bucket 40-59": {"bucket": "40-59", "only_wrong": False},
    "bucket 20-39": {"bucket": "20-39"},
    "run and setting": {"run_id": "mix", "setting": "none", "only_wrong": False},
    "nothing matches": {"model": "nobody"},
}


def handler_view(services: Services) -> dict:
    """Everything the tab's handlers give for the stored runs."""
    ids = [row[0] for row in errors.prediction_rows(services, only_wrong=False)[0]]
    return {
        "filters": {name: list(errors.prediction_rows(services, **f)) for name, f in FILTERS.items()},
        "choices": errors.filter_choices(services),
        "inspect": {str(i): list(errors.inspect(services, i)) for i in ids},
    }


def _golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def _matches_golden(key: str, value) -> None:
    value = json.loads(json.dumps(value, ensure_ascii=False))  # tuples as lists, as the file holds them
    golden = _golden() if GOLDEN.exists() else {}
    if UPDATE:
        golden[key] = value
        GOLDEN.write_text(json.dumps(golden, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert value == golden[key]


@pytest.fixture
def services(tmp_path):
    s = Services(AppConfig(db_path=str(tmp_path / "petool.db"), data_path=None), predictor_factory=FakePredictor, generated=[])
    store_runs(s.store)
    yield s
    s.store.close()


def test_the_tab_shows_what_it_showed(services):
    view = handler_view(services)
    assert len(view["inspect"]) == len(ANSWERS)  # every stored prediction opens
    _matches_golden("handlers", view)


def test_the_table_says_what_each_answer_was(services):
    """The golden file's table in words: one row per answer, verdicts in words, wrong ones by default."""
    rows, count = errors.prediction_rows(services, only_wrong=False)
    assert count == f"{len(ANSWERS)} predictions."
    by_setting = {(r[1], r[4], r[3]): r for r in rows}
    assert by_setting["mix", "7", "p"][5:] == ["ok", "Weather", 12, "correct", "correct"]
    assert by_setting["mix", "7", "r"][5:] == ["tool:functionality_mismatch", "Weather", 12, "wrong", "wrong"]
    assert by_setting["mix", "7", "none"][8:] == ["correct", "wrong"]
    assert by_setting["mix", "e-2", "p"][5] == "format:no_call"
    assert by_setting["mix", "e-2", "none"][5] == "model:error"
    assert by_setting["other", "g-1", "p"][5:] == ["unscored", "", 12, "", ""]
    wrong, _ = errors.prediction_rows(services)
    assert {tuple(r) for r in wrong} == {tuple(r) for r in rows if not (r[8] == "correct" and r[9] == "correct")}
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)


def test_inspect_tells_a_missing_entry_and_a_missing_prediction(services):
    rows, _ = errors.prediction_rows(services, run_id="other", only_wrong=False)
    lost = next(r[0] for r in rows if r[4] == "gone")
    detail, prompt, raw, diff = errors.inspect(services, lost)
    assert "not stored" in detail and prompt == "" and WEATHER_A in raw and "parsed call" in diff
    with pytest.raises(ValueError, match="no prediction 999"):
        errors.inspect(services, 999)


def test_the_running_app_serves_the_same(tmp_path):
    # The runs are stored before the app is built: its filter dropdowns offer what is stored then.
    config = app_config(tmp_path)
    services = Services(config, predictor_factory=FakePredictor, generated=[])
    store_runs(services.store)
    with running_app(config, services=services) as (demo, url):
        client = api_client(url)
        table = {}
        for name in ("everything", "run and setting", "default (only wrong)"):
            f = {"run_id": None, "model": None, "setting": None, "error": None, "category": None, "bucket": None, "only_wrong": True}
            f.update(FILTERS[name])
            data, count = client.predict(*f.values(), api_name="/predictions")
            table[name] = {"data": data["data"], "headers": data["headers"], "count": count}
        ids = [row[0] for row in table["everything"]["data"]]
        shown = {str(i): json.loads(client.predict(i, api_name="/inspect_prediction")) for i in ids}
        assert shown == handler_view(demo.petool_services)["inspect"]
    services.store.close()
    _matches_golden("client", {"tables": table, "inspect": shown})
