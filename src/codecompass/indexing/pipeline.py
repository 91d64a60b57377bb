"""The index pipeline: discover → read, redact and hash → parse → chunk → store → link
→ vectors.

Only files whose content hash changed are parsed again (once: symbols, chunks and graph
facts come from one tree); only chunk texts the embedding cache has never seen are
embedded. The files of a run are written to the catalog in one transaction, so readers
see the tree old or new, never a mix, and can search it (lexical and graph) at once.
Vectors come last, in batches, reconciled with the catalog: a run killed at any point
is finished by the next one, and the model's work so far is kept in the embedding
cache. The link stage is the caller's (`IndexJob.link`): indexing knows nothing of the
graph beyond the facts it stages.
"""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from codecompass.decoding import decode_text
from codecompass.gitexec import git_text, run_git
from codecompass.hashing import (
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
from codecompass.indexing.parse import parse_file
from codecompass.indexing.treesitter import grammar_missing
from codecompass.models import (
    ChunkRecord,
    FactsRecord,
    FileContent,
    FileRecord,
    FileRemoval,
    FileWrite,
    LexicalRow,
    RepoRecord,
    Symbol,
    SymbolRecord,
    utc_now,
)
from codecompass.protocols import Embedder, Vectors, VectorStore
from codecompass.security.secrets import stored_text
from codecompass.storage import Backend
from codecompass.tokens import code_tokens

STAGES = ("discover", "read", "parse", "chunk", "store", "link", "embed", "vectors")
# Bumped whenever reading, parsing or chunking changes what an unchanged file stores (its
# symbols, chunks or lexical rows): a file another version stored is read again by the
# next ordinary run, so an upgrade needs no `--full`. 1: notebooks read through their
# cells, the first version recorded (files of earlier versions hold 0). 2: Swift computed
# properties are methods; the comments above a body's first statement are its doc (Ruby).
# 3: C# properties with code are methods. 4: Kotlin properties with accessor bodies too.
# 5: C# and Dart operators are methods (`operator==`). 6: `.rockspec` files are Lua.
# 7: Dart's named, `const` and `factory` constructors are named as written. 8: a script
# without an extension is read in the language its `#!` line names. 9: signatures leave
# their comments out. 10: an exported JavaScript binding a call makes is a symbol. 11: a
# `.h` header is read as C++ or Objective-C when its code is. 12: C and C++ read past
# attribute-like macros (`FMT_CONSTEXPR`, `class LEVELDB_EXPORT Slice`). 13: C# read past
# conditional directives inside declarations; C/C++ signatures without those macros;
# Objective-C read past macros too (`NS_ASSUME_NONNULL_BEGIN`). 14: a function-like
# C/C++ macro's signature is its head (`#define MAX(a, b)`), not its whole body. 15: an
# Objective-C method read past an availability macro after its last parameter. 16: a C++
# function written `Class::name` for a class of another file is a method. 17: a type
# parameter list wrapped over lines reads `create<T extends X>(`, not `create< T …`.
# 18: an Elixir `defimpl` is a module (`Proto.Type`) holding its functions. 19: Haskell
# signatures without their arguments' Haddock comments; a module's first declaration
# keeps the comment above it. 20: a function's signature ends at its `=` (Julia's one-line
# functions, Haskell's equations without a type signature) or its `, do:` (Elixir). 21:
# Julia's one-line functions typed or with `where` (`f(x)::T = …`) are functions. 22: a
# `.t` file is Perl when its code is; R Markdown and Quarto (`.Rmd`, `.qmd`) are Markdown.
# 23: a Perl sub after `package Name;` is `Name::sub`. 24: an Objective-C file's C
# function returning a pointer is a function (`static NSArray *f(…)`). 25: `.podspec`,
# fastlane's `Fastfile` and the like are Ruby, `.psd1` manifests PowerShell. 26: a Perl
# `sub name;` (a forward declaration) is no symbol. 27: PowerShell's comment-based help
# is its function's doc. 28: a Nix function's signature ends at its last parameter
# (`pipe = val: functions:`). 29: banner lines (`!*****`, `-- ====`) are no doc text.
# 30: SQL read past dbt's Jinja; common table expressions are symbols. 31: a Python
# file that is not UTF-8 is read in the encoding its coding comment declares (PEP 263).
# 32: a file that is not valid UTF-8 and holds a NUL or many control characters is binary.
# 33: a `.txt` file that reads as reStructuredText is read as such (Django's docs).
# 34: numpy's C templates (`loops.c.src`) are read as C. 35: `.mdx` pages are Markdown.
# 36: an exported JavaScript binding to a member or another name is a symbol
# (`export const router = t.router`). 37: a Rails view is read in the language it renders
# (`_form.html.erb` as HTML, not as documentation text); `.jbuilder` is Ruby; Prisma
# schemas have symbols; an exported JS/TS object literal is a symbol
# (`export const authOptions = {…}`). 38: Django's `include(check_urls)` of a list of
# patterns names the list; jQuery's `$.ajax({url, type})` is a client call; Kotlin's
# `const val` in an object or a companion object is a symbol; Rust's `web::Data<T>`,
# `State<T>`, `Extension<T>` are their `T`; Mockito's `verify(mock)` is the mock. 39: a
# JS/TS top-level constant of more than 10 lines is a chunk of its own; a JS/TS function
# made by a call (`memo((props) => …)`, `throttle(() => …)`) is a function, or a
# method as a class field. 40: a Java enum constant with a body is a class holding its
# methods; a field set to an anonymous class names that class's methods; Go's
# package-level variables are symbols (a function literal's a function). 41: a Java
# enum constant with a body extends its enum; a Kotlin enum entry with a body is a class
# extending its enum. 42: a plural acronym in an identifier is one part (`getURLs` →
# `get urls`, not `get ur ls`): every file's lexical rows. 43: a JS/TS URL reads
# `this.baseUrl` when its class or constructor function sets it to one string. 44: inside
# a function, a call given a function makes a value (`const score = computed(() => …)`).
# 45: a Python class extending a subscripted generic (`AuthProvider[Request]`) extends
# the generic's class. 46: a JS/TS template literal reads `${this.url}`; a member a class
# never sets is read below the one path its constructor gives `super(…)` (Angular). 47: a
# field set by Angular's `inject(Service)` holds a `Service`; a Python HTTP call's first
# argument may be a dotted name (`client.post(api_routes.recipes)`). 48: a JS/TS URL may
# be a path an object literal of the file holds (`routes.recipes`, `routes.recipe(id)`).
# 49: Cypress's `cy.request({url})` without a method is a GET. 50: a call of a list's or a
# promise's method, a reactive value or a timer given a function makes a value, not a
# function (`names = users.map((u) => u.name)`, `computed(() => …)`). 51: a Vue or
# Svelte template's handlers and bound expressions call the functions its scripts bind.
# 52: an Options API Vue component's methods, computed values, watchers and hooks are
# its methods (`Card.save`). 53: `this` inside a Vue component's option is the component.
# 54: a Go declaration or composite literal naming a type of the repository references it.
# 55: so does a Rust one (a field's, parameter's, result's, `let`'s type, a struct literal).
# 56: C-family: a lowercase attribute macro between a declaration's type and its name is
# blanked (tmux's `void printflike(1, 2) log_debug(…)`); a name in a value's place (`.exec =
# cmd_new_session_exec`, a callback handed on) is a value reference.
# 57: Rust names a `match` arm or a closure binds with no type shadow the items so named.
# 58: a Ruby method called without a receiver in a value's place (an argument, an
# assigned or hash value, a receiver) is a call, as one standing as a statement was.
# 59: a Rust type derefs to its `Deref` impl's `Target` (its methods are found there),
# and an enum's variants are its members (`Problem::Missing(…)`).
# 60: Ruby's `attr_accessor :x` (`attr_reader`, `attr_writer`) defines methods.
# 61: yacc and lex files (`.y`, `.l`, `.yy`, `.ll`) are read as their C sections.
# 62: a Python attribute read (`self.root`) may run a property: its facts say so.
# 63: a Python `if isinstance(x, C):` narrows `x` to a C in its branch.
# 64: a Rust alias of `Result` (`type R<T> = Result<T, E>`, `RunResult<'a, T>`) unwraps
# with `?` as `Result` does.
# 65: calls inside a Rust macro's arguments (`format!("{}", t.lexeme())`) are read.
# 66: a Python name read, not called, of a module's constant or function is a reference.
# 67: so is one read through its module (`settings.DEFAULT_LIMIT`). 68: a Python
# `except` clause references the classes it catches. 69: so does a JavaScript or
# TypeScript name read, not called, of a module's constant or function. 70: the object
# of an attribute is read (`PERMISSIONS.create`), and a class body's or the module's
# reads count at each line (Python, JavaScript, TypeScript). 71: a JavaScript or
# TypeScript destructuring declaration binds every name it holds and reads its defaults
# (`const { size = DEFAULT_SIZE, ...rest } = props`, `const [a, b = FALLBACK] = pair`).
# 72: HTML is read without a server template's tags (`<% … %>`: Rails views, EJS, JSP),
# which the grammar read as broken tags (a view of ERB alone was a parse error).
# 73: a named JS/TS function handed to a call the module exports or runs is a function
# (`export default withAuth(async function middleware(req) {…})`).
# 74: a JS/TS function exported by default behind a feature test, or unnamed, is a
# function (`export default isSupported && function adapter(config) {…}`; `default`).
# 75: Cython (`.pyx`, `.pxd`, `.pxi`) is code with functions and classes, not text.
# 76: a TypeScript generic arrow function the grammar took for a type assertion of it
# (`const f = <T>(…): T => …` in a file it cannot read whole) is a function.
# 77: the accessors and methods `Object.defineProperties(Foo.prototype, {…})` defines
# are Foo's methods (`Request.hostname`).
# 78: TypeScript whose grammar gives up on a top-level declaration is read again with
# that declaration's body blanked (immer's `IProduce`: the rest of the file was lost).
# 79: a Rust `impl … for &'a mut T` (or `*const T`) names its methods after `T`; they had
# been `?.method` (serde_json's `Deserializer` and `Serializer` methods).
# 80: a TypeScript interface's methods are symbols (yup's `StringSchema.nonNullable`).
READER_VERSION = 80
# JavaScript and TypeScript files, and the components holding their scripts.
_SCRIPTS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte")
# Ruby files by name suffix (lower case), scripts named by their interpreter aside.
_RUBY: tuple[str, ...] = (".rb", ".rake", ".gemspec", ".podspec", ".ru", ".jbuilder", ".erb")
_RUBY += ("rakefile", "gemfile", "podfile", "fastfile")
# The files each version after 32 changed, by name suffix (lower case): a file an older
# reader stored is read again only when a later change is about it (re-reading all of
# SymPy for a change to its `.txt` files took 211 s). A version not listed changed any file.
READER_CHANGES: dict[int, tuple[str, ...]] = {
    33: (".txt",),
    34: (".src",),
    35: (".mdx",),
    36: _SCRIPTS,
    37: (".erb", ".jbuilder", ".prisma", *_SCRIPTS),
    38: (".py", ".pyi", ".kt", ".kts", ".rs", ".java", *_SCRIPTS),
    39: _SCRIPTS,
    40: (".java", ".go"),
    41: (".java", ".kt", ".kts"),
    43: _SCRIPTS,
    44: _SCRIPTS,
    45: (".py", ".pyi"),
    46: _SCRIPTS,
    47: (".py", ".pyi", *_SCRIPTS),
    48: _SCRIPTS,
    49: _SCRIPTS,
    50: _SCRIPTS,
    51: (".vue", ".svelte"),
    52: (".vue",),
    53: (".vue",),
    54: (".go",),
    55: (".rs",),
    56: (".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp")
    + (".inl", ".inc", ".src", ".m", ".mm"),
    57: (".rs",),
    58: _RUBY,
    59: (".rs",),
    60: _RUBY,
    61: (".y", ".l", ".yy", ".ll"),
    62: (".py", ".pyi"),
    63: (".py", ".pyi"),
    64: (".rs",),
    65: (".rs",),
    66: (".py", ".pyi"),
    67: (".py", ".pyi"),
    68: (".py", ".pyi"),
    69: _SCRIPTS,
    70: (".py", ".pyi", *_SCRIPTS),
    71: _SCRIPTS,
    72: (".html", ".htm", ".erb"),
    73: _SCRIPTS,
    74: _SCRIPTS,
    75: (".pyx", ".pxd", ".pxi"),
    76: (".ts", ".mts", ".cts", ".vue", ".svelte"),
    77: _SCRIPTS,
    78: (".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte"),
    79: (".rs",),
    80: (".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte"),
}


def reads_again(path: str, stored_version: int) -> bool:
    """Whether a file the reader of `stored_version` stored must be read again."""
    if stored_version > READER_VERSION:
        return True
    lower = path.lower()
    return any(
        version not in READER_CHANGES or lower.endswith(READER_CHANGES[version])
        for version in range(stored_version + 1, READER_VERSION + 1)
    )


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
    """What a run has done so far, reported as it goes. `stage`: discover, files,
    graph, vectors, similar (the graph's similarity edges, once the vectors are in).
    Files are measured in bytes of the files that need work (an unchanged file leaves
    the total); vectors in chunks that had none."""

    stage: str = "discover"
    files_total: int = 0
    files_done: int = 0
    chunks: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    vectors_total: int = 0
    vectors_done: int = 0
    embedded: int = 0
    embed_seconds: float = 0.0

    def skip(self, size: int) -> None:
        """A file that needed no work after all."""
        self.files_done += 1
        self.bytes_total -= size

    @property
    def share_done(self) -> float:
        """Of the current stage's work."""
        if self.stage == "vectors":
            if self.vectors_total <= 0:
                return 1.0
            return min(1.0, self.vectors_done / self.vectors_total)
        if self.bytes_total <= 0:
            return 1.0 if self.files_done >= self.files_total else 0.0
        return min(1.0, self.bytes_done / self.bytes_total)


@dataclass(slots=True)
class IndexStats:
    repo: str
    files_seen: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    upgraded: int = 0  # unchanged files read again: another version's reader stored them
    renamed: int = 0
    removed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_examples: dict[str, list[str]] = field(default_factory=dict)  # first five a reason
    parse_errors: int = 0
    # Files parsed in this run, per language: how many gave symbols ("symbols") and how
    # many were only chunked ("chunked": no definitions, a parse failure or no grammar).
    languages: dict[str, dict[str, int]] = field(default_factory=dict)
    # Languages seen in this run whose grammar wheel is not installed (chunked by lines).
    missing_grammars: list[str] = field(default_factory=list)
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
    gc: dict[str, Any] = field(default_factory=dict)  # the automatic collection after it

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
    link: Callable[[], dict[str, Any]] | None = None  # the link stage, before the vectors
    # What the link stage leaves until the run's texts have vectors (similarity edges);
    # returns the edges written.
    link_vectors: Callable[[], int] | None = None


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
    # The writer lock first: a refused run writes nothing.
    run_id = backend.runs.start_run(job.repo)
    progress = Progress()
    try:
        backend.repos.save_repo(RepoRecord(job.repo, str(job.root)))
        # HEAD as the run starts is what it records: a commit made during the run is
        # then in the next run's `git diff`.
        head = job.source.commit if job.source is not None else git_head(job.root)
        stored = backend.files.files(job.repo)
        rescued = {} if stored else _rescued_vectors(job)
        written = _store_files(job, stats, progress, stored, head)
        if rescued:
            stats.texts_cached += _cache_rescued(job, rescued)
        if job.link is not None:
            _report(job, progress, "graph")
            with _Timer(stats.seconds, "link"):
                stats.graph = job.link()
        _report(job, progress, "vectors")
        with _Timer(stats.seconds, "vectors"):
            fill = reconcile_vectors(
                backend, job.vectors, job.embedder, progress=progress, on_progress=job.on_progress
            )
        if job.link is not None and job.link_vectors is not None:
            _report(job, progress, "similar")
            clock = time.perf_counter()
            stats.graph["edges_written"] += job.link_vectors()
            took = time.perf_counter() - clock
            stats.graph["seconds"]["similar"] = round(stats.graph["seconds"]["similar"] + took, 4)
            stats.seconds["link"] += took
        stats.texts_embedded = fill.embedded
        stats.texts_cached += fill.cached
        stats.seconds["embed"] = fill.embed_seconds
        stats.seconds["vectors"] -= fill.embed_seconds
        # Vectors the run's own writes did not call for: what a crash or damage left.
        stats.vectors_repaired = len(
            (fill.deleted - written.removed) | (fill.written - written.added)
        )
    except BaseException as exc:
        stats.wall_seconds = time.perf_counter() - started
        backend.runs.finish_run(
            run_id, "failed", stats.as_dict(), error=f"{type(exc).__name__}: {exc}"
        )
        raise
    stats.commit = head
    backend.repos.save_repo(
        RepoRecord(job.repo, str(job.root), last_commit=stats.commit, last_indexed_at=utc_now())
    )
    stats.wall_seconds = time.perf_counter() - started
    backend.runs.finish_run(run_id, "ok", stats.as_dict())
    return stats


def _report(job: IndexJob, progress: Progress, stage: str) -> None:
    progress.stage = stage
    if job.on_progress is not None:
        job.on_progress(progress)


@dataclass(slots=True)
class _Written:
    """Chunk ids a run's file writes added and tombstoned."""

    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)


def _store_files(
    job: IndexJob,
    stats: IndexStats,
    progress: Progress,
    records: dict[tuple[str, str], FileRecord],
    head: str | None,
) -> _Written:
    """Read, parse and chunk what changed, and write it all to the catalog: in one
    transaction unless the run holds more than RUN_CHUNKS new chunks, so a reader sees
    the whole tree old or the whole tree new. No model runs here: the chunks, the
    lexical index and (after the link stage) the graph are searchable before the first
    vector is computed."""
    sec = stats.seconds
    with _Timer(sec, "discover"):
        found = job.source.discover() if job.source is not None else discover(job.root, job.rules)
    stats.skipped.update(found.skipped)
    stats.skipped_examples = {reason: list(paths) for reason, paths in found.examples.items()}
    stats.files_seen = len(found.files)
    stored = {path: f for (_, path), f in records.items()}
    present = {c.path for c in found.files}
    gone = {p: f for p, f in stored.items() if p not in present}
    gone_hashes = {f.file_hash for f in gone.values()}
    kept_hashes: set[str] = set()  # content of the files the repo holds after this run
    in_diff = _changed_by_git(job, head)
    progress.files_total = len(found.files)
    progress.bytes_total = sum(c.size for c in found.files)
    _report(job, progress, "files")

    written = _Written()
    batch: list[FileWrite | FileRemoval] = []
    batch_chunks = 0
    for candidate in found.files:
        before = stored.get(candidate.path)
        upgraded = before is not None and reads_again(candidate.path, before.reader_version)
        reread = job.full or upgraded
        if (
            not reread
            and before is not None
            and before.size == candidate.size
            and before.mtime_ns == candidate.mtime_ns
            and not (in_diff is EVERY_FILE or candidate.path in in_diff)
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
            not reread
            and before is not None
            and before.file_hash == file_hash
            and before.decode_error == decode_error
        ):
            batch.append(
                FileWrite(replace(before, size=candidate.size, mtime_ns=candidate.mtime_ns))
            )
            stats.unchanged += 1
            progress.skip(candidate.size)
            continue
        if before is not None and upgraded and before.file_hash == file_hash and not job.full:
            stats.upgraded += 1
        elif before is not None:
            stats.changed += 1
        elif file_hash in gone_hashes:
            stats.renamed += 1
        else:
            stats.new += 1
        file, content = _prepare(job, candidate, text, file_hash, sec)
        if file.parse_error is not None:
            stats.parse_errors += 1
        _count_language(stats, file.language, bool(content.symbols))
        if decode_error is not None:
            file = replace(file, decode_error=decode_error)
            stats.decode_errors += 1
            if len(stats.decode_examples) < MAX_EXAMPLES:
                stats.decode_examples.append(candidate.path)
        batch.append(FileWrite(file, content))
        batch_chunks += len(content.chunks)
        progress.files_done += 1
        progress.bytes_done += file.size
        if job.on_progress is not None:
            job.on_progress(progress)
        if batch_chunks >= RUN_CHUNKS:
            _write(job, batch, stats, written, progress)
            batch, batch_chunks = [], 0

    for path in sorted(gone):
        moved = gone[path].file_hash in kept_hashes
        batch.append(FileRemoval(job.repo, path, "file_renamed" if moved else "file_removed"))
        stats.removed += 1
    _write(job, batch, stats, written, progress)
    return written


EVERY_FILE: frozenset[str] = frozenset({"*"})


def _changed_by_git(job: IndexJob, head: str | None) -> frozenset[str]:
    """When HEAD moved since the last run: the files `git diff` names between the commit
    last indexed and HEAD. Each is confirmed by its hash even if its size and mtime look
    the same (a checkout, a rebase or a coarse file-system clock can keep both).
    EVERY_FILE when the commit last indexed is no longer known (history rewritten):
    every file is then confirmed by hash. Empty outside git or when HEAD stayed."""
    if job.source is not None or job.full:
        return frozenset()
    last = next((r.last_commit for r in job.backend.repos.repos() if r.id == job.repo), None)
    if last is None or head is None or head == last:
        return frozenset()
    try:
        diff = run_git(
            ["-C", str(job.root), "diff", "--name-only", "-z", "--no-renames", "--relative"]
            + [last, head],
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()  # no git after all: size and mtime decide, as outside git
    if diff.returncode != 0:
        return EVERY_FILE
    return frozenset(n for n in diff.stdout.decode("utf-8", "replace").split("\0") if n)


# New chunks one catalog transaction holds at most (their text is kept in memory until
# it commits); a run with more commits in steps of this size.
RUN_CHUNKS = 20_000


def _write(
    job: IndexJob,
    batch: list[FileWrite | FileRemoval],
    stats: IndexStats,
    written: _Written,
    progress: Progress,
) -> None:
    if not batch:
        return
    with _Timer(stats.seconds, "store"):
        changes = job.backend.files.write_files(batch)
    for change in changes:
        written.added.update(change.added)
        written.removed.update(change.removed)
        stats.chunks_added += len(change.added)
        stats.chunks_removed += len(change.removed)
        progress.chunks += len(change.added)


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
    decoded = decode_text(data, candidate.path)
    if decoded.binary:
        return "binary"
    # Redacted once, here, so chunks, symbols, graph facts, the lexical index and the
    # embeddings never see a secret; redaction keeps every newline, so line numbers hold.
    # The hash is of the redacted text too: a hash of the original would let anyone with
    # the index test guesses of a short password against it.
    text = stored_text(decoded.text)
    return text, hash_bytes(text.encode("utf-8")), decoded.problem


def _count_language(stats: IndexStats, language: str, has_symbols: bool) -> None:
    counts = stats.languages.setdefault(language, {"symbols": 0, "chunked": 0})
    counts["symbols" if has_symbols else "chunked"] += 1
    if grammar_missing(language) and language not in stats.missing_grammars:
        stats.missing_grammars.append(language)
        stats.missing_grammars.sort()


def _prepare(
    job: IndexJob, candidate: Candidate, text: str, file_hash: str, sec: dict[str, float]
) -> tuple[FileRecord, FileContent]:
    repo, path, embedder = job.repo, candidate.path, job.embedder
    with _Timer(sec, "parse"):
        source = parse_file(path, text)
        parsed, lines, language = source.parsed, source.lines, source.parsed.language
        facts = extract_facts(path, source.code, parsed)
        parsed.tree = None  # one parse served symbols, chunks and facts; free it
    with _Timer(sec, "chunk"):
        symbols = symbol_records(repo, path, parsed.symbols, lines)
        ids = {(row.qualified_name, row.start_line): row.id for row in symbols}
        drafts = chunk_file(lines, parsed, embedder.count_tokens, job.limits)
        headers = [embedding_header(d) for d in drafts]
        # The text was counted while chunking; the headers, fewer and shorter, once each
        # (+1: the newline after a header).
        distinct = sorted({h for h in headers if h})
        header_tokens = dict(zip(distinct, embedder.count_tokens(distinct), strict=True))
        counts = [
            d.tokens + (header_tokens[h] + 1 if h else 0)
            for h, d in zip(headers, drafts, strict=True)
        ]
        chunks: list[ChunkRecord] = []
        lexical: list[LexicalRow] = []
        seen: set[str] = set()
        for draft, header, tokens in zip(drafts, headers, counts, strict=True):
            symbol = draft.symbol
            qualified = symbol.qualified_name if symbol else None
            symbol_id = ids.get((symbol.qualified_name, symbol.start_line)) if symbol else None
            signature = symbol.signature if symbol else ""
            embed_key = hash_text(f"{header}\n{draft.text}")
            row = (embed_key, language, draft.kind, qualified or "", symbol_id or "", signature)
            cid = chunk_id(
                repo, path, draft.start_line, draft.end_line, hash_text("\x1f".join(row))
            )
            if cid in seen:
                continue
            seen.add(cid)
            chunks.append(
                ChunkRecord(
                    id=cid,
                    repo=repo,
                    path=path,
                    language=language,
                    kind=draft.kind,
                    symbol=qualified,
                    symbol_id=symbol_id,
                    signature=signature,
                    start_line=draft.start_line,
                    end_line=draft.end_line,
                    header=header,
                    text=draft.text,
                    text_hash=hash_text(draft.text),
                    file_hash=file_hash,
                    embed_key=embed_key,
                    tokens=tokens,
                )
            )
            lexical.append(
                lexical_row(path, draft.text, qualified, symbol.name if symbol else None)
            )
    record = FileRecord(
        repo=repo,
        path=path,
        language=language,
        size=candidate.size,
        mtime_ns=candidate.mtime_ns,
        file_hash=file_hash,
        line_count=len(lines),
        parse_error=parsed.error,
        reader_version=READER_VERSION,
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
    return record, FileContent(symbols, chunks, lexical, staged)


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
    database was lost or replaced), by chunk id. Asked only when the repository being
    indexed has no file yet."""
    if job.backend.files.paths() or not job.vectors.count():
        return {}
    return job.vectors.vectors_of(job.vectors.ids())


def _cache_rescued(job: IndexJob, rescued: dict[str, Vectors]) -> int:
    """Put the rescued vectors of chunks that came back (same id: same repo, path, lines
    and text) into the embedding cache, which was lost with the database; return how
    many. The vector store keeps them: they are not embedded or written again."""
    back = [
        (entry.embed_key, rescued[entry.id])
        for entries in job.backend.chunks.chunk_entries().values()
        for entry in entries
        if entry.id in rescued
    ]
    job.backend.cache.cache_vectors(job.embedder.model_id, back)
    return len(back)


# Chunks whose vectors are written to the store at once: each write is a version of a
# LanceDB table, so fewer, larger writes; and search reads the vectors written so far.
VECTOR_BATCH = 1024
EMBED_STEP = 32  # texts per model call; progress is reported per step


@dataclass(slots=True)
class VectorFill:
    """What `reconcile_vectors` did."""

    deleted: set[str] = field(default_factory=set)  # ids whose vectors it deleted
    written: set[str] = field(default_factory=set)  # ids it wrote a vector for
    embedded: int = 0  # texts the model embedded
    cached: int = 0  # texts found in the embedding cache (or rescued)
    embed_seconds: float = 0.0

    @property
    def fixed(self) -> int:
        return len(self.deleted | self.written)


def reconcile_vectors(
    backend: Backend,
    vectors: VectorStore,
    embedder: Embedder,
    *,
    progress: Progress | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> VectorFill:
    """Make the vector store hold exactly one vector per active chunk.

    Vectors of chunks no longer active go first; missing ones are written in batches of
    VECTOR_BATCH, each from the embedding cache, else embedded and cached at once. A run
    killed here resumes where it stopped: the next one finds the same chunks missing and
    the texts embedded so far cached."""
    fill = VectorFill()
    active = {entry.id for entries in backend.chunks.chunk_entries().values() for entry in entries}
    listed = vectors.ids()
    present = set(listed)
    # A chunk stored twice (a store without unique ids, written by two processes) is
    # deleted and written once more.
    doubled = {cid for cid, n in Counter(listed).items() if n > 1 and cid in active}
    extra = [cid for cid in present if cid not in active or cid in doubled]
    if extra:
        vectors.write([], _NO_VECTORS, delete=extra)
        fill.deleted.update(extra)
    # In id order: the same batches, embedded in the same order, from one run to the next.
    missing = sorted(cid for cid in active if cid not in present or cid in doubled)
    if progress is not None:
        progress.vectors_total, progress.vectors_done = len(missing), 0
        if on_progress is not None:
            on_progress(progress)
    for start in range(0, len(missing), VECTOR_BATCH):
        rows = list(backend.chunks.chunks(missing[start : start + VECTOR_BATCH]).values())
        found = _vectors_for(backend, embedder, rows, fill, progress, on_progress)
        if rows:
            vectors.write(rows, np.stack([found[c.embed_key] for c in rows]))
            fill.written.update(c.id for c in rows)
    if fill.deleted or fill.written:
        vectors.compact()
    return fill


def _vectors_for(
    backend: Backend,
    embedder: Embedder,
    rows: list[ChunkRecord],
    fill: VectorFill,
    progress: Progress | None,
    on_progress: Callable[[Progress], None] | None,
) -> dict[str, Vectors]:
    """A vector for each row's cache key; what the model computes is cached."""
    texts = {chunk.embed_key: embedding_text(chunk) for chunk in rows}
    cache, model = backend.cache, embedder.model_id
    found = cache.cached_vectors(model, list(texts))
    missing = [k for k in texts if k not in found]
    fill.cached += len(texts) - len(missing)
    per_key = Counter(c.embed_key for c in rows)
    if progress is not None:
        progress.vectors_done += sum(per_key[k] for k in texts if k in found)
    for start in range(0, len(missing), EMBED_STEP):
        part = missing[start : start + EMBED_STEP]
        began = time.perf_counter()
        matrix = embedder.embed([texts[k] for k in part])
        elapsed = time.perf_counter() - began
        fill.embed_seconds += elapsed
        fill.embedded += len(part)
        cache.cache_vectors(model, zip(part, matrix, strict=True))
        found.update(zip(part, matrix, strict=True))
        if progress is not None:
            progress.embed_seconds += elapsed
            progress.embedded += len(part)
            progress.vectors_done += sum(per_key[k] for k in part)
            if on_progress is not None:
                on_progress(progress)
    return found


def git_head(root: Path) -> str | None:
    return git_text(root, "rev-parse", "HEAD")
