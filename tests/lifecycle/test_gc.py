"""Garbage collection: retention per delete reason under an injected clock, the pre-GC
backup and its exact restore, the grace period of unused embeddings, orphans, space,
the automatic collection, and the writer lock — on the embedded backend, and the same
collection on PostgreSQL."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from codecompass.engine import Engine
from codecompass.errors import IndexBusyError
from codecompass.lifecycle.gc import (
    FOREVER,
    GCStats,
    collect_garbage,
    maybe_collect,
    read_gc_backup,
    restore_gc_backup,
)
from codecompass.models import FileRemoval, Tombstone
from codecompass.settings import Settings, StorageSettings, load_settings
from codecompass.storage.sqlite.lock import WriterLock
from tests.conftest import TinyEmbedder, make_git_repo
from tests.peek import peek
from tests.pg import Cluster

FILES = {
    "a.py": "def alpha(x):\n    return x + 1\n\n\ndef beta(y):\n    return y * 2\n",
    "b.py": "def gamma(z):\n    return z - 3\n\n\ndef delta(w):\n    return w / 4\n",
    "c.py": "def epsilon(v):\n    return v ** 5\n",
    "d.py": "import os\n\n\ndef zeta(u):\n    return os.path.join(u, 'x')\n",
}
# What the changes below leave behind, by reason.
TOMBSTONES = {"chunk_modified": 1, "file_removed": 2, "file_renamed": 1, "manual_cleanup": 2}
QUERIES = ["alpha plus one", "beta times two", "epsilon power", "gamma minus"]


@dataclasses.dataclass
class Workspace:
    engine: Engine
    repo: Path
    base: datetime  # when the last tombstone was made: day 0 of the injected clock

    def collect(self, day: float, **options: bool) -> GCStats:
        return collect_garbage(
            self.engine.backend,
            self.engine.backend.vectors(TinyEmbedder.dim),
            self.engine.settings,
            now=self.base + timedelta(days=day),
            **options,
        )

    def at(self, day: float) -> datetime:
        return self.base + timedelta(days=day)


def make_tombstones(engine: Engine, repo: Path) -> datetime:
    """Index FILES, then one of each: an edited function, a deleted file, a renamed
    file (through index runs) and a file removed by hand. Returns the latest deleted_at."""
    engine.index(repo)
    (repo / "a.py").write_text(FILES["a.py"].replace("x + 1", "x + 10"), encoding="utf-8")
    (repo / "b.py").unlink()
    (repo / "c.py").rename(repo / "e.py")
    engine.index(repo)
    engine.backend.files.write_files([FileRemoval(repo.name, "d.py", "manual_cleanup")])
    (repo / "d.py").unlink()  # gone from disk too, or the next run would bring it back
    found = all_tombstones(engine)
    assert {r: len(ts) for r, ts in found.items()} == TOMBSTONES
    return max(datetime.fromisoformat(t.deleted_at) for ts in found.values() for t in ts)


def all_tombstones(engine: Engine) -> dict[str, list[Tombstone]]:
    store = engine.backend.tombstones
    return {r: store.tombstones(r, FOREVER, 10_000) for r in store.tombstone_stats({})}


def answers(engine: Engine) -> dict[str, list[tuple[str, int, float]]]:
    return {
        q: [(h.path, h.start_line, round(h.score, 9)) for h in engine.search(q, k=5)]
        for q in QUERIES
    }


def with_gc(settings: Settings, **values: object) -> Settings:
    return dataclasses.replace(settings, gc=dataclasses.replace(settings.gc, **values))


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    repo = make_git_repo(tmp_path / "r", FILES)
    engine = Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder())
    with engine:
        yield Workspace(engine, repo, make_tombstones(engine, repo))


@pytest.mark.parametrize(
    ("day", "removed"),
    [
        (6, {}),
        (8, {"file_removed": 2, "file_renamed": 1}),
        (15, {"file_removed": 2, "file_renamed": 1, "chunk_modified": 1}),
        (31, TOMBSTONES),
    ],
)
def test_retention_per_reason(ws: Workspace, day: int, removed: dict[str, int]) -> None:
    """7 days for removed and renamed files, 14 for modified chunks, 30 by hand."""
    before = answers(ws.engine)
    stats = ws.collect(day)
    assert stats.removed == removed
    left = {r: n - removed.get(r, 0) for r, n in TOMBSTONES.items() if n > removed.get(r, 0)}
    assert stats.remaining == left
    assert {r: len(ts) for r, ts in all_tombstones(ws.engine).items()} == left
    assert answers(ws.engine) == before  # active chunks are never touched
    if removed:
        backup = read_gc_backup(Path(str(stats.backup)))
        assert (backup.tombstones, backup.vectors) == (sum(removed.values()), 0)
    else:
        assert stats.backup is None  # nothing to write down


def test_collections_day_after_day(ws: Workspace) -> None:
    """Each collection takes what became due since the last; what is left and its age
    are reported."""
    removed = {}
    for day in (6, 8, 15, 31):
        stats = ws.collect(day)
        removed[day] = stats.removed
        assert stats.oldest_remaining == (
            min(
                (t.deleted_at for ts in all_tombstones(ws.engine).values() for t in ts),
                default=None,
            )
        )
    assert removed == {
        6: {},
        8: {"file_removed": 2, "file_renamed": 1},
        15: {"chunk_modified": 1},
        31: {"manual_cleanup": 2},
    }
    assert sorted(p.name for p in (ws.engine.settings.data_dir / "backups").iterdir()) == [
        "last-gc.json",
        *sorted(f"pre-gc-{ws.at(d).strftime('%Y%m%dT%H%M%S')}.jsonl.gz" for d in (8, 15, 31)),
    ]


def test_a_dry_run_counts_and_changes_nothing(ws: Workspace) -> None:
    before = all_tombstones(ws.engine)
    stats = ws.collect(31, dry_run=True)
    assert (stats.dry_run, stats.removed, stats.backup) == (True, TOMBSTONES, None)
    assert stats.remaining == {}
    assert all_tombstones(ws.engine) == before
    assert not (ws.engine.settings.data_dir / "backups").exists()


def test_force_collects_every_tombstone_at_once(ws: Workspace) -> None:
    stats = ws.collect(0, force=True)
    assert (stats.forced, stats.removed, stats.remaining, stats.vacuumed) == (
        True,
        TOMBSTONES,
        {},
        True,
    )


def test_backup_gc_restore_round_trips_exactly(ws: Workspace) -> None:
    before = all_tombstones(ws.engine)
    stats = ws.collect(31)
    assert stats.removed == TOMBSTONES and all_tombstones(ws.engine) == {}
    restored = restore_gc_backup(ws.engine.backend, Path(str(stats.backup)))
    assert (restored["tombstones"], restored["skipped"]) == (6, 0)
    assert all_tombstones(ws.engine) == before  # every field, times included
    again = restore_gc_backup(ws.engine.backend, Path(str(stats.backup)))
    assert (again["tombstones"], again["skipped"]) == (0, 6)
    # Restored tombstones are tombstones: never searched, collected again when due.
    assert [
        h for q in QUERIES for h in ws.engine.search(q, k=5) if h.path in ("b.py", "d.py")
    ] == []
    assert ws.collect(31).removed == TOMBSTONES


def test_unused_embeddings_wait_out_their_grace_period(ws: Workspace) -> None:
    """Once the tombstones go, their embeddings are unused (but for c.py's, which e.py
    still uses): kept 30 days from the collection that found them unused, then backed
    up and deleted; the restore brings back the same vectors."""
    backend = ws.engine.backend
    model = TinyEmbedder.model_id
    active = {e.embed_key for es in backend.chunks.chunk_entries().values() for e in es}
    keys = sorted({t.chunk.embed_key for ts in all_tombstones(ws.engine).values() for t in ts})
    unused = [k for k in keys if k not in active]
    assert len(unused) == 5
    cached = backend.cache.cached_vectors(model, keys)
    assert sorted(cached) == keys
    assert ws.collect(31).orphans["cache"] == 0
    waiting = ws.collect(60).orphans  # found unused at day 31: not 30 days yet
    assert (waiting["cache"], waiting["cache_waiting"]) == (0, 5)
    swept = ws.collect(62)
    assert (swept.orphans["cache"], swept.orphans["cache_waiting"]) == (5, 0)
    assert sorted(backend.cache.cached_vectors(model, keys)) == sorted(set(keys) - set(unused))
    backup = read_gc_backup(Path(str(swept.backup)))
    assert (backup.tombstones, backup.vectors) == (0, 5)
    restore_gc_backup(backend, backup.path)
    back = backend.cache.cached_vectors(model, keys)
    assert sorted(back) == keys
    for key in keys:
        np.testing.assert_array_equal(back[key], cached[key])


def test_an_embedding_used_again_is_kept(ws: Workspace) -> None:
    ws.collect(31)
    (ws.repo / "b.py").write_text(FILES["b.py"], encoding="utf-8")  # the same texts again
    embedder = ws.engine.embedder
    assert isinstance(embedder, TinyEmbedder)
    embedder.embedded.clear()
    ws.engine.index(ws.repo)
    assert embedder.embedded == []  # the cache made it free
    assert ws.collect(62).orphans["cache"] == 3  # a.py's old alpha and d.py's two only


def test_orphans_of_a_repository_deleted_without_its_graph(ws: Workspace) -> None:
    engine = ws.engine
    facts, edges = (
        peek(engine, f"SELECT count(*) FROM {t}")[0][0] for t in ("graph_facts", "edges")
    )
    assert facts > 0 and edges > 0
    engine.backend.repos.delete_repo(ws.repo.name)  # as a crash between the two steps would
    stats = ws.collect(0)
    assert (stats.orphans["facts"], stats.orphans["edges"]) == (facts, edges)
    assert [
        peek(engine, f"SELECT count(*) FROM {t}")[0][0]
        for t in ("graph_facts", "edges", "graph_nodes")
    ] == [0, 0, 0]


def test_space_is_given_back(tmp_path: Path) -> None:
    body = "".join(
        f"def handler_{n}(event):\n    return event.get('k{n}', {n}) * {n}\n\n\n"
        for n in range(300)
    )
    repo = make_git_repo(tmp_path / "r", {"big.py": body, "small.py": "def f():\n    return 1\n"})
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        (repo / "big.py").unlink()
        engine.index(repo)
        stats = collect_garbage(
            engine.backend,
            engine.backend.vectors(TinyEmbedder.dim),
            engine.settings,
            now=datetime.now(UTC) + timedelta(days=8),
        )
        assert stats.removed == {"file_removed": 300}
        assert stats.vacuumed  # most of the catalog was free pages
        (size,), (count,) = (
            peek(engine, "PRAGMA page_size")[0],
            peek(engine, "PRAGMA page_count")[0],
        )
        assert stats.bytes_after["catalog"] == size * count
        assert stats.bytes_after["catalog_free"] == 0
        assert stats.bytes_reclaimed == (
            stats.bytes_before["catalog"]
            + stats.bytes_before["vectors"]
            - stats.bytes_after["catalog"]
            - stats.bytes_after["vectors"]
        )
        assert stats.bytes_after["catalog"] < stats.bytes_before["catalog"]


def test_automatic_collection_once_the_threshold_is_due(ws: Workspace) -> None:
    backend, settings = ws.engine.backend, ws.engine.settings
    vectors = backend.vectors(TinyEmbedder.dim)
    three = with_gc(settings, auto_threshold=3)
    assert maybe_collect(backend, vectors, three, now=ws.at(6)) is None  # none due
    assert (
        maybe_collect(backend, vectors, with_gc(settings, auto_threshold=4), now=ws.at(8)) is None
    )
    assert maybe_collect(backend, vectors, with_gc(three, auto=False), now=ws.at(31)) is None
    ran = maybe_collect(backend, vectors, three, now=ws.at(8))
    assert ran is not None and ran.removed == {"file_removed": 2, "file_renamed": 1}
    assert ws.engine.maybe_gc() is None  # by the real clock nothing is due yet


def test_the_automatic_collection_steps_aside_for_a_writer(ws: Workspace) -> None:
    other = WriterLock(ws.engine.settings.data_dir)  # another process's lock, in effect
    other.acquire("r", "now")
    try:
        settings = with_gc(ws.engine.settings, auto_threshold=1)
        vectors = ws.engine.backend.vectors(TinyEmbedder.dim)
        assert maybe_collect(ws.engine.backend, vectors, settings, now=ws.at(31)) is None
        with pytest.raises(IndexBusyError, match="Another indexer is writing the index"):
            ws.collect(31)
    finally:
        other.release()
    assert {r: len(ts) for r, ts in all_tombstones(ws.engine).items()} == TOMBSTONES


def test_old_backups_are_pruned(ws: Workspace) -> None:
    ws.engine.settings = with_gc(ws.engine.settings, keep_backups=2)
    made = []
    for day in (8, 15, 31):
        stats = ws.collect(day)
        made.append(Path(str(stats.backup)).name)
    folder = ws.engine.settings.data_dir / "backups"
    assert sorted(p.name for p in folder.glob("pre-gc-*")) == made[1:]


def test_a_collection_on_postgresql(tmp_path: Path, pg_cluster: Cluster) -> None:
    """The same collection and restore on the server backend; its writer lock refuses
    while an index run holds a repository."""
    storage = StorageSettings(
        backend="server", postgres_url=pg_cluster.url(), workspace=f"gc-{uuid.uuid4().hex[:8]}"
    )
    settings = dataclasses.replace(load_settings(tmp_path / "server"), storage=storage)
    repo = make_git_repo(tmp_path / "r", FILES)
    with Engine(settings, embedder=TinyEmbedder()) as engine:
        base = make_tombstones(engine, repo)
        before = all_tombstones(engine)
        run = engine.backend.runs.start_run(repo.name)
        with pytest.raises(IndexBusyError, match=f"repository {repo.name}"):
            collect_garbage(engine.backend, None, settings, now=base + timedelta(days=31))
        engine.backend.runs.finish_run(run, "ok", {})
        stats = collect_garbage(engine.backend, None, settings, now=base + timedelta(days=8))
        assert stats.removed == {"file_removed": 2, "file_renamed": 1}
        assert stats.bytes_before["catalog"] > 0
        stats = collect_garbage(engine.backend, None, settings, now=base + timedelta(days=31))
        assert stats.removed == {"chunk_modified": 1, "manual_cleanup": 2}
        for backup in sorted((settings.data_dir / "backups").glob("pre-gc-*")):
            restore_gc_backup(engine.backend, backup)
        assert all_tombstones(engine) == before


def test_an_index_run_collects_once_enough_tombstones_are_due(tmp_path: Path) -> None:
    files = {f"m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(4)}
    repo = make_git_repo(tmp_path / "r", files)
    settings = with_gc(load_settings(tmp_path / "d"), auto_threshold=2, file_removed_days=0)
    with Engine(settings, embedder=TinyEmbedder()) as engine:
        assert engine.index(repo).gc == {}
        (repo / "m0.py").unlink()
        one = engine.index(repo)
        assert (one.removed, one.gc) == (1, {})  # one tombstone due: below the threshold
        for name in ("m1.py", "m2.py"):
            (repo / name).unlink()
        two = engine.index(repo)
        assert two.gc["removed"] == {"file_removed": 3}
        assert engine.backend.chunks.counts("r")["tombstones"] == 0
        assert len(list((tmp_path / "d" / "backups").glob("pre-gc-*.jsonl.gz"))) == 1
