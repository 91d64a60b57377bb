"""The facade every frontend uses: index a repository, search it, open files, report status."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codecompass.errors import DataDirError, InputError, ModelMismatchError, NotIndexedError
from codecompass.indexing.chunk import ChunkLimits
from codecompass.indexing.discover import DiscoveryRules, discover
from codecompass.indexing.pipeline import IndexStats, Progress, index_repository
from codecompass.protocols import Embedder
from codecompass.search.hybrid import Hit, SearchOptions, search
from codecompass.security.secrets import is_secret_path, redact_secrets
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
    try:
        out = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return path
    top = out.stdout.strip()
    return Path(top).resolve() if out.returncode == 0 and top else path


def find_data_dir(start: Path) -> Path | None:
    """The nearest `.codecompass/` holding an index, from `start` upwards."""
    for folder in (start, *start.parents):
        candidate = folder / DEFAULT_DATA_DIR
        if (candidate / DB_FILE).is_file():
            return candidate
    return None


class Engine:
    """One workspace (a data folder) and the repositories indexed into it."""

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
    ) -> list[Hit]:
        self._require_index()
        s = self.settings.search
        self.vectors.refresh()
        options = SearchOptions(
            k=k or s.top_k,
            detail=detail or s.detail,
            filters=VectorFilter(repo=repo, path_prefix=path_prefix, language=language, kind=kind),
            candidates=s.candidates,
            rrf_k=s.rrf_k,
            max_per_file=s.max_per_file,
        )
        return search(
            query, options, store=self.store, vectors=self.vectors, embedder=self.embedder
        )

    def _require_index(self) -> None:
        if not self.store.repos():
            raise NotIndexedError(
                f"Nothing is indexed in {self.settings.data_dir} yet; run "
                "`codecompass index PATH` first."
            )

    def _repo(self, repo: str | None) -> dict[str, Any]:
        repos = self.store.repos()
        if not repos:
            self._require_index()
        if repo is None:
            if len(repos) > 1:
                names = ", ".join(r["id"] for r in repos)
                raise InputError(f"Several repositories are indexed ({names}); name one.")
            return repos[0]
        for r in repos:
            if r["id"] == repo:
                return r
        names = ", ".join(r["id"] for r in repos)
        raise InputError(f"Unknown repository {repo!r}; indexed: {names}.")

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
        root = Path(info["root"])
        rel = path.replace("\\", "/").strip()
        if not rel or rel.startswith("/") or Path(rel).is_absolute():
            raise InputError(f"{path!r}: give a path relative to the repository root {root}.")
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            raise InputError(f"{path!r} is outside the repository {root}; access refused.")
        rel = target.relative_to(root).as_posix()
        if is_secret_path(rel):
            raise InputError(f"{rel} is a secrets file; Code Compass never returns its content.")
        if not target.is_file():
            raise InputError(f"{rel} is not a file in {info['id']}.")
        if target.stat().st_size > self.settings.index.max_file_bytes:
            raise InputError(
                f"{rel} is larger than max_file_bytes ({self.settings.index.max_file_bytes}); "
                "open it in an editor instead."
            )
        lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
        total = len(lines)
        start = 1 if start_line is None else start_line
        end = min(total, start + OPEN_MAX_LINES - 1) if end_line is None else end_line
        if start < 1 or end < start or start > max(total, 1):
            raise InputError(f"Line range {start}-{end} is out of bounds for {rel} (1-{total}).")
        end = min(end, total)
        text = redact_secrets("\n".join(lines[start - 1 : end]))[0]
        return FileView(info["id"], rel, start, end, total, text)

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
