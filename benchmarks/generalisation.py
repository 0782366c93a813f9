"""How a model or rule carries over: generated-seen, generated-validation, generated-held-out and
the real dev file side by side, with the gaps (docs/measuring.md).

The generated parts come from one build split by category (`BuildConfig(split_by="category")`):
"seen" entries' ground truths lie in the train categories (those a model trained on the same
build's train part has seen), "validation" and "held-out" in categories of their own, no two
parts sharing a category or a cluster. Each part is run through petool's own `evaluate` (as
`petool eval` runs it) and scored by petool's scorer. The dev file is read for the report only;
without it its row says so. ``--indirect SHARE`` words that share of the generated queries away
from the gold API's name and description (``BuildConfig.p_indirect``), as a user who never read
the docs asks.

    .venv/bin/python benchmarks/generalisation.py --model baseline:evidence
    .venv/bin/python benchmarks/generalisation.py --model baseline:evidence --copied 0.9
    .venv/bin/python benchmarks/generalisation.py --model baseline:evidence --indirect 0.4
    .venv/bin/python benchmarks/generalisation.py --model default --adapter default --limit 30 --out runs/gen_default
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from petool.appconfig import DEV_DATA
from petool.bench import BuildConfig, build_parts
from petool.catalog import load_catalog
from petool.evaluate import evaluate
from petool.formats import load_entries
from petool.predictors import build_predictor
from petool.schema import SETTINGS, Entry

# the table's rows: generated parts by the build's part name, then the real file
PARTS = {"seen": "train", "validation": "validation", "held-out": "test"}
DEV = "dev"


def generated_parts(n: int, seed: int = 0, copied: float = 0.0, narrowed: float = 0.0, indirect: float = 0.0) -> dict[str, list[Entry]]:
    """``n`` generated entries per part ("seen", "validation", "held-out"), split by category."""
    config = BuildConfig(
        seed=seed,
        split_by="category",
        n_train=n,
        n_validation=n,
        n_test=n,
        p_copied_cluster=copied,
        p_narrowed_cluster=narrowed,
        p_indirect=indirect,
    )
    parts = build_parts(load_catalog(), config)
    return {row: parts[part] for row, part in PARTS.items()}


def measure(predictor, parts: dict[str, list[Entry]], settings: list[str], out_dir: Path, limit: int | None = None) -> dict:
    """{part: {setting: (n, tool %, param %)}} by ``petool.evaluate.evaluate``; a run folder per
    part under ``out_dir`` (a rerun there resumes)."""
    out = {}
    for name, entries in parts.items():
        metrics = evaluate(entries, settings, predictor, out_dir / name, limit=limit, progress=False)
        out[name] = {row["setting"]: (row["n"], 100 * row["tool_acc"], 100 * row["param_acc"]) for row in metrics["by_setting"]}
    return out


def tables(results: dict, settings: list[str], notes: dict[str, str] | None = None) -> str:
    """One markdown table per setting: tool % and param % per part, then the gaps
    seen - held-out and held-out - dev (a part without figures shows its note or "–")."""
    notes = notes or {}
    rows = [*PARTS, DEV]
    lines = []
    for s in settings:
        lines += [f"setting {s}", "", "| part | n | tool % | param % |", "|---|---|---|---|"]
        for part in rows:
            cell = results.get(part, {}).get(s)
            if cell:
                lines.append(f"| {part} | {cell[0]} | {cell[1]:.1f} | {cell[2]:.1f} |")
            else:
                lines.append(f"| {part} | 0 | – | – |" + (f" {notes[part]}" if part in notes else ""))
        for a, b in (("seen", "held-out"), ("held-out", DEV)):
            x, y = results.get(a, {}).get(s), results.get(b, {}).get(s)
            gap = (f"{x[1] - y[1]:+.1f} | {x[2] - y[2]:+.1f}") if x and y else "– | –"
            lines.append(f"| gap {a} - {b} | – | {gap} |")
        lines.append("")
    return "\n".join(lines)


def run(
    model: str,
    n: int = 300,
    limit: int | None = None,
    seed: int = 0,
    copied: float = 0.0,
    narrowed: float = 0.0,
    settings: list[str] | None = None,
    dev: str | Path | None = DEV_DATA,
    out: str | Path | None = None,
    adapter: str | None = None,
    indirect: float = 0.0,
    **model_kwargs,
) -> tuple[dict, dict[str, str]]:
    """Build the parts, run ``model`` on each (and the dev file when present), return
    (results as ``measure`` gives them, notes on parts left out)."""
    settings = list(settings or SETTINGS)
    parts = generated_parts(n, seed, copied, narrowed, indirect)
    notes = {}
    if dev and Path(dev).exists():
        parts[DEV] = load_entries(dev).entries
    else:
        notes[DEV] = f"(skipped: no dev file at {dev})"
    predictor = build_predictor(model, adapter=adapter, seed=seed, **model_kwargs)
    with tempfile.TemporaryDirectory(prefix="petool-generalisation-") as tmp:
        results = measure(predictor, parts, settings, Path(out) if out else Path(tmp), limit)
    return results, notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", required=True, help="as petool eval takes it: baseline:RULE, a local model path or 'default', openai:NAME"
    )
    parser.add_argument("--adapter", default=None, help="LoRA adapter folder, or 'default' for the shipped PEToolLLaMA")
    parser.add_argument(
        "--rank-prior", type=float, default=None, help="local models: the ranking prior's weight (petool eval --rank-prior)"
    )
    parser.add_argument("--n", type=int, default=300, help="generated entries built per part")
    parser.add_argument("--limit", type=int, default=None, help="run only the first N entries of each part (the dev file too)")
    parser.add_argument("--seed", type=int, default=0, help="the build's seed (its category split included)")
    parser.add_argument("--copied", type=float, default=0.0, help="share of clusters built as one API copied under several tools")
    parser.add_argument("--narrowed", type=float, default=0.0, help="share of clusters given a narrowed twin (GetNews / GetNewsByTopic)")
    parser.add_argument(
        "--indirect", type=float, default=0.0, help="share of generated queries worded away from the gold API's name and description"
    )
    parser.add_argument("--settings", default="p,r,c")
    parser.add_argument("--dev", default=str(DEV_DATA), help="the real dev file (skipped with a note when absent)")
    parser.add_argument("--out", default=None, help="keep the run folders here (default: a temporary folder)")
    args = parser.parse_args()
    settings = [s for s in args.settings.replace(",", "") if s in SETTINGS]
    extra = {"rank_prior_weight": args.rank_prior} if args.rank_prior is not None else {}
    results, notes = run(
        args.model,
        args.n,
        args.limit,
        args.seed,
        args.copied,
        args.narrowed,
        settings,
        args.dev,
        args.out,
        adapter=args.adapter,
        indirect=args.indirect,
        **extra,
    )
    print(
        f"{args.model}{' + ' + args.adapter if args.adapter else ''}: seed {args.seed}, {args.n} generated entries per part"
        f"{f' (first {args.limit} run)' if args.limit else ''}, copied {args.copied:g}, narrowed {args.narrowed:g}, indirect {args.indirect:g}\n"
    )
    print(tables(results, settings, notes))


if __name__ == "__main__":
    main()
