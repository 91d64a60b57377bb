"""Symbols of single-file components: Vue (``.vue``) and Svelte (``.svelte``).

The component itself is a module named after its file (``UserCard.vue`` → ``UserCard``)
spanning the whole file. Each ``<script>`` block is parsed with the JavaScript grammar
(TypeScript for ``lang="ts"``, TSX for ``lang="tsx"``) and its symbols are nested under
the component, at the file's own line numbers: ``UserCard.refresh``. Templates and
styles add no symbols; they stay in the component's chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import PurePosixPath

from codecompass.hashing import file_lines
from codecompass.indexing.textscan import LineIndex
from codecompass.models import ParsedFile, Symbol

__all__ = ["component_name", "component_tags", "parse_component", "script_code", "template_calls"]

_SCRIPT = re.compile(r"<script\b(?P<attributes>[^>]*)>(?P<body>.*?)</script\s*>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_STYLE = re.compile(r"<style\b[^>]*>.*?</style\s*>", re.S | re.I)
# A component used in a template: `<VPSidebarItem`, `<Tabs.Item`, or Vue's kebab-case
# `<vp-badge` (a custom element's name has a hyphen too; it counts only when imported).
_PASCAL_TAG = re.compile(r"<([A-Z]\w*(?:\.[A-Za-z_]\w*)*)(?=[\s/>])")
_KEBAB_TAG = re.compile(r"<([a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?=[\s/>])")
_LANG = re.compile(r"""\blang\s*=\s*["']?(\w+)""", re.I)
# An event handler (Vue's `@click="save(item)"`, `v-on:submit.prevent="submit"`,
# Svelte's `on:click={save}`) or a bound expression (`:disabled="isValid()"`,
# `v-if="canEdit()"`, `{{ format(total) }}`): the calls a template makes.
_HANDLER = re.compile(
    r"""(?:\s@|\sv-on:)[\w.:-]+\s*=\s*"\s*([A-Za-z_$][\w$.]*)\s*(?:\(|")"""
    r"""|\son:[\w.|-]+\s*=\s*\{\s*([A-Za-z_$][\w$]*)\s*[(}]"""
)
_BOUND = re.compile(
    r"""(?:\s(?::|v-bind:|v-if=|v-else-if=|v-show=)[^"]*"([^"]*)"|\{\{(.*?)\}\})""", re.S
)
_CALLED = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\(")
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
    name = component_name(path)
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
    for block in _scripts(text):
        language = _script_language(block)
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


def component_name(path: str) -> str:
    """`src/lib/UserCard.vue` → `UserCard`: the module its scripts' symbols nest under."""
    return PurePosixPath(path.replace("\\", "/")).name.split(".")[0] or "Component"


def script_code(text: str) -> tuple[str, str] | None:
    """The component's scripts as one module to parse: every character outside their
    bodies blanked (line breaks kept, so each line of code keeps its number), and the
    language to read it in (TypeScript or TSX when a block is; JavaScript is read as
    TypeScript then too). None when the component has no script."""
    blocks = list(_scripts(text))
    if not blocks:
        return None
    languages = {_script_language(block) for block in blocks}
    if "tsx" in languages:
        language = "tsx"
    elif languages == {"javascript"}:
        language = "javascript"
    else:
        language = "typescript"
    kept = [(block.start("body"), block.end("body")) for block in blocks]
    out: list[str] = []
    at = 0
    for start, end in kept:
        out.append(_blank(text[at:start]))
        out.append(text[start:end])
        at = end
    out.append(_blank(text[at:]))
    return "".join(out), language


def _scripts(text: str) -> Iterator[re.Match[str]]:
    """The `<script>` blocks outside comments. Comments are blanked (not removed) so
    offsets and line numbers stay put."""
    return _SCRIPT.finditer(_COMMENT.sub(lambda m: _blank(m.group()), text))


def _script_language(block: re.Match[str]) -> str:
    lang = _LANG.search(block["attributes"])
    return _SCRIPT_LANGUAGES.get(lang[1].lower(), "javascript") if lang else "javascript"


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def component_tags(text: str) -> list[tuple[str, int, bool]]:
    """The components a template uses, outside scripts, styles and comments: (name as
    the script binds it, line, whether the tag was kebab-case and so counts only when
    that name is bound). `<vp-badge>` is `VpBadge`."""
    template = _COMMENT.sub(lambda m: _blank(m.group()), text)
    template = _SCRIPT.sub(lambda m: _blank(m.group()), template)
    template = _STYLE.sub(lambda m: _blank(m.group()), template)
    lines = LineIndex(template)
    found: list[tuple[str, int, bool]] = []
    for pattern, kebab in ((_PASCAL_TAG, False), (_KEBAB_TAG, True)):
        for m in pattern.finditer(template):
            name = m[1]
            if kebab:
                name = "".join(part.capitalize() for part in name.split("-"))
            found.append((name, lines.line(m.start()), kebab))
    return sorted(found, key=lambda tag: tag[1])


def template_calls(text: str) -> list[tuple[str, int]]:
    """The functions a component's template calls, outside scripts, styles and comments:
    (name, line) for each event handler named (`@click="save"`, `@click="save(item)"`)
    and each call in a bound expression (`:disabled="isValid()"`, `{{ format(x) }}`)."""
    template = _COMMENT.sub(lambda m: _blank(m.group()), text)
    template = _SCRIPT.sub(lambda m: _blank(m.group()), template)
    template = _STYLE.sub(lambda m: _blank(m.group()), template)
    lines = LineIndex(template)
    found: list[tuple[str, int]] = []
    for m in _HANDLER.finditer(template):
        found.append((m[1] or m[2], lines.line(m.start())))
    for m in _BOUND.finditer(template):
        start = m.start(1) if m[1] is not None else m.start(2)
        for call in _CALLED.finditer(m[1] if m[1] is not None else m[2]):
            found.append((call[1], lines.line(start + call.start())))
    return sorted(set(found), key=lambda call: (call[1], call[0]))
