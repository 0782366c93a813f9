"""The numbered schema migrations of the SQLite store, and the one function that applies them.

Each migration runs once, in its own transaction, and is recorded in ``_migrations``; a shipped
migration is never edited, the next change is a new number. The tables they create are the ones
``petool.store.Store`` reads and writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


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
            "id": str,
            "model": str,
            "adapter": str,
            "mode": str,
            "style": str,
            "settings": str,
            "data_path": str,
            "scorer_version": str,
            "benchmark_version": str,
            "created": str,
            "run_dir": str,
            "config": str,
            "metrics": str,
        },
        pk="id",
        not_null=["created"],
        if_not_exists=True,
    )
    db["predictions"].create(
        {
            "id": int,
            "run_id": str,
            "entry_id": str,
            "setting": str,
            "model": str,
            "raw": str,
            "call": str,
            "tool_ok": int,
            "params_ok": int,
            "error": str,
            "param_error": str,
            "latency_s": float,
            "prompt_tokens": int,
            "output_tokens": int,
            "category": str,
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
            "id": int,
            "annotator": str,
            "created": str,
            "entry_key": str,
            "entry": str,
            "setting": str,
            "query": str,
            "prompt": str,
            "model_a": str,
            "model_b": str,
            "call_a": str,
            "call_b": str,
            "raw_a": str,
            "raw_b": str,
            "blind": int,
            "verdict": str,
            "tags": str,
            "comment": str,
            "gold_call": str,
        },
        pk="id",
        not_null=["annotator", "created", "entry_key", "setting", "verdict"],
        if_not_exists=True,
    )
    db["labels"].create_index(["entry_key", "setting"], if_not_exists=True)
    db["train_jobs"].create(
        {
            "id": int,
            "created": str,
            "updated": str,
            "status": str,
            "pid": int,
            "command": str,
            "log_path": str,
            "output_dir": str,
            "progress": float,
            "step": int,
            "total_steps": int,
            "losses": str,
            "message": str,
            "config": str,
        },
        pk="id",
        not_null=["created", "status"],
        if_not_exists=True,
    )
    # Append-only, enforced by the database itself and not only by this module's API.
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS labels_no_update BEFORE UPDATE ON labels BEGIN SELECT RAISE(ABORT, 'labels are append-only'); END"
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS labels_no_delete BEFORE DELETE ON labels BEGIN SELECT RAISE(ABORT, 'labels are append-only'); END"
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


def apply_migrations(db, now: Callable[[], str]) -> list[int]:
    """Apply to ``db`` (a sqlite_utils Database, its writer held by the caller) the migrations not
    yet recorded, stamping each with ``now()``; returns the numbers applied now."""
    applied = []
    for number, name, fn in MIGRATIONS:
        if _migrated(db, number):
            continue
        # One explicit transaction per migration: sqlite3 does not open one for DDL by
        # itself, and a crash halfway must leave the schema as it was (or, for an old
        # half-applied database, the idempotent statements finish the job). BEGIN
        # IMMEDIATE takes the write lock first, so starts racing on a new file wait in turn.
        with db.conn:
            db.conn.execute("BEGIN IMMEDIATE")
            db["_migrations"].create({"id": int, "name": str, "applied": str}, pk="id", if_not_exists=True)
            if _migrated(db, number):  # another process got there while we waited
                continue
            fn(db)
            db.conn.execute("INSERT INTO _migrations (id, name, applied) VALUES (?, ?, ?)", [number, name, now()])
        applied.append(number)
    return applied


def _migrated(db, number: int) -> bool:
    try:
        return db.conn.execute("SELECT 1 FROM _migrations WHERE id = ?", [number]).fetchone() is not None
    except sqlite3.OperationalError:  # no _migrations table yet: a new database
        return False
