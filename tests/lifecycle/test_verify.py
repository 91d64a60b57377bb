"""`verify` finds each kind of planted damage and `verify --repair` fixes the repairable
ones, after which search answers as a clean index of the same files does."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from codecompass.engine import Engine
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder, make_git_repo
from tests.peek import peek, tamper

FILES = {
    "shop/models.py": "class Order:\n    def total(self):\n        return 0\n",
    "shop/service.py": (
        "from shop.models import Order\n\n\ndef place(items):\n"
        "    order = Order()\n    return order.total()\n"
    ),
    "shop/util.py": "def money(cents):\n    return cents / 100\n",
}
QUERIES = ["place an order", "order total", "money from cents"]


def _engine(data: Path) -> Engine:
    return Engine(load_settings(data), embedder=TinyEmbedder())


def _answers(engine: Engine) -> dict[str, list[tuple[str, int, str | None]]]:
    return {q: [(h.path, h.start_line, h.symbol) for h in engine.search(q, k=5)] for q in QUERIES}


def _edit(repo: Path, engine: Engine) -> None:
    path = repo / "shop/util.py"
    path.write_text(path.read_text(encoding="utf-8").replace("100", "1000"), encoding="utf-8")


def _delete_file(repo: Path, engine: Engine) -> None:
    (repo / "shop/util.py").unlink()


def _binary_now(repo: Path, engine: Engine) -> None:
    (repo / "shop/util.py").write_bytes(b"def money(cents):\0\n")


def _delete_vectors(repo: Path, engine: Engine) -> None:
    shutil.rmtree(engine.settings.data_dir / "vectors")


def _one_missing(repo: Path, engine: Engine) -> None:
    vectors = engine.backend.vectors(engine.embedder.dim)
    vectors.write([], np.zeros((0, 0), np.float32), delete=[vectors.ids()[0]])


def _one_stray(repo: Path, engine: Engine) -> None:
    entry = next(iter(engine.backend.chunks.chunk_entries().values()))[0]
    row = engine.backend.chunks.chunks([entry.id])[entry.id]
    stray = dataclasses.replace(row, id="stray-chunk")
    engine.backend.vectors(engine.embedder.dim).write([stray], engine.embedder.embed(["x"]))


def _dangling_edge(repo: Path, engine: Engine) -> None:
    tamper(
        engine,
        "UPDATE edges SET target = target || '_gone' WHERE rowid = (SELECT min(rowid) FROM "
        "edges WHERE type = 'calls' AND target LIKE '%#%' AND target_path IS NOT NULL)",
    )


def _lexical_row_lost(repo: Path, engine: Engine) -> None:
    tamper(
        engine,
        "DELETE FROM chunks_fts WHERE rowid = "
        "(SELECT min(rowid) FROM chunks WHERE status = 'active')",
    )


def _lexical_row_out_of_step(repo: Path, engine: Engine) -> None:
    tamper(
        engine,
        "UPDATE chunks_fts SET body = 'words of an older text' WHERE rowid = "
        "(SELECT max(rowid) FROM chunks WHERE status = 'active')",
    )


DAMAGE: dict[str, tuple[Callable[[Path, Engine], None], str, str]] = {
    "edited file": (_edit, "files", "shop/shop/util.py: changed on disk since indexed"),
    "deleted file": (_delete_file, "files", "shop/shop/util.py: gone from disk"),
    "file now binary": (_binary_now, "files", "shop/shop/util.py: now skipped (binary)"),
    "deleted vector folder": (_delete_vectors, "vectors", "active chunks without a vector"),
    "missing vector": (_one_missing, "vectors", "1 active chunks without a vector"),
    "stray vector": (_one_stray, "vectors", "1 vectors of no active chunk"),
    "dangling edge": (_dangling_edge, "edges", "1 calls edges point to a file or symbol"),
    "lost lexical row": (_lexical_row_lost, "lexical", "1 active chunks without a lexical row"),
    "lexical row out of step": (
        _lexical_row_out_of_step,
        "lexical",
        "1 lexical rows that differ from their chunk's text",
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_verify_finds_and_repairs(tmp_path: Path, damage: str) -> None:
    plant, check, problem = DAMAGE[damage]
    repo = make_git_repo(tmp_path / "shop", FILES)
    with _engine(tmp_path / "data") as engine:
        engine.index(repo)
        assert engine.verify().ok
        plant(repo, engine)
    with _engine(tmp_path / "data") as engine:
        report = engine.verify()
        assert not report.ok
        assert [(f.check, f.repairable) for f in report.findings] == [(check, True)]
        assert problem in report.findings[0].problem
        repaired = engine.verify(repair=True)
        assert repaired.ok and repaired.remaining == [] and repaired.repaired
        after = _answers(engine)
    with _engine(tmp_path / "clean") as clean:  # the same files, indexed from scratch
        clean.index(repo)
        assert _answers(clean) == after


def test_a_damaged_database_page_is_found_and_not_repaired_in_place(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "shop", FILES)
    with _engine(tmp_path / "data") as engine:
        engine.index(repo)
        pages = peek(engine, "PRAGMA page_count")[0][0]
        size = peek(engine, "PRAGMA page_size")[0][0]
    db = tmp_path / "data" / "index.sqlite"
    with db.open("r+b") as f:  # a page in the middle overwritten: a torn write
        f.seek(size * (pages // 2))
        f.write(b"\xff" * size)
    with _engine(tmp_path / "data") as engine:
        report = engine.verify(repair=True)
    assert not report.ok
    assert [f.check for f in report.findings] == ["database"]
    assert not report.findings[0].repairable
    # Which page the write hits decides whether the database still opens (its own
    # check finds the damage) or not (opening it fails): either way one finding.
    problem = report.findings[0].problem.lower()
    assert "aside" in problem and "codecompass index" in problem


def test_a_database_that_no_longer_opens_is_a_finding_not_a_traceback(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "shop", FILES)
    with _engine(tmp_path / "data") as engine:
        engine.index(repo)
    db = tmp_path / "data" / "index.sqlite"
    with db.open("r+b") as f:  # the header overwritten: "file is not a database"
        f.write(b"\xff" * 100)
    with _engine(tmp_path / "data") as engine:
        report = engine.verify(repair=True)
    assert [(f.check, f.repairable) for f in report.findings] == [("database", False)]
    assert "index.sqlite" in report.findings[0].problem
    assert "Move it aside" in report.findings[0].problem


def test_a_stray_lexical_row_is_found_and_not_repaired_in_place(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "shop", FILES)
    with _engine(tmp_path / "data") as engine:
        engine.index(repo)
        tamper(
            engine,
            "INSERT INTO chunks_fts(rowid, symbol, path, body) VALUES (99999, '', 'x', 'y')",
        )
        report = engine.verify()
    assert [(f.check, f.repairable) for f in report.findings] == [("lexical", False)]
    assert report.findings[0].problem.startswith("1 lexical rows of no active chunk")
