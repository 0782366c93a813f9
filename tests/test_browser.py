"""The app in headless Chromium: build a history, compare, label, export the pair, see the dashboards.

Needs Debian's chromium (`apt-get install -y chromium`) and the playwright package; screenshots
go to test-artifacts/. The model is the scripted fake, so the test checks the app, not a model.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.app_fakes import app_config, running_app
from tests.browser_helpers import BROWSER_MARKS, open_page, screenshot

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    with running_app(app_config(folder), prepare=lambda demo: _import_a_run(demo.petool_services, folder)) as served:
        yield served


def _import_a_run(services, folder: Path) -> None:
    """A small stored evaluation run (two models), so the dashboards have data to draw."""
    from petool.evaluate import record_for
    from petool.formats import write_combined
    from petool.schema import Generation

    entries = services.generated()[:6]
    data = write_combined(entries, folder / "data.json")
    for model, good in (("fake-base", {0}), ("fake-base+fake-adapter", {0, 1, 2, 3})):
        run = folder / model
        run.mkdir()
        rows = [
            record_for(e, s, model, Generation(e.ground_truth.to_text() if i in good else "nope", 0.1), "robust").to_json()
            for i, e in enumerate(entries)
            for s in ("p", "r", "c", "none")
        ]
        (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        (run / "config.json").write_text(json.dumps({"model": model, "data": str(data), "scorer_version": "petool-scorer/1"}))
        services.store.import_run(run)


@pytest.fixture(scope="module")
def page(app, browser):
    pg = open_page(browser, app[1], accept_downloads=True)
    yield pg
    pg.close()


def pick(page, elem_id: str, option: str, typed: str) -> None:
    """Choose ``option`` in a filterable gradio dropdown after typing ``typed`` into it."""
    box = page.locator(f"#{elem_id} input")
    box.click()
    box.press_sequentially(typed)
    page.get_by_role("option", name=option, exact=True).click()


def _fill_number(page, selector: str, value: str, tries: int = 5) -> None:
    """Type a number and commit it (Tab), again if the box re-rendered to its old value meanwhile:
    on a busy machine the accordion that holds it can still be mounting when the first fill lands."""
    from playwright.sync_api import expect

    box = page.locator(selector)
    box.wait_for()
    for _ in range(tries):
        box.fill(value)
        box.press("Tab")  # commit the value before a click reads it
        page.wait_for_timeout(300)
        if box.input_value() == value:
            break
    expect(box).to_have_value(value)


def test_end_to_end(app, page):
    from playwright.sync_api import expect

    demo, _ = app
    services = demo.petool_services
    page.locator("#annotator textarea, #annotator input").first.fill("ann")

    # 1. Build a history for a new user.
    page.get_by_text("New user").click()
    page.locator("#b-user textarea, #b-user input").first.fill("zoe")
    page.click("#b-create")
    page.get_by_text("User 'zoe' saved").wait_for()
    tool = next(t for t in services.catalog().values() if not t.required_parameters)
    pick(page, "b-tool", tool.name, tool.name.split(">.<")[1])
    page.locator("#b-instruction textarea").fill("Show me what this service offers")
    page.click("#b-add")
    page.get_by_text("Turn added.").wait_for()
    expect(page.locator("#b-turns")).to_contain_text("Show me what this service offers")
    page.locator("#b-query textarea").fill("What is the weather in Paris right now?")
    page.click("#b-suggest")
    page.get_by_text(re.compile(r"\d+ candidates\. Best match: ")).wait_for()
    page.get_by_text("Prompt preview").click()
    page.click("#b-preview")
    expect(page.locator("#b-prompt")).to_contain_text("most likely first")  # the style the models read
    page.locator("#b-style").get_by_text("paper", exact=True).click()
    page.click("#b-preview")
    expect(page.locator("#b-prompt")).to_contain_text("Interaction history is:")
    page.click("#b-save")
    page.get_by_text(re.compile("Saved entry user-zoe")).wait_for()
    screenshot(page, "1_build")
    assert services.store.list_entries("saved")[0]["user"] == "zoe"

    # 2. Compare on a benchmark entry (its gold is known), blind off.
    page.get_by_text("Load an entry").first.wait_for()
    page.click("#b-load")
    page.get_by_text("Loaded entry").wait_for()
    page.get_by_role("tab", name="Compare & label").click()
    page.locator("#c-setting").get_by_text("r", exact=True).click()
    page.click("#c-run")
    page.locator("#c-side-b").get_by_text("fake-base+fake-adapter").wait_for()
    assert page.locator("#c-side-a .pt-wrong").count() >= 1
    screenshot(page, "2_compare")

    # 3. Label with the keyboard: "2" = B is better.
    page.locator("#c-summary").click()
    page.keyboard.press("2")
    page.locator("#c-summary").get_by_text("Saved label").wait_for()
    [label] = services.store.labels()
    assert (label["annotator"], label["verdict"], label["setting"]) == ("ann", "B", "r")
    screenshot(page, "3_labelled")

    # 4. The pair is in the TRL export.
    page.get_by_role("tab", name="Pairs & training").click()
    page.click("#p-refresh")
    page.locator("#p-counts").get_by_text("1 DPO pair from 1 of them").wait_for()
    page.click("#p-export")
    link = page.locator("#p-file a").first
    link.wait_for()
    with page.expect_download() as dl:
        link.click()
    rows = [json.loads(x) for x in Path(dl.value.path()).read_text().splitlines()]
    [pair] = services.store.preference_examples()
    assert len(rows) == 1 and rows[0]["chosen"][0]["content"] == pair.chosen
    screenshot(page, "4_pairs")

    # 5. Dashboards draw their charts when the tab opens.
    page.get_by_role("tab", name="Dashboards").click()
    page.locator("#d-acc .js-plotly-plot").wait_for()
    for elem in ("d-acc", "d-hist", "d-bucket", "d-errors", "d-cat", "d-labels", "d-wins"):
        plot = page.locator(f"#{elem} .js-plotly-plot").first
        plot.wait_for()
        box = plot.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 150, (elem, box)
    assert page.locator("#d-acc .js-plotly-plot .bars path").count() > 0
    screenshot(page, "5_dashboards")

    # 6. Error inspection opens a whole entry.
    page.get_by_role("tab", name="Errors").click()
    page.click("#e-filter")
    expect(page.locator("#e-table")).to_contain_text("format:no_call")
    page.locator("#e-table").get_by_role("gridcell").nth(2).click()
    expect(page.locator("#e-detail")).to_contain_text("Query:")
    expect(page.locator("#e-detail")).to_contain_text("★ gold")
    screenshot(page, "6_errors")

    # 7. A queue: each verdict saves a label and runs the next entry automatically.
    page.get_by_role("tab", name="Compare & label").click()
    page.get_by_text("Queue: label a batch").click()
    _fill_number(page, "#q-size input", "2")
    page.click("#q-start")
    expect(page.locator("#q-status")).to_contain_text("Queue item 1 of 2")
    expect(page.locator("#c-side-b")).to_contain_text("fake-base+fake-adapter")
    page.locator("#c-summary").click()
    page.keyboard.press("3")
    expect(page.locator("#q-status")).to_contain_text("Queue item 2 of 2")
    expect(page.locator("#c-summary")).not_to_contain_text("Saved label")
    expect(page.locator("#c-side-a")).to_contain_text("fake-base")
    screenshot(page, "7_queue")
    assert [lab["verdict"] for lab in services.store.labels()] == ["B", "tie"]

    # 8. About draws how the configured adapter (the shipped one) was trained.
    page.get_by_role("tab", name="About").click()
    plot = page.locator("#about-training .js-plotly-plot").first
    plot.wait_for()
    box = plot.bounding_box()
    assert box and box["width"] > 300 and box["height"] > 300, box
    expect(page.locator("#about-training")).to_contain_text("DPO")
    assert page.locator("#about-training .js-plotly-plot .scatterlayer .trace").count() == 3
    screenshot(page, "8_about")
