"""Distribution report for benchmark entries: generated data next to the real dev entries.

Measures what decides whether generated data looks like PEToolBench: history length,
non-preferred (rating-0) turns per entry, cluster size, candidates per entry, parameter types,
empty-parameter share, embedded history turns and prompt length in tokens per setting.

Token counts use the default model's tokenizer when ``token_counter("model")`` can load it
(petool.models' resolution order, no download); otherwise, and by default, a documented estimate
of one token per 3.5 characters (SmolLM2's tokenizer gives ~3.4–3.6 characters per token on
PEToolBench prompts, which are English and JSON).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from petool.models import resolve_model
from petool.prompts import render_system_prompt
from petool.schema import ALL_SETTINGS, Entry
from petool.scoring import format_table as plain_table

CHARS_PER_TOKEN = 3.5

NUMERIC = {
    "history_length": "history length (full)",
    "window_turns": "history turns embedded (p)",
    "non_preferred_turns": "non-preferred turns (r, rating 0)",
    "cluster_size": "functional cluster size",
    "n_candidates": "candidates per entry",
    "gt_params": "ground-truth parameters",
}


def estimate_tokens(text: str) -> int:
    """Token estimate without a tokenizer: characters / 3.5, rounded up.

    Example:
        >>> estimate_tokens("1234567")
        2
    """
    return -(-len(text) * 2 // 7)


def token_counter(kind: str = "estimate") -> tuple[Callable[[str], int], str]:
    """A text -> token count function and its label.

    ``kind`` is ``estimate`` (chars/3.5), ``model`` (the default model's tokenizer, raising
    if it cannot load) or ``auto`` (the tokenizer when it loads, else the estimate).
    """
    if kind not in ("estimate", "model", "auto"):
        raise ValueError(f"token counter {kind!r}: valid are estimate, model, auto")
    if kind == "estimate":
        return estimate_tokens, f"estimate (chars/{CHARS_PER_TOKEN})"
    try:
        from transformers import AutoTokenizer

        source = resolve_model("default")
        if source.kind == "gguf-cache":
            tok = AutoTokenizer.from_pretrained(source.cache_dir)
        elif source.kind == "gguf":
            tok = AutoTokenizer.from_pretrained(source.location, gguf_file=source.gguf_file)
        elif source.kind == "path":
            tok = AutoTokenizer.from_pretrained(source.location)
        else:
            raise OSError(f"{source.describe()} would need the network")
    except Exception as exc:  # noqa: BLE001 - any failure means "no tokenizer here"
        if kind == "model":
            raise RuntimeError(f"cannot load the default model's tokenizer: {exc}") from None
        return estimate_tokens, f"estimate (chars/{CHARS_PER_TOKEN}; tokenizer unavailable)"
    return (lambda text: len(tok(text, add_special_tokens=False)["input_ids"])), f"{source.name} tokenizer"


def entry_measures(entry: Entry, count_tokens: Callable[[str], int] | None = None) -> dict:
    """Per-entry numbers the report aggregates (prompt tokens only when ``count_tokens`` given)."""
    r = entry.histories.get("r")
    m = {
        "history_length": entry.history_length,
        "window_turns": len(entry.histories["p"]) if "p" in entry.histories else None,
        "non_preferred_turns": sum(1 for t in r if t.rating == 0) if r is not None else None,
        "cluster_size": len(entry.cluster) or len(entry.cluster_candidates()),
        "n_candidates": len(entry.candidates),
        "gt_params": len(entry.ground_truth.parameters),
        "empty_params": not entry.ground_truth.parameters,
        "param_types": Counter(p.type for t in entry.candidates for p in t.required_parameters + t.optional_parameters),
    }
    if count_tokens is not None:
        for s in entry.settings:
            m[f"prompt_tokens_{s}"] = count_tokens(render_system_prompt(entry, s) + "\n" + entry.query)
    return m


def stats_table(entries_by_source: dict[str, list[Entry]], count_tokens: Callable[[str], int] | None = estimate_tokens) -> list[dict]:
    """Rows ``{measure, source, n, mean, p50, min, max, detail}``, one per measure and source.

    ``detail`` holds the shape that a mean hides: value shares for small integer measures,
    type shares for parameter types. Pass ``count_tokens=None`` to skip prompt lengths.
    """
    rows = []
    per_source = {src: [entry_measures(e, count_tokens) for e in entries] for src, entries in entries_by_source.items()}
    keys = list(NUMERIC)
    if count_tokens is not None:
        keys += [f"prompt_tokens_{s}" for s in ALL_SETTINGS]
    for key in keys:
        for src, ms in per_source.items():
            vals = [m[key] for m in ms if m.get(key) is not None]
            if not vals:
                continue
            row = _numeric_row(
                NUMERIC.get(key, key.replace("prompt_tokens_", "prompt tokens (") + ")" if key.startswith("prompt") else key), src, vals
            )
            if key in ("non_preferred_turns", "cluster_size", "n_candidates"):
                counts = Counter(vals)
                row["detail"] = " ".join(f"{v}:{counts[v] / len(vals):.0%}" for v in sorted(counts))
            rows.append(row)
    for src, ms in per_source.items():
        if not ms:
            continue
        share = sum(m["empty_params"] for m in ms) / len(ms)
        rows.append(
            {
                "measure": "empty ground-truth parameters",
                "source": src,
                "n": len(ms),
                "mean": round(share, 3),
                "p50": None,
                "min": None,
                "max": None,
                "detail": f"{share:.0%} of entries",
            }
        )
    for src, ms in per_source.items():
        types: Counter = Counter()
        for m in ms:
            types.update(m["param_types"])
        total = sum(types.values()) or 1
        detail = " ".join(f"{t}:{n / total:.0%}" for t, n in types.most_common(8))
        rows.append(
            {
                "measure": "candidate parameter types",
                "source": src,
                "n": total,
                "mean": None,
                "p50": None,
                "min": None,
                "max": None,
                "detail": detail,
            }
        )
    return rows


def _numeric_row(measure: str, source: str, vals: list) -> dict:
    return {
        "measure": measure,
        "source": source,
        "n": len(vals),
        "mean": round(statistics.fmean(vals), 2),
        "p50": statistics.median(vals),
        "min": min(vals),
        "max": max(vals),
        "detail": "",
    }


def format_table(rows: list[dict]) -> str:
    """Rows as an aligned plain-text table (one line per row, header first)."""
    return plain_table(rows, ["measure", "source", "n", "mean", "p50", "min", "max", "detail"])


def write_figures(
    entries_by_source: dict[str, list[Entry]], out_dir: str | Path, count_tokens: Callable[[str], int] | None = estimate_tokens
) -> list[Path]:
    """Save one plotly HTML per measure (histograms overlaid by source) plus an index page.

    Files work offline: every page loads ``plotly.min.js``, written once next to them, and
    ``index.html`` shows all figures on one page.
    """
    import plotly.graph_objects as go
    from plotly.offline import get_plotlyjs

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    per_source = {src: [entry_measures(e, count_tokens) for e in entries] for src, entries in entries_by_source.items()}
    keys = list(NUMERIC) + ([f"prompt_tokens_{s}" for s in ALL_SETTINGS] if count_tokens else [])
    figures: list[tuple[str, go.Figure]] = []
    for key in keys:
        fig = go.Figure()
        for src, ms in per_source.items():
            vals = [m[key] for m in ms if m.get(key) is not None]
            if vals:
                fig.add_trace(go.Histogram(x=vals, name=src, opacity=0.6, histnorm="probability"))
        if fig.data:
            fig.update_layout(
                barmode="overlay", title=NUMERIC.get(key, key.replace("_", " ")), xaxis_title=key, yaxis_title="share of entries"
            )
            figures.append((key, fig))
    types = go.Figure()
    for src, ms in per_source.items():
        c: Counter = Counter()
        for m in ms:
            c.update(m["param_types"])
        total = sum(c.values()) or 1
        names = sorted(c)
        types.add_trace(go.Bar(x=names, y=[c[n] / total for n in names], name=src))
    types.update_layout(barmode="group", title="candidate parameter types", yaxis_title="share of parameters")
    figures.append(("param_types", types))
    empty = go.Figure(go.Bar(x=list(per_source), y=[sum(m["empty_params"] for m in ms) / max(1, len(ms)) for ms in per_source.values()]))
    empty.update_layout(title="share of ground truths with {} parameters", yaxis_title="share")
    figures.append(("empty_params", empty))
    paths = []
    for key, fig in figures:
        path = out / f"{key}.html"
        fig.write_html(path, include_plotlyjs="plotly.min.js", full_html=True)
        paths.append(path)
    index = out / "index.html"
    body = "\n".join(fig.to_html(include_plotlyjs=False, full_html=False) for _, fig in figures)
    index.write_text(
        f"<html><head><meta charset='utf-8'><script src='plotly.min.js'></script></head><body>\n{body}\n</body></html>\n", encoding="utf-8"
    )
    return [index] + paths
