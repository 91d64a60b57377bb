"""create_embedder: provider choice and configuration errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codecompass.embedders import (
    OnnxEmbedder,
    OpenAICompatibleEmbedder,
    SentenceTransformerEmbedder,
    create_embedder,
)
from codecompass.embedders.onnx import PACKAGED_MODEL_ID
from codecompass.errors import ConfigError, EmbedderError


def test_default_is_the_shipped_onnx_model() -> None:
    embedder = create_embedder()
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.model_id == PACKAGED_MODEL_ID


def test_onnx_model_is_a_folder(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=str(tmp_path)):
        create_embedder("onnx", str(tmp_path))


def test_unknown_provider_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as info:
        create_embedder("cohere")
    message = str(info.value)
    assert "'cohere'" in message
    for name in ("onnx", "sentence-transformers", "openai"):
        assert name in message


def test_openai_needs_base_url_and_model() -> None:
    with pytest.raises(ConfigError, match="base_url"):
        create_embedder("openai", "text-embedding-3-small")
    with pytest.raises(ConfigError, match="model"):
        create_embedder("openai", base_url="http://127.0.0.1:1/v1")


def test_openai_reads_the_key_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CC_TEST_KEY", raising=False)
    with pytest.raises(ConfigError, match="CC_TEST_KEY"):
        create_embedder("openai", "m", base_url="http://127.0.0.1:1/v1", api_key_env="CC_TEST_KEY")
    monkeypatch.setenv("CC_TEST_KEY", "sk-1")
    embedder = create_embedder(
        "openai", "m", base_url="http://127.0.0.1:1/v1", api_key_env="CC_TEST_KEY", dim=8
    )
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert embedder.model_id == "openai:127.0.0.1:1/m"
    assert embedder.dim == 8


def test_sentence_transformers_needs_a_model() -> None:
    with pytest.raises(ConfigError, match="model name or folder"):
        create_embedder("sentence-transformers")


def test_sentence_transformers_missing_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes the import fail whether or not the package is installed.
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ConfigError, match=r"pip install 'codecompass\[sentence-transformers\]'"):
        create_embedder("sentence-transformers", "sentence-transformers/all-MiniLM-L6-v2")
    with pytest.raises(ConfigError):
        SentenceTransformerEmbedder("any")
