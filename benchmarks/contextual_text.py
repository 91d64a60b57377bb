"""Contextual chunk text (issue 18, item 1), measured on a sample: dense only.

For each localization task whose gold files are in the index, every chunk of the gold
files is embedded twice, as indexed today (path, header, code) and with its graph
context put after the header (the names it calls and the names that call it). Each
gold file's symbols are ranked by their best chunk's cosine to the issue (the max over
the query windows search uses), and the script prints how often the gold functions
come first, within 3 and within 5 of their file, for both texts, with the embedding
cost. Re-ranking inside the gold files keeps the pool the same for both texts, so
neither text is favoured by whatever the other one retrieved.

    .venv/bin/python benchmarks/contextual_text.py --data-dir /tmp/eval-sympy \\
        [--tasks ../shared/eval/dev/swebench_lite_dev.jsonl] [--limit 40] [--names 8]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from codecompass.engine import Engine
from codecompass.indexing.pipeline import embedding_text
from codecompass.models import ChunkRecord
from codecompass.search.query import query_windows


def context_lines(chunk: ChunkRecord, calls: Sequence[str], callers: Sequence[str]) -> str:
    lines = [chunk.path]
    if chunk.header:
        lines.append(chunk.header)
    if calls:
        lines.append("calls: " + ", ".join(calls))
    if callers:
        lines.append("called by: " + ", ".join(callers))
    lines.append(chunk.text)
    return "\n".join(lines)


def short(node: str) -> str:
    return node.rsplit("#", 1)[-1].split("@", 1)[0]


def within_file_ranks(
    chunks: Sequence[ChunkRecord], cosines: np.ndarray, gold: Sequence[str]
) -> list[int]:
    """Rank (1-based) of each gold function among its file's symbols."""
    best: dict[tuple[str, str], float] = {}
    for chunk, cos in zip(chunks, cosines, strict=True):
        if chunk.symbol:
            key = (chunk.path, chunk.symbol)
            best[key] = max(best.get(key, -1.0), float(cos))
    ranks: list[int] = []
    for g in gold:
        path, symbol = g.split("::", 1)
        mine = best[(path, symbol)]
        ranks.append(1 + sum(1 for (p, _), v in best.items() if p == path and v > mine))
    return ranks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument(
        "--tasks", type=Path, default=Path("../shared/eval/dev/swebench_lite_dev.jsonl")
    )
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--names", type=int, default=8, help="names per direction")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.tasks.read_text(encoding="utf-8").splitlines()]
    engine = Engine.open(args.data_dir)
    backend, embedder = engine.backend, engine.embedder
    repo = engine.repo_names()[0]
    results: dict[str, list[list[int]]] = {"plain": [], "context": []}
    seconds = {"plain": 0.0, "context": 0.0}
    texts_embedded = 0
    used = 0
    for row in rows:
        if used >= args.limit:
            break
        gold = [g for g in row.get("gold_functions") or [] if "::" in g]
        files = [(repo, p) for p in row["gold_files"]]
        entries = [e for listed in backend.chunks.chunk_entries(files).values() for e in listed]
        chunks = list(backend.chunks.chunks([e.id for e in entries]).values())
        present = {f"{c.path}::{c.symbol}" for c in chunks if c.symbol}
        gold = [g for g in gold if g in present]  # the index may hold another commit
        if not gold:
            continue
        used += 1
        symbols = sorted({c.symbol_id for c in chunks if c.symbol_id})
        calls: dict[str, list[str]] = {}
        callers: dict[str, list[str]] = {}
        for edge in engine.graph.neighbors(symbols, ["calls"]):
            calls.setdefault(edge.source, []).append(short(edge.target))
            callers.setdefault(edge.target, []).append(short(edge.source))

        def names(found: dict[str, list[str]], sid: str | None) -> list[str]:
            return list(dict.fromkeys(found.get(sid or "", [])))[: args.names]

        texts = {
            "plain": [embedding_text(c) for c in chunks],
            "context": [
                context_lines(c, names(calls, c.symbol_id), names(callers, c.symbol_id))
                for c in chunks
            ],
        }
        query = embedder.embed(query_windows(row["problem_statement"]))
        for variant, batch in texts.items():
            start = time.perf_counter()
            vectors = embedder.embed(batch)
            seconds[variant] += time.perf_counter() - start
            cosines = (query @ vectors.T).max(axis=0)
            results[variant].append(within_file_ranks(chunks, cosines, gold))
        texts_embedded += len(chunks)
    print(f"{used} tasks, {texts_embedded} chunks of their gold files, embedded twice")
    for variant, per_task in results.items():
        figures = []
        for k in (1, 3, 5):
            hit = sum(1 for ranks in per_task if ranks and all(r <= k for r in ranks))
            figures.append(f"@{k} {100 * hit / max(1, len(per_task)):.1f}")
        mrr = np.mean([1 / min(r) if r else 0.0 for r in per_task])
        rate = texts_embedded / max(seconds[variant], 1e-9)
        print(
            f"{variant:8} all gold within their file {' '.join(figures)}  MRR {mrr:.3f}  "
            f"({rate:.0f} texts/s)"
        )


if __name__ == "__main__":
    main()
