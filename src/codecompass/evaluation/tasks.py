"""Evaluation task files (JSON Lines), one task per line, of two kinds:

- golden query: `{"query": "...", "expected": [{"path": "a/b.py", "symbol": "C.m"}],
  "repo": "name"?}` — `symbol` is optional (then any hit in the file counts);
- localization: `{"repo": "owner/name", "base_commit": "<sha>", "problem_statement":
  "...", "gold_files": [...], "gold_functions": ["path::Qualified.name", ...]}` (the
  SWE-bench Lite layout; other fields are ignored).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from codecompass.errors import InputError


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


@dataclass(frozen=True, slots=True)
class LocalizationTask:
    id: str
    repo: str  # "owner/name"
    base_commit: str
    query: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...] = ()


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
        if "problem_statement" in row:
            for key in ("repo", "base_commit", "gold_files"):
                if key not in row:
                    raise InputError(f"{path}:{number}: a localization task needs {key!r}.")
            out.localization.append(
                LocalizationTask(
                    id=task_id,
                    repo=str(row["repo"]),
                    base_commit=str(row["base_commit"]),
                    query=str(row["problem_statement"]),
                    gold_files=tuple(row["gold_files"]),
                    gold_functions=tuple(row.get("gold_functions") or ()),
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
            out.golden.append(
                GoldenTask(
                    id=task_id,
                    query=str(row["query"]),
                    expected=tuple(items),
                    repo=row.get("repo"),
                    tags=tuple(row.get("tags") or ()),
                )
            )
        else:
            raise InputError(
                f"{path}:{number}: neither a golden query ('query', 'expected') nor a "
                "localization task ('problem_statement', 'gold_files', …)."
            )
    return out
