"""Symbols of R files, in pure Python (PyPI has no grammar wheel for R).

- ``name <- function(…)`` (also ``<<-`` and ``=``) is a function, at any depth; one inside
  another function's body is qualified through it (``summarise.helper``);
- ``Name <- setRefClass("Name", …)`` / ``R6Class(…)`` and ``setClass("Name", …)`` are
  classes, and the functions inside them (R6's ``public = list(greet = function() …)``)
  their methods;
- a top-level ``ALL_CAPS <- value`` is a constant.

Roxygen (``#'``) and plain ``#`` comment lines directly above a definition are its doc. A
name starting with ``.`` is hidden, as R's own listing treats it.
"""

from __future__ import annotations

import re

from codecompass.indexing.textscan import (
    LineIndex,
    Syntax,
    comment_above,
    mask,
    matching,
    signature_of,
    symbol,
)
from codecompass.models import Symbol, SymbolKind

__all__ = ["parse_r"]

_SYNTAX = Syntax(line_comments=("#",), quotes=('"', "'", "`"))
_NAME = r"(?P<name>[A-Za-z.][\w.]*|`[^`\n]+`)"
_ASSIGNED = re.compile(
    r"(?m)^(?P<indent>[ \t]*)" + _NAME + r"[ \t]*(?:<<-|<-|=)[ \t]*"
    r"(?P<what>function\b|\\(?=\s*\()|(?:setRefClass|R6Class|R6::R6Class)\b|(?=[^\n]))"
)
_SET_CLASS = re.compile(r"(?m)^[ \t]*setClass[ \t]*\([ \t]*[\"'](?P<name>[^\"'\n]+)")
_CONSTANT = re.compile(r"_*[A-Z][A-Z0-9_.]+")
_DOC_MARKERS = ("#'", "#")


def parse_r(text: str) -> list[Symbol]:
    """Functions, classes and top-level constants of an R file."""
    masked = mask(text, _SYNTAX)
    lines = text.split("\n")
    index = LineIndex(text)
    found: list[tuple[int, int, int, str, SymbolKind]] = []  # start, header end, end, name, kind
    for match in _ASSIGNED.finditer(masked):
        name = text[match.start("name") : match.end("name")].strip("`")
        what = match["what"]
        if what in ("function", "\\"):
            opening = masked.find("(", match.end("what"))
            close = matching(masked, opening, "(", ")")
            body = _skip_space(masked, close + 1)
            header_end = index.line(close)
            if body < len(masked) and masked[body] == "{":
                end = index.line(matching(masked, body))
            else:
                end = index.line(_line_end(masked, body))
            found.append((match.start(), header_end, end, name, "function"))
        elif what:
            opening = masked.find("(", match.end("what"))
            close = matching(masked, opening, "(", ")") if opening >= 0 else match.end()
            found.append((match.start(), index.line(match.end()), index.line(close), name, "class"))
        elif not match["indent"] and _CONSTANT.fullmatch(name):
            end = index.line(_line_end(masked, match.end()))
            found.append((match.start(), index.line(match.start()), end, name, "constant"))
    for match in _SET_CLASS.finditer(masked):
        opening = masked.find("(", match.start())
        close = matching(masked, opening, "(", ")")
        name = text[match.start("name") : match.end("name")]
        found.append((match.start(), index.line(match.start()), index.line(close), name, "class"))
    found.sort(key=lambda item: (item[0], -item[2]))
    return _nest(text, lines, index, found)


def _nest(
    text: str,
    lines: list[str],
    index: LineIndex,
    found: list[tuple[int, int, int, str, SymbolKind]],
) -> list[Symbol]:
    symbols: list[Symbol] = []
    stack: list[Symbol] = []  # enclosing functions and classes
    for offset, header_end, end, name, kind in found:
        first = index.line(offset)
        while stack and stack[-1].end_line < first:
            stack.pop()
        if stack and kind == "constant":
            continue  # only top-level ALL_CAPS assignments are constants
        parent = stack[-1].qualified_name if stack else None
        if kind == "function" and stack and stack[-1].kind == "class":
            kind = "method"  # greet = function() … inside R6Class(public = list(…))
        doc, start = comment_above(lines, first, _DOC_MARKERS)
        line_end = text.find("\n", offset)
        signature = signature_of(text[offset : line_end if line_end >= 0 else len(text)])
        made = symbol(
            name,
            kind,
            (start, header_end, end),
            signature.removesuffix("{").rstrip(),
            parent=parent,
            doc=doc,
            exported=not name.startswith(".") and parent is None,
        )
        symbols.append(made)
        if kind in ("function", "class"):
            stack.append(made)
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def _skip_space(masked: str, index: int) -> int:
    while index < len(masked) and masked[index] in " \t\r\n":
        index += 1
    return index


def _line_end(masked: str, index: int) -> int:
    end = masked.find("\n", index)
    return (end if end >= 0 else len(masked)) - 1 if index < len(masked) else len(masked) - 1
