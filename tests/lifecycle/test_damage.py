"""A damaged store never prints a traceback (issue 14, defects 5 and 6): the error names
what is damaged and how to recover, from every command that touches it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_git_repo

pytestmark = pytest.mark.slow


def _run(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codecompass", *args, "--data-dir", str(data)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("damage")
    repo = make_git_repo(
        root / "r",
        {"app.py": 'def verify_token(token):\n    """Check a token."""\n    return bool(token)\n'},
    )
    data = root / "clean"
    assert _run(data, "index", str(repo)).returncode == 0
    return repo, data


def _copy(data: Path, tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(data, target)
    return target


def test_a_database_with_its_header_overwritten(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    repo, clean = indexed
    data = _copy(clean, tmp_path)
    db = data / "index.sqlite"
    with db.open("r+b") as f:
        f.write(b"this is not a sqlite header")
    for args in (
        ("status",),
        ("search", "token"),
        ("open", "app.py"),
        ("index", str(repo)),
    ):
        done = _run(data, *args)
        assert done.returncode == 1, (args, done.stderr)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert "The index database (index.sqlite) is damaged" in done.stderr, args
        assert "run `codecompass index` again" in done.stderr
    done = _run(data, "search", "token", "--json")
    assert json.loads(done.stdout)["error"]["code"] == "index_damaged"


def test_a_vector_store_with_its_manifests_overwritten(
    indexed: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, clean = indexed
    data = _copy(clean, tmp_path)
    for manifest in (data / "vectors" / "chunks.lance" / "_versions").iterdir():
        manifest.write_bytes(b"garbage" * 10)
    for args in (("search", "check a token"), ("index", str(repo), "--full")):
        done = _run(data, *args)
        assert done.returncode == 1, (args, done.stderr)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert "The vector store (vectors/) is damaged" in done.stderr, (args, done.stderr)
    shutil.rmtree(data / "vectors")  # what the message says to do
    assert _run(data, "index", str(repo)).returncode == 0
    done = _run(data, "search", "check a token", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["results"][0]["path"] == "app.py"


def test_a_missing_vector_folder_is_said_not_silent(
    indexed: tuple[Path, Path], tmp_path: Path
) -> None:
    # Issue 14, defect 7: search silently lost its dense half and status said nothing.
    repo, clean = indexed
    data = _copy(clean, tmp_path)
    shutil.rmtree(data / "vectors")
    done = _run(data, "search", "check a token", "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["coverage"] == {"dense": 0.0}
    assert "Dense search saw 0% of the chunks" in done.stderr
    status = json.loads(_run(data, "status", "--json").stdout)
    assert status["vectors"] == {"stored": 0, "active_chunks": 1}
    assert "vectors: 0 for 1 active chunks" in _run(data, "status").stdout
    assert _run(data, "index", str(repo)).returncode == 0  # rebuilt from the cache
    done = _run(data, "search", "check a token", "--json")
    assert json.loads(done.stdout)["coverage"] == {"dense": 1.0} and done.stderr == ""


def test_a_lost_database_is_rebuilt_without_embedding_again(tmp_path: Path) -> None:
    # Issue 14, defect 4: the next run embedded everything again and left two vectors
    # per chunk.
    from codecompass.engine import Engine
    from codecompass.settings import load_settings
    from tests.conftest import TinyEmbedder

    files = {f"m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(12)}
    repo = make_git_repo(tmp_path / "r", files)
    data = tmp_path / "d"
    with Engine(load_settings(data), embedder=TinyEmbedder()) as engine:
        first = engine.index(repo)
    assert first.texts_embedded > 0
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (data / name).unlink(missing_ok=True)
    with Engine(load_settings(data), embedder=TinyEmbedder()) as engine:
        again = engine.index(repo)
        assert (again.texts_embedded, again.texts_cached) == (0, first.texts_embedded)
        ids = engine.backend.vectors(engine.embedder.dim).ids()
        assert len(ids) == len(set(ids)) == again.chunks_added
