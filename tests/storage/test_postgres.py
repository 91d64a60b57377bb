"""What only the PostgreSQL backend has: numbered migrations, writers of several
repositories at once (one writer per repository, by advisory lock), and the one-line
answer when the server extra is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from codecompass.errors import ConfigError, DataDirError
from codecompass.settings import StorageSettings, load_settings
from codecompass.storage import open_backend
from tests.conftest import make_git_repo
from tests.pg import Cluster

psycopg = pytest.importorskip("psycopg", reason="the server extra is not installed")
from codecompass.storage.postgres.migrations import MIGRATIONS, migrate  # noqa: E402
from codecompass.storage.server import open_server  # noqa: E402


def test_migrations_are_numbered_applied_once_and_newer_ones_refused(pg_cluster: Cluster) -> None:
    url = pg_cluster.create_database()
    with psycopg.connect(url, autocommit=True) as conn:
        assert migrate(conn) == [name for name, _ in MIGRATIONS]
        assert migrate(conn) == []
        numbers = [r[0] for r in conn.execute("SELECT number FROM schema_migrations ORDER BY 1")]
        assert numbers == list(range(1, len(MIGRATIONS) + 1))
        conn.execute(
            "INSERT INTO schema_migrations(number, name) VALUES (%s, 'from the future')",
            (len(MIGRATIONS) + 1,),
        )
        with pytest.raises(DataDirError, match="newer Code Compass"):
            migrate(conn)


def test_workspaces_share_a_database_and_never_see_each_other(pg_cluster: Cluster) -> None:
    url = pg_cluster.create_database()
    a = open_server(StorageSettings(backend="server", postgres_url=url, workspace="a"))
    b = open_server(StorageSettings(backend="server", postgres_url=url, workspace="b"))
    try:
        from codecompass.models import RepoRecord

        a.repos.save_repo(RepoRecord("shared-name", "/a"))
        a.meta.init_meta({"embedder_model": "m"})
        assert [r.root for r in a.repos.repos()] == ["/a"]
        assert b.repos.repos() == [] and b.meta.meta() == {}
    finally:
        a.close()
        b.close()


def _codecompass(data: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPASS_")}
    return subprocess.Popen(
        [sys.executable, "-m", "codecompass", *args, "--data-dir", str(data), "--json"],
        stdout=subprocess.PIPE,  # with --json an error is a JSON object on stdout
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_indexers_of_several_repositories_write_at_once(
    tmp_path: Path, pg_cluster: Cluster
) -> None:
    url = pg_cluster.create_database()
    repos = {
        name: make_git_repo(
            tmp_path / name,
            {
                f"{name}/core.py": f'"""{name}."""\n\n\ndef run_{name}(x):\n    return x * 2\n',
                f"{name}/util.py": f"def helper_{name}(y):\n    return y + 1\n",
            },
        )
        for name in ("alpha", "beta")
    }
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        f'[storage]\nbackend = "server"\npostgres_url = "{url}"\nworkspace = "team"\n',
        encoding="utf-8",
    )
    # Two repositories at once, and the same repository twice at once.
    procs = [
        _codecompass(data, "repo", "add", str(repos["alpha"]), "--name", "alpha"),
        _codecompass(data, "repo", "add", str(repos["beta"]), "--name", "beta"),
        _codecompass(data, "index", str(repos["alpha"]), "--name", "alpha"),
    ]
    errors = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    backend = open_backend(load_settings(data))
    try:
        assert [r.id for r in backend.repos.repos()] == ["alpha", "beta"]
        for name in ("alpha", "beta"):
            counts = backend.chunks.counts(name)
            assert (counts["files"], counts["symbols"], counts["tombstones"]) == (2, 2, 0)
        alpha_runs = [r.status for r in backend.runs.runs("alpha")]
        assert alpha_runs == ["ok", "ok"]  # the second writer waited for the first
        active = sorted(e.id for group in backend.chunks.chunk_entries().values() for e in group)
        dim = int(backend.meta.meta()["embedder_dim"])
        assert sorted(backend.vectors(dim).ids()) == active  # every chunk once
    finally:
        backend.close()


def test_the_server_backend_without_its_extra_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(sys.modules):
        if name.startswith(("codecompass.storage.server", "codecompass.storage.postgres")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "psycopg", None)
    settings = load_settings(tmp_path, environ={"CODECOMPASS_STORAGE_BACKEND": "server"})
    with pytest.raises(ConfigError) as raised:
        open_backend(settings)
    message = str(raised.value)
    assert "pip install 'codecompass[server]'" in message and "\n" not in message


def test_every_file_is_read_again_after_the_upgrade(pg_cluster: Cluster) -> None:
    url = pg_cluster.create_database()
    names = [name for name, _ in MIGRATIONS]
    before = names.index("0002_files_decode_error_read_again")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(MIGRATIONS[0][1])
        conn.execute(
            "CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        conn.execute("INSERT INTO schema_migrations(number, name) VALUES (1, %s)", (names[0],))
        for path, text in (("lossy.py", "x = 'caf\ufffd'"), ("clean.py", "x = 1")):
            conn.execute(
                "INSERT INTO files(workspace, repo, path, language, size, mtime_ns, file_hash, "
                "line_count, indexed_at) VALUES ('w', 'r', %s, 'python', 9, 5, 'h', 1, 'now')",
                (path,),
            )
            conn.execute(
                "INSERT INTO chunks(workspace, id, repo, path, language, kind, signature, "
                "start_line, end_line, header, text, text_hash, file_hash, embed_key, tokens, "
                "indexed_at) VALUES ('w', %s, 'r', %s, 'python', 'module', '', 1, 1, '', %s, "
                "'t', 'h', 'k', 1, 'now')",
                (path, path, text),
            )
        assert migrate(conn) == names[before:]
        rows = conn.execute(
            "SELECT path, mtime_ns, decode_error FROM files ORDER BY path"
        ).fetchall()
        assert rows == [("clean.py", -1, None), ("lossy.py", -1, None)]


def test_vector_writers_of_one_workspace_at_once_keep_one_row_per_chunk(
    pg_cluster: Cluster,
) -> None:
    # Indexers of two repositories each reconcile the whole vector store at the end of
    # their runs: both wrote the same missing vectors, and the second failed on the key
    # (UniqueViolation, one CI run in many).
    import threading
    from dataclasses import dataclass

    import numpy as np

    @dataclass(frozen=True)
    class Row:
        id: str
        repo: str = "alpha"
        path: str = "a.py"
        language: str = "python"
        kind: str = "function"

    url = pg_cluster.create_database()
    storage = StorageSettings(backend="server", postgres_url=url, workspace="team")
    backends = [open_server(storage) for _ in range(4)]
    backends[0].meta.init_meta({"embedder_model": "m"})
    rows = [Row(f"chunk-{i}") for i in range(400)]
    vectors = np.ones((len(rows), 8), dtype=np.float32)
    start = threading.Barrier(len(backends))
    failures: list[BaseException] = []

    def write(store_of: int) -> None:
        store = backends[store_of].vectors(8)
        start.wait()
        try:
            for _ in range(3):
                store.write(rows, vectors)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(backends))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert failures == []
        assert sorted(backends[0].vectors(8).ids()) == sorted(row.id for row in rows)
    finally:
        for backend in backends:
            backend.close()
