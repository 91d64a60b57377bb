"""Code Compass: local code-context for AI coding agents.

The public API: `Engine` (index, search, open, status, the code graph), its result types
and errors. Names are imported on first use, so `import codecompass` (and the CLI's
start-up) loads no model runtime, vector library or server SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Engine": "codecompass.engine",
    "ChunkFilter": "codecompass.models",
    "Scope": "codecompass.models",
    "AmbiguousSymbolError": "codecompass.errors",
    "CodeCompassError": "codecompass.errors",
    "ConfigError": "codecompass.errors",
    "DataDirError": "codecompass.errors",
    "EmbedderError": "codecompass.errors",
    "InputError": "codecompass.errors",
    "ModelMismatchError": "codecompass.errors",
    "NotFoundError": "codecompass.errors",
    "NotIndexedError": "codecompass.errors",
    "Answer": "codecompass.schemas",
    "Evidence": "codecompass.schemas",
    "FileHit": "codecompass.schemas",
    "FileView": "codecompass.schemas",
    "GraphNode": "codecompass.schemas",
    "GraphResult": "codecompass.schemas",
    "Hit": "codecompass.schemas",
    "Overview": "codecompass.schemas",
    "SymbolHit": "codecompass.schemas",
    "SymbolMatch": "codecompass.schemas",
    "Edge": "codecompass.models",
    "IndexStats": "codecompass.indexing.pipeline",
    "SearchOptions": "codecompass.search.context",
    "SearchResult": "codecompass.search.retrieve",
    "RankWeights": "codecompass.search.rank",
    "Reranker": "codecompass.search.rerank",
    "Settings": "codecompass.settings",
    "load_settings": "codecompass.settings",
}

__all__ = [
    "AmbiguousSymbolError",
    "Answer",
    "ChunkFilter",
    "CodeCompassError",
    "ConfigError",
    "DataDirError",
    "Edge",
    "EmbedderError",
    "Engine",
    "Evidence",
    "FileHit",
    "FileView",
    "GraphNode",
    "GraphResult",
    "Hit",
    "IndexStats",
    "InputError",
    "ModelMismatchError",
    "NotFoundError",
    "NotIndexedError",
    "Overview",
    "RankWeights",
    "Reranker",
    "Scope",
    "SearchOptions",
    "SearchResult",
    "Settings",
    "SymbolHit",
    "SymbolMatch",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codecompass' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from codecompass.engine import Engine
    from codecompass.errors import (
        AmbiguousSymbolError,
        CodeCompassError,
        ConfigError,
        DataDirError,
        EmbedderError,
        InputError,
        ModelMismatchError,
        NotFoundError,
        NotIndexedError,
    )
    from codecompass.indexing.pipeline import IndexStats
    from codecompass.models import ChunkFilter, Edge, Scope
    from codecompass.schemas import (
        Answer,
        Evidence,
        FileHit,
        FileView,
        GraphNode,
        GraphResult,
        Hit,
        Overview,
        SymbolHit,
        SymbolMatch,
    )
    from codecompass.search.context import SearchOptions
    from codecompass.search.rank import RankWeights
    from codecompass.search.rerank import Reranker
    from codecompass.search.retrieve import SearchResult
    from codecompass.settings import Settings, load_settings
