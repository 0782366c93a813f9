"""Models behind an OpenAI-compatible ``/v1/chat/completions`` endpoint (``--model openai:NAME``).

Plain ``urllib`` (no SDK): the request is the authors' (system = prompt, user = query), sent to
any server that speaks the protocol (OpenAI, vLLM, llama.cpp, Ollama...). Rate limits (429),
server errors (5xx), timeouts and dropped connections are retried with exponential backoff,
honouring ``Retry-After``; after the last try a ``RemoteError`` says what failed.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
import unicodedata
import urllib.error
import urllib.request
from collections.abc import Callable

from petool.prompts import STYLES, build_messages
from petool.schema import Entry, Generation, Setting

ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
MAX_BACKOFF_S = 60.0


class RemoteError(RuntimeError):
    """The endpoint failed for good (after retries, or with an error retrying cannot fix)."""


class OpenAIPredictor:
    """Answer entries with a model behind an OpenAI-compatible chat completions endpoint.

    Args:
        model_name: the ``model`` field sent to the server.
        base_url: e.g. ``http://localhost:8000/v1``; default ``$OPENAI_BASE_URL`` or OpenAI's.
        api_key: default ``$OPENAI_API_KEY``; required only for OpenAI's own endpoint.
        timeout: seconds per request.
        max_retries: retries after the first try on 429 / 5xx / timeouts / connection errors.
        backoff_s: first wait; doubles each retry (capped at 60 s).
        style: prompt style (``paper``, ``compact`` or ``shortlist``).
        temperature: sent as is (the authors used the API default; None sends nothing).
        max_tokens: output budget sent to the server (None sends nothing).
        nfkc: NFKC-normalize the reply, as the authors' OpenAI runner did.
        sleep: the wait function (tests pass a fake).
    """

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        style: str = "paper",
        temperature: float | None = None,
        max_tokens: int | None = 256,
        nfkc: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if not model_name:
            raise ValueError("openai:NAME needs a model name, e.g. openai:gpt-4o-mini")
        if style not in STYLES:
            raise ValueError(f"unknown prompt style {style!r}; valid: {', '.join(STYLES)}")
        if timeout <= 0 or max_retries < 0 or backoff_s < 0:
            raise ValueError(f"timeout must be > 0 and max_retries, backoff_s >= 0; got {timeout}, {max_retries}, {backoff_s}")
        self.model_name = model_name
        self.base_url = (base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
        if not self.api_key and self.base_url == DEFAULT_BASE_URL:
            raise ValueError(f"set {ENV_API_KEY} (or pass api_key) to call {DEFAULT_BASE_URL}, or set {ENV_BASE_URL} to a local server")
        self.timeout, self.max_retries, self.backoff_s = timeout, max_retries, backoff_s
        self.style, self.temperature, self.max_tokens, self.nfkc = style, temperature, max_tokens, nfkc
        self.sleep = sleep
        self.retries_total = 0

    @property
    def name(self) -> str:
        return f"openai:{self.model_name}" + ("" if self.style == "paper" else f"[{self.style}]")

    has_adapter = False
    """An endpoint's model is what it is: no adapter to switch."""

    def describe(self) -> dict:
        return {
            "name": self.name,
            "model": self.model_name,
            "base_url": self.base_url,
            "style": self.style,
            "mode": "remote",
            "adapter": None,
            "device": "remote",
            "dtype": None,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
        }

    def generate(self, entry: Entry, setting: Setting, *, rank_prior: float | None = None, use_adapter: bool | None = None) -> Generation:
        """One chat completion for ``entry`` in ``setting``; RemoteError after the last retry.

        The tool is chosen by the endpoint, so ``rank_prior`` plays no part; ``use_adapter=True``
        is refused (there is none).
        """
        if use_adapter:
            raise ValueError(f"{self.name} has no adapter")
        body = {"model": self.model_name, "messages": build_messages(entry, setting, self.style)}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        t0 = time.perf_counter()
        reply, tries = self.post("/chat/completions", body)
        latency = time.perf_counter() - t0
        try:
            text = reply["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise RemoteError(f"{self.base_url}: reply has no choices[0].message.content: {json.dumps(reply)[:200]}") from None
        if self.nfkc:
            text = unicodedata.normalize("NFKC", text)
        usage = reply.get("usage") or {}
        return Generation(
            text, round(latency, 4), usage.get("prompt_tokens"), usage.get("completion_tokens"), model=self.name, details=tries
        )

    def post(self, path: str, body: dict) -> tuple[dict, dict]:
        """POST JSON, retrying transient failures with backoff.

        Returns:
            (the decoded reply, ``{"tries", "failures"}``: how many tries it took and why the
            failed ones failed).
        """
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = self.base_url + path
        failures: list[str] = []
        for attempt in range(self.max_retries + 1):
            wait = None
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = response.read()
                try:
                    return json.loads(payload.decode("utf-8")), {"tries": attempt + 1, "failures": failures}
                except (UnicodeDecodeError, json.JSONDecodeError):
                    raise RemoteError(f"{url}: reply is not JSON: {payload[:200]!r}") from None
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:300].decode("utf-8", "replace")
                failures.append(f"HTTP {exc.code}")
                if exc.code not in RETRY_STATUS:
                    raise RemoteError(f"{url}: HTTP {exc.code} {exc.reason}: {detail}") from None
                wait = _retry_after(exc.headers.get("Retry-After"))
            except TimeoutError:
                failures.append(f"timeout after {self.timeout} s")
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                    failures.append(f"timeout after {self.timeout} s")
                else:
                    failures.append(f"connection error: {exc.reason}")
            except (ConnectionError, http.client.HTTPException) as exc:  # dropped mid-reply
                failures.append(f"connection error: {exc}")
            if attempt < self.max_retries:
                self.retries_total += 1
                self.sleep(min(MAX_BACKOFF_S, wait if wait is not None else self.backoff_s * 2**attempt))
        raise RemoteError(f"{url}: failed after {self.max_retries + 1} tries ({'; '.join(failures)})")


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
