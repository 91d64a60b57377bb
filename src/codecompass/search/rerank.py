"""The optional reranking seam: a cross-encoder (or anything) may reorder the head.

No reranker ships offline, so search runs without one by default. An implementation
returns the indices of `texts` best first; indices it leaves out keep their order after
the ones it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Reranker(Protocol):
    def rerank(self, query: str, texts: Sequence[str]) -> list[int]:
        """Indices into `texts`, most relevant first."""
        ...
