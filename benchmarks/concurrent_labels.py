"""Concurrent annotators against the running app: is every label stored exactly once?

Starts ``python app.py`` in a subprocess on 127.0.0.1 (rule baseline as the model, a temporary
PETOOL_DB), then N client threads each label M comparisons through the app's API with
gradio_client, the way the browser does: load an entry, run the comparison, send a verdict.
Every label carries a unique comment, so the database check is exact. Prints a table:
labels acknowledged / stored / missing / duplicated, and the latency of a label submission.

    .venv/bin/python benchmarks/concurrent_labels.py --clients 8 --labels 50

The helpers (``start_app``, ``stop_app``, ``label_loop``, ``check_labels``) are shared with
benchmarks/crash_recovery.py and tests/test_reliability.py.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ("A", "B", "tie", "both_bad")
N_GENERATED = 60
"""The app's generated pool holds entries with keys "0".."59" (petool.ui.services._build_generated)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(db_path: str | Path, port: int | None = None, log_path: str | Path | None = None, timeout_s: float = 180,
              extra_env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """``python app.py`` with a rule-baseline model and its own database; returns (process, url)
    once the page answers. The process leads its own session so a kill reaches only it."""
    port = port or free_port()
    env = {
        **os.environ,
        "PETOOL_DB": str(db_path),
        "PETOOL_MODEL": "baseline:rules",
        "PETOOL_ADAPTER": "none",
        "PETOOL_DATA": str(Path(db_path).parent / "no-dev-data"),
        "PETOOL_DEMO": "0",
        "PETOOL_QUEUE": "64",
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        **(extra_env or {}),
    }
    env.pop("SPACE_ID", None)
    log = open(log_path or os.devnull, "ab")
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with code {proc.returncode} while starting (log: {log_path})")
        try:
            with urllib.request.urlopen(url + "config", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    stop_app(proc)
    raise RuntimeError(f"the app did not answer within {timeout_s} s (log: {log_path})")


def stop_app(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to the app (SIGKILL = a crash) and wait for it to be gone."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


@dataclass
class ClientLog:
    """What one client saw: comments of acknowledged labels, submission latencies, errors."""

    acked: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def label_loop(url: str, worker: int, n_labels: int, out: ClientLog, stop: threading.Event | None = None,
               setting: str = "p") -> ClientLog:
    """One annotator: ``n_labels`` times load an entry, compare, send a verdict (comment
    ``w<worker>-<i>``). Stops early on ``stop`` or when the app goes away."""
    from gradio_client import Client

    try:
        client = Client(url, verbose=False, download_files=False)
    except Exception as exc:  # the app died before we connected
        out.errors.append(f"connect: {type(exc).__name__}: {exc}")
        return out
    for i in range(n_labels):
        if stop is not None and stop.is_set():
            break
        key = str((worker * 7 + i) % N_GENERATED)
        comment = f"w{worker}-{i}"
        try:
            client.predict("generated", key, setting, api_name="/load_entry")
            client.predict(setting, "base", "baseline:nohistory", False, api_name="/compare")
            t0 = time.perf_counter()
            client.predict(f"annotator-{worker}", [], comment, "", api_name=f"/label_{VERDICTS[i % 4]}")
            out.latencies.append(time.perf_counter() - t0)
            out.acked.append(comment)
        except Exception as exc:
            out.errors.append(f"{comment}: {type(exc).__name__}: {str(exc)[:200]}")
            if stop is not None and stop.is_set():
                break
    return out


def stored_comments(db_path: str | Path) -> Counter:
    """How many label rows carry each comment (read with a plain sqlite3 connection)."""
    conn = sqlite3.connect(str(db_path), timeout=30)
    try:
        return Counter(r[0] for r in conn.execute("SELECT comment FROM labels"))
    finally:
        conn.close()


def integrity(db_path: str | Path) -> str:
    conn = sqlite3.connect(str(db_path), timeout=30)
    try:
        return "; ".join(str(r[0]) for r in conn.execute("PRAGMA integrity_check"))
    finally:
        conn.close()


def check_labels(db_path: str | Path, logs: list[ClientLog]) -> dict:
    """Acknowledged vs stored: missing = acknowledged but absent, duplicated = stored twice or more."""
    stored = stored_comments(db_path)
    acked = [c for log in logs for c in log.acked]
    return {
        "acknowledged": len(acked),
        "stored": sum(stored.values()),
        "missing": sorted(c for c in acked if stored[c] == 0),
        "duplicated": sorted(c for c, n in stored.items() if n > 1),
        "unacknowledged_stored": sorted(c for c in stored if c not in set(acked)),
    }


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[k]


def run(clients: int, labels: int, folder: Path) -> dict:
    db = folder / "petool.db"
    proc, url = start_app(db, log_path=folder / "app.log")
    try:
        logs = [ClientLog() for _ in range(clients)]
        threads = [threading.Thread(target=label_loop, args=(url, w, labels, logs[w])) for w in range(clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    finally:
        stop_app(proc)
    result = check_labels(db, logs)
    lat = [x for log in logs for x in log.latencies]
    result.update(
        expected=clients * labels, wall_s=wall, errors=[e for log in logs for e in log.errors],
        p50_ms=1000 * percentile(lat, 0.5), p95_ms=1000 * percentile(lat, 0.95), max_ms=1000 * max(lat or [float("nan")]),
        integrity=integrity(db),
    )
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--labels", type=int, default=50, help="labels per client")
    ap.add_argument("--keep", help="folder for the database and app log (default: a temporary one)")
    args = ap.parse_args(argv)
    if args.keep:
        folder = Path(args.keep)
        folder.mkdir(parents=True, exist_ok=True)
        r = run(args.clients, args.labels, folder)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            r = run(args.clients, args.labels, Path(tmp))
    print(f"| clients | labels each | expected | acknowledged | stored | missing | duplicated | errors | "
          f"label p50 ms | label p95 ms | label max ms | wall s | labels/s | integrity |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {args.clients} | {args.labels} | {r['expected']} | {r['acknowledged']} | {r['stored']} | {len(r['missing'])} | "
          f"{len(r['duplicated'])} | {len(r['errors'])} | {r['p50_ms']:.0f} | {r['p95_ms']:.0f} | {r['max_ms']:.0f} | "
          f"{r['wall_s']:.1f} | {r['stored'] / r['wall_s']:.1f} | {r['integrity']} |")
    for e in r["errors"][:10]:
        print("error:", e)
    ok = (r["acknowledged"] == r["expected"] == r["stored"] and not r["missing"] and not r["duplicated"]
          and r["integrity"] == "ok")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
