"""The SQLite store: users, saved entries, evaluation runs, predictions, labels, training jobs.

Labels are human work and must never be lost: the database runs in WAL mode, every write is
one short transaction, labels are append-only (a relabel is a new row; pairs.py decides which
row counts; an undo or edit appends a withdrawal, never changes the label), all SQL is parameterised, and the schema evolves only through the numbered
migrations below, each applied once and recorded in ``_migrations``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import weakref
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

from petool.schema import ALL_SETTINGS, Entry, PreferenceExample, Tool, ToolCall, Turn

VERDICTS = ("A", "B", "tie", "both_bad")
"""A better, B better, tie, both bad."""

JOB_STATUSES = ("queued", "running", "done", "failed", "cancelled")

LABEL_SETTINGS = ALL_SETTINGS
MAX_ANNOTATOR_CHARS = 100
MAX_COMMENT_CHARS = 5_000
MAX_TAGS = 20
MAX_TAG_CHARS = 100
"""Limits on what one label may hold: a label is a judgement, not a file store."""


# ---------------------------------------------------------------- migrations


def _m1_initial(db) -> None:
    # Every statement is idempotent (IF NOT EXISTS), so a migration interrupted before its
    # transaction committed (an old database, a crash) simply runs again.
    db["users"].create(
        {"id": int, "name": str, "profile": str, "created": str},
        pk="id",
        not_null=["name", "created"],
        if_not_exists=True,
    )
    db["users"].create_index(["name"], unique=True, if_not_exists=True)
    db["entries"].create(
        {"id": int, "key": str, "source": str, "user_id": int, "entry": str, "created": str, "updated": str},
        pk="id",
        not_null=["key", "source", "entry", "created"],
        foreign_keys=[("user_id", "users", "id")],
        if_not_exists=True,
    )
    db["entries"].create_index(["source", "key"], unique=True, if_not_exists=True)
    db["runs"].create(
        {
            "id": str, "model": str, "adapter": str, "mode": str, "style": str, "settings": str,
            "data_path": str, "scorer_version": str, "benchmark_version": str, "created": str,
            "run_dir": str, "config": str, "metrics": str,
        },
        pk="id",
        not_null=["created"],
        if_not_exists=True,
    )
    db["predictions"].create(
        {
            "id": int, "run_id": str, "entry_id": str, "setting": str, "model": str, "raw": str,
            "call": str, "tool_ok": int, "params_ok": int, "error": str, "param_error": str,
            "latency_s": float, "prompt_tokens": int, "output_tokens": int, "category": str,
            "history_length": int,
        },
        pk="id",
        not_null=["run_id", "entry_id", "setting"],
        foreign_keys=[("run_id", "runs", "id")],
        if_not_exists=True,
    )
    db["predictions"].create_index(["run_id", "entry_id", "setting"], unique=True, if_not_exists=True)
    db["labels"].create(
        {
            "id": int, "annotator": str, "created": str, "entry_key": str, "entry": str,
            "setting": str, "query": str, "prompt": str, "model_a": str, "model_b": str,
            "call_a": str, "call_b": str, "raw_a": str, "raw_b": str, "blind": int,
            "verdict": str, "tags": str, "comment": str, "gold_call": str,
        },
        pk="id",
        not_null=["annotator", "created", "entry_key", "setting", "verdict"],
        if_not_exists=True,
    )
    db["labels"].create_index(["entry_key", "setting"], if_not_exists=True)
    db["train_jobs"].create(
        {
            "id": int, "created": str, "updated": str, "status": str, "pid": int, "command": str,
            "log_path": str, "output_dir": str, "progress": float, "step": int, "total_steps": int,
            "losses": str, "message": str, "config": str,
        },
        pk="id",
        not_null=["created", "status"],
        if_not_exists=True,
    )
    # Append-only, enforced by the database itself and not only by this module's API.
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS labels_no_update BEFORE UPDATE ON labels "
        "BEGIN SELECT RAISE(ABORT, 'labels are append-only'); END"
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS labels_no_delete BEFORE DELETE ON labels "
        "BEGIN SELECT RAISE(ABORT, 'labels are append-only'); END"
    )


def _m2_label_withdrawals(db) -> None:
    # Undo and edit without touching a label: a withdrawal row says "this label no longer
    # counts" (and, for an edit, which label replaced it). Append-only like the labels.
    db["label_withdrawals"].create(
        {"label_id": int, "annotator": str, "created": str, "replaced_by": int},
        pk="label_id",
        not_null=["annotator", "created"],
        foreign_keys=[("label_id", "labels", "id"), ("replaced_by", "labels", "id")],
        if_not_exists=True,
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS label_withdrawals_no_update BEFORE UPDATE ON label_withdrawals "
        "BEGIN SELECT RAISE(ABORT, 'label withdrawals are append-only'); END"
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS label_withdrawals_no_delete BEFORE DELETE ON label_withdrawals "
        "BEGIN SELECT RAISE(ABORT, 'label withdrawals are append-only'); END"
    )


MIGRATIONS: list[tuple[int, str, Callable]] = [
    (1, "initial", _m1_initial),
    (2, "label withdrawals (undo and edit)", _m2_label_withdrawals),
]
"""Numbered schema changes, applied in order; never edit one that has shipped, add the next."""


def now() -> str:
    """UTC time as ISO 8601 with seconds, the one time format the store writes."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- entries as JSON


def entry_to_dict(entry: Entry) -> dict:
    """A lossless JSON dict of an Entry (every field, unlike the authors' formats)."""
    return {
        "entry_id": entry.entry_id,
        "query": entry.query,
        "candidates": [t.to_json() for t in entry.candidates],
        "ground_truth": entry.ground_truth.to_json(),
        "histories": {s: [t.to_json() for t in turns] for s, turns in entry.histories.items()},
        "history_length": entry.history_length,
        "category": entry.category,
        "cluster": list(entry.cluster),
        "func": entry.func,
        "preferred_tools": list(entry.preferred_tools),
        "extra": entry.extra,
    }


def entry_from_dict(d: dict) -> Entry:
    """Inverse of ``entry_to_dict``; raises ValueError naming the bad part."""
    if not isinstance(d, dict) or not isinstance(d.get("query"), str):
        raise ValueError("a stored entry must be an object with a string 'query'")
    return Entry(
        entry_id=d.get("entry_id"),
        query=d["query"],
        candidates=[Tool.from_json(t) for t in d.get("candidates") or []],
        ground_truth=ToolCall.from_json(d.get("ground_truth") or {"tool_name": "", "parameters": {}}),
        histories={s: [Turn.from_json(t) for t in turns] for s, turns in (d.get("histories") or {}).items()},
        history_length=d.get("history_length"),
        category=d.get("category"),
        cluster=list(d.get("cluster") or []),
        func=d.get("func"),
        preferred_tools=list(d.get("preferred_tools") or []),
        extra=dict(d.get("extra") or {}),
    )


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _loads(text: str | None, default: Any = None) -> Any:
    if text in (None, ""):
        return default
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return default


def _call_json(call: Any) -> str | None:
    if call is None:
        return None
    if isinstance(call, ToolCall):
        call = call.to_json()
    return json.dumps(call, ensure_ascii=False)


# ---------------------------------------------------------------- the store


def _retry_when_locked(fn: Callable[[], None], seconds: float = 30.0) -> None:
    """Run ``fn`` again while SQLite answers "database is locked", for up to ``seconds``.

    A new file starts in rollback-journal mode: a start that reads it while another start is
    migrating cannot then take the write lock to switch to WAL, and SQLite answers at once
    instead of calling the busy handler (it would deadlock). Both steps are idempotent.
    """
    import time

    deadline = time.monotonic() + seconds
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


LABEL_SUMMARY_COLUMNS = (
    "id", "annotator", "created", "entry_key", "setting", "query", "prompt", "model_a", "model_b",
    "call_a", "call_b", "raw_a", "raw_b", "blind", "verdict", "gold_call",
)
"""What the pairs and the dashboards read of a label: everything but its stored entry, tags and comment."""

CACHE_KEYS = 256
"""Derived views kept at once (one per view and filter choice); the oldest goes first."""


class StoreDamaged(sqlite3.DatabaseError):
    """The database file is not a sound SQLite database; the message names the file."""


class Store:
    """One SQLite file (or ``":memory:"``) with petool's tables.

    Writes go through one connection (``db``) under a lock: SQLite serialises writers anyway,
    and the lock keeps each transaction short and whole. Reads go through a connection of their
    own per thread, so a long read never waits on the lock nor holds it: in WAL mode a reader
    sees the last commit while the writer goes on. (An in-memory database exists on one
    connection only, so there reads share the writer's.) Other processes (a training job)
    write through their own Store.

    Derived views (the DPO pairs, dashboard figures) are cached against what they were
    computed from (``memo``), so a page that many visitors reload costs one computation per
    change of the data, not one per request.
    """

    def __init__(self, path: str | Path = ":memory:"):
        import sqlite_utils

        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self.db = sqlite_utils.Database(conn)
        self._lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[tuple[weakref.ref, sqlite3.Connection]] = []
        self._readers_lock = threading.Lock()
        self._version_conn: sqlite3.Connection | None = None
        self._version_lock = threading.Lock()
        self._cache: dict = {}
        self._cache_lock = threading.Lock()
        self._label_summaries: list[dict] = []
        self._label_summaries_at: Any = None
        self._label_summaries_lock = threading.Lock()
        with self._lock:
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA busy_timeout = 30000")
            try:
                _retry_when_locked(self._start)
            except sqlite3.DatabaseError as exc:
                conn.close()
                if isinstance(exc, StoreDamaged):
                    raise
                if isinstance(exc, sqlite3.OperationalError):  # cannot open, locked, disk I/O: name the file
                    raise sqlite3.OperationalError(f"{self.path}: {exc}") from exc
                raise StoreDamaged(f"{self.path}: not a sound SQLite database ({exc}); restore a backup") from None

    def _start(self) -> None:
        if self.path != ":memory:":
            self._check_sound()
            self.db.enable_wal()
        self.migrate()

    def _check_sound(self) -> None:
        """``PRAGMA quick_check`` before anything writes: a damaged page is refused at the start,
        naming the file, instead of failing some later read or being written over."""
        problems = [str(r[0]) for r in self.db.conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            shown = " ".join("; ".join(problems[:3]).split()) + ("; …" if len(problems) > 3 else "")
            raise StoreDamaged(f"{self.path}: not a sound SQLite database (quick_check: {shown}); restore a backup")

    def backup(self, target: str | Path) -> Path:
        """A consistent copy of the whole database at ``target`` (SQLite's online backup API),
        taken while writes wait; returns ``target``."""
        target = Path(target)
        copy = sqlite3.connect(str(target))
        try:
            with self._lock:
                self.db.conn.backup(copy)
        finally:
            copy.close()
        return target

    def close(self) -> None:
        with self._readers_lock:
            readers, self._readers = self._readers, []
        for _, conn in readers:
            conn.close()
        with self._version_lock:
            if self._version_conn is not None:
                self._version_conn.close()
                self._version_conn = None
        with self._lock:
            self.db.conn.close()

    # -- reading beside the writer

    @property
    def in_memory(self) -> bool:
        return self.path == ":memory:"

    def _reader(self) -> sqlite3.Connection | None:
        """This thread's read-only connection (None for an in-memory database: reads share the writer)."""
        if self.in_memory:
            return None
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            conn.execute("PRAGMA query_only = ON")
            conn.execute("PRAGMA busy_timeout = 30000")
            self._local.conn = conn
            with self._readers_lock:
                # A server's worker threads come and go: close the connections of finished ones.
                alive = []
                for ref, other in self._readers:
                    thread = ref()
                    if thread is None or not thread.is_alive():
                        other.close()
                    else:
                        alive.append((ref, other))
                self._readers = [*alive, (weakref.ref(threading.current_thread()), conn)]
        return conn

    def version(self) -> Any:
        """A value that changes whenever anything is committed to the database, by this Store or
        by any other connection or process (``PRAGMA data_version`` on a connection of its own,
        which therefore sees this Store's writes as another connection's)."""
        if self.in_memory:
            with self._lock:
                return ("memory", self.db.conn.total_changes)
        with self._version_lock:
            if self._version_conn is None:
                self._version_conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                self._version_conn.execute("PRAGMA query_only = ON")
            return self._version_conn.execute("PRAGMA data_version").fetchone()[0]

    def memo(self, key: Any, stamp: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, cached under ``key`` for as long as ``stamp`` (what it was derived from:
        a version, a last label id, a fingerprint) stays the same. Callers asking for the same key
        at once wait for one computation instead of each running their own."""
        with self._cache_lock:
            slot = self._cache.get(key)
            if slot is None:
                slot = self._cache[key] = {"lock": threading.Lock(), "stamp": None, "value": None, "ready": False}
            else:  # most recently used last, so the oldest is dropped first
                self._cache[key] = self._cache.pop(key)
            if slot["ready"] and slot["stamp"] == stamp:
                return slot["value"]
            while len(self._cache) > CACHE_KEYS:
                self._cache.pop(next(iter(self._cache)))
        with slot["lock"]:
            if slot["ready"] and slot["stamp"] == stamp:
                return slot["value"]
            value = compute()
            slot.update(stamp=stamp, value=value, ready=True)
            return value

    def cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per change of the database (``version``), under ``key``."""
        return self.memo(key, self.version(), compute)

    # -- schema

    def migrate(self) -> list[int]:
        """Apply the migrations not yet recorded; returns the numbers applied now."""
        applied = []
        with self._lock:
            for number, name, fn in MIGRATIONS:
                if self._migrated(number):
                    continue
                # One explicit transaction per migration: sqlite3 does not open one for DDL by
                # itself, and a crash halfway must leave the schema as it was (or, for an old
                # half-applied database, the idempotent statements finish the job). BEGIN
                # IMMEDIATE takes the write lock first, so starts racing on a new file wait in turn.
                with self.db.conn:
                    self.db.conn.execute("BEGIN IMMEDIATE")
                    self.db["_migrations"].create({"id": int, "name": str, "applied": str}, pk="id", if_not_exists=True)
                    if self._migrated(number):  # another process got there while we waited
                        continue
                    fn(self.db)
                    self.db.conn.execute(
                        "INSERT INTO _migrations (id, name, applied) VALUES (?, ?, ?)", [number, name, now()]
                    )
                applied.append(number)
        return applied

    def _migrated(self, number: int) -> bool:
        try:
            return self.db.conn.execute("SELECT 1 FROM _migrations WHERE id = ?", [number]).fetchone() is not None
        except sqlite3.OperationalError:  # no _migrations table yet: a new database
            return False

    def integrity(self) -> str:
        """``PRAGMA integrity_check``: ``"ok"`` for a sound database, else SQLite's list of problems."""
        with self._lock:
            rows = self.db.conn.execute("PRAGMA integrity_check").fetchall()
        return "; ".join(str(r[0]) for r in rows)

    def schema(self) -> dict[str, list[str]]:
        """Table name -> column names, for the exact-schema test and the About tab."""
        with self._lock:
            return {t: [c.name for c in self.db[t].columns] for t in sorted(self.db.table_names())}

    def _rows(self, sql: str, params: Iterable = ()) -> list[dict]:
        conn = self._reader()
        if conn is None:
            with self._lock:
                return list(self.db.query(sql, list(params)))
        cur = conn.execute(sql, list(params))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def _insert(self, table: str, row: dict) -> int:
        with self._lock, self.db.conn:
            cur = self.db.conn.execute(
                f"INSERT INTO [{table}] ({', '.join(f'[{k}]' for k in row)}) VALUES ({', '.join('?' for _ in row)})",
                list(row.values()),
            )
            return cur.lastrowid

    # -- users

    def save_user(self, name: str, profile: dict | None = None) -> int:
        """Create a user or update its profile; returns its id."""
        name = (name or "").strip()
        if not name:
            raise ValueError("a user needs a non-empty name")
        with self._lock, self.db.conn:
            row = self.db.conn.execute("SELECT id FROM users WHERE name = ?", [name]).fetchone()
            if row:
                self.db.conn.execute("UPDATE users SET profile = ? WHERE id = ?", [_dumps(profile or {}), row[0]])
                return row[0]
            cur = self.db.conn.execute(
                "INSERT INTO users (name, profile, created) VALUES (?, ?, ?)", [name, _dumps(profile or {}), now()]
            )
            return cur.lastrowid

    def users(self) -> list[dict]:
        rows = self._rows("SELECT * FROM users ORDER BY name")
        for r in rows:
            r["profile"] = _loads(r["profile"], {})
        return rows

    def get_user(self, name: str) -> dict | None:
        rows = self._rows("SELECT * FROM users WHERE name = ?", [name])
        if not rows:
            return None
        rows[0]["profile"] = _loads(rows[0]["profile"], {})
        return rows[0]

    # -- entries (saved histories)

    def save_entry(self, entry: Entry, source: str = "saved", user_id: int | None = None) -> int:
        """Insert or replace the entry with the same (source, key); returns its row id."""
        payload = _dumps(entry_to_dict(entry))
        stamp = now()
        with self._lock, self.db.conn:
            row = self.db.conn.execute(
                "SELECT id FROM entries WHERE source = ? AND key = ?", [source, entry.key]
            ).fetchone()
            if row:
                self.db.conn.execute(
                    "UPDATE entries SET entry = ?, user_id = ?, updated = ? WHERE id = ?",
                    [payload, user_id, stamp, row[0]],
                )
                return row[0]
            cur = self.db.conn.execute(
                "INSERT INTO entries (key, source, user_id, entry, created, updated) VALUES (?, ?, ?, ?, ?, ?)",
                [entry.key, source, user_id, payload, stamp, stamp],
            )
            return cur.lastrowid

    def save_entries(self, entries: Iterable[Entry], source: str) -> int:
        """Save many entries of one source in one transaction; returns how many."""
        stamp = now()
        rows = [(e.key, source, _dumps(entry_to_dict(e)), stamp, stamp) for e in entries]
        with self._lock, self.db.conn:
            self.db.conn.executemany(
                "INSERT INTO entries (key, source, entry, created, updated) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(source, key) DO UPDATE SET entry = excluded.entry, updated = excluded.updated",
                rows,
            )
        return len(rows)

    def list_entries(self, source: str | None = None) -> list[dict]:
        """Saved entries without their JSON: id, key, source, user, query, updated."""
        sql = (
            "SELECT e.id, e.key, e.source, u.name AS user, json_extract(e.entry, '$.query') AS query, e.updated "
            "FROM entries e LEFT JOIN users u ON u.id = e.user_id"
        )
        params: list = []
        if source is not None:
            sql += " WHERE e.source = ?"
            params.append(source)
        return self._rows(sql + " ORDER BY e.updated DESC, e.id DESC", params)

    def get_entry(self, row_id: int | None = None, *, key: str | None = None, source: str | None = None) -> Entry | None:
        """An entry by row id, or by key (and source, else the latest with that key)."""
        if row_id is not None:
            rows = self._rows("SELECT entry FROM entries WHERE id = ?", [row_id])
        elif source is not None:
            rows = self._rows("SELECT entry FROM entries WHERE key = ? AND source = ?", [str(key), source])
        else:
            rows = self._rows("SELECT entry FROM entries WHERE key = ? ORDER BY updated DESC, id DESC LIMIT 1", [str(key)])
        return entry_from_dict(json.loads(rows[0]["entry"])) if rows else None

    def sources(self) -> list[str]:
        return [r["source"] for r in self._rows("SELECT DISTINCT source FROM entries ORDER BY source")]

    # -- evaluation runs and predictions

    def save_run(self, run: dict, predictions: Iterable[dict] = (), replace: bool = False) -> str:
        """Insert a run and its predictions (one transaction); returns the run id.

        A run already stored under the same id is kept and ValueError raised, unless ``replace``
        says to swap it (its predictions included) for this one: an import never silently
        overwrites another run's predictions.
        """
        run_row = {k: run.get(k) for k in self.schema_columns("runs")}
        if not run_row.get("id"):
            raise ValueError("a run needs an 'id'")
        run_row["created"] = run_row.get("created") or now()
        for k, v in run_row.items():
            if k in ("config", "metrics", "settings") and v is not None and not isinstance(v, str):
                run_row[k] = _dumps(v)
            elif isinstance(v, (dict, list)):
                run_row[k] = _dumps(v)
        cols = [c for c in self.schema_columns("predictions") if c != "id"]
        rows = [_prediction_row(p, run_row["id"], cols) for p in predictions]
        with self._lock, self.db.conn:
            if replace:
                self.db.conn.execute("DELETE FROM predictions WHERE run_id = ?", [run_row["id"]])
            # Without replace, the primary key decides inside the transaction: two imports racing
            # for one id (threads or processes) cannot both pass a check made before it.
            try:
                self.db.conn.execute(
                    f"{'INSERT OR REPLACE' if replace else 'INSERT'} INTO runs ({', '.join(run_row)}) "
                    f"VALUES ({', '.join('?' for _ in run_row)})",
                    list(run_row.values()),
                )
            except sqlite3.IntegrityError:
                raise RunExists(run_row["id"]) from None
            self.db.conn.executemany(
                f"INSERT OR REPLACE INTO predictions ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", rows
            )
        return run_row["id"]

    def record_app_prediction(self, prediction: dict, mode: str = "app", scorer_version: str | None = None,
                              benchmark_version: str | None = None) -> str:
        """Add one scored answer the app produced (a comparison side) to the run of its model,
        ``app:<model>``, created on first use; a later answer on the same (entry, setting)
        replaces the earlier one, so each model's app run holds one answer per prompt, as a
        ``petool eval`` run does. Returns the run id."""
        model = str(prediction.get("model") or "?")
        run_id = f"{mode}:{model}"
        cols = [c for c in self.schema_columns("predictions") if c != "id"]
        row = _prediction_row(prediction, run_id, cols)
        with self._lock, self.db.conn:
            self.db.conn.execute(
                "INSERT OR IGNORE INTO runs (id, model, mode, settings, created, config, metrics, scorer_version, benchmark_version) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run_id, model, mode, _dumps([]), now(), _dumps({"source": "the app's comparisons"}), _dumps({}),
                 scorer_version, benchmark_version],
            )
            self.db.conn.execute(
                f"INSERT INTO predictions ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                "ON CONFLICT(run_id, entry_id, setting) DO UPDATE SET "
                + ", ".join(f"[{c}] = excluded.[{c}]" for c in cols if c not in ("run_id", "entry_id", "setting")),
                row,
            )
        return run_id

    def schema_columns(self, table: str) -> list[str]:
        # Read beside the writer: a filter check must not queue behind a long import.
        return [r["name"] for r in self._rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [table])]

    def import_run(self, run_dir: str | Path, run_id: str | None = None, with_entries: bool = True,
                   replace: bool = False) -> str:
        """Load a ``petool eval`` output folder (config.json, metrics.json, predictions.jsonl).

        The run id is ``run_id``, else config.json's ``run_id``, else the folder's name. The
        entries the run scored are saved too (source ``run:<id>``, marked ``split: test``)
        when its data path can still be read, so the error inspector can show them whole.

        Args:
            replace: swap a run already stored under the same id for this one; without it
                such an import is refused (``RunExists``) and the stored run stays as it was.

        Raises:
            ValueError: naming the missing file, the bad line, an empty predictions file, or
                the run id already stored (``RunExists``).
        """
        run_dir = Path(run_dir)
        pred_path = run_dir / "predictions.jsonl"
        if not pred_path.is_file():
            raise ValueError(f"{run_dir}: no predictions.jsonl here; is this a `petool eval` output folder?")
        config = _read_json_file(run_dir / "config.json")
        metrics = _read_json_file(run_dir / "metrics.json")
        predictions = []
        for n, line in enumerate(_read_text(pred_path).splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{pred_path}: line {n} is not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict) or "entry_id" not in row or not isinstance(row.get("setting"), str):
                raise ValueError(f"{pred_path.name}: line {n} lacks entry_id or a string setting")
            predictions.append(row)
        if not predictions:
            raise ValueError(f"{pred_path.name} holds no predictions: nothing to import (is it the right file?)")
        cfg = config.get("config", config)
        cfg = cfg if isinstance(cfg, dict) else {}
        models = sorted({str(p.get("model")) for p in predictions if p.get("model")})
        settings = sorted({p["setting"] for p in predictions})
        run_id = run_id or str(config.get("run_id") or run_dir.name)
        data_path = cfg.get("data") or cfg.get("data_path")
        data_path = data_path if isinstance(data_path, str) else None
        self.save_run(
            {
                "id": run_id,
                "model": cfg.get("model") or ", ".join(models),
                "adapter": cfg.get("adapter"),
                "mode": cfg.get("mode"),
                "style": cfg.get("style"),
                "settings": settings,
                "data_path": data_path,
                "scorer_version": _str_or_none(config.get("scorer_version") or cfg.get("scorer_version")),
                "benchmark_version": _str_or_none(config.get("benchmark_version") or cfg.get("benchmark_version")),
                "created": config.get("created") or now(),
                "run_dir": str(run_dir),
                "config": config,
                "metrics": metrics,
            },
            predictions,
            replace=replace,
        )
        if with_entries and data_path and Path(data_path).exists():
            from petool.formats import load_entries

            wanted = {str(p["entry_id"]) for p in predictions}
            try:
                loaded = load_entries(data_path).entries
            except ValueError:
                loaded = []
            kept = [e for e in loaded if e.key in wanted]
            for e in kept:
                # Evaluated entries are test data: labels on them must never become training pairs.
                e.extra.setdefault("split", "test")
            self.save_entries(kept, source=f"run:{run_id}")
        return run_id

    def runs(self) -> list[dict]:
        rows = self._rows(
            "SELECT r.*, (SELECT COUNT(*) FROM predictions p WHERE p.run_id = r.id) AS n FROM runs r ORDER BY created DESC"
        )
        for r in rows:
            r["config"] = _loads(r["config"], {})
            r["metrics"] = _loads(r["metrics"], {})
            r["settings"] = _loads(r["settings"], r["settings"])
        return rows

    def predictions(self, run_ids: Iterable[str] | None = None, **filters: Any) -> list[dict]:
        """Prediction rows (call decoded, oks as bools), filtered by run ids and column values."""
        where, params = [], []
        if run_ids is not None:
            run_ids = list(run_ids)
            if not run_ids:
                return []
            where.append(f"run_id IN ({', '.join('?' for _ in run_ids)})")
            params += run_ids
        allowed = set(self.schema_columns("predictions"))
        for col, value in filters.items():
            if value is None:
                continue
            if col not in allowed:
                raise ValueError(f"unknown prediction column {col!r}; valid: {', '.join(sorted(allowed))}")
            where.append(f"[{col}] = ?")
            params.append(value)
        sql = "SELECT * FROM predictions" + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY id"
        rows = self._rows(sql, params)
        for r in rows:
            r["call"] = _loads(r["call"])
            for k in ("tool_ok", "params_ok"):
                r[k] = None if r[k] is None else bool(r[k])
        return rows

    def prediction_summaries(self) -> tuple[list[dict], str]:
        """Every prediction's scored columns (no raw output, no call) in id order, and a
        fingerprint of them and of the runs, so views derived from them are recomputed only when
        these change (labels being added elsewhere do not count). Cached per database change."""
        return self.cached("prediction_summaries", self._prediction_summaries)

    def _prediction_summaries(self) -> tuple[list[dict], str]:
        columns = ("id", "run_id", "entry_id", "setting", "model", "tool_ok", "params_ok", "error", "category",
                   "history_length")
        rows = self._rows(f"SELECT {', '.join(columns)} FROM predictions ORDER BY id")
        runs = self._rows("SELECT id, model, scorer_version, benchmark_version, created FROM runs ORDER BY id")
        digest = hashlib.blake2b(digest_size=16)
        for row in (*runs, *rows):
            digest.update(repr(tuple(row.values())).encode())
        for r in rows:
            for k in ("tool_ok", "params_ok"):
                r[k] = None if r[k] is None else bool(r[k])
        return rows, digest.hexdigest()

    def run_entry(self, run_id: str, entry_id: str) -> Entry | None:
        """The entry a run's prediction refers to: the run's own copy, else any saved one."""
        return self.get_entry(key=str(entry_id), source=f"run:{run_id}") or self.get_entry(key=str(entry_id))

    # -- labels (append-only)

    def add_label(
        self,
        *,
        annotator: str,
        entry: Entry,
        setting: str,
        prompt: str,
        model_a: str,
        model_b: str,
        call_a: ToolCall | dict | None,
        call_b: ToolCall | dict | None,
        verdict: str,
        raw_a: str = "",
        raw_b: str = "",
        blind: bool = False,
        tags: Iterable[str] = (),
        comment: str = "",
        gold_call: ToolCall | dict | None = None,
    ) -> int:
        """Append one human judgement; returns its id. Nothing ever updates or deletes it."""
        annotator = check_annotator(annotator)
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}; valid: {', '.join(VERDICTS)}")
        if setting not in LABEL_SETTINGS:
            raise ValueError(f"unknown setting {setting!r}; valid: {', '.join(LABEL_SETTINGS)}")
        tags = list(tags or [])
        if len(tags) > MAX_TAGS or not all(isinstance(t, str) and 0 < len(t) <= MAX_TAG_CHARS for t in tags):
            raise ValueError(f"tags must be at most {MAX_TAGS} non-empty strings of at most {MAX_TAG_CHARS} characters")
        comment = comment or ""
        if not isinstance(comment, str) or len(comment) > MAX_COMMENT_CHARS:
            raise ValueError(f"the comment must be text of at most {MAX_COMMENT_CHARS} characters")
        for name, value in (("prompt", prompt), ("model_a", model_a), ("model_b", model_b), ("raw_a", raw_a), ("raw_b", raw_b)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"a label's {name} must be text, got {type(value).__name__}")
        return self._insert(
            "labels",
            {
                "annotator": annotator,
                "created": now(),
                "entry_key": entry.key,
                "entry": _dumps(entry_to_dict(entry)),
                "setting": setting,
                "query": entry.query,
                "prompt": prompt,
                "model_a": model_a,
                "model_b": model_b,
                "call_a": _call_json(call_a),
                "call_b": _call_json(call_b),
                "raw_a": raw_a,
                "raw_b": raw_b,
                "blind": int(bool(blind)),
                "verdict": verdict,
                "tags": _dumps(tags),
                "comment": comment or "",
                "gold_call": _call_json(gold_call),
            },
        )

    def labels(self, annotator: str | None = None) -> list[dict]:
        """All labels, oldest first, with JSON columns decoded (``entry`` stays a dict)."""
        sql, params = "SELECT * FROM labels", []
        if annotator:
            sql, params = sql + " WHERE annotator = ?", [annotator]
        rows = self._rows(sql + " ORDER BY id", params)
        for r in rows:
            for k in ("call_a", "call_b", "gold_call", "entry"):
                r[k] = _loads(r[k])
            r["tags"] = _loads(r["tags"], [])
            r["blind"] = bool(r["blind"])
        return rows

    def label_summaries(self) -> list[dict]:
        """Every label, oldest first, without its entry, tags and comment, read incrementally.

        Labels are append-only (triggers refuse UPDATE and DELETE), so a label once read never
        changes: each call reads only the labels added since the last one, and the stored entry
        (tens of KB of JSON per label) is never loaded, only its ground truth and split. The
        ``entry`` field is that small dict, enough for ``pairs.pairs_from_labels``. The rows are
        shared between callers: read them, never change them.
        """
        version = self.version()
        with self._label_summaries_lock:
            if self._label_summaries_at != version:
                last = self._label_summaries[-1]["id"] if self._label_summaries else 0
                new = self._rows(
                    f"SELECT {', '.join(LABEL_SUMMARY_COLUMNS)}, json_extract(entry, '$.ground_truth') AS ground_truth, "
                    "json_extract(entry, '$.extra.split') AS split FROM labels WHERE id > ? ORDER BY id",
                    [last],
                )
                prompts: dict[str, str] = {}  # one string per distinct prompt: many labels share one
                for r in new:
                    for k in ("call_a", "call_b", "gold_call"):
                        r[k] = _loads(r[k])
                    r["blind"] = bool(r["blind"])
                    r["prompt"] = prompts.setdefault(r["prompt"], r["prompt"]) if r["prompt"] is not None else None
                    r["entry"] = {"query": r["query"], "ground_truth": _loads(r.pop("ground_truth")),
                                  "extra": {"split": r.pop("split")}}
                # A new list, so a caller still holding the previous one sees it unchanged.
                self._label_summaries = [*self._label_summaries, *new]
                self._label_summaries_at = version
            return self._label_summaries

    def label_withdrawals(self) -> dict[int, dict]:
        """Withdrawn label id -> ``{annotator, created, replaced_by}`` (an undo, or an edit whose
        new label is ``replaced_by``); read once per change of the database."""
        def read():
            rows = self._rows("SELECT label_id, annotator, created, replaced_by FROM label_withdrawals ORDER BY label_id")
            return {r.pop("label_id"): r for r in rows}

        return self.cached("label_withdrawals", read)

    def labels_stamp(self) -> tuple[int, int]:
        """The labels' revision: (last label id, number of withdrawals). Labels are append-only
        and an undo or edit only appends a withdrawal, so views derived from the labels stay
        valid until this moves."""
        rows = self.label_summaries()
        return (rows[-1]["id"] if rows else 0, len(self.label_withdrawals()))

    def current_labels(self) -> list[dict]:
        """``label_summaries`` with each withdrawn label marked: a copy of its row with
        ``withdrawn`` = ``{annotator, created, replaced_by}`` (the shared rows stay unchanged).
        What the pairs, their statuses and the dashboards read."""
        labels = self.label_summaries()
        gone = self.label_withdrawals()
        stamp = (labels[-1]["id"] if labels else 0, len(gone))
        return self.memo("current_labels", stamp,
                         lambda: [{**r, "withdrawn": gone[r["id"]]} if r["id"] in gone else r for r in labels])

    def withdraw_label(self, label_id: int, annotator: str, replacement: dict | None = None) -> int | None:
        """Undo ``annotator``'s own label ``label_id`` (it stops counting; the row stays), or, with
        ``replacement`` (``verdict``, optionally ``gold_call``, ``tags``, ``comment``), edit it:
        a copy with those fields is appended and the old one withdrawn, in one transaction.

        Refuses (ValueError) a label that does not exist, belongs to another annotator, or was
        already undone or edited. Returns the replacing label's id (None for an undo).
        """
        annotator = check_annotator(annotator)
        try:
            label_id = int(label_id)
        except (TypeError, ValueError):
            raise ValueError(f"no label {label_id!r}: give a label number") from None
        with self._lock, self.db.conn:
            conn = self.db.conn
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute("SELECT * FROM labels WHERE id = ?", [label_id]).fetchone()
            if row is None:
                raise ValueError(f"there is no label #{label_id}")
            label = dict(zip([d[0] for d in conn.execute("SELECT * FROM labels LIMIT 0").description], row))
            if label["annotator"] != annotator:
                raise ValueError(f"label #{label_id} is not yours: only its annotator may undo or edit it")
            done = conn.execute("SELECT replaced_by FROM label_withdrawals WHERE label_id = ?", [label_id]).fetchone()
            if done is not None:
                how = f"edited into label #{done[0]}" if done[0] else "undone"
                raise ValueError(f"label #{label_id} was already {how}")
            new_id = None
            if replacement is not None:
                verdict = replacement.get("verdict")
                if verdict not in VERDICTS:
                    raise ValueError(f"unknown verdict {verdict!r}; valid: {', '.join(VERDICTS)}")
                copy = {k: v for k, v in label.items() if k != "id"}
                copy.update(created=now(), verdict=verdict)
                if "gold_call" in replacement:
                    copy["gold_call"] = _call_json(replacement["gold_call"])
                if "tags" in replacement:
                    copy["tags"] = _dumps(list(replacement["tags"] or []))
                if "comment" in replacement:
                    copy["comment"] = replacement["comment"] or ""
                cur = conn.execute(f"INSERT INTO labels ({', '.join(f'[{k}]' for k in copy)}) VALUES ({', '.join('?' for _ in copy)})",
                                   list(copy.values()))
                new_id = cur.lastrowid
            conn.execute("INSERT INTO label_withdrawals (label_id, annotator, created, replaced_by) VALUES (?, ?, ?, ?)",
                         [label_id, annotator, now(), new_id])
            return new_id

    def labelled_keys(self, annotator: str) -> set[tuple[str, str]]:
        """(entry key, setting) pairs this annotator has labelled, for the queue to skip."""
        rows = self._rows("SELECT DISTINCT entry_key, setting FROM labels WHERE annotator = ?", [annotator])
        return {(r["entry_key"], r["setting"]) for r in rows}

    def labelled_entry_keys(self) -> set[str]:
        """Keys of every entry anyone has labelled, undone labels included (a job trained before
        the undo still learnt from it): the entries DPO pairs may have been made of."""
        return {r["entry_key"] for r in self._rows("SELECT DISTINCT entry_key FROM labels")}

    def preference_examples(self, policy=None) -> list[PreferenceExample]:
        """DPO pairs derived from every label by ``pairs.pairs_from_labels``, computed once per
        new label or withdrawal (and policy), from the labels without their stored entries."""
        from petool.pairs import PairPolicy, pairs_from_labels

        policy = policy or PairPolicy()
        labels = self.current_labels()
        return list(self.memo(("preference_examples", policy), self.labels_stamp(), lambda: pairs_from_labels(labels, policy)))

    # -- training jobs

    def add_job(self, command: list[str], log_path: str, output_dir: str, config: dict | None = None) -> int:
        stamp = now()
        return self._insert(
            "train_jobs",
            {
                "created": stamp, "updated": stamp, "status": "queued", "command": _dumps(command),
                "log_path": log_path, "output_dir": output_dir, "progress": 0.0, "step": 0,
                "total_steps": None, "losses": "[]", "message": "", "config": _dumps(config or {}),
            },
        )

    def update_job(self, job_id: int, **fields: Any) -> None:
        allowed = set(self.schema_columns("train_jobs")) - {"id", "created"}
        bad = set(fields) - allowed
        if bad:
            raise ValueError(f"unknown train_jobs column(s) {sorted(bad)}; valid: {', '.join(sorted(allowed))}")
        if "status" in fields and fields["status"] not in JOB_STATUSES:
            raise ValueError(f"unknown job status {fields['status']!r}; valid: {', '.join(JOB_STATUSES)}")
        if "losses" in fields and not isinstance(fields["losses"], str):
            fields["losses"] = _dumps(fields["losses"])
        fields["updated"] = now()
        with self._lock, self.db.conn:
            self.db.conn.execute(
                f"UPDATE train_jobs SET {', '.join(f'[{k}] = ?' for k in fields)} WHERE id = ?",
                [*fields.values(), job_id],
            )

    def jobs(self) -> list[dict]:
        rows = self._rows("SELECT * FROM train_jobs ORDER BY id DESC")
        for r in rows:
            r["command"] = _loads(r["command"], [])
            r["losses"] = _loads(r["losses"], [])
            r["config"] = _loads(r["config"], {})
        return rows

    def get_job(self, job_id: int) -> dict | None:
        return next((j for j in self.jobs() if j["id"] == job_id), None)

    def stats(self) -> dict[str, int]:
        """Row counts per table, for the status line."""
        tables = ("users", "entries", "runs", "predictions", "labels", "train_jobs")
        row = self._rows("SELECT " + ", ".join(f"(SELECT COUNT(*) FROM [{t}]) AS [{t}]" for t in tables))[0]
        return {t: row[t] for t in tables}


class RunExists(ValueError):
    """An import named a run id already in the store; the stored run is unchanged."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        super().__init__(f"a run {run_id!r} is already stored; it was kept as it was. Import this one under another "
                         "id, or replace the stored run explicitly (replace=True; `petool eval --db DB --replace`; "
                         "the app's \"replace the stored run\" box).")


def _prediction_row(p: dict, run_id: str, cols: list[str]) -> list:
    """A prediction dict as the values of ``cols`` (a data file may hold anything: odd values
    are kept as JSON text, never a failure)."""
    p = dict(p, run_id=run_id)
    p["entry_id"] = str(p.get("entry_id"))
    p["call"] = _call_json(p.get("call"))
    p["latency_s"] = p.get("latency_s", p.get("latency"))
    if not isinstance(p.get("setting"), str):
        raise ValueError(f"prediction of entry {p['entry_id']!r}: 'setting' must be a string, got {p.get('setting')!r}")
    for k, v in p.items():
        if isinstance(v, (dict, list)):
            p[k] = _dumps(v)
    for k in ("tool_ok", "params_ok"):
        p[k] = None if p.get(k) is None else int(bool(p[k]))
    return [p.get(c) for c in cols]


def _read_json_file(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        value = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    return value if isinstance(value, dict) else {}


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name}: not UTF-8 text (bad byte at offset {exc.start})") from None


def check_annotator(name: Any) -> str:
    """The annotator name, stripped; ValueError when empty, too long or holding control characters."""
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        raise ValueError("a label needs an annotator name")
    if len(name) > MAX_ANNOTATOR_CHARS:
        raise ValueError(f"the annotator name is longer than {MAX_ANNOTATOR_CHARS} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ValueError("the annotator name must not contain control characters (newlines, tabs, ...)")
    return name


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
