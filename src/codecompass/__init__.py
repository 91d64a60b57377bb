"""Code Compass: local code-context for AI coding agents.

The public API: `Engine` (index, search, open, status, the code graph), its result types
and errors.
"""

from codecompass.engine import Engine, FileView
from codecompass.errors import (
    CodeCompassError,
    ConfigError,
    DataDirError,
    EmbedderError,
    InputError,
    ModelMismatchError,
    NotIndexedError,
)
from codecompass.graph.models import GraphEdge, GraphNode, GraphResult, Overview, SymbolMatch
from codecompass.indexing.pipeline import IndexStats
from codecompass.search.hybrid import FileHit, Hit, SearchResult, SymbolHit
from codecompass.search.rank import RankWeights
from codecompass.search.rerank import Reranker
from codecompass.settings import Settings, load_settings

__all__ = [
    "CodeCompassError",
    "ConfigError",
    "DataDirError",
    "EmbedderError",
    "Engine",
    "FileHit",
    "FileView",
    "GraphEdge",
    "GraphNode",
    "GraphResult",
    "Hit",
    "IndexStats",
    "InputError",
    "ModelMismatchError",
    "NotIndexedError",
    "Overview",
    "RankWeights",
    "Reranker",
    "SearchResult",
    "Settings",
    "SymbolHit",
    "SymbolMatch",
    "load_settings",
]
