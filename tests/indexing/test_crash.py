"""A `kill -9` in the middle of a real `codecompass index` run loses nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from codecompass.embedders.onnx import OnnxEmbedder
from codecompass.engine import Engine
from codecompass.protocols import Vectors
from tests.peek import vector_ids


def write_repo(root: Path, files: int) -> None:
    for i in range(files):
        package = root / f"pkg{i % 7}"
        package.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(
            f"def handler_{i}_{j}(request, retries={j}):\n"
            f'    """Handle request kind {i}-{j} with {j} retries."""\n'
            f"    total = {i} * {j} + len(request)\n"
            f"    return total + retries\n"
            for j in range(3)
        )
        (package / f"module_{i}.py").write_text(body, encoding="utf-8")


class StructureOnly:
    """The real tokenizer (so chunks come out the same) without computing vectors."""

    def __init__(self) -> None:
        self.real = OnnxEmbedder()
        self.model_id = "test:structure-only"
        self.dim = self.real.dim
        self.max_tokens = self.real.max_tokens

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.real.count_tokens(texts)


def chunk_rows(db: Path) -> set[tuple[str, int, int, str]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT path, start_line, end_line, text_hash FROM chunks WHERE status = 'active'"
        ).fetchall()
    finally:
        conn.close()
    return set(rows)


def count_rows(db: Path, table: str) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def test_kill_9_mid_run_then_rerun_leaves_a_consistent_index(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write_repo(repo, files=200)
    data = tmp_path / "data"
    db = data / "index.sqlite"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codecompass",
            "index",
            str(repo),
            "--data-dir",
            str(data),
            "--json",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    # The files of a run are committed at once, before any vector: a reader sees none
    # of them or all of them. The kill lands while the model fills in the vectors.
    deadline = time.monotonic() + 120
    seen: set[int] = set()
    while count_rows(db, "embeddings") == 0:
        seen.add(count_rows(db, "files"))
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the index run embedded nothing in 120 s"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert seen <= {0, 200}
    assert count_rows(db, "files") == 200
    cached = count_rows(db, "embeddings")

    reference, _ = Engine.for_repo(repo, data_dir=tmp_path / "clean", embedder=StructureOnly())
    with reference:
        texts = reference.index(repo).texts_embedded
    assert 0 < cached < texts, "the kill must land in the middle of the embedding"

    engine, _ = Engine.for_repo(repo, data_dir=data)
    with engine:
        stats = engine.index(repo)
        # Nothing parsed again, nothing embedded twice: the rerun picks up the vectors.
        assert (stats.unchanged, stats.new, stats.chunks_added) == (200, 0, 0)
        assert (stats.texts_cached, stats.texts_embedded) == (cached, texts - cached)
        active = [
            e.id for entries in engine.backend.chunks.chunk_entries().values() for e in entries
        ]
        assert sorted(vector_ids(engine)) == sorted(active)
        runs = [run.status for run in engine.backend.runs.runs(repo.name)]
        assert runs == ["interrupted", "ok"]
        hits = engine.search("handle request kind 17-2", k=3)
        assert hits[0].symbol == "handler_17_2"
    assert chunk_rows(db) == chunk_rows(tmp_path / "clean" / "index.sqlite")
