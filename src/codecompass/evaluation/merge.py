"""Merge localization reports of disjoint task sets (e.g. one repository's commits split
over two processes and data folders) into one report with recomputed summaries.

    python -m codecompass.evaluation.merge a.json b.json --out all.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codecompass.evaluation.runner import ModeScores, localization_report


def merge(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    parts = [r for report in reports for r in report["reports"] if r["kind"] == "localization"]
    if not parts:
        raise ValueError("no localization report to merge")
    if any("as_indexed" in part for part in parts):
        raise ValueError("a run against the index as it stood (--as-indexed) is no per-commit run")
    modes = [m["mode"] for m in parts[0]["modes"]]
    scores = {mode: ModeScores(mode) for mode in modes}
    tasks: list[dict[str, Any]] = []
    indexing: dict[str, Any] = {"commits": 0, "seconds": 0.0, "texts_embedded": 0}
    cached = 0
    for part in parts:
        tasks.extend(part["tasks"])
        for key in ("commits", "seconds", "texts_embedded"):
            indexing[key] += part["indexing"][key]
        rate = part["indexing"]["cache_hit_rate"]
        embedded = part["indexing"]["texts_embedded"]
        cached += round(embedded * rate / (1 - rate)) if rate < 1 else 0
    for row in tasks:
        for mode in modes:
            scores[mode].add(row[mode])
    requested = cached + indexing["texts_embedded"]
    indexing["cache_hit_rate"] = round(cached / requested, 3) if requested else 0.0
    indexing["seconds"] = round(indexing["seconds"], 1)
    merged = localization_report(scores, tasks, indexing=indexing)
    return {"tasks_file": [r.get("tasks_file") for r in reports], "reports": [merged]}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Merge localization eval reports.")
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    loaded = [json.loads(p.read_text(encoding="utf-8")) for p in args.reports]
    merged = merge(loaded)
    args.out.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    for row in merged["reports"][0]["modes"]:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
