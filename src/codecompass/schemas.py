"""What the engine answers with: one model per result concept, shared by the Python API,
the CLI's JSON, the MCP server's structured output and the web UI.

They are pydantic models so that a frontend gets a JSON Schema and validation for free;
internal records (chunks, symbols, edges as stored) are plain dataclasses in `models.py`,
and `Edge` appears here as it is.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from codecompass.models import Edge


class Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


# -- search -----------------------------------------------------------------------------
class Hit(Result):
    """One piece of evidence: where it is, what it is, its text, and why it came back."""

    repo: str
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str
    language: str
    score: float
    snippet: str
    why: dict[str, Any] = Field(default_factory=dict)


class Evidence(Hit):
    """A hit an answer may cite as `[n]`."""

    n: int

    @property
    def location(self) -> str:
        return f"{self.repo}/{self.path}:{self.start_line}-{self.end_line}"


class FileHit(Result):
    """A file ranked by its best evidence, for "which files" questions (`why`:
    best_chunk, chunks_matched, and tested_by when a best test file tests it)."""

    repo: str
    path: str
    score: float
    start_line: int  # the best chunk's range
    end_line: int
    symbols: list[str]  # best symbols of the file, best first
    why: dict[str, Any] = Field(default_factory=dict)


class SymbolHit(Result):
    """A function, method or class ranked for "which functions" questions: its best
    chunk's score plus its share of its file's score from its chunks (`why`:
    chunk_score, file_score, file_share; see `rank.symbol_scores`). The test evidence
    the file view adds is left out. The best chunk's symbol comes before every symbol
    totalling less than 10% more, as its file does in the file view
    (`why["first_as_best_chunk"]` when that puts it first), and the best symbol of each
    of the file view's first three files within the first ten (`why["spread_for_file"]`).
    In a question about what uses a name ("what calls Vote.cast"), the symbols using it
    follow the first (`why["caller_of"]`: the symbol they use). A special method the
    query's code runs without naming it (`ds == ds2` runs `Dataset.__eq__`) says for which
    named class (`why["special_of"]`); code raising an exception class that formats a
    message the query quotes names it (`why["raises"]`), and a function the check above
    such a message calls names the function holding it (`why["guard_of"]`). A nested
    function the query names or a frame names follows the function holding it, at its
    own lines with its holder's chunk as evidence (`why["nested_in"]`: the holder)."""

    repo: str
    path: str
    symbol: str
    kind: str
    score: float
    start_line: int  # the lines that define it (`why["best_chunk_lines"]`: the evidence)
    end_line: int
    why: dict[str, Any] = Field(default_factory=dict)


class RerankInfo(Result):
    """Whether a model reordered the best results (`rerank`), and if not, why."""

    used: bool
    by: Literal["sampling", "llm"] | None = None  # the model asked (also when it failed)
    model: str | None = None  # as the model reports itself
    candidates: int = 0  # results shown to the model (the head of the ranking)
    prompt_tokens: int = 0  # size of the prompt sent (characters / 4)
    reason: str | None = None  # why the order is unchanged


# -- answers ------------------------------------------------------------------------------
class Answer(Result):
    answer: str
    mode: Literal["sampling", "llm", "extractive", "none"]
    model: str | None
    evidences: list[Evidence]
    total_matches: int
    cited: list[int]
    provider_error: str | None = None
    # The index generation the evidence came from (the newest index run), and the cited
    # files changed on disk since they were indexed ("repo/path").
    generation: int | None = None
    stale: list[str] = Field(default_factory=list)
    coverage: dict[str, float] = Field(default_factory=dict)  # as in search answers
    rerank: RerankInfo | None = None  # when reranking was asked for


# -- files ---------------------------------------------------------------------------------
class FileView(Result):
    repo: str
    path: str
    start_line: int
    end_line: int
    total_lines: int
    text: str


# -- the code graph ------------------------------------------------------------------------
class SymbolMatch(Result):
    id: str
    repo: str
    path: str
    name: str
    qualified_name: str
    kind: str
    signature: str
    start_line: int
    end_line: int
    score: float
    exact: bool


class GraphNode(Result):
    id: str
    kind: str  # repo, file, a symbol kind (class, function, …), keyword, topic, rpc, unresolved
    name: str
    repo: str | None
    path: str | None
    start_line: int | None
    end_line: int | None
    importance: float


class GraphResult(Result):
    root: str
    nodes: list[GraphNode]
    edges: list[Edge]
    paths: list[list[str]]  # node ids from the root to each node reached
    truncated: bool
    # The other overloads of the root's method, walked with it (one name, several ids);
    # for an rpc of a `.proto`, the rpc node it declares and the methods serving it.
    overloads: list[str] = Field(default_factory=list)
    # What the answer cannot see (calls of a language whose calls are not read).
    limits: list[str] = Field(default_factory=list)
    # As in `Answer`: the index generation, and the nodes' files changed on disk since.
    generation: int | None = None
    stale: list[str] = Field(default_factory=list)
    memories: list[MemoryNote] = Field(default_factory=list)  # about the nodes shown


class NodeDetails(Result):
    """One node of the graph up close: what it is, where, and its edges both ways (the
    strongest first, up to a limit; the totals count them all)."""

    node: GraphNode
    signature: str
    doc: str
    in_edges: list[Edge]
    out_edges: list[Edge]
    in_total: int
    out_total: int
    # Names of the nodes at the other end of the edges shown.
    neighbours: dict[str, str] = Field(default_factory=dict)
    memories: list[MemoryNote] = Field(default_factory=list)  # about this node


class OverviewSymbol(Result):
    id: str
    name: str
    kind: str
    signature: str
    line: int
    importance: float
    namesakes: int = 0  # more symbols of this name in the file (overloads), not shown


class OverviewFile(Result):
    path: str
    importance: float
    symbols: list[OverviewSymbol]


class Overview(Result):
    # The text block of an MCP result carries the map itself, within the budget, not the
    # JSON of it all (`files` repeats the map field by field for programs): at the default
    # 2,000 tokens an agent had read about 10,500.
    text_block: ClassVar[str] = "text"

    repo: str
    text: str
    tokens: int
    files: list[OverviewFile]


class LinkEnd(Result):
    """One side of a link between services: the node, and the line proving its part
    (the call, the route, the import, the package declaration, the emit, the listen)."""

    id: str
    repo: str | None
    path: str | None
    line: int | None


class ServiceLink(Result):
    """A link between services (seed 004): `via` http, rpc, sdk or event; `name` the
    route or OpenAPI operation (`GET /api/users/{}`), the rpc (`shop.Checkout/PlaceOrder`),
    the topic (`event:kafka/orders`) or the import; `how` the way it was made (`literal`,
    `template`, `route`, `stub`, `constant`, `package`, …)."""

    via: Literal["http", "rpc", "sdk", "event"]
    name: str
    confidence: float
    how: str
    source: LinkEnd
    target: LinkEnd


class ServiceLinks(Result):
    links: list[ServiceLink]
    counts: dict[str, int]  # links per via


# -- what the MCP tools return (the web API reuses them) ----------------------------------
class SearchCodeResult(Result):
    query_id: str
    results: list[Hit]
    # Cited files ("repo/path") changed on disk since indexed: re-read them with open_file.
    stale: list[str] = Field(default_factory=list)
    generation: int | None = None  # the index generation (newest index run) answering
    # Share of the active chunks each signal saw: `dense` below 1.0 while vectors fill in.
    coverage: dict[str, float] = Field(default_factory=dict)
    memories: list[MemoryNote] = Field(default_factory=list)  # about the code found
    rerank: RerankInfo | None = None  # when reranking was asked for (argument or setting)


class FileContent(Result):
    repo: str
    path: str
    start_line: int
    end_line: int
    total_lines: int
    content: str
    truncated: bool
    next_start_line: int | None
    # The file changed on disk since it was indexed: a node id's or a hit's lines may no
    # longer hold what the index saw there.
    stale: bool = False


class SymbolMatches(Result):
    matches: list[SymbolMatch]
    hint: str | None = None  # what to try when nothing matched


class AskMeta(Result):
    scope: list[str]
    top_k: int
    min_score: float
    llm_model: str | None
    answer_mode: Literal["sampling", "llm", "extractive", "none"]
    total_matches: int
    contexts_used: int
    cited: list[int]
    elapsed_ms: float
    query_id: str
    generation: int | None = None  # the index generation the evidence came from
    stale: list[str] = Field(default_factory=list)  # cited files changed on disk since
    coverage: dict[str, float] = Field(default_factory=dict)  # `dense`: chunks with a vector
    rerank: RerankInfo | None = None  # when reranking was asked for (argument or setting)


class AskResult(Result):
    answer: str
    evidences: list[Evidence]
    meta: AskMeta


class Commit(Result):
    sha: str
    author: str
    date: str  # ISO 8601, author date
    subject: str


class BlameHunk(Result):
    """Consecutive lines last changed by one commit."""

    start_line: int
    end_line: int
    sha: str
    author: str
    date: str
    subject: str


class GitLogResult(Result):
    repo: str
    path: str
    commits: list[Commit]


class GitBlameResult(Result):
    repo: str
    path: str
    hunks: list[BlameHunk]


class RepoStatus(Result):
    id: str
    root: str
    files: int
    symbols: int
    chunks: int
    last_commit: str | None
    last_indexed_at: str | None
    last_run_status: str | None
    stale: dict[str, Any]
    # Files another version of the reader stored: the next index run reads them again.
    files_to_read_again: int = 0


class IndexStatus(Result):
    data_dir: str
    model: str | None
    repos: list[RepoStatus]
    generation: int | None = None  # the newest index run; answers name theirs
    # Vectors stored and active chunks: fewer vectors while they fill in after a run.
    vectors: dict[str, int] = Field(default_factory=dict)
    # Repositories a live index run is writing now (a run whose process died is not one):
    # until it ends, missing vectors are being computed and answers may change.
    indexing_now: list[str] = Field(default_factory=list)


# -- semantic memory ------------------------------------------------------------------------
MemoryTypeName = Literal["decision", "pattern", "error", "spec", "context"]


class MemoryItem(Result):
    """One memory as an agent sees it. `links` are what it is about (symbol node ids or
    files); `dangling` are the links whose symbol or file is no longer in the index."""

    id: str
    type: MemoryTypeName
    content: str
    tags: list[str]
    source: str
    links: list[str]
    dangling: list[str] = Field(default_factory=list)
    created: str
    updated: str
    last_accessed: str | None
    access_count: int
    salience: float
    expires_at: str | None
    expired: bool = False


class RememberResult(Result):
    """What `remember` did: `created` a memory, found an exact `duplicate` (same
    normalized text), `merged` a paraphrase into a stored memory (its text, tags or
    links were extended), or `skipped` a paraphrase that added nothing."""

    status: Literal["created", "duplicate", "merged", "skipped"]
    id: str
    similar_to: str | None = None  # the stored memory a paraphrase matched
    similarity: float | None = None  # their cosine
    links: list[str] = Field(default_factory=list)
    evicted: list[str] = Field(default_factory=list)  # weakest memories dropped by a cap
    message: str


class RecallHit(Result):
    memory: MemoryItem
    score: float
    why: dict[str, float] = Field(default_factory=dict)  # dense, lexical, salience, recency


class RecallResult(Result):
    """Memories recalled within a token budget, best first, and the text to show."""

    # The MCP text block is `text`, within the budget (with what it left out counted),
    # not the JSON of every hit: at 50 tokens an agent had read about 194.
    text_block: ClassVar[str] = "text"

    query: str
    hits: list[RecallHit]
    tokens: int  # of `text`
    budget: int
    matched: int  # memories that passed the filters and the relevance floor
    omitted: int  # matched but left out by the budget or the limit
    detail: Literal["compact", "full", "context"]
    text: str


class MemoryNote(Result):
    """A memory about a piece of code, shown beside search and graph results."""

    id: str
    type: MemoryTypeName
    content: str  # the first line, at most 200 characters
    about: list[str]  # the result's symbols or files this memory links to


class MemoryStatus(Result):
    total: int
    by_type: dict[str, int]
    by_source: dict[str, int]
    expired: int
    prunable: int  # what `memory prune` would delete now
    dangling: list[dict[str, str]]  # {"id", "target"}: links whose code left the index
    caps: dict[str, int]
    over_cap: dict[str, int]  # types (and "project") holding more than their cap
    budget_tokens: int
    oldest: str | None
    newest: str | None


class PruneResult(Result):
    dry_run: bool
    deleted: list[MemoryItem]  # (with `dry_run`: would be deleted)
    reasons: dict[str, str]  # id → why
    remaining: int


class CaptureItem(Result):
    """One statement a capture proposed, and what became of it."""

    type: MemoryTypeName
    content: str
    tags: list[str]
    reason: str  # which rule or model proposed it
    status: Literal[
        "created", "duplicate", "merged", "skipped", "refused", "rejected", "would_keep"
    ]
    id: str | None = None
    detail: str = ""  # why it was refused or rejected


class CaptureResult(Result):
    extractor: Literal["sampling", "llm", "rules"]
    model: str | None
    dry_run: bool
    turns: int
    items: list[CaptureItem]
    provider_error: str | None = None  # why a model could not be used (rules ran instead)
