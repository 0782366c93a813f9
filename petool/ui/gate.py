"""ASGI middleware around gradio's app: who the client is, and (PETOOL_AUTH_PRIVATE) nothing
served to a visitor who has not logged in but the login page itself.

Gradio guards ``/config`` and the API routes with its login, but its page route still embeds
the whole API description (endpoint names, dropdown choices: the tool catalog, entry keys,
stored run ids) in the login page, and several routes (uploads, heartbeats, the run-history
page) check no login at all. ``PrivateGate`` therefore allows an anonymous request only on an
explicit list of paths, and strips the API description from the login page it lets through.
"""

from __future__ import annotations

import json
import re
from http.cookies import CookieError, SimpleCookie
from typing import Any

from petool.ui.common import current_client

ANONYMOUS_PATHS = frozenset(
    {
        "/",
        "/login",
        "/login/",
        "/logout",
        "/favicon.ico",
        "/theme.css",
        "/robots.txt",
        "/manifest.json",
        "/gradio_api/theme.css",
        "/gradio_api/login_check",
        "/gradio_api/startup-events",  # launch() calls it before anyone logs in
        "/gradio_api/login_check/",
    }
)
"""What gradio's login page loads besides its static files (the JavaScript and styles)."""
ANONYMOUS_PREFIXES = ("/assets/", "/static/", "/svelte/", "/pwa_icon")

_API_INFO = re.compile(rb"window\.gradio_api_info = .*?;</script>", re.DOTALL)
"""The API description in gradio's page (its JSON escapes ``<``, so the first ``;</script>`` ends it)."""


class ClientAddress:
    """Sets ``common.current_client`` to the request's address while gradio serves it: gradio
    calls a login check (``launch(auth=callable)``) with the user name and password only."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        client = scope.get("client")
        token = current_client.set(client[0] if client else None)
        try:
            await self.app(scope, receive, send)
        finally:
            current_client.reset(token)


class PrivateGate:
    """Refuses every request of a visitor without gradio's login cookie, except the login page
    (``ANONYMOUS_PATHS``, ``ANONYMOUS_PREFIXES``), whose embedded API description is removed."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket") or _logged_in(scope):
            return await self.app(scope, receive, send)
        path = _app_path(scope)
        if scope["type"] == "websocket":
            return await send({"type": "websocket.close", "code": 1008})
        if path == "/" and scope["method"] == "GET":
            return await self.app(scope, receive, _without_api_info(send))
        if path in ANONYMOUS_PATHS or path.startswith(ANONYMOUS_PREFIXES):
            return await self.app(scope, receive, send)
        body = json.dumps({"detail": "Not authenticated: log in first."}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _app_path(scope) -> str:
    path, root = scope.get("path") or "/", scope.get("root_path") or ""
    if root and path.startswith(root):
        path = path[len(root) :] or "/"
    return path


def _logged_in(scope) -> bool:
    """Whether the request carries a login cookie gradio issued (``App.tokens``)."""
    app: Any = scope.get("app")
    tokens, cookie_id = getattr(app, "tokens", None), getattr(app, "cookie_id", None)
    if not tokens or not cookie_id:
        return False
    cookie = SimpleCookie()
    for name, value in scope.get("headers") or ():
        if name == b"cookie":
            try:
                cookie.load(value.decode("latin-1"))
            except CookieError:  # a malformed cookie header is simply no login
                return False
    for name in (f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"):
        morsel = cookie.get(name)
        if morsel is not None and morsel.value in tokens:
            return True
    return False


def _without_api_info(send):
    """A ``send`` that buffers an HTML page and blanks its embedded API description."""
    start: dict | None = None
    chunks: list[bytes] = []

    async def wrapped(message):
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            return
        if message["type"] != "http.response.body" or start is None:
            return await send(message)
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return
        body = _API_INFO.sub(b"window.gradio_api_info = {};</script>", b"".join(chunks))
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return wrapped
