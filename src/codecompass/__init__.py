"""Code Compass: local code-context for AI coding agents.

The public API: `Engine` (index, search, open, status), its result types and errors.
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
from codecompass.indexing.pipeline import IndexStats
from codecompass.search.hybrid import Hit
from codecompass.settings import Settings, load_settings

__all__ = [
    "CodeCompassError",
    "ConfigError",
    "DataDirError",
    "EmbedderError",
    "Engine",
    "FileView",
    "Hit",
    "IndexStats",
    "InputError",
    "ModelMismatchError",
    "NotIndexedError",
    "Settings",
    "load_settings",
]
