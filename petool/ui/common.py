"""Small gradio glue shared by the tabs: error toasts, input limits, and who is acting.

Access control (PETOOL_AUTH or Hugging Face OAuth on a Space) is enforced here, on the server,
in every handler that writes: hiding a button is not enough, since any visitor can call the
API. Without access control the annotator is the name typed at the top of the page.

Who is logged in comes from, in order: gradio's own login page (PETOOL_AUTH_PRIVATE), the
Hugging Face profile (OAuth on a Space), then the in-app "Log in" box (PETOOL_AUTH). The in-app
login lives in a per-session ``gr.State``: gradio keeps State values on the server and takes a
State input from its per-session store, never from the request, so an API caller cannot send
one; and only a ``SessionLogin`` object counts, which no JSON payload can be.
"""

from __future__ import annotations

import functools
import hmac
import html
import inspect
import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from petool.store import check_annotator
from petool.ui.render import md_text

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 2_000
"""Longest query, instruction or user name a visitor may type."""
MAX_JSON_CHARS = 20_000
"""Longest parameter object or gold call text."""
MAX_TURNS = 100
"""Most history turns per setting: the prompt (and the model's time) grows with each."""
MAX_CANDIDATES = 50


def guard(fn: Callable) -> Callable:
    """Run a plain handler; its ValueError becomes a gradio error toast (outputs stay as they were).

    Only for refusals that have no message slot yet: an error answers a 5xx to a ``queue=False``
    event and puts an "Error" badge over every output; prefer ``refusable``."""
    import gradio as gr

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            raise gr.Error(toast_text(exc), print_exception=False) from None

    return run


def refusable(fn: Callable, n_outputs: int, message_at: int) -> Callable:
    """Run a handler; a ValueError (an expected refusal: bad input, not signed in) leaves every
    output as it was except the message at ``message_at``, which says why.

    A refusal is an answer, not an error: raising ``gr.Error`` instead would answer HTTP 500 to
    an event that skips the queue and cover each output with an "Error" badge until closed.
    """

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            return refused(n_outputs, message_at, exc)

    return run


def refused(n_outputs: int, message_at: int, reason: Any) -> tuple:
    """Outputs of a refused event: all unchanged but the message, a warning saying ``reason``."""
    import gradio as gr

    out: list[Any] = [gr.update() for _ in range(n_outputs)]
    out[message_at] = warning(reason)
    return tuple(out)


def warning(reason: Any) -> str:
    """Markdown of a refusal's reason (escaped: reasons quote user input)."""
    return f"⚠️ {md_text(str(reason))}"


def toast_text(exc: Exception) -> str:
    """An error message for gradio's toast, which renders HTML: escape it, since messages quote
    user input (a tool name, an annotator) and a quoted ``<img onerror=...>`` must stay text."""
    return html.escape(str(exc), quote=False)


def check_text(value: Any, what: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``value`` as a string of at most ``limit`` characters, else ValueError naming ``what``."""
    value = "" if value is None else value
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text, got {type(value).__name__}")
    if len(value) > limit:
        raise ValueError(f"{what} is too long: {len(value):,} characters, the limit is {limit:,}")
    return value


@dataclass(frozen=True)
class SessionLogin:
    """A successful in-app login, kept in the page session's ``gr.State`` (on the server)."""

    name: str


MAX_FAILED_LOGINS = 5
"""Wrong passwords in a row for one user name before its logins pause."""
LOGIN_PAUSE_S = 60.0
"""How long logins for that user name pause."""
_MAX_TRACKED_NAMES = 10_000
"""Failure counters kept at most (names tried by a guesser are not kept forever)."""


class PasswordLogins:
    """Checks in-app logins against PETOOL_AUTH's pairs, pausing a user name after repeated failures.

    Passwords are compared with ``hmac.compare_digest`` (constant time) and never appear in a
    message. After ``max_failures`` wrong tries for one name, every login as that name (even
    with the right password) is refused for ``pause_s`` seconds, which caps guessing at a few
    tries a minute per name.

    Example:
        >>> logins = PasswordLogins([("ann", "pw")])
        >>> logins.check("ann", "pw")
        'ann'
    """

    def __init__(self, pairs: list[tuple[str, str]], max_failures: int = MAX_FAILED_LOGINS,
                 pause_s: float = LOGIN_PAUSE_S, clock: Callable[[], float] = time.monotonic):
        self._passwords = {user: password.encode("utf-8") for user, password in pairs}
        self.max_failures, self.pause_s, self._clock = max_failures, pause_s, clock
        self._failures: dict[str, tuple[int, float]] = {}  # name -> (wrong tries in a row, paused until)
        self._lock = threading.Lock()

    def check(self, name: Any, password: Any) -> str:
        """The user name when ``password`` is right; ValueError saying what to do otherwise."""
        name = check_text(name, "the user name", 100).strip()
        password = check_text(password, "the password", 1_000)
        if not name or not password:
            raise ValueError("Type your user name and password.")
        with self._lock:
            now = self._clock()
            count, until = self._failures.get(name, (0, 0.0))
            if until > now:
                raise ValueError(f"Too many failed logins as {name!r}: logins as this user are paused; "
                                 f"try again in {math.ceil(until - now)} s.")
            stored = self._passwords.get(name)
            # Compare even for unknown names, so the answer takes as long either way.
            ok = hmac.compare_digest(password.encode("utf-8"), stored if stored is not None else b"\0" * 32) and stored is not None
            if ok:
                self._failures.pop(name, None)
                return name
            count += 1
            if len(self._failures) >= _MAX_TRACKED_NAMES:
                self._failures = {k: v for k, v in self._failures.items() if v[1] > now}
            if count >= self.max_failures:
                self._failures[name] = (0, now + self.pause_s)
                raise ValueError(f"Wrong user name or password. After {self.max_failures} failed tries, "
                                 f"logins as {name!r} are paused for {self.pause_s:.0f} s.")
            self._failures[name] = (count, 0.0)
        left = self.max_failures - count
        raise ValueError(f"Wrong user name or password ({left} {'try' if left == 1 else 'tries'} left "
                         f"before logins as {name!r} pause for {self.pause_s:.0f} s).")


def logged_in(request: Any = None, profile: Any = None, session: Any = None) -> str | None:
    """The logged-in user's name: gradio's login page, else the Hugging Face profile, else the
    in-app login of this session (only a ``SessionLogin``: nothing a client can send is one)."""
    user = getattr(request, "username", None) if request is not None else None
    if not user and profile is not None:
        user = getattr(profile, "username", None) or (profile.get("preferred_username") if isinstance(profile, dict) else None)
    if not user and isinstance(session, SessionLogin):
        user = session.name
    return user or None


def require_user(config, user: str | None, action: str) -> None:
    """With access control on, only a logged-in user may ``action`` (ValueError otherwise)."""
    if config.access_control and not user:
        if config.oauth:
            how = "Sign in with Hugging Face (top of the page)"
        elif config.password_login:
            how = "Log in (the box at the top of the page)"
        else:
            how = "Log in"
        raise ValueError(f"{how} to {action}: visitors can look around, but only signed-in users {action}.")


def acting_user(config, typed: str | None, user: str | None, action: str = "label") -> str:
    """The annotator of a write: the login name when access control is on (a typed name is
    ignored, so nobody labels as someone else), else the typed name."""
    if config.access_control:
        require_user(config, user, action)
        return check_annotator(user)
    if not (typed or "").strip():
        raise ValueError("Type your annotator name (top of the page) first.")
    return check_annotator(typed)


def with_user(fn: Callable, n_inputs: int, refusal: tuple[int, int] | None = None) -> Callable:
    """A gradio handler for ``fn(user, *inputs)``: ``user`` is the logged-in name (None for
    anonymous visitors). Wire it with ``n_inputs`` components followed by the session-login
    ``gr.State`` (``inputs=[*components, session]``); gradio injects the request and the OAuth
    profile after them.

    ``refusal`` = (number of outputs, index of the message output): a ValueError then answers
    normally, with the reason in that message (``refused``); without it, an error toast.

    The signature is built explicitly because gradio finds injected arguments by their type
    hints, which string annotations (``from __future__ import annotations``) would hide.
    """
    import gradio as gr

    def run(*args):
        *inputs, session, request, profile = args
        try:
            return fn(logged_in(request, profile, session), *inputs)
        except ValueError as exc:
            if refusal is not None:
                return refused(*refusal, exc)
            raise gr.Error(toast_text(exc), print_exception=False) from None

    params = [inspect.Parameter(f"input_{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD) for i in range(n_inputs)]
    params += [
        inspect.Parameter("session", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=gr.Request),
        inspect.Parameter("profile", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Optional[gr.OAuthProfile]),
    ]
    run.__signature__ = inspect.Signature(params)
    run.__annotations__ = {"request": gr.Request, "profile": Optional[gr.OAuthProfile]}
    run.__name__ = getattr(fn, "__name__", "handler")
    run.petool_with_user = True  # tests check that every such event gets the session State last
    return run
