"""Plain records shared by every stage: what parsing finds and what search returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SymbolKind = Literal[
    "module",
    "class",
    "function",
    "method",
    "interface",
    "type",
    "enum",
    "struct",
    "trait",
    "constant",
    "variable",
    "section",
]
ReferenceKind = Literal["call", "import", "inherit", "type"]
Detail = Literal["compact", "preview", "full"]


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition found in a file. Lines are 1-based and inclusive."""

    name: str
    qualified_name: str  # "Outer.Inner.method"; for sections, the heading path "A > B"
    kind: SymbolKind
    start_line: int  # first line, decorators and attached doc comments included
    end_line: int
    header_end_line: int  # last line of the signature (where the body starts)
    signature: str  # the declaration line(s) without the body, whitespace-collapsed
    doc: str = ""  # docstring / JSDoc / /// / Javadoc text, comment markers removed
    exported: bool = True  # public / exported / not underscore-private
    parent: str | None = None  # qualified name of the enclosing symbol, if any


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of a name found while parsing; resolved into graph edges later."""

    name: str  # as written: "foo", "self.bar", "pkg.mod"
    kind: ReferenceKind
    line: int
    scope: str | None = None  # qualified name of the enclosing symbol


@dataclass(slots=True)
class ParsedFile:
    """What the parser learned about one file."""

    language: str
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    error: str | None = None  # set when parsing failed and the file fell back to line windows
