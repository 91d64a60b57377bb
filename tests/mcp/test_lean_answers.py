"""What an agent's context pays for, through the SDK's in-memory client: a compact search
result's `why` in brief, a graph walk's default size, and `null` for an optional argument
(as clients in OpenAI's strict mode send it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp import Client

from codecompass.engine import Engine
from codecompass.mcp_server import ServerState
from codecompass.protocols import Embedder
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder, make_git_repo
from tests.mcp.conftest import Shop, error_of, run_client, settings_for


def test_a_compact_result_gives_why_in_brief(shop: Shop, onnx: Embedder) -> None:
    state = ServerState(settings_for(shop.data), embedder=onnx, transport="memory")
    query = {"query": "cancel an open order", "top_k": 3}

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("search_code", {**query, "detail": "preview"}),
            await client.call_tool("search_code", {**query, "detail": "compact"}),
        ]

    preview, compact = (r.structured_content["results"] for r in run_client(state, body))
    assert [h["path"] for h in compact] == [h["path"] for h in preview]
    for full, brief in zip(preview, compact, strict=True):
        contributions = {name: f["contribution"] for name, f in full["why"]["features"].items()}
        assert brief["why"]["features"] == contributions
        assert "dense" not in brief["why"] and "lexical" not in brief["why"]
        assert brief["why"]["sources"] == full["why"]["sources"]
        assert brief["why"]["chunk_score"] == full["why"]["chunk_score"]
    size = sum(len(json.dumps(h["why"])) for h in compact)
    assert size < 0.5 * sum(len(json.dumps(h["why"])) for h in preview)


def test_a_graph_walk_returns_fifty_nodes_unless_asked(tmp_path: Path) -> None:
    """A default walk had returned 200 nodes (36 KB for one function of HTTPie)."""
    helpers = "".join(f"def helper_{i}():\n    return {i}\n\n\n" for i in range(60))
    calls = "".join(f"    helper_{i}()\n" for i in range(60))
    repo = make_git_repo(tmp_path / "hub", {"hub.py": f"{helpers}def hub():\n{calls}"})
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        engine.add_repo(repo, name="hub")
    state = ServerState(
        settings_for(tmp_path / "data"), embedder=TinyEmbedder(), transport="memory"
    )

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("traverse_graph", {"start": "hub"}),
            await client.call_tool("traverse_graph", {"start": "hub", "limit": 200}),
        ]

    default, asked = (r.structured_content for r in run_client(state, body))
    assert (len(default["nodes"]), default["truncated"]) == (50, True)
    assert (len(asked["nodes"]), asked["truncated"]) == (63, False)


def test_null_for_an_optional_argument_is_its_default(shop: Shop, onnx: Embedder) -> None:
    state = ServerState(settings_for(shop.data), embedder=onnx, transport="memory")
    nulls = {"filters": None, "top_k": None, "detail": None, "rerank": None}

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("search_code", {"query": "cancel an open order"}),
            await client.call_tool("search_code", {"query": "cancel an open order", **nulls}),
            await client.call_tool("get_callers", {"symbol": "parse_amount", "depth": None}),
            await client.call_tool("search_code", {"query": None}),
        ]

    plain, nulled, callers, no_query = run_client(state, body)
    assert not nulled.is_error and not callers.is_error
    assert len(nulled.structured_content["results"]) == 10
    drop = ("query_id",)
    assert {k: v for k, v in nulled.structured_content.items() if k not in drop} == {
        k: v for k, v in plain.structured_content.items() if k not in drop
    }
    assert [e["source"] for e in callers.structured_content["edges"]] == [
        "shop/orders/checkout.py#checkout"
    ]
    assert error_of(no_query)["code"] == "invalid_arguments"
    assert "query" in error_of(no_query)["message"]
