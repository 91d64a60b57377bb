"""A small OpenAI-compatible chat endpoint on 127.0.0.1 for tests: answers every
`POST /v1/chat/completions` with a fixed text (or the next of `replies`, or an HTTP error),
after `delay` seconds, and keeps the requests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeChatServer(ThreadingHTTPServer):
    answer = "The order is removed by `OrderBook.cancel` [1]."
    status = 200
    model = "fake-chat-1"
    delay = 0.0  # seconds before answering (a slow model)

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.replies: list[str] = []  # answered in turn before `answer`

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that stopped waiting (a timeout) is not the server's problem

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeChatServer

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        if self.server.delay:
            time.sleep(self.server.delay)
        if self.server.status != 200:
            payload = b'{"error": "overloaded"}'
            self.send_response(self.server.status)
        else:
            payload = json.dumps(
                {
                    "model": self.server.model,
                    "choices": [{"message": {"role": "assistant", "content": self._answer()}}],
                }
            ).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _answer(self) -> str:
        return self.server.replies.pop(0) if self.server.replies else self.server.answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def fake_chat_server() -> Iterator[FakeChatServer]:
    server = FakeChatServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
