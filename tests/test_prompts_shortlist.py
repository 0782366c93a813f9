"""The shortlist prompt style: the evidence ranking's best few candidates, best first."""

import dataclasses
from pathlib import Path

import pytest

from petool.prompts import SHORTLIST_SIZE, STYLES, prompt_candidates, render_system_prompt, shortlist_prompt
from petool.ranking import rank_tools
from petool.schema import Parameter, Tool
from tests.fixtures.entries import WEATHER_A, WEATHER_B, empty_history_entry, weather_entry

GOLDEN = Path(__file__).parent / "golden"

EXTRA = [
    Tool("<Sports>.<ScoreBoard>.<live scores>", "Live football scores", [Parameter("league", "STRING", "League", "EPL")]),
    Tool("<Finance>.<FX Now>.<convert>", "Convert currencies", [Parameter("amount", "NUMBER", "Amount", 1)]),
    Tool("<Music>.<LyricLab>.<lyrics>", "Song lyrics by title", [Parameter("title", "STRING", "Title", "")]),
]


def crowded_entry():
    """The weather entry with seven candidates, so the shortlist must leave some out."""
    entry = weather_entry()
    return dataclasses.replace(entry, candidates=entry.candidates + EXTRA)


def shown_names(text: str) -> list[str]:
    return [line.split(". ", 1)[1] for line in text.splitlines() if line[:1].isdigit() and ". <" in line]


def test_shortlist_is_a_known_style():
    assert "shortlist" in STYLES and SHORTLIST_SIZE >= 2


@pytest.mark.parametrize("setting", ["p", "r", "c", "none"])
def test_shows_the_best_ranked_candidates_in_rank_order(setting):
    entry = crowded_entry()
    text = render_system_prompt(entry, setting, "shortlist")
    ranked = [t.name for t, _, _ in rank_tools(entry.query, entry.history(setting) if setting != "none" else [], entry.candidates, setting)]
    assert shown_names(text) == ranked[:SHORTLIST_SIZE]
    assert len(shown_names(text)) == SHORTLIST_SIZE < len(entry.candidates)
    assert [t.name for t in prompt_candidates(entry, setting, "shortlist")] == ranked[:SHORTLIST_SIZE]
    assert "most likely first" in text and ("history:" in text) == (setting != "none")


@pytest.mark.parametrize(
    "setting, first",
    [
        ("r", WEATHER_A),  # liked provider beats the disliked one (WEATHER_B) of equal fit
        ("p", WEATHER_A),  # used provider beats the never used one
        ("c", WEATHER_A),  # WEATHER_B's tool is only in the opening calls: least preferred
    ],
)
def test_history_evidence_decides_between_equivalent_tools(setting, first):
    entry = crowded_entry()
    names = shown_names(render_system_prompt(entry, setting, "shortlist"))
    assert names[0] == first
    ranked = [t.name for t, _, _ in rank_tools(entry.query, entry.history(setting), entry.candidates, setting)]
    # a tool the user turned away from (disliked, or only in the opening calls) ranks last
    assert (ranked[-1] == WEATHER_B) == (setting != "p")
    assert (WEATHER_B in names) == (setting == "p")


def test_unrelated_tools_fall_off_the_list():
    names = shown_names(render_system_prompt(crowded_entry(), "p", "shortlist"))
    assert not {t.name for t in EXTRA} & set(names[:2])


def test_short_entries_show_every_candidate():
    entry = empty_history_entry()
    names = shown_names(render_system_prompt(entry, "c", "shortlist"))
    assert sorted(names) == sorted(t.name for t in entry.candidates)


@pytest.mark.parametrize("style", ["paper", "compact"])
def test_other_styles_allow_every_candidate(style):
    entry = crowded_entry()
    assert prompt_candidates(entry, "r", style) == entry.candidates


def test_shortlist_is_shorter_than_compact_for_crowded_entries():
    entry = crowded_entry()
    assert len(render_system_prompt(entry, "r", "shortlist")) < 0.8 * len(render_system_prompt(entry, "r", "compact"))


def test_trimmed_history_changes_the_evidence_not_the_candidates_count():
    entry = crowded_entry()
    assert len(prompt_candidates(entry, "r", "shortlist", history=[])) == SHORTLIST_SIZE


@pytest.mark.parametrize("setting", ["p", "r", "c", "none"])
def test_weather_shortlist_matches_golden(setting):
    text = render_system_prompt(crowded_entry(), setting, "shortlist")
    assert text == (GOLDEN / f"prompt_shortlist_crowded_{setting}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("kwargs, message", [({"size": 0}, "at least one"), ({"setting": "x"}, "unknown setting")])
def test_bad_arguments_say_what_is_wrong(kwargs, message):
    entry = crowded_entry()
    args = {"setting": "p", "history": [], "candidates": entry.candidates, "query": entry.query} | kwargs
    with pytest.raises(ValueError, match=message):
        shortlist_prompt(**args)
