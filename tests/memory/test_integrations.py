"""The agent integrations: Claude Code hook settings and the OpenCode plugin."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from codecompass.memory.capture import Turn, read_transcript

ROOT = Path(__file__).parent.parent.parent
CLAUDE_SETTINGS = ROOT / "integrations" / "claude-code" / "settings.json"
PLUGIN = ROOT / "integrations" / "opencode" / "codecompass-memory.js"
FIXTURES = ROOT / "tests" / "fixtures" / "memory"
HARNESS = FIXTURES / "opencode_harness.mjs"
OPENCODE_MESSAGES = FIXTURES / "opencode_session.jsonl"

CONTEXT = "## Project Memory\n\n- decision: Use SQLite for the job queue."
DIRECTORY = "/work/project"
CONTEXT_CALL = {
    "args": ["codecompass", "memory", "context"],
    "cwd": DIRECTORY,
    "quiet": True,
    "nothrow": True,
}
REQUEST = {"path": {"id": "ses_1"}, "sessionID": "ses_1"}


def test_claude_settings_hooks() -> None:
    settings = json.loads(CLAUDE_SETTINGS.read_text(encoding="utf-8"))

    assert settings == {
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup|resume|clear|compact",
                    "hooks": [
                        {"type": "command", "command": "codecompass memory context", "timeout": 30}
                    ],
                }
            ],
            "SessionEnd": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "codecompass memory capture --hook",
                            "timeout": 60,
                        }
                    ]
                }
            ],
        },
    }


def _node() -> str:
    node = shutil.which("node") or ("/usr/bin/node" if os.path.exists("/usr/bin/node") else None)
    if node is None:
        pytest.skip("node is not installed: the OpenCode plugin (JavaScript) cannot be run")
    return node


def test_opencode_plugin_is_valid_javascript() -> None:
    done = subprocess.run(
        [_node(), "--check", str(PLUGIN)], capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    done = subprocess.run(
        [_node(), str(HARNESS), str(PLUGIN), str(OPENCODE_MESSAGES)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _capture(step: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The step's shell calls with the capture's temporary path checked and taken out, and
    the transcript file it was given."""
    step = copy.deepcopy(step)
    (call,) = step["calls"]
    path = call["args"].pop()
    tmp = re.escape(tempfile.gettempdir().rstrip("/"))
    assert re.fullmatch(rf"{tmp}/codecompass-[^/]+/session\.jsonl", path), path
    return step["calls"], call.pop("file")


CAPTURE_CALL = {
    "args": ["codecompass", "memory", "capture"],
    "cwd": DIRECTORY,
    "quiet": True,
    "nothrow": True,
    "fileRemoved": True,
}


def test_session_created_loads_the_memory(report: dict[str, Any]) -> None:
    assert report["created"] == {"calls": [CONTEXT_CALL], "requests": [], "logs": []}
    # a subagent's session: nothing to load, and it is never captured
    assert report["createdChild"] == {"calls": [], "requests": [], "logs": []}
    assert report["childIdle"] == {"calls": [], "requests": [], "logs": []}


def test_memory_goes_into_system_prompt_and_compaction(report: dict[str, Any]) -> None:
    # from the cache, once however many requests there are
    assert report["system"] == {
        "calls": [],
        "requests": [],
        "logs": [],
        "system": ["You are OpenCode.", CONTEXT],
    }
    assert report["compacting"] == {
        "calls": [],
        "requests": [],
        "logs": [],
        "context": [CONTEXT],
    }


def test_session_without_created_event_loads_memory_once(report: dict[str, Any]) -> None:
    assert report["lazySystem"] == {
        "calls": [CONTEXT_CALL],
        "requests": [],
        "logs": [],
        "system": [[CONTEXT], [CONTEXT]],
    }


def test_idle_captures_the_session_as_a_transcript(report: dict[str, Any]) -> None:
    step = report["idle"]
    calls, transcript = _capture(step)

    assert calls == [CAPTURE_CALL]
    assert step["requests"] == [REQUEST]
    assert step["logs"] == []
    # the plugin writes what read_transcript reads: the same turns as the full messages
    fixture = OPENCODE_MESSAGES.read_text(encoding="utf-8").splitlines()
    assert read_transcript(transcript.splitlines()) == read_transcript(fixture)
    assert [json.loads(line) for line in transcript.splitlines()] == [
        {
            "info": {"id": "msg_01", "sessionID": "ses_9", "role": "user"},
            "parts": [
                {
                    "type": "text",
                    "text": "Shutdown drops pending jobs. We're on Node 20 and TypeScript 5.4, "
                    "deployed with Docker.",
                }
            ],
        },
        {
            "info": {"id": "msg_02", "sessionID": "ses_9", "role": "assistant"},
            "parts": [
                {
                    "type": "text",
                    "text": "The bug was a missing `await` before `queue.flush()` in "
                    "`shutdown()`, so pending jobs were dropped on exit.",
                }
            ],
        },
        {
            "info": {"id": "msg_04", "sessionID": "ses_9", "role": "user"},
            "parts": [
                {"type": "text", "text": "From now on, run `npm run lint` before every commit."}
            ],
        },
    ]


def test_repeated_idle_captures_only_new_messages(report: dict[str, Any]) -> None:
    assert report["idleAgain"] == {"calls": [], "requests": [REQUEST], "logs": []}
    # session.status idle and session.idle for the same turn: one capture of the new turn
    step = report["statusIdle"]
    calls, transcript = _capture(step)
    assert calls == [CAPTURE_CALL]
    assert step["requests"] == [REQUEST, REQUEST]
    assert read_transcript(transcript.splitlines()) == [
        Turn("user", "Decision: shutdown waits at most 10 seconds for the flush.", 0),
        Turn("assistant", "Done.", 1),
    ]
    assert report["statusBusy"] == {"calls": [], "requests": [], "logs": []}


def test_failed_capture_is_logged_and_retried(report: dict[str, Any]) -> None:
    step = report["captureFails"]
    calls, transcript = _capture(step)
    assert calls == [CAPTURE_CALL]
    assert transcript == (
        '{"info":{"id":"msg_07","sessionID":"ses_1","role":"user"},'
        '"parts":[{"type":"text","text":"The root cause was the missing await."}]}\n'
    )
    (log,) = copy.deepcopy(step["logs"])
    error = log["extra"].pop("error")
    assert log == {
        "service": "codecompass-memory",
        "level": "error",
        "message": "memory capture failed",
        "extra": {"sessionID": "ses_1"},
    }
    assert re.fullmatch(
        r"Error: codecompass memory capture \S+session\.jsonl exited with 1: boom", error
    )

    step = report["captureRetried"]
    calls, retried = _capture(step)
    assert calls == [CAPTURE_CALL]
    assert retried == transcript
    assert step["logs"] == []


def test_failing_sdk_is_logged(report: dict[str, Any]) -> None:
    assert report["messagesFail"] == {
        "calls": [],
        "requests": [REQUEST],
        "logs": [
            {
                "service": "codecompass-memory",
                "level": "error",
                "message": "memory capture failed",
                "extra": {"sessionID": "ses_1", "error": "Error: server unavailable"},
            }
        ],
    }


def test_failing_or_empty_memory_adds_nothing(report: dict[str, Any]) -> None:
    assert report["contextFails"] == {
        "calls": [CONTEXT_CALL],
        "requests": [],
        "logs": [
            {
                "service": "codecompass-memory",
                "level": "warn",
                "message": "could not load the project memory",
                "extra": {"error": "Error: codecompass: command not found"},
            }
        ],
        "system": ["base"],
        "context": [],
    }
    assert report["emptyMemory"] == {
        "calls": [CONTEXT_CALL],
        "requests": [],
        "logs": [],
        "system": ["base"],
    }
