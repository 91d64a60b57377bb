"""Index progress: counts and an ETA from the first batch, on a terminal and in a log."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from codecompass.cli_progress import ProgressView, clock, progress_reporter
from codecompass.engine import Engine
from codecompass.indexing.pipeline import Progress
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder, make_git_repo


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_eta_is_the_work_left_at_the_rate_so_far() -> None:
    time = FakeClock()
    view = ProgressView("shop", now=time)
    assert view.line() == "indexing shop: listing files · 0:00:00 elapsed"
    progress = Progress(stage="files", files_total=40, bytes_total=4000)
    time.now += 2
    assert view.update(progress) is True  # a new stage
    assert view.eta() is None and view.line().endswith("ETA estimating")
    # 10 s later a quarter of the bytes is done: 30 s to go.
    progress.files_done, progress.bytes_done, progress.chunks = 9, 1000, 70
    time.now += 10
    assert view.update(progress) is False
    assert view.eta() == 30.0
    assert view.line() == (
        "indexing shop: 9/40 files (25.0%) · 70 chunks · 0:00:12 elapsed · ETA 0:00:30"
    )
    # Unchanged files leave the work: the share done counts only what needs doing.
    progress.skip(1000)
    assert progress.bytes_total == 3000 and progress.files_done == 10
    progress.stage = "graph"
    view.update(progress)
    assert view.line() == "indexing shop: 10/40 files · linking the code graph · 0:00:12 elapsed"
    # Vectors: a share of the chunks without one, timed from the stage's start.
    progress.stage = "vectors"
    time.now += 3
    assert view.update(progress) is True
    assert view.line() == "indexing shop: searchable now · checking vectors · 0:00:15 elapsed"
    progress.vectors_total = 400
    assert view.update(progress) is True  # counted: a log says so without waiting a tick
    assert view.update(progress) is False
    assert view.eta() is None
    progress.vectors_done, progress.embedded, progress.embed_seconds = 100, 96, 8.0
    time.now += 20
    view.update(progress)
    assert view.eta() == 60.0
    assert view.line() == (
        "indexing shop: searchable now · vectors 100/400 (25.0%) · 96 embedded (12/s) · "
        "0:00:35 elapsed · ETA 0:01:00"
    )
    # Then the similarity edges, which need the vectors (django: 14 s).
    progress.stage = "similar"
    time.now += 45
    assert view.update(progress) is True
    assert view.line() == "indexing shop: searchable now · linking similar code · 0:01:20 elapsed"


def test_clock() -> None:
    assert [clock(s) for s in (0, 59.6, 61, 3725)] == ["0:00:00", "0:01:00", "0:01:01", "1:02:05"]


def test_a_log_gets_a_line_at_each_stage_and_every_interval(tmp_path: Path) -> None:
    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(30)}
    repo = make_git_repo(tmp_path / "r", files)
    out = io.StringIO()
    engine = Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder())
    with engine, progress_reporter("r", out, terminal=False, interval=0.01) as report:
        engine.index(repo, on_progress=report)
    lines = out.getvalue().splitlines()
    counting = [line for line in lines if " files (" in line]
    assert counting[0].startswith("indexing r: 0/30 files (0.0%) · 0 chunks · 0:00:0")
    assert any(line.startswith("indexing r: searchable now · vectors ") for line in lines)
    assert any(
        line.startswith("indexing r: 30/30 files · linking the code graph") for line in lines
    )
    assert any(line.startswith("indexing r: searchable now · linking similar") for line in lines)
    assert all(line.startswith("indexing r: ") for line in lines)


def test_a_first_index_in_a_pipe_prints_progress(tmp_path: Path) -> None:
    # `codecompass index . 2>&1 | cat`: stderr is no terminal, progress still shows.
    repo = make_git_repo(tmp_path / "r", {"a.py": "def a():\n    return 1\n"})
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "codecompass",
            "index",
            str(repo),
            "--data-dir",
            str(tmp_path / "d"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    progress = [line for line in run.stderr.splitlines() if line.startswith("indexing r: ")]
    assert progress[0].startswith("indexing r: 0/1 files (0.0%)")
    assert progress[0].endswith("ETA estimating")
    assert "Indexed r in" in run.stdout
