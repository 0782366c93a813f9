"""Guards on gradio's upload route: who may upload, and how much uploads may keep on disk.

A browser sends a file to ``POST /gradio_api/upload`` as soon as it is chosen, before any event
runs, so the import handler's login check comes too late to keep the disk safe: anyone could
post files there and gradio would keep them. ``UploadGate`` (an ASGI middleware, installed by
``launch_kwargs``) answers that route first:

- with access control on, only a signed-in browser may upload: gradio's own login page guards
  the route itself (PETOOL_AUTH_PRIVATE), Hugging Face sign-in leaves its profile in the session
  cookie, and the in-app login box is tied to the browser by ``UploadLogins`` (below);
- the files uploads keep on disk together stay under PETOOL_MAX_UPLOADS_TOTAL_MB: past it an
  upload is refused with 413 and the reason, until imports delete theirs (``discard_uploads``)
  or gradio's cache sweep (``CACHE_MAX_AGE_S``) removes old ones.

The in-app login lives in the page session's server-side State, which the upload request does
not name. So the gate gives every browser an HttpOnly cookie holding a random client key, and a
listener after the login box's events (``watch_logins``) records which key belongs to which logged-in
user; "Log out" forgets it. The key is never readable by the page's scripts.
"""

import secrets
import threading
from collections import OrderedDict
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any

from petool.appconfig import AppConfig
from petool.ui.common import logged_in

UPLOAD_ROUTE = "/gradio_api/upload"
CLIENT_COOKIE = "petool-client"
"""HttpOnly cookie naming the browser, so an in-app login can open the upload route to it."""
CACHE_SWEEP_S = 600
"""How often gradio deletes old files of this app from its cache (uploads and exports)."""
CACHE_MAX_AGE_S = 3600
"""Age past which gradio deletes an upload or an export copy: an hour to import or download it."""
_MAX_CLIENTS = 10_000
"""Logged-in browsers remembered at most (the oldest are forgotten first)."""


class UploadLogins:
    """Client key (the ``petool-client`` cookie) -> the user logged in from that browser."""

    def __init__(self, max_clients: int = _MAX_CLIENTS):
        self._users: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self.max_clients = max_clients

    def bind(self, client_key: str | None, user: str | None) -> None:
        """Record ``user`` for this browser; ``None`` (logged out) forgets it."""
        if not client_key:
            return
        with self._lock:
            self._users.pop(client_key, None)
            if user:
                self._users[client_key] = user
                while len(self._users) > self.max_clients:
                    self._users.popitem(last=False)

    def user(self, client_key: str | None) -> str | None:
        with self._lock:
            return self._users.get(client_key) if client_key else None


class UploadGuard:
    """What the gate needs from the app: its config and the in-app logins; kept on the Blocks."""

    def __init__(self, config: AppConfig):
        self.config = config
        self.logins = UploadLogins()
        self._reserved = 0  # bytes of uploads in flight, counted before gradio has written them
        self._lock = threading.Lock()

    def refusal(self, cookie_key: str | None, oauth_user: str | None, kept: int, incoming: int) -> tuple[int, str] | None:
        """(HTTP status, reason) when this upload must be refused, else None (and it is reserved)."""
        config = self.config
        if config.access_control and not config.auth_private and not (oauth_user or self.logins.user(cookie_key)):
            how = "Sign in with Hugging Face" if config.oauth else "Log in (the box at the top of the page)"
            return 403, f"{how} to upload files: visitors can look around, but only signed-in users import runs."
        limit = config.max_uploads_total_mb * 2**20
        with self._lock:
            if kept + self._reserved + incoming > limit:
                return 413, (
                    f"Uploads are full: files waiting to be imported hold {(kept + self._reserved) / 2**20:.1f} MB "
                    f"of the {config.max_uploads_total_mb} MB allowed (PETOOL_MAX_UPLOADS_TOTAL_MB). "
                    "Import or wait for earlier uploads (they are deleted after an hour), then try again."
                )
            self._reserved += incoming
        return None

    def release(self, incoming: int) -> None:
        with self._lock:
            self._reserved -= incoming


def kept_bytes(uploaded: set) -> int:
    """Bytes the still-existing files of gradio's upload set hold; forgets the deleted ones."""
    total, gone = 0, []
    for name in list(uploaded):
        try:
            total += Path(name).stat().st_size
        except OSError:
            gone.append(name)
    uploaded.difference_update(gone)
    return total


class UploadGate:
    """ASGI middleware: sets the client cookie, and refuses uploads ``UploadGuard`` says no to."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        blocks = _blocks(scope)
        guard: UploadGuard | None = getattr(blocks, "petool_uploads", None)
        if guard is None:
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        cookies = SimpleCookie()
        try:
            cookies.load(headers.get("cookie", ""))
        except CookieError:  # a malformed cookie header is the visitor's problem: treat it as none
            cookies = SimpleCookie()
        key = cookies[CLIENT_COOKIE].value if CLIENT_COOKIE in cookies else None
        send = _with_client_cookie(send) if key is None and guard.config.password_login else send
        path = scope.get("path", "").rstrip("/")
        if scope.get("method") != "POST" or not path.endswith(UPLOAD_ROUTE):
            return await self.app(scope, receive, send)
        try:
            incoming = max(0, int(headers.get("content-length") or 0))
        except ValueError:
            incoming = 0
        oauth = (scope.get("session") or {}).get("oauth_info") if "session" in scope else None
        oauth_user = ((oauth or {}).get("userinfo") or {}).get("preferred_username") if isinstance(oauth, dict) else None
        refused = guard.refusal(key, oauth_user, kept_bytes(blocks.upload_file_set), incoming)
        if refused is not None:
            status, reason = refused
            return await _plain(send, status, reason)
        try:
            return await self.app(scope, receive, send)
        finally:
            guard.release(incoming)


def _blocks(scope) -> Any:
    app = scope.get("app")
    try:
        return app.get_blocks() if app is not None else None
    except ValueError:  # gradio answers before its Blocks is attached: nothing to guard yet
        return None


def _with_client_cookie(send):
    """``send`` that adds a fresh client key cookie to the response's headers."""
    cookie = (f"{CLIENT_COOKIE}={secrets.token_urlsafe(32)}; Path=/; HttpOnly; SameSite=Lax").encode("latin-1")

    async def sending(message):
        if message["type"] == "http.response.start":
            message = dict(message, headers=[*message.get("headers", []), (b"set-cookie", cookie)])
        await send(message)

    return sending


async def _plain(send, status: int, text: str) -> None:
    body = text.encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def client_key(request: Any) -> str | None:
    """The browser's client key from a gradio request's cookies (None for clients without one)."""
    cookies = getattr(request, "cookies", None) or {}
    return cookies.get(CLIENT_COOKIE)


def watch_logins(guard: UploadGuard, session, login_events: list) -> None:
    """Keep ``guard.logins`` in step with the session-login State after each of ``login_events``
    (the login box's login and logout): a login opens the upload route to this browser, a logout
    closes it. (A State's own change event does not fire after events that skip the queue.)"""
    import gradio as gr

    def on_session(value, request: gr.Request):
        guard.logins.bind(client_key(request), logged_in(None, None, value))

    for event in login_events:
        event.then(on_session, [session], None, api_visibility="private", queue=False, show_progress="hidden")


def discard_uploads(files: list | None, upload_dir: str | Path) -> int:
    """Delete uploaded files (and their now empty folders) once imported or refused; only
    files inside ``upload_dir`` (gradio's upload folder) are touched. Returns how many."""
    root = Path(upload_dir).resolve()
    removed = 0
    for f in files or []:
        path = Path(f if isinstance(f, str) else getattr(f, "name", f)).resolve()
        if not path.is_relative_to(root) or path == root or not path.is_file():
            continue
        path.unlink(missing_ok=True)
        removed += 1
        try:
            if path.parent != root:
                path.parent.rmdir()  # gradio gives each upload a folder of its own
        except OSError:  # not empty: another file still lives there
            pass
    return removed
