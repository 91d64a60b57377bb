"""The graph's tables in the metastore: facts, dependencies, edges, HTTP facts, importance.

Every edge is *owned* by the file whose content produced it (``repo``, ``path``): that is
what makes "delete and rebuild a file's edges" one indexed DELETE. HTTP links are owned
by the client's file too, but are recomputed as a whole after each run (they are few).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from codecompass.graph.resolve import EdgeRow, HttpFact

# Edge types a file's resolution produces; keyword and similar edges are rebuilt only
# when the file itself changes, HTTP links after every run.
RESOLVED_TYPES = ("contains", "imports", "calls", "extends", "implements", "references", "package")
_EDGE_COLUMNS = (
    "repo, path, source, target, type, weight, confidence, resolved, name, via, "
    "evidence_path, evidence_line, target_repo, target_path, target_line"
)


@dataclass(frozen=True, slots=True)
class StaleFile:
    path: str
    language: str
    file_hash: str


@dataclass(frozen=True, slots=True)
class FactsMeta:
    defines: list[str]
    interface: str


def stage_facts(
    conn: sqlite3.Connection,
    repo: str,
    path: str,
    *,
    file_hash: str,
    version: int,
    language: str,
    defines: Sequence[str],
    interface: str,
    facts_json: str,
) -> None:
    """Store a file's new facts for the next link, keeping what the graph was last
    linked with (``prev_*``) so that link can tell what changed."""
    conn.execute(
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
        (
            repo,
            path,
            file_hash,
            version,
            language,
            json.dumps(list(defines)),
            interface,
            facts_json,
        ),
    )


@dataclass(frozen=True, slots=True)
class Staged:
    path: str
    old: FactsMeta | None  # None: the file is new to the graph
    new: FactsMeta


def staged_files(conn: sqlite3.Connection, repo: str) -> list[Staged]:
    cur = conn.execute(
        "SELECT path, defines, interface, prev_defines, prev_interface FROM graph_facts "
        "WHERE repo = ? AND linked = 0 ORDER BY path",
        (repo,),
    )
    return [
        Staged(
            str(path),
            FactsMeta(json.loads(prev_defines), str(prev_interface))
            if prev_defines is not None
            else None,
            FactsMeta(json.loads(defines), str(interface)),
        )
        for path, defines, interface, prev_defines, prev_interface in cur
    ]


def mark_linked(conn: sqlite3.Connection, repo: str, path: str) -> None:
    conn.execute(
        "UPDATE graph_facts SET linked = 1, prev_defines = NULL, prev_interface = NULL "
        "WHERE repo = ? AND path = ?",
        (repo, path),
    )


def stale_files(
    conn: sqlite3.Connection, repo: str, version: int
) -> tuple[list[StaleFile], list[str]]:
    """Files whose facts are missing or older than the file, and facts of files gone."""
    cur = conn.execute(
        "SELECT f.path, f.language, f.file_hash FROM files f LEFT JOIN graph_facts g "
        "ON g.repo = f.repo AND g.path = f.path WHERE f.repo = ? AND (g.path IS NULL OR "
        "(g.linked = 1 AND (g.file_hash != f.file_hash OR g.version != ?))) ORDER BY f.path",
        (repo, version),
    )
    changed = [StaleFile(*row) for row in cur]
    cur = conn.execute(
        "SELECT g.path FROM graph_facts g WHERE g.repo = ? AND NOT EXISTS "
        "(SELECT 1 FROM files f WHERE f.repo = g.repo AND f.path = g.path) ORDER BY g.path",
        (repo,),
    )
    removed = [str(row[0]) for row in cur]
    return changed, removed


def facts_meta(conn: sqlite3.Connection, repo: str, path: str) -> FactsMeta | None:
    row = conn.execute(
        "SELECT defines, interface FROM graph_facts WHERE repo = ? AND path = ?", (repo, path)
    ).fetchone()
    if row is None:
        return None
    return FactsMeta(json.loads(row[0]), str(row[1]))


def write_facts(
    conn: sqlite3.Connection,
    repo: str,
    path: str,
    *,
    file_hash: str,
    version: int,
    language: str,
    defines: Sequence[str],
    interface: str,
    facts_json: str,
) -> None:
    conn.execute(
        "INSERT INTO graph_facts(repo, path, file_hash, version, language, defines, interface, "
        "facts) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(repo, path) DO UPDATE SET "
        "file_hash = excluded.file_hash, version = excluded.version, "
        "language = excluded.language, defines = excluded.defines, "
        "interface = excluded.interface, facts = excluded.facts",
        (
            repo,
            path,
            file_hash,
            version,
            language,
            json.dumps(list(defines)),
            interface,
            facts_json,
        ),
    )


def forget_file(conn: sqlite3.Connection, repo: str, path: str) -> None:
    """Everything the graph holds for a file that left the index."""
    conn.execute("DELETE FROM graph_facts WHERE repo = ? AND path = ?", (repo, path))
    conn.execute("DELETE FROM graph_deps WHERE repo = ? AND path = ?", (repo, path))
    conn.execute("DELETE FROM graph_http WHERE repo = ? AND path = ?", (repo, path))
    conn.execute("DELETE FROM edges WHERE repo = ? AND path = ?", (repo, path))


def dependents(conn: sqlite3.Connection, keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """Files whose last resolution looked at any of `keys` ((kind, value) pairs)."""
    found: set[tuple[str, str]] = set()
    by_kind: dict[str, list[str]] = {}
    for kind, value in keys:
        by_kind.setdefault(kind, []).append(value)
    for kind, values in by_kind.items():
        unique = sorted(set(values))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            cur = conn.execute(
                f"SELECT DISTINCT repo, path FROM graph_deps WHERE kind = ? AND value IN ({marks})",
                (kind, *part),
            )
            found.update((str(r), str(p)) for r, p in cur)
    return found


def replace_resolution(
    conn: sqlite3.Connection,
    repo: str,
    path: str,
    edges: Sequence[EdgeRow],
    deps: Iterable[tuple[str, str]],
    http: Sequence[HttpFact],
) -> None:
    marks = ",".join("?" * len(RESOLVED_TYPES))
    conn.execute(
        f"DELETE FROM edges WHERE repo = ? AND path = ? AND type IN ({marks})",
        (repo, path, *RESOLVED_TYPES),
    )
    conn.execute("DELETE FROM graph_deps WHERE repo = ? AND path = ?", (repo, path))
    conn.execute("DELETE FROM graph_http WHERE repo = ? AND path = ?", (repo, path))
    insert_edges(conn, repo, path, edges)
    conn.executemany(
        "INSERT INTO graph_deps(repo, path, kind, value) VALUES (?, ?, ?, ?)",
        [(repo, path, kind, value) for kind, value in sorted(set(deps))],
    )
    conn.executemany(
        "INSERT INTO graph_http(repo, path, role, method, pattern, line, node) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(repo, path, h.role, h.method, h.pattern, h.line, h.node) for h in http],
    )


def insert_edges(conn: sqlite3.Connection, repo: str, path: str, edges: Iterable[EdgeRow]) -> None:
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
            for e in edges
        ],
    )


def delete_owned(conn: sqlite3.Connection, repo: str, path: str, types: Sequence[str]) -> None:
    marks = ",".join("?" * len(types))
    conn.execute(
        f"DELETE FROM edges WHERE repo = ? AND path = ? AND type IN ({marks})",
        (repo, path, *types),
    )


def http_facts(conn: sqlite3.Connection) -> list[tuple[str, str, str, str, str, int, str]]:
    cur = conn.execute(
        "SELECT repo, path, role, method, pattern, line, node FROM graph_http "
        "ORDER BY repo, path, line"
    )
    return [(str(a), str(b), str(c), str(d), str(e), int(f), str(g)) for a, b, c, d, e, f, g in cur]


def write_importance(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str, float]]) -> None:
    conn.execute("DELETE FROM graph_nodes")
    conn.executemany(
        "INSERT INTO graph_nodes(id, repo, kind, importance) VALUES (?, ?, ?, ?)", rows
    )


def forget_repo(conn: sqlite3.Connection, repo: str) -> int:
    """Drop a repository's graph rows; return the number of edges deleted."""
    edges = conn.execute(
        "DELETE FROM edges WHERE repo = ? OR (target_repo = ? AND type = 'http')", (repo, repo)
    ).rowcount
    for table in ("graph_facts", "graph_deps", "graph_http", "graph_nodes"):
        conn.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))
    return int(edges)
