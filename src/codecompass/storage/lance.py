"""Vectors in LanceDB, keyed by chunk id, with filter columns (repo, path, language, kind).

Vectors are derived data: SQLite and the embedding cache can rebuild them. Search is
exact (a float32 matrix product in memory) while the table is small enough for that to
be the fastest way; past `ann_threshold` rows an IVF index answers instead.

The matrix is also saved beside the table (`chunks.matrix.npz`) with the list of the
table's version manifests it was read from. A new process whose table still has exactly
those manifests loads the file instead of the table, and so never imports LanceDB:
`import lancedb` costs 1.5–2.5 s, most of a cold `codecompass search`. Every write adds
a manifest, so a saved matrix can never be mistaken for a newer table.
"""

from __future__ import annotations

import os
import shutil
import threading
import zipfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from codecompass.models import ChunkFilter
from codecompass.protocols import VectorRow, Vectors
from codecompass.storage.matrix import VectorMatrix

TABLE = "chunks"
SNAPSHOT = f"{TABLE}.matrix.npz"
_SNAPSHOT_COLUMNS = ("repo", "path", "language", "kind")
# Every write makes a table version and LanceDB keeps old versions' files for a week by
# default: re-indexing a large repository commit after commit grew the folder to 8 GB.
# A reader of an older version (another process mid-query) gets a few minutes' grace.
KEEP_OLD_VERSIONS = timedelta(minutes=10)
# Compaction rewrites every fragment it merges: merging a run's one small fragment into
# numpy's 75,000 vectors wrote 118 MB and held the table in memory. A run merges once
# small writes or deleted rows pile up.
MAX_FRAGMENTS = 16
MAX_DELETED_SHARE = 0.2


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _where_sql(where: ChunkFilter) -> str:
    parts: list[str] = []
    if where.repo:
        parts.append(f"repo = {_quote(where.repo)}")
    if where.language:
        parts.append(f"language = {_quote(where.language)}")
    if where.kind:
        parts.append(f"kind = {_quote(where.kind)}")
    if where.path_prefix:
        parts.append(f"starts_with(path, {_quote(where.path_prefix)})")
    if where.scopes is not None:
        allowed = [
            f"(repo = {_quote(s.repo)} AND starts_with(path, {_quote(s.path_prefix)}))"
            for s in where.scopes
        ]
        parts.append("(" + (" OR ".join(allowed) or "false") + ")")
    return " AND ".join(parts)


class LanceVectorStore:
    """Vectors in a LanceDB table, searched exactly in memory below `ann_threshold`
    rows and through an IVF index above."""

    def __init__(self, data_dir: Path, dim: int, ann_threshold: int = 200_000) -> None:
        self.dim = dim
        self.ann_threshold = ann_threshold
        self._folder = data_dir / "vectors"
        self._opened: Any = None
        self._pa: Any = None
        self._schema: Any = None
        self._matrix: tuple[tuple[str, ...], VectorMatrix] | None = None
        self._lock = threading.Lock()

    @property
    def _table(self) -> Any:
        """The LanceDB table, opened (and LanceDB imported) on first use."""
        if self._opened is None:
            import lancedb
            import pyarrow as pa

            self._pa = pa
            self._schema = pa.schema(
                [
                    ("id", pa.string()),
                    ("repo", pa.string()),
                    ("path", pa.string()),
                    ("language", pa.string()),
                    ("kind", pa.string()),
                    ("vector", pa.list_(pa.float32(), self.dim)),
                ]
            )
            db = lancedb.connect(str(self._folder))
            self._opened = db.create_table(TABLE, schema=self._schema, exist_ok=True)
        return self._opened

    # -- writing ----------------------------------------------------------------------
    def write(
        self,
        rows: Sequence[VectorRow],
        vectors: Vectors,
        delete: Sequence[str] | ChunkFilter = (),
    ) -> None:
        table = self._table
        if isinstance(delete, ChunkFilter):
            table.delete(_where_sql(delete) or "true")
        else:
            for start in range(0, len(delete), 5000):
                part = delete[start : start + 5000]
                table.delete("id IN (" + ",".join(_quote(i) for i in part) + ")")
        if not rows:
            return
        pa = self._pa
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
        data = pa.table(
            {
                "id": [r.id for r in rows],
                "repo": [r.repo for r in rows],
                "path": [r.path for r in rows],
                "language": [r.language for r in rows],
                "kind": [r.kind for r in rows],
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.dim),
            },
            schema=self._schema,
        )
        table.add(data)

    def ids(self) -> list[str]:
        rows = self._table.search().select(["id"]).limit(None).to_arrow()  # not the vectors
        return [str(v) for v in rows.column("id").to_pylist()]

    def compact(self, *, force: bool = False) -> None:
        """Merge fragments and drop old versions' files once small writes or deleted
        rows pile up (or when forced); build or refresh the ANN index once the table is
        large."""
        rows = self._count()
        if rows >= self.ann_threshold:
            if self._has_index():
                self._table.optimize(cleanup_older_than=KEEP_OLD_VERSIONS)
            else:
                from lancedb.index import IvfFlat

                partitions = max(1, int(rows**0.5))
                self._table.create_index(
                    "vector", config=IvfFlat(distance_type="cosine", num_partitions=partitions)
                )
        else:
            # Old versions go with a merge: until then they share the files of the new.
            if force or self._fragmented():
                self._table.optimize(cleanup_older_than=KEEP_OLD_VERSIONS)
            self._load_matrix()  # saves the matrix for the next process

    def _fragmented(self) -> bool:
        stats = self._table.stats()
        fragments = stats["fragment_stats"]["num_fragments"]
        stored = fragments * stats["fragment_stats"]["lengths"]["mean"]  # deleted ones too
        deleted = 1 - stats["num_rows"] / stored if stored else 0.0
        return bool(fragments > MAX_FRAGMENTS or deleted > MAX_DELETED_SHARE)

    # -- searching --------------------------------------------------------------------
    def search(self, queries: Vectors, k: int, where: ChunkFilter) -> list[tuple[str, float]]:
        matrix = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        exact = self._exact_matrix()
        if exact is not None:
            return exact.search(matrix, k, where)
        best: dict[str, float] = {}
        for query in matrix:
            for cid, cos in self._search_ann(query, k, where):
                best[cid] = max(cos, best.get(cid, -1.0))
        return sorted(best.items(), key=lambda item: -item[1])[:k]

    def vectors_of(self, ids: Sequence[str]) -> dict[str, Vectors]:
        """From the in-memory matrix while search is exact, from the table past
        `ann_threshold`."""
        exact = self._exact_matrix()
        if exact is not None:
            return exact.vectors_of(ids)
        found: dict[str, Vectors] = {}
        for start in range(0, len(ids), 5000):
            part = ids[start : start + 5000]
            table = (
                self._table.search()
                .where("id IN (" + ",".join(_quote(i) for i in part) + ")")
                .select(["id", "vector"])
                .limit(len(part))
                .to_arrow()
            )
            flat = table.column("vector").combine_chunks().flatten().to_numpy()
            rows = np.asarray(flat, dtype=np.float32).reshape(table.num_rows, self.dim)
            ids_read = [str(i) for i in table.column("id").to_pylist()]
            found.update(zip(ids_read, rows, strict=True))
        return found

    def clear(self) -> None:
        """Remove the folder itself: a damaged table cannot be trusted to delete."""
        with self._lock:
            self._opened, self._matrix = None, None
            shutil.rmtree(self._folder, ignore_errors=True)

    def count(self) -> int:
        if not self._folder.is_dir():
            return 0  # nothing stored yet (and no need to import LanceDB to say so)
        exact = self._exact_matrix()
        return len(exact.ids) if exact is not None else self._count()

    def _count(self) -> int:
        return int(self._table.count_rows())

    def _exact_matrix(self) -> VectorMatrix | None:
        """The matrix exact search reads, or None past `ann_threshold` once the table
        has its ANN index (one scan of the manifests when the matrix is current)."""
        current = self._current_matrix()
        if current is not None:
            return current  # matrices are only kept for exact search
        self._table.checkout_latest()  # see writes made by other processes
        if self._count() >= self.ann_threshold and self._has_index():
            return None
        return self._load_matrix()

    def _manifests(self) -> tuple[str, ...]:
        """The table's version manifests (name, size, mtime): every write adds one."""
        try:
            entries = os.scandir(self._folder / f"{TABLE}.lance" / "_versions")
        except OSError:
            return ()
        found: list[str] = []
        with entries:
            for e in entries:
                if not e.name.endswith(".manifest"):
                    continue
                try:
                    st = e.stat()
                except FileNotFoundError:  # removed by a concurrent write's cleanup
                    continue
                found.append(f"{e.name}:{st.st_size}:{st.st_mtime_ns}")
        return tuple(sorted(found))

    def _current_matrix(self) -> VectorMatrix | None:
        """The matrix of the table as it is now, from memory or the saved file."""
        manifests = self._manifests()
        if not manifests:
            return None
        if self._matrix is not None and self._matrix[0] == manifests:
            return self._matrix[1]
        saved = _read_snapshot(self._folder / SNAPSHOT, manifests, self.dim)
        if saved is not None:
            self._matrix = (manifests, saved)
        return saved

    def _load_matrix(self) -> VectorMatrix:
        with self._lock:
            current = self._current_matrix()
            if current is not None:
                return current
            before = self._manifests()
            self._table.checkout_latest()
            table = self._table.to_arrow()
            ids = np.asarray(table.column("id").to_pylist(), dtype=np.str_)
            order = np.argsort(ids, kind="stable")  # the matrix's order (`VectorMatrix`)
            matrix = VectorMatrix.build(
                [str(v) for v in ids[order]],
                _rows_in_order(table.column("vector"), order, self.dim),
                *(
                    np.asarray(table.column(name).to_pylist(), dtype=np.str_)[order]
                    for name in _SNAPSHOT_COLUMNS
                ),
            )
            del table
            if before and before == self._manifests():  # no write while reading
                self._matrix = (before, matrix)
                _write_snapshot(self._folder / SNAPSHOT, before, matrix)
            return matrix

    def _has_index(self) -> bool:
        return bool(self._table.list_indices())

    def _search_ann(self, query: Vectors, k: int, where: ChunkFilter) -> list[tuple[str, float]]:
        q = self._table.search(np.asarray(query, dtype=np.float32)).metric("cosine")
        q = q.nprobes(30).refine_factor(5)
        condition = _where_sql(where)
        if condition:
            q = q.where(condition, prefilter=True)
        result = q.limit(k).select(["id"]).to_arrow()
        ids = result.column("id").to_pylist()
        dists = result.column("_distance").to_pylist()
        return [(str(i), 1.0 - float(d)) for i, d in zip(ids, dists, strict=True)]


def _rows_in_order(column: Any, order: npt.NDArray[np.intp], dim: int) -> Vectors:
    """The vectors of an Arrow column of fixed-size lists in this row order, copied once
    chunk by chunk: joining the chunks, then ordering the rows, made two more copies
    (115 MB each for numpy's 75,000 chunks)."""
    position = np.empty(len(order), dtype=np.intp)
    position[order] = np.arange(len(order))
    rows = np.empty((len(order), dim), dtype=np.float32)
    start = 0
    for chunk in column.chunks:
        block = np.asarray(chunk.flatten().to_numpy(), dtype=np.float32).reshape(-1, dim)
        rows[position[start : start + len(block)]] = block
        start += len(block)
    return rows


def _write_snapshot(path: Path, manifests: tuple[str, ...], matrix: VectorMatrix) -> None:
    """Write to a private file, then rename: readers see the old file or the new one."""
    part = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        with part.open("wb") as out:
            np.savez(
                out,
                manifests=np.asarray(manifests, dtype=np.str_),
                ids=matrix.id_array,
                vectors=np.asarray(matrix.vectors, dtype=np.float32),
                **{name: getattr(matrix, name) for name in _SNAPSHOT_COLUMNS},
            )
        os.replace(part, path)
    except OSError:
        part.unlink(missing_ok=True)  # a read-only folder: search still works, slower


def _read_snapshot(path: Path, manifests: tuple[str, ...], dim: int) -> VectorMatrix | None:
    try:
        with np.load(path, allow_pickle=False) as saved:
            if tuple(str(m) for m in saved["manifests"]) != manifests:
                return None
            vectors = saved["vectors"]
            if vectors.ndim != 2 or vectors.shape[1] != dim:
                return None
            return VectorMatrix.build(
                [str(i) for i in saved["ids"]],
                vectors,
                *(saved[name] for name in _SNAPSHOT_COLUMNS),
            )
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None  # missing, damaged or from another format: read the table
