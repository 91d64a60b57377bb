"""Importance: PageRank over symbols and files, weighted by edge weight × confidence.

Resolved structural edges carry rank (keyword and similarity edges do not); a member
also passes rank up to its container (the MEMBER_OF reading, weight 0.6), so a class
whose methods are used a lot is important too. The random jump favours exported
symbols (twice the weight of private ones): that is the boost for public API. Scores are
scaled per repository so that its most important node has 1.0.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from codecompass.graph.models import MEMBER_WEIGHT
from codecompass.models import EdgeQuery, ImportanceRow, SymbolQuery
from codecompass.storage import Backend

DAMPING = 0.85
ITERATIONS = 100
TOLERANCE = 1e-10
EXPORTED_BOOST = 2.0


def compute_importance(backend: Backend) -> list[ImportanceRow]:
    """The importance of every symbol and file of the workspace."""
    ids: list[str] = []
    repos: list[str] = []
    kinds: list[str] = []
    jump: list[float] = []
    for s in backend.symbols.symbols(SymbolQuery()):
        ids.append(s.id)
        repos.append(s.repo)
        kinds.append(s.kind)
        jump.append(EXPORTED_BOOST if s.exported else 1.0)
    for repo, path in backend.files.paths():
        ids.append(f"{repo}/{path}")
        repos.append(repo)
        kinds.append("file")
        jump.append(1.0)
    n = len(ids)
    if n == 0:
        return []
    position = {node: i for i, node in enumerate(ids)}
    src: list[int] = []
    dst: list[int] = []
    weight: list[float] = []
    edges = backend.edges.edges(EdgeQuery(resolved=True, exclude_types=("keyword", "similar")))
    for edge in edges:
        if edge.confidence <= 0:
            continue
        a = position.get(edge.source)
        b = position.get(edge.target)
        if a is None or b is None or a == b:
            continue
        src.append(a)
        dst.append(b)
        weight.append(edge.weight * edge.confidence)
        if edge.type == "contains":
            src.append(b)
            dst.append(a)
            weight.append(MEMBER_WEIGHT)
    scores = pagerank(
        n,
        np.array(src, dtype=np.int64),
        np.array(dst, dtype=np.int64),
        np.array(weight, dtype=np.float64),
        np.array(jump, dtype=np.float64),
    )
    best: dict[str, float] = {}
    for repo, score in zip(repos, scores, strict=True):
        best[repo] = max(best.get(repo, 0.0), float(score))
    return [
        ImportanceRow(
            node, repo, kind, round(float(score) / best[repo], 6) if best[repo] > 0 else 0.0
        )
        for node, repo, kind, score in zip(ids, repos, kinds, scores, strict=True)
    ]


def pagerank(
    n: int,
    src: npt.NDArray[np.int64],
    dst: npt.NDArray[np.int64],
    weight: npt.NDArray[np.float64],
    jump: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Weighted, personalised PageRank by power iteration; rank of dangling nodes goes
    back through the jump vector."""
    p = jump / jump.sum()
    out = np.bincount(src, weights=weight, minlength=n) if len(src) else np.zeros(n)
    share = np.zeros(len(src))
    if len(src):
        share = weight / out[src]
    dangling = out == 0
    rank: npt.NDArray[np.float64] = p.copy()
    for _ in range(ITERATIONS):
        flow = np.bincount(dst, weights=rank[src] * share, minlength=n) if len(src) else 0.0
        new = DAMPING * (flow + rank[dangling].sum() * p) + (1 - DAMPING) * p
        if np.abs(new - rank).sum() < TOLERANCE:
            rank = new
            break
        rank = new
    return rank
