"""The same engine end to end on the server backends: index the same repositories into
the embedded default and into PostgreSQL (its own vectors, or Qdrant's local mode), and
every count, edge and search answer (hits, files, symbols, scores) is the same.

With Qdrant the cosines come from Qdrant (local mode computes them in float64 on its own
normalised copy), so scores agree to 1e-5 rather than exactly, and two near-equal
cosines may swap places in the dense retriever's own ranking (`why.dense.rank`)."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest

from codecompass.engine import Engine
from codecompass.models import EdgeQuery
from codecompass.settings import StorageSettings, load_settings
from tests.conftest import TinyEmbedder
from tests.graph.helpers import add_fixture
from tests.pg import Cluster

QUERIES = [
    "get a user by id",
    "create an order",
    "admin statistics",
    "sdk client",
    "requests.get users",
    "Client",
]


def snapshot(engine: Engine) -> dict[str, object]:
    backend = engine.backend
    return {
        "repos": [r.id for r in backend.repos.repos()],
        "counts": {r.id: backend.chunks.counts(r.id) for r in backend.repos.repos()},
        "edges": sorted(
            (e.source, e.target, e.type, e.confidence, e.evidence_path, e.evidence_line)
            for e in backend.edges.edges(EdgeQuery())
        ),
        "answers": {
            q: _without_generation(
                engine.retrieve(q, engine.search_options(k=8, subgraph=True)).as_dict()
            )
            for q in QUERIES
        },
        "callers": _without_generation(engine.callers("get_user", types=["http"]).as_dict()),
        "overview": engine.repo_overview(repo="api").as_dict(),
    }


def _without_generation(answer: dict[str, Any]) -> dict[str, Any]:
    """Generations are run ids: a server's sequence is shared by its workspaces."""
    assert isinstance(answer.pop("generation"), int)
    return answer


def index_both(engine: Engine, tmp: Path) -> dict[str, object]:
    add_fixture(engine, tmp, "crossrepo/api", "api")
    add_fixture(engine, tmp, "crossrepo/web", "web")
    return snapshot(engine)


@pytest.mark.parametrize("vectors", ["postgres", "qdrant"])
def test_server_backend_answers_like_the_embedded_one(
    tmp_path: Path, pg_cluster: Cluster, vectors: str
) -> None:
    with Engine(load_settings(tmp_path / "embedded"), embedder=TinyEmbedder()) as embedded:
        expected = index_both(embedded, tmp_path / "e")
    storage = StorageSettings(
        backend="server",
        postgres_url=pg_cluster.url(),
        workspace=f"e2e-{uuid.uuid4().hex[:8]}",
        qdrant_path=str(tmp_path / "qdrant") if vectors == "qdrant" else "",
    )
    settings = dataclasses.replace(load_settings(tmp_path / "server"), storage=storage)
    with Engine(settings, embedder=TinyEmbedder()) as server:
        found = index_both(server, tmp_path / "s")
        assert server.status()["backend"] == "server"
    tolerance = 1e-5 if vectors == "qdrant" else 0.0
    if vectors == "qdrant":
        expected, found = _without_dense_ranks(expected), _without_dense_ranks(found)
    differences = _diff(expected, found, tolerance=tolerance)
    assert differences == [], "\n".join(differences)


def _without_dense_ranks(value: object) -> object:
    if isinstance(value, dict):
        return {
            k: _without_dense_ranks(v)
            for k, v in value.items()
            if k != "dense" and not (k == "sources" and isinstance(v, dict))
        }
    if isinstance(value, list):
        return [_without_dense_ranks(v) for v in value]
    return value


def _diff(x: object, y: object, path: str = "", tolerance: float = 0.0) -> list[str]:
    if isinstance(x, float) and isinstance(y, float):
        return [] if abs(x - y) <= tolerance * max(1.0, abs(x)) else [f"{path}: {x!r} != {y!r}"]
    if type(x) is not type(y):
        return [f"{path}: {x!r} != {y!r}"]
    if isinstance(x, dict) and isinstance(y, dict):
        keys = sorted(set(x) | set(y))
        return [d for k in keys for d in _diff(x.get(k), y.get(k), f"{path}.{k}", tolerance)]
    if isinstance(x, list) and isinstance(y, list):
        out = [f"{path}: {len(x)} != {len(y)} items"] if len(x) != len(y) else []
        pairs = enumerate(zip(x, y, strict=False))
        return out + [d for i, (p, q) in pairs for d in _diff(p, q, f"{path}[{i}]", tolerance)]
    return [] if x == y else [f"{path}: {x!r} != {y!r}"]
