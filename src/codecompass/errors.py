"""User-facing errors. Every message names the problem and the fix.

CodeCompassError
├── ConfigError          bad setting or config file
├── DataDirError         data folder missing, unwritable or of another format
├── IndexBusyError       another indexer is writing the same index
├── DamagedIndexError    a store of the index is damaged (the message says how to recover)
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

from typing import NamedTuple


class Hint(NamedTuple):
    """The next step, in the words of each interface: a CLI user is told a command, an
    agent a tool call."""

    cli: str
    mcp: str


class CodeCompassError(Exception):
    """Base of every error Code Compass reports to a user. `str()` is the problem (and a
    fix that holds everywhere); `hint` adds the interface's own next step."""

    code = "error"  # the machine-readable kind, the same in the CLI's JSON and MCP

    def __init__(self, message: str, hint: Hint | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def for_cli(self) -> str:
        return f"{self} {self.hint.cli}" if self.hint else str(self)

    def for_mcp(self) -> str:
        return f"{self} {self.hint.mcp}" if self.hint else str(self)


class ConfigError(CodeCompassError):
    code = "config_error"


class DataDirError(CodeCompassError):
    code = "data_dir"


class IndexBusyError(CodeCompassError):
    code = "index_busy"


class DamagedIndexError(CodeCompassError):
    code = "index_damaged"


class NotIndexedError(CodeCompassError):
    code = "not_indexed"


class ModelMismatchError(CodeCompassError):
    code = "model_mismatch"


class InputError(CodeCompassError):
    code = "invalid_argument"


class EmbedderError(CodeCompassError):
    code = "provider_error"


class UnknownRepoError(InputError):
    code = "unknown_repo"


class AccessDeniedError(InputError):
    code = "access_denied"


class NotFoundError(InputError):
    code = "not_found"


class OutOfRangeError(InputError):
    code = "out_of_range"


class LLMError(CodeCompassError):
    code = "provider_error"
