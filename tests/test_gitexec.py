"""The one git runner: the caller's GIT_DIR cannot redirect it, prompts and optional
locks are off, and optional questions answer None instead of failing."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecompass import gitexec
from codecompass.gitexec import git_env, git_text
from tests.conftest import git, make_git_repo


def test_redirecting_variables_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", "/elsewhere/.git")
    monkeypatch.setenv("GIT_WORK_TREE", "/elsewhere")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "kept")
    env = git_env()
    assert "GIT_DIR" not in env and "GIT_WORK_TREE" not in env
    assert env["GIT_AUTHOR_NAME"] == "kept"
    assert (env["GIT_TERMINAL_PROMPT"], env["GIT_OPTIONAL_LOCKS"]) == ("0", "0")


def test_git_text_answers_or_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_git_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    other = make_git_repo(tmp_path / "other", {"b.py": "y = 2\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    assert head != git(other, "rev-parse", "HEAD").strip()
    # A hook's GIT_DIR naming another repository does not change the answer.
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    assert git_text(repo, "rev-parse", "HEAD") == head
    plain = tmp_path / "plain"
    plain.mkdir()
    assert git_text(plain, "rev-parse", "--show-toplevel") is None
    monkeypatch.setattr(gitexec.shutil, "which", lambda _: None)
    assert git_text(repo, "rev-parse", "HEAD") is None
    with pytest.raises(gitexec.GitMissing):
        gitexec.run_git(["--version"], timeout=5)
