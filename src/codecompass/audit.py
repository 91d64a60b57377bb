"""The audit log of tool calls, and the usage figures built from it.

Every call a frontend serves (MCP tools today) becomes one `audit_log` row in the
metastore: time, tool, client, query id, filters, result and evidence counts, elapsed
time, status and error. File contents are never stored; query text only when
`[server] log_queries` is on. `usage_stats` turns the rows (plus the index runs) into
the figures `codecompass stats` prints and `/metrics` exports: p50/p95 latency per tool,
no-hit rate, evidence rate, indexing volumes and provider errors.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codecompass.storage.sqlite import DB_FILE, utc_now

MAX_ERROR_CHARS = 500
MAX_QUERY_CHARS = 1000
# Tools whose result count says whether anything was found (for the no-hit rate).
SEARCH_TOOLS = ("search_code", "ask_code", "find_symbol")


def new_query_id() -> str:
    return uuid.uuid4().hex[:16]


@dataclass(slots=True)
class CallRecord:
    """One tool call, filled in while it runs and written when it ends."""

    tool: str
    query_id: str = field(default_factory=new_query_id)
    client: str | None = None
    transport: str | None = None
    started: float = field(default_factory=time.perf_counter)
    query: str | None = None
    filters: dict[str, Any] = field(default_factory=dict)
    result_count: int | None = None
    evidence_count: int | None = None
    status: str = "ok"
    error_code: str | None = None
    error: str | None = None
    provider_error: str | None = None

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    def fail(self, code: str, message: str) -> None:
        self.status = "error"
        self.error_code = code
        self.error = message[:MAX_ERROR_CHARS]


class AuditLog:
    """Appends call records to `<data dir>/index.sqlite` once that database exists.

    It never creates the database: a server started before the first index run audits
    nothing until `codecompass index` has made it (calls then fail with `not_indexed`).
    Uses its own connection so that writes never wait on a long engine read.
    """

    def __init__(self, data_dir: Path, *, log_queries: bool = True) -> None:
        self.path = data_dir / DB_FILE
        self.log_queries = log_queries
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None and self.path.is_file():
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=10000")
            has_table = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_log'"
            ).fetchone()
            if has_table is None:
                # Written by a codecompass without the audit migration: migrate on next open.
                conn.close()
                return None
            self._conn = conn
        return self._conn

    def record(self, rec: CallRecord) -> None:
        elapsed_ms = rec.elapsed_ms()
        query = rec.query[:MAX_QUERY_CHARS] if (rec.query and self.log_queries) else None
        row = (
            utc_now(),
            rec.tool,
            rec.client,
            rec.transport,
            rec.query_id,
            query,
            _filters_json(rec.filters),
            rec.result_count,
            rec.evidence_count,
            round(elapsed_ms, 3),
            rec.status,
            rec.error_code,
            rec.error,
            rec.provider_error,
        )
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            conn.execute(
                "INSERT INTO audit_log(ts, tool, client, transport, query_id, query, filters, "
                "result_count, evidence_count, elapsed_ms, status, error_code, error, "
                "provider_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _filters_json(filters: dict[str, Any]) -> str | None:
    kept = {k: v for k, v in filters.items() if v is not None}
    return json.dumps(kept, sort_keys=True, default=str) if kept else None


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def usage_stats(conn: sqlite3.Connection, since: str | None = None) -> dict[str, Any]:
    """Usage figures from the audit log and index runs, optionally from ISO time `since`."""
    where, params = ("WHERE ts >= ?", (since,)) if since else ("", ())
    rows = conn.execute(
        "SELECT tool, elapsed_ms, status, result_count, evidence_count, provider_error "
        f"FROM audit_log {where}",
        params,
    ).fetchall()
    latencies: dict[str, list[float]] = defaultdict(list)
    tools: dict[str, dict[str, Any]] = {}
    provider_errors: dict[str, int] = defaultdict(int)
    searched = no_hit = evidence_calls = with_evidence = 0
    for tool, elapsed, status, results, evidences, provider in rows:
        entry = tools.setdefault(
            tool, {"calls": 0, "errors": 0, "no_hit": 0, "with_evidence": 0, "answered": 0}
        )
        entry["calls"] += 1
        latencies[tool].append(float(elapsed))
        if status != "ok":
            entry["errors"] += 1
        if provider:  # "<provider>: <message>"
            provider_errors[str(provider).partition(":")[0]] += 1
        if status == "ok" and results is not None and tool in SEARCH_TOOLS:
            searched += 1
            entry["answered"] += 1
            if results == 0:
                no_hit += 1
                entry["no_hit"] += 1
        if status == "ok" and evidences is not None:
            evidence_calls += 1
            if evidences > 0:
                with_evidence += 1
                entry["with_evidence"] += 1
    for tool, entry in tools.items():
        values = sorted(latencies[tool])
        entry["p50_ms"] = round(percentile(values, 0.5), 2)
        entry["p95_ms"] = round(percentile(values, 0.95), 2)
        entry["total_ms"] = round(sum(values), 2)
    return {
        "since": since,
        "calls": len(rows),
        "tools": dict(sorted(tools.items())),
        "no_hit_rate": round(no_hit / searched, 4) if searched else None,
        "evidence_rate": round(with_evidence / evidence_calls, 4) if evidence_calls else None,
        "provider_errors": dict(sorted(provider_errors.items())),
        "indexing": _indexing_volumes(conn, since),
    }


def _indexing_volumes(conn: sqlite3.Connection, since: str | None) -> dict[str, Any]:
    where, params = ("WHERE started_at >= ?", (since,)) if since else ("", ())
    per_day: dict[str, dict[str, int]] = {}
    statuses: dict[str, int] = defaultdict(int)
    for started, status, stats in conn.execute(
        f"SELECT started_at, status, stats FROM index_runs {where} ORDER BY started_at", params
    ):
        statuses[status] += 1
        day = per_day.setdefault(
            started[:10],
            {"runs": 0, "files_indexed": 0, "chunks_added": 0, "texts_embedded": 0},
        )
        day["runs"] += 1
        data = json.loads(stats) if stats else {}
        day["files_indexed"] += int(data.get("new", 0)) + int(data.get("changed", 0))
        day["chunks_added"] += int(data.get("chunks_added", 0))
        day["texts_embedded"] += int(data.get("texts_embedded", 0))
    totals = {
        key: sum(day[key] for day in per_day.values())
        for key in ("runs", "files_indexed", "chunks_added", "texts_embedded")
    }
    return {"runs_by_status": dict(sorted(statuses.items())), "totals": totals, "per_day": per_day}


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render_prometheus(stats: dict[str, Any]) -> str:
    """The usage figures in the Prometheus text exposition format (version 0.0.4)."""
    out: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        out.append(f"# HELP {name} {help_text}")
        out.append(f"# TYPE {name} {kind}")
        for labels, value in samples:
            out.append(f"{name}{labels} {value:g}")

    tools: dict[str, dict[str, Any]] = stats["tools"]
    metric(
        "codecompass_tool_calls_total",
        "counter",
        "Tool calls by tool and outcome.",
        [
            (f'{{tool="{_label(t)}",status="{s}"}}', float(n))
            for t, e in tools.items()
            for s, n in (("ok", e["calls"] - e["errors"]), ("error", e["errors"]))
        ],
    )
    out.append("# HELP codecompass_tool_latency_seconds Tool call latency.")
    out.append("# TYPE codecompass_tool_latency_seconds summary")
    for t, e in tools.items():
        label = _label(t)
        for q, key in (("0.5", "p50_ms"), ("0.95", "p95_ms")):
            out.append(
                f'codecompass_tool_latency_seconds{{tool="{label}",quantile="{q}"}} '
                f"{e[key] / 1000:g}"
            )
        out.append(
            f'codecompass_tool_latency_seconds_sum{{tool="{label}"}} {e["total_ms"] / 1000:g}'
        )
        out.append(f'codecompass_tool_latency_seconds_count{{tool="{label}"}} {e["calls"]}')
    metric(
        "codecompass_no_hit_ratio",
        "gauge",
        "Share of successful searches (search_code, ask_code, find_symbol) with no result.",
        [("", float(stats["no_hit_rate"] or 0.0))],
    )
    metric(
        "codecompass_evidence_ratio",
        "gauge",
        "Share of successful evidence-bearing calls that returned at least one evidence.",
        [("", float(stats["evidence_rate"] or 0.0))],
    )
    metric(
        "codecompass_provider_errors_total",
        "counter",
        "Failures of the embedding or chat model providers.",
        [(f'{{provider="{_label(p)}"}}', float(n)) for p, n in stats["provider_errors"].items()],
    )
    indexing = stats["indexing"]
    metric(
        "codecompass_index_runs_total",
        "counter",
        "Index runs by final status.",
        [(f'{{status="{_label(s)}"}}', float(n)) for s, n in indexing["runs_by_status"].items()],
    )
    totals = indexing["totals"]
    for key, help_text in (
        ("files_indexed", "Files (re)indexed: new plus changed."),
        ("chunks_added", "Chunks added to the index."),
        ("texts_embedded", "Texts embedded by the model (cache misses)."),
    ):
        metric(f"codecompass_{key}_total", "counter", help_text, [("", float(totals[key]))])
    return "\n".join(out) + "\n"
