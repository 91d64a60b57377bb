"""Optional embedder running any sentence-transformers model through torch.

For users who want a model other than the shipped one and accept the ~1.4 GB of torch.
Install with ``pip install 'codecompass[sentence-transformers]'``; nothing here is
imported until an instance is created. The model must already be on disk or in the
Hugging Face cache: Code Compass itself never downloads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from codecompass.errors import ConfigError, EmbedderError
from codecompass.protocols import Vectors

INSTALL_HINT = "pip install 'codecompass[sentence-transformers]'"


class SentenceTransformerEmbedder:
    """Embeds with ``sentence_transformers.SentenceTransformer(model_name_or_path)``.

    Vectors are L2-normalized here whatever the model's own last module does. The model's
    ``max_seq_length`` is its truncation limit.
    """

    def __init__(self, model_name_or_path: str, device: str = "cpu") -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigError(
                "The sentence-transformers embedder needs the optional extra: "
                f"{INSTALL_HINT}. Or use the built-in provider 'onnx'."
            ) from exc
        try:
            self._model: Any = SentenceTransformer(model_name_or_path, device=device)
        except Exception as exc:
            raise EmbedderError(
                f"Cannot load sentence-transformers model {model_name_or_path!r} on "
                f"{device}: {exc}. Give a local model folder, or a model name already in "
                "the Hugging Face cache."
            ) from exc
        self._name = model_name_or_path
        dim = self._model.get_sentence_embedding_dimension()
        if not dim:
            raise EmbedderError(f"Model {model_name_or_path!r} does not report its dimension.")
        self._dim = int(dim)
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return "st:" + self._name

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return int(self._model.max_seq_length)

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.empty((0, self._dim), dtype=np.float32)
        # torch modules are not documented as safe for concurrent forward passes.
        with self._lock:
            raw = self._model.encode(list(texts), convert_to_numpy=True, batch_size=32)
        vectors = np.asarray(raw, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        result: Vectors = vectors / np.maximum(norms, 1e-12)
        return result

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Untruncated token counts, [CLS]/[SEP]-style special tokens included."""
        tokenizer = self._model.tokenizer
        return [len(ids) for ids in tokenizer(list(texts), truncation=False)["input_ids"]]
