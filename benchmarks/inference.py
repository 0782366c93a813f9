"""Speed and accuracy of the authors' generation procedure vs petool's default mode.

Runs one loaded base model (and the adapter, if there is one, on the same weights) over a
seeded sample of real dev entries in each setting, alternating the procedures entry by entry so
that both see the same machine load. Every result is appended to a JSONL log, so an interrupted
run resumes; the table is printed at the end (or from the log alone with --table-only).

    .venv/bin/python benchmarks/inference.py --n 20 --log runs/bench_inference.jsonl

Columns: median and p90 seconds per entry, median prompt and output tokens, tool and parameter
accuracy, share of outputs the authors' regex parses, share naming a candidate; then where the
time goes (prefill vs decode) and the prefill floor 2 * params * prompt_tokens / measured FLOP/s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from petool.formats import load_entries  # noqa: E402
from petool.models import LocalPredictor, ensure_converted, load_base, resolve_adapter, resolve_model  # noqa: E402
from petool.parsing import parse_call  # noqa: E402
from petool.scoring import score_call  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "petoolbench" / "early_test_dev.json.gz"


def sample_entries(path: Path, n: int, seed: int) -> list:
    """The same seeded sample of ``n`` entries for every setting (each entry has all three)."""
    result = load_entries(path)
    entries = sorted(result.entries, key=lambda e: e.key)
    return random.Random(seed).sample(entries, min(n, len(entries)))


def measure_flops(model, tokens: int = 512, repeats: int = 2) -> float:
    """Prefill throughput in FLOP/s (2 * params * tokens per forward), best of ``repeats``."""
    import torch

    params = sum(p.numel() for p in model.parameters())
    ids = torch.randint(100, 1000, (1, tokens), device=next(model.parameters()).device)
    best = float("inf")
    with torch.inference_mode():
        for _ in range(repeats):
            t0 = time.perf_counter()
            model(input_ids=ids, logits_to_keep=1)
            best = min(best, time.perf_counter() - t0)
    return 2 * params * tokens / best


def run(args) -> None:
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    log_path = Path(args.log)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if log_path.exists():
        for line in log_path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["procedure"], r["model"], r["setting"], str(r["entry_id"])))
    entries = sample_entries(Path(args.data), args.n, args.seed)
    source = ensure_converted(resolve_model(args.model), print)
    t0 = time.perf_counter()
    model, tokenizer, info = load_base(source, args.device)
    print(f"model: {source.describe()}; load {time.perf_counter() - t0:.2f} s; threads {torch.get_num_threads()}", flush=True)
    flops = measure_flops(model)
    params = sum(p.numel() for p in model.parameters())
    adapter = None
    try:
        adapter = resolve_adapter(args.adapter) if args.adapter else None
    except Exception as exc:  # noqa: BLE001 - the benchmark runs without an adapter
        print(f"no adapter: {exc}", flush=True)
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(adapter)).eval()
    procedures = {
        "paper": LocalPredictor(model, tokenizer, source, info, adapter, mode="paper"),
        "petool": LocalPredictor(model, tokenizer, source, info, adapter, mode="petool"),
    }
    variants = [False, True] if adapter is not None else [False]
    with log_path.open("a") as log:
        for entry in entries:  # entry-major, so a partial run covers every setting
            for setting in args.settings.split(","):
                for with_adapter in variants:
                    for proc in (args.adapter_procedures if with_adapter else args.procedures).split(","):
                        p = procedures[proc]
                        name = "base+adapter" if with_adapter else "base"
                        if (proc, name, setting, entry.key) in done:
                            continue
                        g = p.generate(entry, setting, use_adapter=with_adapter if adapter is not None else None)
                        parsed = parse_call(g.text, "paper")
                        score = score_call(entry, setting, parsed)
                        row = {
                            "procedure": proc,
                            "model": name,
                            "setting": setting,
                            "entry_id": entry.key,
                            "latency_s": g.latency_s,
                            "prompt_tokens": g.prompt_tokens,
                            "output_tokens": g.output_tokens,
                            "parsed": parsed.ok,
                            "on_candidate": bool(parsed.ok and entry.candidate(parsed.call.tool_name)),
                            "tool_ok": score.tool_ok,
                            "params_ok": score.params_ok,
                            "error": score.error,
                            "prefill_s": g.details.get("prefill_s"),
                            "decode_s": g.details.get("decode_s"),
                            "model_steps": g.details.get("model_steps"),
                            "forced_tokens": g.details.get("forced_tokens"),
                            "flops_per_s": flops,
                            "params": params,
                            "text": g.text[:300],
                        }
                        log.write(json.dumps(row, ensure_ascii=False) + "\n")
                        log.flush()
                        print(
                            f"{setting} {entry.key} {proc:6} {name:12} {g.latency_s:7.2f}s tok {g.prompt_tokens}/{g.output_tokens} {score.error}",
                            flush=True,
                        )


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def table(log_path: Path) -> str:
    """The comparison table from the JSONL log (one row per procedure x model, all settings)."""
    rows = [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["procedure"], r["model"]), []).append(r)
    head = f"{'procedure':9} {'model':13} {'n':>4} {'med s':>7} {'p90 s':>7} {'prompt':>7} {'output':>6} {'tool':>6} {'param':>6} {'parsed':>6} {'on cand':>7} {'prefill s':>9} {'decode s':>8} {'floor s':>7}"
    lines = [head, "-" * len(head)]
    # Prefill rate measured inside the runs (same machine load as the latencies), else at start.
    rates = [2 * r["params"] * r["prompt_tokens"] / r["prefill_s"] for r in rows if r.get("prefill_s")]
    rate = statistics.median(rates) if rates else rows[0]["flops_per_s"]
    for (proc, model), rs in sorted(groups.items()):
        lat = [r["latency_s"] for r in rs]
        prompt = statistics.median(r["prompt_tokens"] for r in rs)
        floor = 2 * rs[0]["params"] * prompt / rate
        pre = [r["prefill_s"] for r in rs if r.get("prefill_s") is not None]
        dec = [r["decode_s"] for r in rs if r.get("decode_s") is not None]

        def share(key, rs=rs):
            return 100 * sum(bool(r[key]) for r in rs) / len(rs)

        lines.append(
            f"{proc:9} {model:13} {len(rs):4d} {statistics.median(lat):7.2f} {quantile(lat, 0.9):7.2f} {prompt:7.0f} "
            f"{statistics.median(r['output_tokens'] for r in rs):6.0f} {share('tool_ok'):5.1f}% {share('params_ok'):5.1f}% "
            f"{share('parsed'):5.1f}% {share('on_candidate'):6.1f}% "
            f"{statistics.median(pre) if pre else float('nan'):9.2f} {statistics.median(dec) if dec else float('nan'):8.2f} {floor:7.2f}"
        )
    by_setting = {}
    for r in rows:
        by_setting.setdefault((r["procedure"], r["model"], r["setting"]), []).append(r)
    lines.append("")
    lines.append(
        "tool accuracy by setting: "
        + "; ".join(
            f"{p}/{m}/{s} {100 * sum(r['tool_ok'] for r in rs) / len(rs):.0f}% (n={len(rs)})"
            for (p, m, s), rs in sorted(by_setting.items())
        )
    )
    for model in sorted({m for _, m in groups}):
        # Speed-up on matched (entry, setting) pairs only, so a partial paper run compares fairly.
        paper = {(r["setting"], r["entry_id"]): r for r in groups.get(("paper", model), [])}
        pairs = [(paper[k], r) for r in groups.get(("petool", model), []) if (k := (r["setting"], r["entry_id"])) in paper]
        if pairs:
            ratio = statistics.median(a["latency_s"] for a, _ in pairs) / statistics.median(b["latency_s"] for _, b in pairs)
            tool = [100 * sum(x["tool_ok"] for x in side) / len(pairs) for side in zip(*pairs, strict=False)]
            lines.append(
                f"matched pairs ({model}, n={len(pairs)}): petool {ratio:.1f}x faster (median s/entry); "
                f"tool accuracy paper {tool[0]:.0f}% vs petool {tool[1]:.0f}%"
            )
    lines.append(
        f"prefill throughput: {rate / 1e9:.0f} GFLOP/s in the runs (median), {rows[0]['flops_per_s'] / 1e9:.0f} GFLOP/s "
        f"at start; params {rows[0]['params'] / 1e6:.0f} M; floor s = 2 * params * median prompt tokens / in-run rate"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="early combined dev file")
    ap.add_argument("--n", type=int, default=20, help="entries per setting (same sample in each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--settings", default="p,r,c")
    ap.add_argument("--procedures", default="paper,petool")
    ap.add_argument(
        "--adapter-procedures", default="petool", help="procedures run with the adapter on (the adapter is trained for petool's mode)"
    )
    ap.add_argument("--model", default="default")
    ap.add_argument("--adapter", default="default", help="adapter folder, 'default', or '' for none")
    ap.add_argument("--device", default=None)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--log", default=str(ROOT / "runs" / "bench_inference.jsonl"))
    ap.add_argument("--table-only", action="store_true", help="print the table from --log without running")
    args = ap.parse_args(argv)
    if not args.table_only:
        if not Path(args.data).exists():
            print(f"no data at {args.data}; pass --data", file=sys.stderr)
            return 2
        run(args)
    print(table(Path(args.log)))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
