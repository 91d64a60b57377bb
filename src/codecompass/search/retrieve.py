"""Hybrid search: understand the query, gather candidates, expand along the graph, rank
them with one scoring function, then dedupe, cap per file and explain.

Candidates come from five places (`candidates.py`): dense vectors, BM25 over code-aware
tokens, symbols and files the query names (paths, modules, traceback frames, file
stems), every chunk of the best files, and graph neighbours of the best seeds. Every
candidate then gets every feature of `rank.FEATURES` (`features.py`), whichever source
brought it, so the score compares like with like. Modes switch sources and features off
for ablations: `bm25`, `dense`, `hybrid` (no graph) and `hybrid+graph` (the default,
equal to `hybrid` when the index has no graph).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from codecompass.blas import use_one_blas_thread
from codecompass.decoding import well_formed
from codecompass.errors import InputError
from codecompass.models import FileRecord
from codecompass.schemas import FileHit, Hit, MemoryNote, SearchCodeResult, SymbolHit
from codecompass.search import candidates, features, results
from codecompass.search.context import SearchContext, SearchOptions, SearchSources
from codecompass.search.format import check_detail
from codecompass.search.query import ParsedQuery, parse_query, without_environment_noise
from codecompass.search.rank import RankWeights

MODES = ("bm25", "dense", "hybrid", "hybrid+graph")
VIEWS = ("hits", "symbols", "files")
_workers: tuple[int, ThreadPoolExecutor] | None = None


def _worker_pool() -> ThreadPoolExecutor:
    """This process's pool. A forked child has none of its parent's threads, and a pool
    it inherited would wait for them forever."""
    global _workers
    if _workers is None or _workers[0] != os.getpid():
        _workers = (os.getpid(), ThreadPoolExecutor(thread_name_prefix="codecompass-dense"))
    return _workers[1]


@dataclass(slots=True)
class SearchResult:
    """Hits (deduplicated, capped per file), the file and symbol views and what was
    understood."""

    query: ParsedQuery
    hits: list[Hit]
    files: list[FileHit]
    symbols: list[SymbolHit] = field(default_factory=list)
    subgraph: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    candidates: list[dict[str, Any]] | None = None  # with SearchOptions.collect
    # Share of the active chunks each signal could see (`dense`: chunks with a vector);
    # below 1.0 the answer is weaker than the index can give, and says so.
    coverage: dict[str, float] = field(default_factory=dict)
    # Cited files ("repo/path") changed on disk since they were indexed, and the index
    # generation (the newest index run) the answer came from.
    stale: list[str] = field(default_factory=list)
    generation: int | None = None
    # The catalog's records of the cited files (read once per search, in its snapshot).
    cited: dict[tuple[str, str], FileRecord] = field(default_factory=dict)
    memories: list[MemoryNote] = field(default_factory=list)  # agents' notes on the hits

    def code_result(self, query_id: str) -> SearchCodeResult:
        """The answer as the search_code tool (and the web UI) return it."""
        return SearchCodeResult(
            query_id=query_id,
            results=self.hits,
            stale=self.stale,
            generation=self.generation,
            coverage=self.coverage,
            memories=self.memories,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "understood": self.query.as_dict(),
            **({"coverage": self.coverage} if self.coverage else {}),
            "generation": self.generation,
            "stale": self.stale,
            "results": [h.as_dict() for h in self.hits],
            "files": [f.as_dict() for f in self.files],
            "symbols": [f.as_dict() for f in self.symbols],
            **({"subgraph": self.subgraph} if self.subgraph is not None else {}),
            **({"memories": [m.as_dict() for m in self.memories]} if self.memories else {}),
        }


def mode_weights(mode: str, weights: RankWeights) -> RankWeights:
    """The weights a mode ranks with: one feature alone for `bm25` and `dense`, no graph
    for `hybrid`."""
    if mode == "bm25":
        return RankWeights().only().with_(bm25=1.0)
    if mode == "dense":
        return RankWeights().only().with_(cosine=1.0)
    if mode == "hybrid":
        return replace(weights, edge=0.0)
    return weights


def check_options(query: str, options: SearchOptions) -> str:
    query = well_formed(query).strip()
    if not query:
        raise InputError("The query is empty; pass some words, an identifier or a path.")
    if options.k < 1:
        raise InputError(f"k must be at least 1 (got {options.k}).")
    if options.mode not in MODES:
        raise InputError(f"Unknown search mode {options.mode!r}; use one of: {', '.join(MODES)}.")
    check_detail(options.detail)
    if options.view not in VIEWS:
        raise InputError(f"Unknown view {options.view!r}; use one of: {', '.join(VIEWS)}.")
    return query


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector waits while a search runs. A search makes tens of
    thousands of short-lived containers, all freed by reference counting as it ends; the
    collections they set off also walked every long-lived object (30 ms a full pass on
    sympy's index), one search in ten. Left alone when the program had paused it."""
    pausing = gc.isenabled()
    if pausing:
        gc.disable()
    try:
        yield
    finally:
        if pausing:
            gc.enable()


def retrieve(query: str, options: SearchOptions, sources: SearchSources) -> SearchResult:
    query = check_options(query, options)
    query = without_environment_noise(query).strip() or query
    with _collector_paused():
        return _retrieve(query, options, sources)


def _retrieve(query: str, options: SearchOptions, sources: SearchSources) -> SearchResult:
    use_one_blas_thread()
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round((now - clock) * 1000, 2)
        clock = now

    if options.view == "symbols":
        options = replace(options, max_symbols=max(options.max_symbols, options.k))
    elif options.view == "files":
        options = replace(options, max_files=max(options.max_files, options.k))
    mode = options.mode
    # The same pool whatever k: a larger pool moves files' totals, and the first ten had
    # depended on how many results were asked for (Black: a gold function 10th at -k 50,
    # 31st at -k 100). File and graph expansion bring far more than any k.
    pool = options.candidates
    parsed = parse_query(query)
    weights = mode_weights(mode, options.weights)
    if parsed.wants_tests and weights.test < 0:
        weights = weights.with_(test=0.0)  # tests compete with code on equal terms
    ctx = SearchContext(query, parsed, options, weights, sources, {})
    ctx.idf = candidates.term_idf(ctx, parsed.terms)
    weights = ctx.weights
    lap("understand")

    # Embedding the query and scanning the vectors run on a worker beside the lexical
    # search: both wait in C with the GIL released (onnxruntime and BLAS, SQLite).
    dense = _worker_pool().submit(candidates.dense_top, ctx, pool) if mode != "bm25" else None
    lexical = candidates.lexical_top(ctx, pool) if mode != "dense" else []
    if dense is not None:
        candidates.add_dense(ctx, *dense.result())
    if mode != "dense":
        candidates.add_lexical(ctx, lexical)
        candidates.add_quoted(ctx)
    lap("dense+lexical")
    hybrid = mode in ("hybrid", "hybrid+graph")
    if hybrid:
        candidates.add_named(ctx)
        lap("names")

    ctx.chunks = sources.chunks.chunks(list(ctx.cands))
    ctx.cands = {
        cid: c for cid, c in ctx.cands.items() if cid in ctx.chunks and ctx.passes(ctx.chunks[cid])
    }
    candidates.fill_bm25(ctx, {cid: c for cid, c in ctx.cands.items() if "bm25" not in c.features})
    features.fill(ctx, ctx.cands)
    if weights.message or options.collect:
        features.drop_generic_messages(ctx)
    if hybrid and (weights.message or options.collect):
        candidates.add_raisers(ctx)
        candidates.add_guards(ctx)
    lap("features")

    if hybrid and options.expand_files > 0:
        candidates.expand_files(ctx)
        lap("files")
    graph = mode == "hybrid+graph" and sources.graph is not None
    if graph and (weights.edge > 0 or weights.ppr > 0 or options.collect):
        candidates.expand_graph(ctx)
        lap("graph")
    importance = graph and bool(weights.importance or options.collect)
    if importance:
        features.add_importance(ctx, ctx.cands)
        lap("importance")

    ctx.rescore()
    if hybrid and (options.file_tested or options.collect):
        added = candidates.add_tested(ctx)
        if importance:
            features.add_importance(ctx, added)
        ctx.rescore(added)
        lap("tested")
    if weights.dispatch or options.collect:
        features.mark_handlers(ctx)
    cands, chunks = ctx.cands, ctx.chunks
    order = sorted(cands, key=lambda cid: (-cands[cid].score, cid))
    reranker = sources.reranker
    if reranker is not None:
        head = order[:pool]
        picked = list(reranker.rerank(query, [chunks[cid].text for cid in head]))
        rest = [i for i in range(len(head)) if i not in set(picked)]
        order = [head[i] for i in (*picked, *rest)] + order[pool:]
    lap("rank")

    totals = ctx.file_totals(order)
    values = results.symbol_values(ctx, order, totals)
    file_view = results.files(ctx, order, totals, max(options.max_files, results.SPREAD_FILES))
    lead_files = [(f.repo, f.path) for f in file_view[: results.SPREAD_FILES]]
    symbol_view = results.symbols(ctx, order, totals, values, lead_files)
    file_view = file_view[: options.max_files]
    if options.view == "symbols":
        found = results.view_hits(ctx, symbol_view[: options.k], values)
    elif options.view == "files":
        found = results.view_hits(ctx, file_view[: options.k], values)
    else:
        ranking = results.hit_order(ctx, order, totals, values)
        if reranker is not None:  # the model's order stands over the scores
            position = {cid: i for i, cid in enumerate(order)}
            ranking.sort(key=lambda item: position[item[0]])
        found = results.hits(ctx, ranking, values)
    subgraph = results.subgraph(ctx, found) if options.subgraph else None
    lap("format")
    collected = None
    if options.collect:
        collected = []
        for cid in order:
            chunk = chunks[cid]
            tested = ctx.tested.get((chunk.repo, chunk.path))
            collected.append(
                {
                    "path": chunk.path,
                    "symbol": chunk.symbol,
                    "start_line": chunk.start_line,
                    "end_line": chunk.end_line,
                    "features": {k: round(v, 5) for k, v in cands[cid].features.items()},
                    "tested": round(tested.value, 5) if tested else 0.0,
                }
            )
    result = SearchResult(parsed, found, file_view, symbol_view, subgraph, timings, collected)
    cited = {(h.repo, h.path) for h in found} | {(f.repo, f.path) for f in file_view}
    result.cited = ctx.file_records(cited)
    return result
