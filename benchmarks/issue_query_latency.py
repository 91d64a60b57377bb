"""Warm latency of issue texts (target p95 ≤ 300 ms) and titles (target p50 ≤ 50 ms).

The targets are issue 18's, on the sympy index of the dev split.

Opens an existing index, warms it up with a few queries, then runs the problem statement
of every localization task in a JSONL file (the dev split's format) as a query with the
evaluation's options (10 hits, 5 files, 10 symbols), in one process, and then each
task's title (its first line) as a short query. Prints p50/p95 of each set and the mean
time of each search stage. The index should hold the tasks'
repository (any commit of it: the queries are only timed here, not scored).

The embedded store keeps what searches read (chunk records, each term's BM25 matches)
until the chunks change, and a title's terms are all in its issue text. `--titles-first`
runs the titles first, so they find only what the warm-up and the titles before them
left.

    .venv/bin/python benchmarks/issue_query_latency.py --data-dir /tmp/eval-sympy \\
        [--tasks ../shared/eval/dev/swebench_lite_dev.jsonl] [--mode hybrid+graph] \\
        [--titles-first]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from codecompass.engine import Engine
from codecompass.evaluation.metrics import percentile

WARM_UP = 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument(
        "--tasks", type=Path, default=Path("../shared/eval/dev/swebench_lite_dev.jsonl")
    )
    parser.add_argument("--mode", default="hybrid+graph")
    parser.add_argument("--titles-first", action="store_true")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.tasks.read_text(encoding="utf-8").splitlines()]
    issues = [row["problem_statement"] for row in rows if row.get("problem_statement")]
    titles = [text.strip().splitlines()[0] for text in issues]
    engine = Engine.open(args.data_dir)
    options = engine.search_options(k=10, max_files=5, max_symbols=10, mode=args.mode)
    for query in issues[:WARM_UP]:
        engine.retrieve(query, options)
    runs = [("issue-text", issues), ("short (title)", titles)]
    for label, queries in reversed(runs) if args.titles_first else runs:
        times: list[float] = []
        stages: dict[str, float] = {}
        for query in queries:
            start = time.perf_counter()
            result = engine.retrieve(query, options)
            times.append((time.perf_counter() - start) * 1000)
            for stage, ms in result.timings.items():
                stages[stage] = stages.get(stage, 0.0) + ms
        print(
            f"{len(times)} warm {label} queries ({args.mode}): "
            f"p50 {percentile(times, 50):.0f} ms, p95 {percentile(times, 95):.0f} ms, "
            f"max {max(times):.0f} ms"
        )
        print(
            "  mean per stage: " + ", ".join(f"{k} {v / len(times):.1f}" for k, v in stages.items())
        )


if __name__ == "__main__":
    main()
