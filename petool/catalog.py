"""Tool catalogs: load, functional clusters, ToolBench import, attribute scoring (the checks: ``catalog_validation``).

A catalog is the pool a benchmark is built from: tools (providers) with non-functional
attributes, each offering APIs, and functional clusters of equivalent APIs from different tools.

Format ``petool-catalog/1`` (one JSON file; ``assets/catalog.json`` is petool's own)::

    {"format": "petool-catalog/1",
     "slots": {"place": {"type": "STRING", "description": "City name",
                         "values": ["Paris", ...], "range": null}, ...},      # optional
     "clusters": {"weather.daily": "Daily weather forecast for a city", ...},
     "tools": [{"category": "Weather", "name": "SkyCast Pro", "description": "...",
                "attributes": {"price_tier": "free|freemium|paid|premium",
                               "monthly_price_usd": 29.0, "free_quota": 500, "latency_ms": 90,
                               "rating": 4.6, "freshness_min": 5, "coverage": 0.95,
                               "privacy": 0.6, "docs_quality": 0.9},
                "apis": [{"name": "/v1/forecast/{city}", "description": "...",
                          "cluster": "weather.daily",            # or null: no equivalents
                          "required_parameters": [{"name": "city", "type": "STRING",
                              "description": "...", "default": "Paris", "slot": "place"}],
                          "optional_parameters": [{"name": "units", "type": "ENUM",
                              "description": "...", "default": "", "enum": ["metric", "imperial"]}],
                          "examples": [{"Scenario": "...", "Parameters": {"city": "Paris"}}],
                          "templates": ["Get the daily forecast for {place} on {tool}.", ...]}]}]}

Parameter types are ToolBench's (STRING, NUMBER, BOOLEAN, ENUM, DATE (YYYY-MM-DD), GEOPOINT,
ARRAY, OBJECT, BINARY; lower-case ``string`` is accepted as some ToolBench tools write it).
A template names parameters by slot (``slot`` defaults to the parameter's name), must mention
every required slot, may mention optional ones (those become the call's optional parameters),
and may use ``{tool}`` for the provider's name and ``{slot=true}`` for a flag implied by the
wording. Every attribute is optional: a missing one scores as average (0.5).

``load_catalog`` also reads a ToolBench tool folder (``data/toolenv/tools/<Category>/<tool>.json``)
and groups equivalent APIs into clusters by name and description similarity.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from petool.catalog_validation import ATTRIBUTES, FORMAT, PRICE_TIERS, SLOT_RE, CatalogError, param_type_ok, validate_catalog
from petool.formats import read_text
from petool.schema import Parameter, Tool, join_tool_name

DEFAULT_CATALOG = Path(__file__).resolve().parent.parent / "assets" / "catalog.json"

ATTRIBUTE_LABELS = {
    "price_tier": "price tier",
    "monthly_price_usd": "monthly price",
    "free_quota": "free quota",
    "latency_ms": "latency",
    "rating": "rating",
    "freshness_min": "data freshness",
    "coverage": "coverage",
    "privacy": "privacy",
    "docs_quality": "documentation",
}


@dataclass
class API:
    """One API of a tool, with what the benchmark needs to write instructions for it."""

    category: str
    tool: str
    name: str
    description: str
    cluster: str | None
    required: list[Parameter]
    optional: list[Parameter]
    examples: list[dict] = field(default_factory=list)
    templates: list[str] = field(default_factory=list)
    slots: dict[str, str] = field(default_factory=dict)  # parameter name -> slot
    enums: dict[str, list] = field(default_factory=dict)  # parameter name -> allowed values

    @cached_property
    def full_name(self) -> str:
        return join_tool_name(self.category, self.tool, self.name)

    @cached_property
    def provider(self) -> str:
        """The tool key preferences attach to: ``Category.Tool``."""
        return f"{self.category}.{self.tool}"

    @property
    def params(self) -> list[Parameter]:
        return self.required + self.optional

    def param_for_slot(self, slot: str) -> Parameter | None:
        return next((p for p in self.params if self.slots.get(p.name, p.name) == slot), None)

    def to_candidate(self) -> Tool:
        """The API as a candidate entry in a prompt (the API's description, as the authors do)."""
        return Tool(self.full_name, self.description, list(self.required), list(self.optional))


@dataclass
class CatalogTool:
    category: str
    name: str
    description: str
    attributes: dict
    apis: list[API]

    @property
    def key(self) -> str:
        return f"{self.category}.{self.name}"


@dataclass
class Catalog:
    tools: list[CatalogTool]
    clusters: dict[str, str]
    slots: dict[str, dict] = field(default_factory=dict)
    source: str = ""

    def __post_init__(self):
        self.apis = [a for t in self.tools for a in t.apis]
        self.api_by_name = {a.full_name: a for a in self.apis}
        self.tool_by_key = {t.key: t for t in self.tools}
        self.members: dict[str, list[API]] = {}
        for a in self.apis:
            if a.cluster:
                self.members.setdefault(a.cluster, []).append(a)

    @property
    def goodness(self) -> dict[str, dict[str, float]]:
        """``attribute_goodness`` of this catalog, computed once."""
        if getattr(self, "_goodness", None) is None:
            self._goodness = attribute_goodness(self)
        return self._goodness

    @property
    def categories(self) -> list[str]:
        return sorted({t.category for t in self.tools})

    def cluster_apis(self, cluster_id: str) -> list[API]:
        if cluster_id not in self.members:
            raise ValueError(
                f"unknown cluster {cluster_id!r}; the catalog has {len(self.members)} clusters, e.g. {sorted(self.members)[:5]}"
            )
        return self.members[cluster_id]

    def summary(self) -> dict:
        sizes = [len(m) for m in self.members.values()]
        return {
            "categories": len(self.categories),
            "tools": len(self.tools),
            "apis": len(self.apis),
            "clusters": len(self.members),
            "apis_in_clusters": sum(sizes),
            "cluster_sizes": {n: sizes.count(n) for n in sorted(set(sizes))},
        }


def render_template(template: str, values: dict, tool_name: str) -> tuple[str, dict]:
    """Fill ``{slot}``, ``{slot=literal}`` and ``{tool}`` in an instruction template.

    Returns the text and the slot values it used (a ``{slot=true}`` flag renders as nothing but
    sets the value). Lists read as "a, b", objects as "k=v", booleans as yes/no.

    Example:
        >>> render_template("Weather in {place}{details=true} via {tool}.", {"place": "Lima"}, "...")
        ('Weather in Lima via ....', {'place': 'Lima', 'details': True})
    """
    used: dict = {}

    def fill(m):
        key, literal = m.group(1), m.group(2)
        if key == "tool":
            return tool_name
        if literal is not None:
            used[key] = json.loads(literal)
            return ""
        v = used[key] = values[key]
        if isinstance(v, list):
            return ", ".join(str(x) for x in v)
        if isinstance(v, dict):
            return ", ".join(f"{k}={json.dumps(x)}" for k, x in v.items())
        if isinstance(v, bool):
            return "yes" if v else "no"
        return str(v)

    return SLOT_RE.sub(fill, template), used


# ---------------------------------------------------------------- loading


def parse_catalog(data: dict, source: str = "catalog") -> Catalog:
    """Validate a catalog dict and turn it into a ``Catalog``; raises CatalogError listing problems."""
    problems = validate_catalog(data)
    if problems:
        raise CatalogError(problems, source)
    tools = []
    for t in data["tools"]:
        apis = []
        for a in t["apis"]:
            req = [Parameter.from_json(p) for p in a.get("required_parameters", [])]
            opt = [Parameter.from_json(p) for p in a.get("optional_parameters", [])]
            raw = a.get("required_parameters", []) + a.get("optional_parameters", [])
            apis.append(
                API(
                    category=t["category"],
                    tool=t["name"],
                    name=a["name"],
                    description=a.get("description", ""),
                    cluster=a.get("cluster"),
                    required=req,
                    optional=opt,
                    examples=list(a.get("examples", [])),
                    templates=list(a.get("templates", [])),
                    slots={p["name"]: p.get("slot", p["name"]) for p in raw},
                    enums={p["name"]: list(p["enum"]) for p in raw if isinstance(p.get("enum"), list)},
                )
            )
        tools.append(CatalogTool(t["category"], t["name"], t.get("description", ""), dict(t.get("attributes", {})), apis))
    return Catalog(tools, dict(data["clusters"]), dict(data.get("slots") or {}), source)


def load_catalog(path: str | Path | None = None) -> Catalog:
    """Load a catalog file (``.json`` or gzip ``.json.gz``), or a ToolBench tool folder; None loads petool's shipped catalog.

    Raises:
        CatalogError: the catalog is malformed (every problem listed, each naming its entry).
        FileNotFoundError: the path does not exist.
    """
    path = Path(path) if path is not None else DEFAULT_CATALOG
    if not path.exists():
        raise FileNotFoundError(f"no catalog at {path}")
    if path.is_dir():
        return parse_catalog(import_toolbench(path), str(path))
    try:
        data = json.loads(read_text(path))  # plain or gzip, decompression capped
    except json.JSONDecodeError as exc:
        raise CatalogError([f"not valid JSON ({exc.msg} at line {exc.lineno})"], str(path)) from None
    except ValueError as exc:  # not UTF-8, a damaged or oversized .gz
        raise CatalogError([str(exc)], str(path)) from None
    return parse_catalog(data, str(path))


def merge_catalogs(catalogs: list[Catalog]) -> Catalog:
    """One pool from several catalogs: their tools, clusters and slots unioned, in order.

    Names must not clash, since a benchmark entry names a tool by ``Category.Tool`` and an API by
    its full name: a tool key or a cluster id in two catalogs is an error, and so is a slot both
    define differently (a slot both define alike, as the shared pools ``city`` or ``lang``, is
    kept once). Nothing is renamed, so every catalog's names stay as its own files write them.
    Attribute goodness is computed over the merged pool, as over any one catalog.

    Raises:
        CatalogError: every clash, each naming the catalogs involved.
        ValueError: no catalog given.
    """
    if not catalogs:
        raise ValueError("merge_catalogs needs at least one catalog")
    if len(catalogs) == 1:
        return catalogs[0]
    problems: list[str] = []
    tool_from: dict[str, str] = {}
    cluster_from: dict[str, str] = {}
    slots: dict[str, dict] = {}
    slot_from: dict[str, str] = {}
    clusters: dict[str, str] = {}
    tools: list[CatalogTool] = []
    for i, cat in enumerate(catalogs):
        name = cat.source or f"catalog {i + 1}"
        for t in cat.tools:
            if t.key in tool_from:
                problems.append(f"tool {t.key!r} is in both {tool_from[t.key]} and {name}")
            tool_from.setdefault(t.key, name)
        tools += cat.tools
        for cid, text in cat.clusters.items():
            if cid in cluster_from:
                problems.append(f"cluster {cid!r} is in both {cluster_from[cid]} and {name}")
            cluster_from.setdefault(cid, name)
            clusters.setdefault(cid, text)
        for slot, spec in cat.slots.items():
            if slot in slots and slots[slot] != spec:
                problems.append(f"slot {slot!r} is defined differently in {slot_from[slot]} and {name}")
            slots.setdefault(slot, spec)
            slot_from.setdefault(slot, name)
    source = " + ".join(c.source or f"catalog {i + 1}" for i, c in enumerate(catalogs))
    if problems:
        raise CatalogError(problems, source)
    return Catalog(tools, clusters, slots, source)


def load_catalogs(paths: list[str | Path] | None = None) -> Catalog:
    """Load and merge several catalogs (``merge_catalogs``); none or an empty list loads the
    shipped catalog, one path is ``load_catalog`` of it."""
    if not paths:
        return load_catalog()
    return merge_catalogs([load_catalog(p) for p in paths])


# ---------------------------------------------------------------- ToolBench import

_STOP = {
    "get",
    "the",
    "a",
    "an",
    "of",
    "for",
    "by",
    "to",
    "and",
    "or",
    "in",
    "on",
    "with",
    "from",
    "api",
    "v1",
    "v2",
    "v3",
    "list",
    "this",
    "endpoint",
    "returns",
    "return",
    "data",
    "info",
    "information",
    "is",
    "all",
    "id",
    "your",
}


def _tokens(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower())
    return {w.rstrip("s") for w in words if w not in _STOP and len(w) > 1}


def import_toolbench(folder: str | Path, threshold: float = 0.5) -> dict:
    """Read ToolBench tool JSONs (``<Category>/<tool>.json``) into a catalog dict.

    Equivalent APIs are grouped when their name+description token sets overlap by at least
    ``threshold`` (Jaccard) across different tools of one category; groups are capped at 6.
    ToolBench has no attributes, templates or examples: attributes stay empty (scored as
    average), and each API gets one example built from its description and defaults.

    Args:
        folder: ``data/toolenv/tools`` or any folder holding ``<Category>/<tool>.json`` files.
        threshold: the Jaccard similarity that makes two APIs equivalent.
    """
    folder = Path(folder)
    files = sorted(folder.glob("*/*.json"))
    if not files:
        raise CatalogError([f"no <Category>/<tool>.json files under {folder}"], str(folder))
    tools, problems = [], []
    for f in files:
        try:
            d = json.loads(f.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            problems.append(f"{f.relative_to(folder)}: not valid JSON ({exc})")
            continue
        if not isinstance(d, dict) or not isinstance(d.get("api_list"), list):
            problems.append(f"{f.relative_to(folder)}: expected an object with 'api_list'")
            continue
        name = d.get("tool_name") or d.get("name") or f.stem
        apis, seen = [], set()
        for a in d["api_list"]:
            if not isinstance(a, dict) or not a.get("name") or a["name"] in seen:
                continue
            seen.add(a["name"])
            req = [_tb_param(p) for p in a.get("required_parameters") or [] if isinstance(p, dict) and p.get("name")]
            opt = [_tb_param(p) for p in a.get("optional_parameters") or [] if isinstance(p, dict) and p.get("name")]
            desc = (a.get("description") or "").strip()
            scenario = desc or f"Call {a['name']} on {name}."
            apis.append(
                {
                    "name": a["name"],
                    "description": desc,
                    "cluster": None,
                    "required_parameters": req,
                    "optional_parameters": opt,
                    "examples": [{"Scenario": scenario, "Parameters": {p["name"]: p["default"] for p in req}}],
                    "templates": [],
                }
            )
        if apis:
            tools.append(
                {"category": f.parent.name, "name": name, "description": d.get("tool_description") or "", "attributes": {}, "apis": apis}
            )
    if problems:
        raise CatalogError(problems, str(folder))
    clusters = _cluster_by_similarity(tools, threshold)
    return {"format": FORMAT, "slots": {}, "clusters": clusters, "tools": tools}


def _tb_param(p: dict) -> dict:
    ptype = p.get("type") if param_type_ok(p.get("type")) else "STRING"
    return {"name": p["name"], "type": ptype, "description": p.get("description") or "", "default": p.get("default", "")}


def _cluster_by_similarity(tools: list[dict], threshold: float) -> dict[str, str]:
    """Assign ``cluster`` ids in place to APIs that look equivalent across tools of a category."""
    by_cat: dict[str, list[tuple[int, dict, set]]] = {}
    for ti, t in enumerate(tools):
        for a in t["apis"]:
            by_cat.setdefault(t["category"], []).append((ti, a, _tokens(a["name"] + " " + a["description"])))
    clusters: dict[str, str] = {}
    for cat, items in sorted(by_cat.items()):
        taken: set[int] = set()
        for i, (ti, a, toks) in enumerate(items):
            if i in taken or not toks:
                continue
            group, tools_in = [i], {ti}
            scored = []
            for j in range(i + 1, len(items)):
                tj, b, tb = items[j]
                if j in taken or tj in tools_in or not tb:
                    continue
                sim = len(toks & tb) / len(toks | tb)
                if sim >= threshold:
                    scored.append((-sim, j))
            for _, j in sorted(scored):
                if len(group) == 6:
                    break
                if items[j][0] not in tools_in:
                    group.append(j)
                    tools_in.add(items[j][0])
            if len(group) >= 2:
                cid = f"{cat}.{len(clusters) + 1}"
                clusters[cid] = a["description"] or a["name"]
                for j in group:
                    items[j][1]["cluster"] = cid
                    taken.add(j)
    return clusters


# ---------------------------------------------------------------- attribute scoring


def attribute_goodness(catalog: Catalog) -> dict[str, dict[str, float]]:
    """Each tool's attributes mapped to 0..1 where 1 is best in the catalog (missing -> 0.5).

    Numbers spanning orders of magnitude (price, quota, latency, freshness) are compared on a log
    scale so that 30 ms vs 90 ms matters as much as 300 ms vs 900 ms.
    """
    raw: dict[str, dict[str, float]] = {}
    for t in catalog.tools:
        row = {}
        for k, (_, log) in ATTRIBUTES.items():
            v = t.attributes.get(k)
            if v is None:
                continue
            v = PRICE_TIERS[v] if k == "price_tier" else float(v)
            row[k] = math.log1p(v) if log else v
        raw[t.key] = row
    out: dict[str, dict[str, float]] = {key: {} for key in raw}
    for k, (higher, _) in ATTRIBUTES.items():
        vals = [r[k] for r in raw.values() if k in r]
        lo, hi = (min(vals), max(vals)) if vals else (0.0, 0.0)
        for key, r in raw.items():
            if k not in r or hi == lo:
                out[key][k] = 0.5
            else:
                g = (r[k] - lo) / (hi - lo)
                out[key][k] = round(g if higher else 1.0 - g, 4)
    return out


def score_tool(goodness: dict[str, float], weights: dict[str, float]) -> float:
    """A profile's utility for one tool: the weighted mean of its attribute goodness.

    Example:
        >>> score_tool({"privacy": 1.0, "latency_ms": 0.0}, {"privacy": 3, "latency_ms": 1})
        0.75
    """
    total = sum(weights.values())
    if total <= 0:
        raise ValueError(f"profile weights must sum to more than 0, got {weights}")
    return sum(w * goodness.get(k, 0.5) for k, w in weights.items()) / total


def contributions(goodness: dict[str, float], weights: dict[str, float]) -> list[tuple[str, float]]:
    """Per-attribute share of a tool's score, largest first: what makes a profile like the tool."""
    total = sum(weights.values()) or 1.0
    parts = [(k, w * goodness.get(k, 0.5) / total) for k, w in weights.items() if w > 0]
    return sorted(parts, key=lambda kv: -kv[1])
