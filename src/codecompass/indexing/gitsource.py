"""Read a repository at a given commit straight from git objects, with no checkout.

`GitTreeSource` lists a commit's tree (`git ls-tree -r -z -l`) and reads blobs through
one long-lived `git cat-file --batch` process. It applies the same skip rules as
`discover` (vendored folders, secrets, allow/block globs, lock, minified, generated
and binary files, size limit, content sniffing), so an index built from a commit
holds what an index of the checked-out tree would hold.

A blob has no mtime, so each `Candidate` carries a stand-in derived from the blob id:
the pipeline's "same size and mtime → unchanged" fast path then skips exactly the
files whose content did not change between two commits, and one repository name can
be moved from commit to commit with only the changed files re-read.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from codecompass import gitexec
from codecompass.decoding import size_limit
from codecompass.errors import InputError
from codecompass.gitexec import GitMissing, start_git
from codecompass.indexing.discover import (
    Candidate,
    DiscoveryResult,
    DiscoveryRules,
    _Classifier,
    sniff_file,
    vendored_dir,
)

_GIT_TIMEOUT_S = 300
_MODE_SYMLINK = "120000"
_MODE_SUBMODULE = "160000"


_NO_GIT = "git is not installed; indexing a commit needs it."


def run_git(git_dir: Path, *args: str) -> bytes:
    """Run a git command against `git_dir` (a bare repo or a `.git` folder)."""
    try:
        out = gitexec.run_git([f"--git-dir={git_dir}", *args], timeout=_GIT_TIMEOUT_S)
    except GitMissing:
        raise InputError(_NO_GIT) from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"git {args[0]} failed in {git_dir}: {exc}") from exc
    if out.returncode != 0:
        message = out.stderr.decode("utf-8", "replace").strip()
        raise InputError(f"git {args[0]} failed in {git_dir}: {message}")
    return out.stdout


def resolve_git_dir(path: Path) -> Path:
    """The git directory of a work tree or bare repository at `path`."""
    path = path.expanduser().resolve()
    if not path.exists():
        raise InputError(f"{path} does not exist; pass a git repository.")
    try:
        out = gitexec.run_git(["-C", str(path), "rev-parse", "--absolute-git-dir"], timeout=30)
    except GitMissing:
        raise InputError(_NO_GIT) from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"{path} is not a git repository ({exc}).") from exc
    found = out.stdout.decode("utf-8", "replace").strip()
    if out.returncode != 0 or not found:
        raise InputError(f"{path} is not a git repository.")
    return Path(found)


def default_repo_name(git_dir: Path) -> str:
    """`proj` for `proj/.git` and for a bare `proj.git`."""
    folder = git_dir.parent if git_dir.name == ".git" else git_dir
    return folder.name.removesuffix(".git") or "repo"


def resolve_commit(git_dir: Path, rev: str) -> str:
    """The full commit id `rev` names (a hash, branch, tag, `HEAD~3`, …)."""
    if rev.startswith("-"):
        raise InputError(f"{rev!r} is not a revision.")
    return (
        run_git(git_dir, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        .decode("ascii")
        .strip()
    )


def commit_dates(git_dir: Path, commits: list[str]) -> dict[str, int]:
    """Committer date (Unix seconds) of each commit."""
    if not commits:
        return {}
    out = run_git(git_dir, "show", "-s", "--format=%H %ct", *commits).decode("ascii")
    dates: dict[str, int] = {}
    for line in out.splitlines():
        sha, _, stamp = line.partition(" ")
        if stamp.strip().isdigit():
            dates[sha] = int(stamp)
    return dates


@dataclass(frozen=True, slots=True)
class _Entry:
    mode: str
    kind: str
    sha: str
    size: int


class GitTreeSource:
    """The files of one commit, listed and read from the object database."""

    def __init__(self, git_dir: Path, commit: str, rules: DiscoveryRules) -> None:
        self.git_dir = git_dir
        self.commit = resolve_commit(git_dir, commit)
        self.rules = rules
        self._entries: dict[str, _Entry] = {}
        self._batch: subprocess.Popen[bytes] | None = None

    @property
    def root(self) -> Path:
        return self.git_dir

    def __enter__(self) -> GitTreeSource:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._batch is not None:
            if self._batch.stdin is not None:
                self._batch.stdin.close()
            self._batch.wait(timeout=30)
            if self._batch.stdout is not None:
                self._batch.stdout.close()
            self._batch = None

    def discover(self) -> DiscoveryResult:
        """The commit's files to index, with the same skip accounting as `discover`."""
        listing = run_git(self.git_dir, "ls-tree", "-r", "-z", "-l", "--full-tree", self.commit)
        result = DiscoveryResult()
        classifier = _Classifier(self.git_dir, self.rules, result)
        records = []
        for record in listing.split(b"\0"):
            if record:
                meta, _, raw_path = record.partition(b"\t")
                records.append((meta.decode("ascii").split(), os.fsdecode(raw_path)))
        in_tree = {path for _, path in records}
        classifier.exists = in_tree.__contains__
        self._entries = {}
        for (mode, kind, sha, size), path in records:
            vendored = vendored_dir(path, classifier.exists)
            if vendored is not None:
                classifier.vendored.add(vendored)
                continue
            reason = classifier.path_reason(path)
            if reason is None:
                reason = self._entry_reason(path, mode, kind, size)
            if reason is not None:
                result.skip(reason, path)
                continue
            self._entries[path] = _Entry(mode, kind, sha, int(size))
            result.files.append(Candidate(path, Path(path), int(size), _stand_in_mtime(sha)))
        classifier.finish()
        return result

    def _entry_reason(self, path: str, mode: str, kind: str, size: str) -> str | None:
        if mode == _MODE_SYMLINK:
            return "symlink"
        if mode == _MODE_SUBMODULE or kind != "blob":
            return "submodule"
        if not size.isdigit():
            return "unreadable"
        if int(size) > size_limit(path, self.rules.max_file_bytes):
            return "too_large"
        return None

    def read(self, candidate: Candidate, max_file_bytes: int) -> bytes | str:
        """A listed file's bytes, or the skip reason its content earns."""
        entry = self._entries.get(candidate.path)
        if entry is None:
            return "unreadable"
        if entry.size > size_limit(candidate.path, max_file_bytes):
            return "too_large"
        data = self._cat(entry.sha)
        if data is None:
            return "unreadable"
        return sniff_file(data, candidate.path) or data

    def read_path(self, path: str) -> bytes | None:
        """The bytes of a file listed by `discover`, without the skip checks."""
        entry = self._entries.get(path)
        return None if entry is None else self._cat(entry.sha)

    def _cat(self, sha: str) -> bytes | None:
        if self._batch is None:
            try:
                self._batch = start_git([f"--git-dir={self.git_dir}", "cat-file", "--batch"])
            except GitMissing:
                raise InputError(_NO_GIT) from None
        stdin: IO[bytes] | None = self._batch.stdin
        stdout: IO[bytes] | None = self._batch.stdout
        assert stdin is not None and stdout is not None
        stdin.write(sha.encode("ascii") + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            return None
        size = int(header[2])
        data = stdout.read(size)
        stdout.read(1)  # the newline after each object
        return data


def _stand_in_mtime(sha: str) -> int:
    # 60 bits of the blob id fit a signed 64-bit SQLite integer.
    return int(sha[:15], 16)
