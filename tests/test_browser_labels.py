"""Issue 30 #5 in headless Chromium: "My labels" lists the annotator's labels with their status,
and undoing one changes its status and the pairs."""

from __future__ import annotations

import pytest

from tests.app_fakes import app_config, running_app
from tests.browser_helpers import BROWSER_MARKS, load, open_page, run_comparison

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    with running_app(app_config(tmp_path_factory.mktemp("labels"))) as served:
        yield served


def test_my_labels_list_and_undo(app, browser):
    from playwright.sync_api import expect

    demo, url = app
    store = demo.petool_services.store
    page = open_page(browser, url)
    page.locator("#annotator input, #annotator textarea").first.fill("mia")
    key = demo.petool_services.generated()[0].key
    load(page, key)
    run_comparison(page)
    page.click("#verdict-B")
    page.locator("#c-label-msg").get_by_text("Saved label").wait_for()
    [mine] = [lab for lab in store.labels() if lab["annotator"] == "mia"]
    page.get_by_role("tab", name="Pairs & training").click()
    page.click("#l-refresh")
    table = page.locator("#l-table")
    expect(table).to_contain_text("becomes 1 pair")
    assert "1 DPO pair" in page.locator("#l-counts").inner_text()
    page.locator("#l-id input").fill(str(mine["id"]))
    page.click("#l-undo")
    page.locator("#l-msg").get_by_text(f"Label #{mine['id']} undone").wait_for()
    expect(table).to_contain_text("undone by its annotator")
    assert not [p for p in store.preference_examples() if p.source.startswith(f"label:{mine['id']}:")]
    # undoing it again is refused next to the control, without a server error
    page.locator("#l-id input").fill(str(mine["id"]))
    page.click("#l-undo")
    page.locator("#l-msg").get_by_text("already undone").wait_for()
    assert page.server_errors == []
    page.close()
