"""Train the shipped PEToolLLaMA adapter on the bundled SmolLM2-135M-Instruct, on CPU, resumably.

Stages (each skipped when its output exists, so rerunning the command resumes; SFT and DPO
resume from their latest checkpoint-N, written every --save-steps steps):
  1. data: build a benchmark with the shipped catalog, or several merged (--catalog, repeated), in
     --style (shortlist by default), sample SFT examples and DPO pairs evenly over p, r, c, and
     keep held-out entries for mining mistakes. Options off by default: --hard-negatives N
     (near-miss DPO negatives), --extra-sft-per-setting N (SFT examples from the added catalogs),
     --split-by category (only the train categories of generalisation.py's split, so its
     validation and held-out parts stay unseen).
  2. sft: LoRA SFT with TRL (petool.train) on --base (the bundled model by default).
  3. mistakes: run the SFT model on held-out generated entries; each wrong call becomes a
     rejected answer next to the gold call (the SFT model's own mistakes as DPO negatives).
  4. dpo: DPO from the SFT adapter (reference = the SFT policy).
  5. card: the run folder's README.md (petool.adapter_card), figures from --card-figures.
  6. ship: copy the DPO adapter, its records and the card to assets/adapters/petoolllama.

Usage (scripts/train_background.sh runs the same under nohup with a log):
    nohup .venv/bin/python scripts/train_petoolllama.py --out runs/petoolllama > runs/petoolllama.log 2>&1 &
Never trains on the real PEToolBench entries: all data comes from petool's own construction.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from petool import formats  # noqa: E402
from petool.adapter_card import read_figures, render_card, sha256_file, stage_seconds  # noqa: E402
from petool.bench import BuildConfig, build_entries  # noqa: E402
from petool.catalog import DEFAULT_CATALOG, load_catalog, merge_catalogs  # noqa: E402
from petool.models import load_predictor  # noqa: E402
from petool.pairs import preference_examples  # noqa: E402
from petool.parsing import parse_call  # noqa: E402
from petool.prompts import build_messages, prompt_candidates  # noqa: E402
from petool.schema import SETTINGS, PreferenceExample  # noqa: E402
from petool.train import train_dpo, train_sft  # noqa: E402
from petool.trainconfig import load_config  # noqa: E402
from petool.training_split import training_catalog  # noqa: E402


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def catalog_paths(args) -> list[Path]:
    """The catalogs the data comes from, in order (the shipped one when none is given)."""
    paths = [Path(p) for p in args.catalog] if args.catalog else [DEFAULT_CATALOG]
    return [p.relative_to(ROOT) if p.is_absolute() and p.is_relative_to(ROOT) else p for p in paths]


def stage_data(args, out: Path) -> None:
    data = out / "data"
    if (data / "dpo_train.jsonl").exists():
        return
    paths = catalog_paths(args)
    log(f"building training entries from {' + '.join(map(str, paths))}")
    catalogs = [load_catalog(p) for p in paths]
    config = BuildConfig(
        seed=args.seed, n_train=args.n_entries, n_test=args.n_heldout, style=args.style, p_narrowed_cluster=args.narrowed_clusters
    )
    if args.split_by == "category":
        # keep generalisation.py's validation and held-out categories out of the training data
        pool, split = training_catalog(catalogs, args.split_seed)
        log(
            f"category split (seed {args.split_seed}): {len(split.train_categories)} train categories; pool {pool.summary()['clusters']} clusters"
        )
    else:
        pool, split = merge_catalogs(catalogs), None
    train, heldout = build_entries(pool, config)
    catalog_of = {a.full_name: str(p) for p, cat in zip(paths, catalogs, strict=True) for a in cat.apis}
    added = {a.full_name for cat in catalogs[1:] for a in cat.apis}
    rng = random.Random(args.seed)
    extra_rng = random.Random(f"{args.seed}|extra-sft")  # its own stream: the default draws stay as they were
    sft, pairs, sft_golds = [], [], []
    for s in SETTINGS:
        # A shortlist prompt may leave the gold out; such an example would teach calling an unlisted tool.
        shown = [e for e in train if any(t.name == e.ground_truth.tool_name for t in prompt_candidates(e, s, args.style))]
        chosen = rng.sample(shown, min(args.sft_per_setting, len(shown)))
        if args.extra_sft_per_setting:
            taken = {id(e) for e in chosen}
            extra_pool = [e for e in shown if e.ground_truth.tool_name in added and id(e) not in taken]
            chosen += extra_rng.sample(extra_pool, min(args.extra_sft_per_setting, len(extra_pool)))
        sft += [formats.entry_to_sft(e, s, args.style) for e in chosen]
        sft_golds += [e.ground_truth.tool_name for e in chosen]
        dpo_entries = rng.sample(shown, min(args.dpo_per_setting, len(shown)))
        made = preference_examples(dpo_entries, s, args.seed, config.hard_negative_share, args.style, near_misses=args.hard_negatives)
        # near misses come on top of the usual pairs, which keep their cap
        pairs += [p for p in made if p.source != "bench:near_miss"][: args.dpo_per_setting]
        pairs += [p for p in made if p.source == "bench:near_miss"]
    rng.shuffle(sft)
    rng.shuffle(pairs)
    formats.write_trl_sft(sft, data / "sft_train.jsonl")
    formats.write_trl_preferences(pairs, data / "dpo_bench.jsonl")
    formats.write_combined(heldout, data / "heldout.json.gz")
    formats.write_trl_preferences(pairs, data / "dpo_train.jsonl")  # replaced after mining mistakes
    (data / "dpo_train.jsonl").rename(data / "dpo_train.pending.jsonl")
    facts = {
        "sft": len(sft),
        "dpo_bench": len(pairs),
        "heldout": len(heldout),
        "config": config.to_json(),
        "catalogs": [
            {"path": str(p), "sha256": sha256_file(p) if p.is_file() else None, "summary": cat.summary()}
            for p, cat in zip(paths, catalogs, strict=True)
        ],
        "split": None
        if split is None
        else {
            "by": "category",
            "seed": args.split_seed,
            "train_categories": sorted(split.train_categories),
            "held_categories": sorted(split.held_categories),
            "added_clusters_placed": len(split.placed),
            "added_clusters_kept": sum(c in split.train_categories for c in split.placed.values()),
            "pool": pool.summary(),
        },
        "sft_by_catalog": dict(Counter(catalog_of.get(name, "?") for name in sft_golds)),
        "dpo_sources": dict(Counter(p.source for p in pairs)),
    }
    formats.write_json(facts, data / "data.json")
    # the marker that this stage finished
    (data / "dpo_train.pending.jsonl").rename(data / "dpo_train.jsonl")
    log(f"data: {len(sft)} SFT examples, {len(pairs)} benchmark pairs, {len(heldout)} held-out entries")


def stage_sft(args, out: Path):
    adapter = out / "sft"
    config = load_config(
        ROOT / "assets" / "train" / "cpu.yaml",
        model=args.base,
        output_dir=str(out),
        sft__max_steps=args.sft_steps,
        sft__learning_rate=args.sft_lr,
        sft__save_steps=args.save_steps,
    )
    if (adapter / "adapter_model.safetensors").exists() and (adapter / "metrics.json").exists():
        return config, adapter
    log(f"SFT: {args.sft_steps} steps")
    train_sft(config, str(out / "data" / "sft_train.jsonl"), progress=True)
    return config, adapter


def stage_mistakes(args, out: Path, sft_adapter: Path) -> None:
    path = out / "data" / "dpo_mistakes.jsonl"
    if path.exists():
        return

    entries = formats.load_entries(out / "data" / "heldout.json.gz").entries[: args.mistake_entries]
    predictor = load_predictor(args.base, adapter=str(sft_adapter), mode="petool", style=args.style)
    pairs = []
    for i, entry in enumerate(entries):
        setting = SETTINGS[i % 3]
        call = parse_call(predictor.generate(entry, setting).text).call
        if call is not None and call.to_json() != entry.ground_truth.to_json():
            messages = build_messages(entry, setting, args.style)
            pairs.append(
                PreferenceExample(
                    messages[0]["content"], messages[1]["content"], entry.ground_truth.to_text(), call.to_text(), source="sft-mistake"
                )
            )
        log(f"mistakes: {i + 1}/{len(entries)} entries, {len(pairs)} wrong")
    formats.write_trl_preferences(pairs, path)


def stage_dpo(args, out: Path, config, sft_adapter: Path) -> Path:
    adapter = out / "dpo"
    if (adapter / "adapter_model.safetensors").exists() and (adapter / "metrics.json").exists():
        return adapter
    bench, _ = formats.read_trl_preferences(out / "data" / "dpo_bench.jsonl")
    mistakes, _ = formats.read_trl_preferences(out / "data" / "dpo_mistakes.jsonl")
    pairs = mistakes + bench
    random.Random(args.seed).shuffle(pairs)
    steps = max(1, len(pairs) // 4)
    log(f"DPO: {len(pairs)} pairs ({len(mistakes)} SFT mistakes), {steps} steps")
    config.dpo.max_steps = min(steps, args.dpo_steps)
    config.dpo.learning_rate = args.dpo_lr
    config.dpo.save_steps = args.save_steps
    return train_dpo(config, pairs, str(sft_adapter), progress=True)


def stage_card(args, out: Path, adapter: Path) -> Path:
    """Write the card (README.md) into the DPO adapter's folder from the run's records."""

    def read(path: Path, default):
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else default

    data_dir = out / "data"
    files = {}
    for name in ("sft_train.jsonl", "dpo_bench.jsonl", "dpo_mistakes.jsonl", "heldout.json.gz"):
        path = data_dir / name
        if path.exists():
            rows = (
                sum(1 for _ in path.open(encoding="utf-8")) if name.endswith(".jsonl") else read(data_dir / "data.json", {}).get("heldout")
            )
            files[f"data/{name}"] = {"rows": rows, "sha256": sha256_file(path)}
    versions = read(out / "sft" / "versions.json", {})
    dpo_rows = read(adapter / "data_hashes.json", {}).get("train", {}).get("rows")
    facts = {
        "base_model": "HuggingFaceTB/SmolLM2-135M-Instruct" if args.base == "default" else args.base,
        "args": {**vars(args), "catalog": [str(p) for p in catalog_paths(args)]},
        "data": read(data_dir / "data.json", {}),
        "files": files,
        "mistakes": files.get("data/dpo_mistakes.jsonl", {}).get("rows", "?"),
        "dpo_pairs": dpo_rows if dpo_rows is not None else "?",
        "commit": versions.get("petool_commit", "?"),
        "device": versions.get("device_name") or "this machine",
        "command": "python scripts/train_petoolllama.py " + " ".join(args.command_line),
        "time": stage_seconds(read(out / "timings.json", {})),
        "sft_history": read(out / "sft" / "log_history.json", []),
        "dpo_history": read(adapter / "log_history.json", []),
        "figures": [read_figures(spec) for spec in args.card_figures or []],
    }
    path = adapter / "README.md"
    path.write_text(render_card(facts), encoding="utf-8")
    log(f"card: {path}")
    return path


def stage_ship(args, out: Path, adapter: Path) -> None:
    target = ROOT / "assets" / "adapters" / "petoolllama"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("adapter_config.json", "adapter_model.safetensors", "README.md"):
        shutil.copy2(adapter / name, target / name)
    for name in ("run_config.json", "metrics.json", "versions.json", "data_hashes.json", "log_history.json"):
        if (adapter / name).exists():
            shutil.copy2(adapter / name, target / f"dpo_{name}")
        if (out / "sft" / name).exists():
            shutil.copy2(out / "sft" / name, target / f"sft_{name}")
    shutil.copy2(out / "data" / "data.json", target / "data.json")
    log(f"shipped adapter to {target}")


def timed(out: Path, stage: str, done: Path, fn, *a):
    """Run a stage, recording its wall time in out/timings.json when it had work to do (``done``
    missing before): a segment's start is written first, so a killed one shows as interrupted."""
    if done.exists():
        return fn(*a)
    path = out / "timings.json"
    timings = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    segment = {"start": time.time(), "end": None}
    timings.setdefault(stage, []).append(segment)
    path.write_text(json.dumps(timings, indent=2), encoding="utf-8")
    result = fn(*a)
    segment["end"] = time.time()
    path.write_text(json.dumps(timings, indent=2), encoding="utf-8")
    return result


STAGES = ("data", "sft", "mistakes", "dpo")


def without_option(argv: list[str], option: str) -> list[str]:
    """``argv`` less every ``option VALUE`` and ``option=VALUE`` (the card's command line: the
    figures are no part of what trains the adapter)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == option:
            skip = True
        elif not a.startswith(option + "="):
            out.append(a)
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="runs/petoolllama")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--style", default="shortlist", help="prompt style of the training data (the one the adapter is evaluated with)")
    parser.add_argument(
        "--catalog",
        action="append",
        default=None,
        metavar="PATH",
        help="a catalog to build the data from (.json, .json.gz or a ToolBench folder); repeat to merge several "
        "into one pool (catalog.merge_catalogs); default: the shipped assets/catalog.json",
    )
    parser.add_argument(
        "--split-by",
        choices=("cluster", "category"),
        default="cluster",
        help="category: draw the data only from the train categories of benchmarks/generalisation.py's split of the first "
        "catalog (--split-seed), and from the added catalogs' clusters nearest those categories, so its validation and "
        "held-out parts stay unseen (petool.training_split); cluster (the adapter before 2026-12-08): the whole pool",
    )
    parser.add_argument("--split-seed", type=int, default=0, help="the category split's seed (generalisation.py's --seed); default 0")
    parser.add_argument("--n-entries", type=int, default=900, help="generated training entries to sample from")
    parser.add_argument("--n-heldout", type=int, default=60, help="held-out generated entries (disjoint clusters) for mining mistakes")
    parser.add_argument("--sft-per-setting", type=int, default=128)
    parser.add_argument(
        "--extra-sft-per-setting",
        type=int,
        default=0,
        metavar="N",
        help="N more SFT examples per setting, from training entries whose gold API comes from a catalog after the first; default 0",
    )
    parser.add_argument("--dpo-per-setting", type=int, default=24)
    parser.add_argument(
        "--hard-negatives",
        type=int,
        default=0,
        metavar="N",
        help="up to N more DPO pairs per DPO entry rejecting a near miss: the shown candidates of the gold's category outside "
        "its cluster that fit the query best (pairs.near_miss_negatives); default 0",
    )
    parser.add_argument("--base", default="default", help="base model: 'default' (the bundled SmolLM2-135M-Instruct) or a local folder")
    parser.add_argument("--sft-steps", type=int, default=96, help="steps of 4 examples")
    parser.add_argument("--sft-lr", type=float, default=5e-4)
    parser.add_argument("--mistake-entries", type=int, default=48)
    parser.add_argument("--dpo-steps", type=int, default=16)
    parser.add_argument("--dpo-lr", type=float, default=5e-5)
    parser.add_argument(
        "--save-steps", type=int, default=3, help="a checkpoint every N steps of SFT and DPO (a rerun resumes from the latest); default 3"
    )
    parser.add_argument(
        "--narrowed-clusters",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of clusters given a narrowed twin (GetNews / GetNewsByTopic) in the training build; the shipped adapter: 0",
    )
    parser.add_argument("--stop-after", choices=STAGES, default=None, help="stop once this stage is done (e.g. data: build the data only)")
    parser.add_argument(
        "--card-figures",
        action="append",
        default=None,
        metavar="LABEL=PATH",
        help="figures for the card from an evaluation's metrics.json (or its folder): held-out=… (generated held-out), dev=… "
        "(real dev), or any other label; repeatable; rerunning a finished run rewrites only the card (and ships it)",
    )
    parser.add_argument("--no-ship", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    for name in ("sft_steps", "dpo_steps", "save_steps"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    for name in ("hard_negatives", "extra_sft_per_setting"):
        if getattr(args, name) < 0:
            raise SystemExit(f"--{name.replace('_', '-')} must be 0 or more, got {getattr(args, name)}")
    figures = [read_figures(spec) for spec in args.card_figures or []]  # a bad path fails now, not after hours of training
    del figures
    out = ROOT / args.out if not Path(args.out).is_absolute() else Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    recorded = {k: v for k, v in vars(args).items() if k != "card_figures"}
    (out / "args.json").write_text(json.dumps(recorded, indent=2))
    args.command_line = without_option(argv, "--card-figures")
    timed(out, "data", out / "data" / "dpo_train.jsonl", stage_data, args, out)
    if args.stop_after == "data":
        return 0
    config, sft_adapter = timed(out, "sft", out / "sft" / "metrics.json", stage_sft, args, out)
    if args.stop_after == "sft":
        return 0
    timed(out, "mistakes", out / "data" / "dpo_mistakes.jsonl", stage_mistakes, args, out, sft_adapter)
    if args.stop_after == "mistakes":
        return 0
    dpo_adapter = timed(out, "dpo", out / "dpo" / "metrics.json", stage_dpo, args, out, config, sft_adapter)
    stage_card(args, out, dpo_adapter)
    if args.stop_after == "dpo":
        return 0
    if not args.no_ship:
        stage_ship(args, out, dpo_adapter)
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
