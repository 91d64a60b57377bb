"""The backends the storage tests run against, opened fresh for each test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from codecompass.storage import Backend
from codecompass.storage.embedded import open_embedded

BACKENDS = ["embedded"]


@contextmanager
def open_backend_for_test(name: str, tmp: pytest.TempPathFactory) -> Iterator[Backend]:
    if name == "embedded":
        backend = open_embedded(tmp.mktemp("embedded"))
    else:  # pragma: no cover - every name above is handled
        raise ValueError(name)
    try:
        yield backend
    finally:
        backend.close()
