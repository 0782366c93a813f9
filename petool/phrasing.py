"""How instructions are worded: parameter values drawn for an API, templates filled, optional
values stated in clauses, tool names masked, and an optional rewrite by an OpenAI-compatible
chat endpoint (``Paraphraser``) that never loses a stated value.
The parameter-wording helpers (``parameter_words``, ``optional_clause``, ``add_clauses``) are
also used by the catalog variants whose narrowed twins state the parameter they take
(``petool.catalog_variants``).
"""

from __future__ import annotations

import json
import random
import re
import urllib.request

from petool.catalog import API, Catalog, render_template

MASK = "..."
_SLOTS = re.compile(r"\{(?!tool\})\w+")


def sample_value(api: API, param_name: str, catalog: Catalog, rng: random.Random):
    """A plausible value for one parameter, drawn from its slot's pool or by its type."""
    param = next(p for p in api.params if p.name == param_name)
    if param_name in api.enums:
        return rng.choice(api.enums[param_name])
    slot = catalog.slots.get(api.slots.get(param_name, param_name)) or {}
    kind = (slot.get("type") or param.type or "STRING").upper()
    pool, span = slot.get("values"), slot.get("range")
    if kind.startswith("NUMBER") or kind.startswith("INTEGER"):
        lo, hi = span or (1, 100)
        return rng.randint(int(lo), int(hi))
    if kind.startswith("DATE"):
        lo, hi = span or (2023, 2025)
        return f"{rng.randint(int(lo), int(hi))}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if kind.startswith("BOOLEAN"):
        return rng.random() < 0.5
    if kind.startswith("ARRAY"):
        return rng.sample(pool, min(2, len(pool))) if pool else [param.default or "item"]
    if pool:
        return rng.choice(pool)
    return param.default if param.default not in ("", None) else f"{param_name}_{rng.randint(1, 99)}"


def mask_tool(text: str, tool_name: str) -> str:
    """Replace the provider's name in an instruction by "...", as the authors mask queries."""
    name = tool_name.strip()
    return text.replace(name, MASK) if name else text


def phrase(
    api: API, catalog: Catalog, rng: random.Random, masked: bool, p_example: float, p_minimal: float = 0.0, p_optional: float = 0.0
) -> tuple[str, dict, int | None]:
    """An instruction for ``api`` and the parameters it states.

    With probability ``p_minimal`` the template is drawn among those mentioning the fewest
    slots (users often state only what is required; the real data has many ``{}`` calls).
    Otherwise each optional parameter the text leaves out is stated in an added clause with
    probability ``p_optional`` ("..., sorted by price and on page 2."): real instructions
    state optional values ("sorted by recent, with 20 items per response") and their calls
    carry them, so a model must learn to copy every stated value.

    Returns (text, parameters, template index or None when the API's example was used).
    """
    minimal = False
    if api.examples and (not api.templates or rng.random() < p_example):
        ex = api.examples[0] if len(api.examples) == 1 else rng.choice(api.examples)
        text = mask_tool(ex["Scenario"], api.tool) if masked else ex["Scenario"]
        params, t_index = dict(ex["Parameters"]), None
    else:
        t_index = rng.randrange(len(api.templates))
        if p_minimal and rng.random() < p_minimal:
            counts = [len(_SLOTS.findall(t)) for t in api.templates]
            t_index = rng.choice([i for i, n in enumerate(counts) if n == min(counts)])
            minimal = True
        text, params = fill_template(api, t_index, catalog, rng, MASK if masked else api.tool.strip())
    if p_optional and not minimal:
        stated = [p for p in api.optional if p.name not in params and rng.random() < p_optional]
        clauses = []
        for p in stated:
            params[p.name] = sample_value(api, p.name, catalog, rng)
            clauses.append(optional_clause(p.name, params[p.name], rng))
        text = add_clauses(text, clauses)
    return text, params, t_index


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


def fill_template(
    api: API, t_index: int, catalog: Catalog, rng: random.Random, tool_text: str, values: dict | None = None
) -> tuple[str, dict]:
    """Render template ``t_index`` of ``api``; ``values`` (slot -> value) reuses given values."""
    by_slot = {api.slots.get(p.name, p.name): p.name for p in api.params}
    values = dict(values or {})
    for slot, pname in by_slot.items():
        if slot not in values:
            values[slot] = sample_value(api, pname, catalog, rng)
    text, used = render_template(api.templates[t_index], values, tool_text)
    return text, {by_slot[s]: v for s, v in used.items() if s in by_slot}


class Paraphraser:
    """Rewrites queries through any OpenAI-compatible chat endpoint; keeps the original when
    the endpoint fails or the rewrite drops a parameter value (so the gold call stays true)."""

    def __init__(self, url: str, key: str = "", model: str = "gpt-4o-mini", timeout: float = 30.0):
        self.url = url.rstrip("/") + "/chat/completions"
        self.key, self.model, self.timeout = key, model, timeout
        self.calls = self.kept = self.failed = 0

    def __call__(self, text: str, params: dict) -> str:
        self.calls += 1
        body = {
            "model": self.model,
            "temperature": 0.7,
            "messages": [
                {
                    "role": "system",
                    "content": "Rewrite the user's request in different words. Keep every name, number, code and '...' exactly as written. Answer with the rewritten request only.",
                },
                {"role": "user", "content": text},
            ],
        }
        request = urllib.request.Request(
            self.url, json.dumps(body).encode(), {"Content-Type": "application/json", "Authorization": f"Bearer {self.key}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                out = json.loads(resp.read().decode())["choices"][0]["message"]["content"].strip()
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            self.failed += 1
            return text
        needed = [_as_text(v) for v in params.values() if not isinstance(v, bool)]
        if not out or any(n not in out for n in needed if n in text) or (MASK in text and MASK not in out):
            self.kept += 1
            return text
        return out


def _as_text(v) -> str:
    if isinstance(v, list):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}={json.dumps(x)}" for k, x in v.items())
    return str(v)
