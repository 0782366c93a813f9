"""Whether two evaluation runs made the same predictions: their predictions.jsonl compared line
by line, byte for byte, apart from the fields that measure time (``latency_s`` unless told).

A refactoring that must not change behaviour is checked this way: run every rule baseline (or a
model) before and after it, then

    .venv/bin/python scripts/same_predictions.py runs/before-evidence runs/after-evidence

Each argument is a run folder (``petool eval --out``) or a predictions.jsonl file. Exit status 0
when the predictions are the same, 1 when they differ (the first differing lines are printed),
2 when a file is missing or cannot be read as predictions.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

TIMING_FIELDS = ("latency_s",)


def predictions_file(path: str | Path) -> Path:
    """``path`` itself, or the predictions.jsonl inside a run folder."""
    path = Path(path)
    return path / "predictions.jsonl" if path.is_dir() else path


def masked(line: str, fields: tuple[str, ...] = TIMING_FIELDS) -> str:
    r"""The record's line with the value of each top-level field in ``fields`` replaced by ``_``.

    Only a record's own field is masked, not the same words inside a string value (a raw model
    output may quote JSON). A line where that cannot be told (the field's name also used as a
    key inside a nested object, or a value that is no number) raises ValueError, never a guess.

    Example:
        >>> masked('{"raw": "{\\"latency_s\\": 1}", "latency_s": 0.0197, "tool_ok": true}')
        '{"raw": "{\\"latency_s\\": 1}", "latency_s": _, "tool_ok": true}'
    """
    record = json.loads(line)
    for field in fields:
        # a key json.dumps wrote opens the line or follows ", "; inside a string its quotes are escaped
        pattern = rf'(?:(?<=^{{)|(?<=, ))"{re.escape(field)}": (?:null|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)'
        line, n = re.subn(pattern, f'"{field}": _', line)
        if n != (field in record):
            raise ValueError(f"cannot mask {field!r}: {n} places look like it, the record has {int(field in record)}: {line[:200]}")
    return line


def differences(before: Path, after: Path, fields: tuple[str, ...] = TIMING_FIELDS, shown: int = 5) -> list[str]:
    """What differs between two predictions files, apart from ``fields``: at most ``shown`` lines
    by number, and a line-count difference; an empty list when they are the same."""
    old = before.read_text(encoding="utf-8").splitlines()
    new = after.read_text(encoding="utf-8").splitlines()
    out = []
    for i, (a, b) in enumerate(zip(old, new, strict=False), 1):
        if masked(a, fields) != masked(b, fields):
            if len(out) < shown:
                out.append(f"line {i}:\n  - {a}\n  + {b}")
            else:
                out.append(f"... and more from line {i}")
                break
    if len(old) != len(new):
        out.append(f"{before} has {len(old)} lines, {after} {len(new)}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="run folder or predictions.jsonl")
    parser.add_argument("after", help="run folder or predictions.jsonl")
    parser.add_argument(
        "--ignore",
        action="append",
        metavar="FIELD",
        help=f"a top-level field to leave out of the comparison (repeatable; default: {', '.join(TIMING_FIELDS)})",
    )
    args = parser.parse_args(argv)
    before, after = predictions_file(args.before), predictions_file(args.after)
    for path in (before, after):
        if not path.is_file():
            print(f"no predictions file at {path}", file=sys.stderr)
            return 2
    fields = tuple(args.ignore) if args.ignore else TIMING_FIELDS
    try:
        found = differences(before, after, fields)
    except ValueError as exc:
        print(f"cannot compare {before} and {after}: {exc}", file=sys.stderr)
        return 2
    if found:
        print(f"different: {before} and {after}", *found, sep="\n")
        return 1
    n = len(before.read_text(encoding="utf-8").splitlines())
    print(f"same: {n} predictions ({before} and {after}, ignoring {', '.join(fields)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
