"""How often the evidence ranking puts the ground truth first (and in the prompt's shortlist), by
setting and by the weight of likeness to the tools the user turned away from
(`petool.ranking.REJECTED_LIKENESS_WEIGHT`) or, with `--vary cohesion`, of likeness to another
tool's candidate where the history turns none away (`petool.ranking.COHESION_WEIGHT`), or, with
`--vary unaddressed --weights 0,1`, whether candidates needing a web address the query lacks go
last (`petool.ranking.DEMOTE_UNADDRESSED`).

The weight is chosen on generated entries; `--copied` sets the share of functional clusters
built as one API copied under several tools, as PEToolBench's are (48 of the 52 clusters of the
real dev entries). `--data` adds the same table for a real file, read after the choice.

    .venv/bin/python benchmarks/ranking.py --copied 0.9 --weights 1,1.5,1.75,2
    .venv/bin/python benchmarks/ranking.py --copied 0 --data ../shared/petoolbench/early_test_dev.json.gz
    .venv/bin/python benchmarks/ranking.py --vary cohesion --weights 0,0.25,0.5,1,2 --settings p
    .venv/bin/python benchmarks/ranking.py --vary unaddressed --weights 0,1 --settings prc
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from petool import ranking  # noqa: E402
from petool.prompts import SHORTLIST_SIZE  # noqa: E402

# which module setting --vary sets; DEMOTE_UNADDRESSED is on or off (--weights 0,1)
WEIGHTS = {"rejected": "REJECTED_LIKENESS_WEIGHT", "cohesion": "COHESION_WEIGHT", "unaddressed": "DEMOTE_UNADDRESSED"}


def gold_rank_shares(entries: list, settings: str) -> dict[str, tuple[float, float]]:
    """Per setting, the % of entries whose ground truth the ranking puts first, and in the first
    ``SHORTLIST_SIZE`` (the candidates a shortlist prompt shows)."""
    out = {}
    for s in settings:
        rows = [e for e in entries if s in e.settings]
        ranks = [[t.name for t, _, _ in ranking.rank_candidates(e, s)].index(e.ground_truth.tool_name) for e in rows]
        n = max(len(rows), 1)
        out[s] = (100 * sum(r == 0 for r in ranks) / n, 100 * sum(r < SHORTLIST_SIZE for r in ranks) / n)
    return out


def main() -> None:
    from petool.bench import BuildConfig, build_entries
    from petool.catalog import load_catalog
    from petool.formats import load_entries

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="101,202,303")
    parser.add_argument("--n", type=int, default=600, help="generated test entries per seed")
    parser.add_argument("--copied", type=float, default=0.9, help="share of clusters built as copies of one API")
    parser.add_argument("--weights", default="0.5,1,1.5,1.75,2,3")
    parser.add_argument("--settings", default="rc")
    parser.add_argument("--data", help="a real entries file to read the same table on")
    parser.add_argument("--vary", choices=sorted(WEIGHTS), default="rejected", help="which weight --weights sets")
    args = parser.parse_args()
    catalog = load_catalog()
    generated = []
    for seed in map(int, args.seeds.split(",")):
        generated += build_entries(catalog, BuildConfig(seed=seed, n_train=0, n_test=args.n, p_copied_cluster=args.copied))[1]
    real = load_entries(args.data).entries if args.data else []
    settings = args.settings.replace(",", "")
    head = [f"generated {s}" for s in settings] + [f"real {s}" for s in settings if real]
    print(f"{len(generated)} generated entries (copied clusters {args.copied:g})" + (f", {len(real)} real" if real else "")
          + f"; % ground truth first / in the first {SHORTLIST_SIZE}, by {WEIGHTS[args.vary]}")
    print("| weight | " + " | ".join(head) + " |")
    print("|---" * (len(head) + 1) + "|")
    for weight in map(float, args.weights.split(",")):
        setattr(ranking, WEIGHTS[args.vary], weight)
        cells = list(gold_rank_shares(generated, settings).values()) + (list(gold_rank_shares(real, settings).values()) if real else [])
        print(f"| {weight:g} | " + " | ".join(f"{first:.1f} / {listed:.1f}" for first, listed in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
