"""Whole-index backups and restores: a backup of a live index (uncommitted writes of
another connection left out) restores into a new folder, or over a changed index, and
answers every search exactly as before; wrong files, another model and a running
indexer are refused with nothing changed. Then the commands end to end with the real
embedding model: backup, restore, gc and their errors."""

from __future__ import annotations

import dataclasses
import gzip
import json
import sqlite3
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import Engine
from codecompass.errors import ConfigError, IndexBusyError, InputError, ModelMismatchError
from codecompass.lifecycle.gc import collect_garbage
from codecompass.settings import StorageSettings, load_settings
from codecompass.storage.sqlite.lock import WriterLock
from tests.conftest import TinyEmbedder, make_git_repo
from tests.pg import Cluster

FILES = {
    "shop/orders.py": (
        "class OrderBook:\n    def add(self, order_id, amount):\n"
        "        self.orders[order_id] = amount\n\n"
        "    def cancel(self, order_id):\n        return self.orders.pop(order_id, None)\n"
    ),
    "shop/money.py": "def cents(amount):\n    return int(amount * 100)\n",
    "docs/guide.md": "# Guide\n\n## Cancelling\n\nCall `OrderBook.cancel` with the id.\n",
}
QUERIES = ["cancel an order", "amount in cents", "guide to cancelling", "OrderBook.add"]


class OtherTiny(TinyEmbedder):
    model_id = "test:other-hash-64"


def answers(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    return {q: [h.model_dump() for h in engine.search(q, k=5)] for q in QUERIES}


def counts(engine: Engine) -> dict[str, Any]:
    backend = engine.backend
    return {
        "repos": {r.id: backend.chunks.counts(r.id) for r in backend.repos.repos()},
        "vectors": sorted(backend.vectors(TinyEmbedder.dim).ids()),
    }


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Engine, Path]]:
    repo = make_git_repo(tmp_path / "shop", FILES)
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        yield engine, repo


def test_a_backup_of_a_live_index_restores_the_same_answers(
    live: tuple[Engine, Path], tmp_path: Path
) -> None:
    engine, _ = live
    data = engine.settings.data_dir
    assert (data / "index.sqlite-wal").stat().st_size > 0  # committed pages not yet in the file
    expected, expected_counts = answers(engine), counts(engine)
    # Another connection is in the middle of a write: the backup neither waits for it
    # nor holds what it has not committed.
    writer = sqlite3.connect(data / "index.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO repos(id, root, created_at) VALUES ('half', '/x', 'now')")
    info = engine.backup(tmp_path / "one.sqlite")
    writer.execute("ROLLBACK")
    writer.close()
    assert (info["kind"], info["repos"], info["chunks"], info["tombstones"]) == (
        "full",
        ["shop"],
        sum(c["chunks"] for c in expected_counts["repos"].values()),
        0,
    )
    embedder = TinyEmbedder()
    with Engine(load_settings(tmp_path / "restored"), embedder=embedder) as restored:
        done = restored.restore(tmp_path / "one.sqlite")
        assert (done["kind"], done["repos"], done["vectors_embedded"]) == ("full", ["shop"], 0)
        assert done["vectors_written"] == len(expected_counts["vectors"])
        assert counts(restored) == expected_counts
        assert answers(restored) == expected
    assert embedder.embedded == QUERIES  # only the queries: no chunk embedded again


def test_a_backup_goes_into_a_folder_or_the_data_folder(
    live: tuple[Engine, Path], tmp_path: Path
) -> None:
    engine, _ = live
    folder = tmp_path / "safe"
    folder.mkdir()
    into_folder = Path(engine.backup(folder)["backup"])
    default = Path(engine.backup()["backup"])
    assert into_folder.parent == folder and into_folder.name.startswith("index-")
    assert default.parent == engine.settings.data_dir / "backups"
    with pytest.raises(InputError, match="already exists"):
        engine.backup(into_folder)


def test_restore_over_a_changed_index(live: tuple[Engine, Path], tmp_path: Path) -> None:
    """Restoring into the live index: it answers as at the backup, and so does another
    engine that had it open all along."""
    engine, repo = live
    expected, expected_counts = answers(engine), counts(engine)
    backup = Path(engine.backup(tmp_path / "b.sqlite")["backup"])
    with Engine(load_settings(engine.settings.data_dir), embedder=TinyEmbedder()) as reader:
        assert answers(reader) == expected
        (repo / "shop/money.py").write_text("def euros(amount):\n    return amount\n", "utf-8")
        (repo / "docs/guide.md").unlink()
        engine.index(repo)
        assert answers(engine) != expected
        engine.restore(backup)
        assert counts(engine) == expected_counts
        assert answers(engine) == expected
        assert answers(reader) == expected


def _text(path: Path) -> Path:
    path.write_text("not a backup\n", encoding="utf-8")
    return path


def _gzip(path: Path) -> Path:
    path = path.with_suffix(".jsonl.gz")
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write('{"hello": 1}\n')
    return path


def _other_sqlite(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    return path


def _cut_pre_gc(path: Path, engine: Engine, repo: Path) -> Path:
    (repo / "shop/money.py").unlink()
    engine.index(repo)
    stats = collect_garbage(
        engine.backend, None, engine.settings, now=datetime.now(UTC) + timedelta(days=8)
    )
    whole = gzip.decompress(Path(str(stats.backup)).read_bytes())
    path = path.with_suffix(".jsonl.gz")
    path.write_bytes(gzip.compress(whole[: whole.rindex(b'{"end"')]))  # no end marker
    return path


def _own_db(path: Path, engine: Engine, repo: Path) -> Path:
    return engine.settings.data_dir / "index.sqlite"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_text, "is not a Code Compass backup"),
        (_gzip, "not a pre-GC backup of Code Compass"),
        (_other_sqlite, "not a Code Compass index"),
        (_cut_pre_gc, "is incomplete"),
        (_own_db, "this index's own database"),
        (lambda p: p, "does not exist"),
        (lambda p: p.parent, "is not a file"),
    ],
    ids=["text", "gzip", "sqlite", "cut-short", "own-database", "missing", "folder"],
)
def test_restore_refuses_a_wrong_file(
    live: tuple[Engine, Path], tmp_path: Path, make: Any, message: str
) -> None:
    engine, repo = live
    args = (engine, repo) if make in (_cut_pre_gc, _own_db) else ()
    path = make(tmp_path / "wrong.bin", *args)
    before, before_counts = answers(engine), counts(engine)
    with pytest.raises(InputError, match=message):
        engine.restore(path)
    assert (answers(engine), counts(engine)) == (before, before_counts)


def test_restore_refuses_another_model(live: tuple[Engine, Path], tmp_path: Path) -> None:
    engine, _ = live
    backup = Path(engine.backup(tmp_path / "b.sqlite")["backup"])
    with Engine(load_settings(tmp_path / "other"), embedder=OtherTiny()) as other:
        with pytest.raises(ModelMismatchError, match="test:tiny-hash-64 .64-d., but test:other"):
            other.restore(backup)
        assert other.backend.repos.repos() == []


def test_restore_refuses_while_an_indexer_runs(live: tuple[Engine, Path], tmp_path: Path) -> None:
    engine, repo = live
    backup = Path(engine.backup(tmp_path / "b.sqlite")["backup"])
    (repo / "shop/money.py").unlink()
    engine.index(repo)
    after = answers(engine)
    lock = WriterLock(engine.settings.data_dir)
    lock.acquire("shop", "2026-01-01T00:00:00.000+00:00")
    try:
        with pytest.raises(IndexBusyError, match="indexing shop since 2026-01-01"):
            engine.restore(backup)
    finally:
        lock.release()
    assert answers(engine) == after


def test_a_pre_gc_backup_belongs_to_an_index(live: tuple[Engine, Path], tmp_path: Path) -> None:
    engine, repo = live
    (repo / "shop/money.py").unlink()
    engine.index(repo)
    stats = engine.gc(force=True)
    empty = Engine(load_settings(tmp_path / "empty"), embedder=TinyEmbedder())
    with empty, pytest.raises(InputError, match="holds no index"):
        empty.restore(stats["backup"])
    with Engine(load_settings(tmp_path / "other"), embedder=OtherTiny()) as other:
        other.index(repo)
        with pytest.raises(ModelMismatchError, match="comes from an index built with"):
            other.restore(stats["backup"])
    assert engine.restore(stats["backup"])["tombstones"] == stats["tombstones_removed"] == 1


def test_the_server_backend_names_its_backup_tools(tmp_path: Path, pg_cluster: Cluster) -> None:
    storage = StorageSettings(
        backend="server", postgres_url=pg_cluster.url(), workspace=f"b-{uuid.uuid4().hex[:8]}"
    )
    settings = dataclasses.replace(load_settings(tmp_path / "server"), storage=storage)
    repo = make_git_repo(tmp_path / "shop", FILES)
    with Engine(settings, embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        with pytest.raises(ConfigError, match="pg_dump .*`codecompass export FILE`"):
            engine.backup(tmp_path / "b.sqlite")
        backup = tmp_path / "embedded.sqlite"
        with Engine(load_settings(tmp_path / "e"), embedder=TinyEmbedder()) as embedded:
            embedded.index(repo)
            embedded.backup(backup)
        with pytest.raises(ConfigError, match="restores into the embedded backend only"):
            engine.restore(backup)


# -- the commands, with the real embedding model -----------------------------------------
def cli(*args: str) -> tuple[int, Any]:
    result = CliRunner().invoke(main, list(args))
    try:
        return result.exit_code, json.loads(result.output)
    except ValueError:
        return result.exit_code, result.output


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli-backup")
    repo = make_git_repo(root / "shop", FILES)
    code, _ = cli("index", str(repo), "--data-dir", str(root / "data"), "--json")
    assert code == 0
    return repo, root / "data"


def search(data: Path) -> dict[str, Any]:
    out = {}
    for q in QUERIES:
        code, found = cli("search", q, "--data-dir", str(data), "--json", "-k", "5")
        assert code == 0, found
        out[q] = [(h["path"], h["start_line"], h["score"]) for h in found["results"]]
    return out


@pytest.mark.slow
def test_backup_and_restore_commands(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    _, data = indexed
    expected = search(data)
    code, info = cli("backup", str(tmp_path / "b.sqlite"), "--data-dir", str(data), "--json")
    assert code == 0 and info["backup"] == str(tmp_path / "b.sqlite")
    code, done = cli("restore", info["backup"], "--data-dir", str(tmp_path / "r"), "--json")
    assert code == 0 and (done["kind"], done["vectors_embedded"]) == ("full", 0)
    assert search(tmp_path / "r") == expected
    code, out = cli("restore", info["backup"], "--data-dir", str(tmp_path / "r"))
    assert code == 0 and "Restored shop (" in out and "0 embedded again" in out
    # Errors: one line, exit 1, nothing changed.
    code, err = cli("backup", info["backup"], "--data-dir", str(data), "--json")
    assert (code, err["error"]["code"]) == (1, "invalid_argument")
    assert "already exists" in err["error"]["message"]
    code, out = cli("restore", str(_text(tmp_path / "x.txt")), "--data-dir", str(data))
    assert code == 1 and "is not a Code Compass backup" in out and "Traceback" not in out
    lock = WriterLock(data)
    lock.acquire("shop", "2026-01-01T00:00:00.000+00:00")
    try:
        code, err = cli("restore", info["backup"], "--data-dir", str(data), "--json")
    finally:
        lock.release()
    assert (code, err["error"]["code"]) == (1, "index_busy")
    assert search(data) == expected


@pytest.mark.slow
def test_restore_command_refuses_another_model(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "shop", FILES)
    with Engine(load_settings(tmp_path / "tiny"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        backup = engine.backup(tmp_path / "tiny.sqlite")["backup"]
    code, err = cli("restore", backup, "--data-dir", str(tmp_path / "onnx"), "--json")
    assert (code, err["error"]["code"]) == (1, "model_mismatch")
    assert "all-MiniLM-L6-v2" in err["error"]["message"]


@pytest.mark.slow
def test_gc_commands(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    repo, data = indexed
    (repo / "shop/money.py").unlink()
    code, _ = cli("index", str(repo), "--data-dir", str(data), "--json")
    assert code == 0
    code, stats = cli("gc", "--stats", "--data-dir", str(data), "--json")
    assert code == 0
    assert stats["tombstones"]["file_removed"] | {"oldest": None} == {
        "count": 1,
        "oldest": None,
        "due": 0,
        "retention_days": 7,
    }
    assert (stats["total"], stats["due"], stats["auto"]["would_run"]) == (1, 0, False)
    code, out = cli("gc", "--stats", "--data-dir", str(data))
    assert code == 0 and "file_removed: 1" in out and "kept 7 days" in out
    code, dry = cli("gc", "--dry-run", "--data-dir", str(data), "--json")
    assert code == 0 and (dry["dry_run"], dry["removed"]) == (True, {})
    code, dry = cli("gc", "--dry-run", "--force", "--data-dir", str(data), "--json")
    assert code == 0 and dry["removed"] == {"file_removed": 1} and dry["backup"] is None
    code, done = cli("gc", "--force", "--data-dir", str(data), "--json")
    assert code == 0 and done["removed"] == {"file_removed": 1} and done["remaining"] == {}
    assert done["vacuumed"] and done["backup"].endswith(".jsonl.gz")
    code, out = cli("restore", done["backup"], "--data-dir", str(data))
    assert code == 0 and "Restored 1 tombstones (0 already there)" in out
    code, out = cli("gc", "--force", "--data-dir", str(data))
    assert code == 0 and "Removed 1 tombstones (file_removed 1)" in out and "Backup:" in out
    code, out = cli("gc", "--stats", "--force", "--data-dir", str(data))
    assert code == 2 and "--stats only reports" in out
    code, err = cli("gc", "--data-dir", str(tmp_path / "nothing"), "--json")
    assert (code, err["error"]["code"]) == (1, "not_indexed")
