"""`codecompass ask` and `codecompass stats` through click, with the real model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from codecompass.audit import CallRecord
from codecompass.cli import main
from codecompass.storage.sqlite.audit import SQLiteAudit
from tests.conftest import make_git_repo
from tests.fake_llm import fake_chat_server

SOURCE = '''"""Sessions."""


def expire_sessions(store: dict[str, float], now: float) -> int:
    """Drop sessions whose deadline has passed; return how many were dropped."""
    old = [key for key, deadline in store.items() if deadline < now]
    for key in old:
        del store[key]
    return len(old)
'''


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ask")
    repo = make_git_repo(
        root / "app",
        {
            "auth/sessions.py": SOURCE,
            "auth/tokens.py": '"""Tokens."""\n\n\ndef mint() -> str:\n    return "t"\n',
        },
    )
    result = CliRunner().invoke(main, ["index", str(repo), "--data-dir", str(root / "data")])
    assert result.exit_code == 0, result.output
    return root / "data"


def test_ask_extractive_then_with_a_chat_endpoint(data: Path) -> None:
    question = ["ask", "how are expired sessions removed?", "--data-dir", str(data)]
    result = CliRunner().invoke(main, [*question, "--json"])
    answer = json.loads(result.output)
    assert (result.exit_code, answer["mode"]) == (0, "extractive")
    assert answer["cited"] == [e["n"] for e in answer["evidences"]]
    assert "expire_sessions" in {e["symbol"] for e in answer["evidences"]}
    human = CliRunner().invoke(main, question)
    assert "app/auth/sessions.py:4-9  expire_sessions" in human.output
    with fake_chat_server() as chat:
        env = {"CODECOMPASS_LLM_BASE_URL": chat.base_url, "CODECOMPASS_LLM_MODEL": "m"}
        result = CliRunner().invoke(main, [*question, "--json"], env=env)
        chat.status = 502
        failed = CliRunner().invoke(main, question, env=env)
    answer = json.loads(result.output)
    assert (answer["mode"], answer["model"], answer["answer"]) == (
        "llm",
        "fake-chat-1",
        chat.answer,
    )
    assert failed.exit_code == 0 and "The chat model failed" in failed.output
    unknown = CliRunner().invoke(main, [*question, "--repo", "nope"])
    assert unknown.exit_code == 1 and "Unknown repository 'nope'" in unknown.output


def test_stats_reports_the_audit_log(data: Path) -> None:
    log = SQLiteAudit(data)
    for ms, results in ((12.0, 2), (40.0, 0)):
        rec = CallRecord(tool="search_code", result_count=results, evidence_count=results)
        rec.started -= ms / 1000
        log.record(rec.entry(log_queries=True))
    log.close()
    result = CliRunner().invoke(main, ["stats", "--data-dir", str(data), "--json"])
    stats = json.loads(result.output)
    assert result.exit_code == 0
    assert stats["tools"]["search_code"]["calls"] == 2
    assert stats["no_hit_rate"] == 0.5 and stats["evidence_rate"] == 0.5
    assert stats["indexing"]["totals"]["runs"] == 1
    assert stats["indexing"]["totals"]["files_indexed"] == 2
    human = CliRunner().invoke(main, ["stats", "--data-dir", str(data), "--days", "1"])
    assert "search_code" in human.output and "no-hit rate 50.0%" in human.output
