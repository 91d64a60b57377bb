"""The storage conformance cases: each one drives a backend through the protocols and
returns what it read back. `test_conformance.py` runs every case on every backend and on
the in-memory reference (`storage/memory.py`) and compares the two within tolerance.

The data is a small workspace of two repositories whose chunks carry real code-aware
tokens, so BM25 has real statistics to get right.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from codecompass.hashing import hash_text
from codecompass.models import (
    AuditEntry,
    ChunkFilter,
    ChunkRecord,
    Edge,
    EdgeQuery,
    FactsQuery,
    FactsRecord,
    FileChange,
    FileContent,
    FileRecord,
    FileRemoval,
    FileWrite,
    HttpFact,
    ImportanceRow,
    LexicalRow,
    LinkUpdate,
    MemoryQuery,
    MemoryRecord,
    OwnedEdges,
    RepoRecord,
    Scope,
    SymbolQuery,
    SymbolRecord,
)
from codecompass.storage import Backend
from codecompass.tokens import code_tokens

DIM = 8
Case = Callable[[Backend], Any]

SOURCES: dict[tuple[str, str], list[tuple[str | None, str, str]]] = {
    ("api", "auth/token.py"): [
        (
            "verify_token",
            "function",
            "def verify_token(token, secret):\n    return hmac.compare_digest(token, secret)",
        ),
        (
            "TokenStore",
            "class",
            "class TokenStore:\n    def save(self, token): ...\n    def load(self, user): ...",
        ),
        (
            "TokenStore.save",
            "method",
            "def save(self, token):\n    self.tokens[token.user] = token",
        ),
        (None, "module", "import hmac\nfrom auth.models import User"),
    ],
    ("api", "auth/models.py"): [
        ("User", "class", "class User:\n    name: str\n    token_secret: str"),
        (
            "User.verify",
            "method",
            "def verify(self, token):\n    return verify_token(token, self.token_secret)",
        ),
    ],
    ("api", "docs/guide.md"): [
        ("Tokens", "section", "# Tokens\n\nCall `verify_token` before trusting a token."),
    ],
    ("web", "src/client.ts"): [
        (
            "loadUser",
            "function",
            "export async function loadUser(id) {\n  return fetch(`/users/${id}`)\n}",
        ),
        (
            "saveToken",
            "function",
            "export function saveToken(token) {\n  localStorage.setItem('token', token)\n}",
        ),
    ],
}
LANGUAGES = {"py": "python", "md": "markdown", "ts": "typescript"}


def language_of(path: str) -> str:
    return LANGUAGES[path.rsplit(".", 1)[-1]]


def chunk_of(repo: str, path: str, n: int, symbol: str | None, kind: str, text: str) -> ChunkRecord:
    start = 1 + 10 * n
    return ChunkRecord(
        id=hash_text(f"{repo}/{path}:{start}:{text}"),
        repo=repo,
        path=path,
        language=language_of(path),
        kind=kind,
        symbol=symbol,
        symbol_id=f"{repo}/{path}#{symbol}" if symbol else None,
        signature=text.split("\n", 1)[0] if symbol else "",
        start_line=start,
        end_line=start + text.count("\n"),
        header=f"{kind} {symbol}" if symbol else "",
        text=text,
        text_hash=hash_text(text),
        file_hash=hash_text(f"{repo}/{path}"),
        embed_key=hash_text(f"{kind} {symbol}\n{text}"),
        tokens=len(code_tokens(text)),
    )


def lexical_of(chunk: ChunkRecord) -> LexicalRow:
    symbol = f"{chunk.symbol} {chunk.symbol.rsplit('.', 1)[-1]}" if chunk.symbol else ""
    return LexicalRow(
        " ".join(code_tokens(symbol)),
        " ".join(code_tokens(chunk.path)),
        " ".join(code_tokens(chunk.text)),
    )


def symbols_of(chunks: list[ChunkRecord]) -> list[SymbolRecord]:
    return [
        SymbolRecord(
            id=c.symbol_id,
            repo=c.repo,
            path=c.path,
            name=c.symbol.rsplit(".", 1)[-1],
            qualified_name=c.symbol,
            kind=c.kind,
            signature=c.signature,
            doc="",
            start_line=c.start_line,
            end_line=c.end_line,
            exported=not c.symbol.startswith("_"),
            parent=c.symbol.rsplit(".", 1)[0] if "." in c.symbol else None,
            content_hash=c.text_hash,
        )
        for c in chunks
        if c.symbol and c.symbol_id
    ]


def facts_of(
    repo: str, path: str, symbols: list[SymbolRecord], interface: str = "v1"
) -> FactsRecord:
    return FactsRecord(
        repo=repo,
        path=path,
        file_hash=hash_text(f"{repo}/{path}"),
        version=1,
        language=language_of(path),
        defines=tuple(sorted(s.id for s in symbols)),
        interface=interface,
        facts_json=f'{{"language": "{language_of(path)}"}}',
    )


def file_write(repo: str, path: str, pieces: list[tuple[str | None, str, str]]) -> FileWrite:
    chunks = [chunk_of(repo, path, n, *piece) for n, piece in enumerate(pieces)]
    symbols = symbols_of(chunks)
    record = FileRecord(
        repo=repo,
        path=path,
        language=language_of(path),
        size=sum(len(c.text) for c in chunks),
        mtime_ns=1_700_000_000_000_000_000,
        file_hash=hash_text(f"{repo}/{path}"),
        line_count=max((c.end_line for c in chunks), default=0),
        parse_error=None,
        indexed_at="2026-11-20T10:00:00.000+00:00",
    )
    content = FileContent(
        symbols, chunks, [lexical_of(c) for c in chunks], facts_of(repo, path, symbols)
    )
    return FileWrite(record, content)


def vector_of(chunk_id: str) -> np.ndarray:
    rng = np.random.default_rng(int(chunk_id[:8], 16))
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def write(b: Backend, item: FileWrite) -> FileChange:
    return b.files.write_files([item])[0]


def remove(b: Backend, repo: str, path: str, reason: str) -> list[str]:
    return b.files.write_files([FileRemoval(repo, path, reason)])[0].removed


def populate(b: Backend) -> dict[tuple[str, str], list[ChunkRecord]]:
    """Two repositories, four files, their vectors; return the chunks by file."""
    b.repos.save_repo(RepoRecord("api", "/src/api"))
    b.repos.save_repo(RepoRecord("web", "/src/web"))
    out = {}
    for (repo, path), pieces in SOURCES.items():
        item = file_write(repo, path, pieces)
        write(b, item)
        assert item.content is not None
        out[(repo, path)] = list(item.content.chunks)
    chunks = [c for cs in out.values() for c in cs]
    b.vectors(DIM).write(chunks, np.stack([vector_of(c.id) for c in chunks]))
    return out


def plain(value: Any) -> Any:
    """Records as dicts, tuples as lists: a shape two backends' answers compare in."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [float(x) for x in value]
    if isinstance(value, np.floating):
        return float(value)
    return value


def close(a: Any, b: Any, rel: float = 1e-6, path: str = "") -> None:
    """Assert two plain values are equal, floats within `rel` (or 1e-9 absolute)."""
    if isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, int | float) and isinstance(b, int | float), (path, a, b)
        assert math.isclose(a, b, rel_tol=rel, abs_tol=1e-9), (path, a, b)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), (path, sorted(a), b)
        for key in a:
            close(a[key], b[key], rel, f"{path}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (path, a, b)
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            close(x, y, rel, f"{path}[{n}]")
    else:
        assert a == b, (path, a, b)


# -- the cases -------------------------------------------------------------------------
def case_file_writes_and_tombstones(b: Backend) -> Any:
    chunks = populate(b)
    api_counts = b.chunks.counts("api")
    # A new version of token.py: one chunk changed, one gone, one new.
    pieces = list(SOURCES[("api", "auth/token.py")])
    pieces[0] = (
        "verify_token",
        "function",
        "def verify_token(token, secret):\n    return token == secret",
    )
    del pieces[1]
    pieces.append(("rotate", "function", "def rotate(store):\n    store.tokens.clear()"))
    change = write(b, file_write("api", "auth/token.py", pieces))
    old = {c.id for c in chunks[("api", "auth/token.py")]}
    assert not set(change.added) & old and set(change.removed) <= old
    # The same content again: nothing added or removed.
    again = write(b, file_write("api", "auth/token.py", pieces))
    # A stat-only change touches the record, not the content.
    before = b.files.files("api")[("api", "auth/models.py")]
    write(b, FileWrite(dataclasses.replace(before, size=1, mtime_ns=7)))
    touched = b.files.files("api")[("api", "auth/models.py")]
    removed = remove(b, "api", "docs/guide.md", "file_removed")
    # A tombstoned chunk comes back to life when its id is written again.
    revived = write(b, file_write("api", "docs/guide.md", SOURCES[("api", "docs/guide.md")]))
    entries = b.chunks.chunk_entries()
    by_symbol: dict[str, list[tuple[str, int]]] = {}
    for listed in entries.values():
        for e in listed:
            if e.symbol_id is not None:
                by_symbol.setdefault(e.symbol_id, []).append((e.id, e.start_line))
    some_symbols = sorted(by_symbol)[::2]
    of_symbols = b.chunks.symbol_chunks([*some_symbols, "api/nope.py#gone", *some_symbols[:1]])
    # A symbol's chunks are the same whether read by file or by symbol.
    assert {k: [(e.id, e.start_line) for e in v] for k, v in of_symbols.items()} == {
        k: by_symbol[k] for k in some_symbols
    }
    return {
        "symbol_chunks": {k: [e.start_line for e in v] for k, v in of_symbols.items()},
        "counts_before": api_counts,
        "change": [len(change.added), len(change.removed)],
        "again": [again.added, again.removed],
        "touched": [touched.size, touched.mtime_ns, touched.file_hash == before.file_hash],
        "removed": len(removed),
        "revived": [len(revived.added), revived.removed],
        "counts_after": [b.chunks.counts("api"), b.chunks.counts("web")],
        "entries": {
            f"{k[0]}/{k[1]}": [(e.start_line, e.symbol_id) for e in v] for k, v in entries.items()
        },
        "some_entries": {
            f"{k[0]}/{k[1]}": len(v)
            for k, v in b.chunks.chunk_entries(
                [("web", "src/client.ts"), ("api", "nope.py")]
            ).items()
        },
        "chunks_active_only": sorted(b.chunks.chunks(sorted(old | set(change.added))))
        == sorted(change.added) + sorted(old - set(change.removed)),
        "files": sorted(f"{r}/{p}" for r, p in b.files.files()),
        "symbols_of_token": [
            s.qualified_name
            for s in b.symbols.symbols(SymbolQuery(files=[("api", "auth/token.py")]))
        ],
    }


def case_file_reads(b: Backend) -> Any:
    """The records of chosen paths, and the paths alone, agree with the whole listing."""
    populate(b)
    every = b.files.files()
    chosen = b.files.files("api", ["auth/token.py", "nope.py", "auth/token.py"])
    assert chosen == {("api", "auth/token.py"): every[("api", "auth/token.py")]}
    assert list(b.files.paths()) == list(every) == sorted(SOURCES)
    assert list(b.files.paths("web")) == [("web", "src/client.ts")]
    assert b.files.files("api", []) == {}
    return {
        "paths": list(b.files.paths()),
        "api_paths": list(b.files.paths("api")),
        "chosen": chosen,
        "any_repo": sorted(b.files.files(None, ["src/client.ts", "auth/models.py"])),
    }


def case_file_batches_are_all_or_nothing(b: Backend) -> Any:
    populate(b)

    def state() -> Any:
        return [
            sorted(f"{r}/{p}:{f.file_hash}" for (r, p), f in b.files.files().items()),
            {f"{k[0]}/{k[1]}": [e.id for e in v] for k, v in b.chunks.chunk_entries().items()},
            b.chunks.counts("api"),
        ]

    before = state()
    pieces = list(SOURCES[("api", "auth/token.py")])
    pieces.append(("rotate", "function", "def rotate(store):\n    store.tokens.clear()"))
    good = file_write("api", "auth/token.py", pieces)
    broken = file_write("web", "src/client.ts", [("x", "function", "function x() {}")])
    assert broken.content is not None
    # A write whose lexical rows do not match its chunks fails inside the batch.
    broken = dataclasses.replace(broken, content=dataclasses.replace(broken.content, lexical=[]))
    try:
        b.files.write_files([good, FileRemoval("api", "docs/guide.md", "file_removed"), broken])
    except ValueError:
        failed = True
    else:
        failed = False
    after_failure = state()
    changes = b.files.write_files([good, FileRemoval("api", "docs/guide.md", "file_removed")])
    return {
        "failed": failed,
        "unchanged_after_failure": after_failure == before,
        "changes": [[len(c.added), len(c.removed)] for c in changes],
        "after": state()[0],
        "counts": b.chunks.counts("api"),
    }


def case_repositories_and_runs(b: Backend) -> Any:
    populate(b)
    b.repos.save_repo(RepoRecord("api", "/moved/api"))
    b.repos.save_repo(
        RepoRecord("api", "/moved/api", last_commit="abc", last_indexed_at="2026-11-21")
    )
    b.repos.save_repo(RepoRecord("api", "/moved/api"))  # keeps the commit
    first = b.runs.start_run("api")
    second = b.runs.start_run("api")  # the first is now interrupted
    b.runs.finish_run(second, "ok", {"new": 3})
    b.runs.start_run("web")
    indexing = b.runs.indexing_now()
    runs = [(r.repo, r.status, r.stats) for r in b.runs.runs()]
    last = [(r.id == second, r.status) for r in b.runs.runs("api", last=True)]
    future = b.runs.runs(since="2999-01-01")
    deleted = b.repos.delete_repo("web")
    return {
        "repos": [plain(r) for r in b.repos.repos()],
        "first_interrupted": first != second,
        "indexing_now": indexing,
        "runs": runs,
        "last": last,
        "future": future,
        "deleted": deleted,
        "web_counts": b.chunks.counts("web"),
        "web_files": list(b.files.files("web")),
    }


def case_meta(b: Backend) -> Any:
    first = b.meta.init_meta({"embedder_model": "m1", "embedder_dim": "8"})
    second = b.meta.init_meta({"embedder_model": "m2", "format_version": "1"})
    return [first, second, b.meta.meta()]


def case_symbol_queries(b: Backend) -> Any:
    populate(b)
    s = b.symbols

    def ids(**query: Any) -> list[str]:
        return [x.id for x in s.symbols(SymbolQuery(**query))]

    return {
        "all": ids(),
        "by_id": ids(ids=["api/auth/models.py#User", "nope"]),
        "names": ids(names=["verify", "save"]),
        "qualified": ids(qualified_names=["TokenStore.save"]),
        "either": ids(names_or_qualified=["User", "TokenStore.save"]),
        "folded": ids(name_folded="USER"),
        "suffix": ids(qualified_suffix=".save"),
        "contains": ids(name_contains="oken"),
        "contains_underscore": ids(name_contains="y_t"),
        # No wildcard, escape or pattern-length rule of the query language shows through.
        "contains_wildcards": [ids(name_contains=t) for t in ("%", "_", "\\", "[a-z]*")],
        "contains_long": ids(name_contains="x" * 60_000),
        "suffix_long": ids(qualified_suffix="." + "x" * 60_000),
        "suffix_wildcard": ids(qualified_suffix="%save"),
        "prefix": ids(qualified_prefix="TokenStore."),
        "prefix_case": ids(qualified_prefix="tokenstore."),
        "prefix_wildcard": [ids(qualified_prefix=t) for t in ("%", "_", "Token%", "\\")],
        "repo": ids(repo="web"),
        "files": ids(files=[("api", "auth/models.py"), ("web", "src/client.ts")]),
        "kind": ids(kind="method"),
        "not_sections": ids(exclude_kind="section", repo="api"),
        "limit": ids(limit=2),
        "empty": ids(names=[]),
        "records": [
            plain(x) for x in s.symbols(SymbolQuery(ids=["api/auth/token.py#TokenStore.save"]))
        ],
        "names_of": [s.symbol_names(), s.symbol_names(repo="web"), s.symbol_names(kind="class")],
    }


def case_decode_errors(b: Backend) -> Any:
    """A file's decode note is stored with it, counted, kept by a stat-only write and
    cleared when the file is written again without one."""
    populate(b)
    note = "not valid UTF-8: 2 bytes read as Windows-1252 (first on line 3)"
    item = file_write("api", "auth/models.py", SOURCES[("api", "auth/models.py")])
    flagged = dataclasses.replace(item.file, decode_error=note)
    write(b, dataclasses.replace(item, file=flagged))
    stored = b.files.files("api")[("api", "auth/models.py")]
    write(b, FileWrite(dataclasses.replace(stored, size=1, mtime_ns=7)))
    touched = b.files.files("api")[("api", "auth/models.py")]
    counted = b.chunks.counts("api")
    write(b, item)
    return {
        "stored": [stored.decode_error, touched.decode_error],
        "counted": counted,
        "cleared": [b.files.files("api")[("api", "auth/models.py")].decode_error],
        "after": b.chunks.counts("api"),
    }


def case_reader_version(b: Backend) -> Any:
    """The reader version a file was stored by is kept by a stat-only write and replaced
    when the file is written again."""
    populate(b)
    item = file_write("api", "auth/models.py", SOURCES[("api", "auth/models.py")])
    write(b, dataclasses.replace(item, file=dataclasses.replace(item.file, reader_version=3)))
    stored = b.files.files("api")[("api", "auth/models.py")]
    write(b, FileWrite(dataclasses.replace(stored, size=1, mtime_ns=7)))
    touched = b.files.files("api")[("api", "auth/models.py")]
    write(b, item)
    again = b.files.files("api")[("api", "auth/models.py")]
    return [stored.reader_version, touched.reader_version, again.reader_version]


TERMS = ["token", "verify", "save", "user", "secret", "nowhere"]


def case_lexical(b: Backend) -> Any:
    populate(b)
    lex = b.lexical
    freqs = lex.doc_freqs(TERMS)
    everything = lex.match(TERMS, ChunkFilter())
    top = everything.top(50)
    all_ids = [cid for cid, _ in top]
    filtered = {
        name: dict(lex.match(TERMS, where).top(50))
        for name, where in {
            "repo": ChunkFilter(repo="api"),
            "language": ChunkFilter(language="typescript"),
            "kind": ChunkFilter(kind="method"),
            "path": ChunkFilter(path_prefix="auth/m"),
            "scopes": ChunkFilter(scopes=(Scope("api", "docs/"), Scope("web"))),
            "no_scope": ChunkFilter(scopes=()),
        }.items()
    }
    one = lex.match(["verify"], ChunkFilter()).top(3)
    return {
        "doc_freqs": freqs,
        "scores": dict(top),
        "ranked": [
            cid for cid, score in top if not any(s2 == score for c2, s2 in top if c2 != cid)
        ],
        "filtered": filtered,
        "scores_of": everything.scores(all_ids[:3] + ["absent"]),
        "one_term": dict(one),
        "nothing": lex.match(["nowhere"], ChunkFilter()).top(5),
    }


def case_lexical_after_changes(b: Backend) -> Any:
    populate(b)
    remove(b, "api", "auth/models.py", "file_removed")
    pieces = list(SOURCES[("web", "src/client.ts")]) + [
        ("verifyUser", "function", "export function verifyUser(token) {\n  return token.user\n}")
    ]
    write(b, file_write("web", "src/client.ts", pieces))
    return {
        "freqs": b.lexical.doc_freqs(TERMS),
        "scores": dict(b.lexical.match(TERMS, ChunkFilter()).top(50)),
    }


def case_lexical_postings(b: Backend) -> Any:
    chunks = populate(b)
    token = [c.id for c in chunks[("api", "auth/token.py")]]
    guide = [c.id for c in chunks[("api", "docs/guide.md")]]
    remove(b, "api", "docs/guide.md", "file_removed")  # tombstones have no lexical row
    found = b.lexical.postings([*token, *guide, "no-such-chunk"])
    return {"ids": sorted(found) == sorted(token), "postings": {k: found[k] for k in sorted(found)}}


def case_embedding_cache(b: Backend) -> Any:
    cache = b.cache
    cache.cache_vectors(
        "m", [("k1", np.full(DIM, 0.5, np.float32)), ("k2", np.arange(DIM, dtype=np.float32))]
    )
    cache.cache_vectors("m", [("k1", np.zeros(DIM, np.float32))])  # kept: the first wins
    cache.cache_vectors("other", [("k1", np.ones(DIM, np.float32))])
    return {
        "m": cache.cached_vectors("m", ["k1", "k2", "k3"]),
        "other": cache.cached_vectors("other", ["k1", "k2"]),
    }


def case_facts(b: Backend) -> Any:
    chunks = populate(b)
    models = symbols_of(chunks[("api", "auth/models.py")])
    staged_first = [
        (r.path, r.linked, r.prev_defines) for r in b.facts.facts(FactsQuery("api", unlinked=True))
    ]
    b.edges.write_links(LinkUpdate(linked=[("api", "auth/models.py"), ("api", "auth/token.py")]))
    b.facts.stage_facts([facts_of("api", "auth/models.py", models[:1], interface="v2")])
    b.facts.stage_facts([facts_of("api", "auth/models.py", models[:1], interface="v3")])
    changed = b.facts.facts(FactsQuery("api", unlinked=True))
    stale, gone = b.facts.stale_files("api", 1)
    newer, _ = b.facts.stale_files("api", 2)
    remove(b, "api", "auth/token.py", "file_removed")
    _, gone_after = b.facts.stale_files("api", 1)
    b.edges.write_links(LinkUpdate(forget_files=[("api", "auth/token.py")]))
    return {
        "staged_first": staged_first,
        "changed": [plain(r) for r in changed],
        "by_path": [
            r.path for r in b.facts.facts(FactsQuery("api", paths=["auth/token.py", "x.py"]))
        ],
        "stale": [[f.path for f in stale], gone],
        "newer_version": [f.path for f in newer],
        "gone_after": gone_after,
        "after_forget": [r.path for r in b.facts.facts(FactsQuery("api"))],
    }


def _edge(
    source: str, target: str, kind: str, conf: float = 1.0, line: int = 1, **extra: Any
) -> Edge:
    return Edge(
        source=source,
        target=target,
        type=kind,
        weight=1.0,
        confidence=conf,
        evidence_line=line,
        **extra,
    )


A = "api/auth/token.py"
M = "api/auth/models.py"


def case_graph(b: Backend) -> Any:
    populate(b)
    update = LinkUpdate(
        owned=[
            OwnedEdges(
                "api",
                "auth/token.py",
                ("calls", "imports", "contains"),
                [
                    _edge(A, f"{A}#verify_token", "contains"),
                    _edge(
                        f"{A}#TokenStore.save",
                        f"{M}#User",
                        "calls",
                        0.8,
                        3,
                        via="self",
                        name="self.user",
                    ),
                    _edge(
                        A,
                        f"{M}",
                        "imports",
                        line=2,
                        target_repo="api",
                        target_path="auth/models.py",
                    ),
                    _edge(A, "?hmac.compare_digest", "calls", 0.0, 2, resolved=False),
                ],
                deps=[("file", "api\x00auth/models.py"), ("name", "User")],
                http=[HttpFact("call", "GET", "/users/{}", 4, f"{A}#verify_token", router="?")],
            ),
            OwnedEdges(
                "api",
                "auth/models.py",
                ("calls", "contains"),
                [
                    _edge(f"{M}#User.verify", f"{A}#verify_token", "calls", 1.0, 2),
                    _edge(M, f"{M}#User", "contains"),
                ],
                deps=[("name", "verify_token")],
                http=[
                    HttpFact("route", "GET", "/users/{}", 9, f"{M}#User", router=f"{M}#router"),
                    HttpFact("router", "*", "/v1", 3, f"{M}#router"),
                    HttpFact("mount", "prepend", "/api", 3, f"{M}#router", router=f"{M}#app"),
                    HttpFact("route", "POST", "/users", 3, f"{M}#User", router=f"{M}#router"),
                ],
            ),
            OwnedEdges(
                "web",
                "src/client.ts",
                ("keyword",),
                [_edge("web/src/client.ts#loadUser", "kw:fetch", "keyword", 0.4)],
            ),
        ],
        importance=[
            ImportanceRow(f"{M}#User", "api", "class", 1.0),
            ImportanceRow(A, "api", "file", 0.25),
        ],
        importance_inputs="digest-1",
        linked=[("api", "auth/token.py")],
    )
    b.edges.write_links(update)
    e = b.edges
    ranked = b.links.rank_graph(["keyword"])

    def q(**query: Any) -> list[Any]:
        return [plain(x) for x in e.edges(EdgeQuery(**query))]

    out: dict[str, Any] = {
        "all": q(),
        "from": q(sources=[A, f"{M}#User.verify"]),
        "into": q(targets=[f"{M}#User", f"{A}#verify_token"], types=["calls"]),
        "both": q(sources=[f"{M}#User.verify"], targets=[f"{A}#verify_token", "x"]),
        "strong": q(min_confidence=0.9, exclude_types=["keyword"]),
        "resolved": q(resolved=False),
        "repo": q(repo="web"),
        "limit": q(limit=1),
        "no_types": q(types=[]),
        "in_degrees": e.in_degrees([f"{M}#User", f"{A}#verify_token", M, "absent", M]),
        "dependents": sorted(b.links.dependents([("name", "User"), ("name", "nobody")])),
        "dependents_file": sorted(
            b.links.dependents([("file", "api\x00auth/models.py"), ("name", "verify_token")])
        ),
        "http": [plain(h) for h in b.links.http_facts()],
        "importance": b.links.importance([f"{M}#User", A, "absent"]),
        "rank_graph": [ranked.nodes, sorted(ranked.edges), ranked.importance_inputs],
    }
    # Replace one file's calls only; drop by type and by target; forget a file.
    b.edges.write_links(
        LinkUpdate(
            owned=[
                OwnedEdges(
                    "api",
                    "auth/token.py",
                    ("calls",),
                    [_edge(A, f"{M}#User.verify", "calls", line=9)],
                    deps=None,
                )
            ],
            drop_types=["keyword"],
            drop_targets=[("contains", f"{M}#User")],
        )
    )
    out["after_replace"] = q()
    out["deps_kept"] = sorted(b.links.dependents([("name", "User")]))
    b.edges.write_links(LinkUpdate(forget_files=[("api", "auth/models.py")]))
    out["after_forget_file"] = q()
    out["http_after_forget"] = [h.path for h in b.links.http_facts()]
    b.edges.write_links(LinkUpdate(forget_repos=["api"]))
    out["after_forget_repo"] = q()
    out["importance_after"] = b.links.importance([f"{M}#User", A])
    # What the importance came from is unknown once a repository's importance is gone.
    out["inputs_after_forget_repo"] = b.links.rank_graph([]).importance_inputs
    return out


def case_audit(b: Backend) -> Any:
    for n, tool in enumerate(["search_code", "open_file", "search_code"]):
        b.audit.record(
            AuditEntry(
                ts=f"2026-11-2{n}T10:00:00.000+00:00",
                tool=tool,
                query_id=f"q{n}",
                elapsed_ms=1.5 * n,
                status="ok" if n != 1 else "error",
                client="test/1",
                principal="alice" if n else None,
                transport="http",
                query="token" if n == 0 else None,
                filters='{"repo": "api"}',
                result_count=n,
                evidence_count=n,
                error_code="access_denied" if n == 1 else None,
            )
        )
    return {
        "all": [plain(e) for e in b.audit.entries()],
        "since": [e.query_id for e in b.audit.entries("2026-11-21")],
    }


def case_vectors(b: Backend) -> Any:
    chunks = populate(b)
    v = b.vectors(DIM)
    flat = [c for cs in chunks.values() for c in cs]
    query = vector_of(flat[1].id)
    # Windows near (not equal to) two stored vectors: no two chunks tie at the top.
    windows = np.stack(
        [0.9 * vector_of(flat[2].id) + 0.3 * vector_of(flat[3].id), vector_of(flat[6].id) * 0.7]
    )
    windows /= np.linalg.norm(windows, axis=1, keepdims=True)
    out: dict[str, Any] = {
        "ids": sorted(v.ids()),
        "count": v.count(),
        "top": v.search(query, 3, ChunkFilter()),
        "windows": v.search(windows, 2, ChunkFilter()),
        "repo": v.search(query, 20, ChunkFilter(repo="web")),
        "language": v.search(query, 20, ChunkFilter(language="markdown")),
        "kind_path": v.search(query, 20, ChunkFilter(kind="method", path_prefix="auth/m")),
        "scopes": v.search(
            query, 20, ChunkFilter(scopes=(Scope("api", "docs/"), Scope("web", "src/c")))
        ),
        "no_scope": v.search(query, 5, ChunkFilter(scopes=())),
        "vectors_of": v.vectors_of([flat[0].id, "absent"]),
    }
    v.write([], np.zeros((0, DIM), np.float32), delete=[flat[0].id, flat[1].id])
    out["after_delete"] = sorted(v.ids())
    out["count_after_delete"] = v.count()
    v.write([], np.zeros((0, DIM), np.float32), delete=ChunkFilter(repo="web"))
    out["after_filter_delete"] = sorted(v.ids())
    v.write([flat[0]], np.stack([vector_of(flat[0].id)]))
    v.compact()
    out["after_rewrite"] = sorted(v.ids())
    out["top_after"] = v.search(query, 2, ChunkFilter())
    v.clear()
    out["after_clear"] = (v.count(), v.ids(), v.search(query, 2, ChunkFilter()))
    out["integrity"] = b.meta.integrity()
    return out


def case_graph_walks(b: Backend) -> Any:
    """The graph reader over each backend: node lookup, walks both ways, subgraphs,
    neighbours for search, symbol search and the overview."""
    from codecompass.graph.api import GraphReader
    from codecompass.security.access import Access

    _graph_for_walks(b)
    g = GraphReader(b)
    walk_out = g.traverse(A, depth=2, types=["calls", "imports", "contains"])
    walk_in = g.traverse(f"{M}#User", depth=2, direction="in", types=["calls"])
    scoped = GraphReader(b, Access("p", (Scope("api", "auth/models.py"),)))
    return {
        "resolve": [g.resolve_node("TokenStore.save"), g.resolve_node("auth/models.py")],
        "out": walk_out.model_dump(),
        "in": walk_in.model_dump(),
        "subgraph": g.subgraph([A, f"{M}#User", f"{A}#verify_token"]).model_dump(),
        "neighbors": [plain(e) for e in g.neighbors([f"{M}#User"], ["calls", "contains"])],
        "hub_neighbors": [
            plain(e) for e in g.neighbors([f"{M}#User"], ["calls", "contains"], max_in=0)
        ],
        "find": [m.model_dump() for m in g.find_symbol("verify", limit=5)],
        "overview": g.overview("api", 400).model_dump(),
        "scoped_walk": scoped.traverse(f"{M}#User", depth=2, direction="both").model_dump(),
    }


def _graph_for_walks(b: Backend) -> None:
    populate(b)
    b.edges.write_links(
        LinkUpdate(
            owned=[
                OwnedEdges(
                    "api",
                    "auth/token.py",
                    ("calls", "imports", "contains"),
                    [
                        _edge(A, f"{A}#verify_token", "contains"),
                        _edge(A, f"{A}#TokenStore", "contains"),
                        _edge(f"{A}#TokenStore", f"{A}#TokenStore.save", "contains"),
                        _edge(f"{A}#TokenStore.save", f"{M}#User", "calls", 0.8, 3),
                        _edge(A, M, "imports", line=2),
                    ],
                ),
                OwnedEdges(
                    "api",
                    "auth/models.py",
                    ("calls", "contains"),
                    [
                        _edge(M, f"{M}#User", "contains"),
                        _edge(f"{M}#User", f"{M}#User.verify", "contains"),
                        _edge(f"{M}#User.verify", f"{A}#verify_token", "calls", 1.0, 2),
                    ],
                ),
            ],
            importance=[
                ImportanceRow(f"{M}#User", "api", "class", 1.0),
                ImportanceRow(f"{A}#verify_token", "api", "function", 0.7),
                ImportanceRow(A, "api", "file", 0.5),
                ImportanceRow(M, "api", "file", 0.6),
            ],
        )
    )


# -- garbage collection ------------------------------------------------------------------
LATER = "2999-01-01T00:00:00.000+00:00"  # after every tombstone a test makes


def _tombstone_view(t: Any) -> Any:
    """A tombstone as backends agree on it (times differ by when each one ran)."""
    return [t.chunk.id, t.chunk.path, t.reason, bool(t.deleted_at)]


def case_tombstones_purged_and_restored(b: Backend) -> Any:
    chunks = populate(b)
    pieces = list(SOURCES[("api", "auth/token.py")])
    pieces[0] = ("verify_token", "function", "def verify_token(token, secret):\n    return 0")
    del pieces[1]
    write(b, file_write("api", "auth/token.py", pieces))  # two chunk_modified
    remove(b, "api", "docs/guide.md", "file_removed")  # one
    remove(b, "web", "src/client.ts", "file_renamed")  # two
    ts = b.tombstones
    stats = ts.tombstone_stats({"file_removed": LATER, "*": ""})
    listed = {reason: ts.tombstones(reason, LATER, 100) for reason in stats}
    first_page = ts.tombstones("chunk_modified", LATER, 1)
    second_page = ts.tombstones("chunk_modified", LATER, 1, after=first_page[0].chunk.id)
    freqs_before = b.lexical.doc_freqs(TERMS)
    active = chunks[("api", "auth/models.py")][0].id
    modified = [t.chunk.id for t in listed["chunk_modified"]]
    purged = ts.purge_tombstones([*modified, active, "absent"])
    after_purge = ts.tombstone_stats({})
    lexical_kept = b.lexical.doc_freqs(TERMS) == freqs_before
    active_kept = sorted(b.chunks.chunks([active])) == [active]
    restored = ts.restore_tombstones(listed["chunk_modified"] + listed["file_removed"])
    back = ts.tombstones("chunk_modified", LATER, 100)
    # Written again, a restored tombstone comes back to life like any other.
    revived = write(b, file_write("api", "auth/token.py", SOURCES[("api", "auth/token.py")]))
    return {
        "stats": {r: [c.count, c.due, c.oldest is not None] for r, c in stats.items()},
        "listed": {r: [_tombstone_view(t) for t in ts_] for r, ts_ in listed.items()},
        "pages": [[t.chunk.id for t in page] for page in (first_page, second_page)],
        "before_any": ts.tombstones("chunk_modified", "2000-01-01T00:00:00.000+00:00", 10),
        "purged": purged,
        "active_kept": active_kept,
        "lexical_kept": lexical_kept,
        "after_purge": {r: c.count for r, c in after_purge.items()},
        "restored": restored,
        "round_trip": [plain(t) for t in back] == [plain(t) for t in listed["chunk_modified"]],
        "revived": sorted(set(revived.added) & set(modified)) == sorted(modified),
        "after_revival": {r: c.count for r, c in ts.tombstone_stats({}).items()},
    }


def _at(day: int) -> str:
    """The time `day` days after 2026-01-01, as records carry times."""
    moment = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=day)
    return moment.isoformat(timespec="milliseconds")


def case_orphans_and_audit(b: Backend) -> Any:
    chunks = populate(b)
    gone_edges = [
        _edge("api/gone.py#f", f"{M}#User", "calls"),
        _edge("api/gone.py", "x", "imports"),
    ]
    b.edges.write_links(
        LinkUpdate(
            owned=[
                OwnedEdges(
                    "api",
                    "auth/token.py",
                    ("calls",),
                    [_edge(A, f"{M}#User", "calls")],
                    deps=[("name", "User")],
                ),
                OwnedEdges(
                    "api",
                    "gone.py",
                    ("calls", "imports"),
                    gone_edges,
                    deps=[("name", "User"), ("name", "X")],
                    http=[HttpFact("call", "GET", "/x", 3, "api/gone.py#f")],
                ),
                OwnedEdges("api", "docs/guide.md", ("calls",), [_edge(A, "y", "calls")]),
            ],
            importance=[
                ImportanceRow(f"{M}#User", "api", "class", 1.0),
                ImportanceRow(A, "api", "file", 0.3),
                ImportanceRow("api/gone.py", "api", "file", 0.5),
                ImportanceRow("api/gone.py#f", "api", "function", 0.2),
            ],
        )
    )
    # A removed file's facts wait for the link stage: its rows are not orphans yet.
    remove(b, "api", "docs/guide.md", "file_removed")
    b.facts.stage_facts([facts_of("old", "x.py", [])])  # a repository that is gone
    used = chunks[("api", "auth/models.py")][0].embed_key
    later = chunk_of("web", "src/later.ts", 0, "later", "function", "function later() {}")
    vec = [np.full(DIM, float(n + 1), np.float32) for n in range(4)]
    b.cache.cache_vectors(
        "m", [(used, vec[0]), ("lost-1", vec[1]), ("lost-2", vec[2]), (later.embed_key, vec[3])]
    )
    h = b.housekeeping
    first = h.orphans(_at(1), _at(1))
    removed = h.orphans(_at(1), _at(1), remove=True)  # graph rows go; unused noted at day 1
    early = h.orphans(_at(10), _at(0), remove=True)  # nothing unused since before day 0
    write(
        b,
        FileWrite(
            dataclasses.replace(
                file_write(
                    "web", "src/later.ts", [("later", "function", "function later() {}")]
                ).file
            ),
            FileContent([], [later], [lexical_of(later)]),
        ),
    )  # `later` is used again
    due = h.unused_vectors(_at(5))
    swept = h.orphans(_at(40), _at(5), remove=True)
    left = b.cache.cached_vectors("m", [used, "lost-1", "lost-2", later.embed_key])
    for n, tool in enumerate(["search_code", "open_file", "search_code"]):
        b.audit.record(
            AuditEntry(
                ts=f"2026-11-2{n}T10:00:00.000+00:00",
                tool=tool,
                query_id=f"q{n}",
                elapsed_ms=1.0,
                status="ok",
            )
        )
    old = b.housekeeping.old_audit("2026-11-21T12:00:00.000+00:00")
    gone = b.housekeeping.old_audit("2026-11-21T12:00:00.000+00:00", remove=True)
    return {
        "first": plain(first),
        "removed": plain(removed),
        "early": plain(early),
        "due": [(m, k, plain(v)) for m, k, v in due],
        "swept": plain(swept),
        "cache_left": sorted(left),
        "edges": [(e.source, e.target, e.evidence_path) for e in b.edges.edges(EdgeQuery())],
        "deps": sorted(b.links.dependents([("name", "User"), ("name", "X")])),
        "http": [h_.node for h_ in b.links.http_facts()],
        "importance": b.links.importance([f"{M}#User", A, "api/gone.py", "api/gone.py#f"]),
        "facts_old": [r.path for r in b.facts.facts(FactsQuery("old"))],
        "facts_guide": [r.path for r in b.facts.facts(FactsQuery("api", paths=["docs/guide.md"]))],
        "audit": [old, gone, [e.query_id for e in b.audit.entries()]],
        "again": plain(h.orphans(_at(41), _at(5))),
    }


# -- memories ---------------------------------------------------------------------------
TOKEN = "api/auth/token.py#verify_token"
MODELS = "api/auth/models.py"


def memory_vector(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def memory(
    n: int, type: Any = "decision", *, created: str | None = None, **fields: Any
) -> MemoryRecord:
    """Memory `mem_<n>` with every field set (vector from seed n)."""
    values: dict[str, Any] = {
        "id": f"mem_{n}",
        "type": type,
        "content": f"Memory {n}: tokens are checked in verify_token.",
        "content_hash": f"h{n}",
        "tags": ("zeta", f"t{n}", "alpha"),
        "source": "test",
        "links": (TOKEN, f"api/auth/file{n}.py"),
        "created": created or f"2026-11-2{n % 10}T10:00:00.000+00:00",
        "updated": f"2026-11-2{n % 10}T11:00:00.000+00:00",
        "last_accessed": None,
        "access_count": n,
        "salience": 0.1 * n + 0.05,
        "expires_at": None,
        "vector": memory_vector(n),
    }
    values.update(fields)
    return MemoryRecord(**values)


def memory_state(b: Backend) -> Any:
    """Every memory with its vector, as plain values."""
    return plain(b.memories.memories(MemoryQuery(with_vectors=True)))


def same_vectors(read: list[MemoryRecord], written: list[MemoryRecord]) -> bool:
    """The vectors read back are exactly the float32 vectors written."""
    by_id = {r.id: r.vector for r in read}
    return all(
        by_id[w.id] is not None
        and by_id[w.id].dtype == np.float32
        and np.array_equal(by_id[w.id], np.asarray(w.vector, np.float32))
        for w in written
    )


def case_memories_written_and_read(b: Backend) -> Any:
    written = [
        # Written out of order: two share a creation time (then by id), one has every
        # optional time set and a link in common with the others.
        memory(3, "pattern", created="2026-11-20T09:00:00.000+00:00"),
        memory(
            1,
            "error",
            last_accessed="2026-11-22T08:00:00.000+00:00",
            expires_at="2027-01-01T00:00:00.000+00:00",
            links=(MODELS, TOKEN, MODELS),
            tags=(),
        ),
        memory(2, "decision", created="2026-11-20T09:00:00.000+00:00", links=()),
        memory(4, "spec", content_hash="h1", source="", salience=1.0),
    ]
    b.memories.write_memories(written)
    everything = b.memories.memories(MemoryQuery(with_vectors=True))

    def ids(query: MemoryQuery) -> list[str]:
        return [r.id for r in b.memories.memories(query)]

    return {
        "all": plain(everything),
        "read_back_exactly": sorted(everything, key=lambda r: r.id)
        == sorted(written, key=lambda r: r.id),
        "vectors_exact": same_vectors(everything, written),
        "order": [r.id for r in everything],
        "without_vectors": [r.vector for r in b.memories.memories(MemoryQuery())],
        "without_vectors_same_fields": b.memories.memories(MemoryQuery()) == everything,
        "by_ids": ids(MemoryQuery(ids=("mem_4", "mem_1", "absent"))),
        "by_no_ids": ids(MemoryQuery(ids=())),
        "by_types": ids(MemoryQuery(types=("error", "pattern"))),
        "by_hash": ids(MemoryQuery(content_hash="h1")),
        "by_absent_hash": ids(MemoryQuery(content_hash="nope")),
        "linked_to_models": ids(MemoryQuery(linked_to=(MODELS,))),
        "linked_to_any": ids(MemoryQuery(linked_to=("api/auth/file4.py", MODELS, "nowhere"))),
        "linked_to_token": ids(MemoryQuery(linked_to=(TOKEN,))),
        "linked_to_nothing": ids(MemoryQuery(linked_to=("nowhere",))),
        "combined": plain(
            b.memories.memories(
                MemoryQuery(
                    ids=("mem_1", "mem_3", "mem_4"),
                    types=("error", "spec"),
                    content_hash="h1",
                    linked_to=(TOKEN,),
                    with_vectors=True,
                )
            )
        ),
    }


def case_memories_replaced_and_deleted(b: Backend) -> Any:
    populate(b)
    b.memories.write_memories([memory(1), memory(2), memory(3), memory(4)])
    out: dict[str, Any] = {}
    # Replaced by id with other links and a new vector: the old links are gone.
    b.memories.write_memories(
        [memory(1, "pattern", content="New wording.", links=(MODELS,), vector=memory_vector(11))]
    )
    out["old_link"] = [
        r.id for r in b.memories.memories(MemoryQuery(linked_to=("api/auth/file1.py",)))
    ]
    out["new_link"] = [r.id for r in b.memories.memories(MemoryQuery(linked_to=(MODELS,)))]
    out["replaced"] = plain(b.memories.memories(MemoryQuery(ids=("mem_1",), with_vectors=True)))
    # Written without a vector: every field changes but the vector stays.
    kept = memory(2, tags=("new",), links=(), salience=0.5, vector=None, updated="later")
    b.memories.write_memories([kept])
    [stored] = b.memories.memories(MemoryQuery(ids=("mem_2",), with_vectors=True))
    out["kept_fields"] = stored == kept
    out["kept_vector"] = same_vectors([stored], [memory(2)])
    out["kept_links"] = [r.id for r in b.memories.memories(MemoryQuery(linked_to=(TOKEN,)))]
    # Deletes (an unknown id among them) and inserts in one call, one id deleted and
    # written again.
    b.memories.write_memories(
        [memory(5, "context"), memory(3, content="Again.", vector=memory_vector(33))],
        delete=["mem_3", "mem_4", "absent"],
    )
    out["after_delete"] = memory_state(b)
    out["mem_4_links"] = [
        r.id for r in b.memories.memories(MemoryQuery(linked_to=("api/auth/file4.py",)))
    ]
    b.memories.write_memories([], delete=["mem_5"])
    b.memories.write_memories([])
    out["after_delete_only"] = [r.id for r in b.memories.memories(MemoryQuery())]
    # Memories belong to the workspace, not to a repository.
    kept_state = memory_state(b)
    out["repo_deleted"] = b.repos.delete_repo("api")
    out["repos_left"] = [r.id for r in b.repos.repos()]
    out["kept_after_repo_delete"] = memory_state(b) == kept_state
    return out


def case_memories_touched(b: Backend) -> Any:
    b.memories.write_memories([memory(1, access_count=0), memory(2, access_count=5), memory(3)])
    b.memories.touch_memories(["mem_1", "mem_2", "absent"], "2026-12-01T00:00:00.000+00:00")
    # An id repeated in one call counts once; a second call counts again.
    b.memories.touch_memories(["mem_1", "mem_1", "mem_1"], "2026-12-02T00:00:00.000+00:00")
    b.memories.touch_memories([], "2026-12-03T00:00:00.000+00:00")
    found = b.memories.memories(MemoryQuery(with_vectors=True))
    return {
        "touched": [(r.id, r.access_count, r.last_accessed) for r in found],
        "vectors_untouched": same_vectors(found, [memory(1), memory(2), memory(3)]),
        "others_untouched": [(r.updated, r.created) for r in found],
    }


def case_memories_are_copies(b: Backend) -> Any:
    """Changing a vector after writing it, or one read back, changes nothing stored."""
    record = memory(1, links=[TOKEN], tags=["a"])  # lists where tuples are due, too
    b.memories.write_memories([record])
    record.vector[:] = 0.0
    record.links.append("changed")
    [read] = b.memories.memories(MemoryQuery(with_vectors=True))
    read.vector[:] = 5.0
    [again] = b.memories.memories(MemoryQuery(with_vectors=True))
    return {
        "vector": same_vectors([again], [memory(1)]),
        "links": again.links,
        "tags": again.tags,
    }


def case_memory_writes_are_all_or_nothing(b: Backend) -> Any:
    b.memories.write_memories([memory(1), memory(2), memory(3)])
    before = memory_state(b)

    def attempt(records: list[MemoryRecord], delete: tuple[str, ...] = ()) -> Any:
        try:
            b.memories.write_memories(records, delete=delete)
        except ValueError as exc:
            return [str(exc), memory_state(b) == before]
        return "written"

    replaced = memory(1, content="Changed.", links=(), vector=memory_vector(9))
    return {
        # Fails midway: the deletion, the new memory and the replacement before the bad
        # record are undone with it.
        "new_without_vector": attempt(
            [memory(4), replaced, memory(5, vector=None)], delete=("mem_2",)
        ),
        # Deleted by the same call, so no vector is stored any more.
        "deleted_without_vector": attempt([memory(2, vector=None)], delete=("mem_2",)),
        "same_id_twice": attempt([memory(4), replaced, memory(4)]),
        "vector_not_1d": attempt(
            [memory(4), memory(5, vector=np.ones((2, DIM), np.float32))], delete=("mem_3",)
        ),
        "vector_not_finite": attempt(
            [memory(4, vector=np.full(DIM, np.nan, np.float32))], delete=("mem_3",)
        ),
        "empty_vector": attempt([memory(4, vector=np.zeros(0, np.float32))]),
        "state": memory_state(b),
    }


CASES: dict[str, Case] = {
    name.removeprefix("case_"): fn for name, fn in globals().items() if name.startswith("case_")
}
