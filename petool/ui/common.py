"""Small gradio glue shared by the tabs: error toasts, input limits, and who is acting.

Access control (PETOOL_AUTH or Hugging Face OAuth on a Space) is enforced here, on the server,
in every handler that writes: hiding a button is not enough, since any visitor can call the
API. Without access control the annotator is the name typed at the top of the page.
"""

from __future__ import annotations

import functools
import html
import inspect
import logging
from typing import Any, Callable, Optional

from petool.store import check_annotator

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 2_000
"""Longest query, instruction or user name a visitor may type."""
MAX_JSON_CHARS = 20_000
"""Longest parameter object or gold call text."""
MAX_TURNS = 100
"""Most history turns per setting: the prompt (and the model's time) grows with each."""
MAX_CANDIDATES = 50


def guard(fn: Callable) -> Callable:
    """Run a plain handler; its ValueError becomes a gradio error toast (outputs stay as they were)."""
    import gradio as gr

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            raise gr.Error(toast_text(exc), print_exception=False) from None

    return run


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


def logged_in(request: Any = None, profile: Any = None) -> str | None:
    """The logged-in user's name: gradio's password login, else the Hugging Face profile."""
    user = getattr(request, "username", None) if request is not None else None
    if not user and profile is not None:
        user = getattr(profile, "username", None) or (profile.get("preferred_username") if isinstance(profile, dict) else None)
    return user or None


def require_user(config, user: str | None, action: str) -> None:
    """With access control on, only a logged-in user may ``action`` (ValueError otherwise)."""
    if config.access_control and not user:
        how = "Sign in with Hugging Face (top of the page)" if config.oauth else "Log in"
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


def with_user(fn: Callable, n_inputs: int) -> Callable:
    """A gradio handler for ``fn(user, *inputs)``: gradio injects the request and the OAuth
    profile, and ``user`` is the logged-in name (None for anonymous visitors).

    The signature is built explicitly because gradio finds injected arguments by their type
    hints, which string annotations (``from __future__ import annotations``) would hide.
    """
    import gradio as gr

    def run(*args):
        *inputs, request, profile = args
        try:
            return fn(logged_in(request, profile), *inputs)
        except ValueError as exc:
            raise gr.Error(toast_text(exc), print_exception=False) from None

    params = [inspect.Parameter(f"input_{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD) for i in range(n_inputs)]
    params += [
        inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=gr.Request),
        inspect.Parameter("profile", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Optional[gr.OAuthProfile]),
    ]
    run.__signature__ = inspect.Signature(params)
    run.__annotations__ = {"request": gr.Request, "profile": Optional[gr.OAuthProfile]}
    run.__name__ = getattr(fn, "__name__", "handler")
    return run
