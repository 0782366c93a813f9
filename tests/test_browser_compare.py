"""Issue 30 items 7, 8 and 10 in headless Chromium: a comparison shows each side as soon as it
is done and can be cancelled; green/red against the gold wins over the A/B mark; the scores are
collapsed and hidden in blind mode until the vote; Build labels candidate groups by what is
known, escapes tool names and redraws the prompt preview; a first visit can "start here", the
annotator name survives a reload, About keeps server paths from visitors, and no tab shows a
raw i18n key or meaning carried by an emoji alone.

Needs Debian's chromium and playwright, as tests/test_browser_annotate.py; the model is the
scripted fake, slowed down for side B so the test can look at the page while B runs.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.app_fakes import FakePredictor, app_config, running_app
from tests.browser_helpers import BROWSER_MARKS, load, log_in, open_page

pytestmark = BROWSER_MARKS

I18N_WATCH_JS = """() => { window.__i18nKeys = [];
  new MutationObserver(ms => { for (const m of ms) { const t = (m.target.textContent || "");
    const hit = t.match(/\\b(common|status|errors)\\.[a-z_]+/); if (hit) window.__i18nKeys.push(hit[0]); } })
  .observe(document.documentElement, {subtree: true, childList: true, characterData: true}); }"""
"""Records every raw i18n key the page ever shows, even for a moment (gradio's status tracker
announces a finished event in a live region for a second)."""

EMOJI_ONLY = ["👍", "👎", "✅", "✓", "✗", "🧰"]
"""Glyphs that carried meaning alone (ratings, checks) or decorated the header, and render as boxes
without an emoji font."""


class SlowTuned(FakePredictor):
    """The fake whose adapter side (B with the default choices) takes ``delay_s``."""

    delay_s = 2.0

    def generate(self, entry, setting, *, rank_prior=None, use_adapter=None):
        if self.adapter_enabled if use_adapter is None else use_adapter:
            time.sleep(SlowTuned.delay_s)
        return super().generate(entry, setting, rank_prior=rank_prior, use_adapter=use_adapter)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    with running_app(app_config(tmp_path_factory.mktemp("compare")), SlowTuned) as served:
        yield served


@pytest.fixture
def slow_b():
    """Side B takes longer for one test (a cancel needs time to press)."""
    before = SlowTuned.delay_s
    SlowTuned.delay_s = 8.0
    yield
    SlowTuned.delay_s = before


def entry_with_gold_params(demo):
    return next(e for e in demo.petool_services.generated() if e.ground_truth.parameters)


def test_side_a_shows_while_b_runs_and_controls_wait(app, browser):
    """#7: A's card is on screen while B still runs, B's card says so, and only Cancel is live."""
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        load(page, entry_with_gold_params(demo).key)
        page.get_by_role("tab", name="Compare & label").click()
        page.click("#c-run")
        expect(page.locator("#c-side-a")).to_contain_text("A: fake-base", timeout=5_000)
        expect(page.locator("#c-side-b")).to_contain_text("B: running")
        expect(page.locator("#c-run")).to_be_disabled()
        expect(page.locator("#verdict-A")).to_be_disabled()
        expect(page.locator("#c-cancel")).to_be_enabled()
        expect(page.locator("#c-side-b")).to_contain_text("fake-base+fake-adapter", timeout=20_000)
        expect(page.locator("#c-run")).to_be_enabled()
        expect(page.locator("#verdict-A")).to_be_enabled()
        expect(page.locator("#c-cancel")).to_be_disabled()
        assert not page.server_errors
    finally:
        page.close()


def test_cancel_stops_the_comparison_and_leaves_nothing_to_vote_on(app, browser, slow_b):
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("cora")
        load(page, demo.petool_services.generated()[5].key)
        page.get_by_role("tab", name="Compare & label").click()
        page.click("#c-run")
        expect(page.locator("#c-side-b")).to_contain_text("B: running", timeout=5_000)
        page.click("#c-cancel")
        expect(page.locator("#c-side-b")).to_contain_text("cancelled", timeout=3_000)
        expect(page.locator("#c-run")).to_be_enabled()
        expect(page.locator("#c-summary")).to_contain_text("Cancelled")
        page.click("#verdict-A")
        expect(page.locator("#c-label-msg")).to_contain_text("Not saved")
        page.wait_for_timeout(SlowTuned.delay_s * 1000)  # B's call ends in the background: its card must not come back
        expect(page.locator("#c-side-b")).to_contain_text("cancelled")
        assert not [r for r in demo.petool_services.store.labels() if r["annotator"] == "cora"]
        assert not page.server_errors
    finally:
        page.close()


def test_right_looks_right_where_the_sides_differ(app, browser):
    """#7: B's call equals the gold and differs from A's: its cells are green (marked "≠"), not yellow."""
    demo, url = app
    page = open_page(browser, url)
    try:
        load(page, entry_with_gold_params(demo).key)
        page.get_by_role("tab", name="Compare & label").click()
        page.click("#c-run")
        page.locator("#c-side-b").get_by_text("fake-base+fake-adapter").wait_for(timeout=20_000)
        cells = page.locator("#c-side-b td.v").filter(has_text="other side")
        assert cells.count() >= 1  # the difference from A is still marked, in words
        colours = page.eval_on_selector_all(
            "#c-side-b .pt-table td:nth-child(2)", "els => els.map(e => getComputedStyle(e).backgroundColor)"
        )
        green = page.evaluate(
            "() => { const d = document.createElement('div'); d.className = 'pt-right';"
            " document.body.append(d); const c = getComputedStyle(d).backgroundColor; d.remove(); return c; }"
        )
        assert colours and set(colours) == {green}
        tool = page.locator("#c-side-b .pt-tool").first
        assert "pt-right" in tool.get_attribute("class") and "pt-diff" not in tool.get_attribute("class")
    finally:
        page.close()


def test_scores_collapsed_and_hidden_in_blind_mode_until_the_vote(app, browser):
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("bea")
        load(page, demo.petool_services.generated()[6].key)
        page.get_by_role("tab", name="Compare & label").click()
        page.locator("#c-blind input").check()
        page.click("#c-run")
        expect(page.locator("#c-side-a")).to_contain_text("hidden until your verdict", timeout=20_000)
        expect(page.locator("#c-run")).to_be_enabled()
        assert not page.locator("#c-scores").is_visible()  # collapsed by default
        assert "log-likelihood + rank prior:" not in page.locator("body").inner_text()
        page.locator("#c-scores-box").get_by_text("Scores:").click()
        expect(page.locator("#c-scores")).to_contain_text("Hidden in blind mode")
        assert "chose the tool" not in page.locator("#c-scores").inner_text()
        page.click("#verdict-tie")
        expect(page.locator("#c-label-msg")).to_contain_text("Saved label")
        expect(page.locator("#c-scores")).to_contain_text("chose the tool by log-likelihood")
    finally:
        page.close()


def test_build_groups_escaping_and_preview_refresh(app, browser):
    """#8: "Get candidates" names the weather match in full (a tool name is text, not HTML), marks
    no group the catalog does not know, claims no preference without a history; the preview
    follows its style."""
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.locator("#b-query textarea").fill("What's the current weather in Madrid?")
        page.click("#b-suggest")
        msg = page.locator("#b-query-msg")
        expect(msg).to_contain_text("Best match: <Weather>.<")
        assert "history" not in msg.inner_text()  # the blank entry has none: nothing is "preferred"
        cluster = demo.petool_services.clusters()
        best = re.search(r"Best match: (<.+?>\.<.+?>\.<.+?>) \(", msg.inner_text()).group(1)
        assert best in demo.petool_services.catalog()
        assert ("same function" in msg.inner_text()) == (len(cluster.get(best, [])) > 1)
        page.get_by_text("Prompt preview").click()
        page.click("#b-preview")
        prompt = page.locator("#b-prompt")
        expect(prompt).to_contain_text("weather", timeout=10_000)
        before = prompt.inner_text()
        style = page.locator("#b-style label").filter(has_not=page.locator("input:checked")).first
        style.click()
        expect(prompt).not_to_have_text(before, timeout=10_000)
        assert not page.server_errors
    finally:
        page.close()


def test_start_here_loads_an_example_and_runs_it(app, browser):
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.click("#start-here")
        expect(page.locator("#c-entry")).to_contain_text("Query:", timeout=10_000)
        expect(page.locator("#c-side-b")).to_contain_text("fake-base+fake-adapter", timeout=20_000)
        assert page.locator("#c-run").is_visible()  # the Compare tab is the one shown
        assert not page.server_errors
    finally:
        page.close()


def test_annotator_is_marked_required_and_remembered_across_reload(app, browser):
    from playwright.sync_api import expect

    _, url = app
    page = open_page(browser, url)
    try:
        box = page.locator("#annotator textarea, #annotator input").first
        expect(page.locator("#annotator")).to_contain_text("required")
        box.fill("remy")
        box.blur()
        page.wait_for_timeout(1_500)
        page.reload()
        expect(page.locator("#annotator textarea, #annotator input").first).to_have_value("remy", timeout=15_000)
    finally:
        page.close()


def test_no_i18n_key_and_no_emoji_only_meaning_in_any_tab(app, browser):
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("ivy")
        entry = next(e for e in demo.petool_services.generated() if any(t.rating is not None for t in e.history("r")))
        load(page, entry.key)
        page.get_by_role("tab", name="Compare & label").click()
        page.locator("#c-setting").get_by_text("r", exact=True).click()
        page.click("#c-run")
        expect(page.locator("#c-side-b")).to_contain_text("fake-base+fake-adapter", timeout=20_000)
        page.locator("#c-entry").get_by_text("history and candidates").click()
        expect(page.locator("#c-entry")).to_contain_text("liked (1)")
        page.click("#verdict-B")
        expect(page.locator("#c-label-msg")).to_contain_text("Saved label")
        page.wait_for_timeout(1_500)
        for tab in ["Build", "Compare & label", "Pairs & training", "Dashboards", "Errors", "About"]:
            page.get_by_role("tab", name=tab).click()
            page.wait_for_timeout(1_000)
            text = page.locator("body").inner_text()
            assert "common." not in text, tab
            assert not [g for g in EMOJI_ONLY if g in text], tab
        assert not page.server_errors
    finally:
        page.close()


def test_no_raw_i18n_key_even_for_a_moment(app, browser):
    from playwright.sync_api import expect

    demo, url = app
    page = open_page(browser, url)
    try:
        # From the moment the page's own script runs (it puts the announcements in words), no
        # raw key may show, even for a moment.
        page.wait_for_function("window.petoolStatusInWords === true", timeout=20_000)
        page.evaluate(I18N_WATCH_JS)
        load(page, demo.petool_services.generated()[8].key)
        page.get_by_role("tab", name="Compare & label").click()
        page.click("#c-run")
        expect(page.locator("#c-side-b")).to_contain_text("fake-base+fake-adapter", timeout=20_000)
        page.wait_for_timeout(6_000)  # the status tracker announces finished events at most every 5 s
        assert page.evaluate("window.__i18nKeys") == []
    finally:
        page.close()


@pytest.fixture(scope="module")
def private_app(tmp_path_factory):
    """Visitors read, "root" logs in; only admins see operator details."""
    config = app_config(tmp_path_factory.mktemp("about"), "private-store.db", auth=[("root", "pw-root")], admins=["root"])
    with running_app(config) as (demo, url):
        yield demo, url, config


def test_about_shows_the_paper_and_no_server_path_to_a_visitor(private_app, browser):
    from playwright.sync_api import expect

    _, url, config = private_app
    page = open_page(browser, url)
    try:
        page.get_by_role("tab", name="About").click()
        about = page.locator("#about")
        expect(about).to_contain_text("2502.18980")
        expect(about).to_contain_text("rating-integrated")
        text = page.locator("body").inner_text()
        assert str(Path(config.db_path).parent) not in text and "private-store" not in text
        assert "PETOOL_" not in about.inner_text()  # the settings table is for admins
        log_in(page, "root", "pw-root")
        expect(page.locator("#login-msg")).to_contain_text("Logged in")
        page.get_by_role("tab", name="Build").click()
        page.get_by_role("tab", name="About").click()
        expect(about).to_contain_text("private-store")
    finally:
        page.close()
