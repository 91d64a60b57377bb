"""The audit log of tool calls, and the usage figures built from it.

Every call a frontend serves (MCP tools today) becomes one `AuditEntry` in the backend's
audit store: time, tool, client, principal, query id, filters, result and evidence
counts, elapsed time, status and error. File contents are never stored; query text only when
`[server] log_queries` is on. `usage_stats` turns the rows (plus the index runs) into
the figures `codecompass stats` prints and `/metrics` exports: p50/p95 latency per tool,
no-hit rate, evidence rate, indexing volumes and provider errors, plus a per-day series of
calls, errors, no-hit rate and latency (`stats --json` only).
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from codecompass.models import AuditEntry, utc_now
from codecompass.protocols import AuditStore, IndexRuns

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
    principal: str | None = None
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

    def entry(self, *, log_queries: bool) -> AuditEntry:
        """What the audit log keeps: never file contents, the query text only if asked."""
        query = self.query[:MAX_QUERY_CHARS] if (self.query and log_queries) else None
        return AuditEntry(
            ts=utc_now(),
            tool=self.tool,
            query_id=self.query_id,
            elapsed_ms=round(self.elapsed_ms(), 3),
            status=self.status,
            client=self.client,
            principal=self.principal,
            transport=self.transport,
            query=query,
            filters=_filters_json(self.filters),
            result_count=self.result_count,
            evidence_count=self.evidence_count,
            error_code=self.error_code,
            error=self.error,
            provider_error=self.provider_error,
        )


def _filters_json(filters: dict[str, Any]) -> str | None:
    kept = {k: v for k, v in filters.items() if v is not None}
    return json.dumps(kept, sort_keys=True, default=str) if kept else None


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def usage_stats(audit: AuditStore, runs: IndexRuns, since: str | None = None) -> dict[str, Any]:
    """Usage figures from the audit log and index runs, optionally from ISO time `since`."""
    entries = audit.entries(since)
    latencies: dict[str, list[float]] = defaultdict(list)
    tools: dict[str, dict[str, Any]] = {}
    provider_errors: dict[str, int] = defaultdict(int)
    days: dict[str, dict[str, int]] = {}
    day_latencies: dict[str, list[float]] = defaultdict(list)
    searched = no_hit = evidence_calls = with_evidence = 0
    for e in entries:
        entry = tools.setdefault(
            e.tool, {"calls": 0, "errors": 0, "no_hit": 0, "with_evidence": 0, "answered": 0}
        )
        day = days.setdefault(e.ts[:10], {"calls": 0, "errors": 0, "searches": 0, "no_hit": 0})
        entry["calls"] += 1
        day["calls"] += 1
        latencies[e.tool].append(float(e.elapsed_ms))
        day_latencies[e.ts[:10]].append(float(e.elapsed_ms))
        if e.status != "ok":
            entry["errors"] += 1
            day["errors"] += 1
        if e.provider_error:  # "<provider>: <message>"
            provider_errors[e.provider_error.partition(":")[0]] += 1
        if e.status == "ok" and e.result_count is not None and e.tool in SEARCH_TOOLS:
            searched += 1
            entry["answered"] += 1
            day["searches"] += 1
            if e.result_count == 0:
                no_hit += 1
                entry["no_hit"] += 1
                day["no_hit"] += 1
        if e.status == "ok" and e.evidence_count is not None:
            evidence_calls += 1
            if e.evidence_count > 0:
                with_evidence += 1
                entry["with_evidence"] += 1
    for tool, entry in tools.items():
        values = sorted(latencies[tool])
        entry["p50_ms"] = round(percentile(values, 0.5), 2)
        entry["p95_ms"] = round(percentile(values, 0.95), 2)
        entry["total_ms"] = round(sum(values), 2)
    return {
        "since": since,
        "calls": len(entries),
        "tools": dict(sorted(tools.items())),
        "no_hit_rate": round(no_hit / searched, 4) if searched else None,
        "evidence_rate": round(with_evidence / evidence_calls, 4) if evidence_calls else None,
        "provider_errors": dict(sorted(provider_errors.items())),
        "indexing": _indexing_volumes(runs, since),
        "per_day": _per_day(days, day_latencies),
    }


def _per_day(
    days: dict[str, dict[str, int]], latencies: dict[str, list[float]]
) -> dict[str, dict[str, Any]]:
    """The day counters with their no-hit rate and p50/p95 latency, days ascending."""
    series: dict[str, dict[str, Any]] = {}
    for day, counts in sorted(days.items()):
        values = sorted(latencies[day])
        searches = counts["searches"]
        series[day] = {
            **counts,
            "no_hit_rate": round(counts["no_hit"] / searches, 4) if searches else None,
            "p50_ms": round(percentile(values, 0.5), 2),
            "p95_ms": round(percentile(values, 0.95), 2),
        }
    return series


def _indexing_volumes(runs: IndexRuns, since: str | None) -> dict[str, Any]:
    per_day: dict[str, dict[str, int]] = {}
    statuses: dict[str, int] = defaultdict(int)
    for run in runs.runs(since=since):
        statuses[run.status] += 1
        day = per_day.setdefault(
            run.started_at[:10],
            {"runs": 0, "files_indexed": 0, "chunks_added": 0, "texts_embedded": 0},
        )
        day["runs"] += 1
        data = run.stats or {}
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
