"""Index the graph fixture repositories (tests/fixtures/graph/<language>) with the tiny
embedder, and read edges back in a shape tests can compare exactly."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TypeVar

from codecompass.engine import Engine
from codecompass.models import EdgeQuery
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "graph"
LINK_TYPES = ("calls", "imports", "extends", "implements", "references", "http", "package")

Edge = tuple[str, str, str, float, int]  # source, target, type, confidence, evidence line


def workspace(tmp_path: Path) -> Engine:
    return Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder())


def add_fixture(engine: Engine, tmp_path: Path, fixture: str, name: str) -> Path:
    """Copy a fixture repository under tmp_path (so tests may edit it) and index it."""
    repo = tmp_path / name
    shutil.copytree(FIXTURES / fixture, repo)
    engine.add_repo(repo, name=name)
    return repo


def repo_edges(
    tmp_path: Path, name: str, files: dict[str, str], types: tuple[str, ...] = LINK_TYPES
) -> set[Edge]:
    """Write `files` as the repository `name`, index it alone and read its edges."""
    write(tmp_path / name, files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / name, name=name)
        return edges(engine, types)


def edges(engine: Engine, types: tuple[str, ...] = LINK_TYPES) -> set[Edge]:
    found = engine.backend.edges.edges(EdgeQuery(types=list(types)))
    return {(e.source, e.target, e.type, e.confidence, int(e.evidence_line or 0)) for e in found}


T = TypeVar("T")

# type, source, target, name, confidence, via, evidence line, the target's repo/path:line
TypedLink = tuple[str, str, str, str, float, str, int, str]


def recall(found: set[T], expected: set[T]) -> float:
    """The share of the expected links found."""
    return len(found & expected) / len(expected)


def typed_links(engine: Engine, types: tuple[str, ...]) -> set[TypedLink]:
    """Links of these types with the evidence of both ends (each end must have one)."""
    rows = set()
    for e in engine.backend.edges.edges(EdgeQuery(types=list(types))):
        assert e.evidence_line is not None and e.target_line is not None and e.target_path
        rows.add((e.type, e.source, e.target, e.name, e.confidence, e.via, e.evidence_line,
                  f"{e.target_repo}/{e.target_path}:{e.target_line}"))  # fmt: skip
    return rows


def write(root: Path, files: dict[str, str]) -> Path:
    """Write `files` (relative path → text) under `root`; return `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
