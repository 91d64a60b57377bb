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
│   ├── AmbiguousSymbolError a symbol name several symbols answer to equally well
│   └── OutOfRangeError      a line range outside the file
├── EmbedderError        the embedding provider failed
└── LLMError             the chat model endpoint failed
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Candidate(NamedTuple):
    """A node a symbol argument may have meant, as an error offers it to choose from."""

    id: str
    kind: str  # a symbol kind, or "file"
    repo: str
    path: str
    line: int | None  # None for a file
    score: float

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()


class Hint(NamedTuple):
    """The next step, in the words of each interface: a CLI user is told a command, an
    agent a tool call."""

    cli: str
    mcp: str


class CodeCompassError(Exception):
    """Base of every error Code Compass reports to a user. `str()` is the problem (and a
    fix that holds everywhere); `hint` adds the interface's own next step; `candidates`,
    best first, are what the argument may have meant (an ambiguous or misspelt symbol),
    which the CLI's JSON and MCP carry as a list."""

    code = "error"  # the machine-readable kind, the same in the CLI's JSON and MCP

    def __init__(
        self, message: str, hint: Hint | None = None, candidates: tuple[Candidate, ...] = ()
    ) -> None:
        super().__init__(message)
        self.hint = hint
        self.candidates = candidates

    def for_cli(self) -> str:
        return self._with(self.hint.cli) if self.hint else str(self)

    def for_mcp(self) -> str:
        return self._with(self.hint.mcp) if self.hint else str(self)

    def _with(self, hint: str) -> str:
        message = str(self)
        return f"{message}\n{hint}" if "\n" in message else f"{message} {hint}"


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


class AmbiguousSymbolError(InputError):
    """Several symbols answer to the name equally well; `candidates` lists them ranked."""

    code = "ambiguous_symbol"


class OutOfRangeError(InputError):
    code = "out_of_range"


class LLMError(CodeCompassError):
    code = "provider_error"
