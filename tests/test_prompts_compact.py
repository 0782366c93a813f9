"""The compact prompt style: same task, far fewer tokens, evidence spelled out per candidate."""

import pytest

from petool.prompts import STYLES, build_messages, compact_prompt, render_system_prompt, short_description, tool_evidence
from petool.schema import Tool, ToolCall, Turn
from tests.fixtures.entries import WEATHER_A, WEATHER_B, empty_history_entry, weather_entry


def test_compact_is_a_known_style():
    assert "compact" in STYLES and "paper" in STYLES


@pytest.mark.parametrize("setting", ["p", "r", "c", "none"])
def test_every_candidate_appears_with_its_parameters(setting):
    entry = weather_entry()
    text = render_system_prompt(entry, setting, "compact")
    for i, tool in enumerate(entry.candidates, 1):
        assert f"{i}. {tool.name}\n" in text
    assert 'parameters: city* (e.g. "Paris"), days, units' in text  # required marked with its example value
    assert "parameters: date" in text
    assert ("history:" in text) == (setting != "none")


@pytest.mark.parametrize("setting", ["p", "r", "c", "none"])
def test_compact_is_much_shorter_than_paper(setting):
    entry = weather_entry()
    assert len(render_system_prompt(entry, setting, "compact")) < 0.8 * len(render_system_prompt(entry, setting, "paper"))


def test_setting_lines_say_how_to_read_the_history():
    entry = weather_entry()
    assert "used more often is more preferred" in render_system_prompt(entry, "p", "compact")
    assert "avoid tools they disliked" in render_system_prompt(entry, "r", "compact")
    assert "used later is more preferred" in render_system_prompt(entry, "c", "compact")
    assert "past calls" not in render_system_prompt(entry, "none", "compact")


@pytest.mark.parametrize(
    "setting, tool, expected",
    [
        # SkyCast Pro is the provider of WEATHER_A; its history call was to another API (alerts).
        ("p", WEATHER_A, "tool used 1x"),
        ("r", WEATHER_A, "tool used 1x, liked 1, disliked 0"),
        ("r", WEATHER_B, "tool used 1x (this API 1x), liked 0, disliked 1"),
        ("c", WEATHER_B, "tool used 1x (this API 1x), last at call 1 of 3"),
        ("c", WEATHER_A, "tool used 1x, last at call 3 of 3"),
        ("p", "<Travel>.<flight | flight aggregator>.<flight>", "tool never used"),
    ],
)
def test_tool_evidence_table(setting, tool, expected):
    assert tool_evidence(tool, setting, weather_entry().history(setting)) == expected


def test_evidence_counts_the_provider_not_the_api():
    history = [Turn("a", ToolCall("<X>.<T>.<f>")), Turn("b", ToolCall("<X>.<T>.<g>")), Turn("c", ToolCall("<X>.<U>.<f>"))]
    assert tool_evidence("<X>.<T>.<h>", "c", history) == "tool used 2x, last at call 2 of 3"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "(no description)"),
        ("  Get   a media\nby Id ", "Get a media by Id"),
        ("First. Second.", "First."),
        (" ".join(["w"] * 30), " ".join(["w"] * 20) + " ..."),
    ],
)
def test_short_description(text, expected):
    assert short_description(text) == expected


def test_compact_is_pure_and_uses_the_given_history():
    entry = weather_entry()
    a = render_system_prompt(entry, "c", "compact")
    assert a == render_system_prompt(entry, "c", "compact")
    trimmed = render_system_prompt(entry, "c", "compact", history=entry.history("c")[1:])
    assert "The user's 2 past calls" in trimmed and a != trimmed


def test_empty_history_and_messages():
    entry = empty_history_entry()
    messages = build_messages(entry, "p", "compact")
    assert messages[1] == {"role": "user", "content": entry.query}
    assert "The user's 0 past calls" in messages[0]["content"]
    assert "tool never used" in messages[0]["content"]


def test_unknown_setting_raises():
    with pytest.raises(ValueError, match="unknown setting 'x'"):
        compact_prompt("x", [], [Tool("<A>.<B>.<c>")])


def test_fit_lines_rank_the_query_s_function_first():
    entry = weather_entry()
    text = render_system_prompt(entry, "p", "compact")
    news_block = text.split("1. <News_Media>")[1].split("2. ")[0]
    forecast_block = text.split("2. " + WEATHER_A)[1].split("3. ")[0]
    assert int(news_block.split("fit: ")[1].split("%")[0]) < int(forecast_block.split("fit: ")[1].split("%")[0]) == 100
    assert "fit:" not in compact_prompt("p", [], entry.candidates)  # no query, no fit


def test_chronological_marks_tools_used_only_in_the_opening_calls():
    text = render_system_prompt(weather_entry(), "c", "compact")
    assert "tool used 1x (this API 1x), last at call 1 of 3, in the opening calls" in text
    assert text.count(", in the opening calls") == 1
