"""Benchmark construction: entries (histories p/r/c, queries, candidates), splits, and the
files a build writes.

Builds PEToolBench-style entries offline from a tool catalog (``petool.catalog``), following
the shape of the real data (docs/petoolbench.md §2), with users from ``petool.users``, wording from
``petool.phrasing`` and DPO negatives from ``petool.pairs``:

- A **user** has a profile over non-functional attributes (``users.PROFILES``); the profile scores
  every tool, and in each functional cluster the best-scoring tool is the user's preferred one.
- The **ground truth** is the preferred API of a cluster; the user's tool set (``tool_comb``)
  holds its tool and other tools the user prefers, never its cluster alternatives.
- **p** (preferred-only): turns on tool_comb tools, never the ground-truth API itself; the
  embedded window (last ``window`` turns of ``history_length``) holds one of the ground truth's
  tool's other APIs with probability ``p_gt_tool_in_window``.
- **r** (rating-integrated): the window's preferred turns (rating 1) plus k rating-0 turns on
  the cluster alternatives' tools (sometimes the query itself on an alternative), shuffled, still
  capped at ``window`` turns.
- **c** (chronological): r's turns without ratings, non-preferred ones first.
- **Query**: an instruction for the ground-truth API with tool names masked as "...", either the
  API's example scenario or a template filled with fresh values (the call's parameters are the
  values the instruction states, so required ones are always present). A share
  ``p_indirect`` of the queries (default none) is worded away from the gold API's name and
  description (``petool.indirect``), as a user who never read its docs asks.
- **Candidates**: the whole cluster plus distractors (same category, semantically close, random),
  shuffled so the ground truth's position is uniform.

The same config (seed included) gives byte-identical output files.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from petool import formats
from petool.catalog import API, Catalog, load_catalogs
from petool.catalog_variants import base_cluster, with_copied_apis, with_narrowed_apis
from petool.indirect import reword_for
from petool.pairs import map_parameters, preference_examples
from petool.phrasing import MASK, Paraphraser, fill_template, phrase
from petool.schema import SETTINGS, Entry, ToolCall, Turn, extends_name, provider_of
from petool.users import PROFILES, User, make_user


@dataclass
class BuildConfig:
    """Everything that shapes a generated benchmark; defaults match the real data's shape."""

    seed: int = 0
    n_train: int = 2000
    n_test: int = 1000
    settings: tuple = SETTINGS
    split_by: str = "cluster"  # cluster: train and test ground truths come from disjoint clusters; category: train, validation and test from disjoint categories
    n_validation: int = 0  # entries whose ground truths come from the validation categories (split_by=category only)
    category_shares: tuple = (
        0.6,
        0.2,
        0.2,
    )  # split_by=category: the train / validation / test shares of the clusters, whole categories each
    n_candidates: int = 10
    history_length: tuple = (2, 100)  # full history length range (triangular, mode below)
    history_mode: int = 63  # mode of the triangular draw: mean ~55 as in the real data
    window: int = 20  # turns embedded in the prompt (the early release caps at 20)
    k_range: tuple = (2, 5)  # rating-0 turns in r
    p_k_max: float = 0.68  # share of entries with k = k_range[1]
    p_gt_tool_in_window: float = 0.5  # the ground truth's tool shows in p's window (real: 49%)
    p_query_in_r: float = 0.3  # one rating-0 turn is the query itself on an alternative
    p_query_is_example: float = 0.48  # query = the API's example scenario (real: 48%)
    p_turn_is_example: float = 0.5  # a history turn = its API's example, else a fresh phrasing
    p_minimal_template: float = 0.2  # query uses a template stating the fewest values
    p_optional_stated: float = (
        0.45  # each optional parameter an instruction leaves out is stated after all (real golds: 1.66 parameters per call)
    )
    p_copied_cluster: float = (
        0.0  # share of clusters made one API copied under several tools (catalog_variants.with_copied_apis; real: 48 of 52)
    )
    p_narrowed_cluster: float = (
        0.0  # share of clusters given a twin narrowed by one parameter, "GetNews" / "GetNewsByTopic" (catalog_variants.with_narrowed_apis)
    )
    p_indirect: float = 0.0  # share of queries worded away from the gold API's name and description (petool.indirect)
    tool_comb: tuple = (2, 37)  # size range of a user's preferred tool set per entry
    n_users: int = 400
    hard_negative_share: float = 0.5  # DPO: share of entries that also get a wrong-parameter pair
    paraphrase_url: str | None = None  # OpenAI-compatible base URL (…/v1); None = offline only
    paraphrase_key: str = ""
    paraphrase_model: str = "gpt-4o-mini"
    paraphrase_share: float = 0.3
    style: str = "paper"
    write_trl_sft: bool = True

    def __post_init__(self):
        self.settings = tuple(self.settings)
        self.history_length = tuple(self.history_length)
        self.k_range = tuple(self.k_range)
        self.tool_comb = tuple(self.tool_comb)
        self.category_shares = tuple(self.category_shares)
        bad = [s for s in self.settings if s not in SETTINGS]
        if bad or not self.settings:
            raise ValueError(f"settings {self.settings!r}: each must be one of {', '.join(SETTINGS)}")
        if self.split_by not in SPLITS:
            raise ValueError(f"split_by {self.split_by!r}: valid are {', '.join(SPLITS)}")
        for name in ("n_train", "n_validation", "n_test"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {getattr(self, name)!r}")
        if self.n_validation and self.split_by != "category":
            raise ValueError(f"n_validation needs split_by='category' (got {self.split_by!r}): only that split has validation categories")
        if self.n_train + self.n_validation + self.n_test == 0:
            raise ValueError("n_train + n_validation + n_test must be at least 1")
        shares = self.category_shares
        if len(shares) != 3 or any(not isinstance(x, (int, float)) or not 0 < x < 1 for x in shares) or abs(sum(shares) - 1) > 1e-9:
            raise ValueError(
                f"category_shares {shares!r}: need three shares (train, validation, test), each within 0..1 (exclusive), summing to 1"
            )
        if not 2 <= self.n_candidates <= 100:
            raise ValueError(f"n_candidates must be within 2..100, got {self.n_candidates}")
        lo, hi = self.history_length
        if not 1 <= lo <= hi or not lo <= self.history_mode <= hi:
            raise ValueError(f"history_length {self.history_length} / history_mode {self.history_mode}: need 1 <= low <= mode <= high")
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window}")
        klo, khi = self.k_range
        if not 0 <= klo <= khi or khi >= self.window:
            raise ValueError(f"k_range {self.k_range}: need 0 <= low <= high < window ({self.window})")
        clo, chi = self.tool_comb
        if not 1 <= clo <= chi:
            raise ValueError(f"tool_comb {self.tool_comb}: need 1 <= low <= high")
        if self.n_users < 1:
            raise ValueError(f"n_users must be >= 1, got {self.n_users}")
        for name in (
            "p_k_max",
            "p_gt_tool_in_window",
            "p_query_in_r",
            "p_query_is_example",
            "p_turn_is_example",
            "p_minimal_template",
            "p_optional_stated",
            "p_copied_cluster",
            "p_narrowed_cluster",
            "p_indirect",
            "hard_negative_share",
            "paraphrase_share",
        ):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be a probability in 0..1, got {v!r}")
        if self.paraphrase_url is not None and not re.match(r"^https?://", self.paraphrase_url):
            raise ValueError(f"paraphrase_url {self.paraphrase_url!r} must start with http:// or https://")

    def to_json(self) -> dict:
        d = asdict(self)
        d["paraphrase_key"] = "***" if self.paraphrase_key else ""
        if not self.p_indirect:  # left out at 0, so a build without rewording writes what it wrote before the option
            del d["p_indirect"]
        return d


SPLITS = ("cluster", "entry", "category")
PARTS = ("train", "validation", "test")


def _api_record(api: API, catalog: Catalog, api_id: int) -> dict:
    """The API as a ToolBench record, the shape of the authors' ``api_ground_truth``."""
    tool = catalog.tool_by_key[api.provider]
    return {
        "api_name": api.name,
        "api_desc": api.description,
        "required_parameters": [p.to_json() for p in api.required],
        "optional_parameters": [p.to_json() for p in api.optional],
        "Example": api.examples[0] if api.examples else {},
        "tool_name": api.tool,
        "tool_desc": tool.description,
        "category_name": api.category,
        "api_id": api_id,
    }


def _turn(api: API, catalog: Catalog, rng: random.Random, p_example: float, rating: int | None = None, p_optional: float = 0.0) -> Turn:
    text, params, _ = phrase(api, catalog, rng, masked=False, p_example=p_example, p_optional=p_optional)
    return Turn(text, ToolCall(api.full_name, params), rating)


class _Builder:
    """Holds the per-build caches (users, their preferred tools, API ids, word sets)."""

    def __init__(self, catalog: Catalog, config: BuildConfig):
        self.catalog, self.config = catalog, config
        rng = random.Random(f"{config.seed}|users")
        profiles = sorted(PROFILES)
        self.users = [make_user(catalog, rng, profiles[i % len(profiles)], f"u{i:05d}") for i in range(config.n_users)]
        self._winners: dict[str, dict[str, API]] = {}
        self.api_id = {a.full_name: i for i, a in enumerate(catalog.apis)}
        self.words = {a.full_name: _words(f"{a.name} {a.description}") for a in catalog.apis}
        self._close: dict[str, list[API]] = {}
        self.by_category: dict[str, list[API]] = {}
        for a in catalog.apis:
            self.by_category.setdefault(a.category, []).append(a)
        self.paraphraser = (
            Paraphraser(config.paraphrase_url, config.paraphrase_key, config.paraphrase_model) if config.paraphrase_url else None
        )

    def winners(self, user: User) -> dict[str, API]:
        """Cluster id -> the user's preferred API (same rule as ``preferred_api``, scored once)."""
        if user.user_id not in self._winners:
            score = {t.key: user.score(self.catalog, t.key) for t in self.catalog.tools}
            self._winners[user.user_id] = {
                cid: max(apis, key=lambda a: (score[a.provider], a.full_name)) for cid, apis in sorted(self.catalog.members.items())
            }
        return self._winners[user.user_id]

    def entry(self, entry_id: int, cluster_id: str, rng: random.Random) -> Entry:
        cat, cfg = self.catalog, self.config
        user = rng.choice(self.users)
        gt_api = self.winners(user)[cluster_id]
        members = cat.cluster_apis(cluster_id)
        alternatives = [a for a in members if a is not gt_api]
        alt_tools = {a.provider for a in alternatives}
        # The user's tool set: tools they prefer somewhere, minus this cluster's alternatives.
        liked = sorted({a.provider for a in self.winners(user).values()} - alt_tools - {gt_api.provider})
        n_comb = max(
            cfg.tool_comb[0], min(cfg.tool_comb[1], round(rng.triangular(cfg.tool_comb[0], cfg.tool_comb[1], 0.8 * cfg.tool_comb[1])))
        )
        comb = [gt_api.provider] + rng.sample(liked, min(len(liked), n_comb - 1))
        others = comb[1:] or [gt_api.provider]

        # --- preferred-only history: the last `window` turns of `history_length` are embedded.
        lo, hi = cfg.history_length
        length = int(round(rng.triangular(lo, hi, cfg.history_mode)))
        gt_tool_apis = [a for a in cat.tool_by_key[gt_api.provider].apis if a is not gt_api]
        want_gt_tool = bool(gt_tool_apis) and rng.random() < cfg.p_gt_tool_in_window
        window_n = min(length, cfg.window)

        if others == [gt_api.provider]:
            want_gt_tool = bool(gt_tool_apis)
            if not gt_tool_apis:
                window_n = 0  # a one-tool user whose tool offers only the ground truth: no history

        def other_turn() -> Turn:
            tool = cat.tool_by_key[rng.choice(others)]
            choices = [a for a in tool.apis if a is not gt_api]
            return _turn(rng.choice(choices), cat, rng, cfg.p_turn_is_example, 1, cfg.p_optional_stated)

        p_turns = [other_turn() for _ in range(window_n)]
        gt_slots: list[int] = []
        if want_gt_tool:
            n_gt = 1 + (rng.random() < 0.35) + (rng.random() < 0.1)
            gt_slots = sorted(rng.sample(range(window_n), min(window_n, n_gt)))
            for i in gt_slots:
                p_turns[i] = _turn(rng.choice(gt_tool_apis), cat, rng, cfg.p_turn_is_example, 1, cfg.p_optional_stated)
        else:
            p_turns = [t for t in p_turns if provider_of(t.call.tool_name) != gt_api.provider] or p_turns
            while len(p_turns) < window_n:
                t = other_turn()
                if provider_of(t.call.tool_name) != gt_api.provider:
                    p_turns.append(t)

        # --- query on the ground truth, tool names masked.
        query, params, t_index = phrase(
            gt_api,
            cat,
            rng,
            masked=True,
            p_example=cfg.p_query_is_example,
            p_minimal=cfg.p_minimal_template,
            p_optional=cfg.p_optional_stated,
        )
        # Worded away from the gold's docs with a generator of the entry's own, so the build's
        # other draws (and so every other part of the entry) are the same at any share.
        indirect = random.Random(f"{cfg.seed}|indirect|{entry_id}") if cfg.p_indirect else None
        if indirect and indirect.random() >= cfg.p_indirect:
            indirect = None
        if indirect:
            query = reword_for(gt_api, query, params, indirect, MASK)
        if self.paraphraser and rng.random() < cfg.paraphrase_share:
            query = self.paraphraser(query, params)

        # --- rating-integrated: k rating-0 turns on the alternatives' tools.
        klo, khi = cfg.k_range
        k = khi if rng.random() < cfg.p_k_max else rng.randint(klo, max(klo, khi - 1))
        k = min(k, cfg.window - 1) if alternatives else 0
        neg: list[Turn] = []
        alt_order = rng.sample(alternatives, len(alternatives))
        query_turn_at = rng.randrange(k) if k and rng.random() < cfg.p_query_in_r else -1
        for i in range(k):
            alt = alt_order[i % len(alt_order)]
            if i == query_turn_at:
                turn = self._query_on(alt, gt_api, query, params, t_index, rng)
                if indirect:  # the query asked of the alternative is worded away from its docs too
                    text = reword_for(alt, turn.instruction, turn.call.parameters, indirect, alt.tool.strip())
                    turn = Turn(text, turn.call, turn.rating)
                neg.append(turn)
            else:
                api = rng.choice(cat.tool_by_key[alt.provider].apis)
                neg.append(_turn(api, cat, rng, cfg.p_turn_is_example, 0, cfg.p_optional_stated))
        keep = list(range(len(p_turns)))
        excess = len(p_turns) + len(neg) - cfg.window
        if excess > 0:
            droppable = [i for i in keep if i not in gt_slots[:1]]
            for i in rng.sample(droppable, excess):
                keep.remove(i)
        r_turns = [p_turns[i] for i in keep] + neg
        rng.shuffle(r_turns)
        c_turns = [Turn(t.instruction, t.call) for t in r_turns if t.rating == 0] + [
            Turn(t.instruction, t.call) for t in r_turns if t.rating == 1
        ]
        p_turns = [Turn(t.instruction, t.call) for t in p_turns]
        histories = {"p": p_turns, "r": r_turns, "c": c_turns}

        candidates = self.candidates(gt_api, members, rng)
        return Entry(
            entry_id=entry_id,
            query=query,
            candidates=[a.to_candidate() for a in candidates],
            ground_truth=ToolCall(gt_api.full_name, params),
            histories={s: histories[s] for s in cfg.settings},
            history_length=length,
            category=gt_api.category,
            cluster=[a.full_name for a in members],
            func=cluster_id,
            preferred_tools=[cat.tool_by_key[k].name for k in comb],
            extra={
                "user": user.to_json(),
                "api_ground_truth": _api_record(gt_api, cat, self.api_id[gt_api.full_name]),
                "apis_same_func": [_api_record(a, cat, self.api_id[a.full_name]) for a in members],
            },
        )

    def _query_on(self, alt: API, gt_api: API, query: str, params: dict, t_index: int | None, rng: random.Random) -> Turn:
        """The query itself asked of an alternative (with its own parameter names), rated 0."""
        if t_index is not None and t_index < len(alt.templates):
            values = {gt_api.slots.get(n, n): v for n, v in params.items()}
            text, alt_params = fill_template(alt, t_index, self.catalog, rng, alt.tool.strip(), values)
            alt_params = {n: v for n, v in alt_params.items() if alt.slots.get(n, n) in values}
        else:
            text = query.replace(MASK, alt.tool.strip())
            alt_params = map_parameters(params, gt_api.to_candidate(), alt.to_candidate())
        return Turn(text, ToolCall(alt.full_name, alt_params), 0)

    def candidates(self, gt_api: API, members: list[API], rng: random.Random) -> list[API]:
        n = max(self.config.n_candidates, len(members))
        # The ground truth's tool's APIs whose names go on where its ends, or end where its goes on
        # ("GetNews" / "GetNewsByTopic"), are listed with it, as in PEToolBench; only with narrowed
        # twins on, so that builds without them (the shipped adapter's data) stay as they were.
        twins = (
            [
                a
                for a in self.catalog.tool_by_key[gt_api.provider].apis
                if a.cluster != gt_api.cluster
                and (extends_name(a.full_name, gt_api.full_name) or extends_name(gt_api.full_name, a.full_name))
            ]
            if self.config.p_narrowed_cluster
            else []
        )
        chosen = list(members) + twins[: max(0, n - len(members))]
        taken = {a.full_name for a in chosen}
        room = n - len(chosen)
        same = [a for a in self.by_category.get(gt_api.category, []) if a.full_name not in taken]
        n_same = rng.randint(0, min(len(same), room))
        chosen += rng.sample(same, n_same)
        taken |= {a.full_name for a in chosen}
        room = n - len(chosen)
        if room > 0:
            # Semantically close: APIs from other clusters sharing words with the ground truth.
            if gt_api.full_name not in self._close:
                gw = self.words[gt_api.full_name]
                self._close[gt_api.full_name] = sorted(
                    (a for a in self.catalog.apis if a.category != gt_api.category and a.cluster != gt_api.cluster),
                    key=lambda a: (-len(gw & self.words[a.full_name]), a.full_name),
                )[:8]
            close = [a for a in self._close[gt_api.full_name] if a.full_name not in taken]
            chosen += rng.sample(close, min(len(close), room, rng.randint(1, 2)))
            taken |= {a.full_name for a in chosen}
        room = n - len(chosen)
        if room > 0:
            pool = [a for a in self.catalog.apis if a.full_name not in taken and a.cluster != gt_api.cluster]
            chosen += rng.sample(pool, min(room, len(pool)))
        rng.shuffle(chosen)
        return chosen


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()) if len(w) > 3}


def split_clusters(catalog: Catalog, config: BuildConfig) -> tuple[list[str], list[str]]:
    """(train clusters, test clusters): disjoint for split_by=cluster, all clusters for
    split_by=entry (``split_categories`` splits by category)."""
    clusters = sorted(catalog.members)
    if config.split_by == "entry" or config.n_train == 0 or config.n_test == 0:
        return clusters, clusters
    # A narrowed twin's cluster goes where its cluster goes, so twins leave the split as it was.
    twins = [c for c in clusters if base_cluster(c) != c]
    clusters = [c for c in clusters if base_cluster(c) == c]
    rng = random.Random(f"{config.seed}|split")
    frac = config.n_test / (config.n_train + config.n_test)
    train, test = [], []
    # Stratified by "needs parameters": a split without parameter-free clusters would skew the
    # empty-parameter share that the real data has (~30-40%).
    for needs in (False, True):
        group = [c for c in clusters if bool(catalog.members[c][0].required) == needs]
        rng.shuffle(group)
        n = min(len(group), math.ceil(len(group) * frac)) if group else 0
        test += group[:n]
        train += group[n:]
    if not train:
        train.append(test.pop())
    if not test:
        test.append(train.pop())
    test_set = set(test)
    for c in twins:
        (test if base_cluster(c) in test_set else train).append(c)
    return sorted(train), sorted(test)


def cluster_category(catalog: Catalog, cluster_id: str) -> str:
    """The category of a functional cluster (its members share one)."""
    return catalog.members[cluster_id][0].category


def split_categories(catalog: Catalog, config: BuildConfig) -> tuple[list[str], list[str], list[str]]:
    """(train, validation, test) clusters, whole categories each: no two parts share a category,
    hence no cluster, and every category goes to one part.

    Seeded by ``config.seed``. Categories hold 5 to 11 clusters, so they are dealt largest
    first (a seeded shuffle orders those of equal size), each to the part furthest below its
    share of the clusters (``config.category_shares``): every part gets a mix of large and
    small categories and about its share of the clusters. A narrowed twin's cluster goes with
    its cluster's category and does not count, so twins leave the split as it was.
    """
    base = [c for c in sorted(catalog.members) if base_cluster(c) == c]
    size: dict[str, int] = {}
    for c in base:
        size[cluster_category(catalog, c)] = size.get(cluster_category(catalog, c), 0) + 1
    if len(size) < len(PARTS):
        raise ValueError(
            f"the catalog has {len(size)} categor{'y' if len(size) == 1 else 'ies'}; a split by category needs at least {len(PARTS)}"
        )
    rng = random.Random(f"{config.seed}|category-split")
    categories = sorted(size)
    rng.shuffle(categories)
    categories.sort(key=lambda cat: -size[cat])  # stable: equal sizes keep the shuffled order
    target = [share * len(base) for share in config.category_shares]
    held = [0, 0, 0]
    part_of: dict[str, int] = {}
    for cat in categories:
        empty = [i for i in range(len(PARTS)) if not held[i]]
        # a part still empty comes first while fewer categories are left than empty parts
        left = len(categories) - len(part_of)
        choices = empty if len(empty) >= left else range(len(PARTS))
        i = max(choices, key=lambda k: (target[k] - held[k], -k))
        part_of[cat] = i
        held[i] += size[cat]
    parts: list[list[str]] = [[], [], []]
    for c in sorted(catalog.members):
        parts[part_of[cluster_category(catalog, c)]].append(c)
    return parts[0], parts[1], parts[2]


def build_parts(catalog: Catalog, config: BuildConfig, progress: bool = False, report: dict | None = None) -> dict[str, list[Entry]]:
    """Generate the train, validation and test entries from ``catalog`` as ``config`` says.

    ``report``, when given, receives the paraphraser's counters (calls, kept, failed).

    Test entries get ids 0..n_test-1, train entries the ids after them, validation entries the
    ids after those. Ground-truth clusters are cycled in a shuffled order so that every cluster
    of a part is used evenly. Candidates other than the ground truth's cluster come from the
    whole catalog, as in real use; only the ground truths keep to their part's clusters.
    """
    if len(catalog.members) < 2:
        raise ValueError(f"the catalog has {len(catalog.members)} functional cluster(s); at least 2 are needed")
    if config.p_narrowed_cluster:  # before copying: a copied API's twin is copied with it
        catalog = with_narrowed_apis(catalog, config.p_narrowed_cluster, config.seed)
    if config.p_copied_cluster:
        catalog = with_copied_apis(catalog, config.p_copied_cluster, config.seed)
    builder = _Builder(catalog, config)
    if config.split_by == "category":
        train_clusters, validation_clusters, test_clusters = split_categories(catalog, config)
    else:
        (train_clusters, test_clusters), validation_clusters = split_clusters(catalog, config), []
    bar = _progress(config.n_train + config.n_validation + config.n_test, progress)
    out = {}
    for name, n, clusters, first_id in (
        ("test", config.n_test, test_clusters, 0),
        ("train", config.n_train, train_clusters, config.n_test),
        ("validation", config.n_validation, validation_clusters, config.n_test + config.n_train),
    ):
        rng = random.Random(f"{config.seed}|{name}")
        order: list[str] = []
        entries = []
        for i in range(n):
            if not order:
                order = rng.sample(clusters, len(clusters))
            entries.append(builder.entry(first_id + i, order.pop(), rng))
            bar.update(1)
        out[name] = entries
    bar.close()
    if report is not None and builder.paraphraser:
        p = builder.paraphraser
        report["paraphrase"] = {"model": p.model, "calls": p.calls, "kept_original": p.kept, "failed": p.failed}
    return {name: out[name] for name in PARTS}


def build_entries(
    catalog: Catalog, config: BuildConfig, progress: bool = False, report: dict | None = None
) -> tuple[list[Entry], list[Entry]]:
    """(train entries, test entries) of ``build_parts``."""
    parts = build_parts(catalog, config, progress, report)
    return parts["train"], parts["test"]


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress(total: int, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc="building entries", unit="entry")


def build(
    config: BuildConfig, out_dir: str | Path, catalog_path: str | Path | list[str | Path] | None = None, progress: bool = True
) -> dict:
    """Build a benchmark into ``out_dir`` and return a summary of what was written.

    ``catalog_path``: one catalog, several (merged into one pool by ``catalog.merge_catalogs``),
    or None for the shipped one.

    Layout::

        out_dir/build_config.json          resolved config, catalog summary, library versions
        out_dir/summary.json               counts and file list (also returned)
        out_dir/test/user_entries_test_{p,r,c,none}.json   release files (authors' evaluator)
        out_dir/test/entries.json.gz       all settings in the early combined format
        out_dir/validation/...             as test/, when split_by=category and n_validation > 0
        out_dir/train/user_entries_sft_{s}.json, user_entries_dpo_{s}.json, dataset_info.json
        out_dir/train/trl_sft_{s}.jsonl, trl_dpo_{s}.jsonl       TRL conversational files
        out_dir/train/entries.json.gz      train entries in the combined format
    """
    paths = [catalog_path] if isinstance(catalog_path, (str, Path)) else list(catalog_path or [])
    catalog = load_catalogs(paths)
    report: dict = {}
    parts = build_parts(catalog, config, progress, report)
    train, validation, test = parts["train"], parts["validation"], parts["test"]
    out = Path(out_dir)
    written: list[Path] = []
    for name, entries in (("test", test), ("validation", validation)):
        if entries:
            written += formats.write_release_files(entries, out / name, (*config.settings, "none"))
            written.append(formats.write_combined(entries, out / name / "entries.json.gz"))
    info = {}
    n_pairs = {}
    if train:
        tdir = out / "train"
        for s in config.settings:
            sft = [formats.entry_to_sft(e, s, config.style) for e in train]
            written.append(formats.write_lf_sft(sft, tdir / formats.SFT_FILE.format(setting=s)))
            pairs = preference_examples(train, s, config.seed, config.hard_negative_share, config.style)
            n_pairs[s] = len(pairs)
            written.append(formats.write_lf_dpo(pairs, tdir / formats.DPO_FILE.format(setting=s)))
            written.append(formats.write_trl_preferences(pairs, tdir / f"trl_dpo_{s}.jsonl"))
            if config.write_trl_sft:
                written.append(formats.write_trl_sft(sft, tdir / f"trl_sft_{s}.jsonl"))
            info[f"petool_sft_{s}"] = (formats.SFT_FILE.format(setting=s), False)
            info[f"petool_dpo_{s}"] = (formats.DPO_FILE.format(setting=s), True)
        written.append(formats.write_dataset_info(tdir, info))
        written.append(formats.write_combined(train, tdir / "entries.json.gz"))
    summary = {
        "catalog": " + ".join(map(str, paths)) or "assets/catalog.json (shipped)",
        "catalog_summary": catalog.summary(),
        "n_train": len(train),
        "n_test": len(test),
        "settings": list(config.settings),
        "split_by": config.split_by,
        "train_clusters": len({e.func for e in train}),
        "test_clusters": len({e.func for e in test}),
        "dpo_pairs": n_pairs,
        **(
            {
                "n_validation": len(validation),
                "validation_clusters": len({e.func for e in validation}),
                "categories": {name: sorted({e.category for e in entries}) for name, entries in parts.items()},
            }
            if config.split_by == "category"
            else {}
        ),
        "empty_parameter_share": round(sum(not e.ground_truth.parameters for e in train + test) / max(1, len(train + test)), 3),
        "files": sorted(str(p.relative_to(out)) for p in written),
    }
    if report:
        summary.update(report)
    formats.write_json(
        {"config": config.to_json(), "catalog": summary["catalog_summary"], "versions": _versions()}, out / "build_config.json"
    )
    formats.write_json(summary, out / "summary.json")
    return summary


def _versions() -> dict:
    import platform
    from importlib import metadata

    out = {"python": platform.python_version()}
    for pkg in ("petool", "tqdm"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "source"
    return out


__all__ = ["BuildConfig", "build", "build_entries", "build_parts", "split_categories", "split_clusters"]
