"""What the preferred-only history can tell at most, and where a run's tool choices fall short.

In the preferred-only setting (p) the history holds only calls to tools the user prefers, and a
ground truth's functional equivalents are never among them (docs/petoolbench.md §2). So when the
ground truth's tool is absent from the history, nothing in the prompt tells the cluster's
members apart: a uniform guess inside the cluster is the best any method can expect. The
frequency rule given the oracle cluster reaches exactly that ceiling in expectation; a method
without the oracle must also find the cluster. This script prints the ceiling and splits each
run's tool accuracy by whether the ground truth's tool is in the history.

One more row is a diagnostic, not a method: for each entry, the cluster member that is the
ground truth most often in the *other* entries of the same functional cluster (leave-one-out,
so it uses the benchmark's answers). Across users the benchmark mostly prefers the same tool in
a cluster, so this row shows how much of p's answer lives across entries, where no single
prompt holds it: learning it takes the benchmark's own training split over the same tools.

    .venv/bin/python benchmarks/history_ceiling.py runs/fz_dpo450_p/predictions.jsonl [more runs...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from petool.formats import load_entries  # noqa: E402
from petool.schema import provider_of  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "petoolbench" / "early_test_dev.json.gz"


def history_groups(entries: list, setting: str) -> dict:
    """Per entry key: whether the ground truth's tool is in the history, and the frequency rule's
    hit given the oracle cluster, expected over uniform tie-breaks and with ties going to the
    first-listed option (how docs/petoolbench.md §6's 0.70 in p comes out), and the leave-one-out
    diagnostic's expected hit (the cluster's most frequent gold in the other entries)."""
    golds_by_cluster: dict[str, Counter] = {}
    for e in entries:
        golds_by_cluster.setdefault(_cluster_key(e), Counter())[e.ground_truth.tool_name] += 1
    out = {}
    for e in entries:
        counts = Counter(provider_of(t.call.tool_name) for t in e.history(setting))
        options = e.cluster_candidates() or e.candidates
        scores = {t.name: counts.get(provider_of(t.name), 0) for t in options}
        top = [name for name, s in scores.items() if s == max(scores.values())]
        gold = e.ground_truth.tool_name
        others = golds_by_cluster[_cluster_key(e)].copy()
        others[gold] -= 1  # leave this entry's own answer out
        seen = {t.name: others.get(t.name, 0) for t in options}
        favourites = [name for name, n in seen.items() if n == max(seen.values())]
        out[str(e.key)] = {
            "gold_in_history": counts.get(provider_of(gold), 0) > 0,
            "rule_expected": (gold in top) / len(top),
            "rule_first_listed": float(top[0] == gold),
            "cross_user_expected": (gold in favourites) / len(favourites),
            "cluster": {t.name for t in options},
        }
    return out


def _cluster_key(entry) -> str:
    """The functional cluster an entry's ground truth belongs to: its ``func`` id, or else the
    set of its cluster's API names."""
    if entry.func is not None:
        return f"func:{entry.func}"
    return "apis:" + "|".join(sorted(t.name for t in (entry.cluster_candidates() or entry.candidates)))


def ceiling_rows(groups: dict, runs: dict[str, list[dict]]) -> list[list[str]]:
    """Table rows: the split's sizes, the oracle rule (expected; ties to the first listed), the
    leave-one-out diagnostic, then one per run."""
    split = {flag: [k for k, g in groups.items() if g["gold_in_history"] == flag] for flag in (True, False)}
    pct = lambda hits, n: f"{100 * hits / n:.1f}" if n else "-"  # noqa: E731
    rows = [["entries", str(len(split[True])), str(len(split[False])), str(len(groups)), "", ""]]
    exp = {flag: sum(groups[k]["rule_expected"] for k in keys) for flag, keys in split.items()}
    rows.append(
        [
            "frequency rule, oracle cluster (expected)",
            pct(exp[True], len(split[True])),
            pct(exp[False], len(split[False])),
            pct(exp[True] + exp[False], len(groups)),
            "0",
            "0",
        ]
    )
    first = {flag: sum(groups[k]["rule_first_listed"] for k in keys) for flag, keys in split.items()}
    rows.append(
        [
            "frequency rule, oracle cluster (ties to the first listed)",
            pct(first[True], len(split[True])),
            pct(first[False], len(split[False])),
            pct(first[True] + first[False], len(groups)),
            "0",
            "0",
        ]
    )
    cross = {flag: sum(groups[k]["cross_user_expected"] for k in keys) for flag, keys in split.items()}
    rows.append(
        [
            "the cluster's most frequent gold in the other entries (uses their answers; not a method)",
            pct(cross[True], len(split[True])),
            pct(cross[False], len(split[False])),
            pct(cross[True] + cross[False], len(groups)),
            "0",
            "0",
        ]
    )
    for name, records in runs.items():
        by_key = {str(r["entry_id"]): r for r in records}
        hits = {flag: sum(bool(by_key[k]["tool_ok"]) for k in keys if k in by_key) for flag, keys in split.items()}
        seen = {flag: sum(k in by_key for k in keys) for flag, keys in split.items()}
        outside = {
            flag: sum(((by_key[k].get("call") or {}).get("tool_name") not in groups[k]["cluster"]) for k in keys if k in by_key)
            for flag, keys in split.items()
        }
        rows.append(
            [
                name,
                pct(hits[True], seen[True]),
                pct(hits[False], seen[False]),
                pct(hits[True] + hits[False], seen[True] + seen[False]),
                str(outside[True]),
                str(outside[False]),
            ]
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", help="predictions.jsonl files from petool eval")
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="the entries the runs were scored on")
    ap.add_argument("--setting", default="p")
    args = ap.parse_args(argv)
    if not Path(args.data).exists():
        print(f"no data at {args.data}; pass --data", file=sys.stderr)
        return 2
    groups = history_groups(load_entries(args.data).entries, args.setting)
    runs = {}
    for path in args.runs:
        records = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
        runs[str(Path(path).parent.name or path)] = [r for r in records if r.get("setting") == args.setting]
    head = ["tool accuracy %", "gold's tool in history", "not in history", "all", "outside cluster (in)", "outside cluster (not in)"]
    rows = [head] + ceiling_rows(groups, runs)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for i, row in enumerate(rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
