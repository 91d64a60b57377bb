"""Syntax highlighting for the code view: one HTML fragment per line (Pygments' short
token classes, styled by the page's CSS), so that the page can number, mark and scroll
to lines. Text is escaped by the formatter; nothing of the file is trusted as markup."""

from __future__ import annotations

import re

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)
# Characters that change how code reads without being seen: bidirectional controls
# ("Trojan Source": `gnirts desrever` shown as `reversed string`) and zero-width ones.
# Shown as their code point.
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _shown(match: re.Match[str]) -> str:
    point = f"U+{ord(match.group()):04X}"
    return f'<span class="invisible" title="{point}">&lt;{point}&gt;</span>'


def _lexer(path: str) -> Lexer:
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def highlight_lines(path: str, text: str) -> list[str]:
    """`text` (lines of the file `path`) as one HTML fragment per line. The formatter
    closes and reopens spans at each newline, so every fragment stands alone."""
    if not text:
        return [""]
    html = _INVISIBLE.sub(_shown, str(highlight(text, _lexer(path), _FORMATTER)))
    lines = html.split("\n")
    wanted = text.count("\n") + 1
    return (lines + [""] * wanted)[:wanted]
