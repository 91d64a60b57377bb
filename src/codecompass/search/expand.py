"""Graph expansion: from the best seeds, follow strong edges to related symbols.

The search reaches the code graph through the small `GraphView` seam
(`codecompass.protocols`), so retrieval works (without expansion) on an index that has
no graph. Each hop multiplies edge weight × confidence; a candidate keeps the best
path that reached it, which `why["graph_path"]` shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codecompass.protocols import GraphView
from codecompass.search.context import DEFAULT_EDGE_TYPES


@dataclass(frozen=True, slots=True)
class Reached:
    """A node reached from a seed: its strength and the path (alternating node, edge)."""

    node: str
    strength: float
    path: tuple[str, ...]


def expand(
    graph: GraphView,
    seeds: Sequence[str],
    *,
    hops: int = 1,
    edge_types: Sequence[str] = DEFAULT_EDGE_TYPES,
    max_nodes: int = 200,
) -> dict[str, Reached]:
    """Nodes within `hops` of the seeds, each with its best path (seeds excluded)."""
    best: dict[str, Reached] = {s: Reached(s, 1.0, (s,)) for s in seeds}
    frontier = list(seeds)
    for _ in range(max(0, hops)):
        if not frontier:
            break
        found: dict[str, Reached] = {}
        for edge in graph.neighbors(frontier, edge_types):
            strength = max(0.0, min(1.0, edge.weight * edge.confidence))
            for here, there, arrow in (
                (edge.source, edge.target, f"-{edge.type}->"),
                (edge.target, edge.source, f"<-{edge.type}-"),
            ):
                origin = best.get(here)
                if origin is None or here not in frontier:
                    continue
                reach = origin.strength * strength
                current = found.get(there) or best.get(there)
                if current is None or reach > current.strength:
                    found[there] = Reached(there, reach, (*origin.path, arrow, there))
        ranked = sorted(found.values(), key=lambda r: -r.strength)
        room = max_nodes - len(best)
        frontier = []
        for reached in ranked[: max(0, room)]:
            best[reached.node] = reached
            frontier.append(reached.node)
    return {node: r for node, r in best.items() if node not in set(seeds)}
