"""Time from "Run comparison" to both calls shown, through the running app's API, real model.

Starts ``app.py`` (bundled base model + shipped PEToolLLaMA adapter unless PETOOL_ADAPTER says
otherwise) on 127.0.0.1 with a temporary database, loads real dev entries (or generated ones when
../shared is absent), and times the ``/compare`` endpoint: the first call includes loading the
model, later ones are warm. Prints one table.

    .venv/bin/python benchmarks/app_latency.py --entries 3
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=3)
    parser.add_argument("--setting", default="r")
    args = parser.parse_args()
    from gradio_client import Client

    port = free_port()
    tmp = tempfile.mkdtemp(prefix="petool-latency-")
    env = {**os.environ, "PETOOL_DB": f"{tmp}/petool.db", "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
    app = subprocess.Popen([sys.executable, str(ROOT / "app.py")], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        client = None
        deadline = time.time() + 180
        while client is None and time.time() < deadline:
            try:
                client = Client(f"http://127.0.0.1:{port}/", verbose=False, download_files=False)
            except Exception:
                time.sleep(1)
        if client is None:
            print("the app did not start within 180 s")
            return 1
        dev = ROOT.parent / "shared" / "petoolbench" / "early_test_dev.json.gz"
        source = "dev (real test entries)" if dev.exists() else "generated"
        from petool.formats import load_entries

        keys = [e.key for e in load_entries(dev).entries[: args.entries]] if dev.exists() else None
        rows = []
        for i in range(args.entries):
            key = keys[i] if keys else str(i)
            client.predict(source, key, args.setting, api_name="/load_entry")
            t0 = time.perf_counter()
            html_a, html_b, summary, _ = client.predict(args.setting, "base", "PEToolLLaMA", False, api_name="/compare")
            rows.append((key, time.perf_counter() - t0, "error" in (html_a + html_b).lower()))
        print(f"{'entry':>8}  {'click to both calls (s)':>24}  note")
        for n, (key, secs, err) in enumerate(rows):
            print(f"{key:>8}  {secs:24.1f}  {'first call: loads the model' if n == 0 else 'warm'}{'  (an error was shown)' if err else ''}")
        warm = [s for _, s, _ in rows[1:]]
        if warm:
            print(f"warm median: {statistics.median(warm):.1f} s over {len(warm)} entries (setting {args.setting}, source {source})")
        return 0
    finally:
        app.terminate()
        app.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
