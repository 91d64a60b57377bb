"""URLs as code writes them, read from a file's text (Java, Kotlin, Go): literals,
concatenations, names holding strings, format calls.

`CodeText` masks comments and strings (`textscan.mask`) so that brackets and operators
can be found with regular expressions, and reads a string expression back from the
original text:

| written                                      | read                          |
| -------------------------------------------- | ----------------------------- |
| `"http://customers/owners/" + id`            | `http://customers/owners/{}`  |
| `base + "/items"` (`base` not read)          | `{base}/items`                |
| `hostname + "pets"` (a string field or       | its value + `pets`            |
| constant of the file, or a local set before) |                               |
| `"$base/owners"` (Kotlin)                    | as a concatenation            |
| `fmt.Sprintf("%s/items/%d", base, id)`,      | `{base}/items/{}`             |
| `String.format(…)`, Rust's `format!(…)`      |                               |
| `URI.create(…)`, `URI(…)`                    | what it is given              |

`{base}` in front marks a value that was not read: the URL's base is unknown
(`http.call_fact`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from codecompass.graph.http import call_fact
from codecompass.graph.resolve import Ctx
from codecompass.indexing.textscan import LineIndex, Syntax, mask, matching
from codecompass.models import HttpFact

_NAME = re.compile(r"(?:this\s*\.\s*)?(?:[A-Za-z_]\w*\s*\.\s*)*([A-Za-z_]\w*)")
_KOTLIN_HOLE = re.compile(r"\$\{[^{}]*\}|\$([A-Za-z_]\w*)")
_FORMAT_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?[a-zA-Z]")
_FORMATS = re.compile(r"(?:fmt\s*\.\s*Sprintf|String\s*\.\s*format)\s*\(")
_WRAPPERS = re.compile(
    r"(?:URI\s*\.\s*create|URI|fmt\s*\.\s*Sprintf|String\s*\.\s*format|format!)\s*\("
)
# a hole of Rust's `format!("{}/users/{id}")`, by name or position
_RUST_HOLE = re.compile(r"\{(\w*)(?::[^{}]*)?\}")


@dataclass(frozen=True, slots=True)
class Dialect:
    """How a language writes what `CodeText` reads."""

    syntax: Syntax
    constant: re.Pattern[str]  # a string constant or field: (name, value)
    assignment: str  # a local's assignment, `{name}` for its name
    lines_end: bool  # a statement ends at a line end (Kotlin, Go), not only at `;`
    quotes: str = '"'  # what a string literal starts and ends with


class CodeText:
    """One file's text, masked, with its string constants."""

    def __init__(self, ctx: Ctx, text: str, dialect: Dialect) -> None:
        self.ctx = ctx
        self.text = text
        self.dialect = dialect
        self.masked = mask(text, dialect.syntax)
        self.lines = LineIndex(text)
        self.constants: dict[str, str] = {}
        for m in dialect.constant.finditer(text):
            self.constants.setdefault(m.group(1), m.group(2))

    def args(self, after: int) -> tuple[int, int] | None:
        """The offsets inside the parentheses that follow offset `after` (spaces
        between), if any."""
        index = after
        while index < len(self.masked) and self.masked[index] in " \t":
            index += 1
        if index >= len(self.masked) or self.masked[index] != "(":
            return None
        close = matching(self.masked, index, "(", ")")
        return (index + 1, close) if close > index else None

    def arguments(self, open_at: int) -> list[tuple[int, int]]:
        """The spans of the arguments of the call whose `(` is at `open_at`."""
        close = matching(self.masked, open_at, "(", ")")
        return list(split_top(self.masked, open_at + 1, close, ",")) if close > open_at else []

    def expression(self, start: int, end: int, before: int | None = None) -> str | None:
        """The string an expression in text[start:end] builds, `{base}` in front for a
        value not read that starts it, `{}` for one inside; None when nothing of it is
        read. Locals are those assigned before offset `before` (default `start`)."""
        at = start if before is None else before
        parts: list[str] = []
        for a, b in split_top(self.masked, start, end, "+"):
            value = self._piece(a, b, at)
            if value is None:
                value = "{base}" if not parts else "{}"
            parts.append(value)
        joined = "".join(parts)
        return None if joined in ("", "{base}") else joined

    def _piece(self, start: int, end: int, before: int) -> str | None:
        """One operand of a concatenation: a literal, a wrapper or format call, a name."""
        piece = self.text[start:end].strip().lstrip("&")  # Rust's `&url`
        if len(piece) >= 2 and piece[0] in self.dialect.quotes and piece[-1] == piece[0]:
            literal = piece[1:-1]
            return _KOTLIN_HOLE.sub(lambda m: self._hole(m, literal), literal)
        if _WRAPPERS.match(piece):
            arguments = self.arguments(self.masked.index("(", start))
            value = self.expression(*arguments[0], before) if arguments else None
            if value is not None and _FORMATS.match(piece):
                value = _FORMAT_VERB.sub("{}", value)  # `%s/items/%d`
            elif value is not None and piece.startswith("format!"):
                value = _RUST_HOLE.sub(lambda m: self.constants.get(m.group(1), "{}"), value)
            if value is not None and value.startswith("{}"):
                value = "{base}" + value[2:]
            return value
        name = _NAME.fullmatch(piece)
        if name is None:
            return None
        return self._local(name.group(1), before) or self.constants.get(name.group(1))

    def _hole(self, m: re.Match[str], literal: str) -> str:
        known = self.constants.get(m.group(1) or "")
        if known is not None:
            return known
        return "{base}" if literal.startswith(m.group(0)) else "{}"

    def _local(self, name: str, before: int) -> str | None:
        """The string last assigned to `name` before `before`, in the same function."""
        function = self.ctx.innermost(self.lines.line(before), sections=False)
        start = self.lines.starts[function.start_line - 1] if function is not None else 0
        pattern = re.compile(self.dialect.assignment.format(name=re.escape(name)))
        assigned = list(pattern.finditer(self.masked, start, before))
        if not assigned:
            return None
        value_start = assigned[-1].end()
        value_end = statement_end(self.masked, value_start, before, self.dialect.lines_end)
        if value_end <= value_start:
            return None
        return self.expression(value_start, value_end, value_start)

    def call(self, verb: str, open_at: int, at: int, argument: int = 0) -> list[HttpFact]:
        """A client call whose URL is the `argument`-th argument of the call whose `(`
        is at `open_at`; `at` is where the call is written."""
        arguments = self.arguments(open_at)
        if len(arguments) <= argument:
            return []
        url = self.expression(*arguments[argument], before=at)
        if url is None:
            return []
        line = self.lines.line(at)
        fact = call_fact(verb or "*", url, line, self.ctx.source_id(line))
        return [fact] if fact is not None else []


def statement_end(masked: str, start: int, limit: int, lines_end: bool) -> int:
    """Where the expression starting at `start` ends, before `limit`: a `;`, or with
    `lines_end` (Kotlin, Go) a line end outside brackets not after a `+`."""
    depth = 0
    for index in range(start, limit):
        char = masked[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return index
        elif depth == 0 and char == ";":
            return index
        elif depth == 0 and char == "\n" and lines_end:
            before = masked[start:index].strip()
            if before and not before.endswith("+"):
                return index
    return limit


def split_top(masked: str, start: int, end: int, separator: str) -> Iterator[tuple[int, int]]:
    """The spans of masked[start:end] between `separator`s outside brackets."""
    depth = 0
    piece = start
    for index in range(start, end):
        char = masked[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == separator and depth == 0:
            if masked[piece:index].strip():
                yield piece, index
            piece = index + 1
    if masked[piece:end].strip():
        yield piece, end
