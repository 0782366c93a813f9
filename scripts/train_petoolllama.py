"""Train the shipped PEToolLLaMA adapter on the bundled SmolLM2-135M-Instruct, on CPU, resumably.

Stages (each skipped when its output exists, so rerunning the command resumes):
  1. data: build a benchmark with the shipped catalog (in --style, shortlist by default), sample SFT
     examples and DPO pairs evenly over p, r, c, and keep held-out entries for mining mistakes.
  2. sft: LoRA SFT with TRL (petool.train).
  3. mistakes: run the SFT model on held-out generated entries; each wrong call becomes a
     rejected answer next to the gold call (the SFT model's own mistakes as DPO negatives).
  4. dpo: DPO from the SFT adapter (reference = the SFT policy).
  5. ship: copy the DPO adapter and a model card to assets/adapters/petoolllama.

Usage:
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from petool import formats  # noqa: E402
from petool.bench import BuildConfig, build_entries  # noqa: E402
from petool.catalog import load_catalog  # noqa: E402
from petool.models import load_predictor  # noqa: E402
from petool.pairs import preference_examples  # noqa: E402
from petool.parsing import parse_call  # noqa: E402
from petool.prompts import build_messages, prompt_candidates  # noqa: E402
from petool.schema import SETTINGS, PreferenceExample  # noqa: E402
from petool.train import train_dpo, train_sft  # noqa: E402
from petool.trainconfig import load_config  # noqa: E402


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def stage_data(args, out: Path) -> None:
    data = out / "data"
    if (data / "dpo_train.jsonl").exists():
        return
    log("building training entries from the shipped catalog")
    config = BuildConfig(
        seed=args.seed, n_train=args.n_entries, n_test=args.n_heldout, style=args.style, p_narrowed_cluster=args.narrowed_clusters
    )
    train, heldout = build_entries(load_catalog(), config)
    rng = random.Random(args.seed)
    sft, pairs = [], []
    for s in SETTINGS:
        # A shortlist prompt may leave the gold out; such an example would teach calling an unlisted tool.
        shown = [e for e in train if any(t.name == e.ground_truth.tool_name for t in prompt_candidates(e, s, args.style))]
        chosen = rng.sample(shown, min(args.sft_per_setting, len(shown)))
        sft += [formats.entry_to_sft(e, s, args.style) for e in chosen]
        dpo_entries = rng.sample(shown, min(args.dpo_per_setting, len(shown)))
        pairs += preference_examples(dpo_entries, s, args.seed, config.hard_negative_share, args.style)[: args.dpo_per_setting]
    rng.shuffle(sft)
    rng.shuffle(pairs)
    formats.write_trl_sft(sft, data / "sft_train.jsonl")
    formats.write_trl_preferences(pairs, data / "dpo_bench.jsonl")
    formats.write_combined(heldout, data / "heldout.json.gz")
    formats.write_trl_preferences(pairs, data / "dpo_train.jsonl")  # replaced after mining mistakes
    (data / "dpo_train.jsonl").rename(data / "dpo_train.pending.jsonl")
    formats.write_json({"sft": len(sft), "dpo_bench": len(pairs), "heldout": len(heldout), "config": config.to_json()}, data / "data.json")
    # the marker that this stage finished
    (data / "dpo_train.pending.jsonl").rename(data / "dpo_train.jsonl")
    log(f"data: {len(sft)} SFT examples, {len(pairs)} benchmark pairs, {len(heldout)} held-out entries")


def stage_sft(args, out: Path):
    adapter = out / "sft"
    config = load_config(
        ROOT / "assets" / "train" / "cpu.yaml",
        output_dir=str(out),
        sft__max_steps=args.sft_steps,
        sft__learning_rate=args.sft_lr,
        sft__save_steps=3,
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
    predictor = load_predictor("default", adapter=str(sft_adapter), mode="petool", style=args.style)
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
    config.dpo.save_steps = 3
    return train_dpo(config, pairs, str(sft_adapter), progress=True)


def stage_ship(args, out: Path, adapter: Path) -> None:
    target = ROOT / "assets" / "adapters" / "petoolllama"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        shutil.copy2(adapter / name, target / name)
    for name in ("run_config.json", "metrics.json", "versions.json", "data_hashes.json", "log_history.json"):
        if (adapter / name).exists():
            shutil.copy2(adapter / name, target / f"dpo_{name}")
        if (out / "sft" / name).exists():
            shutil.copy2(out / "sft" / name, target / f"sft_{name}")
    shutil.copy2(out / "data" / "data.json", target / "data.json")
    log(f"shipped adapter to {target}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="runs/petoolllama")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--style", default="shortlist", help="prompt style of the training data (the one the adapter is evaluated with)")
    parser.add_argument("--n-entries", type=int, default=900, help="generated training entries to sample from")
    parser.add_argument("--n-heldout", type=int, default=60, help="held-out generated entries (disjoint clusters) for mining mistakes")
    parser.add_argument("--sft-per-setting", type=int, default=128)
    parser.add_argument("--dpo-per-setting", type=int, default=24)
    parser.add_argument("--sft-steps", type=int, default=96, help="steps of 4 examples")
    parser.add_argument("--sft-lr", type=float, default=5e-4)
    parser.add_argument("--mistake-entries", type=int, default=48)
    parser.add_argument("--dpo-steps", type=int, default=16)
    parser.add_argument("--dpo-lr", type=float, default=5e-5)
    parser.add_argument(
        "--narrowed-clusters",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of clusters given a narrowed twin (GetNews / GetNewsByTopic) in the training build; the shipped adapter: 0",
    )
    parser.add_argument("--no-ship", action="store_true")
    args = parser.parse_args()
    out = ROOT / args.out if not Path(args.out).is_absolute() else Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "args.json").write_text(json.dumps(vars(args), indent=2))
    stage_data(args, out)
    config, sft_adapter = stage_sft(args, out)
    stage_mistakes(args, out, sft_adapter)
    dpo_adapter = stage_dpo(args, out, config, sft_adapter)
    if not args.no_ship:
        stage_ship(args, out, dpo_adapter)
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
