"""Tune the ranking weights offline on a feature dump (`codecompass eval --dump-features`).

A dump holds, per localization task, every candidate's features and the gold labels,
so re-scoring it under other weights takes milliseconds: no index, no model. The search
is coordinate ascent over a small grid of values per feature, several rounds, starting
from given weights. The objective is the sum of file Acc@1/3/5 and function Acc@5/10
(plus a fifth of the reciprocal rank at which all gold files / functions are found, to
break ties), so no single cut-off is overfitted. `--folds 2` tunes on one half and
reports the other.

    python -m codecompass.evaluation.tune dump.jsonl [--start current|seed] [--folds 2]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from codecompass.evaluation.metrics import all_within
from codecompass.search.hybrid import file_scores
from codecompass.search.rank import FEATURES, SEED_000, RankWeights

GRID = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0)
NEGATIVE_GRID = (0.0, -0.02, -0.05, -0.1, -0.2, -0.3, -0.5, -0.8, -1.0)
NEGATIVE = frozenset({"test", "doc"})
# Freshness is left out: in an evaluation every file was indexed minutes apart, so the
# feature measures the evaluation run, not the repository.
# A score is only defined up to a positive factor, so cosine stays at its start value and
# anchors the scale.
FROZEN = frozenset({"freshness", "cosine"})
MAX_PER_FILE = 3
FUNCTION_HITS = 30


@dataclass(frozen=True, slots=True)
class DumpTask:
    id: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...]
    paths: tuple[str, ...]
    symbols: tuple[str | None, ...]
    matrix: npt.NDArray[np.float64]  # candidates × FEATURES


def load_dump(path: Path) -> list[DumpTask]:
    tasks: list[DumpTask] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        cands = row["candidates"]
        tasks.append(
            DumpTask(
                id=row["id"],
                gold_files=tuple(row["gold_files"]),
                gold_functions=tuple(row["gold_functions"]),
                paths=tuple(c["path"] for c in cands),
                symbols=tuple(c["symbol"] for c in cands),
                matrix=np.array(
                    [[c["features"].get(f, 0.0) for f in FEATURES] for c in cands],
                    dtype=np.float64,
                ).reshape(len(cands), len(FEATURES)),
            )
        )
    return tasks


def rankings(
    task: DumpTask, weights: RankWeights, support: float = 0.0
) -> tuple[list[str], list[str]]:
    """The file ranking and the function ranking these weights give, as search builds
    them (hits capped per file; windows of one symbol count once)."""
    vector = np.array([getattr(weights, f) for f in FEATURES], dtype=np.float64)
    scores = (task.matrix @ vector).tolist()
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    files = [k for k, _ in file_scores([(task.paths[i], scores[i]) for i in order], support)]
    per_file: dict[str, int] = {}
    seen: set[tuple[str, str | None]] = set()
    functions: list[str] = []
    kept = 0
    for i in order:
        path, symbol = task.paths[i], task.symbols[i]
        if per_file.get(path, 0) >= MAX_PER_FILE or (symbol and (path, symbol) in seen):
            continue
        per_file[path] = per_file.get(path, 0) + 1
        kept += 1
        if symbol:
            seen.add((path, symbol))
            functions.append(f"{path}::{symbol}")
        if kept >= FUNCTION_HITS:
            break
    return files, list(dict.fromkeys(functions))


def evaluate(
    tasks: Sequence[DumpTask], weights: RankWeights, support: float = 0.0
) -> dict[str, float]:
    counts: dict[str, float] = dict.fromkeys(
        ("file@1", "file@3", "file@5", "function@5", "function@10", "file_rr", "function_rr"),
        0.0,
    )
    n_functions = 0
    for task in tasks:
        files, functions = rankings(task, weights, support)
        for k in (1, 3, 5):
            counts[f"file@{k}"] += all_within(files, task.gold_files, k)
        counts["file_rr"] += _all_found_rr(files, task.gold_files)
        if task.gold_functions:
            n_functions += 1
            for k in (5, 10):
                counts[f"function@{k}"] += all_within(functions, task.gold_functions, k)
            counts["function_rr"] += _all_found_rr(functions, task.gold_functions)
    out = {}
    for key, value in counts.items():
        n = n_functions if key.startswith("function") else len(tasks)
        out[key] = round(100 * value / n, 1) if n else 0.0
    return out


def _all_found_rr(ranked: Sequence[str], gold: Sequence[str]) -> float:
    """1 / the rank at which the last gold item appears (0 when one is missing)."""
    if not gold or any(g not in ranked for g in gold):
        return 0.0
    return 1.0 / (max(ranked.index(g) for g in gold) + 1)


def objective(metrics: dict[str, float]) -> float:
    """The five accuracies, plus a fifth of the two reciprocal ranks to break ties."""
    rr = metrics.get("file_rr", 0.0) + metrics.get("function_rr", 0.0)
    return sum(v for k, v in metrics.items() if "@" in k) + 0.2 * rr


SUPPORT_GRID = (0.0, 0.1, 0.2, 0.3, 0.5)


def coordinate_ascent(
    tasks: Sequence[DumpTask],
    start: RankWeights,
    rounds: int = 3,
    support: float = 0.0,
    min_gain: float | None = None,
) -> tuple[RankWeights, dict[str, float], float]:
    """Best weights (and file-view support) found from `start`, with their metrics.

    A step must gain at least `min_gain` on the objective (default: one task on one
    accuracy), so that weights do not chase single-query noise."""
    gain = 100.0 / max(1, len(tasks)) if min_gain is None else min_gain
    best = start
    best_metrics = evaluate(tasks, best, support)
    for _ in range(rounds):
        improved = False
        for feature in FEATURES:
            if feature in FROZEN:
                continue
            grid = NEGATIVE_GRID if feature in NEGATIVE else GRID
            for value in grid:
                trial = RankWeights(**{**best.as_dict(), feature: value})
                metrics = evaluate(tasks, trial, support)
                if objective(metrics) >= objective(best_metrics) + gain - 1e-9:
                    best, best_metrics, improved = trial, metrics, True
        for value in SUPPORT_GRID:
            metrics = evaluate(tasks, best, value)
            if objective(metrics) >= objective(best_metrics) + gain - 1e-9:
                support, best_metrics, improved = value, metrics, True
        if not improved:
            break
    return best, best_metrics, support


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--start", choices=("seed", "current"), default="seed")
    parser.add_argument("--weights", type=Path, help="JSON of weights to start from")
    parser.add_argument("--folds", type=int, default=0, help="2 = tune on half, test on half")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tasks = load_dump(args.dump)
    start = SEED_000
    if args.weights:
        start = RankWeights.from_mapping(json.loads(args.weights.read_text(encoding="utf-8")))
    elif args.start == "current":
        from codecompass.settings import SearchSettings

        s = SearchSettings()
        start = RankWeights.from_mapping({f: getattr(s, f"weight_{f}") for f in FEATURES})
    print(json.dumps({"start": start.as_dict(), "metrics": evaluate(tasks, start)}))
    if args.folds >= 2:
        shuffled = list(tasks)
        random.Random(args.seed).shuffle(shuffled)
        half = len(shuffled) // 2
        for train, test in ((shuffled[:half], shuffled[half:]), (shuffled[half:], shuffled[:half])):
            weights, fit, support = coordinate_ascent(train, start)
            print(
                json.dumps(
                    {
                        "fold_train": fit,
                        "fold_test": evaluate(test, weights, support),
                        "start_on_test": evaluate(test, start),
                        "weights": weights.as_dict(),
                        "file_support": support,
                    }
                )
            )
    weights, metrics, support = coordinate_ascent(tasks, start)
    print(json.dumps({"tuned": weights.as_dict(), "file_support": support, "metrics": metrics}))


if __name__ == "__main__":
    main()
