"""Reading the graph: find symbols, walk dependencies both ways, cut subgraphs, and
write a repository overview within a token budget. Every frontend goes through here
(via ``Engine``); search's graph expansion uses ``neighbors`` and ``importance``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Sequence

from codecompass.errors import Hint, InputError, NotFoundError
from codecompass.graph.models import EDGE_TYPES
from codecompass.indexing.languages import is_declaration_path, is_test_path
from codecompass.models import Edge, EdgeQuery, FileRecord, SymbolQuery, SymbolRecord
from codecompass.schemas import (
    GraphNode,
    GraphResult,
    NodeDetails,
    Overview,
    OverviewFile,
    OverviewSymbol,
    SymbolMatch,
)
from codecompass.security.access import FULL_ACCESS, Access
from codecompass.storage import Backend

DEFAULT_LIMIT = 200
# A symbol argument may be a node id, `repo/path#Qualified.name`, and paths run up to
# security.paths.MAX_PATH_CHARS (1,024): 2,000 leaves room for the repository and the
# qualified name, and is far below what would make a lookup slow (fuzzy matching is
# quadratic in the length) or a storage pattern too long.
MAX_SYMBOL_CHARS = 2000
MAX_CANDIDATES_SHOWN = 8
# A traversal leaves keyword and similarity edges out unless asked: they connect
# everything to everything a little.
TRAVERSE_TYPES: tuple[str, ...] = tuple(t for t in EDGE_TYPES if t not in ("keyword", "similar"))


def check_types(types: Sequence[str] | None, default: Sequence[str]) -> tuple[str, ...]:
    if types is None or len(types) == 0:
        return tuple(default)
    unknown = [t for t in types if t not in EDGE_TYPES]
    if unknown:
        raise InputError(
            f"Unknown edge type(s) {', '.join(unknown)}; use any of {', '.join(EDGE_TYPES)}."
        )
    return tuple(types)


def _symbol_text(name: str) -> str:
    """A symbol argument without surrounding blanks, refused when absurdly long."""
    text = name.strip()
    if len(text) > MAX_SYMBOL_CHARS:
        raise InputError(
            f"The symbol name is {len(text)} characters long; the limit is "
            f"{MAX_SYMBOL_CHARS}. Pass a name, a qualified name or a node id as search "
            "results show it."
        )
    return text


def estimate_tokens(text: str) -> int:
    """Tokens as an agent's model would count them, estimated as characters / 4."""
    return math.ceil(len(text) / 4)


class GraphReader:
    """One read of the graph, as one principal may see it: nodes outside its access are
    neither returned nor walked through. File and repository lists are read once."""

    def __init__(self, backend: Backend, access: Access = FULL_ACCESS) -> None:
        self.backend = backend
        self.access = access
        self._repos: list[str] | None = None
        self._files: dict[tuple[str, str], FileRecord] | None = None

    # -- nodes --------------------------------------------------------------------
    def repos(self) -> list[str]:
        if self._repos is None:
            self._repos = [
                r.id for r in self.backend.repos.repos() if self.access.allows_repo(r.id)
            ]
        return self._repos

    def _all_files(self) -> dict[tuple[str, str], FileRecord]:
        if self._files is None:
            self._files = {
                key: f for key, f in self.backend.files.files().items() if self.access.allows(*key)
            }
        return self._files

    def file_record(self, repo: str, path: str) -> FileRecord | None:
        """The indexed record of a file the caller may see (all are read once per reader)."""
        return self._all_files().get((repo, path))

    def _symbols(self, query: SymbolQuery) -> list[SymbolRecord]:
        return [
            s for s in self.backend.symbols.symbols(query) if self.access.allows(s.repo, s.path)
        ]

    def split_file_id(self, node: str) -> tuple[str, str] | None:
        """`repo/path` → (repo, path) for a file of the index, else None."""
        for repo in sorted(self.repos(), key=len, reverse=True):
            if node.startswith(repo + "/"):
                path = node[len(repo) + 1 :]
                if self.file_record(repo, path) is not None:
                    return repo, path
        return None

    def nodes(self, ids: Iterable[str]) -> dict[str, GraphNode]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, GraphNode] = {}
        importance = self.importance(wanted)
        symbol_ids = [i for i in wanted if "#" in i and not i.startswith(("?", "kw:"))]
        for s in self._symbols(SymbolQuery(ids=symbol_ids)):
            found[s.id] = GraphNode(
                id=s.id,
                kind=s.kind,
                name=s.qualified_name,
                repo=s.repo,
                path=s.path,
                start_line=s.start_line,
                end_line=s.end_line,
                importance=importance.get(s.id, 0.0),
            )
        repos = set(self.repos())
        for node in wanted:
            if node in found:
                continue
            if node.startswith("?"):
                found[node] = _bare(node, "unresolved", node[1:])
            elif node.startswith("kw:"):
                found[node] = _bare(node, "keyword", node[3:])
            elif node in repos:
                found[node] = GraphNode(
                    id=node,
                    kind="repo",
                    name=node,
                    repo=node,
                    path=None,
                    start_line=None,
                    end_line=None,
                    importance=1.0,
                )
            elif "#" in node:
                found[node] = _bare(node, "missing", node.split("#", 1)[1])
            else:
                split = self.split_file_id(node)
                if split is None:
                    found[node] = _bare(node, "missing", node)
                    continue
                repo, path = split
                record = self.file_record(repo, path)
                found[node] = GraphNode(
                    id=node,
                    kind="file",
                    name=path.rsplit("/", 1)[-1],
                    repo=repo,
                    path=path,
                    start_line=1,
                    end_line=record.line_count if record is not None else None,
                    importance=importance.get(node, 0.0),
                )
        return found

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]:
        return self.backend.links.importance(list(node_ids))

    def has_graph(self) -> bool:
        return bool(self.backend.edges.edges(EdgeQuery(limit=1)))

    # -- finding symbols ----------------------------------------------------------
    def find_symbol(
        self, name: str, *, kind: str | None = None, repo: str | None = None, limit: int = 20
    ) -> list[SymbolMatch]:
        """Exact matches (id, qualified name, simple name) first, then case-insensitive,
        then fuzzy ones; each with a score in [0, 1]."""
        query = _symbol_text(name)
        if not query:
            raise InputError("Give a symbol name, e.g. Console.print.")
        scored: dict[str, tuple[float, bool, SymbolRecord]] = {}

        def add(
            found: Iterable[SymbolRecord], score_of: Callable[[SymbolRecord], tuple[float, bool]]
        ) -> None:
            for s in found:
                score, exact = score_of(s)
                if score > scored.get(s.id, (-1.0, False, s))[0]:
                    scored[s.id] = (score, exact, s)

        def rows(**where: object) -> list[SymbolRecord]:
            return self._symbols(
                SymbolQuery(kind=kind, repo=repo, limit=2000, **where)  # type: ignore[arg-type]
            )

        add(rows(ids=[query]), lambda s: (1.0, True))
        add(rows(qualified_names=[query]), lambda s: (1.0, True))
        add(rows(names=[query]), lambda s: (0.95, True))
        if "." in query:
            add(rows(qualified_suffix="." + query), lambda s: (0.9, False))
        add(rows(name_folded=query), lambda s: (0.85, False))
        tail = query.rsplit(".", 1)[-1]
        if len(scored) < limit:
            add(
                rows(name_contains=tail),
                lambda s: (round(0.8 * _ratio(tail, s.name), 4), False),
            )
        if len(scored) < limit:
            names = self.backend.symbols.symbol_names(repo=repo, kind=kind)
            close = difflib.get_close_matches(tail, names, n=limit, cutoff=0.6)
            for match in close:
                add(rows(names=[match]), lambda s: (round(0.7 * _ratio(tail, s.name), 4), False))
        importance = self.importance(list(scored))
        ordered = sorted(
            scored.values(), key=lambda x: (-x[0], -importance.get(x[2].id, 0.0), x[2].id)
        )
        return [
            SymbolMatch(
                id=s.id,
                repo=s.repo,
                path=s.path,
                name=s.name,
                qualified_name=s.qualified_name,
                kind=s.kind,
                signature=s.signature,
                start_line=s.start_line,
                end_line=s.end_line,
                score=score,
                exact=exact,
            )
            for score, exact, s in ordered[:limit]
        ]

    def resolve_node(self, symbol: str, *, repo: str | None = None) -> str:
        """A node id from a node id, a qualified name, a simple name or a file path."""
        text = _symbol_text(symbol)
        if not text:
            raise InputError("Give a symbol: a node id, a qualified name or a name.")
        if self._symbols(SymbolQuery(ids=[text])):
            return text
        if text in self.repos() and repo in (None, text):
            return text
        split = self.split_file_id(text)
        if split is not None and repo in (None, split[0]):
            return text
        for found in (
            self._symbols(SymbolQuery(qualified_names=[text], repo=repo)),
            self._symbols(SymbolQuery(names=[text], repo=repo)),
        ):
            ids = [s.id for s in found]
            if len(ids) == 1:
                return ids[0]
            if len(ids) > 1:
                shown = "\n  ".join(ids[:MAX_CANDIDATES_SHOWN])
                more = (
                    f"\n  … {len(ids) - MAX_CANDIDATES_SHOWN} more"
                    if len(ids) > MAX_CANDIDATES_SHOWN
                    else ""
                )
                raise InputError(
                    f"{text!r} is ambiguous; {len(ids)} symbols match:\n  {shown}{more}\n"
                    "Pass one of these ids, or a qualified name."
                )
        files = [key for key in self._all_files() if key[1] == text and repo in (None, key[0])]
        if len(files) == 1:
            return f"{files[0][0]}/{files[0][1]}"
        if len(files) > 1:
            listed = ", ".join(f"{r}/{p}" for r, p in files)
            raise InputError(f"{text!r} is a file of several repositories ({listed}); name one.")
        raise NotFoundError(
            f"Unknown symbol {text!r}.",
            Hint(
                cli=f"Find its exact name with `codecompass symbol {text}`.",
                mcp=f"Find its exact name with find_symbol (name={text!r}).",
            ),
        )

    # -- walking ------------------------------------------------------------------------
    def traverse(
        self,
        start: str,
        *,
        depth: int = 2,
        types: Sequence[str] | None = None,
        direction: str = "out",
        min_confidence: float = 0.0,
        repo: str | None = None,
        limit: int = DEFAULT_LIMIT,
        default_types: Sequence[str] = TRAVERSE_TYPES,
    ) -> GraphResult:
        """Breadth-first from `start`, returning every edge followed and the path from
        the root to each node reached. `limit` caps the nodes (the root included)."""
        if direction not in ("out", "in", "both"):
            raise InputError(f"direction must be out, in or both, not {direction!r}.")
        if depth < 0:
            raise InputError("depth must be 0 or more.")
        edge_types = check_types(types, default_types)
        root = self.resolve_node(start, repo=None)
        parent: dict[str, str | None] = {root: None}
        edges: list[Edge] = []
        seen_edges: set[tuple[str, str, str, int | None]] = set()
        frontier = [root]
        truncated = False
        for _ in range(depth):
            if not frontier:
                break
            found: list[tuple[Edge, str]] = []
            if direction in ("out", "both"):
                found += [
                    (e, e.target)
                    for e in self._edges("source", frontier, edge_types, min_confidence)
                ]
            if direction in ("in", "both"):
                found += [
                    (e, e.source)
                    for e in self._edges("target", frontier, edge_types, min_confidence)
                ]
            found.sort(key=lambda x: (-x[0].confidence * x[0].weight, x[0].type, x[1]))
            others = self.nodes(o for _, o in found) if repo else {}
            next_frontier: list[str] = []
            for edge, other in found:
                if not self.access.allows_node(other):
                    continue  # never shown, never walked through
                if repo is not None:
                    node = others.get(other)
                    if node is not None and node.repo not in (None, repo):
                        continue
                key = (edge.source, edge.target, edge.type, edge.evidence_line)
                if other not in parent:
                    if len(parent) >= limit:
                        truncated = True
                        continue
                    parent[other] = edge.source if other == edge.target else edge.target
                    next_frontier.append(other)
                if key not in seen_edges:
                    seen_edges.add(key)
                    edges.append(edge)
            frontier = next_frontier
        return self._result(root, parent, edges, truncated)

    def _result(
        self,
        root: str,
        parent: dict[str, str | None],
        edges: list[Edge],
        truncated: bool,
    ) -> GraphResult:
        nodes = self.nodes(parent)
        paths: list[list[str]] = []
        for node in parent:
            if node == root:
                continue
            path = [node]
            step = parent[node]
            while step is not None:
                path.append(step)
                step = parent[step]
            paths.append(list(reversed(path)))
        return GraphResult(
            root=root,
            nodes=[nodes[n] for n in parent],
            edges=edges,
            paths=paths,
            truncated=truncated,
        )

    def _edges(
        self, column: str, ids: Sequence[str], types: Sequence[str], min_confidence: float
    ) -> list[Edge]:
        ends = {"sources": list(ids)} if column == "source" else {"targets": list(ids)}
        return self.backend.edges.edges(
            EdgeQuery(types=list(types), min_confidence=min_confidence, **ends)  # type: ignore[arg-type]
        )

    def subgraph(
        self, ids: Sequence[str], *, limit: int = DEFAULT_LIMIT, skip_unknown: bool = False
    ) -> GraphResult:
        """The given nodes (up to `limit`) and every edge between them; with
        `skip_unknown`, ids that name no node are left out instead of refused."""
        resolved = list(dict.fromkeys(self._resolved(ids, skip_unknown)))
        truncated = len(resolved) > limit
        kept = resolved[:limit]
        members = set(kept)
        edges = [e for e in self._edges("source", kept, EDGE_TYPES, 0.0) if e.target in members]
        nodes = self.nodes(kept)
        root = kept[0] if kept else ""
        return GraphResult(
            root=root, nodes=[nodes[n] for n in kept], edges=edges, paths=[], truncated=truncated
        )

    def details(self, node: str, *, limit: int = 50) -> NodeDetails:
        """A node with its signature, doc and edges in and out (the `limit` strongest
        each way; unresolved references and keyword edges included, as they are
        evidence too)."""
        node_id = self.resolve_node(node)
        symbol = next(iter(self._symbols(SymbolQuery(ids=[node_id]))), None)
        visible = [
            [e for e in self._edges(column, [node_id], EDGE_TYPES, 0.0) if self._shows(e)]
            for column in ("target", "source")
        ]
        strongest = [
            sorted(edges, key=lambda e: (-e.confidence * e.weight, e.type, e.source, e.target))[
                :limit
            ]
            for edges in visible
        ]
        ends = {e.source for e in strongest[0]} | {e.target for e in strongest[1]}
        return NodeDetails(
            node=self.nodes([node_id])[node_id],
            signature=symbol.signature if symbol else "",
            doc=symbol.doc if symbol else "",
            in_edges=strongest[0],
            out_edges=strongest[1],
            in_total=len(visible[0]),
            out_total=len(visible[1]),
            neighbours={n.id: n.name for n in self.nodes(sorted(ends)).values()},
        )

    def _shows(self, edge: Edge) -> bool:
        return self.access.allows_node(edge.source) and self.access.allows_node(edge.target)

    def _resolved(self, ids: Sequence[str], skip_unknown: bool) -> Iterable[str]:
        for node in ids:
            try:
                yield self.resolve_node(node)
            except (InputError, NotFoundError):
                if not skip_unknown:
                    raise

    # -- search's view ------------------------------------------------------------------
    def neighbors(self, node_ids: Sequence[str], edge_types: Sequence[str]) -> list[Edge]:
        """Resolved edges touching any of `node_ids`, either direction."""
        types = [t for t in edge_types if t in EDGE_TYPES]
        if not node_ids or not types:
            return []
        seen: set[tuple[str, str, str]] = set()
        out: list[Edge] = []
        for column in ("source", "target"):
            for edge in self._edges(column, list(node_ids), types, 0.0):
                key = (edge.source, edge.target, edge.type)
                if not edge.resolved or key in seen:
                    continue
                if not (
                    self.access.allows_node(edge.source) and self.access.allows_node(edge.target)
                ):
                    continue
                seen.add(key)
                out.append(edge)
        return out

    # -- overview -----------------------------------------------------------------------
    def overview(self, repo: str, budget_tokens: int = 2000) -> Overview:
        """The most important files, and in each its most important symbols with their
        signatures, until the token budget is spent: a map to read before anything else."""
        if budget_tokens < 50:
            raise InputError("budget_tokens must be at least 50.")
        every_symbol = self._symbols(SymbolQuery(repo=repo))
        symbols = [s for s in every_symbol if s.kind != "section"]
        files = [path for (r, path) in self._all_files() if r == repo]
        by_file: dict[str, list[SymbolRecord]] = {}
        for s in symbols:
            by_file.setdefault(s.path, []).append(s)
        stored = self.importance([s.id for s in symbols] + [f"{repo}/{path}" for path in by_file])
        # Shown relative to the repository's top file and top symbol, each 1.0.
        importance = _relative(stored, {f"{repo}/{p}" for p in by_file})
        sections = len(every_symbol) - len(symbols)
        text = (
            f"# {repo}: {len(files)} files, {len(every_symbol)} symbols ({len(symbols)} in "
            f"code, {sections} document sections). Most important first (PageRank over "
            "calls, imports, inheritance, references; tests and type declarations last).\n"
        )
        ranked = sorted(
            by_file,
            key=lambda p: (
                is_test_path(p) or is_declaration_path(p),
                -importance.get(f"{repo}/{p}", 0.0),
                p,
            ),
        )
        shown: list[OverviewFile] = []
        for path in ranked:
            score = importance.get(f"{repo}/{path}", 0.0)
            best = sorted(by_file[path], key=lambda s: (-importance.get(s.id, 0.0), s.start_line))[
                :10
            ]
            chosen = sorted(best, key=lambda s: s.start_line)
            lines = [f"{path}  [{score:.2f}]"]
            for s in chosen:
                indent = "  " * (1 + s.qualified_name.count(".") if s.parent else 1)
                lines.append(f"{indent}{s.signature or f'{s.kind} {s.name}'}  :{s.start_line}")
            block = "\n".join(lines) + "\n"
            if estimate_tokens(text + block) > budget_tokens:
                if shown:
                    break
                block = block[: max(0, (budget_tokens - estimate_tokens(text)) * 4)]
            text += block
            shown.append(
                OverviewFile(
                    path=path,
                    importance=round(score, 4),
                    symbols=[
                        OverviewSymbol(
                            id=s.id,
                            name=s.qualified_name,
                            kind=s.kind,
                            signature=s.signature,
                            line=s.start_line,
                            importance=round(importance.get(s.id, 0.0), 4),
                        )
                        for s in chosen
                    ],
                )
            )
        return Overview(repo=repo, text=text, tokens=estimate_tokens(text), files=shown)


def _relative(scores: dict[str, float], files: set[str]) -> dict[str, float]:
    """Files scaled by the best file, symbols by the best symbol: a repository's top
    file reads 1.0 even when its symbols hold most of the rank."""
    best_file = max((v for k, v in scores.items() if k in files), default=0.0)
    best_symbol = max((v for k, v in scores.items() if k not in files), default=0.0)
    out: dict[str, float] = {}
    for node, value in scores.items():
        top = best_file if node in files else best_symbol
        out[node] = value / top if top > 0 else 0.0
    return out


def _bare(node: str, kind: str, name: str) -> GraphNode:
    """A node the index knows nothing more about (unresolved, keyword, missing)."""
    return GraphNode(
        id=node,
        kind=kind,
        name=name,
        repo=None,
        path=None,
        start_line=None,
        end_line=None,
        importance=0.0,
    )


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()
