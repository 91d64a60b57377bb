"""The facade every frontend uses: index repositories, search them, open files, walk the
code graph, answer questions, report status.

An engine holds one storage backend (chosen once from the settings, see `storage`) and
one embedder, both opened on first use; it never exposes a connection.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Literal, cast, get_args

import numpy as np

from codecompass import answer, gitinfo
from codecompass.audit import usage_stats
from codecompass.errors import (
    AccessDeniedError,
    DataDirError,
    InputError,
    LLMError,
    ModelMismatchError,
    NotFoundError,
    NotIndexedError,
    OutOfRangeError,
    UnknownRepoError,
)
from codecompass.gitexec import git_text
from codecompass.graph.api import DEFAULT_LIMIT, GraphReader
from codecompass.graph.link import link as link_graph
from codecompass.graph.link import similar_edges, unlink_repo
from codecompass.graph.models import (
    CALLER_TYPES,
    DEPENDENCY_TYPES,
    RPC_PREFIX,
    TYPE_USER_TYPES,
    VALUE_VIAS,
    VIRTUAL_PREFIXES,
)
from codecompass.graph.service_links import check_via, service_links
from codecompass.hashing import file_lines
from codecompass.indexing.chunk import CHUNK_KINDS, ChunkLimits
from codecompass.indexing.discover import DiscoveryRules, discover
from codecompass.indexing.gitsource import GitTreeSource, default_repo_name, resolve_git_dir
from codecompass.indexing.languages import LANGUAGE_ALIASES, LANGUAGES
from codecompass.indexing.notebook import notebook_lines
from codecompass.indexing.pipeline import (
    FileSource,
    IndexJob,
    IndexStats,
    Progress,
    file_hash_on_disk,
    index_repository,
    reads_again,
)
from codecompass.lifecycle import transfer
from codecompass.lifecycle.verify import Finding, VerifyReport
from codecompass.lifecycle.verify import Workspace as VerifyWorkspace
from codecompass.lifecycle.verify import verify as verify_index
from codecompass.memory.bank import CodeLinks, MemoryBank, hit_targets
from codecompass.memory.capture import (
    capture_prompt,
    extract_rules,
    parse_proposals,
    read_transcript,
)
from codecompass.models import (
    ChunkFilter,
    EdgeQuery,
    FileRecord,
    RepoRecord,
    RunRecord,
    SymbolKind,
    SymbolQuery,
    SymbolRecord,
)
from codecompass.protocols import Embedder, Vectors, VectorStore
from codecompass.schemas import (
    Answer,
    BlameHunk,
    CaptureResult,
    Commit,
    Evidence,
    FileHit,
    FileView,
    GraphResult,
    Hit,
    MemoryNote,
    NodeDetails,
    Overview,
    RerankInfo,
    ServiceLinks,
    SymbolHit,
    SymbolMatch,
)
from codecompass.search.context import SearchOptions, SearchSources
from codecompass.search.rank import FEATURES, RankWeights
from codecompass.search.rerank import Reranked, Reranker, require_endpoint, rerank_by_endpoint
from codecompass.search.retrieve import SearchResult, retrieve
from codecompass.security.access import FULL_ACCESS, PRINCIPALS_FILE, Access
from codecompass.security.paths import (
    ConfinedPath,
    PathPolicy,
    confine,
    is_plain_path,
    read_text,
)
from codecompass.security.secrets import stored_text
from codecompass.settings import (
    CONFIG_FILE,
    DEFAULT_DATA_DIR,
    ENV_PREFIX,
    Settings,
    load_settings,
    render_default_config,
)
from codecompass.storage import EMBEDDED_DB, Backend, damage_of, index_exists, open_backend

FORMAT_VERSION = "1"
# A chat model call: (system, user) → (text, model name).
Complete = Callable[[str, str], tuple[str, str]]
OPEN_MAX_LINES = 2000
# The symbols an error names when `path#Name` names none of its file's.
MAX_NAMED_SYMBOLS = 20
NO_VECTORS: Vectors = np.zeros((0, 0), dtype=np.float32)

# Stale files `status` lists per repository (the counts are always whole).
STALE_LISTED = 1000


def repo_root_of(path: Path) -> Path:
    """The git work tree holding `path`, or `path` itself for a plain folder."""
    top = git_text(path, "rev-parse", "--show-toplevel")
    return Path(top).resolve() if top else path


def find_data_dir(start: Path) -> Path | None:
    """The nearest `.codecompass/` holding an index (or its settings), from `start` up."""
    for folder in (start, *start.parents):
        candidate = folder / DEFAULT_DATA_DIR
        if (candidate / EMBEDDED_DB).is_file() or (candidate / CONFIG_FILE).is_file():
            return candidate
    return None


# The first line of the .gitignore every data folder gets: it marks the folder as ours.
DATA_DIR_MARK = "# Code Compass index data: never commit it."
_TRANSIENT = (".write-test-",)  # files `Engine.init` creates and removes again
DATA_DIR_FILES = frozenset(
    {
        CONFIG_FILE,
        PRINCIPALS_FILE,
        EMBEDDED_DB,
        f"{EMBEDDED_DB}-wal",
        f"{EMBEDDED_DB}-shm",
        f"{EMBEDDED_DB}-journal",
        "index.lock",
        "hooks.log",
        "vectors",
        "backups",
    }
)


def refuse_foreign_folder(folder: Path) -> None:
    """A data folder must be new, empty or already ours (our .gitignore, or only files
    Code Compass writes): the index writes `*` into its .gitignore, which would hide a
    repository's untracked files from `git status`."""
    try:
        entries = sorted(p.name for p in folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError:
        return  # unreadable: the write test in `init` reports it
    try:
        ignore = (folder / ".gitignore").read_text(encoding="utf-8")
    except FileNotFoundError:
        ignore = ""
    except (OSError, UnicodeDecodeError):
        ignore = "?"
    if ignore.startswith(DATA_DIR_MARK):
        return
    # Only what Code Compass writes (a config.toml made by hand, say), including what
    # another process creating the same folder has half written right now.
    foreign = {e for e in entries if not e.startswith(_TRANSIENT)} - DATA_DIR_FILES
    if not foreign or (foreign == {".gitignore"} and not ignore):
        return
    if ".git" in entries:
        raise DataDirError(
            f"{folder} is the root of a git repository, not a data folder: the index would "
            f"write its files there. Leave --data-dir out (the default is "
            f"{folder / DEFAULT_DATA_DIR}) or choose a new folder."
        )
    shown = ", ".join(entries[:3]) + (", …" if len(entries) > 3 else "")
    raise DataDirError(
        f"{folder} already holds files the index did not create ({shown}); choose a new "
        "or empty folder for --data-dir."
    )


def repository_folder(path: str | Path) -> Path:
    """The resolved folder to index at `path`: it must exist, be a folder and not be a
    git directory (`.git`, a bare repository), whose files are git's objects, not code."""
    folder = Path(path).expanduser()
    if not folder.exists():
        raise InputError(f"{folder} does not exist; pass the folder of a repository.")
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder; pass the folder of a repository.")
    if all((folder / part).exists() for part in ("HEAD", "objects", "refs")):
        raise InputError(
            f"{folder} is a git directory (git's own objects, not a work tree); pass the "
            "folder of a checkout, or index a commit with `codecompass eval --git`."
        )
    return folder.resolve()


_RANGE = re.compile(r"(?P<start>\d+)(?:(?P<dash>-)(?P<end>\d+)?)?")
_RANGE_LIKE = re.compile(r"[\d\s+-]+")


def parse_location(location: str) -> tuple[str, int | None, int | None]:
    """`a/b.py:10-20` → ("a/b.py", 10, 20); `a/b.py:10` → one line; `a/b.py:10-` → to
    the end; `a/b.py` → whole. A tail that tries to be a range and is not one (`:-5`,
    `:0`, `:1-2-3`) is an error rather than part of the file name."""
    path, sep, tail = location.rpartition(":")
    if not sep or not tail or not _RANGE_LIKE.fullmatch(tail):
        return location, None, None
    found = _RANGE.fullmatch(tail)
    if found is None or int(found["start"]) < 1 or (found["end"] and int(found["end"]) < 1):
        raise InputError(
            f"Bad line range {tail!r} in {location!r}; use PATH:START, PATH:START-END or "
            "PATH:START- with line numbers from 1."
        )
    start = int(found["start"])
    if found["end"]:
        return path, start, int(found["end"])
    return path, start, None if found["dash"] else start


class Engine:
    """One workspace (a data folder and its backend) and the repositories indexed into it."""

    # Set to a cross-encoder (or any `Reranker`) to reorder the head of search results.
    reranker: Reranker | None = None

    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        access: Access = FULL_ACCESS,
    ) -> None:
        self.settings = settings
        self.access = access
        self._embedder = embedder
        self._backend: Backend | None = None
        self._model_checked = False
        self._owns_backend = True
        self._memory: MemoryBank | None = None

    def scoped(self, access: Access) -> Engine:
        """A view of this engine that answers only within `access`: search results,
        files, graph nodes, answers and status stay inside its scopes. The view shares
        the backend and the embedder (closing it closes neither)."""
        view = Engine(self.settings, embedder=self.embedder, access=access)
        view._backend = self.backend
        view._model_checked = self._model_checked
        view._owns_backend = False
        view.reranker = self.reranker
        return view

    # -- opening ------------------------------------------------------------------
    @classmethod
    def for_repo(
        cls,
        path: str | Path | None = None,
        *,
        data_dir: str | Path | None = None,
        embedder: Embedder | None = None,
    ) -> tuple[Engine, Path]:
        """An engine for the folder `path` (default: the git work tree holding the current
        folder), whose default data folder is `.codecompass/` inside that folder."""
        if path is None:
            root = repo_root_of(Path.cwd().resolve())
        else:
            target = Path(path).expanduser()
            root = repository_folder(target)
            if data_dir is None and not os.environ.get(f"{ENV_PREFIX}DATA_DIR"):
                enclosing = repo_root_of(root)
                if enclosing != root:
                    rel = root.relative_to(enclosing) if root.is_relative_to(enclosing) else root
                    raise InputError(
                        f"{target} is a folder inside the git repository {enclosing}. Index "
                        f"the repository with `codecompass index {enclosing}` and narrow "
                        f"searches with --path {rel}/, or give this folder an index of its "
                        "own with --data-dir."
                    )
        return cls(load_settings(data_dir, repo_root=root), embedder=embedder), root

    @classmethod
    def open(
        cls, data_dir: str | Path | None = None, *, embedder: Embedder | None = None
    ) -> Engine:
        """An engine over an existing index: `data_dir`, $CODECOMPASS_DATA_DIR, or the
        nearest `.codecompass/` from the current folder upwards."""
        if data_dir is None and not os.environ.get(f"{ENV_PREFIX}DATA_DIR"):
            found = find_data_dir(Path.cwd().resolve())
            if found is None:
                raise NotIndexedError(
                    f"No index found in {Path.cwd()} or its parents; run "
                    "`codecompass index PATH` first, or pass --data-dir."
                )
            data_dir = found
        settings = load_settings(data_dir)
        if not index_exists(settings):
            if (settings.data_dir / ".git").exists():
                raise NotIndexedError(
                    f"{settings.data_dir} is a repository, not an index; index it with "
                    f"`codecompass index {settings.data_dir}` and search from inside it "
                    "(or pass its index folder, .codecompass/, as --data-dir)."
                )
            raise NotIndexedError(
                f"{settings.data_dir} holds no index yet; run `codecompass index PATH "
                f"--data-dir {settings.data_dir}` first."
            )
        return cls(settings, embedder=embedder)

    def close(self) -> None:
        if self._backend is not None and self._owns_backend:
            self._backend.close()
        self._backend = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- parts, opened on first use -------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from codecompass.embedders import create_embedder

            e = self.settings.embedder
            self._embedder = create_embedder(
                e.provider,
                e.model or None,
                base_url=e.base_url or None,
                api_key_env=e.api_key_env or None,
                dim=e.dim or None,
            )
        return self._embedder

    @property
    def backend(self) -> Backend:
        """The storage backend (protocol-typed stores, no connections)."""
        if self._backend is None:
            self.init()
            self._backend = open_backend(self.settings)
        return self._backend

    def _vectors(self) -> VectorStore:
        self._check_model()
        return self.backend.vectors(self.embedder.dim)

    def init(self) -> Path:
        """Create the data folder (with its .gitignore and config.toml) if missing."""
        folder = self.settings.data_dir
        refuse_foreign_folder(folder)
        ignore = folder / ".gitignore"
        config = folder / CONFIG_FILE
        if ignore.is_file() and config.is_file():
            return folder  # set up already: opening an index writes nothing here
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
                pass
            if not ignore.exists():
                ignore.write_text(DATA_DIR_MARK + "\n*\n", "utf-8")
            if not config.exists():
                config.write_text(render_default_config(), encoding="utf-8")
        except OSError as exc:
            raise DataDirError(
                f"Cannot write to the data folder {folder} ({exc.strerror or exc}); "
                "fix its permissions or choose another with --data-dir."
            ) from exc
        return folder

    def _check_model(self) -> None:
        """Record the embedding model on first use; refuse another one later."""
        if self._model_checked:
            return
        embedder = self.embedder
        meta = self.backend.meta.init_meta(
            {
                "format_version": FORMAT_VERSION,
                "embedder_model": embedder.model_id,
                "embedder_dim": str(embedder.dim),
            }
        )
        recorded, dim = meta["embedder_model"], meta["embedder_dim"]
        if recorded != embedder.model_id or dim != str(embedder.dim):
            raise ModelMismatchError(
                f"This index was built with the embedding model {recorded} ({dim}-d), but "
                f"{embedder.model_id} ({embedder.dim}-d) is configured. Set the [embedder] "
                f"settings back, or delete {self.settings.data_dir} and index again."
            )
        self._model_checked = True

    # -- indexing -----------------------------------------------------------------
    def index(
        self,
        root: str | Path,
        *,
        name: str | None = None,
        full: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IndexStats:
        folder = repository_folder(root)
        return self._index(
            name or self.name_for(folder), folder, full=full, on_progress=on_progress
        )

    def name_for(self, folder: Path) -> str:
        """The name a folder is indexed under without `--name`: the name it was indexed
        under before (updating it, not adding a copy named after the folder), else the
        folder's name."""
        for repo in self.backend.repos.repos():
            if Path(repo.root) == folder:
                return repo.id
        return folder.name

    def index_commit(
        self,
        git_path: str | Path,
        commit: str = "HEAD",
        *,
        name: str | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IndexStats:
        """Index a repository as it is at `commit`, read from git objects (no checkout).

        Indexing one name commit after commit re-reads only the files that differ, and
        the embedding cache makes texts seen at any earlier commit free."""
        git_dir = resolve_git_dir(Path(git_path))
        with GitTreeSource(git_dir, commit, self.rules()) as source:
            return self._index(
                name or default_repo_name(git_dir), git_dir, on_progress=on_progress, source=source
            )

    def _index(
        self,
        repo: str,
        root: Path,
        *,
        full: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
        source: FileSource | None = None,
    ) -> IndexStats:
        idx, graph = self.settings.index, self.settings.graph
        backend = self.backend
        similar_pending: set[tuple[str, str]] = set()

        def link() -> dict[str, Any]:
            linked = link_graph(backend, repos=[repo], options=graph, similar=False)
            similar_pending.update(linked.similar_pending)
            return linked.as_dict()

        job = IndexJob(
            repo=repo,
            root=root,
            backend=backend,
            vectors=self._vectors(),
            embedder=self.embedder,
            rules=self.rules(),
            limits=ChunkLimits(
                chunk_max_tokens=idx.chunk_max_tokens,
                window_tokens=idx.window_tokens,
                window_overlap=idx.window_overlap,
                text_window_lines=idx.text_window_lines,
            ),
            full=full,
            on_progress=on_progress,
            source=source,
            link=link,
            link_vectors=lambda: similar_edges(backend, similar_pending, graph),
        )
        stats = index_repository(job)
        # Once the run has let go of the index: tombstones past their retention, when
        # enough are due (`[gc] auto`, `auto_threshold`).
        stats.gc = self.maybe_gc() or {}
        return stats

    def rules(self) -> DiscoveryRules:
        idx = self.settings.index
        return DiscoveryRules(max_file_bytes=idx.max_file_bytes, allow=idx.allow, block=idx.block)

    # -- searching ----------------------------------------------------------------
    def search_options(self, **overrides: Any) -> SearchOptions:
        """The search settings as options, with `overrides` (None values are ignored)."""
        s = self.settings.search
        options = SearchOptions(
            k=s.top_k,
            detail=s.detail,
            candidates=s.candidates,
            max_per_file=s.max_per_file,
            mode=s.mode,
            weights=self.rank_weights(),
            graph_hops=s.graph_hops,
            graph_seeds=s.graph_seeds,
            freshness_days=s.freshness_days,
            max_files=s.top_k,
            file_support=s.file_support,
            file_tested=s.file_tested,
            max_symbols=s.top_k,
            symbol_file_weight=s.symbol_file_weight,
            symbol_member_share=s.symbol_member_share,
            symbol_file_falloff=s.symbol_file_falloff,
            expand_files=s.expand_files,
        )
        return replace(options, **{k: v for k, v in overrides.items() if v is not None})

    def rank_weights(self) -> RankWeights:
        s = self.settings.search
        return RankWeights.from_mapping({f: getattr(s, f"weight_{f}") for f in FEATURES})

    def retrieve(self, query: str, options: SearchOptions | None = None) -> SearchResult:
        """Hits, the file and symbol views, what the query was understood to name, and
        optionally the subgraph around the hits."""
        self._require_index()
        options = options or self.search_options()
        options = replace(options, where=self.checked_filter(options.where))
        if self.access.scopes is not None:
            # A caller narrows the search; only the access decides what it may reach.
            options = replace(options, where=replace(options.where, scopes=self.access.scopes))
        backend = self.backend
        dense = options.mode != "bm25"
        graph = GraphReader(backend, self.access)
        sources = SearchSources(
            chunks=backend.chunks,
            symbols=backend.symbols,
            files=backend.files,
            lexical=backend.lexical,
            embedder=self.embedder if dense else None,
            vectors=self._vectors() if dense else None,
            graph=graph if graph.has_graph() else None,
            reranker=self.reranker,
        )
        with backend.snapshot():
            result = retrieve(query, options, sources)
            if sources.vectors is not None:
                _, indexed = backend.lexical.doc_freqs([])  # active chunks, cheaply
                stored = sources.vectors.count()
                result.coverage["dense"] = round(min(1.0, stored / indexed), 4) if indexed else 1.0
            result.generation = self._generation()
        result.stale = self._changed_since_indexed(result.cited)
        result.memories = self._memory_notes(hit_targets(result.hits))
        return result

    def _generation(self) -> int | None:
        """The index generation: the newest index run (of any repository), which every
        answer names so that a client can tell two answers from the same index apart
        from answers before and after a change."""
        last = self.backend.runs.runs(last=True)
        return last[0].id if last else None

    def _fresh(self, result: GraphResult, graph: GraphReader) -> GraphResult:
        """The graph answer with its generation and the nodes' files changed on disk
        (their records from the reader that answered: the files are read once)."""
        records: dict[tuple[str, str], FileRecord] = {}
        for node in result.nodes:
            if node.repo and node.path:
                record = graph.file_record(node.repo, node.path)
                if record is not None:
                    records[(node.repo, node.path)] = record
        stale = self._changed_since_indexed(records)
        notes = self._memory_notes([node.id for node in result.nodes])
        return result.model_copy(
            update={"generation": self._generation(), "stale": stale, "memories": notes}
        )

    def _changed_since_indexed(self, records: dict[tuple[str, str], FileRecord]) -> list[str]:
        """Those files (repo, path → the record indexed) whose size or mtime on disk
        differ from what was indexed, or that are gone: an answer citing them may be out
        of date."""
        roots = {r.id: Path(r.root) for r in self._repos()}
        changed: list[str] = []
        for (repo, path), record in sorted(records.items()):
            root = roots.get(repo)
            if root is None or not root.is_dir() or (root / "objects").is_dir():
                continue  # gone, or indexed from git objects: nothing on disk to compare
            try:
                st = (root / path).stat()
            except OSError:
                changed.append(f"{repo}/{path}")
                continue
            if (st.st_size, st.st_mtime_ns) != (record.size, record.mtime_ns):
                changed.append(f"{repo}/{path}")
        return changed

    def changed_on_disk(self, repo: str, path: str) -> bool:
        """Whether an indexed file changed (size or mtime) or left the disk since it was
        indexed: what it shows may be out of date."""
        record = self.backend.files.files(repo, [path]).get((repo, path))
        if record is None or not self.access.allows(repo, path):
            return False
        return bool(self._changed_since_indexed({(repo, path): record}))

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        where: ChunkFilter | None = None,
        detail: str | None = None,
        mode: str | None = None,
        rerank: bool | None = None,
    ) -> list[Hit]:
        """The best `k` hits. `rerank=True` has the `[llm]` chat model reorder the best
        `[llm] rerank_candidates` first (a ConfigError without one); None follows
        `[llm] rerank`. `Engine.rerank` says whether it ran, and why not."""
        want = self.wants_rerank(rerank)
        top_k = k or self.settings.search.top_k
        options = self.search_options(
            k=self.rerank_pool(top_k) if want else top_k, where=where, detail=detail, mode=mode
        )
        hits = self.retrieve(query, options).hits
        if want:
            hits = self.rerank(query, hits).hits
        return hits[:top_k]

    def wants_rerank(self, rerank: bool | None) -> bool:
        """Whether to rerank: as asked, else as `[llm] rerank` says. Asking for it
        explicitly with no `[llm]` model is a ConfigError that says what to set."""
        if rerank:
            require_endpoint(self.settings.llm, str(self.settings.config_path))
        return self.settings.llm.rerank if rerank is None else rerank

    def rerank_pool(self, k: int) -> int:
        """How many hits to search for when the best `[llm] rerank_candidates` of them
        are reranked and `k` are kept."""
        return max(k, self.settings.llm.rerank_candidates)

    def rerank(self, query: str, hits: Sequence[Hit]) -> Reranked:
        """`hits` with their best `[llm] rerank_candidates` reordered by the `[llm]` chat
        model (one prompt within `rerank_tokens`), and whether that happened: any failure
        (no model, an HTTP error, a timeout, a reply without ids) keeps the order and
        says why. Reranked hits note their rank before in `why["rank_before_rerank"]`."""
        return rerank_by_endpoint(query, hits, self.settings.llm)

    def search_files(
        self, query: str, *, k: int | None = None, where: ChunkFilter | None = None
    ) -> list[FileHit]:
        """Files ranked by their best evidence ("which files handle X?")."""
        options = self.search_options(max_files=k, where=where)
        return self.retrieve(query, options).files

    def search_symbols(
        self, query: str, *, k: int | None = None, where: ChunkFilter | None = None
    ) -> list[SymbolHit]:
        """Functions, methods and classes ranked with their file's evidence ("which
        functions handle X?")."""
        options = self.search_options(max_symbols=k, where=where)
        return self.retrieve(query, options).symbols

    def _repos(self) -> list[RepoRecord]:
        """The repositories this engine's access may see."""
        return [r for r in self.backend.repos.repos() if self.access.allows_repo(r.id)]

    def _require_index(self) -> None:
        if not self._repos():
            raise NotIndexedError(
                f"Nothing is indexed in {self.settings.data_dir} yet; run "
                "`codecompass index PATH` first."
            )

    # -- repositories ---------------------------------------------------------------
    def repo(self, name: str | None = None) -> RepoRecord:
        """The indexed repository `name` (the only one when None), or UnknownRepoError."""
        repos = self._repos()
        if not repos:
            self._require_index()
        if name is None:
            if len(repos) > 1:
                names = ", ".join(r.id for r in repos)
                raise UnknownRepoError(f"Several repositories are indexed ({names}); name one.")
            return repos[0]
        for r in repos:
            if r.id == name:
                return r
        names = ", ".join(r.id for r in repos)
        raise UnknownRepoError(f"Unknown repository {name!r}; indexed: {names}.")

    def repo_names(self) -> list[str]:
        """The names of the repositories this engine may see."""
        return [r.id for r in self._repos()]

    def indexed_languages(self) -> list[str]:
        """The languages of the indexed files of the repositories this engine may see."""
        seen = set(self.repo_names())
        return sorted(
            {f.language for (repo, _), f in self.backend.files.files().items() if repo in seen}
        )

    def indexing_now(self) -> list[str]:
        """The repositories of this index a live index run is writing now: until it ends,
        missing vectors are being computed, not lost."""
        seen = set(self.repo_names())
        return [repo for repo in self.backend.runs.indexing_now() if repo in seen]

    def checked_filter(self, where: ChunkFilter) -> ChunkFilter:
        """`where` with its values normalized (`Go` → `go`, `./src/` → `src/`), or an
        InputError listing the valid values: a filter that can match nothing is a mistake,
        not an empty result."""
        language = kind = None
        if where.language:
            language = LANGUAGE_ALIASES.get(where.language.lower(), where.language.lower())
            if language not in LANGUAGES:
                raise InputError(
                    f"Unknown language {where.language!r}; use one of: "
                    f"{', '.join(sorted(LANGUAGES))}."
                )
        if where.kind:
            kind = where.kind.lower()
            if kind not in CHUNK_KINDS:
                raise InputError(
                    f"Unknown kind {where.kind!r}; use one of: {', '.join(sorted(CHUNK_KINDS))}."
                )
        repo = self.repo(where.repo).id if where.repo else None
        path_prefix = where.path_prefix
        if path_prefix:
            while path_prefix.startswith("./"):
                path_prefix = path_prefix[2:]
            if path_prefix in (".", ""):
                path_prefix = None
        if path_prefix:
            paths = [p for _, p in self.backend.files.paths(repo)]
            if not any(p.startswith(path_prefix) for p in paths):
                tops = sorted({p.split("/", 1)[0] + ("/" if "/" in p else "") for p in paths})
                shown = ", ".join(tops[:12]) + (", …" if len(tops) > 12 else "")
                raise InputError(
                    f"No indexed file's path starts with {where.path_prefix!r}; paths are "
                    f"relative to their repository's root, which holds: {shown or 'nothing'}."
                )
        return replace(where, language=language, kind=kind, repo=repo, path_prefix=path_prefix)

    def _repo_name(self, repo: str | None) -> str | None:
        return None if repo is None else self.repo(repo).id

    # -- files --------------------------------------------------------------------------
    def open_file(
        self,
        path: str,
        start_line: int | None = None,
        end_line: int | None = None,
        *,
        repo: str | None = None,
    ) -> FileView:
        """Lines of a file of an indexed repository, read from disk (the source of truth)
        as the index reads it, so a chunk's line range shows its text: line ends and
        control characters canonical; a notebook's cell sources at their lines, JSON
        blank. `path` may also be written as the graph commands print it: `repo/path`,
        or a node id `repo/path#Name` (the symbol's lines unless a range is given)."""
        path, repo, symbol_lines = self._printed_location(path, repo)
        if symbol_lines is not None and start_line is None:
            start_line, end_line = symbol_lines
        confined = self.confine(path, repo=repo)
        rel = confined.rel
        # Redacted whole, then cut: a range that starts inside a private key block must
        # not show the key's body.
        text = stored_text(read_text(confined))
        lines = notebook_lines(rel, text) or file_lines(text)
        total = len(lines)
        start = 1 if start_line is None else start_line
        end = start + OPEN_MAX_LINES - 1 if end_line is None else end_line
        if start >= 1 and end < start:
            raise OutOfRangeError(
                f"Line range {start}-{end} is reversed; swap them: {rel}:{end}-{start}."
            )
        if start < 1 or start > max(total, 1):
            asked = f"Line {start}" if end_line is None else f"Line range {start}-{end}"
            raise OutOfRangeError(f"{asked} is out of bounds for {rel} (lines 1-{total}).")
        end = min(end, total)
        text = "\n".join(lines[start - 1 : end])
        return FileView(
            repo=confined.repo,
            path=rel,
            start_line=start,
            end_line=end,
            total_lines=total,
            text=text,
        )

    def _printed_location(
        self, path: str, repo: str | None
    ) -> tuple[str, str | None, tuple[int, int] | None]:
        """(path, repository, the symbol's lines) of a location printed with its
        repository's name in front (`api/src/app.py`) or as a node id
        (`api/src/app.py#App.run`); any other location as it is."""
        head, slash, rest = path.partition("/")
        if "#" in path:
            # `path#Name` within `repo` (or the only repository), else a whole node id:
            # a repository named like a top folder (`src`) makes both readings plausible.
            names = [repo] if repo is not None else self.repo_names()
            nodes = [f"{name}/{path}" for name in names]
            if repo in (None, head):
                nodes.append(path)
            found = self.backend.symbols.symbols(SymbolQuery(ids=nodes))
            if found:
                sym = min(found, key=lambda s: nodes.index(s.id))
                return sym.path, sym.repo, (sym.start_line, sym.end_line)
            self._no_symbol_in_file(path, repo)
        if not slash or head not in self.repo_names() or repo not in (None, head):
            return path, repo, None
        if self.backend.files.files(head, [path]) or not self.backend.files.files(head, [rest]):
            return path, repo, None
        return rest, head, None

    def _no_symbol_in_file(self, location: str, repo: str | None) -> None:
        """NotFoundError naming the symbols of the file `location` (`path#Name`) names,
        when that file is indexed and holds no such symbol; else nothing."""
        where, _, name = location.rpartition("#")
        rel, repo, _ = self._printed_location(where, repo)
        if repo is None and len(self.repo_names()) != 1:
            return
        repo_id = self.repo(repo).id
        if not self.backend.files.files(repo_id, [rel]):
            return
        self.confine(rel, repo=repo_id)  # outside the caller's scopes: refused as such
        symbols = self.backend.symbols.symbols(SymbolQuery(files=[(repo_id, rel)]))
        held = [s.qualified_name for s in sorted(symbols, key=lambda s: s.start_line)]
        listed = ", ".join(held[:MAX_NAMED_SYMBOLS]) + (
            ", …" if len(held) > MAX_NAMED_SYMBOLS else ""
        )
        raise NotFoundError(
            f"{rel} has no symbol {name!r}"
            + (f"; it defines: {listed}." if held else " (it defines none).")
            + " Open the file by its path, or find the name with find_symbol."
        )

    def confine(
        self, path: str, *, repo: str | None = None, allow_dir: bool = False
    ) -> ConfinedPath:
        """`path` inside an indexed repository, or AccessDeniedError / NotFoundError
        (see `codecompass.security.paths` for what is refused)."""
        info = self.repo(repo)
        idx = self.settings.index
        policy = PathPolicy(allow=idx.allow, block=idx.block, max_file_bytes=idx.max_file_bytes)
        # An indexed path opens as it is, odd characters and all; the listing is read only
        # for a path that the strict reading would change or refuse.
        literal = not is_plain_path(path) and bool(self.backend.files.files(info.id, [path]))
        confined = confine(
            Path(info.root), path, policy, allow_dir=allow_dir, repo=info.id, literal=literal
        )
        allowed = (
            self.access.allows_folder(info.id, confined.rel)
            if confined.is_dir
            else self.access.allows(info.id, confined.rel)
        )
        if not allowed:
            raise AccessDeniedError(
                f"{path} is outside what {self.access.principal!r} may read in {info.id}; "
                "ask for access to it, or search within your scopes."
            )
        return confined

    def git_log(
        self,
        path: str = ".",
        *,
        repo: str | None = None,
        rev_range: str | None = None,
        limit: int = 20,
    ) -> list[Commit]:
        """Commits that touched a file or folder of an indexed repository, newest first."""
        confined = self.confine(path, repo=repo, allow_dir=True)
        return gitinfo.git_log(confined.root, confined.rel, rev_range=rev_range, limit=limit)

    def git_blame(
        self, path: str, start_line: int, end_line: int, *, repo: str | None = None
    ) -> list[BlameHunk]:
        """Who last changed each line of a range, grouped into hunks."""
        confined = self.confine(path, repo=repo)
        total = len(file_lines(read_text(confined)))  # git counts newlines only
        return gitinfo.git_blame(confined.root, confined.rel, start_line, end_line, total)

    # -- answers ------------------------------------------------------------------------
    def find_evidence(
        self,
        query: str,
        *,
        scope: list[str] | None = None,
        top_k: int = 8,
        where: ChunkFilter | None = None,
        min_score: float = 0.0,
        pool: int | None = None,
    ) -> answer.Found:
        """The hits for a question, best first: a search of each repository in `scope`
        (or all), those under `min_score` dropped, at most `pool` (default `top_k`)."""
        answer.check_limits(top_k, self.settings.llm.context_tokens)
        k = max(top_k, pool or top_k)
        base = where or ChunkFilter()
        # Each repository once (a name given twice had doubled every evidence); an
        # unknown name is an error, not an empty answer.
        repos: list[str | None] = list(
            dict.fromkeys(self.repo(r).id for r in (scope or []) if r and r != "all")
        )
        hits: list[Hit] = []
        stale: set[str] = set()
        generation: int | None = None
        coverage: dict[str, float] = {}
        for repo in repos or [None]:
            found = self.retrieve(query, self.search_options(k=k, where=replace(base, repo=repo)))
            hits.extend(found.hits)
            stale.update(found.stale)
            generation = found.generation
            coverage = found.coverage
        if len(repos) > 1:  # one list from several: merged by score
            hits.sort(key=lambda h: -h.score)
        ranked = [h for h in hits if h.score >= min_score]
        return answer.Found(ranked[:k], generation, stale, coverage)

    def pack_evidence(
        self,
        query: str,
        found: answer.Found,
        *,
        top_k: int = 8,
        rerank: RerankInfo | None = None,
    ) -> answer.Gathered:
        """The best `top_k` of `found` (in its order), numbered and packed into a context
        within the `[llm] context_tokens` budget, with the graph's links between them."""
        gathered = answer.gather(
            query,
            found.hits,
            top_k=top_k,
            budget_tokens=self.settings.llm.context_tokens,
            dependencies=lambda node, repo: self.dependencies(node, repo=repo),
            ordered=True,
        )
        cited = {f"{e.repo}/{e.path}" for e in gathered.evidences}
        return replace(
            gathered,
            generation=found.generation,
            stale=sorted(found.stale & cited),
            coverage=found.coverage,
            rerank=rerank,
            definitions=self._definitions(gathered.evidences),
        )

    def _definitions(self, evidences: Sequence[Evidence]) -> dict[int, SymbolRecord]:
        """Evidence number → the symbol it lies in (of those named by their symbol)."""
        named = [e for e in evidences if e.symbol]
        if not named:
            return {}
        records = self.graph.symbols_at((e.repo, e.path, e.symbol or "") for e in named)
        out: dict[int, SymbolRecord] = {}
        for e in named:
            around = [
                r
                for r in records
                if (r.repo, r.path, r.qualified_name) == (e.repo, e.path, e.symbol)
                and r.start_line <= e.start_line <= r.end_line
            ]
            if around:
                out[e.n] = min(around, key=lambda r: r.end_line - r.start_line)
        return out

    def gather(
        self,
        query: str,
        *,
        scope: list[str] | None = None,
        top_k: int = 8,
        where: ChunkFilter | None = None,
        min_score: float = 0.0,
        rerank: bool | None = None,
    ) -> answer.Gathered:
        """The evidence for a question: a search of each repository in `scope` (or all),
        optionally reranked by the `[llm]` model (as in `search`), packed into a context
        within the `[llm] context_tokens` budget."""
        want = self.wants_rerank(rerank)
        found = self.find_evidence(
            query,
            scope=scope,
            top_k=top_k,
            where=where,
            min_score=min_score,
            pool=self.rerank_pool(top_k) if want else None,
        )
        info = None
        if want:
            reranked = self.rerank(query, found.hits)
            found, info = replace(found, hits=reranked.hits), reranked.info
        return self.pack_evidence(query, found, top_k=top_k, rerank=info)

    def ask(
        self,
        query: str,
        *,
        scope: list[str] | None = None,
        top_k: int = 8,
        where: ChunkFilter | None = None,
        min_score: float = 0.0,
        rerank: bool | None = None,
    ) -> Answer:
        """An answer built on evidence: the [llm] chat endpoint when set, else extractive."""
        gathered = self.gather(
            query, scope=scope, top_k=top_k, where=where, min_score=min_score, rerank=rerank
        )
        return answer.answer_locally(gathered, self.settings.llm)

    # -- status and usage -----------------------------------------------------------------
    def usage_stats(self, since: str | None = None) -> dict[str, Any]:
        """Tool-call latency, no-hit and evidence rates, indexing volumes, provider errors."""
        return usage_stats(self.backend.audit, self.backend.runs, since)

    def status(self) -> dict[str, Any]:
        self._require_index()
        backend = self.backend
        repos: list[dict[str, Any]] = []
        for info in self._repos():
            last = backend.runs.runs(info.id, last=True)
            files = backend.files.files(info.id)
            repos.append(
                {
                    "id": info.id,
                    "root": info.root,
                    "last_commit": info.last_commit,
                    "last_indexed_at": info.last_indexed_at,
                    **backend.chunks.counts(info.id),
                    "decode_error_files": self._file_problems(info.id, files, "decode_error"),
                    "parse_error_files": self._file_problems(info.id, files, "parse_error"),
                    # Stored by another version of the reader: the next run reads them.
                    "files_to_read_again": sum(
                        reads_again(path, f.reader_version) for (_, path), f in files.items()
                    ),
                    "last_run": _run_dict(last[0]) if last else None,
                    "changed_on_disk": self._changes_on_disk(info.id, Path(info.root), files),
                }
            )
        meta = backend.meta.meta()
        dim = int(meta.get("embedder_dim") or 0)
        # Opened with the recorded size: counting needs no embedding model.
        vectors = backend.vectors(dim).count() if dim else 0
        _, chunks = backend.lexical.doc_freqs([])
        return {
            "data_dir": str(self.settings.data_dir),
            "backend": backend.name,
            "generation": self._generation(),
            "format_version": meta.get("format_version"),
            "model": meta.get("embedder_model"),
            "dim": dim,
            "vectors": {"stored": vectors, "active_chunks": chunks},
            "indexing_now": self.indexing_now(),
            "repos": repos,
        }

    def _file_problems(
        self,
        repo: str,
        files: dict[tuple[str, str], FileRecord],
        problem: Literal["decode_error", "parse_error"],
    ) -> list[dict[str, str]]:
        """Files whose bytes were invalid in their encoding (and how they were read), or
        that fell back to line windows (and why), in path order."""
        return [
            {"path": path, "problem": found}
            for (_, path), f in sorted(files.items())
            if (found := getattr(f, problem)) is not None and self.access.allows(repo, path)
        ]

    def _changes_on_disk(
        self, repo: str, root: Path, files: dict[tuple[str, str], FileRecord]
    ) -> dict[str, Any]:
        """Files added, changed or removed since the last run (by size and mtime): the
        counts, and the files (the first STALE_LISTED). A file is added only if an index
        run would read it: its whole content decodes as text (a FITS image's header
        looks like text, the rest is binary), not just the head discovery sniffs."""
        if not root.is_dir():
            return {"error": f"{root} no longer exists"}
        if (root / "objects").is_dir() and (root / "HEAD").is_file():
            # Indexed with index_commit from a git directory: there is no work tree.
            return {"note": "indexed from git objects; see last_commit"}
        stored = {path: f for (_, path), f in files.items()}
        rules = self.rules()
        found = {c.path: c for c in discover(root, rules).files}
        added = sorted(
            p
            for p in found
            if p not in stored and file_hash_on_disk(root, p, rules.max_file_bytes) is not None
        )
        removed = sorted(p for p in stored if p not in found)
        changed = sorted(
            p
            for p, c in found.items()
            if p in stored and (stored[p].size, stored[p].mtime_ns) != (c.size, c.mtime_ns)
        )
        stale = [
            {"path": p, "change": change}
            for change, paths in (("added", added), ("changed", changed), ("removed", removed))
            for p in paths
            if self.access.allows(repo, p)
        ]
        return {
            "added": len(added),
            "changed": len(changed),
            "removed": len(removed),
            "files": stale[:STALE_LISTED],
            "more": max(0, len(stale) - STALE_LISTED),
        }

    # -- semantic memory ---------------------------------------------------------------
    @property
    def memory(self) -> MemoryBank:
        """Agents' memories of this workspace: remember, recall, forget (docs/memory.md)."""
        if self._memory is None:
            self._memory = MemoryBank(
                self.backend.memories,
                self._memory_embedder,
                self.settings.memory,
                code=CodeLinks(
                    resolve=self._memory_target,
                    missing=self._missing_targets,
                    allows=self.access.allows_node,
                ),
            )
        return self._memory

    def _memory_embedder(self) -> Embedder:
        self._check_model()  # memory vectors are compared with the code's model's
        return self.embedder

    def _memory_target(self, name: str) -> str:
        self._require_index()
        return self.graph.resolve_node(name)

    def _missing_targets(self, targets: Sequence[str]) -> set[str]:
        """The link targets (symbol, file or repository node ids) not in the index."""
        if not targets:
            return set()
        symbols = [t for t in targets if "#" in t]
        found = {s.id for s in self.backend.symbols.symbols(SymbolQuery(ids=symbols))}
        repos = {r.id for r in self.backend.repos.repos()}
        found |= repos & set(targets)
        for repo in sorted(repos):
            prefix = repo + "/"
            paths = {t[len(prefix) :] for t in targets if "#" not in t and t.startswith(prefix)}
            if paths:
                files = self.backend.files.files(repo)
                found |= {prefix + p for p in paths if (repo, p) in files}
        return set(targets) - found

    def capture_memories(
        self,
        lines: Iterable[str],
        *,
        dry_run: bool = False,
        use_llm: bool = True,
        complete: Complete | None = None,
        extractor: str = "llm",
    ) -> CaptureResult:
        """Propose memories from a session transcript (JSON Lines) and keep them as an
        automatic write. `complete(system, user) -> (text, model)` is the model to
        extract with (the MCP client's, through sampling); without it the [llm] model
        when configured and `use_llm`; else, or when the model fails, the rule-based
        extractor."""
        try:
            turns = read_transcript(lines)
        except ValueError as exc:
            raise InputError(f"{exc}; give a JSON Lines transcript.") from exc
        error: str | None = None
        if complete is None and use_llm and self.settings.llm.base_url:
            chat = answer.ChatModel.from_settings(self.settings.llm)
            complete = partial(chat.complete, max_tokens=self.settings.llm.max_tokens)
        proposals, model, kind = None, None, "rules"
        if complete is not None and turns:
            system, user = capture_prompt(turns, max_chars=self.settings.llm.context_tokens * 4)
            try:
                text, model = complete(system, user)
                proposals, kind = parse_proposals(text), extractor
            except (LLMError, ValueError) as exc:
                error = f"{extractor}: {exc}; the rule-based extractor ran instead"
                model = None
        if proposals is None:
            proposals = extract_rules(turns, min_words=self.settings.memory.capture_min_words)
        items = self.memory.keep_proposals(proposals, source=f"capture:{kind}", dry_run=dry_run)
        return CaptureResult(
            extractor=cast(Any, kind),
            model=model,
            dry_run=dry_run,
            turns=len(turns),
            items=items,
            provider_error=error,
        )

    def _memory_notes(self, targets: Sequence[str]) -> list[MemoryNote]:
        return self.memory.notes(targets) if targets else []

    # -- code graph ---------------------------------------------------------------------
    @property
    def graph(self) -> GraphReader:
        self._require_index()
        return GraphReader(self.backend, self.access)

    def find_symbol(
        self, name: str, *, kind: str | None = None, repo: str | None = None, limit: int = 20
    ) -> list[SymbolMatch]:
        """Symbols by id, qualified or simple name (exact first, then fuzzy), scored."""
        kinds = get_args(SymbolKind)
        if kind is not None and kind not in kinds:
            raise InputError(f"Unknown kind {kind!r}; use one of: {', '.join(sorted(kinds))}.")
        return self.graph.find_symbol(name, kind=kind, repo=self._repo_name(repo), limit=limit)

    def dependencies(
        self,
        symbol: str,
        *,
        types: list[str] | None = None,
        depth: int = 1,
        min_confidence: float = 0.0,
        repo: str | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> GraphResult:
        """What `symbol` uses: calls, imports, bases, references, HTTP routes it calls,
        topics it emits to and their consumers, packages of other repositories (or
        `types`)."""
        return self._neighbours(symbol, "out", types, depth, min_confidence, repo, limit)

    def dependents(
        self,
        symbol: str,
        *,
        types: list[str] | None = None,
        depth: int = 1,
        min_confidence: float = 0.0,
        repo: str | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> GraphResult:
        """What uses `symbol`: the reverse of `dependencies`."""
        return self._neighbours(symbol, "in", types, depth, min_confidence, repo, limit)

    def callers(
        self,
        symbol: str,
        *,
        types: list[str] | None = None,
        depth: int = 1,
        min_confidence: float = 0.0,
        repo: str | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> GraphResult:
        """Who calls `symbol`, with the call lines: its callers in the code, the HTTP
        clients calling a route it handles and the producers of an event it listens to,
        in any repository (dependents along `calls`, `http` and `event` edges, or
        `types`); for a file or a module, also the files importing it; for a type, the
        code naming it and the types deriving from it (`TYPE_USER_TYPES`)."""
        return self._neighbours(
            symbol, "in", types, depth, min_confidence, repo, limit, callers=types is None
        )

    def _neighbours(
        self,
        symbol: str,
        direction: str,
        types: list[str] | None,
        depth: int,
        min_confidence: float,
        repo: str | None,
        limit: int,
        *,
        callers: bool = False,
    ) -> GraphResult:
        return self._walk(
            symbol,
            repo,
            callers=callers,
            depth=depth,
            types=types,
            direction=direction,
            min_confidence=min_confidence,
            default_types=DEPENDENCY_TYPES,
            limit=limit,
        )

    def links(self, *, via: str | None = None, repo: str | None = None) -> ServiceLinks:
        """The links between services (`via` http, rpc, sdk or event; default all) with
        an end in `repo`: both ends, the route or topic, the confidence, how each link
        was made, and the evidence line on each side."""
        return service_links(self.graph, via=check_via(via), repo=self._repo_name(repo))

    def traverse(
        self,
        start: str,
        *,
        depth: int = 2,
        types: list[str] | None = None,
        direction: str = "out",
        repo: str | None = None,
        limit: int = 200,
    ) -> GraphResult:
        """Breadth-first walk from `start`, with the path to every node reached."""
        return self._walk(start, repo, depth=depth, types=types, direction=direction, limit=limit)

    def _walk(
        self, start: str, repo: str | None, *, callers: bool = False, **options: Any
    ) -> GraphResult:
        """`graph.traverse` from the node `start` names; with `callers`, along the caller
        edge types, and `imports` too when the node is a file or a module."""
        graph = self.graph
        node, *overloads = graph.resolve_nodes(start, repo=self._repo_name(repo))
        rpcs = self._declared_rpcs(node)
        if rpcs:  # a .proto's rpc: the rpc node its links are on, and its servers
            serves = self.backend.edges.edges(EdgeQuery(targets=rpcs, types=["serves"]))
            overloads += [*rpcs, *dict.fromkeys(e.source for e in serves)]
        if callers:
            options["types"] = [*CALLER_TYPES, "references"]
            if graph.is_module(node):
                options["types"].append("imports")
            if graph.is_type(node):
                options["types"].extend(t for t in TYPE_USER_TYPES if t != "references")
            else:  # a function passed on as a value (`pet::setType`), not a doc's mention
                options["reference_vias"] = VALUE_VIAS
            if rpcs:
                options["types"].append("serves")
        result = graph.traverse(node, repo=repo, overloads=overloads, **options)
        also = graph.also_named(start, [node, *overloads], repo=self._repo_name(repo))
        if also:
            result.limits.append(also)
        return self._fresh(result, graph)

    def _declared_rpcs(self, node: str) -> list[str]:
        """The rpc nodes (`rpc:shop.Checkout/PlaceOrder`) an rpc's symbol in a `.proto`
        declares."""
        if ".proto#" not in node:
            return []
        facts = self.backend.links.http_facts()
        return [f"{RPC_PREFIX}{f.pattern}" for f in facts if f.role == "rpc" and f.node == node]

    def subgraph(self, ids: list[str], *, limit: int = 200) -> GraphResult:
        """These nodes and the edges between them (at most `limit` nodes)."""
        graph = self.graph
        return self._fresh(graph.subgraph(ids, limit=limit), graph)

    def node_details(self, node: str, *, limit: int = 50) -> NodeDetails:
        """A node up close: signature, doc, location, its strongest edges in and out and
        the memories about it."""
        details = self.graph.details(node, limit=limit)
        return details.model_copy(update={"memories": self._memory_notes([details.node.id])})

    def repo_overview(self, *, repo: str | None = None, budget_tokens: int = 2000) -> Overview:
        """A map of the repository: its most important files and symbols, with their
        signatures, within `budget_tokens`."""
        return self.graph.overview(self.repo(repo).id, budget_tokens)

    # -- integrity ------------------------------------------------------------------------
    def verify(self, *, repair: bool = False) -> VerifyReport:
        """Check the index against its files and itself; with `repair`, fix what can be
        fixed (see `codecompass.lifecycle.verify`)."""
        try:
            self._require_index()
            backend = self.backend
        except Exception as exc:  # a database too damaged to open is a finding
            damage = damage_of(exc)
            if damage is None:
                raise
            return VerifyReport([Finding("database", str(damage), repairable=False)])
        workspace = VerifyWorkspace(
            backend=backend,
            max_file_bytes=self.settings.index.max_file_bytes,
            graph=self.settings.graph,
            embedder=lambda: self.embedder,
            reindex=lambda repo, root: self.index(root, name=repo, full=True),
        )
        return verify_index(workspace, repair=repair)

    # -- moving the index between backends ----------------------------------------------
    def export_index(self, path: str | Path) -> dict[str, Any]:
        """Write the whole index (catalog, facts, vectors) to one archive."""
        self._require_index()
        return transfer.export_index(self.backend, Path(path))

    def import_index(
        self, path: str | Path, *, roots: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """Load an archive written by `export_index` into this (empty or same-model) index,
        without embedding; `roots` re-points repositories at their folders here. Each
        repository is written under an index run (and its writer lock)."""
        backend = self.backend
        archive = Path(path)
        incoming = transfer.archive_repos(archive)
        present = sorted(set(incoming) & {r.id for r in backend.repos.repos()})
        if present:
            raise InputError(
                f"{', '.join(present)} already indexed here; import into an empty data folder "
                "or workspace, or remove them first with `codecompass repo remove NAME`."
            )
        runs = {repo: backend.runs.start_run(repo) for repo in incoming}
        try:
            manifest, _ = transfer.import_index(backend, archive, roots)
            graph = link_graph(backend, repos=list(runs), options=self.settings.graph).as_dict()
        except BaseException as exc:
            for run in runs.values():
                backend.runs.finish_run(run, "failed", {}, error=f"{type(exc).__name__}: {exc}")
            raise
        for run in runs.values():
            backend.runs.finish_run(
                run, "ok", {"imported_from": str(archive), **manifest["counts"], "graph": graph}
            )
        return {**manifest, "graph": graph}

    # -- workspace: many repositories ---------------------------------------------------
    def add_repo(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IndexStats:
        """Index another repository into this workspace (or update it)."""
        root = repository_folder(path)
        chosen = name or self.name_for(root)
        if not chosen or "/" in chosen or chosen.startswith(VIRTUAL_PREFIXES):
            raise InputError(f"{chosen!r} cannot name a repository; pass --name NAME.")
        for other in self.backend.repos.repos():
            if other.id == chosen and Path(other.root) != root:
                raise InputError(
                    f"A repository named {chosen!r} is already indexed from {other.root}; "
                    "pass another --name."
                )
        return self.index(root, name=chosen, on_progress=on_progress)

    def list_repos(self) -> list[dict[str, Any]]:
        """The repositories of this workspace with their counts."""
        backend = self.backend
        out = []
        for info in self._repos():
            edges = len(backend.edges.edges(EdgeQuery(repo=info.id)))
            out.append(
                {
                    "id": info.id,
                    "root": info.root,
                    "last_commit": info.last_commit,
                    "last_indexed_at": info.last_indexed_at,
                    **backend.chunks.counts(info.id),
                    "edges": edges,
                }
            )
        return out

    def remove_repo(self, name: str) -> dict[str, Any]:
        """Delete one repository's files, symbols, chunks, vectors and edges, and nothing
        else; links from other repositories into it become unresolved."""
        repo = self.repo(name).id
        backend = self.backend
        dependents, edges = unlink_repo(backend, repo)
        active = backend.chunks.counts(repo)["chunks"]
        removed = backend.repos.delete_repo(repo)
        dim = backend.meta.meta().get("embedder_dim")
        if dim:
            # Deleting needs no embedding model: open the vectors with the recorded size.
            backend.vectors(int(dim)).write([], NO_VECTORS, delete=ChunkFilter(repo=repo))
        link_graph(backend, repos=[], options=self.settings.graph, force=dependents)
        return {
            "repo": repo,
            **removed,
            "vectors": active,
            "edges": edges,
            "relinked_files": len(dependents),
        }

    # -- garbage collection and backups (lifecycle/gc.py, lifecycle/backup.py) ----------
    def _full_access_only(self, what: str) -> None:
        if self.access.scopes is not None:
            raise AccessDeniedError(
                f"{what} changes the whole index; {self.access.principal!r} may only read "
                "part of it. Run it as the index's owner (the command line)."
            )

    def _stored_vectors(self) -> VectorStore | None:
        """The vector store opened with the recorded dimension (no model needed)."""
        dim = self.backend.meta.meta().get("embedder_dim")
        return self.backend.vectors(int(dim)) if dim else None

    def gc(self, *, dry_run: bool = False, force: bool = False) -> dict[str, Any]:
        """Collect tombstones past their retention and rows nothing uses, after writing
        them to a pre-GC backup; `force` collects every tombstone; `dry_run` only counts.
        The figures of `lifecycle.gc.GCStats`."""
        from codecompass.lifecycle.gc import collect_garbage

        self._full_access_only("Garbage collection")
        return collect_garbage(
            self.backend, self._stored_vectors(), self.settings, dry_run=dry_run, force=force
        ).as_dict()

    def gc_status(self) -> dict[str, Any]:
        """Tombstones by reason, what a collection would remove now, sizes, backups."""
        from codecompass.lifecycle.gc import gc_status

        return gc_status(self.backend, self.settings)

    def maybe_gc(self) -> dict[str, Any] | None:
        """The automatic collection after an index run (`[gc] auto`, `auto_threshold`
        tombstones past their retention): its figures, or None when nothing was due or
        another writer holds the index. Call it once the run has finished."""
        from codecompass.lifecycle.gc import maybe_collect

        stats = maybe_collect(self.backend, self._stored_vectors(), self.settings)
        return None if stats is None else stats.as_dict()

    def backup(self, dest: str | Path | None = None) -> dict[str, Any]:
        """A consistent copy of the live index (embedded backend; see lifecycle/backup.py)."""
        from codecompass.lifecycle.backup import backup_index

        self._full_access_only("A backup")
        self._require_index()
        return backup_index(self.backend, self.settings, Path(dest) if dest else None)

    def restore(self, path: str | Path) -> dict[str, Any]:
        """Restore a full backup (the index, then its vectors from the cache) or a pre-GC
        backup (the tombstones and embeddings a collection deleted) into this index."""
        from codecompass.lifecycle.backup import restore_index

        self._full_access_only("A restore")
        return restore_index(self.backend, Path(path), self.embedder)


def _run_dict(run: RunRecord) -> dict[str, Any]:
    return {
        "id": run.id,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "status": run.status,
        "error": run.error,
        "stats": run.stats,
    }
