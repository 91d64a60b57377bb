"""Sample resolved call edges of a Go, Java, C# or Rust repository, to check them by hand.

Indexes the folder with a hashing stand-in for the embedding model (the graph does not
depend on it), then prints, for `-n` call edges drawn with `--seed` among the resolved
calls into the repository: the call site (path:line and its text) and the target (its
node id, kind and signature), with the edge's confidence and `via`. Also prints how
many call edges each confidence has, resolved or not, so a run before and after a change
can be compared.

    .venv/bin/python benchmarks/typed_call_sample.py /tmp/chi --seed 1 -n 50
    .venv/bin/python benchmarks/typed_call_sample.py /tmp/chi --min-confidence 0.6

Give `--data-dir` to keep the index (and reuse it: only changed files are indexed again).
"""

from __future__ import annotations

import argparse
import random
import tempfile
from collections import Counter
from pathlib import Path

from hash_embedder import HashEmbedder  # benchmarks/, the script's folder

from codecompass.engine import Engine
from codecompass.models import EdgeQuery, SymbolQuery

LANGUAGE_SUFFIXES = (".go", ".java", ".cs", ".rs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("repo", type=Path, help="folder of the repository to index")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-n", type=int, default=50, help="call edges to print")
    parser.add_argument("--min-confidence", type=float, default=0.0)
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        engine, root = Engine.for_repo(args.repo, data_dir=data_dir, embedder=HashEmbedder())
        with engine:
            engine.index(root)
            report(engine, root, args.seed, args.n, args.min_confidence)


def report(engine: Engine, root: Path, seed: int, count: int, min_confidence: float) -> None:
    calls = [
        e
        for e in engine.backend.edges.edges(EdgeQuery(types=["calls"]))
        if (e.evidence_path or "").endswith(LANGUAGE_SUFFIXES)
    ]
    by_conf = Counter((e.confidence, e.resolved) for e in calls)
    print(f"{len(calls)} call edges from {', '.join(LANGUAGE_SUFFIXES)} files")
    for (conf, resolved), n in sorted(by_conf.items()):
        print(f"  confidence {conf:.2f} {'resolved' if resolved else 'unresolved':10} {n}")
    pool = sorted(
        (e for e in calls if e.resolved and e.confidence >= min_confidence),
        key=lambda e: (e.evidence_path or "", e.evidence_line or 0, e.target),
    )
    picked = random.Random(seed).sample(pool, min(count, len(pool)))
    picked.sort(key=lambda e: (e.evidence_path or "", e.evidence_line or 0, e.target))
    lines: dict[str, list[str]] = {}
    print(f"\n{len(picked)} of {len(pool)} resolved call edges (seed {seed})")
    for n, edge in enumerate(picked, start=1):
        path = edge.evidence_path or ""
        if path not in lines:
            lines[path] = (root / path).read_text(encoding="utf-8", errors="replace").split("\n")
        text = lines[path][(edge.evidence_line or 1) - 1].strip()
        target = engine.backend.symbols.symbols(SymbolQuery(ids=[edge.target]))
        about = f"{target[0].kind}: {target[0].signature}" if target else ""
        print(f"{n:3}. {path}:{edge.evidence_line}  {text[:110]}")
        print(f"     → {edge.target}  [{about[:100]}]  {edge.confidence:.2f} {edge.via}")


if __name__ == "__main__":
    main()
