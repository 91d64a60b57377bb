"""Symbols of build files, in pure Python: CMake and Dockerfiles.

CMake's grammar ships on PyPI only as a source archive (it needs a C compiler to
install) and the Dockerfile grammar's wheel still uses a deprecated binding, while both
formats are line-oriented enough to read directly.

CMake: ``function``/``macro`` definitions are functions (up to their ``endfunction`` /
``endmacro``); ``add_library``, ``add_executable`` and ``add_custom_target`` are the build
targets, each a module named by the target.

Dockerfile: each build stage (``FROM … [AS name]``) is a module named by its alias, or by
its image when it has none; it runs up to the next ``FROM``.
"""

from __future__ import annotations

import re

from codecompass.indexing.textscan import (
    LineIndex,
    Syntax,
    comment_above,
    last_code_line,
    mask,
    matching,
    signature_of,
    symbol,
)
from codecompass.models import Symbol, SymbolKind

__all__ = ["parse_cmake", "parse_dockerfile"]

_CMAKE_SYNTAX = Syntax(line_comments=("#",), block_comments=(("#[[", "]]"),), quotes=('"',))
_CMAKE_COMMAND = re.compile(
    r"(?im)^[ \t]*(function|macro|endfunction|endmacro|add_library|add_executable"
    r"|add_custom_target)[ \t]*\("
)
_CMAKE_ARGUMENT = re.compile(r"\(\s*([^\s()#\"]+)")


def parse_cmake(text: str) -> list[Symbol]:
    """Functions, macros and build targets of a CMake file."""
    masked = mask(text, _CMAKE_SYNTAX)
    lines = text.split("\n")
    index = LineIndex(text)
    symbols: list[Symbol] = []
    open_definitions: list[tuple[str, int, str]] = []  # (command, offset, name)
    for command in _CMAKE_COMMAND.finditer(masked):
        word = command[1].lower()
        paren = command.end() - 1
        close = matching(masked, paren, "(", ")")
        argument = _CMAKE_ARGUMENT.match(text, paren)
        name = argument[1] if argument else ""
        if word in ("function", "macro"):
            open_definitions.append((word, command.start(1), name))
            continue
        if word in ("endfunction", "endmacro"):
            opener = "function" if word == "endfunction" else "macro"
            while open_definitions and open_definitions[-1][0] != opener:
                open_definitions.pop()
            if open_definitions and open_definitions[-1][2]:
                _, offset, defined = open_definitions.pop()
                header = _cmake_header(text, masked, offset)
                symbols.append(
                    _cmake_symbol(lines, index, defined, "function", offset, header, close)
                )
            continue
        if name:
            header = _cmake_header(text, masked, command.start(1))
            symbols.append(
                _cmake_symbol(lines, index, name, "module", command.start(1), header, close)
            )
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def _cmake_header(text: str, masked: str, offset: int) -> str:
    paren = masked.find("(", offset)
    close = matching(masked, paren, "(", ")")
    line_end = text.find("\n", offset)
    end = close + 1 if line_end < 0 or close < line_end else line_end
    return signature_of(text[offset:end])


def _cmake_symbol(
    lines: list[str],
    index: LineIndex,
    name: str,
    kind: SymbolKind,
    offset: int,
    signature: str,
    close: int,
) -> Symbol:
    first = index.line(offset)
    doc, start = comment_above(lines, first, ("#",))
    end = index.line(close)
    return symbol(name, kind, (start, first, end), signature, doc=doc)


_FROM = re.compile(r"(?i)^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?")


def parse_dockerfile(text: str) -> list[Symbol]:
    """The build stages of a Dockerfile."""
    lines = text.split("\n")
    logical = _logical_lines(lines)
    stages: list[tuple[int, int, str]] = []  # (first line, last header line, name)
    for first, last in logical:
        found = _FROM.match(" ".join(line.rstrip("\\") for line in lines[first - 1 : last]))
        if found:
            stages.append((first, last, found[2] or found[1]))
    symbols = []
    for position, (first, last, name) in enumerate(stages):
        doc, start = comment_above(lines, first, ("#",))
        if position + 1 < len(stages):
            following = stages[position + 1][0]
            _, next_start = comment_above(lines, following, ("#",))
            end = last_code_line(lines, first, next_start - 1)
        else:
            end = last_code_line(lines, first, len(lines))
        signature = signature_of(" ".join(line.rstrip("\\") for line in lines[first - 1 : last]))
        symbols.append(symbol(name, "module", (start, last, max(end, last)), signature, doc=doc))
    return symbols


def _logical_lines(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each instruction, following ``\\`` continuations."""
    out = []
    number = 1
    while number <= len(lines):
        first = number
        while number < len(lines) and lines[number - 1].rstrip().endswith("\\"):
            number += 1
        out.append((first, number))
        number += 1
    return out
