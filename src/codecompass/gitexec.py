"""The one way Code Compass runs git.

Every call gets the same environment: the caller's variables that would point git at
another repository (GIT_DIR and friends, set inside git hooks) are dropped, git never
prompts for credentials, and reads take no optional locks (a `git status` run by us must
not block the user's own git). Callers decide what a failure means for them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

_REDIRECT_VARS = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"}
)


class GitMissing(FileNotFoundError):
    """git is not installed (not on PATH)."""


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REDIRECT_VARS}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def git_binary() -> str:
    git = shutil.which("git")
    if git is None:
        raise GitMissing("git is not installed (not found on PATH)")
    return git


def run_git(args: Sequence[str], *, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS`; raises GitMissing, OSError or subprocess.TimeoutExpired."""
    return subprocess.run(
        [git_binary(), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        timeout=timeout,
        env=git_env(),
    )


def start_git(args: Sequence[str]) -> subprocess.Popen[bytes]:
    """A long-running `git ARGS` talking over stdin/stdout (`cat-file --batch`)."""
    return subprocess.Popen(
        [git_binary(), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=git_env(),
    )


def git_text(folder: Path, *args: str, timeout: float = 10) -> str | None:
    """The stripped output of `git -C FOLDER ARGS`, or None when git is missing, fails
    or times out (for questions whose answer is optional: the work tree, HEAD)."""
    try:
        out = run_git(["-C", str(folder), *args], timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.decode("utf-8", "replace").strip() or None
