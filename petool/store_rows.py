"""How records are kept in the store's tables: JSON columns, and the predictions table's rows as
``Prediction`` records (the fields kept, the row written, the record read back, the filters).

Pure conversions, no connection: ``petool.store`` reads and writes the rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from petool.schema import Prediction, ToolCall
from petool.scoring import history_bucket


def dumps_json(value: Any) -> str | None:
    """``value`` as a JSON column (None stays NULL)."""
    return None if value is None else json.dumps(value, ensure_ascii=False)


def loads_json(text: str | None, default: Any = None) -> Any:
    """A JSON column's value, or ``default`` where it is empty or not JSON."""
    if text in (None, ""):
        return default
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return default


def call_json(call: Any) -> str | None:
    """A tool call (the record or its dict) as a JSON column."""
    if call is None:
        return None
    if isinstance(call, ToolCall):
        call = call.to_json()
    return json.dumps(call, ensure_ascii=False)


@dataclass(frozen=True)
class StoredPrediction:
    """A row of the predictions table: its id, its run, and the record it keeps (the fields of
    ``STORED_PREDICTION_FIELDS``; the others None, ``entry_id`` as text)."""

    id: int
    run_id: str
    record: Prediction


@dataclass(frozen=True)
class PredictionPage:
    """A page of the stored predictions that matched a filter, and how many matched in all."""

    rows: list[StoredPrediction]
    total: int


PREDICTION_FILTERS: dict[str, Callable[[StoredPrediction], Any]] = {
    "run_ids": lambda s: s.run_id,
    "ids": lambda s: s.id,
    "model": lambda s: s.record.model,
    "setting": lambda s: s.record.setting,
    "error": lambda s: s.record.error,
    "category": lambda s: s.record.category,
    "bucket": lambda s: history_bucket(s.record.history_length),
}
"""What each filter of ``Store.stored_predictions`` compares."""


def wanted(value: Any) -> Callable[[Any], bool]:
    """A filter value as a test: equal to it, or, for a collection, in it."""
    if isinstance(value, (str, int)):
        return lambda v: v == value
    allowed = set(value)
    return lambda v: v in allowed


STORED_PREDICTION_FIELDS = (
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
)
"""The fields of a ``Prediction`` the predictions table keeps, each in a column of its name. The
rest (how it parsed, the gold, the cluster's size, the tool-choice scores) stay in the run
folder's predictions.jsonl."""


def stored_prediction(row: dict) -> StoredPrediction:
    """A predictions row (as read, output columns or not) as its record. A stored call that is not
    a tool call (an imported line may hold anything) reads as no call."""
    fields = {f: row.get(f) for f in STORED_PREDICTION_FIELDS if f != "call"}
    for k in ("tool_ok", "params_ok"):
        fields[k] = None if fields[k] is None else bool(fields[k])
    record = Prediction.from_json(fields)
    try:
        record.call = ToolCall.from_json(loads_json(row.get("call"))) if row.get("call") else None
    except ValueError:
        record.call = None
    return StoredPrediction(row["id"], row["run_id"], record)


def prediction_row(p: Prediction | dict, run_id: str, cols: list[str]) -> list:
    """A prediction (the record, or a predictions.jsonl line as read) as the values of ``cols``
    (a data file may hold anything: odd values are kept as JSON text, never a failure)."""
    p = dict(p.to_json() if isinstance(p, Prediction) else p, run_id=run_id)
    p["entry_id"] = str(p.get("entry_id"))
    p["call"] = call_json(p.get("call"))
    p["latency_s"] = p.get("latency_s", p.get("latency"))
    if not isinstance(p.get("setting"), str):
        raise ValueError(f"prediction of entry {p['entry_id']!r}: 'setting' must be a string, got {p.get('setting')!r}")
    for k, v in p.items():
        if isinstance(v, (dict, list)):
            p[k] = dumps_json(v)
    for k in ("tool_ok", "params_ok"):
        p[k] = None if p.get(k) is None else int(bool(p[k]))
    return [p.get(c) for c in cols]
