"""One conformance suite for every storage backend: each case of `conformance.py` runs on
the backend and on the in-memory reference, and the answers must agree (floats within
tolerance: BM25 to 1e-9 relative, cosines to 1e-5).

Backends: the embedded default (SQLite + LanceDB) always; PostgreSQL (+ its own vector
table, or Qdrant in local mode) when the server extra is installed and `initdb` is on
this machine (see tests/storage/postgres.py); a real Qdrant server when QDRANT_URL is set.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from codecompass.storage import Backend
from codecompass.storage.memory import open_memory
from tests.storage.backends import BACKENDS, open_backend_for_test, opener
from tests.storage.conformance import CASES, DIM, close, plain

# Scores computed two ways (SQL against Python, float32 SIMD against numpy) agree to here.
TOLERANCE = {"lexical": 1e-9, "lexical_after_changes": 1e-9, "vectors": 1e-5}


@pytest.fixture(params=BACKENDS)
def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    with open_backend_for_test(request.param, tmp_path_factory, request) as opened:
        yield opened


@pytest.mark.parametrize("case", sorted(CASES))
def test_backend_agrees_with_the_reference(backend: Backend, case: str) -> None:
    reference = open_memory()
    expected = plain(CASES[case](reference))
    found = plain(CASES[case](backend))
    close(expected, found, rel=TOLERANCE.get(case, 1e-6))


@pytest.mark.parametrize("name", BACKENDS)
def test_reopening_applies_no_migration_and_keeps_everything(
    name: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    """The stored schema is migrated once; a second process opening it finds every
    record the first one wrote (the vectors included)."""
    reference = plain(CASES["file_writes_and_tombstones"](open_memory()))
    open_again = opener(name, tmp_path_factory, request)
    first = open_again()
    try:
        assert plain(CASES["file_writes_and_tombstones"](first)) == reference
        ids = sorted(first.vectors(DIM).ids())
    finally:
        first.close()
    second = open_again()
    try:
        assert second.chunks.counts("api") == reference["counts_after"][0]
        assert sorted(second.vectors(DIM).ids()) == ids and len(ids) == 9  # populate() wrote nine
    finally:
        second.close()
