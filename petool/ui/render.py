"""HTML for calls, histories, candidates and entries. Pure functions, no gradio.

Every string that comes from a user, a model or a data file goes through ``esc`` before it is
put into HTML, so a tool name like ``<script>`` shows as text and never runs.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from petool.schema import SETTING_NAMES, Entry, Turn, split_tool_name

CSS = """
.pt-call {border:1px solid var(--border-color-primary); border-radius:8px; padding:8px 10px; margin-bottom:6px}
.pt-call h4 {margin:0 0 4px 0; font-size:0.95em}
.pt-tool {font-family:var(--font-mono); font-size:0.9em; word-break:break-all; padding:2px 4px; border-radius:4px}
.pt-table {border-collapse:collapse; width:100%; font-size:0.88em; margin-top:4px}
.pt-table th, .pt-table td {border:1px solid var(--border-color-primary); padding:2px 6px; text-align:left; vertical-align:top}
.pt-table td.v {font-family:var(--font-mono); word-break:break-all}
.pt-diff {background:rgba(250,204,21,0.30)}
.pt-wrong {background:rgba(239,68,68,0.22)}
.pt-right {background:rgba(34,197,94,0.22)}
.pt-mark {font-size:0.75em; color:var(--body-text-color-subdued); white-space:nowrap}
.pt-pending h4 {color:var(--body-text-color-subdued)}
.pt-badge {display:inline-block; padding:1px 8px; border-radius:10px; font-size:0.8em; margin-right:4px; border:1px solid var(--border-color-primary)}
.pt-ok {background:rgba(34,197,94,0.25)}
.pt-bad {background:rgba(239,68,68,0.25)}
.pt-muted {opacity:0.7; font-size:0.85em}
.pt-raw {font-family:var(--font-mono); font-size:0.8em; white-space:pre-wrap; max-height:8em; overflow:auto; background:var(--background-fill-secondary); padding:4px; border-radius:4px}
.pt-notice {padding:6px 10px; border-radius:6px; background:rgba(250,204,21,0.25)}
.pt-scroll {max-width:100%; overflow-x:auto}
.pt-call {min-width:0; overflow-wrap:anywhere}
/* Phones: the two result cards stack, and a table too wide for its card scrolls inside it
   (a floor on its width keeps columns from shrinking to a character per line). */
@media (max-width: 640px) {
  #c-cards {flex-direction:column; flex-wrap:nowrap}
  #c-cards > * {width:100%; min-width:0 !important; flex:1 1 auto}
  .pt-table {min-width:18em}
  .pt-table.pt-wide {min-width:42em}
  .pt-table td.v {word-break:normal; overflow-wrap:anywhere}
}
"""


def esc(value: Any) -> str:
    """Escape anything for HTML (non-strings go through JSON first)."""
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False)
    return html.escape(value, quote=True)


def md_text(value: Any) -> str:
    """Text for a gr.Markdown: HTML escaped and markdown's link/emphasis/code marks backslashed,
    so a query like ``<img onerror=...>`` or ``[x](javascript:...)`` shows literally."""
    text = esc(value).replace("&quot;", '"').replace("&#x27;", "'")
    return re.sub(r"([\\`*_\[\]#|~!])", r"\\\1", text)


def value_text(value: Any) -> str:
    """A parameter value as JSON text, so ``5`` and ``"5"`` look different."""
    return json.dumps(value, ensure_ascii=False)


def param_rows(call: dict | None, other: dict | None = None, gold: dict | None = None) -> list[dict]:
    """One row per parameter name in any of the calls: its values and whether they match.

    Example:
        >>> [r["differs"] for r in param_rows({"parameters": {"a": 1}}, {"parameters": {"a": "1"}})]
        [True]
    """
    mine = (call or {}).get("parameters") or {}
    theirs = (other or {}).get("parameters") or {} if other is not None else None
    golds = (gold or {}).get("parameters") or {} if gold is not None else None
    names = list(mine)
    for extra in (theirs or {}, golds or {}):
        names += [n for n in extra if n not in names]
    rows = []
    for n in names:
        value = value_text(mine[n]) if n in mine else None
        other_value = value_text(theirs[n]) if theirs is not None and n in theirs else None
        gold_value = value_text(golds[n]) if golds is not None and n in golds else None
        rows.append(
            {
                "name": n,
                "value": value,
                "gold": gold_value,
                "differs": theirs is not None and value != other_value,
                "wrong": golds is not None and value != gold_value,
            }
        )
    return rows


DIFF_MARK = ' <span class="pt-mark" title="differs from the other side">≠ other side</span>'
"""Marks an A/B difference where the gold's green/red already colours the cell."""


def call_html(
    call: dict | None,
    *,
    title: str = "",
    other: dict | None = None,
    gold: dict | None = None,
    raw: str = "",
    error: str = "",
    latency_s: float | None = None,
    note: str = "",
    compared: bool | None = None,
) -> str:
    """A call as tool name + parameter table. With a gold call, green/red says right/wrong and a
    difference from the other side is only marked "≠" (right must look right even where the
    sides differ); without one, yellow marks the difference. ``compared`` False: no other side yet."""
    compared = other is not None if compared is None else compared
    parts = [f'<div class="pt-call"><h4>{esc(title)}</h4>']
    if error:
        ok = error == "ok"
        parts.append(f'<span class="pt-badge {"pt-ok" if ok else "pt-bad"}">{esc(error)}</span>')
    if latency_s is not None:
        parts.append(f'<span class="pt-badge">{latency_s:.2f} s</span>')
    if note:
        parts.append(f'<span class="pt-muted">{esc(note)}</span>')
    if call is None:
        parts.append("<p><b>No tool call could be parsed.</b></p>")
    else:
        name = call.get("tool_name", "")
        differs = compared and name != (other or {}).get("tool_name")
        if gold is not None:
            cls = "pt-right" if name == gold.get("tool_name") else "pt-wrong"
        else:
            cls = "pt-diff" if differs else ""
        mark = DIFF_MARK if differs and gold is not None else ""
        parts.append(f'<div>tool: <span class="pt-tool {cls}">{esc(name)}</span>{mark}</div>')
        rows = param_rows(call, other if compared else None, gold)
        if rows:
            head = "<tr><th>parameter</th><th>value</th>" + ("<th>gold</th>" if gold is not None else "") + "</tr>"
            body = []
            for r in rows:
                if gold is not None:
                    cls = "pt-wrong" if r["wrong"] else "pt-right"
                else:
                    cls = "pt-diff" if r["differs"] else ""
                value = "<i>(missing)</i>" if r["value"] is None else esc(r["value"])
                if r["differs"] and gold is not None:
                    value += DIFF_MARK
                gold_cell = f'<td class="v">{esc(r["gold"]) if r["gold"] is not None else "<i>(none)</i>"}</td>' if gold is not None else ""
                body.append(f'<tr><td>{esc(r["name"])}</td><td class="v {cls}">{value}</td>{gold_cell}</tr>')
            parts.append(f'<div class="pt-scroll"><table class="pt-table">{head}{"".join(body)}</table></div>')
        else:
            parts.append('<div class="pt-muted">no parameters</div>')
    if raw:
        parts.append(f'<details><summary class="pt-muted">raw output</summary><div class="pt-raw">{esc(raw)}</div></details>')
    parts.append("</div>")
    return "".join(parts)


RATING_TEXT = {1: "liked (1)", 0: "disliked (0)"}
"""A history rating in words: meaning never rests on an emoji, which some fonts draw as a box."""


def history_html(turns: list[Turn], setting: str, preferred: list[str] | None = None) -> str:
    """The history of one setting as a numbered table (ratings shown in r)."""
    if setting == "none":
        return '<p class="pt-muted">No history in this setting (the ablation).</p>'
    if not turns:
        return '<p class="pt-muted">The history is empty.</p>'
    preferred = set(preferred or [])
    rows = []
    for i, t in enumerate(turns, 1):
        pref = "preferred" if prefers(t.call.tool_name, preferred) else ""
        rating = "" if t.rating is None else RATING_TEXT[t.rating]
        rows.append(
            f"<tr><td>{i}</td><td>{esc(t.instruction)}</td><td class='v'>{esc(t.call.tool_name)}</td>"
            f"<td class='v'>{esc(value_text(t.call.parameters))}</td><td>{rating}</td><td>{pref}</td></tr>"
        )
    return (
        f"<p><b>History ({esc(SETTING_NAMES.get(setting, setting))}, {len(turns)} turns)</b></p>"
        "<div class='pt-scroll'><table class='pt-table pt-wide'><tr><th>#</th><th>instruction</th><th>tool</th><th>parameters</th><th>rating</th><th>preferred tool</th></tr>"
        + "".join(rows)
        + "</table></div>"
    )


def prefers(tool_name: str, preferred: set[str]) -> bool:
    """Is the tool of a full API name among the user's preferred tools (``tool_comb`` holds tool names)?"""
    parts = split_tool_name(tool_name)
    return bool(parts) and (parts[1] in preferred or f"{parts[0]}.{parts[1]}" in preferred)


def gold_known(entry: Entry) -> bool:
    """User-built entries may have no gold call (an empty tool name)."""
    return bool(entry.ground_truth.tool_name)


def candidates_html(entry: Entry, picks: dict[str, str] | None = None) -> str:
    """Candidates with the ground truth (★) and its functional cluster (◆) marked; ``picks`` maps
    a tool name to who chose it (e.g. "A")."""
    picks = picks or {}
    cluster = set(entry.cluster) | ({entry.ground_truth.tool_name} if gold_known(entry) else set())
    preferred = set(entry.preferred_tools)
    rows = []
    for t in entry.candidates:
        marks = []
        if gold_known(entry) and t.name == entry.ground_truth.tool_name:
            marks.append("★ gold")
        elif t.name in cluster:
            marks.append("◆ cluster")
        if prefers(t.name, preferred):
            marks.append("preferred")
        pick = picks.get(t.name, "")
        cls = "pt-right" if "★ gold" in marks else ("pt-diff" if "◆ cluster" in marks else "")
        params = ", ".join(p.name + ("*" if p in t.required_parameters else "") for p in t.required_parameters + t.optional_parameters)
        rows.append(
            f"<tr><td class='{cls}'>{esc(' '.join(marks))}</td><td class='v'>{esc(t.name)}</td>"
            f"<td>{esc(t.description[:160])}</td><td class='v'>{esc(params)}</td><td>{esc(pick)}</td></tr>"
        )
    return (
        f"<p><b>Candidates ({len(entry.candidates)})</b> <span class='pt-muted'>★ ground truth · ◆ same function · "
        "preferred: a tool the user prefers · * required</span></p>"
        "<div class='pt-scroll'><table class='pt-table pt-wide'><tr><th>mark</th><th>tool</th><th>description</th><th>parameters</th><th>picked by</th></tr>"
        + "".join(rows)
        + "</table></div>"
    )


def history_length_text(full: int | None, embedded: int, setting: str) -> str:
    """Says which history length is which: the user's full history (the benchmark's
    ``history_length``) vs the window of it embedded in the prompt and shown below.

    Example:
        >>> history_length_text(89, 20, "p")
        'full history 89 turns; the prompt embeds 20 of them (shown below)'
    """
    if setting == "none":
        return f"full history {full if full is not None else '?'} turns; none embedded (the no-history ablation)"
    if full is None or full == embedded:
        return f"history {embedded} turns (all embedded in the prompt)"
    return f"full history {full} turns; the prompt embeds {embedded} of them (shown below)"


def entry_html(entry: Entry, setting: str, picks: dict[str, str] | None = None) -> str:
    """The whole entry: query, gold, history of ``setting``, candidates."""
    gold = (
        f"<div>gold call: <span class='pt-tool'>{esc(entry.ground_truth.tool_name)}</span> "
        f"<span class='pt-tool'>{esc(value_text(entry.ground_truth.parameters))}</span></div>"
        if gold_known(entry)
        else "<div class='pt-muted'>gold call: unknown (a user-built entry)</div>"
    )
    turns = entry.history(setting) if setting in entry.settings else []
    meta = f"entry {esc(entry.key)} · category {esc(entry.category or '?')} · {esc(history_length_text(entry.history_length, len(turns), setting))}"
    history = history_html(turns, setting, entry.preferred_tools)
    return f"<div class='pt-muted'>{meta}</div><p><b>Query:</b> {esc(entry.query)}</p>{gold}{history}{candidates_html(entry, picks)}"


def notice(text: str) -> str:
    return f"<div class='pt-notice'>{esc(text)}</div>"
