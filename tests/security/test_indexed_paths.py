"""File names that hold control characters, backslashes or other odd text: what search
returns, `open_file` opens, as that literal name, with every traversal guard still on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.errors import AccessDeniedError, InputError, NotFoundError
from codecompass.security.paths import PathPolicy, confine, read_text
from tests.conftest import TinyEmbedder, make_git_repo
from tests.peek import peek

# On POSIX each of these is one file name (the backslash is no separator).
ODD = [
    "new\nline.py",
    "tab\there.py",
    "back\\slash.py",
    "dir/carriage\rreturn.py",
    " lead and trail .py",
    "~tilde.py",
    "100%25.py",
    "c:colon.py",
]
POLICY = PathPolicy(block=("private/**",))


def module_text(name: str) -> str:
    return f"NAME = {name!r}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files = {name: module_text(name) for name in ODD}
    files["back/slash.py"] = "DECOY = 1\n"  # where `back\slash.py` used to lead
    files["private/notes.py"] = "x = 1\n"
    files[".env"] = "KEY=1\n"
    root = make_git_repo(tmp_path / "proj", files)
    outside = tmp_path / "outside.py"
    outside.write_text("SECRET = 1\n", encoding="utf-8")
    os.symlink(outside, root / "link\\out.py")
    os.symlink(root / "dir", root / "dir\tlink")
    return root


def test_open_file_opens_each_indexed_path_as_is(repo: Path, tmp_path: Path) -> None:
    with Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())[0] as engine:
        engine.index(repo)
        indexed = {p for (p,) in peek(engine, "SELECT path FROM files")}
        assert set(ODD) <= indexed
        for name in ODD:
            view = engine.open_file(name)
            assert (view.path, view.text) == (name, module_text(name).rstrip("\n"))
        hits = engine.search("NAME", k=50)
        for hit in hits:
            assert engine.open_file(hit.path, hit.start_line, hit.end_line).path == hit.path
        # A path that is not indexed keeps the strict reading.
        assert engine.open_file("back/slash.py").text == "DECOY = 1"
        with pytest.raises(NotFoundError):
            engine.open_file("back\\nothing.py")
        with pytest.raises(AccessDeniedError, match="control characters"):
            engine.open_file("new\nline.py\n")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../outside.py", "'..'"),
        ("dir/../../outside.py", "'..'"),
        ("/etc/passwd", "absolute"),
        ("", "empty"),
        ("a\0b.py", "NUL"),
        ("link\\out.py", "symbolic link"),
        ("dir\tlink/carriage\rreturn.py", "symbolic link"),
        (".env", "secrets file"),
        (".git/config", ".git/"),
        ("private/notes.py", "block list"),
    ],
)
def test_literal_paths_keep_the_traversal_guards(repo: Path, path: str, message: str) -> None:
    with pytest.raises(InputError, match=message.replace(".", r"\.")):
        confine(repo, path, POLICY, literal=True)


def test_a_literal_backslash_is_part_of_the_name(repo: Path) -> None:
    found = confine(repo, "back\\slash.py", POLICY, literal=True)
    assert (found.rel, found.absolute) == ("back\\slash.py", repo / "back\\slash.py")
    assert read_text(found) == module_text("back\\slash.py")
    with pytest.raises(NotFoundError):
        confine(repo, "dir\\..\\..\\outside.py", POLICY, literal=True)  # one odd name
