"""What one label may hold: its verdicts, settings and size limits, and the checks the store
applies before appending a label (pure: no database here, so the app can check a field itself)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from petool.schema import ALL_SETTINGS

VERDICTS = ("A", "B", "tie", "both_bad")
"""A better, B better, tie, both bad."""

LABEL_SETTINGS = ALL_SETTINGS
MAX_ANNOTATOR_CHARS = 100
MAX_COMMENT_CHARS = 5_000
MAX_TAGS = 20
MAX_TAG_CHARS = 100
"""Limits on what one label may hold: a label is a judgement, not a file store."""

LABEL_SUMMARY_COLUMNS = (
    "id",
    "annotator",
    "created",
    "entry_key",
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
    "gold_call",
)
"""What the pairs and the dashboards read of a label: everything but its stored entry, tags and comment."""


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


def check_verdict(verdict: Any) -> str:
    """The verdict, when it is one of ``VERDICTS``; ValueError naming the valid ones otherwise."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}; valid: {', '.join(VERDICTS)}")
    return verdict


def check_label_fields(
    *, verdict: Any, setting: Any, tags: Iterable[str] | None, comment: Any, texts: dict[str, Any]
) -> tuple[list[str], str]:
    """Check a label's verdict, setting, tags, comment and free ``texts`` (name -> value, each
    None or text), in that order; returns the tags as a list and the comment ("" for none).

    Raises:
        ValueError: naming the first field out of bounds and what it may hold.
    """
    check_verdict(verdict)
    if setting not in LABEL_SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; valid: {', '.join(LABEL_SETTINGS)}")
    tags = list(tags or [])
    if len(tags) > MAX_TAGS or not all(isinstance(t, str) and 0 < len(t) <= MAX_TAG_CHARS for t in tags):
        raise ValueError(f"tags must be at most {MAX_TAGS} non-empty strings of at most {MAX_TAG_CHARS} characters")
    comment = comment or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT_CHARS:
        raise ValueError(f"the comment must be text of at most {MAX_COMMENT_CHARS} characters")
    for name, value in texts.items():
        if value is not None and not isinstance(value, str):
            raise ValueError(f"a label's {name} must be text, got {type(value).__name__}")
    return tags, comment
