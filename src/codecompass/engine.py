"""The facade every frontend uses: index a repository, search it, open files, report status."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codecompass import answer, gitinfo
from codecompass.audit import usage_stats
from codecompass.errors import (
    DataDirError,
    InputError,
    ModelMismatchError,
    NotIndexedError,
    OutOfRangeError,
    UnknownRepoError,
)
from codecompass.gitexec import git_text
from codecompass.graph.api import GraphReader
from codecompass.graph.link import link as link_graph
from codecompass.graph.link import unlink_repo
from codecompass.graph.models import DEPENDENCY_TYPES, GraphResult, Overview, SymbolMatch
from codecompass.indexing.chunk import ChunkLimits
from codecompass.indexing.discover import DiscoveryRules, discover
from codecompass.indexing.gitsource import GitTreeSource, default_repo_name, resolve_git_dir
from codecompass.indexing.pipeline import IndexStats, Progress, index_repository
from codecompass.protocols import Embedder
from codecompass.search.expand import GraphView
from codecompass.search.hybrid import (
    FileHit,
    Hit,
    SearchOptions,
    SearchResult,
    SymbolHit,
    retrieve,
)
from codecompass.search.rank import FEATURES, RankWeights
from codecompass.search.rerank import Reranker
from codecompass.security.paths import ConfinedPath, PathPolicy, confine, read_text
from codecompass.security.secrets import redact_secrets
from codecompass.settings import (
    DEFAULT_DATA_DIR,
    ENV_PREFIX,
    Settings,
    load_settings,
    render_default_config,
)
from codecompass.storage.lance import LanceVectorStore, VectorFilter
from codecompass.storage.sqlite import DB_FILE, MetaStore

FORMAT_VERSION = "1"
OPEN_MAX_LINES = 2000


@dataclass(frozen=True, slots=True)
class FileView:
    repo: str
    path: str
    start_line: int
    end_line: int
    total_lines: int
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


def repo_root_of(path: Path) -> Path:
    """The git work tree holding `path`, or `path` itself for a plain folder."""
    top = git_text(path, "rev-parse", "--show-toplevel")
    return Path(top).resolve() if top else path


def find_data_dir(start: Path) -> Path | None:
    """The nearest `.codecompass/` holding an index, from `start` upwards."""
    for folder in (start, *start.parents):
        candidate = folder / DEFAULT_DATA_DIR
        if (candidate / DB_FILE).is_file():
            return candidate
    return None


class Engine:
    """One workspace (a data folder) and the repositories indexed into it."""

    # Set to a cross-encoder (or any `Reranker`) to reorder the head of search results.
    reranker: Reranker | None = None

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        self._store: MetaStore | None = None
        self._vectors: LanceVectorStore | None = None

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
            if not target.exists():
                raise InputError(f"{target} does not exist; pass the folder of a repository.")
            if not target.is_dir():
                raise InputError(f"{target} is not a folder; pass the folder of a repository.")
            root = target.resolve()
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
        if not (settings.data_dir / DB_FILE).is_file():
            raise NotIndexedError(
                f"{settings.data_dir} holds no index yet; run `codecompass index PATH "
                f"--data-dir {settings.data_dir}` first."
            )
        return cls(settings, embedder=embedder)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
        self._vectors = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- parts, created on first use ------------------------------------------------
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
    def store(self) -> MetaStore:
        if self._store is None:
            self._store = MetaStore(self.init())
        return self._store

    @property
    def vectors(self) -> LanceVectorStore:
        if self._vectors is None:
            self._check_model()
            self._vectors = LanceVectorStore(self.settings.data_dir, self.embedder.dim)
        return self._vectors

    def init(self) -> Path:
        """Create the data folder (with its .gitignore and config.toml) if missing."""
        folder = self.settings.data_dir
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
                pass
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Code Compass index data: never commit it.\n*\n", "utf-8")
            config = folder / "config.toml"
            if not config.exists():
                config.write_text(render_default_config(), encoding="utf-8")
        except OSError as exc:
            raise DataDirError(
                f"Cannot write to the data folder {folder} ({exc.strerror or exc}); "
                "fix its permissions or choose another with --data-dir."
            ) from exc
        return folder

    def _check_model(self) -> None:
        store = self.store
        recorded = store.get_meta("embedder_model")
        embedder = self.embedder
        if recorded is None:
            store.set_meta("format_version", FORMAT_VERSION)
            store.set_meta("embedder_model", embedder.model_id)
            store.set_meta("embedder_dim", str(embedder.dim))
            return
        dim = store.get_meta("embedder_dim")
        if recorded != embedder.model_id or dim != str(embedder.dim):
            raise ModelMismatchError(
                f"This index was built with the embedding model {recorded} ({dim}-d), but "
                f"{embedder.model_id} ({embedder.dim}-d) is configured. Set the [embedder] "
                f"settings back, or delete {self.settings.data_dir} and index again."
            )

    # -- indexing -----------------------------------------------------------------
    def index(
        self,
        root: str | Path,
        *,
        name: str | None = None,
        full: bool = False,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IndexStats:
        folder = Path(root).expanduser()
        if not folder.is_dir():
            raise InputError(f"{folder} is not a folder; pass the folder of a repository.")
        folder = folder.resolve()
        idx = self.settings.index
        return index_repository(
            repo=name or folder.name,
            root=folder,
            store=self.store,
            vectors=self.vectors,
            embedder=self.embedder,
            rules=self._rules(),
            limits=ChunkLimits(
                chunk_max_tokens=idx.chunk_max_tokens,
                window_tokens=idx.window_tokens,
                window_overlap=idx.window_overlap,
                text_window_lines=idx.text_window_lines,
            ),
            full=full,
            on_progress=on_progress,
            graph=self.settings.graph,
        )

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
        idx = self.settings.index
        with GitTreeSource(git_dir, commit, self._rules()) as source:
            return index_repository(
                repo=name or default_repo_name(git_dir),
                root=git_dir,
                store=self.store,
                vectors=self.vectors,
                embedder=self.embedder,
                rules=self._rules(),
                limits=ChunkLimits(
                    chunk_max_tokens=idx.chunk_max_tokens,
                    window_tokens=idx.window_tokens,
                    window_overlap=idx.window_overlap,
                    text_window_lines=idx.text_window_lines,
                ),
                on_progress=on_progress,
                source=source,
                graph=self.settings.graph,
            )

    def _rules(self) -> DiscoveryRules:
        idx = self.settings.index
        return DiscoveryRules(max_file_bytes=idx.max_file_bytes, allow=idx.allow, block=idx.block)

    # -- querying -----------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        language: str | None = None,
        path_prefix: str | None = None,
        kind: str | None = None,
        repo: str | None = None,
        detail: str | None = None,
        mode: str | None = None,
        max_per_file: int | None = None,
    ) -> list[Hit]:
        return self.retrieve(
            query,
            k=k,
            language=language,
            path_prefix=path_prefix,
            kind=kind,
            repo=repo,
            detail=detail,
            mode=mode,
            max_per_file=max_per_file,
        ).hits

    def search_files(self, query: str, *, k: int | None = None, **filters: Any) -> list[FileHit]:
        """Files ranked by their best evidence ("which files handle X?")."""
        return self.retrieve(query, max_files=k or self.settings.search.top_k, **filters).files

    def search_symbols(
        self, query: str, *, k: int | None = None, **filters: Any
    ) -> list[SymbolHit]:
        """Functions, methods and classes ranked with their file's evidence ("which
        functions handle X?")."""
        top = k or self.settings.search.top_k
        return self.retrieve(query, max_symbols=top, **filters).symbols

    def retrieve(
        self,
        query: str,
        *,
        k: int | None = None,
        language: str | None = None,
        path_prefix: str | None = None,
        kind: str | None = None,
        repo: str | None = None,
        detail: str | None = None,
        mode: str | None = None,
        max_per_file: int | None = None,
        max_files: int | None = None,
        max_symbols: int | None = None,
        subgraph: bool = False,
        weights: RankWeights | None = None,
        collect: bool = False,
    ) -> SearchResult:
        """Hits, the file and symbol views, what the query was understood to name, and
        optionally the subgraph around the hits."""
        self._require_index()
        s = self.settings.search
        self.vectors.refresh()
        options = SearchOptions(
            k=k or s.top_k,
            detail=detail or s.detail,
            filters=VectorFilter(repo=repo, path_prefix=path_prefix, language=language, kind=kind),
            candidates=s.candidates,
            rrf_k=s.rrf_k,
            max_per_file=max_per_file or s.max_per_file,
            mode=mode or s.mode,
            weights=weights or self.rank_weights(),
            graph_hops=s.graph_hops,
            graph_seeds=s.graph_seeds,
            freshness_days=s.freshness_days,
            max_files=max_files or s.top_k,
            file_support=s.file_support,
            max_symbols=max_symbols or s.top_k,
            symbol_file_weight=s.symbol_file_weight,
            expand_files=s.expand_files,
            subgraph=subgraph,
            collect=collect,
        )
        return retrieve(
            query,
            options,
            store=self.store,
            vectors=self.vectors,
            embedder=self.embedder,
            graph=self.graph_view(),
            reranker=self.reranker,
        )

    def rank_weights(self) -> RankWeights:
        s = self.settings.search
        return RankWeights.from_mapping({f: getattr(s, f"weight_{f}") for f in FEATURES})

    def graph_view(self) -> GraphView | None:
        """The code graph as search sees it (graph expansion and importance), or None
        when this index has no edges yet."""
        reader = GraphReader(self.store.conn)
        return reader if reader.has_graph() else None

    def _require_index(self) -> None:
        if not self.store.repos():
            raise NotIndexedError(
                f"Nothing is indexed in {self.settings.data_dir} yet; run "
                "`codecompass index PATH` first."
            )

    def repo(self, name: str | None = None) -> dict[str, Any]:
        """The indexed repository `name` (the only one when None), or UnknownRepoError."""
        return self._repo(name)

    def _repo(self, repo: str | None) -> dict[str, Any]:
        repos = self.store.repos()
        if not repos:
            self._require_index()
        if repo is None:
            if len(repos) > 1:
                names = ", ".join(r["id"] for r in repos)
                raise UnknownRepoError(f"Several repositories are indexed ({names}); name one.")
            return repos[0]
        for r in repos:
            if r["id"] == repo:
                return r
        names = ", ".join(r["id"] for r in repos)
        raise UnknownRepoError(f"Unknown repository {repo!r}; indexed: {names}.")

    def open_file(
        self,
        path: str,
        start_line: int | None = None,
        end_line: int | None = None,
        *,
        repo: str | None = None,
    ) -> FileView:
        """Lines of a file of an indexed repository, read from disk (the source of truth)."""
        info = self._repo(repo)
        confined = self.confine(path, repo=info["id"])
        rel = confined.rel
        lines = read_text(confined).splitlines()
        total = len(lines)
        start = 1 if start_line is None else start_line
        end = min(total, start + OPEN_MAX_LINES - 1) if end_line is None else end_line
        if start < 1 or end < start or start > max(total, 1):
            raise OutOfRangeError(
                f"Line range {start}-{end} is out of bounds for {rel} (1-{total})."
            )
        end = min(end, total)
        text = redact_secrets("\n".join(lines[start - 1 : end]))[0]
        return FileView(info["id"], rel, start, end, total, text)

    # -- guarded access, history, answers and usage (frontends: CLI, MCP) ------------
    def confine(
        self, path: str, *, repo: str | None = None, allow_dir: bool = False
    ) -> ConfinedPath:
        """`path` inside an indexed repository, or AccessDeniedError / NotFoundError
        (see `codecompass.security.paths` for what is refused)."""
        info = self._repo(repo)
        idx = self.settings.index
        policy = PathPolicy(allow=idx.allow, block=idx.block, max_file_bytes=idx.max_file_bytes)
        return confine(Path(info["root"]), path, policy, allow_dir=allow_dir, repo=info["id"])

    def git_log(
        self,
        path: str = ".",
        *,
        repo: str | None = None,
        rev_range: str | None = None,
        limit: int = 20,
    ) -> list[gitinfo.Commit]:
        """Commits that touched a file or folder of an indexed repository, newest first."""
        confined = self.confine(path, repo=repo, allow_dir=True)
        return gitinfo.git_log(confined.root, confined.rel, rev_range=rev_range, limit=limit)

    def git_blame(
        self, path: str, start_line: int, end_line: int, *, repo: str | None = None
    ) -> list[gitinfo.BlameHunk]:
        """Who last changed each line of a range, grouped into hunks."""
        confined = self.confine(path, repo=repo)
        total = len(read_text(confined).splitlines())
        return gitinfo.git_blame(confined.root, confined.rel, start_line, end_line, total)

    def ask(
        self,
        query: str,
        *,
        scope: list[str] | None = None,
        top_k: int = 8,
        path_prefix: str | None = None,
        language: str | None = None,
        min_score: float = 0.0,
    ) -> answer.Answer:
        """An answer built on evidence: the [llm] chat endpoint when set, else extractive."""
        gathered = answer.gather(
            self,
            query,
            scope=scope,
            top_k=top_k,
            path_prefix=path_prefix,
            language=language,
            min_score=min_score,
            budget_tokens=self.settings.llm.context_tokens,
        )
        return answer.answer_locally(gathered, self.settings.llm)

    def usage_stats(self, since: str | None = None) -> dict[str, Any]:
        """Tool-call latency, no-hit and evidence rates, indexing volumes, provider errors."""
        return usage_stats(self.store.conn, since)

    def status(self) -> dict[str, Any]:
        self._require_index()
        store = self.store
        repos: list[dict[str, Any]] = []
        for info in store.repos():
            repo = info["id"]
            repos.append(
                {
                    **info,
                    **store.counts(repo),
                    "last_run": store.last_run(repo),
                    "changed_on_disk": self._changes_on_disk(repo, Path(info["root"])),
                }
            )
        return {
            "data_dir": str(self.settings.data_dir),
            "format_version": store.get_meta("format_version"),
            "model": store.get_meta("embedder_model"),
            "dim": int(store.get_meta("embedder_dim") or 0),
            "repos": repos,
        }

    def _changes_on_disk(self, repo: str, root: Path) -> dict[str, Any]:
        """Files added, changed or removed since the last run (by size and mtime)."""
        if not root.is_dir():
            return {"error": f"{root} no longer exists"}
        if (root / "objects").is_dir() and (root / "HEAD").is_file():
            # Indexed with index_commit from a git directory: there is no work tree.
            return {"note": "indexed from git objects; see last_commit"}
        stored = self.store.files(repo)
        found = {c.path: c for c in discover(root, self._rules()).files}
        added = sorted(p for p in found if p not in stored)
        removed = sorted(p for p in stored if p not in found)
        changed = sorted(
            p
            for p, c in found.items()
            if p in stored and (stored[p].size, stored[p].mtime_ns) != (c.size, c.mtime_ns)
        )
        return {
            "added": len(added),
            "changed": len(changed),
            "removed": len(removed),
            "examples": (added + changed + removed)[:10],
        }

    # -- code graph ---------------------------------------------------------------------
    @property
    def graph(self) -> GraphReader:
        self._require_index()
        return GraphReader(self.store.conn)

    def find_symbol(
        self, name: str, *, kind: str | None = None, repo: str | None = None, limit: int = 20
    ) -> list[SymbolMatch]:
        """Symbols by id, qualified or simple name (exact first, then fuzzy), scored."""
        return self.graph.find_symbol(name, kind=kind, repo=self._repo_name(repo), limit=limit)

    def dependencies(
        self,
        symbol: str,
        *,
        types: list[str] | None = None,
        depth: int = 1,
        min_confidence: float = 0.0,
        repo: str | None = None,
    ) -> GraphResult:
        """What `symbol` uses: calls, imports, bases, references (or `types`)."""
        return self._neighbours(symbol, "out", types, depth, min_confidence, repo)

    def dependents(
        self,
        symbol: str,
        *,
        types: list[str] | None = None,
        depth: int = 1,
        min_confidence: float = 0.0,
        repo: str | None = None,
    ) -> GraphResult:
        """What uses `symbol`: the reverse of `dependencies`."""
        return self._neighbours(symbol, "in", types, depth, min_confidence, repo)

    def _neighbours(
        self,
        symbol: str,
        direction: str,
        types: list[str] | None,
        depth: int,
        min_confidence: float,
        repo: str | None,
    ) -> GraphResult:
        return self.graph.traverse(
            self.graph.resolve_node(symbol, repo=self._repo_name(repo)),
            depth=depth,
            types=types,
            direction=direction,
            min_confidence=min_confidence,
            repo=repo,
            default_types=DEPENDENCY_TYPES,
        )

    def callers(
        self,
        symbol: str,
        *,
        types: list[str] | None = None,
        depth: int = 1,
        min_confidence: float = 0.0,
        repo: str | None = None,
    ) -> GraphResult:
        """Who calls `symbol` (dependents along `calls` edges), with the call lines."""
        return self.dependents(
            symbol,
            types=types or ["calls"],
            depth=depth,
            min_confidence=min_confidence,
            repo=repo,
        )

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
        return self.graph.traverse(
            self.graph.resolve_node(start, repo=self._repo_name(repo)),
            depth=depth,
            types=types,
            direction=direction,
            repo=repo,
            limit=limit,
        )

    def subgraph(self, ids: list[str], *, limit: int = 200) -> GraphResult:
        """These nodes and the edges between them (at most `limit` nodes)."""
        return self.graph.subgraph(ids, limit=limit)

    def repo_overview(self, *, repo: str | None = None, budget_tokens: int = 2000) -> Overview:
        """A map of the repository: its most important files and symbols, with their
        signatures, within `budget_tokens`."""
        return self.graph.overview(self._repo(repo)["id"], budget_tokens)

    def _repo_name(self, repo: str | None) -> str | None:
        return None if repo is None else self._repo(repo)["id"]

    # -- workspace: many repositories ---------------------------------------------------
    def add_repo(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        on_progress: Callable[[Progress], None] | None = None,
    ) -> IndexStats:
        """Index another repository into this workspace (or update it)."""
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise InputError(f"{folder} is not a folder; pass the folder of a repository.")
        root = folder.resolve()
        chosen = name or root.name
        if not chosen or "/" in chosen or chosen.startswith(("?", "kw:")):
            raise InputError(f"{chosen!r} cannot name a repository; pass --name NAME.")
        for other in self.store.repos():
            if other["id"] == chosen and Path(other["root"]) != root:
                raise InputError(
                    f"A repository named {chosen!r} is already indexed from {other['root']}; "
                    "pass another --name."
                )
        return self.index(root, name=chosen, on_progress=on_progress)

    def list_repos(self) -> list[dict[str, Any]]:
        """The repositories of this workspace with their counts."""
        store = self.store
        out = []
        for info in store.repos():
            edges = store.conn.execute(
                "SELECT count(*) FROM edges WHERE repo = ?", (info["id"],)
            ).fetchone()[0]
            out.append({**info, **store.counts(info["id"]), "edges": int(edges)})
        return out

    def remove_repo(self, name: str) -> dict[str, Any]:
        """Delete one repository's files, symbols, chunks, vectors and edges, and nothing
        else; links from other repositories into it become unresolved."""
        repo = self._repo(name)["id"]
        dependents, edges = unlink_repo(self.store, repo)
        removed = self.store.delete_repo(repo)
        vector_ids = removed.pop("vector_ids")
        dim = self.store.get_meta("embedder_dim")
        if vector_ids and dim:
            # Deleting needs no embedding model: open the table with the recorded size.
            vectors = self._vectors or LanceVectorStore(self.settings.data_dir, int(dim))
            vectors.delete(vector_ids)
        link_graph(self.store, repos=[], options=self.settings.graph, force=dependents)
        return {
            "repo": repo,
            **removed,
            "vectors": len(vector_ids),
            "edges": edges,
            "relinked_files": len(dependents),
        }
