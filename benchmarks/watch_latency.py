"""Watch mode on the source of the installed `rich` package, with the real ONNX model:
how soon a save is searchable, what an idle watcher writes, what a branch switch costs.

    .venv/bin/python benchmarks/watch_latency.py [--edits 50] [--idle-seconds 600]
                                                 [--work DIR] [--skip-serve]

1. `codecompass index --watch` (a subprocess) over a git copy of rich, indexed first:
   one-function edits, one at a time (a comment with a new token on the function's last
   line); for each, the time from the save until a lexical search (this process, another
   connection) finds the token in the edited function, and until that chunk's vector is
   stored. Also the watcher's own run time per batch.
2. The same through `codecompass serve --watch`, an MCP client calling `search_code`.
3. The watcher left idle for --idle-seconds: bytes it wrote (/proc/PID/io write_bytes and
   wchar), the data folder's size and files, index runs. Target: nothing.
4. A branch switch touching 500 files (each module of rich edited, the rest new files):
   seconds until the index holds the new tree, until the watcher's batches are done,
   and the bytes the watcher wrote meanwhile; then the switch back.

--work DIR keeps the copy and its index (the first index takes minutes on a laptop CPU)
for the next run.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from codecompass.engine import Engine
from codecompass.indexing.discover import discover
from codecompass.indexing.pipeline import file_hash_on_disk

REPO = "rich"
SWITCH_FILES = 500
POLL_S = 0.005


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    )
    return done.stdout


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def figures(label: str, values: list[float]) -> str:
    if not values:
        return f"{label:<34} (none)"
    return (
        f"{label:<34} p50 {statistics.median(values):.3f} s  p95 {percentile(values, 0.95):.3f} s"
        f"  max {max(values):.3f} s  (n={len(values)})"
    )


# -- the tree ---------------------------------------------------------------------------
def prepare(work: Path) -> Path:
    """A git copy of rich on `main`, a `feature` branch 500 files away, indexed."""
    root = work / REPO
    if (root / ".codecompass" / "index.sqlite").is_file():
        git(root, "checkout", "-q", "-f", "main")
        git(root, "clean", "-qfd", "-e", ".codecompass")
        print(f"reusing {root}")
        return root
    module = importlib.import_module(REPO)
    assert module.__file__ is not None
    shutil.copytree(
        Path(module.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__")
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "bench")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "rich")
    git(root, "checkout", "-q", "-b", "feature")
    modules = sorted(p for p in root.glob("*.py"))
    for i, path in enumerate(modules):  # each module edited
        with path.open("a", encoding="utf-8") as out:
            out.write(f"\n\ndef _feature_switch_{i}():\n    return {i}\n")
    copies = SWITCH_FILES - len(modules)
    for i in range(copies):  # the rest: new files (their chunks are in the embedding cache)
        source = modules[i % len(modules)]
        target = root / f"mirror{i // len(modules)}" / source.name
        target.parent.mkdir(exist_ok=True)
        shutil.copy(source, target)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature")
    git(root, "checkout", "-q", "main")
    print(f"indexing {root} (first time: minutes) …", flush=True)
    began = time.perf_counter()
    engine, _ = Engine.for_repo(root)
    with engine:
        stats = engine.index(root, name=REPO)
    print(
        f"indexed {stats.files_seen} files, {stats.chunks_added} chunks in "
        f"{time.perf_counter() - began:.0f} s"
    )
    return root


@dataclass
class Target:
    path: str  # repo-relative
    line: int  # 1-based last line of the function
    name: str


def pick_functions(root: Path, count: int) -> list[Target]:
    """`count` functions of at least three lines, spread over the modules."""
    found: list[list[Target]] = []
    for path in sorted(root.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        here = [
            Target(path.name, node.end_lineno or node.lineno, node.name)
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and (node.end_lineno or 0) - node.lineno >= 2
        ]
        if here:
            found.append(sorted(here, key=lambda t: t.line))
    picked: list[Target] = []
    depth = 0
    while len(picked) < count:  # round robin over the modules
        layer = [funcs[depth] for funcs in found if depth < len(funcs)]
        if not layer:
            break
        picked.extend(layer)
        depth += 1
    return picked[:count]


def token(round_: str, i: int) -> str:
    letters = "".join(chr(97 + int(d)) for d in f"{i:03d}")
    return f"zq{round_}{letters}watchbench"


def edit(root: Path, target: Target, word: str) -> None:
    """Put `word` in a comment at the end of the function's last line (same line count)."""
    path = root / target.path
    lines = path.read_text(encoding="utf-8").split("\n")
    line = lines[target.line - 1].split("  # zq", 1)[0]
    lines[target.line - 1] = f"{line}  # {word}"
    path.write_text("\n".join(lines), encoding="utf-8")


# -- measuring a process ------------------------------------------------------------------
def io_of(pid: int) -> dict[str, int]:
    with open(f"/proc/{pid}/io", encoding="utf-8") as handle:
        return {k: int(v) for k, v in (line.split(": ") for line in handle.read().splitlines())}


def folder_state(folder: Path) -> tuple[int, dict[str, tuple[int, int]]]:
    files = {
        p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }
    return sum(size for size, _ in files.values()), files


class WatchProcess:
    """`codecompass index --watch --json` with its JSON lines in a queue."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "codecompass",
                "index",
                str(root),
                "--name",
                REPO,
                "--watch",
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            batch = json.loads(line)
            batch["received"] = time.perf_counter()
            self.lines.put(batch)

    def next(self, timeout: float = 600) -> dict[str, Any]:
        return self.lines.get(timeout=timeout)

    def drain(self, quiet: float = 1.0) -> list[dict[str, Any]]:
        """Every batch line until none came for `quiet` seconds."""
        found = []
        while True:
            try:
                found.append(self.lines.get(timeout=quiet))
            except queue.Empty:
                return found

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(120)


def wait(check: Callable[[], bool], timeout: float = 120) -> float:
    began = time.perf_counter()
    while not check():
        if time.perf_counter() - began > timeout:
            raise TimeoutError("gave up waiting")
        time.sleep(POLL_S)
    return time.perf_counter() - began


class Reader:
    """Another process's view of the index: lexical search and the vector store."""

    def __init__(self, data: Path) -> None:
        self.engine = Engine.open(data)
        dim = int(self.engine.backend.meta.meta()["embedder_dim"])
        self.vectors = self.engine.backend.vectors(dim)

    def finds(self, word: str, target: Target) -> bool:
        hits = self.engine.search(word, k=3, mode="bm25")
        return (
            bool(hits)
            and hits[0].path == target.path
            and (hits[0].start_line <= target.line <= hits[0].end_line)
        )

    def has_vector(self, target: Target) -> bool:
        entries = self.engine.backend.chunks.chunk_entries([(REPO, target.path)])
        here = [e for e in entries.get((REPO, target.path), []) if e.start_line <= target.line]
        if not here:
            return False
        chunk = max(here, key=lambda e: e.start_line)
        return bool(self.vectors.vectors_of([chunk.id]))

    def holds(self, expected: dict[str, str]) -> bool:
        files = self.engine.backend.files.files(REPO)
        return {path: f.file_hash for (_, path), f in files.items()} == expected


def disk_hashes(root: Path) -> dict[str, str]:
    found = {c.path: file_hash_on_disk(root, c.path, 1 << 20) for c in discover(root).files}
    return {p: h for p, h in found.items() if h is not None}


# -- the scenarios --------------------------------------------------------------------------
def bench_index_watch(root: Path, targets: list[Target], idle_s: float) -> None:
    data = root / ".codecompass"
    watcher = WatchProcess(root)
    start = watcher.next()
    print(
        f"catch-up run                       {start['seconds']:.2f} s "
        f"({start['files_changed']} files re-indexed)"
    )
    watcher.drain()
    reader = Reader(data)
    lexical, vector, runs = [], [], []
    for i, target in enumerate(targets):
        word = token("a", i)
        began = time.perf_counter()
        edit(root, target, word)
        wait(lambda: reader.finds(word, target))  # noqa: B023
        lexical.append(time.perf_counter() - began)
        wait(lambda: reader.has_vector(target))  # noqa: B023
        vector.append(time.perf_counter() - began)
        batch = watcher.next()
        runs.append(batch["seconds"])
        assert batch["status"] == "ok" and batch["examples"] == [target.path], batch
        time.sleep(0.2)
    print(figures("index --watch: save → lexical hit", lexical))
    print(figures("index --watch: save → vector stored", vector))
    print(figures("index --watch: watcher run per batch", runs))

    git(root, "checkout", "-q", "--", ".")  # undo the edits: one more batch
    undo = watcher.next()
    assert undo["status"] == "ok" and undo["files_changed"] == len(targets), undo
    assert not watcher.drain(quiet=3.0)
    assert reader.holds(disk_hashes(root))
    idle(watcher, reader, data, idle_s)
    switch(watcher, reader, root, data)
    watcher.stop()


def idle(watcher: WatchProcess, reader: Reader, data: Path, seconds: float) -> None:
    pid = watcher.proc.pid
    runs_before = len(reader.engine.backend.runs.runs(REPO))
    io_before, (size_before, files_before) = io_of(pid), folder_state(data)
    cpu_before = _cpu_seconds(pid)
    time.sleep(seconds)
    io_after, (size_after, files_after) = io_of(pid), folder_state(data)
    cpu = _cpu_seconds(pid) - cpu_before
    runs_after = len(reader.engine.backend.runs.runs(REPO))
    changed = sorted(
        k
        for k in files_before.keys() | files_after.keys()
        if files_before.get(k) != files_after.get(k)
    )
    print(
        f"idle {seconds:.0f} s: write_bytes {io_after['write_bytes'] - io_before['write_bytes']}, "
        f"wchar {io_after['wchar'] - io_before['wchar']}, data folder "
        f"{size_after - size_before:+d} bytes, files changed {len(changed)}{changed[:5]}, "
        f"index runs {runs_after - runs_before:+d}, CPU {cpu:.2f} s "
        f"({100 * cpu / seconds:.2f} % of one core)"
    )


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def switch(watcher: WatchProcess, reader: Reader, root: Path, data: Path) -> None:
    for branch in ("feature", "main"):
        pid = watcher.proc.pid
        io_before, (size_before, _) = io_of(pid), folder_state(data)
        changed = len(git(root, "diff", "--name-only", f"HEAD..{branch}").split())
        began = time.perf_counter()
        git(root, "checkout", "-q", branch)
        checkout = time.perf_counter() - began
        expected = disk_hashes(root)
        held = wait(lambda: reader.holds(expected), timeout=1800) + checkout  # noqa: B023
        batches = [watcher.next(timeout=1800)]
        batches += watcher.drain(quiet=3.0)
        done = batches[-1]["received"] - began
        runs = ", ".join(f"{b['seconds']:.2f}" for b in batches)
        io_after, (size_after, _) = io_of(pid), folder_state(data)
        files = sum(b["files_changed"] for b in batches)
        embedded = sum((b["stats"] or {}).get("texts_embedded", 0) for b in batches)
        print(
            f"switch to {branch} ({changed} files): git checkout {checkout:.2f} s, index holds "
            f"the new tree after {held:.2f} s, watcher done after {done:.2f} s in "
            f"{len(batches)} batches ({files} files re-indexed, {embedded} texts embedded, "
            f"runs {runs} s); wrote "
            f"{(io_after['write_bytes'] - io_before['write_bytes']) / 1e6:.1f} MB "
            f"(write_bytes), data folder {(size_after - size_before) / 1e6:+.1f} MB"
        )
        for b in batches:
            stages = (b["stats"] or {}).get("seconds", {})
            print("    stages " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items() if v >= 0.01))


def bench_serve_watch(root: Path, targets: list[Target]) -> None:
    data = root / ".codecompass"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "codecompass", "serve", "--watch", "--data-dir", str(data)],
    )

    async def main() -> tuple[list[float], list[float], list[float]]:
        anywhere: list[float] = []
        first: list[float] = []
        calls: list[float] = []
        async with Client(params, read_timeout_seconds=120) as client:

            async def ranks(word: str, target: Target) -> list[int]:
                began = time.perf_counter()
                result = await client.call_tool("search_code", {"query": word, "top_k": 5})
                calls.append(time.perf_counter() - began)
                hits = (result.structured_content or {}).get("results", [])
                return [
                    rank
                    for rank, hit in enumerate(hits)
                    if hit["path"] == target.path
                    and hit["start_line"] <= target.line <= hit["end_line"]
                ]

            await ranks("warm up the model", targets[0])
            await anyio.sleep(5)  # the watcher's catch-up run
            for i, target in enumerate(targets):
                word = token("b", i)
                began = time.perf_counter()
                edit(root, target, word)
                seen: float | None = None
                while True:
                    found = await ranks(word, target)
                    if found and seen is None:
                        seen = time.perf_counter() - began
                    if found == [0]:
                        break
                    if time.perf_counter() - began > 120:
                        raise TimeoutError(target)
                    await anyio.sleep(POLL_S)
                assert seen is not None
                anywhere.append(seen)
                first.append(time.perf_counter() - began)
                await anyio.sleep(0.5)
        return anywhere, first, calls

    anywhere, first, calls = anyio.run(main)
    print(figures("serve --watch: save → in top 5", anywhere))
    print(figures("serve --watch: save → top 1", first))
    print(figures("serve --watch: search_code call", calls))
    git(root, "checkout", "-q", "--", ".")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--idle-seconds", type=float, default=600.0)
    parser.add_argument("--work", type=Path, help="keep the copy and its index here")
    parser.add_argument("--skip-serve", action="store_true")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="watch-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        root = prepare(work)
        targets = pick_functions(root, args.edits)
        print(
            f"tree {root}: {len(list(root.glob('*.py')))} modules, {len(targets)} edits, "
            f"{os.cpu_count()} CPUs"
        )
        bench_index_watch(root, targets, args.idle_seconds)
        if not args.skip_serve:
            bench_serve_watch(root, targets)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
