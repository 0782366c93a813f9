"""The Build tab's entry, without gradio: load, create, edit histories, query and candidates, save.

The current entry travels between tabs as a plain dict (``schema.entry_to_dict``) in a gr.State;
the handlers below take and return such dicts, so they run without gradio in tests.
"""

import functools
import json
import random
import re
import time
from typing import Any

from petool.prompts import build_messages
from petool.schema import SETTINGS, Entry, Tool, ToolCall, Turn, entry_from_dict, entry_to_dict
from petool.ui.common import MAX_CANDIDATES, MAX_JSON_CHARS, MAX_TURNS, check_text
from petool.ui.render import gold_known, md_text
from petool.ui.services import DEV, SAVED, Services, load_catalog
from petool.users import PROFILES, make_user, preferred_tools

TURN_HEADERS = ["#", "instruction", "tool", "parameters", "rating"]
CANDIDATE_HEADERS = ["#", "tool", "description", "required", "optional"]
N_CANDIDATES = 10


# ---------------------------------------------------------------- plain handlers


def blank_entry(user: str = "", preferred: list[str] | None = None) -> dict:
    """A new entry with empty p/r/c histories, no query, no candidates, no gold call."""
    e = Entry(
        entry_id=f"user-{_slug(user) or 'anon'}-{int(time.time() * 1000) % 10**10}",
        query="",
        candidates=[],
        ground_truth=ToolCall("", {}),
        histories={s: [] for s in SETTINGS},
        preferred_tools=list(preferred or []),
        extra={"user": user} if user else {},
    )
    return entry_to_dict(e)


def entry_choices(services: Services, source: str) -> list[tuple[str, str]]:
    """(label, key) for the entry dropdown of a source."""
    if source == SAVED:
        return [
            (f"{r['key']} — {(r['query'] or '')[:70]}" + (f" ({r['user']})" if r.get("user") else ""), r["key"])
            for r in services.store.list_entries(SAVED)
        ]
    return [(f"{e.key} — {e.query[:70]}", e.key) for e in services.pool(source)]


def load_entry(services: Services, source: str, key: str) -> tuple[dict, str]:
    """The chosen entry as a dict, and a status line."""
    entry = services.find(source, key) if key else None
    if entry is None:
        raise ValueError(f"no entry {key!r} in {source!r}")
    d = entry_to_dict(entry)
    if source == DEV:
        d["extra"]["split"] = "test"
    return d, f"Loaded entry {md_text(entry.key)} from {md_text(source)}."


def profiles() -> dict[str, str]:
    """Preference profiles a new user can have: name -> one line on what it weighs."""
    out = {}
    for name, weights in PROFILES.items():
        if not weights:
            out[name] = "random weights over every attribute, drawn per user"
        else:
            total = sum(weights.values())
            out[name] = "weighs " + ", ".join(f"{k} {w / total:.0%}" for k, w in sorted(weights.items(), key=lambda kv: -kv[1]))
    return out


def create_user(services: Services, name: str, profile: str, seed: int | None = None, persist: bool = True) -> tuple[dict, str]:
    """Save a user with a preference profile and start a blank entry for them.

    With the catalog, the profile decides which tool wins each functional cluster; those tools
    are the user's preferred set, shown in the candidates and history tables.
    """
    name = check_text(name, "the user name", 100).strip()
    if not name:
        raise ValueError("Type a user name first.")
    explanation = profiles().get(profile, "")
    preferred: list[str] = []
    weights = None
    cat = load_catalog()
    if cat is not None and profile in profiles() and profile != "manual":
        user = make_user(cat, random.Random(seed if seed is not None else name), profile, user_id=_slug(name))
        weights = user.weights
        preferred = sorted({cat.tool_by_key[k].name for k in preferred_tools(cat, user)})
    if not persist:
        return blank_entry(
            name, preferred
        ), f"User {md_text(repr(name))} (not saved: sign in to save): {profile} ({explanation}); prefers {len(preferred)} tools."
    services.store.save_user(name, {"profile": profile, "weights": weights, "preferred_tools": preferred})
    return blank_entry(name, preferred), f"User {md_text(repr(name))} saved: {profile} ({explanation}); prefers {len(preferred)} tools."


def validate_params(tool: Tool, params: Any) -> list[str]:
    """Problems of ``params`` against ``tool``'s schema (empty when valid).

    Required names must be present, no unknown names, and values must fit the ToolBench type
    loosely (NUMBER: a number, BOOLEAN: a boolean, ARRAY: a list, OBJECT: an object).

    Example:
        >>> validate_params(Tool("<A>.<B>.<c>", required_parameters=[]), {"x": 1})
        ["unknown parameter 'x'; valid: (none)"]
    """
    if not isinstance(params, dict):
        return ["parameters must be a JSON object"]
    problems = []
    known = {p.name: p for p in tool.required_parameters + tool.optional_parameters}
    for p in tool.required_parameters:
        if p.name not in params:
            problems.append(f"missing required parameter {p.name!r}")
    for name, value in params.items():
        if name not in known:
            problems.append(f"unknown parameter {name!r}; valid: {', '.join(known) or '(none)'}")
            continue
        kind = (known[name].type or "").upper()
        if kind == "NUMBER" and (isinstance(value, bool) or not isinstance(value, (int, float))):
            problems.append(f"{name!r} must be a number, got {json.dumps(value, ensure_ascii=False)}")
        elif kind == "BOOLEAN" and not isinstance(value, bool):
            problems.append(f"{name!r} must be true or false, got {json.dumps(value, ensure_ascii=False)}")
        elif kind == "ARRAY" and not isinstance(value, list):
            problems.append(f"{name!r} must be a JSON list")
        elif kind == "OBJECT" and not isinstance(value, dict):
            problems.append(f"{name!r} must be a JSON object")
    return problems


def parse_params(text: str) -> dict:
    """JSON object text -> dict, with a readable error."""
    text = check_text(text, "the parameters", MAX_JSON_CHARS).strip() or "{}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"parameters are not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ValueError('parameters must be a JSON object like {"city": "Paris"}')
    return value


def checked_call(catalog: dict[str, Tool], tool_name: str, params_text: str, candidates: list[Tool] | None = None) -> ToolCall:
    """A ToolCall validated against its tool's schema; ValueError lists every problem."""
    if not tool_name:
        raise ValueError("Pick a tool first.")
    tool = next((t for t in candidates or [] if t.name == tool_name), None) or catalog.get(tool_name)
    if tool is None:
        raise ValueError(f"unknown tool {tool_name!r}: pick one from the list")
    params = parse_params(params_text)
    problems = validate_params(tool, params)
    if problems:
        raise ValueError("; ".join(problems))
    return ToolCall(tool_name, params)


def example_params(tool: Tool | None) -> str:
    """A starting parameter object for a tool: its required parameters with their defaults."""
    if tool is None:
        return "{}"
    return json.dumps({p.name: p.default for p in tool.required_parameters}, ensure_ascii=False)


def _turns(d: dict, setting: str) -> list[dict]:
    if setting not in SETTINGS:
        raise ValueError(f"histories are edited in p, r or c, not {setting!r}")
    return d.setdefault("histories", {}).setdefault(setting, [])


def _index(turns: list, index: Any) -> int:
    try:
        i = int(index) - 1
    except (TypeError, ValueError):
        raise ValueError("Select a turn first (click its row).") from None
    if not 0 <= i < len(turns):
        raise ValueError(f"there is no turn #{i + 1}; the history has {len(turns)}")
    return i


def add_turn(services: Services, d: dict, setting: str, tool_name: str, instruction: str, params_text: str, rating: Any = None) -> dict:
    """Append a validated turn to the history of ``setting``."""
    if not check_text(instruction, "the instruction").strip():
        raise ValueError("Type the instruction the user gave for this call.")
    call = checked_call(services.catalog(), tool_name, params_text)
    turn = Turn(instruction.strip(), call, _rating(rating, setting))
    d = _copy(d)
    if len(_turns(d, setting)) >= MAX_TURNS:
        raise ValueError(f"the {setting} history already has {MAX_TURNS} turns, the most one entry may hold")
    _turns(d, setting).append(turn.to_json())
    return _touch(d)


def update_turn(
    services: Services, d: dict, setting: str, index: Any, tool_name: str, instruction: str, params_text: str, rating: Any = None
) -> dict:
    d = _copy(d)
    turns = _turns(d, setting)
    i = _index(turns, index)
    check_text(instruction, "the instruction")
    call = checked_call(services.catalog(), tool_name, params_text)
    turns[i] = Turn((instruction or "").strip() or turns[i]["instruction"], call, _rating(rating, setting)).to_json()
    return _touch(d)


def delete_turn(d: dict, setting: str, index: Any) -> dict:
    d = _copy(d)
    turns = _turns(d, setting)
    turns.pop(_index(turns, index))
    return _touch(d)


def move_turn(d: dict, setting: str, index: Any, delta: int) -> tuple[dict, int]:
    """Move a turn up (-1) or down (+1); returns the entry and the turn's new 1-based position."""
    d = _copy(d)
    turns = _turns(d, setting)
    i = _index(turns, index)
    j = min(max(i + delta, 0), len(turns) - 1)
    turns.insert(j, turns.pop(i))
    return _touch(d), j + 1


def rate_turn(d: dict, setting: str, index: Any, rating: Any) -> dict:
    d = _copy(d)
    turns = _turns(d, setting)
    i = _index(turns, index)
    r = _rating(rating, "r")
    if r is None:
        turns[i].pop("rating", None)
    else:
        turns[i]["rating"] = r
    return _touch(d)


def derive_settings(d: dict, setting: str) -> tuple[dict, str]:
    """Rebuild the other two histories from this one, by the benchmark's rules.

    p = the turns rated 1 (or unrated); r = all turns with ratings (unrated count as 1);
    c = r's turns without ratings, the rating-0 ones first (later calls are the preferred ones).
    """
    d = _copy(d)
    turns = [dict(t) for t in _turns(d, setting)]
    rated = [{**t, "rating": t.get("rating", 1) if t.get("rating") is not None else 1} for t in turns]
    d["histories"] = {
        "p": [_unrated(t) for t in rated if t["rating"] == 1],
        "r": rated,
        "c": [_unrated(t) for t in rated if t["rating"] == 0] + [_unrated(t) for t in rated if t["rating"] == 1],
    }
    n0 = sum(t["rating"] == 0 for t in rated)
    return _touch(d), f"Derived p ({len(rated) - n0} turns), r ({len(rated)}) and c ({len(rated)}) from {setting}."


def set_query(d: dict, query: str) -> dict:
    d = _copy(d)
    d["query"] = check_text(query, "the query").strip()
    return d


def suggest_candidates(services: Services, d: dict, query: str, n: int = N_CANDIDATES, seed: int = 0) -> tuple[dict, str]:
    """Candidates for the query: the best-matching API's functional cluster plus distractors.

    The match is overlap between the query's content words and each API's name and description
    (name words count double). The "same function" group is what the catalog knows: the matched
    API's cluster, or nothing when it knows none. A tool is called preferred only from what the
    page shows, the entry's history, never from a hidden profile.
    """
    query = check_text(query, "the query").strip()
    if not query:
        raise ValueError("Type a query first.")
    catalog = services.catalog()
    if not catalog:
        raise ValueError("No tool catalog is available to draw candidates from.")
    words = _words(query)
    if not words:
        raise ValueError("The query has no content words to match tools by: describe what the user wants.")

    def overlap(t: Tool) -> int:
        return 2 * len(words & _words(t.name)) + len(words & _words(t.description))

    scored = sorted(catalog.values(), key=lambda t: (-overlap(t), t.name))
    best = scored[0]
    if overlap(best) == 0:
        raise ValueError("No catalog tool shares a word with the query: add candidates by hand (below).")
    clusters = services.clusters()
    known = [name for name in clusters.get(best.name, []) if name in catalog]
    cluster = list(dict.fromkeys([best.name, *known]))[: max(2, n // 2)] if len(known) > 1 else []
    top = cluster or [best.name]
    rng = random.Random(f"{seed}:{query}")
    others = [t.name for t in scored[1:] if t.name not in top and not set(clusters.get(t.name, [])) & set(top)]
    pool = others[: 4 * n]
    rng.shuffle(pool)
    names = top + pool[: max(0, n - len(top))]
    rng.shuffle(names)
    d = set_query(d, query)
    d["candidates"] = [catalog[name].to_json() for name in names]
    d["cluster"] = cluster
    used = {t["tool_call"]["tool_name"] for turns in d.get("histories", {}).values() for t in turns if t.get("rating", 1) == 1}
    liked = [name for name in top if name in used]
    matched = f"Best match: {md_text(best.name)} (shared words: {md_text(', '.join(sorted(words & _words(best.name + ' ' + best.description))))})."
    group = (
        f' The catalog puts {len(cluster)} candidates in its functional cluster (marked "same function").'
        if cluster
        else " The catalog knows no other tool with its function, so no group is marked."
    )
    note = f" The history used {md_text(liked[0])}." if liked else ""
    return _touch(d), f"{len(names)} candidates. {matched}{group}{note}"


def add_candidate(services: Services, d: dict, tool_name: str) -> dict:
    tool = services.catalog().get(tool_name)
    if tool is None:
        raise ValueError(f"unknown tool {tool_name!r}")
    d = _copy(d)
    if any(c["tool_name"] == tool_name for c in d.get("candidates", [])):
        raise ValueError(f"{tool_name} is already a candidate")
    if len(d.get("candidates") or []) >= MAX_CANDIDATES:
        raise ValueError(f"an entry may have at most {MAX_CANDIDATES} candidates")
    d.setdefault("candidates", []).append(tool.to_json())
    return _touch(d)


def remove_candidate(d: dict, tool_name: str) -> dict:
    d = _copy(d)
    before = len(d.get("candidates", []))
    d["candidates"] = [c for c in d.get("candidates", []) if c["tool_name"] != tool_name]
    if len(d["candidates"]) == before:
        raise ValueError(f"{tool_name!r} is not a candidate")
    return _touch(d)


def set_gold(services: Services, d: dict, tool_name: str, params_text: str) -> dict:
    """Set the expected call (optional for user-built entries); it must be a candidate."""
    entry = entry_from_dict(d)
    if entry.candidate(tool_name) is None:
        raise ValueError("The expected call must use one of the candidates.")
    call = checked_call(services.catalog(), tool_name, params_text, entry.candidates)
    d = _copy(d)
    d["ground_truth"] = call.to_json()
    return _touch(d)


def preview_prompt(d: dict, setting: str, style: str = "paper") -> tuple[str, str]:
    """The exact (system, user) messages the models receive for this entry and setting."""
    entry = entry_from_dict(d)
    if setting != "none" and setting not in entry.histories:
        raise ValueError(f"this entry has no {setting} history")
    messages = build_messages(entry, setting, style)
    return messages[0]["content"], messages[1]["content"]


def save_entry(services: Services, d: dict, user: str = "") -> str:
    entry = entry_from_dict(d)
    if not entry.query:
        raise ValueError("Type a query before saving.")
    user_id = services.store.save_user(user) if (user or "").strip() else None
    services.store.save_entry(entry, source=SAVED, user_id=user_id)
    return f"Saved entry {md_text(entry.key)} ({sum(len(t) for t in entry.histories.values())} turns, {len(entry.candidates)} candidates)."


def turn_rows(d: dict, setting: str) -> list[list]:
    if setting == "none":
        return []
    return [
        [
            i,
            t["instruction"],
            t["tool_call"]["tool_name"],
            json.dumps(t["tool_call"].get("parameters", {}), ensure_ascii=False),
            "" if t.get("rating") is None else t["rating"],
        ]
        for i, t in enumerate((d.get("histories") or {}).get(setting, []), 1)
    ]


def candidate_rows(d: dict) -> list[list]:
    rows = []
    for i, c in enumerate(d.get("candidates") or [], 1):
        mark = "★ " if c["tool_name"] == (d.get("ground_truth") or {}).get("tool_name") else ""
        rows.append(
            [
                i,
                mark + c["tool_name"],
                (c.get("tool_description") or "")[:120],
                ", ".join(p["name"] for p in c.get("required_parameters", [])),
                ", ".join(p["name"] for p in c.get("optional_parameters", [])),
            ]
        )
    return rows


def summary(d: dict) -> str:
    """A one-paragraph markdown summary of the current entry."""
    if not d:
        return "*No entry yet: load one or create a user.*"
    e = entry_from_dict(d)
    turns = ", ".join(f"{s}: {len(e.histories.get(s, []))}" for s in SETTINGS)
    gold = md_text(e.ground_truth.tool_name) if gold_known(e) else "unknown"
    split = " · **test data: labels on it never become training pairs**" if e.extra.get("split") == "test" else ""
    return f"**Entry** {md_text(e.key)} · turns ({turns}) · {len(e.candidates)} candidates · gold {gold}{split}  \n**Query:** {md_text(e.query) or '—'}"


def _copy(d: dict) -> dict:
    return json.loads(json.dumps(d or blank_entry()))


def _touch(d: dict) -> dict:
    d["history_length"] = max((len(t) for t in (d.get("histories") or {}).values()), default=0)
    return d


def _unrated(t: dict) -> dict:
    return {k: v for k, v in t.items() if k != "rating"}


def _rating(value: Any, setting: str) -> int | None:
    if value in (None, "", "none", "—"):
        return 1 if setting == "r" else None
    try:
        r = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"a rating is 1 (satisfied) or 0 (not), got {value!r}") from None
    if r not in (0, 1):
        raise ValueError(f"a rating is 1 (satisfied) or 0 (not), got {value!r}")
    return r if setting == "r" else None


STOPWORDS = frozenset(
    """the and for with what whats what's which who how when where why are was were can could
would should will this that these those from into about your you our their there here have has had get
give show tell find please want need some any all api apis tool tools""".split()
)
"""Words too common to say which tool a query needs (two-letter words are dropped anyway)."""


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    # cached: "Get candidates" reads every catalog tool's name and description on each click
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in STOPWORDS)


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]+", "-", (text or "").strip())[:32].strip("-")
