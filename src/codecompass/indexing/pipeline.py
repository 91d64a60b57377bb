"""The index pipeline: discover → read, redact and hash → parse → chunk → embed → store
→ link.

Only files whose content hash changed are parsed again (once: symbols, chunks and graph
facts come from one tree); only chunk texts the embedding cache has never seen are
embedded. Each file is written in one transaction of the catalog; vectors follow in
batches and are reconciled with the catalog at the end of every run, so a run killed at
any point is repaired by the next one. The link stage is the caller's (`IndexJob.link`):
indexing knows nothing of the graph beyond the facts it stages.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from codecompass.decoding import decode_text
from codecompass.gitexec import git_text
from codecompass.hashing import (
    canonical_text,
    chunk_id,
    hash_bytes,
    hash_text,
    symbol_content_hash,
)
from codecompass.indexing.chunk import ChunkDraft, ChunkLimits, chunk_file
from codecompass.indexing.discover import (
    MAX_EXAMPLES,
    Candidate,
    DiscoveryResult,
    DiscoveryRules,
    discover,
    read_candidate,
)
from codecompass.indexing.extract import extract_facts
from codecompass.indexing.facts import FACTS_VERSION
from codecompass.indexing.languages import language_for_path
from codecompass.indexing.parse import parse
from codecompass.models import (
    ChunkRecord,
    FactsRecord,
    FileContent,
    FileRecord,
    FileWrite,
    LexicalRow,
    RepoRecord,
    Symbol,
    SymbolRecord,
    utc_now,
)
from codecompass.protocols import Embedder, Vectors, VectorStore
from codecompass.security.secrets import redact_secrets
from codecompass.storage import Backend
from codecompass.tokens import code_tokens

STAGES = ("discover", "read", "parse", "chunk", "embed", "store", "vectors", "link")
# Files are parsed in groups so that embedding batches stay full across small files.
GROUP_TEXTS = 256


class FileSource(Protocol):
    """Where files come from when not from the work tree on disk (e.g. a git commit)."""

    @property
    def commit(self) -> str | None: ...

    def discover(self) -> DiscoveryResult: ...

    def read(self, candidate: Candidate, max_file_bytes: int) -> bytes | str:
        """The file's bytes, or a skip reason."""
        ...


@dataclass(slots=True)
class Progress:
    """What a run has done so far, reported as it goes. Work is measured in bytes of
    the files that need it (an unchanged file leaves the total), and the group of files
    being embedded counts by the share of its texts embedded, so the share done moves
    from the first batch. `stage`: discover, files, graph."""

    stage: str = "discover"
    files_total: int = 0
    files_done: int = 0
    chunks: int = 0
    embedded: int = 0
    embed_seconds: float = 0.0
    bytes_total: int = 0
    bytes_done: int = 0
    group_bytes: int = 0
    group_share: float = 0.0

    def skip(self, size: int) -> None:
        """A file that needed no work after all."""
        self.files_done += 1
        self.bytes_total -= size

    @property
    def share_done(self) -> float:
        if self.bytes_total <= 0:
            return 1.0 if self.files_done >= self.files_total else 0.0
        done = self.bytes_done + self.group_bytes * self.group_share
        return min(1.0, done / self.bytes_total)


@dataclass(slots=True)
class IndexStats:
    repo: str
    files_seen: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    renamed: int = 0
    removed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_examples: dict[str, list[str]] = field(default_factory=dict)  # first five a reason
    parse_errors: int = 0
    # Files with bytes invalid in their encoding, read as `codecompass.decoding` says;
    # each file's note is stored as its `decode_error`.
    decode_errors: int = 0
    decode_examples: list[str] = field(default_factory=list)  # the first five paths
    chunks_added: int = 0
    chunks_removed: int = 0
    texts_embedded: int = 0
    texts_cached: int = 0
    vectors_repaired: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    wall_seconds: float = 0.0
    commit: str | None = None
    graph: dict[str, Any] = field(default_factory=dict)  # what the link stage did

    def as_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__slots__}
        data["skipped"] = dict(sorted(self.skipped.items()))
        data["seconds"] = {k: round(v, 3) for k, v in self.seconds.items()}
        data["wall_seconds"] = round(self.wall_seconds, 3)
        return data


@dataclass(slots=True)
class IndexJob:
    """Everything one index run needs."""

    repo: str
    root: Path
    backend: Backend
    vectors: VectorStore
    embedder: Embedder
    rules: DiscoveryRules
    limits: ChunkLimits
    full: bool = False
    on_progress: Callable[[Progress], None] | None = None
    source: FileSource | None = None  # files from a git commit instead of the work tree
    link: Callable[[], dict[str, Any]] | None = None  # the link stage, run last


@dataclass(slots=True)
class _Pending:
    """A changed file, parsed and chunked, waiting for its vectors."""

    file: FileRecord
    content: FileContent


class _Timer:
    def __init__(self, seconds: dict[str, float], stage: str) -> None:
        self.seconds, self.stage = seconds, stage

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.seconds[self.stage] += time.perf_counter() - self.start


def index_repository(job: IndexJob) -> IndexStats:
    started = time.perf_counter()
    stats = IndexStats(repo=job.repo)
    backend = job.backend
    backend.repos.save_repo(RepoRecord(job.repo, str(job.root)))
    run_id = backend.runs.start_run(job.repo)
    progress = Progress()
    try:
        _run(job, stats, progress)
        if job.link is not None:
            progress.stage = "graph"
            if job.on_progress is not None:
                job.on_progress(progress)
            with _Timer(stats.seconds, "link"):
                stats.graph = job.link()
    except BaseException as exc:
        stats.wall_seconds = time.perf_counter() - started
        backend.runs.finish_run(
            run_id, "failed", stats.as_dict(), error=f"{type(exc).__name__}: {exc}"
        )
        raise
    stats.commit = job.source.commit if job.source is not None else git_head(job.root)
    backend.repos.save_repo(
        RepoRecord(job.repo, str(job.root), last_commit=stats.commit, last_indexed_at=utc_now())
    )
    stats.wall_seconds = time.perf_counter() - started
    backend.runs.finish_run(run_id, "ok", stats.as_dict())
    return stats


def _run(job: IndexJob, stats: IndexStats, progress: Progress) -> None:
    sec = stats.seconds
    files = job.backend.files
    with _Timer(sec, "discover"):
        found = job.source.discover() if job.source is not None else discover(job.root, job.rules)
    stats.skipped.update(found.skipped)
    stats.skipped_examples = {reason: list(paths) for reason, paths in found.examples.items()}
    stats.files_seen = len(found.files)
    stored = {path: f for (_, path), f in files.files(job.repo).items()}
    present = {c.path for c in found.files}
    gone = {p: f for p, f in stored.items() if p not in present}
    gone_hashes = {f.file_hash for f in gone.values()}
    rescued = _rescued_vectors(job)
    kept_hashes: set[str] = set()  # content of the files the repo holds after this run
    progress.files_total = len(found.files)
    progress.bytes_total = sum(c.size for c in found.files)
    progress.stage = "files"
    if job.on_progress is not None:
        job.on_progress(progress)

    group: list[_Pending] = []
    group_texts = 0
    for candidate in found.files:
        before = stored.get(candidate.path)
        if (
            not job.full
            and before is not None
            and before.size == candidate.size
            and before.mtime_ns == candidate.mtime_ns
        ):
            kept_hashes.add(before.file_hash)
            stats.unchanged += 1
            progress.skip(candidate.size)
            continue
        with _Timer(sec, "read"):
            loaded = _read(candidate, job.rules.max_file_bytes, job.source)
        if isinstance(loaded, str):
            stats.skipped[loaded] += 1
            shown = stats.skipped_examples.setdefault(loaded, [])
            if len(shown) < MAX_EXAMPLES:
                shown.append(candidate.path)
            if before is not None:
                gone[candidate.path] = before
            progress.skip(candidate.size)
            continue
        text, file_hash, decode_error = loaded
        kept_hashes.add(file_hash)
        if (
            not job.full
            and before is not None
            and before.file_hash == file_hash
            and before.decode_error == decode_error
        ):
            files.write_file(
                FileWrite(replace(before, size=candidate.size, mtime_ns=candidate.mtime_ns))
            )
            stats.unchanged += 1
            progress.skip(candidate.size)
            continue
        if before is not None:
            stats.changed += 1
        elif file_hash in gone_hashes:
            stats.renamed += 1
        else:
            stats.new += 1
        pending = _prepare(job, candidate, text, file_hash, sec)
        if pending.file.parse_error is not None:
            stats.parse_errors += 1
        if decode_error is not None:
            pending.file = replace(pending.file, decode_error=decode_error)
            stats.decode_errors += 1
            if len(stats.decode_examples) < MAX_EXAMPLES:
                stats.decode_examples.append(candidate.path)
        group.append(pending)
        group_texts += len(pending.content.chunks)
        if group_texts >= GROUP_TEXTS:
            _flush(job, group, stats, progress, rescued)
            group, group_texts = [], 0
    _flush(job, group, stats, progress, rescued)

    removed: list[str] = []
    for path in sorted(gone):
        moved = gone[path].file_hash in kept_hashes
        with _Timer(sec, "store"):
            dropped = files.remove_file(job.repo, path, "file_renamed" if moved else "file_removed")
        removed.extend(dropped)
        stats.removed += 1
        stats.chunks_removed += len(dropped)
    with _Timer(sec, "vectors"):
        if removed:
            job.vectors.write([], _NO_VECTORS, delete=removed)
        stats.vectors_repaired = reconcile_vectors(job.backend, job.vectors, job.embedder)
        if stats.chunks_added or stats.chunks_removed or stats.vectors_repaired:
            job.vectors.compact()
    if job.on_progress is not None:
        job.on_progress(progress)


_NO_VECTORS: Vectors = np.zeros((0, 0), dtype=np.float32)


def file_hash_on_disk(root: Path, path: str, max_file_bytes: int) -> str | None:
    """The hash an index run would record for this file now (None: gone or unreadable,
    or a file discovery would skip)."""
    absolute = root / path
    try:
        st = absolute.lstat()
    except OSError:
        return None
    loaded = _read(Candidate(path, absolute, st.st_size, st.st_mtime_ns), max_file_bytes)
    return None if isinstance(loaded, str) else loaded[1]


def _read(
    candidate: Candidate, max_file_bytes: int, source: FileSource | None = None
) -> tuple[str, str, str | None] | str:
    """The canonical text with its secrets redacted, file hash and decode problem (if
    any), or a skip reason."""
    if source is not None:
        data = source.read(candidate, max_file_bytes)
    else:
        data = read_candidate(candidate, max_file_bytes)
    if isinstance(data, str):
        return data
    decoded = decode_text(data)
    # Redacted once, here, so chunks, symbols, graph facts, the lexical index and the
    # embeddings never see a secret; redaction keeps every newline, so line numbers hold.
    # The hash is of the redacted text too: a hash of the original would let anyone with
    # the index test guesses of a short password against it.
    text = redact_secrets(canonical_text(decoded.text))[0]
    return text, hash_bytes(text.encode("utf-8")), decoded.problem


def _prepare(
    job: IndexJob, candidate: Candidate, text: str, file_hash: str, sec: dict[str, float]
) -> _Pending:
    repo, path, embedder = job.repo, candidate.path, job.embedder
    language = language_for_path(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    with _Timer(sec, "parse"):
        parsed = parse(text, language)
        facts = extract_facts(path, text, parsed)
        parsed.tree = None  # one parse served symbols, chunks and facts; free it
    with _Timer(sec, "chunk"):
        symbols = symbol_records(repo, path, parsed.symbols, lines)
        ids = {(row.qualified_name, row.start_line): row.id for row in symbols}
        drafts = chunk_file(lines, parsed, embedder.count_tokens, job.limits)
        headers = [embedding_header(d) for d in drafts]
        counts = embedder.count_tokens(
            [f"{h}\n{d.text}" for h, d in zip(headers, drafts, strict=True)]
        )
        chunks: list[ChunkRecord] = []
        lexical: list[LexicalRow] = []
        seen: set[str] = set()
        for draft, header, tokens in zip(drafts, headers, counts, strict=True):
            text_hash = hash_text(draft.text)
            cid = chunk_id(repo, path, draft.start_line, draft.end_line, text_hash)
            if cid in seen:
                continue
            seen.add(cid)
            symbol = draft.symbol
            chunks.append(
                ChunkRecord(
                    id=cid,
                    repo=repo,
                    path=path,
                    language=language,
                    kind=draft.kind,
                    symbol=symbol.qualified_name if symbol else None,
                    symbol_id=ids.get((symbol.qualified_name, symbol.start_line))
                    if symbol
                    else None,
                    signature=symbol.signature if symbol else "",
                    start_line=draft.start_line,
                    end_line=draft.end_line,
                    header=header,
                    text=draft.text,
                    text_hash=text_hash,
                    file_hash=file_hash,
                    embed_key=hash_text(f"{header}\n{draft.text}"),
                    tokens=tokens,
                )
            )
            qualified, name = (symbol.qualified_name, symbol.name) if symbol else (None, None)
            lexical.append(lexical_row(path, draft.text, qualified, name))
    record = FileRecord(
        repo=repo,
        path=path,
        language=language,
        size=candidate.size,
        mtime_ns=candidate.mtime_ns,
        file_hash=file_hash,
        line_count=len(lines),
        parse_error=parsed.error,
    )
    staged = FactsRecord(
        repo=repo,
        path=path,
        file_hash=file_hash,
        version=FACTS_VERSION,
        language=language,
        defines=tuple(sorted(s.id for s in symbols)),
        interface=facts.interface_key(),
        facts_json=facts.to_json(),
    )
    return _Pending(record, FileContent(symbols, chunks, lexical, staged))


def lexical_row(path: str, text: str, qualified: str | None, name: str | None) -> LexicalRow:
    """What the lexical index holds for a chunk: code-aware tokens of its symbol's
    qualified and simple names, of its path and of its text."""
    if qualified and not name:
        name = qualified.rsplit(".", 1)[-1]
    symbol_terms = f"{qualified} {name}" if qualified else ""
    return LexicalRow(
        " ".join(code_tokens(symbol_terms)),
        " ".join(code_tokens(path)),
        " ".join(code_tokens(text)),
    )


def embedding_header(draft: ChunkDraft) -> str:
    """The lines put before a chunk's code when it is embedded (the path comes first).

    The header names the kind and qualified name; windows after the first also repeat
    the signature and first doc line, which their code no longer shows.
    """
    s = draft.symbol
    header: list[str] = []
    if s is not None:
        label = f"{draft.kind} {s.qualified_name}"
        if draft.parts > 1:
            label += f" (part {draft.part}/{draft.parts})"
        header.append(label)
        if draft.part > 1:
            header.append(s.signature)
            if s.doc:
                header.append(s.doc.strip().split("\n", 1)[0])
    return "\n".join(header)


def embedding_text(chunk: ChunkRecord) -> str:
    """What the model reads for a chunk. The cache key (`embed_key`) leaves the path
    out, so a renamed or copied file re-uses its vectors."""
    if chunk.header:
        return f"{chunk.path}\n{chunk.header}\n{chunk.text}"
    return f"{chunk.path}\n{chunk.text}"


def symbol_records(
    repo: str, path: str, symbols: Sequence[Symbol], lines: Sequence[str]
) -> list[SymbolRecord]:
    rows: list[SymbolRecord] = []
    used: set[str] = set()
    for s in symbols:
        sid = f"{repo}/{path}#{s.qualified_name}"
        if sid in used:  # overloads, redefinitions, property setters
            sid = f"{sid}@{s.start_line}"
        used.add(sid)
        body = "\n".join(lines[s.start_line - 1 : s.end_line])
        rows.append(
            SymbolRecord(
                id=sid,
                repo=repo,
                path=path,
                name=s.name,
                qualified_name=s.qualified_name,
                kind=s.kind,
                signature=s.signature,  # from text `_read` redacted
                doc=s.doc,
                start_line=s.start_line,
                end_line=s.end_line,
                exported=s.exported,
                parent=s.parent,
                content_hash=symbol_content_hash(s.signature, s.doc, body),
            )
        )
    return rows


def _rescued_vectors(job: IndexJob) -> dict[str, Vectors]:
    """The vectors left in the vector store when the catalog holds no file at all (its
    database was lost or replaced): by chunk id, so that chunks that come back unchanged
    are not embedded again. Empty in every ordinary run."""
    if job.backend.files.files() or not job.vectors.count():
        return {}
    return job.vectors.vectors_of(job.vectors.ids())


def _flush(
    job: IndexJob,
    group: list[_Pending],
    stats: IndexStats,
    progress: Progress,
    rescued: dict[str, Vectors],
) -> None:
    if not group:
        return
    sec = stats.seconds
    texts: dict[str, str] = {}
    known: dict[str, Vectors] = {}
    for pending in group:
        for chunk in pending.content.chunks:
            texts.setdefault(chunk.embed_key, embedding_text(chunk))
            if chunk.id in rescued:  # same id: same repo, path, lines and text
                known[chunk.embed_key] = rescued[chunk.id]
    progress.group_bytes, progress.group_share = sum(p.file.size for p in group), 0.0
    found = _vectors_for(job, texts, stats, progress, known)
    progress.group_bytes = 0
    # Vectors are written once per group: each LanceDB write is a table version, and a
    # delete and an add per file made a 150-file step spend 30 s in version bookkeeping.
    # The catalog stays the truth; a crash before the write is repaired by
    # reconcile_vectors.
    removed: list[str] = []
    added: list[ChunkRecord] = []
    for pending in group:
        with _Timer(sec, "store"):
            change = job.backend.files.write_file(FileWrite(pending.file, pending.content))
        by_id = {chunk.id: chunk for chunk in pending.content.chunks}
        removed.extend(change.removed)
        added.extend(by_id[cid] for cid in change.added)
        stats.chunks_added += len(change.added)
        stats.chunks_removed += len(change.removed)
        progress.files_done += 1
        progress.bytes_done += pending.file.size
        progress.chunks += len(change.added)
    with _Timer(sec, "vectors"):
        matrix = np.stack([found[c.embed_key] for c in added]) if added else _NO_VECTORS
        job.vectors.write(added, matrix, delete=removed)
    if job.on_progress is not None:
        job.on_progress(progress)


def _vectors_for(
    job: IndexJob,
    texts: dict[str, str],
    stats: IndexStats,
    progress: Progress,
    known: dict[str, Vectors],
) -> dict[str, Vectors]:
    """Vectors for each cache key: from the cache, else from `known` (rescued from the
    vector store), else embedded now; the last two are cached."""
    embedder, cache = job.embedder, job.backend.cache
    keys = list(texts)
    found = cache.cached_vectors(embedder.model_id, keys)
    recovered = [(k, known[k]) for k in keys if k not in found and k in known]
    if recovered:
        cache.cache_vectors(embedder.model_id, recovered)
        found.update(recovered)
    missing = [k for k in keys if k not in found]
    stats.texts_cached += len(keys) - len(missing)
    step = 32  # progress is reported per step: the first ETA comes after one step
    for start in range(0, len(missing), step):
        part = missing[start : start + step]
        began = time.perf_counter()
        matrix = embedder.embed([texts[k] for k in part])
        elapsed = time.perf_counter() - began
        stats.seconds["embed"] += elapsed
        progress.embed_seconds += elapsed
        progress.embedded += len(part)
        stats.texts_embedded += len(part)
        progress.group_share = (start + len(part)) / len(missing)
        cache.cache_vectors(embedder.model_id, zip(part, matrix, strict=True))
        found.update(zip(part, matrix, strict=True))
        if job.on_progress is not None:
            job.on_progress(progress)
    return found


def reconcile_vectors(backend: Backend, vectors: VectorStore, embedder: Embedder) -> int:
    """Make the vector store hold exactly the active chunks; return rows fixed."""
    active = {
        entry.id: entry.embed_key
        for entries in backend.chunks.chunk_entries().values()
        for entry in entries
    }
    listed = vectors.ids()
    present = set(listed)
    extra = [cid for cid in present if cid not in active]
    # A chunk stored twice (a store without unique ids, written by two processes) is
    # deleted and written once more.
    doubled = [cid for cid, n in Counter(listed).items() if n > 1 and cid in active]
    extra += doubled
    missing = [cid for cid in active if cid not in present] + doubled
    chunks = backend.chunks.chunks(missing) if missing else {}
    if chunks:
        texts = {c.embed_key: embedding_text(c) for c in chunks.values()}
        found = backend.cache.cached_vectors(embedder.model_id, list(texts))
        absent = [k for k in texts if k not in found]
        if absent:
            matrix = embedder.embed([texts[k] for k in absent])
            backend.cache.cache_vectors(embedder.model_id, zip(absent, matrix, strict=True))
            found.update(zip(absent, matrix, strict=True))
        rows = list(chunks.values())
        vectors.write(rows, np.stack([found[c.embed_key] for c in rows]), delete=extra)
    elif extra:
        vectors.write([], _NO_VECTORS, delete=extra)
    return len(extra) + len(missing) - len(doubled)


def git_head(root: Path) -> str | None:
    return git_text(root, "rev-parse", "HEAD")
