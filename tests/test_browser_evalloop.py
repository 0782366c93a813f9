"""Issue 30 #9 in headless Chromium: the train loop closes. A DPO job that ends (run by the real
supervisor, petool.jobs, with a scripted trainer) makes its adapter a Compare side, and the
Pairs & training tab evaluates it on a sample, stored as runs the Dashboards list.

Needs Debian's chromium and the playwright package, as tests/test_browser.py; the model is the
scripted fake (tests/app_fakes.py), so these check the app, not a model.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from petool import jobs
from petool.ui.services import job_choice
from tests.app_fakes import app_config, running_app
from tests.browser_helpers import BROWSER_MARKS, ERROR_BADGES_JS, load, open_page, run_comparison
from tests.test_ui_handlers import FAKE_TRAINER

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    with running_app(app_config(tmp_path_factory.mktemp("evalloop"))) as served:
        yield served


def train_to_the_end(services, tmp_path: Path, monkeypatch) -> str:
    """Start a DPO job on the labelled pairs as the app does (start_dpo_job: a supervisor process),
    with a scripted trainer that leaves an adapter; wait for it to finish; return its choice."""
    script = tmp_path / "fake_train.py"
    script.write_text(FAKE_TRAINER + "(out / 'adapter_config.json').write_text('{}')\n")
    monkeypatch.setattr(jobs.time, "strftime", lambda *a: "browser")  # the job folder: jobs/dpo-browser
    jobs_dir = Path(services.config.db_path).resolve().parent / "jobs"
    run_dir = jobs_dir / "dpo-browser" / "run"
    job_id = jobs.start_dpo_job(
        services.store, services.store.preference_examples(), "fake-adapter", jobs_dir, command=[sys.executable, str(script), str(run_dir)]
    )
    for _ in range(150):
        if services.store.get_job(job_id)["status"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert services.store.get_job(job_id)["status"] == "done"
    return job_choice(job_id)


def choose(page, elem_id: str, option: str) -> None:
    """Open a gradio dropdown (its choices are read from the server as it opens) and pick ``option``."""
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()


def test_a_finished_jobs_adapter_is_compared_then_evaluated_on_a_sample(app, browser, tmp_path, monkeypatch):
    from playwright.sync_api import expect

    demo, url = app
    services = demo.petool_services
    page = open_page(browser, url)
    try:
        # a label (a DPO pair), then a job trained on it, ended while the page is open
        page.locator("#annotator input, #annotator textarea").first.fill("nia")
        labelled = services.generated()[0]
        load(page, labelled.key)
        run_comparison(page)
        page.click("#verdict-B")
        page.locator("#c-label-msg").get_by_text("Saved label").wait_for()
        choice = train_to_the_end(services, tmp_path, monkeypatch)
        assert choice == "DPO job #1"

        # Compare: the job's adapter is a side now, without reloading the page
        choose(page, "c-model-b", choice)
        page.click("#c-run")
        page.locator("#c-side-b").get_by_text(f"fake-base+{choice}").wait_for()
        assert services.model.predictor().extra_paths == {choice: str(Path(services.store.get_job(1)["output_dir"]) / "dpo")}

        # Pairs & training: a sample size out of bounds is refused next to the button, nothing runs
        page.get_by_role("tab", name="Pairs & training").click()
        choose(page, "s-adapter", choice)
        size = page.locator("#s-n input")
        size.fill("0")
        page.click("#s-run")
        expect(page.locator("#s-msg")).to_contain_text("from 1 to 50 entries")
        assert not [r for r in services.store.runs() if r["id"].startswith("sample-")]
        assert page.evaluate(ERROR_BADGES_JS) == []
        # then evaluated on 5 entries: progress while it runs (each answer slowed down to be seen),
        # a result table per model, runs stored
        model = services.model.predictor()
        answer = model.generate

        def slowly(*args, **kwargs):
            time.sleep(0.25)
            return answer(*args, **kwargs)

        monkeypatch.setattr(model, "generate", slowly)
        size.fill("5")
        page.click("#s-run")
        expect(page.locator("#s-msg")).to_contain_text("Evaluating model")
        expect(page.locator("#s-msg")).to_contain_text("new answers")
        expect(page.locator("#s-msg")).to_contain_text("Done", timeout=60_000)
        table = page.locator("#s-table")
        for model in ("fake-base", "fake-base+fake-adapter", f"fake-base+{choice}"):
            expect(table).to_contain_text(model)
        expect(table).to_contain_text("100.0%")
        runs = [r["id"] for r in services.store.runs() if r["id"].startswith("sample-")]
        assert len(runs) == 3 and any(r.endswith(f":fake-base+{choice}") for r in runs)
        sampled = {p["entry_id"] for p in services.store.predictions(runs)}
        assert len(sampled) == 5 and labelled.key not in sampled  # the pair's entry is not in the sample

        # Dashboards: the new runs are filter choices (without a reload) and count in the table
        page.get_by_role("tab", name="Dashboards").click()
        page.locator("#d-runs input").click()
        job_run = next(r for r in runs if r.endswith(f":fake-base+{choice}"))
        page.get_by_role("option", name=f"{job_run} · fake-base+{choice} · 5 predictions", exact=False).click()
        page.click("#d-refresh")
        expect(page.locator("#d-status")).to_contain_text("5 predictions from 1 run(s)")
        expect(page.locator("#d-table")).to_contain_text(f"fake-base+{choice}")
        assert page.server_errors == []
    finally:
        page.close()
