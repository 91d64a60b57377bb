"""Settings: defaults, then `<data dir>/config.toml`, then `CODECOMPASS_*` variables.

Each setting lives in a TOML table and has an environment variable named after it:
`[embedder] provider` ↔ `CODECOMPASS_EMBEDDER_PROVIDER`. Lists in variables are
comma-separated. The data folder itself comes from `--data-dir`, then
`CODECOMPASS_DATA_DIR`, then `.codecompass/` at the repository root.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codecompass.errors import ConfigError

CONFIG_FILE = "config.toml"
DEFAULT_DATA_DIR = ".codecompass"
ENV_PREFIX = "CODECOMPASS_"


@dataclass(frozen=True, slots=True)
class EmbedderSettings:
    provider: str = "onnx"  # onnx | sentence-transformers | openai
    model: str = ""  # provider-specific model name or path; empty = provider default
    base_url: str = ""  # openai-compatible endpoint, e.g. http://localhost:11434/v1
    api_key_env: str = ""  # name of the variable that holds the API key
    dim: int = 0  # expected dimension for remote providers; 0 = learn it


@dataclass(frozen=True, slots=True)
class IndexSettings:
    max_file_bytes: int = 1024 * 1024
    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    # A symbol up to chunk_max_tokens stays one chunk; a larger one is cut into windows
    # of window_tokens with window_overlap of each window repeated in the next.
    chunk_max_tokens: int = 384
    window_tokens: int = 256
    window_overlap: float = 0.15
    text_window_lines: int = 60


@dataclass(frozen=True, slots=True)
class SearchSettings:
    top_k: int = 10
    detail: str = "preview"
    candidates: int = 150  # per retriever, before fusion; 3 × the largest MCP top_k (50)
    max_per_file: int = 3
    # bm25 | dense | hybrid | hybrid+graph; see docs/retrieval.md.
    mode: str = "hybrid+graph"
    graph_hops: int = 1
    graph_seeds: int = 10
    freshness_days: float = 90.0
    # The file view scores a file by its best chunk + file_support × its next two best.
    file_support: float = 0.5
    # A file the best test files test (`test_x.py` → `x.py`) gains file_tested × their
    # relevance in the file view (0: off); the symbol view and the hits ignore it.
    file_tested: float = 0.5
    # The symbol view ("which functions") scores a symbol by its best chunk plus
    # symbol_file_weight × its file's score, so the best files' symbols lead.
    symbol_file_weight: float = 1.0
    # A class (any owner of members) scores at least symbol_member_share × its best
    # member's chunk in the symbol view (0: off).
    symbol_member_share: float = 0.0
    # A symbol's share of its file's score falls by this much for each point its own
    # score is below the file's best symbol: the file lifts the symbols that carry its
    # evidence, not every weak sibling (a module of many small exception classes).
    symbol_file_falloff: float = 0.25
    # Every chunk of this many best files joins the candidates (finds the function).
    expand_files: int = 5
    # Ranking weights of the features in search/rank.py, tuned on evaluation runs
    # recorded in docs/retrieval.md (seed 000's formula was the starting point).
    weight_cosine: float = 1.0
    weight_bm25: float = 0.6
    weight_keywords: float = 0.0
    weight_name: float = 0.6
    weight_path: float = 0.1
    weight_frame: float = 0.8
    weight_member: float = 0.2
    weight_dispatch: float = 1.0
    weight_message: float = 0.5
    weight_literal: float = 0.2
    weight_edge: float = 0.15
    weight_ppr: float = 0.02
    weight_importance: float = 0.02
    weight_freshness: float = 0.0
    weight_test: float = -1.0
    weight_stub: float = -0.5
    weight_doc: float = -0.5
    weight_short: float = -0.2


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """The chat model `ask` uses when the MCP client offers no sampling (none = extractive)."""

    base_url: str = ""  # OpenAI-compatible API root, e.g. http://localhost:11434/v1
    model: str = ""
    api_key_env: str = ""  # name of the variable that holds the API key
    timeout_s: float = 60.0
    max_tokens: int = 800  # cap on the answer's length
    context_tokens: int = 3000  # evidence sent to the model (estimated as characters / 4)
    use_sampling: bool = True  # prefer the MCP client's own model when it offers sampling
    # Reranking (search_code, ask_code, `search --rerank`): the model reorders the best
    # `rerank_candidates` results from one prompt of at most `rerank_tokens`; off unless
    # asked for or turned on here. See docs/retrieval.md.
    rerank: bool = False
    rerank_candidates: int = 30
    rerank_tokens: int = 2500  # the whole prompt (estimated as characters / 4)
    rerank_timeout_s: float = 20.0  # a slower model leaves the order as it was


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """`codecompass serve`: transport defaults, guardrails and the audit log."""

    host: str = "127.0.0.1"
    port: int = 8765
    token: str = ""  # bearer token for HTTP; required off loopback. Set CODECOMPASS_SERVER_TOKEN
    # Principals (tokens mapped to the repos and path prefixes they may read); default
    # principals.toml in the data folder. See `codecompass principal --help`.
    principals: str = ""
    log_queries: bool = True  # keep query text in the audit log (never file contents)
    # Streamable HTTP without sessions: any of N server processes behind a load balancer
    # answers any request (no sticky routing on Mcp-Session-Id needed).
    stateless: bool = False
    open_max_lines: int = 400  # open_file returns at most this many lines per call
    open_max_chars: int = 40_000


@dataclass(frozen=True, slots=True)
class StorageSettings:
    """Where the index lives: `embedded` (one folder, no server) or `server`
    (PostgreSQL, with vectors in Qdrant or PostgreSQL). See docs/deployment.md."""

    backend: str = "embedded"  # embedded | server
    workspace: str = "default"  # server: the namespace of a team or project
    postgres_url: str = ""  # server: e.g. postgresql://codecompass@db.internal/codecompass
    qdrant_url: str = ""  # server: e.g. http://qdrant.internal:6333; empty = see below
    qdrant_path: str = ""  # server: Qdrant's in-process local mode in this folder
    qdrant_api_key_env: str = ""  # name of the variable that holds the Qdrant API key
    pool_size: int = 8  # PostgreSQL connections per process


@dataclass(frozen=True, slots=True)
class GraphSettings:
    """The code graph's optional, cheap edge kinds and its importance scores."""

    keywords: bool = True  # a few top keywords per symbol (kw:word nodes)
    keywords_per_symbol: int = 3
    similar: bool = True  # nearest symbols by embedding, other files only
    similar_threshold: float = 0.85  # cosine
    similar_top: int = 3
    similar_max_nodes: int = 50_000  # above this many symbols, similarity is skipped
    importance: bool = True  # PageRank after each run


@dataclass(frozen=True, slots=True)
class GCSettings:
    """Garbage collection: how long tombstones (chunks that left their files) are kept,
    per delete reason, and what else is cleaned up. See docs/lifecycle.md."""

    file_removed_days: int = 7  # the file was deleted
    file_renamed_days: int = 7  # the file moved (its chunks live on under the new path)
    chunk_modified_days: int = 14  # the file changed and the chunk left it
    manual_cleanup_days: int = 30  # removed by hand
    other_days: int = 30  # any other reason
    # An embedding no chunk uses is kept this long after a collection first finds it
    # unused: the cache makes indexing the same text again (a branch, a revert) free.
    cache_days: int = 30
    audit_days: int = 90  # audit records older than this go
    batch_size: int = 1000  # tombstones read, backed up and deleted per step
    auto: bool = True  # collect after an index run once auto_threshold tombstones are due
    auto_threshold: int = 1000
    backup: bool = True  # write what a collection deletes to backups/pre-gc-*.jsonl.gz first
    keep_backups: int = 10  # pre-GC backups kept in the data folder (the newest)


@dataclass(frozen=True, slots=True)
class MemorySettings:
    """Semantic memory: what agents told the index to remember. See docs/memory.md."""

    # Cosine at or above which a new memory counts as a paraphrase of a stored one (it
    # is merged into it or skipped); measured on hand-written pairs, docs/memory.md.
    near_duplicate: float = 0.7
    budget_tokens: int = 2000  # recall and `memory context` stay within this
    # Days a memory of each type lives unless it is used (0: never expires).
    decision_days: int = 90
    pattern_days: int = 180
    error_days: int = 30
    spec_days: int = 365
    context_days: int = 0
    max_per_project: int = 500  # writing past a cap evicts the weakest memory first
    max_per_type: int = 100
    # `prune` deletes expired memories used at most this many times (0: never used).
    min_access_count: int = 0
    prune_threshold: float = 0.3  # with decay: prune below this salience as well
    decay: bool = False  # salience halves every `half_life_days` without use
    half_life_days: int = 30
    capture_min_words: int = 6  # automatic capture drops shorter statements


@dataclass(frozen=True, slots=True)
class UISettings:
    """`codecompass ui`: the local web app (it binds like `serve --http`, [server] host
    and token). See docs/web.md."""

    port: int = 8766
    # The "open in editor" link: {path} is the absolute file path, {line} the first line,
    # {repo} and {rel} the repository and the repository-relative path.
    editor: str = "vscode://file/{path}:{line}"
    max_nodes: int = 5000  # the graph view's hard caps
    max_edges: int = 10_000


@dataclass(frozen=True, slots=True)
class Settings:
    data_dir: Path
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    server: ServerSettings = field(default_factory=ServerSettings)
    graph: GraphSettings = field(default_factory=GraphSettings)
    storage: StorageSettings = field(default_factory=StorageSettings)
    gc: GCSettings = field(default_factory=GCSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    ui: UISettings = field(default_factory=UISettings)

    @property
    def config_path(self) -> Path:
        return self.data_dir / CONFIG_FILE


_SECTIONS: dict[str, type[Any]] = {
    "embedder": EmbedderSettings,
    "index": IndexSettings,
    "search": SearchSettings,
    "llm": LLMSettings,
    "server": ServerSettings,
    "graph": GraphSettings,
    "storage": StorageSettings,
    "gc": GCSettings,
    "memory": MemorySettings,
    "ui": UISettings,
}


def resolve_data_dir(data_dir: str | Path | None, repo_root: Path | None = None) -> Path:
    if data_dir is None:
        data_dir = os.environ.get(f"{ENV_PREFIX}DATA_DIR") or None
    if data_dir is None:
        data_dir = (repo_root or Path.cwd()) / DEFAULT_DATA_DIR
    return Path(data_dir).expanduser().resolve()


def load_settings(
    data_dir: str | Path | None = None,
    *,
    repo_root: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the settings for a data folder (it need not exist yet)."""
    env = os.environ if environ is None else environ
    resolved = resolve_data_dir(data_dir, repo_root)
    file_values: dict[str, Any] = {}
    config_path = resolved / CONFIG_FILE
    if config_path.is_file():
        try:
            file_values = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"{config_path} is not valid TOML ({exc}); fix or delete it."
            ) from exc
    unknown = set(file_values) - set(_SECTIONS)
    if unknown:
        raise ConfigError(
            f"{config_path}: unknown section(s) {sorted(unknown)}; "
            f"valid sections are {sorted(_SECTIONS)}."
        )
    sections = {
        name: _build_section(name, cls, file_values.get(name, {}), env, config_path)
        for name, cls in _SECTIONS.items()
    }
    return Settings(data_dir=resolved, **sections)


def _build_section(
    name: str, cls: type[Any], table: Any, env: Mapping[str, str], config_path: Path
) -> Any:
    if not isinstance(table, dict):
        raise ConfigError(f"{config_path}: [{name}] must be a table.")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(table) - set(fields)
    if unknown:
        raise ConfigError(
            f"{config_path}: unknown key(s) {sorted(unknown)} in [{name}]; "
            f"valid keys are {sorted(fields)}."
        )
    values: dict[str, Any] = {}
    for key, f in fields.items():
        default = f.default
        env_name = f"{ENV_PREFIX}{name.upper()}_{key.upper()}"
        if env_name in env:
            values[key] = _coerce(env[env_name], default, env_name)
        elif key in table:
            values[key] = _coerce(table[key], default, f"[{name}] {key} in {config_path}")
    return cls(**values)


def _coerce(raw: Any, default: Any, where: str) -> Any:
    try:
        if isinstance(default, bool):
            if isinstance(raw, bool):
                return raw
            return str(raw).strip().lower() in {"1", "true", "yes", "on"}
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
        if isinstance(default, tuple):
            items = raw.split(",") if isinstance(raw, str) else list(raw)
            return tuple(str(item).strip() for item in items if str(item).strip())
        return str(raw)
    except (TypeError, ValueError) as exc:
        kind = type(default).__name__
        raise ConfigError(f"{where}: expected {kind}, got {raw!r}.") from exc


def render_default_config() -> str:
    """The commented config.toml written by `codecompass init`."""
    lines = [
        "# Code Compass settings. Every key can also be set with an environment variable:",
        "# [embedder] provider  <->  CODECOMPASS_EMBEDDER_PROVIDER (lists: comma-separated).",
        "",
    ]
    for name, cls in _SECTIONS.items():
        lines.append(f"[{name}]")
        for f in dataclasses.fields(cls):
            lines.append(f"# {f.name} = {_toml_value(f.default)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
