"""One SQLite file shared by one writer and many readers, and the views derived from it.

Opening checks the file (``PRAGMA quick_check``), switches it to WAL and prepares it (the
store's migrations) before anything writes; writes go through one connection under a lock,
reads through a read-only connection per thread; ``version`` tells when anything was committed,
by any process, and ``memo``/``cached`` keep derived views until it does. ``petool.store.Store``
is this with petool's tables.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

CACHE_KEYS = 256
"""Derived views kept at once (one per view and filter choice); the oldest goes first."""


class StoreDamaged(sqlite3.DatabaseError):
    """The database file is not a sound SQLite database; the message names the file."""


def _retry_when_locked(fn: Callable[[], None], seconds: float = 30.0) -> None:
    """Run ``fn`` again while SQLite answers "database is locked", for up to ``seconds``.

    A new file starts in rollback-journal mode: a start that reads it while another start is
    migrating cannot then take the write lock to switch to WAL, and SQLite answers at once
    instead of calling the busy handler (it would deadlock). Both steps are idempotent.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class SqliteFile:
    """One SQLite file (or ``":memory:"``), open for a writer and for readers beside it.

    Writes go through one connection (``db``) under a lock: SQLite serialises writers anyway,
    and the lock keeps each transaction short and whole. Reads go through a connection of their
    own per thread, so a long read never waits on the lock nor holds it: in WAL mode a reader
    sees the last commit while the writer goes on. (An in-memory database exists on one
    connection only, so there reads share the writer's.) Other processes (a training job)
    write through their own connection.

    Derived views (the DPO pairs, dashboard figures) are cached against what they were
    computed from (``memo``), so a page that many visitors reload costs one computation per
    change of the data, not one per request.

    Args:
        path: the file (its folder is created), or ``":memory:"``.
        prepare: called once the file is open, sound and in WAL mode, with the writer's lock
            held and inside the retry of a start that finds the file locked: it creates or
            migrates the tables, and must be idempotent.

    Raises:
        StoreDamaged: the file is not a sound SQLite database.
        sqlite3.OperationalError: it cannot be opened (the message names the file).
    """

    def __init__(self, path: str | Path, prepare: Callable[[], Any]):
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
        self._prepare = prepare
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
        self._prepare()

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

    # -- the tables

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
        return [dict(zip(names, row, strict=False)) for row in cur.fetchall()]

    def schema_columns(self, table: str) -> list[str]:
        # Read beside the writer: a filter check must not queue behind a long import.
        return [r["name"] for r in self._rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [table])]
