"""How long one search takes on a very large pasted query, stage by stage.

An agent may paste a whole log: thousands of error lines, paths, stack frames or quoted
strings. Each case builds such a text of `--size` characters from random words, runs it
as one warm search on an existing index and prints the time and the four slowest
stages. Before the search matched traceback paths among the paths of their file name
only, 24,000 pasted paths took 11.4 s on sympy's index (600 KB); before message phrases
were looked up by a word, 14,000 error lines took 6.6 s.

    .venv/bin/python benchmarks/large_query_latency.py --data-dir /tmp/eval-sympy \\
        [--size 60000]
"""

from __future__ import annotations

import argparse
import random
import string
import time
from pathlib import Path

from codecompass.engine import Engine


def cases(size: int) -> dict[str, str]:
    rng = random.Random(7)

    def word(n: int = 7) -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))

    modules = ("add", "mul", "power", "expr", "basic")
    frame = '  File "/x/pkg/core/{}.py", line {}, in {}\n    x = 1\n'
    return {
        "error lines": "".join(
            f"ValueError: {word()} {word()} {word()} {word()} {word()} failed\n"
            for _ in range(size // 50)
        ),
        "quoted": " ".join(f"'{word(5)}_{word(5)}'" for _ in range(size // 14)),
        "calls": " ".join(f"{word()}_{word()}()" for _ in range(size // 17)),
        "paths": " ".join(f"pkg/{word()}/{word()}.py" for _ in range(size // 25)),
        "frames": "Traceback (most recent call last):\n"
        + "".join(
            frame.format(rng.choice(modules), rng.randint(1, 900), word())
            for _ in range(size // 60)
        ),
        "dotted": " ".join(f"pkg.{word()}.{word()}" for _ in range(size // 22)),
        "code block": "```python\n"
        + "\n".join(f"x_{i} = {word()}(y_{i}, {word()}={i})" for i in range(size // 30))
        + "\n```",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--size", type=int, default=60_000, help="characters a query")
    args = parser.parse_args()
    engine = Engine.open(args.data_dir)
    options = engine.search_options(k=10, max_files=5, max_symbols=10)
    engine.retrieve("where is the configuration read", options)  # warm up
    for name, text in cases(args.size).items():
        start = time.perf_counter()
        result = engine.retrieve(text, options)
        took = (time.perf_counter() - start) * 1000
        slowest = sorted(result.timings.items(), key=lambda kv: -kv[1])[:4]
        stages = ", ".join(f"{stage} {ms:.0f}" for stage, ms in slowest)
        print(f"{name:12s} {len(text):7d} chars {took:8.0f} ms  ({stages} ms)")


if __name__ == "__main__":
    main()
