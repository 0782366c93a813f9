"""Property-based tests (hypothesis) for everything that reads outside input: model output
(parse_call), data files (load_entries / entry_from_json), and the label path (Store.add_label,
comparison.submit_label). The properties: never crash with anything but a ValueError that says what
is wrong, and never write half a record."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from petool.formats import entry_from_json, load_entries
from petool.label_rules import LABEL_SETTINGS, VERDICTS
from petool.parsing import parse_call
from petool.schema import Entry, ToolCall, entry_to_dict
from petool.store import Store
from petool.ui import comparison, entry_edits
from tests.test_store import make_entry

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SLOWER = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
TOOL = "<Weather>.<A>.<forecast>"
call_like = st.fixed_dictionaries(
    {"tool_name": st.one_of(st.just(TOOL), st.text(max_size=20), st.integers(), st.none())},
    optional={"parameters": st.one_of(json_values, st.dictionaries(st.text(max_size=8), json_values, max_size=3))},
)
model_text = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
    call_like.map(lambda d: json.dumps(d)),
    st.tuples(st.text(max_size=40), call_like, st.text(max_size=40)).map(
        lambda t: f"{t[0]}```json\n{json.dumps(t[1], indent=1)}\n```{t[2]}"
    ),
    call_like.map(lambda d: json.dumps(d)[: max(1, len(json.dumps(d)) // 2)]),  # truncated output
)


# ---------------------------------------------------------------- model output


@FAST
@given(text=st.one_of(model_text, json_values), mode=st.sampled_from(["paper", "robust"]))
def test_parse_call_never_raises_and_is_consistent(text, mode):
    parsed = parse_call(text, mode)
    assert parsed.ok == (parsed.call is not None) == (parsed.error == "ok")
    if parsed.ok:
        assert isinstance(parsed.call.tool_name, str) and isinstance(parsed.call.parameters, dict)
    else:
        assert parsed.error.startswith("format:") and parsed.detail


@FAST
@given(
    call=call_like.filter(lambda d: isinstance(d.get("tool_name"), str) and isinstance(d.get("parameters"), dict)),
    before=st.text(max_size=30).filter(lambda t: "{" not in t),
    after=st.text(max_size=30),
)
def test_robust_parse_finds_a_valid_call_anywhere(call, before, after):
    parsed = parse_call(before + json.dumps(call) + after)
    assert parsed.ok and parsed.call == ToolCall(call["tool_name"], call["parameters"])


# ---------------------------------------------------------------- data files

ENTRY_KEYS = [
    "query",
    "api_call_ground_truth",
    "apis_candidate",
    "instruction_p",
    "history_length",
    "apis_same_func",
    "tool_comb",
    "api_ground_truth",
    "entry_id",
    "func",
]


@FAST
@given(value=st.one_of(json_values, st.dictionaries(st.sampled_from(ENTRY_KEYS), json_values, max_size=8)))
def test_entry_from_json_fails_only_with_a_reported_error(value):
    """load_entries reports ValueError/KeyError/TypeError per entry and keeps going; nothing else may escape."""
    try:
        entry, kind = entry_from_json(value)
    except (ValueError, KeyError, TypeError) as exc:
        assert str(exc)
        return
    assert isinstance(entry, Entry) and kind in ("combined", "release")


@FAST
@given(
    data=st.one_of(
        st.binary(max_size=300),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.lists(st.dictionaries(st.sampled_from(ENTRY_KEYS), json_values, max_size=6), max_size=3).map(lambda v: json.dumps(v).encode()),
    )
)
def test_load_entries_reads_any_bytes_or_says_why_not(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "upload.json"
        path.write_bytes(data)
        try:
            result = load_entries(path)
        except ValueError as exc:
            assert "upload.json" in str(exc)  # the message names the file
            return
        assert len(result.entries) + len(result.problems) == len(json.loads(data.decode("utf-8")))
        assert all(p.startswith("upload.json: entry #") for p in result.problems)


@FAST
@given(text=st.text(max_size=100))
def test_parameter_text_is_a_dict_or_a_clear_error(text):
    try:
        value = entry_edits.parse_params(text)
    except ValueError as exc:
        assert "JSON" in str(exc)
        return
    assert isinstance(value, dict)


# ---------------------------------------------------------------- the label path


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "p.db")
    yield s
    s.close()


texts = st.text(max_size=120) | st.text(min_size=4_990, max_size=5_010, alphabet="ab<'\";")


@SLOWER
@given(
    annotator=st.one_of(st.text(max_size=110), st.none(), st.integers()),
    setting=st.sampled_from([*LABEL_SETTINGS, "x", ""]),
    verdict=st.sampled_from([*VERDICTS, "a", "", "B "]),
    comment=texts,
    tags=st.lists(st.text(max_size=110), max_size=22),
    raw=st.one_of(st.text(max_size=200), st.integers()),
)
def test_add_label_stores_one_whole_row_or_nothing(store, annotator, setting, verdict, comment, tags, raw):
    before = store.stats()["labels"]
    entry = make_entry()
    try:
        label_id = store.add_label(
            annotator=annotator,
            entry=entry,
            setting=setting,
            prompt="SYS",
            model_a="a",
            model_b="b",
            call_a=ToolCall(TOOL, {"city": "x"}),
            call_b=None,
            verdict=verdict,
            raw_a=raw,
            tags=tags,
            comment=comment,
        )
    except ValueError as exc:
        assert str(exc) and store.stats()["labels"] == before
        return
    assert store.stats()["labels"] == before + 1
    row = store.labels()[-1]
    assert row["id"] == label_id and row["annotator"] == annotator.strip() and row["verdict"] == verdict
    assert (row["setting"], row["comment"], row["tags"], row["raw_a"]) == (setting, comment, tags, raw)
    assert row["entry"] == json.loads(json.dumps(entry_to_dict(entry))) and row["call_a"] == {
        "tool_name": TOOL,
        "parameters": {"city": "x"},
    }


@pytest.fixture(scope="module")
def compared():
    from petool.appconfig import AppConfig
    from petool.ui.services import BASE, TUNED, Services, _build_generated
    from tests.app_fakes import FakePredictor

    with tempfile.TemporaryDirectory() as tmp:
        services = Services(
            AppConfig(db_path=str(Path(tmp) / "c.db"), data_path=None),
            predictor_factory=FakePredictor,
            generated=_build_generated(n=2, seed=3),
        )
        result = comparison.run_compare(services, entry_to_dict(services.generated()[0]), "p", BASE, TUNED)
        yield services, result
        services.store.close()


@SLOWER
@given(
    gold=st.one_of(st.just(""), st.text(max_size=80), call_like.map(json.dumps)),
    tags=st.lists(st.sampled_from([*comparison.TAGS, "<b>x</b>"]), max_size=3, unique=True),
    comment=st.text(max_size=60),
    annotator=st.text(max_size=30),
)
def test_submit_label_saves_or_explains(compared, gold, tags, comment, annotator):
    services, result = compared
    before = services.store.stats()["labels"]
    try:
        out = comparison.submit_label(services, result, "A", annotator, tags, comment, gold)
    except ValueError as exc:
        assert str(exc) and services.store.stats()["labels"] == before
        return
    assume(out)
    assert services.store.stats()["labels"] == before + 1 and out["labelled"]["id"] == services.store.labels()[-1]["id"]
