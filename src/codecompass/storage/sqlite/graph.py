"""The graph's tables in SQLite: facts, dependencies, edges, HTTP facts, importance.

Every edge is *owned* by the file whose content produced it (``repo``, ``path``): that is
what makes "delete and rebuild a file's edges" one indexed DELETE.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from codecompass.models import (
    Edge,
    EdgeQuery,
    FactsQuery,
    FactsRecord,
    FileRecord,
    HttpFact,
    LinkUpdate,
    RankGraph,
)
from codecompass.storage.rows import (
    FACTS_COLUMNS,
    IMPORTANCE_INPUTS,
    edge_columns,
    edge_record,
    facts_record,
    rank_graph,
)
from codecompass.storage.sqlite.db import Database

_EDGE_COLUMNS = (
    "repo, path, source, target, type, weight, confidence, resolved, name, via, "
    "evidence_path, evidence_line, target_repo, target_path, target_line"
)
_EDGE_SELECT = f"SELECT {edge_columns('evidence_path')} FROM edges"
_FACTS_SELECT = f"SELECT {FACTS_COLUMNS} FROM graph_facts"
# Frontier ids per edge query: results keep the write order within each batch.
EDGE_BATCH = 400


def stage_facts(conn: Any, records: Sequence[FactsRecord]) -> None:
    """New facts for the next link, keeping what the graph was last linked with
    (``prev_*``) so that link can tell what changed."""
    conn.executemany(
        "INSERT INTO graph_facts(repo, path, file_hash, version, language, defines, interface, "
        "facts, linked, prev_defines, prev_interface) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, "
        "NULL) ON CONFLICT(repo, path) DO UPDATE SET "
        "prev_defines = CASE WHEN graph_facts.linked = 1 THEN graph_facts.defines "
        "ELSE graph_facts.prev_defines END, "
        "prev_interface = CASE WHEN graph_facts.linked = 1 THEN graph_facts.interface "
        "ELSE graph_facts.prev_interface END, "
        "linked = 0, file_hash = excluded.file_hash, version = excluded.version, "
        "language = excluded.language, defines = excluded.defines, "
        "interface = excluded.interface, facts = excluded.facts",
        [
            (
                r.repo,
                r.path,
                r.file_hash,
                r.version,
                r.language,
                json.dumps(list(r.defines)),
                r.interface,
                r.facts_json,
            )
            for r in records
        ],
    )


class SQLiteGraph:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- facts ------------------------------------------------------------------------
    def stage_facts(self, records: Sequence[FactsRecord]) -> None:
        with self.db.transaction() as conn:
            stage_facts(conn, records)

    def facts(self, query: FactsQuery) -> list[FactsRecord]:
        if query.paths is not None:
            rows = self.db.in_batches(
                f"{_FACTS_SELECT} WHERE repo = ? AND path IN ({{marks}})",
                list(query.paths),
                before=(query.repo,),
            )
            found = sorted((facts_record(r) for r in rows), key=lambda r: r.path)
            return [r for r in found if not query.unlinked or not r.linked]
        where = " AND linked = 0" if query.unlinked else ""
        cur = self.db.execute(f"{_FACTS_SELECT} WHERE repo = ?{where} ORDER BY path", (query.repo,))
        return [facts_record(r) for r in cur]

    def stale_files(self, repo: str, version: int) -> tuple[list[FileRecord], list[str]]:
        cur = self.db.execute(
            "SELECT f.repo, f.path, f.language, f.size, f.mtime_ns, f.file_hash, f.line_count, "
            "f.parse_error, f.indexed_at FROM files f LEFT JOIN graph_facts g "
            "ON g.repo = f.repo AND g.path = f.path WHERE f.repo = ? AND (g.path IS NULL OR "
            "(g.linked = 1 AND (g.file_hash != f.file_hash OR g.version != ?))) "
            "ORDER BY f.path",
            (repo, version),
        )
        changed = [FileRecord(*row) for row in cur]
        cur = self.db.execute(
            "SELECT g.path FROM graph_facts g WHERE g.repo = ? AND NOT EXISTS "
            "(SELECT 1 FROM files f WHERE f.repo = g.repo AND f.path = g.path) ORDER BY g.path",
            (repo,),
        )
        return changed, [str(row[0]) for row in cur]

    # -- edges ------------------------------------------------------------------------
    def edges(self, query: EdgeQuery) -> list[Edge]:
        clauses: list[str] = []
        params: list[Any] = []
        if query.types is not None:
            if not query.types:
                return []
            clauses.append(f"type IN ({','.join('?' * len(query.types))})")
            params.extend(query.types)
        if query.exclude_types:
            clauses.append(f"type NOT IN ({','.join('?' * len(query.exclude_types))})")
            params.extend(query.exclude_types)
        if query.min_confidence is not None:
            clauses.append("confidence >= ?")
            params.append(query.min_confidence)
        if query.resolved is not None:
            clauses.append("resolved = ?")
            params.append(int(query.resolved))
        if query.repo is not None:
            clauses.append("repo = ?")
            params.append(query.repo)
        limit = f" LIMIT {int(query.limit)}" if query.limit is not None else ""
        if query.sources is None and query.targets is None:
            # Unfiltered, the table is already in id order. Sampled statistics can make
            # the planner scan a narrower index and sort all the rows instead: 65 ms
            # on 490,000 edges for `has_graph`'s first edge, on every search.
            where = f" WHERE {' AND '.join(clauses)}" if clauses else " NOT INDEXED"
            sql = f"{_EDGE_SELECT}{where} ORDER BY id{limit}"
            return [edge_record(r) for r in self.db.execute(sql, params)]
        column, ids = (
            ("source", query.sources) if query.sources is not None else ("target", query.targets)
        )
        assert ids is not None
        out: list[Edge] = []
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), EDGE_BATCH):
            part = unique[start : start + EDGE_BATCH]
            where = " AND ".join([f"{column} IN ({','.join('?' * len(part))})", *clauses])
            cur = self.db.execute(
                f"{_EDGE_SELECT} WHERE {where} ORDER BY id{limit}", (*part, *params)
            )
            out.extend(edge_record(r) for r in cur)
        if query.sources is not None and query.targets is not None:
            targets = set(query.targets)
            out = [e for e in out if e.target in targets]
        return out

    def in_degrees(self, node_ids: Sequence[str]) -> dict[str, int]:
        rows = self.db.in_batches(
            "SELECT target, count(*) FROM edges WHERE target IN ({marks}) GROUP BY target",
            list(dict.fromkeys(node_ids)),
        )
        return {str(target): int(n) for target, n in rows}

    def write_links(self, update: LinkUpdate) -> None:
        with self.db.transaction() as conn:
            for repo in update.forget_repos:
                conn.execute(
                    "DELETE FROM edges WHERE repo = ? OR (target_repo = ? AND type = 'http')",
                    (repo, repo),
                )
                for table in ("graph_facts", "graph_deps", "graph_http", "graph_nodes"):
                    conn.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))
                conn.execute("DELETE FROM meta WHERE key = ?", (IMPORTANCE_INPUTS,))
            for repo, path in update.forget_files:
                for table in ("graph_facts", "graph_deps", "graph_http", "edges"):
                    conn.execute(f"DELETE FROM {table} WHERE repo = ? AND path = ?", (repo, path))
            for kind in update.drop_types:
                conn.execute("DELETE FROM edges WHERE type = ?", (kind,))
            for kind, target in update.drop_targets:
                conn.execute("DELETE FROM edges WHERE type = ? AND target = ?", (kind, target))
            for owned in update.owned:
                repo, path = owned.repo, owned.path
                if owned.types:
                    marks = ",".join("?" * len(owned.types))
                    conn.execute(
                        f"DELETE FROM edges WHERE repo = ? AND path = ? AND type IN ({marks})",
                        (repo, path, *owned.types),
                    )
                if owned.deps is not None:
                    conn.execute("DELETE FROM graph_deps WHERE repo = ? AND path = ?", (repo, path))
                    conn.executemany(
                        "INSERT INTO graph_deps(repo, path, kind, value) VALUES (?, ?, ?, ?)",
                        [(repo, path, kind, value) for kind, value in sorted(set(owned.deps))],
                    )
                if owned.http is not None:
                    conn.execute("DELETE FROM graph_http WHERE repo = ? AND path = ?", (repo, path))
                    conn.executemany(
                        "INSERT INTO graph_http(repo, path, role, method, pattern, line, node, "
                        "router) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            (repo, path, h.role, h.method, h.pattern, h.line, h.node, h.router)
                            for h in owned.http
                        ],
                    )
                conn.executemany(
                    f"INSERT INTO edges({_EDGE_COLUMNS}) VALUES ({','.join('?' * 15)})",
                    [
                        (
                            repo,
                            path,
                            e.source,
                            e.target,
                            e.type,
                            e.weight,
                            e.confidence,
                            int(e.resolved),
                            e.name,
                            e.via,
                            path,
                            e.evidence_line,
                            e.target_repo,
                            e.target_path,
                            e.target_line,
                        )
                        for e in owned.edges
                    ],
                )
            for repo, path in update.linked:
                conn.execute(
                    "UPDATE graph_facts SET linked = 1, prev_defines = NULL, prev_interface = NULL "
                    "WHERE repo = ? AND path = ?",
                    (repo, path),
                )
            if update.importance is not None:
                conn.execute("DELETE FROM graph_nodes")
                conn.executemany(
                    "INSERT INTO graph_nodes(id, repo, kind, importance) VALUES (?, ?, ?, ?)",
                    [(r.node, r.repo, r.kind, r.importance) for r in update.importance],
                )
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (IMPORTANCE_INPUTS, update.importance_inputs),
                )

    # -- look-ups -----------------------------------------------------------------------
    def dependents(self, keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        by_kind: dict[str, list[str]] = {}
        for kind, value in keys:
            by_kind.setdefault(kind, []).append(value)
        for kind, values in by_kind.items():
            rows = self.db.in_batches(
                "SELECT DISTINCT repo, path FROM graph_deps WHERE kind = ? AND value IN ({marks})",
                sorted(set(values)),
                before=(kind,),
            )
            found.update((str(r), str(p)) for r, p in rows)
        return found

    def http_facts(self) -> list[HttpFact]:
        cur = self.db.execute(
            "SELECT repo, path, role, method, pattern, line, node, router FROM graph_http "
            "ORDER BY repo, path, line, role, node, router, method, pattern"
        )
        return [
            HttpFact(
                role=str(role),
                method=str(method),
                pattern=str(pattern),
                line=int(line),
                node=str(node),
                repo=str(repo),
                path=str(path),
                router=str(router),
            )
            for repo, path, role, method, pattern, line, node, router in cur
        ]

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]:
        rows = self.db.in_batches(
            "SELECT id, importance FROM graph_nodes WHERE id IN ({marks})", list(node_ids)
        )
        return {str(i): float(v) for i, v in rows}

    def rank_graph(self, exclude_types: Sequence[str]) -> RankGraph:
        marks = ",".join("?" * len(exclude_types))
        with self.db.snapshot():  # one state of the graph
            symbols = self.db.execute(
                "SELECT id, repo, kind, exported FROM symbols ORDER BY id"
            ).fetchall()
            files = self.db.execute(
                "SELECT repo || '/' || path, repo FROM files ORDER BY 1"
            ).fetchall()
            edges = self.db.execute(
                "SELECT source, target, type, weight * confidence FROM edges "
                f"WHERE resolved = 1 AND confidence > 0 AND type NOT IN ({marks})",
                list(exclude_types),
            ).fetchall()
            inputs = self.db.execute(
                "SELECT value FROM meta WHERE key = ?", (IMPORTANCE_INPUTS,)
            ).fetchone()
        return rank_graph(symbols, files, edges, inputs[0] if inputs else None)
