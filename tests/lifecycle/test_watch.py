"""Watch mode (issue 14, "staying current"): real watchfiles over real work trees into a
real embedded index. Every wait polls with a deadline; every check is on exact state,
compared with a fresh index of the same tree."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from codecompass.engine import Engine
from codecompass.errors import InputError
from codecompass.indexing.discover import DiscoveryRules, discover
from codecompass.indexing.pipeline import file_hash_on_disk
from codecompass.lifecycle.watch import BatchReport, PathJudge, Watcher, WatchTarget
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder, git, make_git_repo
from tests.peek import vector_ids

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 30.0


def wait_for(check: Callable[[], Any], what: str, timeout: float = DEADLINE_S) -> Any:
    """Poll `check` until it returns something truthy; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s: {what}"
        time.sleep(0.05)


def module(name: str, token: str) -> str:
    return f'def {name}(value):\n    """Return {token} for the value."""\n    return value\n'


def indexed_state(data: Path, repo: str) -> tuple[dict[str, str], set[str]]:
    """What an index holds for `repo`: path → file hash, and its active chunk ids (which
    name repo, path, lines and text)."""
    with Engine.open(data, embedder=TinyEmbedder()) as reader:
        files = {path: f.file_hash for (_, path), f in reader.backend.files.files(repo).items()}
        chunks = {
            e.id for entries in reader.backend.chunks.chunk_entries().values() for e in entries
        }
    return files, chunks


def disk_hashes(root: Path) -> dict[str, str]:
    """What a run would record now: path → hash of every file discovery keeps."""
    found = {c.path: file_hash_on_disk(root, c.path, 1 << 20) for c in discover(root).files}
    return {p: h for p, h in found.items() if h is not None}


def fresh_state(root: Path, repo: str, data: Path) -> tuple[dict[str, str], set[str]]:
    shutil.rmtree(data, ignore_errors=True)
    with Engine(load_settings(data), embedder=TinyEmbedder()) as engine:
        engine.index(root, name=repo)
    return indexed_state(data, repo)


class Running:
    """A watcher in a thread, with the reports it made."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher
        self.reports: list[BatchReport] = []
        self.error: BaseException | None = None
        watcher.on_batch = self.reports.append
        self.thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        try:
            self.watcher.run()
        except BaseException as exc:  # surfaced by the test
            self.error = exc

    def ok_runs(self) -> list[BatchReport]:
        return [r for r in self.reports if r.status == "ok"]

    def settled(self) -> bool:
        assert self.error is None, self.error
        return self.watcher.idle()


@contextmanager
def watching(root: Path, data: Path, name: str = "r", **options: Any) -> Iterator[Running]:
    engine, _ = Engine.for_repo(root, data_dir=data, embedder=TinyEmbedder())
    with engine:
        running = Running(Watcher(engine, [WatchTarget(name, root)], **options))
        running.thread.start()
        try:
            wait_for(lambda: running.ok_runs() and running.settled(), "the catch-up run")
            yield running
        finally:
            running.watcher.stop()
            running.thread.join(DEADLINE_S)
            assert not running.thread.is_alive()
    assert running.error is None, running.error


def follows_disk(root: Path, data: Path, repo: str = "r") -> Callable[[], bool]:
    def check() -> bool:
        return indexed_state(data, repo)[0] == disk_hashes(root)

    return check


# -- judging paths as `index` would ------------------------------------------------------
def _tree(root: Path) -> None:
    files = {
        "src/app.py": "def app():\n    return 1\n",
        "src/keep.log": "kept by a negation\n",
        "notes.log": "ignored\n",
        "out/gen.py": "x = 1\n",
        "deep/.gitignore": "!\n*.tmp\n!important.tmp\n",  # git skips a lone "!"
        "deep/a.tmp": "ignored deeper\n",
        "deep/important.tmp": "kept\n",
        ".env": "SECRET=1\n",
        "logo.png": "not really a png\n",
        "node_modules/lib/index.js": "module.exports = 1\n",
        "build/lib/app.py": "def app():\n    return 1\n",  # a build's output
        "tools/build/__init__.py": "def wheel():\n    return 1\n",  # a package: source
        "package-lock.json": "{}\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / ".gitignore").write_text("*.log\n!src/keep.log\nout/\n", encoding="utf-8")
    # A nested repository: git lists it as one entry, a folder walk enters it.
    make_git_repo(root / "nested", {"inner.py": "y = 2\n"})
    (root / "big.py").write_text("z = 0\n" * 400, encoding="utf-8")
    os.symlink(root / "src" / "app.py", root / "link.py")


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "plain-folder"])
def test_a_path_matters_exactly_when_discovery_would_list_it(
    tmp_path: Path, with_git: bool
) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    _tree(root)
    if with_git:
        make_git_repo(root, {})
    rules = DiscoveryRules(max_file_bytes=1000)
    listed = {c.path for c in discover(root, rules).files}
    every = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if not p.is_dir() and ".git" not in p.relative_to(root).parts
    )
    judge = PathJudge(root, rules)
    assert {p for p in every if judge.relevant([p])} == listed
    assert set(judge.relevant(every)) == listed
    assert "nested/inner.py" not in listed if with_git else "nested/inner.py" in listed
    assert "tools/build/__init__.py" in listed and "build/lib/app.py" not in listed
    # Once indexed, a path matters only when it differs from what the index holds.
    judge.remember(
        {p: (os.lstat(root / p).st_size, os.lstat(root / p).st_mtime_ns) for p in listed}
    )
    assert judge.relevant(every) == []
    os.chmod(root / "src" / "app.py", 0o600)  # an event, but nothing a run would see
    assert judge.relevant(["src/app.py", "gone.py", "out"]) == []
    (root / "src" / "app.py").write_text("def app():\n    return 2\n", encoding="utf-8")
    shutil.rmtree(root / "deep")
    assert judge.relevant(["src/app.py", "deep"]) == ["deep", "src/app.py"]
    (root / ".gitignore").write_text("", encoding="utf-8")
    assert judge.relevant([".gitignore"]) == [".gitignore"]


# -- following a work tree ---------------------------------------------------------------
def test_watch_follows_creates_edits_atomic_saves_renames_and_deletes(tmp_path: Path) -> None:
    repo = make_git_repo(
        tmp_path / "r",
        {f"pkg/m{i}.py": module(f"fn_{i}", f"token{i}") for i in range(20)} | {"a.py": "a = 1\n"},
    )
    data = repo / ".codecompass"
    with watching(repo, data) as running:
        runs = len(running.ok_runs())
        (repo / "new.py").write_text(module("created_here", "fresh"), encoding="utf-8")
        wait_for(follows_disk(repo, data), "a new file")
        (repo / "build").mkdir()  # a package named like a build's output: source
        (repo / "build" / "__init__.py").write_text(module("wheel", "built"), encoding="utf-8")
        wait_for(follows_disk(repo, data), "a package named build")
        assert "build/__init__.py" in indexed_state(data, "r")[0]
        (repo / "a.py").write_text("a = 2\n", encoding="utf-8")
        wait_for(follows_disk(repo, data), "an edit")
        # An editor's atomic save: a temporary file renamed over the original.
        part = repo / ".a.py.swp-tmp"
        part.write_text("a = 3\n", encoding="utf-8")
        os.replace(part, repo / "a.py")
        wait_for(follows_disk(repo, data), "an atomic save")
        os.rename(repo / "pkg", repo / "lib")  # 20 files move at once
        wait_for(follows_disk(repo, data), "a folder renamed")
        for i in range(0, 20, 2):  # a mass rename inside a folder
            os.rename(repo / "lib" / f"m{i}.py", repo / "lib" / f"renamed_{i}.py")
        wait_for(follows_disk(repo, data), "a mass rename")
        shutil.rmtree(repo / "lib")
        (repo / "new.py").unlink()
        wait_for(follows_disk(repo, data), "a deleted folder and file")
        wait_for(running.settled, "the watcher to settle")
        assert indexed_state(data, "r") == fresh_state(repo, "r", tmp_path / "fresh")
        batches = running.ok_runs()[runs:]
        assert all(b.trigger == "changes" and b.status == "ok" for b in batches)
        # Each batch re-read only what changed: never the 20 untouched-by-it files.
        assert max(b.stats.new + b.stats.changed for b in batches if b.stats) <= 20


def test_a_500_file_branch_switch_ends_as_a_fresh_index_would(tmp_path: Path) -> None:
    base = {f"src/f{i:03}.py": module(f"base_{i}", f"b{i}") for i in range(400)}
    repo = make_git_repo(tmp_path / "r", base)
    git(repo, "checkout", "-q", "-b", "feature")
    for i in range(200):  # 200 edited
        (repo / f"src/f{i:03}.py").write_text(module(f"edited_{i}", f"e{i}"), encoding="utf-8")
    for i in range(200, 300):  # 100 deleted
        (repo / f"src/f{i:03}.py").unlink()
    for i in range(200):  # 200 added
        (repo / f"feat/g{i:03}.py").parent.mkdir(exist_ok=True)
        (repo / f"feat/g{i:03}.py").write_text(module(f"added_{i}", f"a{i}"), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "feature")
    git(repo, "checkout", "-q", "master" if "master" in git(repo, "branch") else "main")
    data = tmp_path / "data"
    with watching(repo, data) as running:
        before = len(running.ok_runs())
        git(repo, "checkout", "-q", "feature")  # 500 files change on disk
        wait_for(follows_disk(repo, data), "the branch switch")
        wait_for(running.settled, "the watcher to settle")
        batches = running.ok_runs()[before:]
        fresh = fresh_state(repo, "r", tmp_path / "fresh")
        assert indexed_state(data, "r") == fresh
        # Work in proportion to the switch: each of its 500 files once, the 100 untouched
        # ones never re-read (a file caught half-written by a split batch may go twice).
        touched = sum(b.files_changed for b in batches)
        assert 500 <= touched <= 500 + 2 * (len(batches) - 1), [b.as_dict() for b in batches]
        assert all(b.stats is not None and b.stats.unchanged >= 100 for b in batches)
        with (
            Engine.open(data, embedder=TinyEmbedder()) as watched,
            Engine.open(tmp_path / "fresh", embedder=TinyEmbedder()) as clean,
        ):
            for query in ("edited_17 value", "added_42", "base_350 b350", "return e199"):
                assert [(h.path, h.start_line) for h in watched.search(query, k=5)] == [
                    (h.path, h.start_line) for h in clean.search(query, k=5)
                ]
            assert sorted(vector_ids(watched)) == sorted(fresh[1])


# -- writing nothing when nothing changed -----------------------------------------------
def data_dir_listing(data: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(data).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(data.rglob("*"))
        if p.is_file()
    }


def run_count(data: Path) -> int:
    with Engine.open(data, embedder=TinyEmbedder()) as reader:
        return len(reader.backend.runs.runs("r"))


def test_an_idle_watcher_and_its_own_writes_write_nothing(tmp_path: Path) -> None:
    repo = make_git_repo(
        tmp_path / "r",
        {"app.py": module("app", "x"), ".gitignore": "*.log\nout/\n"},
    )
    data = repo / ".codecompass"  # inside the watched tree: every run writes in it
    with watching(repo, data) as running:
        runs, listing = run_count(data), data_dir_listing(data)
        counts = dict(running.watcher.counts)
        time.sleep(2.0)  # idle: the claim is that nothing at all happens
        assert data_dir_listing(data) == listing
        # Events of the catch-up's own writes may still arrive: all dropped unread.
        assert running.watcher.counts["events"] == running.watcher.counts["dropped"]
        assert (running.watcher.counts["runs"], running.watcher.counts["judged"]) == (1, 0)

        (data / "notes.txt").write_text("mine\n", encoding="utf-8")
        (data / "vectors" / "stray.bin").write_bytes(b"\0" * 100)
        (repo / "build.log").write_text("log line\n" * 50, encoding="utf-8")
        (repo / "out").mkdir()
        (repo / "out" / "gen.py").write_text("generated = 1\n", encoding="utf-8")
        (repo / "node_modules" / "dep").mkdir(parents=True)
        (repo / "node_modules" / "dep" / "index.js").write_text("x\n", encoding="utf-8")
        shutil.rmtree(repo / "node_modules")
        (repo / "build" / "lib").mkdir(parents=True)
        (repo / "build" / "lib" / "app.py").write_text("x = 1\n", encoding="utf-8")
        (repo / ".env").write_text("TOKEN=1\n", encoding="utf-8")
        (repo / "image.png").write_bytes(b"\x89PNG\0\0")
        (repo / "empty").mkdir()
        (repo / ".git" / "scratch").write_text("x\n", encoding="utf-8")
        os.chmod(repo / "app.py", 0o600)
        (repo / "zz-last.log").write_text("last\n", encoding="utf-8")
        wait_for(lambda: ("r", "zz-last.log", False) in running.watcher.recent, "the last event")
        wait_for(running.settled, "the watcher to settle")
        assert running.watcher.counts["runs"] == counts["runs"]
        assert run_count(data) == runs
        expected = dict(listing)
        expected["notes.txt"] = (
            (data / "notes.txt").stat().st_size,
            (data / "notes.txt").stat().st_mtime_ns,
        )
        expected["vectors/stray.bin"] = (100, (data / "vectors/stray.bin").stat().st_mtime_ns)
        assert data_dir_listing(data) == expected
        judged = {path for repo_id, path, mattered in running.watcher.recent if not mattered}
        assert {"build.log", "out", ".env", "image.png", "empty", "app.py"} <= judged


def test_a_busy_index_is_retried_not_fatal(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"a.py": "a = 1\n"})
    data = tmp_path / "data"
    with watching(repo, data) as running:
        with Engine.open(data, embedder=TinyEmbedder()) as other:
            run = other.backend.runs.start_run("r")  # another `codecompass index`, running
            (repo / "b.py").write_text(module("busy_time", "waited"), encoding="utf-8")
            wait_for(lambda: [r for r in running.reports if r.status == "busy"], "a busy report")
            busy = [r for r in running.reports if r.status == "busy"][0]
            assert busy.retry_in == 0.5 and "Another indexer" in (busy.error or "")
            assert f"process {os.getpid()}" in (busy.error or "")
            # A change while the index is busy joins the batch that waits.
            (repo / "c.py").write_text(module("also_waiting", "waited"), encoding="utf-8")
            wait_for(lambda: ("r", "c.py", True) in running.watcher.recent, "c.py judged")
            other.backend.runs.finish_run(run, "ok", {})
        wait_for(lambda: len(running.ok_runs()) == 2, "the retried batch")
        assert follows_disk(repo, data)()
        last = running.ok_runs()[-1]
        assert (last.trigger, last.paths, last.examples) == ("retry", 2, ["b.py", "c.py"])
        retries = [r.retry_in for r in running.reports if r.status == "busy"]
        assert retries == [0.5 * 2**i for i in range(len(retries))]  # backing off
        assert running.thread.is_alive()


def test_the_watcher_stops_with_a_clear_error_when_its_folder_goes(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"a.py": "a = 1\n"})
    engine, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with engine:
        running = Running(Watcher(engine, [WatchTarget("r", root)]))
        running.thread.start()
        wait_for(lambda: running.ok_runs() and running.settled(), "the catch-up run")
        shutil.rmtree(repo)
        running.thread.join(DEADLINE_S)
    assert isinstance(running.error, InputError)
    assert str(running.error) == f"{repo} was removed or moved away; stopped watching it."


# -- kill -9 in the middle of a batch ---------------------------------------------------
CHILD = """
import json, sys, time
from pathlib import Path
from codecompass.engine import Engine
from codecompass.lifecycle.watch import Watcher, WatchTarget
from tests.conftest import TinyEmbedder

class Slow(TinyEmbedder):
    def embed(self, texts):
        time.sleep(0.01 * len(texts))  # a batch takes seconds: long enough to be killed in
        return super().embed(texts)

repo, data = Path(sys.argv[1]), Path(sys.argv[2])
engine, root = Engine.for_repo(repo, data_dir=data, embedder=Slow())
report = lambda r: print(json.dumps(r.as_dict()), flush=True)
Watcher(engine, [WatchTarget("r", root)], on_batch=report).run()
"""


def runs_of(data: Path) -> list[str]:
    with Engine.open(data, embedder=TinyEmbedder()) as reader:
        return [run.status for run in reader.backend.runs.runs("r")]


@pytest.mark.slow
def test_kill_9_mid_batch_loses_nothing_after_a_restart(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"a.py": module("first", "one")})
    data = tmp_path / "data"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(repo), str(data)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = json.loads(child.stdout.readline() or "null")
        assert line is not None, child.stderr.read() if child.stderr else ""
        assert (line["trigger"], line["status"]) == ("start", "ok")
        for i in range(150):  # a batch of 150 files, ~450 texts: seconds of embedding
            (repo / "many" / f"m{i}.py").parent.mkdir(exist_ok=True)
            (repo / "many" / f"m{i}.py").write_text(module(f"many_{i}", f"t{i}"), "utf-8")
        wait_for(lambda: runs_of(data) == ["ok", "running"], "the batch's run to start")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(DEADLINE_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert runs_of(data) == ["ok", "running"]  # killed mid-run
    (repo / "after.py").write_text(module("after_the_crash", "late"), encoding="utf-8")
    with watching(repo, data) as running:  # the restart's catch-up run finds it all
        assert running.ok_runs()[0].trigger == "start"
    assert runs_of(data) == ["ok", "interrupted", "ok"]
    fresh = fresh_state(repo, "r", tmp_path / "fresh")
    assert indexed_state(data, "r") == fresh
    assert len(fresh[0]) == 152
    with Engine.open(data, embedder=TinyEmbedder()) as reader:
        assert sorted(vector_ids(reader)) == sorted(fresh[1])


# -- the command line and the MCP server ---------------------------------------------
def lines_of(stream: Any) -> queue.Queue[str]:
    found: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            found.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return found


def next_line(lines: queue.Queue[str], what: str) -> dict[str, Any]:
    try:
        parsed: dict[str, Any] = json.loads(lines.get(timeout=60))
    except queue.Empty:
        pytest.fail(f"no JSON line from index --watch: {what}")
    return parsed


@pytest.mark.slow
def test_index_watch_on_the_command_line(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"app.py": module("app", "first")})
    proc = subprocess.Popen(
        [sys.executable, "-m", "codecompass", "index", str(repo), "--watch", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = lines_of(proc.stdout)
        start = next_line(lines, "the catch-up run")
        assert (start["trigger"], start["status"], start["files_changed"]) == ("start", "ok", 1)
        (repo / "pay.py").write_text(module("charge_card_now", "paid"), encoding="utf-8")
        batch = next_line(lines, "the batch of one new file")
        assert (batch["trigger"], batch["status"], batch["paths"]) == ("changes", "ok", 1)
        assert (batch["examples"], batch["files_changed"], batch["stats"]["new"]) == (
            ["pay.py"],
            1,
            1,
        )
        with Engine.open(repo / ".codecompass") as reader:
            assert [h.path for h in reader.search("charge_card_now", k=1, mode="bm25")] == [
                "pay.py"
            ]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(DEADLINE_S) == 0
        assert lines.empty()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_watch_refuses_what_it_cannot_follow(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from codecompass.cli import main

    repo = make_git_repo(tmp_path / "r", {"a.py": "a = 1\n"})
    runner = CliRunner()
    done = runner.invoke(main, ["index", str(repo), "--watch", "--commit", "HEAD"])
    assert done.exit_code == 2 and "--watch follows the files of a work tree" in done.output
    server = tmp_path / "server"
    server.mkdir()
    (server / "config.toml").write_text('[storage]\nbackend = "server"\n', encoding="utf-8")
    done = runner.invoke(main, ["index", str(repo), "--watch", "--data-dir", str(server)])
    assert done.exit_code == 1 and "'server' backend" in done.output
    with Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder()) as engine:
        engine.index_commit(repo, "HEAD", name="at-head")
        with pytest.raises(InputError, match="indexed from git objects"):
            from codecompass.lifecycle.watch import watch_targets

            watch_targets(engine)
    done = runner.invoke(main, ["serve", "--watch", "--data-dir", str(tmp_path / "none")])
    assert done.exit_code == 1 and "no index in" in done.output


@pytest.mark.slow
def test_serve_watch_answers_from_the_new_state(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r", {"app.py": module("app_entry", "first")})
    data = tmp_path / "data"
    with Engine(load_settings(data)) as engine:
        engine.index(repo, name="r")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "codecompass", "serve", "--watch", "--data-dir", str(data)],
    )

    async def main() -> None:
        async with Client(params, read_timeout_seconds=60) as client:

            async def paths(query: str) -> list[str]:
                result = await client.call_tool("search_code", {"query": query, "top_k": 3})
                assert not result.is_error, result
                assert result.structured_content is not None
                return [r["path"] for r in result.structured_content["results"]]

            async def until(query: str, check: Callable[[list[str]], bool], what: str) -> None:
                deadline = time.monotonic() + DEADLINE_S
                while not check(await paths(query)):
                    assert time.monotonic() < deadline, f"timed out: {what}"
                    await anyio.sleep(0.1)

            assert "refund.py" not in await paths("issue_refund_quickly")
            (repo / "refund.py").write_text(
                module("issue_refund_quickly", "refunded"), encoding="utf-8"
            )
            await until("issue_refund_quickly", lambda p: p[:1] == ["refund.py"], "a new file")
            (repo / "refund.py").write_text(module("void_payment", "voided"), encoding="utf-8")
            await until("void_payment", lambda p: p[:1] == ["refund.py"], "an edit")
            (repo / "refund.py").unlink()
            await until("void_payment", lambda p: "refund.py" not in p, "a deletion")

    anyio.run(main)
