"""Read a Jupyter notebook (``.ipynb``) through its cells, at the notebook's own lines.

A notebook is JSON: cell sources as string lists, outputs (base64 images, HTML tables,
widget state) and metadata around them. Indexed as text, its chunks were JSON-escaped
code mixed with output data. Jupyter, JupyterLab, VS Code and Colab all write a cell's
source one line per JSON string, one string per file line, so every source line has a
line of the notebook file; the view puts each there and blanks everything else:

- ``code``: the code cells' lines, for the parser. IPython's line magics and shell
  escapes (``%matplotlib inline``, ``!pip install …``, ``%%time``) and the cells of a
  magic running another program (``%%bash``, ``%%html``) are blanked, being no code of
  the kernel's language.
- ``shown``: what chunks show: every cell's source lines, Markdown included.

Line numbers are the notebook's, so a hit's range opens the right cell in an editor.
The kernel's language comes from the metadata (``kernelspec.language``, then
``language_info.name``), Python when absent (nbformat 3, whose cells sit in
``worksheets`` and keep a code cell's source as ``input``, named none). A notebook
whose sources do not sit one line per file line (written by a tool that minifies, or a
source stored as one string of many lines) is shown as the file lines holding its
sources, still JSON-escaped, without outputs or metadata, and chunked as text
(``problem`` says why). A file that is no notebook raises ``NotebookError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from codecompass.decoding import is_notebook_path
from codecompass.hashing import file_lines
from codecompass.indexing.languages import LANGUAGE_ALIASES, SYMBOL_LANGUAGES

__all__ = ["NotebookError", "NotebookView", "notebook_lines", "notebook_view"]

_NOT_LINE_BY_LINE = "cell sources are not stored one line per file line"
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
# At the start of a line: an indented `%` or `!` may continue a Python expression.
_MAGIC = re.compile(r"[%!]")
# Cell magics whose body is still Python (`%%time` times the cell); any other cell
# magic hands its body to another program (`%%bash`, `%%html`, `%%sql`, `%%writefile`).
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "python", "python3"})


class NotebookError(ValueError):
    """The file cannot be read cell by cell at its own lines; the message says why."""


@dataclass(frozen=True, slots=True)
class NotebookView:
    language: str  # the kernel's language as Code Compass names it; "text" if unread
    code: str  # the code cells' lines at their file lines, every other line empty
    shown: list[str]  # one entry per file line: the cell source line there, or ""
    # Why the cells are chunked as text: not placed line by line, or an unknown language.
    problem: str | None = None


@dataclass(slots=True)
class _Cell:
    kind: str = ""
    # (offset of the JSON string in the file, its value), in order
    source: tuple[tuple[int, str], ...] = ()


def notebook_lines(path: str, text: str) -> list[str] | None:
    """A notebook's lines as its chunks show them, or None for any other file (or a
    notebook that cannot be read cell by cell)."""
    if not is_notebook_path(path):
        return None
    try:
        return notebook_view(text).shown
    except NotebookError:
        return None


def notebook_view(text: str) -> NotebookView:
    """The cells of a notebook at the lines of `text`; raises NotebookError."""
    reader = _Reader(text)
    cells: list[_Cell] | None = None
    metadata: Any = None
    try:
        for key in reader.members():
            if key == "cells":
                cells = [_read_cell(reader) for _ in reader.items()]
            elif key == "worksheets":  # nbformat 3: the cells sit in worksheets
                cells = [c for _ in reader.items() for c in _read_worksheet(reader)]
            elif key == "metadata":
                metadata = reader.value()
            else:
                reader.value()
    except (ValueError, IndexError) as exc:
        raise NotebookError(f"not a notebook ({exc})") from exc
    if cells is None:
        raise NotebookError("no cells (not a notebook)")
    lines = file_lines(text)
    language = _kernel_language(metadata)
    shown = [""] * len(lines)
    code = [""] * len(lines)
    previous, line, counted = -1, 0, 0  # line: 0-based, of the string at `counted`
    for cell in cells:
        is_code = cell.kind == "code"
        cell_magic = is_code and language == "python" and _cell_magic(cell)
        for offset, value in cell.source:
            line += text.count("\n", counted, offset)
            counted = offset
            body = value.removesuffix("\n").removesuffix("\r")
            if "\n" in body or line <= previous:
                return _source_lines_only(text, lines, cells)
            previous = line
            shown[line] = body
            if is_code and not cell_magic and not (language == "python" and _MAGIC.match(body)):
                code[line] = body
    if language not in SYMBOL_LANGUAGES:
        problem = f"no reader for the kernel's language {language!r}"
        return NotebookView("text", "", shown, problem=problem)
    return NotebookView(language, "\n".join(code), shown)


def _source_lines_only(text: str, lines: list[str], cells: list[_Cell]) -> NotebookView:
    """A notebook whose sources cannot be placed line by line: the file lines holding a
    source string, as they are (JSON-escaped), the outputs and metadata blank."""
    shown = [""] * len(lines)
    line, counted = 0, 0
    for cell in cells:
        for offset, _ in cell.source:
            line += text.count("\n", counted, offset)
            counted = offset
            shown[line] = lines[line]
    return NotebookView("text", "", shown, problem=_NOT_LINE_BY_LINE)


def _read_worksheet(reader: _Reader) -> list[_Cell]:
    cells: list[_Cell] = []
    for key in reader.members():
        if key == "cells":
            cells = [_read_cell(reader) for _ in reader.items()]
        else:
            reader.value()
    return cells


def _read_cell(reader: _Reader) -> _Cell:
    cell = _Cell()
    for key in reader.members():
        if key == "cell_type":
            kind = reader.value()
            cell.kind = kind if isinstance(kind, str) else ""
        elif key in ("source", "input"):  # nbformat 3 kept a code cell's source as input
            cell.source = tuple(reader.strings())
        else:
            reader.value()
    return cell


def _cell_magic(cell: _Cell) -> bool:
    """Whether a code cell's body is for another program than the kernel."""
    first = next((v for _, v in cell.source if v.strip()), "").strip()
    if not first.startswith("%%"):
        return False
    name = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
    return name not in _PYTHON_CELL_MAGICS


def _kernel_language(metadata: Any) -> str:
    if not isinstance(metadata, dict):
        return "python"
    name: Any = None
    kernel, info = metadata.get("kernelspec"), metadata.get("language_info")
    if isinstance(kernel, dict):
        name = kernel.get("language")
    if not isinstance(name, str) and isinstance(info, dict):
        name = info.get("name")
    if not isinstance(name, str) or not name.strip():
        return "python"
    lowered = name.strip().lower()
    return LANGUAGE_ALIASES.get(lowered, lowered)


class _Reader:
    """A JSON reader that reports where each source string starts: the members of an
    object and the items of an array are walked one by one, every other value is read
    whole by `json`'s own decoder."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _skip_space(self) -> str:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _expect(self, char: str) -> None:
        if self._skip_space() != char:
            raise ValueError(f"expected {char!r} at offset {self.pos}")
        self.pos += 1

    def value(self) -> Any:
        self._skip_space()
        found, self.pos = _DECODER.raw_decode(self.text, self.pos)
        return found

    def _open(self, opening: str, closing: str) -> bool:
        """Read a container's opening bracket: whether any item follows."""
        self._expect(opening)
        if self._skip_space() == closing:
            self.pos += 1
            return False
        return True

    def _more(self, close: str) -> bool:
        """After an item: whether another follows (a comma) or the container closed."""
        char = self._skip_space()
        self.pos += 1
        if char == close:
            return False
        if char != ",":
            raise ValueError(f"expected ',' or {close!r} at offset {self.pos - 1}")
        return True

    def members(self) -> Iterator[str]:
        """The keys of an object; the caller reads each key's value before the next."""
        if not self._open("{", "}"):
            return
        while True:
            key = self.value()
            if not isinstance(key, str):
                raise ValueError(f"expected a key at offset {self.pos}")
            self._expect(":")
            yield key
            if not self._more("}"):
                return

    def items(self) -> Iterator[None]:
        """Once per array item; the caller reads the item each time."""
        if not self._open("[", "]"):
            return
        while True:
            yield None
            if not self._more("]"):
                return

    def strings(self) -> Iterator[tuple[int, str]]:
        """A source: one string, or an array of strings, each with its offset."""
        if self._skip_space() != "[":
            start = self.pos
            found = self.value()
            if isinstance(found, str):
                yield start, found
            return
        for _ in self.items():
            self._skip_space()
            start = self.pos
            found = self.value()
            if not isinstance(found, str):
                raise ValueError(f"a source line that is no string at offset {start}")
            yield start, found
