from pathlib import Path

import pytest

from codecompass.engine import Engine
from tests.conftest import make_git_repo


def test_explicit_folder_is_indexed_as_given_even_inside_a_git_repo(tmp_path: Path) -> None:
    repo = make_git_repo(
        tmp_path / "mono", {"a/x.py": "def x():\n    return 1\n", "b/y.py": "y = 2\n"}
    )
    engine, root = Engine.for_repo(repo / "a")
    assert root == (repo / "a").resolve()
    assert engine.settings.data_dir == (repo / "a" / ".codecompass").resolve()


def test_default_folder_is_the_git_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_git_repo(tmp_path / "mono", {"a/x.py": "def x():\n    return 1\n"})
    monkeypatch.chdir(repo / "a")
    monkeypatch.delenv("CODECOMPASS_DATA_DIR", raising=False)
    engine, root = Engine.for_repo()
    assert root == repo.resolve()
    assert engine.settings.data_dir == (repo / ".codecompass").resolve()
