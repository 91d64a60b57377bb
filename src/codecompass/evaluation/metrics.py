"""Retrieval metrics. Ranks are 1-based; a missing item has rank None."""

from __future__ import annotations

import math
from collections.abc import Sequence


def all_within(ranked: Sequence[str], gold: Sequence[str], k: int) -> bool:
    """Localization accuracy: every gold location is among the first k results."""
    top = set(ranked[:k])
    return bool(gold) and all(g in top for g in gold)


def expected_ranks(
    hits: Sequence[tuple[str, str | None]], expected: Sequence[tuple[str, str | None]]
) -> list[int | None]:
    """The rank at which each expected (path, symbol) is first found among the hits'
    (path, symbol); each hit serves one item. As eval/golden/README.md says, a hit
    matches on an equal path and the expected qualified name or a member of it (any
    symbol when none is expected)."""
    ranks: list[int | None] = [None] * len(expected)
    for rank, (path, symbol) in enumerate(hits, start=1):
        for i, (want_path, want_symbol) in enumerate(expected):
            if ranks[i] is not None or path != want_path:
                continue
            name = symbol or ""
            if want_symbol is None or name == want_symbol or name.startswith(want_symbol + "."):
                ranks[i] = rank
                break
    return ranks


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of the expected items found within the first k results."""
    if not ranks:
        return 0.0
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def reciprocal_rank(ranks: Sequence[int | None]) -> float:
    found = [r for r in ranks if r is not None]
    return 1.0 / min(found) if found else 0.0


def ndcg_at(ranks: Sequence[int | None], k: int = 10) -> float:
    """Binary-relevance nDCG: each expected item found at rank r ≤ k adds 1/log2(r + 1)."""
    if not ranks:
        return 0.0
    dcg = sum(1.0 / math.log2(r + 1) for r in ranks if r is not None and r <= k)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(ranks), k) + 1))
    return dcg / ideal


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) with linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)
