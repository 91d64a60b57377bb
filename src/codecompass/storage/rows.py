"""Rows to records and back, shared by the SQL backends (SQLite and PostgreSQL read the
same columns in the same order), and the item loop of `write_files` every backend uses."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from codecompass.models import (
    ChunkRecord,
    Edge,
    FactsRecord,
    FileChange,
    FileRemoval,
    FileWrite,
    LexicalRow,
    SymbolRecord,
)

CHUNK_FIELDS = [f.name for f in dataclasses.fields(ChunkRecord)]
CHUNK_COLUMNS = ", ".join(CHUNK_FIELDS)
SYMBOL_FIELDS = [f.name for f in dataclasses.fields(SymbolRecord)]
SYMBOL_COLUMNS = ", ".join(SYMBOL_FIELDS)
FILE_COLUMNS = (
    "repo, path, language, size, mtime_ns, file_hash, line_count, parse_error, indexed_at, "
    "decode_error"
)
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
