"""8 MCP clients over streamable HTTP against the server backend while an indexer
rewrites a file: no error, no half-indexed file, nothing outside the reader's scope
(benchmarks/mcp_load.py, run for a short while; it prints the figures for longer runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pg import Cluster

pytestmark = pytest.mark.slow
SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "mcp_load.py"


def test_eight_clients_while_indexing(pg_cluster: Cluster) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPASS_")}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--clients", "8", "--seconds", "20", "--json",
         "--postgres-url", pg_cluster.create_database()],
        check=True, capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    report = json.loads(out.stdout)
    assert report["errors"] == 0, report["error_examples"]
    assert report["indexer_failures"] == []
    assert report["index_rounds"] >= 2  # the file changed under the clients' feet
    assert report["answers_showing_churn"] > 50  # so "no mixed version" means something
    assert report["mixed"] == 0
    assert report["admin_sees_canary"] is True  # the canary is there to be found...
    assert report["leaks"] == 0  # ...and the reader never sees it
    assert set(report["tools"]) == {
        "ask_code", "find_symbol", "get_callers", "index_status", "open_file",
        "repo_overview", "search_code", "traverse_graph",
    }  # fmt: skip
