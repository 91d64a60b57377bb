"""Transcript reading, rule-based proposals and the model prompt/answer helpers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codecompass.memory.capture import (
    CAPTURE_SYSTEM,
    LLM_TURN,
    Proposal,
    Turn,
    capture_prompt,
    extract_rules,
    parse_proposals,
    read_transcript,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "memory"


def _turns(name: str) -> list[Turn]:
    return read_transcript((FIXTURES / name).read_text(encoding="utf-8").splitlines(keepends=True))


def _found(name: str) -> list[tuple[str, str]]:
    return [(p.type, p.content) for p in extract_rules(_turns(name), min_words=5)]


# --- read_transcript ------------------------------------------------------------------


def test_claude_code_session_keeps_only_conversation_text() -> None:
    turns = _turns("claude_session.jsonl")

    assert [(t.index, t.role) for t in turns] == [
        (0, "user"),
        (1, "assistant"),
        (2, "assistant"),
        (3, "assistant"),
        (4, "user"),
        (5, "assistant"),
        (6, "user"),
        (7, "assistant"),
    ]
    assert turns[0].text == (
        "The retry worker keeps processing the same job twice after a deploy. Can you find "
        "out why? The stack is Python 3.12 with SQLite in WAL mode and we run two worker "
        "processes."
    )
    # text block only: the thinking and tool_use blocks of the same message are gone
    assert turns[1].text == "I'll start with the worker loop in `queue/worker.py`."
    # the system reminder around the user's words is removed
    assert turns[4].text == "Requirement: job payloads must stay under 64 KiB."
    joined = "\n".join(t.text for t in turns)
    for skipped in (
        "SQLite for the job queue",  # summary entry
        "Caveat:",  # isMeta
        "/clear",  # slash command echo
        "nothing to see here",  # local command output
        "claim in two steps",  # tool_result (string content)
        "job 7 claimed twice",  # tool_result (list content)
        "Request interrupted",
        "the todo list is empty",  # system reminder
        "the session was saved",  # system entry
        "rewrite the worker in Rust",  # sidechain
        "being continued",  # compaction summary
        "529 overloaded",  # API error message
        "re-read the file",  # thinking
    ):
        assert skipped not in joined


def test_opencode_messages_keep_non_synthetic_text_parts() -> None:
    turns = _turns("opencode_session.jsonl")

    assert turns == [
        Turn(
            "user",
            "Shutdown drops pending jobs. We're on Node 20 and TypeScript 5.4, deployed with "
            "Docker.",
            0,
        ),
        Turn(
            "assistant",
            "The bug was a missing `await` before `queue.flush()` in `shutdown()`, so pending "
            "jobs were dropped on exit.",
            1,
        ),
        Turn("user", "From now on, run `npm run lint` before every commit.", 2),
    ]


def test_generic_chat_skips_system_and_tool_roles_and_blank_lines() -> None:
    turns = _turns("generic_chat.jsonl")

    assert [(t.role, t.text) for t in turns] == [
        ("user", "Convention: HTTP handlers return problem+json errors, never bare strings."),
        (
            "assistant",
            "Understood. By convention the handlers live in `api/handlers/` and are named "
            "after the resource.",
        ),
        (
            "assistant",
            "Let's go with `httpx` for the outgoing calls, since it supports both sync and "
            "async clients.",
        ),
        ("user", "This project uses FastAPI and Pydantic v2."),
    ]


def test_content_blocks_are_joined_by_blank_lines() -> None:
    line = json.dumps(
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "First."},
                {"type": "image", "source": {}},
                {"type": "text", "text": "Second."},
            ],
        }
    )

    assert read_transcript([line]) == [Turn("assistant", "First.\n\nSecond.", 0)]


def test_transcript_without_turns_is_empty() -> None:
    lines = [
        '{"type":"summary","summary":"Nothing","leafUuid":"x"}\n',
        "\n",
        '{"type":"file-history-snapshot","messageId":"m","snapshot":{}}\n',
    ]

    assert read_transcript(lines) == []
    assert read_transcript([]) == []


def test_bad_json_names_the_line() -> None:
    lines = ['{"role": "user", "content": "hi"}', "", '{"role": "assistant", "content": ']

    with pytest.raises(ValueError, match=r"^transcript line 3 is not valid JSON: "):
        read_transcript(lines)


def test_non_object_line_names_the_line() -> None:
    with pytest.raises(ValueError, match=r"^transcript line 2 is not a JSON object$"):
        read_transcript(['{"role": "user", "content": "hi"}', "[1, 2]"])


# --- extract_rules ---------------------------------------------------------------------


def test_rules_on_claude_code_session() -> None:
    proposals = extract_rules(_turns("claude_session.jsonl"), min_words=5)

    assert proposals == [
        Proposal(
            "context",
            "The stack is Python 3.12 with SQLite in WAL mode and we run two worker processes.",
            ("python", "sqlite"),
            "rules: context marker 'the stack is'",
            0,
        ),
        Proposal(
            "error",
            "The root cause is that `claim_job()` selects a job and marks it running in two "
            "separate transactions, so both workers can claim it between the SELECT and the "
            "UPDATE.",
            ("claim_job",),
            "rules: error marker 'root cause'",
            2,
        ),
        Proposal(
            "spec",
            "Job payloads must stay under 64 KiB.",
            (),
            "rules: spec marker 'requirement:'",
            4,
        ),
        Proposal(
            "error",
            "The fix was to claim jobs with one `UPDATE jobs SET state = 'running' ... "
            "RETURNING id` statement, so the claim is atomic.",
            (),
            "rules: error marker 'the fix was'",
            5,
        ),
        Proposal(
            "decision",
            "Going forward, every state change of a job goes through `transition()` in "
            "`queue/states.py`. This is because the audit log is written there.",
            ("transition", "queue/states.py"),
            "rules: decision marker 'going forward'",
            5,
        ),
        Proposal(
            "decision",
            "From now on we always add a regression test before fixing a queue bug.",
            (),
            "rules: decision marker 'from now on'",
            6,
        ),
        Proposal(
            "decision",
            "We decided to keep SQLite over Postgres because the service runs on a single host.",
            ("sqlite", "postgres"),
            "rules: decision marker 'we decided'",
            6,
        ),
        Proposal(
            "spec",
            "The API must never return a job twice.",
            (),
            "rules: spec marker 'must not'",
            7,
        ),
    ]


def test_rules_on_generic_chat() -> None:
    proposals = extract_rules(_turns("generic_chat.jsonl"), min_words=5)

    assert [(p.type, p.content, p.tags, p.reason) for p in proposals] == [
        (
            "pattern",
            "HTTP handlers return problem+json errors, never bare strings.",
            (),
            "rules: pattern marker 'convention:'",
        ),
        (
            "pattern",
            "By convention the handlers live in `api/handlers/` and are named after the resource.",
            ("api/handlers",),
            "rules: pattern marker 'by convention'",
        ),
        (
            "decision",
            "Let's go with `httpx` for the outgoing calls, since it supports both sync and "
            "async clients.",
            ("httpx",),
            "rules: decision marker 'let's go with'",
        ),
        (
            "context",
            "This project uses FastAPI and Pydantic v2.",
            ("fastapi", "pydantic"),
            "rules: context marker 'this project uses'",
        ),
    ]


def test_rules_on_opencode_session() -> None:
    proposals = extract_rules(_turns("opencode_session.jsonl"), min_words=5)

    assert [(p.type, p.content, p.tags, p.turn) for p in proposals] == [
        (
            "context",
            "We're on Node 20 and TypeScript 5.4, deployed with Docker.",
            ("typescript", "docker"),
            0,
        ),
        (
            "error",
            "The bug was a missing `await` before `queue.flush()` in `shutdown()`, so pending "
            "jobs were dropped on exit.",
            ("await", "queue.flush", "shutdown"),
            1,
        ),
        ("decision", "From now on, run `npm run lint` before every commit.", (), 2),
    ]


def test_noise_yields_nothing() -> None:
    # tool output, code blocks (fenced and indented), tracebacks, log and shell lines,
    # test and linter output, tables, diffs, questions, plans, guesses, a short statement
    turns = _turns("noise_chat.jsonl")

    assert len(turns) == 4
    assert extract_rules(turns, min_words=5) == []


def test_min_words_counts_after_the_label_is_removed() -> None:
    turns = [Turn("user", "Decision: use uv everywhere.", 0)]

    assert extract_rules(turns, min_words=4) == []
    assert extract_rules(turns, min_words=3) == [
        Proposal("decision", "Use uv everywhere.", ("uv",), "rules: decision marker 'decision:'", 0)
    ]


def test_label_of_another_type_is_kept() -> None:
    turns = [Turn("assistant", "Decision: the API must return 404 for unknown jobs.", 0)]

    assert _contents(turns) == [("decision", "The API must return 404 for unknown jobs.")]
    turns = [Turn("assistant", "Note: the API must return 404 for unknown jobs.", 0)]
    assert _contents(turns) == [("spec", "Note: the API must return 404 for unknown jobs.")]


def test_must_needs_a_thing_for_subject() -> None:
    text = (
        "I must check the CI config. I really must look at the logs. We must hurry up. "
        "You must restart the app. "
        "It must have been the cache all along. Every job must carry an idempotency key."
    )

    assert _contents([Turn("assistant", text, 0)]) == [
        ("spec", "Every job must carry an idempotency key.")
    ]


def test_identical_proposals_are_kept_once() -> None:
    turns = [
        Turn("user", "We decided to vendor the parser grammars.", 0),
        Turn("assistant", "We decided to vendor the parser grammars.", 1),
        Turn("assistant", "Decision: we decided to vendor the parser grammars.", 2),
    ]

    proposals = extract_rules(turns, min_words=5)

    assert [(p.content, p.turn) for p in proposals] == [
        ("We decided to vendor the parser grammars.", 0)
    ]


def test_statement_with_a_secret_is_dropped() -> None:
    turns = [
        Turn(
            "user",
            "We decided to call the staging API with key "
            "sk-ant-api03-Zq9xT4mV8bN2cL6kP1wR7yH3jF5dS0aGuEiOoXxCcVvBbNnMm12.",
            0,
        )
    ]

    assert extract_rules(turns, min_words=5) == []


def test_reason_follows_only_when_it_starts_with_because() -> None:
    text = (
        "We decided to pin tree-sitter below 0.26. Because 0.26 changed the query API. "
        "The rest is unchanged."
    )

    assert _contents([Turn("assistant", text, 0)]) == [
        (
            "decision",
            "We decided to pin tree-sitter below 0.26. Because 0.26 changed the query API.",
        )
    ]


def test_list_items_and_wrapped_lines_are_statements() -> None:
    text = (
        "Summary of the session:\n\n"
        "- The root cause was a stale lock file left by a crashed worker,\n"
        "  which blocked every later run.\n"
        "- I'll clean up the logs next.\n"
        "1. By convention, CLI commands print JSON with --json.\n"
    )

    assert _contents([Turn("assistant", text, 0)]) == [
        (
            "error",
            "The root cause was a stale lock file left by a crashed worker, which blocked "
            "every later run.",
        ),
        ("pattern", "By convention, CLI commands print JSON with --json."),
    ]


def _contents(turns: list[Turn]) -> list[tuple[str, str]]:
    return [(p.type, p.content) for p in extract_rules(turns, min_words=5)]


# --- capture_prompt -------------------------------------------------------------------


def test_capture_prompt_holds_the_whole_transcript_when_it_fits() -> None:
    turns = [Turn("user", "Why does it fail?", 0), Turn("assistant", "The fix was X.", 1)]

    system, user = capture_prompt(turns, max_chars=1000)

    assert system == CAPTURE_SYSTEM
    assert '"type": "decision" | "pattern" | "error" | "spec" | "context"' in system
    assert "Never secrets" in system
    assert "Never ephemeral progress" in system
    assert user == (
        "Transcript of the session, oldest turn first (earlier turns may be cut):\n\n"
        "<transcript>\nUSER: Why does it fail?\n\nASSISTANT: The fix was X.\n</transcript>\n\n"
        "Answer with the JSON array."
    )


def test_capture_prompt_keeps_the_end_of_a_long_transcript() -> None:
    turns = [
        Turn("user", "a" * 50, 0),
        Turn("assistant", "b" * 20, 1),
        Turn("user", "c" * 10, 2),
    ]

    # "ASSISTANT: " + 20 + "\n\n" + "USER: " + 10 = 49 characters fit, the first turn not
    _, user = capture_prompt(turns, max_chars=49)
    assert f"<transcript>\nASSISTANT: {'b' * 20}\n\nUSER: {'c' * 10}\n</transcript>" in user

    # even the last turn is too long: its end is kept, marked as cut
    _, user = capture_prompt(turns, max_chars=14)
    assert f"<transcript>\nUSER: … {'c' * 6}\n</transcript>" in user


def test_capture_prompt_redacts_secrets() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    _, user = capture_prompt([Turn("user", f"use {token} for the API", 0)], max_chars=500)

    assert token not in user
    assert "[REDACTED:" in user


def test_capture_prompt_needs_a_positive_budget() -> None:
    with pytest.raises(ValueError, match="max_chars must be positive, not 0"):
        capture_prompt([], max_chars=0)


# --- parse_proposals -------------------------------------------------------------------


def test_parse_fenced_answer_with_prose() -> None:
    answer = (
        "Here is what is worth remembering:\n\n"
        "```json\n"
        "[\n"
        '  {"type": "decision", "content": "Use SQLite  for the job queue.", '
        '"tags": ["SQLite", "queue", "sqlite"]},\n'
        '  {"type": "Error", "content": "Double claims came from a two-step claim.", '
        '"tags": "claim_job, sqlite"},\n'
        '  {"type": "todo", "content": "Write more tests."},\n'
        '  {"type": "spec", "content": "   "},\n'
        '  {"type": "spec"},\n'
        '  "not an object",\n'
        '  {"type": "decision", "content": "use sqlite for the job queue."},\n'
        "]\n"
        "```\n"
        "Let me know if you want more."
    )

    assert parse_proposals(answer) == [
        Proposal("decision", "Use SQLite for the job queue.", ("sqlite", "queue"), "llm", LLM_TURN),
        Proposal(
            "error",
            "Double claims came from a two-step claim.",
            ("claim_job", "sqlite"),
            "llm",
            LLM_TURN,
        ),
    ]


def test_parse_unfenced_answer_after_bracketed_prose() -> None:
    answer = (
        'Sure [1]: [{"type": "pattern", "content": "Handlers live in api/handlers.", '
        '"tags": []}] -- done'
    )

    assert parse_proposals(answer) == [
        Proposal("pattern", "Handlers live in api/handlers.", (), "llm", LLM_TURN)
    ]


def test_parse_wrapped_and_single_object_answers() -> None:
    wrapped = '{"memories": [{"type": "context", "content": "Python 3.12 only."}]}'
    single = '{"type": "spec", "content": "Payloads stay under 64 KiB.", "tags": ["limits"]}'

    assert parse_proposals(wrapped) == [
        Proposal("context", "Python 3.12 only.", (), "llm", LLM_TURN)
    ]
    assert parse_proposals(single) == [
        Proposal("spec", "Payloads stay under 64 KiB.", ("limits",), "llm", LLM_TURN)
    ]


def test_parse_empty_and_garbage_answers() -> None:
    assert parse_proposals("[]") == []
    assert parse_proposals("```json\n[]\n```") == []
    assert parse_proposals("Nothing durable happened in this session.") == []
    assert parse_proposals('{"type": "decision", "content": ') == []
    assert parse_proposals("[1, 2, 3] and {not json}") == []
    assert parse_proposals("") == []


def test_parse_drops_secrets() -> None:
    answer = json.dumps(
        [
            {
                "type": "context",
                "content": "The deploy key is AKIAIOSFODNN7EXAMPLF for the bucket.",
            },
            {"type": "context", "content": "Deploys go to the eu-west-1 bucket."},
        ]
    )

    assert parse_proposals(answer) == [
        Proposal("context", "Deploys go to the eu-west-1 bucket.", (), "llm", LLM_TURN)
    ]
