"""The one place that touches the tree-sitter Python API.

py-tree-sitter changed its API several times (0.21 → 0.22 → 0.25); keeping every call
here means a version bump is fixed in this file alone. Grammars and compiled queries are
created on first use and cached per language for the life of the process; parsers are
cached per language and per thread, since a Parser must not be shared between threads.

Query sources live in ``queries/<language>.scm`` inside this package and use the
capture names ``@name``, ``@definition.<kind>``, ``@scope.<kind>`` and
``@reference.<kind>`` (see ``parse.py`` for what each means).

A grammar wheel is imported on the first file of its language, never at import time, so
the languages a repository does not use cost nothing. The wheels of the
``codecompass[languages]`` extra may be absent: ``grammar_installed`` says so without
importing anything, and parse.py then falls back to line windows.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
import time
import warnings
from collections.abc import Callable
from functools import cache
from importlib import resources

from tree_sitter import Language, Node, Parser, Point, Query, QueryCursor

__all__ = [
    "Match",
    "Node",
    "ParseTimeout",
    "grammar_available",
    "grammar_installed",
    "grammar_missing",
    "has_query",
    "parse_tree",
    "run_query",
]

# Matches starting deeper than this are not reported. Real code stays far shallower; the
# limit keeps pathological nesting from costing time, since finding a node's parent in
# tree-sitter walks down from the root.
MAX_QUERY_DEPTH = 256
_READ_CHUNK = 65536

# language → (module, function returning the grammar pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "bash": ("tree_sitter_bash", "language"),
    "css": ("tree_sitter_css", "language"),
    "scss": ("tree_sitter_scss", "language"),
    "html": ("tree_sitter_html", "language"),
    "json": ("tree_sitter_json", "language"),
    "yaml": ("tree_sitter_yaml", "language"),
    "toml": ("tree_sitter_toml", "language"),
    "hcl": ("tree_sitter_hcl", "language"),
    "lua": ("tree_sitter_lua", "language"),
    "make": ("tree_sitter_make", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "swift": ("tree_sitter_swift", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "elixir": ("tree_sitter_elixir", "language"),
    "haskell": ("tree_sitter_haskell", "language"),
    "ocaml": ("tree_sitter_ocaml", "language_ocaml"),
    "dart": ("tree_sitter_dart", "language"),
    "zig": ("tree_sitter_zig", "language"),
    "julia": ("tree_sitter_julia", "language"),
    "sql": ("tree_sitter_sql", "language"),
    "groovy": ("tree_sitter_groovy", "language"),
    "perl": ("tree_sitter_perl", "language"),
    "objc": ("tree_sitter_objc", "language"),
    "powershell": ("tree_sitter_powershell", "language"),
    "nix": ("tree_sitter_nix", "language"),
    "fortran": ("tree_sitter_fortran", "language"),
}

# Query files concatenated per language; shared patterns live in ecma.scm, jsx.scm, c.scm,
# typescript.scm (`.ts` and `.tsx`).
_QUERY_FILES: dict[str, tuple[str, ...]] = {
    "javascript": ("ecma", "javascript", "jsx"),
    # ts.scm first: a pattern wins over the later ones matching the same node, and
    # ecma.scm's constants match every declarator.
    "typescript": ("ts", "ecma", "typescript"),
    "tsx": ("ecma", "typescript", "jsx"),
    "cpp": ("c", "cpp"),
}

Match = tuple[int, dict[str, list[Node]]]

_lock = threading.Lock()
_languages: dict[str, Language] = {}
_queries: dict[str, Query] = {}
_local = threading.local()


def grammar_available(language: str) -> bool:
    """Whether a grammar wheel for ``language`` is known (not whether it imports)."""
    return language in _GRAMMARS


def grammar_installed(language: str) -> bool:
    """Whether the grammar wheel of ``language`` is installed; found without importing it.

    False for a language with no grammar at all."""
    entry = _GRAMMARS.get(language)
    return entry is not None and _module_found(entry[0])


def grammar_missing(language: str) -> bool:
    """Whether ``language`` is parsed with a grammar whose wheel is not installed."""
    return language in _GRAMMARS and not grammar_installed(language)


@cache
def _module_found(module_name: str) -> bool:
    return importlib.util.find_spec(module_name) is not None


def has_query(language: str) -> bool:
    """Whether every tag query file of ``language`` ships with this package."""
    return _query_files_exist(_QUERY_FILES.get(language, (language,)))


@cache
def query_captures(language: str, capture: str) -> bool:
    """Whether the tag query of ``language`` names ``capture`` (``@reference.call``)."""
    return has_query(language) and capture in _query_source(language)


def _query_source(language: str) -> str:
    """The tag query of ``language``: its query files, joined."""
    folder = resources.files("codecompass.indexing").joinpath("queries")
    return "\n".join(
        folder.joinpath(f"{name}.scm").read_text(encoding="utf-8")
        for name in _QUERY_FILES.get(language, (language,))
    )


@cache
def _query_files_exist(names: tuple[str, ...]) -> bool:
    folder = resources.files("codecompass.indexing").joinpath("queries")
    return all(folder.joinpath(f"{name}.scm").is_file() for name in names)


def _language(language: str) -> Language:
    cached = _languages.get(language)
    if cached is None:
        module_name, function_name = _GRAMMARS[language]
        module = importlib.import_module(module_name)
        pointer_factory: Callable[[], object] = getattr(module, function_name)
        with warnings.catch_warnings():
            # Two older wheels (perl, scss) still hand out their grammar as an int,
            # which py-tree-sitter 0.25/0.26 accepts with a DeprecationWarning.
            warnings.simplefilter("ignore", DeprecationWarning)
            cached = Language(pointer_factory())
        _languages[language] = cached
    return cached


def _parser(language: str) -> Parser:
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    parser = parsers.get(language)
    if parser is None:
        with _lock:
            parser = Parser(_language(language))
        parsers[language] = parser
    return parser


def _query(language: str) -> Query:
    cached = _queries.get(language)
    if cached is None:
        with _lock:
            cached = _queries.get(language)
            if cached is None:
                cached = Query(_language(language), _query_source(language))
                _queries[language] = cached
    return cached


class ParseTimeout(Exception):
    """tree-sitter gave up on a file that took longer than its time budget."""


def parse_tree(language: str, data: bytes, timeout: float) -> Node:
    """Parse UTF-8 ``data`` and return the root node; ``ParseTimeout`` after ``timeout`` s.

    Error recovery on some garbage inputs is super-linear (seconds for a few hundred KB
    of junk on one line), so parsing runs through the callback interface, which can be
    cancelled. The callback hands out ``bytes`` copies: py-tree-sitter also calls it to
    read node text for query text predicates, and crashes when given a ``memoryview``.
    The query files avoid text predicates anyway (``#match?`` and friends); rules.py
    filters names instead.
    """
    parser = _parser(language)
    deadline = time.monotonic() + timeout

    def read(offset: int, _point: Point) -> bytes:
        return data[offset : offset + _READ_CHUNK]

    def cancel(_offset: int, _has_error: bool) -> bool:
        return time.monotonic() > deadline

    try:
        tree = parser.parse(read, progress_callback=cancel)
    except ValueError as exc:
        # A cancelled parse would otherwise be resumed by the parser's next call.
        parser.reset()
        if time.monotonic() > deadline:
            raise ParseTimeout(f"parsing took longer than {timeout:.1f}s") from exc
        raise
    return tree.root_node


def run_query(language: str, root: Node) -> list[Match]:
    """All matches of the language's tag query under ``root``, in document order."""
    cursor = QueryCursor(_query(language))
    cursor.set_max_start_depth(MAX_QUERY_DEPTH)
    return cursor.matches(root)
