"""Files on a running app, tried as an outside visitor would: exports, database snapshots, uploads.

- An export or a snapshot reaches only whoever asked for it (as the event's output, under a
  name gradio draws at random); an anonymous client finds none of them, however it guesses.
- Uploads need a signed-in browser where login is configured, are bounded in total on disk,
  and are deleted once imported or refused.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
import pytest

from petool.schema import entry_to_dict
from petool.ui import comparison
from petool.ui.services import BASE, TUNED
from petool.ui.uploads import CLIENT_COOKIE, UPLOAD_ROUTE
from tests.app_fakes import api_client, app_config, running_app
from tests.browser_helpers import log_in, needs_chromium, open_page

USERS = [("ann", "pw-ann"), ("bob", "pw-bob")]
EXPORT_FORMATS = ("TRL JSONL", "LLaMA-Factory", "PEToolBench DPO files")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """Demo mode with the in-app login: ann is the admin who may download the database."""
    config = app_config(tmp_path_factory.mktemp("files"), auth=USERS, demo=True, admins=["ann"], max_upload_mb=1, max_uploads_total_mb=2)
    with running_app(config, prepare=_label_three) as served:
        yield served


def _label_three(demo) -> None:
    """Labels, so that there are pairs to export."""
    services = demo.petool_services
    for e in services.generated()[:3]:
        comparison.submit_label(services, comparison.run_compare(services, entry_to_dict(e), "r", BASE, TUNED), "B", "ann")


def remote_path(value) -> str:
    return value if isinstance(value, str) else value["path"]


def guessed_names(start: float, end: float) -> list[str]:
    """Every export or snapshot name the app has ever given a file made between two instants."""
    names = []
    for second in range(int(start) - 2, int(end) + 3):
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(second))
        names += [f"petool-{stamp}.db", f"pairs-{stamp}.jsonl", f"pairs-{stamp}-lf.zip", f"pairs-{stamp}-petoolbench.zip"]
    return names


def wait_for(fn, seconds: float = 20.0):
    """``fn()`` once it is truthy (the browser uploads in the background), else its last value."""
    deadline = time.monotonic() + seconds
    while not (value := fn()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return value


def on_disk(paths) -> set[str]:
    return {p for p in paths if Path(p).is_file()}


def anonymous_get(url: str, path: str | Path) -> int:
    return httpx.get(f"{url}gradio_api/file={path}", timeout=30).status_code


def test_exports_and_snapshots_reach_only_their_requester(app):

    demo, url = app
    config = demo.petool_services.config
    ann = api_client(url)
    ann.predict("ann", "pw-ann", api_name="/login")
    start = time.time()
    handed = {fmt: remote_path(ann.predict(fmt, "ground_truth", "drop", api_name="/export_pairs")[0]) for fmt in EXPORT_FORMATS}
    handed["db"] = remote_path(ann.predict(api_name="/download_db")[0])
    end = time.time()

    # The requester fetches each file by the URL the event handed back to it.
    with httpx.Client(timeout=30) as http:
        for what, path in handed.items():
            response = http.get(f"{url}gradio_api/file={path}")
            assert response.status_code == 200, what
        snapshot = http.get(f"{url}gradio_api/file={handed['db']}").content
    assert snapshot.startswith(b"SQLite format 3\x00")

    # An anonymous visitor: refused by the API, and no guess at a path or a name finds a file.
    stranger = api_client(url)
    for args, api in ((("TRL JSONL", "ground_truth", "drop"), "/export_pairs"), ((), "/download_db")):
        file, message = stranger.predict(*args, api_name=api)  # refused with the reason, no file
        assert not isinstance(file, str) and "Log in" in message, api
    db_folder = Path(config.db_path).resolve().parent
    folders = [db_folder / "exports", db_folder, Path.cwd()]
    guesses = [folder / name for folder in folders for name in guessed_names(start, end)]
    guesses += [Path(config.db_path).resolve(), db_folder / "petool.db-wal"]
    with httpx.Client(timeout=30) as http:
        found = [str(g) for g in guesses if http.get(f"{url}gradio_api/file={g}").status_code == 200]
    assert found == []
    assert len(guesses) >= 4 * 5 * len(folders)  # every name of a 5 s window at least, in each folder
    # Even the staging copies, whose paths only the server knows, are not served by path.
    staged = sorted(Path(p) for p in Path("/tmp").glob("petool-export-*/*") if p.is_file())
    assert staged and all(anonymous_get(url, p) == 403 for p in staged)
    # The page no longer shows a folder on the server where exports are kept.
    assert str(db_folder / "exports") not in httpx.get(f"{url}config", timeout=30).text


def test_an_anonymous_upload_is_refused_and_nothing_is_kept(app):
    demo, url = app
    kept = set(demo.upload_file_set)
    response = httpx.post(
        f"{url}{UPLOAD_ROUTE.lstrip('/')}", timeout=30, files={"files": ("predictions.jsonl", b'{"entry_id": 1, "setting": "p"}\n')}
    )
    assert response.status_code == 403 and "Log in" in response.text
    assert demo.upload_file_set == kept


def test_uploads_are_bounded_in_total_and_each_gets_its_reason(app):
    """A signed-in browser (its client cookie bound to ann) fills the 2 MB allowed, then is told why not."""
    demo, url = app
    guard = demo.petool_uploads
    with httpx.Client(timeout=30) as http:
        http.get(url)
        key = http.cookies[CLIENT_COOKIE]
        guard.logins.bind(key, "ann")
        try:
            statuses, texts = [], []
            for i in range(4):
                r = http.post(f"{url}{UPLOAD_ROUTE.lstrip('/')}", files={"files": (f"part{i}.jsonl", b"x" * 900_000)})
                statuses.append(r.status_code)
                texts.append(r.text)
            assert statuses == [200, 200, 413, 413]
            assert "Uploads are full" in texts[2] and "PETOOL_MAX_UPLOADS_TOTAL_MB" in texts[2]
            # Imports delete their files: the room comes back.
            from gradio.utils import get_upload_folder

            from petool.ui.uploads import discard_uploads

            paths = [p for t in texts[:2] for p in json.loads(t)]
            time.sleep(0.5)  # gradio moves uploads into place in a background task
            assert discard_uploads(paths, get_upload_folder()) == 2
            again = http.post(f"{url}{UPLOAD_ROUTE.lstrip('/')}", files={"files": ("again.jsonl", b"y" * 900_000)})
            assert again.status_code == 200
            time.sleep(0.5)
            assert discard_uploads(again.json(), get_upload_folder()) == 1
        finally:
            guard.logins.bind(key, None)


@pytest.mark.browser
@needs_chromium
def test_upload_and_import_in_the_browser(app, browser, tmp_path):
    """Anonymous: the upload is refused with the reason. Logged in: the run imports, its
    uploaded files are deleted, and a second upload of the same config.json run id is refused
    next to the button until "replace" is ticked."""
    from playwright.sync_api import expect

    demo, url = app
    store = demo.petool_services.store
    run = tmp_path / "run"
    run.mkdir()
    rows = [{"entry_id": i, "setting": "p", "model": "fake", "tool_ok": True} for i in range(5)]
    (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "config.json").write_text(json.dumps({"run_id": "browser-run", "model": "fake"}))
    files = [str(run / "predictions.jsonl"), str(run / "config.json")]
    page = open_page(browser, url)
    try:
        page.get_by_role("tab", name="Dashboards").click()
        page.get_by_text("Import an evaluation run").click()
        page.locator("#d-upload input[type=file]").set_input_files([str(run / "config.json")])
        expect(page.get_by_text(re.compile("HTTP 403: Log in .* to upload files")).first).to_be_visible(timeout=20_000)
        assert on_disk(demo.upload_file_set) == set()

        log_in(page, "ann", "pw-ann")
        expect(page.locator("#login-msg")).to_contain_text("Logged in as ann")
        for attempt in range(2):
            page.locator("#d-upload input[type=file]").set_input_files(files)
            uploaded = wait_for(lambda: on_disk(demo.upload_file_set))
            assert len(uploaded) == 2
            page.click("#d-import")
            if attempt == 0:
                expect(page.locator("#d-import-msg")).to_contain_text("Imported run browser-run")
            else:
                expect(page.locator("#d-import-msg")).to_contain_text("'browser-run' is already stored")
            assert not any(Path(f).exists() for f in uploaded)  # deleted once imported or refused
        assert len(store.predictions(["browser-run"])) == 5
    finally:
        page.close()
