"""The MCP server through the SDK's in-memory client: every tool, every error path, the
guardrails, ask_code's three answer paths, live index updates and the audit log."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp_types import (
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    ErrorData,
    TextContent,
)

from codecompass.answer import EXTRACTIVE_HEADER, NO_EVIDENCE, approx_tokens
from codecompass.engine import Engine
from codecompass.errors import EmbedderError
from codecompass.mcp_server import ServerState
from codecompass.protocols import Embedder, Vectors
from codecompass.settings import LLMSettings, ServerSettings
from tests.conftest import TinyEmbedder, make_git_repo
from tests.fake_llm import fake_chat_server
from tests.mcp.conftest import (
    CANARIES,
    CHECKOUT,
    SERVICE,
    Shop,
    error_of,
    run_client,
    settings_for,
    text_of,
)
from tests.mcp.hostile import HOSTILE

TOOLS = [
    "ask_code",
    "find_symbol",
    "get_callers",
    "get_dependencies",
    "git_blame",
    "git_log",
    "index_status",
    "memory_capture",
    "memory_forget",
    "memory_list",
    "memory_recall",
    "memory_remember",
    "open_file",
    "repo_overview",
    "search_code",
    "traverse_graph",
]
# Tool definitions are read by the agent's model on every turn. Estimated as
# characters / 4 of the compact JSON of tools/list.
# 11 code tools took 3,500 and 1,500; the 5 memory tools (issue 15) add about 1,800 and 600;
# the `rerank` argument and result of search_code and ask_code (issue 18) about 215 and 45;
# a graph result's `overloads` (the other overloads of its root) and `limits` (what it
# cannot see) about 70 and 0; a description for each of the 26 arguments that had none
# about 245 and 245, and definitions used once written in place about -345 and -50;
# search_code's `view` (the symbol or file view as its hits) about 33 and 33; find_symbol's
# `hint` about 8 and 0.
TOOL_LIST_TOKEN_BUDGET = 5650  # everything: names, descriptions, input and output schemas
MODEL_FACING_TOKEN_BUDGET = 2460  # name + description + inputSchema (what most clients send)


def state_for(shop: Shop, onnx: Embedder, **sections: Any) -> ServerState:
    return ServerState(settings_for(shop.data, **sections), embedder=onnx, transport="memory")


def call_all(
    state: ServerState, calls: list[tuple[str, dict[str, Any]]], **client_args: Any
) -> list[CallToolResult]:
    async def body(client: Client) -> list[CallToolResult]:
        return [await client.call_tool(name, args) for name, args in calls]

    return run_client(state, body, **client_args)


def audit_rows(data: Path, *columns: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(data / "index.sqlite")
    try:
        sql = f"SELECT {', '.join(columns)} FROM audit_log ORDER BY id"
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def test_tool_list_is_read_only_and_fits_the_token_budget(shop: Shop, onnx: Embedder) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = run_client(state_for(shop, onnx), body)
    assert sorted(t.name for t in tools) == TOOLS
    dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    writes = {"memory_remember", "memory_forget", "memory_capture"}
    for tool in dumped:
        if tool["name"] not in writes:
            assert tool["annotations"] == {"readOnlyHint": True}, tool["name"]
        assert "outputSchema" in tool and len(tool["description"]) <= 90, tool["name"]
        assert '"title"' not in json.dumps(tool), tool["name"]
        undescribed = [
            name
            for name, schema in tool["inputSchema"].get("properties", {}).items()
            if not schema.get("description")
        ]
        assert undescribed == [], tool["name"]
    total = approx_tokens(json.dumps(dumped, separators=(",", ":")))
    facing = approx_tokens(
        json.dumps(
            [{k: t[k] for k in ("name", "description", "inputSchema")} for t in dumped],
            separators=(",", ":"),
        )
    )
    assert total <= TOOL_LIST_TOKEN_BUDGET, total
    assert facing <= MODEL_FACING_TOKEN_BUDGET, facing


def test_every_tool_answers_with_evidence(shop: Shop, onnx: Embedder) -> None:
    results = call_all(
        state_for(shop, onnx),
        [
            ("search_code", {"query": "cancel an open order", "top_k": 3}),
            ("search_code", {"query": "order", "filters": {"path_prefix": "docs/"}}),
            ("open_file", {"path": "orders/service.py", "start_line": 16, "end_line": 18}),
            ("ask_code", {"query": "How is an order cancelled?"}),
            ("git_log", {"path": "orders/service.py"}),
            ("git_blame", {"path": "orders/checkout.py", "start_line": 1, "end_line": 3}),
            ("index_status", {}),
        ],
    )
    search, docs, opened, asked, log, blame, status = (r.structured_content for r in results)
    assert not any(r.is_error for r in results), [text_of(r) for r in results if r.is_error]
    assert search is not None and len(search["query_id"]) == 16
    # Ranking is the retrieval module's business; the evidence must be among the top 3.
    top = next(r for r in search["results"] if r["symbol"] == "OrderBook.cancel")
    assert (top["repo"], top["path"], top["start_line"], top["end_line"]) == (
        "shop",
        "orders/service.py",
        16,
        18,
    )
    assert set(top) == {
        "repo",
        "path",
        "start_line",
        "end_line",
        "symbol",
        "kind",
        "language",
        "score",
        "snippet",
        "why",
    }
    assert top["why"] and "def cancel" in top["snippet"]
    assert docs is not None and {r["path"] for r in docs["results"]} == {"docs/guide.md"}
    assert opened == {
        "repo": "shop",
        "path": "orders/service.py",
        "start_line": 16,
        "end_line": 18,
        "total_lines": 23,
        "content": "\n".join(SERVICE.split("\n")[15:18]),
        "truncated": False,
        "next_start_line": None,
        "stale": False,
    }
    assert asked is not None and asked["meta"]["answer_mode"] == "extractive"
    assert "orders/service.py" in {e["path"] for e in asked["evidences"]}
    assert log is not None and [c["subject"] for c in log["commits"]] == ["initial"]
    assert blame is not None and blame["hunks"][0]["start_line"] == 1
    assert blame["hunks"][0]["end_line"] == 3
    assert status is not None and status["repos"][0]["id"] == "shop"
    assert status["repos"][0]["stale"] == {
        "added": 0,
        "changed": 0,
        "removed": 0,
        "files": [],
        "more": 0,
    }
    # The text block carries the same JSON as the structured content.
    first = results[0].content[0]
    assert isinstance(first, TextContent) and json.loads(first.text) == search


def test_search_code_answers_with_the_symbol_or_file_view(shop: Shop, onnx: Embedder) -> None:
    """An agent locating a change gets the ranking the views give (one hit per function
    or file, no cap a file), each by its best chunk's snippet: the plain hits had ranked
    functions worse than the symbol view on every issue set."""
    query = "cancel an open order"
    results = call_all(
        state_for(shop, onnx),
        [
            ("search_code", {"query": query, "top_k": 4, "view": "symbols"}),
            ("search_code", {"query": query, "top_k": 3, "view": "files"}),
            ("search_code", {"query": query, "view": "functions"}),
        ],
    )
    by_symbol, by_file = (r.structured_content for r in results[:2])
    assert by_symbol is not None and by_file is not None
    engine, _ = Engine.for_repo(shop.repo, data_dir=shop.data, embedder=onnx)
    with engine:
        views = engine.retrieve(query, engine.search_options(k=4))
    assert [(h["path"], h["symbol"]) for h in by_symbol["results"]] == [
        (s.path, s.symbol) for s in views.symbols[:4]
    ]
    assert [h["score"] for h in by_symbol["results"]] == [s.score for s in views.symbols[:4]]
    assert [h["path"] for h in by_file["results"]] == [f.path for f in views.files[:3]]
    cancel = next(h for h in by_symbol["results"] if h["symbol"] == "OrderBook.cancel")
    assert (cancel["start_line"], cancel["end_line"]) == (16, 18)
    assert "def cancel" in cancel["snippet"] and "file_score" in cancel["why"]
    assert "best_chunk" not in cancel["why"] and "features" in cancel["why"]
    assert by_file["results"][0]["why"]["chunks_matched"] >= 1
    error = error_of(results[2])
    assert error["code"] == "invalid_arguments" and "'symbols'" in error["message"]


def test_a_lone_surrogate_in_a_query_is_no_server_error(shop: Shop, onnx: Embedder) -> None:
    """A JSON string may hold half an emoji (`"\\ud83c"`); the tokenizer had refused it and
    the call failed as an internal error."""
    [result] = call_all(
        state_for(shop, onnx), [("search_code", {"query": "cancel an open order \ud83c"})]
    )
    assert not result.is_error and result.structured_content is not None
    assert "OrderBook.cancel" in {h["symbol"] for h in result.structured_content["results"]}


def test_a_made_up_tool_name_is_cut_short(shop: Shop, onnx: Embedder) -> None:
    """A 99 KB tool name was echoed whole and counted in `/metrics` (600 KB more on every
    later scrape)."""
    state = state_for(shop, onnx)
    (result,) = call_all(state, [("x" * 10_000, {})])
    error = error_of(result)
    assert error["code"] == "unknown_tool" and error["tool"] == "x" * 64 + "…"
    assert len(error["message"]) < 1_000
    tools = [tool for (tool,) in audit_rows(shop.data, "tool")]
    assert tools[-1] == "x" * 64 + "…"


def test_numbers_of_another_type_are_refused(shop: Shop, onnx: Embedder) -> None:
    """`top_k: true` had become 1 hit and `top_k: "5"` 5: the schema says integer."""
    results = call_all(
        state_for(shop, onnx),
        [
            ("search_code", {"query": "order", "top_k": True}),
            ("search_code", {"query": "order", "top_k": "5"}),
            ("git_log", {"path": ".", "limit": 1.5}),
            ("search_code", {"query": "order", "top_k": 2}),
        ],
    )
    assert [error_of(r)["code"] for r in results[:3]] == ["invalid_arguments"] * 3
    assert "top_k" in error_of(results[0])["message"]
    assert results[3].structured_content is not None
    assert len(results[3].structured_content["results"]) == 2


def test_git_tools_take_the_old_argument_names_too(shop: Shop, onnx: Embedder) -> None:
    """`git_blame` took `start`/`end` and `git_log` `max` before every tool said
    `start_line`/`end_line`/`limit`; a client written for them gets the same answer."""
    results = call_all(
        state_for(shop, onnx),
        [
            ("git_blame", {"path": "orders/checkout.py", "start": 2, "end": 3}),
            ("git_blame", {"path": "orders/checkout.py", "start_line": 2, "end_line": 3}),
            ("git_log", {"path": ".", "max": 1}),
            ("git_blame", {"path": "orders/checkout.py", "start": 1, "start_line": 2, "end": 3}),
        ],
    )
    old, new, log, both = results
    assert old.structured_content == new.structured_content
    assert old.structured_content is not None
    assert [(h["start_line"], h["end_line"]) for h in old.structured_content["hunks"]] == [(2, 3)]
    assert log.structured_content is not None and len(log.structured_content["commits"]) == 1
    assert error_of(both)["code"] == "invalid_arguments"
    assert error_of(both)["message"] == (
        "git_blame was given both 'start' (the old name of 'start_line'); give one."
    )


def test_secrets_inside_code_are_redacted(shop: Shop, onnx: Embedder) -> None:
    results = call_all(
        state_for(shop, onnx),
        [
            ("open_file", {"path": "config/settings.py"}),
            ("search_code", {"query": "GITHUB_TOKEN settings", "detail": "full"}),
        ],
    )
    for result in results:
        assert not result.is_error
        assert "[REDACTED:github_token]" in text_of(result)
        assert not any(canary in text_of(result) for canary in CANARIES)


def test_hostile_arguments_are_refused_and_leak_nothing(shop: Shop, onnx: Embedder) -> None:
    assert len(HOSTILE) >= 20
    results = call_all(state_for(shop, onnx), [(tool, args) for tool, args, _ in HOSTILE])
    for (tool, args, code), result in zip(HOSTILE, results, strict=True):
        assert error_of(result)["code"] == code, (tool, args, text_of(result))
        assert error_of(result)["tool"] == tool
        leaked = [c for c in CANARIES if c in text_of(result)]
        assert not leaked, (tool, args, leaked)
    assert not Path("/tmp/codecompass-pwned").exists()


def test_error_paths_are_structured_and_say_what_to_fix(shop: Shop, onnx: Embedder) -> None:
    results = call_all(
        state_for(shop, onnx),
        [
            ("open_file", {"path": "orders/nope.py"}),
            ("open_file", {"path": "orders/service.py", "start_line": 999}),
            ("open_file", {"path": "orders/service.py", "start_line": 9, "end_line": 3}),
            ("git_blame", {"path": "orders/service.py", "start_line": 90, "end_line": 95}),
            ("search_code", {"query": "   "}),
            ("search_code", {"query": "x", "top_k": 0}),
            ("open_file", {}),
            ("ask_code", {"query": "x", "scope": ["nope"]}),
            ("no_such_tool", {}),
            ("search_code", {"query": "x", "k": 3}),
            ("search_code", {"query": "x", "filters": {"path": "orders"}}),
            ("search_code", {"query": ["a"]}),
            ("find_symbol", {"name": "OrderBook", "kind": "func"}),
        ],
    )
    codes = [error_of(r)["code"] for r in results]
    assert codes == [
        "not_found",
        "out_of_range",
        "out_of_range",
        "out_of_range",
        "invalid_argument",
        "invalid_arguments",
        "invalid_arguments",
        "unknown_repo",
        "unknown_tool",
        "invalid_arguments",
        "invalid_arguments",
        "invalid_arguments",
        "invalid_argument",
    ]
    messages = [error_of(r)["message"] for r in results]
    assert "Line 999 is out of bounds for orders/service.py (lines 1-23)." in messages[1]
    assert "swap them" in messages[2]
    assert "top_k" in messages[5] and "Fix the arguments" in messages[5]
    assert "Unknown repository 'nope'; indexed: shop." in messages[7]
    assert "available: ask_code" in messages[8]
    assert messages[9] == (
        "search_code takes no argument 'k'; its arguments are: detail, filters, query, rerank, "
        "top_k, view."
    )
    # a misspelt filter is refused, not dropped; pydantic's internals are left out
    assert messages[10].startswith("1 validation error for search_code\nfilters.path\n")
    assert "Extra inputs are not permitted" in messages[10]
    assert messages[11] == (
        "1 validation error for search_code\nquery\n  Input should be a valid string\n"
        "Fix the arguments to match the tool's input schema."
    )
    assert messages[12] == (
        "Unknown kind 'func'; use one of: class, constant, enum, function, interface, method, "
        "module, section, struct, trait, type, variable."
    )
    for result in results:
        block = result.content[0]
        assert isinstance(block, TextContent)
        assert block.text.startswith(error_of(result)["code"] + ": ")


def test_graph_tools_answer_with_paths_and_confidences(shop: Shop, onnx: Embedder) -> None:
    results = call_all(
        state_for(shop, onnx),
        [
            ("find_symbol", {"name": "OrderBook"}),
            ("get_callers", {"symbol": "OrderBook.cancel"}),
            ("get_dependencies", {"symbol": "checkout", "types": ["calls"]}),
            ("traverse_graph", {"start": "checkout", "depth": 1}),
            ("repo_overview", {"budget_tokens": 300}),
            ("find_symbol", {"name": "GITHUB_TOKEN"}),
            ("get_callers", {"symbol": "no_such_symbol"}),
            ("find_symbol", {"name": "getVisitorCountryFromMoon"}),
            ("find_symbol", {"name": "getVisitorCountryFromMoon", "kind": "class"}),
        ],
    )
    found, callers, deps, walk, overview, token, missing = (
        r.structured_content for r in results[:7]
    )
    assert found is not None and found["matches"][0]["id"] == "shop/orders/service.py#OrderBook"
    assert found["matches"][0]["exact"] is True and found["hint"] is None
    # Nothing matched: a hint says what to try (an empty list had been all an agent got).
    nothing, narrowed = (r.structured_content for r in results[7:])
    assert nothing == {
        "matches": [],
        "hint": "No definition is named like 'getVisitorCountryFromMoon'. search_code finds "
        "code by what it does; part of the name (one word of it) may match.",
    }
    assert narrowed is not None and "(or drop the kind or repo filter)" in narrowed["hint"]
    assert callers is not None
    (edge,) = [e for e in callers["edges"] if e["source"].endswith("#checkout")]
    assert (edge["target"], edge["type"], edge["evidence_path"], edge["evidence_line"]) == (
        "shop/orders/service.py#OrderBook.cancel",
        "calls",
        "orders/checkout.py",
        10,
    )
    assert 0 < edge["confidence"] <= 1 and edge["resolved"] is True
    assert deps is not None
    assert {e["target"].split("#")[1] for e in deps["edges"]} >= {
        "parse_amount",
        "OrderBook.cancel",
    }
    assert all(e["type"] == "calls" for e in deps["edges"])
    assert walk is not None and walk["root"] == "shop/orders/checkout.py#checkout"
    assert ["shop/orders/checkout.py#checkout", "shop/orders/service.py#parse_amount"] in walk[
        "paths"
    ]
    assert overview is not None and overview["text"].startswith("# shop:")
    assert overview["files"][0]["path"] == "orders/service.py"
    # The text block is the map, within the budget (not the JSON of the map and files).
    (block,) = results[4].content
    assert isinstance(block, TextContent) and block.text == overview["text"]
    assert approx_tokens(block.text) <= 300
    # Constants' signatures carry their values: the server redacts them on the way out.
    assert token is not None and "[REDACTED:github_token]" in json.dumps(token)
    assert not any(c in text_of(r) for r in results for c in CANARIES)
    assert missing is not None and error_of(results[6])["code"] == "not_found"
    message = error_of(results[6])["message"]  # the agent's next step, not a CLI command
    assert message.endswith("find_symbol (name='no_such_symbol').")
    assert "codecompass" not in message


def test_no_index_yet(tmp_path: Path, onnx: Embedder) -> None:
    state = ServerState(settings_for(tmp_path / "empty"), embedder=onnx)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_code", {"query": "x"}),
        ("open_file", {"path": "a.py"}),
        ("find_symbol", {"name": "x"}),
        ("get_dependencies", {"symbol": "x"}),
        ("get_callers", {"symbol": "x"}),
        ("traverse_graph", {"start": "x"}),
        ("repo_overview", {}),
        ("ask_code", {"query": "x"}),
        ("git_log", {"path": "."}),
        ("git_blame", {"path": "a.py", "start_line": 1, "end_line": 2}),
        ("index_status", {}),
        ("memory_remember", {"content": "x"}),
        ("memory_recall", {"query": "x"}),
        ("memory_list", {}),
        ("memory_forget", {"ids": ["mem_x"]}),
        ("memory_capture", {"transcript": ""}),
    ]
    results = call_all(state, calls)
    assert sorted(name for name, _ in calls) == TOOLS
    for result in results:
        assert error_of(result)["code"] == "not_indexed"
        assert "run `codecompass index PATH" in error_of(result)["message"]
    assert not (tmp_path / "empty").exists()  # the server never creates a data folder


class FailingEmbedder:
    """The index's model, failing at query time."""

    def __init__(self, model: Embedder, error: Exception) -> None:
        self.model_id, self.dim, self.max_tokens = model.model_id, model.dim, model.max_tokens
        self.error = error

    def embed(self, texts: Any) -> Vectors:
        raise self.error

    def count_tokens(self, texts: Any) -> list[int]:
        return [1 for _ in texts]


def test_provider_model_and_internal_errors(shop: Shop, onnx: Embedder, tmp_path: Path) -> None:
    down = FailingEmbedder(onnx, EmbedderError("Cannot reach the embedding server at x."))
    crash = FailingEmbedder(onnx, RuntimeError("secret internal detail"))
    query = {"query": "cancel an order"}
    down_state = ServerState(settings_for(shop.data), embedder=down)
    provider = call_all(down_state, [("search_code", query), ("ask_code", query)])
    assert [error_of(r)["code"] for r in provider] == ["provider_error", "provider_error"]
    mismatch = call_all(
        ServerState(settings_for(shop.data), embedder=TinyEmbedder()), [("search_code", query)]
    )
    assert error_of(mismatch[0])["code"] == "model_mismatch"
    assert "built with the embedding model" in error_of(mismatch[0])["message"]
    internal = call_all(
        ServerState(settings_for(shop.data), embedder=crash), [("search_code", query)]
    )
    assert error_of(internal[0]) == {
        "code": "internal_error",
        "message": "Unexpected server error; the server log has the details.",
        "tool": "search_code",
    }
    rows = audit_rows(shop.data, "tool", "error_code", "provider_error")
    assert (
        "search_code",
        "provider_error",
        "embedder: Cannot reach the embedding server at x.",
    ) in rows
    assert (
        "ask_code",
        "provider_error",
        "embedder: Cannot reach the embedding server at x.",
    ) in rows


def test_open_file_is_capped(shop: Shop, onnx: Embedder) -> None:
    capped = state_for(shop, onnx, server=ServerSettings(open_max_lines=5, open_max_chars=10_000))
    whole, ranged = call_all(
        capped,
        [
            ("open_file", {"path": "orders/service.py"}),
            ("open_file", {"path": "orders/service.py", "start_line": 20, "end_line": 40}),
        ],
    )
    a, b = whole.structured_content, ranged.structured_content
    assert a is not None and (a["start_line"], a["end_line"], a["truncated"]) == (1, 5, True)
    assert a["next_start_line"] == 6 and a["content"] == "\n".join(SERVICE.split("\n")[:5])
    assert b is not None and (b["start_line"], b["end_line"], b["truncated"]) == (20, 23, False)
    # A line longer than the cap is cut and said to be (a minified file's 100,015
    # characters had come back as 40,000 with `truncated: false`).
    tiny = state_for(shop, onnx, server=ServerSettings(open_max_lines=5, open_max_chars=10))
    (cut,) = call_all(tiny, [("open_file", {"path": "orders/service.py", "end_line": 1})])
    c = cut.structured_content
    assert c is not None and (c["content"], c["end_line"], c["truncated"]) == (
        '"""Orders ',
        1,
        True,
    )
    assert c["next_start_line"] == 2


def test_ask_code_scope_names_each_repository_once(shop: Shop, onnx: Embedder) -> None:
    """A scope naming `shop` twice had doubled every evidence; 10,000 names held the
    one engine for 97 s: at most 50."""
    once, twice, flood = call_all(
        state_for(shop, onnx),
        [
            ("ask_code", {"query": "How is an order cancelled?", "scope": ["shop"]}),
            ("ask_code", {"query": "How is an order cancelled?", "scope": ["shop", "shop"]}),
            ("ask_code", {"query": "x", "scope": ["shop"] * 51}),
        ],
    )
    a, b = once.structured_content, twice.structured_content
    assert a is not None and b is not None and a["evidences"] == b["evidences"]
    assert error_of(flood)["code"] == "invalid_arguments"


def test_open_file_takes_locations_as_the_tools_print_them(shop: Shop, onnx: Embedder) -> None:
    """An agent copies a node id from the graph tools (`shop/orders/service.py#OrderBook.
    cancel`: that symbol's lines, not the file's first page), writes it without the
    repository (with `repo` or without), or a location from ask_code's answer
    (`orders/service.py:16-18`); a start past the end names the file's length."""
    node, bare, in_repo, located, past, unknown = call_all(
        state_for(shop, onnx),
        [
            ("open_file", {"path": "shop/orders/service.py#OrderBook.cancel"}),
            ("open_file", {"path": "orders/service.py#OrderBook.cancel"}),
            ("open_file", {"path": "orders/service.py#OrderBook.cancel", "repo": "shop"}),
            ("open_file", {"path": "orders/service.py:16-18"}),
            ("open_file", {"path": "orders/service.py", "start_line": 100_000}),
            ("open_file", {"path": "orders/service.py#OrderBook.close"}),
        ],
    )
    cancel = "\n".join(SERVICE.split("\n")[15:18])
    for result in (node, bare, in_repo, located):
        out = result.structured_content
        assert out is not None and not result.is_error
        assert (out["path"], out["start_line"], out["end_line"]) == ("orders/service.py", 16, 18)
        assert (out["content"], out["truncated"], out["next_start_line"]) == (cancel, False, None)
    assert error_of(past) == {
        "code": "out_of_range",
        "message": "Line 100000 is out of bounds for orders/service.py (lines 1-23).",
        "tool": "open_file",
    }
    # A file it names holds no such symbol: its symbols are named, not "no such file".
    assert error_of(unknown)["message"] == (
        "orders/service.py has no symbol 'OrderBook.close'; it defines: OrderBook, "
        "OrderBook.__init__, OrderBook.add, OrderBook.cancel, parse_amount. Open the file "
        "by its path, or find the name with find_symbol."
    )


def sampler(answer: str, calls: list[CreateMessageRequestParams]) -> Any:
    async def callback(
        context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        calls.append(params)
        if not answer:
            return ErrorData(code=-1, message="User rejected sampling request")
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=answer), model="fake-sampler"
        )

    return callback


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_ask_code_uses_the_clients_model_through_sampling(
    shop: Shop, onnx: Embedder, mode: str
) -> None:
    calls: list[CreateMessageRequestParams] = []
    answer = "`OrderBook.cancel` pops the order from the book [1]."
    (result,) = call_all(
        state_for(shop, onnx),
        [("ask_code", {"query": "How is an order cancelled?", "top_k": 3})],
        sampling_callback=sampler(answer, calls),
        mode=mode,
    )
    out = result.structured_content
    assert out is not None and not result.is_error
    assert out["answer"] == answer
    assert (out["meta"]["answer_mode"], out["meta"]["llm_model"]) == ("sampling", "fake-sampler")
    assert out["meta"]["cited"] == [1]
    assert len(calls) == 1
    assert calls[0].system_prompt is not None and "[n]" in calls[0].system_prompt
    message = calls[0].messages[0].content
    assert isinstance(message, TextContent)
    assert message.text.startswith("Question: How is an order cancelled?\n\nEvidence:\n[1] shop/")
    assert approx_tokens(message.text) <= 3000 + 100


def test_refused_sampling_falls_back_and_is_recorded(shop: Shop, onnx: Embedder) -> None:
    calls: list[CreateMessageRequestParams] = []
    (result,) = call_all(
        state_for(shop, onnx),
        [("ask_code", {"query": "How is an order cancelled?"})],
        sampling_callback=sampler("", calls),
        mode="legacy",
    )
    out = result.structured_content
    assert out is not None and out["meta"]["answer_mode"] == "extractive" and len(calls) == 1
    last = audit_rows(shop.data, "tool", "provider_error")[-1]
    assert last[0] == "ask_code" and last[1].startswith("sampling: ")


def test_ask_code_uses_an_openai_compatible_endpoint(shop: Shop, onnx: Embedder) -> None:
    with fake_chat_server() as chat:
        llm = LLMSettings(base_url=chat.base_url, model="local-model", context_tokens=600)
        (ok,) = call_all(
            state_for(shop, onnx, llm=llm), [("ask_code", {"query": "How is an order cancelled?"})]
        )
        assert len(chat.requests) == 1
        chat.status = 500
        failed = call_all(state_for(shop, onnx, llm=llm), [("ask_code", {"query": "cancel"})])[0]
    out = ok.structured_content
    assert out is not None
    assert (out["answer"], out["meta"]["answer_mode"], out["meta"]["llm_model"]) == (
        chat.answer,
        "llm",
        "fake-chat-1",
    )
    body = chat.requests[0]["body"]
    assert body["model"] == "local-model"
    assert approx_tokens(body["messages"][1]["content"]) <= 600 + 100
    assert out["meta"]["contexts_used"] == len(out["evidences"]) <= out["meta"]["total_matches"]
    fallback = failed.structured_content
    assert fallback is not None and fallback["meta"]["answer_mode"] == "extractive"
    assert audit_rows(shop.data, "provider_error")[-1][0].startswith("llm: Chat request")


def test_ask_code_extractive_answer_and_no_evidence(shop: Shop, onnx: Embedder) -> None:
    extractive, nothing = call_all(
        state_for(shop, onnx),
        [
            ("ask_code", {"query": "How is an order cancelled?", "top_k": 8}),
            ("ask_code", {"query": "How is an order cancelled?", "language": "go"}),
        ],
    )
    out = extractive.structured_content
    assert out is not None
    lines = out["answer"].splitlines()
    assert lines[0] == EXTRACTIVE_HEADER
    cut = lines.index("How they connect:")
    bullets = [line for line in lines[:cut] if line.startswith("- ")]
    assert len(bullets) == len(out["evidences"]) == out["meta"]["contexts_used"] <= 8
    assert all(line.endswith(f"[{n}]") for n, line in enumerate(bullets, start=1))
    assert out["meta"]["cited"] == list(range(1, len(bullets) + 1))
    # The graph tells how the evidences connect, each link citing both ends.
    n = {e["symbol"]: e["n"] for e in out["evidences"]}
    assert (
        f"- `checkout` calls `OrderBook.cancel` (confidence 0.8) "
        f"[{n['checkout']}][{n['OrderBook.cancel']}]"
    ) in lines[cut:]
    assert out["meta"]["scope"] == ["all"] and out["meta"]["llm_model"] is None
    empty = nothing.structured_content
    assert empty is not None
    assert (empty["answer"], empty["evidences"], empty["meta"]["answer_mode"]) == (
        NO_EVIDENCE,
        [],
        "none",
    )


def test_index_updates_are_seen_while_the_server_runs(tmp_path: Path, onnx: Embedder) -> None:
    repo = make_git_repo(tmp_path / "live", {"orders/service.py": SERVICE})
    data = tmp_path / "data"
    engine, root = Engine.for_repo(repo, data_dir=data, embedder=onnx)
    with engine:
        engine.index(root)
    state = ServerState(settings_for(data), embedder=onnx)
    query = {"query": "refund a charged payment to the customer", "top_k": 1}

    async def body(client: Client) -> tuple[Any, Any, Any, Any]:
        before = (await client.call_tool("search_code", query)).structured_content
        (repo / "orders" / "checkout.py").write_text(
            CHECKOUT + "\n\ndef refund_payment(order_id: str) -> None:\n"
            '    """Refund a charged payment to the customer."""\n',
            encoding="utf-8",
        )
        stale = (await client.call_tool("index_status", {})).structured_content
        (repo / "orders" / "service.py").write_text("# moved\n" + SERVICE, encoding="utf-8")
        opened = await client.call_tool("open_file", {"path": "live/orders/service.py#OrderBook"})
        # The node's lines are the index's: the file says it changed since (they had come
        # back one line off, with nothing to tell).
        assert opened.structured_content is not None and opened.structured_content["stale"]
        indexer, _ = Engine.for_repo(repo, data_dir=data, embedder=onnx)
        with indexer:
            run = indexer.backend.runs.start_run("live")  # as an index run in progress
            during = (await client.call_tool("index_status", {})).structured_content
            indexer.backend.runs.finish_run(run, "ok", {})
            indexer.index(root)
        after = (await client.call_tool("search_code", query)).structured_content
        return before, stale, during, after

    before, stale, during, after = run_client(state, body)
    assert before["results"][0]["symbol"] != "refund_payment"
    assert (stale["indexing_now"], during["indexing_now"]) == ([], ["live"])
    assert stale["repos"][0]["stale"]["added"] == 1
    assert stale["repos"][0]["files_to_read_again"] == 0
    assert after["results"][0]["symbol"] == "refund_payment"


def test_every_call_is_audited_without_contents(tmp_path: Path, onnx: Embedder) -> None:
    repo = make_git_repo(
        tmp_path / "r",
        {"a.py": "def alpha():\n    return 'SECRET-BODY'\n", "b.py": "def beta():\n    pass\n"},
    )
    data = tmp_path / "data"
    engine, root = Engine.for_repo(repo, data_dir=data, embedder=onnx)
    with engine:
        engine.index(root)
    quiet = ServerSettings(log_queries=False)
    call_all(
        ServerState(settings_for(data, server=quiet), embedder=onnx, transport="memory"),
        [
            ("search_code", {"query": "alpha function", "filters": {"language": "python"}}),
            ("open_file", {"path": "a.py"}),
            ("open_file", {"path": "../x"}),
            ("search_code", {"query": "alpha", "top_k": 0}),
        ],
    )
    rows = audit_rows(
        data, "tool", "transport", "query", "filters", "result_count", "status", "error_code"
    )
    assert rows == [
        ("search_code", "memory", None, '{"language": "python", "top_k": 10}', 2, "ok", None),
        ("open_file", "memory", None, '{"path": "a.py"}', 2, "ok", None),
        ("open_file", "memory", None, '{"path": "../x"}', None, "error", "access_denied"),
        ("search_code", "memory", None, None, None, "error", "invalid_arguments"),
    ]
    dump = json.dumps(audit_rows(data, "*"))
    assert "SECRET-BODY" not in dump and "alpha function" not in dump
    (client,) = {r[0] for r in audit_rows(data, "client")}
    assert client and client.startswith("mcp")
    stats = Engine.open(data, embedder=onnx).usage_stats()
    assert stats["tools"]["open_file"] | {"p50_ms": 0, "p95_ms": 0, "total_ms": 0} == {
        "calls": 2,
        "errors": 1,
        "no_hit": 0,
        "with_evidence": 0,
        "answered": 0,
        "p50_ms": 0,
        "p95_ms": 0,
        "total_ms": 0,
    }
    assert np.isclose(stats["evidence_rate"], 1.0)
