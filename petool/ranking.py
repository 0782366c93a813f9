"""Candidate ranking: how well each candidate fits the query, and what the history says of its tool.

A 135M model cannot match instructions to functions or count history turns reliably unaided;
these pure functions do the counting so a compact prompt can state the evidence per candidate
and a rule can act on it directly (``baseline:evidence``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from petool.query import words
from petool.schema import Entry, Tool, Turn, provider_of, split_tool_name


def api_name(tool: Tool) -> str:
    """The API part of a candidate's ``<Category>.<Tool>.<API>`` name (the whole name if it has no parts)."""
    parts = split_tool_name(tool.name)
    return parts[2] if parts else tool.name


def tool_text(tool: Tool) -> str:
    """What a candidate does, in words: API name, description, parameter names and descriptions."""
    params = " ".join(f"{p.name} {p.description}" for p in tool.required_parameters + tool.optional_parameters)
    return f"{api_name(tool)} {tool.description} {params}"


# How much more a query word counts when the API's own name holds it: a name says what the API
# does ("getInventory", "Get subtitle in SRT format"), while a description and parameter
# descriptions mention much else. Chosen on generated validation entries split by category and
# confirmed on held-out ones (docs/experiments.md, "Every default and what justified it").
API_NAME_WEIGHT = 0.75

# How much a candidate gains from fitting candidates that resemble it (``fit_scores``): equivalent
# APIs come in groups, a distractor mostly stands alone. Checked like API_NAME_WEIGHT.
TWIN_WEIGHT = 1.0

# The fit at which a candidate counts as answering the instruction, so that the history's
# preference may order it (``rank_tools``; fit is scaled so the best candidate has 1.0).
# Checked like API_NAME_WEIGHT.
FIT_THRESHOLD = 0.5


def fit_scores(query: str, candidates: list[Tool], twin_weight: float | None = None) -> dict[str, float]:
    """Functional fit of each candidate to the query, scaled so the best is 1.0.

    TF-IDF word overlap between the query and the candidate's text, words of the API's name
    counting ``1 + API_NAME_WEIGHT`` times; the IDF is computed over the candidates themselves
    so words every candidate shares count little. With ``twin_weight``, a candidate also gains
    from fitting candidates that resemble it (default ``TWIN_WEIGHT``): equivalent APIs come in
    groups.
    """
    twin_weight = TWIN_WEIGHT if twin_weight is None else twin_weight
    docs = {t.name: set(words(tool_text(t))) for t in candidates}
    df = Counter(w for doc in docs.values() for w in doc)
    n = len(docs) or 1
    q = set(words(query))
    idf = {w: math.log((n + 1) / (df[w] + 0.5)) for w in q}
    raw = {
        t.name: sum(idf[w] for w in q & docs[t.name]) + API_NAME_WEIGHT * sum(idf[w] for w in q & _word_set(api_name(t)))
        for t in candidates
    }
    if twin_weight:

        def sim(a, b):
            return len(docs[a] & docs[b]) / (len(docs[a] | docs[b]) or 1)

        raw = {a: s + twin_weight * max((sim(a, b) * raw[b] for b in docs if b != a), default=0.0) for a, s in raw.items()}
    best = max(raw.values(), default=0.0) or 1.0
    return {name: round(score / best, 3) for name, score in raw.items()}


# The chronological setting puts the 2-5 turns on non-preferred tools first (docs/petoolbench.md §2),
# so an opening run longer than this already reaches the preferred turns (checked on generated
# validation entries: docs/experiments.md, "Re-justified on held-out generated clusters").
OPENING_CALLS_MAX = 5

# How much a candidate's likeness to the tools the user turned away from adds to its fit: those
# tools are the ground truth's functional equivalents, so likeness to them finds the cluster.
# Chosen on generated validation entries split by category, with and without clusters copying
# one API under several tools (docs/experiments.md, "Re-justified on held-out generated clusters").
REJECTED_LIKENESS_WEIGHT = 1.0

# Where the history turns no candidate away (p), the ground truth's cluster still shows as a
# group of alike candidates from different tools, while most distractors stand alone: a
# candidate's likeness to another tool's candidate adds this much to its fit. Chosen on generated
# validation entries (docs/experiments.md, "Re-justified on held-out generated clusters").
COHESION_WEIGHT = 0.5


def cohesion(tool: Tool, candidates: list[Tool]) -> float:
    """How alike ``tool`` is to the most alike candidate of another tool (provider), 0-1."""
    own = provider_of(tool.name)
    return max((likeness(tool, other) for other in candidates if provider_of(other.name) != own), default=0.0)


@dataclass
class ToolEvidence:
    """What the history says of one candidate's tool (provider)."""

    uses: int = 0
    liked: int = 0
    disliked: int = 0
    first: int | None = None
    last: int | None = None
    in_leading_block: bool = False


def history_evidence(history: list[Turn], candidates: list[Tool]) -> dict[str, ToolEvidence]:
    """Evidence per candidate name from a history (positions are 1-based).

    ``in_leading_block`` marks the tools of the opening run of turns (at most
    ``OPENING_CALLS_MAX``) that call alike candidates' tools: in the chronological setting
    those come first because the user liked them least.
    """
    by_provider: dict[str, ToolEvidence] = {}
    for i, turn in enumerate(history, 1):
        ev = by_provider.setdefault(provider_of(turn.call.tool_name), ToolEvidence())
        ev.uses += 1
        ev.liked += turn.rating == 1
        ev.disliked += turn.rating == 0
        ev.first = ev.first or i
        ev.last = i
    offered: dict[str, list[Tool]] = {}
    for t in candidates:
        offered.setdefault(provider_of(t.name), []).append(t)
    leading: list[str] = []
    for turn in history[:OPENING_CALLS_MAX]:
        provider = provider_of(turn.call.tool_name)
        if provider not in offered:
            break
        # The opening turns are on one functional cluster's tools, so a new tool joins the run
        # only if it is alike one already in it; an unrelated candidate's tool ends the run.
        if (
            leading
            and provider not in leading
            and not any(likeness(a, b) > 0 for known in leading for a in offered[known] for b in offered[provider])
        ):
            break
        if provider not in leading:
            leading.append(provider)
    out = {}
    for t in candidates:
        ev = by_provider.get(provider_of(t.name), ToolEvidence())
        out[t.name] = ToolEvidence(ev.uses, ev.liked, ev.disliked, ev.first, ev.last, provider_of(t.name) in leading)
    return out


def preference_score(ev: ToolEvidence, setting: str) -> float:
    """How much the history says the user prefers this tool, in the setting's own terms."""
    if setting == "r":
        return ev.liked - 2 * ev.disliked
    if setting == "c":
        return -1.0 if ev.in_leading_block else float(ev.uses > 0)
    return float(ev.uses)


def turned_away(ev: ToolEvidence, setting: str) -> bool:
    """Whether the history marks the tool as one the user turned away from: disliked (r) or
    among the opening calls (c). The benchmark puts those turns on the ground truth's
    functional equivalents, so they also say which candidates form its cluster."""
    return (setting == "r" and ev.disliked > 0) or (setting == "c" and ev.in_leading_block)


@lru_cache(maxsize=4096)
def _word_set(text: str) -> frozenset[str]:
    # likeness runs for every candidate pair each time a prompt is ranked: split each text once
    return frozenset(words(text))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / (len(a | b) or 1)


def _name_words(tool: Tool) -> frozenset[str]:
    # "/v1" holds no content word; then the name itself, bare, is its one word
    name = api_name(tool)
    return _word_set(name) or frozenset({re.sub(r"\W+", "", name.lower())}) - {""}


# Equivalent APIs in ToolBench are often one API copied under several tools: the same name
# ("getPetById", "/random", "user-followers") or the same description with other parameters.
# Over the whole text such copies can share few words, so the name's and the description's own
# overlaps count too, at these weights. Chosen on 1,800 generated entries (seeds 101/202/303;
# name 0-1 x description 0-1 tried): the ground truth ranked first r 89.4 -> 90.3, c 88.3 -> 89.1.
NAME_LIKENESS_WEIGHT = 0.5
DESCRIPTION_LIKENESS_WEIGHT = 0.75


def likeness(a: Tool, b: Tool) -> float:
    """How alike two candidates are, 0-1: the Jaccard overlap of their words (name, description,
    parameters), or of their API names' or descriptions' words alone, weighted, if more."""
    return max(
        _jaccard(_word_set(tool_text(a)), _word_set(tool_text(b))),
        NAME_LIKENESS_WEIGHT * _jaccard(_name_words(a), _name_words(b)),
        DESCRIPTION_LIKENESS_WEIGHT * _jaccard(_word_set(a.description), _word_set(b.description)),
    )


def rank_keys(
    query: str, history: list[Turn], candidates: list[Tool], setting: str, fit_threshold: float | None = None
) -> dict[str, tuple]:
    """Each candidate's sort key in ``rank_tools`` (higher first), by name; equal keys are a tie
    that only the candidates' order in the entry breaks."""
    return _ranking_facts(query, history, candidates, setting, fit_threshold)[0]


def _ranking_facts(
    query: str, history: list[Turn], candidates: list[Tool], setting: str, fit_threshold: float | None
) -> tuple[dict[str, tuple], dict[str, float], dict[str, ToolEvidence]]:
    fit_threshold = FIT_THRESHOLD if fit_threshold is None else fit_threshold
    fit = fit_scores(query, candidates)
    evidence = history_evidence(history if setting != "none" else [], candidates)
    rejected = [t for t in candidates if turned_away(evidence[t.name], setting)]

    def key(t: Tool) -> tuple:
        pref = preference_score(evidence[t.name], setting)
        if rejected:
            if t in rejected:
                return (False, fit[t.name], pref)
            alike = max(likeness(t, other) for other in rejected)
            return (True, fit[t.name] + REJECTED_LIKENESS_WEIGHT * alike, pref)
        fits = fit[t.name] >= fit_threshold
        return (fits, pref if fits else 0.0, fit[t.name] + COHESION_WEIGHT * cohesion(t, candidates))

    return {t.name: key(t) for t in candidates}, fit, evidence


def tied_ranks(keys: dict[str, tuple], names: list[str]) -> list[bool]:
    """For candidates in rank order, whether each has the same ranking key as the one before it.

    Example:
        >>> tied_ranks({"a": (1,), "b": (1,), "c": (0,)}, ["a", "b", "c"])
        [False, True, False]
    """
    return [k > 0 and keys[name] == keys[names[k - 1]] for k, name in enumerate(names)]


def rank_tools(
    query: str, history: list[Turn], candidates: list[Tool], setting: str, fit_threshold: float | None = None
) -> list[tuple[Tool, float, ToolEvidence]]:
    """Candidates ordered best first.

    When the history turns the user away from some candidates' tools (r, c), the others are
    ordered by fit plus likeness to those (the rejected tools' equivalents are the likely
    answer) and the rejected come last. Otherwise well-fitting candidates (fit at least
    ``fit_threshold``) come first, ordered by preference, then the rest; equal preference goes
    by fit plus likeness to another tool's candidate (``cohesion``: the cluster's members are
    alike, most distractors stand alone).
    A pure function of the prompt's inputs, so a prompt can show the candidates in this order
    (the ``shortlist`` style) and a rule can take the first (``baseline:evidence``).
    """
    keys, fit, evidence = _ranking_facts(query, history, candidates, setting, fit_threshold)
    ordered = sorted(candidates, key=lambda t: keys[t.name], reverse=True)
    return [(t, fit[t.name], evidence[t.name]) for t in ordered]


# Where the ground truth lands in the ranking, by setting: its share at ranks 1..4 among the
# generated entries whose shortlist holds it. A prior for the tool choice. r and c: fitted on the
# seen part of the category-split default and copied builds (the fits' mean), p: kept, its fit
# scored worse on validation; `python benchmarks/tool_choice.py --ranks-only --split-by category`
# prints both, and docs/experiments.md ("GOLD_RANK_SHARE on category-split parts") records them.
GOLD_RANK_SHARE = {
    "p": (0.741, 0.196, 0.038, 0.025),
    "r": (0.923, 0.049, 0.021, 0.007),
    "c": (0.923, 0.049, 0.021, 0.007),
}


def rank_log_prior(setting: str, n: int, tied: list[bool] | None = None, shares: Sequence[float] | None = None) -> list[float]:
    """Log prior of the ground truth being at each of the first ``n`` ranks (``GOLD_RANK_SHARE``,
    or ``shares`` where given, renormalized over ``n``; flat where the setting has no history to
    rank by).

    ``tied[k]`` says the candidate at rank k has the same ranking key as the one before it
    (``rank_keys``): tied candidates share their ranks' prior equally, since only the entry's
    candidate order put one first ("Spotify" and "Spotify Web", one API copied under both).
    What sharing changed: docs/experiments.md ("Figures moved out of docstrings").

    Example:
        >>> [round(x, 2) for x in rank_log_prior("r", 2)]
        [-0.05, -2.99]
        >>> [round(x, 2) for x in rank_log_prior("r", 3, [False, True, False])]
        [-0.71, -0.71, -3.86]
    """
    shares = GOLD_RANK_SHARE.get(setting) if shares is None else shares
    if not shares or n <= 0:
        return [0.0] * max(n, 0)
    # ranks past the table's end get the last rank's share
    shares = [shares[min(k, len(shares) - 1)] for k in range(n)]
    runs: list[list[float]] = []  # ranks that tie, each run sharing its mean
    for k, share in enumerate(shares):
        if k and tied and k < len(tied) and tied[k]:
            runs[-1].append(share)
        else:
            runs.append([share])
    shares = [sum(run) / len(run) for run in runs for _ in run]
    total = sum(shares)
    return [math.log(x / total) for x in shares]


def rank_candidates(entry: Entry, setting: str, fit_threshold: float | None = None) -> list[tuple[Tool, float, ToolEvidence]]:
    """``rank_tools`` over an entry's query, history in ``setting`` and candidates."""
    history = entry.history(setting)
    return rank_tools(entry.query, history, entry.candidates, setting, fit_threshold)
