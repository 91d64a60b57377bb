"""Git hooks that keep an index current: after a commit, merge, checkout or rewrite, an
incremental `codecompass index` starts in the background (the writer lock makes a
second one that overlaps a running one give way).

A hook that was there before is kept: it is moved aside to `<name>.codecompass-saved`,
our hook runs it first with the same arguments and input, and `uninstall` puts it back.
"""

from __future__ import annotations

import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

from codecompass.errors import InputError
from codecompass.gitexec import git_text

HOOKS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
MARK = "# codecompass hook: keeps the index current (codecompass hooks uninstall removes it)"
SAVED = ".codecompass-saved"
LOG = "hooks.log"


@dataclass(frozen=True, slots=True)
class HookReport:
    hooks_dir: str
    installed: list[str]
    kept: list[str]  # hooks that were there before, now run first by ours
    removed: list[str]
    restored: list[str]


def hooks_dir(repo: Path) -> Path:
    found = git_text(repo, "rev-parse", "--git-path", "hooks")
    if not found:
        raise InputError(f"{repo} is not a git work tree; hooks need a git repository.")
    path = Path(found)
    return path if path.is_absolute() else (repo / path).resolve()


def _script(name: str, command: list[str], data_dir: Path) -> str:
    index = shlex.join([*command, "index", "--data-dir", str(data_dir)])
    log = shlex.quote(str(data_dir / LOG))
    return f"""#!/bin/sh
{MARK}
saved="$(dirname "$0")/{name}{SAVED}"
status=0
if [ -x "$saved" ]; then
    "$saved" "$@"
    status=$?
fi
top="$(git rev-parse --show-toplevel 2>/dev/null)" || exit $status
( cd "$top" && nohup {index} >>{log} 2>&1 & ) >/dev/null 2>&1
exit $status
"""


def _is_ours(path: Path) -> bool:
    try:
        return MARK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(repo: Path, data_dir: Path, command: list[str]) -> HookReport:
    folder = hooks_dir(repo)
    folder.mkdir(parents=True, exist_ok=True)
    installed: list[str] = []
    kept: list[str] = []
    for name in HOOKS:
        hook = folder / name
        if hook.exists() and not _is_ours(hook):
            saved = folder / f"{name}{SAVED}"
            if saved.exists():
                raise InputError(
                    f"{saved} already exists; move it away, then run `codecompass hooks "
                    "install` again."
                )
            hook.rename(saved)
            kept.append(name)
        part = hook.with_name(f".{name}.codecompass-part")
        part.write_text(_script(name, command, data_dir.resolve()), encoding="utf-8")
        part.chmod(part.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        os.replace(part, hook)
        installed.append(name)
    return HookReport(str(folder), installed, kept, [], [])


def uninstall(repo: Path) -> HookReport:
    folder = hooks_dir(repo)
    removed: list[str] = []
    restored: list[str] = []
    for name in HOOKS:
        hook = folder / name
        if hook.exists() and _is_ours(hook):
            hook.unlink()
            removed.append(name)
        saved = folder / f"{name}{SAVED}"
        if saved.exists() and not hook.exists():
            saved.rename(hook)
            restored.append(name)
    return HookReport(str(folder), [], [], removed, restored)
