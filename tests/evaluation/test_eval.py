"""The evaluation harness on a miniature localization file and a golden query file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.errors import InputError
from codecompass.evaluation import load_tasks, run_golden, run_localization
from codecompass.evaluation.metrics import all_within, ndcg_at, percentile, recall_at
from codecompass.evaluation.tune import Views, coordinate_ascent, evaluate, load_dump
from codecompass.search.rank import RankWeights
from tests.conftest import TinyEmbedder, git, make_git_repo

PARSER = '''def parse_config(text):
    """Read key = value lines into a dict."""
    return dict(line.split("=", 1) for line in text.splitlines())
'''
RENDER = '''def render_table(rows):
    """Draw rows as an ASCII table with borders."""
    return "\\n".join("|" + "|".join(r) + "|" for r in rows)
'''


def test_metrics() -> None:
    assert all_within(["a", "b", "c"], ["c", "a"], 3)
    assert not all_within(["a", "b", "c"], ["c", "a"], 2)
    assert not all_within(["a"], [], 1)
    assert recall_at([1, None, 4], 3) == pytest.approx(1 / 3)
    assert ndcg_at([1], 10) == 1.0 and ndcg_at([None], 10) == 0.0
    assert percentile([1, 2, 3, 4], 50) == 2.5


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str]:
    work = make_git_repo(tmp_path / "work", {"cfg/parser.py": PARSER})
    first = git(work, "rev-parse", "HEAD").strip()
    (work / "ui").mkdir()
    (work / "ui/table.py").write_text(RENDER, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "table")
    second = git(work, "rev-parse", "HEAD").strip()
    bare = tmp_path / "mini.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare, first, second


def test_localization_indexes_each_commit_and_scores_every_mode(
    history: tuple[Path, str, str], tmp_path: Path
) -> None:
    bare, first, second = history
    tasks_file = tmp_path / "mini.jsonl"
    rows = [
        {
            "instance_id": "mini-2",
            "repo": "acme/mini",
            "base_commit": second,
            "problem_statement": "render_table draws no borders around the rows",
            "gold_files": ["ui/table.py"],
            "gold_functions": ["ui/table.py::render_table"],
        },
        {
            "instance_id": "mini-1",
            "repo": "acme/mini",
            "base_commit": first,
            "problem_statement": "parse_config fails on lines with '=' in the value",
            "gold_files": ["cfg/parser.py"],
            "gold_functions": ["cfg/parser.py::parse_config"],
        },
    ]
    tasks_file.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    tasks = load_tasks(tasks_file).localization
    engine = Engine.for_repo(tmp_path, data_dir=tmp_path / "data", embedder=TinyEmbedder())[0]
    dump = tmp_path / "dump.jsonl"
    with engine, dump.open("w", encoding="utf-8") as out:
        with pytest.raises(InputError, match="--git acme/mini="):
            run_localization(engine, tasks, {})
        report = run_localization(
            engine, tasks, {"acme/mini": bare}, modes=("bm25", "hybrid+graph"), dump=out
        )
    # The older commit is indexed (and queried) first.
    assert [t["id"] for t in report["tasks"]] == ["mini-1", "mini-2"]
    assert report["indexing"]["commits"] == 2
    for summary in report["modes"]:
        assert summary["n"] == 2 and summary["file_acc@1"] == 100.0
        assert summary["function_acc@10"] == 100.0
        # The hits themselves, scored like the views.
        assert (summary["hits_file_acc@1"], summary["hits_function_acc@10"]) == (100.0, 100.0)
        assert 0 < summary["token_ratio"] <= 1.0
    first = report["tasks"][0]["hybrid+graph"]
    assert (first["hits_file@1"], first["hits_function@10"]) == (True, True)
    dumped = load_dump(dump)
    assert [t.id for t in dumped] == ["mini-1", "mini-2"]
    weights, views, metrics = coordinate_ascent(dumped, RankWeights(), rounds=1)
    assert metrics["file@1"] == 100.0 and isinstance(weights, RankWeights)
    assert metrics["function@10"] == 100.0 and views.file_support >= 0.0


def test_golden_queries(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "proj", {"cfg/parser.py": PARSER, "ui/table.py": RENDER})
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        json.dumps(
            {
                "query": "draw an ascii table with borders",
                "expected": [{"path": "ui/table.py", "symbol": "render_table"}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    engine, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    dump = tmp_path / "golden-dump.jsonl"
    with engine, dump.open("w", encoding="utf-8") as out:
        engine.index(root)
        report = run_golden(engine, load_tasks(golden).golden, modes=("hybrid",), dump=out)
        weights = engine.rank_weights()
        views = Views.of(engine.settings.search)
    summary = report["modes"][0]
    assert summary["recall@10"] == 100.0 and summary["mrr"] > 0
    # The tuner re-scores the dumped candidates exactly as the search ranked them.
    [task] = load_dump(dump)
    assert task.expected == (("ui/table.py", "render_table"),)
    offline = evaluate([task], weights, views)
    assert offline["golden@10"] == summary["recall@10"]
    assert offline["golden_rr"] == round(100 * summary["mrr"], 1)


def test_bad_task_lines_are_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="expected"):
        load_tasks(bad)
    # An empty query fails the file before anything runs, naming its line.
    ok = '{"query": "where is the token checked", "expected": ["app/auth.py"]}'
    for empty in ('{"query": "  ", "expected": ["a.py"]}', '{"problem_statement": "\\n"}'):
        bad.write_text(f"{ok}\n{empty}\n", encoding="utf-8")
        with pytest.raises(InputError, match=r"bad\.jsonl:2: the query is empty"):
            load_tasks(bad)


def test_merging_reports_recomputes_the_summary() -> None:
    from codecompass.evaluation.merge import merge

    def part(hit: bool) -> dict[str, object]:
        outcome = {"file@1": hit, "file@3": hit, "file@5": True, "function@5": None}
        outcome |= {"function@10": None, "latency_ms": 10.0, "tokens": [10, 100]}
        return {
            "reports": [
                {
                    "kind": "localization",
                    "modes": [{"mode": "hybrid"}],
                    "indexing": {
                        "commits": 1,
                        "seconds": 1.0,
                        "texts_embedded": 5,
                        "cache_hit_rate": 0.5,
                    },
                    "tasks": [{"id": str(hit), "hybrid": outcome}],
                }
            ]
        }

    merged = merge([part(True), part(False)])["reports"][0]
    summary = merged["modes"][0]
    assert (summary["n"], summary["file_acc@1"], summary["file_acc@5"]) == (2, 50.0, 100.0)
    assert summary["token_ratio"] == 0.1 and merged["indexing"]["commits"] == 2
    # A run against the index as it stood checked out no commit: it is not one to merge.
    proxy = part(True)
    proxy["reports"][0]["as_indexed"] = {"mini": "abc"}
    with pytest.raises(ValueError, match="--as-indexed"):
        merge([part(True), proxy])
