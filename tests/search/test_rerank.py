"""Listwise reranking by a chat model (issue 18): the prompt and its budget, the strict
reading of the reply, the reorder, and the engine's `[llm]` endpoint path (the fake chat
server). No real model is reachable here: these test the plumbing, not the quality."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from codecompass.answer import approx_tokens
from codecompass.engine import Engine
from codecompass.errors import ConfigError, LLMError
from codecompass.schemas import Hit
from codecompass.search.rerank import (
    SYSTEM_PROMPT,
    WHY_KEY,
    RerankPrompt,
    RerankReplyError,
    apply_reply,
    build_prompt,
    parse_reply,
    reorder,
    rerank_with,
)
from codecompass.settings import LLMSettings
from tests.conftest import TinyEmbedder, make_git_repo
from tests.fake_llm import fake_chat_server


def hit(n: int, lines: int = 12, repo: str = "shop") -> Hit:
    body = [f"def step_{n}(x):", f'    """Do step {n}."""', ""] + [f"    x += {n}"] * lines
    return Hit(
        repo=repo,
        path=f"pkg/mod{n}.py",
        start_line=10 * n,
        end_line=10 * n + lines + 1,
        symbol=f"step_{n}",
        kind="function",
        language="python",
        score=1.0 - n / 100,
        snippet="\n".join(body),
        why={"features": {}},
    )


HITS = [hit(n) for n in range(1, 31)]


def test_the_reply_is_read_strictly() -> None:
    assert parse_reply("c3, c1 > c99 c3 [c2]", 5) == [2, 0, 1]
    assert parse_reply("C2\nc1", 2) == [1, 0]
    assert parse_reply("<think>c5 looks best, c4 too</think>\nc2 c1", 5) == [1, 0]
    for garbage in ("", "The first one.", "abc1 c1x 1 2 3", "c0 c6 c12345", "<think>c1</think>"):
        with pytest.raises(RerankReplyError):
            parse_reply(garbage, 5)


def test_reorder_puts_the_named_first_and_keeps_the_rest() -> None:
    out = reorder(HITS[:6], [3, 1], 4)
    assert [h.symbol for h in out] == ["step_4", "step_2", "step_1", "step_3", "step_5", "step_6"]
    assert [h.why.get(WHY_KEY) for h in out] == [4, 2, 1, 3, None, None]
    assert all("features" in h.why for h in out)  # the rest of `why` is kept
    assert HITS[3].why == {"features": {}}  # the hits themselves are not changed


@pytest.mark.parametrize("budget", [120, 200, 400, 800, 1500, 2500, 6000])
def test_the_prompt_fits_its_budget(budget: int) -> None:
    prompt = build_prompt("how is a step taken? " * 300, HITS, budget)
    assert prompt.system == SYSTEM_PROMPT
    assert prompt.tokens == approx_tokens(prompt.system) + approx_tokens(prompt.user)
    if budget < 150:  # the system prompt and the query leave no room: it is never sent
        assert prompt.shown < 2
        return
    assert prompt.tokens <= budget
    lines = prompt.user.splitlines()
    headers = [line for line in lines if line.startswith("c")]
    assert headers == [
        f"c{n} pkg/mod{n}.py:{10 * n}-{10 * n + 13} function step_{n}"
        for n in range(1, prompt.shown + 1)
    ]
    assert lines[0].startswith("Query: how is a step taken?") and lines[0].endswith("…")
    assert lines[-1] == "The candidates' ids, best first:"
    assert prompt.max_tokens == 8 * prompt.shown + 32
    # Snippet heads are whole lines of the snippets (blank lines dropped), or one cut short.
    known = {line.strip() for h in HITS for line in h.snippet.splitlines() if line.strip()}
    for line in lines:
        if line.startswith("    "):
            assert line.strip() in known or line.endswith("…"), line


def test_a_larger_budget_shows_more() -> None:
    shown = [build_prompt("step", HITS, b) for b in (150, 300, 600, 1200, 2500, 10_000)]
    assert [p.shown for p in shown] == sorted(p.shown for p in shown)
    assert shown[0].shown < 30 and shown[-1].shown == 30
    sizes = [len(p.user) for p in shown]
    assert sizes == sorted(sizes)
    # With room to spare, each snippet's head is its signature, doc line and more.
    assert "def step_1(x):\n" in shown[-1].user and '"""Do step 30."""' in shown[-1].user


def test_the_prompt_names_repositories_when_several_and_hides_secrets() -> None:
    token = "ghp_" + "Q" * 36
    hits = [hit(1), hit(2, repo="web").model_copy(update={"snippet": f'KEY = "{token}"'})]
    prompt = build_prompt(f"where is {token} used", hits, 1000)
    assert "c1 shop/pkg/mod1.py:10-23" in prompt.user and "c2 web/pkg/mod2.py:" in prompt.user
    assert token not in prompt.user and "[REDACTED" in prompt.user


def test_rerank_with_a_model_that_fails_keeps_the_order() -> None:
    def broken(_: RerankPrompt) -> tuple[str, str]:
        raise LLMError("Cannot reach the chat model at http://x/chat/completions: timed out.")

    out = rerank_with("step", HITS, broken, by="llm", candidates=30, budget_tokens=2500)
    assert out.hits == HITS
    assert out.info.used is False and out.info.by == "llm" and out.info.candidates == 30
    assert out.info.reason == (
        "llm: Cannot reach the chat model at http://x/chat/completions: timed out."
    )

    asked: list[RerankPrompt] = []

    def one(prompt: RerankPrompt) -> tuple[str, str]:
        asked.append(prompt)
        return "c1", "m"

    lonely = rerank_with("step", HITS[:1], one, by="llm", candidates=30, budget_tokens=2500)
    assert asked == [] and lonely.info.reason == "nothing to reorder (1 result)"
    tight = rerank_with("step", HITS, one, by="llm", candidates=30, budget_tokens=60)
    assert asked == [] and tight.info.reason is not None and "rerank_tokens" in tight.info.reason

    prompt = build_prompt("step", HITS[:5], 2500)
    garbage = apply_reply(HITS[:5], prompt, "Sorry, I cannot rank code.", by="sampling", model="m")
    assert garbage.hits == HITS[:5] and garbage.info.used is False
    assert garbage.info.reason == (
        "sampling: the reply names none of the ids c1…c5: 'Sorry, I cannot rank code.'"
    )


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    files = {f"app/step{n}.py": f"def step_{n}(x):\n    return x + {n}\n" for n in range(1, 7)}
    repo = make_git_repo(tmp_path / "proj", files)
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    eng.index(root)
    return eng


def with_llm(engine: Engine, **llm: object) -> None:
    engine.settings = dataclasses.replace(engine.settings, llm=LLMSettings(**llm))  # type: ignore[arg-type]


def test_engine_search_reranks_with_the_llm_endpoint_only_when_asked(engine: Engine) -> None:
    query = "step x return"
    plain = [h.symbol for h in engine.search(query, k=5)]
    assert len(plain) == 5
    with pytest.raises(ConfigError, match=r"\[llm\] base_url and model in .*config.toml"):
        engine.search(query, rerank=True)
    with fake_chat_server() as chat:
        with_llm(engine, base_url=chat.base_url, model="m")
        assert [h.symbol for h in engine.search(query, k=5)] == plain  # off by default
        assert chat.requests == []
        chat.replies = ["c4 c2 c4"]
        hits = engine.search(query, k=5, rerank=True)
        assert [h.symbol for h in hits] == [plain[3], plain[1], plain[0], plain[2], plain[4]]
        assert [h.why[WHY_KEY] for h in hits] == [4, 2, 1, 3, 5]
        user = chat.requests[-1]["body"]["messages"][1]["content"]
        assert approx_tokens(SYSTEM_PROMPT) + approx_tokens(user) <= 2500
        with_llm(engine, base_url=chat.base_url, model="m", rerank=True)
        chat.replies = ["c2"]
        assert [h.symbol for h in engine.search(query, k=3)] == [plain[1], plain[0], plain[2]]
        assert [h.symbol for h in engine.search(query, k=3, rerank=False)] == plain[:3]
        assert len(chat.requests) == 2
        chat.status = 500
        hits = engine.search(query, k=5, rerank=True)  # falls back, no error
        assert [h.symbol for h in hits] == plain
        failed = engine.rerank(query, engine.search(query, k=5, rerank=False))
        assert failed.info.used is False and failed.info.reason is not None
        assert failed.info.reason.startswith("llm: Chat request to ")


def test_engine_ask_packs_the_reranked_evidence(engine: Engine) -> None:
    query = "step x return"
    plain = engine.ask(query, top_k=3)
    assert plain.rerank is None
    with fake_chat_server() as chat:
        with_llm(engine, base_url=chat.base_url, model="m")
        chat.replies = ["c3 c2 c1"]  # the rerank; then the answer
        answered = engine.ask(query, top_k=3, rerank=True)
    assert len(chat.requests) == 2
    assert chat.requests[0]["body"]["messages"][0]["content"] == SYSTEM_PROMPT
    assert [e.symbol for e in answered.evidences] == [e.symbol for e in reversed(plain.evidences)]
    assert answered.rerank is not None and answered.rerank.used
    assert (answered.rerank.by, answered.rerank.model) == ("llm", "fake-chat-1")
    assert answered.mode == "llm" and answered.answer.startswith("The order is removed")
