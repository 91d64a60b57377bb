"""When HEAD moved since the last run, the files `git diff` names are confirmed by hash
even when their size and mtime look unchanged (issue 14: "`sync` silently no-ops when the
worktree is ahead of the index")."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from codecompass.engine import Engine
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder, git, make_git_repo


def _edit_keeping_size_and_mtime(path: Path, text: str) -> None:
    st = path.stat()
    assert len(text.encode("utf-8")) == st.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _bodies(engine: Engine) -> list[str]:
    entries = engine.backend.chunks.chunk_entries()
    ids = [e.id for es in entries.values() for e in es]
    return sorted(c.text for c in engine.backend.chunks.chunks(ids).values())


def test_a_commit_that_kept_size_and_mtime_is_indexed(tmp_path: Path) -> None:
    repo = make_git_repo(
        tmp_path / "r", {"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 5\n"}
    )
    with Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        _edit_keeping_size_and_mtime(repo / "a.py", "def a():\n    return 2\n")
        git(repo, "commit", "-qam", "two")
        stats = engine.index(repo)
        assert (stats.changed, stats.unchanged) == (1, 1)
        assert _bodies(engine) == ["def a():\n    return 2", "def b():\n    return 5"]
        # HEAD stayed: size and mtime decide again, no file is read.
        again = engine.index(repo)
        assert (again.changed, again.unchanged) == (0, 2)


def test_an_unknown_last_commit_confirms_every_file_by_hash(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"a.py": "def a():\n    return 1\n"})
    with Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        (record,) = engine.backend.repos.repos()
        # As after a rebase and `git gc`: the commit last indexed is gone.
        engine.backend.repos.save_repo(replace(record, last_commit="0" * 40))
        _edit_keeping_size_and_mtime(repo / "a.py", "def a():\n    return 7\n")
        stats = engine.index(repo)
        assert (stats.changed, stats.unchanged) == (1, 0)
        assert _bodies(engine) == ["def a():\n    return 7"]
