"""git log / git blame wrappers: exact results, and arguments that must never reach git
as options."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecompass.errors import InputError, NotFoundError, OutOfRangeError
from codecompass.gitinfo import check_range, git_blame, git_log
from tests.conftest import git, make_git_repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_git_repo(
        tmp_path_factory.mktemp("git") / "r", {"a.py": "one\ntwo\n", "docs/x.md": "# X\n"}
    )
    (root / "a.py").write_text("one\nTWO\nthree\n", encoding="utf-8")
    git(root, "commit", "-qam", "second: token ghp_" + "a" * 36)
    return root


def test_log_lists_commits_newest_first_with_redacted_subjects(repo: Path) -> None:
    commits = git_log(repo, "a.py")
    assert [c.subject for c in commits] == ["second: token [REDACTED:github_token]", "initial"]
    assert all(len(c.sha) == 40 and c.author == "Test" for c in commits)
    assert [c.subject for c in git_log(repo, "", limit=1)] == [commits[0].subject]
    assert [c.subject for c in git_log(repo, "docs")] == ["initial"]
    assert [c.subject for c in git_log(repo, "a.py", rev_range="HEAD~1..HEAD")] == [
        commits[0].subject
    ]


def test_blame_groups_lines_by_commit(repo: Path) -> None:
    hunks = git_blame(repo, "a.py", 1, 3, total_lines=3)
    assert [(h.start_line, h.end_line, h.subject.split(":")[0]) for h in hunks] == [
        (1, 1, "initial"),
        (2, 3, "second"),
    ]
    assert git_blame(repo, "a.py", 2, 99, total_lines=3)[-1].end_line == 3


@pytest.mark.parametrize(
    "bad",
    [
        "--output=/tmp/pwned",
        "-p",
        "--all",
        "HEAD; rm -rf /",
        "HEAD $(id)",
        "HEAD:secret.env",
        "..",
        "a b",
        "HEAD\n--output=x",
        "refs/./x",
    ],
)
def test_ranges_that_could_be_options_are_refused(repo: Path, bad: str) -> None:
    with pytest.raises(InputError, match="not accepted"):
        check_range(bad)
    with pytest.raises(InputError, match="not accepted"):
        git_log(repo, "a.py", rev_range=bad)


def test_plain_ranges_pass(repo: Path) -> None:
    for good in ("HEAD", "HEAD~3..HEAD", "v1.2...main", "abc123", "main@{1}", "origin/main"):
        assert check_range(good) == good


def test_errors_say_what_to_fix(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not know that revision"):
        git_log(repo, "a.py", rev_range="nope-branch")
    with pytest.raises(InputError, match="max must be between 1 and 200"):
        git_log(repo, "a.py", limit=0)
    with pytest.raises(OutOfRangeError, match=r"out of bounds for a\.py \(lines 1-3\)"):
        git_blame(repo, "a.py", 5, 6, total_lines=3)
    with pytest.raises(OutOfRangeError, match=r"^Line range 3-2 is reversed; swap them: 2-3\.$"):
        git_blame(repo, "a.py", 3, 2, total_lines=3)
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotFoundError, match="not a git repository"):
        git_log(tmp_path / "plain", "")
