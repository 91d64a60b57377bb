"""Plain records shared by every stage: what parsing finds and what search returns."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

SymbolKind = Literal[
    "module",
    "class",
    "function",
    "method",
    "interface",
    "type",
    "enum",
    "struct",
    "trait",
    "constant",
    "variable",
    "section",
]
ReferenceKind = Literal["call", "import", "inherit", "type", "value"]  # value: a function named
Detail = Literal["compact", "preview", "full"]


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition found in a file. Lines are 1-based and inclusive."""

    name: str
    qualified_name: str  # "Outer.Inner.method"; for sections, the heading path "A > B"
    kind: SymbolKind
    start_line: int  # first line, decorators and attached doc comments included
    end_line: int
    header_end_line: int  # last line of the signature (where the body starts)
    signature: str  # the declaration line(s) without the body, whitespace-collapsed
    doc: str = ""  # docstring / JSDoc / /// / Javadoc text, comment markers removed
    exported: bool = True  # public / exported / not underscore-private
    parent: str | None = None  # qualified name of the enclosing symbol, if any


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of a name found while parsing; resolved into graph edges later."""

    name: str  # as written: "foo", "self.bar", "pkg.mod"
    kind: ReferenceKind
    line: int
    scope: str | None = None  # qualified name of the enclosing symbol


@dataclass(slots=True)
class ParsedFile:
    """What the parser learned about one file."""

    language: str
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    error: str | None = None  # set when parsing failed and the file fell back to line windows
    # The tree-sitter tree of the parse, kept for the graph's fact extraction so that a
    # file is parsed once; the index run drops it once facts are extracted.
    tree: Any = field(default=None, repr=False, compare=False)


# -- what the index stores --------------------------------------------------------------
# One record type per concept, shared by every backend, the graph and search.


@dataclass(frozen=True, slots=True)
class RepoRecord:
    """An indexed repository of the workspace."""

    id: str
    root: str  # the work tree (or git directory) it was indexed from
    last_commit: str | None = None
    last_indexed_at: str | None = None


@dataclass(frozen=True, slots=True)
class FileRecord:
    """An indexed file; `indexed_at` is when its current content was written."""

    repo: str
    path: str
    language: str
    size: int
    mtime_ns: int
    file_hash: str
    line_count: int = 0
    parse_error: str | None = None
    indexed_at: str = ""
    # How bytes invalid in the file's encoding were read (`codecompass.decoding`), or None.
    decode_error: str | None = None
    # The `indexing.pipeline.READER_VERSION` that read it (0: a version before there was one).
    reader_version: int = 0


SHOWN_SIGNATURE_CHARS = 160  # a signature shown in a map or an answer


@dataclass(frozen=True, slots=True)
class SymbolRecord:
    """A definition as stored: node id `repo/path#Qualified.name` (`@line` when repeated)."""

    id: str
    repo: str
    path: str
    name: str
    qualified_name: str
    kind: str
    signature: str
    doc: str
    start_line: int
    end_line: int
    exported: bool
    parent: str | None
    content_hash: str

    def short_signature(self, limit: int = SHOWN_SIGNATURE_CHARS) -> str:
        """The signature on one line of at most `limit` characters: a long parameter
        list is cut (`…`), and what follows its closing bracket (the return type) is kept
        when it is short."""
        signature = self.signature
        if len(signature) <= limit:
            return signature
        close = signature.rfind(")")
        tail = signature[close:] if close > 0 else ""
        if not tail or len(tail) > limit // 4:
            return signature[: limit - 1].rstrip() + "…"
        return signature[: limit - len(tail) - 1].rstrip() + "…" + tail


# ChunkRecord and ChunkEntry are not frozen: a search builds about 2,500 of them, and a
# frozen dataclass sets each field through `object.__setattr__` (1.7 µs a record of 16
# fields against 0.2): 5% of a short query's time on sympy. Treat them as read-only.
@dataclass(slots=True)
class ChunkRecord:
    """A chunk as stored (the searchable unit)."""

    id: str
    repo: str
    path: str
    language: str
    kind: str
    symbol: str | None
    symbol_id: str | None
    signature: str
    start_line: int
    end_line: int
    header: str  # embedding header lines (kind, qualified name, …) put before the text
    text: str
    text_hash: str
    file_hash: str
    embed_key: str
    tokens: int


@dataclass(slots=True)
class ChunkEntry:
    """Where an active chunk sits, without its text: the catalog's index of chunks."""

    id: str
    repo: str
    path: str
    start_line: int
    symbol_id: str | None
    embed_key: str


@dataclass(frozen=True, slots=True)
class LexicalRow:
    """A chunk's code-aware tokens per lexical column, space-separated."""

    symbol: str
    path: str
    body: str


@dataclass(slots=True)
class Edge:
    """A relation of the code graph with its confidence and the line that proves it.
    (Mutable: resolution fills an edge in as it learns how the target was found.)

    `evidence_path` is the file owning the edge (in the source's repository);
    `target_*` locate the other side's evidence for links across files and
    repositories (an HTTP route, a package declaration, a similar symbol)."""

    source: str
    target: str
    type: str
    weight: float
    confidence: float
    resolved: bool = True
    via: str = ""  # how the target was found: import, scope, self, name, route, …
    name: str = ""  # the reference as written
    evidence_path: str | None = None
    evidence_line: int | None = None
    target_repo: str | None = None
    target_path: str | None = None
    target_line: int | None = None


@dataclass(frozen=True, slots=True)
class HttpFact:
    """An HTTP fact found while resolving a file (`graph/http.py` links them):

    - ``route``: `node` handles `method` `pattern`, declared on the router `router`
      (without the prefixes the router gets where it is mounted);
    - ``call``: `node` calls `method` `pattern`; `router` is ``?`` when the URL starts
      with a value that could not be read (a base URL from elsewhere), ``?/`` when it is
      relative, a router when the call is a request an application makes to itself
      (MockMvc's), below that router's own prefix (a context path), or ``@repo/folder``
      when only that folder's routes serve it (a Go test's request of a path alone);
    - ``mount``: the router `node` is mounted on the router `router` under `pattern`
      (``?`` when the prefix cannot be read); `method` is ``prepend`` when the prefix
      goes before the router's own, ``replace`` when it replaces it (Flask);
    - ``router``: the router `node` has its own prefix `pattern` (``APIRouter(prefix=…)``).

    A router is named after the variable it was created in, ``repo/path#name``, or
    ``repo/path`` for a module of routes (a Django URLconf).

    The same rows hold the facts of the other interfaces between services
    (`graph/openapi.py`, `graph/rpc.py`):

    - ``operation``: the OpenAPI operation `node` (a symbol of its document) is `method`
      `pattern`; `router` is its operationId;
    - ``rpc``: a ``.proto`` declares the rpc `pattern` (``shop.Checkout/PlaceOrder``),
      `node` its symbol;
    - ``serve``: `node` implements the rpc `pattern` as the code names it
      (``Checkout/PlaceOrder``, ``shop.Checkout/placeOrder``), `method` says how
      (``servicer``, ``registered``), `router` is the generated module when known;
    - ``stub``: `node` calls the rpc `pattern` through a generated client (`method`
      ``stub``, `router` as for ``serve``)."""

    role: str  # route, call, mount, router; operation; rpc, serve, stub
    method: str  # GET, POST, … or * for any
    pattern: str  # normalised path, "{}" for each parameter: /users/{}
    line: int
    node: str
    repo: str = ""  # the owning file, filled in when read back
    path: str = ""
    router: str = ""


@dataclass(frozen=True, slots=True)
class FactsRecord:
    """A file's graph facts (JSON) as staged by an index run, with what the graph was
    last linked with (`prev_*`, None for a file new to the graph)."""

    repo: str
    path: str
    file_hash: str
    version: int
    language: str
    defines: tuple[str, ...]  # symbol ids, sorted
    interface: str  # what other files can see of this one
    facts_json: str
    linked: bool = False
    prev_defines: tuple[str, ...] | None = None
    prev_interface: str | None = None


@dataclass(frozen=True, slots=True)
class OwnedEdges:
    """The edges of `types` a file owns, replaced as a whole; with the look-ups its
    resolution made (`deps`) and its HTTP facts when those are given."""

    repo: str
    path: str
    types: tuple[str, ...]
    edges: Sequence[Edge] = ()
    deps: Collection[tuple[str, str]] | None = None  # None: keep the stored ones
    http: Sequence[HttpFact] | None = None


@dataclass(frozen=True, slots=True)
class ImportanceRow:
    node: str
    repo: str
    kind: str
    importance: float


@dataclass(frozen=True, slots=True)
class RankGraph:
    """What importance is computed from (`LinkIndex.rank_graph`), as plain rows: every
    symbol node `(id, repo, kind, exported)` sorted by id, then every file node
    `(repo/path, repo, "file", False)` sorted by id, and the resolved edges of positive
    confidence asked for `(source, target, type, weight × confidence)`, in any order."""

    nodes: Sequence[tuple[str, str, str, bool]]
    edges: Sequence[tuple[str, str, str, float]]
    importance_inputs: str  # what the stored importance was computed from ("": unknown)


@dataclass(frozen=True, slots=True)
class LinkUpdate:
    """One atomic change of the graph, applied in this order: forget files and repos,
    drop edges by type or target, replace owned edges, mark facts linked, replace
    importance (when given) and record `importance_inputs` with it."""

    forget_files: Sequence[tuple[str, str]] = ()
    forget_repos: Sequence[str] = ()
    drop_types: Sequence[str] = ()  # every edge of these types
    drop_targets: Sequence[tuple[str, str]] = ()  # (type, target id)
    owned: Sequence[OwnedEdges] = ()
    linked: Sequence[tuple[str, str]] = ()
    importance: Sequence[ImportanceRow] | None = None
    importance_inputs: str = ""  # a digest of the RankGraph the importance came from


@dataclass(frozen=True, slots=True)
class FileContent:
    """What a changed file contributes besides its record, written with it."""

    symbols: Sequence[SymbolRecord]
    chunks: Sequence[ChunkRecord]  # the file's complete new chunk set
    lexical: Sequence[LexicalRow]  # one per chunk
    facts: FactsRecord | None = None


@dataclass(frozen=True, slots=True)
class FileWrite:
    """One file: the record, and its content when it changed (None: same content, a new
    size or mtime only)."""

    file: FileRecord
    content: FileContent | None = None


@dataclass(frozen=True, slots=True)
class FileRemoval:
    """A file that left the index: its chunks become tombstones with this reason."""

    repo: str
    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class FileChange:
    added: list[str]  # chunk ids new in this version
    removed: list[str]  # chunk ids tombstoned (all of a removed file's)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One audited tool call, as the audit log stores it."""

    ts: str
    tool: str
    query_id: str
    elapsed_ms: float
    status: str
    client: str | None = None
    principal: str | None = None
    transport: str | None = None
    query: str | None = None
    filters: str | None = None  # JSON
    result_count: int | None = None
    evidence_count: int | None = None
    error_code: str | None = None
    error: str | None = None
    provider_error: str | None = None


@dataclass(frozen=True, slots=True)
class RunRecord:
    id: int
    repo: str
    started_at: str
    finished_at: str | None
    status: str
    error: str | None
    stats: dict[str, Any] | None


# -- typed queries --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Scope:
    """A repository, or a path prefix of one, that a reader may see."""

    repo: str
    path_prefix: str = ""

    def covers(self, repo: str, path: str) -> bool:
        return repo == self.repo and path.startswith(self.path_prefix)


@dataclass(frozen=True, slots=True)
class ChunkFilter:
    """Which chunks a search may return: every field that is set must match, and the
    chunk must lie in one of `scopes` when that is given (a principal's access)."""

    repo: str | None = None
    path_prefix: str | None = None
    language: str | None = None
    kind: str | None = None
    scopes: tuple[Scope, ...] | None = None

    def matches(self, repo: str, path: str, language: str, kind: str) -> bool:
        return (
            (not self.repo or repo == self.repo)
            and (not self.language or language == self.language)
            and (not self.kind or kind == self.kind)
            and (not self.path_prefix or path.startswith(self.path_prefix))
            and (self.scopes is None or any(s.covers(repo, path) for s in self.scopes))
        )

    @property
    def is_empty(self) -> bool:
        return not (self.repo or self.path_prefix or self.language or self.kind) and (
            self.scopes is None
        )


@dataclass(frozen=True, slots=True)
class SymbolQuery:
    """Symbols matching every field that is set (a sequence field: any of its values).

    `name_folded` compares names and qualified names case-insensitively;
    `qualified_suffix` matches qualified names ending with it, `qualified_prefix` those
    starting with it (as written, case included); `name_contains` matches names holding
    it. Results come ordered by id, at most `limit` of them."""

    ids: Sequence[str] | None = None
    names: Sequence[str] | None = None
    qualified_names: Sequence[str] | None = None
    names_or_qualified: Sequence[str] | None = None
    name_folded: str | None = None
    qualified_suffix: str | None = None
    qualified_prefix: str | None = None
    name_contains: str | None = None
    repo: str | None = None
    files: Sequence[tuple[str, str]] | None = None
    kind: str | None = None
    exclude_kind: str | None = None
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class EdgeQuery:
    """Edges matching every field that is set, in the order they were written."""

    sources: Sequence[str] | None = None
    targets: Sequence[str] | None = None
    types: Sequence[str] | None = None
    exclude_types: Sequence[str] | None = None
    min_confidence: float | None = None
    resolved: bool | None = None
    repo: str | None = None  # the owning file's repository
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class FactsQuery:
    """Stored facts of a repository: all, these paths, or the ones not linked yet."""

    repo: str
    paths: Sequence[str] | None = None
    unlinked: bool = False


def utc_now() -> str:
    """The time records are stamped with: UTC, ISO 8601, milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# -- garbage collection -----------------------------------------------------------------
# Why a chunk became a tombstone (`delete_reason`).
CHUNK_MODIFIED = "chunk_modified"  # its file changed and the chunk is not in it any more
FILE_REMOVED = "file_removed"
FILE_RENAMED = "file_renamed"
MANUAL_CLEANUP = "manual_cleanup"  # removed by hand (no command tombstones with it yet)


@dataclass(frozen=True, slots=True)
class Tombstone:
    """A chunk kept after it left its file, until garbage collection: the record as it
    was, why and when it left, and when it had been indexed (a pre-GC backup holds
    these, and restores them exactly)."""

    chunk: ChunkRecord
    reason: str
    deleted_at: str
    indexed_at: str


@dataclass(frozen=True, slots=True)
class TombstoneCount:
    """The tombstones of one delete reason: how many, the oldest `deleted_at`, and how
    many were deleted before the cutoff asked for (due for collection)."""

    count: int
    oldest: str | None
    due: int = 0


@dataclass(frozen=True, slots=True)
class OrphanCounts:
    """Rows nothing refers to any more (see `Housekeeping.orphans`)."""

    edges: int = 0  # edges owned by a file that is gone, with no facts left to link
    deps: int = 0  # link dependencies owned likewise
    http: int = 0  # HTTP routes and calls owned likewise
    facts: int = 0  # graph facts of repositories that are gone
    nodes: int = 0  # importance rows of nodes that are neither a file nor a symbol
    cache: int = 0  # embeddings no chunk uses, unused since before the cutoff
    cache_waiting: int = 0  # embeddings no chunk uses, not yet past the cutoff

    def as_dict(self) -> dict[str, int]:
        return {
            "edges": self.edges,
            "deps": self.deps,
            "http": self.http,
            "facts": self.facts,
            "nodes": self.nodes,
            "cache": self.cache,
            "cache_waiting": self.cache_waiting,
        }


# -- semantic memory ----------------------------------------------------------------------
MemoryType = Literal["decision", "pattern", "error", "spec", "context"]
MEMORY_TYPES: tuple[MemoryType, ...] = ("decision", "pattern", "error", "spec", "context")


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One memory as stored. `links` are what it is about: symbol node ids
    (`repo/path#Qualified.name`) or files (`repo/path`). Times are ISO 8601 UTC (as
    `utc_now`). `vector` is the content's embedding (same model as the code); a record
    read without vectors, or written to keep the stored vector, has none."""

    id: str
    type: MemoryType
    content: str
    content_hash: str
    tags: tuple[str, ...] = ()
    source: str = ""
    links: tuple[str, ...] = ()
    created: str = ""
    updated: str = ""
    last_accessed: str | None = None
    access_count: int = 0
    salience: float = 1.0
    expires_at: str | None = None  # None: never
    vector: Any = field(default=None, compare=False, repr=False)  # float32 (dim,) or None


@dataclass(frozen=True, slots=True)
class MemoryQuery:
    """Which memories to read; every field set must hold (none set: all of them).
    `ids=()` is set and matches nothing; empty `types` or `linked_to` are not set."""

    ids: tuple[str, ...] | None = None
    types: tuple[str, ...] = ()  # any of these types
    content_hash: str | None = None
    linked_to: tuple[str, ...] = ()  # any of these link targets, exactly
    with_vectors: bool = False
