"""Reranking in search_code and ask_code (issue 18): real MCP client sessions whose model
is a scripted `sampling_callback`, and the fake chat endpoint for `[llm]`. Every order is
asserted exactly; every failure must leave the order as it was and say why.

These test the plumbing only: no real model is reachable here, so nothing below measures
whether reranking improves a ranking."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientRequestContext
from mcp_types import CallToolResult, CreateMessageRequestParams, CreateMessageResult, ErrorData
from mcp_types import TextContent as Text

from codecompass.answer import approx_tokens
from codecompass.mcp_server import ServerState
from codecompass.protocols import Embedder
from codecompass.search.rerank import SYSTEM_PROMPT, WHY_KEY
from codecompass.settings import LLMSettings
from tests.fake_llm import fake_chat_server
from tests.mcp.conftest import Shop, run_client, settings_for

QUERY = "cancel an order and parse the amount"
ANSWER = "`OrderBook.cancel` removes the order [1]."
_SHOWN = re.compile(r"^(c\d+) (\S+:\d+-\d+) ", re.MULTILINE)


class Scripted:
    """The client's model: rerank prompts get `rerank` (a reply, or a function of the ids
    shown), other prompts `answer`; it may refuse or be slow. Keeps every request."""

    def __init__(
        self,
        rerank: str | Callable[[list[str]], str] = "",
        *,
        refuse: bool = False,
        delay: float = 0.0,
    ) -> None:
        self.rerank, self.refuse, self.delay = rerank, refuse, delay
        self.calls: list[CreateMessageRequestParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        self.calls.append(params)
        if self.refuse:
            return ErrorData(code=-1, message="User rejected sampling request")
        if self.delay:
            await anyio.sleep(self.delay)
        if params.system_prompt != SYSTEM_PROMPT:
            text = ANSWER
        elif callable(self.rerank):
            text = self.rerank(list(shown(params)))
        else:
            text = self.rerank
        return CreateMessageResult(
            role="assistant", content=Text(type="text", text=text), model="scripted-model"
        )

    def rerank_calls(self) -> list[CreateMessageRequestParams]:
        return [c for c in self.calls if c.system_prompt == SYSTEM_PROMPT]


def user_text(params: CreateMessageRequestParams) -> str:
    content = params.messages[0].content
    assert isinstance(content, Text)
    return content.text


def shown(params: CreateMessageRequestParams) -> dict[str, str]:
    """id → `path:start-end` of each candidate in a rerank prompt, in prompt order."""
    return {m.group(1): m.group(2) for m in _SHOWN.finditer(user_text(params))}


def loc(hit: dict[str, Any]) -> str:
    return f"{hit['path']}:{hit['start_line']}-{hit['end_line']}"


def state_for(shop: Shop, onnx: Embedder, **llm: Any) -> ServerState:
    settings = settings_for(shop.data, llm=LLMSettings(**llm))
    return ServerState(settings, embedder=onnx, transport="memory")


def calls(state: ServerState, todo: list[tuple[str, dict[str, Any]]], **client: Any) -> list[Any]:
    async def body(c: Any) -> list[CallToolResult]:
        return [await c.call_tool(name, args) for name, args in todo]

    results = run_client(state, body, **client)
    for result in results:
        assert not result.is_error, result.content
    return [r.structured_content for r in results]


def last_provider_error(shop: Shop) -> str | None:
    conn = sqlite3.connect(shop.data / "index.sqlite")
    try:
        row = conn.execute("SELECT provider_error FROM audit_log ORDER BY id DESC LIMIT 1")
        found = row.fetchone()
        return None if found is None else found[0]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def plain(shop: Shop, onnx: Embedder) -> list[str]:
    """The ranking without reranking (30 deep, as the reranker sees it)."""
    (out,) = calls(state_for(shop, onnx), [("search_code", {"query": QUERY, "top_k": 30})])
    found = [loc(h) for h in out["results"]]
    assert len(found) >= 5, found  # enough to tell orders apart
    return found


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_search_code_reorders_exactly_as_the_clients_model_says(
    shop: Shop, onnx: Embedder, plain: list[str], mode: str
) -> None:
    model = Scripted("c3 c1 c3 c99 cx")  # a repeat, an unknown id and a stray token
    (out,) = calls(
        state_for(shop, onnx),
        [("search_code", {"query": QUERY, "top_k": 5, "rerank": True})],
        sampling_callback=model,
        mode=mode,
    )
    (params,) = model.calls
    ids = shown(params)
    assert list(ids) == [f"c{n}" for n in range(1, len(plain) + 1)]
    assert list(ids.values()) == plain  # the head of the ranking, in order
    assert [loc(h) for h in out["results"]] == [plain[2], plain[0], plain[1], plain[3], plain[4]]
    assert [h["why"][WHY_KEY] for h in out["results"]] == [3, 1, 2, 4, 5]
    tokens = approx_tokens(SYSTEM_PROMPT) + approx_tokens(user_text(params))
    assert out["rerank"] == {
        "used": True,
        "by": "sampling",
        "model": "scripted-model",
        "candidates": len(plain),
        "prompt_tokens": tokens,
        "reason": None,
    }
    assert tokens <= LLMSettings().rerank_tokens
    assert params.temperature == 0 and params.max_tokens == 8 * len(plain) + 32
    assert user_text(params).startswith(f"Query: {QUERY}\n\nCandidates:\nc1 {plain[0]} ")


def test_search_code_reranks_the_symbol_view_when_asked_for_it(shop: Shop, onnx: Embedder) -> None:
    """With `view` "symbols" the model reorders the view's functions (one candidate a
    symbol), not the chunks."""
    state = state_for(shop, onnx)
    (view,) = calls(state, [("search_code", {"query": QUERY, "top_k": 30, "view": "symbols"})])
    symbols = [(h["path"], h["symbol"]) for h in view["results"]]
    assert len(symbols) == len(set(symbols)) >= 3
    model = Scripted("c2 c1")
    (out,) = calls(
        state,
        [("search_code", {"query": QUERY, "top_k": 3, "view": "symbols", "rerank": True})],
        sampling_callback=model,
    )
    (params,) = model.calls
    assert list(shown(params).values()) == [loc(h) for h in view["results"]]
    assert [(h["path"], h["symbol"]) for h in out["results"]] == [
        symbols[1],
        symbols[0],
        symbols[2],
    ]
    assert out["rerank"]["used"] is True


@pytest.mark.parametrize(
    ("model", "mode", "reason"),
    [
        (Scripted(refuse=True), "legacy", "sampling: User rejected sampling request"),
        (Scripted("I would read the first one."), "legacy", "sampling: the reply names none"),
        (Scripted("c0 c99 c123 order"), "auto", "sampling: the reply names none of the ids"),
        (Scripted(""), "legacy", "sampling: the model returned no text"),
        (Scripted("c2 c1", delay=3.0), "legacy", "sampling: no reply within 0.3 s"),
    ],
    ids=["refused", "garbage", "unknown-ids", "empty", "timeout"],
)
def test_a_failed_rerank_keeps_the_order_and_says_why(
    shop: Shop, onnx: Embedder, plain: list[str], model: Scripted, mode: str, reason: str
) -> None:
    model.calls.clear()
    began = time.perf_counter()
    (out,) = calls(
        state_for(shop, onnx, rerank_timeout_s=0.3),
        [("search_code", {"query": QUERY, "top_k": 6, "rerank": True})],
        sampling_callback=model,
        mode=mode,
    )
    assert len(model.calls) == 1
    assert [loc(h) for h in out["results"]] == plain[:6]
    assert all(WHY_KEY not in h["why"] for h in out["results"])
    info = out["rerank"]
    assert (info["used"], info["by"], info["model"]) == (False, "sampling", None)
    assert info["reason"].startswith(reason), info["reason"]
    assert info["candidates"] == len(plain)
    error = last_provider_error(shop)
    assert error is not None and error.startswith("sampling: rerank: "), error
    if model.delay:
        assert time.perf_counter() - began < model.delay + 5  # the server did not wait it out


def test_reranking_is_off_unless_asked_for_or_configured(
    shop: Shop, onnx: Embedder, plain: list[str]
) -> None:
    model = Scripted("c2 c1")
    search, ask = calls(
        state_for(shop, onnx),
        [("search_code", {"query": QUERY, "top_k": 5}), ("ask_code", {"query": QUERY})],
        sampling_callback=model,
        mode="legacy",
    )
    assert model.rerank_calls() == [] and len(model.calls) == 1  # ask_code's answer only
    assert search["rerank"] is None and ask["meta"]["rerank"] is None
    assert [loc(h) for h in search["results"]] == plain[:5]

    model = Scripted("c2 c1")
    on, off = calls(
        state_for(shop, onnx, rerank=True),
        [
            ("search_code", {"query": QUERY, "top_k": 5}),
            ("search_code", {"query": QUERY, "top_k": 5, "rerank": False}),
        ],
        sampling_callback=model,
        mode="legacy",
    )
    assert len(model.rerank_calls()) == 1  # the setting turned it on; the argument off
    assert [loc(h) for h in on["results"]] == [plain[1], plain[0], *plain[2:5]]
    assert on["rerank"]["used"] is True and off["rerank"] is None
    assert [loc(h) for h in off["results"]] == plain[:5]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_ask_code_packs_the_evidence_in_the_reranked_order(
    shop: Shop, onnx: Embedder, mode: str
) -> None:
    model = Scripted(lambda ids: " ".join(reversed(ids)))
    (out,) = calls(
        state_for(shop, onnx),
        [("ask_code", {"query": QUERY, "top_k": 3, "rerank": True})],
        sampling_callback=model,
        mode=mode,
    )
    rerank, answer = model.calls  # the rerank first, then the answer on its evidence
    assert rerank.system_prompt == SYSTEM_PROMPT and answer.system_prompt != SYSTEM_PROMPT
    ids = list(shown(rerank).values())
    assert len(ids) >= 4
    assert [loc(e) for e in out["evidences"]] == ids[::-1][:3]
    assert [e["why"][WHY_KEY] for e in out["evidences"]] == [len(ids), len(ids) - 1, len(ids) - 2]
    assert user_text(answer).startswith(f"Question: {QUERY}\n\nEvidence:\n[1] shop/{ids[-1]}")
    assert out["answer"] == ANSWER and out["meta"]["answer_mode"] == "sampling"
    assert out["meta"]["rerank"]["used"] is True and out["meta"]["rerank"]["by"] == "sampling"


def test_ask_code_answers_when_the_rerank_is_refused(shop: Shop, onnx: Embedder) -> None:
    (plain,) = calls(state_for(shop, onnx), [("ask_code", {"query": QUERY, "top_k": 3})])
    model = Scripted(refuse=True)
    (out,) = calls(
        state_for(shop, onnx),
        [("ask_code", {"query": QUERY, "top_k": 3, "rerank": True})],
        sampling_callback=model,
        mode="legacy",
    )
    assert len(model.calls) == 2  # the rerank and the answer, both refused
    assert [loc(e) for e in out["evidences"]] == [loc(e) for e in plain["evidences"]]
    assert out["meta"]["answer_mode"] == "extractive"
    assert out["meta"]["rerank"]["reason"] == "sampling: User rejected sampling request"


def test_the_llm_endpoint_reranks_when_the_client_offers_no_sampling(
    shop: Shop, onnx: Embedder, plain: list[str]
) -> None:
    with fake_chat_server() as chat:
        llm = {"base_url": chat.base_url, "model": "local-model", "rerank_timeout_s": 0.5}
        chat.replies = ["c4 c2"]
        (ok,) = calls(
            state_for(shop, onnx, **llm), [("search_code", {"query": QUERY, "rerank": True})]
        )
        chat.status = 500
        (failed,) = calls(
            state_for(shop, onnx, **llm), [("search_code", {"query": QUERY, "rerank": True})]
        )
        chat.status, chat.delay = 200, 2.0
        (slow,) = calls(
            state_for(shop, onnx, **llm), [("search_code", {"query": QUERY, "rerank": True})]
        )
        # use_sampling off: the endpoint, even for a client that offers sampling.
        chat.delay, chat.replies = 0.0, ["c2"]
        model = Scripted("c3")
        (endpoint,) = calls(
            state_for(shop, onnx, use_sampling=False, **llm),
            [("search_code", {"query": QUERY, "top_k": 3, "rerank": True})],
            sampling_callback=model,
            mode="legacy",
        )
    expected = [plain[3], plain[1], plain[0], plain[2], *plain[4:]]
    assert [loc(h) for h in ok["results"]] == expected[:10]
    assert ok["rerank"]["by"] == "llm" and ok["rerank"]["model"] == "fake-chat-1"
    body = chat.requests[0]["body"]
    system, user = (m["content"] for m in body["messages"])
    assert system == SYSTEM_PROMPT and body["model"] == "local-model"
    assert approx_tokens(system) + approx_tokens(user) == ok["rerank"]["prompt_tokens"] <= 2500
    assert body["max_tokens"] == 8 * len(plain) + 32 and body["temperature"] == 0
    assert [loc(h) for h in failed["results"]] == plain[:10]
    assert failed["rerank"]["reason"].startswith("llm: Chat request to "), failed["rerank"]
    assert "HTTP 500" in failed["rerank"]["reason"]
    assert [loc(h) for h in slow["results"]] == plain[:10]
    assert "timed out" in slow["rerank"]["reason"], slow["rerank"]
    assert model.calls == [] and endpoint["rerank"]["by"] == "llm"
    assert [loc(h) for h in endpoint["results"]] == [plain[1], plain[0], plain[2]]


def test_without_any_model_the_result_says_so(shop: Shop, onnx: Embedder, plain: list[str]) -> None:
    (out,) = calls(
        state_for(shop, onnx), [("search_code", {"query": QUERY, "top_k": 4, "rerank": True})]
    )
    assert [loc(h) for h in out["results"]] == plain[:4]
    assert out["rerank"] == {
        "used": False,
        "by": None,
        "model": None,
        "candidates": 0,
        "prompt_tokens": 0,
        "reason": "no model: the client offers no sampling and [llm] base_url is not set",
    }
    assert last_provider_error(shop) is None  # not a provider failure


def test_the_prompt_stays_within_a_small_budget(shop: Shop, onnx: Embedder) -> None:
    model = Scripted(lambda ids: ids[-1])
    long_query = " ".join([QUERY] * 20)
    plain, out = calls(
        state_for(shop, onnx, rerank_tokens=200),
        [
            ("search_code", {"query": long_query, "top_k": 10}),
            ("search_code", {"query": long_query, "top_k": 10, "rerank": True}),
        ],
        sampling_callback=model,
        mode="legacy",
    )
    before = [loc(h) for h in plain["results"]]
    (params,) = model.calls
    ids = list(shown(params).values())
    assert approx_tokens(SYSTEM_PROMPT) + approx_tokens(user_text(params)) <= 200
    assert 2 <= len(ids) < len(before), ids  # the budget cut the candidates
    assert ids == before[: len(ids)]
    assert user_text(params).split("\n")[0].endswith("…")  # the long query was shortened
    assert out["rerank"]["candidates"] == len(ids)
    last = len(ids) - 1
    assert [loc(h) for h in out["results"]] == [before[last], *before[:last], *before[last + 1 :]]
    assert [h["why"].get(WHY_KEY) for h in out["results"]][: last + 2] == [
        last + 1,
        *range(1, last + 1),
        None,
    ]
