"""Phrasing: how an instruction states a parameter's value in words.

Pure functions the benchmark's wording is built from: a parameter's name as words, a short
clause stating its value ("sorted by price", "on page 2"), and clauses added to a sentence.
Used by the entry builder (``petool.bench``) and by the catalog variants whose narrowed twins
state the parameter they take (``petool.catalog_variants``).
"""

from __future__ import annotations

import json
import random
import re


def parameter_words(name: str) -> str:
    """A parameter's name as lower-case words, for instructions and descriptions.

    Example:
        >>> parameter_words("sortBy"), parameter_words("start_date"), parameter_words("img2")
        ('sort by', 'start date', 'img 2')
    """
    return " ".join(w.lower() for w in re.findall(r"[A-Za-z][a-z]*|[0-9]+", name)) or name


_SORT, _PAGE = {"sort", "order", "sortby", "orderby"}, {"page", "pageno", "pagenumber"}
_LIMIT = {"limit", "size", "count", "max", "results", "pagesize", "perpage", "num", "top"}


def optional_clause(name: str, value, rng: random.Random) -> str:
    """A short clause stating one parameter's value, worded after the parameter's name.

    Example:
        >>> optional_clause("sortBy", "price_asc", random.Random(0))
        'ordered by price_asc'
    """
    label = parameter_words(name)
    key = label.replace(" ", "")
    shown = _as_text(value)
    if isinstance(value, bool):
        return rng.choice([f"with {label} {'on' if value else 'off'}", f"{label} set to {'true' if value else 'false'}"])
    if key in _SORT or label.startswith("sort"):
        return rng.choice([f"sorted by {shown}", f"ordered by {shown}"])
    if key in _PAGE:
        return rng.choice([f"on page {shown}", f"page {shown}"])
    if key in _LIMIT or label.endswith(("limit", "size", "count")):
        return rng.choice([f"with {label} {shown}", f"limited to {shown} results", f"{label} {shown}"])
    if key in {"lang", "language", "locale", "hl"}:
        return rng.choice([f"in language {shown}", f"with {label} {shown}"])
    if key in {"country", "region", "market", "gl"}:
        return rng.choice([f"for {label} {shown}", f"in {label} {shown}"])
    if key in {"currency", "cur"}:
        return rng.choice([f"in {shown} currency", f"with currency {shown}"])
    return rng.choice([f"with {label} {shown}", f"{label} {shown}", f"with {label} set to {shown}", f"using {label} {shown}"])


def add_clauses(text: str, clauses: list[str]) -> str:
    """Append clauses before the sentence's closing punctuation.

    Example:
        >>> add_clauses("List hotels in Rome.", ["sorted by price", "on page 2"])
        'List hotels in Rome, sorted by price and on page 2.'
    """
    if not clauses:
        return text
    body = text.rstrip()
    end = body[-1] if body and body[-1] in ".?!" else ""
    body = body[:-1] if end else body
    tail = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]
    return f"{body}, {tail}{end or '.'}"


def _as_text(v) -> str:
    if isinstance(v, list):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}={json.dumps(x)}" for k, x in v.items())
    return str(v)
