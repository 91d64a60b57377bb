from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.errors import InputError
from tests.conftest import make_git_repo


def test_a_folder_inside_a_git_repo_is_refused_unless_given_its_own_index(
    tmp_path: Path,
) -> None:
    repo = make_git_repo(
        tmp_path / "mono", {"a/x.py": "def x():\n    return 1\n", "b/y.py": "y = 2\n"}
    )
    with pytest.raises(InputError, match="is a folder inside the git repository"):
        Engine.for_repo(repo / "a")
    data = tmp_path / "a-index"
    engine, root = Engine.for_repo(repo / "a", data_dir=data)  # an index of its own
    assert root == (repo / "a").resolve()
    assert engine.settings.data_dir == data.resolve()


def test_default_folder_is_the_git_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_git_repo(tmp_path / "mono", {"a/x.py": "def x():\n    return 1\n"})
    monkeypatch.chdir(repo / "a")
    monkeypatch.delenv("CODECOMPASS_DATA_DIR", raising=False)
    engine, root = Engine.for_repo()
    assert root == repo.resolve()
    assert engine.settings.data_dir == (repo / ".codecompass").resolve()
