"""Tune the ranking weights offline on a feature dump (`codecompass eval --dump-features`).

A dump holds, per task, every candidate's features and the gold labels, so re-scoring
it under other weights takes milliseconds: no index, no model. Localization tasks (issue
texts) and golden queries (short questions) can be tuned together, so that weights
fitted to one kind of query do not break the other. The search is coordinate ascent over
a small grid of values per feature, several rounds, starting from given weights. The
objective is the sum of file Acc@1/3/5 and function Acc@5/10 over localization tasks and
Recall@1/5/10 over golden ones (plus a fifth of the reciprocal ranks, to break ties), so
no single cut-off is overfitted. `--folds 2` tunes on one half and reports the other.
`--guard DUMP` (repeatable) takes a step only if it loses no task on that dump: tune on
many commit titles without losing a golden question.

    python -m codecompass.evaluation.tune dump.jsonl [more.jsonl …] [--start current|seed]
        [--guard golden.jsonl …]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from codecompass.evaluation.metrics import all_within, expected_ranks, recall_at, reciprocal_rank
from codecompass.search.rank import (
    FEATURES,
    SEED_000,
    RankWeights,
    file_scores,
    hit_ranking,
    raise_files,
    symbol_scores,
)
from codecompass.settings import SearchSettings

GRID = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0)
NEGATIVE_GRID = (0.0, -0.02, -0.05, -0.1, -0.2, -0.3, -0.5, -0.8, -1.0)
NEGATIVE = frozenset({"test", "stub", "doc", "short"})
# Freshness is left out: in an evaluation every file was indexed minutes apart, so the
# feature measures the evaluation run, not the repository.
# A score is only defined up to a positive factor, so cosine stays at its start value and
# anchors the scale.
FROZEN = frozenset({"freshness", "cosine"})
MAX_PER_FILE = 3  # hits per file, as `[search] max_per_file`
HITS = 10  # hits scored for golden queries
SYMBOLS = 10  # symbols scored for localization tasks (function Acc@10)
DOC = FEATURES.index("doc")  # the symbol view leaves documents out


@dataclass(frozen=True, slots=True)
class DumpTask:
    id: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...]
    paths: tuple[str, ...]
    symbols: tuple[str | None, ...]
    matrix: npt.NDArray[np.float64]  # candidates × FEATURES
    expected: tuple[tuple[str, str | None], ...] = ()  # a golden query's (path, symbol)
    tested: tuple[float, ...] = ()  # each candidate's file's test evidence (0 without)


def load_dump(path: Path) -> list[DumpTask]:
    tasks: list[DumpTask] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        cands = row["candidates"]
        tasks.append(
            DumpTask(
                id=row["id"],
                gold_files=tuple(row.get("gold_files", ())),
                gold_functions=tuple(row.get("gold_functions", ())),
                paths=tuple(c["path"] for c in cands),
                symbols=tuple(c["symbol"] for c in cands),
                matrix=np.array(
                    [[c["features"].get(f, 0.0) for f in FEATURES] for c in cands],
                    dtype=np.float64,
                ).reshape(len(cands), len(FEATURES)),
                expected=tuple((e["path"], e.get("symbol")) for e in row.get("expected", ())),
                tested=tuple(float(c.get("tested", 0.0)) for c in cands),
            )
        )
    return tasks


@dataclass(frozen=True, slots=True)
class Views:
    """The settings of the file and symbol views (`[search]` file_support, file_tested,
    symbol_file_weight, symbol_member_share and symbol_file_falloff), tuned together
    with the weights."""

    file_support: float = 0.3
    file_tested: float = 0.0
    symbol_file_weight: float = 1.0
    symbol_member_share: float = 0.0
    symbol_file_falloff: float = 0.0

    @classmethod
    def of(cls, search: SearchSettings) -> Views:
        return cls(
            search.file_support,
            search.file_tested,
            search.symbol_file_weight,
            search.symbol_member_share,
            search.symbol_file_falloff,
        )


def rankings(
    task: DumpTask, weights: RankWeights, views: Views = Views()
) -> tuple[list[str], list[str], list[tuple[str, str | None]]]:
    """The file view, the symbol view (`path::symbol`) and the hits these weights give,
    built as search builds them (hits in `rank.hit_ranking`'s order, capped per file;
    windows of one symbol count once; a symbol scored by its best chunk plus its file's
    weighted score; documents' sections in no symbol view)."""
    vector = np.array([getattr(weights, f) for f in FEATURES], dtype=np.float64)
    scores = (task.matrix @ vector).tolist()
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    totals = file_scores([(task.paths[i], scores[i]) for i in order], views.file_support)
    tested = task.tested or (0.0,) * len(task.paths)
    bonus = {p: views.file_tested * t for p, t in zip(task.paths, tested, strict=True) if t}
    files = [k for k, _ in raise_files(totals, bonus, task.paths[order[0]] if order else None)]
    values = symbol_scores(
        [(task.paths[i], s, scores[i]) for i in order if (s := task.symbols[i])],
        dict(totals),
        views.symbol_file_weight,
        views.symbol_member_share,
        views.symbol_file_falloff,
    )
    documents = {(task.paths[i], task.symbols[i]) for i in np.flatnonzero(task.matrix[:, DOC])}
    ranked = sorted((k for k in values if k not in documents), key=lambda k: -sum(values[k]))
    ranked = ranked[:SYMBOLS]
    ranking = hit_ranking(
        [(task.paths[i], task.symbols[i], scores[i]) for i in order],
        values,
        dict(totals),
        views.symbol_file_weight,
        views.symbol_file_falloff,
    )
    per_file: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    hits: list[tuple[str, str | None]] = []
    for index, _ in ranking:
        path, symbol = task.paths[order[index]], task.symbols[order[index]]
        if symbol:
            if (path, symbol) in seen:
                continue
            seen.add((path, symbol))
        if len(hits) < HITS and per_file.get(path, 0) < MAX_PER_FILE:
            per_file[path] = per_file.get(path, 0) + 1
            hits.append((path, symbol))
    return files, [f"{path}::{symbol}" for path, symbol in ranked], hits


GOLDEN_KS = (1, 5, 10)


def evaluate(
    tasks: Sequence[DumpTask], weights: RankWeights, views: Views = Views()
) -> dict[str, float]:
    """Localization accuracies over tasks with gold files, Recall@k over golden queries."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}

    def add(key: str, value: float) -> None:
        sums[key] = sums.get(key, 0.0) + value
        counts[key] = counts.get(key, 0) + 1

    for task in tasks:
        files, functions, hits = rankings(task, weights, views)
        if task.expected:
            ranks = expected_ranks(hits, task.expected)
            for k in GOLDEN_KS:
                add(f"golden@{k}", recall_at(ranks, k))
            add("golden_rr", reciprocal_rank(ranks))
            # The symbol view, on the queries that expect a symbol.
            named = [item for item in task.expected if item[1]]
            if named:
                view = [
                    (path, symbol) for path, _, symbol in (f.partition("::") for f in functions)
                ]
                ranks = expected_ranks(view, named)
                for k in GOLDEN_KS:
                    add(f"golden_symbols@{k}", recall_at(ranks, k))
            continue
        for k in (1, 3, 5):
            add(f"file@{k}", all_within(files, task.gold_files, k))
        add("file_rr", _all_found_rr(files, task.gold_files))
        if task.gold_functions:
            for k in (5, 10):
                add(f"function@{k}", all_within(functions, task.gold_functions, k))
            add("function_rr", _all_found_rr(functions, task.gold_functions))
    return {key: round(100 * sums[key] / counts[key], 1) for key in sums}


def _all_found_rr(ranked: Sequence[str], gold: Sequence[str]) -> float:
    """1 / the rank at which the last gold item appears (0 when one is missing)."""
    if not gold or any(g not in ranked for g in gold):
        return 0.0
    return 1.0 / (max(ranked.index(g) for g in gold) + 1)


def _cutoffs(metrics: dict[str, float]) -> dict[str, float]:
    """The accuracies and recalls at a cut-off (`file@5`, `golden@1`), not the ranks."""
    return {key: value for key, value in metrics.items() if "@" in key}


def objective(metrics: dict[str, float]) -> float:
    """The accuracies and recalls, plus a fifth of the reciprocal ranks to break ties."""
    rr = sum(v for k, v in metrics.items() if k.endswith("_rr"))
    return sum(v for k, v in metrics.items() if "@" in k) + 0.2 * rr


VIEW_GRIDS = {
    "file_support": (0.0, 0.1, 0.2, 0.3, 0.5),
    "file_tested": (0.0, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0),
    "symbol_file_weight": (0.0, 0.25, 0.5, 1.0, 2.0, 4.0),
    "symbol_member_share": (0.0, 0.5, 0.8, 0.9, 0.95, 1.0),
    "symbol_file_falloff": (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0),
}


def coordinate_ascent(
    tasks: Sequence[DumpTask],
    start: RankWeights,
    views: Views = Views(),
    rounds: int = 3,
    min_gain: float | None = None,
    only: frozenset[str] | None = None,
    guard: Sequence[Sequence[DumpTask]] = (),
) -> tuple[RankWeights, Views, dict[str, float]]:
    """Best weights and view settings found from `start`, with their metrics; with
    `only`, just those features and view settings move.

    A step must gain at least `min_gain` on the objective (default: one task on one
    accuracy), so that weights do not chase single-query noise, and must lose no task on
    any accuracy or recall of a `guard` set (the golden sets, the dev split): tuning on
    many short commit titles must not buy its gain with the questions we wrote."""
    gain = 100.0 / max(1, len(tasks)) if min_gain is None else min_gain
    best, best_views = start, views
    best_metrics = evaluate(tasks, best, best_views)
    floors = [_cutoffs(evaluate(g, start, views)) for g in guard]

    def better(metrics: dict[str, float], weights: RankWeights, views_: Views) -> bool:
        if objective(metrics) < objective(best_metrics) + gain - 1e-9:
            return False
        return all(
            all(
                value >= floor[key] - 1e-9
                for key, value in _cutoffs(evaluate(g, weights, views_)).items()
            )
            for g, floor in zip(guard, floors, strict=True)
        )

    for _ in range(rounds):
        improved = False
        for feature in FEATURES:
            if feature in FROZEN or (only is not None and feature not in only):
                continue
            for value in NEGATIVE_GRID if feature in NEGATIVE else GRID:
                trial = best.with_(**{feature: value})
                metrics = evaluate(tasks, trial, best_views)
                if better(metrics, trial, best_views):
                    best, best_metrics, improved = trial, metrics, True
        for name, grid in VIEW_GRIDS.items():
            if only is not None and name not in only:
                continue
            for value in grid:
                trial_views = replace(best_views, **{name: value})
                metrics = evaluate(tasks, best, trial_views)
                if better(metrics, best, trial_views):
                    best_views, best_metrics, improved = trial_views, metrics, True
        if not improved:
            break
    return best, best_views, best_metrics


def cross_validate(
    tasks: Sequence[DumpTask],
    start: RankWeights,
    views: Views,
    vary: frozenset[str],
    folds: int = 5,
    repeats: int = 3,
    seed: int = 0,
    guard: Sequence[Sequence[DumpTask]] = (),
) -> dict[str, Any]:
    """What tuning only `vary` (features or view settings) gains on tasks it did not
    see: for each of `repeats` shuffles, each fold is scored with the values tuned on the
    other folds, against `start` on the same fold. Returns the held-out change of each
    metric (mean and sd over the folds, in points) and the values each fold chose."""
    changes: dict[str, list[float]] = {}
    chosen: list[dict[str, float]] = []
    for repeat in range(repeats):
        shuffled = list(tasks)
        random.Random(seed + repeat).shuffle(shuffled)
        for fold in range(folds):
            test = shuffled[fold::folds]
            train = [t for i, t in enumerate(shuffled) if i % folds != fold]
            weights, fitted, _ = coordinate_ascent(train, start, views, only=vary, guard=guard)
            tuned, base = evaluate(test, weights, fitted), evaluate(test, start, views)
            for key in tuned:
                changes.setdefault(key, []).append(tuned[key] - base[key])
            values = {**weights.as_dict(), **asdict(fitted)}
            chosen.append({name: values[name] for name in sorted(vary)})
    return {
        "held_out_change": {
            key: {"mean": round(statistics.fmean(v), 2), "sd": round(statistics.pstdev(v), 2)}
            for key, v in changes.items()
        },
        "chosen": chosen,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dumps", type=Path, nargs="+")
    parser.add_argument("--start", choices=("seed", "current"), default="seed")
    parser.add_argument("--weights", type=Path, help="JSON of the weights to start from")
    parser.add_argument("--folds", type=int, default=0, help="2 = tune on half, test on half")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cv",
        metavar="NAME[,NAME…]",
        help="cross-validate tuning only these features / view settings (5 folds × 3)",
    )
    parser.add_argument(
        "--guard",
        type=Path,
        action="append",
        default=[],
        metavar="DUMP",
        help="a dump no step may lose a task on (repeat: one per golden set, the dev split)",
    )
    args = parser.parse_args(argv)
    tasks = [task for dump in args.dumps for task in load_dump(dump)]
    guard = [load_dump(dump) for dump in args.guard]
    start = SEED_000
    views = Views()
    if args.start == "current":
        s = SearchSettings()
        start = RankWeights.from_mapping({f: getattr(s, f"weight_{f}") for f in FEATURES})
        views = Views.of(s)
    if args.weights:  # the weights to start from; the views stay as `--start` set them
        start = RankWeights.from_mapping(json.loads(args.weights.read_text(encoding="utf-8")))
    print(json.dumps({"start": start.as_dict(), "metrics": evaluate(tasks, start, views)}))
    if args.cv:
        vary = frozenset(args.cv.split(","))
        report = cross_validate(tasks, start, views, vary, guard=guard)
        print(json.dumps({"cv": sorted(vary), **report}))
        return
    if args.folds >= 2:
        shuffled = list(tasks)
        random.Random(args.seed).shuffle(shuffled)
        half = len(shuffled) // 2
        for train, test in ((shuffled[:half], shuffled[half:]), (shuffled[half:], shuffled[:half])):
            weights, fitted, fit = coordinate_ascent(train, start, views, guard=guard)
            print(
                json.dumps(
                    {
                        "fold_train": fit,
                        "fold_test": evaluate(test, weights, fitted),
                        "start_on_test": evaluate(test, start, views),
                        "weights": weights.as_dict(),
                        "views": asdict(fitted),
                    }
                )
            )
    weights, fitted, metrics = coordinate_ascent(tasks, start, views, guard=guard)
    print(json.dumps({"tuned": weights.as_dict(), "views": asdict(fitted), "metrics": metrics}))


if __name__ == "__main__":
    main()
