"""Rule baselines that need no language model, runnable like any model.

They pick a tool by a rule and fill its required parameters with the schema defaults, then
answer with the call as JSON text, so the whole pipeline (parse, score, aggregate) is exercised.
Rules that look "inside the cluster" use the benchmark's functional-cluster labels: an oracle
for functionality, which isolates the preference part of the task.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter

from petool.ranking import rank_candidates
from petool.schema import Entry, Generation, Setting, Tool, ToolCall, provider_of

BASELINES = {
    "random": "a seeded random pick inside the ground truth's functional cluster",
    "frequent": "the cluster option whose tool appears most often in the history",
    "ratings": "the cluster option whose tool has the most positive ratings (minus negative ones)",
    "latest": "the cluster option whose tool was used last in the history",
    "rules": "the rule that fits the setting: frequent (p), ratings (r), latest (c), random (none)",
    "nohistory": "the candidate whose name and description share most words with the query",
    "evidence": "no oracle: the best-fitting candidates (petool.ranking), then the history's preference",
}


class RuleBaseline:
    """A rule predictor with the same ``name`` / ``generate`` interface as a language model."""

    def __init__(self, rule: str, seed: int = 0):
        if rule not in BASELINES:
            raise ValueError(f"unknown baseline {rule!r}; valid: {', '.join(BASELINES)}")
        self.rule = rule
        self.seed = seed
        self.name = f"baseline:{rule}"

    has_adapter = False
    """A rule has no adapter to switch."""

    def describe(self) -> dict:
        return {"model": self.name, "rule": BASELINES[self.rule], "seed": self.seed}

    def generate(self, entry: Entry, setting: Setting, *, rank_prior: float | None = None, use_adapter: bool | None = None) -> Generation:
        """The rule's call as JSON text; ``rank_prior`` plays no part, ``use_adapter=True`` is refused."""
        if use_adapter:
            raise ValueError(f"{self.name} has no adapter")
        start = time.perf_counter()
        tool = self.choose(entry, setting)
        call = ToolCall(tool.name, {p.name: p.default for p in tool.required_parameters}) if tool else None
        text = call.to_text() if call else ""
        return Generation(text, time.perf_counter() - start, model=self.name)

    def choose(self, entry: Entry, setting: str) -> Tool | None:
        """The candidate this rule picks for ``entry`` in ``setting``."""
        rng = random.Random(f"{self.seed}:{entry.entry_id}:{setting}")
        if self.rule == "nohistory":
            return _best_overlap(entry) if entry.candidates else None
        if self.rule == "evidence":
            return rank_candidates(entry, setting)[0][0] if entry.candidates else None
        options = entry.cluster_candidates() or entry.candidates
        if not options:
            return None
        rule = self.rule
        if rule == "rules":
            rule = {"p": "frequent", "r": "ratings", "c": "latest"}.get(setting, "random")
        history = entry.history(setting)
        if rule == "random" or not history:
            return rng.choice(options)
        if rule == "latest":
            order = {provider_of(t.call.tool_name): i for i, t in enumerate(history)}
            scores = {t.name: order.get(provider_of(t.name), -1) for t in options}
        else:
            counts: Counter = Counter()
            for turn in history:
                if rule == "ratings" and turn.rating is not None:
                    counts[provider_of(turn.call.tool_name)] += 1 if turn.rating == 1 else -1
                else:
                    counts[provider_of(turn.call.tool_name)] += 1
            scores = {t.name: counts.get(provider_of(t.name), 0) for t in options}
        best = max(scores.values())
        return rng.choice([t for t in options if scores[t.name] == best])


def expected_random_accuracy(entries: list[Entry]) -> float:
    """Expected tool accuracy of a uniform pick inside each entry's cluster candidates."""
    if not entries:
        return 0.0
    return sum(1 / max(1, len(e.cluster_candidates())) for e in entries) / len(entries)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def _best_overlap(entry: Entry) -> Tool:
    query = _words(entry.query)
    return max(entry.candidates, key=lambda t: len(query & _words(f"{t.name} {t.description}")))
