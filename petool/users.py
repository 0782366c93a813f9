"""Simulated users: a profile of weights over the tools' non-functional attributes, plus a little
personal taste, decides which tool of each functional cluster a user prefers.

The benchmark builder (``petool.bench``) draws its users here; the app's builder tab shows them.
"""

from __future__ import annotations

import hashlib
import random
import statistics
from dataclasses import dataclass

from petool.catalog import API, ATTRIBUTE_LABELS, Catalog, contributions, score_tool

PROFILES: dict[str, dict[str, float] | None] = {
    "budget-conscious": {"price_tier": 3.0, "monthly_price_usd": 3.0, "free_quota": 2.0, "rating": 0.5},
    "privacy-first": {"privacy": 5.0, "rating": 0.5, "docs_quality": 0.5},
    "speed-first": {"latency_ms": 4.0, "freshness_min": 2.0, "rating": 0.5},
    "quality-first": {"rating": 3.0, "coverage": 2.0, "docs_quality": 1.0, "freshness_min": 1.0},
    "developer-friendly": {"docs_quality": 3.0, "free_quota": 2.0, "rating": 1.0},
    "mixed": None,  # random weights over every attribute, drawn per user
}
"""Profile name -> attribute weights (None: random mixed weights per user)."""

TASTE_SD = 0.03  # per-user, per-tool noise so users of one profile do not all agree
_NORMAL = statistics.NormalDist()


@dataclass
class User:
    """A simulated user: a profile (attribute weights) plus a little personal taste noise."""

    user_id: str
    profile: str
    weights: dict[str, float]
    taste_seed: int

    def score(self, catalog: Catalog, tool_key: str) -> float:
        base = score_tool(catalog.goodness[tool_key], self.weights)
        # Stable per (user, tool) noise from a hash: cheap and independent of call order.
        h = hashlib.blake2b(f"{self.taste_seed}|{tool_key}".encode(), digest_size=8).digest()
        u = (int.from_bytes(h, "big") + 0.5) / 2**64
        return base + TASTE_SD * _NORMAL.inv_cdf(u)

    def to_json(self) -> dict:
        return {"user_id": self.user_id, "profile": self.profile, "weights": self.weights, "taste_seed": self.taste_seed}


def make_user(catalog: Catalog, rng: random.Random, profile: str | None = None, user_id: str | None = None) -> User:
    """Draw a user; ``profile`` picks one of ``PROFILES`` (None: a random one)."""
    if profile is None:
        profile = rng.choice(sorted(PROFILES))
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; valid: {', '.join(PROFILES)}")
    weights = PROFILES[profile]
    if weights is None:
        keys = sorted(ATTRIBUTE_LABELS)
        weights = {k: round(rng.expovariate(1.0), 3) for k in keys}
    return User(user_id or f"u{rng.randrange(10**6):06d}", profile, dict(weights), rng.randrange(2**31))


def preferred_api(catalog: Catalog, user: User, cluster_id: str) -> API:
    """The cluster member whose tool the user scores highest (ties broken by name)."""
    members = catalog.cluster_apis(cluster_id)
    return max(members, key=lambda a: (user.score(catalog, a.provider), a.full_name))


def preferred_tools(catalog: Catalog, user: User) -> list[str]:
    """Tool keys that win at least one cluster for this user, sorted."""
    return sorted({preferred_api(catalog, user, cid).provider for cid in catalog.members})


def explain_preference(catalog: Catalog, user: User, cluster_id: str) -> str:
    """Why this user prefers one tool of a cluster, in one paragraph for people.

    Example output: "privacy-first user u000042 prefers ClimaPrivate for 'Current weather ...'
    (score 0.91; next: OpenMeteoHub 0.84, ...). Its strongest points for this profile: privacy
    0.98 of 1 ..."
    """
    members = sorted(catalog.cluster_apis(cluster_id), key=lambda a: -user.score(catalog, a.provider))
    best = members[0]
    others = ", ".join(f"{a.tool.strip()} {user.score(catalog, a.provider):.2f}" for a in members[1:])
    parts = contributions(catalog.goodness[best.provider], user.weights)[:3]
    attrs = catalog.tool_by_key[best.provider].attributes
    strengths = "; ".join(
        f"{ATTRIBUTE_LABELS.get(k, k)} {attrs.get(k, 'n/a')} (goodness {catalog.goodness[best.provider].get(k, 0.5):.2f})" for k, _ in parts
    )
    total = sum(user.weights.values()) or 1.0
    focus = ", ".join(f"{ATTRIBUTE_LABELS.get(k, k)} {w / total:.0%}" for k, w in sorted(user.weights.items(), key=lambda kv: -kv[1])[:3])
    return (
        f"{user.profile} user {user.user_id} (weights: {focus}) prefers {best.tool.strip()} for "
        f"'{catalog.clusters.get(cluster_id, cluster_id)}' (score {user.score(catalog, best.provider):.2f}; "
        f"others: {others}). Strongest points for this profile: {strengths}."
    )
