"""Human labels -> DPO pairs, with every judgement call of the policy in one place.

A label compares two calls (A and B) for one prompt, with a verdict (A, B, tie, both_bad) and
maybe a gold call typed by the annotator. The rules, in order:

1. Relabels: an annotator's latest label on the same (entry, setting, pair of calls) replaces
   their earlier ones (labels are append-only, so "replace" happens here, not in the store).
2. A gold call, when given, is the chosen side; every shown call that differs from it is
   rejected (the winner too, if the annotator had to correct it).
3. Verdict A / B: the winner is chosen, the loser rejected.
4. Tie: no order between the two calls -> no pair (``tie="skip"``).
5. Both bad: with ``both_bad="ground_truth"`` (the default) the entry's known gold call is
   chosen over both; with ``both_bad="skip"``, or when the gold is unknown, no pair.
6. A side whose output did not parse is rejected as its raw text (a real mistake worth
   unlearning) but never chosen; identical chosen/rejected texts give no pair.
7. Labels on test entries (``entry.extra["split"] == "test"``, e.g. the real dev data) never
   become pairs unless ``include_test=True``: training on the benchmark's test set is forbidden.
8. Duplicates collapse into one pair; a pair contradicted by another label (X over Y and Y over X
   on the same prompt) is dropped on both sides (``conflicts="drop"``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

from petool.schema import PreferenceExample

TIE_POLICIES = ("skip",)
BOTH_BAD_POLICIES = ("skip", "ground_truth")
CONFLICT_POLICIES = ("drop", "keep")


@dataclass(frozen=True)
class PairPolicy:
    """How ties, both-bad verdicts and contradicting labels become (or do not become) pairs."""

    tie: str = "skip"
    both_bad: str = "ground_truth"
    conflicts: str = "drop"
    include_test: bool = False

    def __post_init__(self):
        for name, value, valid in (
            ("tie", self.tie, TIE_POLICIES),
            ("both_bad", self.both_bad, BOTH_BAD_POLICIES),
            ("conflicts", self.conflicts, CONFLICT_POLICIES),
        ):
            if value not in valid:
                raise ValueError(f"unknown {name} policy {value!r}; valid: {', '.join(valid)}")


def call_text(call: Any) -> str | None:
    """The canonical text of a call dict (what DPO trains on), or None for no call."""
    if not isinstance(call, dict) or not isinstance(call.get("tool_name"), str) or not call["tool_name"]:
        return None
    return json.dumps({"tool_name": call["tool_name"], "parameters": call.get("parameters") or {}}, ensure_ascii=False)


def latest_labels(labels: Iterable[dict]) -> list[dict]:
    """Keep each annotator's latest label per (entry, setting, unordered pair of calls)."""
    latest: dict[tuple, dict] = {}
    for label in sorted(labels, key=lambda r: (r.get("created") or "", r.get("id") or 0)):
        sides = sorted([_side_text(label, "a") or "", _side_text(label, "b") or ""])
        key = (label.get("annotator"), str(label.get("entry_key")), label.get("setting"), *sides)
        latest[key] = label
    return sorted(latest.values(), key=lambda r: r.get("id") or 0)


def label_pairs(label: dict, policy: PairPolicy = PairPolicy()) -> list[tuple[str, str]]:
    """(chosen, rejected) texts one label yields under ``policy`` (rules 2-6 above).

    Example:
        >>> a = {"tool_name": "<X>.<A>.<f>", "parameters": {}}
        >>> b = {"tool_name": "<X>.<B>.<f>", "parameters": {}}
        >>> label_pairs({"verdict": "B", "call_a": a, "call_b": b})
        [('{"tool_name": "<X>.<B>.<f>", "parameters": {}}', '{"tool_name": "<X>.<A>.<f>", "parameters": {}}')]
    """
    a, b = _side_text(label, "a"), _side_text(label, "b")
    a_ok, b_ok = call_text(label.get("call_a")) is not None, call_text(label.get("call_b")) is not None
    verdict = label.get("verdict")
    gold = call_text(label.get("gold_call"))
    if gold is None and verdict == "both_bad" and policy.both_bad == "ground_truth":
        gold = call_text(((label.get("entry") or {}).get("ground_truth")))
    if gold is not None and verdict in ("A", "B", "tie", "both_bad"):
        chosen, rejected = gold, [a, b]
    elif verdict == "A" and a_ok:
        chosen, rejected = a, [b]
    elif verdict == "B" and b_ok:
        chosen, rejected = b, [a]
    else:
        return []
    out = []
    for r in dict.fromkeys(rejected):
        if r is not None and r != chosen:
            out.append((chosen, r))
    return out


def pairs_from_labels(labels: Iterable[dict], policy: PairPolicy = PairPolicy()) -> list[PreferenceExample]:
    """DPO pairs from stored label rows (``Store.labels()``), deduplicated, conflicts resolved.

    Args:
        labels: rows with ``id, annotator, entry_key, setting, prompt, query, call_a, call_b,
            raw_a, raw_b, verdict, gold_call`` and optionally ``entry`` (for its ground truth).
        policy: the tie / both-bad / conflict policy.
    Returns:
        PreferenceExample list in label order; ``source`` is ``label:<id>:<setting>``.
    """
    found: dict[tuple[str, str, str, str], PreferenceExample] = {}
    for label in latest_labels(labels):
        if not policy.include_test and is_test_label(label):
            continue
        system = label.get("prompt") or ""
        user = label.get("query") or (label.get("entry") or {}).get("query") or ""
        for chosen, rejected in label_pairs(label, policy):
            key = (system, user, chosen, rejected)
            if key not in found:
                found[key] = PreferenceExample(system, user, chosen, rejected, source=f"label:{label.get('id')}:{label.get('setting')}")
    if policy.conflicts == "drop":
        return [p for k, p in found.items() if (k[0], k[1], k[3], k[2]) not in found]
    return list(found.values())


def is_test_label(label: dict) -> bool:
    """True when the labelled entry is test data (its ``extra.split`` is ``test``)."""
    entry = label.get("entry") or {}
    return isinstance(entry, dict) and (entry.get("extra") or {}).get("split") == "test"


def _side_text(label: dict, side: str) -> str | None:
    """A side's call text, or its raw output when it did not parse (None when both are empty)."""
    text = call_text(label.get(f"call_{side}"))
    if text is not None:
        return text
    raw = label.get(f"raw_{side}")
    return raw if isinstance(raw, str) and raw.strip() else None
