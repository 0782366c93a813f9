"""The web app's configuration: a validated dataclass read from environment variables.

``ENV_VARS`` is the one table of those variables: ``AppConfig.from_env`` reads them, the About tab
shows ``env_table()``, and docs/app.md carries the same table (tests/test_docs.py compares them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

SPACE_DATA = Path("/data")
DEV_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "petoolbench" / "early_test_dev.json.gz"

ENV_VARS: tuple[tuple[str, str, str], ...] = (
    (
        "PETOOL_DB",
        "`/data/petool.db` when `/data` is writable (Spaces persistent storage), else `./data/petool.db`",
        "SQLite file of users, entries, runs, labels, jobs; the page says when storage is lost on restart",
    ),
    ("PETOOL_MODEL", "`default`", "base model: `default` (bundled SmolLM2), a folder, a Hub id, or `baseline:<rule>`"),
    ("PETOOL_ADAPTER", "`default`", "adapter compared against the base: `default` (the shipped PEToolLLaMA), a folder, or `none`"),
    ("PETOOL_CACHE", "`~/.cache/petool`", "folder for the converted model (read by petool.models)"),
    (
        "PETOOL_MAX_UNZIPPED_MB",
        "512",
        "largest content a `.gz` file may decompress to, in MiB; beyond it the file is refused as a likely gzip bomb (read by petool.formats)",
    ),
    ("PETOOL_DATA", "`../shared/petoolbench/early_test_dev.json.gz` when present", "extra entries file or folder offered in the builder"),
    (
        "PETOOL_DEMO",
        "1 on a Space, else 0",
        "demo mode: training, server-folder imports and (except for admins) the database download are off",
    ),
    (
        "PETOOL_AUTH",
        "none",
        (
            '`user:pass,user2:pass2`: a "Log in" box at the top of the page; visitors read everything and run the models, '
            "only logged-in users label, save, export, import or train; the login name is the annotator"
        ),
    ),
    ("PETOOL_AUTH_PRIVATE", "0", "`1`: the whole app behind gradio's login page instead (nothing readable without a login)"),
    (
        "PETOOL_OAUTH",
        "1 when `OAUTH_CLIENT_ID` is set on a Space",
        (
            'on a Space whose README has `hf_oauth: true`: a "Sign in with Hugging Face" button; visitors read, '
            "only signed-in users label, save, export or import"
        ),
    ),
    ("PETOOL_ADMINS", "the Space owner (`SPACE_AUTHOR_NAME`)", "comma-separated user names allowed to download the database in demo mode"),
    ("PETOOL_QUEUE", "16", 'most requests waiting in the queue; beyond it visitors see "busy, try again" instead of a hung page'),
    ("PETOOL_MAX_NEW_TOKENS", "the model's default", "cap on tokens generated per model call"),
    (
        "PETOOL_MAX_CALL_S",
        "120",
        (
            "wall-clock limit per model call, in seconds: local generation stops there and what the model wrote by then is "
            "parsed and scored; for `openai:` models it is the request timeout"
        ),
    ),
    ("PETOOL_MAX_UPLOAD_MB", "20", "largest file a signed-in user may upload"),
    (
        "PETOOL_MAX_UPLOADS_TOTAL_MB",
        "200",
        "most that uploads not yet imported may hold on disk together; beyond it uploads are refused until some are imported or expire (an hour)",
    ),
    (
        "PETOOL_MAX_SESSIONS",
        "1000",
        "page sessions whose state the server keeps (the least recently used beyond it are dropped; a session also ends when its tab closes or after 4 h without an event)",
    ),
    ("GRADIO_SERVER_NAME", "`127.0.0.1` (`0.0.0.0` on a Space)", "address to listen on"),
    ("GRADIO_SERVER_PORT", "7860", "port to listen on"),
)
"""The app's environment variables as (name, default, meaning), in the order the docs list them."""


def env_table() -> str:
    """``ENV_VARS`` as a markdown table, the text that docs/app.md and the About tab carry."""
    rows = ["| variable | meaning | default |", "|---|---|---|"]
    rows += [f"| `{name}` | {meaning} | {default} |" for name, default, meaning in ENV_VARS]
    return "\n".join(rows)


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass
class AppConfig:
    """Everything the app needs to start; ``from_env`` fills it, ``__post_init__`` checks it."""

    db_path: str = "data/petool.db"
    model: str = "default"
    adapter: str | None = "default"
    demo: bool = False
    auth: list[tuple[str, str]] = field(default_factory=list)
    auth_private: bool = False
    data_path: str | None = None
    queue_size: int = 16
    oauth: bool = False
    admins: list[str] = field(default_factory=list)
    max_new_tokens: int | None = None
    max_call_s: int = 120
    max_upload_mb: int = 20
    max_sessions: int = 1000
    max_uploads_total_mb: int = 200
    server_name: str = "127.0.0.1"
    server_port: int = 7860
    on_space: bool = False
    ephemeral: bool = False

    def __post_init__(self):
        if not self.db_path:
            raise ValueError("PETOOL_DB must not be empty")
        if not self.model:
            raise ValueError("PETOOL_MODEL must not be empty")
        if not 1 <= self.queue_size <= 1000:
            raise ValueError(f"PETOOL_QUEUE must be between 1 and 1000, got {self.queue_size!r}")
        if not 0 < self.server_port < 65536:
            raise ValueError(f"GRADIO_SERVER_PORT must be a port number, got {self.server_port!r}")
        if self.max_new_tokens is not None and not 1 <= self.max_new_tokens <= 4096:
            raise ValueError(f"PETOOL_MAX_NEW_TOKENS must be between 1 and 4096, got {self.max_new_tokens!r}")
        if not 1 <= self.max_call_s <= 3600:
            raise ValueError(f"PETOOL_MAX_CALL_S must be between 1 and 3600 seconds, got {self.max_call_s!r}")
        if self.auth_private and not self.auth:
            # Fail closed: whoever asked for a private app must not get a public one.
            raise ValueError("PETOOL_AUTH_PRIVATE=1 needs PETOOL_AUTH (user:password,...) to log in with")
        if not 1 <= self.max_upload_mb <= 10_000:
            raise ValueError(f"PETOOL_MAX_UPLOAD_MB must be between 1 and 10000, got {self.max_upload_mb!r}")
        if not 10 <= self.max_sessions <= 100_000:
            raise ValueError(f"PETOOL_MAX_SESSIONS must be between 10 and 100000, got {self.max_sessions!r}")
        if not self.max_upload_mb <= self.max_uploads_total_mb <= 100_000:
            raise ValueError(
                f"PETOOL_MAX_UPLOADS_TOTAL_MB must be between PETOOL_MAX_UPLOAD_MB ({self.max_upload_mb}) "
                f"and 100000, got {self.max_uploads_total_mb!r}"
            )
        if self.adapter in ("", "none"):
            self.adapter = None

    @property
    def access_control(self) -> bool:
        """True when visitors log in (password or Hugging Face): only logged-in users write."""
        return bool(self.auth) or self.oauth

    @property
    def password_login(self) -> bool:
        """True when the page shows the in-app "Log in" box (PETOOL_AUTH without PETOOL_AUTH_PRIVATE)."""
        return bool(self.auth) and not self.auth_private

    @property
    def storage_notice(self) -> str:
        """A line for the page header: where data lives and whether it survives a restart."""
        if self.ephemeral:
            return (
                f"⚠️ Storage is ephemeral: `{self.db_path}` is lost when this Space restarts. "
                "Download the database or exports, or enable persistent storage (/data)."
            )
        return f"Data is stored in `{self.db_path}`."

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AppConfig:
        """Read the variables of ``ENV_VARS``; invalid values raise ValueError naming them."""
        env = os.environ if env is None else env
        on_space = bool(env.get("SPACE_ID"))
        persistent = SPACE_DATA.is_dir() and os.access(SPACE_DATA, os.W_OK)
        db_path = env.get("PETOOL_DB") or (str(SPACE_DATA / "petool.db") if persistent else "data/petool.db")
        data_path = env.get("PETOOL_DATA") or (str(DEV_DATA) if DEV_DATA.exists() else None)
        return cls(
            db_path=db_path,
            model=env.get("PETOOL_MODEL", "default"),
            adapter=env.get("PETOOL_ADAPTER", "default"),
            demo=_bool(env.get("PETOOL_DEMO"), "PETOOL_DEMO", default=on_space),
            auth=parse_auth(env.get("PETOOL_AUTH", "")),
            auth_private=_bool(env.get("PETOOL_AUTH_PRIVATE"), "PETOOL_AUTH_PRIVATE", default=False),
            data_path=data_path,
            queue_size=_int(env.get("PETOOL_QUEUE"), "PETOOL_QUEUE", 16),
            # OAuth needs a Space with `hf_oauth: true` in its README (which sets OAUTH_CLIENT_ID);
            # elsewhere gradio would fake a login, so it stays off.
            oauth=_bool(env.get("PETOOL_OAUTH"), "PETOOL_OAUTH", default=True) and on_space and bool(env.get("OAUTH_CLIENT_ID")),
            admins=[a.strip() for a in (env.get("PETOOL_ADMINS") or env.get("SPACE_AUTHOR_NAME") or "").split(",") if a.strip()],
            max_new_tokens=_int(env.get("PETOOL_MAX_NEW_TOKENS"), "PETOOL_MAX_NEW_TOKENS", None),
            max_call_s=_int(env.get("PETOOL_MAX_CALL_S"), "PETOOL_MAX_CALL_S", 120),
            max_upload_mb=_int(env.get("PETOOL_MAX_UPLOAD_MB"), "PETOOL_MAX_UPLOAD_MB", 20),
            max_sessions=_int(env.get("PETOOL_MAX_SESSIONS"), "PETOOL_MAX_SESSIONS", 1000),
            max_uploads_total_mb=_int(env.get("PETOOL_MAX_UPLOADS_TOTAL_MB"), "PETOOL_MAX_UPLOADS_TOTAL_MB", 200),
            server_name=env.get("GRADIO_SERVER_NAME") or ("0.0.0.0" if on_space else "127.0.0.1"),
            server_port=_int(env.get("GRADIO_SERVER_PORT"), "GRADIO_SERVER_PORT", 7860),
            on_space=on_space,
            ephemeral=on_space and not Path(db_path).resolve().is_relative_to(SPACE_DATA),
        )


def parse_auth(text: str) -> list[tuple[str, str]]:
    """``"ann:pw1,bob:pw2"`` -> [("ann", "pw1"), ("bob", "pw2")]; a malformed item raises ValueError.

    Example:
        >>> parse_auth("ann:secret")
        [('ann', 'secret')]
    """
    pairs = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        user, sep, password = item.partition(":")
        if not sep or not user or not password:
            raise ValueError(f"PETOOL_AUTH items must look like user:password, got {user or item!r}")
        pairs.append((user, password))
    return pairs


def _bool(value: str | None, name: str, default: bool) -> bool:
    if value is None:
        return default
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise ValueError(f"{name} must be 1/0, true/false, yes/no or on/off, got {value!r}")


def _int(value: str | None, name: str, default: int | None) -> int | None:
    if value in (None, ""):
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
