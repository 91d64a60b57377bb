"""Importance: PageRank over symbols and files, weighted by edge weight × confidence.

Resolved structural edges carry rank (keyword and similarity edges do not); a member
also passes rank up to its container (the MEMBER_OF reading, weight 0.6), so a class
whose methods are used a lot is important too. The random jump favours exported
symbols (twice the weight of private ones): that is the boost for public API. Scores are
scaled per repository so that its most important node has 1.0.

A run whose graph is the one the stored importance came from (a digest of the nodes and
edges read, kept with the importance) computes and writes nothing: a one-line change to a
function body leaves every node and edge as it was.
"""

from __future__ import annotations

import hashlib

import numpy as np
import numpy.typing as npt

from codecompass.graph.models import MEMBER_WEIGHT
from codecompass.models import ImportanceRow, LinkUpdate
from codecompass.storage import Backend

DAMPING = 0.85
ITERATIONS = 100
TOLERANCE = 1e-10
EXPORTED_BOOST = 2.0
UNRANKED_TYPES = ("keyword", "similar")
# Part of the digest: a change to how importance is computed makes every stored one stale.
RANK_VERSION = f"pagerank 1 {DAMPING} {ITERATIONS} {TOLERANCE} {EXPORTED_BOOST} {MEMBER_WEIGHT}"


def importance_update(backend: Backend) -> LinkUpdate | None:
    """The importance of every symbol and file of the workspace, as a graph update; None
    when the stored importance was computed from this same graph."""
    graph = backend.links.rank_graph(UNRANKED_TYPES)
    ids = [node[0] for node in graph.nodes]
    position = {node: i for i, node in enumerate(ids)}
    src: list[int] = []
    dst: list[int] = []
    weight: list[float] = []
    for source, target, kind, strength in graph.edges:
        a = position.get(source)
        b = position.get(target)
        if a is None or b is None or a == b:
            continue
        src.append(a)
        dst.append(b)
        weight.append(strength)
        if kind == "contains":
            src.append(b)
            dst.append(a)
            weight.append(MEMBER_WEIGHT)
    order = np.lexsort((np.array(weight), np.array(dst), np.array(src)))  # as read: any order
    edges = (
        np.array(src, dtype=np.int64)[order],
        np.array(dst, dtype=np.int64)[order],
        np.array(weight, dtype=np.float64)[order],
    )
    jump = np.array([EXPORTED_BOOST if node[3] else 1.0 for node in graph.nodes])
    digest = hashlib.sha256(RANK_VERSION.encode())
    digest.update("\0".join(f"{i}\1{repo}\1{kind}" for i, repo, kind, _ in graph.nodes).encode())
    for array in (jump, *edges):
        digest.update(array.tobytes())
    inputs = digest.hexdigest()
    if inputs == graph.importance_inputs:
        return None
    scores = pagerank(len(ids), *edges, jump) if ids else np.zeros(0)
    best: dict[str, float] = {}
    for (_, repo, _, _), score in zip(graph.nodes, scores, strict=True):
        best[repo] = max(best.get(repo, 0.0), float(score))
    rows = [
        ImportanceRow(
            node, repo, kind, round(float(score) / best[repo], 6) if best[repo] > 0 else 0.0
        )
        for (node, repo, kind, _), score in zip(graph.nodes, scores, strict=True)
    ]
    return LinkUpdate(importance=rows, importance_inputs=inputs)


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
