"""Query plans of the embedded store that sampled statistics must not spoil."""

from __future__ import annotations

from pathlib import Path

from codecompass.models import EdgeQuery
from codecompass.storage.sqlite.db import Database
from codecompass.storage.sqlite.graph import SQLiteGraph

# `sqlite_stat1` rows for the edges table of a real index (sympy, 490,000 edges) after
# `refresh_statistics`: sampled, so each index claims a different row count, and the
# type index looks small enough to scan and sort.
SAMPLED_EDGE_STATS = [
    ("edges", "edges_by_type", "285120 1001"),
    ("edges", "edges_by_target_file", "5360784 1001 19"),
    ("edges", "edges_by_owner", "367200 1001 19"),
    ("edges", "edges_in", "3555240 5 5"),
    ("edges", "edges_out", "1182896 14 9"),
]


def test_the_first_edge_is_read_in_table_order_whatever_the_statistics(tmp_path: Path) -> None:
    db = Database(tmp_path)
    db.refresh_statistics()
    db.conn.execute("DELETE FROM sqlite_stat1 WHERE tbl = 'edges'")
    db.conn.executemany("INSERT INTO sqlite_stat1 VALUES (?, ?, ?)", SAMPLED_EDGE_STATS)
    db.conn.execute("ANALYZE sqlite_schema")  # load the statistics
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    assert SQLiteGraph(db).edges(EdgeQuery(limit=1)) == []
    db.conn.set_trace_callback(None)
    (sql,) = [s for s in statements if "FROM edges" in s]
    plan = [row[3] for row in db.conn.execute(f"EXPLAIN QUERY PLAN {sql}")]
    # Without NOT INDEXED: "SCAN edges USING INDEX edges_by_type", then a sort of
    # every edge ("USE TEMP B-TREE FOR ORDER BY") to return the first.
    assert plan == ["SCAN edges"]
    db.close()
