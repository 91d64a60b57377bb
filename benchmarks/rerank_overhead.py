"""What reranking costs besides the model: prompt sizes, and `search_code` time with a
scripted model (it answers at once), on an index of the installed `rich` package.

No real model is involved, so this measures the plumbing, not whether reranking helps.
For each golden `rich` question: the prompt `[llm] rerank_tokens` allows (tokens,
candidates shown), the time to build it and to apply a reply; then `search_code` over the
SDK's in-memory transport with and without `rerank`, on a handshake-era session (the
back-channel) and on protocol 2026-07-28 (the request inside an `InputRequiredResult`).

    .venv/bin/python benchmarks/rerank_overhead.py --data-dir .demo/rich
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_types import CreateMessageResult, TextContent

from codecompass.embedders import create_embedder
from codecompass.engine import Engine
from codecompass.mcp_server import ServerState, build_server
from codecompass.protocols import Embedder
from codecompass.search.rerank import AskModel, build_prompt, rerank_with
from codecompass.settings import load_settings

GOLDEN = Path(__file__).resolve().parents[1] / "eval" / "golden"


def questions() -> list[str]:
    found = []
    for name in ("rich.jsonl", "rich-2.jsonl"):
        for line in (GOLDEN / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.append(json.loads(line)["query"])
    return found


def replying(reply: str) -> AskModel:
    """A scripted model that always gives `reply`."""
    return lambda _: (reply, "scripted")


def prompts(data: Path, embedder: Embedder, queries: list[str]) -> None:
    with Engine(load_settings(data, environ={}), embedder=embedder) as engine:
        llm = engine.settings.llm
        tokens, shown, build_ms, apply_ms = [], [], [], []
        for query in queries:
            hits = engine.retrieve(query, engine.search_options(k=llm.rerank_candidates)).hits
            began = time.perf_counter()
            prompt = build_prompt(query, hits[: llm.rerank_candidates], llm.rerank_tokens)
            build_ms.append((time.perf_counter() - began) * 1000)
            tokens.append(prompt.tokens)
            shown.append(prompt.shown)
            reply = " ".join(f"c{n}" for n in range(prompt.shown, 0, -1))
            began = time.perf_counter()
            rerank_with(
                query,
                hits,
                replying(reply),
                by="llm",
                candidates=llm.rerank_candidates,
                budget_tokens=llm.rerank_tokens,
            )
            apply_ms.append((time.perf_counter() - began) * 1000)
    print(
        f"{len(queries)} questions; prompt tokens {min(tokens)}–{max(tokens)} "
        f"(median {statistics.median(tokens)}, budget {llm.rerank_tokens}); "
        f"candidates shown {min(shown)}–{max(shown)}; build {statistics.median(build_ms):.1f} "
        f"ms, build + read + reorder {statistics.median(apply_ms):.1f} ms (medians)"
    )


async def scripted(context: Any, params: Any) -> CreateMessageResult:
    text = TextContent(type="text", text="c2 c1")
    return CreateMessageResult(role="assistant", content=text, model="scripted")


def mcp_times(data: Path, embedder: Embedder, queries: list[str], mode: str, rerank: bool) -> None:
    state = ServerState(load_settings(data, environ={}), embedder=embedder, transport="memory")

    async def main() -> list[float]:
        times = []
        async with Client(build_server(state), sampling_callback=scripted, mode=mode) as client:
            await client.call_tool("search_code", {"query": queries[0]})  # warm-up
            for query in queries:
                began = time.perf_counter()
                args = {"query": query, "top_k": 10, "rerank": rerank}
                result = await client.call_tool("search_code", args)
                times.append((time.perf_counter() - began) * 1000)
                assert not result.is_error and result.structured_content is not None
                info = result.structured_content["rerank"]
                assert (info is not None and info["used"]) if rerank else info is None, info
        return times

    times = anyio.run(main)
    print(
        f"search_code {mode:6} rerank={rerank!s:5}: p50 {statistics.median(times):.0f} ms, "
        f"max {max(times):.0f} ms ({len(times)} calls)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="An index of `rich`.")
    args = parser.parse_args()
    embedder = create_embedder("onnx")
    queries = questions()
    prompts(args.data_dir, embedder, queries)
    for mode in ("legacy", "auto"):
        for rerank in (False, True):
            mcp_times(args.data_dir, embedder, queries, mode, rerank)


if __name__ == "__main__":
    main()
