"""How fast the app answers, through its own API with the real model, against a compute floor.

Builds the app in this process (bundled base model + shipped PEToolLLaMA adapter unless
PETOOL_ADAPTER says otherwise; a temporary database), serves it on 127.0.0.1 and drives it with
gradio_client, as a browser would. Prints, measured in one run on this machine:

- each warm comparison (both calls) against its **compute floor**: the two prompts' prefill at the
  matrix-multiply rate measured here, plus each decoding step at the matrix-vector rate measured
  here, for the model's parameter count; the ratio should stay within 1.5;
- the time until the first side is on screen, against that side's own call (the page shows side A
  as soon as it is done, so the two should be about equal);
- each Build action's time (no model involved; the target is under 1 s).

    .venv/bin/python benchmarks/app_latency.py --entries 3
    .venv/bin/python benchmarks/app_latency.py --build-only --profile   # Build actions, with cProfile
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from petool.appconfig import AppConfig  # noqa: E402
from petool.models import resolve_model  # noqa: E402
from petool.ui import build_demo  # noqa: E402
from petool.ui.entry_edits import example_params  # noqa: E402


def matmul_rates(hidden: int, inner: int, tokens: int = 512, repeat: int = 5) -> tuple[float, float]:
    """(FLOP/s of a prefill-shaped matmul, FLOP/s of a decoding-shaped matrix-vector product),
    float32 on the CPU with the threads torch uses here: best of ``repeat``."""
    import torch

    w = torch.randn(hidden, inner)
    x, v = torch.randn(tokens, hidden), torch.randn(1, hidden)

    def best(a) -> float:
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(10):
                a @ w
            times.append((time.perf_counter() - t0) / 10)
        return min(times)

    return 2 * tokens * hidden * inner / best(x), 2 * hidden * inner / best(v)


def model_shape(model: str) -> tuple[int, int, int]:
    """(parameters, hidden size, MLP size) of the configured base model, from its files."""
    from safetensors import safe_open

    src = resolve_model(model)
    folder = next(Path(p) for p in (src.cache_dir, src.location) if p and (Path(p) / "config.json").exists())
    config = json.loads((folder / "config.json").read_text())
    n = 0
    for file in folder.glob("*.safetensors"):
        with safe_open(str(file), "pt") as f:
            for k in f.keys():
                shape = f.get_slice(k).get_shape()
                size = 1
                for s in shape:
                    size *= s
                n += size
    return n, config["hidden_size"], config.get("intermediate_size", 4 * config["hidden_size"])


def first_side_time(client, args) -> tuple[float, float]:
    """(seconds to the first side's card, seconds to both) for one /compare job."""
    t0 = time.perf_counter()
    job = client.submit(*args, api_name="/compare")
    first = None
    while not job.done():
        outs = job.outputs()
        # output 0: both cards pending; output 1: side A's card (B still running)
        if first is None and len(outs) >= 2:
            first = time.perf_counter() - t0
        time.sleep(0.005)
    total = time.perf_counter() - t0
    return (first if first is not None else total), total


TOOL = ["", "{}"]
"""A catalog tool and its example parameters, for "add turn" (set in main)."""

BUILD_ACTIONS = [
    ("load entry", "/load_entry", lambda key: ("generated", key, "p")),
    ("add turn", "/add_turn", lambda key: ("p", TOOL[0], "Check the weather in Lima.", TOOL[1], None)),
    ("get candidates", "/suggest_candidates", lambda key: ("p", "What's the weather in Madrid?")),
    ("preview prompt", "/preview_prompt", lambda key: ("What's the weather in Madrid?", "p", "paper")),
    ("save entry", "/save_entry", lambda key: ("What's the weather in Madrid?", "bench")),
]


def time_build(client, key: str, repeat: int = 3) -> list[tuple[str, float]]:
    out = []
    for label, api, args in BUILD_ACTIONS:
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            client.predict(*args(key), api_name=api)
            times.append(time.perf_counter() - t0)
        out.append((label, statistics.median(times)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=3)
    parser.add_argument("--setting", default="r")
    parser.add_argument("--build-only", action="store_true", help="time the Build actions only (no model)")
    parser.add_argument("--profile", action="store_true", help="cProfile the server during the Build actions")
    args = parser.parse_args()
    from gradio_client import Client

    from tests.app_fakes import launch_for_test

    tmp = tempfile.mkdtemp(prefix="petool-latency-")
    config = AppConfig.from_env()
    config = AppConfig(**{**config.__dict__, "db_path": f"{tmp}/petool.db", "export_dir": f"{tmp}/exports"})
    demo = build_demo(config)
    services = demo.petool_services
    calls = []
    generate = services.model.generate

    def recorded(*a, **k):
        out = generate(*a, **k)
        calls.append(out)
        return out

    services.model.generate = recorded
    url = launch_for_test(demo, config)
    try:
        client = Client(url, verbose=False, download_files=False)
        keys = [e.key for e in services.generated()]

        tool = next(iter(services.catalog().values()))
        TOOL[:] = [tool.name, example_params(tool)]
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        build = time_build(client, keys[0])
        if profiler:
            profiler.disable()
        print(f"{'Build action':<16} {'median (s)':>10}  target < 1 s")
        for label, secs in build:
            print(f"{label:<16} {secs:10.2f}  {'ok' if secs < 1 else 'SLOW'}")
        if profiler:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        if args.build_only:
            return 0

        params, hidden, inner = model_shape(config.model)
        gemm, gemv = matmul_rates(hidden, inner)
        print(
            f"\nmodel: {params / 1e6:.0f} M parameters; measured here: matmul {gemm / 1e9:.1f} GFLOP/s, "
            f"matrix-vector {gemv / 1e9:.1f} GFLOP/s"
        )
        print(
            f"{'entry':>8} {'both (s)':>9} {'floor (s)':>9} {'ratio':>6} {'first side (s)':>14} {'side A call (s)':>15} {'ratio':>6}  note"
        )
        warm_ratios, first_ratios = [], []
        for i in range(args.entries):
            key = keys[i]
            client.predict("generated", key, args.setting, api_name="/load_entry")
            del calls[:]
            first, total = first_side_time(client, (args.setting, "base", "PEToolLLaMA", False))
            a, b = calls[-2:]
            floor = sum(2 * params * (s.prompt_tokens or 0) / gemm + 2 * params * (s.output_tokens or 0) / gemv for s in (a, b))
            warm = i > 0
            if warm:
                warm_ratios.append(total / floor)
                first_ratios.append(first / a.latency_s)
            print(
                f"{key:>8} {total:9.2f} {floor:9.2f} {total / floor:6.2f} {first:14.2f} {a.latency_s:15.2f} "
                f"{first / a.latency_s:6.2f}  {'warm' if warm else 'first call: loads the model'}"
            )
        if warm_ratios:
            print(
                f"warm comparison / floor: median {statistics.median(warm_ratios):.2f} (target <= 1.5); "
                f"first side on screen / its call: median {statistics.median(first_ratios):.2f} (setting {args.setting})"
            )
        return 0
    finally:
        demo.close()


if __name__ == "__main__":
    sys.exit(main())
