"""The code graph: symbols and files as nodes, relations with confidence and evidence.

``extract`` reads a file's facts (scopes, imports, references, routes), ``resolve``
turns them into edges, ``link`` keeps the graph current after each index run, and
``api`` answers questions (find a symbol, dependencies, callers, traversals, overview).
"""

from codecompass.graph.models import (
    EDGE_TYPES,
    EDGE_WEIGHTS,
    GraphEdge,
    GraphNode,
    GraphResult,
    Overview,
    SymbolMatch,
)

__all__ = [
    "EDGE_TYPES",
    "EDGE_WEIGHTS",
    "GraphEdge",
    "GraphNode",
    "GraphResult",
    "Overview",
    "SymbolMatch",
]
