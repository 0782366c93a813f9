"""What an annotator meets in headless Chromium (issue 30's "Broken" items): editing a history
turn keeps its parameters, a comparison is voted on once and only under its own entry, a refused
action says why without an error (no 5xx, no "Error" badge over the form), and a phone shows the
Compare tab in one column without overflowing the screen.

Needs Debian's chromium and the playwright package, as tests/test_browser.py; the model is the
scripted fake, so these check the app, not a model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from petool.ui.entry_edits import example_params
from tests.app_fakes import app_config, running_app
from tests.browser_helpers import BROWSER_MARKS, ERROR_BADGES_JS, load, open_page, run_comparison

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    with running_app(app_config(tmp_path_factory.mktemp("annotate"))) as served:
        yield served


def header_key(page) -> str:
    return re.search(r"entry (\S+) · setting", page.locator("#c-entry").inner_text()).group(1)


def cards_key(page) -> str | None:
    """The entry the result cards belong to (the summary names it), or None with no cards."""
    if not page.locator("#c-side-a .pt-call").count():
        return None
    return re.search(r"Entry (\S+) · setting", page.locator("#c-summary").inner_text()).group(1)


def labels(demo) -> list[dict]:
    return demo.petool_services.store.labels()


def test_selecting_a_turn_then_updating_keeps_its_parameters(app, browser):
    """Issue 30 #1: the row's parameters, not the catalog example of its tool, are saved."""
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        entries = demo.petool_services.generated()
        catalog = demo.petool_services.catalog()
        entry = next(
            e
            for e in entries
            if len({t.call.tool_name for t in e.history("p")}) >= 2
            and any(
                t.call.parameters and json.loads(example_params(catalog.get(t.call.tool_name))) != t.call.parameters for t in e.history("p")
            )
        )
        load(page, entry.key)
        turns = entry.history("p")
        # select a row, then a row with another tool and non-example parameters
        catalog = demo.petool_services.catalog()
        j = next(
            i
            for i, t in enumerate(turns)
            if t.call.parameters and json.loads(example_params(catalog.get(t.call.tool_name))) != t.call.parameters
        )
        i = next(i for i, t in enumerate(turns) if t.call.tool_name != turns[j].call.tool_name)
        table = page.locator("#b-turns")
        table.get_by_role("gridcell", name=turns[i].instruction, exact=True).first.click()
        expect(page.locator("#b-turn-index input")).to_have_value(str(i + 1))
        table.get_by_role("gridcell", name=turns[j].instruction, exact=True).first.click()
        expect(page.locator("#b-turn-index input")).to_have_value(str(j + 1))
        page.wait_for_timeout(2_000)  # the tool dropdown's handlers have had their chance to overwrite
        page.get_by_role("button", name="Update turn").click()
        page.get_by_text(f"Turn #{j + 1} updated.").wait_for()
        row = table.get_by_role("row").filter(has_text=turns[j].instruction).first
        cells = [c.strip() for c in row.get_by_role("gridcell").all_inner_texts()]
        assert json.loads(next(c for c in cells if c.startswith("{"))) == turns[j].call.parameters  # the entry now holds
        page.click("#b-save")
        expect(page.locator("#b-save-msg")).to_contain_text("Saved entry")
        saved = demo.petool_services.store.list_entries("saved")
        stored = demo.petool_services.find("saved", saved[0]["key"])
        assert stored.history("p")[j].call.parameters == turns[j].call.parameters
        assert stored.history("p")[j].call.tool_name == turns[j].call.tool_name
        assert not page.server_errors
    finally:
        page.close()


def test_one_vote_per_comparison(app, browser):
    """Issue 30 #2: a second verdict on the same comparison is refused, the first one stays."""
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("vera")
        load(page, demo.petool_services.generated()[1].key)
        run_comparison(page)
        page.locator("#c-summary").click()
        page.keyboard.press("1")
        expect(page.locator("#c-summary")).to_contain_text("Saved label")
        page.keyboard.press("2")
        page.wait_for_timeout(1_500)
        assert [r["verdict"] for r in labels(demo) if r["annotator"] == "vera"] == ["A"]
        expect(page.locator("#c-label-msg")).to_contain_text("already has a vote")
        page.click("#c-run")  # a new round may be voted on
        expect(page.locator("#c-label-msg")).to_have_text("")
        page.locator("#c-side-b").get_by_text("fake-base+fake-adapter").wait_for()
        expect(page.locator("#verdict-A")).to_be_enabled()
        page.locator("#c-summary").click()
        page.keyboard.press("2")
        expect(page.locator("#c-label-msg")).to_contain_text("Saved label")
        assert [r["verdict"] for r in labels(demo) if r["annotator"] == "vera"] == ["A", "B"]
        assert not page.server_errors
    finally:
        page.close()


def test_results_follow_the_entry_loaded_in_build(app, browser):
    """Issue 30 #2: after loading another entry, the old cards go and the keys cannot vote on them."""
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("walt")
        first, second = demo.petool_services.generated()[2:4]
        load(page, first.key)
        run_comparison(page)
        page.get_by_role("tab", name="Build").click()
        load(page, second.key)
        page.get_by_role("tab", name="Compare & label").click()
        expect(page.locator("#c-entry")).to_contain_text(second.query)
        page.wait_for_timeout(1_000)
        assert page.locator("#c-side-a .pt-call").count() == 0  # the first entry's calls are gone
        page.locator("#c-summary").click()
        page.keyboard.press("1")  # and the keys cannot vote on them
        page.wait_for_timeout(1_500)
        assert not [r for r in labels(demo) if r["annotator"] == "walt"]
        expect(page.locator("#c-label-msg")).to_contain_text("Not saved")
        run_comparison(page)
        assert header_key(page) == cards_key(page) == second.key
        assert not page.server_errors
    finally:
        page.close()


def test_results_follow_the_queue(app, browser):
    """Issue 30 #2: when a vote moves the queue on, the cards never sit under the next entry's query."""
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("xena")
        page.click("#b-load")
        page.get_by_text("Loaded entry").wait_for()
        page.get_by_role("tab", name="Compare & label").click()
        page.get_by_text("Queue: label a batch").click()
        page.get_by_text("run the models automatically").click()  # off: the annotator runs each entry
        page.click("#q-start")
        expect(page.locator("#q-status")).to_contain_text("Queue item 1 of")
        page.click("#c-run")
        page.locator("#c-side-b").get_by_text("fake-base+fake-adapter").wait_for()
        page.locator("#c-summary").click()
        page.keyboard.press("3")
        expect(page.locator("#q-status")).to_contain_text("Queue item 2 of")
        page.wait_for_timeout(1_000)
        assert page.locator("#c-side-a .pt-call").count() == 0  # item 1's calls never sit under item 2's query
        page.keyboard.press("1")  # nothing to vote on for this entry yet
        page.wait_for_timeout(1_500)
        assert [r["verdict"] for r in labels(demo) if r["annotator"] == "xena"] == ["tie"]
        expect(page.locator("#c-label-msg")).to_contain_text("Not saved: Run a comparison first")
        page.click("#c-run")
        page.locator("#c-side-b").get_by_text("fake-base+fake-adapter").wait_for()
        assert header_key(page) == cards_key(page)
        assert not page.server_errors
    finally:
        page.close()


def test_refusals_say_why_without_errors(app, browser):
    """Issue 30 #3: no 5xx, no "Error" badge over the form, one message next to the control, nothing stored."""
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        before = demo.petool_services.store.stats()
        # Build: a turn without a tool
        page.click("#b-load")
        page.get_by_text("Loaded entry").wait_for()
        page.locator("#b-instruction textarea").fill("do it")
        page.click("#b-add")
        page.wait_for_timeout(1_500)
        assert page.evaluate(ERROR_BADGES_JS) == []
        expect(page.locator("#b-turn-msg")).to_contain_text("Pick a tool first.")
        assert page.get_by_text("Pick a tool first.").count() == 1  # one message, not a toast besides
        # Compare: a verdict before any run, then without an annotator name
        page.get_by_role("tab", name="Compare & label").click()
        page.click("#verdict-A")
        page.wait_for_timeout(1_500)
        assert not page.server_errors, page.server_errors
        expect(page.locator("#c-label-msg")).to_contain_text("Not saved: Type your annotator name")
        run_comparison(page)
        page.click("#verdict-A")
        page.wait_for_timeout(1_500)
        assert page.evaluate(ERROR_BADGES_JS) == []
        expect(page.locator("#c-label-msg")).to_contain_text("Type your annotator name")
        # Nothing refused was stored; a comparison that ran keeps its scored answers (the app runs).
        kept = ("runs", "predictions")
        assert {k: v for k, v in demo.petool_services.store.stats().items() if k not in kept} == {
            k: v for k, v in before.items() if k not in kept
        }
        # the form is still usable: tick a reason, type a comment, label
        page.locator("#c-tags").get_by_text("ignores preference").click()
        page.locator("#c-comment textarea").fill("after a refusal")
        page.locator("#annotator textarea, #annotator input").first.fill("yuri")
        page.click("#verdict-B")
        expect(page.locator("#c-label-msg")).to_contain_text("Saved label")
        [row] = [r for r in labels(demo) if r["annotator"] == "yuri"]
        assert (row["verdict"], json.loads(row["tags"]) if isinstance(row["tags"], str) else row["tags"], row["comment"]) == (
            "B",
            ["ignores preference"],
            "after a refusal",
        )
        assert not page.server_errors, page.server_errors
    finally:
        page.close()


def test_compare_on_a_phone(app, browser):
    """Issue 30 #4: at 390x844 the cards stack, nothing overflows the screen, every tab is reachable."""
    _, url = app
    page = open_page(browser, url, 390, 844)
    try:
        tabs = page.get_by_role("tab")
        names = [tabs.nth(i).inner_text() for i in range(tabs.count())]
        assert names == ["Build", "Compare & label", "Pairs & training", "Dashboards", "Errors", "About"]
        for i in range(tabs.count()):
            assert tabs.nth(i).is_visible(), names[i]
        page.click("#b-load")
        page.get_by_text("Loaded entry").wait_for()
        run_comparison(page)
        page.locator("#c-entry summary").click()  # the history and candidate tables
        page.wait_for_timeout(500)
        width = page.evaluate("() => window.innerWidth")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        a = page.locator("#c-side-a .pt-call").bounding_box()
        b = page.locator("#c-side-b .pt-call").bounding_box()
        assert b["y"] >= a["y"] + a["height"] - 1, (a, b)  # stacked, not side by side
        for box in (a, b):
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
        # tables stay readable: no column squeezed to a character or two per line
        narrow = page.evaluate("""() => [...document.querySelectorAll('#c-side-a td, #c-side-b td, #c-entry td')]
            .filter(td => td.offsetParent !== null && td.textContent.trim().length > 4)
            .filter(td => td.getBoundingClientRect().width < 40).map(td => td.textContent.slice(0, 30))""")
        assert narrow == []
        page.screenshot(path=str(Path(__file__).resolve().parent.parent / "test-artifacts" / "phone_compare.png"), full_page=True) if (
            Path(__file__).resolve().parent.parent / "test-artifacts"
        ).is_dir() else None
        page.get_by_role("tab", name="About").click()
        page.locator("#tab-about").wait_for()
    finally:
        page.close()


def test_compare_shows_each_models_own_choice_by_default(app, browser):
    """Issue 28 #6: the Compare tab's tool choice starts at each model's own choice (the ranking
    prior's weight waits for the fused mode), names its mode in words on the result, and the
    queue's automatic run follows the mode the page shows."""
    from playwright.sync_api import expect

    demo, url = app
    fake = demo.petool_services.model.predictor()
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("yuri")
        page.get_by_role("tab", name="Compare & label").click()
        mode = page.locator("#c-choice-mode")
        weight = page.locator("#c-rank-prior input[type=range]")
        expect(mode.get_by_label("Each model's own choice")).to_be_checked()
        expect(mode.get_by_label("Model + ranking (fused)")).not_to_be_checked()
        expect(weight).to_be_disabled()
        page.get_by_role("tab", name="Build").click()
        page.click("#b-load")
        page.get_by_text("Loaded entry").wait_for()
        run_comparison(page)
        summary = page.locator("#c-summary")
        expect(summary).to_contain_text("tool choice: each model's own choice (ranking prior 0)")
        expect(page.locator("#c-side-b")).to_contain_text("fake-base+fake-adapter[rank-prior 0]")
        assert fake.weights[-2:] == [0.0, 0.0]

        mode.get_by_label("Model + ranking (fused)").check()
        expect(weight).to_be_enabled()
        page.click("#c-run")
        expect(summary).to_contain_text("tool choice: model + ranking prior (fused, weight 2.5)")
        assert fake.weights[-2:] == [2.5, 2.5]

        mode.get_by_label("Each model's own choice").check()
        expect(weight).to_be_disabled()
        page.get_by_text("Queue: label a batch").click()
        page.click("#q-start")  # runs the first item at once ("run the models automatically")
        expect(page.locator("#q-status")).to_contain_text("Queue item 1 of")
        expect(summary).to_contain_text("tool choice: each model's own choice", timeout=20_000)
        assert fake.weights[-2:] == [0.0, 0.0]
        assert not page.server_errors
    finally:
        page.close()
