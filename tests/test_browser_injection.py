"""Text from users, data files and models is shown as text: HTML and script never run.

An entry whose query, history instruction, candidate names and description carry HTML/script
payloads, a model whose name and output carry them, and an annotator who types one: the test
walks Build → Compare → label → queue error toast → Pairs → Dashboards in headless Chromium and
checks that no injected handler ran (a global they would set stays unset, no dialog opened) and
that the payloads are visible as literal text.
"""

from __future__ import annotations

import json

import pytest

from petool.schema import Entry, Generation, Tool, ToolCall, Turn
from tests.app_fakes import FakePredictor, app_config, running_app
from tests.browser_helpers import BROWSER_MARKS, open_page, screenshot

pytestmark = BROWSER_MARKS

MARK = "window.__pwned = (window.__pwned || []).concat"
IMG = f"<img src=x onerror=\"{MARK}('img')\">"
SCRIPT = f"<script>{MARK}('script')</script>"
SVG = "<svg onload=alert('svg')></svg>"
IFRAME = "<iframe srcdoc=\"<script>parent.alert('iframe')</script>\"></iframe>"
LINK = "[click me](javascript:alert('md'))"
EVIL_TOOL = f"<Evil>.<{IMG}>.<run>"
GOOD_TOOL = "<Weather>.<A>.<forecast>"
INJECTED_NODES = (
    '[...document.querySelectorAll(\'img[src="x"], svg, iframe[srcdoc], a[href^="javascript:"]\')]'
    ".filter(n => !n.closest('.js-plotly-plot') && (n.tagName !== 'svg' || n.getAttribute('onload') !== null"
    " || n.closest('.prose')))"
    ".map(n => (n.closest('[id]') || {}).id + ': ' + n.outerHTML.slice(0, 120))"
)
"""Elements an injected payload would create: the image, an svg in rendered text, an iframe, a js link."""


def evil_entry() -> Entry:
    tools = [Tool(EVIL_TOOL, f"does things {SCRIPT}"), Tool(GOOD_TOOL, f"forecast {SVG}")]
    return Entry(
        entry_id="evil",
        query=f"Weather please {IMG} {SCRIPT} {SVG} {IFRAME} {LINK}",
        candidates=tools,
        ground_truth=ToolCall(GOOD_TOOL, {}),
        histories={"p": [Turn(f"earlier {IMG}", ToolCall(EVIL_TOOL, {IMG: SVG}))]},
        history_length=1,
        category=f"cat {IMG}",
        cluster=[EVIL_TOOL, GOOD_TOOL],
        extra={"split": "train"},
    )


class EvilPredictor(FakePredictor):
    """A model whose name and output are HTML payloads around a valid call."""

    @property
    def name(self) -> str:
        return f"model {IMG}"

    def generate(self, entry, setting, **options):
        call = {"tool_name": EVIL_TOOL, "parameters": {IMG: SCRIPT}}
        return Generation(f"{SCRIPT} sure! {json.dumps(call)} {IMG} {SVG}", 0.01, 10, 10)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from petool.ui.services import Services

    config = app_config(tmp_path_factory.mktemp("inject"))
    with running_app(config, services=Services(config, predictor_factory=EvilPredictor, generated=[evil_entry()])) as served:
        yield served


def test_payloads_show_as_text_and_never_run(app, browser):
    from playwright.sync_api import expect

    demo, url = app
    services = demo.petool_services
    page = open_page(browser, url)  # records every dialog, from before the first request on
    try:
        page.locator("#annotator textarea, #annotator input").first.fill(f"ann {IMG}")

        # Build: the injected entry loads; its query, history and candidates are shown.
        page.click("#b-load")
        page.get_by_text("Loaded entry evil").wait_for()
        expect(page.locator("#b-turns")).to_contain_text("earlier <img src=x")
        expect(page.locator("#b-cands")).to_contain_text("<Evil>.<<img src=x")

        # A new user whose name is a payload: the status line shows it as text.
        page.get_by_text("New user").click()
        page.locator("#b-user textarea, #b-user input").first.fill(f"u{SVG}")
        page.click("#b-create")
        page.get_by_text("saved", exact=False).first.wait_for()
        page.click("#b-load")
        page.get_by_text("Loaded entry evil").wait_for()

        # Compare: entry, calls, parameter table and raw output carry every payload.
        page.get_by_role("tab", name="Compare & label").click()
        page.click("#c-run")
        side_a = page.locator("#c-side-a")
        expect(side_a).to_contain_text("model <img src=x")
        expect(side_a).to_contain_text("<script>")
        side_a.locator("summary").first.click()  # open the raw output
        expect(side_a).to_contain_text("sure!")
        expect(page.locator("#c-entry")).to_contain_text("Weather please <img src=x")

        # Label, then a queue whose error message quotes the annotator's payload name.
        page.click("#verdict-both-bad")  # gold chosen over both: a pair to show
        page.locator("#c-summary").get_by_text("Saved label").wait_for()
        page.get_by_text("Queue: label a batch").click()
        page.click("#q-start")
        page.get_by_text("Nothing left to label", exact=False).first.wait_for()
        injected_nodes = page.evaluate(INJECTED_NODES)  # while the error toast is up
        screenshot(page, "inject_compare")

        # Pairs and dashboards show labels and model names.
        page.get_by_role("tab", name="Pairs & training").click()
        page.click("#p-refresh")
        expect(page.locator("#p-table")).to_contain_text("Weather please <img src=x")
        page.get_by_role("tab", name="Dashboards").click()
        page.locator("#d-wins .js-plotly-plot").wait_for()
        page.wait_for_timeout(1000)
        screenshot(page, "inject_dashboards")

        pwned = page.evaluate("window.__pwned || null")
        injected_nodes += page.evaluate(INJECTED_NODES)
        dialogs = list(page.dialogs)
    finally:
        page.close()
    assert pwned is None, f"injected script ran: {pwned}"
    assert dialogs == [], f"injected dialogs opened: {dialogs}"
    assert injected_nodes == [], injected_nodes
    [label] = services.store.labels()
    assert label["annotator"] == f"ann {IMG}"  # stored verbatim, shown escaped
