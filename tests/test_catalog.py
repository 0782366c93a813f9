"""Tool catalogs: the shipped catalog's size and variety, validation messages, ToolBench import,
attribute scoring, template rendering."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from pathlib import Path

import pytest

from petool.catalog import (
    DEFAULT_CATALOG,
    attribute_goodness,
    import_toolbench,
    load_catalog,
    load_catalogs,
    merge_catalogs,
    parse_catalog,
    render_template,
    score_tool,
)
from petool.catalog_validation import CatalogError, validate_catalog
from petool.catalog_variants import narrowed_name, with_copied_apis, with_narrowed_apis

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "fixtures" / "catalog_small.json"


@pytest.fixture(scope="module")
def shipped():
    return load_catalog()


@pytest.fixture()
def small_data():
    return json.loads(SMALL.read_text())


def test_shipped_catalog_meets_the_issue_sizes(shipped):
    s = shipped.summary()
    assert s["categories"] >= 30 and s["clusters"] >= 150 and s["apis"] >= 600
    assert set(s["cluster_sizes"]) <= {2, 3, 4, 5, 6}
    assert all(len(t.apis) >= 2 for t in shipped.tools), "preferred-only histories need other APIs of the ground truth's tool"


def test_shipped_catalog_has_realistic_variety(shipped):
    names = [a.name for a in shipped.apis]
    assert sum(n.startswith("/") and "{" in n for n in names) >= 10  # path-like API names
    tools = [t.name for t in shipped.tools]
    assert any("|" in n for n in tools) and any(n != n.rstrip() for n in tools) and any(not n.isascii() for n in tools)
    # equivalent APIs name the same slot differently in most clusters
    differing = sum(len({p.name for a in apis for p in a.required[:1]}) > 1 for apis in shipped.members.values() if apis[0].required)
    assert differing >= 0.6 * sum(1 for apis in shipped.members.values() if apis[0].required)
    types = {p.type.split(" ")[0] for a in shipped.apis for p in a.params}
    assert {"STRING", "NUMBER", "BOOLEAN", "ENUM", "DATE", "GEOPOINT", "ARRAY", "OBJECT"} <= types
    # equivalent tools differ on their attributes
    for apis in list(shipped.members.values())[:40]:
        attrs = [json.dumps(shipped.tool_by_key[a.provider].attributes, sort_keys=True) for a in apis]
        assert len(set(attrs)) == len(attrs)


def test_shipped_catalog_matches_the_real_data_shape(shipped):
    """Real PEToolBench: clusters 81% pairs / 16% triples / 4% larger, ~39% of ground truths
    take no parameters, parameters mostly STRING/NUMBER with ENUM rare, long-tailed docs."""
    sizes = [len(m) for m in shipped.members.values()]
    assert 0.72 <= sizes.count(2) / len(sizes) <= 0.88
    assert 0.10 <= sizes.count(3) / len(sizes) <= 0.22
    assert any(n >= 4 for n in sizes)
    free = sum(
        not m[0].required and not any(re.search(r"\{(?!tool\})\w+", t) for t in m[0].templates) for m in shipped.members.values()
    ) / len(sizes)
    assert 0.25 <= free <= 0.45
    types = [p.type.split(" ")[0].upper() for a in shipped.apis for p in a.params]
    share = {t: types.count(t) / len(types) for t in set(types)}
    assert share["STRING"] >= 0.5 and share["NUMBER"] >= 0.2 and share["BOOLEAN"] >= 0.04 and share["ENUM"] <= 0.03
    descs = sorted(len(a.description) for a in shipped.apis)
    assert descs[len(descs) // 2] < 80 and descs[int(len(descs) * 0.95)] > 300  # mostly short, a long tail
    assert sum(len(a.optional) >= 5 for a in shipped.apis) >= 20
    # NUMBER values appear both as ints and as numeric strings, as in ToolBench
    values = [
        v
        for a in shipped.apis
        for p in a.params
        if p.type == "NUMBER"
        for ex in a.examples
        for k, v in ex["Parameters"].items()
        if k == p.name
    ]
    assert any(isinstance(v, int) for v in values) and any(isinstance(v, str) and v.isdigit() for v in values)
    # most instructions read like the real ones ("I want to ...")
    templates = [t for apis in shipped.members.values() for t in apis[0].templates]
    assert sum(t.startswith("I want to") for t in templates) / len(templates) >= 0.4


def test_make_catalog_script_reproduces_the_shipped_file():
    spec = importlib.util.spec_from_file_location("make_catalog", ROOT / "scripts" / "make_catalog.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = json.dumps(mod.build(), ensure_ascii=False, indent=1) + "\n"
    assert text == DEFAULT_CATALOG.read_text(encoding="utf-8")


def test_small_fixture_is_valid(small_data):
    assert validate_catalog(small_data) == []
    c = parse_catalog(small_data)
    assert [a.full_name for a in c.cluster_apis("weather.now")] == [
        "<Weather>.<SunnyAPI>.</v1/current/{city}>",
        "<Weather>.<RainCheck Pro>.<Current Weather>",
        "<Weather>.<Drizzle | Free >.<now>",
    ]


def _break(data, path, value):
    d = copy.deepcopy(data)
    target = d
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (["format"], "other/1", "format: expected"),
        (["tools", 0, "apis", 0, "cluster"], "nope", "SunnyAPI api[0] '/v1/current/{city}': cluster 'nope' is not declared"),
        (["tools", 0, "apis", 0, "required_parameters", 0, "type"], "FLOAT", "parameter 'city' has type 'FLOAT'"),
        (["tools", 0, "apis", 0, "templates"], ["Weather please."], "templates[0] lacks required slot(s) ['place']"),
        (["tools", 0, "apis", 0, "templates"], ["Weather in {place} {planet}."], "mentions unknown slot(s) ['planet']"),
        (["tools", 0, "apis", 0, "examples"], [{"Scenario": "x", "Parameters": {"town": "Lima"}}], "unknown parameter(s) ['town']"),
        (["tools", 0, "apis", 0, "examples"], [], "needs at least one example"),
        (["tools", 1, "attributes", "price_tier"], "cheap", "RainCheck Pro: attributes.price_tier 'cheap'"),
        (["tools", 1, "attributes", "privacy"], 3, "attributes.privacy must be within 0..1"),
        (["tools", 1, "name"], "Sunny>.<API", "would break the <Category>.<Tool>.<API> name"),
        (["tools", 3, "apis", 1, "cluster"], None, "cluster 'music.genres': has 1 API"),
        (["tools", 1, "name"], "SunnyAPI", "duplicate tool"),
        (["tools", 0, "apis", 1, "name"], "/v1/current/{city}", "duplicate API name"),
    ],
)
def test_validator_names_the_broken_entry(small_data, path, value, expected):
    problems = validate_catalog(_break(small_data, path, value))
    assert any(expected in p for p in problems), problems
    with pytest.raises(CatalogError, match="problem"):
        parse_catalog(_break(small_data, path, value))


def test_cluster_of_one_tool_is_rejected(small_data):
    d = copy.deepcopy(small_data)
    d["tools"][0]["apis"][2]["cluster"] = "weather.now"  # SunnyAPI now offers weather.now twice
    assert any("same tool" in p for p in validate_catalog(d))


def test_load_catalog_reports_bad_json(tmp_path):
    bad = tmp_path / "c.json"
    bad.write_text("{not json")
    with pytest.raises(CatalogError, match="not valid JSON"):
        load_catalog(bad)
    with pytest.raises(FileNotFoundError):
        load_catalog(tmp_path / "missing.json")


def _toolbench_folder(root: Path) -> Path:
    tools = root / "data" / "toolenv" / "tools"
    specs = {
        ("Weather", "sky_cast"): (
            "SkyCast",
            [("Get current weather", "Get the current weather for a city", ["city"]), ("Get alerts", "Severe weather alerts", [])],
        ),
        ("Weather", "meteo"): (
            "Meteo 🌦",
            [("current weather", "Current weather for a city by name", ["q"]), ("stations", "List of weather stations", [])],
        ),
        ("Music", "tunes"): ("Tunes", [("search", "Search songs", ["term"])]),
    }
    for (cat, stem), (name, apis) in specs.items():
        (tools / cat).mkdir(parents=True, exist_ok=True)
        api_list = [
            {
                "name": n,
                "url": "https://x",
                "description": d,
                "method": "GET",
                "required_parameters": [{"name": p, "type": "STRING", "description": "", "default": "Paris"} for p in ps],
                "optional_parameters": [{"name": "units", "type": "WEIRD", "description": "", "default": ""}],
            }
            for n, d, ps in apis
        ]
        (tools / cat / f"{stem}.json").write_text(json.dumps({"tool_name": name, "tool_description": f"{name} tool", "api_list": api_list}))
    return tools


def test_toolbench_folder_import_clusters_equivalent_apis(tmp_path):
    folder = _toolbench_folder(tmp_path)
    c = load_catalog(folder)
    assert c.summary()["tools"] == 3 and c.summary()["apis"] == 5
    assert len(c.members) == 1
    [members] = c.members.values()
    assert sorted(a.full_name for a in members) == ["<Weather>.<Meteo 🌦>.<current weather>", "<Weather>.<SkyCast>.<Get current weather>"]
    api = c.api_by_name["<Weather>.<SkyCast>.<Get current weather>"]
    assert api.examples[0]["Parameters"] == {"city": "Paris"} and api.optional[0].type == "STRING"
    assert import_toolbench(folder)["format"] == "petool-catalog/1"


def test_toolbench_import_reports_broken_files(tmp_path):
    folder = _toolbench_folder(tmp_path)
    (folder / "Weather" / "broken.json").write_text("{")
    with pytest.raises(CatalogError, match="broken.json: not valid JSON"):
        import_toolbench(folder)


def test_goodness_and_scoring_follow_the_profile(small_data):
    c = parse_catalog(small_data)
    g = attribute_goodness(c)
    assert g["Weather.RainCheck Pro"]["privacy"] == 1.0 and g["Weather.SunnyAPI"]["privacy"] == 0.0
    assert g["Weather.SunnyAPI"]["monthly_price_usd"] == 1.0  # cheapest is best on price
    assert g["Music.TuneBox"]["latency_ms"] == 1.0 > g["Weather.RainCheck Pro"]["latency_ms"] > g["Weather.SunnyAPI"]["latency_ms"]
    privacy = {"privacy": 1.0}
    assert score_tool(g["Weather.RainCheck Pro"], privacy) > score_tool(g["Weather.SunnyAPI"], privacy)
    with pytest.raises(ValueError, match="sum to more than 0"):
        score_tool(g["Weather.SunnyAPI"], {})


@pytest.mark.parametrize(
    "template, values, text, used",
    [
        ("Weather in {place}.", {"place": "Lima"}, "Weather in Lima.", {"place": "Lima"}),
        ("Quotes for {symbols} on {tool}.", {"symbols": ["A", "B"]}, "Quotes for A, B on ....", {"symbols": ["A", "B"]}),
        ("Remote {job} jobs{remote=true}.", {"job": "nurse"}, "Remote nurse jobs.", {"job": "nurse", "remote": True}),
        ("Filter {f}.", {"f": {"color": "black"}}, 'Filter color="black".', {"f": {"color": "black"}}),
    ],
)
def test_render_template(template, values, text, used):
    assert render_template(template, values, "...") == (text, used)


def test_copied_apis_take_the_first_members_name_and_description(shipped):
    copied = with_copied_apis(shipped, 1.0, seed=3)
    assert copied.summary()["clusters"] == shipped.summary()["clusters"]
    assert len({a.full_name for a in copied.apis}) == len(copied.apis)  # full names stay unique
    same = 0
    for cluster, members in copied.members.items():
        first, *others = members
        original = {a.provider: a for a in shipped.members[cluster]}
        for api in others:
            if api.name == first.name:
                same += 1
                assert api.description == first.description
            else:  # its tool already had an API of that name
                assert any(a.name == first.name for a in copied.tool_by_key[api.provider].apis)
        assert all(a.params == original[a.provider].params for a in members)  # each tool keeps its parameters
    assert same >= 0.9 * sum(len(m) - 1 for m in copied.members.values())
    # no share: the catalog unchanged; the draw follows the seed
    assert [a.full_name for a in with_copied_apis(shipped, 0.0).apis] == [a.full_name for a in shipped.apis]
    half = [a.full_name for a in with_copied_apis(shipped, 0.5, seed=1).apis]
    assert half == [a.full_name for a in with_copied_apis(shipped, 0.5, seed=1).apis] != [a.full_name for a in shipped.apis]
    with pytest.raises(ValueError, match="share"):
        with_copied_apis(shipped, 1.5)


def test_narrowed_twins_take_one_optional_parameter_as_required_under_a_name_that_goes_on(shipped):
    from petool.schema import extends_name

    narrowed = with_narrowed_apis(shipped, 1.0, seed=3)
    assert len({a.full_name for a in narrowed.apis}) == len(narrowed.apis)  # full names stay unique
    twins = [a for a in narrowed.apis if "/by-" in (a.cluster or "")]
    assert len(twins) > 100
    for twin in twins:
        cluster, slot = twin.cluster.split("/by-")
        broad = next(a for a in narrowed.members[cluster] if a.provider == twin.provider)
        assert extends_name(broad.full_name, twin.full_name)
        param = twin.param_for_slot(slot)
        # required in the twin, gone from the member, every other parameter the same
        assert param in twin.required and broad.param_for_slot(slot) is None
        assert [p.name for p in twin.params if p is not param] == [p.name for p in broad.params]
        assert all("{" + slot + "}" in t for t in twin.templates) and not any("{" + slot + "}" in t for t in broad.templates)
        assert all(param.name in ex["Parameters"] for ex in twin.examples)
        assert all(param.name not in ex["Parameters"] for ex in broad.examples)
        assert twin.templates or twin.examples
    # a twin cluster has one twin per member of its cluster
    for cluster in {a.cluster for a in twins}:
        base = cluster.split("/by-")[0]
        assert sorted(a.provider for a in narrowed.members[cluster]) == sorted(a.provider for a in narrowed.members[base])
    assert [a.full_name for a in with_narrowed_apis(shipped, 0.0).apis] == [a.full_name for a in shipped.apis]
    with pytest.raises(ValueError, match="share"):
        with_narrowed_apis(shipped, -0.1)


@pytest.mark.parametrize(
    "name, label, expected",
    [
        ("GetNews", "topic", "GetNewsByTopic"),
        ("giveaways", "platform", "giveawaysByPlatform"),
        ("keywords/volume", "country", "keywords/volume by country"),
        ("Hourly Forecast", "start date", "Hourly Forecast by start date"),
        ("v2", "big city", "v2ByBigCity"),
    ],
)
def test_narrowed_name_table(name, label, expected):
    assert narrowed_name(name, label) == expected


# ---------------------------------------------------------------- several catalogs in one pool


def _renamed(data: dict, suffix: str, clusters: bool = True, tools: bool = True) -> dict:
    """A copy of a catalog dict whose tool names and (optionally) cluster ids carry ``suffix``."""
    out = copy.deepcopy(data)
    if tools:
        for t in out["tools"]:
            t["name"] += suffix
    if clusters:
        out["clusters"] = {cid + suffix: text for cid, text in out["clusters"].items()}
        for t in out["tools"]:
            for a in t["apis"]:
                a["cluster"] = a["cluster"] + suffix if a.get("cluster") else a.get("cluster")
    return out


def test_merged_catalogs_union_tools_apis_clusters_and_slots(small_data):
    a = parse_catalog(small_data, "a.json")
    other = _renamed(small_data, " B")
    other["slots"]["mood"] = {"type": "STRING", "description": "A mood", "values": ["calm"], "range": None}
    b = parse_catalog(other, "b.json")
    merged = merge_catalogs([a, b])
    assert merged.source == "a.json + b.json"
    assert [t.key for t in merged.tools] == [t.key for t in a.tools] + [t.key for t in b.tools]
    assert len(merged.apis) == len(a.apis) + len(b.apis) and set(merged.api_by_name) == set(a.api_by_name) | set(b.api_by_name)
    assert merged.clusters == {**a.clusters, **b.clusters} and len(merged.members) == len(a.members) + len(b.members)
    # each cluster keeps its own catalog's members: nothing crosses over
    assert all(m.tool.endswith(" B") for cid, ms in merged.members.items() if cid.endswith(" B") for m in ms)
    assert set(merged.slots) == set(small_data["slots"]) | {"mood"}  # the shared slots kept once
    assert merged.goodness.keys() == {t.key for t in merged.tools}


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: _renamed(d, " B", tools=False), r"tool 'Weather\.SunnyAPI' is in both a\.json and b\.json"),
        (lambda d: _renamed(d, " B", clusters=False), r"cluster 'weather\.now' is in both a\.json and b\.json"),
        (
            lambda d: {**_renamed(d, " B"), "slots": {**d["slots"], "place": {**d["slots"]["place"], "values": ["Oslo"]}}},
            r"slot 'place' is defined differently in a\.json and b\.json",
        ),
    ],
    ids=["tool", "cluster", "slot"],
)
def test_merging_clashing_catalogs_names_the_clash(small_data, change, expected):
    a, b = parse_catalog(small_data, "a.json"), parse_catalog(change(small_data), "b.json")
    with pytest.raises(CatalogError, match=expected) as err:
        merge_catalogs([a, b])
    assert str(err.value).startswith("a.json + b.json:")


def test_merging_one_catalog_is_that_catalog_and_none_is_an_error(small_data):
    a = parse_catalog(small_data, "a.json")
    assert merge_catalogs([a]) is a
    with pytest.raises(ValueError, match="at least one catalog"):
        merge_catalogs([])


def test_load_catalogs_reads_and_merges_files(small_data, tmp_path):
    import gzip

    (tmp_path / "a.json").write_text(json.dumps(small_data))
    with gzip.open(tmp_path / "b.json.gz", "wt") as f:
        json.dump(_renamed(small_data, " B"), f)
    merged = load_catalogs([tmp_path / "a.json", tmp_path / "b.json.gz"])
    assert merged.summary()["tools"] == 2 * len(small_data["tools"])
    assert load_catalogs(None).source == str(DEFAULT_CATALOG) == load_catalogs([]).source
    with pytest.raises(CatalogError, match="is in both"):
        load_catalogs([tmp_path / "a.json", tmp_path / "a.json"])
