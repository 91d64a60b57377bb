"""The graph that explains a search: the hits the retrievers found (seeds), the hits the
graph expansion brought, the nodes on the paths between them, and every edge among
these with its type and confidence."""

from __future__ import annotations

from typing import Any

from codecompass.engine import Engine
from codecompass.schemas import Hit

# What each node is to the search: a hit found by text or meaning, a hit the graph
# brought (`why["graph_path"]`), or a node on such a path that is no hit itself.
SEED, BROUGHT, ON_PATH = "seed", "brought", "path"


def hit_node(hit: Hit) -> str:
    """The graph node of a hit: its symbol, or its file when it has none."""
    return f"{hit.repo}/{hit.path}#{hit.symbol}" if hit.symbol else f"{hit.repo}/{hit.path}"


def path_nodes(graph_path: list[str]) -> list[str]:
    """The nodes of a `why["graph_path"]` (node, arrow, node, …)."""
    return graph_path[::2]


def explain_graph(engine: Engine, hits: list[Hit], *, limit: int) -> dict[str, Any]:
    """The subgraph behind `hits` as {nodes, edges, truncated}: each node carries its
    `role` and, for hits, their `rank` (1-based) and `score`."""
    roles: dict[str, str] = {}
    ranks: dict[str, tuple[int | None, float | None]] = {}
    for rank, hit in enumerate(hits, start=1):
        node = hit_node(hit)
        graph_path = hit.why.get("graph_path") or []
        roles[node] = BROUGHT if graph_path else SEED
        ranks.setdefault(node, (rank, hit.score))
        for on_path in path_nodes(graph_path)[:-1]:
            roles.setdefault(on_path, ON_PATH)
    if not roles:
        return {"nodes": [], "edges": [], "truncated": False}
    # The reader's cut alone: the search already named stale files and memories.
    found = engine.graph.subgraph(list(roles), limit=limit, skip_unknown=True)
    nodes = []
    for found_node in found.nodes:
        hit_rank, hit_score = ranks.get(found_node.id, (None, None))
        role = roles.get(found_node.id, ON_PATH)
        nodes.append({**found_node.as_dict(), "role": role, "rank": hit_rank, "score": hit_score})
    edges = [e for e in found.as_dict()["edges"] if e["resolved"]]
    return {"nodes": nodes, "edges": edges, "truncated": found.truncated}
