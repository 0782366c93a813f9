"""The first comparison after the app starts, in headless Chromium: the page and the stored label
name the prompt style the model reads, and the label keeps the prompt in that style.

The model loads on the first comparison; before the fix the record took its style from the
not-yet-loaded model and fell back to "paper", so the first label of every process stored a
`paper` prompt for a model that read `shortlist`. Needs Debian's chromium and playwright, as
tests/test_browser_annotate.py; the model is the scripted fake, reading the shortlist style.
"""

from __future__ import annotations

import pytest

from petool.prompts import render_system_prompt
from petool.schema import entry_from_dict
from tests.app_fakes import FakePredictor, app_config, running_app
from tests.browser_helpers import BROWSER_MARKS, load, open_page, run_comparison

pytestmark = BROWSER_MARKS


class ShortlistFake(FakePredictor):
    """The fake, reading the shortlist style as petool's default decoding does."""

    def __init__(self):
        super().__init__()
        self.style = "shortlist"


@pytest.fixture
def fresh_app(tmp_path):
    """An app whose model is not loaded yet (each test its own process state)."""
    with running_app(app_config(tmp_path), ShortlistFake) as served:
        yield served


def test_the_first_comparison_names_and_keeps_the_models_prompt_style(fresh_app, browser):
    from playwright.sync_api import expect

    demo, url = fresh_app
    services = demo.petool_services
    assert not services.model.loaded
    page = open_page(browser, url)
    try:
        page.locator("#annotator textarea, #annotator input").first.fill("ines")
        load(page, services.generated()[1].key)
        run_comparison(page)
        expect(page.locator("#c-summary")).to_contain_text("prompt style shortlist")
        page.locator("#c-summary").click()
        page.keyboard.press("1")
        expect(page.locator("#c-summary")).to_contain_text("Saved label")
        (label,) = [r for r in services.store.labels() if r["annotator"] == "ines"]
        entry = entry_from_dict(label["entry"])
        assert label["prompt"] == render_system_prompt(entry, label["setting"], "shortlist")
        assert page.server_errors == []
    finally:
        page.close()
