"""A bag of hashed code tokens as an embedder: instant and deterministic, for benchmarks
whose figures do not depend on the embedding model (the graph, garbage collection)."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from codecompass.protocols import Vectors
from codecompass.tokens import code_tokens


class HashEmbedder:
    max_tokens = 256

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.model_id = f"bench:hash-{dim}"

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in code_tokens(text):
                out[row, zlib.crc32(token.encode()) % self.dim] += 1.0
            out[row] /= float(np.linalg.norm(out[row])) or 1.0
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(code_tokens(t)) for t in texts]
