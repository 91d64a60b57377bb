"""Vectors in Qdrant: one collection per embedding model, shared by many workspaces.

Every point carries its workspace, and every read and delete filters on it. Filters
translate to Qdrant payload conditions; a path prefix becomes a match on `dirs` (every
directory prefix of the path, and the path itself), which is exact only for a whole
directory, so results are checked again with `ChunkFilter.matches` and the search
fetches more until enough pass.
"""

from __future__ import annotations

import re
import uuid
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from codecompass.errors import ConfigError
from codecompass.models import ChunkFilter
from codecompass.protocols import VectorRow, Vectors

POINT_NAMESPACE = uuid.UUID("6f1c1b8e-3f4a-5d2e-9c7b-0a4d2e8f1b35")
INDEXED = ("workspace", "repo", "language", "kind", "path", "dirs")
PAYLOAD = ["chunk_id", "repo", "path", "language", "kind"]  # what reads need back
BATCH = 256
PAGE = 1024


def open_qdrant_client(url: str, path: str, api_key: str | None) -> QdrantClient:
    """A client of the server at `url`, else of the local-mode folder at `path`."""
    if url:
        return QdrantClient(url=url, api_key=api_key)
    if path:
        return QdrantClient(path=path)
    raise ConfigError(
        "Qdrant vectors need a server or a folder: set [storage] qdrant_url "
        "(e.g. http://localhost:6333) or [storage] qdrant_path."
    )


def collection_name(prefix: str, model_id: str, dim: int) -> str:
    """E.g. `codecompass_all-minilm-l6-v2_onnx-int8_384` for all-MiniLM-L6-v2:onnx-int8."""
    return re.sub(r"[^a-z0-9_-]+", "_", f"{prefix}_{model_id}_{dim}".lower())


def point_id(workspace: str, chunk_id: str) -> str:
    return str(uuid.uuid5(POINT_NAMESPACE, f"{workspace}\0{chunk_id}"))


def directories(path: str) -> list[str]:
    """Every directory prefix of `path` with its trailing slash, then the path."""
    return [path[: i + 1] for i, ch in enumerate(path) if ch == "/"] + [path]


def _match(key: str, value: str) -> qm.FieldCondition:
    return qm.FieldCondition(key=key, match=qm.MatchValue(value=value))


def _under(prefix: str) -> list[qm.Condition]:
    """The `dirs` condition of the deepest directory in `prefix` (none without one)."""
    directory = prefix[: prefix.rfind("/") + 1]
    return [_match("dirs", directory)] if directory else []


def _passing_id(payload: dict[str, Any] | None, where: ChunkFilter) -> str | None:
    """The chunk id of a point `where` matches exactly, else None."""
    if payload is None or not where.matches(
        payload["repo"], payload["path"], payload["language"], payload["kind"]
    ):
        return None
    return str(payload["chunk_id"])


def _is_exact(where: ChunkFilter) -> bool:
    """Whether the Qdrant filter selects exactly what `where.matches` does."""
    prefixes = [where.path_prefix or ""] + [s.path_prefix for s in where.scopes or ()]
    return all(p == "" or p.endswith("/") for p in prefixes)


class QdrantVectorStore:
    """One workspace's chunk vectors in the Qdrant collection of its embedding model."""

    def __init__(
        self,
        client: QdrantClient,
        *,
        dim: int,
        model_id: str,
        workspace: str,
        prefix: str = "codecompass",
    ) -> None:
        self.client = client
        self.dim = dim
        self.workspace = workspace
        self.collection = collection_name(prefix, model_id, dim)
        self._ensure_collection()

    def _ensure_collection(self) -> None:
        if not self.client.collection_exists(self.collection):
            try:
                self.client.create_collection(
                    self.collection,
                    vectors_config=qm.VectorParams(size=self.dim, distance=qm.Distance.COSINE),
                )
            except Exception:
                if not self.client.collection_exists(self.collection):
                    raise  # not another process creating it at the same time
        info = self.client.get_collection(self.collection)
        params = info.config.params.vectors
        if not (
            isinstance(params, qm.VectorParams)
            and params.size == self.dim
            and params.distance == qm.Distance.COSINE
        ):
            raise ConfigError(
                f"Qdrant collection {self.collection!r} exists with other vectors than "
                f"{self.dim}-dimensional cosine ones ({params}); delete that collection, or "
                "point [storage] qdrant_url at another Qdrant."
            )
        with warnings.catch_warnings():
            # Local mode keeps no payload indexes and says so; a server builds them.
            warnings.simplefilter("ignore", UserWarning)
            for field in INDEXED:
                if field not in info.payload_schema:
                    self.client.create_payload_index(
                        self.collection, field, field_schema=qm.PayloadSchemaType.KEYWORD
                    )

    # -- filters ------------------------------------------------------------------------
    def _filter(self, where: ChunkFilter) -> qm.Filter:
        """The workspace's points `where` may match: exactly them when `_is_exact`."""
        must: list[qm.Condition] = [_match("workspace", self.workspace)]
        for key, value in (
            ("repo", where.repo),
            ("language", where.language),
            ("kind", where.kind),
        ):
            if value:
                must.append(_match(key, value))
        if where.path_prefix:
            must.extend(_under(where.path_prefix))
        should: list[qm.Condition] | None = None
        if where.scopes is not None:
            should = [
                qm.Filter(must=[_match("repo", s.repo), *_under(s.path_prefix)])
                for s in where.scopes
            ]
        return qm.Filter(must=must, should=should)

    def _scroll(self, condition: qm.Filter) -> Iterator[qm.Record]:
        offset: qm.ExtendedPointId | None = None
        while True:
            points, offset = self.client.scroll(
                self.collection,
                scroll_filter=condition,
                limit=PAGE,
                offset=offset,
                with_payload=PAYLOAD,
                with_vectors=False,
            )
            yield from points
            if offset is None:
                return

    # -- writing ------------------------------------------------------------------------
    def write(
        self,
        rows: Sequence[VectorRow],
        vectors: Vectors,
        delete: Sequence[str] | ChunkFilter = (),
    ) -> None:
        if isinstance(delete, ChunkFilter):
            self._delete_matching(delete)
        else:
            for start in range(0, len(delete), PAGE):
                ids = [point_id(self.workspace, cid) for cid in delete[start : start + PAGE]]
                self._delete_points(ids)
        points = [
            qm.PointStruct(
                id=point_id(self.workspace, row.id),
                vector=np.asarray(vector, dtype=np.float32).tolist(),
                payload={
                    "workspace": self.workspace,
                    "chunk_id": row.id,
                    "repo": row.repo,
                    "path": row.path,
                    "language": row.language,
                    "kind": row.kind,
                    "dirs": directories(row.path),
                },
            )
            for row, vector in zip(rows, vectors, strict=True)
        ]
        for start in range(0, len(points), BATCH):
            self.client.upsert(self.collection, points[start : start + BATCH], wait=True)

    def _delete_points(self, ids: Sequence[str]) -> None:
        condition = qm.Filter(
            must=[_match("workspace", self.workspace), qm.HasIdCondition(has_id=list(ids))]
        )
        self.client.delete(self.collection, qm.FilterSelector(filter=condition), wait=True)

    def _delete_matching(self, where: ChunkFilter) -> None:
        if where.scopes == ():
            return
        condition = self._filter(where)
        if _is_exact(where):
            self.client.delete(self.collection, qm.FilterSelector(filter=condition), wait=True)
            return
        doomed = [
            str(p.id) for p in self._scroll(condition) if _passing_id(p.payload, where) is not None
        ]
        for start in range(0, len(doomed), PAGE):
            self._delete_points(doomed[start : start + PAGE])

    def ids(self) -> list[str]:
        return [
            str(p.payload["chunk_id"])
            for p in self._scroll(self._filter(ChunkFilter()))
            if p.payload
        ]

    def count(self) -> int:
        found = self.client.count(
            self.collection, count_filter=self._filter(ChunkFilter()), exact=True
        )
        return int(found.count)

    def compact(self, *, force: bool = False) -> None:
        pass  # Qdrant's optimizers merge segments and build the HNSW index on their own.

    def clear(self) -> None:
        self.write([], np.zeros((0, 0), dtype=np.float32), delete=ChunkFilter())

    # -- searching ------------------------------------------------------------------------
    def search(self, queries: Vectors, k: int, where: ChunkFilter) -> list[tuple[str, float]]:
        """Each window's top `limit` by Qdrant, checked with `where.matches`; the limit
        doubles until every window has k passing points or has no more to give."""
        if k <= 0 or where.scopes == ():
            return []
        matrix = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        condition = self._filter(where)
        limit = k
        while True:
            responses = self.client.query_batch_points(
                self.collection,
                [
                    qm.QueryRequest(
                        query=q.tolist(), filter=condition, limit=limit, with_payload=PAYLOAD
                    )
                    for q in matrix
                ],
            )
            best: dict[str, float] = {}
            complete = True
            for response in responses:
                passed = 0
                for point in response.points:
                    cid = _passing_id(point.payload, where)
                    if cid is not None:
                        passed += 1
                        best[cid] = max(float(point.score), best.get(cid, -np.inf))
                if passed < k and len(response.points) == limit:
                    complete = False
            if complete:  # ties by id, as the other vector stores
                return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]
            limit *= 2

    def vectors_of(self, ids: Sequence[str]) -> dict[str, Vectors]:
        found: dict[str, Vectors] = {}
        for start in range(0, len(ids), PAGE):
            points = self.client.retrieve(
                self.collection,
                [point_id(self.workspace, cid) for cid in ids[start : start + PAGE]],
                with_payload=["workspace", "chunk_id"],
                with_vectors=True,
            )
            for p in points:
                if p.payload and p.payload["workspace"] == self.workspace:
                    found[str(p.payload["chunk_id"])] = np.asarray(p.vector, dtype=np.float32)
        return found
