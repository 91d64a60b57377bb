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
from tests.storage.backends import BACKENDS, open_backend_for_test
from tests.storage.conformance import CASES, close, plain

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
