"""The graph's tables in PostgreSQL: facts, dependencies, edges, HTTP facts, importance.

Edges are owned by the file whose content produced them, as in the embedded backend.
Graph updates of one workspace are serialised by an advisory lock: two indexers of
different repositories both relink HTTP routes and importance, which are workspace-wide.
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
from codecompass.storage.postgres.db import PgDatabase, lock_key
from codecompass.storage.rows import (
    FACTS_COLUMNS,
    IMPORTANCE_INPUTS,
    edge_columns,
    edge_record,
    facts_record,
    rank_graph,
)

_EDGE_SELECT = f"SELECT {edge_columns('path')} FROM edges"
_FACTS_SELECT = f"SELECT {FACTS_COLUMNS} FROM graph_facts"
EDGE_BATCH = 400  # frontier ids per query: results keep the write order within a batch


def _key(value: str) -> str:
    """A dependency value PostgreSQL text can hold: file keys join repo and path with a
    NUL, which text refuses; the unit separator never occurs in a path either."""
    return value.replace("\x00", "\x1f")


def stage_facts(conn: Any, ws: str, records: Sequence[FactsRecord]) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO graph_facts(workspace, repo, path, file_hash, version, language, "
            "defines, interface, facts, linked, prev_defines, prev_interface) VALUES "
            "(%s, %s, %s, %s, %s, %s, %s, %s, %s, false, NULL, NULL) "
            "ON CONFLICT (workspace, repo, path) DO UPDATE SET "
            "prev_defines = CASE WHEN graph_facts.linked THEN graph_facts.defines "
            "ELSE graph_facts.prev_defines END, "
            "prev_interface = CASE WHEN graph_facts.linked THEN graph_facts.interface "
            "ELSE graph_facts.prev_interface END, "
            "linked = false, file_hash = excluded.file_hash, version = excluded.version, "
            "language = excluded.language, defines = excluded.defines, "
            "interface = excluded.interface, facts = excluded.facts",
            [
                (
                    ws,
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


class PgGraph:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db
        self.ws = db.workspace

    # -- facts ------------------------------------------------------------------------
    def stage_facts(self, records: Sequence[FactsRecord]) -> None:
        with self.db.transaction() as conn:
            stage_facts(conn, self.ws, records)

    def facts(self, query: FactsQuery) -> list[FactsRecord]:
        sql = f"{_FACTS_SELECT} WHERE workspace = %s AND repo = %s"
        params: list[Any] = [self.ws, query.repo]
        if query.paths is not None:
            sql += " AND path = ANY(%s)"
            params.append(list(query.paths))
        if query.unlinked:
            sql += " AND NOT linked"
        return [facts_record(r) for r in self.db.rows(sql + " ORDER BY path", params)]

    def stale_files(self, repo: str, version: int) -> tuple[list[FileRecord], list[str]]:
        changed = self.db.rows(
            "SELECT f.repo, f.path, f.language, f.size, f.mtime_ns, f.file_hash, f.line_count, "
            "f.parse_error, f.indexed_at FROM files f LEFT JOIN graph_facts g "
            "ON g.workspace = f.workspace AND g.repo = f.repo AND g.path = f.path "
            "WHERE f.workspace = %s AND f.repo = %s AND (g.path IS NULL OR "
            "(g.linked AND (g.file_hash != f.file_hash OR g.version != %s))) ORDER BY f.path",
            (self.ws, repo, version),
        )
        gone = self.db.rows(
            "SELECT g.path FROM graph_facts g WHERE g.workspace = %s AND g.repo = %s AND NOT "
            "EXISTS (SELECT 1 FROM files f WHERE f.workspace = g.workspace AND f.repo = g.repo "
            "AND f.path = g.path) ORDER BY g.path",
            (self.ws, repo),
        )
        return [FileRecord(*row) for row in changed], [str(r[0]) for r in gone]

    # -- edges ------------------------------------------------------------------------
    def edges(self, query: EdgeQuery) -> list[Edge]:
        q = query
        if q.types is not None and not q.types:
            return []
        clauses, params = ["workspace = %s"], [self.ws]

        def add(clause: str, value: Any) -> None:
            clauses.append(clause)
            params.append(value)

        if q.types is not None:
            add("type = ANY(%s)", list(q.types))
        if q.exclude_types:
            add("NOT (type = ANY(%s))", list(q.exclude_types))
        if q.min_confidence is not None:
            add("confidence >= %s", q.min_confidence)
        if q.resolved is not None:
            add("resolved = %s", q.resolved)
        if q.repo is not None:
            add("repo = %s", q.repo)
        limit = f" LIMIT {int(q.limit)}" if q.limit is not None else ""
        if q.sources is None and q.targets is None:
            sql = f"{_EDGE_SELECT} WHERE {' AND '.join(clauses)} ORDER BY id{limit}"
            return [edge_record(r) for r in self.db.rows(sql, params)]
        column, ids = ("source", q.sources) if q.sources is not None else ("target", q.targets)
        assert ids is not None
        unique = list(dict.fromkeys(ids))
        out: list[Edge] = []
        for start in range(0, len(unique), EDGE_BATCH):
            part = unique[start : start + EDGE_BATCH]
            sql = (
                f"{_EDGE_SELECT} WHERE {column} = ANY(%s) AND {' AND '.join(clauses)} "
                f"ORDER BY id{limit}"
            )
            out.extend(edge_record(r) for r in self.db.rows(sql, [part, *params]))
        if q.sources is not None and q.targets is not None:
            targets = set(q.targets)
            out = [e for e in out if e.target in targets]
        return out

    def in_degrees(self, node_ids: Sequence[str]) -> dict[str, int]:
        rows = self.db.rows(
            "SELECT target, count(*) FROM edges WHERE workspace = %s AND target = ANY(%s) "
            "GROUP BY target",
            [self.ws, list(dict.fromkeys(node_ids))],
        )
        return {str(t): int(n) for t, n in rows}

    def write_links(self, update: LinkUpdate) -> None:
        ws = self.ws
        with self.db.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(ws, "graph"),))
            for repo in update.forget_repos:
                conn.execute(
                    "DELETE FROM edges WHERE workspace = %s AND (repo = %s OR "
                    "(target_repo = %s AND type = 'http'))",
                    (ws, repo, repo),
                )
                for table in ("graph_facts", "graph_deps", "graph_http", "graph_nodes"):
                    conn.execute(
                        f"DELETE FROM {table} WHERE workspace = %s AND repo = %s", (ws, repo)
                    )
                conn.execute(
                    "DELETE FROM meta WHERE workspace = %s AND key = %s", (ws, IMPORTANCE_INPUTS)
                )
            for repo, path in update.forget_files:
                for table in ("graph_facts", "graph_deps", "graph_http", "edges"):
                    conn.execute(
                        f"DELETE FROM {table} WHERE workspace = %s AND repo = %s AND path = %s",
                        (ws, repo, path),
                    )
            if update.drop_types:
                conn.execute(
                    "DELETE FROM edges WHERE workspace = %s AND type = ANY(%s)",
                    (ws, list(update.drop_types)),
                )
            for kind, target in update.drop_targets:
                conn.execute(
                    "DELETE FROM edges WHERE workspace = %s AND type = %s AND target = %s",
                    (ws, kind, target),
                )
            for owned in update.owned:
                repo, path = owned.repo, owned.path
                if owned.types:
                    conn.execute(
                        "DELETE FROM edges WHERE workspace = %s AND repo = %s AND path = %s "
                        "AND type = ANY(%s)",
                        (ws, repo, path, list(owned.types)),
                    )
                if owned.deps is not None:
                    conn.execute(
                        "DELETE FROM graph_deps WHERE workspace = %s AND repo = %s AND path = %s",
                        (ws, repo, path),
                    )
                    _copy(
                        conn,
                        "graph_deps (workspace, repo, path, kind, value)",
                        [(ws, repo, path, kind, _key(v)) for kind, v in sorted(set(owned.deps))],
                    )
                if owned.http is not None:
                    conn.execute(
                        "DELETE FROM graph_http WHERE workspace = %s AND repo = %s AND path = %s",
                        (ws, repo, path),
                    )
                    _copy(
                        conn,
                        "graph_http (workspace, repo, path, role, method, pattern, line, node, "
                        "router)",
                        [
                            (ws, repo, path, h.role, h.method, h.pattern, h.line, h.node, h.router)
                            for h in owned.http
                        ],
                    )
                rows = [
                    (
                        ws,
                        repo,
                        path,
                        e.source,
                        e.target,
                        e.type,
                        e.weight,
                        e.confidence,
                        e.resolved,
                        e.name,
                        e.via,
                        e.evidence_line,
                        e.target_repo,
                        e.target_path,
                        e.target_line,
                    )
                    for e in owned.edges
                ]
                # COPY keeps the order of the rows: ids (the read order) follow the writes.
                _copy(
                    conn,
                    "edges (workspace, repo, path, source, target, type, weight, confidence, "
                    "resolved, name, via, evidence_line, target_repo, target_path, target_line)",
                    rows,
                )
            if update.linked:
                conn.execute(
                    "UPDATE graph_facts SET linked = true, prev_defines = NULL, "
                    "prev_interface = NULL WHERE workspace = %s AND (repo, path) IN "
                    "(SELECT * FROM unnest(%s::text[], %s::text[]))",
                    (ws, [r for r, _ in update.linked], [p for _, p in update.linked]),
                )
            if update.importance is not None:
                conn.execute("DELETE FROM graph_nodes WHERE workspace = %s", (ws,))
                _copy(
                    conn,
                    "graph_nodes (workspace, id, repo, kind, importance)",
                    [(ws, r.node, r.repo, r.kind, r.importance) for r in update.importance],
                )
                conn.execute(
                    "INSERT INTO meta(workspace, key, value) VALUES (%s, %s, %s) "
                    "ON CONFLICT (workspace, key) DO UPDATE SET value = excluded.value",
                    (ws, IMPORTANCE_INPUTS, update.importance_inputs),
                )

    # -- look-ups -----------------------------------------------------------------------
    def dependents(self, keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        pairs = sorted(set(keys))
        if not pairs:
            return set()
        rows = self.db.rows(
            "SELECT DISTINCT d.repo, d.path FROM graph_deps d JOIN unnest(%s::text[], "
            "%s::text[]) AS k(kind, value) ON d.kind = k.kind AND d.value = k.value "
            "WHERE d.workspace = %s",
            ([k for k, _ in pairs], [_key(v) for _, v in pairs], self.ws),
        )
        return {(str(r), str(p)) for r, p in rows}

    def http_facts(self) -> list[HttpFact]:
        rows = self.db.rows(
            "SELECT repo, path, role, method, pattern, line, node, router FROM graph_http "
            "WHERE workspace = %s ORDER BY repo, path, line, role, node, router, method, pattern",
            (self.ws,),
        )
        return [
            HttpFact(
                role=role,
                method=method,
                pattern=pattern,
                line=int(line),
                node=node,
                repo=repo,
                path=path,
                router=router,
            )  # fmt: skip
            for repo, path, role, method, pattern, line, node, router in rows
        ]

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]:
        if not node_ids:
            return {}
        rows = self.db.rows(
            "SELECT id, importance FROM graph_nodes WHERE workspace = %s AND id = ANY(%s)",
            (self.ws, list(node_ids)),
        )
        return {str(i): float(v) for i, v in rows}

    def rank_graph(self, exclude_types: Sequence[str]) -> RankGraph:
        ws = self.ws
        with self.db.snapshot():  # one state of the graph
            symbols = self.db.rows(
                "SELECT id, repo, kind, exported FROM symbols WHERE workspace = %s ORDER BY id",
                (ws,),
            )
            files = self.db.rows(
                "SELECT repo || '/' || path, repo FROM files WHERE workspace = %s "
                "ORDER BY (repo || '/' || path) COLLATE \"C\"",
                (ws,),
            )
            edges = self.db.rows(
                "SELECT source, target, type, weight * confidence FROM edges "
                "WHERE workspace = %s AND resolved AND confidence > 0 "
                "AND NOT type = ANY(%s)",
                (ws, list(exclude_types)),
            )
            inputs = self.db.rows(
                "SELECT value FROM meta WHERE workspace = %s AND key = %s",
                (ws, IMPORTANCE_INPUTS),
            )
        return rank_graph(symbols, files, edges, inputs[0][0] if inputs else None)


def _copy(conn: Any, target: str, rows: Sequence[tuple[Any, ...]]) -> None:
    if not rows:
        return
    with conn.cursor() as cur, cur.copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
