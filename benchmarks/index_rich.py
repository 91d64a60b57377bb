"""Index the installed `rich` package with the default embedder and print figures.

Measures: first index (files, chunks, wall time, chunks/s, peak RSS, share of wall time
spent in the embedding model), re-index with no change, a one-function edit, and warm
in-process search latency (p50/p95).

    .venv/bin/python benchmarks/index_rich.py [--package rich] [--queries 100]
"""

from __future__ import annotations

import argparse
import importlib
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from codecompass.engine import Engine

QUERIES = [
    "render a table with borders",
    "progress bar with time remaining",
    "syntax highlighting of source code",
    "parse console markup tags",
    "measure the width of text in cells",
    "pretty print nested data structures",
    "traceback rendering with locals",
    "detect terminal color support",
    "wrap text to a given width",
    "live updating display refresh",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--package", default="rich")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    module = importlib.import_module(args.package)
    assert module.__file__ is not None
    source = Path(module.__file__).parent

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / args.package
        shutil.copytree(source, work, ignore=shutil.ignore_patterns("__pycache__"))
        engine, _ = Engine.for_repo(work, data_dir=Path(tmp) / "data")
        with engine:
            stats = engine.index(work)
            rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            chunks = stats.chunks_added
            print(f"package            {args.package} ({source})")
            print(f"files              {stats.files_seen} indexed, skipped {dict(stats.skipped)}")
            print(f"chunks             {chunks}")
            print(f"wall time          {stats.wall_seconds:.1f} s")
            print(f"chunks/s           {chunks / stats.wall_seconds:.1f}")
            embed = stats.seconds["embed"]
            print(
                f"embedding          {stats.texts_embedded} texts, {embed:.1f} s "
                f"({stats.texts_embedded / embed:.1f} texts/s)"
            )
            print(f"embedding share    {100 * embed / stats.wall_seconds:.1f} % of wall time")
            print(
                "stage seconds      " + ", ".join(f"{k} {v:.2f}" for k, v in stats.seconds.items())
            )
            print(f"peak RSS           {rss_mb:.0f} MB")

            again = engine.index(work)
            print(
                f"no-change re-index {again.wall_seconds:.2f} s, "
                f"{again.texts_embedded} texts embedded"
            )

            # Edit one function body in place (same line count): only its chunk changes.
            target = work / "table.py"
            text = target.read_text(encoding="utf-8")
            edited = text.replace('"""Get the current row style."""', '"""Get a row style."""', 1)
            assert edited != text
            target.write_text(edited, encoding="utf-8")
            began = time.perf_counter()
            one = engine.index(work)
            print(
                f"one-file edit      {time.perf_counter() - began:.2f} s, "
                f"{one.texts_embedded} texts embedded, {one.chunks_added} chunks added"
            )

            engine.search(QUERIES[0])  # warm up
            times: list[float] = []
            for i in range(args.queries):
                began = time.perf_counter()
                engine.search(QUERIES[i % len(QUERIES)], k=10)
                times.append((time.perf_counter() - began) * 1000)
            times.sort()
            p95 = times[int(0.95 * (len(times) - 1))]
            print(
                f"search latency     p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms "
                f"({len(times)} warm in-process queries)"
            )


if __name__ == "__main__":
    main()
