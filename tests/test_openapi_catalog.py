"""scripts/openapi_catalog.py on four tiny hand-written OpenAPI specs (tests/fixtures/openapi/)."""

import json
import random
import re
import sys
from pathlib import Path

import pytest

from petool.bench import BuildConfig, build_parts
from petool.catalog import load_catalog, parse_catalog
from petool.catalog_validation import validate_catalog
from petool.formats import write_json

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import openapi_catalog as oc  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "openapi"


@pytest.fixture(scope="module")
def derived() -> dict:
    specs = [(p.name, json.loads(p.read_text())) for p in sorted(FIXTURES.glob("*.json"))]
    return oc.derive_catalog(specs, oc.shared_slots(), log=lambda *_: None)


def _apis(catalog: dict) -> dict:
    return {(t["name"], a["name"]): a for t in catalog["tools"] for a in t["apis"]}


@pytest.mark.parametrize(
    "schema, expected",
    [
        ({"type": "string"}, "STRING"),
        ({"type": "string", "format": "date"}, "DATE (YYYY-MM-DD)"),
        ({"type": "string", "format": "date-time"}, "DATE"),
        ({"type": "string", "format": "binary"}, "BINARY"),
        ({"type": "integer"}, "NUMBER"),
        ({"type": "number", "format": "float"}, "NUMBER"),
        ({"type": "boolean"}, "BOOLEAN"),
        ({"type": "string", "enum": ["a", "b"]}, "ENUM"),
        ({"type": "string", "enum": [None, ""]}, "STRING"),
        ({"type": "array", "items": {"type": "string"}}, "ARRAY"),
        ({"type": "object"}, "OBJECT"),
        ({"properties": {"a": {}}}, "OBJECT"),
        ({"type": ["integer", "null"]}, "NUMBER"),
        ({}, "STRING"),
    ],
)
def test_type_mapping(schema, expected):
    assert oc.toolbench_type(schema) == expected


def test_cloud_consoles_and_versioned_copies_are_skipped():
    assert oc.skip_reason("amazonaws.com/s3.json") == "cloud console"
    assert oc.skip_reason("github.com/ghes-3.1.json") == "versioned copy"
    assert oc.skip_reason("github.com/api.github.com.json") is None
    assert oc.skip_reason("archive.org/search.json") is None


def test_equivalent_operations_cluster_and_different_ones_do_not(derived):
    apis = _apis(derived)
    sky_now = apis[("SkyFetch", "currentWeather")]
    meteo_now = apis[("Meteoria", "GET /v2/current")]
    assert sky_now["cluster"] and sky_now["cluster"] == meteo_now["cluster"]
    word, lingo = apis[("WordBridge", "translateText")], apis[("Lingo Cloud", "POST /v1/translations")]
    assert word["cluster"] and word["cluster"] == lingo["cluster"]
    assert word["cluster"] != sky_now["cluster"]
    # similar words, different function: history is not "current"; detect is not spell check
    assert apis[("SkyFetch", "pastWeather")]["cluster"] is None
    assert apis[("WordBridge", "detectLanguage")]["cluster"] is None
    assert apis[("Lingo Cloud", "GET /v1/spellcheck")]["cluster"] is None
    assert len(derived["clusters"]) == 2


def test_parameters_values_and_dropped_operations(derived):
    apis = _apis(derived)
    # a path id with no example draws from a typed id pool
    station = apis[("SkyFetch", "DELETE /stations/{stationId}")]["required_parameters"][0]
    assert station["slot"] == "string_id" and derived["slots"]["string_id"]["values"]
    sky = apis[("SkyFetch", "currentWeather")]
    assert [p["name"] for p in sky["required_parameters"]] == ["city"]  # api_key left out
    assert sky["required_parameters"][0]["slot"] == "place"  # petool's shared pool of cities
    assert sky["optional_parameters"][0]["enum"] == ["metric", "imperial"]
    meteo = apis[("Meteoria", "GET /v2/current")]
    assert meteo["required_parameters"][0] == {**meteo["required_parameters"][0], "name": "cityName", "default": "Porto"}
    alerts = apis[("Meteoria", "subscribeAlerts")]  # body properties become parameters
    assert [p["name"] for p in alerts["required_parameters"]] == ["email"]
    assert alerts["optional_parameters"][0]["type"] == "NUMBER" and alerts["optional_parameters"][0]["slot"] == "range_1_5"
    assert derived["slots"]["range_1_5"]["range"] == [1, 5]
    lingo = apis[("Lingo Cloud", "POST /v1/translations")]
    page = lingo["optional_parameters"][0]
    assert page["name"] == "page[size]" and re.fullmatch(r"\w+", page["slot"]) and page["slot"] in derived["slots"]


def test_templates_state_every_required_slot_in_several_forms(derived):
    for a in _apis(derived).values():
        slots = [p.get("slot", p["name"]) for p in a["required_parameters"]]
        assert len(set(a["templates"])) == oc.N_TEMPLATES
        for t in a["templates"]:
            assert all("{" + s + "}" in t for s in slots), (a["name"], t)
        assert "{tool}" not in a["templates"][0] and any("{tool}" in t for t in a["templates"])
        assert set(a["examples"][0]["Parameters"]) == {p["name"] for p in a["required_parameters"]}


def test_action_phrase_and_description_cleaning():
    assert oc.action_phrase("Retrieves current weather in a city.") == "retrieve current weather in a city"
    assert oc.action_phrase("Returns a list of faxes") == "get a list of faxes"
    assert oc.action_phrase("Holiday calendar") == "get holiday calendar"
    assert oc.clean_text("<p>Forecasts and **observations**.</p>") == "Forecasts and observations."
    assert len(oc.clean_text("word " * 100)) <= oc.MAX_DESCRIPTION + 3


def test_output_validates_loads_gzipped_and_builds_entries(derived, tmp_path):
    assert validate_catalog(derived) == []
    path = write_json(derived, tmp_path / "openapi.json.gz")
    catalog = load_catalog(path)
    assert catalog.summary()["clusters"] == 2
    parts = build_parts(catalog, BuildConfig(seed=1, n_train=4, n_test=2, n_users=5))
    assert len(parts["train"]) == 4 and len(parts["test"]) == 2
    for e in parts["train"] + parts["test"]:
        gold = catalog.api_by_name[e.ground_truth.tool_name]
        assert gold.cluster == e.func
        assert {p.name for p in gold.required} <= set(e.ground_truth.parameters)


def test_derivation_is_deterministic(derived):
    specs = [(p.name, json.loads(p.read_text())) for p in sorted(FIXTURES.glob("*.json"))]
    again = oc.derive_catalog(specs, oc.shared_slots(), log=lambda *_: None)
    assert json.dumps(again, sort_keys=True) == json.dumps(derived, sort_keys=True)
    assert parse_catalog(again).summary() == parse_catalog(derived).summary()


def test_synthetic_attributes_are_valid_and_differ_between_tools():
    a, b = oc.synthetic_attributes("weather.SkyFetch"), oc.synthetic_attributes("weather.Meteoria")
    assert a != b and a == oc.synthetic_attributes("weather.SkyFetch")
    data = {
        "format": "petool-catalog/1",
        "clusters": {},
        "tools": [
            {"category": "c", "name": "t", "attributes": a, "apis": [{"name": "x", "examples": [{"Scenario": "s", "Parameters": {}}]}]}
        ],
    }
    assert validate_catalog(data) == []
    random.Random(0)  # no global random state is used by the derivation


@pytest.mark.parametrize(
    "name, schema, ptype, pool",
    [
        ("lat", {"type": "number"}, "NUMBER", "latitude"),
        ("lng", {"type": "number"}, "NUMBER", "longitude"),
        ("userId", {"type": "string", "format": "uuid"}, "STRING", "uuid"),
        ("id", {"type": "integer"}, "NUMBER", "numeric_id"),
        ("slug", {"type": "string"}, "STRING", "string_id"),
        ("owner", {"type": "string"}, "STRING", "repo_owner"),
        ("repo", {"type": "string"}, "STRING", "repo_name"),
        ("dateFrom", {"type": "string"}, "STRING", "date"),
        ("season", {"type": "string"}, "STRING", "season_year"),
    ],
)
def test_value_pools_for_parameters_without_examples(name, schema, ptype, pool):
    p = oc.make_parameter(name, schema, {}, "", oc.shared_slots())
    assert p is not None and p["type"] == ptype and p["slot"] == pool
    assert pool in oc.shared_slots()


def test_no_pool_for_a_free_string_without_example():
    assert oc.make_parameter("description", {"type": "string"}, {}, "", oc.shared_slots()) is None


@pytest.mark.parametrize(
    "a, b, together",
    [
        # same function, different categories, same meaningful parameter shape (a repository)
        (
            ("List repository tags", "/repos/{owner}/{repo}/tags", "collaboration", ("repo_name", "repo_owner")),
            ("List a repository's tags", "/repos/{owner}/{repo}/tags", "developer_tools", ("repo_name", "repo_owner")),
            True,
        ),
        # across categories, identifiers alone do not say the requests match
        (
            ("Get a bank transfer", "/transfers/{id}", "financial", ("id",)),
            ("Retrieve a bank transfer", "/transfers/{id}", "payment", ("id",)),
            False,
        ),
        # the object phrases end on different words: a project is not a project's status
        (
            ("Get a single project", "/projects/{id}", "developer_tools", ("id",)),
            ("Get a single project status", "/project_statuses/{id}", "developer_tools", ("id",)),
            False,
        ),
        # one thing is not all of them
        (
            ("Retrieve an existing floating IP action", "/floating_ips/actions/{id}", "hosting", ("id",)),
            ("Get all actions for a floating IP", "/floating_ips/{id}/actions", "hosting", ("id",)),
            False,
        ),
        # deleting what the user keeps at one provider is never an equivalent
        (
            ("Payment method delete", "/payment-methods/{id}", "financial", ("id",)),
            ("Delete a payment method", "/payment-methods/{id}", "financial", ("id",)),
            False,
        ),
    ],
)
def test_similarity_rule(a, b, together):
    items = [
        {
            "category": cat,
            "provider": f"p{k}",
            "words": oc.words(summary),
            "many": oc.is_collection(summary),
            "path_words": oc.path_words(path),
            "shape": shape,
            "head": oc.head_word(summary),
        }
        for k, (summary, path, cat, shape) in enumerate((a, b))
    ]
    assert (oc.cluster_operations(items) == [[0, 1]]) is together


def test_templates_sometimes_state_an_optional_value(derived):
    apis = _apis(derived)
    sky = apis[("SkyFetch", "currentWeather")]
    optional_slots = {"{" + p.get("slot", p["name"]) + "}" for p in sky["optional_parameters"]}
    assert not any(s in sky["templates"][0] for s in optional_slots)
    assert sum(any(s in t for s in optional_slots) for t in sky["templates"]) == oc.N_WITH_OPTIONAL
