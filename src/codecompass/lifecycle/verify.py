"""`codecompass verify [--repair]`: check an index against the files it was built from
and against itself, over the storage protocols (the same on every backend).

Checks:
- **database**: the store's own consistency check (SQLite `PRAGMA quick_check`);
- **files**: each indexed file still hashes on disk to what was indexed (so every
  active chunk still matches its file's lines), or is gone;
- **vectors**: each active chunk has exactly one vector and each vector an active
  chunk (missing, stray, doubled; an unreadable vector store);
- **edges**: each resolved edge into a file or symbol of an indexed repository points to
  one that exists;
- **lexical**: each active chunk's lexical row holds the terms its text, path and symbol
  give (`LexicalIndex.postings`), and the index holds no row of another chunk.

`--repair` re-indexes the repositories whose files changed (every file re-read; the
embedding cache spares the model), rebuilds vectors from the cache (a damaged vector
store is dropped first), relinks the files whose edges dangle, and writes the files
whose lexical rows are out of step again (taken out, then indexed: their chunks come
back with the same ids, so their vectors stay). A damaged database is
not repairable in place: the finding says how to rebuild it. The checks run again after
a repair, so the report says what is left.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codecompass.graph.link import link
from codecompass.indexing.discover import GONE, DiscoveryRules, skip_reasons
from codecompass.indexing.pipeline import file_hash_on_disk, lexical_row, reconcile_vectors
from codecompass.models import EdgeQuery, FileRemoval, SymbolQuery
from codecompass.protocols import Embedder
from codecompass.settings import GraphSettings
from codecompass.storage import Backend, damage_of
from codecompass.storage.rows import postings


@dataclass(frozen=True, slots=True)
class Workspace:
    """What verify needs of an engine (passed in, so this module does not import it)."""

    backend: Backend
    max_file_bytes: int
    graph: GraphSettings
    embedder: Callable[[], Embedder]  # loaded only when a vector must be computed
    reindex: Callable[[str, Path], object]  # (repo, root): every file read again


@dataclass(frozen=True, slots=True)
class Finding:
    check: str  # database, files, vectors, edges
    problem: str
    repairable: bool


@dataclass(slots=True)
class VerifyReport:
    findings: list[Finding] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)
    repaired: list[str] = field(default_factory=list)  # what --repair did
    remaining: list[Finding] | None = None  # after a repair: what is still wrong

    @property
    def ok(self) -> bool:
        left = self.findings if self.remaining is None else self.remaining
        return not left

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        return data


@dataclass(slots=True)
class _Found:
    findings: list[Finding] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)
    changed_repos: dict[str, Path] = field(default_factory=dict)
    vectors_broken: bool = False
    vectors_wrong: bool = False
    dangling_files: set[tuple[str, str]] = field(default_factory=set)
    lexical_files: set[tuple[str, str]] = field(default_factory=set)


def verify(ws: Workspace, *, repair: bool = False) -> VerifyReport:
    found = _check(ws)
    report = VerifyReport(found.findings, found.checked)
    if not repair or not found.findings:
        return report
    backend = ws.backend
    dim = int(backend.meta.meta().get("embedder_dim") or 0)
    for repo, root in sorted(found.changed_repos.items()):
        ws.reindex(repo, root)
        report.repaired.append(f"re-indexed {repo} (every file re-read)")
    if (found.vectors_broken or found.vectors_wrong) and dim:
        vectors = backend.vectors(dim)
        if found.vectors_broken:
            vectors.clear()
            report.repaired.append("dropped the damaged vector store")
        fixed = reconcile_vectors(backend, vectors, ws.embedder()).fixed
        report.repaired.append(f"rebuilt {fixed} vectors from the embedding cache")
    dangling = found.dangling_files
    if dangling:
        link(backend, repos=[], options=ws.graph, force=dangling)
        report.repaired.append(f"relinked {len(dangling)} files with dangling edges")
    if found.lexical_files:
        files = sorted(found.lexical_files)
        backend.files.write_files(
            [FileRemoval(repo, path, "verify_repair") for repo, path in files]
        )
        roots = {r.id: Path(r.root) for r in backend.repos.repos()}
        for repo in sorted({repo for repo, _ in files}):
            ws.reindex(repo, roots[repo])
        report.repaired.append(f"wrote the lexical rows of {len(files)} files again")
    report.remaining = _check(ws).findings
    return report


def _check(ws: Workspace) -> _Found:
    found = _Found()
    backend = ws.backend
    try:
        problems = backend.meta.integrity()
    except Exception as exc:
        damage = damage_of(exc)
        if damage is None:
            raise
        problems = [str(damage)]
    for problem in problems:
        found.findings.append(
            Finding(
                "database",
                f"{problem} (not repairable in place: move the database aside and run "
                "`codecompass index` again)",
                False,
            )
        )
    if found.findings:
        return found  # the other checks read the damaged database: say this first
    _check_files(ws, found)
    _check_vectors(ws, found)
    symbols = {s.id: s.name for s in backend.symbols.symbols(SymbolQuery())}
    _check_edges(ws, found, symbols)
    _check_lexical(ws, found, symbols)
    return found


def _check_files(ws: Workspace, found: _Found) -> None:
    backend = ws.backend
    limit = ws.max_file_bytes
    checked = 0
    for repo in backend.repos.repos():
        root = Path(repo.root)
        if not root.is_dir() or ((root / "objects").is_dir() and (root / "HEAD").is_file()):
            continue  # gone, or indexed from git objects (`--commit`): nothing to compare
        for (_, path), record in sorted(backend.files.files(repo.id).items()):
            checked += 1
            now = file_hash_on_disk(root, path, limit)
            if now == record.file_hash:
                continue
            problem = "changed on disk since indexed"
            if now is None:
                rules = DiscoveryRules(max_file_bytes=limit)
                reason = skip_reasons(root, [path], rules)[path] or GONE
                problem = "gone from disk" if reason == GONE else f"now skipped ({reason})"
            found.findings.append(Finding("files", f"{repo.id}/{path}: {problem}", True))
            found.changed_repos[repo.id] = root
    found.checked["files"] = checked


def _check_vectors(ws: Workspace, found: _Found) -> None:
    backend = ws.backend
    dim = int(backend.meta.meta().get("embedder_dim") or 0)
    active = {e.id for entries in backend.chunks.chunk_entries().values() for e in entries}
    found.checked["chunks"] = len(active)
    if not dim:
        return
    try:
        listed = backend.vectors(dim).ids()
    except Exception as exc:
        damage = damage_of(exc)
        if damage is None:
            raise
        found.findings.append(Finding("vectors", f"the vector store is unreadable: {exc}", True))
        found.vectors_broken = True
        return
    counts = Counter(listed)
    missing = len(active - set(counts))
    stray = len(set(counts) - active)
    doubled = sum(1 for cid, n in counts.items() if n > 1)
    for n, what in ((missing, "active chunks without a vector"),
                    (stray, "vectors of no active chunk"),
                    (doubled, "chunks with more than one vector")):  # fmt: skip
        if n:
            found.findings.append(Finding("vectors", f"{n} {what}", True))
            found.vectors_wrong = True
    found.checked["vectors"] = len(listed)


def _check_edges(ws: Workspace, found: _Found, symbols: dict[str, str]) -> None:
    """`symbols`: every symbol's id and simple name."""
    backend = ws.backend
    files = {f"{repo}/{path}" for repo, path in backend.files.paths()}
    edges = backend.edges.edges(EdgeQuery(resolved=True))
    found.checked["edges"] = len(edges)
    dangling: Counter[str] = Counter()
    for edge in edges:
        if not (edge.target_repo and edge.target_path):
            continue  # repositories, routes, keywords: not files or symbols
        if edge.target in symbols or edge.target in files:
            continue
        where = f"{edge.target_repo}/{edge.target_path}"
        if not edge.target.startswith(where) and where in files:
            continue  # a node of its own (`rpc:shop.Checkout/Pay`) declared in that file
        source_repo, _, rest = edge.source.partition("/")
        found.dangling_files.add((source_repo, rest.split("#", 1)[0]))
        dangling[edge.type] += 1
    for edge_type, n in sorted(dangling.items()):
        found.findings.append(
            Finding("edges", f"{n} {edge_type} edges point to a file or symbol that is gone", True)
        )


def _check_lexical(ws: Workspace, found: _Found, names: dict[str, str]) -> None:
    backend = ws.backend
    active = [e.id for entries in backend.chunks.chunk_entries().values() for e in entries]
    missing = differ = 0
    for start in range(0, len(active), LEXICAL_BATCH):
        part = active[start : start + LEXICAL_BATCH]
        stored = backend.lexical.postings(part)
        for chunk in backend.chunks.chunks(part).values():
            row = lexical_row(
                chunk.path, chunk.text, chunk.symbol, names.get(chunk.symbol_id or "")
            )
            held = stored.get(chunk.id)
            if held is None:
                missing += 1
            elif held != postings(row)[0]:
                differ += 1
            else:
                continue
            found.lexical_files.add((chunk.repo, chunk.path))
    _, indexed = backend.lexical.doc_freqs([])
    stray = indexed - (len(active) - missing)
    found.checked["lexical"] = len(active)
    for n, what in ((missing, "active chunks without a lexical row"),
                    (differ, "lexical rows that differ from their chunk's text")):  # fmt: skip
        if n:
            found.findings.append(Finding("lexical", f"{n} {what}", True))
    if stray > 0:
        found.findings.append(
            Finding(
                "lexical",
                f"{stray} lexical rows of no active chunk (not repairable in place: move the "
                "database aside and run `codecompass index` again)",
                False,
            )
        )


LEXICAL_BATCH = 500  # chunks compared per read
