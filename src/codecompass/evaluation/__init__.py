"""Evaluation: golden queries and localization tasks scored against an `Engine`."""

from codecompass.evaluation.runner import (
    ABLATION_MODES,
    run_golden,
    run_localization,
    run_localization_as_indexed,
)
from codecompass.evaluation.tasks import GoldenTask, LocalizationTask, TaskFile, load_tasks

__all__ = [
    "ABLATION_MODES",
    "GoldenTask",
    "LocalizationTask",
    "TaskFile",
    "load_tasks",
    "run_golden",
    "run_localization",
    "run_localization_as_indexed",
]
