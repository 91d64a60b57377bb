"""Rows to records and back, shared by the SQL backends (SQLite and PostgreSQL read the
same columns in the same order), and the item loop of `write_files` every backend uses."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from codecompass.models import (
    ChunkRecord,
    Edge,
    FactsRecord,
    FileChange,
    FileRemoval,
    FileWrite,
    LexicalRow,
    MemoryRecord,
    MemoryType,
    RankGraph,
    SymbolRecord,
)
from codecompass.protocols import Vectors

CHUNK_FIELDS = [f.name for f in dataclasses.fields(ChunkRecord)]
CHUNK_COLUMNS = ", ".join(CHUNK_FIELDS)
SYMBOL_FIELDS = [f.name for f in dataclasses.fields(SymbolRecord)]
SYMBOL_COLUMNS = ", ".join(SYMBOL_FIELDS)
FILE_COLUMNS = (
    "repo, path, language, size, mtime_ns, file_hash, line_count, parse_error, indexed_at, "
    "decode_error, reader_version"
)
MEMORY_FIELDS = [
    "id", "type", "content", "content_hash", "tags", "source", "created", "updated",
    "last_accessed", "access_count", "salience", "expires_at",
]  # fmt: skip
MEMORY_COLUMNS = ", ".join(MEMORY_FIELDS)
FACTS_COLUMNS = (
    "repo, path, file_hash, version, language, defines, interface, facts, linked, "
    "prev_defines, prev_interface"
)


def edge_columns(evidence: str) -> str:
    """The columns `edge_record` reads; `evidence` is the column of the owning file."""
    return (
        f"source, target, type, weight, confidence, resolved, via, name, {evidence}, "
        "evidence_line, target_repo, target_path, target_line"
    )


def symbol_record(row: Sequence[Any]) -> SymbolRecord:
    values = dict(zip(SYMBOL_FIELDS, row, strict=True))
    values["exported"] = bool(values["exported"])
    return SymbolRecord(**values)


def facts_record(row: Sequence[Any]) -> FactsRecord:
    repo, path, file_hash, version, language, defines, interface, facts, linked, pdef, pint = row
    return FactsRecord(
        repo=str(repo),
        path=str(path),
        file_hash=str(file_hash),
        version=int(version),
        language=str(language),
        defines=tuple(json.loads(defines)),
        interface=str(interface),
        facts_json=str(facts),
        linked=bool(linked),
        prev_defines=tuple(json.loads(pdef)) if pdef is not None else None,
        prev_interface=None if pint is None else str(pint),
    )


def edge_record(row: Sequence[Any]) -> Edge:
    return Edge(
        source=str(row[0]),
        target=str(row[1]),
        type=str(row[2]),
        weight=float(row[3]),
        confidence=float(row[4]),
        resolved=bool(row[5]),
        via=str(row[6]),
        name=str(row[7]),
        evidence_path=row[8],
        evidence_line=row[9],
        target_repo=row[10],
        target_path=row[11],
        target_line=row[12],
    )


def apply_file_writes(
    writes: Sequence[FileWrite | FileRemoval],
    write_file: Callable[[FileWrite], FileChange],
    remove_file: Callable[[str, str, str], list[str]],
) -> list[FileChange]:
    """`FileCatalog.write_files` item by item (the caller holds the transaction)."""
    return [
        write_file(w)
        if isinstance(w, FileWrite)
        else FileChange(added=[], removed=remove_file(w.repo, w.path, w.reason))
        for w in writes
    ]


# The meta key that records what the stored importance was computed from.
IMPORTANCE_INPUTS = "importance_inputs"


def rank_graph(
    symbols: Sequence[tuple[Any, ...]],
    files: Sequence[tuple[Any, ...]],
    edges: Sequence[tuple[Any, ...]],
    inputs: str | None,
) -> RankGraph:
    """The RankGraph of SQL rows: symbols `(id, repo, kind, exported)` and files
    `(repo/path, repo)`, each sorted by id, and edges `(source, target, type, strength)`."""
    return RankGraph(
        nodes=[(str(i), str(r), str(k), bool(x)) for i, r, k, x in symbols]
        + [(str(i), str(r), "file", False) for i, r in files],
        edges=[(str(a), str(b), str(t), float(w)) for a, b, t, w in edges],
        importance_inputs=inputs or "",
    )


# The lexical columns' weights, as the embedded backend's bm25(chunks_fts, 4, 2, 1).
COLUMN_WEIGHTS = (4.0, 2.0, 1.0)  # symbol, path, body


def postings(row: LexicalRow) -> tuple[dict[str, float], int]:
    """Weighted term frequencies of a chunk's lexical row, and its length in tokens."""
    freqs: dict[str, float] = {}
    length = 0
    for weight, column in zip(COLUMN_WEIGHTS, (row.symbol, row.path, row.body), strict=True):
        tokens = column.split()
        length += len(tokens)
        for token, n in Counter(tokens).items():
            freqs[token] = freqs.get(token, 0.0) + weight * n
    return freqs, length


# -- memories ---------------------------------------------------------------------------
def memory_row(r: MemoryRecord) -> tuple[Any, ...]:
    """The values of `MEMORY_COLUMNS` (tags as JSON text)."""
    return (
        r.id,
        r.type,
        r.content,
        r.content_hash,
        json.dumps(list(r.tags)),
        r.source,
        r.created,
        r.updated,
        r.last_accessed,
        int(r.access_count),
        float(r.salience),
        r.expires_at,
    )


def memory_record(row: Sequence[Any], links: Sequence[str], vector: Any) -> MemoryRecord:
    """A record from the values of `MEMORY_COLUMNS`, its links in order, and its vector
    (float32 bytes, or None)."""
    return MemoryRecord(
        id=str(row[0]),
        type=cast(MemoryType, str(row[1])),
        content=str(row[2]),
        content_hash=str(row[3]),
        tags=tuple(json.loads(row[4])),
        source=str(row[5]),
        links=tuple(links),
        created=str(row[6]),
        updated=str(row[7]),
        last_accessed=row[8],
        access_count=int(row[9]),
        salience=float(row[10]),
        expires_at=row[11],
        vector=None if vector is None else np.frombuffer(bytes(vector), dtype=np.float32).copy(),
    )


def memory_vectors(records: Sequence[MemoryRecord]) -> list[Vectors | None]:
    """Each record's vector as a new float32 array (None: keep the stored one), checked
    before anything is written: ValueError for an id given twice or a vector that is not
    a non-empty 1-D array of finite numbers."""
    seen: set[str] = set()
    out: list[Vectors | None] = []
    for r in records:
        if r.id in seen:
            raise ValueError(f"Memory {r.id!r} is written twice in one call; write it once.")
        seen.add(r.id)
        if r.vector is None:
            out.append(None)
            continue
        vector = np.array(r.vector, dtype=np.float32)
        if vector.ndim != 1 or not vector.size or not np.isfinite(vector).all():
            raise ValueError(
                f"The vector of memory {r.id!r} must be a non-empty 1-D array of finite "
                f"numbers (got shape {vector.shape})."
            )
        out.append(vector)
    return out


def missing_vector(memory_id: str) -> ValueError:
    """The error of a record written without a vector where none is stored."""
    return ValueError(
        f"Memory {memory_id!r} has no vector and none is stored under its id (it is new, "
        "or deleted by the same write); write it with its vector."
    )
