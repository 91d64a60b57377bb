"""Watch mode: keep an index current with the work trees it was built from.

A `Watcher` follows one or more indexed repositories with `watchfiles` (inotify on
Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows) and, after each burst of
changes, makes ONE incremental index run for each repository the burst touched
(`Engine.index`: a file whose size and mtime are unchanged is not even read, so the work
follows the number of changed files).

Batching. watchfiles hands over events every 50 ms; the watcher gathers those that may
matter into a burst, which ends once none came for `quiet_ms` (100 ms by default) or
after `max_wait_ms` (1.5 s) during a storm such as a branch switch. Events that cannot
matter neither end nor extend a burst: a stream of them (a build, a log, the index's own
writes) delays nothing. The burst is then judged (below) and the runs start. Events that
arrive during a run are kept by watchfiles and make the next burst.

What never starts a run -- an index must not feed on its own writes. Each path is judged
as `codecompass index` would judge it:

* anything in the data folder (a `.codecompass/` inside the repository receives every
  write a run makes), under `.git/` or in a vendored or build folder
  (`discover.is_vendored_dir`): dropped as the event arrives, without any I/O but a
  stat for a folder named like build output (`build/`, which may be a Python package);
* a file discovery would skip by its own rules (secret, blocked, binary, too large,
  minified, symlink, …; `discover.skip_reasons`), a file git ignores (`git
  check-ignore`, or the `.gitignore` files in a folder without git) and a file inside a
  nested repository, unless the index holds that path;
* a file the index holds with the same size and mtime (a chmod, an editor's no-op);
* a removed path the index holds nothing at or under;
* the file this process writes its output to (`codecompass index --watch > watch.log`
  inside the repository would otherwise re-index its own log after every batch).

A change of a `.gitignore` counts even when the index does not hold it, since it changes
what is listed. An idle watcher, and one whose own writes land inside the tree, therefore
writes nothing.

Starting and stopping. The watch begins first, then one catch-up run per repository:
what changed while no watcher ran (or while one was killed with `kill -9` mid-run; the
pipeline repairs a killed run) is indexed, and a change made during the catch-up comes
in the next batch. `stop()` (any thread; SIGTERM in the CLI) ends `run` once a run under
way is done; Ctrl-C ends it at once.

Failures. The writer lock refuses a second indexer: the watcher keeps the batch, says
the index is busy and tries again (after 0.5 s, doubling up to 10 s). A run that fails
otherwise (an embedding endpoint down) is reported and retried, doubling from 2 s up to
5 minutes. An error only the user can fix (a damaged index, another embedding model, the
folder gone) stops the watcher with that error.
"""

from __future__ import annotations

import bisect
import functools
import logging
import os
import stat
import subprocess
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pathspec

from codecompass.errors import (
    ConfigError,
    DamagedIndexError,
    DataDirError,
    IndexBusyError,
    InputError,
    ModelMismatchError,
)
from codecompass.gitexec import git_binary, git_env, run_git
from codecompass.indexing.discover import (
    DiscoveryRules,
    gitignore_spec,
    is_vendored_dir,
    skip_reasons,
    vendored_dir,
)
from codecompass.indexing.pipeline import IndexStats, Progress
from codecompass.settings import Settings
from codecompass.storage import Backend

log = logging.getLogger("codecompass.watch")

QUIET_MS = 100  # a burst ends once no new event came for this long
MAX_WAIT_MS = 1500  # … or after this long, however busy the tree
STEP_MS = 50  # watchfiles' step: events reach the loop, and an idle loop wakes, this often
BUSY_RETRY_S = (0.5, 10.0)  # first and longest wait when another indexer holds the lock
FAIL_RETRY_S = (2.0, 300.0)  # the same after a failed run
DIR_SCAN_LIMIT = 2000  # files of a folder that appeared, judged one by one; above: a run
EXAMPLES = 5
_GIT_TIMEOUT_S = 60
# Errors a retry cannot fix: the watcher stops with them.
FATAL = (ConfigError, DataDirError, DamagedIndexError, ModelMismatchError, InputError)


class Indexer(Protocol):
    """What the watcher needs of an engine (`codecompass.engine.Engine`)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def backend(self) -> Backend: ...

    def rules(self) -> DiscoveryRules: ...

    def index(
        self,
        root: str | Path,
        *,
        name: str | None = None,
        full: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IndexStats: ...


@dataclass(frozen=True, slots=True)
class WatchTarget:
    """A repository of the index and the work tree it follows."""

    repo: str
    root: Path


@dataclass(slots=True)
class BatchReport:
    """One run of the watcher (or one that could not run yet)."""

    repo: str
    trigger: str  # "start" (the catch-up run), "changes", "retry"
    status: str  # "ok", "busy" (another indexer holds the lock), "failed"
    paths: int  # paths of the batch that mattered
    examples: list[str]
    seconds: float
    stats: IndexStats | None = None
    error: str | None = None
    retry_in: float | None = None  # seconds, when status is not "ok"

    @property
    def files_changed(self) -> int:
        s = self.stats
        return 0 if s is None else s.new + s.changed + s.renamed + s.removed

    def as_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "trigger": self.trigger,
            "status": self.status,
            "paths": self.paths,
            "examples": self.examples,
            "files_changed": self.files_changed,
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "retry_in": self.retry_in,
            "stats": self.stats.as_dict() if self.stats is not None else None,
        }

    def line(self) -> str:
        """One line for people."""
        if self.status == "ok" and self.stats is not None:
            s = self.stats
            what = "caught up" if self.trigger == "start" else "updated"
            return (
                f"{self.repo}: {what}, {self.files_changed} files re-indexed ({s.new} new, "
                f"{s.changed} changed, {s.renamed} renamed, {s.removed} removed) in "
                f"{self.seconds:.2f} s"
            )
        retry = f"; trying again in {self.retry_in:g} s" if self.retry_in is not None else ""
        if self.status == "busy":
            return f"{self.repo}: the index is busy{retry}. {self.error}"
        return f"{self.repo}: indexing failed ({self.error}){retry}"


def check_watchable(settings: Settings) -> None:
    """Watch mode keeps a local index in step with a local work tree; refuse the rest."""
    if settings.storage.backend != "embedded":
        raise InputError(
            f"--watch keeps a local index in step with the files on this machine, but this "
            f"index is on the {settings.storage.backend!r} backend, shared through "
            "servers: index it from commits instead (`codecompass index PATH --commit REV` "
            "in CI, or `codecompass hooks install`), or watch an embedded index (storage "
            "backend 'embedded')."
        )


def _is_git_dir(root: Path) -> bool:
    return (root / "objects").is_dir() and (root / "HEAD").is_file()


def watch_targets(indexer: Indexer) -> tuple[list[WatchTarget], list[str]]:
    """The repositories of the index with a work tree to watch, and a note for each one
    left out (indexed from git objects, or its folder gone). InputError when none."""
    check_watchable(indexer.settings)
    targets: list[WatchTarget] = []
    notes: list[str] = []
    for record in indexer.backend.repos.repos():
        root = Path(record.root)
        if not root.is_dir():
            notes.append(f"{record.id}: {root} no longer exists; not watched")
        elif _is_git_dir(root):
            notes.append(
                f"{record.id}: indexed from git objects (--commit), which have no work tree "
                "to watch; not watched"
            )
        else:
            targets.append(WatchTarget(record.id, root))
    if not targets:
        detail = f" ({'; '.join(notes)})" if notes else ""
        raise InputError(
            f"Nothing to watch in {indexer.settings.data_dir}{detail}: index a work tree "
            "first with `codecompass index PATH` (or `codecompass index PATH --watch`)."
        )
    return targets, notes


# -- judging paths ----------------------------------------------------------------------
def _uses_git(root: Path) -> bool:
    """Whether discovery lists `root` through git (as `discover._git_list` decides)."""
    try:
        probe = run_git(
            ["-C", str(root), "rev-parse", "--is-inside-work-tree", "--show-prefix"],
            timeout=_GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    lines = probe.stdout.decode("utf-8", "replace").splitlines()
    if probe.returncode != 0 or not lines or lines[0].strip() != "true":
        return False
    if len(lines) > 1 and lines[1].strip():
        try:
            ignored = run_git(["-C", str(root), "check-ignore", "-q", "."], timeout=_GIT_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError):
            return False
        return ignored.returncode != 0
    return True


def _git_ignored(root: Path, paths: Sequence[str]) -> set[str] | None:
    """The paths git ignores (tracked files never are), or None when git cannot say."""
    if not paths:
        return set()
    try:
        done = subprocess.run(
            [git_binary(), "-C", str(root), "check-ignore", "-z", "--stdin"],
            input=b"\0".join(os.fsencode(p) for p in paths) + b"\0",
            capture_output=True,
            check=False,
            timeout=_GIT_TIMEOUT_S,
            env=git_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):
        return None
    return {os.fsdecode(p) for p in done.stdout.split(b"\0") if p}


def _is_file(root: str | Path, rel: str) -> bool:
    """Whether the repo-relative `rel` under `root` is a file (`discover.vendored_dir`'s
    question: does this `build/` hold `__init__.py`)."""
    return os.path.isfile(os.path.join(root, rel))


class PathJudge:
    """Decides, for one repository, which touched paths could change what an index run
    stores (see the module's docstring). `remember` gives it the index's files after
    each run."""

    def __init__(
        self, root: Path, rules: DiscoveryRules, own: frozenset[tuple[int, int]] = frozenset()
    ) -> None:
        self.root = root
        self._has_file = functools.partial(_is_file, root)
        self.rules = rules
        self.own = own  # (device, inode) of files this process writes to: never relevant
        self.known: dict[str, tuple[int, int]] = {}  # path -> (size, mtime_ns) indexed
        self._sorted: list[str] = []
        self._git: bool | None = None
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def remember(self, files: dict[str, tuple[int, int]]) -> None:
        self.known = files
        self._sorted = sorted(files)

    def _holds(self, rel: str) -> bool:
        """The index holds a file at `rel` or under the folder `rel`."""
        if rel in self.known:
            return True
        prefix = rel + "/"
        at = bisect.bisect_left(self._sorted, prefix)
        return at < len(self._sorted) and self._sorted[at].startswith(prefix)

    def relevant(self, paths: Iterable[str]) -> list[str]:
        """The paths among `paths` that an index run would treat differently now."""
        found: list[str] = []
        unknown: list[str] = []  # files the index does not hold: listed? kept?
        for rel in sorted(set(paths)):
            try:
                st: os.stat_result | None = os.lstat(self.root / rel)
            except FileNotFoundError:
                st = None
            except OSError:
                if self._holds(rel):
                    found.append(rel)
                continue
            if rel.rpartition("/")[2] == ".gitignore" and (st is None or self._changed(rel, st)):
                self._git, self._specs = None, {}  # what is listed may change: re-read
                found.append(rel)
                continue
            if st is None:
                if self._holds(rel):
                    found.append(rel)
            elif (st.st_dev, st.st_ino) in self.own:
                continue
            elif stat.S_ISDIR(st.st_mode):
                if rel in self.known:
                    found.append(rel)  # a file became a folder
                    continue
                below = self._files_below(rel)
                if below is None:
                    found.append(rel)
                    continue
                for sub, sub_st in below:
                    if (sub_st.st_dev, sub_st.st_ino) in self.own:
                        continue
                    if self._changed(sub, sub_st):
                        found.append(sub)
                    elif sub not in self.known:
                        unknown.append(sub)
            elif rel in self.known:
                if self._changed(rel, st):
                    found.append(rel)
            else:
                unknown.append(rel)
        found.extend(self._listed(unknown))
        return sorted(set(found))

    def _changed(self, rel: str, st: os.stat_result) -> bool:
        """A file the index holds, now different (or no longer a regular file); for a
        `.gitignore` also one the index does not hold."""
        before = self.known.get(rel)
        if before is None:
            return rel.rpartition("/")[2] == ".gitignore"
        return not stat.S_ISREG(st.st_mode) or (st.st_size, st.st_mtime_ns) != before

    def _files_below(self, rel: str) -> list[tuple[str, os.stat_result]] | None:
        """The files of a folder that appeared (moved in, or made before its watch was
        set), skipping what discovery never enters; None when there are too many."""
        found: list[tuple[str, os.stat_result]] = []
        todo = [rel]
        while todo:
            folder = todo.pop()
            try:
                with os.scandir(self.root / folder) as entries:
                    listed = list(entries)
            except OSError:
                continue
            for entry in listed:
                sub = f"{folder}/{entry.name}"
                if entry.name == ".git" or is_vendored_dir(sub, self._has_file):
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    todo.append(sub)
                else:
                    found.append((sub, st))
                    if len(found) > DIR_SCAN_LIMIT:
                        return None
        return found

    def _listed(self, paths: list[str]) -> list[str]:
        """Of files the index does not hold, those a run would list and keep."""
        if not paths:
            return []
        reasons = skip_reasons(self.root, paths, self.rules)
        kept = [p for p in paths if reasons.get(p) is None]
        if not kept:
            return []
        if self._git is None:
            self._git = _uses_git(self.root)
        if self._git:
            kept = [p for p in kept if not self._in_nested_repo(p)]
            ignored = _git_ignored(self.root, kept)
            if ignored is None:
                return kept  # git could not say: a run will
            return [p for p in kept if p not in ignored]
        return [p for p in kept if not self._walk_ignored(p)]

    def _in_nested_repo(self, rel: str) -> bool:
        """git lists a nested repository (or submodule) as one entry, never its files."""
        parts = rel.split("/")[:-1]
        return any(
            os.path.lexists(self.root.joinpath(*parts[: i + 1], ".git")) for i in range(len(parts))
        )

    def _spec(self, folder: str) -> pathspec.GitIgnoreSpec | None:
        """The `.gitignore` of `folder` ("" or "a/b/"), read once (until one changes)."""
        if folder not in self._specs:
            path = self.root / folder / ".gitignore"
            spec = None
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):  # never through a symlink
                    text = path.read_text(encoding="utf-8", errors="replace")
                    spec = gitignore_spec(text.splitlines())
            except OSError:
                spec = None
            self._specs[folder] = spec
        return self._specs[folder]

    def _walk_ignored(self, rel: str) -> bool:
        """Ignored by the `.gitignore` files as discovery's walk applies them: deeper
        files win, and an ignored folder is never entered."""
        parts = rel.split("/")
        stack: list[tuple[str, pathspec.GitIgnoreSpec]] = []
        for depth in range(len(parts)):
            folder = "".join(f"{p}/" for p in parts[:depth])
            spec = self._spec(folder)
            if spec is not None:
                stack.append((folder, spec))
            target = folder + parts[depth] + ("/" if depth < len(parts) - 1 else "")
            for prefix, found in reversed(stack):
                decision = found.check_file(target[len(prefix) :]).include
                if decision is not None:
                    if decision:
                        return True
                    break
        return False


# -- the watcher ------------------------------------------------------------------------
@dataclass(slots=True)
class _Repo:
    target: WatchTarget
    judge: PathJudge
    pending: set[str] = field(default_factory=set)  # touched, not judged yet
    settled: bool = False  # the burst that brought `pending` has ended
    changed: set[str] = field(default_factory=set)  # judged relevant, not indexed yet
    due: bool = False  # a run is owed (changes, or the catch-up)
    trigger: str = "changes"
    retry_at: float | None = None
    busy: int = 0
    failures: int = 0


def own_output() -> frozenset[tuple[int, int]]:
    """(device, inode) of the regular files stdout and stderr write to."""
    found: set[tuple[int, int]] = set()
    for fd in (1, 2):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            found.add((st.st_dev, st.st_ino))
    return frozenset(found)


def _backoff(limits: tuple[float, float], attempt: int) -> float:
    first, longest = limits
    return float(min(longest, first * 2**attempt))


class Watcher:
    """Watches the work trees of `targets` and keeps their index current; `run` blocks
    until `stop` (from any thread), Ctrl-C, or an error only the user can fix.

    `on_batch` hears of every run (and of runs that could not happen yet); `on_progress`
    follows the catch-up runs, which may be a first index. `counts` says what the
    watcher saw: events, dropped (data folder, .git, vendored), judged, runs, busy,
    failed, quiet (batches in which nothing mattered); `recent` the last paths judged, as
    (repo, path, whether it mattered)."""

    def __init__(
        self,
        indexer: Indexer,
        targets: Sequence[WatchTarget],
        *,
        on_batch: Callable[[BatchReport], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        quiet_ms: int = QUIET_MS,
        max_wait_ms: int = MAX_WAIT_MS,
        catch_up: bool = True,
        full: bool = False,
    ) -> None:
        check_watchable(indexer.settings)
        if not targets:
            raise InputError("Nothing to watch: name at least one repository.")
        self.indexer = indexer
        self.on_batch = on_batch
        self.on_progress = on_progress
        self.quiet_ms = quiet_ms
        self.max_wait_ms = max(max_wait_ms, quiet_ms)
        self.catch_up = catch_up
        self.full = full
        data_dir = str(indexer.settings.data_dir.resolve())
        self._data_dir = data_dir.rstrip(os.sep)
        rules, own = indexer.rules(), own_output()
        self._repos: list[_Repo] = []
        for t in targets:
            root = Path(t.root).resolve()
            if not root.is_dir():
                raise InputError(f"{root} is not a folder; pass the work tree of a repository.")
            self._repos.append(_Repo(WatchTarget(t.repo, root), PathJudge(root, rules, own)))
        self._roots = sorted({str(r.target.root) for r in self._repos})
        # Per root, whether a repo-relative file is there (`discover.vendored_dir`).
        self._has_file = {root: functools.partial(_is_file, root) for root in self._roots}
        self._stop = threading.Event()
        self._state = threading.Condition()
        self._busy = False
        self._started = False
        self.counts: Counter[str] = Counter()
        self.recent: deque[tuple[str, str, bool]] = deque(maxlen=1000)

    @property
    def targets(self) -> list[WatchTarget]:
        return [r.target for r in self._repos]

    def stop(self) -> None:
        """Ask `run` to return (after the run under way, if any)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def idle(self) -> bool:
        """Started, caught up, and nothing pending or running."""
        with self._state:
            return (
                self._started
                and not self._busy
                and not any(r.pending or r.due or r.changed for r in self._repos)
            )

    def wait_idle(self, timeout: float) -> bool:
        """Block until `idle` (True) or `timeout` seconds pass (False)."""
        with self._state:
            return self._state.wait_for(self.idle, timeout)

    # -- the loop -------------------------------------------------------------------
    def run(self) -> None:
        import watchfiles

        # watchfiles hands over every event within ~STEP_MS (and wakes the loop as often
        # when nothing happens); the debounce is ours, over the events that may matter
        # only, so that a stream of ignored writes (a build, a log, the index's own
        # files) neither delays a batch nor starts one.
        changes = watchfiles.watch(
            *self._roots,
            watch_filter=None,
            debounce=STEP_MS,
            step=STEP_MS,
            stop_event=self._stop,
            rust_timeout=STEP_MS,
            yield_on_timeout=True,
            raise_interrupt=True,
            ignore_permission_denied=True,
        )
        quiet_s, max_wait_s = self.quiet_ms / 1000, self.max_wait_ms / 1000
        first = last = 0.0  # when the burst's first and latest events came (0: no burst)
        try:
            for batch in changes:
                # The first answer comes once the watch is set up: catch up from here.
                if not self._started:
                    with self._state:
                        self._started = True
                        for repo in self._repos:
                            repo.due, repo.trigger = self.catch_up, "start"
                        self._state.notify_all()
                now = time.monotonic()
                if self._collect(batch):
                    first, last = first or now, now
                ended = bool(first) and (now - last >= quiet_s or now - first >= max_wait_s)
                if ended:
                    first = last = 0.0
                self._work(ended)
                if self._stop.is_set():
                    break
        finally:
            changes.close()
            with self._state:
                self._state.notify_all()

    def _keep(self, path: str) -> bool:
        """Drop what can never matter, without I/O but a stat for a folder named like
        build output (`discover.OUTPUT_DIRS`)."""
        self.counts["events"] += 1
        if path == self._data_dir or path.startswith(self._data_dir + os.sep):
            self.counts["dropped"] += 1
            return False
        for root in self._roots:
            if path.startswith(root + os.sep):
                rel = path[len(root) + 1 :].replace(os.sep, "/")
                if ".git" in rel.split("/"):
                    continue
                exists = self._has_file[root]
                if vendored_dir(rel, exists) is not None:
                    continue
                if is_vendored_dir(rel, exists) and os.path.isdir(path):
                    continue
                return True
        self.counts["dropped"] += 1
        return False

    def _collect(self, batch: set[tuple[Any, str]]) -> bool:
        """Keep the paths that may matter for judging; True if there was one."""
        kept = False
        with self._state:
            for _, path in batch:
                if path in self._roots and not os.path.isdir(path):
                    raise InputError(f"{path} was removed or moved away; stopped watching it.")
                if not self._keep(path):
                    continue
                for repo in self._repos:
                    root = str(repo.target.root)
                    if path.startswith(root + os.sep):
                        repo.pending.add(path[len(root) + 1 :].replace(os.sep, "/"))
                        self.counts["judged"] += 1
                        kept = True
        return kept

    def _work(self, burst_ended: bool) -> None:
        """Judge the paths of a burst that ended, and make the runs owed (catch-up,
        changes, retries whose time came)."""
        for repo in self._repos:
            if burst_ended and repo.pending:
                repo.settled = True
        for repo in self._repos:
            if self._stop.is_set():
                return
            if repo.retry_at is not None and time.monotonic() < repo.retry_at:
                continue
            if repo.pending and not repo.settled:
                continue  # still coming: wait for the burst to end
            with self._state:
                pending, repo.pending, repo.settled = repo.pending, set(), False
            if pending:
                found = repo.judge.relevant(pending)
                # A folder that appeared mattered if a file below it did.
                mattered = {f.rsplit("/", i)[0] for f in found for i in range(f.count("/") + 1)}
                with self._state:
                    self.recent.extend(
                        (repo.target.repo, p, p in mattered) for p in sorted(pending)
                    )
                    if found:
                        repo.changed.update(found)
                        repo.due = True
                    else:
                        self.counts["quiet"] += 1
                    self._state.notify_all()
            if repo.due:
                self._index(repo)

    def _index(self, repo: _Repo) -> None:
        target = repo.target
        trigger = repo.trigger if repo.busy == repo.failures == 0 else "retry"
        start = repo.trigger == "start"
        paths = sorted(repo.changed)
        with self._state:
            self._busy = True
        began = time.monotonic()
        report = BatchReport(target.repo, trigger, "ok", len(paths), paths[:EXAMPLES], 0.0)
        try:
            report.stats = self.indexer.index(
                target.root,
                name=target.repo,
                full=self.full and start,
                on_progress=self.on_progress if start else None,
            )
            self.counts["runs"] += 1
        except IndexBusyError as exc:
            report.status, report.error = "busy", str(exc)
            report.retry_in = _backoff(BUSY_RETRY_S, repo.busy)
            repo.busy += 1
            self.counts["busy"] += 1
        except FATAL:
            with self._state:
                self._busy = False
                self._state.notify_all()
            raise
        except Exception as exc:  # a transient failure (an embedding endpoint down, …)
            log.warning("indexing %s failed", target.repo, exc_info=True)
            report.status, report.error = "failed", f"{type(exc).__name__}: {exc}"
            report.retry_in = _backoff(FAIL_RETRY_S, repo.failures)
            repo.failures += 1
            self.counts["failed"] += 1
        report.seconds = time.monotonic() - began
        if report.status == "ok":
            files = self.indexer.backend.files.files(target.repo)
            repo.judge.remember({path: (f.size, f.mtime_ns) for (_, path), f in files.items()})
        try:
            if self.on_batch is not None:
                self.on_batch(report)
        finally:
            with self._state:
                if report.status == "ok":
                    repo.changed.clear()
                    repo.due, repo.trigger = False, "changes"
                    repo.retry_at, repo.busy, repo.failures = None, 0, 0
                else:
                    assert report.retry_in is not None
                    repo.retry_at = time.monotonic() + report.retry_in
                self._busy = False
                self._state.notify_all()


class WatchThread:
    """A `Watcher` in a daemon thread (for the MCP server): started once, stopped once.
    An error that stops the watcher is logged and kept in `error`."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="codecompass-watch", daemon=True)

    def _main(self) -> None:
        try:
            self.watcher.run()
        except BaseException as exc:
            self.error = exc
            log.error("The watcher stopped: %s", exc)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop; wait up to `timeout` s for a run under way. False if it is still going
        (the thread is a daemon: a run cut short by the process ending is repaired by the
        next one)."""
        self.watcher.stop()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def is_alive(self) -> bool:
        return self._thread.is_alive()
