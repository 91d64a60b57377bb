"""Content normalization and BLAKE3 identities (DESIGN.md §2, seed 000).

Text is normalized before hashing so that the same code hashes the same on every
machine: CRLF/CR become LF, Unicode is NFC, control characters other than newline and
tab are dropped, and trailing whitespace is stripped from each line. Tabs, inner
spaces and leading/trailing empty lines are kept. Binary content is hashed raw. The
index stores the canonical text (the same, trailing whitespace kept).
"""

from __future__ import annotations

import re
import unicodedata

import blake3

# C0 controls except \t (0x09) and \n (0x0a), DEL, and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_TRAILING_WS = re.compile(r"[ \t\f\v\u00a0\u2000-\u200b\u3000]+$", re.MULTILINE)


def canonical_text(text: str) -> str:
    """`text` as the index stores it: LF line ends, NFC, no control characters but tab
    and newline. Trailing blanks stay, so a snippet prints the source line as it is."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    return _CONTROL.sub("", text)


def file_lines(text: str) -> list[str]:
    """The lines of a file's text, as its line numbers count them: split at each newline,
    a final newline opening no empty last line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def normalize_text(text: str) -> str:
    """Return `text` in the canonical form every hash is computed over: the stored
    form without trailing blanks."""
    return _TRAILING_WS.sub("", canonical_text(text))


def hash_bytes(data: bytes) -> str:
    return blake3.blake3(data).hexdigest()


def hash_text(text: str) -> str:
    """BLAKE3 of the normalized text, as hex."""
    return hash_bytes(normalize_text(text).encode("utf-8"))


def chunk_id(repo: str, path: str, start_line: int, end_line: int, content_hash: str) -> str:
    """A chunk's id: its place, and the hash of everything else its row holds (text,
    symbol, kind, header), so that a chunk whose text stays while its symbol is renamed
    is a new chunk, not a stale row."""
    # Separators keep ("a", "b1") and ("ab", "1") apart.
    key = f"{repo}\x1f{path}\x1f{start_line}\x1f{end_line}\x1f{content_hash}"
    return hash_bytes(key.encode("utf-8"))


def symbol_content_hash(signature: str, doc: str, body: str) -> str:
    return hash_text(f"{signature}\n{doc}\n{body}")
