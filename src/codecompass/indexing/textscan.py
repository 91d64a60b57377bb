"""Helpers for the pure-Python symbol readers (R, Protobuf, GraphQL, CMake, Dockerfile).

``mask`` blanks comments and the contents of string literals while keeping every offset
and newline, so a reader can find keywords and match brackets with plain regular
expressions and still read names from the original text at the same offsets.
"""

from __future__ import annotations

import inspect
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from codecompass.models import Symbol, SymbolKind

_MAX_SIGNATURE = 200
_NEWLINE = re.compile("\n")


@dataclass(frozen=True, slots=True)
class Syntax:
    """How one language writes comments and strings."""

    line_comments: tuple[str, ...] = ()
    block_comments: tuple[tuple[str, str], ...] = ()
    quotes: tuple[str, ...] = ('"', "'")  # longest first when one is a prefix of another
    escape: str = "\\"


def mask(text: str, syntax: Syntax) -> str:
    """``text`` with comments and string contents replaced by spaces (newlines kept)."""
    out = list(text)
    index = 0
    length = len(text)

    def blank(start: int, end: int) -> None:
        for position in range(start, min(end, length)):
            if out[position] != "\n":
                out[position] = " "

    while index < length:
        char = text[index]
        if char.isspace() or char.isalnum():
            index += 1
            continue
        matched = False
        for opener, closer in syntax.block_comments:
            if text.startswith(opener, index):
                end = text.find(closer, index + len(opener))
                end = length if end < 0 else end + len(closer)
                blank(index, end)
                index, matched = end, True
                break
        if matched:
            continue
        for marker in syntax.line_comments:
            if text.startswith(marker, index):
                end = text.find("\n", index)
                end = length if end < 0 else end
                blank(index, end)
                index, matched = end, True
                break
        if matched:
            continue
        for quote in syntax.quotes:
            if text.startswith(quote, index):
                end = _string_end(text, index + len(quote), quote, syntax.escape)
                blank(index + len(quote), end - len(quote))
                index, matched = end, True
                break
        if not matched:
            index += 1
    return "".join(out)


def _string_end(text: str, start: int, quote: str, escape: str) -> int:
    index = start
    while index < len(text):
        if escape and text.startswith(escape, index) and len(quote) == 1:
            index += 2
            continue
        if text.startswith(quote, index):
            return index + len(quote)
        if len(quote) == 1 and text[index] == "\n" and quote != "`":
            return index  # an unterminated one-line string stops at the line's end
        index += 1
    return len(text)


def matching(masked: str, open_index: int, opener: str = "{", closer: str = "}") -> int:
    """Index of the bracket closing the one at ``open_index``; the text's end if none."""
    depth = 0
    for index in range(open_index, len(masked)):
        char = masked[index]
        if char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth == 0:
                return index
    return len(masked) - 1


class LineIndex:
    """1-based line numbers of character offsets."""

    def __init__(self, text: str) -> None:
        self.starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset)


def comment_above(lines: Sequence[str], line: int, markers: tuple[str, ...]) -> tuple[str, int]:
    """The comment lines directly above 1-based ``line`` (no blank line between), cleaned,
    and the first line they start on (``line`` itself when there are none)."""
    first = line
    while first > 1:
        stripped = lines[first - 2].strip()
        if not stripped or not stripped.startswith(markers):
            break
        first -= 1
    texts = []
    for raw in lines[first - 1 : line - 1]:
        stripped = raw.strip()
        for marker in markers:
            if stripped.startswith(marker):
                stripped = stripped[len(marker) :]
                break
        texts.append(stripped[1:] if stripped.startswith(" ") else stripped)
    return inspect.cleandoc("\n".join(texts)), first


def signature_of(text: str) -> str:
    """One line of declaration text: whitespace collapsed, capped."""
    return " ".join(text.split())[:_MAX_SIGNATURE]


def last_code_line(lines: Sequence[str], start: int, end: int) -> int:
    """The last non-blank line in ``start..end`` (1-based, inclusive); ``start`` if none."""
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def symbol(
    name: str,
    kind: SymbolKind,
    lines: tuple[int, int, int],
    signature: str,
    *,
    parent: str | None = None,
    qualifier: str | None = None,
    doc: str = "",
    exported: bool = True,
) -> Symbol:
    """A Symbol nested under ``parent`` (a qualified name); ``lines`` is (start, header
    end, end). ``qualifier`` qualifies the name when it differs from the parent (a member
    added outside its type's range has none)."""
    start, header_end, end = lines
    end = max(start, end)
    qualifier = qualifier or parent
    return Symbol(
        name=name,
        qualified_name=f"{qualifier}.{name}" if qualifier else name,
        kind=kind,
        start_line=start,
        end_line=end,
        header_end_line=min(max(start, header_end), end),
        signature=signature,
        doc=doc,
        exported=exported,
        parent=parent,
    )
