"""Read-only git history for one path: `git log` and `git blame`, without a shell.

Arguments reach git as a list (never through a shell). A revision range is checked
against a strict pattern and placed after `--end-of-options`, the path after `--`, so
neither can become an option. Variables that point git elsewhere (GIT_DIR, …) are
dropped, and config that could run programs (pagers, external diff, textconv,
signature checks) is switched off on the command line.
"""

from __future__ import annotations

import re
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

from codecompass.errors import InputError, NotFoundError, OutOfRangeError
from codecompass.gitexec import run_git
from codecompass.schemas import BlameHunk, Commit
from codecompass.security.secrets import redact_secrets

GIT_TIMEOUT_S = 15
MAX_LOG_ENTRIES = 200
MAX_BLAME_LINES = 2000
# A revision, or two joined by `..`/`...`: names, hashes, `~N`, `^N`, `@{…}` suffixes.
# No leading `-` (an option), no `:` (a path spec), no whitespace, no `..` inside a name.
_REV = r"[A-Za-z0-9_][A-Za-z0-9_./@{}~^-]{0,199}"
_RANGE = re.compile(rf"^(?:{_REV})?(?:\.\.\.?(?:{_REV})?)?$")
_SAFE_CONFIG = (
    "-c",
    "core.pager=cat",
    "-c",
    "diff.external=",
    "-c",
    "log.showSignature=false",
    "-c",
    "core.fsmonitor=false",
)
_FIELD = "\x1f"
_RECORD = "\x1e"


def check_range(rev_range: str) -> str:
    """`rev_range` if it is a plain revision or range, else an InputError."""
    text = rev_range.strip()
    if not text or not _RANGE.fullmatch(text) or text in ("..", "...") or "/." in text:
        raise InputError(
            f"Revision range {rev_range!r} is not accepted; use a revision or a range such as "
            "HEAD~20..HEAD, v1.2..main or a commit hash (no options, spaces or paths)."
        )
    return text


def git_log(root: Path, rel: str, *, rev_range: str | None = None, limit: int = 20) -> list[Commit]:
    """Commits that touched `rel` (a file or folder; "" = whole repo), newest first."""
    if not 1 <= limit <= MAX_LOG_ENTRIES:
        raise InputError(f"max must be between 1 and {MAX_LOG_ENTRIES} (got {limit}).")
    args = [
        "log",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        f"--max-count={limit}",
        f"--format=%H{_FIELD}%an{_FIELD}%aI{_FIELD}%s{_RECORD}",
        "--end-of-options",
    ]
    if rev_range:
        args.append(check_range(rev_range))
    args += ["--", rel or "."]
    out = _run(root, args)
    commits: list[Commit] = []
    for record in out.split(_RECORD):
        fields = record.strip("\n").split(_FIELD)
        if len(fields) == 4:
            sha, author, date, subject = fields
            commits.append(
                Commit(sha=sha, author=author, date=date, subject=redact_secrets(subject)[0])
            )
    return commits


def git_blame(root: Path, rel: str, start: int, end: int, total_lines: int) -> list[BlameHunk]:
    """Who last changed lines `start`..`end` of `rel` (committed state plus local edits)."""
    if start >= 1 and end < start:
        raise OutOfRangeError(f"Line range {start}-{end} is reversed; swap them: {end}-{start}.")
    if start < 1 or start > total_lines:
        raise OutOfRangeError(
            f"Line range {start}-{end} is out of bounds for {rel} (lines 1-{total_lines})."
        )
    end = min(end, total_lines)
    if end - start + 1 > MAX_BLAME_LINES:
        raise InputError(f"Blame at most {MAX_BLAME_LINES} lines at once (asked {start}-{end}).")
    out = _run(root, ["blame", "--porcelain", "--no-textconv", "-L", f"{start},{end}", "--", rel])
    return _parse_blame(out)


def _parse_blame(out: str) -> list[BlameHunk]:
    info: dict[str, dict[str, str]] = {}
    hunks: list[BlameHunk] = []
    sha = ""
    line_no = 0
    for line in out.splitlines():
        if line.startswith("\t"):
            meta = info.get(sha, {})
            last = hunks[-1] if hunks else None
            if last is not None and last.sha == sha and last.end_line == line_no - 1:
                hunks[-1] = last.model_copy(update={"end_line": line_no})
            else:
                hunks.append(
                    BlameHunk(
                        start_line=line_no,
                        end_line=line_no,
                        sha=sha,
                        author=meta.get("author", ""),
                        date=meta.get("date", ""),
                        subject=redact_secrets(meta.get("summary", ""))[0],
                    )
                )
            continue
        head, _, value = line.partition(" ")
        if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", head):
            sha = head
            line_no = int(value.split()[1])
            info.setdefault(sha, {})
        elif head == "author":
            info[sha]["author"] = value
        elif head == "author-time":
            info[sha]["time"] = value
        elif head == "author-tz":
            info[sha]["date"] = _iso(info[sha].get("time", "0"), value)
        elif head == "summary":
            info[sha]["summary"] = value
    return hunks


def _iso(epoch: str, tz: str) -> str:
    sign = -1 if tz.startswith("-") else 1
    digits = tz.lstrip("+-").rjust(4, "0")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:])) * sign
    return datetime.fromtimestamp(int(epoch), timezone(offset)).isoformat()


def _run(root: Path, args: list[str]) -> str:
    try:
        out = run_git(["-C", str(root), *_SAFE_CONFIG, "--no-pager", *args], timeout=GIT_TIMEOUT_S)
    except FileNotFoundError:
        raise NotFoundError("git is not installed; git_log and git_blame need it.") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git took longer than {GIT_TIMEOUT_S} s; narrow the range.") from None
    if out.returncode != 0:
        message = out.stderr.decode("utf-8", "replace").strip().splitlines()
        first = message[0] if message else f"exit code {out.returncode}"
        if "not a git repository" in first:
            raise NotFoundError(f"{root} is not a git repository, so it has no history.")
        if "unknown revision" in first or "bad revision" in first or "ambiguous argument" in first:
            raise InputError(f"git does not know that revision: {first}")
        if "no such path" in first:
            raise NotFoundError(f"git has no history for that path: {first}")
        raise InputError(f"git failed: {first}")
    return out.stdout.decode("utf-8", "replace")
