"""How often the evidence ranking puts the ground truth first (the `baseline:evidence` rule's
tool) and in the prompt's shortlist, by setting, as one of the ranking's features or weights
(`--vary`) takes each of `--weights`.

Measured on generated entries split by category (docs/measuring.md): the validation part
chooses, the held-out part confirms. `--copied` sets the share of functional clusters built as
one API copied under several tools; `--indirect` the share of queries worded away from the gold
API's name and description (`BuildConfig.p_indirect`). `--data` adds the same table for a real
file, to read only once the choice is made.

    .venv/bin/python benchmarks/ranking.py --vary rejected --weights 0,1,1.75 --settings rc
    .venv/bin/python benchmarks/ranking.py --vary rejected --weights 0,1,1.75 --settings rc --copied 0.9
    .venv/bin/python benchmarks/ranking.py --vary cohesion --weights 0,0.5 --settings p
    .venv/bin/python benchmarks/ranking.py --vary opening --weights 1,3,5,20 --settings c
    .venv/bin/python benchmarks/ranking.py --vary rejected --weights 1 --settings prc --indirect 0.4
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from petool import ranking
from petool.bench import BuildConfig, build_parts
from petool.catalog import load_catalog
from petool.formats import load_entries
from petool.prompts import SHORTLIST_SIZE

# which module setting --vary sets
WEIGHTS = {
    "rejected": "REJECTED_LIKENESS_WEIGHT",
    "cohesion": "COHESION_WEIGHT",
    "opening": "OPENING_CALLS_MAX",
    "api-name": "API_NAME_WEIGHT",
    "name-likeness": "NAME_LIKENESS_WEIGHT",
    "description-likeness": "DESCRIPTION_LIKENESS_WEIGHT",
    "twin": "TWIN_WEIGHT",
    "fit-threshold": "FIT_THRESHOLD",
}
INTEGER = {"OPENING_CALLS_MAX"}


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="101,202,303")
    parser.add_argument("--n", type=int, default=600, help="generated entries per part and seed")
    parser.add_argument("--copied", type=float, default=0.0, help="share of clusters built as copies of one API")
    parser.add_argument("--indirect", type=float, default=0.0, help="share of queries worded away from the gold API's docs")
    parser.add_argument("--weights", default="0.5,1,1.5,1.75,2,3")
    parser.add_argument("--settings", default="rc")
    parser.add_argument("--data", help="a real entries file to read the same table on, once the choice is made")
    parser.add_argument("--vary", choices=sorted(WEIGHTS), default="rejected", help="which weight --weights sets")
    args = parser.parse_args()
    catalog = load_catalog()
    parts: dict[str, list] = {"validation": [], "held-out": []}
    for seed in map(int, args.seeds.split(",")):
        built = build_parts(
            catalog,
            BuildConfig(
                seed=seed,
                split_by="category",
                n_train=0,
                n_validation=args.n,
                n_test=args.n,
                p_copied_cluster=args.copied,
                p_indirect=args.indirect,
            ),
        )
        parts["validation"] += built["validation"]
        parts["held-out"] += built["test"]
    if args.data:
        parts["real"] = load_entries(args.data).entries
    settings = args.settings.replace(",", "")
    head = [f"{part} {s}" for part in parts for s in settings]
    name = WEIGHTS[args.vary]
    print(
        f"{args.n} generated entries per part and seed (seeds {args.seeds}, split by category, copied clusters {args.copied:g}, indirect {args.indirect:g})"
        + (f", {len(parts['real'])} real" if args.data else "")
        + f"; % ground truth first / in the first {SHORTLIST_SIZE}, by {name}"
    )
    print(f"| {args.vary} | " + " | ".join(head) + " |")
    print("|---" * (len(head) + 1) + "|")
    for weight in map(float, args.weights.split(",")):
        setattr(ranking, name, int(weight) if name in INTEGER else weight)
        cells = [cell for entries in parts.values() for cell in gold_rank_shares(entries, settings).values()]
        print(f"| {weight:g} | " + " | ".join(f"{first:.1f} / {listed:.1f}" for first, listed in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
