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

The dump re-scored with `codecompass tune` (or `evaluation.tune.rankings`) gives the file
view under other settings.
"""

from __future__ import annotations

import argparse
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


def git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", repo, *args], capture_output=True, text=True, check=True
    ).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="git directory (a clone's .git or a bare repository)")
    parser.add_argument("snapshot", help="the commit the index holds")
    parser.add_argument("name", help="the repository's name in the index (--name)")
    parser.add_argument("code_prefix", help="code files start with this (src/, xarray/)")
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
        files = [f for f in changed.split("\n") if f.endswith(".py")]
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
        sys.stdout.write(json.dumps(row) + "\n")
        count += 1
    print(f"{count} queries", file=sys.stderr)


if __name__ == "__main__":
    main()
