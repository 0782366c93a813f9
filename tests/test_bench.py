"""Benchmark construction: config validation, the shape of p/r/c histories, queries, candidates,
splits, determinism, output files, a build through a paraphrasing endpoint, and rule-baseline
sanity. Users, wording and DPO negatives are tested beside their modules (test_users,
test_phrasing, test_pairs)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from petool.bench import (
    BuildConfig,
    build,
    build_entries,
    build_parts,
    cluster_category,
    split_categories,
    split_clusters,
)
from petool.catalog import load_catalog
from petool.catalog_variants import base_cluster, with_narrowed_apis
from petool.formats import load_entries
from petool.prompts import INSTRUCTION_FIELDS, render_system_prompt
from petool.ranking import api_name
from petool.schema import provider_of
from petool.users import PROFILES
from tests.fake_llm import FakeLLM, running_fake_llm

SMALL = Path(__file__).resolve().parent / "fixtures" / "catalog_small.json"


@pytest.fixture(scope="module")
def small():
    return load_catalog(SMALL)


@pytest.fixture(scope="module")
def shipped_entries():
    train, test = build_entries(load_catalog(), BuildConfig(seed=3, n_train=150, n_test=300, n_users=60))
    return train, test


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"settings": ("p", "x")}, "settings"),
        ({"split_by": "user"}, "split_by 'user'"),
        ({"n_train": -1}, "n_train"),
        ({"n_train": 0, "n_test": 0}, "at least 1"),
        ({"n_candidates": 1}, "n_candidates"),
        ({"history_length": (50, 10)}, "history_length"),
        ({"k_range": (2, 25)}, "k_range"),
        ({"p_k_max": 1.5}, "p_k_max"),
        ({"p_copied_cluster": 2}, "p_copied_cluster"),
        ({"p_narrowed_cluster": -1}, "p_narrowed_cluster"),
        ({"tool_comb": (0, 3)}, "tool_comb"),
        ({"paraphrase_url": "ftp://x"}, "paraphrase_url"),
        ({"n_validation": 5}, "n_validation needs split_by='category'"),
        ({"n_validation": -1, "split_by": "category"}, "n_validation"),
        ({"category_shares": (0.5, 0.5)}, "category_shares"),
        ({"category_shares": (0.6, 0.3, 0.3)}, "category_shares"),
        ({"category_shares": (1.0, 0.0, 0.0)}, "category_shares"),
    ],
)
def test_config_validation_names_the_bad_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BuildConfig(**kwargs)


def _check_entry(e, catalog, cfg):
    gt = e.ground_truth.tool_name
    alt_tools = {provider_of(n) for n in e.cluster if n != gt}
    assert gt in e.cluster and 2 <= len(e.cluster) <= 6
    # the preferred tool set holds the ground truth's tool, never its alternatives
    names = set(e.preferred_tools)
    assert catalog.api_by_name[gt].tool in names
    assert not {catalog.api_by_name[n].tool for n in e.cluster if n != gt} & names
    p, r, c = e.histories["p"], e.histories["r"], e.histories["c"]
    assert len(p) <= cfg.window and len(r) <= cfg.window
    assert all(t.call.tool_name != gt for t in p), "p never holds the ground-truth API itself"
    assert all(provider_of(t.call.tool_name) not in alt_tools for t in p)
    neg = [t for t in r if t.rating == 0]
    assert cfg.k_range[0] <= len(neg) <= cfg.k_range[1]
    assert all(provider_of(t.call.tool_name) in alt_tools for t in neg)
    assert all(t.rating == 1 and provider_of(t.call.tool_name) not in alt_tools for t in r if t not in neg)
    # c: r's turns, no ratings, non-preferred first
    assert sorted(json.dumps(t.to_json() | {"rating": None}) for t in r) == sorted(json.dumps(t.to_json() | {"rating": None}) for t in c)
    assert all(t.rating is None for t in c)
    flags = [provider_of(t.call.tool_name) in alt_tools for t in c]
    assert flags == sorted(flags, reverse=True)
    # query and ground truth
    api = catalog.api_by_name[gt]
    assert api.tool.strip() not in e.query or "..." in e.query
    assert all(p.name in e.ground_truth.parameters for p in api.required)
    assert set(e.ground_truth.parameters) <= {p.name for p in api.params}
    # candidates: the whole cluster plus distractors, ground truth once
    cands = [t.name for t in e.candidates]
    assert len(cands) == max(cfg.n_candidates, len(e.cluster)) and len(set(cands)) == len(cands)
    assert set(e.cluster) <= set(cands)
    assert e.extra["user"]["profile"] in PROFILES and e.extra["api_ground_truth"]["api_name"] == api.name


def test_entries_have_the_real_data_shape(shipped_entries):
    catalog = load_catalog()
    cfg = BuildConfig()
    train, test = shipped_entries
    for e in train + test:
        _check_entry(e, catalog, cfg)
    assert len({e.entry_id for e in train + test}) == len(train + test)


def test_distributions_follow_the_config(shipped_entries):
    train, test = shipped_entries
    es = train + test
    k5 = sum(sum(t.rating == 0 for t in e.histories["r"]) == 5 for e in es) / len(es)
    assert 0.55 < k5 < 0.8
    mean_len = sum(e.history_length for e in es) / len(es)
    assert 45 < mean_len < 65 and all(2 <= e.history_length <= 100 for e in es)
    in_window = sum(
        any(provider_of(t.call.tool_name) == provider_of(e.ground_truth.tool_name) for t in e.histories["p"]) for e in es
    ) / len(es)
    assert 0.35 < in_window < 0.65
    positions = Counter(next(i for i, t in enumerate(e.candidates) if t.name == e.ground_truth.tool_name) for e in es)
    assert len(positions) == 10 and max(positions.values()) < 3 * min(positions.values())
    assert 0.05 < sum(not e.ground_truth.parameters for e in es) / len(es) < 0.5


def test_split_by_cluster_is_disjoint_and_by_entry_is_not(shipped_entries, small):
    train, test = shipped_entries
    assert not {e.func for e in train} & {e.func for e in test}
    train2, test2 = build_entries(small, BuildConfig(n_train=30, n_test=30, split_by="entry", n_users=5))
    assert {e.func for e in train2} & {e.func for e in test2}


@pytest.mark.parametrize(
    "seed, shares, narrowed",
    [
        (0, (0.6, 0.2, 0.2), 0.0),
        (7, (0.6, 0.2, 0.2), 0.0),
        (7, (0.6, 0.2, 0.2), 1.0),
        (3, (0.4, 0.3, 0.3), 0.0),
        (3, (0.9, 0.05, 0.05), 0.0),
    ],
)
def test_split_by_category_is_disjoint_complete_and_seeded(seed, shares, narrowed):
    catalog = load_catalog()
    if narrowed:
        catalog = with_narrowed_apis(catalog, narrowed, seed=seed)
    config = BuildConfig(seed=seed, split_by="category", category_shares=shares)
    parts = split_categories(catalog, config)
    categories = [{cluster_category(catalog, c) for c in part} for part in parts]
    assert all(parts) and all(categories)
    for i in range(3):
        for j in range(i + 1, 3):
            assert not set(parts[i]) & set(parts[j]) and not categories[i] & categories[j]
    assert sorted(c for part in parts for c in part) == sorted(catalog.members)  # every cluster, hence category, used
    assert set().union(*categories) == {a.category for a in catalog.apis}
    n = sum(base_cluster(c) == c for c in catalog.members)
    for part, share in zip(parts, shares, strict=False):  # about each part's share of the clusters (a category holds at most 11)
        assert abs(sum(base_cluster(c) == c for c in part) - share * n) <= 11
    assert split_categories(catalog, config) == parts
    if narrowed:  # twins follow their cluster: the split is the one without them
        plain = split_categories(load_catalog(), config)
        assert [[c for c in part if base_cluster(c) == c] for part in parts] == [list(p) for p in plain]


def test_split_by_category_depends_on_the_seed():
    catalog = load_catalog()
    a = split_categories(catalog, BuildConfig(seed=0, split_by="category"))
    b = split_categories(catalog, BuildConfig(seed=1, split_by="category"))
    assert a != b


def test_split_by_category_needs_three_categories(small):
    assert len({a.category for a in small.apis}) == 2
    with pytest.raises(ValueError, match="needs at least 3"):
        split_categories(small, BuildConfig(split_by="category"))


def test_category_parts_keep_ground_truths_to_their_categories():
    catalog = load_catalog()
    config = BuildConfig(seed=5, split_by="category", n_train=60, n_validation=60, n_test=60, n_users=30)
    parts = build_parts(catalog, config)
    cats = {name: {e.category for e in entries} for name, entries in parts.items()}
    assert not cats["train"] & cats["validation"] and not cats["train"] & cats["test"] and not cats["validation"] & cats["test"]
    clusters = dict(zip(("train", "validation", "test"), split_categories(catalog, config), strict=False))
    for name, entries in parts.items():
        assert len(entries) == 60 and {e.func for e in entries} <= set(clusters[name])
    # distractors come from anywhere in the catalog, held-out categories included
    outside = {catalog.api_by_name[t.name].category for e in parts["test"] for t in e.candidates if t.name not in e.cluster}
    assert outside - cats["test"]
    ids = [e.entry_id for name in ("test", "train", "validation") for e in parts[name]]
    assert ids == list(range(180))
    again = build_parts(catalog, config)
    assert again == parts


def test_small_catalog_entries(small):
    cfg = BuildConfig(n_train=20, n_test=20, n_users=6, n_candidates=6, window=8, k_range=(2, 3))
    train, test = build_entries(small, cfg)
    for e in train + test:
        _check_entry(e, small, cfg)


def test_settings_subset(small):
    train, test = build_entries(small, BuildConfig(n_train=3, n_test=3, settings=("r",), n_users=3))
    assert all(list(e.histories) == ["r"] for e in train + test)


def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_writes_all_files_deterministically(tmp_path):
    cfg = BuildConfig(seed=7, n_train=12, n_test=8, n_users=5, n_candidates=6, window=8, k_range=(2, 3))
    s1 = build(cfg, tmp_path / "a", SMALL, progress=False)
    build(cfg, tmp_path / "b", SMALL, progress=False)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    files = set(s1["files"])
    for s in ("p", "r", "c", "none"):
        assert f"test/user_entries_test_{s}.json" in files
    for s in ("p", "r", "c"):
        assert {f"train/user_entries_sft_{s}.json", f"train/user_entries_dpo_{s}.json", f"train/trl_dpo_{s}.jsonl"} <= files
    info = json.loads((tmp_path / "a" / "train" / "dataset_info.json").read_text())
    assert info["petool_dpo_r"]["ranking"] is True and "ranking" not in info["petool_sft_r"]
    rows = json.loads((tmp_path / "a" / "test" / "user_entries_test_r.json").read_text())
    loaded = load_entries(tmp_path / "a" / "test" / "entries.json.gz")
    assert not loaded.problems and len(loaded.entries) == 8
    assert rows[0][INSTRUCTION_FIELDS["r"]] == render_system_prompt(loaded.entries[0], "r")
    dpo = json.loads((tmp_path / "a" / "train" / "user_entries_dpo_p.json").read_text())
    assert dpo and all(d["chosen"] != d["rejected"] for d in dpo)
    cfg2 = BuildConfig(seed=8, n_train=12, n_test=8, n_users=5, n_candidates=6, window=8, k_range=(2, 3))
    build(cfg2, tmp_path / "c", SMALL, progress=False)
    assert _digest(tmp_path / "a") != _digest(tmp_path / "c")
    assert json.loads((tmp_path / "a" / "build_config.json").read_text())["config"]["seed"] == 7


@pytest.fixture()
def fake_llm():
    with running_fake_llm() as url:
        yield url


def test_build_with_paraphrase_endpoint(fake_llm, small):
    FakeLLM.reply = "PARAPHRASED"
    report = {}
    cfg = BuildConfig(n_train=0, n_test=20, n_users=4, paraphrase_url=fake_llm, paraphrase_key="sk-test", paraphrase_share=1.0)
    _, test = build_entries(small, cfg, report=report)
    assert report["paraphrase"]["calls"] == 20
    # only queries without values or mask may be rewritten into a text that lacks them
    assert all(e.query == "PARAPHRASED" or e.ground_truth.parameters or "..." in e.query for e in test)
    assert cfg.to_json()["paraphrase_key"] == "***"


def test_rule_baselines_behave_as_on_real_data(shipped_entries):
    baselines = pytest.importorskip("petool.baselines")
    _, test = shipped_entries

    def acc(rule, setting):
        b = baselines.RuleBaseline(rule)
        return sum(b.choose(e, setting).name == e.ground_truth.tool_name for e in test) / len(test)

    floor = baselines.expected_random_accuracy(test)
    assert acc("ratings", "r") > floor + 0.4
    assert acc("frequent", "p") > floor + 0.15
    assert acc("latest", "c") < acc("ratings", "r") - 0.2


def test_copied_clusters_show_one_api_name_among_the_equivalents():
    catalog = load_catalog()

    def shares(cfg):
        _, test = build_entries(catalog, cfg)
        return sum(
            any(
                api_name(t) == api_name(e.candidate(e.ground_truth.tool_name)) and t.name != e.ground_truth.tool_name
                for t in e.cluster_candidates()
            )
            for e in test
        ) / len(test)

    assert shares(BuildConfig(seed=5, n_train=0, n_test=60, p_copied_cluster=1.0)) > 0.9
    assert shares(BuildConfig(seed=5, n_train=0, n_test=60)) < 0.3


def test_narrowed_twins_are_listed_with_the_ground_truth_and_phrased_with_their_parameter():
    from petool.schema import extends_name

    catalog = load_catalog()
    _, test = build_entries(catalog, BuildConfig(seed=5, n_train=0, n_test=120, p_narrowed_cluster=1.0))
    paired = 0
    for e in test:
        gold = e.ground_truth.tool_name
        names = [t.name for t in e.candidates]
        twins = [n for n in names if n != gold and provider_of(n) == provider_of(gold) and (extends_name(n, gold) or extends_name(gold, n))]
        if "/by-" in e.func:
            assert twins, e.func  # the broad API of its tool is a candidate
            param = e.candidate(gold).required_parameters[-1].name
            assert param in e.ground_truth.parameters, (e.query, e.ground_truth)
        paired += bool(twins)
    assert paired > 0.4 * len(test)


def test_narrowed_twins_follow_their_cluster_in_the_split():
    catalog = load_catalog()
    config = BuildConfig(seed=11, n_train=900, n_test=60)
    train, test = split_clusters(catalog, config)
    n_train, n_test = split_clusters(with_narrowed_apis(catalog, 1.0, seed=11), config)
    # the clusters split as without twins; each twin on its cluster's side
    assert [c for c in n_train if base_cluster(c) == c] == train and [c for c in n_test if base_cluster(c) == c] == test
    assert {base_cluster(c) for c in n_test} <= set(test) and {base_cluster(c) for c in n_train} <= set(train)
    assert len(n_train) + len(n_test) > len(train) + len(test)  # there are twins to place
