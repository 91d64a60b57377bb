"""Time to first search on a first index of a ~100k-line repository, and time until its
vectors are complete (issue 14: "searchable before the model finishes").

The Python files of an installed package (default: mypy, a dev dependency) are copied,
in path order, until they reach `--lines`; `codecompass index` runs on the copy as a
subprocess with the default embedder, and this process searches the index every
`--poll` seconds from the moment the run starts. Printed: lines, files, chunks, the
time the first search found something (and its dense coverage), the time dense search
saw every chunk (polled every 5 × `--poll`), and the run's wall time.

    .venv/bin/python benchmarks/first_search.py [--package mypy] [--lines 100000]
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codecompass.engine import Engine
from codecompass.errors import CodeCompassError
from codecompass.settings import load_settings


def copy_lines(package: str, lines: int, dest: Path) -> tuple[int, int]:
    module = importlib.import_module(package)
    root = Path(module.__file__ or "").parent
    total = files = 0
    for path in sorted(root.rglob("*.py")):
        if total >= lines:
            break
        text = path.read_text(encoding="utf-8", errors="replace")
        target = dest / path.relative_to(root.parent)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        total += text.count("\n")
        files += 1
    return total, files


def search_once(data: Path, query: str) -> int | None:
    """Hits of a keyword search (no model in this process: it would take the CPU the
    indexer's model needs), or None while there is nothing to search."""
    try:
        with Engine(load_settings(data)) as engine:
            hits = engine.search(query, mode="bm25")
    except CodeCompassError:
        return None
    return len(hits) or None


def vectors_complete(data: Path) -> float:
    """Vectors stored over active chunks."""
    with Engine(load_settings(data)) as engine:
        vectors = engine.status()["vectors"]
    return vectors["stored"] / vectors["active_chunks"] if vectors["active_chunks"] else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--package", default="mypy")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--poll", type=float, default=0.25)
    parser.add_argument("--query", default="report an error for an incompatible type")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="cc-first-") as tmp:
        repo, data = Path(tmp) / "repo", Path(tmp) / "data"
        lines, files = copy_lines(args.package, args.lines, repo)
        print(f"repository         {args.package}: {files} files, {lines} lines", flush=True)
        began = time.perf_counter()
        run = subprocess.Popen(
            [sys.executable, "-m", "codecompass", "index", str(repo), "--data-dir", str(data)]
            + ["--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        first: float | None = None
        complete: float | None = None
        while run.poll() is None:
            now = time.perf_counter() - began
            if first is None:
                if search_once(data, args.query) is not None:
                    first = now
                    print(f"  searchable at {now:.1f} s", flush=True)
                time.sleep(args.poll)
                continue
            if complete is None and vectors_complete(data) >= 1.0:
                complete = now
            time.sleep(5 * args.poll)
        out, _ = run.communicate()
        wall = time.perf_counter() - began
        if run.returncode != 0:
            raise SystemExit(f"index failed with exit code {run.returncode}")
        stats = json.loads(out)
        if first is None:
            first = wall  # the run ended before a poll found the index
        print(f"chunks             {stats['chunks_added']}")
        print(f"first search       {first:.1f} s after the start (keyword and graph)")
        print(f"vectors complete   {complete if complete is not None else wall:.1f} s")
        print(f"index run          {wall:.1f} s wall; {stats['texts_embedded']} texts embedded")
        print(
            "stages (s)         "
            + ", ".join(f"{k} {v:.1f}" for k, v in stats["seconds"].items() if v >= 0.05)
        )
        shutil.rmtree(repo, ignore_errors=True)


if __name__ == "__main__":
    main()
