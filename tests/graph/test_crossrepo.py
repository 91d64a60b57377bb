"""Two repositories in one workspace: HTTP links from a requests client to Flask and
FastAPI routes, a package one provides to the other, and removing one of them."""

from __future__ import annotations

from pathlib import Path

from codecompass.graph.http import _match, client_path, paths_match, route_path
from codecompass.models import EdgeQuery
from tests.graph.helpers import add_fixture, edges, workspace
from tests.peek import peek, vector_ids


def test_http_and_package_links_carry_evidence_on_both_sides(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "crossrepo/api", "api")
        add_fixture(engine, tmp_path, "crossrepo/web", "web")
        rows = [
            (e.source, e.target, e.type, e.confidence, e.evidence_path, e.evidence_line,
             e.target_path, e.target_line, e.name)
            for e in engine.backend.edges.edges(EdgeQuery(types=["http", "package"]))
        ]  # fmt: skip
        assert set(rows) == {
            ("web/client.py#load_user", "api/app.py#get_user", "http", 0.8,
             "client.py", 10, "app.py", 9, "GET /users/{}"),
            ("web/client.py#new_user", "api/app.py#create_user", "http", 0.9,
             "client.py", 15, "app.py", 14, "POST /users"),
            ("web/client.py#order", "api/orders.py#read_order", "http", 0.8,
             "client.py", 20, "orders.py", 9, "GET /orders/{}"),
            ("web/client.py#admin_stats", "api/app.py#stats", "http", 0.9,
             "client.py", 24, "app.py", 19, "GET /admin/stats"),
            ("web/client.py", "api/api_sdk/__init__.py", "package", 1.0,
             "client.py", 4, "pyproject.toml", 2, "api_sdk:Client"),
        }  # fmt: skip
        assert ("web/client.py#sdk", "api/api_sdk/__init__.py#Client", "calls", 1.0, 28) in edges(
            engine
        )
        http = engine.callers("get_user", types=["http"])
        assert [(e.source, e.evidence_line, e.target_path, e.target_line)
                for e in http.edges] == [("web/client.py#load_user", 10, "app.py", 9)]  # fmt: skip


def test_removing_a_repository_deletes_only_its_rows(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "crossrepo/api", "api")
        add_fixture(engine, tmp_path, "crossrepo/web", "web")
        web_before = engine.backend.chunks.counts("web")
        vectors_before = len(vector_ids(engine))
        api_chunks = engine.backend.chunks.counts("api")["chunks"]
        removed = engine.remove_repo("api")
        assert removed["repo"] == "api" and removed["relinked_files"] == 1
        assert removed["vectors"] == api_chunks
        assert len(vector_ids(engine)) == vectors_before - api_chunks
        assert [r["id"] for r in engine.list_repos()] == ["web"]
        assert engine.backend.chunks.counts("web") == web_before
        assert engine.backend.chunks.counts("api") == {
            "files": 0,
            "symbols": 0,
            "chunks": 0,
            "tombstones": 0,
            "parse_errors": 0,
            "decode_errors": 0,
        }
        assert peek(engine, "SELECT count(*) FROM edges WHERE repo = 'api'") == [(0,)]
        assert peek(engine, "SELECT count(*) FROM edges WHERE target LIKE 'api/%'") == [(0,)]
        found = edges(engine)
        assert ("web/client.py", "?api_sdk.Client", "imports", 1.0, 4) in found
        assert ("web/client.py#sdk", "?api_sdk.Client", "calls", 1.0, 28) in found


def test_route_and_client_paths() -> None:
    assert route_path("/users/<int:user_id>") == "/users/{}"
    assert route_path("/orders/{order_id}/") == "/orders/{}"
    assert route_path("/users/:id/posts") == "/users/{}/posts"
    assert route_path(r"^users/(?P<pk>\d+)/$", regex=True) == "/users/{}"
    assert client_path("https://api.example.com:8443/users/{}?x=1") == "/users/{}"
    assert client_path("{}/users/{}") == "/users/{}"
    assert client_path("users") == ""
    assert paths_match("/users/{}", "/users/7") == 0.8
    assert paths_match("/users", "/users") == 0.9
    assert paths_match("/users/{}", "/orders/{}") == 0.0
    assert paths_match("/{}", "/anything") == 0.0
    # a parameter's literal head counts as a literal segment, a bare `{}.{}` does not:
    # `/api/entries/exists` fits its own route better than `/api/entries/{entry}.{_format}`
    assert _match("/folders{}", "/folders7") == (1, 0, True)
    assert _match("/api/entries/{}.{}", "/api/entries/exists") == (2, 0, True)
    assert _match("/api/entries/exists", "/api/entries/exists") == (3, 0, False)
