"""Remember and recall latency with 5,000 memories (issue 15), on the embedded backend
(SQLite) with the default embedder.

The memories are real prose: sentences of the docstrings of an installed package
(default: mypy, numpy, pydantic, rich, click), 5,000 distinct ones of 6 to 60 words, loaded with
`memory import` (one embedding batch); then `--samples` more are remembered one at a
time (each embeds its text and compares it with every stored vector), and `--samples`
other sentences are recalled with the default budget. Printed: p50 / p95 / max in ms.

    .venv/bin/python benchmarks/memory_latency.py [--memories 5000] [--samples 200]
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import statistics
import tempfile
import time
from pathlib import Path

from codecompass.engine import Engine
from codecompass.settings import load_settings


def sentences(packages: list[str], wanted: int) -> list[str]:
    roots = [Path(importlib.import_module(p).__file__ or "").parent for p in packages]
    seen: dict[str, None] = {}
    for path in (path for root in roots for path in sorted(root.rglob("*.py"))):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
                continue
            doc = ast.get_docstring(node)
            if not doc:
                continue
            for paragraph in doc.split("\n\n"):
                for sentence in " ".join(paragraph.split()).split(". "):
                    if 6 <= len(sentence.split()) <= 60:
                        seen[sentence.rstrip(".") + "."] = None
            if len(seen) >= wanted:
                return list(seen)
    return list(seen)


def percentiles(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max": round(ordered[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", default="mypy,numpy,pydantic,rich,click")
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    texts = sentences(args.packages.split(","), args.memories + 2 * args.samples)
    if len(texts) < args.memories + 2 * args.samples:
        raise SystemExit(f"only {len(texts)} sentences in {args.packages}; lower --memories")
    stored, added, queries = (
        texts[: args.memories],
        texts[args.memories : args.memories + args.samples],
        texts[args.memories + args.samples :],
    )
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(Path(tmp) / "data")
        with Engine(settings) as engine:
            bank = engine.memory
            bank.settings = bank.settings.__class__(max_per_project=100_000, max_per_type=100_000)
            now = "2026-01-01T00:00:00.000+00:00"
            header = json.dumps({"codecompass_memories": 1})
            rows = [
                json.dumps({"id": f"mem_{i:05d}", "type": "context", "content": t, "created": now})
                for i, t in enumerate(stored)
            ]
            started = time.perf_counter()
            bank.import_lines([header, *rows])
            load_s = time.perf_counter() - started
            remember_ms = []
            for text in added:
                t0 = time.perf_counter()
                bank.remember(text, type="pattern")
                remember_ms.append((time.perf_counter() - t0) * 1000)
            recall_ms = []
            for query in queries:
                t0 = time.perf_counter()
                bank.recall(query)
                recall_ms.append((time.perf_counter() - t0) * 1000)
            total = bank.status().total
    print(
        json.dumps(
            {
                "memories": total,
                "import_s": round(load_s, 1),
                "remember_ms": percentiles(remember_ms),
                "recall_ms": percentiles(recall_ms),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
