"""Query types: the inference rule on exact strings, and the per-type breakdown of a
report on a tiny hand-built set of outcomes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codecompass.errors import InputError
from codecompass.evaluation import load_tasks
from codecompass.evaluation.merge import merge
from codecompass.evaluation.runner import by_type
from codecompass.evaluation.tasks import has_traceback, infer_query_type

PY_TRACE = """Traceback (most recent call last):
  File "/home/u/app/main.py", line 3, in <module>
    run()
ValueError: bad"""
JS_TRACE = """TypeError: boom
    at ServerResponse.send (/srv/node_modules/express/lib/response.js:120:7)"""
GO_PANIC = """panic: boom

goroutine 1 [running]:
main.main()
\t/app/main.go:9 +0x25"""
ISSUE = (
    "Tables lose their borders when printed to a narrow terminal. The right edge is cut "
    "off and the header row wraps onto a second line. It should shrink the columns instead."
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PY_TRACE, "traceback"),
        (JS_TRACE, "traceback"),
        (GO_PANIC, "traceback"),
        ("Traceback (most recent call last):\n  ...\nKeyError: 'x'", "traceback"),
        ("res.sendStatus", "identifier"),
        ("compileQueryParser", "identifier"),
        ("(*Mux).routeHTTP", "identifier"),
        ("  lib/view.js\n", "identifier"),
        ("table", "identifier"),
        (ISSUE, "issue"),
        (" ".join(["word"] * 61), "issue"),  # long, whatever its punctuation
        ("where is the ETag of a response computed", "question"),
        ("Console.print method", "question"),
        # two sentences but short: a question
        ("Where is the cache? How is it cleared?", "question"),
        # long enough but one sentence: a question
        (
            "how does the router walk the radix tree to find the handler for a request path "
            "with URL parameters and what happens when only the method differs",
            "question",
        ),
    ],
)
def test_inferred_type(text: str, expected: str) -> None:
    assert infer_query_type(text) == expected


def test_tracebacks_in_problem_statements() -> None:
    assert has_traceback(f"Printing fails.\n\n{PY_TRACE}\n")
    assert not has_traceback("Printing `Sum` fails with a ValueError: bad input.")


def test_load_tasks_types(tmp_path: Path) -> None:
    rows = [
        {"query": "where is X", "type": "issue", "expected": ["a.py"]},
        {"query": "where is the cache cleared", "expected": ["a.py"]},
        {"repo": "o/r", "base_commit": "c", "problem_statement": ISSUE, "gold_files": ["a"]},
        {"repo": "o/r", "base_commit": "c", "problem_statement": JS_TRACE, "gold_files": ["a"]},
        # a short statement is still an issue: localization tasks are issues or tracebacks
        {"repo": "o/r", "base_commit": "c", "problem_statement": "x", "gold_files": ["a"]},
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    tasks = load_tasks(path)
    assert [t.type for t in tasks.golden] == ["issue", "question"]
    assert [t.type for t in tasks.localization] == ["issue", "traceback", "issue"]
    path.write_text(json.dumps({**rows[0], "type": "bug"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown type 'bug'"):
        load_tasks(path)


def _golden(task_type: str, ranks: list[int | None]) -> dict[str, Any]:
    return {"type": task_type, "hybrid": {"ranks": ranks, "latency_ms": 10.0}}


def test_golden_breakdown_by_type() -> None:
    rows = [
        _golden("question", [1]),
        _golden("question", [3]),
        _golden("question", [None]),
        _golden("identifier", [2, None]),  # half of the expected items at rank 2
        {"id": "old", "hybrid": {"ranks": [1], "latency_ms": 1.0}},  # no type: left out
    ]
    out = by_type(rows, ["hybrid"])
    assert [(r["type"], r["mode"], r["n"]) for r in out] == [
        ("identifier", "hybrid", 1),
        ("question", "hybrid", 3),
    ]
    identifier, question = out
    assert (identifier["recall@1"], identifier["recall@5"], identifier["recall@10"]) == (
        0.0,
        50.0,
        50.0,
    )
    assert identifier["mrr"] == 0.5
    assert (question["recall@1"], question["recall@5"], question["recall@10"]) == (
        33.3,
        66.7,
        66.7,
    )
    assert question["mrr"] == round((1 + 1 / 3) / 3, 3) == 0.444
    assert question["ndcg@10"] == round((1 + 0.5) / 3, 3) == 0.5


def _localized(task_type: str, file1: bool, file5: bool, fn10: bool | None) -> dict[str, Any]:
    outcome: dict[str, Any] = {"file@1": file1, "file@3": file5, "file@5": file5}
    outcome |= {"function@5": fn10 and file1, "function@10": fn10, "latency_ms": 5.0}
    return {"id": task_type, "type": task_type, "bm25": outcome, "hybrid": outcome}


def test_localization_breakdown_by_type_and_merge() -> None:
    rows = [
        _localized("issue", True, True, True),
        _localized("issue", False, True, None),  # no gold function
        _localized("issue", False, False, False),
        _localized("traceback", True, True, False),
    ]
    out = by_type(rows, ["bm25", "hybrid"])
    assert [(r["type"], r["mode"], r["n"]) for r in out] == [
        ("issue", "bm25", 3),
        ("issue", "hybrid", 3),
        ("traceback", "bm25", 1),
        ("traceback", "hybrid", 1),
    ]
    issue = out[0]
    assert (issue["file_acc@1"], issue["file_acc@3"], issue["file_acc@5"]) == (33.3, 66.7, 66.7)
    assert (issue["function_acc@5"], issue["function_acc@10"], issue["n_functions"]) == (
        50.0,
        50.0,
        2,
    )
    traceback = out[2]
    assert (traceback["file_acc@1"], traceback["function_acc@10"]) == (100.0, 0.0)

    part = {
        "kind": "localization",
        "modes": [{"mode": "bm25"}, {"mode": "hybrid"}],
        "indexing": {"commits": 1, "seconds": 1.0, "texts_embedded": 1, "cache_hit_rate": 0.0},
    }
    halves = [{"reports": [{**part, "tasks": half}]} for half in (rows[:2], rows[2:])]
    assert merge(halves)["reports"][0]["by_type"] == out


def test_text_report_prints_the_breakdown() -> None:
    from codecompass.cli import _print_eval, console

    rows = [_golden("question", [1]), _golden("identifier", [2, None])]
    summary = {"mode": "hybrid", "n": 2, "recall@1": 50.0, "recall@5": 75.0}
    report = {"kind": "golden", "modes": [summary], "by_type": by_type(rows, ["hybrid"])}
    with console.capture() as captured:
        _print_eval(report)
    text = captured.get()
    assert "golden (2 tasks)" in text and "by query type" in text
    cells = [line.strip("│ ").split(" │ ") for line in text.splitlines()]
    assert [c for c in cells if c[0].strip() in ("identifier", "question")] == [
        ["identifier", "hybrid", "1", "  0.0", " 50.0", " 50.0", "0.5", "  0.387"],
        ["question  ", "hybrid", "1", "100.0", "100.0", "100.0", "1.0", "    1.0"],
    ]
