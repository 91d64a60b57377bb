"""The seams between stages. Implementations name their technology."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str:
        """Stable id recorded in the index, e.g. "all-MiniLM-L6-v2:onnx-int8"."""
        ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """Tokens the model reads; text past this is truncated."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Return an (n, dim) float32 array, one L2-normalized row per text."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text in the model's own tokenizer (no truncation)."""
        ...
