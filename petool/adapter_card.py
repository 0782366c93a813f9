"""The trained adapter's card (README.md): the data, config, time and figures of one training run.

``scripts/train_petoolllama.py`` gathers the facts from its run folder (``card_facts``) and writes
the card with ``render_card``. Figures are never typed into the card: they are read from the
``metrics.json`` files the evaluation writes (``petool eval --out DIR``, or
``benchmarks/generalisation.py --out DIR``'s ``held-out/`` and ``seen/`` folders), one
``LABEL=PATH`` each (``read_figures``). The rows the issue asks for, generated held-out and
real dev, always appear; without figures they say how to fill them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

SETTINGS = ("p", "r", "c")

REQUIRED_FIGURES = {
    "held-out": "generated held-out entries (`benchmarks/generalisation.py`'s held-out part)",
    "dev": "real PEToolBench dev entries (a test set: read for the report only)",
}
"""Figure rows every card shows, by label: filled by ``--card-figures LABEL=PATH``."""


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def parse_figure_spec(spec: str) -> tuple[str, Path]:
    """``LABEL=PATH`` -> (label, the metrics.json it names; a folder means its metrics.json).

    Example:
        >>> parse_figure_spec("dev=runs/eval_dev")
        ('dev', PosixPath('runs/eval_dev/metrics.json'))
    """
    label, sep, path = spec.partition("=")
    if not sep or not label.strip() or not path.strip():
        raise ValueError(f"card figures {spec!r}: expected LABEL=PATH, e.g. held-out=runs/gen/held-out/metrics.json")
    target = Path(path.strip())
    if target.suffix != ".json":
        target = target / "metrics.json"
    return label.strip(), target


def read_figures(spec: str) -> dict:
    """One figure row from an evaluation's metrics.json: ``{label, path, finished, by_setting:
    {setting: {n, tool, param}}}`` (percentages, one decimal).

    Raises:
        ValueError: the spec is malformed, the file is missing, or it holds no per-setting figures.
    """
    label, path = parse_figure_spec(spec)
    if not path.is_file():
        raise ValueError(f"card figures {label!r}: no metrics file at {path} (petool eval --out DIR writes DIR/metrics.json)")
    try:
        metrics = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"card figures {label!r}: {path} is not JSON ({exc})") from None
    rows = metrics.get("by_setting") if isinstance(metrics, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"card figures {label!r}: {path} has no 'by_setting' rows (not an evaluation's metrics.json?)")
    by_setting = {}
    for row in rows:
        try:
            by_setting[str(row["setting"])] = {
                "n": int(row["n"]),
                "tool": round(100 * float(row["tool_acc"]), 1),
                "param": round(100 * float(row["param_acc"]), 1),
            }
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"card figures {label!r}: {path} has a malformed row {row!r}") from None
    return {"label": label, "path": str(path), "finished": metrics.get("finished"), "by_setting": by_setting}


def stage_seconds(timings: dict) -> dict:
    """{stage: (seconds of finished segments, segments, interrupted segments)} from timings.json's
    ``{stage: [{"start": t, "end": t or None}, ...]}``."""
    out = {}
    for stage, segments in timings.items():
        done = [s for s in segments if s.get("end") is not None]
        out[stage] = (sum(s["end"] - s["start"] for s in done), len(segments), len(segments) - len(done))
    return out


def _cell(row: dict | None) -> str:
    if not row:
        return "–"
    return f"{row['tool']:.1f} / {row['param']:.1f} (n {row['n']})"


def _fmt_seconds(s: float) -> str:
    return f"{s:,.0f} s ({s / 60:.0f} min)"


def _loss_span(history: list[dict]) -> str:
    losses = [r["loss"] for r in history if isinstance(r, dict) and "loss" in r]
    if not losses:
        return "no losses logged"
    return f"loss {losses[0]:.3f} → {losses[-1]:.3f} over {len(losses)} logged steps"


def render_card(facts: dict) -> str:
    """The card's markdown from ``card_facts``'s dict (pure: the same facts give the same text)."""
    args = facts["args"]
    data = facts["data"]
    lines = [
        "---",
        f"base_model: {facts['base_model']}",
        "library_name: peft",
        "tags: [lora, dpo, sft, tool-use, petool, petoolbench]",
        "license: apache-2.0",
        "---",
        "",
        f"# PEToolLLaMA for {facts['base_model']} (petool's SFT → DPO recipe)",
        "",
        "A LoRA adapter trained by `scripts/train_petoolllama.py` on data built by petool's own",
        "benchmark construction (never the real PEToolBench entries). Card written by the script",
        "from the run folder; figures come from the evaluations' metrics files (`--card-figures`).",
        "",
        "## Data",
        "",
        "| catalog | sha256 | categories | tools | APIs | clusters |",
        "|---|---|---|---|---|---|",
    ]
    for cat in data.get("catalogs", []):
        s = cat["summary"]
        digest = f"`{cat['sha256'][:12]}…`" if cat.get("sha256") else "(a folder)"
        lines.append(f"| `{cat['path']}` | {digest} | {s['categories']} | {s['tools']} | {s['apis']} | {s['clusters']} |")
    config = data.get("config", {})
    lines += [
        "",
        f"Build: seed {config.get('seed')}, {config.get('n_train')} training entries, {config.get('n_test')} held-out entries from",
        f"clusters the training entries do not use, prompt style `{config.get('style')}`, narrowed twins {args.get('narrowed_clusters', 0)}.",
        f"- SFT: {data.get('sft')} examples ({args.get('sft_per_setting')} per setting"
        + (f", plus {args.get('extra_sft_per_setting')} per setting from the added catalogs" if args.get("extra_sft_per_setting") else "")
        + ")"
        + (f"; by catalog: {', '.join(f'{k} {v}' for k, v in data['sft_by_catalog'].items())}" if data.get("sft_by_catalog") else "")
        + ".",
        f"- DPO: {facts.get('dpo_pairs', '?')} pairs: {data.get('dpo_bench')} from the benchmark"
        + (f" ({', '.join(f'{k} {v}' for k, v in sorted(data['dpo_sources'].items()))})" if data.get("dpo_sources") else "")
        + f", {facts.get('mistakes', '?')} mistakes of the SFT model on {args.get('mistake_entries')} held-out entries"
        + (f"; near misses: up to {args['hard_negatives']} per entry" if args.get("hard_negatives") else "")
        + ".",
        "",
        "| file | rows | sha256 |",
        "|---|---|---|",
    ]
    for name, h in facts.get("files", {}).items():
        lines.append(f"| `{name}` | {h['rows']} | `{h['sha256']}` |")
    lines += [
        "",
        "## Config",
        "",
        f"`assets/train/cpu.yaml` with: base `{args.get('base')}`; SFT {args.get('sft_steps')} steps × 4 examples, lr {args.get('sft_lr')};",
        f"DPO at most {args.get('dpo_steps')} steps × 4 pairs, lr {args.get('dpo_lr')}, reference = the SFT adapter;",
        f"a checkpoint every {args.get('save_steps')} steps. Resolved configs: `sft_run_config.json`, `dpo_run_config.json`;",
        f"versions: `sft_versions.json` (petool commit `{facts.get('commit', '?')}`).",
        "",
        "Reproduce: `" + facts.get("command", "") + "`",
        "",
        "## Time",
        "",
    ]
    for stage, (seconds, segments, interrupted) in facts.get("time", {}).items():
        note = f", {segments} runs" if segments > 1 else ""
        note += f", {interrupted} interrupted (their time not counted)" if interrupted else ""
        lines.append(f"- {stage}: {_fmt_seconds(seconds)}{note}")
    total = sum(t[0] for t in facts.get("time", {}).values())
    lines += [f"- in all: {_fmt_seconds(total)} on {facts.get('device', 'this machine')}", "", "## Training curves", ""]
    lines += [f"- SFT: {_loss_span(facts.get('sft_history', []))} (`sft_log_history.json`)"]
    lines += [f"- DPO: {_loss_span(facts.get('dpo_history', []))} (`dpo_log_history.json`)", "", "## Figures", ""]
    lines += ["Tool / parameter accuracy %, petool's default mode, per setting.", ""]
    lines += ["| entries | p | r | c | metrics file |", "|---|---|---|---|---|"]
    figures = {f["label"]: f for f in facts.get("figures", [])}
    for label, what in REQUIRED_FIGURES.items():
        fig = figures.pop(label, None)
        if fig is None:
            lines.append(f"| {what} | – | – | – | not measured yet: `--card-figures {label}=PATH/metrics.json` |")
        else:
            cells = " | ".join(_cell(fig["by_setting"].get(s)) for s in SETTINGS)
            lines.append(f"| {what} | {cells} | `{fig['path']}` |")
    for label, fig in figures.items():
        cells = " | ".join(_cell(fig["by_setting"].get(s)) for s in SETTINGS)
        lines.append(f"| {label} | {cells} | `{fig['path']}` |")
    return "\n".join(lines) + "\n"


__all__ = ["REQUIRED_FIGURES", "parse_figure_spec", "read_figures", "render_card", "sha256_file", "stage_seconds"]
