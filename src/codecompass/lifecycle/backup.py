"""Whole-index backups, and restoring one of them or a pre-GC backup.

**Embedded backend.** `backup_index` copies the SQLite database with SQLite's online
backup API: one consistent snapshot of a live index, taken while searches and even an
indexer keep running (WAL). The backup is that one file (`index-<time>.sqlite`, in
`backups/` of the data folder unless DEST says otherwise).

The vectors are *not* copied: they are derived data, and the database holds what they
are derived from — every active chunk's embedding, in the embedding cache, keyed by
model and text. `restore_index` writes the database back (the online backup API again,
into the live file, so readers see the old or the new index, never a mix) and rebuilds
the vector store from the chunks and that cache. This was chosen over copying the
LanceDB folder because:

- consistency comes for free: vectors rebuilt from the snapshot match it exactly,
  whereas a folder copy would have to be taken at the same instant as the database
  (LanceDB's versions and SQLite's transactions share no clock);
- the backup is smaller by the vector store's size (the same vectors twice otherwise);
- the same vectors give the same search results: the rebuild writes the cached float32
  vectors unchanged, and search ranks ties by id.

The price is the rebuild's time on restore (reading and writing every vector, about a
second per 50,000 chunks here); no model runs unless the snapshot caught an index run
between storing chunks and embedding them, and then only for those chunks.

**Server backend.** PostgreSQL and Qdrant have their own backup tools; `backup_index`
refuses with a message naming them (`pg_dump`, a Qdrant snapshot) and `codecompass
export`, which writes a portable copy of the active index.

**Restore** takes either kind of file, told apart by its first bytes: a full backup
(SQLite) or a pre-GC backup (gzip, see `lifecycle/gc.py`). It refuses, before changing
anything, a file that is neither (or is damaged, cut short, or from a newer version), a
backup built with another embedding model than the one configured, and a running
indexer (the writer lock).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codecompass.errors import InputError, ModelMismatchError
from codecompass.indexing.pipeline import reconcile_vectors
from codecompass.lifecycle.gc import BACKUP_DIR, restore_gc_backup
from codecompass.protocols import Embedder
from codecompass.settings import Settings
from codecompass.storage import Backend

GZIP_MAGIC = b"\x1f\x8b"
SQLITE_MAGIC = b"SQLite format 3\x00"


def default_backup_path(settings: Settings, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%S")
    return settings.data_dir / BACKUP_DIR / f"index-{stamp}.sqlite"


def backup_index(
    backend: Backend, settings: Settings, dest: Path | None = None, *, now: datetime | None = None
) -> dict[str, Any]:
    """Write a consistent copy of the live index to `dest` (a new file, or a folder to put
    `index-<time>.sqlite` in; default: `backups/` in the data folder)."""
    path = default_backup_path(settings, now)
    if dest is not None:
        dest = dest.expanduser()
        path = dest / path.name if dest.is_dir() else dest
    if path.exists():
        raise InputError(f"{path} already exists; choose another file or remove it first.")
    meta = backend.meta.meta()
    if not meta.get("embedder_model"):
        raise InputError("This index holds nothing yet; run `codecompass index PATH` first.")
    info = backend.snapshots.backup_to(path.resolve())
    return {
        "kind": "full",
        "backup": str(path.resolve()),
        "backend": backend.name,
        "model": meta.get("embedder_model"),
        "dim": int(meta.get("embedder_dim") or 0),
        **info,
        "vectors": "rebuilt from the embedding cache on restore",
    }


def backup_kind(path: Path) -> str:
    """ "full" or "pre-gc", by the file's first bytes; InputError for anything else."""
    if not path.exists():
        raise InputError(f"{path} does not exist; pass a backup file.")
    if not path.is_file():
        raise InputError(f"{path} is not a file; pass a backup file, not a folder.")
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise InputError(f"Cannot read {path} ({exc.strerror or exc}).") from exc
    if head == SQLITE_MAGIC:
        return "full"
    if head.startswith(GZIP_MAGIC):
        return "pre-gc"
    raise InputError(
        f"{path} is not a Code Compass backup: pass a full backup (a SQLite file written by "
        "`codecompass backup`) or a pre-GC backup (backups/pre-gc-*.jsonl.gz, written by "
        "`codecompass gc`)."
    )


def restore_index(backend: Backend, path: Path, embedder: Embedder) -> dict[str, Any]:
    """Restore a full backup (the whole index, then its vectors from the cache) or a
    pre-GC backup (what a collection deleted), into this index. `embedder` is the one
    configured: a full backup made with another model is refused."""
    path = path.expanduser()
    if backup_kind(path) == "pre-gc":
        return restore_gc_backup(backend, path)

    def check(meta: dict[str, str]) -> None:
        model, dim = meta.get("embedder_model"), meta.get("embedder_dim")
        if (model, dim) != (embedder.model_id, str(embedder.dim)):
            raise ModelMismatchError(
                f"{path} holds an index built with the embedding model {model} ({dim}-d), "
                f"but {embedder.model_id} ({embedder.dim}-d) is configured here. Set the "
                "[embedder] settings of this data folder to that model, or restore into "
                "another --data-dir configured with it."
            )

    with backend.snapshots.exclusive():
        info = backend.snapshots.restore_from(path.resolve(), check)
        vectors = backend.vectors(embedder.dim)
        vectors.clear()  # rebuilt below from the restored chunks and cache
        fill = reconcile_vectors(backend, vectors, embedder)
    repos = [r.id for r in backend.repos.repos()]
    return {
        "kind": "full",
        "backup": str(path.resolve()),
        "model": embedder.model_id,
        "dim": embedder.dim,
        **info,
        "repos": repos,
        "chunks": sum(backend.chunks.counts(r)["chunks"] for r in repos),
        "vectors_written": len(fill.written),
        "vectors_embedded": fill.embedded,
    }
