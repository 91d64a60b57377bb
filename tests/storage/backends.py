"""The backends the storage tests run against, opened fresh for each test.

- `embedded`: SQLite + LanceDB in a temporary folder;
- `postgres`: PostgreSQL (a fresh workspace of the session's throwaway cluster) with
  its own vector table;
- `postgres+qdrant`: the same with vectors in Qdrant's in-process local mode, or in
  the Qdrant server at QDRANT_URL when that is set.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

from codecompass.settings import StorageSettings
from codecompass.storage import Backend
from codecompass.storage.embedded import open_embedded

BACKENDS = ["embedded", "postgres", "postgres+qdrant"]


def server_settings(
    request: pytest.FixtureRequest, tmp: pytest.TempPathFactory, name: str
) -> StorageSettings:
    """A new workspace on the session's PostgreSQL cluster (skips without one)."""
    cluster = request.getfixturevalue("pg_cluster")
    settings = StorageSettings(
        backend="server",
        workspace=f"w_{uuid.uuid4().hex[:10]}",
        postgres_url=cluster.url(),
        pool_size=4,
    )
    if name.endswith("+qdrant"):
        url = os.environ.get("QDRANT_URL", "")
        path = "" if url else str(tmp.mktemp("qdrant"))
        settings = replace(settings, qdrant_url=url, qdrant_path=path)
    return settings


def opener(
    name: str, tmp: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Callable[[], Backend]:
    """A function that opens one new backend's storage, the same each time it is called."""
    if name == "embedded":
        folder = tmp.mktemp("embedded")
        return lambda: open_embedded(folder)
    from codecompass.storage.server import open_server

    settings = server_settings(request, tmp, name)
    return lambda: open_server(settings)


@contextmanager
def open_backend_for_test(
    name: str, tmp: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Backend]:
    backend = opener(name, tmp, request)()
    try:
        yield backend
    finally:
        backend.close()
