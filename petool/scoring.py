"""Judge predictions against entries: the paper's two accuracies plus an error taxonomy.

Tool accuracy is exact string equality of ``tool_name``; parameter accuracy is exact,
type-sensitive dict equality (``5 != "5"``), scored independently of the tool; the denominator is
every entry, so a missing or unparseable answer is wrong on both.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from petool.parsing import Parsed
from petool.schema import Entry, Score

SCORER_VERSION = "petool-scorer/1"

ERROR_CODES = {
    "ok": "correct",
    "format:empty": "invalid format: the output is empty",
    "format:no_call": "invalid format: no tool call found in the output",
    "format:bad_json": "invalid format: the call is not valid JSON (often truncated)",
    "format:bad_shape": "invalid format: JSON without a string tool_name and an object of parameters",
    "format:bad_mode": "invalid format: the parser was asked for an unknown mode",
    "missing:no_response": "no response was recorded for this entry",
    "model:error": "the model failed on this entry (the exception is in parse_detail); wrong on both",
    "unscored": "not scored: the entry has no gold call, and the call names one of its candidates",
    "tool:hallucinated": "tool hallucination: the tool is not among the candidates",
    "tool:functionality_mismatch": "tool functionality mismatch: a candidate that does something else",
    "tool:preference_mismatch": "tool preference mismatch: an equivalent tool the user does not prefer",
    "params:name_mismatch": "parameter name mismatch: parameter names differ from the gold call",
    "params:value_mismatch": "parameter value mismatch: same names, some value differs (type-sensitive)",
}


def params_error(predicted: dict, gold: dict) -> str:
    """``ok``, ``params:name_mismatch`` or ``params:value_mismatch``; values compare type-sensitively.

    Example:
        >>> params_error({"n": "5"}, {"n": 5})
        'params:value_mismatch'
    """
    if _strict_equal(predicted, gold):
        return "ok"
    if set(predicted) != set(gold):
        return "params:name_mismatch"
    return "params:value_mismatch"


def _strict_equal(a: Any, b: Any) -> bool:
    # Python's == says 1 == 1.0 == True; the authors' check is on JSON values, where they differ.
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def tool_error(entry: Entry, tool_name: str) -> str:
    """Classify a tool choice: ``ok`` or a ``tool:*`` code using the entry's functional cluster."""
    if tool_name == entry.ground_truth.tool_name:
        return "ok"
    if entry.candidate(tool_name) is None:
        return "tool:hallucinated"
    cluster = set(entry.cluster) | {entry.ground_truth.tool_name}
    return "tool:preference_mismatch" if tool_name in cluster else "tool:functionality_mismatch"


def score_call(entry: Entry, setting: str, parsed: Parsed | None) -> Score:
    """Score one parsed output for ``entry`` in ``setting``. ``None`` means no response."""
    if parsed is None:
        return Score(entry.entry_id, setting, False, False, "missing:no_response", "missing:no_response")
    if parsed.call is None:
        return Score(entry.entry_id, setting, False, False, parsed.error, parsed.error)
    call = parsed.call
    t_err = tool_error(entry, call.tool_name)
    p_err = params_error(call.parameters, entry.ground_truth.parameters)
    return Score(entry.entry_id, setting, t_err == "ok", p_err == "ok", t_err if t_err != "ok" else p_err, p_err, call)


def score_without_gold(entry: Entry, setting: str, parsed: Parsed | None) -> Score:
    """Judge an output for an entry with no gold call (one built in the app): what can be known
    without it. The verdicts are None; the error is the format's, ``tool:hallucinated`` for a
    tool not among the candidates, else ``unscored``."""
    if parsed is None or parsed.call is None:
        error = "missing:no_response" if parsed is None else parsed.error
        return Score(entry.entry_id, setting, None, None, error, error)
    error = "unscored" if entry.candidate(parsed.call.tool_name) else "tool:hallucinated"
    return Score(entry.entry_id, setting, None, None, error, "unscored", parsed.call)


def history_bucket(length: int | None) -> str:
    """Bucket a history length for dashboards: ``0-19``, ``20-39``, … ``80+``, or ``unknown``."""
    if length is None:
        return "unknown"
    if length >= 80:
        return "80+"
    low = (length // 20) * 20
    return f"{low}-{low + 19}"


def aggregate(records: Iterable[dict], by: Iterable[str] = ("setting",)) -> list[dict]:
    """Accuracy per group: rows ``{**group, n, tool_acc, param_acc, both_acc}`` sorted by group.

    Records are dicts with ``tool_ok`` and ``params_ok`` plus the fields named in ``by``
    (``history_bucket`` is derived from ``history_length`` when asked for).

    Example:
        >>> aggregate([{"setting": "p", "tool_ok": True, "params_ok": False}])
        [{'setting': 'p', 'n': 1, 'tool_acc': 1.0, 'param_acc': 0.0, 'both_acc': 0.0}]
    """
    by = list(by)
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        if "history_bucket" in by and "history_bucket" not in r:
            r = {**r, "history_bucket": history_bucket(r.get("history_length"))}
        groups[tuple(r.get(k) for k in by)].append(r)
    rows = []
    for key in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
        rs = groups[key]
        n = len(rs)
        rows.append(
            {
                **dict(zip(by, key, strict=False)),
                "n": n,
                "tool_acc": sum(bool(r["tool_ok"]) for r in rs) / n,
                "param_acc": sum(bool(r["params_ok"]) for r in rs) / n,
                "both_acc": sum(bool(r["tool_ok"]) and bool(r["params_ok"]) for r in rs) / n,
            }
        )
    return rows


def error_counts(records: Iterable[dict], by: Iterable[str] = ("setting",)) -> list[dict]:
    """Rows ``{**group, error, count, share}``: how often each error code occurs per group."""
    by = list(by)
    counts: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in records:
        counts[tuple(r.get(k) for k in by)][r["error"]] += 1
    rows = []
    for key in sorted(counts, key=lambda k: tuple(str(x) for x in k)):
        total = sum(counts[key].values())
        for code, count in sorted(counts[key].items(), key=lambda kv: (-kv[1], kv[0])):
            rows.append({**dict(zip(by, key, strict=False)), "error": code, "count": count, "share": count / total})
    return rows


def format_table(rows: list[dict], columns: list[str] | None = None) -> str:
    """A plain-text table of rows; accuracy and share columns print as percentages."""
    if not rows:
        return "(no rows)"
    columns = columns or list(rows[0])
    cells = [[_cell(r.get(c), c.endswith(("_acc", "share"))) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=False)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=False)).rstrip() for row in cells]
    return "\n".join(lines)


def _cell(value: Any, percent: bool) -> str:
    if isinstance(value, float):
        return f"{100 * value:.1f}%" if percent else f"{value:g}"
    return "" if value is None else str(value)
