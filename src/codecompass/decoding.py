"""Turn a file's bytes into text, the same way for indexing and for `open_file`.

Both must read a file alike, or the lines search points at are not the lines
`open_file` shows. The rules:

* a byte-order mark names the encoding: UTF-8, UTF-16 LE/BE or UTF-32 LE/BE; the mark is
  not part of the text. UTF-16 text is half NUL bytes, so the binary test (`sniff_text`)
  looks for a mark before it looks for NULs; without a mark, a NUL means binary;
* without a mark the bytes are UTF-8. A Python file that is not valid UTF-8 and
  declares its encoding in a PEP 263 comment on its first two lines (`# -*- coding:
  latin-1 -*-`) is read in that encoding, as Python reads it: a legacy `shift_jis` or
  `cp1251` module is not Windows-1252. A file that is valid UTF-8 stays UTF-8 whatever
  it declares (a stale cookie left after a conversion would otherwise read `Ã©`);
* a file that is not valid UTF-8 and holds a NUL or many control characters is binary
  data behind a text head (a FITS image's header cards): `Decoded.binary`;
* bytes that are invalid in that encoding are never replaced silently. In a UTF-8 file
  each invalid byte is read as Windows-1252, by far the usual reason for one (text saved
  by a Latin-1 or Windows editor): `caf\\xe9` reads `café`, and the valid UTF-8 around
  it keeps its meaning. The five bytes Windows-1252 leaves undefined, and invalid
  UTF-16/32 code units, become U+FFFD. Either way `Decoded.problem` says what was done
  and where; the index stores it per file (`FileRecord.decode_error`) and counts it.

Both also refuse the same files for size (`size_limit`): over `max_file_bytes`, or for
a Jupyter notebook, whose outputs are not read, over `NOTEBOOK_SIZE_FACTOR` times that.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

# UTF-32-LE's mark starts with UTF-16-LE's, so it is tested first.
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_FALLBACK = "codecompass.cp1252"
# PEP 263's pattern, on one of the first two lines of a Python file.
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_DECLARING = (".py", ".pyi", ".pyw", ".pyx", ".pxd")
NOTEBOOK_SIZE_FACTOR = 16


def is_notebook_path(path: str) -> bool:
    """A Jupyter notebook, read through its cells (`indexing.notebook`)."""
    return path.lower().endswith(".ipynb")


def size_limit(path: str, max_file_bytes: int) -> int:
    """The largest size of `path` that is read."""
    return max_file_bytes * NOTEBOOK_SIZE_FACTOR if is_notebook_path(path) else max_file_bytes


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str
    encoding: str  # the codec that read the bytes after any mark: "utf-8", "utf-16-le", …
    problem: str | None = None  # how invalid bytes were read; None when there were none
    # Not text at all: see `_binary_data`. The index skips such a file as binary.
    binary: bool = False


def _cp1252_bytes(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return bad.decode("cp1252", errors="replace"), exc.end


codecs.register_error(_FALLBACK, _cp1252_bytes)


def _mark(data: bytes) -> tuple[str, int] | None:
    """The encoding a byte-order mark at the start of `data` names, and the mark's length."""
    for mark, encoding in _MARKS:
        if data.startswith(mark):
            return encoding, len(mark)
    return None


def sniff_text(head: bytes) -> bytes | None:
    """A file's first bytes as UTF-8 (for rules that read the head), or None if binary.

    Binary is a NUL byte, or, after a UTF-16/32 mark, a head that does not decode or
    decodes to a NUL character. A head cut inside a character is fine; invalid UTF-8 is
    not binary (`decode_text` reads and reports it)."""
    found = _mark(head)
    if found is not None and found[0] == "utf-8":
        head = head[found[1] :]
    elif found is not None:
        encoding, start = found
        decoder = codecs.getincrementaldecoder(encoding)()
        try:
            text = decoder.decode(head[start:], final=False)
        except UnicodeDecodeError:
            return None
        return None if "\0" in text else text.encode("utf-8")
    return None if b"\0" in head else head


def _declared(data: bytes, path: str) -> str | None:
    """The codec a Python file's coding comment names (PEP 263), if Python knows it."""
    if not path.lower().endswith(_DECLARING):
        return None
    for line in data.split(b"\n", 2)[:2]:
        found = _CODING.match(line)
        if found:
            try:
                return codecs.lookup(found.group(1).decode("ascii")).name
            except LookupError:
                return None
        if line.strip() and not line.lstrip().startswith(b"#"):
            return None  # the second line counts after a comment or a blank line only
    return None


def decode_text(data: bytes, path: str = "") -> Decoded:
    """The text of a file's bytes (`path` names the file, for a coding comment), with a
    note when some bytes were invalid."""
    encoding, start = _mark(data) or ("utf-8", 0)
    body = memoryview(data)[start:]
    try:
        return Decoded(str(body, encoding), encoding)
    except UnicodeDecodeError as exc:
        first = exc.start
    declared = _declared(data, path) if start == 0 else None
    if declared is not None:
        try:
            return Decoded(str(body, declared), declared)
        except UnicodeDecodeError:
            pass  # it is no more valid in what it declares: read as UTF-8 below
    line = _line_at(bytes(body[:first]), encoding)
    if encoding == "utf-8":
        text = str(body, encoding, _FALLBACK)
        valid = str(body, encoding, "ignore")  # what decodes, invalid bytes left out
        bad = len(body) - len(valid.encode(encoding))
        undefined = text.count("\ufffd") - valid.count("\ufffd")
        problem = f"not valid UTF-8: {_plural(bad, 'byte')} read as Windows-1252 ({line})"
        if undefined:
            problem += f"; {undefined} of them undefined there, replaced with U+FFFD"
        return Decoded(text, encoding, problem, _binary_data(data))
    text = str(body, encoding, "replace")
    replaced = len(text) - len(str(body, encoding, "ignore"))
    unit = "code unit" if encoding.startswith("utf-16") else "character"
    name = encoding.upper()
    return Decoded(
        text, encoding, f"not valid {name}: {_plural(replaced, unit)} replaced with U+FFFD ({line})"
    )


# Control characters no text holds: all of C0 but tab, line feed, form feed, carriage
# return and escape (terminal colours in a log).
_CONTROLS = bytes(b for b in range(32) if b not in b"\t\n\f\r\x1b")
_CONTROL_SHARE = 0.01


def _binary_data(data: bytes) -> bool:
    """Whether bytes that are not valid UTF-8 hold a NUL or more than 1% control
    characters: data with a text head, such as a FITS image (80-column ASCII header
    cards, then the pixels) or a `compress`ed file, which the NUL test on a file's head
    (`sniff_text`) let through. A Latin-1 or Windows text file has neither."""
    if b"\0" in data:
        return True
    controls = len(data) - len(data.translate(None, _CONTROLS))
    return controls > _CONTROL_SHARE * len(data)


def _line_at(valid_prefix: bytes, encoding: str) -> str:
    text = valid_prefix.decode(encoding, errors="replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
    return f"first on line {lines}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def well_formed(text: str) -> str:
    """`text` with each UTF-16 surrogate pair joined and a lone surrogate (half an emoji,
    `"\\ud83c"` in JSON) as U+FFFD: the tokenizer, SQLite and PostgreSQL refuse them, and
    a query holding one had failed as an unexpected error."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
