"""`codecompass hooks install|uninstall`: a commit re-indexes in the background, a hook
that was there before keeps running, and uninstall puts everything back as it was."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git, make_git_repo

pytestmark = pytest.mark.slow

PREVIOUS = '#!/bin/sh\necho "$1" >> "$(git rev-parse --show-toplevel)/.previous-hook-ran"\n'


def _cc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codecompass", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _search_paths(repo: Path, query: str) -> list[str]:
    done = _cc("search", query, "--json", "-k", "3", cwd=repo)
    assert done.returncode == 0, done.stderr
    return [r["path"] for r in json.loads(done.stdout)["results"]]


def test_hooks_reindex_after_a_commit_and_uninstall_restores(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"app.py": "def alpha():\n    return 1\n"})
    hooks = repo / ".git" / "hooks"
    (hooks / "post-commit").write_text(PREVIOUS, encoding="utf-8")
    (hooks / "post-commit").chmod(0o755)
    before = (hooks / "post-commit").read_bytes()
    assert _cc("index", cwd=repo).returncode == 0

    done = _cc("hooks", "install", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["installed"] == ["post-commit", "post-merge", "post-checkout", "post-rewrite"]
    assert report["kept"] == ["post-commit"]
    assert (hooks / "post-commit.codecompass-saved").read_bytes() == before
    assert _cc("hooks", "install", cwd=repo).returncode == 0  # idempotent

    (repo / "billing.py").write_text(
        "def charge_customer_card(amount):\n    return amount\n", encoding="utf-8"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "billing")
    assert (repo / ".previous-hook-ran").exists()  # the old hook still ran
    deadline = time.monotonic() + 120
    while "billing.py" not in _search_paths(repo, "charge customer card"):
        assert time.monotonic() < deadline, (repo / ".codecompass" / "hooks.log").read_text()
        time.sleep(1)

    done = _cc("hooks", "uninstall", "--json", cwd=repo)
    report = json.loads(done.stdout)
    assert report["removed"] == ["post-commit", "post-merge", "post-checkout", "post-rewrite"]
    assert report["restored"] == ["post-commit"]
    assert (hooks / "post-commit").read_bytes() == before
    assert sorted(p.name for p in hooks.iterdir() if "codecompass" in p.name) == []
    assert not any((hooks / name).exists() for name in ("post-merge", "post-checkout"))
