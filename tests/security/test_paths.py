"""The path guard: what `confine` accepts, and every way it refuses a hostile path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codecompass.errors import AccessDeniedError, InputError, NotFoundError
from codecompass.security.paths import PathPolicy, confine, read_text

POLICY = PathPolicy(block=("private/**",), max_file_bytes=1000)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    (repo / "private").mkdir()
    (repo / "private" / "notes.py").write_text("x = 1\n", encoding="utf-8")
    (repo / ".git").mkdir()
    (repo / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (repo / ".env").write_text("KEY=1\n", encoding="utf-8")
    (repo / "big.txt").write_text("x" * 1001, encoding="utf-8")
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n", encoding="utf-8")
    os.symlink(outside, repo / "link_out")
    os.symlink(repo / "src", repo / "src_link")
    os.mkfifo(repo / "pipe")
    return repo


def test_plain_paths_are_accepted_and_normalized(root: Path) -> None:
    found = confine(root, "src/app.py", POLICY)
    assert (found.rel, found.is_dir, found.absolute) == ("src/app.py", False, root / "src/app.py")
    assert confine(root, "./src//app.py", POLICY).rel == "src/app.py"
    assert confine(root, "src\\app.py", POLICY).rel == "src/app.py"
    assert read_text(found) == "print('hi')\n"
    assert confine(root, ".", POLICY, allow_dir=True).rel == ""
    assert confine(root, "src", POLICY, allow_dir=True).is_dir


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../outside.txt", "'..'"),
        ("src/../../outside.txt", "'..'"),
        ("src/../app.py", "'..'"),
        ("..\\outside.txt", "'..'"),
        ("/etc/passwd", "absolute"),
        ("~/.ssh/id_rsa", "absolute"),
        ("C:\\Windows\\win.ini", "absolute"),
        ("\\\\server\\share\\x", "absolute"),
        ("file:///etc/passwd", "absolute"),
        ("%2e%2e/outside.txt", "percent-encoded"),
        ("%252e%252e%252foutside.txt", "percent-encoded"),
        ("src%2fapp.py", "percent-encoded"),
        ("\uff0e\uff0e/outside.txt", "look-alike"),
        ("src\uff0fapp.py", "look-alike"),
        ("src/app.py\x00.md", "control characters"),
        ("src/app.py\n", "control characters"),
        (".env", "secrets file"),
        (".git/config", ".git/"),
        ("private/notes.py", "block list"),
        ("link_out", "symbolic link"),
        ("src_link/app.py", "symbolic link"),
        ("pipe", "not a regular file"),
        ("big.txt", "max_file_bytes"),
    ],
)
def test_hostile_paths_are_refused(root: Path, path: str, message: str) -> None:
    with pytest.raises(AccessDeniedError, match=message.replace(".", r"\.")):
        confine(root, path, POLICY)


def test_other_refusals(root: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        confine(root, "  ", POLICY)
    with pytest.raises(InputError, match="longer than"):
        confine(root, "a/" * 600, POLICY)
    with pytest.raises(NotFoundError, match="not a file in the repository"):
        confine(root, "src/nope.py", POLICY)
    with pytest.raises(InputError, match="is a folder"):
        confine(root, "src", POLICY)
    with pytest.raises(AccessDeniedError, match="binary"):
        read_text(confine(root, "blob.bin", POLICY))


def test_allow_list_applies_to_files_only(root: Path) -> None:
    policy = PathPolicy(allow=("src/**",))
    assert confine(root, "src/app.py", policy).rel == "src/app.py"
    assert confine(root, ".", policy, allow_dir=True).rel == ""
    with pytest.raises(AccessDeniedError, match="allow list"):
        confine(root, "big.txt", policy)
