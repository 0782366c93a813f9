"""OpenAI-compatible predictor against a scripted local http.server (no network)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from petool.remote import OpenAIPredictor, RemoteError
from tests.fixtures.entries import WEATHER_A, weather_entry

CALL = json.dumps({"tool_name": WEATHER_A, "parameters": {"city": "Rome", "days": 5}})


class Server:
    """Replies from a script: each item is (status, body, headers) or "hang" (sleep past the timeout)."""

    def __init__(self, script):
        self.script, self.requests = list(script), []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers["Content-Length"])
                outer.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": json.loads(self.rfile.read(length))}
                )
                step = outer.script.pop(0) if outer.script else (200, _reply(CALL), {})
                if step == "hang":
                    threading.Event().wait(0.5)
                    step = (200, _reply(CALL), {})
                status, body, headers = step
                data = json.dumps(body).encode() if not isinstance(body, bytes) else body
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except BrokenPipeError:
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _reply(text, usage=True):
    body = {"choices": [{"message": {"role": "assistant", "content": text}}]}
    if usage:
        body["usage"] = {"prompt_tokens": 321, "completion_tokens": 17}
    return body


@pytest.fixture
def server(request):
    s = Server(getattr(request, "param", []))
    yield s
    s.close()


def _predictor(server, **kw):
    waits = []
    kw.setdefault("sleep", waits.append)
    p = OpenAIPredictor("tiny-gpt", base_url=server.url, api_key="sk-test", **kw)
    return p, waits


def test_sends_the_authors_messages_and_reads_text_and_usage(server):
    p, _ = _predictor(server, temperature=0.1)
    entry = weather_entry()
    g = p.generate(entry, "r")
    assert g.text == CALL and g.prompt_tokens == 321 and g.output_tokens == 17 and g.latency_s >= 0
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "tiny-gpt" and req["body"]["temperature"] == 0.1
    assert [m["role"] for m in req["body"]["messages"]] == ["system", "user"]
    assert req["body"]["messages"][1]["content"] == entry.query
    assert "rating" in req["body"]["messages"][0]["content"]


@pytest.mark.parametrize("server", [[(429, {"error": "slow down"}, {"Retry-After": "2"}), (503, {"error": "busy"}, {})]], indirect=True)
def test_retries_429_and_5xx_with_backoff(server):
    p, waits = _predictor(server, backoff_s=0.5)
    g = p.generate(weather_entry(), "p")
    assert g.text == CALL
    assert waits == [2.0, 1.0]  # Retry-After honoured, then 0.5 * 2**1
    assert g.details["tries"] == 3 and g.details["failures"] == ["HTTP 429", "HTTP 503"] and p.retries_total == 2


@pytest.mark.parametrize("server", [["hang"]], indirect=True)
def test_retries_a_timeout(server):
    p, waits = _predictor(server, timeout=0.1)
    g = p.generate(weather_entry(), "p")
    assert g.text == CALL
    assert g.details["failures"][0].startswith("timeout") and len(waits) == 1


@pytest.mark.parametrize("server", [[(500, {"e": 1}, {})] * 3], indirect=True)
def test_gives_up_with_a_clear_error(server):
    p, waits = _predictor(server, max_retries=2)
    with pytest.raises(RemoteError, match=r"failed after 3 tries \(HTTP 500; HTTP 500; HTTP 500\)"):
        p.generate(weather_entry(), "p")
    assert len(waits) == 2


@pytest.mark.parametrize("server", [[(401, {"error": "bad key"}, {})]], indirect=True)
def test_client_errors_are_not_retried(server):
    p, waits = _predictor(server)
    with pytest.raises(RemoteError, match="HTTP 401.*bad key"):
        p.generate(weather_entry(), "p")
    assert waits == [] and len(server.requests) == 1


@pytest.mark.parametrize("server", [[(200, b"not json", {})], [(200, {"choices": []}, {})]], indirect=True)
def test_malformed_replies_raise(server):
    p, _ = _predictor(server)
    with pytest.raises(RemoteError, match="not JSON|no choices"):
        p.generate(weather_entry(), "p")


def test_connection_refused_is_retried_then_reported():
    p = OpenAIPredictor("m", base_url="http://127.0.0.1:9/v1", api_key="", max_retries=1, sleep=lambda s: None)
    with pytest.raises(RemoteError, match="connection error"):
        p.generate(weather_entry(), "p")


@pytest.mark.parametrize("server", [[(200, _reply("ｔｅｘｔ", usage=False), {})]], indirect=True)
def test_nfkc_and_missing_usage(server):
    p, _ = _predictor(server, nfkc=True, style="compact")
    g = p.generate(weather_entry(), "c")
    assert g.text == "text" and g.prompt_tokens is None
    assert p.name == "openai:tiny-gpt[compact]"
    assert "Candidates (" in server.requests[0]["body"]["messages"][0]["content"]


def test_settings_from_env_and_validation(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    p = OpenAIPredictor("m")
    assert p.base_url == "http://127.0.0.1:1/v1" and p.api_key == "k" and p.describe()["model"] == "m"
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIPredictor("m")
    with pytest.raises(ValueError, match="style"):
        OpenAIPredictor("m", base_url="http://x/v1", style="fancy")
    with pytest.raises(ValueError, match="model name"):
        OpenAIPredictor("", base_url="http://x/v1")
