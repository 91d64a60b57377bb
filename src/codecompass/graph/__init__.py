"""The code graph: symbols and files as nodes, relations with confidence and evidence.

``resolve`` turns the facts each index run stages (``indexing/extract``) into edges,
``link`` keeps the graph current after each index run, and ``api`` answers questions
(find a symbol, dependencies, callers, traversals, overview).
"""

from codecompass.graph.models import EDGE_TYPES, EDGE_WEIGHTS

__all__ = ["EDGE_TYPES", "EDGE_WEIGHTS"]
