"""A fake OpenAI-compatible chat endpoint on a local port, for the paraphraser tests."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer


class FakeLLM(BaseHTTPRequestHandler):
    reply = ""

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert self.path == "/v1/chat/completions" and body["messages"][-1]["role"] == "user"
        assert self.headers["Authorization"] == "Bearer sk-test"
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": self.reply}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@contextmanager
def running_fake_llm():
    """Serve ``FakeLLM`` in a thread; yields its base URL (``.../v1``). Set ``FakeLLM.reply`` first."""
    server = HTTPServer(("127.0.0.1", 0), FakeLLM)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
