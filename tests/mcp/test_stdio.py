"""`codecompass serve` as a real subprocess over stdio, driven by the SDK's client: every
tool, the error paths, and the hostile table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from tests.mcp.conftest import CANARIES, Shop, error_of, text_of
from tests.mcp.hostile import HOSTILE

pytestmark = pytest.mark.slow


def serve_params(data: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "codecompass", "serve", "--data-dir", str(data)]
    )


def over_stdio(
    data: Path, calls: list[tuple[str, dict[str, Any]]], mode: str = "auto"
) -> list[CallToolResult]:
    async def main() -> list[CallToolResult]:
        async with Client(serve_params(data), read_timeout_seconds=60, mode=mode) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            assert len(names) == 16
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def test_every_tool_and_every_refusal_over_stdio(shop: Shop) -> None:
    ok_calls: list[tuple[str, dict[str, Any]]] = [
        ("search_code", {"query": "cancel an open order", "top_k": 3}),
        ("open_file", {"path": "orders/checkout.py", "start_line": 1, "end_line": 1}),
        ("ask_code", {"query": "How is an order cancelled?", "top_k": 3}),
        ("git_log", {"path": "orders", "limit": 5}),
        ("git_blame", {"path": "orders/service.py", "start_line": 1, "end_line": 2}),
        ("index_status", {}),
    ]
    graph_calls: list[tuple[str, dict[str, Any]]] = [
        ("find_symbol", {"name": "OrderBook"}),
        ("get_dependencies", {"symbol": "checkout"}),
        ("get_callers", {"symbol": "OrderBook.cancel"}),
        ("traverse_graph", {"start": "checkout", "depth": 1}),
        ("repo_overview", {"budget_tokens": 500}),
    ]
    error_calls: list[tuple[str, dict[str, Any], str]] = [
        ("open_file", {"path": "orders/nope.py"}, "not_found"),
        ("open_file", {"path": "orders/service.py", "start_line": 500}, "out_of_range"),
        ("search_code", {"query": " "}, "invalid_argument"),
        ("search_code", {"query": "x", "detail": "everything"}, "invalid_arguments"),
        ("nope", {}, "unknown_tool"),
    ]
    hostile = [(tool, args) for tool, args, _ in HOSTILE]
    results = over_stdio(
        shop.data, ok_calls + graph_calls + [(t, a) for t, a, _ in error_calls] + hostile
    )
    ok = results[: len(ok_calls)]
    graph = results[len(ok_calls) : len(ok_calls) + len(graph_calls)]
    errors = results[len(ok_calls) + len(graph_calls) : -len(hostile)]
    refused = results[-len(hostile) :]

    assert not any(r.is_error for r in ok), [text_of(r) for r in ok if r.is_error]
    search, opened, asked, log, blame, status = (r.structured_content or {} for r in ok)
    assert "OrderBook.cancel" in {r["symbol"] for r in search["results"]}
    assert opened["content"] == '"""Checkout flow."""'
    assert asked["meta"]["answer_mode"] == "extractive" and asked["evidences"]
    assert [c["subject"] for c in log["commits"]] == ["initial"]
    assert [(h["start_line"], h["end_line"]) for h in blame["hunks"]] == [(1, 2)]
    assert status["repos"][0]["files"] == 4

    assert not any(r.is_error for r in graph), [text_of(r) for r in graph if r.is_error]
    symbols, deps, callers, walk, overview = (r.structured_content or {} for r in graph)
    assert symbols["matches"][0]["qualified_name"] == "OrderBook"
    assert "shop/orders/service.py#parse_amount" in {e["target"] for e in deps["edges"]}
    assert "shop/orders/checkout.py#checkout" in {e["source"] for e in callers["edges"]}
    assert walk["root"] == "shop/orders/checkout.py#checkout" and walk["paths"]
    assert overview["repo"] == "shop" and overview["tokens"] <= 500

    assert [error_of(r)["code"] for r in errors] == [code for _, _, code in error_calls]
    for (tool, args, code), result in zip(HOSTILE, refused, strict=True):
        assert error_of(result)["code"] == code, (tool, args, text_of(result))
        assert not [c for c in CANARIES if c in text_of(result)], (tool, args)


def test_stdio_server_without_an_index_says_how_to_make_one(tmp_path: Path) -> None:
    # Through the initialize handshake (protocol 2025-11-25), as most clients still connect.
    (result,) = over_stdio(tmp_path / "none", [("search_code", {"query": "x"})], mode="legacy")
    assert error_of(result)["code"] == "not_indexed"
    assert f"--data-dir {tmp_path / 'none'}" in error_of(result)["message"]


def test_a_line_that_is_no_json_rpc_message_gets_an_error_reply(shop: Shop) -> None:
    """The SDK's stdio reader drops a line it cannot read, and a raw client waiting on
    that id would hang: each gets JSON-RPC 2.0's error, under its own id when it has
    one, and the session goes on."""
    proc = subprocess.Popen(
        [sys.executable, *serve_params(shop.data).args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )
    assert proc.stdin is not None and proc.stdout is not None
    client = {"name": "t", "version": "1"}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}),
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "id": 7, "method": 5}',
        "{not json",
        '{"jsonrpc": "2.0", "id": "p", "method": "tools/call", "params": "x"}',
        '{"jsonrpc": "1.0", "id": 10, "method": "tools/list"}',
        "[1, 2]",
        '{"jsonrpc": "2.0", "id": 11, "result": 5, "method": 6}',
        '{"jsonrpc": "2.0", "id": 12, "result": 5, "extra": []}',  # a response: no reply
        '{"jsonrpc": "2.0", "id": 99, "method": "ping"}',
    ]
    try:
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        replies = []
        while not replies or replies[-1].get("id") != 99:
            line = proc.stdout.readline()
            assert line, f"the server closed stdout after {replies}"
            replies.append(json.loads(line))
    finally:
        proc.kill()
        proc.wait()
    got = [(r["id"], r.get("error", {}).get("code")) for r in replies]
    assert got == [
        (1, None),
        (7, -32600),
        (None, -32700),
        ("p", -32600),
        (10, -32600),
        (None, -32600),
        (11, -32600),
        (99, None),
    ]
    assert replies[1]["error"]["message"] == (
        "Invalid Request: not a JSON-RPC 2.0 message MCP knows (method: Input should be a "
        "valid string)"
    )
