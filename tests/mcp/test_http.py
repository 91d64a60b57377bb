"""Streamable HTTP over a real socket on 127.0.0.1: with a bearer token, without one
(loopback only), the refusal to bind elsewhere without a token, and /metrics."""

from __future__ import annotations

import os
import queue
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from codecompass.cli import main
from codecompass.errors import ConfigError
from codecompass.security.access import add_principal
from codecompass.service import check_http_binding, is_loopback
from tests.mcp.conftest import Shop, error_of

pytestmark = pytest.mark.slow

TOKEN = "test-token-0123456789abcdef"
STARTUP_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def http_server(
    data: Path, token: str | None, principals: Path | None = None, stateless: bool = False
) -> Iterator[str]:
    """`codecompass serve --http` in a subprocess; yields its base URL once it listens."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPASS_")}
    if token:
        env["CODECOMPASS_SERVER_TOKEN"] = token
    if principals:
        env["CODECOMPASS_SERVER_PRINCIPALS"] = str(principals)
    if stateless:
        env["CODECOMPASS_SERVER_STATELESS"] = "1"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "codecompass", "serve", "--http", "--port", str(port)]
        + ["--data-dir", str(data)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    stderr = proc.stderr

    def pump() -> None:
        for line in stderr:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        banner = ""
        while "MCP server on" not in banner:
            assert proc.poll() is None, f"server exited with {proc.returncode}"
            try:
                banner = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail("the server did not start in time")
        assert f"http://127.0.0.1:{port}/mcp" in banner
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def search_over_http(url: str, headers: dict[str, str]) -> Any:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        found = await client.call_tool("search_code", {"query": "cancel an order", "top_k": 2})
        refused = await client.call_tool("open_file", {"path": "../outside/secret.txt"})
        return found.structured_content, error_of(refused)["code"]


async def denial_over_http(url: str, headers: dict[str, str]) -> str:
    """What an MCP client tells its user when the server refuses its token."""
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        try:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http)):
                return "connected"
        except Exception as error:  # the SDK's error, whatever its class
            return " | ".join(_messages(error))


def _messages(error: BaseException) -> list[str]:
    """The messages of an error and, for a task group's, of the errors inside it."""
    if isinstance(error, BaseExceptionGroup):
        return [m for inner in error.exceptions for m in _messages(inner)]
    return [str(error)]


def test_http_with_a_bearer_token(shop: Shop) -> None:
    with http_server(shop.data, TOKEN) as url:
        found, refused = anyio.run(search_over_http, url, {"Authorization": f"Bearer {TOKEN}"})
        assert len(found["results"]) == 2 and refused == "access_denied"
        # the scheme in any case (RFC 7235)
        found, _ = anyio.run(search_over_http, url, {"Authorization": f"bearer {TOKEN}"})
        assert len(found["results"]) == 2
        # an MCP client shows why it was refused: the 401 carries a JSON-RPC error
        told = anyio.run(denial_over_http, url, {"Authorization": "Bearer wrong-token-0123456789"})
        assert "Missing or wrong bearer token" in told
        with httpx2.Client(timeout=30) as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}):
                denied = http.post(f"{url}/mcp", json=body, headers=headers)
                assert denied.status_code == 401
                error = denied.json()["error"]
                assert (denied.json()["jsonrpc"], error["code"]) == ("2.0", -32001)
                assert error["data"] == {"code": "unauthorized"}
                assert denied.headers["www-authenticate"].startswith("Bearer")
            assert http.get(f"{url}/metrics").status_code == 401
            assert http.get(f"{url}/healthz").json() == {"status": "ok"}
            metrics = http.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain")
    lines = metrics.text.splitlines()
    ok = [x for x in lines if x.startswith('codecompass_tool_calls_total{tool="search_code"')]
    assert ok and float(ok[0].rsplit(" ", 1)[1]) >= 1
    assert any(x.startswith("codecompass_tool_latency_seconds{") for x in lines)
    assert "# TYPE codecompass_no_hit_ratio gauge" in lines


def test_http_on_loopback_without_a_token(shop: Shop) -> None:
    with http_server(shop.data, None) as url:
        found, refused = anyio.run(search_over_http, url, {})
    assert len(found["results"]) == 2 and refused == "access_denied"


def test_stateless_http_answers_without_a_session(shop: Shop) -> None:
    # Behind a load balancer, any process must answer any request: no Mcp-Session-Id.
    with http_server(shop.data, None, stateless=True) as url:
        found, refused = anyio.run(search_over_http, url, {})
        with httpx2.Client(timeout=60) as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            headers = {"Accept": "application/json, text/event-stream",
                       "MCP-Protocol-Version": "2025-06-18"}  # fmt: skip
            listed = http.post(f"{url}/mcp", json=body, headers=headers)
    assert len(found["results"]) == 2 and refused == "access_denied"
    assert listed.status_code == 200 and "mcp-session-id" not in listed.headers


def test_binding_off_loopback_needs_a_token() -> None:
    assert [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "10.1.2.3")] == [
        True,
        True,
        True,
        False,
        False,
    ]
    with pytest.raises(ConfigError, match="bearer token is required"):
        check_http_binding("0.0.0.0", "")
    with pytest.raises(ConfigError, match="shorter than 16"):
        check_http_binding("127.0.0.1", "short")
    check_http_binding("0.0.0.0", TOKEN)
    result = CliRunner().invoke(
        main,
        ["serve", "--http", "--host", "0.0.0.0", "--port", "9"],
        env={"CODECOMPASS_SERVER_TOKEN": ""},
    )
    assert result.exit_code == 1 and "CODECOMPASS_SERVER_TOKEN" in result.output
    result = CliRunner().invoke(main, ["serve", "--host", "127.0.0.1"])
    assert result.exit_code == 2 and "--host and --port apply to --http only" in result.output


async def calls_as(url: str, token: str) -> list[Any]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        return [
            await client.call_tool("search_code", {"query": "order", "top_k": 10}),
            await client.call_tool("open_file", {"path": "orders/service.py"}),
            await client.call_tool("open_file", {"path": "docs/guide.md"}),
            await client.call_tool("find_symbol", {"name": "OrderBook"}),
            await client.call_tool("ask_code", {"query": "how is an order cancelled?"}),
        ]


def test_a_principal_sees_only_its_scopes(shop: Shop, tmp_path: Path) -> None:
    principals = tmp_path / "principals.toml"
    docs = add_principal(principals, "docs-reader", ["shop:docs/"])
    with http_server(shop.data, None, principals) as url:
        search, code, guide, symbols, asked = anyio.run(calls_as, url, docs)
        with httpx2.Client(timeout=30) as http:  # principals make the token mandatory
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            assert http.post(f"{url}/mcp", json=body).status_code == 401
    paths = {r["path"] for r in search.structured_content["results"]}
    assert paths == {"docs/guide.md"}
    assert error_of(code)["code"] == "access_denied"
    assert guide.structured_content["content"].startswith("# Guide")
    assert symbols.structured_content["matches"] == []
    assert {e["path"] for e in asked.structured_content["evidences"]} == {"docs/guide.md"}
    rows = sqlite3.connect(shop.data / "index.sqlite").execute(
        "SELECT tool, principal FROM audit_log WHERE principal = 'docs-reader' ORDER BY id"
    )
    assert [tool for tool, _ in rows] == [
        "search_code",
        "open_file",
        "open_file",
        "find_symbol",
        "ask_code",
    ]
