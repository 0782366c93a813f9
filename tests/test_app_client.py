"""The running app driven through gradio_client: one session builds, compares, labels, exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app_fakes import api_client, app_config, running_app


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    with running_app(app_config(tmp_path_factory.mktemp("app"), server_port=7861)) as served:
        yield served


@pytest.fixture(scope="module")
def client(app):
    return api_client(app[1])


def test_api_lists_the_main_endpoints(client):
    names = set(client.view_api(print_info=False, return_format="dict")["named_endpoints"])
    for name in (
        "/load_entry",
        "/create_user",
        "/add_turn",
        "/suggest_candidates",
        "/preview_prompt",
        "/save_entry",
        "/compare",
        "/label_A",
        "/label_B",
        "/label_tie",
        "/label_both_bad",
        "/start_queue",
        "/pairs",
        "/export_pairs",
        "/download_db",
        "/dashboards",
        "/predictions",
        "/inspect_prediction",
    ):
        assert name in names, name


def test_compare_label_export_roundtrip(app, client):
    demo, _ = app
    services = demo.petool_services
    key = services.generated()[0].key
    out = client.predict("generated", key, "r", api_name="/load_entry")
    assert "Loaded entry" in out[0]
    system, user, _ = client.predict(services.generated()[0].query, "r", "paper", api_name="/preview_prompt")
    assert "binary ratings" in system and user == services.generated()[0].query
    html_a, html_b, summary, _gold = client.predict("r", "base", "PEToolLLaMA", False, api_name="/compare")
    assert "fake-base" in html_a and "fake-base+fake-adapter" in html_b
    client.predict("ann", ["ignores preference"], "", "", api_name="/label_B")
    [label] = services.store.labels()
    assert (label["annotator"], label["verdict"]) == ("ann", "B")
    rows, counts = client.predict("ground_truth", "drop", api_name="/pairs")
    assert "1 label → **1 DPO pair** from 1 of them." in counts
    path, _ = client.predict("TRL JSONL", "ground_truth", "drop", api_name="/export_pairs")
    path = path if isinstance(path, str) else path["path"]
    [exported] = services.store.preference_examples()
    assert json.loads(Path(path).read_text().splitlines()[0])["chosen"][0]["content"] == exported.chosen


def test_refused_calls_return_normally_with_the_reason(app):
    """A refusal is an answer (the reason in the control's message), never an error, and stores nothing."""
    demo, _ = app
    store = demo.petool_services.store
    before = store.stats()
    fresh = api_client(app[1])  # a new session: no comparison yet
    out = fresh.predict("ann", [], "", "", api_name="/label_A")
    assert any(isinstance(o, str) and o.startswith("⚠️ Not saved: Run a comparison first") for o in out), out
    _a, _b, summary, _gold = fresh.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")
    assert summary.startswith("⚠️ Load or build an entry first")
    fresh.predict("generated", services_key(demo), "p", api_name="/load_entry")
    fresh.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")
    out = fresh.predict("", [], "", "", api_name="/label_A")  # no annotator name
    assert any(isinstance(o, str) and "Type your annotator name" in o for o in out), out
    message, *_ = fresh.predict("p", None, "say hi", '{"nope": 1}', None, api_name="/add_turn")
    assert message == "⚠️ Pick a tool first."
    # Nothing refused was stored; the comparisons that ran keep their scored answers (the app runs).
    assert {k: v for k, v in store.stats().items() if k not in ("runs", "predictions")} == {
        k: v for k, v in before.items() if k not in ("runs", "predictions")
    }


def services_key(demo) -> str:
    return demo.petool_services.generated()[0].key


def test_model_events_are_limited_to_one_at_a_time(app):
    demo, _ = app
    model_fns = [f for f in demo.fns.values() if f.concurrency_id == "model"]
    assert model_fns and all(f.concurrency_limit == 1 for f in model_fns)
    assert demo._queue.max_size == 16


def test_compare_defaults_to_each_models_own_choice(app, client):
    """Issue 28 #6: a comparison with the page's defaults passes ranking prior 0 to both models;
    the fused mode passes its weight (the default one unless moved); the app's runs and the
    dashboards keep the two apart and say which was used."""
    from petool.ui.comparison import FUSED_CHOICE

    demo, _ = app
    services = demo.petool_services
    fake = services.model.predictor()
    client.predict("generated", services.generated()[1].key, "r", api_name="/load_entry")
    _a, html_b, summary, _gold = client.predict("r", "base", "PEToolLLaMA", False, api_name="/compare")
    assert fake.weights[-2:] == [0.0, 0.0]
    assert "tool choice: each model's own choice" in summary and "fake-base+fake-adapter[rank-prior 0]" in html_b
    client.predict("ann", [], "", "", api_name="/label_B")  # the label says how its sides chose
    label = services.store.labels()[-1]
    assert (label["model_a"], label["model_b"]) == ("fake-base[rank-prior 0]", "fake-base+fake-adapter[rank-prior 0]")
    _a, html_b, summary, _gold = client.predict("r", "base", "PEToolLLaMA", False, 2.5, FUSED_CHOICE, api_name="/compare")
    assert fake.weights[-2:] == [2.5, 2.5] and "fused, weight 2.5" in summary and "[rank-prior" not in html_b
    client.predict("r", "base", "PEToolLLaMA", False, 4, FUSED_CHOICE, api_name="/compare")
    assert fake.weights[-2:] == [4.0, 4.0]
    client.predict("r", "base", "PEToolLLaMA", False, 4, "Each model's own choice", api_name="/compare")
    assert fake.weights[-2:] == [0.0, 0.0]  # own choice: the weight plays no part

    runs = {r["id"] for r in services.store.runs()}
    assert {
        "app:fake-base[rank-prior 0]",
        "app:fake-base+fake-adapter[rank-prior 0]",
        "app:fake-base",
        "app:fake-base+fake-adapter",
    } <= runs
    *_, table, status = client.predict([], [], [], api_name="/dashboards")
    rows = {(r[0], r[1]): r[-1] for r in table["data"]}
    assert rows[("fake-base+fake-adapter[rank-prior 0]", "r")] == "model's own choice"
    assert rows[("fake-base+fake-adapter", "r")] == "model + ranking (weight 2.5)"
    assert rows[("fake-base+fake-adapter[rank-prior 4]", "r")] == "model + ranking (weight 4)"
    assert table["headers"][-1] == "tool choice"
