"""Concurrent annotators against the running app: is every label stored exactly once?

Starts ``python app.py`` in a subprocess on 127.0.0.1 (rule baseline as the model, a temporary
PETOOL_DB), then N client threads each label M comparisons through the app's API with
gradio_client, the way the browser does: load an entry, run the comparison, send a verdict.
Every label carries a unique comment, so the database check is exact. Prints a table:
labels acknowledged / stored / missing / duplicated, and the latency of a label submission.

    .venv/bin/python benchmarks/concurrent_labels.py --clients 8 --labels 50

Load mode: ``--readers 0,4 --seed-labels 2000`` first fills a database with that many labels
(and a stored evaluation run), then runs the annotators once per reader count on a copy of it,
while that many anonymous clients loop on the heaviest public reads (``/pairs``,
``/dashboards``, ``/predictions``). One row per reader count: the label latency, the reads
served, and the app's resident memory before the load and at its peak. Writes must stay fast:
label p95 with readers at most ``--max-ratio`` times the p95 without, and memory flat (the app's
peak while the annotators label at most ``--max-growth`` times its memory when they start).

The helpers (``start_app``, ``stop_app``, ``label_loop``, ``check_labels``) are shared with
benchmarks/crash_recovery.py and tests/test_reliability.py.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from petool.prompts import render_system_prompt
from petool.store import Store
from petool.ui.services import _build_generated

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ("A", "B", "tie", "both_bad")
N_GENERATED = 60
"""The app's generated pool holds entries with keys "0".."59" (petool.ui.services._build_generated)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(
    db_path: str | Path, port: int | None = None, log_path: str | Path | None = None, timeout_s: float = 180, extra_env: dict | None = None
) -> tuple[subprocess.Popen, str]:
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
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
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


def label_loop(url: str, worker: int, n_labels: int, out: ClientLog, stop: threading.Event | None = None, setting: str = "p") -> ClientLog:
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
        except Exception as exc:  # noqa: BLE001 -- every failed call is counted as an error
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


PUBLIC_READS = (
    ("/pairs", ("ground_truth", "drop")),
    ("/dashboards", ([], [], [])),
    ("/predictions", (None, None, None, None, None, None, True)),
)
"""The heaviest reads an anonymous visitor can start: each derives its view from every label or prediction."""


@dataclass
class ReaderLog:
    """What one anonymous reader saw: how many reads it completed, their latencies, errors."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def read_loop(url: str, worker: int, stop: threading.Event, out: ReaderLog) -> ReaderLog:
    """One anonymous visitor reloading the public views, one after another, until ``stop``."""
    from gradio_client import Client

    try:
        client = Client(url, verbose=False, download_files=False)
    except Exception as exc:  # noqa: BLE001 -- any failure to connect is reported, not raised
        out.errors.append(f"connect: {type(exc).__name__}: {exc}")
        return out
    i = worker  # readers start on different views
    while not stop.is_set():
        api, args = PUBLIC_READS[i % len(PUBLIC_READS)]
        i += 1
        t0 = time.perf_counter()
        try:
            client.predict(*args, api_name=api)
            out.latencies.append(time.perf_counter() - t0)
        except Exception as exc:  # noqa: BLE001 -- every failed call is counted as an error
            out.errors.append(f"{api}: {type(exc).__name__}: {str(exc)[:200]}")
            stop.wait(0.5)
    return out


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (Linux /proc), nan when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def seed_store(db_path: Path, n_labels: int) -> None:
    """``n_labels`` labels on the app's generated entries (each label keeps its whole entry and
    rendered prompt, as the app stores them) and one evaluation run with a prediction per
    entry and setting, written through petool's own Store."""

    entries = _build_generated()
    if not entries:
        raise RuntimeError("the generated pool is empty: the tool catalog is missing")
    store = Store(db_path)
    try:
        prompts: dict = {}
        for i in range(n_labels):
            entry, setting = entries[i % len(entries)], "prc"[i % 3]
            prompt = prompts.setdefault((entry.key, setting), render_system_prompt(entry, setting, "paper"))
            other = next((t.name for t in entry.candidates if t.name != entry.ground_truth.tool_name), "none")
            store.add_label(
                annotator=f"seed-{i % 8}",
                entry=entry,
                setting=setting,
                prompt=prompt,
                model_a="base",
                model_b="tuned",
                call_a=entry.ground_truth,
                call_b={"tool_name": other, "parameters": {}},
                verdict=VERDICTS[i % 4],
                comment=f"seed-{i}",
            )
        predictions = [
            {
                "entry_id": e.key,
                "setting": s,
                "model": model,
                "raw": "",
                "call": e.ground_truth.to_json(),
                "tool_ok": (j + k) % 3 != 0,
                "params_ok": (j + k) % 4 != 0,
                "error": "ok" if (j + k) % 3 else "tool:wrong",
                "category": e.category,
                "history_length": e.history_length,
            }
            for j, e in enumerate(entries)
            for k, s in enumerate(("p", "r", "c", "none"))
            for model in ("base", "tuned")
        ]
        store.save_run({"id": "seed-run", "model": "base, tuned", "settings": ["p", "r", "c", "none"]}, predictions)
    finally:
        store.close()


def copy_db(source: Path, target: Path) -> None:
    src, dst = sqlite3.connect(str(source)), sqlite3.connect(str(target))
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def run(clients: int, labels: int, folder: Path, readers: int = 0, seed: Path | None = None, warmup_s: float = 5.0) -> dict:
    db = folder / "petool.db"
    if seed is not None:
        copy_db(seed, db)
    seeded = len(stored_comments(db)) if db.exists() else 0
    proc, url = start_app(db, log_path=folder / "app.log")
    rss_idle = rss_mb(proc.pid)
    stop = threading.Event()
    memory: list[float] = []
    try:
        reader_logs = [ReaderLog() for _ in range(readers)]
        reader_threads = [threading.Thread(target=read_loop, args=(url, w, stop, reader_logs[w])) for w in range(readers)]
        for t in reader_threads:
            t.start()
        if readers:
            # Let every reader get going (a first pass over each view) before the annotators start.
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and sum(len(r.latencies) for r in reader_logs) < readers:
                time.sleep(0.2)
            time.sleep(warmup_s)
        rss_start = rss_mb(proc.pid)
        sampler = threading.Thread(target=_sample_memory, args=(proc.pid, stop, memory), daemon=True)
        sampler.start()
        logs = [ClientLog() for _ in range(clients)]
        threads = [threading.Thread(target=label_loop, args=(url, w, labels, logs[w])) for w in range(clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        reads_during = sum(len(r.latencies) for r in reader_logs)
    finally:
        stop.set()
        for t in reader_threads:
            t.join(timeout=120)
        stop_app(proc)
    result = check_labels(db, logs)
    lat = [x for log in logs for x in log.latencies]
    read_lat = [x for r in reader_logs for x in r.latencies]
    result.update(
        expected=seeded + clients * labels,
        wall_s=wall,
        errors=[e for log in logs for e in log.errors],
        p50_ms=1000 * percentile(lat, 0.5),
        p95_ms=1000 * percentile(lat, 0.95),
        max_ms=1000 * max(lat or [float("nan")]),
        integrity=integrity(db),
        readers=readers,
        seeded=seeded,
        reads=reads_during,
        read_p50_ms=1000 * percentile(read_lat, 0.5),
        read_errors=[e for r in reader_logs for e in r.errors],
        rss_idle_mb=rss_idle,
        rss_start_mb=rss_start,
        rss_peak_mb=max(memory or [rss_start]),
    )
    # The seeded labels were never acknowledged by a client: count them as expected and stored.
    result["acknowledged"] += seeded
    result["unacknowledged_stored"] = [c for c in result["unacknowledged_stored"] if not c.startswith("seed-")]
    return result


def _sample_memory(pid: int, stop: threading.Event, out: list[float]) -> None:
    while not stop.is_set():
        out.append(rss_mb(pid))
        stop.wait(0.25)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--labels", type=int, default=50, help="labels per client")
    ap.add_argument("--readers", default="0", help="anonymous readers looping on the public reads; a comma list runs each")
    ap.add_argument("--seed-labels", type=int, default=0, help="labels in the database before the clients start")
    ap.add_argument("--max-ratio", type=float, default=2.0, help="label p95 with readers / without, at most")
    ap.add_argument("--max-growth", type=float, default=1.5, help="peak memory / memory when the labelling starts, at most")
    ap.add_argument("--keep", help="folder for the databases and app logs (default: a temporary one)")
    args = ap.parse_args(argv)
    reader_counts = [int(x) for x in args.readers.split(",") if x.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        root.mkdir(parents=True, exist_ok=True)
        seed = None
        if args.seed_labels:
            seed = root / "seed.db"
            seed.unlink(missing_ok=True)
            t0 = time.perf_counter()
            seed_store(seed, args.seed_labels)
            print(f"seeded {args.seed_labels} labels in {time.perf_counter() - t0:.1f} s")
        results = []
        for n in reader_counts:
            folder = root / f"readers-{n}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "petool.db").unlink(missing_ok=True)
            results.append(run(args.clients, args.labels, folder, readers=n, seed=seed))
    print(
        "| readers | clients | labels each | seeded | expected | acknowledged | stored | missing | duplicated | errors | "
        "label p50 ms | label p95 ms | label max ms | wall s | labels/s | reads | read p50 ms | RSS idle MB | RSS start MB | "
        "RSS peak MB | integrity |"
    )
    print("|" + "---|" * 21)
    ok = True
    for r in results:
        new = r["stored"] - r["seeded"]
        print(
            f"| {r['readers']} | {args.clients} | {args.labels} | {r['seeded']} | {r['expected']} | {r['acknowledged']} | "
            f"{r['stored']} | {len(r['missing'])} | {len(r['duplicated'])} | {len(r['errors'])} | {r['p50_ms']:.0f} | "
            f"{r['p95_ms']:.0f} | {r['max_ms']:.0f} | {r['wall_s']:.1f} | {new / r['wall_s']:.1f} | {r['reads']} | "
            f"{r['read_p50_ms']:.0f} | {r['rss_idle_mb']:.0f} | {r['rss_start_mb']:.0f} | {r['rss_peak_mb']:.0f} | {r['integrity']} |"
        )
        for e in (r["errors"] + r["read_errors"])[:10]:
            print("error:", e)
        ok &= r["acknowledged"] == r["expected"] == r["stored"] and not r["missing"] and not r["duplicated"] and r["integrity"] == "ok"
    base = next((r for r in results if r["readers"] == 0), None)
    for r in results:
        if base is None or r is base:
            continue
        ratio = r["p95_ms"] / base["p95_ms"]
        growth = r["rss_peak_mb"] / r["rss_start_mb"]
        held = ratio <= args.max_ratio and growth <= args.max_growth and not r["read_errors"]
        print(
            f"{r['readers']} readers: label p95 {ratio:.2f}x the p95 without readers (at most {args.max_ratio}), "
            f"peak memory {growth:.2f}x its start (at most {args.max_growth}), {len(r['read_errors'])} read errors: "
            f"{'held' if held else 'NOT held'}"
        )
        ok &= held
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
