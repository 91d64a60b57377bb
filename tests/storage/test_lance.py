"""The LanceDB vector store on real files: exact search, filters, and old versions
pruned so that re-indexing does not grow the folder without bound."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from codecompass.models import ChunkFilter
from codecompass.storage import lance
from codecompass.storage.lance import LanceVectorStore

ALL = ChunkFilter()


@dataclass(frozen=True)
class VectorRow:
    id: str
    repo: str
    path: str
    language: str
    kind: str


def _rows(n: int, start: int = 0) -> tuple[list[VectorRow], np.ndarray]:
    rows = [
        VectorRow(f"c{i}", "r" if i % 2 else "s", f"p{i}.py", "python", "function")
        for i in range(start, start + n)
    ]
    vectors = np.eye(8, dtype=np.float32)[[i % 8 for i in range(start, start + n)]]
    return rows, vectors


def test_exact_search_with_filters(tmp_path: Path) -> None:
    store = LanceVectorStore(tmp_path, dim=8)
    rows, vectors = _rows(8)
    store.write(rows, vectors)
    query = np.eye(8, dtype=np.float32)[3]
    assert store.search(query, 2, ALL)[0] == ("c3", pytest.approx(1.0))
    only_s = store.search(query, 3, ChunkFilter(repo="s"))
    assert [i for i, _ in only_s] and all(int(i[1:]) % 2 == 0 for i, _ in only_s)
    store.write([], vectors[:0], delete=["c3"])
    assert "c3" not in [i for i, _ in store.search(query, 8, ALL)]
    assert len(store.ids()) == 7


def test_several_query_vectors_score_each_chunk_by_its_best(tmp_path: Path) -> None:
    store = LanceVectorStore(tmp_path, dim=8)
    rows, vectors = _rows(8)
    store.write(rows, vectors)
    eye = np.eye(8, dtype=np.float32)
    windows = np.stack([eye[1], 0.6 * eye[2] + 0.8 * eye[5]])
    found = store.search(windows, 3, ALL)
    assert [cid for cid, _ in found] == ["c1", "c5", "c2"]
    assert [score for _, score in found] == pytest.approx([1.0, 0.8, 0.6])
    assert store.search(windows[:1], 1, ALL) == store.search(eye[1], 1, ALL)


@pytest.mark.parametrize("ann", [False, True])
def test_vectors_of_reads_stored_vectors_by_chunk_id(tmp_path: Path, ann: bool) -> None:
    store = LanceVectorStore(tmp_path, dim=8, ann_threshold=300 if ann else 10**9)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((320, 8)).astype(np.float32)
    rows = [VectorRow(f"c{i}", "r", f"p{i}.py", "python", "function") for i in range(320)]
    store.write(rows, vectors)
    store.compact()
    assert (store._exact_matrix() is None) is ann
    found = store.vectors_of(["c5", "c319", "absent"])
    assert sorted(found) == ["c319", "c5"]
    np.testing.assert_array_equal(found["c5"], vectors[5])
    np.testing.assert_array_equal(found["c319"], vectors[319])


def test_a_run_merges_fragments_once_small_writes_or_deleted_rows_pile_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A merge rewrites the table: numpy's 80,000 vectors were written again (118 MB)
    after each one-line change. Now a run merges past MAX_FRAGMENTS writes, past
    MAX_DELETED_SHARE of the rows deleted, or when forced (gc), and drops old versions
    with it."""
    monkeypatch.setattr(lance, "KEEP_OLD_VERSIONS", timedelta(milliseconds=1))
    store = LanceVectorStore(tmp_path, dim=8)
    table = tmp_path / "vectors" / "chunks.lance"

    def fragments() -> int:
        return int(store._table.stats()["fragment_stats"]["num_fragments"])

    def data_files() -> set[str]:
        return {p.name for p in (table / "data").iterdir()}

    rows, vectors = _rows(100)
    store.write(rows, vectors)
    store.compact()
    base = data_files()
    for step in range(lance.MAX_FRAGMENTS - 1):
        more, more_vectors = _rows(1, start=100 + step)
        store.write(more, more_vectors)
        store.compact()
    # The first 100 rows' file is still there, with one file per small write.
    assert fragments() == lance.MAX_FRAGMENTS
    assert base < data_files()
    assert len(list((table / "_versions").iterdir())) >= lance.MAX_FRAGMENTS
    more, more_vectors = _rows(1, start=200)
    store.write(more, more_vectors)
    time.sleep(0.5)  # every old version is now older than the (patched) retention
    store.compact()
    assert fragments() == 1
    assert len(list((table / "_versions").iterdir())) <= 3  # the data's and the merge's
    merged = data_files()
    assert not merged & base
    # Deleting a fifth of the rows or less waits; more merges.
    store.write([], vectors[:0], delete=[f"c{i}" for i in range(23)])
    store.compact()
    assert data_files() == merged
    store.write([], vectors[:0], delete=["c23"])
    time.sleep(0.5)  # the deletes' versions expire (0.05 s failed twice under load)
    store.compact()
    assert not data_files() & merged
    assert sorted(store.ids()) == sorted(
        [f"c{i}" for i in range(24, 100 + lance.MAX_FRAGMENTS - 1)] + ["c200"]
    )
    # gc forces a merge.
    store.write([], vectors[:0], delete=["c24"])
    store.compact(force=True)
    assert fragments() == 1
    assert "c24" not in store.ids()
    # The matrix read from the merged table finds what is left, in id order.
    found = store.search(np.eye(8, dtype=np.float32)[0], 20, ALL)
    assert [cid for cid, score in found if score > 0.99] == sorted(
        f"c{i}" for i in [*range(25, 100 + lance.MAX_FRAGMENTS - 1), 200] if i % 8 == 0
    )


SEARCH_IN_A_NEW_PROCESS = """
import sys
import numpy as np
from codecompass.models import ChunkFilter
from codecompass.storage.lance import LanceVectorStore
store = LanceVectorStore(__import__("pathlib").Path(sys.argv[1]), dim=8)
found = store.search(np.eye(8, dtype=np.float32)[int(sys.argv[2])], 3, ChunkFilter())
print(",".join(cid for cid, _ in found), "lancedb" in sys.modules)
"""


def _search_in_a_new_process(folder: Path, axis: int) -> tuple[list[str], bool]:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", SEARCH_IN_A_NEW_PROCESS, str(folder), str(axis)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return out[0].split(","), out[1] == "True"


def test_a_new_process_searches_the_saved_matrix_without_lancedb(tmp_path: Path) -> None:
    store = LanceVectorStore(tmp_path, dim=8)
    rows, vectors = _rows(16)
    store.write(rows, vectors)
    store.compact()  # an index run ends here: the matrix is saved for the next process
    assert (tmp_path / "vectors" / lance.SNAPSHOT).is_file()
    assert _search_in_a_new_process(tmp_path, 3) == (["c11", "c3", "c0"], False)
    # Another write leaves the saved matrix behind: the next process reads the table
    # (and saves the matrix again), never answering from the stale file.
    more, more_vectors = _rows(1, start=19)
    store.write(more, more_vectors)
    assert _search_in_a_new_process(tmp_path, 3) == (["c11", "c19", "c3"], True)
    assert _search_in_a_new_process(tmp_path, 3) == (["c11", "c19", "c3"], False)


def test_a_damaged_saved_matrix_is_ignored(tmp_path: Path) -> None:
    store = LanceVectorStore(tmp_path, dim=8)
    rows, vectors = _rows(8)
    store.write(rows, vectors)
    store.compact()
    (tmp_path / "vectors" / lance.SNAPSHOT).write_bytes(b"PK\x03\x04 not really a zip")
    assert _search_in_a_new_process(tmp_path, 5) == (["c5", "c0", "c1"], True)
