"""Index one repository into each storage backend and compare them.

Backends: `embedded` (SQLite + LanceDB), `postgres` (PostgreSQL for everything, vectors
included) and `postgres+qdrant` (PostgreSQL + Qdrant: its in-process local mode in a
temporary folder, or the server at --qdrant-url / $QDRANT_URL).

The text is embedded once: `embedded` is indexed first with the default embedder, then
the server backends' embedding caches are seeded with its vectors (through the storage
protocols), so their index time is the store and link cost alone (`texts_embedded` 0).

Prints: index wall time per backend (the embedded one also without its embedding time),
warm in-process query latency (p50/p95) per backend and mode over a fixed set of
questions, whether each backend's top-10 hits equal the embedded backend's, and the
bytes each store takes per active chunk.

    .venv/bin/python benchmarks/backends.py [--repo PATH] [--runs 5] [--json]
        [--postgres-url URL] [--qdrant-url URL]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from codecompass.engine import FORMAT_VERSION, Engine
from codecompass.models import ChunkFilter
from codecompass.protocols import Embedder
from codecompass.settings import StorageSettings, load_settings
from codecompass.storage import EMBEDDED_DB

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for `tests.pg`

QUESTIONS = [
    "draw a table with borders",
    "progress bar with time remaining",
    "highlight python syntax",
    "measure text width of a cell",
    "parse console markup tags into styles",
    "pretty print nested data structures",
    "render a traceback with local variables",
    "detect whether the terminal supports color",
    "wrap text to fit a given width",
    "live display that refreshes periodically",
    "render markdown headings and lists",
    "spinner animation frames",
    "tree view with guide lines",
    "align columns of text side by side",
    "export console output to html",
    "convert a hex color to rgb",
    "prompt the user for a password",
    "log handler that formats records with colors",
    "panel with a title around content",
    "emoji code replacement in text",
]
MODES = ("hybrid+graph", "bm25")
SEED_BATCH = 500

Key = tuple[str, int, str | None]


@dataclass
class Run:
    """One backend: its engine, index figures, hit lists and latencies."""

    name: str
    engine: Engine
    pg_url: str = ""
    workspace: str = ""
    qdrant_path: Path | None = None
    index: dict[str, Any] = field(default_factory=dict)
    hits: dict[str, dict[str, list[Key]]] = field(default_factory=dict)  # mode -> query -> keys
    times: dict[str, list[float]] = field(default_factory=dict)  # mode -> ms
    footprint: list[tuple[str, int]] = field(default_factory=list)  # (store, bytes)
    chunks: int = 0


def log(message: str) -> None:
    print(f"[backends] {message}", file=sys.stderr, flush=True)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


# -- setting up ---------------------------------------------------------------------------
@contextmanager
def postgres(url: str) -> Iterator[tuple[str, Any]]:
    """The given URL (no cluster), else a throwaway cluster's URL and the cluster."""
    if url:
        yield url, None
        return
    from tests.pg import cluster, unavailable

    reason = unavailable()
    if reason:
        raise RuntimeError(f"cannot start PostgreSQL: {reason}")
    with cluster() as created:
        yield created.url(), created


def server_engine(
    data_dir: Path, embedder: Embedder, storage: StorageSettings, name: str
) -> Engine:
    settings = load_settings(data_dir)
    engine = Engine(replace(settings, storage=storage), embedder=embedder)
    log(f"{name}: opening backend")
    _ = engine.backend
    return engine


def seed_cache(source: Engine, target: Engine) -> tuple[int, int, float]:
    """Copy the vectors of every active chunk's text from `source`'s embedding cache into
    `target`'s; returns (keys, vectors copied, seconds)."""
    began = time.perf_counter()
    embedder = source.embedder
    model = embedder.model_id
    entries = source.backend.chunks.chunk_entries()
    keys = sorted({e.embed_key for per_file in entries.values() for e in per_file})
    target.backend.meta.init_meta(
        {
            "format_version": FORMAT_VERSION,
            "embedder_model": model,
            "embedder_dim": str(embedder.dim),
        }
    )
    copied = 0
    for start in range(0, len(keys), SEED_BATCH):
        found = source.backend.cache.cached_vectors(model, keys[start : start + SEED_BATCH])
        target.backend.cache.cache_vectors(model, found.items())
        copied += len(found)
    return len(keys), copied, time.perf_counter() - began


def index_into(run: Run, repo: Path) -> None:
    log(f"{run.name}: indexing {repo}")
    began = time.perf_counter()
    stats = run.engine.index(repo)
    outer = time.perf_counter() - began
    embed = stats.seconds.get("embed", 0.0)
    run.chunks = run.engine.backend.chunks.counts(stats.repo)["chunks"]
    run.index = {
        "wall_seconds": stats.wall_seconds,
        "call_seconds": outer,
        "embed_seconds": embed,
        "wall_minus_embed": stats.wall_seconds - embed,
        "files": stats.files_seen,
        "chunks_added": stats.chunks_added,
        "active_chunks": run.chunks,
        "texts_embedded": stats.texts_embedded,
        "texts_cached": stats.texts_cached,
        "stage_seconds": {k: round(v, 3) for k, v in stats.seconds.items()},
        "graph": stats.graph,
    }


# -- querying -----------------------------------------------------------------------------
def hit_keys(engine: Engine, query: str, mode: str) -> list[Key]:
    return [(h.path, h.start_line, h.symbol) for h in engine.search(query, k=10, mode=mode)]


def measure_queries(runs: list[Run], repeats: int) -> None:
    """Warm-up pass (which records the hit lists), then `repeats` timed passes; backends
    take turns within each pass so a busy machine weighs on all of them alike."""
    for run in runs:
        log(f"{run.name}: warm-up queries")
        for mode in MODES:
            run.hits[mode] = {q: hit_keys(run.engine, q, mode) for q in QUESTIONS}
            run.times[mode] = []
    for repeat in range(repeats):
        log(f"timed pass {repeat + 1}/{repeats}")
        for run in runs:
            for mode in MODES:
                for query in QUESTIONS:
                    began = time.perf_counter()
                    run.engine.search(query, k=10, mode=mode)
                    run.times[mode].append((time.perf_counter() - began) * 1000)


def first_difference(a: list[Key], b: list[Key]) -> int | None:
    """The first rank (1-based) at which two hit lists differ, None when equal."""
    for rank in range(max(len(a), len(b))):
        if rank >= len(a) or rank >= len(b) or a[rank] != b[rank]:
            return rank + 1
    return None


# -- footprint ----------------------------------------------------------------------------
def pg_table_bytes(url: str, workspace: str, skip: set[str]) -> list[tuple[str, int]]:
    """Bytes of each table (with its indexes and TOAST) that `workspace` accounts for:
    the table's total size times the workspace's share of its rows (all of it in a
    database of one workspace)."""
    out: list[tuple[str, int]] = []
    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT table_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND column_name = 'workspace' "
                "ORDER BY table_name"
            )
        ]
        for table in tables:
            if table in skip:
                continue
            conn.execute(sql.SQL("VACUUM (ANALYZE) {}").format(sql.Identifier(table)))
            mine, total = conn.execute(
                sql.SQL("SELECT count(*) FILTER (WHERE workspace = %s), count(*) FROM {}").format(
                    sql.Identifier(table)
                ),
                (workspace,),
            ).fetchone() or (0, 0)
            size_row = conn.execute("SELECT pg_total_relation_size(%s::regclass)", (table,))
            size = int((size_row.fetchone() or (0,))[0])
            share = mine / total if total else 1.0
            out.append((table, int(size * share)))
    return out


def measure_footprint(run: Run) -> None:
    backend = run.engine.backend
    if run.name == "embedded":
        backend.vectors(run.engine.embedder.dim).compact()
        data = run.engine.settings.data_dir
        db = sum(
            (data / f"{EMBEDDED_DB}{suffix}").stat().st_size
            for suffix in ("", "-wal")
            if (data / f"{EMBEDDED_DB}{suffix}").is_file()
        )
        run.footprint = [
            ("sqlite index.sqlite(+wal)", db),
            ("lancedb vectors/", folder_bytes(data / "vectors")),
        ]
        return
    backend.vectors(run.engine.embedder.dim).compact()
    # With Qdrant holding the vectors, PostgreSQL's vector tables are empty: leave them out.
    skip = set() if run.name == "postgres" else {"vectors", "vector_versions"}
    tables = pg_table_bytes(run.pg_url, run.workspace, skip)
    run.footprint = [(f"pg {t}", b) for t, b in sorted(tables, key=lambda tb: -tb[1])]
    run.footprint.append(("pg all tables", sum(b for _, b in tables)))
    if run.name == "postgres+qdrant":
        if run.qdrant_path is not None:
            run.footprint.append(("qdrant local folder", folder_bytes(run.qdrant_path)))
        else:
            run.footprint.append(("qdrant server", -1))


# -- reporting ----------------------------------------------------------------------------
def print_index(runs: list[Run], seeds: dict[str, tuple[int, int, float]]) -> None:
    print("\n== index ==")
    print(
        f"{'backend':<16} {'wall s':>8} {'-embed s':>9} {'embed s':>8} {'chunks':>7} "
        f"{'embedded':>9} {'cached':>7}  seeding"
    )
    for run in runs:
        ix = run.index
        seed = seeds.get(run.name)
        seeding = f"{seed[1]}/{seed[0]} vectors in {seed[2]:.2f} s" if seed else "(embeds itself)"
        print(
            f"{run.name:<16} {ix['wall_seconds']:>8.2f} {ix['wall_minus_embed']:>9.2f} "
            f"{ix['embed_seconds']:>8.2f} {ix['active_chunks']:>7} {ix['texts_embedded']:>9} "
            f"{ix['texts_cached']:>7}  {seeding}"
        )
    for run in runs:
        stages = ", ".join(f"{k} {v:.2f}" for k, v in run.index["stage_seconds"].items())
        print(f"  {run.name:<16} stages: {stages}")


def print_latency(runs: list[Run], repeats: int) -> None:
    print(f"\n== query latency (ms, {len(QUESTIONS)} questions x {repeats} runs, warm) ==")
    print(f"{'backend':<16} {'mode':<13} {'p50':>8} {'p95':>8} {'mean':>8}")
    for run in runs:
        for mode in MODES:
            t = run.times[mode]
            print(
                f"{run.name:<16} {mode:<13} {statistics.median(t):>8.1f} "
                f"{percentile(t, 0.95):>8.1f} {statistics.fmean(t):>8.1f}"
            )


def compare_hits(runs: list[Run]) -> dict[str, Any]:
    print("\n== top-10 hits (path, start_line, symbol) vs embedded ==")
    base = runs[0]
    report: dict[str, Any] = {}
    for run in runs[1:]:
        for mode in MODES:
            diffs = {
                q: rank
                for q in QUESTIONS
                if (rank := first_difference(base.hits[mode][q], run.hits[mode][q])) is not None
            }
            report[f"{run.name}/{mode}"] = diffs
            same = len(QUESTIONS) - len(diffs)
            print(f"{run.name:<16} {mode:<13} identical {same}/{len(QUESTIONS)}")
            for query, rank in diffs.items():
                ours = base.hits[mode][query]
                theirs = run.hits[mode][query]
                a = ours[rank - 1] if rank <= len(ours) else None
                b = theirs[rank - 1] if rank <= len(theirs) else None
                print(f"    rank {rank:>2}  {query!r}: embedded {a} vs {b}")
    return report


def print_footprint(runs: list[Run]) -> None:
    print("\n== footprint (bytes per active chunk) ==")
    print(f"{'backend':<16} {'store':<28} {'B/chunk':>10} {'total MB':>10}")
    for run in runs:
        for store, size in run.footprint:
            if size < 0:
                print(f"{run.name:<16} {store:<28} {'n/a':>10} {'n/a':>10}")
                continue
            per = size / run.chunks if run.chunks else 0.0
            print(f"{run.name:<16} {store:<28} {per:>10.0f} {size / 1e6:>10.2f}")


# -- cleaning up (servers we did not start) -----------------------------------------------
def drop_workspace(run: Run) -> None:
    """Delete this run's rows (and Qdrant points) from servers that outlive the script."""
    try:
        if run.name == "postgres+qdrant" and run.qdrant_path is None:
            dim = run.engine.embedder.dim
            run.engine.backend.vectors(dim).write(
                [], np.zeros((0, dim), dtype=np.float32), delete=ChunkFilter()
            )
    except Exception:  # best effort
        log(f"{run.name}: could not delete Qdrant points:\n{traceback.format_exc()}")
    run.engine.close()
    with psycopg.connect(run.pg_url, autocommit=True) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT table_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND column_name = 'workspace'"
            )
        ]
        for table in tables:
            conn.execute(
                sql.SQL("DELETE FROM {} WHERE workspace = %s").format(sql.Identifier(table)),
                (run.workspace,),
            )


# -- main ---------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", help="folder to index (default: the installed rich package)")
    parser.add_argument("--runs", type=int, default=5, help="timed passes over the questions")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    parser.add_argument("--postgres-url", default="", help="use this database, no cluster")
    parser.add_argument(
        "--qdrant-url", default=os.environ.get("QDRANT_URL", ""), help="Qdrant server"
    )
    args = parser.parse_args()
    if args.repo:
        repo = Path(args.repo).expanduser().resolve()
    else:
        module = importlib.import_module("rich")
        assert module.__file__ is not None
        repo = Path(module.__file__).parent
    started = time.perf_counter()
    errors: dict[str, str] = {}
    seeds: dict[str, tuple[int, int, float]] = {}
    runs: list[Run] = []

    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cc-backends-")))
        settings = load_settings(tmp / "embedded")
        base = Engine(replace(settings, storage=StorageSettings(backend="embedded")))
        stack.callback(base.close)
        embedded = Run("embedded", base)
        index_into(embedded, repo)
        runs.append(embedded)
        embedder = base.embedder

        log("starting PostgreSQL" if not args.postgres_url else "using --postgres-url")
        pg_url, created = stack.enter_context(postgres(args.postgres_url))
        tag = uuid.uuid4().hex[:8]
        plans: list[tuple[str, dict[str, Any]]] = [("postgres", {})]
        qdrant_path = None if args.qdrant_url else tmp / "qdrant"
        plans.append(
            (
                "postgres+qdrant",
                {"qdrant_url": args.qdrant_url, "qdrant_path": str(qdrant_path or "")},
            )
        )
        for name, extra in plans:
            # Own database per backend on our cluster, so table sizes are that backend's.
            url = created.create_database() if created is not None else pg_url
            workspace = f"bench_{name.replace('+', '_')}_{tag}"
            storage = StorageSettings(
                backend="server", workspace=workspace, postgres_url=url, **extra
            )
            try:
                engine = server_engine(tmp / name, embedder, storage, name)
            except Exception:  # report it and go on with the others
                errors[name] = traceback.format_exc()
                log(f"{name} failed to open:\n{errors[name]}")
                continue
            run = Run(
                name,
                engine,
                pg_url=url,
                workspace=workspace,
                qdrant_path=qdrant_path if name == "postgres+qdrant" else None,
            )
            if created is None:
                stack.callback(drop_workspace, run)
            else:
                stack.callback(engine.close)
            try:
                seeds[name] = seed_cache(base, engine)
                index_into(run, repo)
            except Exception:
                errors[name] = traceback.format_exc()
                log(f"{name} failed to index:\n{errors[name]}")
                continue
            runs.append(run)

        query_errors: list[Run] = []
        try:
            measure_queries(runs, args.runs)
        except Exception:
            errors["queries"] = traceback.format_exc()
            log(f"queries failed:\n{errors['queries']}")
            query_errors = runs
        for run in runs:
            try:
                measure_footprint(run)
            except Exception:
                errors[f"{run.name} footprint"] = traceback.format_exc()
                log(f"{run.name} footprint failed:\n{errors[f'{run.name} footprint']}")

        print(f"repository         {repo}")
        print(f"embedder           {embedder.model_id} ({embedder.dim}-d)")
        print(f"postgres           {'--postgres-url' if created is None else 'throwaway cluster'}")
        print(
            "qdrant             "
            + (f"server {args.qdrant_url}" if args.qdrant_url else "local mode (temp folder)")
        )
        print_index(runs, seeds)
        hits_report: dict[str, Any] = {}
        if not query_errors:
            print_latency(runs, args.runs)
            hits_report = compare_hits(runs)
        print_footprint(runs)
        for name, text in errors.items():
            print(f"\n== error: {name} ==\n{text}")
        elapsed = time.perf_counter() - started
        print(f"\ntotal benchmark time {elapsed:.0f} s")

        if args.json:
            result = {
                "repo": str(repo),
                "embedder": {"model": embedder.model_id, "dim": embedder.dim},
                "backends": {
                    run.name: {
                        "index": run.index,
                        "seeding": (
                            dict(zip(("keys", "copied", "seconds"), seeds[run.name], strict=True))
                            if run.name in seeds
                            else None
                        ),
                        "latency_ms": {
                            mode: {
                                "p50": statistics.median(t),
                                "p95": percentile(t, 0.95),
                                "mean": statistics.fmean(t),
                                "n": len(t),
                            }
                            for mode, t in run.times.items()
                            if t
                        },
                        "footprint": {
                            store: {
                                "bytes": size,
                                "bytes_per_chunk": size / run.chunks if run.chunks else None,
                            }
                            for store, size in run.footprint
                            if size >= 0
                        },
                    }
                    for run in runs
                },
                "hit_differences": hits_report,
                "errors": errors,
                "seconds": elapsed,
            }
            print(json.dumps(result, indent=2, default=str))
        log("cleaning up")


if __name__ == "__main__":
    main()
