"""Plotly figure builders: records in, Figure out. Plus the win-rate statistics behind them.

Records are predictions.jsonl lines (``Prediction.to_json()``, also of stored ones: model,
setting, tool_ok, params_ok, error, category, history_length) and label rows
(``Store.labels()``). Every builder returns a figure even with no data (it says so inside).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from petool.models import DEFAULT_RANK_PRIOR_WEIGHT
from petool.runs import loss_series
from petool.schema import ALL_SETTINGS, SETTING_NAMES
from petool.scoring import aggregate, error_counts, history_bucket

BUCKET_ORDER = ["0-19", "20-39", "40-59", "60-79", "80+", "unknown"]
SETTING_ORDER = list(ALL_SETTINGS)
VERDICT_ORDER = ["A", "B", "tie", "both_bad"]
OUTCOME = {"win": 1.0, "loss": 0.0, "tie": 0.5}
"""A tie or a both-bad verdict counts half a win, as in Chatbot Arena's win rates."""


_RANK_PRIOR_MARK = re.compile(r"\[rank-prior ([0-9.eE+-]+)\]")
_DECODING_MARK = re.compile(r"\[[^]\s,]+,[^]\s]+\]$")


def tool_choice_of(model: str) -> str:
    """How a model's answers chose their tool, in words, read from the name petool gives them.

    A local model's name says any ranking-prior weight but the default (``models``'s naming,
    which the app's comparisons keep): ``[rank-prior 0]`` is the model's own choice (the Compare
    tab's default), no mark the default fused choice of ``petool eval``. Rules and endpoints
    choose without the prior, as does a local model in a style without a ranked shortlist.

    Example:
        >>> tool_choice_of("SmolLM2+PEToolLLaMA[rank-prior 0]"), tool_choice_of("SmolLM2")
        ("model's own choice", 'model + ranking (weight 2.5)')
    """
    if model.startswith("baseline:"):
        return "rule"
    if model.startswith("openai:") or _DECODING_MARK.search(model):
        return "model's own choice"
    mark = _RANK_PRIOR_MARK.search(model)
    weight = float(mark[1]) if mark else DEFAULT_RANK_PRIOR_WEIGHT
    return "model's own choice" if weight == 0 else f"model + ranking (weight {weight:g})"


# ---------------------------------------------------------------- statistics (pure)


def bootstrap_ci(outcomes: list[float], n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """Mean of ``outcomes`` with a percentile bootstrap confidence interval.

    Args:
        outcomes: one number per label (1 win, 0 loss, 0.5 tie).
        n_boot: resamples.
        level: the interval's coverage.
        seed: makes the interval reproducible.
    Returns:
        (mean, low, high); (nan, nan, nan) for no outcomes.

    Example:
        >>> bootstrap_ci([1, 1, 1])
        (1.0, 1.0, 1.0)
    """
    n = len(outcomes)
    if n == 0:
        nan = float("nan")
        return nan, nan, nan
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    import numpy as np

    # A resample with replacement is fully described by how many times it drew each distinct
    # value, and those counts are multinomial: drawing them costs O(n_boot) instead of
    # O(n_boot * n), so the win-rate figure stays cheap however many labels there are.
    values = sorted(set(outcomes))
    counts = Counter(outcomes)
    draws = np.random.default_rng(seed).multinomial(n, [counts[v] / n for v in values], size=n_boot)
    means = sorted(float(m) for m in draws @ np.asarray(values, dtype=float) / n)
    tail = (1 - level) / 2
    lo = means[int(tail * (n_boot - 1))]
    hi = means[int(round((1 - tail) * (n_boot - 1)))]
    return sum(outcomes) / n, lo, hi


def label_outcome(label: dict, model: str) -> str | None:
    """``win`` / ``loss`` / ``tie`` for ``model`` in one label, or None if it was not a side."""
    sides = {"A": label.get("model_a"), "B": label.get("model_b")}
    if model not in sides.values() or sides["A"] == sides["B"]:
        return None
    verdict = label.get("verdict")
    if verdict in ("tie", "both_bad"):
        return "tie"
    if verdict not in sides:
        return None
    return "win" if sides[verdict] == model else "loss"


def win_rate(labels: Iterable[dict], model: str, opponent: str, **ci) -> dict:
    """Win rate of ``model`` over ``opponent`` from human labels, with a bootstrap CI.

    Returns:
        ``{model, opponent, n, wins, losses, ties, rate, low, high}``.
    """
    results = [label_outcome(lab, model) for lab in labels if {lab.get("model_a"), lab.get("model_b")} == {model, opponent}]
    results = [r for r in results if r is not None]
    rate, low, high = bootstrap_ci([OUTCOME[r] for r in results], **ci)
    counts = Counter(results)
    return {
        "model": model,
        "opponent": opponent,
        "n": len(results),
        "wins": counts["win"],
        "losses": counts["loss"],
        "ties": counts["tie"],
        "rate": rate,
        "low": low,
        "high": high,
    }


def model_pairs(labels: Iterable[dict]) -> list[tuple[str, str]]:
    """Each unordered pair of models labelled against each other, as (x, y) sorted."""
    pairs = {
        tuple(sorted((lab["model_a"], lab["model_b"])))
        for lab in labels
        if lab.get("model_a") and lab.get("model_b") and lab["model_a"] != lab["model_b"]
    }
    return sorted(pairs)


def win_rates(labels: list[dict], **ci) -> list[dict]:
    """``win_rate`` once per labelled pair of models, as the first (sorted) over the second: the
    other direction is its mirror (1 - rate, the interval flipped) and says nothing more."""
    return [win_rate(labels, x, y, **ci) for x, y in model_pairs(labels)]


MODEL_OUTCOMES = {"win": "preferred", "loss": "not preferred", "tie": "tie", "both_bad": "both bad"}
"""What a verdict means for each model in it, whichever side (A or B) the model was shown on."""


def verdicts_by_model(labels: Iterable[dict]) -> dict[str, Counter]:
    """Model -> how often annotators preferred it, did not, called a tie, or both bad. By model,
    not by side: blind mode shuffles the sides, so "A" means nothing across labels."""
    out: dict[str, Counter] = defaultdict(Counter)
    for lab in labels:
        verdict = lab.get("verdict")
        for side, model in (("A", lab.get("model_a")), ("B", lab.get("model_b"))):
            if not model:
                continue
            if verdict in ("tie", "both_bad"):
                out[model][MODEL_OUTCOMES[verdict]] += 1
            elif verdict in ("A", "B"):
                out[model][MODEL_OUTCOMES["win" if verdict == side else "loss"]] += 1
    return dict(out)


def with_history_flag(records: Iterable[dict]) -> list[dict]:
    """Records with ``history`` = ``with`` (p, r, c) or ``without`` (the none ablation)."""
    return [{**r, "history": "without" if r.get("setting") == "none" else "with"} for r in records]


# ---------------------------------------------------------------- figures


def empty_figure(title: str, message: str):
    """A figure that shows only ``message`` under ``title``: what a dashboard draws when it has no data."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper", font={"size": 14})
    fig.update_layout(title=title, xaxis={"visible": False}, yaxis={"visible": False}, height=320)
    return fig


PALETTE = ["#636EFA", "#00CC96", "#EF553B", "#AB63FA", "#FFA15A", "#19D3F3", "#FF6692", "#B6E880", "#FF97FF", "#FECB52"]


def _colors(groups: list) -> dict:
    """One fixed colour per group, so a model has the same colour in every panel."""
    return {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(groups)}


def _ordered(values: Iterable, order: list) -> list:
    values = list(dict.fromkeys(values))
    return [v for v in order if v in values] + sorted((v for v in values if v not in order), key=str)


NO_PREDICTIONS = "No scored predictions yet."


def accuracy_figure(records: list[dict], by: str = "setting", color: str = "model", title: str | None = None, empty: str = NO_PREDICTIONS):
    """Tool and parameter accuracy (two panels), bars per ``by`` value, one colour per ``color``."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    title = title or f"Accuracy by {by}"
    records = list(records)
    if not records:
        return empty_figure(title, empty)
    if by == "history_bucket":
        records = [{**r, "history_bucket": history_bucket(r.get("history_length"))} for r in records]
    rows = aggregate(records, by=[color, by])
    order = {"setting": SETTING_ORDER, "history_bucket": BUCKET_ORDER}.get(by, [])
    xs = _ordered((r[by] for r in rows), order)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("tool accuracy", "parameter accuracy"), shared_yaxes=True)
    groups = _ordered((r[color] for r in rows), [])
    colors = _colors(groups)
    for group in groups:
        mine = {r[by]: r for r in rows if r[color] == group}
        for col, metric in ((1, "tool_acc"), (2, "param_acc")):
            fig.add_trace(
                go.Bar(
                    name=str(group),
                    legendgroup=str(group),
                    showlegend=col == 1,
                    marker_color=colors[group],
                    x=[_label(by, x) for x in xs],
                    y=[mine[x][metric] if x in mine else None for x in xs],
                    customdata=[mine[x]["n"] if x in mine else 0 for x in xs],
                    hovertemplate="%{x}: %{y:.1%} (n=%{customdata})<extra>" + str(group) + "</extra>",
                ),
                row=1,
                col=col,
            )
    fig.update_yaxes(range=[0, 1], tickformat=".0%")
    fig.update_layout(title=title, barmode="group", height=380, legend_title_text=color)
    return fig


def history_effect_figure(records: list[dict], empty: str = NO_PREDICTIONS):
    """Tool accuracy with history (p, r, c pooled) vs without (none), per model."""
    return accuracy_figure(with_history_flag(records), by="history", color="model", title="With vs without history", empty=empty)


def bucket_figure(records: list[dict], empty: str = NO_PREDICTIONS):
    """Accuracy by history-length bucket, per model."""
    return accuracy_figure(records, by="history_bucket", title="Accuracy by history length", empty=empty)


def category_figure(records: list[dict], top: int = 15, empty: str = "No categorised predictions yet."):
    """Tool accuracy by category (the ``top`` most frequent), per model, as horizontal bars."""
    import plotly.graph_objects as go

    records = [r for r in records if r.get("category")]
    if not records:
        return empty_figure("Accuracy by category", empty)
    common = [c for c, _ in Counter(r["category"] for r in records).most_common(top)]
    rows = aggregate([r for r in records if r["category"] in common], by=["model", "category"])
    fig = go.Figure()
    models = _ordered((r["model"] for r in rows), [])
    colors = _colors(models)
    for model in models:
        mine = {r["category"]: r for r in rows if r["model"] == model}
        fig.add_trace(
            go.Bar(
                name=str(model),
                orientation="h",
                y=common,
                marker_color=colors[model],
                x=[mine[c]["tool_acc"] if c in mine else None for c in common],
                customdata=[mine[c]["n"] if c in mine else 0 for c in common],
                hovertemplate="%{y}: %{x:.1%} (n=%{customdata})<extra></extra>",
            )
        )
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    fig.update_layout(
        title="Tool accuracy by category", barmode="group", height=max(320, 28 * len(common) + 120), yaxis={"autorange": "reversed"}
    )
    return fig


def error_figure(records: list[dict], empty: str = NO_PREDICTIONS):
    """Share of each error code, stacked, one bar per model."""
    import plotly.graph_objects as go

    records = [r for r in records if r.get("error")]
    if not records:
        return empty_figure("Errors by model", empty)
    rows = error_counts(records, by=["model"])
    models = _ordered((r["model"] for r in rows), [])
    codes = _ordered((r["error"] for r in rows), ["ok"])
    fig = go.Figure()
    for code in codes:
        mine = {r["model"]: r for r in rows if r["error"] == code}
        fig.add_trace(
            go.Bar(
                name=code,
                x=[str(m) for m in models],
                y=[mine[m]["share"] if m in mine else 0 for m in models],
                customdata=[mine[m]["count"] if m in mine else 0 for m in models],
                hovertemplate="%{x}: %{y:.1%} (%{customdata})<extra>" + code + "</extra>",
            )
        )
    fig.update_yaxes(tickformat=".0%", range=[0, 1])
    fig.update_layout(title="Error codes by model", barmode="stack", height=400, legend_title_text="error")
    return fig


def label_stats_figure(labels: list[dict]):
    """Verdicts by model (preferred / not preferred / tie / both bad), stacked: by model, not by
    side, since blind mode shuffles the sides."""
    import plotly.graph_objects as go

    if not labels:
        return empty_figure("Verdicts by model", "No labels yet: compare two calls and give a verdict.")
    counts = verdicts_by_model(labels)
    models = sorted(counts)
    fig = go.Figure()
    for outcome in MODEL_OUTCOMES.values():
        if any(counts[m][outcome] for m in models):
            fig.add_trace(go.Bar(name=outcome, x=models, y=[counts[m][outcome] for m in models]))
    fig.update_layout(title=f"Verdicts by model ({len(labels)} labels)", barmode="stack", height=340)
    return fig


def win_rate_figure(labels: list[dict], **ci):
    """Win rate with its bootstrap CI, once per labelled pair of models."""
    import plotly.graph_objects as go

    rows = win_rates(labels, **ci)
    if not rows:
        return empty_figure("Win rate from human labels", "No labels comparing two different models yet.")
    names = [f"{r['model']}<br>over {r['opponent']} (n={r['n']})" for r in rows]
    fig = go.Figure(
        go.Bar(
            x=[r["rate"] for r in rows],
            y=names,
            orientation="h",
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [r["high"] - r["rate"] for r in rows],
                "arrayminus": [r["rate"] - r["low"] for r in rows],
            },
            hovertemplate="%{x:.1%}<extra></extra>",
        )
    )
    fig.add_vline(x=0.5, line_dash="dot")
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    fig.update_layout(title="Win rate from human labels (ties count half; 95% bootstrap CI)", height=160 + 60 * len(rows))
    return fig


def _label(by: str, value) -> str:
    if by == "setting":
        return f"{value} ({SETTING_NAMES.get(value, value)})"
    return str(value)


def training_figure(logs: dict[str, list[dict]], title: str = "training", empty: str = "No training log beside this adapter."):
    """Loss by step, one panel per training stage (``petool.runs.training_logs``); DPO's reward
    accuracy rides on its panel's second axis, since its loss alone hides whether the chosen
    call already wins. The one loss figure: the app's adapter view, a run folder's
    ``loss.html`` and a training job's progress all draw it; ``empty`` is said when no stage
    logged a loss."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    series = {stage: loss_series(history) for stage, history in logs.items()}
    series = {stage: s for stage, s in series.items() if "loss" in s}
    if not series:
        return empty_figure(title, empty)
    fig = make_subplots(
        rows=len(series), cols=1, subplot_titles=[stage.upper() for stage in series], specs=[[{"secondary_y": True}] for _ in series]
    )
    for row, (stage, s) in enumerate(series.items(), 1):
        for name, axis in (("loss", False), ("eval_loss", False), ("rewards/accuracies", True)):
            if name in s:
                steps, values = zip(*s[name], strict=False)
                fig.add_trace(
                    go.Scatter(x=list(steps), y=list(values), mode="lines+markers", name=f"{stage} {name}"),
                    row=row,
                    col=1,
                    secondary_y=axis,
                )
        fig.update_xaxes(title_text="step", row=row, col=1)
        fig.update_yaxes(title_text="loss", row=row, col=1, secondary_y=False)
        if "rewards/accuracies" in s:
            fig.update_yaxes(title_text="reward accuracy", range=[0, 1.05], row=row, col=1, secondary_y=True)
    fig.update_layout(title=title, height=300 * len(series) + 60)
    return fig
