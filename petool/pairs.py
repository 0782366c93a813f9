"""DPO pairs: human labels -> pairs, with every judgement call of the policy in one place; and
the benchmark's own pairs, the gold call over constructed negatives (``dpo_negatives``, at the end).

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
0. Before all: an undone or edited label (``withdrawn``, see ``Store.withdraw_label``) never counts.

``explain_labels`` gives each label's fate (pairs, or the rule that stopped it) from the same pass.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from petool.prompts import build_messages, prompt_candidates
from petool.ranking import fit_scores
from petool.schema import Entry, PreferenceExample, Tool, ToolCall, split_tool_name

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


REASONS = {
    "undone": "undone by its annotator",
    "edited": "edited: replaced by label #{other}",
    "test": "test data: labels on test entries never become training pairs",
    "replaced": "replaced by a later vote (label #{other}) on the same calls",
    "tie": "a tie: no order between the two calls",
    "both_bad_no_gold": "both bad, and no gold call is known (type one to make a pair)",
    "both_bad_skipped": "both bad: the policy skips both-bad verdicts without a typed gold call",
    "unparsed_winner": "the winning side's output did not parse: a broken call is never chosen",
    "identical": "identical calls: the chosen and the rejected call are the same",
    "nothing_rejected": "the other side gave no output, so there is nothing to reject",
    "duplicate": "the same pair as label #{other}",
    "conflict": "contradicted by label #{other} (the opposite preference): dropped by the policy",
}
"""Why a label is not a pair, one code per rule above; ``{other}`` names the label involved."""


@dataclass(frozen=True)
class LabelStatus:
    """What became of one label: ``pairs`` DPO pairs, or none for ``reason`` (a REASONS code)."""

    label_id: int
    pairs: int = 0
    reason: str | None = None
    other: int | None = None
    """The label the reason refers to (the later vote, the duplicate, the contradiction)."""

    @property
    def text(self) -> str:
        if self.reason is None:
            return f"becomes {self.pairs} pair{'s' if self.pairs != 1 else ''}"
        return REASONS[self.reason].format(other=self.other)


def latest_labels(labels: Iterable[dict]) -> list[dict]:
    """Keep each annotator's latest label per (entry, setting, unordered pair of calls)."""
    return _latest(labels)[0]


def _relabel_key(label: dict) -> tuple:
    sides = sorted([_side_text(label, "a") or "", _side_text(label, "b") or ""])
    return (label.get("annotator"), str(label.get("entry_key")), label.get("setting"), *sides)


def _latest(labels: Iterable[dict]) -> tuple[list[dict], dict[int, int]]:
    """(latest labels in id order, replaced label id -> the id of the label that replaced it)."""
    latest: dict[tuple, dict] = {}
    replaced: dict[int, int] = {}
    for label in sorted(labels, key=lambda r: (r.get("created") or "", r.get("id") or 0)):
        key = _relabel_key(label)
        if key in latest:
            replaced[latest[key].get("id")] = label.get("id")
        latest[key] = label
    return sorted(latest.values(), key=lambda r: r.get("id") or 0), replaced


def label_pairs(label: dict, policy: PairPolicy = PairPolicy()) -> list[tuple[str, str]]:
    """(chosen, rejected) texts one label yields under ``policy`` (rules 2-6 above).

    Example:
        >>> a = {"tool_name": "<X>.<A>.<f>", "parameters": {}}
        >>> b = {"tool_name": "<X>.<B>.<f>", "parameters": {}}
        >>> label_pairs({"verdict": "B", "call_a": a, "call_b": b})
        [('{"tool_name": "<X>.<B>.<f>", "parameters": {}}', '{"tool_name": "<X>.<A>.<f>", "parameters": {}}')]
    """
    return _label_pairs(label, policy)[0]


def _label_pairs(label: dict, policy: PairPolicy) -> tuple[list[tuple[str, str]], str | None]:
    """``label_pairs`` and, when they are none, the REASONS code saying why."""
    a, b = _side_text(label, "a"), _side_text(label, "b")
    a_ok, b_ok = call_text(label.get("call_a")) is not None, call_text(label.get("call_b")) is not None
    verdict = label.get("verdict")
    gold = call_text(label.get("gold_call"))
    if gold is None and verdict == "both_bad" and policy.both_bad == "ground_truth":
        gold = call_text((label.get("entry") or {}).get("ground_truth"))
    if gold is not None and verdict in ("A", "B", "tie", "both_bad"):
        chosen, rejected = gold, [a, b]
    elif verdict == "A" and a_ok:
        chosen, rejected = a, [b]
    elif verdict == "B" and b_ok:
        chosen, rejected = b, [a]
    elif verdict == "tie":
        return [], "tie"
    elif verdict == "both_bad":
        return [], "both_bad_no_gold" if policy.both_bad == "ground_truth" else "both_bad_skipped"
    else:
        return [], "unparsed_winner"
    out = []
    for r in dict.fromkeys(rejected):
        if r is not None and r != chosen:
            out.append((chosen, r))
    if not out:
        return [], "identical" if any(r == chosen for r in rejected) else "nothing_rejected"
    return out, None


def pairs_from_labels(labels: Iterable[dict], policy: PairPolicy = PairPolicy()) -> list[PreferenceExample]:
    """DPO pairs from stored label rows (``Store.labels()``), deduplicated, conflicts resolved.

    Args:
        labels: rows with ``id, annotator, entry_key, setting, prompt, query, call_a, call_b,
            raw_a, raw_b, verdict, gold_call`` and optionally ``entry`` (for its ground truth)
            and ``withdrawn`` (an undone or edited label: it never counts).
        policy: the tie / both-bad / conflict policy.
    Returns:
        PreferenceExample list in label order; ``source`` is ``label:<id>:<setting>``.
    """
    return explain_labels(labels, policy)[0]


def explain_labels(labels: Iterable[dict], policy: PairPolicy = PairPolicy()) -> tuple[list[PreferenceExample], dict[int, LabelStatus]]:
    """The DPO pairs and, for every label, its ``LabelStatus``: the one pass that builds the pairs
    also says why each label that gives none gives none, so the two can never disagree. The
    statuses account for every label: each either yields pairs or has exactly one reason."""
    labels = list(labels)
    status: dict[int, LabelStatus] = {}
    live = []
    for label in labels:
        gone = label.get("withdrawn")
        if gone:
            replaced_by = gone.get("replaced_by")
            status[label.get("id")] = LabelStatus(label.get("id"), reason="edited" if replaced_by else "undone", other=replaced_by)
        else:
            live.append(label)
    kept, replaced = _latest(live)
    for old, new in replaced.items():
        status[old] = LabelStatus(old, reason="replaced", other=new)
    found: dict[tuple[str, str, str, str], PreferenceExample] = {}
    owner: dict[tuple[str, str, str, str], int] = {}
    made: dict[int, list[tuple]] = {}
    for label in kept:
        lid = label.get("id")
        if not policy.include_test and is_test_label(label):
            status[lid] = LabelStatus(lid, reason="test")
            continue
        system = label.get("prompt") or ""
        user = label.get("query") or (label.get("entry") or {}).get("query") or ""
        pairs, reason = _label_pairs(label, policy)
        if reason:
            status[lid] = LabelStatus(lid, reason=reason)
            continue
        made[lid] = []
        for chosen, rejected in pairs:
            key = (system, user, chosen, rejected)
            if key not in found:
                found[key] = PreferenceExample(system, user, chosen, rejected, source=f"label:{lid}:{label.get('setting')}")
                owner[key] = lid
            made[lid].append(key)
    dropped = set()
    if policy.conflicts == "drop":
        dropped = {k for k in found if (k[0], k[1], k[3], k[2]) in found}
    for lid, keys in made.items():
        own = [k for k in keys if owner[k] == lid and k not in dropped]
        if own:
            status[lid] = LabelStatus(lid, pairs=len(own))
            continue
        against = [owner[(k[0], k[1], k[3], k[2])] for k in keys if k in dropped]
        if against:
            status[lid] = LabelStatus(lid, reason="conflict", other=against[0])
        else:
            status[lid] = LabelStatus(lid, reason="duplicate", other=owner[keys[0]])
    return [p for k, p in found.items() if k not in dropped], status


def pair_accounting(statuses: dict[int, LabelStatus]) -> dict:
    """``{labels, with_pairs, pairs, reasons: {code: count}}``: labels = with_pairs + sum(reasons)."""
    reasons: dict[str, int] = {}
    for st in statuses.values():
        if st.reason:
            reasons[st.reason] = reasons.get(st.reason, 0) + 1
    with_pairs = [st for st in statuses.values() if st.reason is None]
    return {
        "labels": len(statuses),
        "with_pairs": len(with_pairs),
        "pairs": sum(st.pairs for st in with_pairs),
        "reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
    }


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


# ---------------------------------------------------------------- benchmark pairs (DPO negatives)
#
# Pairs from the benchmark itself, with no annotator: the gold call chosen over a constructed
# mistake. ``petool.bench`` writes them beside every training build.


def map_parameters(params: dict, source: Tool, target: Tool) -> dict:
    """Carry a call's values onto an equivalent API: by position among required, then optional
    parameters (equivalent APIs of a petool catalog list their slots in the same order)."""
    out = {}
    for group_s, group_t in (
        (source.required_parameters, target.required_parameters),
        (source.optional_parameters, target.optional_parameters),
    ):
        for i, p in enumerate(group_s):
            if p.name in params and i < len(group_t):
                out[group_t[i].name] = params[p.name]
    return out


def dpo_negatives(entry: Entry, rng: random.Random) -> list[ToolCall]:
    """Rejected calls for an entry, preference negatives first, then harder ones.

    - one call per non-preferred cluster alternative among the candidates, with the ground
      truth's values carried onto the alternative's parameter names;
    - right tool, wrong parameter value (one value changed, same type);
    - right tool, wrong parameter name (one key renamed to the alternative's or another name);
    - right tool, a stated optional parameter left out (the commonest parameter error of small
      models on the real entries).
    Every returned call differs from the ground truth.
    """
    gt = entry.ground_truth
    gt_tool = entry.candidate(gt.tool_name)
    out: list[ToolCall] = []
    for cand in entry.cluster_candidates():
        if cand.name != gt.tool_name:
            params = map_parameters(gt.parameters, gt_tool, cand) if gt_tool else dict(gt.parameters)
            out.append(ToolCall(cand.name, params))
    if gt.parameters:
        name = rng.choice(sorted(gt.parameters))
        wrong = _other_value(gt.parameters[name], name, entry, rng)
        if wrong is not None:
            out.append(ToolCall(gt.tool_name, {**gt.parameters, name: wrong}))
        new_name = _other_name(name, entry, gt_tool, rng)
        if new_name:
            params = {(new_name if k == name else k): v for k, v in gt.parameters.items()}
            out.append(ToolCall(gt.tool_name, params))
        optional = sorted(set(gt.parameters) & {p.name for p in gt_tool.optional_parameters}) if gt_tool else []
        if optional:
            dropped = rng.choice(optional)
            out.append(ToolCall(gt.tool_name, {k: v for k, v in gt.parameters.items() if k != dropped}))
    elif gt_tool and gt_tool.optional_parameters:
        p = rng.choice(gt_tool.optional_parameters)
        out.append(ToolCall(gt.tool_name, {p.name: p.default if p.default not in ("", None) else "1"}))
    return [c for c in out if c.to_json() != gt.to_json()]


def near_miss_negatives(entry: Entry, n: int, among: Iterable[str] | None = None) -> list[ToolCall]:
    """Up to ``n`` rejected calls on a near-miss functionality: candidates of the gold's category
    but outside its functional cluster, those ``ranking.fit_scores`` fits best to the query first
    (ties in the candidates' order), each carrying the gold's values for the parameters it has
    by the same name.

    Args:
        entry: the entry; its ``cluster`` names the gold's equivalents, which are never near misses.
        n: how many at most (0 gives none).
        among: candidate names to choose from (the ones the prompt shows); None: all candidates.
    Returns:
        Calls on distinct candidates, none on the gold's tool or an equivalent of it.
    """
    if n <= 0:
        return []
    gt = entry.ground_truth
    parts = split_tool_name(gt.tool_name)
    category = parts[0] if parts else entry.category
    equivalent = set(entry.cluster) | {gt.tool_name}
    shown = None if among is None else set(among)
    near = [
        t
        for t in entry.candidates
        if t.name not in equivalent and (shown is None or t.name in shown) and (split_tool_name(t.name) or (None,))[0] == category
    ]
    if not near:
        return []
    fit = fit_scores(entry.query, entry.candidates)
    order = {t.name: i for i, t in enumerate(entry.candidates)}
    near.sort(key=lambda t: (-fit.get(t.name, 0.0), order[t.name]))
    out = []
    for t in near[:n]:
        names = {p.name for p in t.required_parameters + t.optional_parameters}
        out.append(ToolCall(t.name, {k: v for k, v in gt.parameters.items() if k in names}))
    return out


def negative_kind(entry: Entry, call: ToolCall) -> str:
    """``preference`` (an equivalent tool), ``near_miss`` (a tool outside the gold's cluster),
    ``param_name`` or ``param_value`` (right tool)."""
    if call.tool_name != entry.ground_truth.tool_name:
        return "preference" if call.tool_name in entry.cluster else "near_miss"
    return "param_name" if set(call.parameters) != set(entry.ground_truth.parameters) else "param_value"


def _other_value(value, name: str, entry: Entry, rng: random.Random):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + rng.choice([1, 2, 5]) if value < 1000 else value * 2
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else value + value
    if isinstance(value, dict):
        return {}
    seen = sorted(
        {
            str(v)
            for t in entry.history("p")
            if t.call.tool_name
            for k, v in t.call.parameters.items()
            if isinstance(v, str) and v != value and k == name
        }
    )
    if seen:
        return rng.choice(seen)
    tool = entry.candidate(entry.ground_truth.tool_name)
    default = next((p.default for p in (tool.required_parameters + tool.optional_parameters) if p.name == name), "") if tool else ""
    if isinstance(default, str) and default and default != value:
        return default
    return f"{value}x" if value else "x"


def _other_name(name: str, entry: Entry, gt_tool: Tool | None, rng: random.Random) -> str | None:
    taken = set(entry.ground_truth.parameters)
    if gt_tool is not None:
        idx = _position(gt_tool, name)
        for cand in entry.cluster_candidates():
            if cand.name == gt_tool.name or idx is None:
                continue
            other = _at(cand, idx)
            if other and other != name and other not in taken:
                return other
    fallbacks = [n for n in ("q", "query", "id", "name", "value") if n != name and n not in taken]
    return rng.choice(fallbacks) if fallbacks else None


def _position(tool: Tool, name: str):
    for group, params in enumerate((tool.required_parameters, tool.optional_parameters)):
        for i, p in enumerate(params):
            if p.name == name:
                return group, i
    return None


def _at(tool: Tool, idx) -> str | None:
    params = (tool.required_parameters, tool.optional_parameters)[idx[0]]
    return params[idx[1]].name if idx[1] < len(params) else None


def preference_examples(
    entries: list[Entry], setting: str, seed: int, hard_share: float, style: str = "paper", near_misses: int = 0
) -> list[PreferenceExample]:
    """DPO pairs for one setting: per entry one preference pair, plus a wrong-parameter pair
    for a ``hard_share`` of entries, plus up to ``near_misses`` pairs rejecting a near-miss
    functionality (``near_miss_negatives`` among the candidates the prompt in ``style`` shows).
    ``near_misses=0`` gives exactly the pairs this function gave before the option existed."""
    out = []
    for e in entries:
        rng = random.Random(f"{seed}|dpo|{setting}|{e.entry_id}")
        negs = dpo_negatives(e, rng)
        pref = [c for c in negs if c.tool_name != e.ground_truth.tool_name]
        hard = [c for c in negs if c.tool_name == e.ground_truth.tool_name]
        picked = [rng.choice(pref)] if pref else []
        if hard and (rng.random() < hard_share or not picked):
            picked.append(rng.choice(hard))
        if near_misses:
            shown = [t.name for t in prompt_candidates(e, setting, style)]
            picked += near_miss_negatives(e, near_misses, shown)
        if not picked:
            continue
        messages = build_messages(e, setting, style)
        for c in picked:
            out.append(
                PreferenceExample(
                    messages[0]["content"],
                    messages[1]["content"],
                    e.ground_truth.to_text(),
                    c.to_text(),
                    source=f"bench:{negative_kind(e, c)}",
                    weight=1.0,
                )
            )
    return out
