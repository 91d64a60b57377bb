"""The state of one search: its options, its sources and the candidates gathered so far.

Every stage (candidates, features, results) reads and extends one `SearchContext`, so a
stage's signature is the context and nothing else.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from codecompass.indexing.languages import is_test_path, is_test_tooling, nested_test_package
from codecompass.models import ChunkFilter, ChunkRecord, FileRecord, SymbolRecord
from codecompass.protocols import (
    ChunkCatalog,
    Embedder,
    FileCatalog,
    GraphView,
    LexicalIndex,
    LexicalMatch,
    SymbolCatalog,
    VectorIndex,
    Vectors,
)
from codecompass.search.query import ParsedQuery
from codecompass.search.rank import RankWeights, file_scores, weighted, weighted_sum
from codecompass.search.rerank import Reranker

# `http`, `rpc` and `event` carry expansion from a client to the handler of its route or
# the method implementing its rpc, and from a producer to an event's consumers, across
# repositories.
DEFAULT_EDGE_TYPES = (
    "calls",
    "imports",
    "contains",
    "extends",
    "implements",
    "references",
    "http",
    "rpc",
    "event",
)


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How to search: `Engine.search_options()` fills these from the settings."""

    k: int = 10
    detail: str = "preview"
    where: ChunkFilter = field(default_factory=ChunkFilter)
    candidates: int = 150  # per retriever, before ranking
    max_per_file: int = 3
    mode: str = "hybrid+graph"
    weights: RankWeights = field(default_factory=RankWeights)
    graph_hops: int = 1
    graph_seeds: int = 10
    edge_types: tuple[str, ...] = DEFAULT_EDGE_TYPES
    freshness_days: float = 90.0
    max_files: int = 10
    file_support: float = 0.0  # weight of a file's 2nd and 3rd best chunks in the file view
    file_tested: float = 0.0  # weight of a file's test evidence (`Tested`) in the file view
    max_symbols: int = 10
    # What the hits are: chunks ("hits"), or the symbol or file view's first `k` as hits.
    view: str = "hits"
    symbol_file_weight: float = 0.0  # weight of a symbol's file score in the symbol view
    symbol_member_share: float = 0.0  # a class scores at least this × its best member
    symbol_file_falloff: float = 0.0  # less file share per point below the file's best
    expand_files: int = 5  # all chunks of this many best files join the pool
    subgraph: bool = False
    collect: bool = False  # keep every candidate's features (for tuning the weights)


@dataclass(frozen=True, slots=True)
class SearchSources:
    """What search reads: the catalog, the lexical index, vectors and the graph (either
    may be absent: a bm25-only search needs no vectors, a new index has no graph)."""

    chunks: ChunkCatalog
    symbols: SymbolCatalog
    files: FileCatalog
    lexical: LexicalIndex
    embedder: Embedder | None = None
    vectors: VectorIndex | None = None
    graph: GraphView | None = None
    reranker: Reranker | None = None


@dataclass(slots=True)
class Candidate:
    features: dict[str, float] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)  # source → rank in it
    graph_path: tuple[str, ...] = ()
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class Tested:
    """A file's test evidence: the test file that tests it and that test's best chunk
    relevance (its score without the test penalty) against the best candidate's."""

    test_path: str
    value: float


@dataclass(slots=True)
class SearchContext:
    query: str
    parsed: ParsedQuery
    options: SearchOptions
    weights: RankWeights
    sources: SearchSources
    idf: dict[str, float]  # the query's terms the index holds, with their IDF
    query_vectors: Vectors | None = None
    lexical: LexicalMatch | None = None
    lexical_best: float = 1.0  # the lexical top's best BM25: normalises every bm25
    cands: dict[str, Candidate] = field(default_factory=dict)
    chunks: dict[str, ChunkRecord] = field(default_factory=dict)
    tested: dict[tuple[str, str], Tested] = field(default_factory=dict)
    # In a question about what uses a name: the users' chunks, best first, each with the
    # named symbol it uses (`candidates.add_named`).
    callers: dict[str, str] = field(default_factory=dict)
    # Special methods the query's code runs (`==` runs `Expr.__eq__`), by symbol id, each
    # with the named class it runs for (`candidates.add_named`).
    special_of: dict[str, str] = field(default_factory=dict)
    # The code constructing an exception class whose own code holds a message the query
    # quotes, by symbol id, with that class (`candidates.add_raisers`).
    raises: dict[str, str] = field(default_factory=dict)
    # A function the guard of a matched message calls, by symbol id, with the function
    # holding the message (`candidates.add_guards`).
    guard_of: dict[str, str] = field(default_factory=dict)
    # Runs of a message's words that more code chunks of the pool hold than
    # GENERIC_PHRASE_CHUNKS (`features.drop_generic_messages`): they place nothing.
    generic_phrases: frozenset[str] = frozenset()
    # Nested functions the query names or frames, by the chunk of their outer function
    # that holds them (`candidates.add_named`): the symbol view shows them as themselves.
    nested: dict[str, list[SymbolRecord]] = field(default_factory=dict)
    _paths: Sequence[tuple[str, str]] | None = None
    _test_tooling: dict[tuple[str, str], bool] = field(default_factory=dict)

    @property
    def paths(self) -> Sequence[tuple[str, str]]:
        """(repo, path) of the indexed files the search may reach, read once per search."""
        if self._paths is None:
            self._paths = self.sources.files.paths(self.options.where.repo)
        return self._paths

    def is_test(self, repo: str, path: str) -> bool:
        """A file of tests (`is_test_path`), unless its test folder is a package's tools
        for its users' tests (`is_test_tooling`: Django's `django/test/`)."""
        if not is_test_path(path):
            return False
        folder = nested_test_package(path)
        if folder is None:
            return True
        key = (repo, folder)
        tooling = self._test_tooling.get(key)
        if tooling is None:
            tooling = is_test_tooling(folder, self._paths_below(repo, folder))
            self._test_tooling[key] = tooling
        return not tooling

    def _paths_below(self, repo: str, folder: str) -> Iterator[str]:
        prefix = f"{folder}/"
        paths = self.paths
        for r, path in paths[bisect_left(paths, (repo, prefix)) :]:
            if r != repo or not path.startswith(prefix):
                return
            yield path

    def file_records(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], FileRecord]:
        """The catalog's records of these files alone: reading every record took 6 ms of
        a short query on sympy's 1,500 files."""
        by_repo: dict[str, set[str]] = {}
        for repo, path in keys:
            by_repo.setdefault(repo, set()).add(path)
        found: dict[tuple[str, str], FileRecord] = {}
        for repo, paths in sorted(by_repo.items()):
            found.update(self.sources.files.files(repo, paths))
        return found

    @property
    def mode(self) -> str:
        return self.options.mode

    @property
    def query_names(self) -> frozenset[str]:
        return frozenset(self.parsed.names)

    def add(self, cid: str, source: str, rank: int) -> Candidate:
        cand = self.cands.get(cid)
        if cand is None:
            cand = self.cands[cid] = Candidate()
        cand.sources.setdefault(source, rank)
        return cand

    def passes(self, chunk: ChunkRecord) -> bool:
        return self.options.where.matches(chunk.repo, chunk.path, chunk.language, chunk.kind)

    def rescore(self, cands: dict[str, Candidate] | None = None) -> None:
        """Score these candidates (all by default) from their features."""
        weights = weighted(self.weights)
        for cand in (self.cands if cands is None else cands).values():
            cand.score = weighted_sum(cand.features, weights)

    def ranked(self) -> list[str]:
        """Candidates by score; ties keep the order they joined in."""
        return sorted(self.cands, key=lambda cid: -self.cands[cid].score)

    def file_totals(self, order: Sequence[str]) -> list[tuple[tuple[str, str], float]]:
        """Files of the candidates in `order`, scored by their chunks (see
        `rank.file_scores`)."""
        chunks, cands = self.chunks, self.cands
        return file_scores(
            [((chunks[cid].repo, chunks[cid].path), cands[cid].score) for cid in order],
            self.options.file_support,
        )
