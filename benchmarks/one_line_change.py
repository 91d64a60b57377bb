"""What `codecompass index` costs after a one-line change, on an index you already have:
wall time, peak memory and bytes written by the run, the vector table's size, and the
link stage's seconds with its two whole-graph steps (similarity, importance).

    .venv/bin/python benchmarks/one_line_change.py SOURCE DATA_DIR --file REL [--runs 5]

Each run appends a comment to SOURCE/REL (so one chunk changes), then runs
`python -m codecompass index SOURCE --data-dir DATA_DIR --json` in a new process, as a user or
the watcher would. The file is restored at the end, and a last run puts the index back.
Run it with another checkout's `src` first on PYTHONPATH to measure that code on the
same index, alternating runs for a before/after ratio.

Measured on numpy's index (2,243 files, 74,825 chunks; notes/issue18.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_index(source: Path, data_dir: Path) -> tuple[float, float, float, dict[str, float]]:
    """Wall seconds, peak RSS (MB) and MB written by one index run in a new process, and
    the seconds of its link stage's steps (`graph.seconds` of `index --json`)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(
            [
                *(sys.executable, "-m", "codecompass", "index", str(source)),
                *("--data-dir", str(data_dir), "--json"),
            ],
            stdout=out,
            stderr=subprocess.PIPE,
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) != 0:
            assert child.stderr is not None
            error = child.stderr.read().decode("utf-8", "replace")
            sys.exit(f"codecompass index failed:\n{error}")
        out.seek(0)
        steps = json.loads(out.read().decode("utf-8")).get("graph", {}).get("seconds", {})
    return wall, usage.ru_maxrss / 1024, usage.ru_oublock * 512 / 2**20, steps


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--file", required=True, help="the file to change, relative to SOURCE")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    target = args.source / args.file
    original = target.read_bytes()
    figures: list[tuple[float, ...]] = []
    try:
        for step in range(args.runs):
            target.write_bytes(original + f"\n# one-line change {step} {time.time()}\n".encode())
            wall, rss, written, steps = run_index(args.source, args.data_dir)
            link, similar = sum(steps.values()), steps.get("similar", 0.0)
            importance = steps.get("importance", 0.0)
            figures.append((wall, rss, written, link, similar, importance))
            vectors = folder_mb(args.data_dir / "vectors")
            print(
                f"run {step + 1}: {wall:.2f} s, peak {rss:.0f} MB, wrote {written:.0f} MB, "
                f"vectors folder {vectors:.0f} MB; link {link:.2f} s (similar "
                f"{similar:.2f}, importance {importance:.2f})",
                flush=True,
            )
    finally:
        target.write_bytes(original)
        run_index(args.source, args.data_dir)
    columns = zip(*figures, strict=True)
    names = ("wall s", "peak MB", "written MB", "link s", "similar s", "importance s")
    for name, column in zip(names, columns, strict=True):
        print(f"median {name}: {statistics.median(column):.2f} (min {min(column):.2f})")


if __name__ == "__main__":
    main()
