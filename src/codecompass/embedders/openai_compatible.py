"""Embedder calling an OpenAI-compatible ``/embeddings`` HTTP endpoint.

Works with OpenAI itself and with local servers that speak the same API (Ollama,
llama.cpp server, vLLM, LM Studio, text-embeddings-inference). Uses only the standard
library. Texts leave the machine only if ``base_url`` points elsewhere.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from codecompass.errors import ConfigError, EmbedderError
from codecompass.protocols import Vectors

_PROBE_TEXT = "dimension probe"


class OpenAICompatibleEmbedder:
    """POSTs ``{"model": model, "input": [...]}`` to ``{base_url}/embeddings``.

    ``dim`` is the expected vector size; if not given, it is learned from the first
    response (reading ``.dim`` before any embedding sends one short probe text). Every
    response must then keep that size. ``max_tokens`` is what the served model reads;
    the server, not this class, truncates or rejects longer texts.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = 30,
        batch_size: int = 64,
        *,
        max_tokens: int = 512,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"Embedding base_url {base_url!r} is not an http(s) URL; "
                "give one like http://127.0.0.1:11434/v1"
            )
        if not model:
            raise ConfigError("The openai embedding provider needs a model name.")
        if dim is not None and dim < 1:
            raise ConfigError(f"Embedding dim must be positive, got {dim}.")
        if batch_size < 1:
            raise ConfigError(f"Embedding batch_size must be at least 1, got {batch_size}.")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._api_key = api_key
        self._dim = dim
        self._timeout = timeout
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        host = parts.hostname + (f":{parts.port}" if parts.port else "")
        self._model_id = f"openai:{host}/{model}"
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed([_PROBE_TEXT])
        assert self._dim is not None
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """An estimate, not the server's tokenizer: one token per 4 characters, plus one.

        Close for English and code under BPE tokenizers; no request is made.
        """
        return [len(text) // 4 + 1 for text in texts]

    def embed(self, texts: Sequence[str]) -> Vectors:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        texts = list(texts)
        batches = [
            self._request(texts[i : i + self._batch_size])
            for i in range(0, len(texts), self._batch_size)
        ]
        if not batches:
            return np.empty((0, self._dim or 0), dtype=np.float32)
        vectors = np.concatenate(batches)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if np.any(norms == 0) or not np.all(np.isfinite(norms)):
            raise EmbedderError(
                f"{self._url} returned a zero or non-finite vector for model {self._model!r}."
            )
        result: Vectors = (vectors / norms).astype(np.float32)
        return result

    def _request(self, texts: list[str]) -> Vectors:
        body = json.dumps({"model": self._model, "input": texts}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        import urllib.error  # costs 40 ms: only when a request is made
        import urllib.request

        request = urllib.request.Request(self._url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read(500).decode("utf-8", "replace").strip()
            hint = (
                "check the API key (api_key_env)"
                if exc.code in (401, 403)
                else "check the model name and the server's log"
            )
            raise EmbedderError(
                f"Embedding request to {self._url} failed with HTTP {exc.code} {exc.reason}: "
                f"{detail or '(empty body)'}. Model {self._model!r}; {hint}."
            ) from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise EmbedderError(
                f"Cannot reach the embedding server at {self._url}: {reason}. Check that it "
                f"is running and that base_url is right (timeout {self._timeout:g} s)."
            ) from exc
        return self._parse(raw, len(texts))

    def _parse(self, raw: bytes, expected: int) -> Vectors:
        def bad(problem: str) -> EmbedderError:
            return EmbedderError(
                f"Unexpected response from {self._url}: {problem}. Expected the OpenAI "
                'embeddings format {"data": [{"index": 0, "embedding": [...]}, ...]}; '
                "check that base_url is the API root (often ending in /v1)."
            )

        try:
            payload: Any = json.loads(raw)
        except ValueError as exc:
            raise bad(f"not JSON ({raw[:80]!r})") from exc
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise bad('no "data" list')
        if len(data) != expected:
            raise bad(f"{len(data)} embeddings for {expected} inputs")
        if all(isinstance(item, dict) and isinstance(item.get("index"), int) for item in data):
            data = sorted(data, key=lambda item: item["index"])
        try:
            vectors = np.asarray([item["embedding"] for item in data], dtype=np.float32)
        except (TypeError, KeyError, ValueError) as exc:
            raise bad('items without a numeric "embedding" list') from exc
        if vectors.ndim != 2:
            raise bad("embeddings of differing lengths")
        with self._lock:
            if self._dim is None:
                self._dim = vectors.shape[1]
        if vectors.shape[1] != self._dim:
            raise EmbedderError(
                f"{self._url} returned {vectors.shape[1]}-dimensional vectors for model "
                f"{self._model!r}, expected {self._dim}. Check the model name and the "
                "configured dim; an index built with one dimension cannot take another."
            )
        return vectors
