"""Build the code graph of the installed `rich` package, then time one-file re-links.

Prints: graph build time (the link stage of the first index run, by step), node and
edge counts, and for three one-file edits the link time and how many files were
resolved again:

- a body edit (what a file exposes is unchanged: only that file is re-linked);
- an interface edit in a widely imported file (a method added to `Console`: every file
  that looked into console.py is resolved again);
- a new file importing from the package.

The machine is shared and has 2 cores: figures are noisy; each edit is repeated and the
median reported.

    .venv/bin/python benchmarks/graph_relink.py [--package rich] [--repeat 3] [--tiny]

`--tiny` swaps the embedding model for a hashing stand-in (the graph does not depend
on it, except similarity edges), to run in seconds.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from hash_embedder import HashEmbedder  # benchmarks/, the script's folder

from codecompass.engine import Engine
from codecompass.models import EdgeQuery
from codecompass.protocols import Embedder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--package", default="rich")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tiny", action="store_true")
    args = parser.parse_args()
    module = importlib.import_module(args.package)
    assert module.__file__ is not None
    source = Path(module.__file__).parent
    embedder: Embedder | None = HashEmbedder() if args.tiny else None

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / args.package
        shutil.copytree(source, work, ignore=shutil.ignore_patterns("__pycache__"))
        engine, _ = Engine.for_repo(work, data_dir=Path(tmp) / "data", embedder=embedder)
        with engine:
            stats = engine.index(work)
            graph = stats.graph
            print(f"package              {args.package} ({source}), {stats.files_seen} files")
            print(f"embedder             {engine.embedder.model_id}")
            print(
                f"graph build          {stats.seconds['link']:.2f} s (link stage of the first run;"
                f" index wall {stats.wall_seconds:.1f} s)"
            )
            print(
                "  by step            "
                + ", ".join(f"{k} {v:.2f}" for k, v in graph["seconds"].items())
            )
            stored = engine.backend.edges.edges(EdgeQuery())
            edges = dict(Counter(e.type for e in stored))
            unresolved = sum(1 for e in stored if not e.resolved)
            symbols = engine.backend.chunks.counts(args.package)["symbols"]
            print(f"nodes                {symbols} symbols, {stats.files_seen} files")
            print(f"edges                {sum(edges.values())} ({unresolved} unresolved): {edges}")

            cases = [
                (
                    "body edit (table.py)",
                    work / "table.py",
                    '"""Get the current row style."""',
                    '"""Get a row style."""',
                ),
                (
                    "interface edit (console.py: a method added to Console)",
                    work / "console.py",
                    "    def clear_live(self) -> None:",
                    "    def bench_added(self) -> None:\n        pass\n\n"
                    "    def clear_live(self) -> None:",
                ),
            ]
            for label, path, old, new in cases:
                link_times: list[float] = []
                wall: list[float] = []
                resolved = dependents = 0
                for n in range(args.repeat):
                    forward = n % 2 == 0
                    edit(path, old if forward else new, new if forward else old)
                    began = time.perf_counter()
                    again = engine.index(work)
                    wall.append(time.perf_counter() - began)
                    link_times.append(again.seconds["link"])
                    resolved, dependents = again.graph["resolved"], again.graph["dependents"]
                print(
                    f"{label}\n  link {statistics.median(link_times) * 1000:.0f} ms median of "
                    f"{args.repeat} (min {min(link_times) * 1000:.0f}, max "
                    f"{max(link_times) * 1000:.0f}); files resolved {resolved} "
                    f"({dependents} dependents); whole re-index {statistics.median(wall):.2f} s"
                )
            new_file = work / "bench_new.py"
            new_file.write_text(
                "from .console import Console\n\n\n"
                "def hello() -> None:\n    Console().print('hi')\n",
                encoding="utf-8",
            )
            began = time.perf_counter()
            again = engine.index(work)
            print(
                f"new file (bench_new.py)\n  link {again.seconds['link'] * 1000:.0f} ms; files "
                f"resolved {again.graph['resolved']} ({again.graph['dependents']} dependents); "
                f"whole re-index {time.perf_counter() - began:.2f} s"
            )


if __name__ == "__main__":
    main()
