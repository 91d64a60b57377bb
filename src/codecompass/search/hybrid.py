"""Hybrid search, first version: dense vectors and BM25 over code-aware tokens, fused
with reciprocal rank fusion, deduplicated, capped per file, and explained.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codecompass.errors import InputError
from codecompass.protocols import Embedder
from codecompass.search.format import check_detail, format_snippet
from codecompass.search.tokens import code_tokens
from codecompass.storage.lance import LanceVectorStore, VectorFilter
from codecompass.storage.sqlite import ChunkRow, MetaStore

MAX_QUERY_TERMS = 64


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result with its evidence and why it came back."""

    repo: str
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str
    language: str
    score: float
    snippet: str
    why: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class SearchOptions:
    k: int = 10
    detail: str = "preview"
    filters: VectorFilter = field(default_factory=VectorFilter)
    candidates: int = 100
    rrf_k: int = 60
    max_per_file: int = 3


def search(
    query: str,
    options: SearchOptions,
    *,
    store: MetaStore,
    vectors: LanceVectorStore,
    embedder: Embedder,
) -> list[Hit]:
    query = query.strip()
    if not query:
        raise InputError("The query is empty; pass some words, an identifier or a path.")
    if options.k < 1:
        raise InputError(f"k must be at least 1 (got {options.k}).")
    check_detail(options.detail)
    pool = max(options.candidates, options.k * 3)

    query_vector = embedder.embed([query])[0]
    dense = vectors.search(query_vector, pool, options.filters)
    terms = list(dict.fromkeys(code_tokens(query)))[:MAX_QUERY_TERMS]
    lexical = _lexical(store, terms, pool, options.filters)

    fused: dict[str, float] = {}
    why: dict[str, dict[str, Any]] = {}
    for source, ranked in (("dense", dense), ("lexical", lexical)):
        for rank, (cid, score) in enumerate(ranked, start=1):
            contribution = 1.0 / (options.rrf_k + rank)
            fused[cid] = fused.get(cid, 0.0) + contribution
            why.setdefault(cid, {})[source] = {
                "rank": rank,
                "score": round(score, 4),
                "contribution": round(contribution, 5),
            }
    order = sorted(fused, key=lambda cid: -fused[cid])
    chunks = store.chunks(order[: pool * 2])
    docs = store.symbol_docs([c.symbol_id for c in chunks.values() if c.symbol_id])

    hits: list[Hit] = []
    kept: list[ChunkRow] = []
    per_file: dict[str, int] = {}
    for cid in order:
        chunk = chunks.get(cid)
        if chunk is None:
            continue
        if per_file.get(chunk.path, 0) >= options.max_per_file:
            continue
        if any(_duplicates(chunk, other) for other in kept):
            continue
        kept.append(chunk)
        per_file[chunk.path] = per_file.get(chunk.path, 0) + 1
        explanation = why[cid]
        explanation["matched_terms"] = _matched(terms, chunk)
        hits.append(
            Hit(
                repo=chunk.repo,
                path=chunk.path,
                start_line=chunk.start_line,
                end_line=chunk.end_line,
                symbol=chunk.symbol,
                kind=chunk.kind,
                language=chunk.language,
                score=round(fused[cid], 6),
                snippet=format_snippet(chunk, options.detail, docs.get(chunk.symbol_id or "", "")),
                why=explanation,
            )
        )
        if len(hits) >= options.k:
            break
    return hits


def _lexical(
    store: MetaStore, terms: Sequence[str], limit: int, filters: VectorFilter
) -> list[tuple[str, float]]:
    if not terms:
        return []
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    clauses: list[str] = []
    params: list[Any] = []
    if filters.repo:
        clauses.append("c.repo = ?")
        params.append(filters.repo)
    if filters.language:
        clauses.append("c.language = ?")
        params.append(filters.language)
    if filters.kind:
        clauses.append("c.kind = ?")
        params.append(filters.kind)
    if filters.path_prefix:
        clauses.append("substr(c.path, 1, ?) = ?")
        params.extend([len(filters.path_prefix), filters.path_prefix])
    where = "".join(f" AND {c}" for c in clauses)
    return store.lexical_search(match, limit, where, params)


def _duplicates(a: ChunkRow, b: ChunkRow) -> bool:
    """Windows of one symbol, or ranges sharing at least half of each, are one result."""
    if a.path != b.path:
        return False
    if a.symbol is not None and a.symbol == b.symbol and a.kind == b.kind:
        return True
    overlap = min(a.end_line, b.end_line) - max(a.start_line, b.start_line) + 1
    if overlap <= 0:
        return False
    return overlap * 2 >= (a.end_line - a.start_line + 1) and overlap * 2 >= (
        b.end_line - b.start_line + 1
    )


def _matched(terms: Sequence[str], chunk: ChunkRow) -> list[str]:
    present = set(code_tokens(f"{chunk.symbol or ''} {chunk.path} {chunk.text}"))
    return [t for t in terms if t in present]
