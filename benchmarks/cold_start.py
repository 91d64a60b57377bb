"""Cold-process latency of the two doors a newcomer opens first, on the `rich` index:

- the wall time of `codecompass search QUERY` in a new process (default mode and
  `--mode bm25`), output to a pipe as in a script;
- the time from starting `codecompass serve` (stdio) to the first `search_code` answer,
  measured by the official MCP client: process start, imports, engine, model, search.

Also prints the import profile of the CLI (`python -X importtime`), the modules that
cost most, cumulative. Each figure is the median of --runs runs (min and max beside).

    .venv/bin/python benchmarks/cold_start.py [--data-dir .demo/rich] [--runs 7] [--json]

Without --data-dir, `rich` is copied to a temporary folder and indexed first (a few
minutes: the embedding model reads every chunk).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

QUERY = "render a table with borders"
CLI = [sys.executable, "-m", "codecompass"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_search(data: Path, *extra: str) -> tuple[float, float]:
    """(wall s, CPU s) of one cold `codecompass search`."""
    began, cpu = time.perf_counter(), children_cpu()
    subprocess.run(
        [*CLI, "search", QUERY, "--data-dir", str(data), "-k", "5", *extra],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - began, children_cpu() - cpu


def mcp_first_answer(data: Path) -> tuple[float, float]:
    """(wall s to the first answer, CPU s of the server's whole life: start, one call,
    shutdown)."""
    cpu = children_cpu()
    wall = _mcp_first_answer(data)
    return wall, children_cpu() - cpu


def _mcp_first_answer(data: Path) -> float:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "codecompass", "serve", "--data-dir", str(data)]
    )

    async def main() -> float:
        began = time.perf_counter()
        async with Client(params, read_timeout_seconds=120) as client:
            result = await client.call_tool("search_code", {"query": QUERY, "top_k": 5})
            elapsed = time.perf_counter() - began
            assert not result.is_error, result
        return elapsed

    return anyio.run(main)


def import_profile(data: Path, top: int) -> list[tuple[str, float]]:
    """Modules by cumulative import time (s), top-level imports of a search run only."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "codecompass", "search", QUERY, "--data-dir"]
        + [str(data), "-k", "5"],
        check=True,
        capture_output=True,
        text=True,
    )
    found: list[tuple[str, float]] = []
    for line in run.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\s*)(\S+)", line)
        if match and len(match.group(2)) <= 2:  # a package the run asked for itself
            found.append((match.group(3), int(match.group(1)) / 1e6))
    return sorted(found, key=lambda item: -item[1])[:top]


def figures(samples: list[tuple[float, float]]) -> dict[str, float]:
    """Wall time (median, min, max) and the median CPU time of the child processes (more
    than the wall time where threads run in parallel: the model, numpy)."""
    walls = [w for w, _ in samples]
    return {
        "median_s": round(statistics.median(walls), 3),
        "min_s": round(min(walls), 3),
        "max_s": round(max(walls), 3),
        "cpu_median_s": round(statistics.median(c for _, c in samples), 3),
    }


def ensure_index(data_dir: Path | None, work: Path) -> Path:
    if data_dir is not None:
        return data_dir
    import rich

    source = work / "rich"
    shutil.copytree(Path(rich.__file__).parent, source)
    data = work / "data"
    subprocess.run([*CLI, "index", str(source), "--data-dir", str(data), "--json"], check=True)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = ensure_index(args.data_dir, Path(tmp))
        cli_search(data)  # warm the file cache; not counted
        report: dict[str, Any] = {
            "cli_search": figures([cli_search(data) for _ in range(args.runs)]),
            "cli_search_bm25": figures(
                [cli_search(data, "--mode", "bm25") for _ in range(args.runs)]
            ),
            "mcp_first_answer": figures([mcp_first_answer(data) for _ in range(args.runs)]),
            "import_profile_s": import_profile(data, 12),
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name in ("cli_search", "cli_search_bm25", "mcp_first_answer"):
        f = report[name]
        print(
            f"{name:18} median {f['median_s']:.2f} s  (min {f['min_s']:.2f}, "
            f"max {f['max_s']:.2f}); CPU {f['cpu_median_s']:.2f} s"
        )
    print("import profile of `codecompass search` (cumulative s):")
    for module, seconds in report["import_profile_s"]:
        print(f"  {seconds:6.3f}  {module}")


if __name__ == "__main__":
    main()
