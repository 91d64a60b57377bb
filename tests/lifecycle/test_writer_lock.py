"""One writer per embedded index (issue 14, defects 2 and 3): a second indexer started
while the first runs is refused with a message naming the first, the index stays
consistent (one vector per active chunk), and a crashed holder leaves no stale lock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.errors import IndexBusyError
from codecompass.settings import load_settings
from codecompass.storage.sqlite.lock import LOCK_FILE, WriterLock
from tests.conftest import make_git_repo

pytestmark = pytest.mark.slow


def _repo(root: Path, files: int) -> Path:
    return make_git_repo(
        root,
        {
            f"pkg/mod{i}.py": f'def handler_{i}(event):\n    """Handle event {i}."""\n'
            f"    return event.get('k{i}', {i})\n"
            for i in range(files)
        },
    )


def _index(repo: Path, data: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "codecompass", "index", str(repo), "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _vectors_and_chunks(data: Path) -> tuple[int, int]:
    with Engine(load_settings(data)) as engine:
        chunks = engine.backend.chunks.counts(engine.repo_names()[0])["chunks"]
        ids = engine.backend.vectors(384).ids()
    assert len(ids) == len(set(ids)), "duplicate vectors"
    return len(ids), chunks


@pytest.mark.parametrize("existing", [False, True], ids=["new-folder", "existing-index"])
def test_two_indexers_at_once(tmp_path: Path, existing: bool) -> None:
    repo = _repo(tmp_path / "r", 120)
    data = tmp_path / "d"
    if existing:
        assert _index(repo, data).wait(timeout=600) == 0
        for path in (repo / "pkg").glob("mod1*.py"):  # give the second run work to do
            path.write_text(path.read_text(encoding="utf-8") + "\nEXTRA = 1\n", "utf-8")
    first, second = _index(repo, data), _index(repo, data)
    results = [(p.wait(timeout=600), *p.communicate()) for p in (first, second)]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 1], results
    refused = next(err for code, _, err in results if code == 1)
    assert "Another indexer is writing the index in" in refused
    assert "indexing r since" in refused and "Traceback" not in refused
    vectors, chunks = _vectors_and_chunks(data)
    assert vectors == chunks > 0
    assert _index(repo, data).wait(timeout=600) == 0  # and it runs once the first is done


def _hold_lock(data: Path) -> subprocess.Popen[str]:
    """Another process holding the writer lock until it is killed."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from codecompass.storage.sqlite.lock import WriterLock; "
            "WriterLock(Path(sys.argv[1])).acquire('r', 'now'); print('held', flush=True); "
            "time.sleep(60)",
            str(data),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    data = tmp_path / "d"
    data.mkdir()
    holder = _hold_lock(data)
    with pytest.raises(IndexBusyError, match=f"process {holder.pid} on "):
        WriterLock(data).acquire("r", "later")
    assert json.loads((data / LOCK_FILE).read_text(encoding="utf-8"))["pid"] == holder.pid
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    lock = WriterLock(data)
    lock.acquire("r", "after the crash")  # the kernel released it with the process
    lock.acquire("r", "again")  # re-entrant in one process
    lock.release()
    lock.release()
    assert (data / LOCK_FILE).read_text(encoding="utf-8") == ""


def test_a_holder_caught_before_it_says_who_it_is_is_named(tmp_path: Path) -> None:
    """The holder writes who it is just after taking the lock: a second indexer arriving
    in between read an empty file and said "another process" (seen once in CI)."""
    import fcntl
    import threading

    (tmp_path / LOCK_FILE).write_text("", encoding="utf-8")
    held = os.open(tmp_path / LOCK_FILE, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # taken, nothing written yet
    holder = {"pid": 4242, "host": "ci", "repo": "r", "since": "now", "command": "index"}
    late = threading.Timer(0.2, os.pwrite, (held, json.dumps(holder).encode("utf-8"), 0))
    late.start()
    try:
        with pytest.raises(IndexBusyError, match="process 4242 on ci, indexing r since now"):
            WriterLock(tmp_path).acquire("r", "later")
    finally:
        late.join()
        os.close(held)
    lock = WriterLock(tmp_path)  # an empty file and a lock let go: taken within the wait
    held = os.open(tmp_path / LOCK_FILE, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.ftruncate(held, 0)
    threading.Timer(0.2, os.close, (held,)).start()
    lock.acquire("r", "soon")
    assert json.loads((tmp_path / LOCK_FILE).read_text(encoding="utf-8"))["since"] == "soon"
    lock.release()


def test_a_chunk_stored_twice_in_the_vector_store_is_repaired(tmp_path: Path) -> None:
    # Vector repair compared sets of ids and never saw duplicates (issue 14, defect 2).
    from codecompass.storage.lance import LanceVectorStore
    from tests.conftest import TinyEmbedder

    repo = _repo(tmp_path / "r", 3)
    with Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        vectors = engine.backend.vectors(engine.embedder.dim)
        assert isinstance(vectors, LanceVectorStore)
        entries = engine.backend.chunks.chunk_entries()
        first = next(iter(entries.values()))[0]
        row = engine.backend.chunks.chunks([first.id])[first.id]
        vectors.write([row], engine.embedder.embed(["again"]))  # a second copy
        assert len(vectors.ids()) == sum(len(v) for v in entries.values()) + 1
        stats = engine.index(repo)
        assert stats.vectors_repaired == 1
        ids = vectors.ids()
        assert sorted(ids) == sorted(e.id for v in entries.values() for e in v)


def test_repo_remove_waits_for_no_indexer(tmp_path: Path) -> None:
    from tests.conftest import TinyEmbedder

    repo, data = _repo(tmp_path / "r", 2), tmp_path / "d"
    with Engine(load_settings(data), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
    holder = _hold_lock(data)
    try:
        refused = subprocess.run(
            [sys.executable, "-m", "codecompass", "repo", "remove", "r", "--data-dir", str(data)],
            capture_output=True,
            text=True,
        )
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    assert refused.returncode == 1
    assert "Another indexer is writing the index in" in refused.stderr
    with Engine(load_settings(data), embedder=TinyEmbedder()) as engine:
        assert engine.repo_names() == ["r"]  # nothing removed
        assert engine.remove_repo("r")["chunks"] == 2
        assert engine.backend.repos.repos() == []
