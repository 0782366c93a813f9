"""What the browser tests share: where Chromium is, how a page on the app is opened and waited
for, and the few steps many tests take (log in, load an entry, run a comparison).

The ``browser`` fixture itself is in tests/conftest.py; the app these pages open is started by
``tests.app_fakes.running_app``. Playwright is imported inside the functions, as in the tests,
so that collecting them needs no browser.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's chromium, which Playwright drives (it downloads no browser of its own here)."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium (apt-get install -y chromium)"
)
BROWSER_MARKS = [pytest.mark.browser, needs_chromium]
"""``pytestmark`` of a module whose tests all drive the browser."""

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
"""Where screenshots go (not committed)."""

STEP_TIMEOUT_MS = 30_000
"""How long one click or wait may take on a busy machine."""
APP_LOAD_TIMEOUT_MS = 60_000
"""How long the first render of the app may take (gradio builds the page in the browser)."""

# "Error" badges gradio puts over an event's outputs when its handler raises (not the toasts).
ERROR_BADGES_JS = """() => [...document.querySelectorAll('.block .error')]
    .filter(e => e.offsetParent !== null)
    .map(e => (e.closest('[id]') || {}).id || '?')"""


def open_page(browser, url: str, width: int = 1400, height: int = 1000, ready: str = "#b-load", **context_options):
    """A fresh page (a new session) on the app, once ``ready`` is on screen.

    Every 5xx answer is recorded in ``page.server_errors`` and every dialog's message in
    ``page.dialogs`` (and dismissed, as Playwright does without a listener), from before the
    first request on. ``context_options`` go to ``browser.new_page`` (e.g. ``accept_downloads``).
    """
    page = browser.new_page(viewport={"width": width, "height": height}, **context_options)
    page.set_default_timeout(STEP_TIMEOUT_MS)
    page.server_errors = []
    page.dialogs = []
    page.on("response", lambda r: page.server_errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.goto(url, wait_until="load")
    wait_until_ready(page, ready)
    return page


def wait_until_ready(page, ready: str = "#b-load") -> None:
    """Wait for the app to have rendered ``ready`` (after a goto or a reload)."""
    page.locator(ready).wait_for(timeout=APP_LOAD_TIMEOUT_MS)


def screenshot(page, name: str) -> None:
    """The whole page as test-artifacts/``name``.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def log_in(page, name: str, password: str) -> None:
    """Type a user name and password into the in-app login box and press "Log in" (the caller
    checks what the box answered)."""
    page.locator("#login-name input, #login-name textarea").first.fill(name)
    page.locator("#login-password input").fill(password)
    page.click("#login-btn")


def load(page, key: str) -> None:
    """Load a generated entry in Build by its key."""
    box = page.locator("#b-entry input")
    box.click()
    box.fill(key)
    page.get_by_role("option", name=re.compile(rf"^{re.escape(key)} — ")).first.click()
    page.click("#b-load")
    page.locator("#b-summary").get_by_text(f"Entry {key}").wait_for()


def run_comparison(page) -> None:
    """Open Compare & label, run both sides and wait until the verdicts are live."""
    from playwright.sync_api import expect

    page.get_by_role("tab", name="Compare & label").click()
    page.click("#c-run")
    page.locator("#c-side-b").get_by_text("fake-base+fake-adapter").wait_for()
    expect(page.locator("#verdict-A")).to_be_enabled()  # the verdicts are live again once the run is over
