"""Latency of `search_code` through the MCP stdio transport, on the installed `rich` package.

Starts `codecompass serve` as a subprocess, connects the official SDK client over stdio,
warms up, then times N `search_code` calls (round trip as the agent sees it: JSON-RPC
over pipes, argument validation, search, audit write, serialization). Prints p50/p95
client-side, and the server-side time of the same calls from the audit log, so the
transport's share shows.

    .venv/bin/python benchmarks/mcp_search_latency.py [--data-dir .demo/rich] [--calls 200]

Without --data-dir, `rich` is copied to a temporary folder and indexed first.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from codecompass.audit import percentile
from codecompass.engine import Engine

QUERIES = [
    "render a table with borders",
    "progress bar with time remaining",
    "syntax highlighting of source code",
    "parse console markup tags",
    "measure the width of text in cells",
    "pretty print nested data structures",
    "traceback rendering with locals",
    "detect terminal color support",
    "wrap text to a given width",
    "live updating display refresh",
]
WARMUP = 5


async def measure(data_dir: Path, calls: int, top_k: int) -> tuple[list[float], list[str]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codecompass", "serve", "--data-dir", str(data_dir)]
    )
    times: list[float] = []
    query_ids: list[str] = []
    async with Client(params, read_timeout_seconds=120) as client:
        for i in range(WARMUP):
            await client.call_tool("search_code", {"query": QUERIES[i % len(QUERIES)]})
        for i in range(calls):
            args = {"query": QUERIES[i % len(QUERIES)], "top_k": top_k}
            began = time.perf_counter()
            result = await client.call_tool("search_code", args)
            times.append((time.perf_counter() - began) * 1000)
            assert not result.is_error and result.structured_content is not None, result
            query_ids.append(result.structured_content["query_id"])
    return times, query_ids


def server_times(data_dir: Path, query_ids: list[str]) -> list[float]:
    conn = sqlite3.connect(data_dir / "index.sqlite")
    try:
        marks = ",".join("?" * len(query_ids))
        rows = conn.execute(
            f"SELECT elapsed_ms FROM audit_log WHERE query_id IN ({marks})", query_ids
        ).fetchall()
    finally:
        conn.close()
    return sorted(float(r[0]) for r in rows)


def report(label: str, values: list[float]) -> None:
    ordered = sorted(values)
    print(
        f"{label:<22} p50 {percentile(ordered, 0.5):7.1f} ms   p95 "
        f"{percentile(ordered, 0.95):7.1f} ms   mean {statistics.fmean(ordered):7.1f} ms   "
        f"max {ordered[-1]:7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, help="An existing index of the package.")
    parser.add_argument("--package", default="rich")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--top-k", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir
        if data_dir is None:
            module = importlib.import_module(args.package)
            assert module.__file__ is not None
            work = Path(tmp) / args.package
            shutil.copytree(
                Path(module.__file__).parent, work, ignore=shutil.ignore_patterns("__pycache__")
            )
            data_dir = Path(tmp) / "data"
            began = time.perf_counter()
            engine, _ = Engine.for_repo(work, data_dir=data_dir)
            with engine:
                stats = engine.index(work)
            print(
                f"indexed {args.package}: {stats.files_seen} files, {stats.chunks_added} chunks "
                f"in {time.perf_counter() - began:.1f} s"
            )
        times, query_ids = anyio.run(measure, data_dir, args.calls, args.top_k)
        print(f"search_code over stdio, {len(times)} calls (top_k {args.top_k}), after warm-up:")
        report("client round trip", times)
        report("server (audit log)", server_times(data_dir, query_ids))


if __name__ == "__main__":
    main()
