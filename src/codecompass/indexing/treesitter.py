"""The one place that touches the tree-sitter Python API.

py-tree-sitter changed its API several times (0.21 → 0.22 → 0.25); keeping every call
here means a version bump is fixed in this file alone. Grammars and compiled queries are
created on first use and cached per language for the life of the process; parsers are
cached per language and per thread, since a Parser must not be shared between threads.

Query sources live in ``queries/<language>.scm`` inside this package and use the
capture names ``@name``, ``@definition.<kind>``, ``@scope.<kind>`` and
``@reference.<kind>`` (see ``parse.py`` for what each means).
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from importlib import resources

from tree_sitter import Language, Node, Parser, Point, Query, QueryCursor

__all__ = ["Match", "Node", "ParseTimeout", "grammar_available", "parse_tree", "run_query"]

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
}

# Query files concatenated per language; shared patterns live in ecma.scm, jsx.scm, c.scm.
_QUERY_FILES: dict[str, tuple[str, ...]] = {
    "javascript": ("ecma", "javascript", "jsx"),
    "typescript": ("ecma", "typescript"),
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


def _language(language: str) -> Language:
    cached = _languages.get(language)
    if cached is None:
        module_name, function_name = _GRAMMARS[language]
        module = importlib.import_module(module_name)
        pointer_factory: Callable[[], object] = getattr(module, function_name)
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
                folder = resources.files("codecompass.indexing").joinpath("queries")
                source = "\n".join(
                    folder.joinpath(f"{name}.scm").read_text(encoding="utf-8")
                    for name in _QUERY_FILES.get(language, (language,))
                )
                cached = Query(_language(language), source)
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
