"""The SQLite store: exact schema, idempotent migrations, append-only labels, run import."""

from __future__ import annotations

import json
import sqlite3

import pytest

from petool.schema import Entry, Tool, ToolCall, Turn
from petool.store import MIGRATIONS, RunExists, Store, entry_from_dict, entry_to_dict

EXPECTED_SCHEMA = {
    "_migrations": ["id", "name", "applied"],
    "entries": ["id", "key", "source", "user_id", "entry", "created", "updated"],
    "labels": [
        "id", "annotator", "created", "entry_key", "entry", "setting", "query", "prompt", "model_a",
        "model_b", "call_a", "call_b", "raw_a", "raw_b", "blind", "verdict", "tags", "comment", "gold_call",
    ],
    "predictions": [
        "id", "run_id", "entry_id", "setting", "model", "raw", "call", "tool_ok", "params_ok", "error",
        "param_error", "latency_s", "prompt_tokens", "output_tokens", "category", "history_length",
    ],
    "runs": [
        "id", "model", "adapter", "mode", "style", "settings", "data_path", "scorer_version",
        "benchmark_version", "created", "run_dir", "config", "metrics",
    ],
    "train_jobs": [
        "id", "created", "updated", "status", "pid", "command", "log_path", "output_dir", "progress",
        "step", "total_steps", "losses", "message", "config",
    ],
    "users": ["id", "name", "profile", "created"],
}


def make_entry(key="e1") -> Entry:
    """Two equivalent weather APIs (A preferred) and a distractor; a p history with non-ASCII text."""
    a = Tool("<Weather>.<A>.<forecast>", "forecast by A")
    b = Tool("<Weather>.<B>.<forecast>", "forecast by B")
    c = Tool("<Music>.<C>.<play>", "play <b>music</b>")
    return Entry(
        entry_id=key,
        query="Weather in Zürich tomorrow",
        candidates=[a, b, c],
        ground_truth=ToolCall(a.name, {"city": "Zürich"}),
        histories={"p": [Turn("forecast Paris", ToolCall(a.name, {"city": "Paris"}))]},
        history_length=1,
        category="Weather",
        cluster=[a.name, b.name],
    )


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "petool.db")
    yield s
    s.close()


def test_exact_schema(store):
    assert store.schema() == EXPECTED_SCHEMA


def test_migrations_are_recorded_and_idempotent(tmp_path):
    path = tmp_path / "x.db"
    Store(path).close()
    again = Store(path)
    assert again.migrate() == []
    assert [r["id"] for r in again.db["_migrations"].rows] == [n for n, _, _ in MIGRATIONS]
    again.close()


def test_wal_mode(store):
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_entry_roundtrip_is_lossless():
    e = make_entry()
    assert entry_from_dict(json.loads(json.dumps(entry_to_dict(e)))) == e


def test_users_and_entries(store):
    uid = store.save_user("ann", {"preferred": ["Weather.A"]})
    assert store.save_user("ann", {"preferred": ["Weather.B"]}) == uid
    assert store.get_user("ann")["profile"] == {"preferred": ["Weather.B"]}
    e = make_entry()
    rid = store.save_entry(e, source="saved", user_id=uid)
    e.query = "changed"
    assert store.save_entry(e, source="saved", user_id=uid) == rid
    assert store.get_entry(rid).query == "changed"
    assert store.list_entries()[0]["user"] == "ann"
    with pytest.raises(ValueError, match="non-empty name"):
        store.save_user("  ")


def test_labels_are_append_only(store):
    e = make_entry()
    lid = store.add_label(
        annotator="ann", entry=e, setting="p", prompt="SYS", model_a="base", model_b="tuned",
        call_a=ToolCall("<Weather>.<B>.<forecast>", {}), call_b=e.ground_truth, verdict="B", tags=["preference"],
    )
    row = store.labels()[0]
    assert row["id"] == lid and row["call_b"] == e.ground_truth.to_json() and row["tags"] == ["preference"]
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.db.execute("UPDATE labels SET verdict = 'A'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.db.execute("DELETE FROM labels")
    with pytest.raises(ValueError, match="unknown verdict"):
        store.add_label(annotator="ann", entry=e, setting="p", prompt="", model_a="x", model_b="y", call_a=None, call_b=None, verdict="meh")


def test_sql_is_parameterised(store):
    evil = "x'); DROP TABLE labels; --"
    store.save_user(evil)
    assert store.get_user(evil)["name"] == evil
    assert "labels" in store.schema()


def test_preference_examples_use_pairs(store):
    e = make_entry()
    store.add_label(
        annotator="ann", entry=e, setting="p", prompt="SYS", model_a="base", model_b="tuned",
        call_a=ToolCall("<Weather>.<B>.<forecast>", {"city": "Zürich"}), call_b=e.ground_truth, verdict="B",
    )
    [pair] = store.preference_examples()
    assert (pair.system, pair.user) == ("SYS", e.query)
    assert json.loads(pair.chosen) == e.ground_truth.to_json()


def test_import_run(tmp_path, store):
    run = tmp_path / "run1"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"model": "fake", "mode": "petool", "scorer_version": "petool-scorer/1"}))
    (run / "metrics.json").write_text(json.dumps({"p": {"tool_acc": 0.5}}))
    lines = [
        {"entry_id": 1, "setting": "p", "model": "fake", "raw": "{}", "call": {"tool_name": "<A>.<B>.<C>", "parameters": {}},
         "tool_ok": True, "params_ok": False, "error": "params:value_mismatch", "param_error": "params:value_mismatch",
         "latency_s": 0.1, "prompt_tokens": 10, "output_tokens": 5, "category": "A", "history_length": 3},
        {"entry_id": 2, "setting": "none", "model": "fake", "raw": "", "call": None, "tool_ok": False, "params_ok": False,
         "error": "format:empty", "param_error": "format:empty", "latency_s": 0.2, "category": "A", "history_length": 0},
    ]
    (run / "predictions.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert store.import_run(run) == "run1"
    assert store.import_run(run, replace=True) == "run1"  # an asked-for re-import replaces, never duplicates
    rows = store.predictions(["run1"])
    assert len(rows) == 2 and rows[0]["call"]["tool_name"] == "<A>.<B>.<C>" and rows[0]["tool_ok"] is True
    assert store.predictions(["run1"], setting="none")[0]["error"] == "format:empty"
    [r] = store.runs()
    assert r["model"] == "fake" and r["scorer_version"] == "petool-scorer/1" and r["n"] == 2
    with pytest.raises(ValueError, match="unknown prediction column"):
        store.predictions(["run1"], **{"1=1; --": 1})


def test_import_run_errors(tmp_path, store):
    with pytest.raises(ValueError, match="no predictions.jsonl"):
        store.import_run(tmp_path)
    (tmp_path / "predictions.jsonl").write_text("{bad\n")
    with pytest.raises(ValueError, match="line 1"):
        store.import_run(tmp_path)


def _run_folder(folder, n: int, run_id: str | None = None):
    folder.mkdir()
    if run_id:
        (folder / "config.json").write_text(json.dumps({"run_id": run_id, "model": "fake"}))
    rows = [{"entry_id": i, "setting": "p", "model": "fake", "tool_ok": True} for i in range(n)]
    (folder / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_an_import_never_silently_replaces_a_stored_run(tmp_path, store):
    store.import_run(_run_folder(tmp_path / "a", 50, run_id="shared"))
    # Another folder naming the same run id: refused, and the stored run keeps its 50 predictions.
    with pytest.raises(RunExists, match="'shared' is already stored.*replace=True.*--replace"):
        store.import_run(_run_folder(tmp_path / "b", 1, run_id="shared"))
    assert len(store.predictions(["shared"])) == 50 and [r["n"] for r in store.runs()] == [50]
    # A folder whose name is a stored run's id: refused the same way.
    with pytest.raises(ValueError, match="already stored"):
        store.import_run(_run_folder(tmp_path / "shared", 3))
    assert len(store.predictions(["shared"])) == 50
    # Asked for explicitly, the replacement happens, whole.
    assert store.import_run(tmp_path / "b", replace=True) == "shared"
    assert len(store.predictions(["shared"])) == 1 and [r["n"] for r in store.runs()] == [1]


def test_save_run_refuses_a_taken_id_from_another_thread(tmp_path):
    """Two imports racing for one id: exactly one wins, the other is told; none is half-written."""
    import threading

    store = Store(tmp_path / "race.db")
    outcomes, start = [], threading.Barrier(8)

    def save(i):
        start.wait()
        try:
            store.save_run({"id": "same"}, [{"entry_id": f"{i}-{j}", "setting": "p"} for j in range(20)])
            outcomes.append(("saved", i))
        except RunExists:
            outcomes.append(("refused", i))

    threads = [threading.Thread(target=save, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    [winner] = [i for kind, i in outcomes if kind == "saved"]
    assert len(outcomes) == 8
    assert sorted(r["entry_id"] for r in store.predictions(["same"])) == sorted(f"{winner}-{j}" for j in range(20))
    store.close()


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_an_empty_predictions_file_is_refused(tmp_path, store, content):
    (tmp_path / "predictions.jsonl").write_text(content)
    with pytest.raises(ValueError, match="predictions.jsonl holds no predictions"):
        store.import_run(tmp_path)
    assert store.runs() == []


def test_jobs(store):
    jid = store.add_job(["python", "-m", "petool"], "/tmp/log", "/tmp/out")
    store.update_job(jid, status="running", losses=[[1, 0.69]], progress=0.5)
    job = store.get_job(jid)
    assert job["status"] == "running" and job["losses"] == [[1, 0.69]]
    with pytest.raises(ValueError, match="unknown job status"):
        store.update_job(jid, status="exploded")
    with pytest.raises(ValueError, match="unknown train_jobs column"):
        store.update_job(jid, nope=1)


def test_threads_share_the_store(store):
    import threading

    e = make_entry()
    def work(i):
        store.add_label(annotator=f"a{i}", entry=e, setting="p", prompt="", model_a="x", model_b="y", call_a=None, call_b=None, verdict="tie")
    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.labels()) == 8
