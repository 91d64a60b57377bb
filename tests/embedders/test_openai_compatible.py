"""The OpenAI-compatible provider against a local stand-in server."""

from __future__ import annotations

import json
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from codecompass.embedders.openai_compatible import OpenAICompatibleEmbedder
from codecompass.errors import ConfigError, EmbedderError

DIM = 16


def fake_vector(text: str, dim: int = DIM) -> list[float]:
    """Deterministic, deliberately unnormalized."""
    rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
    return [float(x) for x in rng.normal(size=dim) * 3.0]


class FakeServer(ThreadingHTTPServer):
    mode = "ok"
    dim = DIM
    requests: list[dict[str, Any]]


class Handler(BaseHTTPRequestHandler):
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        payload = json.loads(self.rfile.read(length))
        self.server.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), **payload}
        )
        mode = self.server.mode
        if self.path != "/v1/embeddings":
            self._reply(404, b'{"error": "not found"}')
        elif mode == "error":
            self._reply(500, b'{"error": "model exploded"}')
        elif mode == "not-json":
            self._reply(200, b"<html>hello</html>")
        elif mode == "slow":
            time.sleep(1.0)
            self._reply(200, b"{}")
        else:
            texts = payload["input"]
            data = [
                {"object": "embedding", "index": i, "embedding": fake_vector(t, self.server.dim)}
                for i, t in enumerate(texts)
            ]
            if mode == "missing-one":
                data = data[:-1]
            data.reverse()  # the index field, not list order, says which input it is
            self._reply(200, json.dumps({"object": "list", "data": data}).encode("utf-8"))


@pytest.fixture
def server() -> Iterator[FakeServer]:
    httpd = FakeServer(("127.0.0.1", 0), Handler)
    httpd.requests = []
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def base_url(server: FakeServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def test_embeds_in_input_order_normalized_and_batched(server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(
        base_url(server) + "/", "nomic-embed", api_key="sk-test", batch_size=2
    )
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (5, DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    for row, text in zip(vectors, texts, strict=True):
        expected = np.asarray(fake_vector(text), dtype=np.float32)
        np.testing.assert_allclose(row, expected / np.linalg.norm(expected), atol=1e-6)
    assert [r["input"] for r in server.requests] == [
        ["alpha", "beta"],
        ["gamma", "delta"],
        ["epsilon"],
    ]
    assert all(r["model"] == "nomic-embed" for r in server.requests)
    assert all(r["auth"] == "Bearer sk-test" for r in server.requests)
    assert embedder.dim == DIM


def test_identity_and_sizes(server: FakeServer) -> None:
    port = server.server_address[1]
    embedder = OpenAICompatibleEmbedder(base_url(server), "nomic-embed", dim=DIM)
    assert embedder.model_id == f"openai:127.0.0.1:{port}/nomic-embed"
    assert embedder.dim == DIM
    assert embedder.max_tokens == 512
    assert embedder.count_tokens(["", "abcd" * 10]) == [1, 11]
    assert embedder.embed([]).shape == (0, DIM)
    assert server.requests == []


def test_no_key_means_no_authorization_header(server: FakeServer) -> None:
    OpenAICompatibleEmbedder(base_url(server), "m").embed(["x"])
    assert server.requests[0]["auth"] is None


def test_dim_is_learned_with_a_probe(server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(base_url(server), "m")
    assert embedder.dim == DIM
    assert len(server.requests) == 1


def test_http_error_names_status_url_and_body(server: FakeServer) -> None:
    server.mode = "error"
    embedder = OpenAICompatibleEmbedder(base_url(server), "m")
    with pytest.raises(EmbedderError) as info:
        embedder.embed(["x"])
    message = str(info.value)
    assert "HTTP 500" in message
    assert base_url(server) + "/embeddings" in message
    assert "model exploded" in message


def test_wrong_path_is_reported(server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(f"http://127.0.0.1:{server.server_address[1]}", "m")
    with pytest.raises(EmbedderError, match="HTTP 404"):
        embedder.embed(["x"])


def test_bad_json_is_reported(server: FakeServer) -> None:
    server.mode = "not-json"
    with pytest.raises(EmbedderError, match=r"not JSON.*base_url"):
        OpenAICompatibleEmbedder(base_url(server), "m").embed(["x"])


def test_missing_embedding_is_reported(server: FakeServer) -> None:
    server.mode = "missing-one"
    with pytest.raises(EmbedderError, match="1 embeddings for 2 inputs"):
        OpenAICompatibleEmbedder(base_url(server), "m").embed(["x", "y"])


def test_wrong_dimension_is_reported(server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(base_url(server), "m", dim=8)
    with pytest.raises(EmbedderError, match=r"16-dimensional.*expected 8"):
        embedder.embed(["x"])


def test_dimension_change_between_calls_is_reported(server: FakeServer) -> None:
    embedder = OpenAICompatibleEmbedder(base_url(server), "m")
    embedder.embed(["x"])
    server.dim = DIM * 2
    with pytest.raises(EmbedderError, match="expected 16"):
        embedder.embed(["y"])


def test_connection_refused_is_reported() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    embedder = OpenAICompatibleEmbedder(f"http://127.0.0.1:{port}/v1", "m", timeout=5)
    with pytest.raises(EmbedderError, match=rf"Cannot reach .*127\.0\.0\.1:{port}.*running"):
        embedder.embed(["x"])


def test_timeout_is_reported(server: FakeServer) -> None:
    server.mode = "slow"
    embedder = OpenAICompatibleEmbedder(base_url(server), "m", timeout=0.2)
    with pytest.raises(EmbedderError, match="timeout 0.2 s"):
        embedder.embed(["x"])


def test_bad_configuration() -> None:
    with pytest.raises(ConfigError, match="not an http"):
        OpenAICompatibleEmbedder("localhost:8080", "m")
    with pytest.raises(ConfigError, match="model"):
        OpenAICompatibleEmbedder("http://127.0.0.1:1/v1", "")
    with pytest.raises(ConfigError, match="dim"):
        OpenAICompatibleEmbedder("http://127.0.0.1:1/v1", "m", dim=0)
