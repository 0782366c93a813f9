"""Which part of a catalog a training build may draw from, so that the categories an evaluation
holds out stay unseen by the model it measures.

``benchmarks/generalisation.py`` splits the shipped catalog by category (``bench.split_categories``,
seed 0): its validation and held-out parts are whole categories. A training build that draws from
the whole catalog (as a cluster split does) would put their clusters into the training data, and
the "held-out" figure would measure recall. ``training_catalog`` keeps only the train categories'
clusters of the shipped catalog and, of every added catalog (whose categories use another
vocabulary: the OpenAPI directory says "financial", the shipped catalog "Currency"), only the
clusters whose words lie nearest a train category. Everything else leaves the pool, as ground
truth and as a shown candidate alike.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from petool.bench import BuildConfig, cluster_category, split_categories
from petool.catalog import API, Catalog, CatalogTool, _tokens, merge_catalogs


@dataclass(frozen=True)
class TrainingSplit:
    """The shipped catalog's category split and where each added cluster was placed."""

    train_categories: frozenset[str]
    held_categories: frozenset[str]  # validation and held-out categories: never in training
    placed: dict[str, str]  # added cluster id -> the nearest category of the first catalog

    def keeps(self, cluster: str, category: str) -> bool:
        """Whether a cluster (of ``category`` in its own catalog) may go into training data."""
        if cluster in self.placed:
            return self.placed[cluster] in self.train_categories
        return category in self.train_categories


def _cluster_words(apis: list[API]) -> Counter:
    words: Counter = Counter()
    for a in apis:
        words.update(_tokens(f"{a.name} {a.description}"))
    return words


def nearest_categories(reference: Catalog, added: Catalog) -> dict[str, str]:
    """Each cluster of ``added`` -> the category of ``reference`` its words are nearest to
    (cosine of TF-IDF word counts, names and descriptions of the members; IDF over the
    reference's categories, so words every category uses count for nothing). A cluster sharing
    no weighted word with any category is placed nowhere (left out of the mapping)."""
    profiles = {cat: Counter() for cat in reference.categories}
    for cluster, apis in reference.members.items():
        profiles[cluster_category(reference, cluster)].update(_cluster_words(apis))
    df = Counter(w for words in profiles.values() for w in words)
    idf = {w: math.log(len(profiles) / n) for w, n in df.items()}

    def vector(words: Counter) -> dict[str, float]:
        return {w: n * idf[w] for w, n in words.items() if idf.get(w)}

    def norm(v: dict[str, float]) -> float:
        return math.sqrt(sum(x * x for x in v.values())) or 1.0

    vectors = {cat: vector(words) for cat, words in profiles.items()}
    norms = {cat: norm(v) for cat, v in vectors.items()}
    placed = {}
    for cluster, apis in sorted(added.members.items()):
        v = vector(_cluster_words(apis))
        if not v:
            continue
        scores = {cat: sum(x * vectors[cat].get(w, 0.0) for w, x in v.items()) / norms[cat] for cat in vectors}
        best = max(sorted(scores), key=lambda cat: scores[cat])
        if scores[best] > 0:
            placed[cluster] = best
    return placed


def training_split(catalogs: list[Catalog], seed: int = 0) -> TrainingSplit:
    """The split of ``catalogs[0]`` by category with ``seed`` (as ``generalisation.py`` builds
    its parts) and every later catalog's clusters placed by ``nearest_categories``."""
    reference = catalogs[0]
    train, validation, test = split_categories(reference, BuildConfig(seed=seed, split_by="category"))
    train_cats = frozenset(cluster_category(reference, c) for c in train)
    held = frozenset(cluster_category(reference, c) for c in validation + test)
    placed: dict[str, str] = {}
    for extra in catalogs[1:]:
        placed.update(nearest_categories(reference, extra))
    return TrainingSplit(train_cats, held, placed)


def training_catalog(catalogs: list[Catalog], seed: int = 0) -> tuple[Catalog, TrainingSplit]:
    """The merged pool less every API whose cluster ``training_split`` keeps out (APIs without a
    cluster go with their tool's category, or, in an added catalog, leave)."""
    split = training_split(catalogs, seed)
    kept = []
    for i, cat in enumerate(catalogs):
        tools = []
        for t in cat.tools:
            apis = [
                a for a in t.apis if (split.keeps(a.cluster, a.category) if a.cluster else i == 0 and a.category in split.train_categories)
            ]
            if apis:
                tools.append(CatalogTool(t.category, t.name, t.description, t.attributes, apis))
        used = {a.cluster for t in tools for a in t.apis if a.cluster}
        clusters = {c: text for c, text in cat.clusters.items() if c in used}
        kept.append(Catalog(tools, clusters, cat.slots, cat.source))
    return merge_catalogs(kept), split


__all__ = ["TrainingSplit", "nearest_categories", "training_catalog", "training_split"]
