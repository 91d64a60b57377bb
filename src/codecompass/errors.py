"""User-facing errors. Every message names the problem and the fix.

CodeCompassError
├── ConfigError          bad setting or config file
├── DataDirError         data folder missing, unwritable or of another format
├── NotIndexedError      a query before any index run
├── ModelMismatchError   index built with another embedding model
├── InputError           a bad argument: empty query, unknown path, bad range
│   ├── UnknownRepoError     no such repository, or several and none named
│   ├── AccessDeniedError    a path outside the allowed roots, a secret or blocked file
│   ├── NotFoundError        no such file (or symbol) in the repository
│   └── OutOfRangeError      a line range outside the file
├── EmbedderError        the embedding provider failed
└── LLMError             the chat model endpoint failed
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


class UnknownRepoError(InputError):
    pass


class AccessDeniedError(InputError):
    pass


class NotFoundError(InputError):
    pass


class OutOfRangeError(InputError):
    pass


class LLMError(CodeCompassError):
    pass
