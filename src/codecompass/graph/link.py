"""The link stage: bring the graph up to date with the files the index holds.

1. Files whose facts are missing or older than the file are read from the work tree and
   their facts extracted; facts of files that left the index are dropped.
2. The files to resolve again are the changed ones plus their *dependents*: files whose
   last resolution looked at a changed file (only when what it exposes changed — its
   symbols or module-level bindings, not a function body), at a module or path that a
   changed file provides, at a tsconfig (or a config it extends) that changed, or at a
   name a changed file gained or lost (in its own repository: every name look-up names
   one). Nothing else is touched: a one-file change costs that file and the files that
   depend on it.
3. Each of those files' edges is deleted and rebuilt, a batch of files per transaction
   (which also marks the batch's changed files linked).
4. HTTP links are matched again across the workspace, then the links through OpenAPI
   operations and rpcs (`relink_interfaces`), and producers of events joined to their
   consumers; keyword and similarity edges are rebuilt for changed files; importance
   (PageRank) is recomputed.
"""

from __future__ import annotations

import json
import posixpath
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.decoding import decode_text
from codecompass.graph.angular import angular_template_calls
from codecompass.graph.aspnet import aspnet_facts
from codecompass.graph.events import event_edges, event_update, relink_events
from codecompass.graph.file_routes import file_route_facts
from codecompass.graph.go_http import go_http_facts
from codecompass.graph.http import relink_http
from codecompass.graph.index import SymbolIndex, file_key, js_base, name_key
from codecompass.graph.models import EDGE_WEIGHTS
from codecompass.graph.openapi import openapi_facts, openapi_links
from codecompass.graph.pagerank import importance_update
from codecompass.graph.requests_in_tests import requests_in_tests
from codecompass.graph.resolve import Resolver
from codecompass.graph.resolve_typed import TYPED_LANGUAGE_EDGES
from codecompass.graph.route_tables import route_table_facts
from codecompass.graph.rpc import link_rpc, rpc_facts
from codecompass.graph.rust_http import rust_http_facts
from codecompass.graph.spring import spring_facts
from codecompass.graph.spring_config import spring_config_facts
from codecompass.graph.symfony import symfony_facts
from codecompass.graph.url_tags import url_tag_facts
from codecompass.indexing.extract import extract_facts
from codecompass.indexing.facts import FACTS_VERSION
from codecompass.indexing.parse import parse_file
from codecompass.models import (
    Edge,
    EdgeQuery,
    FactsQuery,
    FactsRecord,
    LinkUpdate,
    OwnedEdges,
    SymbolQuery,
)
from codecompass.security.secrets import stored_text
from codecompass.settings import GraphSettings
from codecompass.storage import Backend
from codecompass.tokens import code_tokens

LINK_STAGES = (
    *("extract", "resolve", "http", "interfaces", "events"),
    *("keywords", "similar", "importance"),
)


@dataclass(slots=True)
class LinkStats:
    changed: int = 0  # files whose new facts were linked
    extracted: int = 0  # of which read again from the work tree (not staged by the run)
    removed: int = 0
    resolved: int = 0
    dependents: int = 0
    edges_written: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(LINK_STAGES, 0.0))
    # Files whose similarity edges wait for their new texts' vectors (`link(similar=False)`).
    similar_pending: set[tuple[str, str]] = field(default_factory=set)

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


# Edge types a file's resolution produces; keyword and similar edges are rebuilt only
# when the file itself changes, HTTP, OpenAPI, rpc and event links after every run.
RESOLVED_TYPES = (
    *("contains", "imports", "calls", "extends", "implements", "references", "package"),
    *("emits", "listens"),
)
# Files resolved per graph write: each write is one transaction, and a batch's edges are
# all the link stage holds in memory.
RESOLVE_BATCH = 256


@dataclass(frozen=True, slots=True)
class _Exposed:
    """What a file exposes to others, for telling whether its readers must re-resolve."""

    defines: tuple[str, ...]
    interface: str


def _exposed(record: FactsRecord | None, previous: bool = False) -> _Exposed | None:
    if record is None:
        return None
    if previous:
        if record.prev_defines is None or record.prev_interface is None:
            return None
        return _Exposed(record.prev_defines, record.prev_interface)
    return _Exposed(record.defines, record.interface)


def link(
    backend: Backend,
    *,
    repos: Sequence[str] | None = None,
    options: GraphSettings | None = None,
    force: set[tuple[str, str]] | None = None,
    similar: bool = True,
) -> LinkStats:
    """Update the graph for `repos` (default: all); `force` adds files to resolve.

    An index run links before it embeds, when the changed files' new texts have no
    vector yet: it passes `similar=False`, and calls `similar_edges` for
    `stats.similar_pending` once the vectors are in (the changed files' old similarity
    edges, and every edge into a symbol that vanished, are gone either way)."""
    options = options or GraphSettings()
    stats = LinkStats()
    repo_records = backend.repos.repos()
    names = list(repos) if repos is not None else [r.id for r in repo_records]
    roots = {r.id: Path(r.root) for r in repo_records}
    changed: set[tuple[str, str]] = set()
    removed: set[tuple[str, str]] = set()
    vanished: set[str] = set()  # symbol ids that left the graph (targets of similar edges)
    keys: set[tuple[str, str]] = set()
    index = SymbolIndex(backend)
    with _Clock(stats, "extract"):
        for repo in names:
            stale, gone = backend.facts.stale_files(repo, FACTS_VERSION)
            if gone:
                for record in backend.facts.facts(FactsQuery(repo, paths=gone)):
                    keys.update(_trigger_keys(index, repo, record.path, _exposed(record), None))
                    vanished.update(record.defines)
                    vanished.update(record.prev_defines or ())
                backend.edges.write_links(LinkUpdate(forget_files=[(repo, p) for p in gone]))
                removed.update((repo, p) for p in gone)
            restaged: list[FactsRecord] = []
            for item in stale:
                # Facts the index run did not stage (facts of an older extractor, an
                # index written before facts existed): read the file again. Staging keeps
                # the facts last linked as prev_*, so the change is seen like any other.
                text = _read(roots.get(repo), item.path)
                if text is None:
                    continue
                source = parse_file(item.path, text)
                facts = extract_facts(item.path, source.code, source.parsed)
                defines = backend.symbols.symbols(SymbolQuery(files=[(repo, item.path)]))
                restaged.append(
                    FactsRecord(
                        repo=repo,
                        path=item.path,
                        file_hash=item.file_hash,
                        version=FACTS_VERSION,
                        language=source.parsed.language,
                        defines=tuple(sorted(s.id for s in defines)),
                        interface=facts.interface_key(),
                        facts_json=facts.to_json(),
                    )
                )
                stats.extracted += 1
            if restaged:
                backend.facts.stage_facts(restaged)
            for staged in backend.facts.facts(FactsQuery(repo, unlinked=True)):
                old, new = _exposed(staged, previous=True), _exposed(staged)
                keys.update(_trigger_keys(index, repo, staged.path, old, new))
                if old is not None:
                    vanished.update(set(old.defines) - set(staged.defines))
                changed.add((repo, staged.path))
        stats.removed = len(removed)
        stats.changed = len(changed)
    if not changed and not removed and not force:
        return stats
    index = SymbolIndex(backend)
    resolver = Resolver(
        index,
        TYPED_LANGUAGE_EDGES,
        calls=(event_edges,),
        files=(
            *(rpc_facts, openapi_facts, file_route_facts, route_table_facts, aspnet_facts),
            spring_facts,
            spring_config_facts,
            url_tag_facts,
            go_http_facts,
            rust_http_facts,
            symfony_facts,
            requests_in_tests,
            angular_template_calls,
        ),
    )
    with _Clock(stats, "resolve"):
        dependents = backend.links.dependents(keys) - changed - removed
        stats.dependents = len(dependents)
        todo = sorted(changed | dependents | (force or set()))
        for start in range(0, len(todo), RESOLVE_BATCH):
            owned: list[OwnedEdges] = []
            for repo, path in todo[start : start + RESOLVE_BATCH]:
                index.deps = set()
                result = resolver.resolve_file(repo, path)
                deps = {d for d in index.deps if d != ("file", file_key(repo, path))}
                owned.append(
                    OwnedEdges(repo, path, RESOLVED_TYPES, result.edges, deps, result.http)
                )
                stats.edges_written += len(result.edges)
            backend.edges.write_links(LinkUpdate(owned=owned))
        stats.resolved = len(todo)
    with _Clock(stats, "http"):
        stats.edges_written += relink_http(backend)
    with _Clock(stats, "interfaces"):
        stats.edges_written += relink_interfaces(backend)
    with _Clock(stats, "events"):
        stats.edges_written += relink_events(backend)
    if options.keywords:
        with _Clock(stats, "keywords"):
            owned = [
                OwnedEdges(repo, path, ("keyword",), keyword_edges(backend, repo, path, options))
                for repo, path in sorted(changed)
            ]
            backend.edges.write_links(LinkUpdate(owned=owned))
            stats.edges_written += sum(len(o.edges) for o in owned)
    if options.similar:
        with _Clock(stats, "similar"):
            _drop_similar_edges(backend, changed | removed, vanished)
            if similar:
                stats.edges_written += similar_edges(backend, changed, options)
            else:
                stats.similar_pending = set(changed)
    if options.importance:
        with _Clock(stats, "importance"):
            update = importance_update(backend)
            if update is not None:
                backend.edges.write_links(update)
    # Only now are the changed files linked: a run killed in any step above leaves
    # them unlinked, and the next run redoes every step for them (each is idempotent).
    backend.edges.write_links(LinkUpdate(linked=sorted(changed)))
    return stats


def relink_interfaces(backend: Backend) -> int:
    """Link handlers and clients through OpenAPI operations and servers and stubs through
    rpcs again (`serves`, `rpc` and the `http` edges through an operation), after the
    HTTP route links were matched again (`relink_http`)."""
    facts = backend.links.http_facts()
    servers = sorted({f.node for f in facts if f.role == "serve"})
    methods = backend.symbols.symbols(SymbolQuery(ids=servers)) if servers else []
    by_owner = link_rpc(facts, methods)
    for owner, rows in openapi_links(backend, facts).items():
        by_owner.setdefault(owner, []).extend(rows)
    owned = [OwnedEdges(repo, path, (), rows) for (repo, path), rows in sorted(by_owner.items())]
    backend.edges.write_links(LinkUpdate(drop_types=("serves", "rpc"), owned=owned))
    return sum(len(rows) for rows in by_owner.values())


def _global_imports(exposed: _Exposed | None) -> list[str]:
    """A C# file's `global using`s, as its interface shows them."""
    if exposed is None or '"global_imports"' not in exposed.interface:
        return []
    found: list[str] = json.loads(exposed.interface)["global_imports"]
    return found


def _read(root: Path | None, path: str) -> str | None:
    if root is None:
        return None
    try:
        data = (root / path).read_bytes()
    except OSError:
        return None
    return stored_text(decode_text(data, path).text)  # as the run read it


def _trigger_keys(
    index: SymbolIndex,
    repo: str,
    path: str,
    old: _Exposed | None,
    new: _Exposed | None,
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
        keys.add(("name", name_key(repo, name)))
        keys.add(("name", name))  # as indexes before `name_key` recorded every look-up
    if old is None or new is None:
        for dotted in index.module_names(repo, path):
            keys.add(("module", dotted))
        base = path.rsplit(".", 1)[0] if path.endswith((".py", ".pyi")) else js_base(path)
        keys.add(("path", file_key(repo, base)))
        name = posixpath.basename(base)
        if name in ("__init__", "index"):
            keys.add(("path", file_key(repo, posixpath.dirname(base))))
    if (path.endswith(".cs") and _global_imports(old) != _global_imports(new)) or (
        path.endswith(".csproj")  # its `<Using Include>` items
    ):
        keys.add(("globals", file_key(repo, index.csharp_project(repo, path))))
    if path.endswith(".json"):
        keys.add(("tsconfig", file_key(repo, path)))  # a tsconfig, or a config one extends
    if posixpath.basename(path) == "package.json":
        for name, packages in index.packages().items():
            if any(p.repo == repo and p.declared_in == path for p in packages):
                keys.add(("module", f"npm:{name}"))
    return keys


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


def keyword_edges(backend: Backend, repo: str, path: str, options: GraphSettings) -> list[Edge]:
    """A few top keywords per symbol chunk: words (identifier parts) used at least twice,
    not in the symbol's own name, not stop words; ties go to the longer word."""
    symbols = {
        s.id: s
        for s in backend.symbols.symbols(SymbolQuery(files=[(repo, path)], exclude_kind="section"))
    }
    entries = [
        e
        for e in backend.chunks.chunk_entries([(repo, path)]).get((repo, path), [])
        if e.symbol_id in symbols
    ]
    texts = backend.chunks.chunks([e.id for e in entries])
    rows: list[Edge] = []
    seen: set[str] = set()
    for entry in entries:
        symbol_id = entry.symbol_id
        if symbol_id is None or symbol_id in seen or entry.id not in texts:
            continue
        seen.add(symbol_id)
        symbol = symbols[symbol_id]
        own = set(code_tokens(symbol.name))
        counts = Counter(
            t
            for t in code_tokens(texts[entry.id].text)
            if t.isalpha() and len(t) >= 4 and t not in _STOPWORDS and t not in own and "_" not in t
        )
        best = sorted(
            ((n, word) for word, n in counts.items() if n >= 2),
            key=lambda x: (-x[0], -len(x[1]), x[1]),
        )
        for n, word in best[: options.keywords_per_symbol]:
            rows.append(
                Edge(
                    source=symbol_id,
                    target=f"kw:{word}",
                    type="keyword",
                    weight=EDGE_WEIGHTS["keyword"],
                    confidence=round(min(1.0, n / 5), 4),
                    resolved=True,
                    name=word,
                    via="keyword",
                    evidence_line=symbol.start_line,
                )
            )
    return rows


def _drop_similar_edges(backend: Backend, files: set[tuple[str, str]], vanished: set[str]) -> None:
    """The similarity edges of these files, and every one into a symbol that vanished."""
    drop = LinkUpdate(
        owned=[OwnedEdges(repo, path, ("similar",)) for repo, path in sorted(files)],
        drop_targets=[("similar", sid) for sid in sorted(vanished)],
    )
    backend.edges.write_links(drop)


_SIMILAR_BATCH = 5000


def similar_edges(backend: Backend, changed: set[tuple[str, str]], options: GraphSettings) -> int:
    """Top neighbours (cosine ≥ threshold, other files) of each changed file's symbols,
    from the vectors in the embedding cache. The link stage has dropped those files'
    similarity edges (`link`, with or without `similar`)."""
    model = backend.meta.meta().get("embedder_model")
    if model is None or not changed:
        return 0
    symbols = {s.id: s for s in backend.symbols.symbols(SymbolQuery(exclude_kind="section"))}
    first: dict[str, tuple[int, str, str, str]] = {}  # symbol → its first chunk's place
    for entries in backend.chunks.chunk_entries().values():
        for e in entries:
            if e.symbol_id is None or e.symbol_id not in symbols:
                continue
            place = (e.start_line, e.repo, e.path, e.embed_key)
            if e.symbol_id not in first or place[0] < first[e.symbol_id][0]:
                first[e.symbol_id] = place
    ids: list[str] = []
    where: list[tuple[str, str, int]] = []
    order = sorted(first)
    # Filled a batch of the cache at a time: numpy's 44,000 symbols held 70 MB of cached
    # vectors, then as much again stacked.
    matrix: Any = None
    for batch in range(0, len(order), _SIMILAR_BATCH):
        symbol_ids = order[batch : batch + _SIMILAR_BATCH]
        cached = backend.cache.cached_vectors(model, [first[s][3] for s in symbol_ids])
        for symbol_id in symbol_ids:
            start, repo, path, key = first[symbol_id]
            vector = cached.get(key)
            if vector is None:
                continue
            if matrix is None:
                matrix = np.empty((len(order), len(vector)), dtype=np.float32)
            matrix[len(ids)] = vector
            ids.append(symbol_id)
            where.append((repo, path, start))
    if not ids or len(ids) > options.similar_max_nodes:
        return 0
    matrix = matrix[: len(ids)]
    wanted = [i for i, (repo, path, _) in enumerate(where) if (repo, path) in changed]
    by_owner: dict[tuple[str, str], list[Edge]] = {}
    for start in range(0, len(wanted), 256):
        part = wanted[start : start + 256]
        sims = matrix[part] @ matrix.T
        for row, i in zip(sims, part, strict=True):
            repo, path, line = where[i]
            # Few symbols pass the threshold: sorting only those, not every symbol of the
            # workspace, takes sympy's 39,000 symbols from 56 to 12 s. Same-file look-alikes
            # no longer crowd out the neighbours in other files (sympy: 124 edges more).
            above = np.flatnonzero(row >= options.similar_threshold)
            rows = by_owner.setdefault((repo, path), [])
            found = 0
            for j in above[np.lexsort((above, -row[above]))]:
                score = float(row[j])
                if found >= options.similar_top:
                    break
                if (where[j][0], where[j][1]) == (repo, path):
                    continue
                found += 1
                rows.append(
                    Edge(
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
    owned = [OwnedEdges(repo, path, (), rows) for (repo, path), rows in by_owner.items() if rows]
    backend.edges.write_links(LinkUpdate(owned=owned))
    return sum(len(o.edges) for o in owned)


def unlink_repo(backend: Backend, repo: str) -> tuple[set[tuple[str, str]], int]:
    """Drop a repository's graph; return the files of other repositories that depended
    on it (to resolve again once its files are gone) and the edges deleted."""
    index = SymbolIndex(backend)
    records = {r.path: r for r in backend.facts.facts(FactsQuery(repo))}
    keys: set[tuple[str, str]] = set()
    for path in sorted(index.repo_files(repo)):
        keys.update(_trigger_keys(index, repo, path, _exposed(records.get(path)), None))
    found = {d for d in backend.links.dependents(keys) if d[0] != repo}
    owned = backend.edges.edges(EdgeQuery(repo=repo))
    # HTTP, rpc and event links of other repositories into this one go too: event links
    # are joined again without this repository's side, HTTP, OpenAPI and rpc links
    # matched again without its facts.
    routed = [
        e
        for e in backend.edges.edges(EdgeQuery(types=["http", "event", "serves", "rpc"]))
        if e.target_repo == repo and not e.source.startswith(repo + "/")
    ]
    backend.edges.write_links(event_update(backend, forget_repo=repo))
    relink_http(backend)
    relink_interfaces(backend)
    return found, len(owned) + len(routed)
