"""Readers and writers: round trips, the authors' layouts, and bad input reported, not dropped."""

import gzip
import json

import pytest

from petool import formats
from petool.prompts import render_system_prompt
from petool.schema import PreferenceExample
from tests.fixtures.entries import ENTRIES, empty_history_entry, weather_entry


def _same(a, b):
    assert a.query == b.query and a.ground_truth == b.ground_truth
    assert a.candidates == b.candidates
    for s in ("p", "r", "c"):
        assert a.histories.get(s) == b.histories.get(s)


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_combined_round_trip(tmp_path, suffix):
    entries = [weather_entry(), empty_history_entry()]
    path = formats.write_combined(entries, tmp_path / f"data{suffix}")
    result = formats.load_entries(path, strict=True)
    assert result.kind == "combined" and result.problems == []
    for a, b in zip(entries, result.entries, strict=False):
        _same(a, b)
    assert result.entries[0].cluster == []  # the cluster is not in the prompt; only apis_same_func carries it


def test_release_files_layout_and_read_back(tmp_path):
    entries = [weather_entry(), empty_history_entry()]
    paths = formats.write_release_files(entries, tmp_path)
    assert sorted(p.name for p in paths) == [f"user_entries_test_{s}.json" for s in ("c", "none", "p", "r")]
    rows = json.loads((tmp_path / "user_entries_test_r.json").read_text())
    for key in ("query", "instruction_ratings", "instruction_wo_history", "api_call_ground_truth", "entry_id", "history_length"):
        assert key in rows[0]
    assert "instruction_preferred" not in rows[0]
    assert rows[0]["instruction_ratings"] == render_system_prompt(entries[0], "r")
    single = formats.load_entries(tmp_path / "user_entries_test_r.json")
    assert single.kind == "release" and sorted(single.entries[0].histories) == ["r"]
    assert single.entries[0].settings == ["r", "none"]
    folder = formats.load_entries(tmp_path)
    # one entry per id, its settings joined from the four files (not one entry per file)
    assert [e.entry_id for e in folder.entries] == [7, "e-2"] and folder.problems == []
    for got, want in zip(folder.entries, entries, strict=False):
        assert got.settings == ["p", "r", "c", "none"]
        assert {s: [t.to_json() for t in h] for s, h in got.histories.items()} == {
            s: [t.to_json() for t in h] for s, h in want.histories.items()
        }


def test_entries_that_disagree_under_one_id_stay_apart():
    a, b = weather_entry(), weather_entry()
    b.query = "another question"
    assert len(formats.merge_settings([a, b])) == 2
    c, d = weather_entry(), weather_entry()  # both carry p, r, c: a duplicate, not two halves
    assert len(formats.merge_settings([c, d])) == 2


def test_malformed_entries_are_reported_with_position_and_the_rest_load(tmp_path):
    good = formats.entry_to_json(weather_entry())
    broken_prompt = dict(good, instruction_ratings="\nYour task ... Interaction history is:\n[{oops\n\nAvailable tools")
    rows = [good, {"entry_id": 9}, "a string", broken_prompt, dict(good, api_call_ground_truth={"parameters": {}})]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(rows))
    result = formats.load_entries(path)
    assert len(result.entries) == 1
    assert len(result.problems) == 4
    assert result.problems[0].startswith("mixed.json: entry #1 (entry_id 9): missing field 'query'")
    assert "entry #2" in result.problems[1] and "JSON object" in result.problems[1]
    assert "instruction_ratings" in result.problems[2]
    assert "tool_name" in result.problems[3]
    with pytest.raises(ValueError, match="entry #1"):
        formats.load_entries(path, strict=True)


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"{not json", "not valid JSON"),
        (b'{"a": 1}', "expected a JSON list"),
        (gzip.compress(b"[1, 2")[:-4], "cannot read|not valid JSON"),
    ],
)
def test_bad_files_give_clear_messages(tmp_path, payload, message):
    path = tmp_path / "bad.json"
    path.write_bytes(payload)
    with pytest.raises(ValueError, match=message):
        formats.load_entries(path)


def test_missing_file_and_empty_folder(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        formats.load_entries(tmp_path / "nope.json")
    with pytest.raises(ValueError, match="no user_entries_test"):
        formats.load_entries(tmp_path)


def test_llama_factory_and_trl_files_round_trip(tmp_path):
    sft = [formats.entry_to_sft(weather_entry(), s) for s in ("p", "r")]
    assert json.loads(sft[0].output) == weather_entry().ground_truth.to_json()
    formats.write_lf_sft(sft, tmp_path / "sft.json")
    assert formats.read_lf_sft(tmp_path / "sft.json") == (sft, [])
    formats.write_trl_sft(sft, tmp_path / "sft.jsonl")
    assert formats.read_trl_sft(tmp_path / "sft.jsonl") == (sft, [])
    line = json.loads((tmp_path / "sft.jsonl").read_text().splitlines()[0])
    assert [m["role"] for m in line["prompt"]] == ["system", "user"] and line["completion"][0]["role"] == "assistant"

    pairs = [PreferenceExample("sys ü", "query", '{"tool_name": "a", "parameters": {}}', '{"tool_name": "b", "parameters": {}}')]
    formats.write_lf_dpo(pairs, tmp_path / "dpo.json")
    assert formats.read_lf_dpo(tmp_path / "dpo.json") == (pairs, [])
    formats.write_trl_preferences(pairs, tmp_path / "dpo.jsonl")
    assert formats.read_trl_preferences(tmp_path / "dpo.jsonl") == (pairs, [])
    info = json.loads(formats.write_dataset_info(tmp_path, {"dpo": ("dpo.json", True), "sft": ("sft.json", False)}).read_text())
    assert info["dpo"]["ranking"] is True and info["dpo"]["columns"]["chosen"] == "chosen"
    assert "ranking" not in info["sft"] and info["sft"]["columns"]["response"] == "output"


def test_training_file_rows_with_missing_fields_are_reported(tmp_path):
    path = tmp_path / "dpo.jsonl"
    path.write_text('{"prompt": [], "chosen": "a"}\nnot json\n')
    pairs, problems = formats.read_trl_preferences(path)
    assert pairs == [] and len(problems) == 2
    assert "line 2" in problems[0] and "missing rejected" in problems[1]
    with pytest.raises(ValueError):
        formats.read_trl_preferences(path, strict=True)


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path):
    formats.write_combined([ENTRIES["weather"]()], tmp_path / "x.json")
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_same_input_gives_byte_identical_files(tmp_path):
    a = formats.write_combined([weather_entry()], tmp_path / "a.json.gz").read_bytes()
    b = formats.write_combined([weather_entry()], tmp_path / "b.json.gz").read_bytes()
    assert a == b
