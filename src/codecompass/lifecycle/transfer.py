"""Move a whole index between backends (embedded ↔ server) without embedding anything.

`export_index` writes one archive (a tar file) read through the storage protocols:

- `manifest.json`: format and version, embedding model and dimension, counts;
- `repos.jsonl`, `files.jsonl`, `symbols.jsonl`, `chunks.jsonl` (active chunks with
  their text), `facts.jsonl` (each file's graph facts);
- `vectors.npy` + `vector_keys.jsonl`: the embedding of every active chunk's text.

`import_index` writes the files in one transaction as an index run would, fills the
embedding cache and the vector store from the archive, then links the graph from the
imported facts (edges, dependencies and importance are derived data, rebuilt exactly).
Audit records and run history stay with the source.
"""

from __future__ import annotations

import io
import json
import tarfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from codecompass.errors import InputError, ModelMismatchError
from codecompass.indexing.pipeline import lexical_row, reconcile_vectors
from codecompass.models import (
    ChunkRecord,
    FactsQuery,
    FactsRecord,
    FileContent,
    FileRecord,
    FileWrite,
    RepoRecord,
    SymbolQuery,
    SymbolRecord,
    utc_now,
)
from codecompass.protocols import Embedder, Vectors
from codecompass.storage import Backend

FORMAT = "codecompass-index"
VERSION = 1
R = TypeVar("R")


def _jsonl(records: Iterable[Any]) -> bytes:
    return "".join(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in records).encode()


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    tar.addfile(info, io.BytesIO(data))


def export_index(backend: Backend, path: Path) -> dict[str, Any]:
    """Write the whole index to the archive `path`; return its manifest."""
    meta = backend.meta.meta()
    model, dim = meta.get("embedder_model"), int(meta.get("embedder_dim") or 0)
    if not model:
        raise InputError("This index has no embedding model recorded yet: index something first.")
    repos = backend.repos.repos()
    files = list(backend.files.files().values())
    symbols = backend.symbols.symbols(SymbolQuery())
    entries = [e for group in backend.chunks.chunk_entries().values() for e in group]
    chunks = backend.chunks.chunks([e.id for e in entries])
    ordered = [chunks[e.id] for e in entries if e.id in chunks]
    facts = [r for repo in repos for r in backend.facts.facts(FactsQuery(repo.id))]
    keys = list(dict.fromkeys(c.embed_key for c in ordered))
    cached = backend.cache.cached_vectors(model, keys)
    missing = [k for k in keys if k not in cached]
    if missing:
        raise InputError(
            f"{len(missing)} chunk texts have no embedding in the cache (an index run was "
            "interrupted?); run `codecompass index` once, then export again."
        )
    matrix = np.stack([cached[k] for k in keys]) if keys else np.zeros((0, dim), np.float32)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": utc_now(),
        "backend": backend.name,
        "model": model,
        "dim": dim,
        "format_version": meta.get("format_version"),
        "counts": {
            "repos": len(repos),
            "files": len(files),
            "symbols": len(symbols),
            "chunks": len(ordered),
            "facts": len(facts),
            "vectors": len(keys),
        },
    }
    vectors = io.BytesIO()
    np.save(vectors, matrix.astype(np.float32), allow_pickle=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with tarfile.open(partial, "w") as tar:
        _add(tar, "manifest.json", json.dumps(manifest, indent=2).encode())
        for name, records in (
            ("repos", repos),
            ("files", files),
            ("symbols", symbols),
            ("chunks", ordered),
            ("facts", facts),
        ):
            _add(tar, f"{name}.jsonl", _jsonl(records))
        _add(tar, "vector_keys.jsonl", "".join(json.dumps(k) + "\n" for k in keys).encode())
        _add(tar, "vectors.npy", vectors.getvalue())
    partial.replace(path)  # never a half-written archive under the final name
    return manifest


def _read(tar: tarfile.TarFile, name: str) -> bytes:
    try:
        member = tar.extractfile(name)
    except KeyError:
        member = None
    if member is None:
        raise InputError(f"The archive lacks {name}; it is not a Code Compass export.")
    return member.read()


def _jsonl_lines(data: bytes) -> list[str]:
    """JSON Lines split on "\n" only: `str.splitlines` also splits on U+2028, U+2029 and
    U+0085, which JSON leaves unescaped inside strings (chunk text may hold them)."""
    return [line for line in data.decode("utf-8").split("\n") if line]


def _records(tar: tarfile.TarFile, name: str, kind: type[R]) -> Iterator[R]:
    names = {f.name for f in fields(kind)}  # type: ignore[arg-type]
    for line in _jsonl_lines(_read(tar, f"{name}.jsonl")):
        values = json.loads(line)
        unknown = set(values) - names
        if unknown:
            raise InputError(f"{name}.jsonl has unknown fields {sorted(unknown)}.")
        yield kind(**values)


class _Model:
    """The archive's embedding model, for the vector store and the model check (the
    import embeds nothing, so no model runtime is loaded)."""

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id, self.dim, self.max_tokens = model_id, dim, 0

    def embed(self, texts: Any) -> Vectors:
        raise AssertionError("an import never embeds: every vector comes from the archive")

    def count_tokens(self, texts: Any) -> list[int]:
        raise AssertionError("an import never counts tokens")


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        with tarfile.open(path, "r") as tar:
            manifest: dict[str, Any] = json.loads(_read(tar, "manifest.json"))
    except (tarfile.TarError, OSError, ValueError) as exc:
        raise InputError(f"{path} is not a readable Code Compass export ({exc}).") from exc
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise InputError(
            f"{path} is not a Code Compass export of version {VERSION} "
            f"(found {manifest.get('format')} {manifest.get('version')})."
        )
    return manifest


def archive_repos(path: Path) -> list[str]:
    """The repositories an archive holds."""
    read_manifest(path)
    with tarfile.open(path, "r") as tar:
        return [r.id for r in _records(tar, "repos", RepoRecord)]


def import_index(
    backend: Backend, path: Path, roots: dict[str, str] | None = None
) -> tuple[dict[str, Any], Embedder]:
    """Load the archive `path` into `backend`; `roots` re-points repositories at their
    folders on this machine (repo → path). Returns the manifest and the archive's model
    (for the caller's vector store and graph link)."""
    manifest = read_manifest(path)
    model = _Model(str(manifest["model"]), int(manifest["dim"]))
    recorded = backend.meta.init_meta(
        {
            "format_version": str(manifest.get("format_version") or "1"),
            "embedder_model": model.model_id,
            "embedder_dim": str(model.dim),
        }
    )
    if (recorded["embedder_model"], recorded["embedder_dim"]) != (model.model_id, str(model.dim)):
        raise ModelMismatchError(
            f"The archive was embedded with {model.model_id} ({model.dim}-d) but this index "
            f"uses {recorded['embedder_model']} ({recorded['embedder_dim']}-d); import it into "
            "an empty data folder or workspace."
        )
    roots = roots or {}
    with tarfile.open(path, "r") as tar:
        repos = list(_records(tar, "repos", RepoRecord))
        unknown = set(roots) - {r.id for r in repos}
        if unknown:
            raise InputError(f"--root names repositories not in the archive: {sorted(unknown)}.")
        symbols: dict[tuple[str, str], list[SymbolRecord]] = {}
        for s in _records(tar, "symbols", SymbolRecord):
            symbols.setdefault((s.repo, s.path), []).append(s)
        chunks: dict[tuple[str, str], list[ChunkRecord]] = {}
        for c in _records(tar, "chunks", ChunkRecord):
            chunks.setdefault((c.repo, c.path), []).append(c)
        facts = {(f.repo, f.path): f for f in _records(tar, "facts", FactsRecord)}
        keys = [json.loads(line) for line in _jsonl_lines(_read(tar, "vector_keys.jsonl"))]
        matrix = np.load(io.BytesIO(_read(tar, "vectors.npy")), allow_pickle=False)
        files = list(_records(tar, "files", FileRecord))
    if len(keys) != len(matrix):
        raise InputError("The archive's vectors and their keys differ in number; export again.")
    backend.cache.cache_vectors(model.model_id, zip(keys, matrix, strict=True))
    for repo in repos:
        backend.repos.save_repo(replace(repo, root=roots.get(repo.id, repo.root)))
    writes: list[FileWrite] = []
    for f in files:
        key = (f.repo, f.path)
        own = symbols.get(key, [])
        names = {s.id: s.name for s in own}
        file_chunks = chunks.get(key, [])
        lexical = [
            lexical_row(c.path, c.text, c.symbol, names.get(c.symbol_id or "")) for c in file_chunks
        ]
        staged = facts.get(key)
        content = FileContent(
            own,
            file_chunks,
            lexical,
            replace(staged, linked=False, prev_defines=None, prev_interface=None)
            if staged is not None
            else None,
        )
        writes.append(FileWrite(f, content))
    backend.files.write_files(writes)
    reconcile_vectors(backend, backend.vectors(model.dim), model)
    return manifest, model
