"""Garbage collection: tombstones past their retention, rows nothing refers to any more,
old audit records.

A chunk that leaves its file stays as a tombstone (`status = deleted`, with why and
when) for a retention that depends on why it left (`[gc]` settings: 7 days for a
removed or renamed file, 14 for a modified chunk, 30 for a manual removal). A
collection, under the workspace's writer lock:

1. reads every tombstone past its retention, page by page (`batch_size`), and writes
   them, with the cached embeddings it will delete, to `backups/pre-gc-<time>.jsonl.gz`
   (gzip JSON lines: a header, one line per row, a footer with the counts), synced to
   disk before anything is deleted;
2. removes orphans: graph rows of files that are gone, graph facts of repositories that
   are gone, importance rows of nodes that are gone, and embeddings no chunk has used
   since before `cache_days` (the cache is shared by every repository of the workspace
   and makes indexing again cheap, so an unused embedding is first noted, then kept a
   grace period);
3. deletes the tombstones, a batch per transaction, then audit records older than
   `audit_days`;
4. gives space back: vector store housekeeping, and the catalog's free pages (VACUUM)
   once they are a fifth of it or more (always with `force`).

`restore_gc_backup` puts such a file back: the tombstones exactly as they were, and the
embeddings. `maybe_collect` is the automatic collection after an index run.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import io
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.errors import IndexBusyError, InputError, ModelMismatchError
from codecompass.models import (
    CHUNK_MODIFIED,
    FILE_REMOVED,
    FILE_RENAMED,
    MANUAL_CLEANUP,
    ChunkRecord,
    Tombstone,
    TombstoneCount,
)
from codecompass.protocols import TombstoneStore, Vectors, VectorWriter
from codecompass.settings import GCSettings, Settings
from codecompass.storage import Backend

BACKUP_DIR = "backups"  # in the data folder
BACKUP_FORMAT = "codecompass-gc-backup"
BACKUP_VERSION = 1
LAST_RUN = "last-gc.json"  # in BACKUP_DIR: the last collection's figures
# Give the catalog's free pages back to the file system once they are this share of it.
VACUUM_SHARE = 0.2
# Later than any time a tombstone can carry: `force` collects every tombstone.
FOREVER = "9999-12-31T23:59:59.999+00:00"
_CHUNK_FIELDS = [f.name for f in dataclasses.fields(ChunkRecord)]


def iso(moment: datetime) -> str:
    """A time as records carry it (`models.utc_now`): UTC, ISO 8601, milliseconds."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def retention_days(gc: GCSettings) -> dict[str, int]:
    """Days a tombstone is kept, by delete reason; "*" for any other reason."""
    return {
        CHUNK_MODIFIED: gc.chunk_modified_days,
        FILE_REMOVED: gc.file_removed_days,
        FILE_RENAMED: gc.file_renamed_days,
        MANUAL_CLEANUP: gc.manual_cleanup_days,
        "*": gc.other_days,
    }


def cutoffs(gc: GCSettings, now: datetime, force: bool = False) -> dict[str, str]:
    """The time before which a tombstone of each reason is due for collection."""
    return {
        reason: FOREVER if force else iso(now - timedelta(days=days))
        for reason, days in retention_days(gc).items()
    }


@dataclass(slots=True)
class GCStats:
    """What one collection did (or, in a dry run, would do)."""

    now: str
    dry_run: bool = False
    forced: bool = False
    removed: dict[str, int] = field(default_factory=dict)  # tombstones, by reason
    orphans: dict[str, int] = field(default_factory=dict)
    audit_removed: int = 0
    remaining: dict[str, int] = field(default_factory=dict)  # tombstones left, by reason
    oldest_remaining: str | None = None  # unknown in a dry run
    bytes_before: dict[str, int] = field(default_factory=dict)
    bytes_after: dict[str, int] = field(default_factory=dict)
    bytes_reclaimed: int = 0  # given back to the file system (catalog and vectors)
    bytes_freed: int = 0  # catalog bytes no longer used (free pages, reused by writes)
    vacuumed: bool = False
    backup: str | None = None
    batches: int = 0
    seconds: float = 0.0

    @property
    def tombstones_removed(self) -> int:
        return sum(self.removed.values())

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "tombstones_removed": self.tombstones_removed}


def collect_garbage(
    backend: Backend,
    vectors: VectorWriter | None,
    settings: Settings,
    *,
    now: datetime | None = None,
    dry_run: bool = False,
    force: bool = False,
) -> GCStats:
    """Collect what is due at `now` (default: the clock); `force` collects every
    tombstone whatever its age and always reclaims space; `dry_run` only counts (no
    lock, no backup, no change). Raises IndexBusyError while an indexer runs."""
    started = time.perf_counter()
    gc = settings.gc
    clock = now or datetime.now(UTC)
    stamp = iso(clock)
    due_before = cutoffs(gc, clock, force)
    cache_before = iso(clock - timedelta(days=gc.cache_days))
    audit_before = iso(clock - timedelta(days=gc.audit_days))
    stats = GCStats(now=stamp, dry_run=dry_run, forced=force)
    store, house = backend.tombstones, backend.housekeeping
    with nullcontext() if dry_run else backend.snapshots.exclusive():
        counts = store.tombstone_stats(due_before)
        due = {reason: c.due for reason, c in counts.items() if c.due}
        stats.bytes_before = house.footprint()
        if dry_run:
            stats.removed = due
            stats.orphans = dataclasses.asdict(house.orphans(stamp, cache_before))
            stats.audit_removed = house.old_audit(audit_before)
            stats.remaining = {r: c.count - c.due for r, c in counts.items() if c.count > c.due}
            stats.bytes_after = stats.bytes_before
            stats.seconds = round(time.perf_counter() - started, 3)
            return stats
        # 1. Read what goes, and write it down before anything is deleted.
        unused = house.unused_vectors(cache_before)
        ids: dict[str, list[str]] = {}
        writer = None
        if gc.backup and (due or unused):
            path = _new_backup_path(settings.data_dir / BACKUP_DIR, clock)
            meta = backend.meta.meta()
            header = {
                "format": BACKUP_FORMAT,
                "version": BACKUP_VERSION,
                "created_at": stamp,
                "backend": backend.name,
                "model": meta.get("embedder_model"),
                "dim": int(meta.get("embedder_dim") or 0),
                "cutoffs": {r: due_before.get(r, due_before["*"]) for r in due},
                "cache_before": cache_before,
            }
            writer = _BackupWriter(path, header)
        try:
            for reason in due:
                before = due_before.get(reason, due_before["*"])
                for page in _pages(store, reason, before, gc.batch_size):
                    ids.setdefault(reason, []).extend(t.chunk.id for t in page)
                    if writer is not None:
                        writer.tombstones(page)
            if writer is not None:
                writer.vectors(unused)
                stats.backup = str(writer.close())
        except BaseException:
            if writer is not None:
                writer.abort()
            raise
        # 2. Orphans (embeddings due go here), while the tombstones still hold theirs.
        stats.orphans = dataclasses.asdict(house.orphans(stamp, cache_before, remove=True))
        # 3. Tombstones, a batch per transaction; then note the embeddings only they used
        # (their grace period starts now), and old audit records.
        for reason, found in ids.items():
            for start in range(0, len(found), max(1, gc.batch_size)):
                gone = store.purge_tombstones(found[start : start + max(1, gc.batch_size)])
                stats.removed[reason] = stats.removed.get(reason, 0) + gone
                stats.batches += 1
        house.orphans(stamp, "", remove=True)
        stats.audit_removed = house.old_audit(audit_before, remove=True)
        # 4. Space.
        if vectors is not None and (force or stats.tombstones_removed):
            vectors.compact(force=True)
        after = house.footprint()
        free, size = after.get("catalog_free", 0), after.get("catalog", 0)
        if force or (free and free >= VACUUM_SHARE * size):
            after = house.footprint(reclaim=True)
            stats.vacuumed = True
        stats.bytes_after = after
        left = store.tombstone_stats({})
    stats.remaining = {r: c.count for r, c in left.items()}
    stats.oldest_remaining = min((c.oldest for c in left.values() if c.oldest), default=None)
    stats.bytes_reclaimed = _total(stats.bytes_before) - _total(stats.bytes_after)
    stats.bytes_freed = _used(stats.bytes_before) - _used(stats.bytes_after)
    stats.seconds = round(time.perf_counter() - started, 3)
    _record_run(settings.data_dir / BACKUP_DIR, stats, gc.keep_backups)
    return stats


def maybe_collect(
    backend: Backend,
    vectors: VectorWriter | None,
    settings: Settings,
    *,
    now: datetime | None = None,
) -> GCStats | None:
    """The automatic collection, for after an index run (once its writer lock is
    released): collect when `[gc] auto` is on and at least `auto_threshold` tombstones
    are past their retention. Tombstones not yet due cannot be collected, so counting
    them would run a collection that removes nothing after every run for days. None when
    nothing ran (not due, or another writer holds the index: the next run tries again)."""
    gc = settings.gc
    if not gc.auto:
        return None
    clock = now or datetime.now(UTC)
    counts = backend.tombstones.tombstone_stats(cutoffs(gc, clock))
    if sum(c.due for c in counts.values()) < max(1, gc.auto_threshold):
        return None
    try:
        return collect_garbage(backend, vectors, settings, now=clock)
    except IndexBusyError:
        return None


def gc_status(
    backend: Backend, settings: Settings, *, now: datetime | None = None
) -> dict[str, Any]:
    """Tombstones by reason (count, oldest, due, retention), orphans and audit records a
    collection would remove now, the stores' size, backups, and the last collection."""
    gc = settings.gc
    clock = now or datetime.now(UTC)
    days = retention_days(gc)
    counts = backend.tombstones.tombstone_stats(cutoffs(gc, clock))
    house = backend.housekeeping
    due = sum(c.due for c in counts.values())
    folder = settings.data_dir / BACKUP_DIR
    try:
        last = json.loads((folder / LAST_RUN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        last = None
    return {
        "now": iso(clock),
        "tombstones": {
            reason: {**_count(c), "retention_days": days.get(reason, days["*"])}
            for reason, c in counts.items()
        },
        "total": sum(c.count for c in counts.values()),
        "due": due,
        "oldest": min((c.oldest for c in counts.values() if c.oldest), default=None),
        "auto": {
            "enabled": gc.auto,
            "threshold": gc.auto_threshold,
            "would_run": gc.auto and due >= max(1, gc.auto_threshold),
        },
        "orphans": dataclasses.asdict(
            house.orphans(iso(clock), iso(clock - timedelta(days=gc.cache_days)))
        ),
        "audit_due": house.old_audit(iso(clock - timedelta(days=gc.audit_days))),
        "bytes": house.footprint(),
        "backups": [p.name for p in _backups(folder)],
        "last_run": last,
    }


def _count(c: TombstoneCount) -> dict[str, Any]:
    return {"count": c.count, "oldest": c.oldest, "due": c.due}


def _total(sizes: Mapping[str, int]) -> int:
    return sum(v for k, v in sizes.items() if k != "catalog_free")


def _used(sizes: Mapping[str, int]) -> int:
    return sizes.get("catalog", 0) - sizes.get("catalog_free", 0)


def _pages(store: TombstoneStore, reason: str, before: str, size: int) -> Iterator[list[Tombstone]]:
    """The tombstones of `reason` deleted before `before`, a page of `size` at a time."""
    after = ""
    while True:
        page = store.tombstones(reason, before, max(1, size), after)
        if not page:
            return
        yield page
        after = page[-1].chunk.id


# -- the pre-GC backup file ----------------------------------------------------------------
def _backups(folder: Path) -> list[Path]:
    """Pre-GC backups in `folder`, newest first."""
    return sorted(folder.glob("pre-gc-*.jsonl.gz"), reverse=True)


def _new_backup_path(folder: Path, now: datetime) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    base = f"pre-gc-{now.astimezone(UTC).strftime('%Y%m%dT%H%M%S')}"
    path, n = folder / f"{base}.jsonl.gz", 1
    while path.exists():  # two collections within a second (or at one injected time)
        path, n = folder / f"{base}-{n}.jsonl.gz", n + 1
    return path


def _record_run(folder: Path, stats: GCStats, keep: int) -> None:
    """The last collection's figures beside the backups; the oldest backups beyond
    `keep` go."""
    folder.mkdir(parents=True, exist_ok=True)
    part = folder / f"{LAST_RUN}.partial"
    part.write_text(json.dumps(stats.as_dict(), indent=2), encoding="utf-8")
    part.replace(folder / LAST_RUN)
    for old in _backups(folder)[max(0, keep) :]:
        if stats.backup is None or old != Path(stats.backup):
            old.unlink(missing_ok=True)


class _BackupWriter:
    """Gzip JSON lines written to a `.partial` file, synced and renamed on close: a
    backup under its final name is complete (its footer says how many rows it holds)."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        self.part = path.with_name(path.name + ".partial")
        self.raw = self.part.open("wb")
        self.zipped = gzip.GzipFile(
            filename="", mode="wb", fileobj=self.raw, mtime=0, compresslevel=6
        )
        self.text = io.TextIOWrapper(self.zipped, encoding="utf-8", newline="\n")
        self.counts = {"tombstones": 0, "vectors": 0}
        self._line({"header": header})

    def _line(self, value: Any) -> None:
        self.text.write(json.dumps(value, ensure_ascii=False) + "\n")

    def tombstones(self, rows: Sequence[Tombstone]) -> None:
        for t in rows:
            # By hand: dataclasses.asdict deep-copies every value, half the collection's time.
            chunk = {name: getattr(t.chunk, name) for name in _CHUNK_FIELDS}
            self._line(
                {
                    "tombstone": {
                        "chunk": chunk,
                        "reason": t.reason,
                        "deleted_at": t.deleted_at,
                        "indexed_at": t.indexed_at,
                    }
                }
            )
        self.counts["tombstones"] += len(rows)

    def vectors(self, items: Sequence[tuple[str, str, Vectors]]) -> None:
        for model, key, vector in items:
            data = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")
            self._line({"vector": {"model": model, "key": key, "vector": data}})
        self.counts["vectors"] += len(items)

    def close(self) -> Path:
        self._line({"end": self.counts})
        self.text.close()  # closes the gzip stream, not the file under it
        self.raw.flush()
        os.fsync(self.raw.fileno())
        self.raw.close()
        self.part.replace(self.path)
        return self.path

    def abort(self) -> None:
        self.raw.close()
        self.part.unlink(missing_ok=True)


@dataclass(slots=True)
class GCBackup:
    """A pre-GC backup file, checked whole (header, rows, footer) before use."""

    path: Path
    header: dict[str, Any]
    tombstones: int
    vectors: int


def read_gc_backup(path: Path) -> GCBackup:
    """Check a pre-GC backup: InputError naming what is wrong (not one, truncated,
    another version)."""
    counts = {"tombstones": 0, "vectors": 0}
    header: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    try:
        for n, item in enumerate(_lines(path)):
            if n == 0:
                header = item.get("header") if isinstance(item, dict) else None
                if not isinstance(header, dict) or header.get("format") != BACKUP_FORMAT:
                    raise InputError(
                        f"{path} is gzip JSON lines but not a pre-GC backup of Code Compass "
                        "(no codecompass-gc-backup header)."
                    )
                if header.get("version") != BACKUP_VERSION:
                    raise InputError(
                        f"{path} is a pre-GC backup of version {header.get('version')}; this "
                        f"Code Compass reads version {BACKUP_VERSION}."
                    )
            elif end is not None:
                raise InputError(f"{path} has lines after its end marker; it is damaged.")
            elif "tombstone" in item:
                counts["tombstones"] += 1
            elif "vector" in item:
                counts["vectors"] += 1
            elif "end" in item:
                end = item["end"]
            else:
                raise InputError(f"{path}: line {n + 1} is neither a tombstone nor a vector.")
    except (OSError, EOFError, gzip.BadGzipFile, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"{path} is not a readable pre-GC backup ({exc}).") from exc
    if header is None or end != counts:
        raise InputError(
            f"{path} is incomplete (expected {end}, found {counts}): it was cut short. "
            "Restore another backup."
        )
    return GCBackup(path, header, counts["tombstones"], counts["vectors"])


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
        for line in f:
            if line.strip():
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError("a line is not a JSON object")
                yield item


def restore_gc_backup(backend: Backend, path: Path, *, batch_size: int = 1000) -> dict[str, Any]:
    """Put back what a collection deleted: its tombstones exactly as they were (an id
    stored again since is left alone) and its embeddings. Under the writer lock."""
    backup = read_gc_backup(path)
    model, dim = backup.header.get("model"), int(backup.header.get("dim") or 0)
    meta = backend.meta.meta()
    recorded = meta.get("embedder_model")
    if not recorded:
        raise InputError(
            f"{path} holds what a collection removed from an index, and this data folder "
            "holds no index: restore it into the index it came from (--data-dir), or "
            "restore a full backup (`codecompass backup`) here first."
        )
    if model and recorded and (model, str(dim)) != (recorded, meta.get("embedder_dim")):
        raise ModelMismatchError(
            f"{path} comes from an index built with {model} ({dim}-d), but this one uses "
            f"{recorded} ({meta.get('embedder_dim')}-d); restore it into the index it came "
            "from (--data-dir)."
        )
    restored = 0
    vectors: dict[str, list[tuple[str, Vectors]]] = {}
    batch: list[Tombstone] = []
    with backend.snapshots.exclusive():
        for item in _lines(path):
            if "tombstone" in item:
                batch.append(_tombstone(item["tombstone"]))
                if len(batch) >= batch_size:
                    restored += backend.tombstones.restore_tombstones(batch)
                    batch = []
            elif "vector" in item:
                v = item["vector"]
                raw = np.frombuffer(base64.b64decode(v["vector"]), dtype="<f4")
                vectors.setdefault(v["model"], []).append((v["key"], raw.astype(np.float32)))
        restored += backend.tombstones.restore_tombstones(batch)
        for name, items in vectors.items():
            backend.cache.cache_vectors(name, items)
    return {
        "kind": "pre-gc",
        "backup": str(path),
        "created_at": backup.header.get("created_at"),
        "tombstones": restored,
        "skipped": backup.tombstones - restored,
        "vectors": backup.vectors,
    }


def _tombstone(values: dict[str, Any]) -> Tombstone:
    return Tombstone(
        chunk=ChunkRecord(**values["chunk"]),
        reason=str(values["reason"]),
        deleted_at=str(values["deleted_at"]),
        indexed_at=str(values["indexed_at"]),
    )
