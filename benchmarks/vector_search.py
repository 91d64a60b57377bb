"""Exact in-memory search vs LanceDB's IVF index at 10k–500k vectors.

Vectors come from a real index's embedding cache (`--data-dir`); to reach larger sizes
they are re-used with small Gaussian noise (σ=0.02, re-normalized), which keeps the
clustered structure of real code embeddings. Queries are held-out real vectors.
Prints p50/p95 latency per method and the IVF recall@10 against exact search.

    .venv/bin/python benchmarks/vector_search.py --data-dir .demo/rich [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from codecompass.models import ChunkFilter
from codecompass.storage.lance import LanceVectorStore

ALL = ChunkFilter()


@dataclass(frozen=True)
class VectorRow:
    id: str
    repo: str
    path: str
    language: str
    kind: str


def load_vectors(data_dir: Path) -> np.ndarray:
    conn = sqlite3.connect(data_dir / "index.sqlite")
    blobs = [r[0] for r in conn.execute("SELECT vector FROM embeddings")]
    conn.close()
    return np.stack([np.frombuffer(b, dtype=np.float32) for b in blobs])


def grow(base: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    picks = base[rng.integers(0, len(base), size)]
    noisy = picks + rng.normal(0, 0.02, picks.shape).astype(np.float32)
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


def percentiles(times: list[float]) -> str:
    times = sorted(times)
    return (
        f"p50 {statistics.median(times):6.1f} ms  p95 {times[int(0.95 * (len(times) - 1))]:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sizes", default="10000,50000,100000,200000,500000")
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    real = load_vectors(args.data_dir)
    rng.shuffle(real)
    queries, base = real[: args.queries], real[args.queries :]
    print(f"{len(real)} real vectors from {args.data_dir}")
    for size in (int(s) for s in args.sizes.split(",")):
        vectors = grow(base, size, rng)
        with tempfile.TemporaryDirectory() as tmp:
            store = LanceVectorStore(Path(tmp), vectors.shape[1], ann_threshold=10**12)
            rows = [
                VectorRow(f"c{i}", "r", f"p{i % 997}.py", "python", "function") for i in range(size)
            ]
            began = time.perf_counter()
            for start in range(0, size, 50_000):
                store.write(rows[start : start + 50_000], vectors[start : start + 50_000])
            insert = time.perf_counter() - began
            store.search(queries[0], 10, ALL)  # loads the matrix
            exact: list[list[str]] = []
            times: list[float] = []
            for q in queries:
                began = time.perf_counter()
                exact.append([cid for cid, _ in store.search(q, 10, ALL)])
                times.append((time.perf_counter() - began) * 1000)
            print(f"{size:>7} exact numpy   {percentiles(times)}   (insert {insert:.1f} s)")
            store.ann_threshold = 0
            began = time.perf_counter()
            store.compact()
            build = time.perf_counter() - began
            times, hits = [], 0
            for q, truth in zip(queries, exact, strict=True):
                began = time.perf_counter()
                got = [cid for cid, _ in store.search(q, 10, ALL)]
                times.append((time.perf_counter() - began) * 1000)
                hits += len(set(got) & set(truth))
            recall = hits / (10 * len(queries))
            print(
                f"{size:>7} lance IVF     {percentiles(times)}   recall@10 {recall:.3f} "
                f"(build {build:.1f} s)"
            )


if __name__ == "__main__":
    main()
