"""Garbage collection of 10k+ tombstones made by real index runs, with the bytes it gives
back.

A synthetic tree of FILES Python files with FUNCTIONS functions each is indexed; then
every function body of most files changes and a few files are deleted, and the tree is
indexed again: each old chunk becomes a tombstone (`chunk_modified` or `file_removed`).
Then, with an injected clock:

1. `gc --dry-run` (counts only);
2. a collection 15 days later: every tombstone is due; they are written to the pre-GC
   backup and deleted in batches of 1000; the embeddings only they used are noted;
3. a collection 46 days later: those embeddings have been unused for 30 days and go;
4. the pre-GC backup of step 2 restored (the tombstones come back exactly).

The embedder is a hashing stand-in with the real model's 384 dimensions, so the cache
and vector stores weigh what they would (the collection never runs the model). Figures
vary with the machine (2 shared cores here).

    .venv/bin/python benchmarks/gc_tombstones.py [--files 220] [--functions 50]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hash_embedder import HashEmbedder  # benchmarks/, the script's folder

from codecompass.engine import Engine
from codecompass.lifecycle.gc import GCStats, collect_garbage, restore_gc_backup
from codecompass.settings import load_settings


def module(n: int, functions: int, version: int) -> str:
    return "".join(
        f"def handler_{n}_{f}(event, context):\n"
        f'    """Handle event kind {f} of module {n} (version {version})."""\n'
        f"    total = event.get('amount_{f}', {f}) * {version + 1}\n"
        f"    return context.send('queue_{n}', total + {n * f + version})\n\n\n"
        for f in range(functions)
    )


def mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB"


def report(title: str, stats: GCStats) -> None:
    before, after = stats.bytes_before, stats.bytes_after
    print(f"\n== {title}")
    print(f"  tombstones removed   {stats.tombstones_removed} {dict(stats.removed)}")
    print(f"  orphans              {stats.orphans}")
    print(f"  batches              {stats.batches}")
    print(f"  remaining            {stats.remaining} (oldest {stats.oldest_remaining})")
    print(f"  time                 {stats.seconds:.2f} s")
    if stats.backup:
        size = Path(stats.backup).stat().st_size
        print(f"  pre-GC backup        {Path(stats.backup).name}, {mib(size)}")
    print(
        f"  catalog              {mib(before['catalog'])} -> {mib(after['catalog'])} "
        f"(free pages {mib(before['catalog_free'])} -> {mib(after['catalog_free'])})"
    )
    print(f"  vectors folder       {mib(before['vectors'])} -> {mib(after['vectors'])}")
    vacuum = "ran" if stats.vacuumed else "not needed"
    print(
        f"  bytes reclaimed      {stats.bytes_reclaimed} ({mib(stats.bytes_reclaimed)}), "
        f"catalog bytes freed {stats.bytes_freed}; VACUUM {vacuum}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=220)
    parser.add_argument("--functions", type=int, default=50)
    parser.add_argument("--deleted", type=int, default=20, help="files deleted in the edit")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cc-gc-bench-"))
    try:
        tree = work / "tree"
        (tree / "pkg").mkdir(parents=True)
        for n in range(args.files):
            (tree / f"pkg/mod_{n}.py").write_text(module(n, args.functions, 0), "utf-8")
        settings = load_settings(work / "data")
        with Engine(settings, embedder=HashEmbedder(384)) as engine:
            began = time.perf_counter()
            first = engine.index(tree, name="bench")
            print(
                f"first run: {first.chunks_added} chunks from {args.files} files "
                f"in {time.perf_counter() - began:.1f} s"
            )
            for n in range(args.files):
                path = tree / f"pkg/mod_{n}.py"
                if n < args.deleted:
                    path.unlink()
                else:
                    path.write_text(module(n, args.functions, 1), "utf-8")
            began = time.perf_counter()
            second = engine.index(tree, name="bench")
            print(
                f"second run: {second.chunks_added} chunks added, {second.chunks_removed} "
                f"tombstoned in {time.perf_counter() - began:.1f} s"
            )
            backend = engine.backend
            counts = {r: c.count for r, c in backend.tombstones.tombstone_stats({}).items()}
            print(f"tombstones: {sum(counts.values())} {counts}")
            vectors = backend.vectors(HashEmbedder.dim)
            now = datetime.now(UTC)
            dry = collect_garbage(
                backend, vectors, settings, now=now + timedelta(days=15), dry_run=True
            )
            print(f"\n== dry run (day 15): would remove {dry.removed} in {dry.seconds:.2f} s")
            first_gc = collect_garbage(backend, vectors, settings, now=now + timedelta(days=15))
            report("collection at day 15 (every tombstone due)", first_gc)
            second_gc = collect_garbage(backend, vectors, settings, now=now + timedelta(days=46))
            report("collection at day 46 (embeddings unused for 30 days)", second_gc)
            began = time.perf_counter()
            restored = restore_gc_backup(backend, Path(str(first_gc.backup)))
            print(
                f"\n== restore of the day-15 backup: {restored['tombstones']} tombstones in "
                f"{time.perf_counter() - began:.2f} s"
            )
            active = sum(backend.chunks.counts(r.id)["chunks"] for r in backend.repos.repos())
            print(f"active chunks throughout: {active}; vectors stored: {vectors.count()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
