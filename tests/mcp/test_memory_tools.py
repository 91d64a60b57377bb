"""The memory tools, resource and prompt of the MCP server through the SDK's in-memory
client (and one round trip over stdio): what an agent stores, recalls, forgets and
captures, and the memories shown beside search and graph results."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp_types import (
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    ErrorData,
    TextContent,
)

from codecompass.answer import approx_tokens
from codecompass.engine import Engine
from codecompass.mcp_server import ServerState
from codecompass.memory.capture import CAPTURE_SYSTEM
from codecompass.protocols import Embedder
from codecompass.settings import LLMSettings, load_settings
from tests.fake_llm import fake_chat_server
from tests.mcp.conftest import Shop, error_of, run_client, settings_for, text_of

MEMORY_TOOLS = [
    "memory_capture",
    "memory_forget",
    "memory_list",
    "memory_recall",
    "memory_remember",
]
PARSE_AMOUNT = "shop/orders/service.py#parse_amount"
# A GitHub token shape, built at run time so that no scanner flags this file.
GITHUB_TOKEN = "ghp_" + "".join(chr(ord("a") + (i * 7) % 26) + str(i % 10) for i in range(18))
DECISION = "We decided to use PostgreSQL advisory locks for the job queue because Redis was flaky."
TRANSCRIPT = json.dumps({"role": "assistant", "content": DECISION})
CONTEXT_HEADER = (
    "## Project Memory\nWhat earlier sessions recorded about this project (Code Compass "
    "memory; `memory_recall` finds more).\n"
)


@pytest.fixture
def data(shop: Shop, tmp_path: Path) -> Path:
    """A copy of the shop's index per test: memories written here stay here."""
    copy = tmp_path / "data"
    shutil.copytree(shop.data, copy)
    return copy


def state_of(data: Path, onnx: Embedder, **sections: Any) -> ServerState:
    return ServerState(settings_for(data, **sections), embedder=onnx, transport="memory")


def call_all(
    state: ServerState, calls: list[tuple[str, dict[str, Any]]], **client_args: Any
) -> list[CallToolResult]:
    async def body(client: Client) -> list[CallToolResult]:
        return [await client.call_tool(name, args) for name, args in calls]

    return run_client(state, body, **client_args)


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    content: dict[str, Any] | None = result.structured_content
    assert content is not None
    return content


def memories_in(data: Path, onnx: Embedder) -> list[dict[str, Any]]:
    """What the bank holds, read past the server."""
    with Engine(load_settings(data, environ={}), embedder=onnx) as engine:
        return [item.as_dict() for item in engine.memory.entries()]


def test_memory_tools_are_advertised_with_their_annotations(data: Path, onnx: Embedder) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {t.name: t for t in run_client(state_of(data, onnx), body)}
    assert set(MEMORY_TOOLS) <= set(tools)
    annotations = {
        name: tools[name].model_dump(mode="json", by_alias=True, exclude_none=True)["annotations"]
        for name in MEMORY_TOOLS
    }
    writes = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True}
    assert annotations == {
        "memory_capture": writes,
        "memory_forget": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
        "memory_list": {"readOnlyHint": True},
        "memory_recall": {"readOnlyHint": True},
        "memory_remember": writes,
    }
    for name in MEMORY_TOOLS:
        assert tools[name].output_schema is not None, name
    remember = tools["memory_remember"].input_schema
    assert remember["required"] == ["content"]
    assert remember["properties"]["type"]["enum"] == [
        "decision",
        "pattern",
        "error",
        "spec",
        "context",
    ]


def test_remember_stores_once_and_refuses_secrets_and_unknown_types(
    data: Path, onnx: Embedder
) -> None:
    fact = "Orders are only ever removed through OrderBook.cancel; never delete rows directly."
    results = call_all(
        state_of(data, onnx),
        [
            ("memory_remember", {"content": fact, "type": "pattern", "tags": ["Orders"]}),
            # The same text, other case and spacing: an exact duplicate.
            ("memory_remember", {"content": "  " + fact.upper().replace(" ", "   ") + "\n"}),
            ("memory_remember", {"content": f"The CI deploy token is {GITHUB_TOKEN} for now."}),
            ("memory_remember", {"content": "Orders may be cancelled twice.", "type": "opinion"}),
            ("memory_list", {}),
        ],
    )
    created, duplicate, secret, bad_type, listed = results
    first = ok(created)
    mem_id = first["id"]
    assert mem_id.startswith("mem_") and len(mem_id) == 16
    assert first == {
        "status": "created",
        "id": mem_id,
        "similar_to": None,
        "similarity": None,
        "links": [],
        "evicted": [],
        "message": f"Remembered as {mem_id}.",
    }
    assert ok(duplicate) == {
        "status": "duplicate",
        "id": mem_id,
        "similar_to": None,
        "similarity": None,
        "links": [],
        "evicted": [],
        "message": f"Already remembered as {mem_id} (same text).",
    }
    error = error_of(secret)
    assert (error["code"], error["tool"]) == ("invalid_argument", "memory_remember")
    assert error["message"].startswith(
        "Refused: the memory holds a secret (a GitHub token (ghp_…, gho_…, ghs_…, github_pat_…) "
        "on line 1)."
    )
    assert GITHUB_TOKEN not in text_of(secret)
    assert error_of(bad_type)["code"] == "invalid_arguments"
    assert "type" in error_of(bad_type)["message"]
    (item,) = ok(listed)["memories"]
    assert (item["id"], item["type"], item["content"], item["tags"], item["source"]) == (
        mem_id,
        "pattern",
        fact,
        ["orders"],
        "mcp",
    )
    assert (item["access_count"], item["links"], item["dangling"]) == (0, [], [])
    # Nothing but the one fact reached the bank; neither it nor the secret reached the
    # audit log (which keeps the arguments, not the content).
    assert [m["id"] for m in memories_in(data, onnx)] == [mem_id]
    conn = sqlite3.connect(data / "index.sqlite")
    try:
        rows = conn.execute(
            "SELECT tool, status, error_code FROM audit_log WHERE tool LIKE 'memory_%' ORDER BY id"
        ).fetchall()
        dump = json.dumps(conn.execute("SELECT * FROM audit_log").fetchall())
    finally:
        conn.close()
    assert rows == [
        ("memory_remember", "ok", None),
        ("memory_remember", "ok", None),
        ("memory_remember", "error", "invalid_argument"),
        ("memory_remember", "error", "invalid_arguments"),
        ("memory_list", "ok", None),
    ]
    assert GITHUB_TOKEN not in dump and "OrderBook.cancel;" not in dump


def test_recall_puts_the_related_memory_first_within_the_budget(data: Path, onnx: Embedder) -> None:
    facts = [
        ("decision", DECISION),
        ("pattern", "Money amounts are parsed with parse_amount into Decimal, never float."),
        ("context", "The docs folder holds the user guide written in Markdown."),
    ]
    question = {"query": "which lock does the job queue use?"}
    results = call_all(
        state_of(data, onnx),
        [("memory_remember", {"content": text, "type": kind}) for kind, text in facts]
        + [
            ("memory_recall", question),
            ("memory_recall", {**question, "budget_tokens": 50}),
            ("memory_recall", {**question, "types": ["context"]}),
            ("memory_recall", {**question, "budget_tokens": 10}),
            ("memory_list", {}),
        ],
    )
    ids = [ok(r)["id"] for r in results[:3]]
    recalled, small, context_only = (ok(r) for r in results[3:6])
    assert recalled["hits"][0]["memory"]["id"] == ids[0]
    assert recalled["hits"][0]["memory"]["content"] == DECISION
    assert recalled["query"] == "which lock does the job queue use?"
    assert recalled["budget"] == 2000 and 0 < recalled["tokens"] <= 2000
    assert recalled["text"].splitlines()[0] == f"{ids[0]} [decision] {DECISION}"
    assert recalled["detail"] == "compact"
    assert recalled["matched"] == len(recalled["hits"]) + recalled["omitted"]
    # A budget too small for every memory: fewer shown, the rest counted as omitted.
    assert small["budget"] == 50 and 0 < small["tokens"] <= 50
    assert [h["memory"]["id"] for h in small["hits"]] == [ids[0]]
    assert small["text"] == f"{ids[0]} [decision] {DECISION}"
    assert small["omitted"] == small["matched"] - 1 >= 1
    # The text block the model reads is the recalled text within the budget (with the
    # count of what the budget left out), not the JSON of every hit: at budget 50 it
    # had been about 194 tokens.
    (block,) = results[4].content
    assert isinstance(block, TextContent)
    assert block.text == (
        f"{ids[0]} [decision] {DECISION}\n"
        f"({small['omitted']} more matched; raise budget_tokens or limit to see them.)"
    )
    assert approx_tokens(block.text) <= 50 + 15
    assert [h["memory"]["id"] for h in context_only["hits"]] == [ids[2]]
    assert error_of(results[6])["code"] == "invalid_arguments"  # budget below 50
    # Recall is a use: the recalled memory's count went up (once per call that showed it).
    counts = {m["id"]: m["access_count"] for m in ok(results[7])["memories"]}
    assert counts[ids[0]] == 2


def test_list_shows_links_and_forget_deletes_all_or_nothing(data: Path, onnx: Embedder) -> None:
    async def body(client: Client) -> list[CallToolResult]:
        linked = await client.call_tool(
            "memory_remember",
            {
                "content": "Amounts typed by users go through `parse_amount` before any sum.",
                "type": "pattern",
            },
        )
        plain = await client.call_tool(
            "memory_remember",
            {"content": "Releases are cut on Thursdays after the QA sign-off.", "type": "spec"},
        )
        first, second = ok(linked)["id"], ok(plain)["id"]
        return [
            linked,
            plain,
            await client.call_tool("memory_list", {}),
            await client.call_tool("memory_list", {"symbols": ["parse_amount"]}),
            await client.call_tool("memory_forget", {"ids": [first, "mem_000000000000"]}),
            await client.call_tool("memory_list", {}),
            await client.call_tool("memory_forget", {"ids": [first]}),
            await client.call_tool("memory_list", {}),
            await client.call_tool("memory_forget", {"ids": []}),
            await client.call_tool("memory_forget", {"ids": [second]}),
        ]

    results = run_client(state_of(data, onnx), body)
    linked, plain, listed, about, unknown, kept, forgot, after, empty, last = results
    first, second = ok(linked)["id"], ok(plain)["id"]
    # The backticked name names one function: the memory links to it.
    assert ok(linked)["links"] == [PARSE_AMOUNT]
    listing = ok(listed)["memories"]
    assert {m["id"]: m["links"] for m in listing} == {first: [PARSE_AMOUNT], second: []}
    assert [m["id"] for m in ok(about)["memories"]] == [first]
    error = error_of(unknown)
    assert (error["code"], error["tool"]) == ("not_found", "memory_forget")
    assert "mem_000000000000" in error["message"] and first not in error["message"]
    assert {m["id"] for m in ok(kept)["memories"]} == {first, second}  # nothing deleted
    assert ok(forgot) == {"forgotten": [first]}
    assert [m["id"] for m in ok(after)["memories"]] == [second]
    assert error_of(empty)["code"] == "invalid_arguments"
    assert ok(last) == {"forgotten": [second]}
    assert memories_in(data, onnx) == []


def test_memories_about_a_function_come_with_its_callers_and_search_hits(
    data: Path, onnx: Embedder
) -> None:
    note = "Amounts are Decimals: parse_amount must never return a float."
    results = call_all(
        state_of(data, onnx),
        [
            ("memory_remember", {"content": note, "type": "spec", "symbols": ["parse_amount"]}),
            ("get_callers", {"symbol": "parse_amount"}),
            ("search_code", {"query": "parse_amount", "top_k": 3}),
            ("search_code", {"query": "cancelling", "filters": {"path_prefix": "docs/"}}),
            ("get_callers", {"symbol": "OrderBook.cancel"}),
            ("memory_remember", {"content": "Something about it.", "symbols": ["no_such_fn"]}),
        ],
    )
    remembered, callers, search, docs, other, unresolved = results
    mem_id = ok(remembered)["id"]
    assert ok(remembered)["links"] == [PARSE_AMOUNT]
    expected = {"id": mem_id, "type": "spec", "content": note, "about": [PARSE_AMOUNT]}
    graph = ok(callers)
    assert "shop/orders/checkout.py#checkout" in {e["source"] for e in graph["edges"]}
    assert graph["memories"] == [expected]
    found = ok(search)
    assert PARSE_AMOUNT in {f"{r['repo']}/{r['path']}#{r['symbol']}" for r in found["results"]}
    assert found["memories"] == [expected]
    # Results about other code carry no memory.
    assert ok(docs)["results"] and ok(docs)["memories"] == []
    assert ok(other)["memories"] == []
    assert error_of(unresolved)["code"] == "not_found"
    assert [m["id"] for m in memories_in(data, onnx)] == [mem_id]


def test_context_resource_and_prompt(data: Path, onnx: Embedder) -> None:
    state = state_of(data, onnx)

    async def read(client: Client) -> tuple[str, str]:
        resource = await client.read_resource("codecompass://memory/context")
        (contents,) = resource.contents
        prompt = await client.get_prompt("project_memory")
        (message,) = prompt.messages
        assert isinstance(message.content, TextContent)
        return getattr(contents, "text", ""), message.content.text

    empty_resource, empty_prompt = run_client(state, read)
    assert empty_resource == "## Project Memory\n(nothing remembered yet)\n"
    assert empty_prompt == (
        "Code Compass has no project memory yet; use memory_remember to add some."
    )
    ids = [
        ok(r)["id"]
        for r in call_all(
            state,
            [
                ("memory_remember", {"content": DECISION, "type": "decision"}),
                (
                    "memory_remember",
                    {
                        "content": "Amounts typed by users go through `parse_amount` first.",
                        "type": "pattern",
                    },
                ),
            ],
        )
    ]
    assert len(set(ids)) == 2
    resource, prompt = run_client(state, read)
    assert resource == (
        CONTEXT_HEADER + "\n### Decisions\n"
        f"- {DECISION}\n"
        "\n### Patterns\n"
        "- Amounts typed by users go through `parse_amount` first. "
        f"(about `{PARSE_AMOUNT}`)\n"
    )
    assert prompt == resource + (
        "\nKeep these in mind; check them with memory_recall when relevant."
    )
    # Loading the context is not a use.
    assert [m["access_count"] for m in memories_in(data, onnx)] == [0, 0]


def test_the_context_is_redacted_and_says_why_it_is_missing(
    data: Path, onnx: Embedder, tmp_path: Path
) -> None:
    """The resource and the prompt showed an example key that memory_list redacts, and
    without an index they failed with the SDK's bare "Error reading resource"."""

    async def read(client: Client) -> tuple[str, str]:
        resource = await client.read_resource("codecompass://memory/context")
        prompt = await client.get_prompt("project_memory")
        content = prompt.messages[0].content
        assert isinstance(content, TextContent)
        return getattr(resource.contents[0], "text", ""), content.text

    state = state_of(data, onnx)
    note = "The CI uses the documented example key AKIAIOSFODNN7EXAMPLE in its fixtures."
    ok(call_all(state, [("memory_remember", {"content": note, "type": "context"})])[0])
    resource, prompt = run_client(state, read)
    assert "AKIAIOSFODNN7EXAMPLE" not in resource + prompt
    assert "[REDACTED:aws_access_key_id]" in resource
    empty = tmp_path / "no-index"
    empty.mkdir()
    resource, prompt = run_client(ServerState(settings_for(empty), embedder=onnx), read)
    assert resource.startswith("## Project Memory\n(unavailable: ")
    assert "codecompass index" in resource
    assert prompt.startswith("Code Compass cannot read its project memory: ")


def test_the_context_resource_is_fresh_within_one_session(data: Path, onnx: Embedder) -> None:
    async def body(client: Client) -> tuple[str, str]:
        before = await client.read_resource("codecompass://memory/context")
        ok(await client.call_tool("memory_remember", {"content": DECISION, "type": "decision"}))
        after = await client.read_resource("codecompass://memory/context")
        return getattr(before.contents[0], "text", ""), getattr(after.contents[0], "text", "")

    before, after = run_client(state_of(data, onnx), body)
    assert before == "## Project Memory\n(nothing remembered yet)\n"
    assert after == CONTEXT_HEADER + f"\n### Decisions\n- {DECISION}\n"


def test_capture_without_sampling_uses_the_rules(data: Path, onnx: Embedder) -> None:
    results = call_all(
        state_of(data, onnx),
        [
            ("memory_capture", {"transcript": TRANSCRIPT, "dry_run": True}),
            ("memory_list", {}),
            ("memory_capture", {"transcript": TRANSCRIPT}),
            ("memory_capture", {"transcript": TRANSCRIPT}),
        ],
    )
    dry, listed, kept, again = results
    proposal = {
        "type": "decision",
        "content": DECISION,
        "tags": ["postgresql", "redis"],
        "reason": "rules: decision marker 'we decided'",
    }
    assert ok(dry) == {
        "extractor": "rules",
        "model": None,
        "dry_run": True,
        "turns": 1,
        "items": [{**proposal, "status": "would_keep", "id": None, "detail": ""}],
        "provider_error": None,
    }
    assert ok(listed) == {"memories": []}
    capture = ok(kept)
    (item,) = capture["items"]
    assert (capture["extractor"], capture["dry_run"], capture["turns"]) == ("rules", False, 1)
    assert item == {
        **proposal,
        "status": "created",
        "id": item["id"],
        "detail": f"Remembered as {item['id']}.",
    }
    (again_item,) = ok(again)["items"]
    assert (again_item["status"], again_item["id"]) == ("duplicate", item["id"])
    (stored,) = memories_in(data, onnx)
    assert (stored["id"], stored["type"], stored["content"], stored["source"]) == (
        item["id"],
        "decision",
        DECISION,
        "capture:rules",
    )
    assert stored["tags"] == ["postgresql", "redis"]


def test_capture_of_a_malformed_transcript_says_which_line(data: Path, onnx: Embedder) -> None:
    (broken,) = call_all(
        state_of(data, onnx),
        [("memory_capture", {"transcript": TRANSCRIPT + "\nnot json"})],
    )
    error = error_of(broken)
    assert (error["code"], error["tool"]) == ("invalid_argument", "memory_capture")
    assert "transcript line 2 is not valid JSON" in error["message"]
    assert memories_in(data, onnx) == []


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


SAMPLED: list[dict[str, Any]] = [
    {
        "type": "decision",
        "content": "The job queue locks with PostgreSQL advisory locks; Redis was flaky.",
        "tags": ["postgresql", "Redis"],
    },
    {
        "type": "error",
        "content": "Checkout failed on '12,50' until parse_amount stripped the input.",
        "tags": [],
    },
    {"type": "opinion", "content": "Nice weather today for a long refactoring session."},
    {"type": "context", "content": "Short one."},
]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_capture_uses_the_clients_model_through_sampling(
    data: Path, onnx: Embedder, mode: str
) -> None:
    calls: list[CreateMessageRequestParams] = []
    answer = "Here you go:\n```json\n" + json.dumps(SAMPLED) + "\n```"
    (result,) = call_all(
        state_of(data, onnx),
        [("memory_capture", {"transcript": TRANSCRIPT})],
        sampling_callback=sampler(answer, calls),
        mode=mode,
    )
    capture = ok(result)
    assert (capture["extractor"], capture["model"], capture["turns"]) == (
        "sampling",
        "fake-sampler",
        1,
    )
    assert capture["provider_error"] is None
    items = capture["items"]
    # The unknown type is dropped by the parser; the short one rejected by the bank.
    assert [(i["type"], i["status"], i["reason"]) for i in items] == [
        ("decision", "created", "llm"),
        ("error", "created", "llm"),
        ("context", "rejected", "llm"),
    ]
    assert items[0]["tags"] == ["postgresql", "redis"]
    assert items[2]["detail"] == "2 words; a captured memory needs 6"
    assert len(calls) == 1
    assert calls[0].system_prompt == CAPTURE_SYSTEM
    prompt = calls[0].messages[0].content
    assert isinstance(prompt, TextContent) and f"ASSISTANT: {DECISION}" in prompt.text
    stored = {m["id"]: m for m in memories_in(data, onnx)}
    assert set(stored) == {items[0]["id"], items[1]["id"]}
    assert {m["content"] for m in stored.values()} == {SAMPLED[0]["content"], SAMPLED[1]["content"]}
    assert {m["source"] for m in stored.values()} == {"capture:sampling"}


def test_capture_dry_run_with_sampling_stores_nothing(data: Path, onnx: Embedder) -> None:
    calls: list[CreateMessageRequestParams] = []
    (result,) = call_all(
        state_of(data, onnx),
        [("memory_capture", {"transcript": TRANSCRIPT, "dry_run": True})],
        sampling_callback=sampler(json.dumps(SAMPLED[:2]), calls),
    )
    capture = ok(result)
    assert (capture["extractor"], capture["dry_run"]) == ("sampling", True)
    assert [i["status"] for i in capture["items"]] == ["would_keep", "would_keep"]
    assert len(calls) == 1 and memories_in(data, onnx) == []


def test_refused_sampling_falls_back_to_the_rules(data: Path, onnx: Embedder) -> None:
    calls: list[CreateMessageRequestParams] = []
    (result,) = call_all(
        state_of(data, onnx),
        [("memory_capture", {"transcript": TRANSCRIPT, "dry_run": True})],
        sampling_callback=sampler("", calls),
        mode="legacy",
    )
    capture = ok(result)
    assert len(calls) == 1
    assert capture["extractor"] == "rules"
    assert [(i["content"], i["status"]) for i in capture["items"]] == [(DECISION, "would_keep")]


def test_capture_with_the_servers_model_is_labelled_llm(data: Path, onnx: Embedder) -> None:
    """A client without sampling, a server with an [llm] endpoint: the server's model
    extracts, and the result says so."""
    with fake_chat_server() as chat:
        chat.answer = json.dumps(SAMPLED[:1])
        llm = LLMSettings(base_url=chat.base_url, model="local-model")
        (result,) = call_all(
            state_of(data, onnx, llm=llm),
            [("memory_capture", {"transcript": TRANSCRIPT, "dry_run": True})],
        )
    capture = ok(result)
    assert len(chat.requests) == 1
    assert capture["model"] == "fake-chat-1"
    assert [i["content"] for i in capture["items"]] == [SAMPLED[0]["content"]]
    assert capture["extractor"] == "llm"


@pytest.mark.slow
def test_a_memory_outlives_the_stdio_session(data: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codecompass", "serve", "--data-dir", str(data)]
    )

    async def session(name: str, args: dict[str, Any]) -> CallToolResult:
        async with Client(params, read_timeout_seconds=60) as client:
            return await client.call_tool(name, args)

    remembered = anyio.run(
        session, "memory_remember", {"content": DECISION, "type": "decision", "tags": ["queue"]}
    )
    mem_id = ok(remembered)["id"]
    recalled = ok(anyio.run(session, "memory_recall", {"query": "how is the job queue locked"}))
    (hit,) = recalled["hits"]
    assert (hit["memory"]["id"], hit["memory"]["content"], hit["memory"]["tags"]) == (
        mem_id,
        DECISION,
        ["queue"],
    )
    assert (hit["memory"]["source"], hit["memory"]["access_count"]) == ("mcp", 0)
    assert recalled["text"] == f"{mem_id} [decision] {DECISION} #queue"
