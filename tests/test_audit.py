"""The audit log and the usage figures computed from it."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from codecompass.audit import CallRecord, percentile, render_prometheus, usage_stats
from codecompass.models import utc_now
from codecompass.storage.embedded import open_embedded
from codecompass.storage.sqlite.audit import SQLiteAudit


def rec(tool: str, ms: float, **fields: object) -> CallRecord:
    r = CallRecord(tool=tool, client="test/1", transport="memory")
    r.started -= ms / 1000
    for key, value in fields.items():
        setattr(r, key, value)
    return r


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]
    assert (percentile(values, 0.5), percentile(values, 0.95), percentile([], 0.5)) == (
        10.0,
        19.0,
        0.0,
    )


def test_records_and_stats(tmp_path: Path) -> None:
    backend = open_embedded(tmp_path)
    run = backend.runs.start_run("r")
    backend.runs.finish_run(
        run, "ok", {"new": 3, "changed": 2, "chunks_added": 40, "texts_embedded": 30}
    )
    today = utc_now()[:10]

    def record(r: CallRecord) -> None:
        backend.audit.record(r.entry(log_queries=False))

    record(rec("search_code", 10, query="secret words", result_count=3, evidence_count=3))
    record(rec("search_code", 30, result_count=0, evidence_count=0, filters={"repo": None}))
    record(rec("ask_code", 50, result_count=2, evidence_count=2, provider_error="llm: down"))
    failed = rec("open_file", 5, filters={"path": ".env", "start": None})
    failed.fail("access_denied", ".env is a secrets file")
    record(failed)
    rows = [
        (e.tool, e.client, e.transport, e.query, e.filters, e.status, e.error_code)
        for e in backend.audit.entries()
    ]
    assert rows[0][:5] == ("search_code", "test/1", "memory", None, None)
    assert rows[3] == (
        "open_file",
        "test/1",
        "memory",
        None,
        '{"path": ".env"}',
        "error",
        "access_denied",
    )

    stats = usage_stats(backend.audit, backend.runs)
    assert stats["calls"] == 4
    assert stats["tools"]["search_code"]["calls"] == 2
    assert stats["tools"]["search_code"]["no_hit"] == 1
    assert stats["tools"]["open_file"]["errors"] == 1
    assert 29.0 < stats["tools"]["search_code"]["p95_ms"] < 40.0
    assert (stats["no_hit_rate"], stats["evidence_rate"]) == (round(1 / 3, 4), round(2 / 3, 4))
    assert stats["provider_errors"] == {"llm": 1}
    assert stats["indexing"]["totals"] == {
        "runs": 1,
        "files_indexed": 5,
        "chunks_added": 40,
        "texts_embedded": 30,
    }
    assert stats["indexing"]["per_day"][today]["runs"] == 1
    assert usage_stats(backend.audit, backend.runs, since="2999-01-01")["calls"] == 0

    text = render_prometheus(stats)
    assert 'codecompass_tool_calls_total{tool="open_file",status="error"} 1' in text
    assert 'codecompass_tool_latency_seconds_count{tool="search_code"} 2' in text
    assert 'codecompass_provider_errors_total{provider="llm"} 1' in text
    assert "codecompass_chunks_added_total 40" in text
    assert text.endswith("\n")
    backend.close()


def test_per_day_series(tmp_path: Path) -> None:
    backend = open_embedded(tmp_path)

    def record(day: str, ms: float, r: CallRecord) -> None:
        entry = r.entry(log_queries=False)
        backend.audit.record(replace(entry, ts=f"{day}T12:00:00+00:00", elapsed_ms=ms))

    failed_search = rec("search_code", 0, result_count=0)
    failed_search.fail("internal", "boom")
    denied = rec("open_file", 0)
    denied.fail("access_denied", ".env is a secrets file")
    # A later day first: the series is ordered by day, not by insertion.
    record("2024-05-02", 7.5, rec("open_file", 0))
    record("2024-05-01", 10, rec("search_code", 0, result_count=3))
    record("2024-05-01", 30, rec("search_code", 0, result_count=0))
    record("2024-05-01", 50, rec("ask_code", 0, result_count=2))
    record("2024-05-01", 20, failed_search)  # an error: not a search, even with a count
    record("2024-05-01", 5, rec("list_files", 0, result_count=0))  # not a search tool
    record("2024-05-02", 12.3456, denied)
    record("2024-05-02", 3, rec("search_code", 0))  # no result count: not a search

    day1 = {
        "calls": 5,
        "errors": 1,
        "searches": 3,
        "no_hit": 1,
        "no_hit_rate": 0.3333,
        "p50_ms": 20.0,
        "p95_ms": 50.0,
    }
    day2 = {
        "calls": 3,
        "errors": 1,
        "searches": 0,
        "no_hit": 0,
        "no_hit_rate": None,
        "p50_ms": 7.5,
        "p95_ms": 12.35,
    }
    stats = usage_stats(backend.audit, backend.runs)
    assert list(stats["per_day"]) == ["2024-05-01", "2024-05-02"]
    assert stats["per_day"] == {"2024-05-01": day1, "2024-05-02": day2}
    assert stats["calls"] == 8 and stats["no_hit_rate"] == 0.3333
    since = usage_stats(backend.audit, backend.runs, since="2024-05-02")
    assert since["per_day"] == {"2024-05-02": day2}
    assert usage_stats(backend.audit, backend.runs, since="2999-01-01")["per_day"] == {}
    backend.close()


def test_query_text_is_kept_only_when_configured(tmp_path: Path) -> None:
    open_embedded(tmp_path).close()
    audit = SQLiteAudit(tmp_path)
    audit.record(rec("search_code", 1, query="where is x").entry(log_queries=True))
    audit.record(rec("search_code", 1, query="not kept").entry(log_queries=False))
    audit.close()
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    assert conn.execute("SELECT query FROM audit_log").fetchall() == [("where is x",), (None,)]


def test_nothing_is_written_before_an_index_exists(tmp_path: Path) -> None:
    SQLiteAudit(tmp_path).record(rec("search_code", 1).entry(log_queries=True))
    assert not (tmp_path / "index.sqlite").exists()
