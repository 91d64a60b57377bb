"""Persistence behind the protocols of `codecompass.protocols`, chosen once per engine.

- **embedded** (the default): one folder, no server. SQLite for metadata, the lexical
  index (FTS5), graph, audit and embedding cache; LanceDB for vectors.
- **server**: PostgreSQL for all of that (`pip install codecompass[server]`), and
  vectors in Qdrant (a server, or its in-process local mode) or in PostgreSQL.

`open_backend(settings)` returns a `Backend`: one object per capability, all typed by
protocol. Nothing outside this package sees SQL, a client library or a connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codecompass.errors import ConfigError, DamagedIndexError
from codecompass.storage.backend import EMBEDDED_DB, Backend

if TYPE_CHECKING:
    from codecompass.settings import Settings

__all__ = ["BACKENDS", "EMBEDDED_DB", "Backend", "damage_of", "index_exists", "open_backend"]

BACKENDS = ("embedded", "server")
SERVER_HINT = "pip install 'codecompass[server]'"


def open_backend(settings: Settings) -> Backend:
    """The backend `[storage] backend` names, opened (and migrated) for the workspace."""
    kind = settings.storage.backend
    if kind == "embedded":
        from codecompass.storage.embedded import open_embedded

        return open_embedded(settings.data_dir)
    if kind == "server":
        try:
            from codecompass.storage.server import open_server
        except ImportError as exc:
            raise ConfigError(
                f"The server backend needs the PostgreSQL and Qdrant client libraries "
                f"({exc.name} is missing); install them with: {SERVER_HINT}"
            ) from exc
        return open_server(settings.storage)
    raise ConfigError(
        f"[storage] backend = {kind!r} is unknown; use one of: {', '.join(BACKENDS)}."
    )


def index_exists(settings: Settings) -> bool:
    """Whether an index may exist to open without creating one: the embedded backend's
    database file, or any configured server (the engine then checks for repositories)."""
    if settings.storage.backend == "embedded":
        return (settings.data_dir / EMBEDDED_DB).is_file()
    return True


def damage_of(exc: BaseException) -> DamagedIndexError | None:
    """A storage library's exception that means a store is damaged, as an error saying
    what is damaged and how to recover; None for anything else. The interfaces ask this
    of an unexpected exception before calling it a bug."""
    if type(exc).__module__ == "sqlite3" and type(exc).__name__ == "DatabaseError":
        # Exactly DatabaseError: "file is not a database", "disk image is malformed"
        # (its subclasses mean a locked database, a bad statement, a constraint).
        return DamagedIndexError(
            f"The index database ({EMBEDDED_DB}) is damaged: {exc}. Move it aside (with its "
            "-wal and -shm files) and run `codecompass index` again; it is rebuilt from "
            "the repository (embeddings are computed again)."
        )
    if "lance" in type(exc).__module__.lower() or "lance error" in str(exc).lower():
        return DamagedIndexError(
            f"The vector store (vectors/) is damaged: {str(exc).splitlines()[0][:300]}. "
            "Delete the vectors/ folder and run `codecompass index`: it is rebuilt from "
            "the database and its embedding cache, without the model."
        )
    return None
