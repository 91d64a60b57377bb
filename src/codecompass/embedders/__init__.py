"""Embedding providers and the factory that picks one from the configuration.

- ``onnx`` (default): the shipped int8 all-MiniLM-L6-v2, offline, no extra install.
- ``sentence-transformers``: any local sentence-transformers model (optional extra).
- ``openai``: any OpenAI-compatible ``/embeddings`` HTTP endpoint.
"""

from __future__ import annotations

import os
from pathlib import Path

from codecompass.embedders.onnx import OnnxEmbedder
from codecompass.embedders.openai_compatible import OpenAICompatibleEmbedder
from codecompass.embedders.sentence_transformers import SentenceTransformerEmbedder
from codecompass.errors import ConfigError
from codecompass.protocols import Embedder

__all__ = [
    "PROVIDERS",
    "OnnxEmbedder",
    "OpenAICompatibleEmbedder",
    "SentenceTransformerEmbedder",
    "create_embedder",
]

PROVIDERS = ("onnx", "sentence-transformers", "openai")


def create_embedder(
    provider: str = "onnx",
    model: str | None = None,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    dim: int | None = None,
) -> Embedder:
    """Build the embedder a configuration names.

    ``model`` is, per provider: ``onnx`` — a folder with model.onnx and tokenizer.json
    (default: the shipped model); ``sentence-transformers`` — a model name or folder;
    ``openai`` — the served model's name. ``api_key_env`` names the environment variable
    holding the API key; no key is sent unless it is given, so a key meant for one
    server never reaches another by default. ``dim`` (expected size) applies to openai only.
    """
    if provider == "onnx":
        return OnnxEmbedder(Path(model) if model else None)
    if provider == "sentence-transformers":
        if not model:
            raise ConfigError(
                "The sentence-transformers provider needs a model name or folder, "
                "e.g. model = 'sentence-transformers/all-MiniLM-L6-v2'."
            )
        return SentenceTransformerEmbedder(model)
    if provider == "openai":
        if not base_url or not model:
            raise ConfigError(
                "The openai provider needs base_url (e.g. http://127.0.0.1:11434/v1) "
                "and model (the served embedding model's name)."
            )
        api_key = None
        if api_key_env:
            api_key = os.environ.get(api_key_env)
            if not api_key:
                raise ConfigError(
                    f"Environment variable {api_key_env} (api_key_env) is not set or empty; "
                    "set it to the API key, or drop api_key_env for a server without keys."
                )
        return OpenAICompatibleEmbedder(base_url, model, api_key=api_key, dim=dim)
    raise ConfigError(
        f"Unknown embedding provider {provider!r}; choose one of: {', '.join(PROVIDERS)}."
    )
