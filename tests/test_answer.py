"""Answers built on evidence: the context budget, citations, the chat endpoint and the
extractive fallback."""

from __future__ import annotations

from pathlib import Path

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
from codecompass.engine import Engine
from codecompass.errors import ConfigError, InputError, LLMError, UnknownRepoError
from codecompass.schemas import Hit
from codecompass.settings import LLMSettings, load_settings
from tests.conftest import TinyEmbedder, make_git_repo
from tests.fake_llm import fake_chat_server


def hit(n: int, score: float, lines: int = 3) -> Hit:
    body = "\n".join(
        [f"def step_{n}(x):", f'    """Do step {n}."""'] + ["    x += 1"] * (lines - 2)
    )
    return Hit(
        repo="shop",
        path=f"mod{n}.py",
        start_line=10,
        end_line=10 + lines - 1,
        symbol=f"step_{n}",
        kind="function",
        language="python",
        score=score,
        snippet=body,
    )


def test_gather_filters_numbers_and_packs_within_budget() -> None:
    g = gather(
        " how do steps work ", [hit(2, 0.5), hit(1, 0.9), hit(3, 0.1)], top_k=5, min_score=0.2
    )
    assert [(e.n, e.symbol) for e in g.evidences] == [(1, "step_1"), (2, "step_2")]
    assert g.total_matches == 2
    assert g.context.startswith("[1] shop/mod1.py:10-12 · function step_1\n```python\n")
    assert g.query == "how do steps work"

    big = [hit(n, 1.0 - n / 10, lines=60) for n in range(1, 6)]
    small = gather("q", big, top_k=5, budget_tokens=400)
    assert 1 <= len(small.evidences) < 5
    assert approx_tokens(small.context) <= 400
    assert small.total_matches == 5


def _gists(snippets: dict[str, str], symbol: str | None, kind: str) -> list[str]:
    """What the extractive answer says of each snippet (one hit per language, in order)."""
    hits = [
        Hit(
            repo="r",
            path=f"f{n}.{language[:2]}",
            start_line=1,
            end_line=snippet.count("\n"),
            symbol=symbol,
            kind=kind,
            language=language,
            score=1.0 - n / 10,
            snippet=snippet,
        )
        for n, (language, snippet) in enumerate(snippets.items())
    ]
    lines = extractive_answer(gather("q", hits)).splitlines()[2:]
    return [line.split(": ", 1)[1].rsplit(" [", 1)[0] for line in lines]


def test_extractive_answer_shows_the_whole_signature_and_the_doc_above_it() -> None:
    """A wrapped signature showed as `def clean_duplicates_mro(`, and a Go or JSDoc
    comment above the code showed in place of the signature."""
    snippets = {
        "python": (
            "def clean_duplicates_mro(  # type: ignore[misc]\n"
            "    sequences: list[list[str]],\n"
            "    # the class\n"
            "    cls: str,\n"
            ") -> list[str]:\n"
            '    """Remove duplicates."""\n'
            "    return []\n"
        ),
        "go": (
            "// Match searches the routing tree.\n// More words.\n"
            "func (mx *Mux) Match(method, path string) bool {\n\treturn true\n}\n"
        ),
        "javascript": "/**\n * Create a router.\n */\nfunction Router(options) {\n  return 1\n}\n",
        "rust": "/// Adds two.\n#[inline]\nfn add(a: u8, b: u8) -> u8 {\n    a + b\n}\n",
    }
    assert _gists(snippets, symbol="x", kind="function") == [
        "def clean_duplicates_mro(sequences: list[list[str]], cls: str) -> list[str]:"
        " — Remove duplicates.",
        "func (mx *Mux) Match(method, path string) bool { — Match searches the routing tree.",
        "function Router(options) { — Create a router.",
        "fn add(a: u8, b: u8) -> u8 { — Adds two.",
    ]


def test_an_answer_names_the_signature_of_a_later_window(tmp_path: Path) -> None:
    """A window from the middle of a long function starts mid-body (rich's
    `_calculate_column_widths` showed as "widths,"): the answer gives the function's
    signature and doc from the index, and the function's lines, which the cited ones do
    not hold (Ombi: `SendToRadarr` cited at 233-243 with its signature of line 136)."""
    body = "".join(f"    step_{n} = compute_{n}(step_{n - 1})\n" for n in range(1, 200))
    source = (
        "def build_columns(\n    table,\n    console,\n) -> list:\n"
        '    """Measure every column."""\n'
        f"    step_0 = 0\n{body}    zebra_width = step_199\n    return [zebra_width]\n"
    )
    repo = make_git_repo(tmp_path / "shop", {"layout.py": source})
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        engine.add_repo(repo, name="shop")
        result = engine.ask("zebra_width", top_k=1)
    (evidence,) = result.evidences
    assert evidence.symbol == "build_columns" and evidence.start_line > 1
    assert "zebra_width" in evidence.snippet and "def build_columns" not in evidence.snippet
    assert result.answer.splitlines()[2] == (
        f"- `build_columns` (function of lines 1-207) in shop/layout.py:{evidence.start_line}-"
        f"{evidence.end_line}: def build_columns(table, console) -> list"
        " — Measure every column. [1]"
    )


def test_engine_gathers_from_each_repo_in_scope(tmp_path: Path) -> None:
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        for name in ("shop", "web", "other"):
            repo = make_git_repo(
                tmp_path / name, {f"{name}.py": f"def step_{name}(x):\n    return x + 1\n"}
            )
            engine.add_repo(repo, name=name)
        g = engine.gather("step x", scope=["shop", "all", "web"], top_k=5)
        assert {e.repo for e in g.evidences} == {"shop", "web"}
        assert [e.n for e in g.evidences] == list(range(1, len(g.evidences) + 1))
        with pytest.raises(UnknownRepoError, match="nope"):
            engine.gather("step", scope=["nope"])
    with pytest.raises(InputError, match="top_k must be between 1 and 50"):
        gather("q", [], top_k=0)


def test_extractive_answer_cites_every_line() -> None:
    g = gather("q", [hit(1, 0.9), hit(2, 0.8)])
    text = extractive_answer(g)
    lines = text.splitlines()
    assert lines[0] == EXTRACTIVE_HEADER
    assert (
        lines[2] == "- `step_1` (function) in shop/mod1.py:10-12: def step_1(x): — Do step 1. [1]"
    )
    assert all(line.endswith(f"[{n}]") for n, line in enumerate(lines[2:], start=1))
    empty = gather("q", [])
    assert extractive_answer(empty) == NO_EVIDENCE
    assert answer_locally(empty, LLMSettings()).mode == "none"


def test_finish_checks_citations() -> None:
    g = gather("q", [hit(1, 0.9), hit(2, 0.8)])
    good = finish(g, "It steps [2], then [1] and [9].", "llm", "m")
    assert good.cited == [1, 2]
    bare = finish(g, "It steps.", "sampling", "m")
    assert bare.cited == []
    assert bare.answer.endswith(
        "(The model cited no evidence. The passages it was given: [1] shop/mod1.py:10-12; "
        "[2] shop/mod2.py:10-12.)"
    )


def test_chat_endpoint_answers_and_failures_fall_back() -> None:
    g = gather("how to step", [hit(1, 0.9)])
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


def test_two_edges_of_one_pair_make_one_link_at_the_best_confidence() -> None:
    from codecompass.answer import graph_links
    from codecompass.models import Edge
    from codecompass.schemas import Evidence, GraphResult

    def evidence(n: int, symbol: str) -> Evidence:
        return Evidence(
            n=n,
            repo="r",
            path="t.py",
            start_line=n,
            end_line=n,
            symbol=symbol,
            kind="method",
            language="python",
            score=1.0,
            snippet="",
        )

    # Two call sites, one typed (0.8) and one guessed by name (0.4): one link, at 0.8.
    calls = [
        Edge("r/t.py#Table.widths", "r/t.py#Table.measure", "calls", 1.0, conf, evidence_line=line)
        for line, conf in ((10, 0.4), (12, 0.8), (14, 0.4))
    ]

    def dependencies(node: str, repo: str) -> GraphResult:
        edges = calls if node == "r/t.py#Table.widths" else []
        return GraphResult(root=node, nodes=[], edges=edges, paths=[], truncated=False)

    links = graph_links(dependencies, [evidence(1, "Table.widths"), evidence(2, "Table.measure")])
    assert links == ["`Table.widths` calls `Table.measure` (confidence 0.8) [1][2]"]


def test_a_passage_of_imports_is_named_by_the_code_after_them() -> None:
    """rich's columns.py, a module passage, showed `from collections import defaultdict`."""
    snippets = {
        "python": (
            "# Copyright the authors.\n# Licensed as MIT.\n"
            "from collections import defaultdict\n"
            "from .table import (\n    Table,\n    Column,\n)\n"
            "...\nimport os\n\nCOLUMN_GAP = 2  # cells between columns\n"
        ),
        "go": (
            'package router\n\nimport (\n\t"net/http"\n\t"strings"\n)\n\n'
            "// Mux routes requests.\ntype Mux struct {\n\ttree *node\n}\n"
        ),
        "javascript": (
            "'use strict'\nconst debug = require('debug')('router')\n"
            "import { flatten } from './utils'\n\nmodule.exports = Router\n"
        ),
        "c": '#include <stdio.h>\n#include "buffer.h"\n\nstatic int depth = 0;\n',
        "typescript": "import { z } from 'zod'\nimport type { Issue } from './issue'\n",
    }
    assert _gists(snippets, symbol=None, kind="module") == [
        "COLUMN_GAP = 2",
        "type Mux struct { — Mux routes requests.",
        "module.exports = Router",
        "static int depth = 0;",
        "import { z } from 'zod'",  # nothing but imports: the first
    ]
