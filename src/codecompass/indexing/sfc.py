"""Symbols of single-file components: Vue (``.vue``) and Svelte (``.svelte``).

The component itself is a module named after its file (``UserCard.vue`` → ``UserCard``)
spanning the whole file. Each ``<script>`` block is parsed with the JavaScript grammar
(TypeScript for ``lang="ts"``, TSX for ``lang="tsx"``) and its symbols are nested under
the component, at the file's own line numbers: ``UserCard.refresh``. Templates and
styles add no symbols; they stay in the component's chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import PurePosixPath

from codecompass.hashing import file_lines
from codecompass.models import ParsedFile, Symbol

__all__ = ["parse_component"]

_SCRIPT = re.compile(r"<script\b(?P<attributes>[^>]*)>(?P<body>.*?)</script\s*>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_LANG = re.compile(r"""\blang\s*=\s*["']?(\w+)""", re.I)
_SCRIPT_LANGUAGES = {
    "ts": "typescript",
    "typescript": "typescript",
    "tsx": "tsx",
    "jsx": "javascript",
}

ParseScript = Callable[[str, str], ParsedFile]


def parse_component(text: str, path: str, parse_script: ParseScript) -> list[Symbol]:
    """The component and the symbols of its scripts; ``parse_script(code, language)``
    parses one script block."""
    lines = file_lines(text)
    if not any(line.strip() for line in lines):
        return []
    name = PurePosixPath(path.replace("\\", "/")).name.split(".")[0] or "Component"
    component = Symbol(
        name=name,
        qualified_name=name,
        kind="module",
        start_line=1,
        end_line=len(lines),
        header_end_line=1,
        signature=f"<{name}>",
    )
    symbols = [component]
    # Comments are blanked (not removed) so offsets and line numbers stay put.
    searchable = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    for block in _SCRIPT.finditer(searchable):
        lang = _LANG.search(block["attributes"])
        language = _SCRIPT_LANGUAGES.get(lang[1].lower(), "javascript") if lang else "javascript"
        offset = text.count("\n", 0, block.start("body"))
        parsed = parse_script(text[block.start("body") : block.end("body")], language)
        if parsed.error is not None:
            continue
        symbols.extend(_nested(s, name, offset) for s in parsed.symbols)
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def _nested(found: Symbol, component: str, offset: int) -> Symbol:
    return replace(
        found,
        qualified_name=f"{component}.{found.qualified_name}",
        parent=f"{component}.{found.parent}" if found.parent else component,
        start_line=found.start_line + offset,
        end_line=found.end_line + offset,
        header_end_line=found.header_end_line + offset,
    )
