"""Evaluation task files (JSON Lines), one task per line, of two kinds:

- golden query: `{"query": "...", "expected": [{"path": "a/b.py", "symbol": "C.m"}],
  "repo": "name"?, "type": "question"?}` — `symbol` is optional (then any hit in the file
  counts);
- localization: `{"repo": "owner/name", "base_commit": "<sha>", "problem_statement":
  "...", "gold_files": [...], "gold_functions": ["path::Qualified.name", ...]}` (the
  SWE-bench Lite layout; other fields are ignored).

Every task has a query type (`QUERY_TYPES`), reported separately by the runner: a golden
query's `type` when given, else `infer_query_type` of its text; a localization task is a
`traceback` when its problem statement holds one (`has_traceback`), else an `issue`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from codecompass.errors import InputError
from codecompass.search.query import parse_query

QUERY_TYPES = ("issue", "traceback", "identifier", "question")
# Headers of tracebacks whose frames `parse_query` does not read (Go panics); Python's
# header is there for a traceback whose frames were cut.
_TRACEBACK_HEADER = re.compile(r"^goroutine \d+ \[|^Traceback \(most recent call last\)", re.M)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
ISSUE_WORDS = 25  # an issue has at least this many words and two sentences …
LONG_WORDS = 60  # … or is longer than this (what `query_windows` embeds in windows)


def has_traceback(text: str) -> bool:
    """A stack frame `parse_query` reads (Python, IPython, pytest, JavaScript) or a
    Python / Go traceback header."""
    return bool(parse_query(text).frames) or bool(_TRACEBACK_HEADER.search(text))


def infer_query_type(text: str) -> str:
    """The query type of a text, by the first rule that applies:

    1. `traceback`: it holds a traceback (`has_traceback`);
    2. `identifier`: it is one token (no whitespace): a name, a dotted name, a path;
    3. `issue`: more than `LONG_WORDS` words, or at least `ISSUE_WORDS` words in at least
       two sentences (a `.`, `!` or `?` followed by whitespace or the end);
    4. `question`: anything else."""
    if has_traceback(text):
        return "traceback"
    words = text.split()
    if len(words) == 1:
        return "identifier"
    sentences = len(_SENTENCE_END.findall(text))
    if len(words) > LONG_WORDS or (len(words) >= ISSUE_WORDS and sentences >= 2):
        return "issue"
    return "question"


@dataclass(frozen=True, slots=True)
class Expected:
    path: str
    symbol: str | None = None


@dataclass(frozen=True, slots=True)
class GoldenTask:
    id: str
    query: str
    expected: tuple[Expected, ...]
    repo: str | None = None
    tags: tuple[str, ...] = ()
    type: str = "question"


@dataclass(frozen=True, slots=True)
class LocalizationTask:
    id: str
    repo: str  # "owner/name"
    base_commit: str
    query: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...] = ()
    type: str = "issue"


@dataclass(slots=True)
class TaskFile:
    golden: list[GoldenTask] = field(default_factory=list)
    localization: list[LocalizationTask] = field(default_factory=list)


def load_tasks(path: Path) -> TaskFile:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    out = TaskFile()
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: not JSON ({exc.msg}).") from exc
        if not isinstance(row, dict):
            raise InputError(f"{path}:{number}: each line must be a JSON object.")
        task_id = str(row.get("id") or row.get("instance_id") or f"{path.stem}-{number}")
        given_type = row.get("type")
        if given_type is not None and given_type not in QUERY_TYPES:
            raise InputError(
                f"{path}:{number}: unknown type {given_type!r} (one of {', '.join(QUERY_TYPES)})."
            )
        text = row.get("problem_statement", row.get("query"))
        if text is not None and not str(text).strip():
            # found before the first search, not after an hour of indexing
            raise InputError(f"{path}:{number}: the query is empty; give it some words.")
        if "problem_statement" in row:
            statement = str(row["problem_statement"])
            for key in ("repo", "base_commit", "gold_files"):
                if key not in row:
                    raise InputError(f"{path}:{number}: a localization task needs {key!r}.")
            out.localization.append(
                LocalizationTask(
                    id=task_id,
                    repo=str(row["repo"]),
                    base_commit=str(row["base_commit"]),
                    query=statement,
                    gold_files=tuple(row["gold_files"]),
                    gold_functions=tuple(row.get("gold_functions") or ()),
                    type=given_type or ("traceback" if has_traceback(statement) else "issue"),
                )
            )
        elif "query" in row:
            expected = row.get("expected")
            if not isinstance(expected, list) or not expected:
                raise InputError(f"{path}:{number}: a golden query needs a list 'expected'.")
            items: list[Expected] = []
            for item in expected:
                if isinstance(item, str):
                    item = {"path": item}
                if not isinstance(item, dict) or "path" not in item:
                    raise InputError(f"{path}:{number}: each expected item needs a 'path'.")
                items.append(Expected(str(item["path"]), item.get("symbol")))
            query = str(row["query"])
            out.golden.append(
                GoldenTask(
                    id=task_id,
                    query=query,
                    expected=tuple(items),
                    repo=row.get("repo"),
                    tags=tuple(row.get("tags") or ()),
                    type=given_type or infer_query_type(query),
                )
            )
        else:
            raise InputError(
                f"{path}:{number}: neither a golden query ('query', 'expected') nor a "
                "localization task ('problem_statement', 'gold_files', …)."
            )
    return out
