"""`codecompass serve` as a real subprocess over stdio, driven by the SDK's client: every
tool, the error paths, and the hostile table."""

from __future__ import annotations

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
