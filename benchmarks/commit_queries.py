"""Golden queries from a project's history: a later commit's message asks for its file.

A check of file ranking on code no weight was tuned on, without hand-written answers. The
index holds the project at an older commit (SNAPSHOT); every later commit that changes
tests and exactly one code file that already existed at SNAPSHOT becomes a golden query:
its message (subject and body, trailers left out) is the question, that code file the
expected answer. The fix's own tests are not in the index, so they cannot give it away.
Commits about tooling (pre-commit, typing, lint, refactors, deprecations, typos) are left
out, and messages of fewer than three words.

    git --git-dir REPO.git archive SNAPSHOT | tar -x -C /tmp/proj
    codecompass index /tmp/proj --name proj --data-dir /tmp/proj-data
    .venv/bin/python benchmarks/commit_queries.py REPO.git SNAPSHOT proj src/ > proj.jsonl
    codecompass eval proj.jsonl --data-dir /tmp/proj-data --dump-features proj-features.jsonl

Code files end with `--ext` (`.py` unless told, `.go` for a Go project). The dump
re-scored with `codecompass tune` (or `evaluation.tune.rankings`) gives the file view
under other settings.

With `--functions`, each query also names the functions and classes the commit changed:
the innermost `def`/`class` around each changed line of the file before the commit (read
with Python's `ast`), when there are one to three and each exists at SNAPSHOT under the
same qualified name (`Class.method`); other commits are left out. The symbol view is then
scored as well.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import re
import subprocess
import sys

from codecompass.indexing.languages import is_test_path

TOOLING = re.compile(
    r"pre-commit|typing|mypy|lint|refactor|cleanup|type annot|ruff|deprecat|typo", re.I
)
# trailers, issue references and pull-request checklists
TRAILER = re.compile(
    r"(co-authored-by|signed-off-by|fixes|closes|fix #|ref)[ :]|\* \[pre-commit|- \[[x ]\]|<!--",
    re.I,
)
MAX_CHARS = 4000
MAX_SYMBOLS = 3
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? ", re.M)


def git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", repo, *args], capture_output=True, text=True, check=True
    ).stdout


def definitions(source: str) -> list[tuple[str, int, int]]:
    """Each `def`/`class` of a Python file as (qualified name, first line with its
    decorators, last line). As in the dev split's gold (its README, "Scopes"), a function
    or class nested inside a function is not a scope of its own: its lines are the
    enclosing function's."""
    found: list[tuple[str, int, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                found.append((name, first, child.end_lineno or child.lineno))
                if isinstance(child, ast.ClassDef):
                    walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(source), "")
    return found


@functools.cache
def defined_at(repo: str, commit: str, path: str) -> frozenset[str]:
    """The qualified names a Python file defines at a commit (read once per file)."""
    return frozenset(name for name, _, _ in definitions(git(repo, "show", f"{commit}:{path}")))


def changed_symbols(repo: str, sha: str, path: str, snapshot: str) -> list[str] | None:
    """The qualified names of the definitions `sha` changed in `path`, if one to
    MAX_SYMBOLS and all present at `snapshot`; None otherwise (also when either version
    does not parse or the file is missing before `sha`)."""
    try:
        before = definitions(git(repo, "show", f"{sha}^:{path}"))
        then = defined_at(repo, snapshot, path)
    except (SyntaxError, subprocess.CalledProcessError):
        return None
    lines: set[int] = set()
    for hunk in HUNK.finditer(git(repo, "diff", "-U0", f"{sha}^", sha, "--", path)):
        start, count = int(hunk.group(1)), int(hunk.group(2) or 1)
        lines.update(range(start, start + count) if count else [start])
    names: set[str] = set()
    for line in lines:
        around = [d for d in before if d[1] <= line <= d[2]]
        if around:
            names.add(min(around, key=lambda d: d[2] - d[1])[0])
    if not 0 < len(names) <= MAX_SYMBOLS or not names <= then:
        return None
    return sorted(names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="git directory (a clone's .git or a bare repository)")
    parser.add_argument("snapshot", help="the commit the index holds")
    parser.add_argument("name", help="the repository's name in the index (--name)")
    parser.add_argument("code_prefix", help="code files start with this (src/, xarray/)")
    parser.add_argument("--ext", default=".py", help="code files end with this (.py, .go)")
    parser.add_argument(
        "--functions", action="store_true", help="name the changed symbols (Python only)"
    )
    args = parser.parse_args()
    at_snapshot = set(git(args.repo, "ls-tree", "-r", "--name-only", args.snapshot).split("\n"))
    log = git(
        args.repo,
        "log",
        "--no-merges",
        "--reverse",
        f"{args.snapshot}..HEAD",
        "--name-only",
        "--format=tformat:COMMIT@@%H%n%B%nFILES@@",
    )
    count = 0
    for block in log.split("COMMIT@@")[1:]:
        head, _, changed = block.partition("FILES@@")
        sha, _, message = head.partition("\n")
        files = [f for f in changed.split("\n") if f.endswith(args.ext)]
        code = [f for f in files if f.startswith(args.code_prefix) and not is_test_path(f)]
        if len(code) != 1 or code[0] not in at_snapshot or not any(map(is_test_path, files)):
            continue
        lines = message.strip().split("\n")
        if TOOLING.search(lines[0]):
            continue
        query = "\n".join(line for line in lines if not TRAILER.match(line.strip())).strip()
        if len(query.split()) < 3:
            continue
        row = {"id": sha[:10], "query": query[:MAX_CHARS], "repo": args.name}
        row["expected"] = [{"path": code[0]}]
        if args.functions:
            symbols = changed_symbols(args.repo, sha, code[0], args.snapshot)
            if symbols is None:
                continue
            row["expected"] = [{"path": code[0], "symbol": name} for name in symbols]
        sys.stdout.write(json.dumps(row) + "\n")
        count += 1
    print(f"{count} queries", file=sys.stderr)


if __name__ == "__main__":
    main()
