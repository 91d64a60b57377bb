"""Run evaluation tasks against an `Engine` and score them.

Golden queries run against what the engine has indexed. Localization tasks name a
repository and a commit: the runner indexes each commit straight from git objects,
oldest commit first, into one repository name, so every step re-reads only the files
that changed and the embedding cache serves every text seen before. Each query runs
once per mode; `--ablation` compares the modes side by side on the same index state.
`--as-indexed` runs them against the index as it stands instead: a quick proxy.

Definitions (also in docs/retrieval.md):
- file Acc@k / function Acc@k: the task counts only if *all* its gold files / gold
  functions are in the first k files / distinct functions. Tasks with no gold function
  are left out of the function metrics (their number is reported as `n_functions`).
- the file ranking is the search's file view; the function ranking is its symbol view
  (`path::Qualified.name`, each symbol by its best chunk plus its file's weighted score).
- latency is the wall time of `Engine.retrieve` on a warm index (one warm-up query after
  each re-index, which reloads the vector matrix).
- tokens: the top 10 hits at `preview` detail versus the whole files they come from,
  both in the embedding model's tokenizer; the mean of the per-query ratios.
- by type: the same summaries over the tasks of each query type (`by_type`; the types
  and how a task gets one are in `tasks.py`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from codecompass.engine import Engine
from codecompass.errors import InputError
from codecompass.evaluation.metrics import (
    all_within,
    expected_ranks,
    ndcg_at,
    percentile,
    recall_at,
    reciprocal_rank,
)
from codecompass.evaluation.tasks import QUERY_TYPES, GoldenTask, LocalizationTask
from codecompass.indexing.gitsource import (
    GitTreeSource,
    commit_dates,
    resolve_git_dir,
    run_git,
)
from codecompass.models import ChunkFilter
from codecompass.schemas import Hit
from codecompass.search.retrieve import SearchResult

ABLATION_MODES = ("bm25", "dense", "hybrid", "hybrid+graph")
FILE_KS = (1, 3, 5)
FUNCTION_KS = (5, 10)
RECALL_KS = (1, 5, 10)
TOKEN_HITS = 10
# Localization is scored on the file and symbol views and, to check they agree, on the
# ranked hits themselves (their files and symbols in order of first appearance).
ACCURACY_KEYS = tuple(
    f"{prefix}{level}@{k}"
    for prefix in ("", "hits_")
    for level, ks in (("file", FILE_KS), ("function", FUNCTION_KS))
    for k in ks
)

Log = Callable[[str], None]


@dataclass(slots=True)
class ModeScores:
    """Per-query outcomes of one mode; `summary()` turns them into the reported numbers."""

    mode: str
    # "file@5", "function@10", "hits_file@5" … → whether each task had all gold in the top k
    accuracy: dict[str, list[bool]] = field(default_factory=dict)
    recall: dict[int, list[float]] = field(default_factory=dict)
    rr: list[float] = field(default_factory=list)
    ndcg: list[float] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    token_ratio: list[float] = field(default_factory=list)
    tokens_returned: list[int] = field(default_factory=list)
    tokens_files: list[int] = field(default_factory=list)

    def add(self, outcome: dict[str, Any]) -> None:
        """Record one task's outcome as the report stores it: its `latency_ms`, a golden
        query's `ranks`, a localization task's `file@k`, `function@k` (None: no gold
        function), the same from its hits (`hits_file@k`, `hits_function@k`) and
        `tokens` (returned, whole files)."""
        self.latency_ms.append(outcome["latency_ms"])
        if "ranks" in outcome:
            ranks = outcome["ranks"]
            for k in RECALL_KS:
                self.recall.setdefault(k, []).append(recall_at(ranks, k))
            self.rr.append(reciprocal_rank(ranks))
            self.ndcg.append(ndcg_at(ranks, 10))
        for key in ACCURACY_KEYS:
            if outcome.get(key) is not None:
                self.accuracy.setdefault(key, []).append(bool(outcome[key]))
        if "tokens" in outcome and outcome["tokens"][1] > 0:
            returned, whole = outcome["tokens"]
            self.tokens_returned.append(returned)
            self.tokens_files.append(whole)
            self.token_ratio.append(returned / whole)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode, "n": len(self.latency_ms)}
        for key in ACCURACY_KEYS:
            rows = self.accuracy.get(key)
            if rows is not None:
                out[key.replace("@", "_acc@")] = _pct(rows)
                if key.startswith("function@"):
                    out["n_functions"] = len(rows)
        for k, values in sorted(self.recall.items()):
            out[f"recall@{k}"] = round(100 * sum(values) / len(values), 1) if values else 0.0
        if self.rr:
            out["mrr"] = round(sum(self.rr) / len(self.rr), 3)
            out["ndcg@10"] = round(sum(self.ndcg) / len(self.ndcg), 3)
        out["latency_p50_ms"] = round(percentile(self.latency_ms, 50), 1)
        out["latency_p95_ms"] = round(percentile(self.latency_ms, 95), 1)
        if self.token_ratio:
            out["token_ratio"] = round(sum(self.token_ratio) / len(self.token_ratio), 3)
            out["tokens_returned_mean"] = round(
                sum(self.tokens_returned) / len(self.tokens_returned)
            )
            out["tokens_files_mean"] = round(sum(self.tokens_files) / len(self.tokens_files))
        return out


def _pct(rows: Sequence[bool]) -> float:
    return round(100 * sum(rows) / len(rows), 1) if rows else 0.0


def by_type(rows: Sequence[dict[str, Any]], modes: Sequence[str]) -> list[dict[str, Any]]:
    """Each mode's summary over the tasks of each query type: `rows` are a report's
    `tasks` (each with its `type` and an outcome per mode); one entry per type present
    and mode, `{"type": …, "mode": …, "n": …, metrics…}`, types in `QUERY_TYPES` order.
    Rows without a type (reports written before types existed) are left out."""
    out: list[dict[str, Any]] = []
    for query_type in QUERY_TYPES:
        group = [row for row in rows if row.get("type") == query_type]
        for mode in modes if group else ():
            scores = ModeScores(mode)
            for row in group:
                scores.add(row[mode])
            out.append({"type": query_type, **scores.summary()})
    return out


def _timed(engine: Engine, query: str, **options: Any) -> tuple[SearchResult, float]:
    began = time.perf_counter()
    result = engine.retrieve(query, engine.search_options(**options))
    return result, (time.perf_counter() - began) * 1000


def _warm_up(engine: Engine, repo: str | None) -> None:
    engine.retrieve("warm up", engine.search_options(k=1, where=ChunkFilter(repo=repo)))


def _token_ratio(
    engine: Engine, hits: Sequence[Hit], read_file: Callable[[Hit], str | None]
) -> tuple[int, int] | None:
    top = list(hits[:TOKEN_HITS])
    if not top:
        return None
    returned = sum(engine.embedder.count_tokens([h.snippet for h in top]))
    whole = 0
    for key in dict.fromkeys((h.repo, h.path) for h in top):
        hit = next(h for h in top if (h.repo, h.path) == key)
        text = read_file(hit)
        if text is None:
            return None
        whole += engine.embedder.count_tokens([text])[0]
    return returned, whole


# -- localization ------------------------------------------------------------------------
def oldest_first(git_dir: Path, commits: Sequence[str], dates: dict[str, int]) -> list[str]:
    """Commits by committer date; commits of the same second by history depth."""
    stamps = [dates[c] for c in commits]
    depth: dict[str, int] = {}
    for commit in commits:
        if stamps.count(dates[commit]) > 1:
            depth[commit] = int(run_git(git_dir, "rev-list", "--count", commit).strip() or 0)
    return sorted(commits, key=lambda c: (dates[c], depth.get(c, 0)))


def run_localization(
    engine: Engine,
    tasks: Sequence[LocalizationTask],
    git_dirs: dict[str, Path],
    *,
    modes: Sequence[str] = ("hybrid+graph",),
    dump: IO[str] | None = None,
    log: Log | None = None,
) -> dict[str, Any]:
    """Index each task's commit (oldest first) and score every mode on it."""
    say = log or (lambda _: None)
    by_repo: dict[str, list[LocalizationTask]] = {}
    for task in tasks:
        by_repo.setdefault(task.repo, []).append(task)
    scores = {mode: ModeScores(mode) for mode in modes}
    per_task: list[dict[str, Any]] = []
    indexing: dict[str, Any] = {
        "commits": 0,
        "seconds": 0.0,
        "texts_embedded": 0,
        "texts_cached": 0,
    }
    for repo, repo_tasks in by_repo.items():
        if repo not in git_dirs:
            raise InputError(
                f"No git repository given for {repo!r}; pass --git {repo}=PATH "
                "(a clone or bare repository holding its commits)."
            )
        git_dir = resolve_git_dir(git_dirs[repo])
        name = _index_name(repo)
        commits = list(dict.fromkeys(t.base_commit for t in repo_tasks))
        dates = commit_dates(git_dir, commits)
        missing = [c for c in commits if c not in dates]
        if missing:
            raise InputError(f"{repo}: commit(s) not found in {git_dir}: {', '.join(missing[:3])}")
        for n, commit in enumerate(oldest_first(git_dir, commits, dates), start=1):
            stats = engine.index_commit(git_dir, commit, name=name)
            indexing["commits"] += 1
            indexing["seconds"] += stats.wall_seconds
            indexing["texts_embedded"] += stats.texts_embedded
            indexing["texts_cached"] += stats.texts_cached
            say(
                f"[{n}/{len(commits)}] {repo}@{commit[:10]}: indexed in "
                f"{stats.wall_seconds:.1f}s ({stats.new + stats.changed} files re-read, "
                f"{stats.texts_embedded} embedded, {stats.texts_cached} cached)"
            )
            with GitTreeSource(git_dir, commit, engine.rules()) as source:
                source.discover()

                def read_file(hit: Hit, source: GitTreeSource = source) -> str | None:
                    data = source.read_path(hit.path)
                    return None if data is None else data.decode("utf-8", "replace")

                _warm_up(engine, name)
                for task in (t for t in repo_tasks if t.base_commit == commit):
                    row = _localize(engine, task, name, modes, scores, read_file, dump)
                    per_task.append(row)
                    say(_task_line(task, row, modes))
    cached = indexing["texts_cached"]
    requested = cached + indexing["texts_embedded"]
    indexing["cache_hit_rate"] = round(cached / requested, 3) if requested else 0.0
    indexing["seconds"] = round(indexing["seconds"], 1)
    return localization_report(scores, per_task, indexing=indexing)


def run_localization_as_indexed(
    engine: Engine,
    tasks: Sequence[LocalizationTask],
    *,
    modes: Sequence[str] = ("hybrid+graph",),
    dump: IO[str] | None = None,
    log: Log | None = None,
) -> dict[str, Any]:
    """Every task against the index as it stands, checking out no commit: a quick proxy
    of `run_localization` (minutes, not hours, on a long history). Gold code the indexed
    commit lacks (added or renamed later) counts as a miss, and code changed since a
    task's commit may answer it, so the figures are the per-commit run's only roughly."""
    say = log or (lambda _: None)
    indexed = {name: engine.repo(name).last_commit for name in engine.repo_names()}
    repos = list(dict.fromkeys(t.repo for t in tasks))
    index_names: dict[str, str] = {}
    for repo in repos:
        name = _index_name(repo)
        if name not in indexed and len(repos) == 1 and len(indexed) == 1:
            # One repository asked for, one indexed under another name (`serde-rs/json`
            # indexed as `serde_json`): it is that one.
            (name,) = indexed
            say(f"{repo}: scored against {name!r}, the index's only repository")
        if name not in indexed:
            raise InputError(
                f"{repo}: no repository named {name!r} in this index "
                f"(it holds: {', '.join(sorted(indexed)) or 'nothing'}). Index a clone of "
                f"it first: codecompass index PATH --name {name}"
            )
        index_names[repo] = name
        _warm_up(engine, name)
    scores = {mode: ModeScores(mode) for mode in modes}
    per_task: list[dict[str, Any]] = []
    read_file = _indexed_file(engine)
    for task in tasks:
        row = _localize(engine, task, index_names[task.repo], modes, scores, read_file, dump)
        per_task.append(row)
        say(_task_line(task, row, modes))
    names = dict.fromkeys(index_names.values())
    return localization_report(scores, per_task, as_indexed={n: indexed[n] for n in names})


def localization_report(
    scores: dict[str, ModeScores], per_task: list[dict[str, Any]], **where: Any
) -> dict[str, Any]:
    """A localization report: each mode's summary, the same by query type, `where` the
    tasks ran (`indexing` or `as_indexed`) and the per-task rows."""
    modes = list(scores)
    return {
        "kind": "localization",
        "modes": [scores[m].summary() for m in modes],
        "by_type": by_type(per_task, modes),
        **where,
        "tasks": per_task,
    }


def _index_name(repo: str) -> str:
    """The name a task's repository (`owner/name`) is indexed under: its last part."""
    return repo.rsplit("/", 1)[-1]


def _indexed_file(engine: Engine) -> Callable[[Hit], str | None]:
    """A hit's whole file as the index has it (None when it cannot be read)."""

    def read_file(hit: Hit) -> str | None:
        try:
            return engine.open_file(hit.path, repo=hit.repo).text
        except InputError:
            return None

    return read_file


def _task_line(task: LocalizationTask, row: dict[str, Any], modes: Sequence[str]) -> str:
    return f"    {task.id}: " + ", ".join(
        f"{m} file@5={int(row[m]['file@5'])} func@10={row[m]['function@10']}" for m in modes
    )


def _localize(
    engine: Engine,
    task: LocalizationTask,
    repo: str,
    modes: Sequence[str],
    scores: dict[str, ModeScores],
    read_file: Callable[[Hit], str | None],
    dump: IO[str] | None,
) -> dict[str, Any]:
    row: dict[str, Any] = {"id": task.id, "type": task.type}
    for mode in modes:
        collect = dump is not None and mode == modes[-1]
        result, ms = _timed(
            engine,
            task.query,
            where=ChunkFilter(repo=repo),
            k=TOKEN_HITS,
            mode=mode,
            max_files=max(FILE_KS),
            max_symbols=max(FUNCTION_KS),
            detail="preview",
            collect=collect,
        )
        files = [f.path for f in result.files]
        functions = [f"{sym.path}::{sym.symbol}" for sym in result.symbols]
        outcome: dict[str, Any] = {"files": files[:5], "functions": functions[:10]}
        # What keeps a task from counting at the largest k (every gold location must be in).
        outcome["missed_files"] = [g for g in task.gold_files if g not in files[: max(FILE_KS)]]
        outcome["missed_functions"] = [
            g for g in task.gold_functions if g not in functions[: max(FUNCTION_KS)]
        ]
        for k in FILE_KS:
            outcome[f"file@{k}"] = all_within(files, task.gold_files, k)
        for k in FUNCTION_KS:
            outcome[f"function@{k}"] = (
                all_within(functions, task.gold_functions, k) if task.gold_functions else None
            )
        hit_files = list(dict.fromkeys(h.path for h in result.hits))
        hit_functions = list(
            dict.fromkeys(f"{h.path}::{h.symbol}" for h in result.hits if h.symbol)
        )
        for k in FILE_KS:
            outcome[f"hits_file@{k}"] = all_within(hit_files, task.gold_files, k)
        for k in FUNCTION_KS:
            outcome[f"hits_function@{k}"] = (
                all_within(hit_functions, task.gold_functions, k) if task.gold_functions else None
            )
        tokens = _token_ratio(engine, result.hits, read_file)
        if tokens is not None and tokens[1] > 0:
            outcome["tokens"] = list(tokens)
        outcome["latency_ms"] = round(ms, 1)
        row[mode] = outcome
        scores[mode].add(outcome)
        if collect and dump is not None and result.candidates is not None:
            record = {
                "id": task.id,
                "gold_files": list(task.gold_files),
                "gold_functions": list(task.gold_functions),
                "candidates": result.candidates,
            }
            dump.write(json.dumps(record) + "\n")
    return row


# -- golden queries ----------------------------------------------------------------------
def run_golden(
    engine: Engine,
    tasks: Sequence[GoldenTask],
    *,
    modes: Sequence[str] = ("hybrid+graph",),
    dump: IO[str] | None = None,
    log: Log | None = None,
) -> dict[str, Any]:
    say = log or (lambda _: None)
    scores = {mode: ModeScores(mode) for mode in modes}
    per_task: list[dict[str, Any]] = []
    repos = {task.repo for task in tasks}
    for repo in repos:
        _warm_up(engine, repo)
    read_file = _indexed_file(engine)
    for task in tasks:
        row: dict[str, Any] = {"id": task.id, "query": task.query, "type": task.type}
        for mode in modes:
            collect = dump is not None and mode == modes[-1]
            result, ms = _timed(
                engine,
                task.query,
                where=ChunkFilter(repo=task.repo),
                k=10,
                mode=mode,
                detail="preview",
                collect=collect,
            )
            if collect and dump is not None and result.candidates is not None:
                record = {
                    "id": task.id,
                    "expected": [{"path": e.path, "symbol": e.symbol} for e in task.expected],
                    "candidates": result.candidates,
                }
                dump.write(json.dumps(record) + "\n")
            ranks = expected_ranks(
                [(h.path, h.symbol) for h in result.hits],
                [(e.path, e.symbol) for e in task.expected],
            )
            row[mode] = {"ranks": ranks, "latency_ms": round(ms, 1)}
            s = scores[mode]
            s.add(row[mode])
            tokens = _token_ratio(engine, result.hits, read_file)
            if tokens is not None and tokens[1] > 0:
                s.tokens_returned.append(tokens[0])
                s.tokens_files.append(tokens[1])
                s.token_ratio.append(tokens[0] / tokens[1])
        per_task.append(row)
        say(f"  {task.id}: " + ", ".join(f"{m} ranks={row[m]['ranks']}" for m in modes))
    return {
        "kind": "golden",
        "modes": [scores[m].summary() for m in modes],
        "by_type": by_type(per_task, modes),
        "tasks": per_task,
    }
