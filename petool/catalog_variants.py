"""Catalog variants shaped like PEToolBench's functional clusters.

Two reshapings of a catalog, each for a drawn share of its clusters: one API copied under
several tools (``with_copied_apis``), and a twin narrowed by one parameter, "GetNews" and
"GetNewsByTopic" (``with_narrowed_apis``; ``base_cluster`` maps a twin's cluster back).
The entry builder (``petool.bench``) applies them per ``BuildConfig``.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

from petool.catalog import API, Catalog
from petool.phrasing import add_clauses, optional_clause, parameter_words


def with_copied_apis(catalog: Catalog, share: float, seed: int | str = 0) -> Catalog:
    """A copy of ``catalog`` where a ``share`` of the functional clusters (drawn with ``seed``)
    are one API copied under several tools: every member takes its first member's API name and
    description, as in PEToolBench, where 48 of the 52 clusters of the real dev entries give
    every member the same API name and 44 the same description ("getPetById" under six tools).
    Parameters, examples and templates stay each tool's own. A member whose tool already has an
    API of that name keeps its own, so full names stay unique.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be within 0..1, got {share!r}")
    rng = random.Random(f"copies|{seed}")
    renamed: dict[str, tuple[str, str]] = {}
    for cluster in sorted(catalog.members):
        source, *others = catalog.members[cluster]
        if others and rng.random() < share:
            for api in others:
                if not any(a.name == source.name for a in catalog.tool_by_key[api.provider].apis):
                    renamed[api.full_name] = (source.name, source.description)
    tools = [
        replace(
            t,
            apis=[
                replace(a, name=renamed[a.full_name][0], description=renamed[a.full_name][1]) if a.full_name in renamed else a
                for a in t.apis
            ],
        )
        for t in catalog.tools
    ]
    return Catalog(tools, dict(catalog.clusters), catalog.slots, f"{catalog.source} (copied APIs: {share:g})")


def narrowed_name(name: str, label: str) -> str:
    """The name of an API narrowed by one parameter, after ToolBench's ("GetNews" ->
    "GetNewsByTopic"; a name with spaces or symbols gets " by <label>").

    Example:
        >>> narrowed_name("GetNews", "topic"), narrowed_name("Hourly Forecast", "units")
        ('GetNewsByTopic', 'Hourly Forecast by units')
    """
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name):
        return name + "By" + "".join(w.capitalize() for w in label.split())
    return f"{name} by {label}"


NARROWED_MARK = "/by-"
"""A narrowed twin's cluster id is its cluster's id, this mark and the parameter's slot."""


def base_cluster(cluster_id: str) -> str:
    """The cluster a narrowed twin's cluster was made from (any other id: itself).

    Example:
        >>> base_cluster("news.latest/by-topic"), base_cluster("news.latest")
        ('news.latest', 'news.latest')
    """
    return cluster_id.split(NARROWED_MARK, 1)[0]


def with_narrowed_apis(catalog: Catalog, share: float, seed: int | str = 0) -> Catalog:
    """A copy of ``catalog`` where a ``share`` of the functional clusters (drawn with ``seed``)
    gain a narrowed twin: each member's tool also offers "<name>By<Param>", the same API with
    one optional parameter made required, in a cluster of its own; the member itself loses that
    parameter. As in ToolBench ("GetNews" and "GetNewsByTopic" under Azure and under Azure
    Smartable; 25 of the 450 real dev entries list such a pair), the twin's name goes on where
    the other's ends, so a model must read past the shorter name.

    The parameter is one every member has as optional, by slot, that names what to look at
    (not a flag or a number such as a page). Templates that mention it go to the twin; the rest
    stay, and the twin gets them too with a clause stating it. A cluster without such a
    parameter, or whose members would be left with nothing to phrase, stays as it is.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be within 0..1, got {share!r}")

    def content_slots(api: API) -> set[str]:
        return {api.slots.get(p.name, p.name) for p in api.optional if not p.type.upper().startswith(("BOOLEAN", "NUMBER"))}

    rng = random.Random(f"narrowed|{seed}")
    narrowed: dict[str, tuple[API, API]] = {}  # full name -> (the member without it, the twin)
    clusters = dict(catalog.clusters)
    for cluster in sorted(catalog.members):
        members = catalog.members[cluster]
        slots = set.intersection(*(content_slots(a) for a in members))
        if not slots or rng.random() >= share:
            continue
        slot = rng.choice(sorted(slots))
        label = parameter_words(slot)
        pairs = {}
        for a in members:
            param = a.param_for_slot(slot)
            mark = "{" + slot + "}"
            keep = [t for t in a.templates if mark not in t and "{" + slot + "=" not in t]
            examples = [ex for ex in a.examples if param.name not in ex.get("Parameters", {})]
            name = narrowed_name(a.name, label)
            if not (keep or examples) or any(x.name == name for x in catalog.tool_by_key[a.provider].apis):
                break
            rest = [p for p in a.optional if p is not param]
            clause = optional_clause(param.name, mark, rng)
            twin = replace(
                a,
                name=name,
                description=f"{a.description.rstrip('. ')} by {label}.",
                cluster=f"{cluster}{NARROWED_MARK}{slot}",
                required=[*a.required, param],
                optional=rest,
                examples=[ex for ex in a.examples if param.name in ex.get("Parameters", {})],
                templates=[t for t in a.templates if mark in t] + [add_clauses(t, [clause]) for t in keep],
            )
            if not (twin.templates or twin.examples):
                break
            pairs[a.full_name] = (replace(a, optional=rest, templates=keep, examples=examples), twin)
        else:
            narrowed |= pairs
            clusters[f"{cluster}{NARROWED_MARK}{slot}"] = f"{catalog.clusters.get(cluster, cluster)} by {label}"
    tools = [replace(t, apis=[x for a in t.apis for x in (narrowed.get(a.full_name) or (a,))]) for t in catalog.tools]
    return Catalog(tools, clusters, catalog.slots, f"{catalog.source} (narrowed APIs: {share:g})")
