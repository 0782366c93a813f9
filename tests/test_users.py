"""Simulated users: profiles decide the preferred tool of a cluster, and say why."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from petool.catalog import load_catalog
from petool.users import explain_preference, make_user, preferred_api

SMALL = Path(__file__).resolve().parent / "fixtures" / "catalog_small.json"


@pytest.fixture(scope="module")
def small():
    return load_catalog(SMALL)


def test_users_prefer_by_profile(small):
    rng = random.Random(0)
    private = make_user(small, rng, "privacy-first")
    cheap = make_user(small, rng, "budget-conscious")
    assert preferred_api(small, private, "weather.now").tool == "RainCheck Pro"
    assert preferred_api(small, cheap, "weather.now").tool == "SunnyAPI"
    text = explain_preference(small, private, "weather.now")
    assert "privacy-first" in text and "RainCheck Pro" in text and "privacy" in text
    mixed = make_user(small, rng, "mixed")
    assert set(mixed.weights) >= {"privacy", "latency_ms"}
    with pytest.raises(ValueError, match="unknown profile"):
        make_user(small, rng, "rich")
