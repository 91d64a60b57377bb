"""The head of a source file: imports, includes, package and namespace lines.

A passage's gist is what follows them (an extractive answer skips them: rich's
columns.py showed `from collections import defaultdict`), and a module chunk holding
nothing else (PHP's `<?php namespace …; use …;`, a C# file's `namespace X;`) is seldom
what a question is about: 19% of a Laravel app's PHP chunks, ranked above the code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A comment line above code: `//`, `/*`, `*`, `#` then a space or the end (not `#!`,
# `#[derive]`, `#include`), `--` then a space (Lua, SQL, Haskell).
COMMENT_LINE = re.compile(r"(?://|/\*|\*|#(?:\s|#|$)|--(?:\s|$))")
PREAMBLE_LINE = re.compile(
    r"(?:import\s|from\s+\S+\s+import\b|#\s*(?:include|import|pragma\s+once)\b"
    r"|(?:pub(?:\([^)]*\))?\s+)?use\s|(?:global\s+)?using\s+[\w.=\s]+;|package\s"
    r"|namespace\s+[\w.\\]+\s*[;{]?\s*$|<\?php\b|declare\s*\(\s*strict_types"
    r"|(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*;|extern\s+crate\s"
    r"|require[\s(]|require_relative\s|(?:const|let|var)\s+\w+\s*=\s*require\("
    r"|[\"']use strict)"
)
# Lines that say nothing either way: braces, parentheses, an elision mark.
_FILLER = re.compile(r"\s*(?:[{}();]+|\.\.\.)\s*$")


def preamble_end(lines: Sequence[str], start: int) -> int:
    """The index of the first line after the imports starting at ``start`` (comments
    between them skipped, those after the last left to the code they describe; an
    import wrapped in parentheses or braces counted whole); ``start`` when no import
    starts there."""
    end, at, depth = start, start, 0
    while at < len(lines):
        line = lines[at]
        inside = depth > 0
        preamble = inside or PREAMBLE_LINE.match(line) is not None
        if not preamble and not COMMENT_LINE.match(line):
            break
        depth = max(
            0, depth + line.count("(") + line.count("{") - line.count(")") - line.count("}")
        )
        at += 1
        if preamble:
            end = at
    return end


def only_preamble(text: str) -> bool:
    """Whether a module chunk's text is nothing but a file's head (with comments,
    braces and elision marks between its lines)."""
    lines = [
        stripped
        for line in text.splitlines()
        if (stripped := line.strip())
        and not _FILLER.match(stripped)
        and not COMMENT_LINE.match(stripped)
    ]
    return bool(lines) and preamble_end(lines, 0) == len(lines)
