"""User-facing errors. Every message names the problem and the fix.

CodeCompassError
├── ConfigError          bad setting or config file
├── DataDirError         data folder missing, unwritable or of another format
├── NotIndexedError      a query before any index run
├── ModelMismatchError   index built with another embedding model
├── InputError           a bad argument: empty query, unknown path, bad range
└── EmbedderError        the embedding provider failed
"""

from __future__ import annotations


class CodeCompassError(Exception):
    """Base of every error Code Compass reports to a user."""


class ConfigError(CodeCompassError):
    pass


class DataDirError(CodeCompassError):
    pass


class NotIndexedError(CodeCompassError):
    pass


class ModelMismatchError(CodeCompassError):
    pass


class InputError(CodeCompassError):
    pass


class EmbedderError(CodeCompassError):
    pass
