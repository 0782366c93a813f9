"""Access control with the in-app login (PETOOL_AUTH): visitors read and run models, only
logged-in users write, and the login lives on the server where no API caller can forge it.

The live tests drive a launched app as any visitor could: through gradio_client, and through
raw HTTP requests that try to fill the session-login State themselves.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from petool.appconfig import AppConfig
from petool.ui.common import PasswordLogins, SessionLogin, logged_in
from tests.app_fakes import FakePredictor, label_data, launch_for_test

USERS = [("ann", "pw-ann"), ("bob", "pw-bøb")]


# ---------------------------------------------------------------- the password check


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_right_password_logs_in_wrong_one_says_how_many_tries_are_left():
    logins = PasswordLogins(USERS, max_failures=3, pause_s=60, clock=Clock())
    assert logins.check(" ann ", "pw-ann") == "ann"
    assert logins.check("bob", "pw-bøb") == "bob"  # non-ASCII passwords compare as UTF-8 bytes
    with pytest.raises(ValueError, match=r"Wrong user name or password \(2 tries left"):
        logins.check("ann", "pw-bob")
    with pytest.raises(ValueError, match=r"Wrong user name or password \(2 tries left"):
        logins.check("nobody", "pw-ann")  # an unknown name gets the same answer
    with pytest.raises(ValueError, match="Type your user name and password"):
        logins.check("ann", "")


def test_repeated_failures_pause_that_user_name_then_it_works_again():
    clock = Clock()
    logins = PasswordLogins(USERS, max_failures=3, pause_s=60, clock=clock)
    for _ in range(2):
        with pytest.raises(ValueError, match="Wrong user name or password"):
            logins.check("ann", "guess")
    with pytest.raises(ValueError, match="paused for 60 s"):
        logins.check("ann", "guess")
    with pytest.raises(ValueError, match="try again in 60 s"):
        logins.check("ann", "pw-ann")  # even the right password waits out the pause
    assert logins.check("bob", "pw-bøb") == "bob"  # other names are not affected
    clock.now += 30
    with pytest.raises(ValueError, match="try again in 30 s"):
        logins.check("ann", "pw-ann")
    clock.now += 31
    assert logins.check("ann", "pw-ann") == "ann"
    with pytest.raises(ValueError, match=r"\(2 tries left"):  # a success resets the count
        logins.check("ann", "guess")


def test_messages_never_contain_the_password():
    logins = PasswordLogins(USERS, max_failures=2, clock=Clock())
    for _ in range(3):
        with pytest.raises(ValueError) as err:
            logins.check("ann", "hunter2-secret")
        assert "hunter2" not in str(err.value)


def test_only_a_session_login_object_counts():
    assert logged_in(None, None, SessionLogin("ann")) == "ann"
    # What a client could send in a request body: strings, dicts. None of them logs anyone in.
    for forged in ("ann", {"name": "ann"}, ["ann"], {"__class__": "SessionLogin", "name": "ann"}):
        assert logged_in(None, None, forged) is None

    class Request:
        username = "from-login-page"

    assert logged_in(Request(), {"preferred_username": "hf"}, SessionLogin("ann")) == "from-login-page"
    assert logged_in(None, {"preferred_username": "hf"}, SessionLogin("ann")) == "hf"


# ---------------------------------------------------------------- configuration


def test_auth_private_keeps_the_old_whole_app_login():
    from petool.ui.app import launch_kwargs

    open_login = AppConfig.from_env({"PETOOL_AUTH": "ann:pw"})
    assert open_login.password_login and open_login.access_control and not open_login.auth_private
    assert launch_kwargs(open_login)["auth"] is None  # visitors reach the page; the box logs in
    private = AppConfig.from_env({"PETOOL_AUTH": "ann:pw", "PETOOL_AUTH_PRIVATE": "1"})
    assert private.auth_private and not private.password_login and private.access_control
    assert launch_kwargs(private)["auth"] == [("ann", "pw")]
    with pytest.raises(ValueError, match="PETOOL_AUTH_PRIVATE=1 needs PETOOL_AUTH"):
        AppConfig.from_env({"PETOOL_AUTH_PRIVATE": "1"})
    with pytest.raises(ValueError, match="PETOOL_AUTH_PRIVATE must be"):
        AppConfig.from_env({"PETOOL_AUTH": "ann:pw", "PETOOL_AUTH_PRIVATE": "maybe"})


WRITE_ENDPOINTS = {"label_A", "label_B", "label_tie", "label_both_bad", "start_queue", "save_entry", "create_user",
                   "export_pairs", "download_db", "train"}


def test_every_write_event_reads_the_session_login(tmp_path):
    from petool.ui import build_demo

    demo = build_demo(AppConfig(db_path=str(tmp_path / "w.db"), data_path=None, auth=USERS), predictor_factory=FakePredictor)
    user_fns = [f for f in demo.fns.values() if getattr(f.fn, "petool_with_user", False)]
    assert WRITE_ENDPOINTS <= {f.api_name for f in user_fns}
    for f in user_fns:  # with_user takes the session State as its last input
        assert f.inputs[-1] is demo.petool_session, f.api_name
    by_name = {f.api_name: f for f in demo.fns.values()}
    assert by_name["login"].queue is False and by_name["label_A"].queue is False


# ---------------------------------------------------------------- the running app


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from petool.ui import build_demo

    folder = tmp_path_factory.mktemp("access")
    config = AppConfig(db_path=str(folder / "petool.db"), data_path=None, auth=USERS)
    demo = build_demo(config, predictor_factory=FakePredictor)
    url = launch_for_test(demo, config)
    yield demo, url
    demo.close()


def new_client(url):
    from gradio_client import Client

    return Client(url, verbose=False, download_files=False)


def compared(url):
    """A fresh session (a new client) with an entry loaded and a comparison made."""
    client = new_client(url)
    client.predict("generated", "0", "p", api_name="/load_entry")
    client.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")
    return client


def refusal(outputs) -> str:
    """The one output of a refused event that says why (the others come back unchanged)."""
    [message] = [o for o in (outputs if isinstance(outputs, (list, tuple)) else [outputs])
                 if isinstance(o, str) and "Log in (the box at the top of the page) to" in o]
    return message


def labels(demo) -> list[dict]:
    return demo.petool_services.store.labels()


def test_anonymous_visitors_read_and_run_models_but_cannot_write(app):
    from gradio_client.exceptions import AppError

    demo, url = app
    client = new_client(url)
    assert "Loaded entry" in client.predict("generated", "0", "p", api_name="/load_entry")[0]
    html_a, html_b, _, _ = client.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")
    assert "fake-base" in html_a and "fake-base+fake-adapter" in html_b
    client.predict([], [], [], api_name="/dashboards")
    client.predict("ground_truth", "drop", api_name="/pairs")
    client.predict("", "p", "paper", api_name="/preview_prompt")
    before = demo.petool_services.store.stats()
    for args, api in ((("TRL JSONL", "ground_truth", "drop"), "/export_pairs"),
                      ((), "/download_db"), ((5, "", "ground_truth", "drop"), "/train")):
        with pytest.raises(AppError, match=r"Log in \(the box at the top of the page\) to"):
            client.predict(*args, api_name=api)
    # Refusals with a message next to their control answer normally, with the reason.
    for args, api in ((("ann", [], "", ""), "/label_A"), (("generated", ["p"], 3, "ann"), "/start_queue"),
                      (("q", "ann"), "/save_entry")):
        assert refusal(client.predict(*args, api_name=api)).startswith("⚠️ "), api
    out = client.predict("zoe", "mixed", "p", api_name="/create_user")
    assert "not saved: sign in to save" in out[0]
    assert demo.petool_services.store.stats() == before


def test_wrong_password_is_refused_and_the_session_stays_anonymous(app):
    from gradio_client.exceptions import AppError

    demo, url = app
    client = compared(url)
    with pytest.raises(AppError, match="Wrong user name or password"):
        client.predict("ann", "pw-bob", api_name="/login")
    assert "Not saved" in refusal(client.predict("ann", [], "", "", api_name="/label_A"))
    assert not [r for r in labels(demo) if r["comment"] == "wrong-password"]


def test_login_name_is_the_annotator_and_other_sessions_stay_anonymous(app):
    from gradio_client.exceptions import AppError

    demo, url = app
    ann = compared(url)
    annotator, message, *rest = ann.predict("ann", "pw-ann", api_name="/login")
    assert annotator == "ann" and "Logged in as **ann**" in message and "pw-ann" not in json.dumps(rest)
    n = len(labels(demo))
    ann.predict("mallory", ["ignores preference"], "as-ann", "", api_name="/label_B")  # a typed name is ignored
    [row] = labels(demo)[n:]
    assert (row["annotator"], row["verdict"], row["comment"]) == ("ann", "B", "as-ann")
    path = ann.predict("TRL JSONL", "ground_truth", "drop", api_name="/export_pairs")
    assert path  # logged-in users export

    other = compared(url)  # another session of the same server: still anonymous
    refusal(other.predict("ann", [], "", "", api_name="/label_A"))

    ann.predict(api_name="/logout")
    ann.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")  # a new round: one vote per comparison
    refusal(ann.predict("ann", [], "", "", api_name="/label_A"))
    assert len(labels(demo)) == n + 1


def _fn_index(demo, api_name: str) -> int:
    return next(f._id for f in demo.fns.values() if f.api_name == api_name)


def _run(url: str, demo, api_name: str, data: list, session_hash: str) -> httpx.Response:
    """What the browser sends for an event that skips the queue."""
    body = {"data": data, "fn_index": _fn_index(demo, api_name), "session_hash": session_hash, "event_data": None}
    return httpx.post(url.rstrip("/") + f"/gradio_api/run/{api_name}", json=body, timeout=30)


def _queued(url: str, demo, api_name: str, data: list, session_hash: str) -> dict:
    """What gradio_client sends: join the queue, then read the session's event stream to the end."""
    base = url.rstrip("/") + "/gradio_api"
    body = {"data": data, "fn_index": _fn_index(demo, api_name), "session_hash": session_hash, "event_data": None}
    event_id = httpx.post(f"{base}/queue/join", json=body, timeout=30).raise_for_status().json()["event_id"]
    with httpx.stream("GET", f"{base}/queue/data", params={"session_hash": session_hash}, timeout=30) as response:
        for line in response.iter_lines():
            if line.startswith("data:"):
                msg = json.loads(line[5:])
                if msg.get("event_id") == event_id and msg.get("msg") == "process_completed":
                    return msg
    raise AssertionError("the event never completed")


def test_a_forged_session_login_in_the_request_is_ignored(app):
    """The label event's last input is the session-login State; a client fills that slot itself."""
    demo, url = app
    victim = compared(url)
    victim.predict("ann", "pw-ann", api_name="/login")
    attacker = compared(url)
    n = len(labels(demo))
    forged_values = ["ann", {"name": "ann"}, {"name": "ann", "__type__": "SessionLogin"}, ["ann"]]
    for forged in forged_values:
        data = label_data(demo, "label_A", "ann", "forged", session_value=forged)
        response = _run(url, demo, "label_A", data, attacker.session_hash)  # refused, said why, never a 5xx
        assert response.status_code == 200 and refusal(response.json()["data"]), response.text
        msg = _queued(url, demo, "label_A", data, attacker.session_hash)
        assert msg["success"] and refusal(msg["output"]["data"]), msg
    assert len(labels(demo)) == n
    # The same requests from the logged-in session go through: the refusals above were the login's.
    assert _run(url, demo, "label_A", label_data(demo, "label_A", "mallory", "control"), victim.session_hash).status_code == 200
    victim.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")  # one vote per comparison: a new round
    assert _queued(url, demo, "label_B", label_data(demo, "label_B", "mallory", "control"), victim.session_hash)["success"]
    assert [(r["annotator"], r["verdict"]) for r in labels(demo)[n:]] == [("ann", "A"), ("ann", "B")]


def test_login_attempts_are_rate_limited_through_the_api(tmp_path):
    from gradio_client.exceptions import AppError

    from petool.ui import build_demo

    config = AppConfig(db_path=str(tmp_path / "r.db"), data_path=None, auth=USERS)
    demo = build_demo(config, predictor_factory=FakePredictor)
    url = launch_for_test(demo, config)
    try:
        client = new_client(url)
        for _ in range(4):
            with pytest.raises(AppError, match="Wrong user name or password"):
                client.predict("bob", "guess", api_name="/login")
        with pytest.raises(AppError, match="paused for 60 s"):
            new_client(url).predict("bob", "guess", api_name="/login")  # per name, not per session
        with pytest.raises(AppError, match="try again in"):
            client.predict("bob", "pw-bøb", api_name="/login")
        assert client.predict("ann", "pw-ann", api_name="/login")[0] == "ann"
    finally:
        demo.close()


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium (apt-get install -y chromium)")
def test_the_login_box_in_the_browser(app):
    """A visitor compares, is told to log in to label, logs in, labels as the login name, logs out."""
    from playwright.sync_api import expect, sync_playwright

    demo, url = app
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(30_000)
            page.goto(url, wait_until="load")
            page.locator("#b-load").wait_for(timeout=60_000)
            page.click("#b-load")
            page.get_by_text("Loaded entry").wait_for()
            page.get_by_role("tab", name="Compare & label").click()
            page.click("#c-run")
            page.locator("#c-side-b").get_by_text("fake-base+fake-adapter").wait_for()
            n = len(labels(demo))
            page.click("#verdict-A")  # refused: the reason is printed next to the buttons
            expect(page.locator("#c-label-msg")).to_contain_text("Not saved: Log in (the box at the top of the page) to label")

            page.locator("#login-name input, #login-name textarea").first.fill("ann")
            page.locator("#login-password input").fill("not-it")
            page.click("#login-btn")
            expect(page.locator("#login-msg")).to_contain_text(re.compile(r"Wrong user name or password \(\d tries left"))
            page.locator("#login-password input").fill("pw-ann")
            page.click("#login-btn")
            expect(page.locator("#login-msg")).to_contain_text("Logged in as ann")
            expect(page.locator("#annotator input, #annotator textarea").first).to_have_value("ann")
            expect(page.locator("#login-password")).to_be_hidden()
            page.click("#verdict-B")
            page.locator("#c-summary").get_by_text("Saved label").wait_for()
            assert [(r["annotator"], r["verdict"]) for r in labels(demo)[n:]] == [("ann", "B")]

            page.click("#logout-btn")
            expect(page.locator("#login-msg")).to_contain_text("Logged out")
            expect(page.locator("#annotator input, #annotator textarea").first).to_have_value("")
            expect(page.locator("#login-password input")).to_have_value("")
        finally:
            browser.close()
