"""The Qdrant vector store: the vectors conformance case in local mode (and on a server
when QDRANT_URL is set), workspaces sharing a collection, and filters that Qdrant's
payload conditions only approximate (checked again and over-fetched)."""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from codecompass.errors import ConfigError
from codecompass.models import ChunkFilter, ChunkRecord, Scope
from codecompass.protocols import Vectors
from codecompass.storage import Backend
from codecompass.storage.memory import MemoryVectorStore, open_memory
from codecompass.storage.qdrant import (
    QdrantVectorStore,
    collection_name,
    directories,
    open_qdrant_client,
)
from tests.storage.conformance import DIM, case_vectors, close, plain

# Local mode keeps no payload indexes and says so once per process.
NONE = np.zeros((0, DIM), np.float32)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[QdrantClient]:
    opened = open_qdrant_client("", str(tmp_path / "qdrant"), None)
    yield opened
    opened.close()


def qdrant_backend(client: QdrantClient, workspace: str, prefix: str = "codecompass") -> Backend:
    return dataclasses.replace(
        open_memory(),
        open_vectors=lambda dim: QdrantVectorStore(
            client, dim=dim, model_id="test-model", workspace=workspace, prefix=prefix
        ),
    )


def store(client: QdrantClient, workspace: str) -> QdrantVectorStore:
    return QdrantVectorStore(client, dim=DIM, model_id="test-model", workspace=workspace)


def unit(seed: int) -> Vectors:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def chunk(cid: str, repo: str, path: str, kind: str = "function") -> ChunkRecord:
    return ChunkRecord(
        id=cid,
        repo=repo,
        path=path,
        language="python",
        kind=kind,
        symbol=None,
        symbol_id=None,
        signature="",
        start_line=1,
        end_line=1,
        header="",
        text="",
        text_hash="",
        file_hash="",
        embed_key="",
        tokens=0,
    )


# -- conformance ----------------------------------------------------------------------
def untie(value: Any) -> Any:
    """`plain` answers with each run of (id, cosine) results whose cosines are equal up
    to float32 rounding put in id order. The case's "windows" search has such a tie: each
    window is a stored vector, so two chunks score 1.0, and the reference orders them by
    its float32 rounding (1.0000001 against 1.0), which Qdrant's arithmetic need not share.
    """
    if isinstance(value, dict):
        return {key: untie(v) for key, v in value.items()}
    if isinstance(value, list) and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], float)
        for p in value
    ):
        out: list[Any] = []
        run: list[Any] = []
        for pair in value:
            if run and abs(run[-1][1] - pair[1]) > 1e-6:
                out += sorted(run)
                run = []
            run.append(pair)
        return out + sorted(run)
    return value


def test_vectors_case_agrees_with_the_reference_in_local_mode(client: QdrantClient) -> None:
    expected = plain(case_vectors(open_memory()))
    found = plain(case_vectors(qdrant_backend(client, "w1")))
    close(untie(expected), untie(found), rel=1e-5)


@pytest.mark.skipif(
    not os.environ.get("QDRANT_URL"), reason="set QDRANT_URL to run against a Qdrant server"
)
def test_vectors_case_agrees_with_the_reference_on_a_server() -> None:
    server = open_qdrant_client(
        os.environ["QDRANT_URL"], "", os.environ.get("QDRANT_API_KEY") or None
    )
    backend = qdrant_backend(server, f"test-{uuid.uuid4().hex}", prefix="codecompass-test")
    try:
        expected = plain(case_vectors(open_memory()))
        close(untie(expected), untie(plain(case_vectors(backend))), rel=1e-5)
    finally:
        vectors = backend.vectors(DIM)
        vectors.write([], NONE, delete=ChunkFilter())
        assert vectors.ids() == []
        server.close()


# -- one collection, many workspaces ----------------------------------------------------
def test_workspaces_sharing_a_collection_never_see_each_other(client: QdrantClient) -> None:
    a, b = store(client, "w1"), store(client, "w2")
    assert a.collection == b.collection
    a.write(
        [chunk("x", "api", "src/x.py"), chunk("y", "api", "src/y.py")], np.stack([unit(1), unit(2)])
    )
    b.write(
        [chunk("x", "api", "src/x.py"), chunk("z", "web", "lib/z.ts")], np.stack([unit(3), unit(4)])
    )

    assert sorted(a.ids()) == ["x", "y"]
    assert sorted(b.ids()) == ["x", "z"]
    # Each query is exactly a point of the other workspace.
    assert {cid for cid, _ in a.search(unit(4), 10, ChunkFilter())} == {"x", "y"}
    assert {cid for cid, _ in b.search(unit(2), 10, ChunkFilter())} == {"x", "z"}
    assert a.search(unit(4), 10, ChunkFilter(repo="web")) == []
    assert sorted(a.vectors_of(["x", "y", "z"])) == ["x", "y"]
    np.testing.assert_allclose(a.vectors_of(["x"])["x"], unit(1), atol=1e-6)
    np.testing.assert_allclose(b.vectors_of(["x"])["x"], unit(3), atol=1e-6)

    a.write([], NONE, delete=ChunkFilter(repo="api"))
    assert a.ids() == []
    assert sorted(b.ids()) == ["x", "z"]
    a.write([chunk("x", "api", "src/x.py")], np.stack([unit(1)]))
    b.write([], NONE, delete=["x"])
    assert b.ids() == ["z"]
    assert a.ids() == ["x"]
    b.write([], NONE, delete=ChunkFilter())
    assert b.ids() == []
    assert a.ids() == ["x"]


def test_rewriting_a_chunk_overwrites_its_point(client: QdrantClient) -> None:
    s = store(client, "w1")
    s.write([chunk("x", "api", "old/x.py")], np.stack([unit(1)]))
    s.write([chunk("x", "api", "new/x.py")], np.stack([unit(2)]))
    s.write([chunk("x", "api", "new/x.py"), chunk("x", "api", "new/x.py")], np.stack([unit(2)] * 2))
    assert s.ids() == ["x"]
    assert client.count(s.collection, exact=True).count == 1
    np.testing.assert_allclose(s.vectors_of(["x"])["x"], unit(2), atol=1e-6)
    assert s.search(unit(2), 5, ChunkFilter(path_prefix="old/")) == []
    [(cid, cos)] = s.search(unit(2), 5, ChunkFilter(path_prefix="new/"))
    assert cid == "x"
    assert cos == pytest.approx(1.0, abs=1e-6)


# -- the collection ---------------------------------------------------------------------
def test_collection_is_named_after_the_model_and_created_once(client: QdrantClient) -> None:
    name = collection_name("codecompass", "all-MiniLM-L6-v2:onnx-int8", 384)
    assert name == "codecompass_all-minilm-l6-v2_onnx-int8_384"
    assert collection_name("cc", "BAAI/bge small.en", 8) == "cc_baai_bge_small_en_8"
    s = QdrantVectorStore(client, dim=8, model_id="BAAI/bge small.en", workspace="w", prefix="cc")
    assert s.collection == "cc_baai_bge_small_en_8"
    s.write([chunk("x", "api", "a.py")], np.stack([unit(1)]))
    again = QdrantVectorStore(
        client, dim=8, model_id="BAAI/bge small.en", workspace="w", prefix="cc"
    )
    assert again.ids() == ["x"]
    names = [c.name for c in client.get_collections().collections]
    assert names == ["cc_baai_bge_small_en_8"]
    params = client.get_collection(s.collection).config.params.vectors
    assert isinstance(params, qm.VectorParams)
    assert (params.size, params.distance) == (8, qm.Distance.COSINE)


def test_a_collection_of_another_dimension_is_refused(client: QdrantClient) -> None:
    client.create_collection(
        "codecompass_test-model_8",
        vectors_config=qm.VectorParams(size=4, distance=qm.Distance.COSINE),
    )
    with pytest.raises(ConfigError, match="codecompass_test-model_8"):
        store(client, "w1")


def test_a_client_needs_a_url_or_a_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[storage\] qdrant_url.*\[storage\] qdrant_path"):
        open_qdrant_client("", "", None)
    local = open_qdrant_client("", str(tmp_path / "q"), None)
    try:
        QdrantVectorStore(local, dim=DIM, model_id="m", workspace="w")
        assert (tmp_path / "q").is_dir()
        assert local.collection_exists("codecompass_m_8")
    finally:
        local.close()


def test_directories_of_a_path() -> None:
    assert directories("a/b/c.py") == ["a/", "a/b/", "a/b/c.py"]
    assert directories("c.py") == ["c.py"]


# -- filters Qdrant only approximates -----------------------------------------------------
QUERY = unit(0)


def near(n: int) -> Vectors:
    """A unit vector whose cosine with QUERY is 0.99 - n / 100."""
    other = unit(1000 + n)
    across = other - (other @ QUERY) * QUERY
    cos = 0.99 - n / 100
    v: Vectors = (cos * QUERY + np.sqrt(1 - cos**2) * across / np.linalg.norm(across)).astype(
        np.float32
    )
    return v


@pytest.fixture
def crowded(client: QdrantClient) -> tuple[QdrantVectorStore, MemoryVectorStore]:
    """Sixty chunks of "auth/" whose best matches for QUERY all lie outside "auth/m…",
    and a few elsewhere; the same rows in the reference store."""
    rows: list[ChunkRecord] = []
    for n in range(40):
        rows.append(chunk(f"t{n:02d}", "api", f"auth/token_{n}.py"))
    for n in range(40, 48):
        rows.append(chunk(f"m{n:02d}", "api", f"auth/models_{n}.py", "method"))
    for n in range(48, 56):
        rows.append(chunk(f"s{n:02d}", "api", f"auth/m/sub_{n}.py"))
    for n in range(56, 60):
        rows.append(chunk(f"w{n:02d}", "web", f"auth/misc_{n}.ts"))
    vectors = np.stack([near(n) for n in range(60)])
    qdrant, reference = store(client, "w1"), MemoryVectorStore(DIM)
    store(client, "w2").write(rows, vectors)  # the same points in another workspace
    qdrant.write(rows, vectors)
    reference.write(rows, vectors)
    return qdrant, reference


FILTERS = [
    ChunkFilter(path_prefix="auth/m"),
    ChunkFilter(path_prefix="auth/models_4"),
    ChunkFilter(path_prefix="auth/m/"),
    ChunkFilter(path_prefix="aut"),
    ChunkFilter(repo="api", path_prefix="auth/m", kind="method"),
    ChunkFilter(scopes=(Scope("api", "auth/mo"),)),
    ChunkFilter(scopes=(Scope("web", "auth/mi"), Scope("api", "auth/m/"))),
    ChunkFilter(scopes=(Scope("web", ""), Scope("api", "auth/models_45"))),
    ChunkFilter(path_prefix="auth/", scopes=(Scope("api", "auth/m"),)),
    ChunkFilter(path_prefix="auth/x"),
    ChunkFilter(scopes=()),
]


@pytest.mark.parametrize("where", FILTERS, ids=repr)
def test_partial_prefixes_and_scopes_match_exactly(
    crowded: tuple[QdrantVectorStore, MemoryVectorStore], where: ChunkFilter
) -> None:
    qdrant, reference = crowded
    windows = np.stack([QUERY, near(50)])
    for queries, k in ((QUERY, 3), (QUERY, 100), (windows, 4)):
        expected = reference.search(queries, k, where)
        found = qdrant.search(queries, k, where)
        assert [cid for cid, _ in found] == [cid for cid, _ in expected]
        close([cos for _, cos in expected], [cos for _, cos in found], rel=1e-5)


def test_the_first_page_would_have_missed_them(
    crowded: tuple[QdrantVectorStore, MemoryVectorStore],
) -> None:
    """What the test above relies on: the three best of "auth/" are none of "auth/m"."""
    _, reference = crowded
    best = reference.search(QUERY, 3, ChunkFilter(path_prefix="auth/"))
    assert [cid for cid, _ in best] == ["t00", "t01", "t02"]
    assert [cid for cid, _ in reference.search(QUERY, 3, ChunkFilter(path_prefix="auth/m"))] == [
        "m40",
        "m41",
        "m42",
    ]


@pytest.mark.parametrize("where", FILTERS, ids=repr)
def test_deleting_by_filter_deletes_exactly_what_matches(
    client: QdrantClient,
    crowded: tuple[QdrantVectorStore, MemoryVectorStore],
    where: ChunkFilter,
) -> None:
    qdrant, reference = crowded
    qdrant.write([], NONE, delete=where)
    reference.write([], NONE, delete=where)
    assert sorted(qdrant.ids()) == sorted(reference.ids())
    assert len(store(client, "w2").ids()) == 60
