"""`codecompass memory …` through click with the real embedding model, on a small indexed
repository: add, list, search, context, status, forget, clear, export/import, prune and
capture, with their exit codes and exact outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from codecompass.cli import main
from tests.conftest import make_git_repo

SERVICE = '''"""Orders service."""

from decimal import Decimal


def parse_amount(text: str) -> Decimal:
    """Turn user input such as '12.50' into a Decimal."""
    return Decimal(text.strip())


def cancel_order(orders: dict[str, Decimal], order_id: str) -> bool:
    """Remove an order; return whether it existed."""
    return orders.pop(order_id, None) is not None
'''

PARSE_AMOUNT = "shop/orders/service.py#parse_amount"
DECISION = "We decided to use PostgreSQL advisory locks for the job queue because Redis was flaky."
PATTERN = "Money amounts typed by users go through `parse_amount` and stay Decimal."
# A GitHub token shape, built at run time so that no scanner flags this file.
GITHUB_TOKEN = "ghp_" + "".join(chr(ord("a") + (i * 7) % 26) + str(i % 10) for i in range(18))
CONTEXT_HEADER = (
    "## Project Memory\nWhat earlier sessions recorded about this project (Code Compass "
    "memory; `memory_recall` finds more).\n"
)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-memory")
    repo = make_git_repo(root / "shop", {"orders/service.py": SERVICE})
    data = root / "data"
    result = CliRunner().invoke(main, ["index", str(repo), "--data-dir", str(data), "--json"])
    assert result.exit_code == 0, result.output
    return data


@pytest.fixture
def data(indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the index per test, and no workspace found from the current folder."""
    monkeypatch.delenv("CODECOMPASS_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "data"
    shutil.copytree(indexed, copy)
    return copy


def memory(data: Path | None, *args: str, stdin: str | None = None) -> Result:
    where = ["--data-dir", str(data)] if data is not None else []
    return CliRunner().invoke(main, ["memory", *args, *where], input=stdin)


def as_json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def add(data: Path, content: str, *options: str) -> dict[str, Any]:
    done: dict[str, Any] = as_json(memory(data, "add", content, *options, "--json"))
    return done


def listed(data: Path) -> list[dict[str, Any]]:
    memories: list[dict[str, Any]] = as_json(memory(data, "list", "--json"))["memories"]
    return memories


def test_add_stores_once_links_and_reads_stdin(data: Path) -> None:
    first = add(data, PATTERN, "--type", "pattern", "--tag", "Money", "--tag", "#money")
    mem_id = first["id"]
    assert mem_id.startswith("mem_") and len(mem_id) == 16
    assert first == {
        "status": "created",
        "id": mem_id,
        "similar_to": None,
        "similarity": None,
        "links": [PARSE_AMOUNT],  # the backticked name is a unique function
        "evicted": [],
        "message": f"Remembered as {mem_id}.",
    }
    again = memory(data, "add", "  " + PATTERN.lower() + "  ")
    assert again.exit_code == 0, again.output
    assert again.stdout == f"Already remembered as {mem_id} (same text).\n  about {PARSE_AMOUNT}\n"
    piped = memory(
        data, "add", "-", "--type", "context", "--json", stdin="Staging deploys need the VPN.\n"
    )
    from_stdin = as_json(piped)
    assert from_stdin["status"] == "created" and from_stdin["links"] == []
    items = {m["id"]: m for m in listed(data)}
    assert set(items) == {mem_id, from_stdin["id"]}
    assert (items[mem_id]["type"], items[mem_id]["tags"], items[mem_id]["source"]) == (
        "pattern",
        ["money"],
        "cli",
    )
    assert items[from_stdin["id"]]["content"] == "Staging deploys need the VPN."
    assert items[from_stdin["id"]]["expires_at"] is None  # context never expires
    linked = as_json(memory(data, "add", DECISION, "--symbol", "cancel_order", "--json"))
    assert linked["links"] == ["shop/orders/service.py#cancel_order"]


def test_add_refuses_secrets_and_bad_input(data: Path) -> None:
    secret = memory(data, "add", f"The CI deploy token is {GITHUB_TOKEN} for now.")
    assert secret.exit_code == 1
    assert "Refused: the memory holds a secret (a GitHub token (ghp_" in secret.stderr
    assert GITHUB_TOKEN not in secret.output
    as_error = memory(data, "add", f"token {GITHUB_TOKEN}", "--json")
    assert as_error.exit_code == 1
    error = json.loads(as_error.stdout)["error"]
    assert error["code"] == "invalid_argument" and "GitHub token" in error["message"]
    assert GITHUB_TOKEN not in as_error.output
    empty = memory(data, "add", "   ")
    assert empty.exit_code == 1 and "The memory is empty" in empty.stderr
    unknown = memory(data, "add", "About a ghost.", "--symbol", "no_such_function")
    assert unknown.exit_code == 1 and "no_such_function" in unknown.stderr
    bad_type = memory(data, "add", "Orders are kept in memory.", "--type", "opinion")
    assert bad_type.exit_code == 2
    assert listed(data) == []


def test_list_search_and_context(data: Path) -> None:
    decision = add(data, DECISION, "--type", "decision", "--tag", "queue")["id"]
    pattern = add(data, PATTERN, "--type", "pattern")["id"]
    plain = memory(data, "list")
    assert plain.exit_code == 0
    lines = plain.stdout.splitlines()
    assert sorted(lines) == sorted(
        [
            f"{decision} [decision] {DECISION} #queue",
            f"{pattern} [pattern] {PATTERN} → {PARSE_AMOUNT}",
        ]
    )
    assert [m["id"] for m in listed(data)] == [line.split()[0] for line in lines]
    only = as_json(memory(data, "list", "--type", "pattern", "--json"))["memories"]
    assert [m["id"] for m in only] == [pattern]

    found = memory(data, "search", "which lock does the job queue use")
    assert found.exit_code == 0
    assert found.stdout.splitlines()[0] == f"{decision} [decision] {DECISION} #queue"
    hits = as_json(memory(data, "search", "job queue locking", "--budget", "50", "--json"))
    assert [h["memory"]["id"] for h in hits["hits"]] == [decision]
    assert hits["budget"] == 50 and 0 < hits["tokens"] <= 50
    assert hits["text"] == f"{decision} [decision] {DECISION} #queue"
    assert hits["hits"][0]["memory"]["access_count"] == 1  # the plain search was a use
    nothing = memory(data, "search", "payroll [v2]", "--type", "spec")
    assert (nothing.exit_code, nothing.stdout) == (0, "No memory about 'payroll [v2]'.\n")

    context = memory(data, "context")
    assert context.exit_code == 0
    assert context.stdout == (
        CONTEXT_HEADER
        + f"\n### Decisions\n- {DECISION}\n"
        + f"\n### Patterns\n- {PATTERN} (about `{PARSE_AMOUNT}`)\n"
    )
    counts = {m["id"]: m["access_count"] for m in listed(data)}
    assert counts == {decision: 2, pattern: 0}  # listing and context are not uses


def test_no_workspace_means_no_memories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODECOMPASS_DATA_DIR", raising=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    context = memory(None, "context")
    assert (context.exit_code, context.stdout, context.stderr) == (0, "", "")
    assert as_json(memory(None, "list", "--json")) == {"memories": []}
    assert as_json(memory(None, "status", "--json")) == {"total": 0}
    forget = memory(None, "forget", "mem_000000000000")
    assert forget.exit_code == 1 and "No Code Compass workspace here" in forget.stderr
    assert list(empty.iterdir()) == []  # reading never creates a workspace


def test_status_counts(data: Path) -> None:
    empty = as_json(memory(data, "status", "--json"))
    assert (empty["total"], empty["oldest"], empty["newest"]) == (0, None, None)
    first = add(data, DECISION, "--type", "decision")["id"]
    add(data, PATTERN, "--type", "pattern")
    add(data, "Staging deploys need the VPN.", "--type", "context")
    add(data, "The deploy is cut every Thursday after QA sign-off.", "--type", "spec")
    status = as_json(memory(data, "status", "--json"))
    assert status["oldest"] == next(m["created"] for m in listed(data) if m["id"] == first)
    del status["oldest"], status["newest"]
    assert status == {
        "total": 4,
        "by_type": {"decision": 1, "pattern": 1, "error": 0, "spec": 1, "context": 1},
        "by_source": {"cli": 4},
        "expired": 0,
        "prunable": 0,
        "dangling": [],
        "caps": {"project": 500, "per_type": 100},
        "over_cap": {},
        "budget_tokens": 2000,
    }
    human = memory(data, "status")
    assert human.stdout.splitlines() == [
        "4 memories (1 decision, 1 pattern, 1 spec, 1 context); 0 expired, 0 prunable.",
        "Caps: 500 per project, 100 per type; recall budget 2000 tokens.",
    ]


def test_forget(data: Path) -> None:
    mem_id = add(data, DECISION, "--type", "decision")["id"]
    unknown = memory(data, "forget", mem_id, "mem_000000000000")
    assert unknown.exit_code == 1
    assert "No memory mem_000000000000" in unknown.stderr
    assert [m["id"] for m in listed(data)] == [mem_id]  # nothing deleted
    gone = memory(data, "forget", mem_id)
    assert (gone.exit_code, gone.stdout) == (0, f"Forgot 1 memories: {mem_id}.\n")
    assert listed(data) == []
    empty = memory(data, "list")
    assert empty.stdout == "No memories yet; add one with `codecompass memory add`.\n"


def test_clear_asks_first(data: Path) -> None:
    add(data, DECISION, "--type", "decision")
    add(data, PATTERN, "--type", "pattern")
    refused = memory(data, "clear")  # CliRunner's stdin is no terminal
    assert refused.exit_code == 1
    assert "Refusing to delete 2 memories without --yes (no terminal to ask)." in refused.stderr
    assert len(listed(data)) == 2
    assert as_json(memory(data, "clear", "--yes", "--json")) == {"cleared": 2}
    assert listed(data) == []
    again = memory(data, "clear", "--yes")
    assert (again.exit_code, again.stdout) == (0, "Deleted 0 memories.\n")


def test_export_clear_import_round_trip(data: Path, tmp_path: Path) -> None:
    add(data, DECISION, "--type", "decision", "--tag", "queue")
    add(data, PATTERN, "--type", "pattern")
    add(data, "Staging deploys need the VPN.")
    memory(data, "search", "job queue")  # a use: access counts are exported too
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    exported = memory(data, "export", str(first))
    assert exported.exit_code == 0
    assert exported.stderr == f"Exported 3 memories to {first}.\n"
    lines = first.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header == {
        "codecompass_memories": 1,
        "count": 3,
        "model": "sentence-transformers/all-MiniLM-L6-v2:onnx-int8",
    }
    rows = [json.loads(line) for line in lines[1:]]
    assert {r["content"] for r in rows} == {DECISION, PATTERN, "Staging deploys need the VPN."}
    assert "vector" not in rows[0]
    assert as_json(memory(data, "clear", "--yes", "--json")) == {"cleared": 3}
    restored = as_json(memory(data, "import", str(first), "--json"))
    assert restored == {"imported": 3, "skipped": [], "refused": []}
    assert memory(data, "export", str(second)).exit_code == 0
    assert second.read_bytes() == first.read_bytes()
    assert memory(data, "export").stdout == first.read_text(encoding="utf-8")  # to stdout
    # A second import skips every memory already there.
    again = as_json(memory(data, "import", str(first), "--json"))
    assert (again["imported"], again["refused"]) == (0, [])
    assert sorted(again["skipped"]) == sorted(r["id"] for r in rows)
    # Recall works on what was imported (its vectors were recomputed).
    found = as_json(memory(data, "search", "which lock does the job queue use", "--json"))
    assert found["hits"][0]["memory"]["content"] == DECISION


def test_import_of_a_malformed_file_imports_nothing(data: Path, tmp_path: Path) -> None:
    add(data, DECISION, "--type", "decision")
    good = tmp_path / "good.jsonl"
    assert memory(data, "export", str(good)).exit_code == 0
    assert as_json(memory(data, "clear", "--yes", "--json")) == {"cleared": 1}
    header, row = good.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text(f"{header}\n{row}\n{{not json\n", encoding="utf-8")
    result = memory(data, "import", str(broken))
    assert result.exit_code == 1
    assert "Line 3 of the memory export is not JSON" in result.stderr
    assert listed(data) == []  # all or nothing: the good row was not imported
    no_header = tmp_path / "no_header.jsonl"
    no_header.write_text(f"{row}\n", encoding="utf-8")
    result = memory(data, "import", str(no_header))
    assert result.exit_code == 1 and "Not a Code Compass memory export" in result.stderr
    missing = memory(data, "import", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 1 and "is not a file" in missing.stderr
    assert listed(data) == []


def test_prune_dry_run_with_nothing_expired(data: Path) -> None:
    add(data, DECISION, "--type", "decision")
    pruned = as_json(memory(data, "prune", "--dry-run", "--json"))
    assert pruned == {"dry_run": True, "deleted": [], "reasons": {}, "remaining": 1}
    human = memory(data, "prune", "--dry-run")
    assert (human.exit_code, human.stdout) == (0, "Would delete 0 memories; 1 remain.\n")
    real = memory(data, "prune")
    assert (real.exit_code, real.stdout) == (0, "Deleted 0 memories; 1 remain.\n")
    assert len(listed(data)) == 1


def write_transcript(folder: Path) -> Path:
    transcript = folder / "session.jsonl"
    lines = [
        {"role": "user", "content": "Why did the job queue lose jobs?"},
        {"role": "assistant", "content": DECISION},
        {"role": "assistant", "content": "I'll run the tests now."},
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return transcript


PROPOSAL = {
    "type": "decision",
    "content": DECISION,
    "tags": ["postgresql", "redis"],
    "reason": "rules: decision marker 'we decided'",
}


def test_capture_dry_run(data: Path, tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path)
    dry = as_json(memory(data, "capture", str(transcript), "--dry-run", "--json"))
    assert dry == {
        "extractor": "rules",
        "model": None,
        "dry_run": True,
        "turns": 3,
        "items": [{**PROPOSAL, "status": "would_keep", "id": None, "detail": ""}],
        "provider_error": None,
    }
    human = memory(data, "capture", str(transcript), "--dry-run")
    assert human.stdout.splitlines() == [
        "1 proposals from 3 turns by the rule-based extractor (no model) (dry run).",
        f"  would_keep [decision] {DECISION}",
    ]
    assert listed(data) == []
    missing = memory(data, "capture", str(tmp_path / "nope.jsonl"), "--dry-run")
    assert missing.exit_code == 1 and "is not a file" in missing.stderr


def test_capture_from_a_claude_code_hook(data: Path, tmp_path: Path) -> None:
    transcript = write_transcript(tmp_path)
    payload = {
        "transcript_path": str(transcript),
        "session_id": "s1",
        "hook_event_name": "SessionEnd",
    }
    hooked = memory(data, "capture", "--hook", "--json", stdin=json.dumps(payload))
    done = as_json(hooked)
    (item,) = done["items"]
    assert (done["extractor"], done["dry_run"], done["turns"]) == ("rules", False, 3)
    assert item == {
        **PROPOSAL,
        "status": "created",
        "id": item["id"],
        "detail": f"Remembered as {item['id']}.",
    }
    (stored,) = listed(data)
    assert (stored["id"], stored["content"], stored["source"]) == (
        item["id"],
        DECISION,
        "capture:rules",
    )
    # The same session again (a hook may fire twice): nothing new.
    again = memory(data, "capture", "--hook", stdin=json.dumps(payload))
    assert again.exit_code == 0
    assert again.stdout.splitlines() == [
        "1 proposals from 3 turns by the rule-based extractor (no model).",
        f"  duplicate  [decision] {DECISION} (Already remembered as {item['id']} (same text).)",
    ]
    assert len(listed(data)) == 1
    no_path = memory(data, "capture", "--hook", stdin=json.dumps({"session_id": "s1"}))
    assert no_path.exit_code == 1
    assert "The hook payload on stdin names no transcript_path." in no_path.stderr


BAD_CAPTURES = {
    "malformed transcript": (["session.jsonl"], None, "transcript line 2 is not valid JSON"),
    "hook payload not JSON": (["--hook"], "not json", "hook payload"),
    "hook transcript gone": (["--hook"], '{"transcript_path": "gone.jsonl"}', "gone.jsonl"),
}


@pytest.mark.parametrize("case", sorted(BAD_CAPTURES))
def test_capture_of_bad_input_says_what_is_wrong(data: Path, tmp_path: Path, case: str) -> None:
    args, stdin, message = BAD_CAPTURES[case]
    (tmp_path / "session.jsonl").write_text(
        json.dumps({"role": "assistant", "content": DECISION}) + "\nnot json\n", encoding="utf-8"
    )
    result = memory(data, "capture", *args, stdin=stdin)
    assert result.exit_code == 1
    assert message in result.stderr
    assert "This is a bug" not in result.stderr
    assert listed(data) == []
