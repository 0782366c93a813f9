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

import contextvars
import functools
import hmac
import html
import inspect
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from petool.label_rules import check_annotator
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


def refused(n_outputs: int, message_at: int, reason: Any) -> Any:
    """Outputs of a refused event: all unchanged but the message, a warning saying ``reason``."""
    import gradio as gr

    out: list[Any] = [gr.update() for _ in range(n_outputs)]
    out[message_at] = warning(reason)
    return tuple(out) if n_outputs > 1 else out[0]  # gradio takes a lone output's value bare


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


@dataclass(frozen=True)
class LoginLimits:
    """How fast wrong passwords may be tried, per client (its network address) and per
    (client, user name). Nothing is counted per user name alone: a lock on a name would let
    anyone who knows it keep its owner out by failing on purpose."""

    free_tries: int = 5
    """Wrong passwords in a row for one (client, name) before that pair must wait."""
    first_wait_s: float = 30.0
    """The first wait; each further wrong try for the pair doubles it."""
    max_wait_s: float = 900.0
    """The longest wait for one pair."""
    client_budget: int = 20
    """Wrong passwords one client may try in ``client_window_s``, over all names (caps spraying
    one password over many names)."""
    client_window_s: float = 600.0
    forget_s: float = 3600.0
    """A pair's count is forgotten this long after its last wrong try."""

    def __post_init__(self):
        if self.free_tries < 1 or self.client_budget < 1:
            raise ValueError("free_tries and client_budget must be at least 1")
        if not 0 < self.first_wait_s <= self.max_wait_s:
            raise ValueError("first_wait_s must be positive and at most max_wait_s")
        if self.client_window_s <= 0 or self.forget_s < self.max_wait_s:
            raise ValueError("client_window_s must be positive and forget_s at least max_wait_s")


class LoginPaused(ValueError):
    """A login refused without looking at the password: this client tried too many wrong ones."""


_MAX_TRACKED = 10_000
"""Clients and (client, name) pairs tracked at most: a guesser's names are not kept forever."""


class LoginThrottle:
    """Counts wrong passwords per (client, name) with doubling waits, and per client in a
    sliding window. Only a client's own failures ever delay it, so no client can hold another
    one's logins (unless they share an address, such as behind one proxy)."""

    def __init__(self, limits: LoginLimits = LoginLimits(), clock: Callable[[], float] = time.monotonic):
        self.limits, self._clock = limits, clock
        self._pairs: dict[tuple[str, str], tuple[int, float, float]] = {}  # -> (wrong in a row, wait until, last wrong)
        self._clients: dict[str, deque[float]] = {}  # -> times of its recent wrong tries
        self._lock = threading.Lock()

    def refusal(self, client: str, name: str) -> str | None:
        """Why ``client`` may not try ``name`` now (None when it may)."""
        with self._lock:
            now = self._clock()
            recent = self._recent(client, now) if client in self._clients else ()
            if len(recent) >= self.limits.client_budget:
                wait = recent[0] + self.limits.client_window_s - now
                return f"Too many failed logins from your address: try again in {math.ceil(wait)} s."
            _, until, _ = self._pairs.get((client, name), (0, 0.0, 0.0))
            if until > now:
                return f"Too many failed logins as {name!r} from your address: try again in {math.ceil(until - now)} s."
            return None

    def failed(self, client: str, name: str) -> tuple[int, float]:
        """Count a wrong password: (wrong tries left before a wait, the wait in seconds now)."""
        limits = self.limits
        with self._lock:
            now = self._clock()
            if len(self._pairs) >= _MAX_TRACKED or len(self._clients) >= _MAX_TRACKED:
                self._prune(now)
            count, _, last = self._pairs.get((client, name), (0, 0.0, 0.0))
            count = 1 if now - last > limits.forget_s else count + 1
            wait = 0.0
            if count >= limits.free_tries:
                wait = min(limits.first_wait_s * 2 ** (count - limits.free_tries), limits.max_wait_s)
            self._pairs[(client, name)] = (count, now + wait, now)
            self._recent(client, now).append(now)
        return max(0, limits.free_tries - count), wait

    def succeeded(self, client: str, name: str) -> None:
        """A right password clears the pair's count (not the client's window: a sprayer who
        knows one password must not earn fresh tries with it)."""
        with self._lock:
            self._pairs.pop((client, name), None)

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._clients.setdefault(client, deque())
        while times and times[0] <= now - self.limits.client_window_s:
            times.popleft()
        return times

    def _prune(self, now: float) -> None:
        self._pairs = {k: v for k, v in self._pairs.items() if now - v[2] <= self.limits.forget_s}
        self._clients = {c: t for c, t in self._clients.items() if t and t[-1] > now - self.limits.client_window_s}
        # A flood of fresh clients keeps its newest entries only: the bound holds either way.
        for table in (self._pairs, self._clients):
            for key in list(table)[: max(0, len(table) - _MAX_TRACKED // 2)]:
                del table[key]


class PasswordLogins:
    """Checks logins against PETOOL_AUTH's pairs, for both the in-app box and gradio's login page
    (PETOOL_AUTH_PRIVATE), with the same ``LoginThrottle``.

    Passwords are compared with ``hmac.compare_digest`` (constant time) and never appear in a
    message; a client over its limits is refused before its password is looked at.

    Example:
        >>> logins = PasswordLogins([("ann", "pw")])
        >>> logins.check("ann", "pw", client="10.0.0.1")
        'ann'
    """

    def __init__(self, pairs: list[tuple[str, str]], limits: LoginLimits = LoginLimits(), clock: Callable[[], float] = time.monotonic):
        self._passwords = {user: password.encode("utf-8") for user, password in pairs}
        self.throttle = LoginThrottle(limits, clock)

    def check(self, name: Any, password: Any, client: str | None = None) -> str:
        """The user name when ``password`` is right; ValueError saying what to do otherwise
        (``LoginPaused`` when ``client`` must wait)."""
        name = check_text(name, "the user name", 100).strip()
        password = check_text(password, "the password", 1_000)
        client = client or "unknown"
        if not name or not password:
            raise ValueError("Type your user name and password.")
        refusal = self.throttle.refusal(client, name)
        if refusal:
            raise LoginPaused(refusal)
        stored = self._passwords.get(name)
        # Compare even for unknown names, so the answer takes as long either way.
        ok = hmac.compare_digest(password.encode("utf-8"), stored if stored is not None else b"\0" * 32) and stored is not None
        if ok:
            self.throttle.succeeded(client, name)
            return name
        left, wait = self.throttle.failed(client, name)
        if wait:
            raise ValueError(f"Wrong user name or password. Logins as {name!r} from your address pause for {wait:.0f} s.")
        raise ValueError(f"Wrong user name or password ({left} {'try' if left == 1 else 'tries'} left before a pause).")

    def gradio_auth(self, username: str, password: str) -> bool:
        """For ``launch(auth=...)`` (gradio's login page): the client comes from
        ``current_client``, set per request by ``ClientAddress``; a paused client gets a 429."""
        from fastapi import HTTPException

        try:
            self.check(username, password, current_client.get())
        except LoginPaused as exc:
            raise HTTPException(status_code=429, detail=str(exc)) from None
        except ValueError:
            return False
        return True


current_client: contextvars.ContextVar[str | None] = contextvars.ContextVar("petool_client", default=None)
"""The network address of the request being served (set by ``ClientAddress``)."""


def client_address(request: Any) -> str:
    """The address a request came from, as the server saw it (a proxy's, unless the server
    is told to trust its forwarded headers)."""
    client = getattr(request, "client", None)
    return getattr(client, "host", None) or "unknown"


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
        inspect.Parameter("profile", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=gr.OAuthProfile | None),
    ]
    run.__signature__ = inspect.Signature(params)
    run.__annotations__ = {"request": gr.Request, "profile": gr.OAuthProfile | None}
    run.__name__ = getattr(fn, "__name__", "handler")
    run.petool_with_user = True  # tests check that every such event gets the session State last
    return run
