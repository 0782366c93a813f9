"""Tool catalogs: load, validate, functional clusters, ToolBench import, attribute scoring.

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

from petool.schema import Parameter, Tool, join_tool_name

FORMAT = "petool-catalog/1"
DEFAULT_CATALOG = Path(__file__).resolve().parent.parent / "assets" / "catalog.json"

PARAM_TYPES = ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ENUM", "DATE", "GEOPOINT", "ARRAY", "OBJECT", "BINARY")
"""Type prefixes accepted (case-insensitive): "DATE (YYYY-MM-DD)" counts as DATE."""

PRICE_TIERS = {"free": 1.0, "freemium": 0.75, "paid": 0.4, "premium": 0.1}

# attribute -> (higher is better?, log scale?) — what "good" means for each attribute.
ATTRIBUTES = {
    "price_tier": (True, False),  # scored through PRICE_TIERS
    "monthly_price_usd": (False, True),
    "free_quota": (True, True),
    "latency_ms": (False, True),
    "rating": (True, False),
    "freshness_min": (False, True),
    "coverage": (True, False),
    "privacy": (True, False),
    "docs_quality": (True, False),
}

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

_SLOT_RE = re.compile(r"\{(\w+)(?:=(\w+))?\}")


class CatalogError(ValueError):
    """A catalog failed validation; ``problems`` lists every problem, each naming its entry."""

    def __init__(self, problems: list[str], source: str = "catalog"):
        self.problems = problems
        shown = "\n  ".join(problems[:20]) + (f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else "")
        super().__init__(f"{source}: {len(problems)} problem(s):\n  {shown}")


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

    return _SLOT_RE.sub(fill, template), used


# ---------------------------------------------------------------- validation


def _type_ok(t) -> bool:
    return isinstance(t, str) and t.strip().upper().startswith(PARAM_TYPES)


def validate_catalog(data) -> list[str]:
    """Every problem in a catalog dict, each naming the entry; an empty list means valid.

    Example:
        >>> validate_catalog({"format": "petool-catalog/1", "clusters": {}, "tools": []})
        ['tools: the catalog has no tools']
    """
    if not isinstance(data, dict):
        return [f"the catalog must be a JSON object, got {type(data).__name__}"]
    problems: list[str] = []
    if data.get("format") != FORMAT:
        problems.append(f"format: expected {FORMAT!r}, got {data.get('format')!r}")
    clusters = data.get("clusters")
    if not isinstance(clusters, dict):
        problems.append("clusters: must be an object mapping cluster id -> description")
        clusters = {}
    slots = data.get("slots") or {}
    if not isinstance(slots, dict):
        problems.append("slots: must be an object")
        slots = {}
    tools = data.get("tools")
    if not isinstance(tools, list) or not tools:
        return problems + ["tools: the catalog has no tools"]
    seen_tools: set[str] = set()
    members: dict[str, list[str]] = {}
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            problems.append(f"tools[{i}]: must be an object")
            continue
        where = f"tools[{i}] {tool.get('category')!s}.{tool.get('name')!s}"
        for key in ("category", "name"):
            v = tool.get(key)
            if not isinstance(v, str) or not v.strip():
                problems.append(f"{where}: '{key}' must be a non-empty string")
            elif ">.<" in v or v.startswith("<") or v.endswith(">"):
                problems.append(f"{where}: '{key}' {v!r} would break the <Category>.<Tool>.<API> name")
        if not isinstance(tool.get("description", ""), str):
            problems.append(f"{where}: 'description' must be a string")
        key = f"{tool.get('category')}.{tool.get('name')}"
        if key in seen_tools:
            problems.append(f"{where}: duplicate tool (same category and name as an earlier tool)")
        seen_tools.add(key)
        problems += _check_attributes(tool.get("attributes", {}), where)
        apis = tool.get("apis")
        if not isinstance(apis, list) or not apis:
            problems.append(f"{where}: 'apis' must be a non-empty list")
            continue
        seen_apis: set[str] = set()
        for j, api in enumerate(apis):
            awhere = f"{where} api[{j}] {api.get('name')!r}" if isinstance(api, dict) else f"{where} api[{j}]"
            if not isinstance(api, dict):
                problems.append(f"{awhere}: must be an object")
                continue
            name = api.get("name")
            if not isinstance(name, str) or not name.strip():
                problems.append(f"{awhere}: 'name' must be a non-empty string")
            elif ">.<" in name or name.endswith(">"):
                problems.append(f"{awhere}: name would break the <Category>.<Tool>.<API> name")
            elif name in seen_apis:
                problems.append(f"{awhere}: duplicate API name in this tool")
            seen_apis.add(name)
            cid = api.get("cluster")
            if cid is not None:
                if cid not in clusters:
                    problems.append(f"{awhere}: cluster {cid!r} is not declared in 'clusters'")
                else:
                    members.setdefault(cid, []).append(key)
            problems += _check_api(api, awhere, slots)
    for cid, owners in members.items():
        if len(owners) < 2:
            problems.append(f"cluster {cid!r}: has {len(owners)} API; a functional cluster needs 2-6 APIs from different tools")
        elif len(owners) > 6:
            problems.append(f"cluster {cid!r}: has {len(owners)} APIs; at most 6")
        if len(set(owners)) != len(owners):
            problems.append(f"cluster {cid!r}: two of its APIs belong to the same tool; equivalents must come from different tools")
    unused = sorted(set(clusters) - set(members))
    if unused:
        problems.append(f"clusters: declared but used by no API: {unused[:10]}")
    return problems


def _check_attributes(attrs, where: str) -> list[str]:
    if not isinstance(attrs, dict):
        return [f"{where}: 'attributes' must be an object"]
    out = []
    for k, v in attrs.items():
        if k == "price_tier":
            if v not in PRICE_TIERS:
                out.append(f"{where}: attributes.price_tier {v!r} is not one of {list(PRICE_TIERS)}")
        elif k in ATTRIBUTES:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                out.append(f"{where}: attributes.{k} must be a non-negative number, got {v!r}")
            elif k in ("coverage", "privacy", "docs_quality") and v > 1:
                out.append(f"{where}: attributes.{k} must be within 0..1, got {v!r}")
            elif k == "rating" and v > 5:
                out.append(f"{where}: attributes.rating must be within 0..5, got {v!r}")
    return out


def _check_api(api: dict, where: str, slots: dict) -> list[str]:
    out = []
    names: list[str] = []
    slot_of: dict[str, str] = {}
    required_slots = []
    for group in ("required_parameters", "optional_parameters"):
        params = api.get(group, [])
        if not isinstance(params, list):
            out.append(f"{where}: '{group}' must be a list")
            continue
        for k, p in enumerate(params):
            if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"]:
                out.append(f"{where}: {group}[{k}] must be an object with a non-empty 'name'")
                continue
            if not _type_ok(p.get("type")):
                out.append(f"{where}: parameter {p['name']!r} has type {p.get('type')!r}; valid: {', '.join(PARAM_TYPES)}")
            if p["name"] in names:
                out.append(f"{where}: parameter {p['name']!r} is declared twice")
            names.append(p["name"])
            slot = p.get("slot", p["name"])
            if slots and "slot" in p and slot not in slots:
                out.append(f"{where}: parameter {p['name']!r} uses slot {slot!r}, which 'slots' does not declare")
            slot_of[slot] = p["name"]
            if group == "required_parameters":
                required_slots.append(slot)
    examples = api.get("examples", [])
    if not isinstance(examples, list) or not examples:
        out.append(f"{where}: needs at least one example {{'Scenario': ..., 'Parameters': {{...}}}}")
    else:
        for k, ex in enumerate(examples):
            if not isinstance(ex, dict) or not isinstance(ex.get("Scenario"), str) or not isinstance(ex.get("Parameters"), dict):
                out.append(f"{where}: examples[{k}] must be {{'Scenario': str, 'Parameters': object}}")
                continue
            unknown = [n for n in ex["Parameters"] if n not in names]
            if unknown:
                out.append(f"{where}: examples[{k}] uses unknown parameter(s) {unknown}")
            missing = [slot_of[s] for s in required_slots if slot_of[s] not in ex["Parameters"]]
            if missing:
                out.append(f"{where}: examples[{k}] lacks required parameter(s) {missing}")
    templates = api.get("templates", [])
    if not isinstance(templates, list) or not all(isinstance(t, str) for t in templates):
        out.append(f"{where}: 'templates' must be a list of strings")
        return out
    for k, t in enumerate(templates):
        used = [m.group(1) for m in _SLOT_RE.finditer(t)]
        unknown = [s for s in used if s != "tool" and s not in slot_of]
        if unknown:
            out.append(f"{where}: templates[{k}] mentions unknown slot(s) {unknown}")
        missing = [s for s in required_slots if s not in used]
        if missing:
            out.append(f"{where}: templates[{k}] lacks required slot(s) {missing}")
    return out


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
    """Load a catalog file, or a ToolBench tool folder; None loads petool's shipped catalog.

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
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CatalogError([f"not valid JSON ({exc.msg} at line {exc.lineno})"], str(path)) from None
    return parse_catalog(data, str(path))


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
    ptype = p.get("type") if _type_ok(p.get("type")) else "STRING"
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
