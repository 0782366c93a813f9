"""What a valid ``petool-catalog/1`` file is (the format ``petool.catalog`` describes): the
parameter types, price tiers and attributes it may use, and ``validate_catalog``, which lists
every problem of a catalog dict, each naming its entry. Pure: no file is read here."""

from __future__ import annotations

import re

FORMAT = "petool-catalog/1"

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

SLOT_RE = re.compile(r"\{(\w+)(?:=(\w+))?\}")


class CatalogError(ValueError):
    """A catalog failed validation; ``problems`` lists every problem, each naming its entry."""

    def __init__(self, problems: list[str], source: str = "catalog"):
        self.problems = problems
        shown = "\n  ".join(problems[:20]) + (f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else "")
        super().__init__(f"{source}: {len(problems)} problem(s):\n  {shown}")


def param_type_ok(t) -> bool:
    """Whether ``t`` names a parameter type petool accepts (``PARAM_TYPES``, any case, with detail after it)."""
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
            if not param_type_ok(p.get("type")):
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
        used = [m.group(1) for m in SLOT_RE.finditer(t)]
        unknown = [s for s in used if s != "tool" and s not in slot_of]
        if unknown:
            out.append(f"{where}: templates[{k}] mentions unknown slot(s) {unknown}")
        missing = [s for s in required_slots if s not in used]
        if missing:
            out.append(f"{where}: templates[{k}] lacks required slot(s) {missing}")
    return out
