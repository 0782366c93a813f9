"""The paper-style prompt: golden files for hand-made entries, and every real dev entry rebuilt."""

import gzip
import json
import os
from pathlib import Path

import pytest

from petool.prompts import INSTRUCTION_FIELDS, build_messages, paper_prompt, render_system_prompt, split_paper_prompt
from tests.fixtures.entries import ENTRIES

GOLDEN = Path(__file__).parent / "golden"
DEV = Path(__file__).resolve().parents[2] / "shared" / "petoolbench" / "early_test_dev.json.gz"
UPDATE = os.environ.get("PETOOL_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("name", sorted(ENTRIES))
@pytest.mark.parametrize("setting", ["p", "r", "c", "none"])
def test_paper_prompt_matches_golden(name, setting):
    prompt = render_system_prompt(ENTRIES[name](), setting, "paper")
    path = GOLDEN / f"prompt_paper_{name}_{setting}.txt"
    if UPDATE:
        path.write_text(prompt, encoding="utf-8")
    assert prompt == path.read_text(encoding="utf-8")


def test_paper_prompt_keeps_the_authors_quirks():
    prompt = paper_prompt("p", [], [])
    assert prompt.startswith("\nYour task is to use a tool that not only meets")
    assert prompt.endswith("Begin!\n\n")
    assert "please generate the tool call. \nBegin!" in prompt
    assert '"limit": 3}\nExample output #2' in prompt  # Example #1 lacks its final brace


def test_no_history_prompt_has_no_history_block():
    prompt = render_system_prompt(ENTRIES["weather"](), "none")
    assert prompt.startswith("\nYour task is to use a tool that meets real-time user instructions.\nAvailable tools")
    assert "Interaction history" not in prompt


def test_messages_are_system_prompt_then_user_query():
    entry = ENTRIES["weather"]()
    messages = build_messages(entry, "r")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == entry.query


@pytest.mark.parametrize("setting", ["p", "r", "c", "none"])
def test_split_recovers_history_and_candidates(setting):
    entry = ENTRIES["weather"]()
    found, history, candidates = split_paper_prompt(render_system_prompt(entry, setting))
    assert found == setting
    assert history == [t.to_json() for t in entry.history(setting)]
    assert candidates == [t.to_json() for t in entry.candidates]


@pytest.mark.parametrize(
    "text, message", [("hello", "neither"), ("\nYour task is to use a tool that meets real-time user instructions.\n", "lacks")]
)
def test_split_rejects_other_text(text, message):
    with pytest.raises(ValueError, match=message):
        split_paper_prompt(text)


def test_unknown_style_and_setting_name_the_valid_ones():
    with pytest.raises(ValueError, match="valid: .*paper"):
        render_system_prompt(ENTRIES["weather"](), "p", "fancy")
    with pytest.raises(ValueError, match="p, r, c, none"):
        paper_prompt("x", [], [])


@pytest.mark.skipif(not DEV.exists(), reason="real dev entries (../shared/petoolbench) absent")
def test_every_real_dev_prompt_is_rebuilt_byte_for_byte():
    from petool.formats import load_entries

    raw = json.loads(gzip.decompress(DEV.read_bytes()))
    result = load_entries(DEV, strict=True)
    assert len(result.entries) == len(raw) == 450
    same = sum(
        render_system_prompt(entry, s) == item[INSTRUCTION_FIELDS[s]]
        for entry, item in zip(result.entries, raw, strict=False)
        for s in ("p", "r", "c")
    )
    assert same == 1350
