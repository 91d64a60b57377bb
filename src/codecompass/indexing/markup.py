"""Section symbols for Markdown and reStructuredText, in pure Python.

Each heading becomes a ``"section"`` symbol whose ``qualified_name`` is the heading path
joined with ``" > "`` (``"Install > From source"``). A section runs until the line before
the next heading of the same or a higher level (trailing blank lines trimmed), so it
contains its subsections. Lines are counted by ``"\\n"`` like the tree-sitter parsers do.

Markdown: ATX headings (``## Title ##``) and setext headings (a paragraph underlined with
``===`` or ``---``); lines inside fenced code blocks and a leading YAML front-matter block
are ignored. ``signature`` is the heading in ATX form (``"## Install"``).

reStructuredText: a title underlined (optionally also overlined) with a repeated
punctuation character. Levels follow the order in which adornment styles first appear,
as docutils does. ``signature`` is the title text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codecompass.hashing import file_lines
from codecompass.models import Symbol

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# Lines that cannot be the text of a setext heading (lists, quotes, tables, HTML, fences).
_NOT_PARAGRAPH = re.compile(r"^ {0,3}(?:[-+*][ \t]|\d{1,9}[.)][ \t]|>|\||<|=+[ \t]*$|-+[ \t]*$)")
_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")


_HTML_TAG = re.compile(r"<[A-Za-z/!][^>]*>")
_HTML_ALT = re.compile(r"""<img\b[^>]*?\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def plain_title(raw: str) -> str:
    """A heading's words without its markup: HTML tags and images go, links keep their
    text. A heading that is only a logo (`# <img alt="chi" src=…>`) is named by its
    alt text, one with no words at all "(untitled)"."""
    alts = [next(g for g in m.groups() if g is not None) for m in _HTML_ALT.finditer(raw)]
    alts += _MD_IMAGE.findall(raw)
    text = _MD_LINK.sub(r"\1", _MD_IMAGE.sub(" ", raw))
    text = " ".join(_HTML_TAG.sub(" ", text).split())
    return text or " ".join(" ".join(alts).split()) or "(untitled)"


@dataclass(slots=True)
class _Heading:
    text: str
    level: int
    start: int  # 0-based line index of the first heading line
    header_end: int  # 0-based line index of the last heading line (the underline)
    signature: str


def parse_markdown(text: str) -> list[Symbol]:
    """Section symbols for every Markdown heading."""
    lines = _split_lines(text)
    headings: list[_Heading] = []
    index = _front_matter_end(lines)
    fence: str | None = None
    paragraph_start: int | None = None
    while index < len(lines):
        line = lines[index]
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and stripped.strip(fence[0]) == "":
                fence = None
            index += 1
            continue
        opened = _FENCE_OPEN.match(line)
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            paragraph_start = None
            index += 1
            continue
        atx = _ATX.match(line)
        if atx:
            level = len(atx.group(1))
            title = plain_title(atx.group(2) or "")
            headings.append(_Heading(title, level, index, index, f"{'#' * level} {title}".rstrip()))
            paragraph_start = None
        elif _SETEXT.match(line) and paragraph_start is not None:
            level = 1 if line.strip()[0] == "=" else 2
            title = plain_title(" ".join(part.strip() for part in lines[paragraph_start:index]))
            headings.append(
                _Heading(title, level, paragraph_start, index, f"{'#' * level} {title}")
            )
            paragraph_start = None
        elif not line.strip():
            paragraph_start = None
        elif paragraph_start is None:
            indented = len(line) - len(line.lstrip(" ")) >= 4 or line.startswith("\t")
            if not indented and not _NOT_PARAGRAPH.match(line):
                paragraph_start = index
        index += 1
    return _sections(headings, lines)


def parse_rst(text: str) -> list[Symbol]:
    """Section symbols for every reStructuredText title."""
    lines = _split_lines(text)
    headings: list[_Heading] = []
    styles: list[tuple[str, bool]] = []
    index = 0
    while index + 1 < len(lines):
        line = lines[index]
        following = lines[index + 1]
        previous_blank = index == 0 or not lines[index - 1].strip()
        over = _RST_ADORNMENT.match(line)
        if (
            over
            and previous_blank
            and index + 2 < len(lines)
            and following.strip()
            and not _RST_ADORNMENT.match(following)
            and lines[index + 2].rstrip() == line.rstrip()
        ):
            title = following.strip()
            if len(line.rstrip()) >= len(title):
                level = _rst_level(styles, (line[0], True))
                headings.append(_Heading(title, level, index, index + 2, title))
                index += 3
                continue
        under = _RST_ADORNMENT.match(following)
        title = line.strip()
        if (
            under
            and previous_blank
            and title
            and not line[0].isspace()
            and not _RST_ADORNMENT.match(line)
            and len(following.rstrip()) >= min(len(title), 3)
        ):
            level = _rst_level(styles, (following[0], False))
            headings.append(_Heading(title, level, index, index + 1, title))
            index += 2
            continue
        index += 1
    return _sections(headings, lines)


def _split_lines(text: str) -> list[str]:
    return [line.removesuffix("\r") for line in file_lines(text)]


def _front_matter_end(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index + 1
    return 0


def _rst_level(styles: list[tuple[str, bool]], style: tuple[str, bool]) -> int:
    if style not in styles:
        styles.append(style)
    return styles.index(style) + 1


def _sections(headings: list[_Heading], lines: list[str]) -> list[Symbol]:
    # Open sections as (heading index, qualified name), outermost first; a heading closes
    # every open section of the same or a deeper level.
    ends = [len(lines) - 1] * len(headings)
    qualified_names: list[str] = []
    parents: list[str | None] = []
    stack: list[tuple[int, str]] = []
    for position, heading in enumerate(headings):
        while stack and headings[stack[-1][0]].level >= heading.level:
            ends[stack.pop()[0]] = heading.start - 1
        parent = stack[-1][1] if stack else None
        qualified = f"{parent} > {heading.text}" if parent is not None else heading.text
        qualified_names.append(qualified)
        parents.append(parent)
        stack.append((position, qualified))
    symbols: list[Symbol] = []
    for position, heading in enumerate(headings):
        end = ends[position]
        while end > heading.header_end and not lines[end].strip():
            end -= 1
        symbols.append(
            Symbol(
                name=heading.text,
                qualified_name=qualified_names[position],
                kind="section",
                start_line=heading.start + 1,
                end_line=end + 1,
                header_end_line=heading.header_end + 1,
                signature=heading.signature,
                parent=parents[position],
            )
        )
    return symbols
