"""The SQLite store: users, saved entries, evaluation runs, predictions, labels, training jobs.

Labels are human work and must never be lost: the database runs in WAL mode, every write is
one short transaction, labels are append-only (a relabel is a new row; pairs.py decides which
row counts; an undo or edit appends a withdrawal, never changes the label), all SQL is parameterised, and the schema evolves only through the numbered
migrations of ``petool.migrations``, each applied once and recorded in ``_migrations``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from petool.evaluate import read_run_folder
from petool.label_rules import LABEL_SUMMARY_COLUMNS, check_annotator, check_label_fields, check_verdict
from petool.migrations import apply_migrations
from petool.pairs import PairPolicy, pairs_from_labels
from petool.schema import (
    Entry,
    Prediction,
    PreferenceExample,
    ToolCall,
    entry_from_dict,
    entry_to_dict,
)
from petool.sqlite_file import SqliteFile
from petool.store_rows import (
    PREDICTION_FILTERS,
    STORED_PREDICTION_FIELDS,
    PredictionPage,
    StoredPrediction,
    call_json,
    dumps_json,
    loads_json,
    prediction_row,
    stored_prediction,
    wanted,
)

JOB_STATUSES = ("queued", "running", "done", "failed", "cancelled")


def now() -> str:
    """UTC time as ISO 8601 with seconds, the one time format the store writes."""
    return datetime.now(UTC).isoformat(timespec="seconds")


# ---------------------------------------------------------------- the store


class Store(SqliteFile):
    """petool's tables in one SQLite file (or ``":memory:"``), migrated to the latest schema on
    opening; ``SqliteFile`` says how the writer, the readers and the cache share it."""

    def __init__(self, path: str | Path = ":memory:"):
        self._label_summaries: list[dict] = []
        self._label_summaries_at: Any = None
        self._label_summaries_lock = threading.Lock()
        super().__init__(path, prepare=self.migrate)

    def migrate(self) -> list[int]:
        """Apply the migrations not yet recorded; returns the numbers applied now."""
        with self._lock:
            return apply_migrations(self.db, now)

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
                self.db.conn.execute("UPDATE users SET profile = ? WHERE id = ?", [dumps_json(profile or {}), row[0]])
                return row[0]
            cur = self.db.conn.execute(
                "INSERT INTO users (name, profile, created) VALUES (?, ?, ?)", [name, dumps_json(profile or {}), now()]
            )
            return cur.lastrowid

    def users(self) -> list[dict]:
        rows = self._rows("SELECT * FROM users ORDER BY name")
        for r in rows:
            r["profile"] = loads_json(r["profile"], {})
        return rows

    def get_user(self, name: str) -> dict | None:
        rows = self._rows("SELECT * FROM users WHERE name = ?", [name])
        if not rows:
            return None
        rows[0]["profile"] = loads_json(rows[0]["profile"], {})
        return rows[0]

    # -- entries (saved histories)

    def save_entry(self, entry: Entry, source: str = "saved", user_id: int | None = None) -> int:
        """Insert or replace the entry with the same (source, key); returns its row id."""
        payload = dumps_json(entry_to_dict(entry))
        stamp = now()
        with self._lock, self.db.conn:
            row = self.db.conn.execute("SELECT id FROM entries WHERE source = ? AND key = ?", [source, entry.key]).fetchone()
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
        rows = [(e.key, source, dumps_json(entry_to_dict(e)), stamp, stamp) for e in entries]
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

    def save_run(self, run: dict, predictions: Iterable[Prediction | dict] = (), replace: bool = False) -> str:
        """Insert a run and its predictions (records, or predictions.jsonl lines as read) in one
        transaction; returns the run id.

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
                run_row[k] = dumps_json(v)
            elif isinstance(v, (dict, list)):
                run_row[k] = dumps_json(v)
        cols = [c for c in self.schema_columns("predictions") if c != "id"]
        rows = [prediction_row(p, run_row["id"], cols) for p in predictions]
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

    def record_app_prediction(
        self, prediction: Prediction, mode: str = "app", scorer_version: str | None = None, benchmark_version: str | None = None
    ) -> str:
        """Add one scored answer the app produced (a comparison side) to the run of its model,
        ``app:<model>``, created on first use; a later answer on the same (entry, setting)
        replaces the earlier one, so each model's app run holds one answer per prompt, as a
        ``petool eval`` run does. Returns the run id."""
        model = prediction.model or "?"
        run_id = f"{mode}:{model}"
        cols = [c for c in self.schema_columns("predictions") if c != "id"]
        row = prediction_row(prediction, run_id, cols)
        with self._lock, self.db.conn:
            self.db.conn.execute(
                "INSERT OR IGNORE INTO runs (id, model, mode, settings, created, config, metrics, scorer_version, benchmark_version) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    run_id,
                    model,
                    mode,
                    dumps_json([]),
                    now(),
                    dumps_json({"source": "the app's comparisons"}),
                    dumps_json({}),
                    scorer_version,
                    benchmark_version,
                ],
            )
            self.db.conn.execute(
                f"INSERT INTO predictions ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                "ON CONFLICT(run_id, entry_id, setting) DO UPDATE SET "
                + ", ".join(f"[{c}] = excluded.[{c}]" for c in cols if c not in ("run_id", "entry_id", "setting")),
                row,
            )
        return run_id

    def import_run(self, run_dir: str | Path, run_id: str | None = None, with_entries: bool = True, replace: bool = False) -> str:
        """Load a ``petool eval`` output folder (config.json, metrics.json, predictions.jsonl), as
        ``evaluate.read_run_folder`` reads it.

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
        folder = read_run_folder(run_dir, run_id)
        run_id = self.save_run(folder.run, folder.predictions, replace=replace)
        if with_entries:
            entries = folder.entries()
            if entries is not None:
                self.save_entries(entries, source=f"run:{run_id}")
        return run_id

    def runs(self) -> list[dict]:
        rows = self._rows("SELECT r.*, (SELECT COUNT(*) FROM predictions p WHERE p.run_id = r.id) AS n FROM runs r ORDER BY created DESC")
        for r in rows:
            r["config"] = loads_json(r["config"], {})
            r["metrics"] = loads_json(r["metrics"], {})
            r["settings"] = loads_json(r["settings"], r["settings"])
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
            r["call"] = loads_json(r["call"])
            for k in ("tool_ok", "params_ok"):
                r[k] = None if r[k] is None else bool(r[k])
        return rows

    def stored_predictions(
        self,
        run_ids: str | Iterable[str] | None = None,
        *,
        ids: int | Iterable[int] | None = None,
        model: str | Iterable[str] | None = None,
        setting: str | Iterable[str] | None = None,
        error: str | Iterable[str] | None = None,
        category: str | Iterable[str] | None = None,
        bucket: str | Iterable[str] | None = None,
        only_wrong: bool = False,
        with_output: bool = False,
        offset: int = 0,
        limit: int | None = None,
    ) -> PredictionPage:
        """The stored predictions that match, as records with their row id and run, in id order:
        the page from ``offset`` (at most ``limit``) and how many match in all.

        Each filter is a value, or a collection of values any of which matches (an empty one
        matches nothing); None matches everything. ``bucket`` is ``scoring.history_bucket`` of
        the history length; ``only_wrong`` keeps the answers not both tool- and parameter-right.

        Without ``with_output`` the records lack the raw output and the call (None), and come
        from a list read once per change of the predictions or runs, so filtering many times
        costs one read of the table (the records are shared: read them, never change them);
        ``with_output`` reads the page's rows whole.
        """
        given = {"run_ids": run_ids, "ids": ids, "model": model, "setting": setting, "error": error, "category": category, "bucket": bucket}
        tests = [(PREDICTION_FILTERS[name], wanted(value)) for name, value in given.items() if value is not None]
        matched = [
            s
            for s in self._scored_predictions()
            if all(want(field(s)) for field, want in tests) and not (only_wrong and s.record.tool_ok and s.record.params_ok)
        ]
        page = matched[offset:] if limit is None else matched[offset : offset + limit]
        if with_output:
            page = self._whole_predictions([s.id for s in page])
        return PredictionPage(page, len(matched))

    def prediction_records(self, run_ids: str | Iterable[str] | None = None, **filters: Any) -> list[Prediction]:
        """The records alone of ``stored_predictions`` (same filters), with their output. Only
        the fields the table holds come back (``STORED_PREDICTION_FIELDS``; the others are None)
        and ``entry_id`` is text."""
        return [s.record for s in self.stored_predictions(run_ids, with_output=True, **filters).rows]

    def _scored_predictions(self) -> list[StoredPrediction]:
        """Every stored prediction without its output, rebuilt once per change of the summaries."""
        rows, fingerprint = self.prediction_summaries()
        return self.memo("scored predictions", fingerprint, lambda: [stored_prediction(r) for r in rows])

    def _whole_predictions(self, ids: list[int]) -> list[StoredPrediction]:
        """The rows of ``ids`` as read now, in that order (a row deleted meanwhile is left out)."""
        found: dict[int, StoredPrediction] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for row in self._rows(f"SELECT * FROM predictions WHERE id IN ({', '.join('?' for _ in chunk)})", chunk):
                found[row["id"]] = stored_prediction(row)
        return [found[i] for i in ids if i in found]

    def prediction_summaries(self) -> tuple[list[dict], str]:
        """Every prediction's stored columns but its output (no raw output, no call) in id order,
        and a fingerprint of them and of the runs, so views derived from them are recomputed only
        when these change (labels being added elsewhere do not count). Cached per database change."""
        return self.cached("prediction_summaries", self._prediction_summaries)

    def _prediction_summaries(self) -> tuple[list[dict], str]:
        columns = ("id", "run_id", *(f for f in STORED_PREDICTION_FIELDS if f not in ("raw", "call")))
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
        tags, comment = check_label_fields(
            verdict=verdict,
            setting=setting,
            tags=tags,
            comment=comment,
            texts={"prompt": prompt, "model_a": model_a, "model_b": model_b, "raw_a": raw_a, "raw_b": raw_b},
        )
        return self._insert(
            "labels",
            {
                "annotator": annotator,
                "created": now(),
                "entry_key": entry.key,
                "entry": dumps_json(entry_to_dict(entry)),
                "setting": setting,
                "query": entry.query,
                "prompt": prompt,
                "model_a": model_a,
                "model_b": model_b,
                "call_a": call_json(call_a),
                "call_b": call_json(call_b),
                "raw_a": raw_a,
                "raw_b": raw_b,
                "blind": int(bool(blind)),
                "verdict": verdict,
                "tags": dumps_json(tags),
                "comment": comment or "",
                "gold_call": call_json(gold_call),
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
                r[k] = loads_json(r[k])
            r["tags"] = loads_json(r["tags"], [])
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
                        r[k] = loads_json(r[k])
                    r["blind"] = bool(r["blind"])
                    r["prompt"] = prompts.setdefault(r["prompt"], r["prompt"]) if r["prompt"] is not None else None
                    r["entry"] = {
                        "query": r["query"],
                        "ground_truth": loads_json(r.pop("ground_truth")),
                        "extra": {"split": r.pop("split")},
                    }
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
        return self.memo("current_labels", stamp, lambda: [{**r, "withdrawn": gone[r["id"]]} if r["id"] in gone else r for r in labels])

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
            label = dict(zip([d[0] for d in conn.execute("SELECT * FROM labels LIMIT 0").description], row, strict=False))
            if label["annotator"] != annotator:
                raise ValueError(f"label #{label_id} is not yours: only its annotator may undo or edit it")
            done = conn.execute("SELECT replaced_by FROM label_withdrawals WHERE label_id = ?", [label_id]).fetchone()
            if done is not None:
                how = f"edited into label #{done[0]}" if done[0] else "undone"
                raise ValueError(f"label #{label_id} was already {how}")
            new_id = None
            if replacement is not None:
                verdict = check_verdict(replacement.get("verdict"))
                copy = {k: v for k, v in label.items() if k != "id"}
                copy.update(created=now(), verdict=verdict)
                if "gold_call" in replacement:
                    copy["gold_call"] = call_json(replacement["gold_call"])
                if "tags" in replacement:
                    copy["tags"] = dumps_json(list(replacement["tags"] or []))
                if "comment" in replacement:
                    copy["comment"] = replacement["comment"] or ""
                cur = conn.execute(
                    f"INSERT INTO labels ({', '.join(f'[{k}]' for k in copy)}) VALUES ({', '.join('?' for _ in copy)})", list(copy.values())
                )
                new_id = cur.lastrowid
            conn.execute(
                "INSERT INTO label_withdrawals (label_id, annotator, created, replaced_by) VALUES (?, ?, ?, ?)",
                [label_id, annotator, now(), new_id],
            )
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
        policy = policy or PairPolicy()
        labels = self.current_labels()
        return list(self.memo(("preference_examples", policy), self.labels_stamp(), lambda: pairs_from_labels(labels, policy)))

    # -- training jobs

    def add_job(self, command: list[str], log_path: str, output_dir: str, config: dict | None = None) -> int:
        stamp = now()
        return self._insert(
            "train_jobs",
            {
                "created": stamp,
                "updated": stamp,
                "status": "queued",
                "command": dumps_json(command),
                "log_path": log_path,
                "output_dir": output_dir,
                "progress": 0.0,
                "step": 0,
                "total_steps": None,
                "losses": "[]",
                "message": "",
                "config": dumps_json(config or {}),
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
            fields["losses"] = dumps_json(fields["losses"])
        fields["updated"] = now()
        with self._lock, self.db.conn:
            self.db.conn.execute(
                f"UPDATE train_jobs SET {', '.join(f'[{k}] = ?' for k in fields)} WHERE id = ?",
                [*fields.values(), job_id],
            )

    def jobs(self) -> list[dict]:
        rows = self._rows("SELECT * FROM train_jobs ORDER BY id DESC")
        for r in rows:
            r["command"] = loads_json(r["command"], [])
            r["losses"] = loads_json(r["losses"], [])
            r["config"] = loads_json(r["config"], {})
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
        super().__init__(
            f"a run {run_id!r} is already stored; it was kept as it was. Import this one under another "
            "id, or replace the stored run explicitly (replace=True; `petool eval --db DB --replace`; "
            'the app\'s "replace the stored run" box).'
        )
