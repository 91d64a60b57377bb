"""Export an index and import it into another backend: the same files, chunks, vectors
and graph, the same search results, and not one text embedded again."""

from __future__ import annotations

import dataclasses
import tarfile
from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.errors import InputError, ModelMismatchError
from codecompass.models import EdgeQuery
from codecompass.settings import StorageSettings, load_settings
from tests.conftest import TinyEmbedder, make_git_repo
from tests.graph.helpers import add_fixture
from tests.pg import Cluster

QUERIES = ["get a user by id", "create an order", "admin statistics", "sdk client"]


def snapshot(engine: Engine) -> dict[str, object]:
    backend = engine.backend
    edges = backend.edges.edges(EdgeQuery())
    return {
        "repos": [(r.id, r.last_commit) for r in backend.repos.repos()],
        "counts": {r.id: backend.chunks.counts(r.id) for r in backend.repos.repos()},
        "edges": sorted((e.source, e.target, e.type, e.confidence, e.evidence_line) for e in edges),
        "hits": {
            q: [
                (h.repo, h.path, h.start_line, h.symbol, round(h.score, 6))
                for h in engine.search(q, k=8)
            ]
            for q in QUERIES
        },
    }


def test_embedded_to_server_and_back(tmp_path: Path, pg_cluster: Cluster) -> None:
    source = Engine(load_settings(tmp_path / "source"), embedder=TinyEmbedder())
    with source:
        add_fixture(source, tmp_path, "crossrepo/api", "api")
        add_fixture(source, tmp_path, "crossrepo/web", "web")
        expected = snapshot(source)
        manifest = source.export_index(tmp_path / "a.ccx")
    assert manifest["counts"]["repos"] == 2 and manifest["counts"]["vectors"] > 0
    assert not (tmp_path / "a.ccx.partial").exists()

    server_settings = dataclasses.replace(
        load_settings(tmp_path / "server"),
        storage=StorageSettings(
            backend="server", postgres_url=pg_cluster.url(), workspace="transfer"
        ),
    )
    importer = TinyEmbedder()
    with Engine(server_settings, embedder=importer) as server:
        result = server.import_index(tmp_path / "a.ccx")
        assert importer.embedded == []  # every vector came from the archive
        assert result["graph"]["resolved"] == sum(
            c["files"]
            for c in expected["counts"].values()  # type: ignore[union-attr]
        )
        assert snapshot(server) == {**expected, "hits": snapshot(server)["hits"]}
        assert snapshot(server)["hits"] == expected["hits"]
        assert importer.embedded == QUERIES * 3  # only the queries of the three snapshots
        assert [r.status for r in server.backend.runs.runs("api")] == ["ok"]
        with pytest.raises(InputError, match="already indexed here"):
            server.import_index(tmp_path / "a.ccx")
        server.export_index(tmp_path / "b.ccx")

    back = Engine(load_settings(tmp_path / "back"), embedder=TinyEmbedder())
    with back:
        back.import_index(tmp_path / "b.ccx")
        assert snapshot(back) == expected


def test_a_bad_archive_or_another_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "junk.ccx").write_bytes(b"not a tar file")
    with Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder()) as engine:
        with pytest.raises(InputError, match="not a readable Code Compass export"):
            engine.import_index(tmp_path / "junk.ccx")
        with tarfile.open(tmp_path / "empty.ccx", "w"):
            pass
        with pytest.raises(InputError, match="lacks manifest.json; it is not a Code Compass"):
            engine.import_index(tmp_path / "empty.ccx")

    source = Engine(load_settings(tmp_path / "source"), embedder=TinyEmbedder())
    with source:
        add_fixture(source, tmp_path, "crossrepo/web", "web")
        source.export_index(tmp_path / "web.ccx")

    class Other(TinyEmbedder):
        model_id = "test:other"

    with Engine(load_settings(tmp_path / "other"), embedder=Other()) as other:
        add_fixture(other, tmp_path, "crossrepo/api", "api2")
        with pytest.raises(ModelMismatchError, match="archive was embedded with test:tiny-hash-64"):
            other.import_index(tmp_path / "web.ccx")
        assert [r.id for r in other.backend.repos.repos()] == ["api2"]  # nothing written


def test_text_with_unicode_line_separators_survives_the_round_trip(tmp_path: Path) -> None:
    # JSON leaves U+2028 and U+2029 unescaped; reading the archive with
    # str.splitlines() cut such a record in two.

    body = 'NOTE = "one\u2028two\u2029three"\n\n\ndef f():\n    return NOTE\n'
    repo = make_git_repo(tmp_path / "odd", {"odd.py": body})
    with Engine(load_settings(tmp_path / "source"), embedder=TinyEmbedder()) as source:
        source.index(repo)
        source.export_index(tmp_path / "odd.ccx")
        before = snapshot(source)
    with Engine(load_settings(tmp_path / "copy"), embedder=TinyEmbedder()) as copy:
        copy.import_index(tmp_path / "odd.ccx")
        assert snapshot(copy) == before
        chunks = copy.backend.chunks
        ids = [e.id for e in chunks.chunk_entries([("odd", "odd.py")])[("odd", "odd.py")]]
        texts = [c.text for c in chunks.chunks(ids).values()]
        assert any("one\u2028two\u2029three" in t for t in texts)
