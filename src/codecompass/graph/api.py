"""Reading the graph: find symbols, walk dependencies both ways, cut subgraphs, and
write a repository overview within a token budget. Every frontend goes through here
(via ``Engine``); the search's graph expansion uses ``neighbors`` and ``importance``.
"""

from __future__ import annotations

import difflib
import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from codecompass.errors import InputError, NotFoundError
from codecompass.graph.index import SYM_COLUMNS, Sym, sym_from_row
from codecompass.graph.models import (
    EDGE_TYPES,
    GraphEdge,
    GraphNode,
    GraphResult,
    Overview,
    SymbolMatch,
)
from codecompass.search.expand import EdgeRef

DEFAULT_LIMIT = 200
MAX_CANDIDATES_SHOWN = 8
# A traversal leaves keyword and similarity edges out unless asked: they connect
# everything to everything a little.
TRAVERSE_TYPES: tuple[str, ...] = tuple(t for t in EDGE_TYPES if t not in ("keyword", "similar"))
_EDGE_SELECT = (
    "SELECT source, target, type, weight, confidence, evidence_path, evidence_line, resolved, "
    "via, target_path, target_line FROM edges"
)


def check_types(types: Sequence[str] | None, default: Sequence[str]) -> tuple[str, ...]:
    if types is None or len(types) == 0:
        return tuple(default)
    unknown = [t for t in types if t not in EDGE_TYPES]
    if unknown:
        raise InputError(
            f"Unknown edge type(s) {', '.join(unknown)}; use any of {', '.join(EDGE_TYPES)}."
        )
    return tuple(types)


def estimate_tokens(text: str) -> int:
    """Tokens as an agent's model would count them, estimated as characters / 4."""
    return math.ceil(len(text) / 4)


class GraphReader:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    # -- nodes --------------------------------------------------------------------
    def repos(self) -> list[str]:
        return [str(r[0]) for r in self.conn.execute("SELECT id FROM repos ORDER BY id")]

    def split_file_id(self, node: str) -> tuple[str, str] | None:
        """`repo/path` → (repo, path) for a file of the index, else None."""
        for repo in sorted(self.repos(), key=len, reverse=True):
            if node.startswith(repo + "/"):
                path = node[len(repo) + 1 :]
                row = self.conn.execute(
                    "SELECT 1 FROM files WHERE repo = ? AND path = ?", (repo, path)
                ).fetchone()
                if row is not None:
                    return repo, path
        return None

    def nodes(self, ids: Iterable[str]) -> dict[str, GraphNode]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, GraphNode] = {}
        importance = self.importance(wanted)
        symbol_ids = [i for i in wanted if "#" in i and not i.startswith(("?", "kw:"))]
        for start in range(0, len(symbol_ids), 500):
            part = symbol_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(
                f"SELECT {SYM_COLUMNS} FROM symbols WHERE id IN ({marks})", part
            )
            for row in cur:
                s = sym_from_row(row)
                found[s.id] = GraphNode(
                    s.id,
                    s.kind,
                    s.qualified,
                    s.repo,
                    s.path,
                    s.start,
                    s.end,
                    importance.get(s.id, 0.0),
                )
        repos = set(self.repos())
        for node in wanted:
            if node in found:
                continue
            if node.startswith("?"):
                found[node] = GraphNode(node, "unresolved", node[1:], None, None, None, None, 0.0)
            elif node.startswith("kw:"):
                found[node] = GraphNode(node, "keyword", node[3:], None, None, None, None, 0.0)
            elif node in repos:
                found[node] = GraphNode(node, "repo", node, node, None, None, None, 1.0)
            elif "#" in node:
                found[node] = GraphNode(
                    node, "missing", node.split("#", 1)[1], None, None, None, None, 0.0
                )
            else:
                split = self.split_file_id(node)
                if split is None:
                    found[node] = GraphNode(node, "missing", node, None, None, None, None, 0.0)
                    continue
                repo, path = split
                lines = self.conn.execute(
                    "SELECT line_count FROM files WHERE repo = ? AND path = ?", (repo, path)
                ).fetchone()
                found[node] = GraphNode(
                    node,
                    "file",
                    path.rsplit("/", 1)[-1],
                    repo,
                    path,
                    1,
                    int(lines[0]) if lines is not None else None,
                    importance.get(node, 0.0),
                )
        return found

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]:
        out: dict[str, float] = {}
        ids = list(node_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(
                f"SELECT id, importance FROM graph_nodes WHERE id IN ({marks})", part
            )
            out.update((str(i), float(v)) for i, v in cur)
        return out

    def has_graph(self) -> bool:
        return self.conn.execute("SELECT 1 FROM edges LIMIT 1").fetchone() is not None

    # -- finding symbols ----------------------------------------------------------
    def find_symbol(
        self, name: str, *, kind: str | None = None, repo: str | None = None, limit: int = 20
    ) -> list[SymbolMatch]:
        """Exact matches (id, qualified name, simple name) first, then case-insensitive,
        then fuzzy ones; each with a score in [0, 1]."""
        query = name.strip()
        if not query:
            raise InputError("Give a symbol name, e.g. `codecompass symbol Console.print`.")
        filters = ""
        params: list[Any] = []
        if kind:
            filters += " AND kind = ?"
            params.append(kind)
        if repo:
            filters += " AND repo = ?"
            params.append(repo)
        scored: dict[str, tuple[float, bool, Sym]] = {}

        def add(
            rows: Iterable[tuple[Any, ...]], score_of: Callable[[Sym], tuple[float, bool]]
        ) -> None:
            for row in rows:
                s = sym_from_row(row)
                score, exact = score_of(s)
                if score > scored.get(s.id, (-1.0, False, s))[0]:
                    scored[s.id] = (score, exact, s)

        def rows(where: str, *args: Any) -> list[tuple[Any, ...]]:
            return self.conn.execute(
                f"SELECT {SYM_COLUMNS} FROM symbols WHERE ({where}){filters} LIMIT 2000",
                (*args, *params),
            ).fetchall()

        add(rows("id = ?", query), lambda s: (1.0, True))
        add(rows("qualified_name = ?", query), lambda s: (1.0, True))
        add(rows("name = ?", query), lambda s: (0.95, True))
        if "." in query:
            add(
                rows("qualified_name LIKE ? ESCAPE '\\'", "%." + _like(query)),
                lambda s: (0.9, False),
            )
        lowered = query.lower()
        add(
            rows("lower(name) = ? OR lower(qualified_name) = ?", lowered, lowered),
            lambda s: (0.85, False),
        )
        if len(scored) < limit:
            tail = query.rsplit(".", 1)[-1]
            add(
                rows("name LIKE ? ESCAPE '\\'", "%" + _like(tail) + "%"),
                lambda s: (round(0.8 * _ratio(tail, s.name), 4), False),
            )
        if len(scored) < limit:
            names = [
                str(r[0])
                for r in self.conn.execute(
                    f"SELECT DISTINCT name FROM symbols WHERE 1{filters} LIMIT 100000", params
                )
            ]
            tail = query.rsplit(".", 1)[-1]
            close = difflib.get_close_matches(tail, names, n=limit, cutoff=0.6)
            for match in close:
                add(
                    rows("name = ?", match), lambda s: (round(0.7 * _ratio(tail, s.name), 4), False)
                )
        importance = self.importance(list(scored))
        ordered = sorted(
            scored.values(), key=lambda x: (-x[0], -importance.get(x[2].id, 0.0), x[2].id)
        )
        out: list[SymbolMatch] = []
        for score, exact, s in ordered[:limit]:
            signature = self.conn.execute(
                "SELECT signature FROM symbols WHERE id = ?", (s.id,)
            ).fetchone()
            out.append(
                SymbolMatch(
                    id=s.id,
                    repo=s.repo,
                    path=s.path,
                    name=s.name,
                    qualified_name=s.qualified,
                    kind=s.kind,
                    signature=str(signature[0]) if signature else "",
                    start_line=s.start,
                    end_line=s.end,
                    score=score,
                    exact=exact,
                )
            )
        return out

    def resolve_node(self, symbol: str, *, repo: str | None = None) -> str:
        """A node id from a node id, a qualified name, a simple name or a file path."""
        text = symbol.strip()
        if not text:
            raise InputError("Give a symbol: a node id, a qualified name or a name.")
        if self.conn.execute("SELECT 1 FROM symbols WHERE id = ?", (text,)).fetchone():
            return text
        if text in self.repos() and repo in (None, text):
            return text
        split = self.split_file_id(text)
        if split is not None and repo in (None, split[0]):
            return text
        for column in ("qualified_name", "name"):
            sql = f"SELECT id FROM symbols WHERE {column} = ?"
            params: tuple[str, ...] = (text,)
            if repo:
                sql += " AND repo = ?"
                params = (text, repo)
            ids = [str(r[0]) for r in self.conn.execute(sql + " ORDER BY id", params)]
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
        sql = "SELECT repo, path FROM files WHERE path = ?"
        params = (text,)
        if repo:
            sql += " AND repo = ?"
            params = (text, repo)
        files = self.conn.execute(sql, params).fetchall()
        if len(files) == 1:
            return f"{files[0][0]}/{files[0][1]}"
        if len(files) > 1:
            listed = ", ".join(f"{r}/{p}" for r, p in files)
            raise InputError(f"{text!r} is a file of several repositories ({listed}); name one.")
        raise NotFoundError(
            f"Unknown symbol {text!r}; find its exact name with `codecompass symbol {text}`."
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
        edges: list[GraphEdge] = []
        seen_edges: set[tuple[str, str, str, int | None]] = set()
        frontier = [root]
        truncated = False
        for _ in range(depth):
            if not frontier:
                break
            found: list[tuple[GraphEdge, str]] = []
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
        edges: list[GraphEdge],
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
        return GraphResult(root, [nodes[n] for n in parent], edges, paths, truncated)

    def _edges(
        self, column: str, ids: Sequence[str], types: Sequence[str], min_confidence: float
    ) -> list[GraphEdge]:
        out: list[GraphEdge] = []
        type_marks = ",".join("?" * len(types))
        for start in range(0, len(ids), 400):
            part = list(ids[start : start + 400])
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(
                f"{_EDGE_SELECT} WHERE {column} IN ({marks}) AND type IN ({type_marks}) "
                "AND confidence >= ? ORDER BY id",
                (*part, *types, min_confidence),
            )
            out.extend(_graph_edge(row) for row in cur)
        return out

    def subgraph(self, ids: Sequence[str], *, limit: int = DEFAULT_LIMIT) -> GraphResult:
        """The given nodes (up to `limit`) and every edge between them."""
        resolved = list(dict.fromkeys(self.resolve_node(i) for i in ids))
        truncated = len(resolved) > limit
        kept = resolved[:limit]
        members = set(kept)
        edges = [e for e in self._edges("source", kept, EDGE_TYPES, 0.0) if e.target in members]
        nodes = self.nodes(kept)
        root = kept[0] if kept else ""
        return GraphResult(root, [nodes[n] for n in kept], edges, [], truncated)

    # -- search's view ------------------------------------------------------------------
    def neighbors(self, node_ids: Sequence[str], edge_types: Sequence[str]) -> list[EdgeRef]:
        """Resolved edges touching any of `node_ids`, either direction."""
        types = [t for t in edge_types if t in EDGE_TYPES]
        if not node_ids or not types:
            return []
        seen: set[tuple[str, str, str]] = set()
        out: list[EdgeRef] = []
        for column in ("source", "target"):
            for edge in self._edges(column, list(node_ids), types, 0.0):
                key = (edge.source, edge.target, edge.type)
                if not edge.resolved or key in seen:
                    continue
                seen.add(key)
                out.append(
                    EdgeRef(edge.source, edge.target, edge.type, edge.weight, edge.confidence)
                )
        return out

    # -- overview -----------------------------------------------------------------------
    def overview(self, repo: str, budget_tokens: int = 2000) -> Overview:
        """The most important files, and in each its most important symbols with their
        signatures, until the token budget is spent: a map to read before anything else."""
        if budget_tokens < 50:
            raise InputError("budget_tokens must be at least 50.")
        counts = self.conn.execute(
            "SELECT (SELECT count(*) FROM files WHERE repo = ?), "
            "(SELECT count(*) FROM symbols WHERE repo = ? AND kind != 'section')",
            (repo, repo),
        ).fetchone()
        header = (
            f"# {repo}: {counts[0]} files, {counts[1]} symbols. Most important first "
            "(importance = PageRank over calls, imports, inheritance, references).\n"
        )
        text = header
        files: list[dict[str, Any]] = []
        cur = self.conn.execute(
            "SELECT f.path, COALESCE(n.importance, 0.0) AS score FROM files f "
            "LEFT JOIN graph_nodes n ON n.id = f.repo || '/' || f.path "
            "WHERE f.repo = ? AND EXISTS (SELECT 1 FROM symbols s WHERE s.repo = f.repo "
            "AND s.path = f.path AND s.kind != 'section') ORDER BY score DESC, f.path",
            (repo,),
        )
        for path, score in cur.fetchall():
            symbols = self.conn.execute(
                "SELECT s.id, s.name, s.qualified_name, s.kind, s.signature, s.start_line, "
                "s.parent, COALESCE(n.importance, 0.0) AS score FROM symbols s "
                "LEFT JOIN graph_nodes n ON n.id = s.id WHERE s.repo = ? AND s.path = ? "
                "AND s.kind != 'section' ORDER BY score DESC, s.start_line LIMIT 10",
                (repo, path),
            ).fetchall()
            chosen = sorted(symbols, key=lambda r: int(r[5]))
            lines = [f"{path}  [{float(score):.2f}]"]
            for _, name, qualified, kind, signature, line, parent, _ in chosen:
                indent = "  " * (1 + qualified.count(".") if parent else 1)
                shown = signature or f"{kind} {name}"
                lines.append(f"{indent}{shown}  :{line}")
            block = "\n".join(lines) + "\n"
            if estimate_tokens(text + block) > budget_tokens:
                if files:
                    break
                block = block[: max(0, (budget_tokens - estimate_tokens(text)) * 4)]
            text += block
            files.append(
                {
                    "path": path,
                    "importance": round(float(score), 4),
                    "symbols": [
                        {
                            "id": sid,
                            "name": qualified,
                            "kind": kind,
                            "signature": signature,
                            "line": int(line),
                            "importance": round(float(s_score), 4),
                        }
                        for sid, _, qualified, kind, signature, line, _, s_score in chosen
                    ],
                }
            )
        return Overview(repo, text, estimate_tokens(text), files)


def _graph_edge(row: tuple[Any, ...]) -> GraphEdge:
    source, target, kind, weight, conf, ev_path, ev_line, resolved, via, t_path, t_line = row
    return GraphEdge(
        source=str(source),
        target=str(target),
        type=str(kind),
        weight=float(weight),
        confidence=float(conf),
        evidence_path=ev_path,
        evidence_line=ev_line,
        resolved=bool(resolved),
        via=str(via),
        target_evidence_path=t_path if t_line is not None else None,
        target_evidence_line=t_line,
    )


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()
