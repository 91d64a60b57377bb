"""The link stage: bring the graph up to date with the files the index holds.

1. Files whose facts are missing or older than the file are read from the work tree and
   their facts extracted; facts of files that left the index are dropped.
2. The files to resolve again are the changed ones plus their *dependents*: files whose
   last resolution looked at a changed file (only when what it exposes changed — its
   symbols or module-level bindings, not a function body), at a module or path that a
   changed file provides, or at a name a changed file gained or lost. Nothing else is
   touched: a one-file change costs that file and the files that depend on it.
3. Each of those files' edges is deleted and rebuilt, in one transaction.
4. HTTP links are matched again across the workspace; keyword and similarity edges are
   rebuilt for changed files; importance (PageRank) is recomputed.
"""

from __future__ import annotations

import posixpath
import sqlite3
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.graph import store as gstore
from codecompass.graph.extract import DocSymbol, extract_facts
from codecompass.graph.facts import FACTS_VERSION, FileFacts
from codecompass.graph.index import SymbolIndex, file_key, js_base
from codecompass.graph.models import EDGE_WEIGHTS
from codecompass.graph.pagerank import compute_importance
from codecompass.graph.resolve import EdgeRow, Resolver, paths_match
from codecompass.hashing import normalize_text
from codecompass.search.tokens import code_tokens
from codecompass.settings import GraphSettings
from codecompass.storage.sqlite import MetaStore

LINK_STAGES = ("extract", "resolve", "http", "keywords", "similar", "importance")


@dataclass(slots=True)
class LinkStats:
    changed: int = 0  # files whose new facts were linked
    extracted: int = 0  # of which read again from the work tree (not staged by the run)
    removed: int = 0
    resolved: int = 0
    dependents: int = 0
    edges_written: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(LINK_STAGES, 0.0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "changed": self.changed,
            "extracted": self.extracted,
            "removed": self.removed,
            "resolved": self.resolved,
            "dependents": self.dependents,
            "edges_written": self.edges_written,
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
        }


class _Clock:
    def __init__(self, stats: LinkStats, stage: str) -> None:
        self.stats, self.stage = stats, stage

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.stats.seconds[self.stage] += time.perf_counter() - self.start


def stage(
    store: MetaStore,
    repo: str,
    path: str,
    *,
    language: str,
    file_hash: str,
    facts: FileFacts,
    defines: Sequence[str],
) -> None:
    """Called by the index run for each file it writes: keep its facts for `link`."""
    gstore.stage_facts(
        store.conn,
        repo,
        path,
        file_hash=file_hash,
        version=FACTS_VERSION,
        language=language,
        defines=sorted(defines),
        interface=facts.interface_key(),
        facts_json=facts.to_json(),
    )


def link(
    store: MetaStore,
    *,
    repos: Sequence[str] | None = None,
    options: GraphSettings | None = None,
    force: set[tuple[str, str]] | None = None,
) -> LinkStats:
    """Update the graph for `repos` (default: all); `force` adds files to resolve."""
    options = options or GraphSettings()
    stats = LinkStats()
    conn = store.conn
    names = list(repos) if repos is not None else [r["id"] for r in store.repos()]
    roots = {r["id"]: Path(r["root"]) for r in store.repos()}
    changed: set[tuple[str, str]] = set()
    removed: set[tuple[str, str]] = set()
    keys: set[tuple[str, str]] = set()
    index = SymbolIndex(conn)
    with _Clock(stats, "extract"), store.transaction():
        for repo in names:
            stale, gone = gstore.stale_files(conn, repo, FACTS_VERSION)
            for path in gone:
                meta = gstore.facts_meta(conn, repo, path)
                keys.update(_trigger_keys(index, repo, path, meta, None))
                gstore.forget_file(conn, repo, path)
                removed.add((repo, path))
            for item in stale:
                # Facts the index run did not stage (a crash between its writes, or
                # facts of an older extractor): read the file again. Staging keeps the
                # facts last linked as prev_*, so the change is seen like any other.
                text = _read(roots.get(repo), item.path)
                if text is None:
                    continue
                docs = [
                    DocSymbol(int(start), str(doc))
                    for start, doc in conn.execute(
                        "SELECT start_line, doc FROM symbols WHERE repo = ? AND path = ? "
                        "AND doc != ''",
                        (repo, item.path),
                    )
                ]
                facts = extract_facts(item.path, item.language, text, docs)
                defines = [
                    str(r[0])
                    for r in conn.execute(
                        "SELECT id FROM symbols WHERE repo = ? AND path = ? ORDER BY id",
                        (repo, item.path),
                    )
                ]
                stage(
                    store,
                    repo,
                    item.path,
                    language=item.language,
                    file_hash=item.file_hash,
                    facts=facts,
                    defines=defines,
                )
                stats.extracted += 1
            for staged in gstore.staged_files(conn, repo):
                keys.update(_trigger_keys(index, repo, staged.path, staged.old, staged.new))
                changed.add((repo, staged.path))
        stats.removed = len(removed)
        stats.changed = len(changed)
    if not changed and not removed and not force:
        return stats
    index = SymbolIndex(conn)
    resolver = Resolver(index)
    with _Clock(stats, "resolve"), store.transaction():
        dependents = gstore.dependents(conn, keys) - changed - removed
        stats.dependents = len(dependents)
        todo = sorted(changed | dependents | (force or set()))
        for repo, path in todo:
            index.deps = set()
            result = resolver.resolve_file(repo, path)
            deps = {d for d in index.deps if d != ("file", file_key(repo, path))}
            gstore.replace_resolution(conn, repo, path, result.edges, deps, result.http)
            stats.edges_written += len(result.edges)
        for repo, path in changed:
            gstore.mark_linked(conn, repo, path)
        stats.resolved = len(todo)
    with _Clock(stats, "http"), store.transaction():
        stats.edges_written += relink_http(conn)
    if options.keywords:
        with _Clock(stats, "keywords"), store.transaction():
            for repo, path in sorted(changed):
                rows = keyword_edges(conn, repo, path, options.keywords_per_symbol)
                gstore.delete_owned(conn, repo, path, ("keyword",))
                gstore.insert_edges(conn, repo, path, rows)
                stats.edges_written += len(rows)
    if options.similar:
        with _Clock(stats, "similar"), store.transaction():
            stats.edges_written += similar_edges(conn, store, changed, removed, options)
    if options.importance:
        with _Clock(stats, "importance"), store.transaction():
            gstore.write_importance(conn, compute_importance(conn))
    return stats


def _read(root: Path | None, path: str) -> str | None:
    if root is None:
        return None
    try:
        data = (root / path).read_bytes()
    except OSError:
        return None
    return normalize_text(data.decode("utf-8", errors="replace"))


def _trigger_keys(
    index: SymbolIndex,
    repo: str,
    path: str,
    old: gstore.FactsMeta | None,
    new: gstore.FactsMeta | None,
) -> set[tuple[str, str]]:
    """Dependency keys whose holders must be resolved again after this file changed:
    readers of the file when what it exposes changed, look-ups of names it gained or
    lost, and look-ups of its module names and paths when it appeared or vanished."""
    keys: set[tuple[str, str]] = set()
    old_ids = set(old.defines) if old is not None else set()
    new_ids = set(new.defines) if new is not None else set()
    if old is None or new is None or old.interface != new.interface or old_ids != new_ids:
        keys.add(("file", file_key(repo, path)))
    for sid in old_ids ^ new_ids:
        name = sid.split("#", 1)[-1].split("@", 1)[0].rsplit(".", 1)[-1]
        keys.add(("name", name))
    if old is None or new is None:
        for dotted in index.module_names(repo, path):
            keys.add(("module", dotted))
        base = path.rsplit(".", 1)[0] if path.endswith((".py", ".pyi")) else js_base(path)
        keys.add(("path", file_key(repo, base)))
        name = posixpath.basename(base)
        if name in ("__init__", "index"):
            keys.add(("path", file_key(repo, posixpath.dirname(base))))
    if posixpath.basename(path) == "package.json":
        for name, packages in index.packages().items():
            if any(p.repo == repo and p.declared_in == path for p in packages):
                keys.add(("module", f"npm:{name}"))
    return keys


def relink_http(conn: sqlite3.Connection) -> int:
    """Match every HTTP client call with a literal path to the routes that fit it."""
    conn.execute("DELETE FROM edges WHERE type = 'http'")
    facts = gstore.http_facts(conn)
    routes = [f for f in facts if f[2] == "route"]
    calls = [f for f in facts if f[2] == "call"]
    rows: list[tuple[str, str, EdgeRow]] = []
    for c_repo, c_path, _, c_method, c_pattern, c_line, c_node in calls:
        for r_repo, r_path, _, r_method, r_pattern, r_line, r_node in routes:
            score = paths_match(r_pattern, c_pattern)
            if score <= 0:
                continue
            if "*" not in (r_method, c_method) and r_method != c_method:
                continue
            if "*" in (r_method, c_method):
                score = min(score, 0.7)
            row = EdgeRow(
                source=c_node,
                target=r_node,
                type="http",
                weight=EDGE_WEIGHTS["http"],
                confidence=score,
                resolved=True,
                name=f"{c_method} {c_pattern}",
                via="route",
                evidence_line=c_line,
                target_repo=r_repo,
                target_path=r_path,
                target_line=r_line,
            )
            rows.append((c_repo, c_path, row))
    for repo, path, row in rows:
        gstore.insert_edges(conn, repo, path, [row])
    return len(rows)


# Words too common in code to say anything about a symbol.
_STOPWORDS = frozenset(
    """
    self this that with from import return def class function const let var none null true
    false else elif while for the and not are was were has have had but can will would
    should could into onto than then when what where which who why how all any each some
    such only also just like more most other same very your you our its their there here
    args kwargs param params returns value values type types data item items list dict
    string str int bool float object get set new async await public private protected static
    void final override super init main test tests name names path file files line lines
    text result results default pass raise error errors except try catch throw isinstance
    len print print_function
    """.split()  # noqa: SIM905
)


def keyword_edges(conn: sqlite3.Connection, repo: str, path: str, per_symbol: int) -> list[EdgeRow]:
    """A few top keywords per symbol chunk: words (identifier parts) used at least twice,
    not in the symbol's own name, not stop words; ties go to the longer word."""
    rows: list[EdgeRow] = []
    seen: set[str] = set()
    cur = conn.execute(
        "SELECT c.symbol_id, c.text, s.name, s.start_line FROM chunks c JOIN symbols s "
        "ON s.id = c.symbol_id WHERE c.repo = ? AND c.path = ? AND c.status = 'active' "
        "AND s.kind != 'section' ORDER BY c.start_line",
        (repo, path),
    )
    for symbol_id, text, name, start in cur:
        if symbol_id in seen:
            continue
        seen.add(symbol_id)
        own = set(code_tokens(name))
        counts = Counter(
            t
            for t in code_tokens(text)
            if t.isalpha() and len(t) >= 4 and t not in _STOPWORDS and t not in own and "_" not in t
        )
        best = sorted(
            ((n, word) for word, n in counts.items() if n >= 2),
            key=lambda x: (-x[0], -len(x[1]), x[1]),
        )
        for n, word in best[:per_symbol]:
            rows.append(
                EdgeRow(
                    source=symbol_id,
                    target=f"kw:{word}",
                    type="keyword",
                    weight=EDGE_WEIGHTS["keyword"],
                    confidence=round(min(1.0, n / 5), 4),
                    resolved=True,
                    name=word,
                    via="keyword",
                    evidence_line=int(start),
                )
            )
    return rows


def similar_edges(
    conn: sqlite3.Connection,
    store: MetaStore,
    changed: set[tuple[str, str]],
    removed: set[tuple[str, str]],
    options: GraphSettings,
) -> int:
    """Top neighbours (cosine ≥ threshold, other files) of each changed file's symbols,
    from the vectors in the embedding cache; edges into symbols that vanished go too."""
    for repo, path in sorted(changed | removed):
        gstore.delete_owned(conn, repo, path, ("similar",))
    for repo, path in sorted(changed):
        conn.execute(
            "DELETE FROM edges WHERE type = 'similar' AND target_repo = ? AND target_path = ? "
            "AND target NOT IN (SELECT id FROM symbols WHERE repo = ? AND path = ?)",
            (repo, path, repo, path),
        )
    for repo, path in sorted(removed):
        conn.execute(
            "DELETE FROM edges WHERE type = 'similar' AND target_repo = ? AND target_path = ?",
            (repo, path),
        )
    model = store.get_meta("embedder_model")
    if model is None or not changed:
        return 0
    cur = conn.execute(
        "SELECT c.symbol_id, c.repo, c.path, c.start_line, e.vector FROM chunks c "
        "JOIN symbols s ON s.id = c.symbol_id "
        "JOIN embeddings e ON e.model = ? AND e.key = c.embed_key "
        "WHERE c.status = 'active' AND s.kind != 'section' ORDER BY c.symbol_id, c.start_line",
        (model,),
    )
    ids: list[str] = []
    where: list[tuple[str, str, int]] = []
    vectors: list[Any] = []
    for symbol_id, repo, path, start, blob in cur:
        if ids and ids[-1] == symbol_id:
            continue
        ids.append(symbol_id)
        where.append((repo, path, int(start)))
        vectors.append(np.frombuffer(blob, dtype=np.float32))
        if len(ids) > options.similar_max_nodes:
            return 0
    if not ids:
        return 0
    matrix = np.vstack(vectors)
    wanted = [i for i, (repo, path, _) in enumerate(where) if (repo, path) in changed]
    written = 0
    for start in range(0, len(wanted), 256):
        part = wanted[start : start + 256]
        sims = matrix[part] @ matrix.T
        for row, i in zip(sims, part, strict=True):
            repo, path, line = where[i]
            order = np.argsort(-row)[: options.similar_top + 16]
            rows: list[EdgeRow] = []
            for j in order:
                score = float(row[j])
                if score < options.similar_threshold or len(rows) >= options.similar_top:
                    break
                if (where[j][0], where[j][1]) == (repo, path):
                    continue
                rows.append(
                    EdgeRow(
                        source=ids[i],
                        target=ids[j],
                        type="similar",
                        weight=EDGE_WEIGHTS["similar"],
                        confidence=round(score, 4),
                        resolved=True,
                        name="",
                        via="embedding",
                        evidence_line=line,
                        target_repo=where[j][0],
                        target_path=where[j][1],
                        target_line=where[j][2],
                    )
                )
            gstore.insert_edges(conn, repo, path, rows)
            written += len(rows)
    return written


def unlink_repo(store: MetaStore, repo: str) -> tuple[set[tuple[str, str]], int]:
    """Drop a repository's graph; return the files of other repositories that depended
    on it (to resolve again once its files are gone) and the edges deleted."""
    conn = store.conn
    index = SymbolIndex(conn)
    keys: set[tuple[str, str]] = set()
    for path in sorted(index.repo_files(repo)):
        meta = gstore.facts_meta(conn, repo, path)
        keys.update(_trigger_keys(index, repo, path, meta, None))
    with store.transaction():
        found = {d for d in gstore.dependents(conn, keys) if d[0] != repo}
        edges = gstore.forget_repo(conn, repo)
    return found, edges
