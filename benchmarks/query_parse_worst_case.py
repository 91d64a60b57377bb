"""How long `parse_query` takes on pasted text that is hard for regular expressions.

An issue may hold a minified line, a base64 blob or a long hash: one run of name
characters with no `(`, or `at ` again and again, or a log with thousands of blank
lines or of names. A pattern that can start at every character of such a run and scan
to its end is quadratic: `_CALL` took 25 s on a 60 KB run before it started only where
a run does; 60,000 blank lines took 211 s before the patterns read at a line's start
stopped crossing lines. Prints the time of each case and of each pattern that takes
over 50 ms on it (none should).

    .venv/bin/python benchmarks/query_parse_worst_case.py [--size 60000]
"""

from __future__ import annotations

import argparse
import random
import re
import string
import time

from codecompass.search import query


def cases(size: int) -> dict[str, str]:
    rng = random.Random(1)
    return {
        "one word": "abc" * (size // 3),
        "dotted run": "a." * (size // 2),
        "scoped run": "Ab::" * (size // 4),
        "base64": "".join(
            rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(size)
        ),
        "at, again": "at a " * (size // 5),
        ".NET-like": "at " + "a." * (size // 4) + "b() in " + "d" * (size // 2),
        "Ruby-like": "x.rb:1:in `" + "a" * size,
        "PHP-like": "#0 " + "a" * size,
        "URL-like": "at f (file://" + "a" * size,
        "blank lines": "\n" * size,
        "@ run": "/@" * (size // 2),
        "backticks": "`" * size,
        ".NET, again": "at a.b() in (" * (size // 13),
        "frame, no quote": 'File "' + "/lib/python3/" * (size // 13),
        "exception group": '  |   File "x.py", line 3, in f\n' * (size // 32),
        # Distinct names: each was checked against every one kept before.
        "distinct calls": " ".join(
            "".join(rng.choice(string.ascii_lowercase) for _ in range(6)) + "_x("
            for _ in range(size // 10)
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=60_000, help="characters a case")
    args = parser.parse_args()
    patterns = {name: value for name, value in vars(query).items() if isinstance(value, re.Pattern)}
    for name, text in cases(args.size).items():
        start = time.perf_counter()
        query.parse_query(text)
        took = (time.perf_counter() - start) * 1000
        slow = []
        for pattern_name, pattern in patterns.items():
            start = time.perf_counter()
            for _ in pattern.finditer(text):
                pass
            ms = (time.perf_counter() - start) * 1000
            if ms > 50:
                slow.append(f"{pattern_name} {ms:.0f} ms")
        print(f"{name:12s} {len(text):7d} chars  parse_query {took:7.1f} ms  {', '.join(slow)}")


if __name__ == "__main__":
    main()
