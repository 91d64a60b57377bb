"""The JSON endpoints behind the page, over HTTP: answers, errors with codes and fixes,
the path guard, redaction, the token off loopback, the audit, and `codecompass ui`."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import Engine
from codecompass.protocols import Embedder
from codecompass.web.app import STATIC
from tests.web.conftest import GITHUB_TOKEN, Running, Site, free_port, settings_for, start

pytestmark = pytest.mark.slow

TOKEN = "web-test-token-0123456789abcdef"


def q(**params: object) -> str:
    return urllib.parse.urlencode(params)


def test_search_answers_hits_with_why_and_the_graph_behind_them(web: Running) -> None:
    status, data = web.get("/api/search?" + q(q="check the bearer token", k=5))
    assert status == 200
    assert 1 <= len(data["results"]) <= 5
    symbols = [h["symbol"] for h in data["results"]]
    rank = symbols.index("verify_token") + 1
    hit = data["results"][rank - 1]
    assert hit["path"] == "auth/tokens.py"
    assert set(hit["why"]) >= {"features", "sources", "matched_terms"}
    nodes = {n["id"]: n for n in data["graph"]["nodes"]}
    node = nodes["authsvc/auth/tokens.py#verify_token"]
    assert (node["role"], node["rank"], node["score"]) == ("seed", rank, hit["score"])
    # a hit without a symbol is its file's node
    for h in data["results"]:
        if h["symbol"] is None:
            assert f"authsvc/{h['path']}" in nodes
    assert all(e["resolved"] for e in data["graph"]["edges"])


@pytest.mark.parametrize(
    ("path", "code", "status", "fix"),
    [
        ("/api/search?" + q(q="token", k=0), "invalid_argument", 400, "between 1 and 50"),
        ("/api/search?" + q(q="token", k="ten"), "invalid_argument", 400, "whole number"),
        ("/api/search?" + q(q="token", language="cobol"), "invalid_argument", 400, "python"),
        ("/api/search?" + q(q="token", repo="nope"), "unknown_repo", 404, "authsvc"),
        ("/api/search", "invalid_argument", 400, "'q'"),
        ("/api/file?" + q(path="../../etc/passwd"), "access_denied", 403, ""),
        ("/api/file?" + q(path="auth/tokens.py", start=30), "out_of_range", 400, "(lines 1-20)"),
        ("/api/node?" + q(id="authsvc/auth/tokens.py#nothing"), "not_found", 404, "find_symbol"),
        ("/api/explore?" + q(id="verify_token", relation="cousins"), "invalid_argument", 400, ""),
        (
            "/api/expand?" + q(id="verify_token", types="calls,friendship"),
            "invalid_argument",
            400,
            "",
        ),
    ],
)
def test_bad_input_is_a_structured_error(
    web: Running, path: str, code: str, status: int, fix: str
) -> None:
    got, data = web.get(path)
    assert (got, data["error"]["code"]) == (status, code), data
    assert fix in data["error"]["message"]


def test_a_misspelt_symbol_offers_candidates(web: Running) -> None:
    status, data = web.get("/api/explore?" + q(id="verify_tokn", relation="callers"))
    assert (status, data["error"]["code"]) == (404, "not_found")
    first = data["error"]["candidates"][0]
    assert (first["id"], first["kind"], first["path"]) == (
        "authsvc/auth/tokens.py#verify_token",
        "function",
        "auth/tokens.py",
    )
    assert first["score"] < 0.9  # offered, not chosen


def test_the_language_filter_offers_the_indexed_languages(web: Running) -> None:
    """It offered all 48 languages the reader knows; on a Python index "go" found
    nothing."""
    status, data = web.get("/api/config")
    assert status == 200 and data["languages"] == ["python", "sql"]


def test_file_is_redacted_highlighted_and_linked(web: Running, site: Site) -> None:
    status, data = web.get("/api/file?" + q(path="config/settings.py"))
    assert status == 200
    assert GITHUB_TOKEN not in data["content"]
    assert not any(GITHUB_TOKEN in line for line in data["html"])
    assert len(data["html"]) == data["total_lines"] == 3
    status, data = web.get("/api/file?" + q(path="auth/tokens.py", line=18))
    assert data["html"][17].startswith('<span class="k">def</span>')
    # VS Code opens `vscode://file/home/…`, not `vscode://file//home/…`
    assert data["editor_url"] == f"vscode://file{(site.repo / 'auth/tokens.py').as_posix()}:18"
    assert data["stale"] is False


def test_a_file_changed_on_disk_is_stale(site: Site, onnx: Embedder, tmp_path: Path) -> None:
    import shutil

    repo = tmp_path / "authsvc"
    shutil.copytree(site.repo, repo)
    engine, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=onnx)
    with engine:
        engine.index(root)
    with (repo / "auth/tokens.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# changed after indexing\n")
    for running in start(settings_for(tmp_path / "data"), onnx):
        _, found = running.get("/api/search?" + q(q="verify the bearer token"))
        assert "authsvc/auth/tokens.py" in found["stale"]
        _, data = running.get("/api/file?" + q(path="auth/tokens.py"))
        assert data["stale"] is True


def test_node_details(web: Running) -> None:
    status, data = web.get("/api/node?" + q(id="Handler.authorize"))
    assert status == 200
    assert data["node"]["id"] == "authsvc/api/handlers.py#Handler.authorize"
    assert data["signature"].startswith("def authorize(self, header: str, expected: str)")
    outgoing = {(e["type"], e["target"]) for e in data["out_edges"]}
    assert ("calls", "authsvc/auth/tokens.py#verify_token") in outgoing
    assert ("calls", "authsvc/auth/tokens.py#parse_header") in outgoing
    callers = {e["source"] for e in data["in_edges"] if e["type"] == "calls"}
    assert callers == {
        "authsvc/api/handlers.py#get_user",
        "authsvc/api/admin.py#AdminHandler.delete_user",
    }
    assert data["neighbours"]["authsvc/auth/tokens.py#verify_token"] == "verify_token"


def test_web_calls_are_audited_as_web(web: Running) -> None:
    web.get("/api/search?" + q(q="admin handlers delete a user"))
    engine = Engine(web.settings)
    try:
        entries = engine.backend.audit.entries()
    finally:
        engine.close()
    mine = [e for e in entries if e.query == "admin handlers delete a user"]
    assert [(e.tool, e.transport, e.client) for e in mine] == [
        ("search_code", "web", "codecompass-ui")
    ]
    assert mine[0].result_count is not None and mine[0].result_count > 0


@pytest.fixture(scope="module")
def guarded(site: Site, onnx: Embedder) -> Iterator[Running]:
    import dataclasses

    settings = settings_for(site.data)
    server = dataclasses.replace(settings.server, token=TOKEN)
    yield from start(dataclasses.replace(settings, server=server), onnx, token=TOKEN)


def test_a_token_guards_the_data_but_not_the_page(guarded: Running) -> None:
    status, data = guarded.get("/api/search?" + q(q="token"))
    assert (status, data["error"]["code"]) == (401, "unauthorized")
    status, data = guarded.get("/api/search?" + q(q="token"), token="wrong-" + TOKEN)
    assert status == 401
    status, data = guarded.get("/api/search?" + q(q="token"), token=TOKEN)
    assert status == 200 and data["results"]
    for public in ("/", "/static/app.js", "/static/vendor/cytoscape.min.js"):
        with urllib.request.urlopen(guarded.url + public, timeout=30) as response:
            assert response.status == 200
            policy = response.headers["Content-Security-Policy"]
            assert "default-src 'self'" in policy


def test_the_vendored_cytoscape_matches_its_recorded_hash() -> None:
    vendor = STATIC / "vendor"
    record = (vendor / "VENDORED.md").read_text(encoding="utf-8")
    row = next(line for line in record.splitlines() if line.startswith("| `cytoscape.min.js`"))
    version = row.split("|")[3].strip()
    digest = re.findall(r"`([0-9a-f]{64})`", row)[0]
    body = (vendor / "cytoscape.min.js").read_bytes()
    assert hashlib.sha256(body).hexdigest() == digest
    assert f"cytoscape v{version}".encode() in body[:300] or version.encode() in body
    assert "Permission is hereby granted" in (vendor / "cytoscape.LICENSE").read_text(
        encoding="utf-8"
    )


def test_ui_refuses_a_public_address_without_a_token(site: Site) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPASS_")}
    result = CliRunner().invoke(
        main, ["ui", "--data-dir", str(site.data), "--host", "0.0.0.0"], env=env
    )
    assert result.exit_code != 0
    assert "CODECOMPASS_SERVER_TOKEN" in result.output


def test_codecompass_ui_serves_the_page(site: Site) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPASS_")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codecompass",
            "ui",
            "--data-dir",
            str(site.data),
            "--port",
            str(port),
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    page = response.read().decode("utf-8")
                    break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        assert '<script src="/static/vendor/cytoscape.min.js"' in page
        assert '<label for="q">Search the code</label>' in page
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert f"Code Compass UI on http://127.0.0.1:{port}/" in err


def test_node_details_carry_the_memories_about_the_node(
    site: Site, onnx: Embedder, tmp_path: Path
) -> None:
    import shutil

    shutil.copytree(site.data, tmp_path / "data")
    engine = Engine(settings_for(tmp_path / "data"), embedder=onnx)
    with engine:
        stored = engine.memory.remember(
            "Tokens are compared with hmac.compare_digest to avoid timing leaks.",
            type="decision",
            symbols=["verify_token"],
        )
    for running in start(settings_for(tmp_path / "data"), onnx):
        _, data = running.get("/api/node?" + q(id="verify_token"))
        assert [(m["id"], m["type"]) for m in data["memories"]] == [(stored.id, "decision")]
        assert data["memories"][0]["about"] == ["authsvc/auth/tokens.py#verify_token"]
        _, other = running.get("/api/node?" + q(id="parse_header"))
        assert other["memories"] == []


def test_a_principal_sees_only_its_scopes(site: Site, onnx: Embedder, tmp_path: Path) -> None:
    import dataclasses
    import shutil

    from codecompass.security.access import add_principal

    shutil.copytree(site.data, tmp_path / "data")
    settings = settings_for(tmp_path / "data")
    principals = tmp_path / "principals.toml"
    token = add_principal(principals, "auth-team", ["authsvc:auth/"])
    server = dataclasses.replace(settings.server, principals=str(principals))
    for running in start(dataclasses.replace(settings, server=server), onnx):
        _, found = running.get("/api/search?" + q(q="handlers authorize the token"), token=token)
        assert found["results"] and {h["path"] for h in found["results"]} == {"auth/tokens.py"}
        assert all(n["path"] in (None, "auth/tokens.py") for n in found["graph"]["nodes"])
        status, denied = running.get("/api/file?" + q(path="api/handlers.py"), token=token)
        assert (status, denied["error"]["code"]) == (403, "access_denied")
        status, _ = running.get("/api/search?" + q(q="token"))
        assert status == 401  # principals exist: no token, no data


def test_editor_links_are_quoted_and_bad_patterns_refused() -> None:
    from codecompass.errors import ConfigError
    from codecompass.web.app import check_editor, editor_url

    url = editor_url("vscode://file/{path}:{line}", Path("/src/my app/a#b.py"), 7, "r", "x")
    assert url == "vscode://file/src/my%20app/a%23b.py:7"
    pattern = "idea://open?file={path}&line={line}"
    assert editor_url(pattern, Path("/a.py"), 3, "r", "a.py") == "idea://open?file=/a.py&line=3"
    with pytest.raises(ConfigError, match=r"\{path\}, \{line\}, \{repo\} and \{rel\}"):
        check_editor("vscode://file/{file}:{line}")


def test_explorer_relations_follow_the_cli(web: Running) -> None:
    def explored(relation: str) -> set[str]:
        status, data = web.get("/api/explore?" + q(id="verify_token", relation=relation))
        assert status == 200, data
        return {n["id"] for n in data["nodes"]} - {data["root"]}

    callers = explored("callers")
    assert callers == {
        "authsvc/api/handlers.py#Handler.authorize",
        "authsvc/api/handlers.py#get_user",
        "authsvc/api/admin.py#AdminHandler.delete_user",
    }
    dependents = explored("dependents")
    assert "authsvc/auth/tokens.py" not in dependents  # no `contains` edges
    assert callers <= dependents
    assert explored("callees") == {"?hmac.compare_digest"}  # a library call, unresolved


# -- /api/links over the service estate (conftest.ESTATE) ------------------------------
S = "checkout/checkout/server.py#CheckoutService"
G = "storefront/orders/orders.go"


def end(node: str, repo: str, path: str, line: int) -> dict[str, object]:
    return {"id": node, "repo": repo, "path": path, "line": line}


RPC_LINKS = [
    {
        "via": "rpc",
        "name": "shop.Checkout/PlaceOrder",
        "confidence": 0.9,
        "how": "servicer",
        "source": end(f"{S}.PlaceOrder", "checkout", "checkout/server.py", 14),
        "target": end("rpc:shop.Checkout/PlaceOrder", "checkout", "protos/shop.proto", 8),
    },
    {
        "via": "rpc",
        "name": "shop.Checkout/GetOrder",
        "confidence": 0.9,
        "how": "servicer",
        "source": end(f"{S}.GetOrder", "checkout", "checkout/server.py", 19),
        "target": end("rpc:shop.Checkout/GetOrder", "checkout", "protos/shop.proto", 9),
    },
    {
        "via": "rpc",
        "name": "shop.Checkout/PlaceOrder",
        "confidence": 0.9,
        "how": "stub",
        "source": end(f"{G}#Orders.Buy", "storefront", "orders/orders.go", 21),
        "target": end(f"{S}.PlaceOrder", "checkout", "checkout/server.py", 14),
    },
    {
        "via": "rpc",
        "name": "shop.Checkout/GetOrder",
        "confidence": 0.9,
        "how": "stub",
        "source": end(f"{G}#Track", "storefront", "orders/orders.go", 30),
        "target": end(f"{S}.GetOrder", "checkout", "checkout/server.py", 19),
    },
]


def http(name: str, confidence: float, how: str, client: str, line: int, handler: str,
         path: str, handler_line: int) -> dict[str, object]:  # fmt: skip
    return {
        "via": "http",
        "name": name,
        "confidence": confidence,
        "how": how,
        "source": end(f"web/client.py#{client}", "web", "client.py", line),
        "target": end(f"api/{path}#{handler}", "api", path, handler_line),
    }


WEB_LINKS = [
    http("GET /users/{}", 0.8, "template", "load_user", 10, "get_user", "app.py", 9),
    http("POST /users", 0.9, "literal", "new_user", 15, "create_user", "app.py", 14),
    http("GET /orders/{}", 0.8, "template", "order", 20, "read_order", "orders.py", 9),
    http("GET /admin/stats", 0.9, "literal", "admin_stats", 24, "stats", "app.py", 19),
    {
        "via": "sdk",
        "name": "api_sdk:Client",
        "confidence": 1.0,
        "how": "package",
        "source": end("web/client.py", "web", "client.py", 4),
        "target": end("api/api_sdk/__init__.py", "api", "pyproject.toml", 2),
    },
]


def test_links_lists_every_kind_with_counts(linked: Running) -> None:
    status, data = linked.get("/api/links")
    assert status == 200, data
    assert set(data) == {"links", "counts"}
    assert data["counts"] == {"http": 4, "rpc": 4, "sdk": 1, "event": 5}
    assert [link["via"] for link in data["links"]] == (
        ["http"] * 4 + ["rpc"] * 4 + ["sdk"] + ["event"] * 5
    )
    assert data["links"][:4] == WEB_LINKS[:4]
    assert data["links"][4:8] == RPC_LINKS
    assert data["links"][9] == {
        "via": "event",
        "name": "event:kafka/orders",
        "confidence": 0.8,
        "how": "constant",
        "source": end("shop/shop/events.py#place_order", "shop", "shop/events.py", 16),
        "target": end("billing/src/consumer.js#consumeOrders", "billing", "src/consumer.js", 9),
    }


def test_links_filtered_by_kind_and_by_repository(linked: Running) -> None:
    status, data = linked.get("/api/links?" + q(via="rpc"))
    assert status == 200, data
    assert data == {"links": RPC_LINKS, "counts": {"rpc": 4}}
    # an end in the repository: web's clients and its import of api's sdk
    status, data = linked.get("/api/links?" + q(repo="web"))
    assert status == 200, data
    assert data == {"links": WEB_LINKS, "counts": {"http": 4, "rpc": 0, "sdk": 1, "event": 0}}
    # the server's side counts too
    _, data = linked.get("/api/links?" + q(via="rpc", repo="storefront"))
    assert data == {"links": RPC_LINKS[2:], "counts": {"rpc": 2}}
    _, data = linked.get("/api/links?" + q(via="event", repo="web"))
    assert data == {"links": [], "counts": {"event": 0}}


@pytest.mark.parametrize(
    ("query", "code", "status", "message"),
    [
        (
            q(via="bogus"),
            "invalid_argument",
            400,
            "via must be one of http, rpc, sdk, event, not 'bogus'.",
        ),
        (q(via="grpc", repo="web"), "invalid_argument", 400, "not 'grpc'"),
        (q(repo="nosuch"), "unknown_repo", 404, "Unknown repository 'nosuch'"),
    ],
)
def test_links_refuse_bad_input_with_a_structured_error(
    linked: Running, query: str, code: str, status: int, message: str
) -> None:
    got, data = linked.get("/api/links?" + query)
    assert (got, set(data), data["error"]["code"]) == (status, {"error"}, code), data
    assert message in data["error"]["message"]


def test_links_are_audited_and_follow_the_callers_scopes(estate: Path, tmp_path: Path) -> None:
    import dataclasses
    import shutil

    from codecompass.security.access import add_principal
    from tests.conftest import TinyEmbedder

    shutil.copytree(estate, tmp_path / "data")
    settings = settings_for(tmp_path / "data")
    principals = tmp_path / "principals.toml"
    token = add_principal(principals, "checkout-team", ["checkout"])
    server = dataclasses.replace(settings.server, principals=str(principals))
    settings = dataclasses.replace(settings, server=server)
    for running in start(settings, TinyEmbedder()):
        status, data = running.get("/api/links?" + q(via="rpc"))
        assert (status, data["error"]["code"]) == (401, "unauthorized")
        # the stubs' side is in storefront, outside the scope: only the servicers show
        status, data = running.get("/api/links?" + q(via="rpc"), token=token)
        assert status == 200, data
        assert data == {"links": RPC_LINKS[:2], "counts": {"rpc": 2}}
    engine = Engine(settings)
    try:
        entries = engine.backend.audit.entries()
    finally:
        engine.close()
    mine = [e for e in entries if e.principal == "checkout-team"]
    assert [(e.tool, e.transport, e.client, e.status, e.result_count) for e in mine] == [
        ("service_links", "web", "codecompass-ui", "ok", 2)
    ]
    assert mine[0].filters is not None and '"via": "rpc"' in mine[0].filters


def test_characters_that_hide_are_shown_in_the_code_view() -> None:
    """A bidirectional override showed `"gnirts desrever"` as `"reversed string"` (Trojan
    Source); zero-width characters showed as nothing. Each is shown by its code point."""
    from codecompass.web.highlight import highlight_lines

    lines = highlight_lines("a.py", 'x = "\u202egnirts"\ny = 1\u200b\n')
    assert lines[0].count('<span class="invisible" title="U+202E">&lt;U+202E&gt;</span>') == 1
    assert "\u202e" not in lines[0]
    assert '<span class="invisible" title="U+200B">&lt;U+200B&gt;</span>' in lines[1]
    assert len(lines) == 3
