"""Principals and their scopes: the token file, and an engine that never answers outside
a principal's access (search, files, graph walks, symbols, overview, answers, status)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codecompass.errors import (
    AccessDeniedError,
    ConfigError,
    InputError,
    NotFoundError,
    UnknownRepoError,
)
from codecompass.models import Scope
from codecompass.security.access import (
    Access,
    PrincipalFile,
    add_principal,
    authenticate,
    load_principals,
    parse_scope,
    remove_principal,
)
from tests.graph.helpers import add_fixture, workspace


def test_scopes_parse_and_decide() -> None:
    assert parse_scope("api") == Scope("api", "")
    assert parse_scope("web:src/") == Scope("web", "src/")
    assert parse_scope("web:./src/") == Scope("web", "src/")
    assert parse_scope("web:.github/") == Scope("web", ".github/")
    with pytest.raises(InputError, match="REPO or REPO:PATH_PREFIX"):
        parse_scope("a/b")
    access = Access("bot", (Scope("api"), Scope("web", "src/")))
    assert access.allows("api", "app.py") and access.allows("web", "src/x.ts")
    assert not access.allows("web", "docs/x.md") and not access.allows("other", "x")
    assert access.allows_repo("web") and not access.allows_repo("other")
    assert access.allows_folder("web", "src") and not access.allows_folder("web", ".")
    assert access.allows_node("api/app.py#get_user") and access.allows_node("web/src/a.ts")
    assert not access.allows_node("web/docs/a.md#Title") and not access.allows_node("other")
    assert access.allows_node("?requests.get") and access.allows_node("kw:token")
    assert Access("local").allows("anything", "at/all")


def test_principal_file_keeps_hashes_and_reloads(tmp_path: Path) -> None:
    path = tmp_path / "principals.toml"
    watched = PrincipalFile(path)
    assert watched.principals() == []
    token = add_principal(path, "ci-bot", ["api", "web:src/"])
    assert token not in path.read_text(encoding="utf-8")  # only its SHA-256
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    found = authenticate(token, watched.principals())
    assert found is not None and found.name == "ci-bot"
    assert found.scopes == (Scope("api"), Scope("web", "src/"))
    assert authenticate(token + "x", watched.principals()) is None
    again = add_principal(path, "ci-bot", ["api"])  # a new token replaces the old one
    assert authenticate(token, watched.principals()) is None
    assert authenticate(again, watched.principals()) is not None
    remove_principal(path, "ci-bot")
    assert watched.principals() == []
    with pytest.raises(InputError, match="No principal named"):
        remove_principal(path, "ci-bot")
    path.write_text('[[principal]]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="needs name, token_sha256 and scopes"):
        load_principals(path)


def test_an_engine_never_answers_outside_its_scopes(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "crossrepo/api", "api")
        add_fixture(engine, tmp_path, "crossrepo/web", "web")
        full = engine.traverse("web/client.py#load_user", depth=2, types=["http", "calls"])
        assert any(n.repo == "api" for n in full.nodes)  # the link exists
        web = engine.scoped(Access("web-only", (Scope("web"),)))

        def leaks(value: object) -> list[str]:
            text = json.dumps(value, default=str)
            return [
                needle
                for needle in ('"api/', '"repo": "api"', "app.py", "orders.py")
                if needle in text
            ]

        hits = web.search("get a user by id", k=20)
        assert hits and {h.repo for h in hits} == {"web"}
        result = web.retrieve("users orders", web.search_options(k=20, subgraph=True))
        assert leaks(result.as_dict()) == []
        walked = web.traverse("web/client.py#load_user", depth=2, types=["http", "calls"])
        assert {n.repo for n in walked.nodes} <= {"web", None}
        assert all(not e.target.startswith("api/") for e in walked.edges)
        assert leaks(web.dependencies("web/client.py", depth=2).model_dump()) == []
        assert {m.repo for m in web.find_symbol("get_user")} == {"web"}  # fuzzy, web only
        with pytest.raises(NotFoundError):
            web.callers("get_user")
        with pytest.raises(UnknownRepoError):
            web.open_file("app.py", repo="api")
        with pytest.raises(UnknownRepoError):
            web.repo_overview(repo="api")
        assert [r["id"] for r in web.status()["repos"]] == ["web"]
        assert [r["id"] for r in web.list_repos()] == ["web"]
        answer = web.ask("how does the client get a user?")
        assert answer.evidences and leaks(answer.model_dump()) == []

        prefix = engine.scoped(Access("api-app", (Scope("api", "app.py"),)))
        assert {h.path for h in prefix.search("orders and users", k=20)} == {"app.py"}
        assert prefix.open_file("app.py").path == "app.py"
        with pytest.raises(AccessDeniedError, match="outside what 'api-app' may read"):
            prefix.open_file("orders.py")
        # A name the file lacks: refused for access, not answered with the file's symbols.
        with pytest.raises(AccessDeniedError, match="outside what 'api-app' may read"):
            prefix.open_file("orders.py#Nope", repo="api")
        with pytest.raises(AccessDeniedError):
            prefix.git_log(".")
        overview = prefix.repo_overview(repo="api")
        assert [f.path for f in overview.files] == ["app.py"]
        # The full engine is unchanged by its views.
        assert {h.repo for h in engine.search("get a user by id", k=20)} == {"api", "web"}
