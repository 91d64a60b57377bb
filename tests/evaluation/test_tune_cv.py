"""`tune --cv`: the held-out gain of tuning only the named weights."""

from __future__ import annotations

import numpy as np

from codecompass.evaluation.tune import (
    DumpTask,
    Views,
    coordinate_ascent,
    cross_validate,
    rankings,
)
from codecompass.search.rank import FEATURES, RankWeights


def _pair(task_id: str, gold: dict[str, float], decoy: dict[str, float]) -> DumpTask:
    """Two candidate functions in two files with these features: a decoy, and the gold."""
    row = dict.fromkeys(FEATURES, 0.0)
    return DumpTask(
        id=task_id,
        gold_files=("gold.py",),
        gold_functions=("gold.py::fix",),
        paths=("decoy.py", "gold.py"),
        symbols=("other", "fix"),
        matrix=np.array([[{**row, **features}[f] for f in FEATURES] for features in (decoy, gold)]),
    )


def _task(n: int, gold_has_message: bool) -> DumpTask:
    """The decoy has the better cosine; the gold one holds the quoted error message (when
    `gold_has_message`)."""
    return _pair(
        f"t{n}", {"cosine": 0.5, "message": 1.0 if gold_has_message else 0.0}, {"cosine": 0.6}
    )


def test_a_weight_that_helps_on_every_fold_shows_a_held_out_gain() -> None:
    tasks = [_task(n, gold_has_message=True) for n in range(10)]
    start = RankWeights().only("cosine").with_(cosine=1.0)
    report = cross_validate(tasks, start, Views(), frozenset({"message"}), folds=5, repeats=2)
    assert report["held_out_change"]["file@1"] == {"mean": 100.0, "sd": 0.0}
    assert report["held_out_change"]["function@5"] == {"mean": 0.0, "sd": 0.0}  # 2 functions
    assert len(report["chosen"]) == 10
    assert all(c["message"] >= 0.15 for c in report["chosen"])


def test_a_weight_no_task_needs_is_not_chosen() -> None:
    tasks = [_task(n, gold_has_message=False) for n in range(10)]
    start = RankWeights().only("cosine").with_(cosine=1.0)
    report = cross_validate(tasks, start, Views(), frozenset({"message"}), folds=5, repeats=1)
    assert report["held_out_change"]["file@1"] == {"mean": 0.0, "sd": 0.0}
    assert report["chosen"] == [{"message": 0.0}] * 5


def _tested_task(n: int) -> DumpTask:
    """Four files by chunk score, the gold one last; its test vouches for it (0.5)."""
    row = dict.fromkeys(FEATURES, 0.0)
    cosines = (0.9, 0.8, 0.7, 0.6)
    return DumpTask(
        id=f"t{n}",
        gold_files=("gold.py",),
        gold_functions=("gold.py::fix",),
        paths=("lead.py", "b.py", "c.py", "gold.py"),
        symbols=("lead", "b", "c", "fix"),
        matrix=np.array([[{**row, "cosine": c}[f] for f in FEATURES] for c in cosines]),
        tested=(0.0, 0.0, 0.0, 0.5),
    )


def test_the_tuner_ranks_files_with_their_test_evidence() -> None:
    task = _tested_task(0)
    start = RankWeights().only("cosine").with_(cosine=1.0)
    assert rankings(task, start, Views(file_support=0.0))[0] == [
        "lead.py",
        "b.py",
        "c.py",
        "gold.py",
    ]
    # 0.6 + 0.6 × 0.5 = 0.9 passes b and c, not the lead (the best chunk's file), which
    # only a total more than LEAD_MARGIN above its own passes.
    files, symbols, _ = rankings(task, start, Views(file_support=0.0, file_tested=0.6))
    assert files == ["lead.py", "gold.py", "b.py", "c.py"]
    assert symbols[0] == "lead.py::lead" and symbols[-1] == "gold.py::fix"  # views apart
    report = cross_validate(
        [_tested_task(n) for n in range(10)],
        start,
        Views(file_support=0.0),
        frozenset({"file_tested"}),
        folds=5,
        repeats=1,
    )
    assert report["held_out_change"]["file@3"] == {"mean": 100.0, "sd": 0.0}
    assert all(c["file_tested"] >= 0.3 for c in report["chosen"])


def test_a_guard_set_vetoes_a_step_that_loses_one_of_its_tasks() -> None:
    tasks = [_task(n, gold_has_message=True) for n in range(10)]
    start = RankWeights().only("cosine").with_(cosine=1.0)
    free, _, _ = coordinate_ascent(tasks, start, only=frozenset({"message"}))
    assert free.message >= 0.15
    # The guard's task is `_task`'s the other way round: the decoy holds the message.
    guard = [[_pair("g0", {"cosine": 0.6}, {"cosine": 0.5, "message": 1.0})]]
    # Any message weight above 0.1 puts the guard's decoy first; 0.1 or less helps no task.
    guarded, _, metrics = coordinate_ascent(tasks, start, only=frozenset({"message"}), guard=guard)
    assert guarded.message == 0.0
    assert metrics["file@1"] == 0.0
    report = cross_validate(
        tasks, start, Views(), frozenset({"message"}), folds=5, repeats=1, guard=guard
    )
    assert report["chosen"] == [{"message": 0.0}] * 5
