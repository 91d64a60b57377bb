"""Memories linked to code, through the engine on the embedded backend (SQLite +
LanceDB) and the real embedder: they show beside `callers` and `search`, and a link
whose symbol leaves the index is reported."""

from __future__ import annotations

from pathlib import Path

from codecompass.embedders import create_embedder
from codecompass.engine import Engine
from codecompass.settings import load_settings
from tests.conftest import git, make_git_repo

AUTH = '''\
def verify_token(token: str) -> bool:
    """Check a bearer token's signature and expiry."""
    return token.startswith("v1.") and len(token) > 10


def refresh_token(token: str) -> str:
    return "v1." + token[3:]
'''
VIEWS = """\
from auth import verify_token


def profile(request):
    if not verify_token(request.headers["Authorization"]):
        return 401
    return 200
"""


def test_memory_about_a_symbol_shows_in_callers_and_search_and_dangles_when_deleted(
    tmp_path: Path,
) -> None:
    repo = make_git_repo(tmp_path / "shop", {"auth.py": AUTH, "views.py": VIEWS})
    with Engine(load_settings(tmp_path / "data"), embedder=create_embedder()) as engine:
        engine.index(repo)
        done = engine.memory.remember(
            "Bearer tokens are checked only in `verify_token`; views never parse them.",
            type="pattern",
        )
        target = "shop/auth.py#verify_token"
        assert done.links == [target]  # the backticked name linked itself

        callers = engine.callers("verify_token")
        assert [(m.id, m.about) for m in callers.memories] == [(done.id, [target])]
        assert callers.as_dict()["memories"][0]["type"] == "pattern"

        found = engine.retrieve("where is the bearer token verified")
        assert found.hits[0].symbol == "verify_token"
        assert [m.id for m in found.memories] == [done.id]
        assert found.as_dict()["memories"][0]["about"] == [target]

        (repo / "auth.py").write_text(AUTH.split("\n\n\n")[1], encoding="utf-8")
        git(repo, "commit", "-qam", "drop verify_token")
        engine.index(repo)
        status = engine.memory.status()
        assert status.dangling == [{"id": done.id, "target": target}]
        [item] = engine.memory.get([done.id])
        assert item.dangling == [target]
        assert "(gone)" in engine.memory.recall("bearer tokens").text
