"""Functional fit alone: how often each fit scorer's best candidate lies in the ground truth's
functional cluster, and where it ranks the ground truth (issue 28: what fails off the dev file
is functional fit, not history).

The fit ignores the history, so one pass per entry measures it. Scorers:

- ``lexical``: ``petool.ranking.fit_scores`` (TF-IDF word overlap, API name words weighted,
  likeness to fitting twins), the fit the ranking uses;
- ``pmi``: the bundled base model's log-likelihood of the instruction given each candidate's
  documentation (API name, description, parameter names) minus its log-likelihood without it,
  per instruction token, over the lexical fit's first ``--k`` candidates (the rest keep their
  lexical order below them);
- ``lexical+pmi@W``: lexical fit plus W times the PMI (the first K candidates, re-ordered);
- ``learned``: a linear listwise (softmax) scorer over lexical features (and the PMI with
  ``--pmi``), trained on the build's generated TRAIN part to put the cluster's members first;
  ``lexical+learned@W`` adds it to the lexical fit at weight W.

Parts: generated validation (chooses) and held-out (confirms), split by category
(docs/measuring.md), and "seen" (the train part's first ``--n`` entries) on request;
``--data`` adds a real file, to read only once the choice is made.
``--indirect SHARE`` words that share of the generated queries away from the gold's name and
description (``BuildConfig.p_indirect``, ``petool.indirect``): the build's other draws stay
the same, so the parts at two shares differ only in those queries.
``--stripped`` also measures every part with the instructions' words that occur in the ground
truth's own name, description or parameter names removed: generated instructions are written
from the APIs' descriptions, so word overlap is flattered on them; a scorer that matches
meaning should lose less there.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/fit_scorers.py --seed 101 --n 300
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/fit_scorers.py --seed 101 --n 300 --pmi --cache runs/pmi_cache.json
    .venv/bin/python benchmarks/fit_scorers.py --seed 101 --n 300 --n-train 300 --scorers lexical --parts seen,validation,held-out --indirect 0.5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from petool import ranking
from petool.bench import BuildConfig, build_parts
from petool.catalog import load_catalog
from petool.formats import load_entries
from petool.query import words
from petool.schema import Entry, Tool

SHORTLIST = 4
# the lexical fit as the ranking has it, kept here: --ranking swaps the ranking's own for a combination
LEXICAL_FIT = ranking.fit_scores


# ---------------------------------------------------------------- measures


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a proportion k / n, in %."""
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (100 * (centre - half), 100 * (centre + half))


def order(scores: dict[str, float], candidates: list[Tool]) -> list[str]:
    """Candidate names best first; equal scores keep the entry's order (as the ranking does)."""
    return [t.name for t in sorted(candidates, key=lambda t: scores[t.name], reverse=True)]


def fit_outcomes(entry: Entry, scores: dict[str, float]) -> tuple[bool, int]:
    """(the best-scored candidate lies in the gold's cluster, the gold's 1-based rank)."""
    names = order(scores, entry.candidates)
    cluster = {t.name for t in entry.cluster_candidates()}
    return names[0] in cluster, names.index(entry.ground_truth.tool_name) + 1


def summary(outcomes: list[tuple[bool, int]]) -> dict:
    n = len(outcomes)
    in_cluster = sum(c for c, _ in outcomes)
    first = sum(r == 1 for _, r in outcomes)
    return {
        "n": n,
        "cluster_first": 100 * in_cluster / max(n, 1),
        "cluster_ci": wilson(in_cluster, n),
        "gold_first": 100 * first / max(n, 1),
        "gold_listed": 100 * sum(r <= SHORTLIST for _, r in outcomes) / max(n, 1),
        "gold_mean_rank": sum(r for _, r in outcomes) / max(n, 1),
    }


def paired(a: list[tuple[bool, int]], b: list[tuple[bool, int]]) -> str:
    """Paired comparison of cluster-first between two scorers on the same entries: entries only
    b gets right / only a gets right, and the exact two-sided sign-test p-value."""
    gain = sum(y and not x for (x, _), (y, _) in zip(a, b, strict=True))
    loss = sum(x and not y for (x, _), (y, _) in zip(a, b, strict=True))
    n = gain + loss
    tail = sum(math.comb(n, i) for i in range(0, min(gain, loss) + 1)) / 2**n if n else 1.0
    return f"+{gain} / -{loss} (sign test p = {min(1.0, 2 * tail):.3f})"


# ---------------------------------------------------------------- lexical features


def _params(tool: Tool):
    return tool.required_parameters + tool.optional_parameters


def _overlap(q: set[str], doc: set[str], idf: dict[str, float]) -> float:
    return sum(idf[w] for w in q & doc)


def _char_grams(text: str, n: int = 3) -> Counter:
    text = " " + re.sub(r"[^a-z0-9]+", " ", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()).strip() + " "
    return Counter(text[i : i + n] for i in range(len(text) - n + 1))


def _cosine(a: Counter, b: Counter) -> float:
    dot = sum(v * b[k] for k, v in a.items() if k in b)
    return dot / (math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values())) or 1.0)


FEATURES = [
    "lexical",
    "lexical_no_twins",
    "name",
    "description",
    "param_names",
    "param_descriptions",
    "bm25",
    "char3_name",
    "char3_text",
    "coverage",
    "inverse_lexical_rank",
]


def lexical_features(query: str, candidates: list[Tool]) -> np.ndarray:
    """One row per candidate, one column per ``FEATURES`` name, each scaled within the entry."""
    q = set(words(query))
    fields = {
        "name": [set(words(ranking.api_name(t))) for t in candidates],
        "description": [set(words(t.description)) for t in candidates],
        "param_names": [set(w for p in _params(t) for w in words(p.name)) for t in candidates],
        "param_descriptions": [set(w for p in _params(t) for w in words(p.description)) for t in candidates],
    }
    texts = [words(ranking.tool_text(t)) for t in candidates]
    n = len(candidates)
    df = Counter(w for doc in texts for w in set(doc))
    idf = {w: math.log((n + 1) / (df[w] + 0.5)) for w in q}
    cols = {}
    lex = LEXICAL_FIT(query, candidates)
    cols["lexical"] = [lex[t.name] for t in candidates]
    lex0 = LEXICAL_FIT(query, candidates, twin_weight=0)
    cols["lexical_no_twins"] = [lex0[t.name] for t in candidates]
    for name, sets in fields.items():
        cols[name] = [_overlap(q, s, idf) for s in sets]
    avg = sum(len(d) for d in texts) / max(n, 1)
    bm = []
    for doc in texts:
        tf = Counter(doc)
        bm.append(sum(idf[w] * tf[w] * 2.2 / (tf[w] + 1.2 * (0.25 + 0.75 * len(doc) / (avg or 1))) for w in q if w in tf))
    cols["bm25"] = bm
    qg = _char_grams(query)
    cols["char3_name"] = [_cosine(qg, _char_grams(ranking.api_name(t))) for t in candidates]
    cols["char3_text"] = [_cosine(qg, _char_grams(f"{ranking.api_name(t)} {t.description}")) for t in candidates]
    cols["coverage"] = [len(q & set(doc)) / (len(q) or 1) for doc in texts]
    ranked = order(lex, candidates)
    cols["inverse_lexical_rank"] = [1.0 / (ranked.index(t.name) + 1) for t in candidates]
    x = np.array([cols[f] for f in FEATURES], dtype=float).T
    top = x.max(axis=0)
    return x / np.where(top > 0, top, 1.0)


# ---------------------------------------------------------------- the base model's PMI


def api_doc(tool: Tool) -> str:
    """What the model reads of a candidate: its API name, description and parameter names."""
    params = ", ".join(p.name for p in _params(tool)) or "none"
    return f"API: {ranking.api_name(tool)}\nDescription: {tool.description.strip()}\nParameters: {params}\n"


class PMIScorer:
    """Log-likelihood of the instruction given each candidate's documentation minus without it,
    per instruction token, from a causal LM; results cached per (documentation, instruction)."""

    def __init__(self, model, tokenizer, cache: dict | None = None):
        self.model, self.tokenizer = model, tokenizer
        self.cache = cache if cache is not None else {}
        self.seconds, self.calls = 0.0, 0

    @staticmethod
    def key(doc: str, query: str) -> str:
        return hashlib.sha1(f"{doc}\x00{query}".encode()).hexdigest()[:20]

    def __call__(self, query: str, tools: list[Tool]) -> dict[str, float]:
        docs = [api_doc(t) for t in tools]
        todo = [d for d in dict.fromkeys(docs + [""]) if self.key(d, query) not in self.cache]
        if todo:
            t0 = time.perf_counter()
            for d, ll in zip(todo, self._log_likelihoods(query, todo), strict=True):
                self.cache[self.key(d, query)] = ll
            self.seconds += time.perf_counter() - t0
            self.calls += 1
        null = self.cache[self.key("", query)]
        return {t.name: self.cache[self.key(d, query)] - null for t, d in zip(tools, docs, strict=True)}

    def _log_likelihoods(self, query: str, docs: list[str]) -> list[float]:
        import torch

        tok = self.tokenizer
        head = tok("Request:", add_special_tokens=False)["input_ids"]
        q = tok(" " + query.strip(), add_special_tokens=False)["input_ids"]
        seqs = [tok(d, add_special_tokens=False)["input_ids"] + head if d else head for d in docs]
        # left-padded so that every row ends with the instruction: only its positions' logits
        # are computed (the vocabulary projection is a large share of the cost)
        longest = max(len(s) for s in seqs) + len(q)
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        ids = torch.full((len(seqs), longest), pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), longest), dtype=torch.long)
        for i, s in enumerate(seqs):
            row = s + q
            ids[i, longest - len(row) :] = torch.tensor(row)
            mask[i, longest - len(row) :] = 1
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
        with torch.no_grad():
            logits = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, logits_to_keep=len(q) + 1).logits
        logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
        target = torch.tensor(q).expand(len(seqs), -1).unsqueeze(-1)
        return (logp.gather(-1, target).squeeze(-1).sum(dim=1) / len(q)).tolist()


def load_pmi(cache_path: Path | None) -> PMIScorer:
    import torch

    from petool.models import load_base, resolve_model

    torch.set_num_threads(1)

    model, tokenizer, _ = load_base(resolve_model("default"), device="cpu")
    cache = json.loads(cache_path.read_text()) if cache_path and cache_path.exists() else {}
    return PMIScorer(model, tokenizer, cache)


def pmi_feature(query: str, candidates: list[Tool], pmi: PMIScorer, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(PMI relative to the best of the lexical first k, 0 there; -1 below them) and a 0/1 column
    marking the candidates re-scored."""
    lex = LEXICAL_FIT(query, candidates)
    top = order(lex, candidates)[:k]
    scores = pmi(query, [t for t in candidates if t.name in top])
    best = max(scores.values())
    col = np.array([scores[t.name] - best if t.name in scores else -1.0 for t in candidates])
    return col, np.array([float(t.name in scores) for t in candidates])


# ---------------------------------------------------------------- the learned scorer


def train_listwise(xs: list[np.ndarray], targets: list[np.ndarray], l2: float = 1e-3, steps: int = 600, lr: float = 0.5) -> np.ndarray:
    """Weights of a linear scorer whose softmax over each entry's candidates puts its mass on
    the target candidates (full-batch gradient descent on the mean negative log of that mass)."""
    w = np.zeros(xs[0].shape[1])
    for _ in range(steps):
        grad = l2 * w
        for x, t in zip(xs, targets, strict=True):
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            q = p * t
            q /= q.sum()
            grad += x.T @ (p - q) / len(xs)
        w -= lr * grad
    return w


def strip_gold_words(entry: Entry) -> Entry:
    """The entry with the instruction's words that occur in the gold's own name, description or
    parameter names removed (values and other words stay)."""
    gold = entry.candidate(entry.ground_truth.tool_name)
    own = set(words(f"{ranking.api_name(gold)} {gold.description} {' '.join(gold.parameter_names)}"))
    text = " ".join(w for w in entry.query.split() if not (set(words(w)) & own))
    return Entry(entry.entry_id, text, entry.candidates, entry.ground_truth, entry.histories, cluster=entry.cluster)


def relative(scores: np.ndarray) -> np.ndarray:
    """A learned score as the softmax's mass relative to the best candidate's: 1.0 for the best."""
    return np.exp(scores - scores.max())


def combined_fit(weights: np.ndarray, weight: float):
    """A ``fit_scores`` replacement: lexical fit plus ``weight`` times the learned scorer's
    relative mass, scaled so the best is 1.0 (the ranking's fit threshold keeps its meaning)."""

    def fit(query: str, candidates: list[Tool], twin_weight: float = 1.0) -> dict[str, float]:
        lex = LEXICAL_FIT(query, candidates, twin_weight)
        if not weight or not candidates:
            return lex
        rel = relative(lexical_features(query, candidates) @ weights)
        raw = {t.name: lex[t.name] + weight * r for t, r in zip(candidates, rel, strict=True)}
        best = max(raw.values()) or 1.0
        return {k: round(v / best, 3) for k, v in raw.items()}

    return fit


def ranking_table(parts: dict[str, list[Entry]], weights: np.ndarray, combination: list[float], settings: str) -> None:
    """The ranking's ground truth first / in the first 4 (as benchmarks/ranking.py), with the
    ranking's fit replaced by ``combined_fit`` at each weight (0: the lexical fit as shipped)."""
    from ranking import gold_rank_shares  # benchmarks/ranking.py

    head = [f"{p} {s}" for p in parts for s in settings]
    print("\nthe ranking (evidence rule) with the combined fit: % ground truth first / in the first 4\n")
    print("| learned weight | " + " | ".join(head) + " |")
    print("|---" * (len(head) + 1) + "|")
    try:
        for w in combination:
            ranking.fit_scores = combined_fit(weights, w)
            cells = [c for entries in parts.values() for c in gold_rank_shares(entries, settings).values()]
            print(f"| {w:g} | " + " | ".join(f"{a:.1f} / {b:.1f}" for a, b in cells) + " |", flush=True)
    finally:
        ranking.fit_scores = LEXICAL_FIT


# ---------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--n", type=int, default=300, help="generated validation and held-out entries")
    parser.add_argument("--n-train", type=int, default=1000, help="generated train entries (the learned scorer's)")
    parser.add_argument("--copied", type=float, default=0.0)
    parser.add_argument("--indirect", type=float, default=0.0, help="share of queries worded away from the gold's docs")
    parser.add_argument("--pmi", action="store_true", help="also the base model's PMI (slow: CPU, one thread)")
    parser.add_argument("--pmi-train", type=int, default=0, help="train entries given the PMI feature (with --pmi; 0: no learned+pmi)")
    parser.add_argument("--k", type=int, default=6, help="the PMI re-scores the lexical fit's first K")
    parser.add_argument("--cache", type=Path, default=None, help="json file caching the PMI per (documentation, instruction)")
    parser.add_argument("--weights", default="0.25,0.5,1,2", help="combination weights")
    parser.add_argument("--stripped", action="store_true", help="also each part with the gold's own words taken out of the query")
    parser.add_argument("--data", help="a real entries file, read only once the choice is made")
    parser.add_argument("--ranking", default="", help="also the ranking's gold-first in these settings (e.g. prc) with the combined fit")
    parser.add_argument("--limit", type=int, default=None, help="measure only the first N entries of each part")
    parser.add_argument("--parts", default="validation,held-out", help="which parts to print (seen, validation, held-out)")
    parser.add_argument("--scorers", default="", help="only these scorers (comma-separated names; default all)")
    args = parser.parse_args()

    built = build_parts(
        load_catalog(),
        BuildConfig(
            seed=args.seed,
            split_by="category",
            n_train=args.n_train,
            n_validation=args.n,
            n_test=args.n,
            p_copied_cluster=args.copied,
            p_indirect=args.indirect,
        ),
    )
    parts = {"seen": built["train"][: args.n], "validation": built["validation"], "held-out": built["test"]}
    parts = {k: v for k, v in parts.items() if k in args.parts.split(",")}
    if args.data:
        parts["real"] = load_entries(args.data).entries
    parts = {k: v[: args.limit] for k, v in parts.items()}
    if args.stripped:
        parts.update({f"{k} stripped": [strip_gold_words(e) for e in v] for k, v in list(parts.items())})
    pmi = load_pmi(args.cache) if args.pmi else None

    def features(e: Entry, with_pmi: bool) -> np.ndarray:
        x = lexical_features(e.query, e.candidates)
        if with_pmi:
            col, scored = pmi_feature(e.query, e.candidates, pmi, args.k)
            x = np.column_stack([x, col, scored])
        return x

    def target(e: Entry) -> np.ndarray:
        cluster = {t.name for t in e.cluster_candidates()}
        return np.array([float(t.name in cluster) for t in e.candidates])

    t0 = time.perf_counter()
    train = built["train"]
    wanted = args.scorers.split(",") if args.scorers else []
    # the learned scorers are trained only where one of them is asked for (or all are)
    learned = (
        {"learned": train_listwise([features(e, False) for e in train], [target(e) for e in train])}
        if not wanted or any("learned" in name for name in wanted)
        else {}
    )
    if pmi and args.pmi_train:
        sub = train[: args.pmi_train]
        learned["learned+pmi"] = train_listwise([features(e, True) for e in sub], [target(e) for e in sub])
    print(f"trained on {len(train)} train entries ({args.pmi_train if pmi else 0} with the PMI) in {time.perf_counter() - t0:.0f} s")
    for name, w in learned.items():
        cols = FEATURES + (["pmi", "pmi_scored"] if name.endswith("pmi") else [])
        print(f"  {name}: " + ", ".join(f"{c} {v:+.2f}" for c, v in zip(cols, w, strict=True)))

    weights = [float(w) for w in args.weights.split(",")]
    if args.ranking:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        ranking_table(
            {k: v for k, v in parts.items() if "stripped" not in k},
            learned.get("learned"),
            [0.0, *weights] if learned else [0.0],
            args.ranking,
        )
    rows: dict[str, dict[str, list]] = {}
    for part, entries in parts.items():
        t_part = time.perf_counter()
        pmi_seconds = pmi.seconds if pmi else 0.0
        for i, e in enumerate(entries, 1):
            if pmi and args.cache and i % 20 == 0:  # a run cut short resumes from the cache
                args.cache.parent.mkdir(parents=True, exist_ok=True)
                args.cache.write_text(json.dumps(pmi.cache))
            lex = LEXICAL_FIT(e.query, e.candidates)
            x = lexical_features(e.query, e.candidates)
            scorers = {"lexical": lex}
            if "learned" in learned:
                s = x @ learned["learned"]
                scorers["learned"] = dict(zip((t.name for t in e.candidates), s, strict=True))
                rel = relative(s)
                for w in weights:
                    scorers[f"lexical+learned@{w:g}"] = {t.name: lex[t.name] + w * v for t, v in zip(e.candidates, rel, strict=True)}
            if pmi:
                col, scored = pmi_feature(e.query, e.candidates, pmi, args.k)
                # PMI alone orders the re-scored first K; the rest keep their lexical order below
                scorers["pmi"] = {t.name: (2 + c if f else lex[t.name]) for t, c, f in zip(e.candidates, col, scored, strict=True)}
                for w in weights:
                    scorers[f"lexical+pmi@{w:g}"] = {t.name: lex[t.name] + w * c for t, c in zip(e.candidates, col, strict=True)}
                if "learned+pmi" in learned:
                    sp = np.column_stack([x, col, scored]) @ learned["learned+pmi"]
                    scorers["learned+pmi"] = dict(zip((t.name for t in e.candidates), sp, strict=True))
            for name, scores in scorers.items():
                if args.scorers and name not in args.scorers.split(","):
                    continue
                rows.setdefault(name, {}).setdefault(part, []).append(fit_outcomes(e, scores))
        spent = time.perf_counter() - t_part
        model_ms = 1000 * ((pmi.seconds if pmi else 0.0) - pmi_seconds) / max(len(entries), 1)
        print(f"{part}: {len(entries)} entries in {spent:.0f} s (model {model_ms:.0f} ms per entry scored now)", flush=True)
        if pmi and args.cache:
            args.cache.parent.mkdir(parents=True, exist_ok=True)
            args.cache.write_text(json.dumps(pmi.cache))

    print(
        f"\nseed {args.seed}, {args.n} generated entries per part (split by category, copied {args.copied:g}, indirect {args.indirect:g}), "
        f"train {len(train)}; fit's best candidate in the gold's cluster % [95% CI] / gold first % / gold in first {SHORTLIST} % / gold's mean rank\n"
    )
    head = list(parts)
    print("| scorer | " + " | ".join(f"{p} (n {len(parts[p])})" for p in head) + " |")
    print("|---" * (len(head) + 1) + "|")
    for name, by_part in rows.items():
        cells = []
        for p in head:
            m = summary(by_part[p])
            lo, hi = m["cluster_ci"]
            cells.append(
                f"{m['cluster_first']:.1f} [{lo:.0f}-{hi:.0f}] / {m['gold_first']:.1f} / {m['gold_listed']:.1f} / {m['gold_mean_rank']:.2f}"
            )
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\npaired against lexical, cluster-first (entries gained / lost):\n")
    print("| scorer | " + " | ".join(head) + " |")
    print("|---" * (len(head) + 1) + "|")
    for name, by_part in rows.items():
        if name != "lexical":
            print(f"| {name} | " + " | ".join(paired(rows["lexical"][p], by_part[p]) for p in head) + " |")


if __name__ == "__main__":
    main()
