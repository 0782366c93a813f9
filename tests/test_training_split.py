"""petool.training_split: a training build under --split-by category never sees the categories
benchmarks/generalisation.py holds out."""

from __future__ import annotations

import gzip
import importlib.util
import json

import pytest

from petool.bench import BuildConfig, cluster_category, split_categories
from petool.catalog import API, Catalog, CatalogTool, load_catalog
from petool.training_split import nearest_categories, training_catalog, training_split
from tests.test_train_recipe import SCRIPT, SMALL_DATA, renamed_shipped_catalog

SHIPPED = load_catalog()


@pytest.fixture(scope="module")
def recipe():
    spec = importlib.util.spec_from_file_location("train_petoolllama_split", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def categories_of(catalog: Catalog, clusters: list[str]) -> set[str]:
    return {cluster_category(catalog, c) for c in clusters}


def test_the_split_is_generalisation_pys_split():
    # generalisation.py builds its parts with BuildConfig(seed=0, split_by="category")
    train, validation, test = split_categories(SHIPPED, BuildConfig(seed=0, split_by="category", n_validation=1))
    split = training_split([SHIPPED], seed=0)
    assert split.train_categories == categories_of(SHIPPED, train)
    assert split.held_categories == categories_of(SHIPPED, validation) | categories_of(SHIPPED, test)
    assert not split.train_categories & split.held_categories
    assert split.train_categories | split.held_categories == set(SHIPPED.categories)
    assert training_split([SHIPPED], seed=1).train_categories != split.train_categories


def test_the_pool_holds_only_train_categories_and_all_of_them():
    pool, split = training_catalog([SHIPPED])
    assert {a.category for a in pool.apis} == split.train_categories
    train_clusters = {c for c in SHIPPED.members if cluster_category(SHIPPED, c) in split.train_categories}
    assert set(pool.members) == train_clusters
    assert all(len(pool.members[c]) == len(SHIPPED.members[c]) for c in train_clusters)


def test_added_clusters_go_where_their_words_are(tmp_path):
    renamed = load_catalog(renamed_shipped_catalog(tmp_path / "two.json"))
    placed = nearest_categories(SHIPPED, renamed)
    right = sum(placed.get(f"two.{c}") == cluster_category(SHIPPED, c) for c in SHIPPED.members)
    assert right >= 0.95 * len(SHIPPED.members)
    pool, split = training_catalog([SHIPPED, renamed])
    kept = {c for c in pool.members if c.startswith("two.")}
    assert kept == {c for c, cat in placed.items() if cat in split.train_categories}
    assert len(kept) < len(placed)  # clusters nearest a held-out category leave


def api(name: str, description: str, cluster: str, category: str = "x") -> API:
    return API(category, "T", name, description, cluster, [], [])


def test_a_cluster_sharing_no_word_with_any_category_is_left_out():
    added = Catalog(
        [
            CatalogTool(
                "x",
                "T",
                "",
                {},
                [api("zzqx", "qwvz plorb", "odd"), api("zzqy", "qwvz plorb", "odd"), api("forecast", "weather forecast for a city", "wx")],
            )
        ],
        {"odd": "", "wx": ""},
    )
    placed = nearest_categories(SHIPPED, added)
    assert "odd" not in placed and placed["wx"] == "Weather"
    pool, _ = training_catalog([SHIPPED, added])
    assert "odd" not in pool.members and "wx" in pool.members  # Weather is a train category at seed 0


@pytest.mark.parametrize("extra", [[], ["--catalog", "TWO"]])
def test_the_scripts_category_split_keeps_held_out_categories_out_of_every_file(recipe, tmp_path, extra):
    if extra:
        extra = ["--catalog", "assets/catalog.json", "--catalog", str(renamed_shipped_catalog(tmp_path / "two.json"))]
    out = tmp_path / "run"
    assert recipe.main(["--out", str(out), "--stop-after", "data", "--split-by", "category", *SMALL_DATA, *extra]) == 0
    facts = json.loads((out / "data" / "data.json").read_text())
    held = set(facts["split"]["held_categories"])
    assert held == training_split([SHIPPED]).held_categories
    text = (out / "data" / "sft_train.jsonl").read_text() + (out / "data" / "dpo_bench.jsonl").read_text()
    text += gzip.decompress((out / "data" / "heldout.json.gz").read_bytes()).decode()
    named = {a.full_name for a in SHIPPED.apis if a.category in held}
    assert not [name for name in named if name in text]
    kept = {a.full_name for a in SHIPPED.apis if a.category not in held}
    assert any(name in text for name in kept)


def test_default_split_is_by_cluster(recipe):
    assert recipe.build_parser().parse_args([]).split_by == "cluster"
