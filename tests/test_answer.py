"""Answers built on evidence: the context budget, citations, the chat endpoint and the
extractive fallback."""

from __future__ import annotations

from typing import Any

import pytest

from codecompass.answer import (
    EXTRACTIVE_HEADER,
    NO_EVIDENCE,
    ChatModel,
    answer_locally,
    approx_tokens,
    build_prompt,
    extractive_answer,
    finish,
    gather,
)
from codecompass.errors import ConfigError, InputError, LLMError
from codecompass.search.hybrid import Hit
from codecompass.settings import LLMSettings
from tests.fake_llm import fake_chat_server


def hit(n: int, score: float, lines: int = 3) -> Hit:
    body = "\n".join(
        [f"def step_{n}(x):", f'    """Do step {n}."""'] + ["    x += 1"] * (lines - 2)
    )
    return Hit(
        "shop", f"mod{n}.py", 10, 10 + lines - 1, f"step_{n}", "function", "python", score, body
    )


class StubEngine:
    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits
        self.calls: list[dict[str, Any]] = []

    def repo(self, name: str) -> dict[str, str]:
        return {"id": name}

    def search(self, query: str, **kwargs: Any) -> list[Hit]:
        self.calls.append({"query": query, **kwargs})
        repo = kwargs.get("repo")
        return [h for h in self.hits if repo in (None, h.repo)][: kwargs["k"]]


def test_gather_filters_numbers_and_packs_within_budget() -> None:
    engine = StubEngine([hit(1, 0.9), hit(2, 0.5), hit(3, 0.1)])
    g = gather(engine, " how do steps work ", top_k=5, min_score=0.2)  # type: ignore[arg-type]
    assert [(e.n, e.symbol) for e in g.evidences] == [(1, "step_1"), (2, "step_2")]
    assert g.total_matches == 2
    assert g.context.startswith("[1] shop/mod1.py:10-12 · function step_1\n```python\n")
    assert g.query == "how do steps work"

    big = StubEngine([hit(n, 1.0 - n / 10, lines=60) for n in range(1, 6)])
    small = gather(big, "q", top_k=5, budget_tokens=400)  # type: ignore[arg-type]
    assert 1 <= len(small.evidences) < 5
    assert approx_tokens(small.context) <= 400
    assert small.total_matches == 5


def test_gather_searches_each_repo_in_scope() -> None:
    engine = StubEngine([hit(1, 0.9)])
    gather(engine, "q", scope=["shop", "all", "web"], top_k=3)  # type: ignore[arg-type]
    assert [c["repo"] for c in engine.calls] == ["shop", "web"]
    with pytest.raises(InputError, match="top_k must be between 1 and 50"):
        gather(engine, "q", top_k=0)  # type: ignore[arg-type]


def test_extractive_answer_cites_every_line() -> None:
    g = gather(StubEngine([hit(1, 0.9), hit(2, 0.8)]), "q")  # type: ignore[arg-type]
    text = extractive_answer(g)
    lines = text.splitlines()
    assert lines[0] == EXTRACTIVE_HEADER
    assert (
        lines[2] == "- `step_1` (function) in shop/mod1.py:10-12: def step_1(x): — Do step 1. [1]"
    )
    assert all(line.endswith(f"[{n}]") for n, line in enumerate(lines[2:], start=1))
    empty = gather(StubEngine([]), "q")  # type: ignore[arg-type]
    assert extractive_answer(empty) == NO_EVIDENCE
    assert answer_locally(empty, LLMSettings()).mode == "none"


def test_finish_checks_citations() -> None:
    g = gather(StubEngine([hit(1, 0.9), hit(2, 0.8)]), "q")  # type: ignore[arg-type]
    good = finish(g, "It steps [2], then [1] and [9].", "llm", "m")
    assert good.cited == [1, 2]
    bare = finish(g, "It steps.", "sampling", "m")
    assert bare.cited == []
    assert bare.answer.endswith(
        "(The model cited no evidence. The passages it was given: [1] shop/mod1.py:10-12; "
        "[2] shop/mod2.py:10-12.)"
    )


def test_chat_endpoint_answers_and_failures_fall_back() -> None:
    g = gather(StubEngine([hit(1, 0.9)]), "how to step")  # type: ignore[arg-type]
    with fake_chat_server() as server:
        llm = LLMSettings(base_url=server.base_url, model="m1", max_tokens=123)
        answer = answer_locally(g, llm)
        assert (answer.mode, answer.model, answer.cited) == ("llm", "fake-chat-1", [1])
        request = server.requests[0]
        assert request["path"] == "/v1/chat/completions"
        system, user = build_prompt(g)
        assert request["body"]["messages"] == [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        assert (request["body"]["model"], request["body"]["max_tokens"]) == ("m1", 123)
        server.status = 503
        fallback = answer_locally(g, llm)
        assert fallback.mode == "extractive"
        assert fallback.provider_error is not None
        assert fallback.provider_error.startswith("llm: Chat request to")
        assert "HTTP 503" in fallback.provider_error
    with pytest.raises(LLMError, match="Cannot reach the chat model"):
        ChatModel(server.base_url, "m", timeout=2).complete("s", "u", max_tokens=5)
    with pytest.raises(ConfigError, match="not an http"):
        ChatModel("ftp://x", "m")
