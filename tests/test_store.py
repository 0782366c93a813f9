"""The SQLite store: exact schema, idempotent migrations, append-only labels, run import."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from petool.migrations import MIGRATIONS
from petool.schema import Entry, Tool, ToolCall, Turn, entry_from_dict, entry_to_dict
from petool.store import RunExists, Store
from tests.fixtures.entries import WEATHER_A, empty_history_entry, weather_entry

EXPECTED_SCHEMA = {
    "_migrations": ["id", "name", "applied"],
    "entries": ["id", "key", "source", "user_id", "entry", "created", "updated"],
    "label_withdrawals": ["label_id", "annotator", "created", "replaced_by"],
    "labels": [
        "id",
        "annotator",
        "created",
        "entry_key",
        "entry",
        "setting",
        "query",
        "prompt",
        "model_a",
        "model_b",
        "call_a",
        "call_b",
        "raw_a",
        "raw_b",
        "blind",
        "verdict",
        "tags",
        "comment",
        "gold_call",
    ],
    "predictions": [
        "id",
        "run_id",
        "entry_id",
        "setting",
        "model",
        "raw",
        "call",
        "tool_ok",
        "params_ok",
        "error",
        "param_error",
        "latency_s",
        "prompt_tokens",
        "output_tokens",
        "category",
        "history_length",
    ],
    "runs": [
        "id",
        "model",
        "adapter",
        "mode",
        "style",
        "settings",
        "data_path",
        "scorer_version",
        "benchmark_version",
        "created",
        "run_dir",
        "config",
        "metrics",
    ],
    "train_jobs": [
        "id",
        "created",
        "updated",
        "status",
        "pid",
        "command",
        "log_path",
        "output_dir",
        "progress",
        "step",
        "total_steps",
        "losses",
        "message",
        "config",
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


def _entry_with_extra() -> Entry:
    """Every optional field set: extra with a user, a split and nested values; odd parameter values."""
    e = weather_entry()
    e.ground_truth = ToolCall(WEATHER_A, {"city": "Rome", "days": 5.5, "tags": ["a", None], "opts": {}})
    e.extra = {
        "user": {"name": "Zoë", "likes": ["SkyCast Pro"]},
        "split": "train",
        "num_tools_combined": "2",
        "api_ground_truth": {"category_name": "Weather", "tool_name": "SkyCast Pro"},
    }
    return e


GOLDEN_ENTRIES = {"weather": weather_entry, "empty": empty_history_entry, "zurich": make_entry, "extra": _entry_with_extra}
GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", sorted(GOLDEN_ENTRIES))
def test_a_stored_entry_keeps_its_json_text(store, name):
    """The JSON text stored for an entry (a saved entry, a label's copy) is byte for byte what the
    golden file holds, so databases written earlier read back the same and new rows equal old ones."""
    entry = GOLDEN_ENTRIES[name]()
    golden = (GOLDEN / f"stored_entry_{name}.json").read_text(encoding="utf-8").removesuffix("\n")
    store.save_entry(entry, source="saved")
    store.save_entries([entry], source="bulk")
    add_pair_label(store, 1, entry=entry)
    stored = [r[0] for r in store.db.execute("SELECT entry FROM entries ORDER BY id").fetchall()]
    stored += [r[0] for r in store.db.execute("SELECT entry FROM labels").fetchall()]
    assert stored == [golden] * 3
    assert entry_from_dict(json.loads(golden)) == entry
    assert store.get_entry(key=entry.key, source="saved") == entry


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
        annotator="ann",
        entry=e,
        setting="p",
        prompt="SYS",
        model_a="base",
        model_b="tuned",
        call_a=ToolCall("<Weather>.<B>.<forecast>", {}),
        call_b=e.ground_truth,
        verdict="B",
        tags=["preference"],
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
        annotator="ann",
        entry=e,
        setting="p",
        prompt="SYS",
        model_a="base",
        model_b="tuned",
        call_a=ToolCall("<Weather>.<B>.<forecast>", {"city": "Zürich"}),
        call_b=e.ground_truth,
        verdict="B",
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
        {
            "entry_id": 1,
            "setting": "p",
            "model": "fake",
            "raw": "{}",
            "call": {"tool_name": "<A>.<B>.<C>", "parameters": {}},
            "tool_ok": True,
            "params_ok": False,
            "error": "params:value_mismatch",
            "param_error": "params:value_mismatch",
            "latency_s": 0.1,
            "prompt_tokens": 10,
            "output_tokens": 5,
            "category": "A",
            "history_length": 3,
        },
        {
            "entry_id": 2,
            "setting": "none",
            "model": "fake",
            "raw": "",
            "call": None,
            "tool_ok": False,
            "params_ok": False,
            "error": "format:empty",
            "param_error": "format:empty",
            "latency_s": 0.2,
            "category": "A",
            "history_length": 0,
        },
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
        store.add_label(
            annotator=f"a{i}", entry=e, setting="p", prompt="", model_a="x", model_b="y", call_a=None, call_b=None, verdict="tie"
        )

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.labels()) == 8


# ---------------------------------------------------------------- reading beside the writer


def add_pair_label(store, i: int, entry=None, **overrides):
    """A label that makes its own DPO pair (its prompt is unique)."""
    e = entry or make_entry(f"e{i}")
    fields = dict(
        annotator="ann",
        entry=e,
        setting="p",
        prompt=f"SYS {i}",
        model_a="base",
        model_b="tuned",
        call_a=ToolCall("<Weather>.<B>.<forecast>", {"city": "Zürich"}),
        call_b=e.ground_truth,
        verdict="B",
    )
    return store.add_label(**{**fields, **overrides})


SLOW_READ = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 6000000) SELECT count(*) AS n FROM c"
"""A read that keeps SQLite busy for seconds (six million rows counted)."""


def test_a_long_read_does_not_hold_up_a_label_write(store):
    """A slow read in one thread (the store's own read path) and a read transaction held open on
    another connection: a label is still written, and seen by readers, in well under a second."""
    import threading
    import time

    add_pair_label(store, 0)
    other = sqlite3.connect(store.path)
    other.execute("BEGIN")
    assert other.execute("SELECT COUNT(*) FROM labels").fetchone()[0] == 1  # holds a read snapshot
    started, done = threading.Event(), {}

    def long_read():
        started.set()
        done["n"] = store._rows(SLOW_READ)[0]["n"]
        done["at"] = time.monotonic()

    reader = threading.Thread(target=long_read)
    reader.start()
    started.wait()
    time.sleep(0.2)  # the slow read is under way
    t0 = time.monotonic()
    add_pair_label(store, 1)
    seen = len(store.labels())
    took = time.monotonic() - t0
    reader.join()
    other.rollback()
    other.close()
    assert took < 1.0 and "at" in done and done["at"] > t0 + took, (took, done)
    assert done["n"] == 6_000_000 and seen == 2


def test_cached_views_follow_writes_from_this_store_and_other_connections(tmp_path):
    """A derived view is computed once per change, and a write through this Store, a second
    Store on the same file or another process makes the next read recompute it."""
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "petool.db"
    store, other = Store(path), Store(path)
    computed = []

    def count_pairs():
        computed.append(1)
        return len(store.preference_examples())

    try:
        assert store.cached("n", count_pairs) == 0 and store.cached("n", count_pairs) == 0 and len(computed) == 1
        add_pair_label(store, 1)
        assert store.cached("n", count_pairs) == 1 and len(store.preference_examples()) == 1
        add_pair_label(other, 2)
        assert store.cached("n", count_pairs) == 2 and len(store.preference_examples()) == 2
        script = (
            "import sys; from petool.store import Store; from tests.test_store import add_pair_label; "
            "s = Store(sys.argv[1]); add_pair_label(s, 3); s.close()"
        )
        root = Path(__file__).resolve().parent.parent
        subprocess.run([sys.executable, "-c", script, str(path)], cwd=root, check=True, timeout=120)
        assert store.cached("n", count_pairs) == 3 and len(store.preference_examples()) == 3
        assert len(computed) == 4 and [r["prompt"] for r in store.label_summaries()] == ["SYS 1", "SYS 2", "SYS 3"]
    finally:
        other.close()
        store.close()


def test_cache_in_memory_follows_writes():
    store = Store(":memory:")
    assert store.preference_examples() == []
    add_pair_label(store, 1)
    assert len(store.preference_examples()) == 1 and len(store.label_summaries()) == 1
    store.close()


def test_label_summaries_match_the_labels_without_the_entry(store):
    e = make_entry()
    e.extra["split"] = "test"
    add_pair_label(store, 1, entry=e, gold_call=e.ground_truth, blind=True, tags=["t"], comment="c")
    add_pair_label(store, 2, raw_a="not a call", call_a=None)
    full, light = store.labels(), store.label_summaries()
    assert [r["id"] for r in light] == [r["id"] for r in full]
    for f, s in zip(full, light, strict=False):
        assert {k: v for k, v in f.items() if k not in ("entry", "tags", "comment")} == {k: v for k, v in s.items() if k != "entry"}
        assert s["entry"] == {
            "query": f["query"],
            "ground_truth": f["entry"]["ground_truth"],
            "extra": {"split": f["entry"]["extra"].get("split")},
        }
    from petool.pairs import PairPolicy, pairs_from_labels

    for policy in (PairPolicy(), PairPolicy(include_test=True), PairPolicy(both_bad="skip")):
        assert pairs_from_labels(light, policy) == pairs_from_labels(full, policy)


def test_prediction_fingerprint_sees_a_replaced_run(store):
    """Replacing a run's predictions by as many others (same ids reused) changes the fingerprint
    the dashboards are cached by; adding a label does not."""
    preds = [{"entry_id": str(i), "setting": "p", "model": "m", "tool_ok": True, "params_ok": True, "error": "ok"} for i in range(3)]
    store.save_run({"id": "r1"}, preds)
    rows, before = store.prediction_summaries()
    assert [r["tool_ok"] for r in rows] == [True, True, True]
    add_pair_label(store, 1)
    assert store.prediction_summaries()[1] == before
    store.save_run({"id": "r1"}, [{**p, "tool_ok": False, "error": "tool:wrong"} for p in preds], replace=True)
    rows, after = store.prediction_summaries()
    assert after != before and [r["tool_ok"] for r in rows] == [False, False, False]


def test_backup_is_a_consistent_full_copy_that_opens_as_a_store(store, tmp_path):
    add_pair_label(store, 0)
    copy_path = store.backup(tmp_path / "copy.db")
    assert copy_path == tmp_path / "copy.db"
    copy = Store(copy_path)
    assert [label["id"] for label in copy.labels()] == [label["id"] for label in store.labels()]
    add_pair_label(store, 1)  # the copy is a snapshot: later writes stay in the live store
    assert len(copy.labels()) == 1 and len(store.labels()) == 2
    copy.close()


def test_undo_and_edit_append_withdrawals_and_refresh_the_cached_views(tmp_path):
    """An undo or edit appends a withdrawal (the label row stays); the pairs, cached per label
    revision, follow at once, for this Store and for a second one on the same file."""
    path = tmp_path / "petool.db"
    store, other = Store(path), Store(path)
    try:
        first = add_pair_label(store, 1)
        second = add_pair_label(store, 2)
        assert len(store.preference_examples()) == 2 and len(other.preference_examples()) == 2
        assert store.withdraw_label(first, "ann") is None
        assert [p.source for p in store.preference_examples()] == [f"label:{second}:p"]
        assert [p.source for p in other.preference_examples()] == [f"label:{second}:p"]
        new = store.withdraw_label(second, "ann", {"verdict": "tie"})
        assert store.preference_examples() == [] and other.preference_examples() == []
        rows = {r["id"]: r for r in store.current_labels()}
        assert rows[first]["withdrawn"]["replaced_by"] is None and rows[second]["withdrawn"]["replaced_by"] == new
        assert rows[new]["verdict"] == "tie" and "withdrawn" not in rows[new] and rows[new]["prompt"] == "SYS 2"
        assert len(store.labels()) == 3  # nothing deleted
        with pytest.raises(ValueError, match="already undone"):
            store.withdraw_label(first, "ann")
        with pytest.raises(ValueError, match="not yours"):
            store.withdraw_label(new, "bob")
        with pytest.raises(ValueError, match="no label #999"):
            store.withdraw_label(999, "ann")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store.db.execute("DELETE FROM label_withdrawals")
    finally:
        other.close()
        store.close()
