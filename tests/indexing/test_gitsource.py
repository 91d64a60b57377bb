"""Indexing a commit straight from git objects, commit after commit, into one name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codecompass.decoding import NOTEBOOK_SIZE_FACTOR
from codecompass.engine import Engine
from codecompass.errors import InputError
from codecompass.indexing.discover import DiscoveryRules
from codecompass.indexing.gitsource import GitTreeSource, commit_dates
from tests.conftest import TinyEmbedder, git, make_git_repo
from tests.indexing.test_discover import JAZZY_PAGE, TRANSLATED_DOCS

V1 = '''def verify_token(token, secret):
    """Check a token."""
    return token == secret
'''
V2 = (
    V1
    + """

def refresh_session(session):
    return session
"""
)


@pytest.fixture
def bare(tmp_path: Path) -> tuple[Path, str, str]:
    """A bare repository with two commits; no work tree exists to read from."""
    work = make_git_repo(
        tmp_path / "work",
        {
            "app/auth.py": V1,
            "app/util.py": "def slugify(t):\n    return t.lower()\n",
            "node_modules/x/index.js": "module.exports = 1\n",
            "dist/app/util.py": "def slugify(t):\n    return t\n",  # a build's output
            "build/__init__.py": "def wheel(): ...\n",  # a package named `build`: source
            ".env": "SECRET=1\n",
            "docs/Session.html": JAZZY_PAGE,
        },
    )
    first = git(work, "rev-parse", "HEAD").strip()
    (work / "app/auth.py").write_text(V2, encoding="utf-8")
    (work / "app/util.py").unlink()
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "second")
    second = git(work, "rev-parse", "HEAD").strip()
    target = tmp_path / "proj.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(target)], check=True)
    return target, first, second


def test_source_lists_and_reads_a_commit_with_the_discovery_rules(
    bare: tuple[Path, str, str],
) -> None:
    git_dir, first, _ = bare
    with GitTreeSource(git_dir, first, DiscoveryRules()) as source:
        found = source.discover()
        assert [c.path for c in found.files] == [
            "app/auth.py",
            "app/util.py",
            "build/__init__.py",
            "docs/Session.html",
        ]
        assert found.skipped["vendored"] == 2 and found.skipped["secret"] == 1
        assert source.read(found.files[0], 1 << 20) == V1.encode()
        assert source.read(found.files[3], 1 << 20) == "generated"  # by its footer
    assert set(commit_dates(git_dir, [first])) == {first}


def test_index_commit_after_commit_reuses_files_and_embeddings(
    bare: tuple[Path, str, str], tmp_path: Path
) -> None:
    git_dir, first, second = bare
    emb = TinyEmbedder()
    with Engine.for_repo(tmp_path, data_dir=tmp_path / "data", embedder=emb)[0] as engine:
        one = engine.index_commit(git_dir, first, name="proj")
        assert (one.new, one.commit) == (3, first)
        assert engine.backend.repos.repos()[0].last_commit == first
        embedded = len(emb.embedded)
        two = engine.index_commit(git_dir, second, name="proj")
        assert (two.changed, two.removed, two.unchanged) == (1, 1, 1)
        # Only the new function is embedded; verify_token's text comes from the cache.
        assert len(emb.embedded) - embedded == 1
        assert "refresh_session" in emb.embedded[-1]
        hits = engine.search("refresh_session", k=3)
        assert hits[0].symbol == "refresh_session"
        back = engine.index_commit(git_dir, first, name="proj")
        assert (back.changed, back.new, back.texts_embedded) == (1, 1, 0)


def test_unknown_commit_is_a_clear_error(bare: tuple[Path, str, str]) -> None:
    with pytest.raises(InputError, match="rev-parse"):
        GitTreeSource(bare[0], "0" * 40, DiscoveryRules())


def test_a_notebook_may_be_larger_than_other_files(tmp_path: Path) -> None:
    work = make_git_repo(
        tmp_path / "work",
        {"plots.ipynb": "a" * 64 * NOTEBOOK_SIZE_FACTOR, "plots.py": "a" * 65},
    )
    head = git(work, "rev-parse", "HEAD").strip()
    with GitTreeSource(work / ".git", head, DiscoveryRules(max_file_bytes=64)) as source:
        found = source.discover()
        assert [c.path for c in found.files] == ["plots.ipynb"]
        assert found.examples == {"too_large": ["plots.py"]}
        (notebook,) = found.files
        assert source.read(notebook, 64) == b"a" * 64 * NOTEBOOK_SIZE_FACTOR
        assert source.read(notebook, 63) == "too_large"


def test_a_commit_skips_translated_documentation_as_a_folder_does(tmp_path: Path) -> None:
    """The English original is looked up in the commit's tree, not on disk."""
    work = make_git_repo(tmp_path / "work", TRANSLATED_DOCS)
    head = git(work, "rev-parse", "HEAD").strip()
    target = tmp_path / "proj.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(target)], check=True)
    with GitTreeSource(target, head, DiscoveryRules()) as source:
        found = source.discover()
    assert found.skipped["translations"] == 5
    assert "docs/ko/docs/only-in-korean.md" in [c.path for c in found.files]
