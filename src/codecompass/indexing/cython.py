"""Symbols of Cython files (`.pyx`, `.pxd`, `.pxi`), in pure Python (PyPI has no grammar
wheel for Cython).

- ``def``, ``cpdef`` and ``cdef`` functions (``cdef inline double _dot(…) nogil:``) are
  functions, methods inside a class, qualified through an enclosing function when nested;
- ``class`` and ``cdef class`` are classes;
- a block runs until the next line of code indented no deeper than its header, as in
  Python; a ``.pxd`` declaration with no body is its header alone.

``cdef`` variables (``cdef double total = 0``), ``ctypedef``, and ``cdef extern``,
``struct``, ``enum`` and ``union`` blocks are no symbols. A definition's docstring is its
doc.
"""

from __future__ import annotations

import inspect
import re

from codecompass.indexing.textscan import LineIndex, Syntax, mask, matching, signature_of, symbol
from codecompass.models import Symbol, SymbolKind

__all__ = ["parse_cython"]

_SYNTAX = Syntax(line_comments=("#",), quotes=('"""', "'''", '"', "'"))
_HEADER = re.compile(
    r"(?m)^(?P<indent>[ \t]*)(?:(?P<cls>(?:cdef[ \t]+(?:(?:public|api|final)[ \t]+)*)?class)"
    r"[ \t]+(?P<cls_name>\w+)|(?P<fn>(?:async[ \t]+)?def|cpdef|cdef)\b(?P<rest>[^\n]*))"
)
_NOT_FUNCTIONS = re.compile(r"[ \t]+(?:extern|struct|enum|union|fused|packed)\b")
_CALLED = re.compile(r"(\w+)[ \t]*\($")
_DOCSTRING = re.compile(r"[ \t]*[rRuU]?(\"\"\"|'''|\"|')(.*?)\1", re.S)


def parse_cython(text: str) -> list[Symbol]:
    """Functions, methods and classes of a Cython file."""
    masked = mask(text, _SYNTAX)
    lines = text.split("\n")
    masked_lines = masked.split("\n")
    index = LineIndex(text)
    symbols: list[Symbol] = []
    stack: list[tuple[int, Symbol]] = []  # (indent, symbol) of the enclosing blocks
    for match in _HEADER.finditer(masked):
        indent = len(match["indent"].expandtabs())
        kind: SymbolKind
        if match["cls"]:
            name, kind, header_end = match["cls_name"], "class", match.end()
        else:
            found = _function(masked, match)
            if found is None:
                continue
            name, header_end = found
            kind = "function"
        first = index.line(match.start())
        last_header = index.line(header_end)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else None
        if kind == "function" and parent is not None and parent.kind == "class":
            kind = "method"
        end = _block_end(masked_lines, last_header, indent)
        header = text[match.start() + len(match["indent"]) : header_end]
        made = symbol(
            name,
            kind,
            (first, last_header, end),
            signature_of(header).removesuffix(":").rstrip(),
            parent=parent.qualified_name if parent else None,
            doc=_docstring(lines, last_header, end),
            exported=not name.startswith("_") and parent is None,
        )
        symbols.append(made)
        stack.append((indent, made))
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def _function(masked: str, match: re.Match[str]) -> tuple[str, int] | None:
    """The name of a function header and the offset its header ends at (after `:` or, for
    a declaration, the closing bracket's line); None for a variable or a type block."""
    if match["fn"] == "cdef" and _NOT_FUNCTIONS.match(match["rest"]):
        return None
    rest = match["rest"]
    opening = rest.find("(")
    if opening < 0 or "=" in rest[:opening]:
        return None  # `cdef double total = 0`, `cdef int n`
    called = _CALLED.search(rest[: opening + 1])
    if called is None:
        return None
    close = matching(masked, match.start("rest") + opening, "(", ")")
    line_end = masked.find("\n", close)
    return called[1], len(masked) if line_end < 0 else line_end


def _block_end(masked_lines: list[str], header_line: int, indent: int) -> int:
    """The last line of the block whose header ends on 1-based `header_line`: the last
    line of code before one indented no deeper than the header."""
    end = header_line
    for number in range(header_line + 1, len(masked_lines) + 1):
        line = masked_lines[number - 1]
        if not line.strip():
            continue
        if len(line.expandtabs()) - len(line.expandtabs().lstrip()) <= indent:
            break
        end = number
    return end


def _docstring(lines: list[str], header_line: int, end: int) -> str:
    """The string literal a body starts with, cleaned."""
    body = "\n".join(lines[header_line:end])
    found = _DOCSTRING.match(body.lstrip("\n"))
    return inspect.cleandoc(found[2]) if found else ""
