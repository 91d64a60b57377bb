"""Hybrid search: understand the query, gather candidates, expand along the graph, rank
them with one scoring function, then dedupe, cap per file and explain.

Candidates come from five places: dense vectors, BM25 over code-aware tokens (FTS5),
symbols the query names, files the query names (paths, modules, traceback frames,
file stems) and graph neighbours of the best seeds. Every candidate then gets every
feature of `rank.FEATURES`, whichever source brought it, so the score compares like
with like. Modes switch sources and features off for ablations: `bm25`, `dense`,
`hybrid` (no graph) and `hybrid+graph` (the default, equal to `hybrid` when the index
has no graph).
"""

from __future__ import annotations

import heapq
import math
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from codecompass.errors import InputError
from codecompass.protocols import Embedder
from codecompass.search.expand import DEFAULT_EDGE_TYPES, GraphView, expand
from codecompass.search.format import check_detail, format_snippet
from codecompass.search.query import (
    ParsedQuery,
    module_path_candidates,
    parse_query,
    query_windows,
)
from codecompass.search.rank import (
    RankWeights,
    explain,
    is_doc_language,
    is_test_path,
    score,
)
from codecompass.search.rerank import Reranker
from codecompass.search.tokens import code_tokens
from codecompass.storage.lance import LanceVectorStore, VectorFilter
from codecompass.storage.sqlite import ChunkRow, MetaStore

MODES = ("bm25", "dense", "hybrid", "hybrid+graph")
# Long queries (issues, tracebacks) keep their rarest terms for BM25: a term in a tenth
# of all chunks adds little to the ranking but most of the FTS5 cost.
MAX_QUERY_TERMS = 40
COMMON_TERM_SHARE = 0.1
MAX_SUBGRAPH_NODES = 200
# A name shared by more symbols than this only brings candidates from files the query
# also names; otherwise `__init__` or `eval` would flood the pool.
NAME_FANOUT = 30
PATH_CHUNKS = 600  # chunks brought in by files the query names, all files together
FILE_CHUNKS = 200  # chunks of one best file brought in by file expansion
_STOPWORDS_TEXT = """a about above after again against all also am an and any are as at be
    because been before being below between both but by can could did do does doing done
    down during each
    else few for from further get gets got had has have having he her here hers him his how i
    if in into is it its itself just like may me might more most must my no nor not now of
    off on once only or other our out over own same shall she should so some such than that
    the their them then there these they this those through to too under until up upon us
    very was we were what when where which while who whom why will with would you your
    yours"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


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
class FileHit:
    """A file ranked by its best evidence, for "which files" questions."""

    repo: str
    path: str
    score: float
    start_line: int  # the best chunk's range
    end_line: int
    symbols: list[str]  # best symbols of the file, best first
    why: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class SymbolHit:
    """A function, method or class ranked for "which functions" questions: its best
    chunk's score plus `symbol_file_weight` × its file's score in the file view, so the
    symbols of the best-supported files come first."""

    repo: str
    path: str
    symbol: str
    kind: str
    score: float
    start_line: int  # the best chunk's range
    end_line: int
    why: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class SearchOptions:
    k: int = 10
    detail: str = "preview"
    filters: VectorFilter = field(default_factory=VectorFilter)
    candidates: int = 100
    rrf_k: int = 60  # kept for configuration files written by earlier versions
    max_per_file: int = 3
    mode: str = "hybrid+graph"
    weights: RankWeights = field(default_factory=RankWeights)
    graph_hops: int = 1
    graph_seeds: int = 10
    edge_types: tuple[str, ...] = DEFAULT_EDGE_TYPES
    freshness_days: float = 90.0
    max_files: int = 10
    file_support: float = 0.0  # weight of a file's 2nd and 3rd best chunks in the file view
    max_symbols: int = 10
    symbol_file_weight: float = 0.0  # weight of a symbol's file score in the symbol view
    expand_files: int = 5  # all chunks of this many best files join the pool
    query_names: frozenset[str] = frozenset()  # set by `retrieve` from the parsed query
    subgraph: bool = False
    collect: bool = False  # keep every candidate's features (for tuning the weights)


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

    def as_dict(self) -> dict[str, Any]:
        return {
            "understood": self.query.as_dict(),
            "results": [h.as_dict() for h in self.hits],
            "files": [f.as_dict() for f in self.files],
            "symbols": [f.as_dict() for f in self.symbols],
            **({"subgraph": self.subgraph} if self.subgraph is not None else {}),
        }


@dataclass(slots=True)
class _Candidate:
    features: dict[str, float] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)  # source → rank in it
    graph_path: tuple[str, ...] = ()
    score: float = 0.0


class _LexicalScores:
    """BM25 of every chunk the query's terms match, from one FTS5 pass made the first
    time it is needed, normalised by the best score: the unfiltered lexical top and the
    chunks that join the pool later (file and graph expansion) read the same pass.
    Asking FTS5 for chosen rowids re-runs the whole match for every batch."""

    def __init__(self, store: MetaStore, match: str) -> None:
        self.store, self.match = store, match
        self.best = 1.0
        self._scores: dict[int, float] | None = None

    def all(self) -> dict[int, float]:
        if self._scores is None:
            self._scores = self.store.lexical_all(self.match) if self.match else {}
        return self._scores

    def top(self, limit: int) -> list[tuple[str, float]]:
        """The `limit` best chunks, best first, with raw BM25."""
        scores = self.all()
        ranked = heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], -item[0]))
        ids = self.store.ids_of_rowids([rowid for rowid, _ in ranked])
        return [(ids[rowid], value) for rowid, value in ranked if rowid in ids]

    def fill(self, cands: dict[str, _Candidate]) -> None:
        """Give chunks the lexical top did not bring (found by dense, by name, or by
        expansion) their BM25, normalised by `best` (the lexical top's best score)."""
        if not self.match or not cands:
            return
        scores = self.all()
        for cid, rowid in self.store.rowids(list(cands)).items():
            found = scores.get(rowid)
            if found is not None:
                cands[cid].features["bm25"] = max(0.0, found / self.best)


class _TokenCache:
    """Token sets of chunks (a chunk id never changes its text), least recently used out."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self.data: OrderedDict[str, frozenset[str]] = OrderedDict()

    def get(self, chunk: ChunkRow) -> frozenset[str]:
        found = self.data.get(chunk.id)
        if found is not None:
            self.data.move_to_end(chunk.id)
            return found
        tokens = frozenset(code_tokens(f"{chunk.symbol or ''} {chunk.path} {chunk.text}"))
        self.data[chunk.id] = tokens
        if len(self.data) > self.size:
            self.data.popitem(last=False)
        return tokens


_TOKENS = _TokenCache()


def retrieve(
    query: str,
    options: SearchOptions,
    *,
    store: MetaStore,
    vectors: LanceVectorStore,
    embedder: Embedder,
    graph: GraphView | None = None,
    reranker: Reranker | None = None,
) -> SearchResult:
    query = query.strip()
    if not query:
        raise InputError("The query is empty; pass some words, an identifier or a path.")
    if options.k < 1:
        raise InputError(f"k must be at least 1 (got {options.k}).")
    if options.mode not in MODES:
        raise InputError(f"Unknown search mode {options.mode!r}; use one of: {', '.join(MODES)}.")
    check_detail(options.detail)
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = round((now - clock) * 1000, 2)
        clock = now

    mode = options.mode
    weights = options.weights
    if mode == "bm25":
        weights = RankWeights().only().with_(bm25=1.0)
    elif mode == "dense":
        weights = RankWeights().only().with_(cosine=1.0)
    elif mode == "hybrid":
        weights = replace(weights, edge=0.0)
    pool = max(options.candidates, options.k * 3)
    parsed = parse_query(query)
    options = replace(options, query_names=frozenset(parsed.names))
    idf = _term_idf(store, parsed.terms)
    lap("understand")

    cands: dict[str, _Candidate] = {}

    def add(cid: str, source: str, rank: int) -> _Candidate:
        cand = cands.get(cid)
        if cand is None:
            cand = cands[cid] = _Candidate()
        cand.sources.setdefault(source, rank)
        return cand

    query_vectors = None
    if mode != "bm25":
        query_vectors = embedder.embed(query_windows(query))
        for rank, (cid, cos) in enumerate(vectors.search(query_vectors, pool, options.filters), 1):
            add(cid, "dense", rank).features["cosine"] = max(0.0, cos)
        lap("dense")
    lexical_scores = _LexicalScores(store, _match(_query_terms(idf)) if mode != "dense" else "")
    if mode != "dense":
        lexical = _lexical(store, lexical_scores, pool, options.filters)
        best = lexical_scores.best = lexical[0][1] if lexical and lexical[0][1] > 0 else 1.0
        for rank, (cid, bm25) in enumerate(lexical, 1):
            add(cid, "lexical", rank).features["bm25"] = max(0.0, bm25 / best)
        lap("lexical")
    if mode in ("hybrid", "hybrid+graph"):
        for cid, (source, value) in _named(parsed, store, options.filters).items():
            cand = add(cid, source, 0)
            cand.features[source] = max(cand.features.get(source, 0.0), value)
        lap("names")

    chunks = store.chunks(list(cands))
    cands = {cid: c for cid, c in cands.items() if cid in chunks and _passes(chunks[cid], options)}
    lexical_scores.fill({cid: c for cid, c in cands.items() if "bm25" not in c.features})
    _fill_features(cands, chunks, idf, weights, query_vectors, store, vectors, options)
    lap("features")

    if mode in ("hybrid", "hybrid+graph") and options.expand_files > 0:
        _expand_files(
            cands, chunks, store, idf, weights, query_vectors, vectors, options, lexical_scores
        )
        lap("files")

    if mode == "hybrid+graph" and graph is not None and (weights.edge > 0 or options.collect):
        _expand(
            cands,
            chunks,
            graph,
            store,
            idf,
            weights,
            query_vectors,
            vectors,
            options,
            lexical_scores,
        )
        lap("graph")
    if mode == "hybrid+graph" and graph is not None and (weights.importance or options.collect):
        _importance(cands, chunks, graph)
        lap("importance")

    for cand in cands.values():
        cand.score = score(cand.features, weights)
    if weights.dispatch or options.collect:
        _mark_handlers(cands, chunks, weights, options)
    order = sorted(cands, key=lambda cid: (-cands[cid].score, cid))
    if reranker is not None:
        head = order[:pool]
        picked = list(reranker.rerank(query, [chunks[cid].text for cid in head]))
        rest = [i for i in range(len(head)) if i not in set(picked)]
        order = [head[i] for i in (*picked, *rest)] + order[pool:]
    lap("rank")

    hits = _hits(order, cands, chunks, idf, store, options, weights)
    file_totals = _file_totals(order, cands, chunks, options.file_support)
    files = _files(order, cands, chunks, file_totals, options.max_files)
    symbols = _symbols(order, cands, chunks, file_totals, options)
    subgraph = None
    if options.subgraph:
        subgraph = _subgraph(hits, graph, options.edge_types)
    lap("format")
    collected = None
    if options.collect:
        collected = [
            {
                "path": chunks[cid].path,
                "symbol": chunks[cid].symbol,
                "start_line": chunks[cid].start_line,
                "end_line": chunks[cid].end_line,
                "features": {k: round(v, 5) for k, v in cands[cid].features.items()},
            }
            for cid in order
        ]
    return SearchResult(parsed, hits, files, symbols, subgraph, timings, collected)


# -- query terms ----------------------------------------------------------------------
def _term_idf(store: MetaStore, terms: Sequence[str]) -> dict[str, float]:
    """IDF of each distinct query term the index holds (stop words and unknown terms out)."""
    wanted = [t for t in dict.fromkeys(terms) if t not in STOPWORDS and len(t) > 1]
    if not wanted:
        wanted = list(dict.fromkeys(terms))
    freqs, total = store.term_doc_freqs(wanted)
    return {t: _idf(freqs[t] / total) for t in wanted if freqs.get(t, 0) > 0 and total}


def _idf(share: float) -> float:
    """BM25's IDF of a term found in `share` of the chunks (for a large collection)."""
    return math.log(1.0 + (1.0 - share) / max(share, 1e-9))


def _query_terms(idf: dict[str, float]) -> list[str]:
    """The terms the lexical search asks for: the rarest first; in a long query, only
    those rarer than COMMON_TERM_SHARE of chunks."""
    terms = sorted(idf, key=lambda t: -idf[t])
    if len(terms) > MAX_QUERY_TERMS // 2:
        floor = _idf(COMMON_TERM_SHARE)
        terms = [t for t in terms if idf[t] >= floor] or terms
    return terms[:MAX_QUERY_TERMS]


def _match(terms: Sequence[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _lexical(
    store: MetaStore, scores: _LexicalScores, limit: int, filters: VectorFilter
) -> list[tuple[str, float]]:
    match = scores.match
    if not match:
        return []
    only_repo = filters.repo and [r["id"] for r in store.repos()] == [filters.repo]
    if not (filters.language or filters.kind or filters.path_prefix) and (
        not filters.repo or only_repo
    ):
        return scores.top(limit)
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


# -- names, paths and frames ----------------------------------------------------------
def _specificity(count: int) -> float:
    return 1.0 / (1.0 + math.log(max(1, count)))


def _match_files(wanted: str, paths: Sequence[str]) -> list[str]:
    """Indexed paths that `wanted` (maybe absolute, maybe partial) names."""
    wanted = wanted.lstrip("~").lstrip("/")
    if not wanted:
        return []
    exact = [p for p in paths if p == wanted]
    if exact:
        return exact
    # An absolute path from a traceback ends with the repo path; a partial path is the
    # tail of one. Keep the matches sharing the longest tail.
    hits = [p for p in paths if wanted.endswith("/" + p) or p.endswith("/" + wanted)]
    if not hits:
        return []
    longest = max(min(len(p), len(wanted)) for p in hits)
    return [p for p in hits if min(len(p), len(wanted)) == longest]


def _named(q: ParsedQuery, store: MetaStore, filters: VectorFilter) -> dict[str, tuple[str, float]]:
    """Chunk id → (feature, value) for chunks whose symbol or file the query names."""
    out: dict[str, tuple[str, float]] = {}
    names = q.names
    dotted = q.dotted
    files = store.all_paths(filters.repo)
    paths = [p for _, p in files]
    repo_of = {p: r for r, p in files}

    # Files the query names, with the strength of the naming.
    file_value: dict[str, float] = {}

    def name_file(path: str, value: float) -> None:
        file_value[path] = max(file_value.get(path, 0.0), value)

    for wanted in q.paths:
        for path in _match_files(wanted, paths):
            name_file(path, 1.0)
    for name in dotted:
        for wanted in module_path_candidates(name):
            if wanted in repo_of:
                name_file(wanted, 0.7)
    stems: dict[str, list[str]] = {}
    for path in paths:
        stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        stems.setdefault(stem, []).append(path)
    for name in names:
        if len(name) >= 3 and name in stems:
            share = stems[name]
            for path in share:
                name_file(path, 0.5 * _specificity(len(share)))
    frame_funcs: dict[str, set[str]] = {}
    for frame in q.frames:
        for path in _match_files(frame.path, paths):
            if frame.function:
                frame_funcs.setdefault(path, set()).add(frame.function)

    # Symbols the query names.
    rows = store.symbols_named(list(dict.fromkeys([*names, *dotted])), filters.repo)
    by_name: dict[str, int] = {}
    for row in rows:
        by_name[row[3]] = by_name.get(row[3], 0) + 1
    named = set(names)
    symbol_value: dict[str, float] = {}
    for sid, _, path, name, qualified, parent in rows:
        if qualified in dotted:
            value = 1.0
        else:
            if by_name[name] > NAME_FANOUT and path not in file_value and path not in frame_funcs:
                continue
            value = _specificity(by_name[name])
            owner = (parent or "").rsplit(".", 1)[-1]
            if owner and owner in named:
                value = min(1.0, value + 0.5)
        symbol_value[sid] = max(symbol_value.get(sid, 0.0), value)

    wanted_files = {*file_value, *frame_funcs}
    symbol_paths = {sid: (r, p) for sid, r, p, *_ in rows if sid in symbol_value}
    keys = [(repo_of[p], p) for p in wanted_files if p in repo_of]
    keys += list(symbol_paths.values())
    in_files = store.chunks_in_files(keys)
    budget = PATH_CHUNKS
    for (_, path), file_chunks in in_files.items():
        for cid, owner_id in file_chunks:
            if owner_id is not None and owner_id in symbol_value:
                out[cid] = ("name", symbol_value[owner_id])
            funcs = frame_funcs.get(path)
            if funcs and owner_id is not None and _symbol_name(owner_id) in funcs:
                out[cid] = ("frame", 1.0)
                continue
            if path in file_value and cid not in out and budget > 0:
                out[cid] = ("path", file_value[path])
                budget -= 1
    return out


def _symbol_name(symbol_id: str) -> str:
    qualified = symbol_id.rsplit("#", 1)[-1].split("@", 1)[0]
    return qualified.rsplit(".", 1)[-1]


def handled_type(symbol: str | None) -> str | None:
    """The type a method handles by the dispatch-by-name convention of visitors and
    printers (`visit_Call` → `Call`, `_print_MatAdd` → `MatAdd`), else None.

    The handler of a type the query names is where its behaviour lives, yet its name
    matches nothing in the query: `_print_Sum` for "pretty printing of Sum is off"."""
    method = (symbol or "").rsplit(".", 1)[-1].lstrip("_")
    verb, _, handled = method.partition("_")
    if verb.islower() and len(handled) >= 3 and handled[0].isupper() and handled.isidentifier():
        return handled
    return None


def _mark_handlers(
    cands: dict[str, _Candidate],
    chunks: dict[str, ChunkRow],
    weights: RankWeights,
    options: SearchOptions,
) -> None:
    """Set `dispatch` on the handlers of a type the query names that sit in one of the
    `expand_files` best files (ranked without it), and re-score them. The feature picks
    the right method of a file other evidence found; on its own it let every printer's
    `_print_Symbol` flood the hits of an issue whose snippet builds a `Symbol`."""
    names = options.query_names
    handlers = [cid for cid in cands if handled_type(chunks[cid].symbol) in names]
    if not handlers:
        return
    order = sorted(cands, key=lambda cid: -cands[cid].score)
    totals = _file_totals(order, cands, chunks, options.file_support)
    best = {key for key, _ in totals[: options.expand_files]}
    for cid in handlers:
        if _file_key(chunks[cid]) in best:
            cand = cands[cid]
            cand.features["dispatch"] = 1.0
            cand.score = score(cand.features, weights)


def _passes(chunk: ChunkRow, options: SearchOptions) -> bool:
    f = options.filters
    return (
        (not f.repo or chunk.repo == f.repo)
        and (not f.language or chunk.language == f.language)
        and (not f.kind or chunk.kind == f.kind)
        and (not f.path_prefix or chunk.path.startswith(f.path_prefix))
    )


# -- features -------------------------------------------------------------------------
def _fill_features(
    cands: dict[str, _Candidate],
    chunks: dict[str, ChunkRow],
    idf: dict[str, float],
    weights: RankWeights,
    query_vectors: Any,
    store: MetaStore,
    vectors: LanceVectorStore,
    options: SearchOptions,
) -> None:
    """Give every candidate every feature the weights use, whichever source found it."""
    names = options.query_names
    for cid, cand in cands.items():
        chunk = chunks[cid]
        owners = (chunk.symbol or "").split(".")[:-1]
        if owners and any(owner in names for owner in owners):
            cand.features["member"] = 1.0
        if is_test_path(chunk.path):
            cand.features["test"] = 1.0
        if is_doc_language(chunk.language):
            cand.features["doc"] = 1.0
    if (weights.cosine or options.collect) and query_vectors is not None:
        missing = [cid for cid, c in cands.items() if "cosine" not in c.features]
        found = vectors.vectors_of(missing)
        have = [cid for cid in missing if cid in found]
        if have:
            matrix = np.stack([found[cid] for cid in have])
            best = (matrix @ query_vectors.T).max(axis=1)
            for cid, cos in zip(have, best.tolist(), strict=True):
                cands[cid].features["cosine"] = max(0.0, cos)
    total = sum(idf.values())
    if (weights.keywords or options.collect) and total > 0:
        for cid, cand in cands.items():
            present = _TOKENS.get(chunks[cid])
            cand.features["keywords"] = sum(w for t, w in idf.items() if t in present) / total
    if weights.freshness or options.collect:
        dates = store.file_dates(list({(c.repo, c.path) for c in chunks.values()}))
        now = datetime.now(UTC)
        for cid, cand in cands.items():
            c = chunks[cid]
            stamp = dates.get((c.repo, c.path))
            if stamp:
                age = (now - datetime.fromisoformat(stamp)).total_seconds() / 86400
                cand.features["freshness"] = 0.5 ** (max(0.0, age) / options.freshness_days)


def _expand_files(
    cands: dict[str, _Candidate],
    chunks: dict[str, ChunkRow],
    store: MetaStore,
    idf: dict[str, float],
    weights: RankWeights,
    query_vectors: Any,
    vectors: LanceVectorStore,
    options: SearchOptions,
    lexical_scores: _LexicalScores,
) -> None:
    """Bring every chunk of the best files into the pool: the right file is found far
    more often than the right function in it, whose own words may not match the query."""
    for cand in cands.values():
        cand.score = score(cand.features, weights)
    ranked = sorted(cands, key=lambda cid: -cands[cid].score)
    files: list[tuple[str, str]] = []
    for cid in ranked:
        key = (chunks[cid].repo, chunks[cid].path)
        if key not in files:
            files.append(key)
        if len(files) >= options.expand_files:
            break
    new_ids: list[str] = []
    for rows in store.chunks_in_files(files).values():
        new_ids.extend(cid for cid, _ in rows[:FILE_CHUNKS] if cid not in cands)
    if not new_ids:
        return
    chunks.update(store.chunks(new_ids))
    added = {
        cid: _Candidate(sources={"file": 0})
        for cid in new_ids
        if cid in chunks and _passes(chunks[cid], options)
    }
    lexical_scores.fill(added)
    _fill_features(added, chunks, idf, weights, query_vectors, store, vectors, options)
    cands.update(added)


def _expand(
    cands: dict[str, _Candidate],
    chunks: dict[str, ChunkRow],
    graph: GraphView,
    store: MetaStore,
    idf: dict[str, float],
    weights: RankWeights,
    query_vectors: Any,
    vectors: LanceVectorStore,
    options: SearchOptions,
    lexical_scores: _LexicalScores,
) -> None:
    for cand in cands.values():
        cand.score = score(cand.features, weights)
    ranked = sorted(cands, key=lambda cid: -cands[cid].score)
    seeds: list[str] = []
    for cid in ranked:
        sid = chunks[cid].symbol_id
        if sid and sid not in seeds:
            seeds.append(sid)
        if len(seeds) >= options.graph_seeds:
            break
    if not seeds:
        return
    reached = expand(graph, seeds, hops=options.graph_hops, edge_types=options.edge_types)
    by_symbol: dict[str, list[str]] = {}
    for cid, c in chunks.items():
        if c.symbol_id:
            by_symbol.setdefault(c.symbol_id, []).append(cid)
    wanted = [node for node in reached if node not in by_symbol]
    located = store.symbol_files(wanted)
    new_ids: list[str] = []
    for rows in store.chunks_in_files(list(set(located.values()))).values():
        for cid, sid in rows:
            if sid in reached and sid is not None and cid not in cands:
                by_symbol.setdefault(sid, []).append(cid)
                new_ids.append(cid)
    chunks.update(store.chunks(new_ids))
    added: dict[str, _Candidate] = {}
    for node, r in reached.items():
        for cid in by_symbol.get(node, []):
            if cid not in chunks or not _passes(chunks[cid], options):
                continue
            target = cands.get(cid) or added.get(cid)
            if target is None:
                target = added[cid] = _Candidate()
            target.sources.setdefault("graph", 0)
            if r.strength > target.features.get("edge", 0.0):
                target.features["edge"] = r.strength
                target.graph_path = r.path
    lexical_scores.fill(added)
    _fill_features(added, chunks, idf, weights, query_vectors, store, vectors, options)
    cands.update(added)


def _importance(
    cands: dict[str, _Candidate], chunks: dict[str, ChunkRow], graph: GraphView
) -> None:
    symbol_ids = [chunks[cid].symbol_id or "" for cid in cands]
    importance = graph.importance([sid for sid in symbol_ids if sid])
    for cid, cand in cands.items():
        sid = chunks[cid].symbol_id
        if sid and sid in importance:
            cand.features["importance"] = _importance_feature(importance[sid])


def _importance_feature(value: float) -> float:
    # PageRank scaled to a maximum of 1 is heavy-tailed: almost every node is near 0.
    # A log scale spreads the ordinary symbols out and keeps the result in [0, 1].
    return math.log1p(1000.0 * max(0.0, value)) / math.log1p(1000.0)


# -- results ----------------------------------------------------------------------------
def _hits(
    order: Sequence[str],
    cands: dict[str, _Candidate],
    chunks: dict[str, ChunkRow],
    idf: dict[str, float],
    store: MetaStore,
    options: SearchOptions,
    weights: RankWeights,
) -> list[Hit]:
    kept: list[ChunkRow] = []
    per_file: dict[tuple[str, str], int] = {}
    for cid in order:
        chunk = chunks[cid]
        key = (chunk.repo, chunk.path)
        if per_file.get(key, 0) >= options.max_per_file:
            continue
        if any(_duplicates(chunk, other) for other in kept):
            continue
        kept.append(chunk)
        per_file[key] = per_file.get(key, 0) + 1
        if len(kept) >= options.k:
            break
    docs = store.symbol_docs([c.symbol_id for c in kept if c.symbol_id])
    hits: list[Hit] = []
    for chunk in kept:
        cand = cands[chunk.id]
        present = _TOKENS.get(chunk)
        why: dict[str, Any] = {
            "features": explain(cand.features, weights),
            "sources": dict(cand.sources),
            "matched_terms": [t for t in idf if t in present][:20],
        }
        # Each retriever's own rank and score, as in the first search version.
        for source, feature in (("dense", "cosine"), ("lexical", "bm25")):
            if source in cand.sources:
                why[source] = {
                    "rank": cand.sources[source],
                    "score": round(cand.features.get(feature, 0.0), 4),
                }
        if cand.graph_path:
            why["graph_path"] = list(cand.graph_path)
        hits.append(
            Hit(
                repo=chunk.repo,
                path=chunk.path,
                start_line=chunk.start_line,
                end_line=chunk.end_line,
                symbol=chunk.symbol,
                kind=chunk.kind,
                language=chunk.language,
                score=round(cand.score, 6),
                snippet=format_snippet(chunk, options.detail, docs.get(chunk.symbol_id or "", "")),
                why=why,
            )
        )
    return hits


def file_scores(scored: Sequence[tuple[str, float]], support: float) -> list[tuple[str, float]]:
    """Files by their best chunk's score plus `support` × the next two best ones (so a
    file with several pieces of evidence edges out one lucky chunk); best first.
    `scored` is (file key, chunk score) in descending score order."""
    seen: dict[str, list[float]] = {}
    for key, value in scored:
        seen.setdefault(key, []).append(value)
    totals = {k: v[0] + support * sum(v[1:3]) for k, v in seen.items()}
    return sorted(totals.items(), key=lambda kv: -kv[1])


def _file_key(chunk: ChunkRow) -> str:
    return f"{chunk.repo}\0{chunk.path}"


def _file_totals(
    order: Sequence[str], cands: dict[str, _Candidate], chunks: dict[str, ChunkRow], support: float
) -> list[tuple[str, float]]:
    return file_scores([(_file_key(chunks[cid]), cands[cid].score) for cid in order], support)


def _files(
    order: Sequence[str],
    cands: dict[str, _Candidate],
    chunks: dict[str, ChunkRow],
    totals: Sequence[tuple[str, float]],
    limit: int,
) -> list[FileHit]:
    ids_of: dict[str, list[str]] = {}
    for cid in order:
        ids_of.setdefault(_file_key(chunks[cid]), []).append(cid)
    out: list[FileHit] = []
    for key, total in totals[:limit]:
        ids = ids_of[key]
        top = chunks[ids[0]]
        symbols = list(dict.fromkeys(chunks[i].symbol for i in ids if chunks[i].symbol))
        out.append(
            FileHit(
                repo=top.repo,
                path=top.path,
                score=round(total, 6),
                start_line=top.start_line,
                end_line=top.end_line,
                symbols=[s for s in symbols if s][:5],
                why={"best_chunk": ids[0], "chunks_matched": len(ids)},
            )
        )
    return out


def _symbols(
    order: Sequence[str],
    cands: dict[str, _Candidate],
    chunks: dict[str, ChunkRow],
    totals: Sequence[tuple[str, float]],
    options: SearchOptions,
) -> list[SymbolHit]:
    """Each symbol once, by its best chunk, scored with its file's total."""
    file_total = dict(totals)
    best: dict[tuple[str, str], tuple[float, str]] = {}
    for cid in order:
        chunk = chunks[cid]
        if not chunk.symbol:
            continue
        key = (_file_key(chunk), chunk.symbol)
        if key in best:
            continue
        total = file_total[key[0]]
        value = cands[cid].score + options.symbol_file_weight * total
        best[key] = (value, cid)
    ranked = sorted(best.values(), key=lambda pair: (-pair[0], pair[1]))[: options.max_symbols]
    out: list[SymbolHit] = []
    for value, cid in ranked:
        chunk = chunks[cid]
        out.append(
            SymbolHit(
                repo=chunk.repo,
                path=chunk.path,
                symbol=chunk.symbol or "",
                kind=chunk.kind,
                score=round(value, 6),
                start_line=chunk.start_line,
                end_line=chunk.end_line,
                why={
                    "best_chunk": cid,
                    "chunk_score": round(cands[cid].score, 6),
                    "file_score": round(file_total[_file_key(chunk)], 6),
                },
            )
        )
    return out


def _subgraph(
    hits: Sequence[Hit], graph: GraphView | None, edge_types: Sequence[str]
) -> dict[str, Any]:
    nodes: dict[str, dict[str, Any]] = {}
    for hit in hits:
        if hit.symbol:
            node = f"{hit.repo}/{hit.path}#{hit.symbol}"
            nodes[node] = {
                "id": node,
                "kind": hit.kind,
                "path": hit.path,
                "start_line": hit.start_line,
                "end_line": hit.end_line,
                "score": hit.score,
                "hit": True,
            }
    edges: list[dict[str, Any]] = []
    if graph is not None and nodes:
        for e in graph.neighbors(list(nodes), edge_types):
            for end in (e.source, e.target):
                if end not in nodes and len(nodes) < MAX_SUBGRAPH_NODES:
                    nodes[end] = {"id": end, "hit": False}
            if e.source in nodes and e.target in nodes:
                edges.append(
                    {
                        "source": e.source,
                        "target": e.target,
                        "type": e.type,
                        "weight": e.weight,
                        "confidence": e.confidence,
                    }
                )
    return {"nodes": list(nodes.values()), "edges": edges}


def _duplicates(a: ChunkRow, b: ChunkRow) -> bool:
    """Windows of one symbol, or ranges sharing at least half of each, are one result."""
    if a.path != b.path or a.repo != b.repo:
        return False
    if a.symbol is not None and a.symbol == b.symbol and a.kind == b.kind:
        return True
    overlap = min(a.end_line, b.end_line) - max(a.start_line, b.start_line) + 1
    if overlap <= 0:
        return False
    return overlap * 2 >= (a.end_line - a.start_line + 1) and overlap * 2 >= (
        b.end_line - b.start_line + 1
    )
