"""Crash recovery: SIGKILL the app in the middle of labelling, restart it, check the labels.

Each round starts ``python app.py`` on the same database (rule baseline as the model), lets
several clients label through the API, kills the app with SIGKILL at a random moment, and then
checks, before and after a restart:

- ``PRAGMA integrity_check`` is ``ok``;
- every label the app acknowledged before the kill is stored, none twice;
- the app starts again on that database (no manual repair) and accepts a new label.

Labels committed whose acknowledgement was lost in the kill are counted ("in flight") and are
fine: the annotator saw no confirmation and the row is whole.

    .venv/bin/python benchmarks/crash_recovery.py --rounds 5 --clients 4
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from concurrent_labels import ClientLog, check_labels, integrity, label_loop, start_app, stop_app  # noqa: E402


def crash_round(db: Path, folder: Path, round_no: int, clients: int, kill_after_s: float) -> dict:
    """One round: label, SIGKILL ``kill_after_s`` after the first acknowledged label, check; the
    logs keep comments unique per round."""
    t0 = time.perf_counter()
    proc, url = start_app(db, log_path=folder / f"app-{round_no}.log")
    start_s = time.perf_counter() - t0
    stop = threading.Event()
    logs = [ClientLog() for _ in range(clients)]
    threads = [threading.Thread(target=label_loop, args=(url, 100 * round_no + w, 10_000, logs[w], stop)) for w in range(clients)]
    for t in threads:
        t.start()
    # Kill only once labelling is under way: on a loaded machine the first acknowledgement can
    # take longer than kill_after_s, and a kill before it would test nothing.
    deadline = time.perf_counter() + 120
    while not any(log.acked for log in logs) and time.perf_counter() < deadline:
        time.sleep(0.1)
    time.sleep(kill_after_s)
    stop_app(proc, signal.SIGKILL)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    ok_after_kill = integrity(db)
    result = check_labels(db, logs)
    round_acked = {c for log in logs for c in log.acked}
    prefix = tuple(f"w{100 * round_no + w}-" for w in range(clients))
    in_flight = [c for c in result["unacknowledged_stored"] if c.startswith(prefix) and c not in round_acked]
    # Restart on the same file: it must come up and take a label without any repair.
    t0 = time.perf_counter()
    proc, url = start_app(db, log_path=folder / f"app-{round_no}-restart.log")
    restart_s = time.perf_counter() - t0
    probe = ClientLog()
    label_loop(url, 100 * round_no + 99, 1, probe)
    stop_app(proc)
    return {
        "round": round_no,
        "kill_after_s": kill_after_s,
        "start_s": start_s,
        "restart_s": restart_s,
        "acked": len(round_acked),
        "missing": len(result["missing"]),
        "duplicated": len(result["duplicated"]),
        "in_flight": len(in_flight),
        "integrity_after_kill": ok_after_kill,
        "integrity_after_restart": integrity(db),
        "label_after_restart": len(probe.acked) == 1,
        "probe_errors": probe.errors,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--min-s", type=float, default=3.0, help="earliest kill, seconds after the app answers")
    ap.add_argument("--max-s", type=float, default=10.0, help="latest kill")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", help="folder for the database and app logs (default: a temporary one)")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        db = folder / "petool.db"
        rows = [crash_round(db, folder, r, args.clients, rng.uniform(args.min_s, args.max_s)) for r in range(1, args.rounds + 1)]
    print(
        "| round | kill after s | acknowledged | missing | duplicated | committed in flight | integrity after kill | "
        "restart s | integrity after restart | label after restart |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['round']} | {r['kill_after_s']:.1f} | {r['acked']} | {r['missing']} | {r['duplicated']} | {r['in_flight']} | "
            f"{r['integrity_after_kill']} | {r['restart_s']:.1f} | {r['integrity_after_restart']} | {r['label_after_restart']} |"
        )
        for e in r["probe_errors"]:
            print("  probe error:", e)
    ok = all(
        r["missing"] == 0
        and r["duplicated"] == 0
        and r["integrity_after_kill"] == "ok"
        and r["integrity_after_restart"] == "ok"
        and r["label_after_restart"]
        for r in rows
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
