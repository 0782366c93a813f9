"""Distribution report: per-entry measures, the table, plotly figures, token counting."""

from __future__ import annotations

from pathlib import Path

import pytest

from petool.bench import BuildConfig, build_entries
from petool.catalog import load_catalog
from petool.stats import entry_measures, estimate_tokens, format_table, stats_table, token_counter, write_figures

SMALL = Path(__file__).resolve().parent / "fixtures" / "catalog_small.json"
REAL = Path(__file__).resolve().parents[2] / "shared" / "petoolbench" / "early_test_dev.json.gz"


@pytest.fixture(scope="module")
def entries():
    _, test = build_entries(load_catalog(SMALL), BuildConfig(n_train=0, n_test=12, n_users=4, n_candidates=6, window=8, k_range=(2, 3)))
    return test


def test_entry_measures(entries):
    m = entry_measures(entries[0], estimate_tokens)
    assert m["n_candidates"] == 6 and 2 <= m["non_preferred_turns"] <= 3 and m["window_turns"] <= 8
    assert m["cluster_size"] == len(entries[0].cluster)
    assert set(m) >= {"prompt_tokens_p", "prompt_tokens_r", "prompt_tokens_c", "prompt_tokens_none"}
    assert m["prompt_tokens_r"] > m["prompt_tokens_none"]


def test_stats_table_and_format(entries):
    rows = stats_table({"generated": entries, "again": entries[:5]})
    measures = {r["measure"] for r in rows}
    assert {
        "history length (full)",
        "non-preferred turns (r, rating 0)",
        "functional cluster size",
        "candidates per entry",
        "candidate parameter types",
        "empty ground-truth parameters",
        "prompt tokens (r)",
    } <= measures
    cand = next(r for r in rows if r["measure"] == "candidates per entry" and r["source"] == "generated")
    assert cand["mean"] == 6 and cand["detail"] == "6:100%"
    text = format_table(rows)
    assert text.splitlines()[0].split()[:3] == ["measure", "source", "n"] and "again" in text
    assert not any("prompt" in r["measure"] for r in stats_table({"g": entries}, count_tokens=None))


def test_write_figures(entries, tmp_path):
    paths = write_figures({"generated": entries}, tmp_path / "figs")
    assert paths[0].name == "index.html" and all(p.exists() for p in paths)
    assert (tmp_path / "figs" / "plotly.min.js").stat().st_size > 100_000
    assert "history length" in (tmp_path / "figs" / "history_length.html").read_text()


def test_token_counting():
    assert estimate_tokens("") == 0 and estimate_tokens("a" * 35) == 10
    fn, label = token_counter("estimate")
    assert fn("abcdefg") == 2 and "3.5" in label
    with pytest.raises(ValueError, match="valid are"):
        token_counter("gpt")


@pytest.mark.skipif(not REAL.exists(), reason="real dev entries not present")
def test_stats_on_real_dev_entries(entries):
    from petool.formats import load_entries

    real = load_entries(REAL).entries[:20]
    rows = stats_table({"generated": entries, "real dev": real}, count_tokens=None)
    k = next(r for r in rows if r["measure"].startswith("non-preferred") and r["source"] == "real dev")
    assert 2 <= k["min"] <= k["max"] <= 5
