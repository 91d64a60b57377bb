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
from typing import TYPE_CHECKING

from codecompass.hashing import file_lines
from codecompass.indexing.commonjs import FUNCTION_VALUES
from codecompass.indexing.textscan import LineIndex
from codecompass.models import ParsedFile, Symbol

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "component_name",
    "component_tags",
    "blank_comments",
    "called_names",
    "option_entries",
    "options_methods",
    "options_object",
    "parse_component",
    "script_code",
    "template_calls",
]

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
        if parsed.tree is not None:
            named = {s.qualified_name for s in symbols}
            symbols.extend(
                replace(
                    s,
                    start_line=s.start_line + offset,
                    end_line=s.end_line + offset,
                    header_end_line=s.header_end_line + offset,
                )
                for s in options_methods(parsed.tree, name)
                if s.qualified_name not in named
            )
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


# The options of a Vue component whose entries are its methods (`methods: { save() {} }`).
OPTION_GROUPS = frozenset({"methods", "computed", "watch"})
# A component's options that are functions of its own: Vue's lifecycle hooks and `data`
# (`setup`'s functions are symbols already, named in the component).
OPTION_HOOKS = frozenset(
    {"data", "beforeCreate", "created", "beforeMount", "mounted", "beforeUpdate", "updated"}
    | {"activated", "deactivated", "beforeUnmount", "unmounted", "beforeDestroy", "destroyed"}
    | {"errorCaptured", "serverPrefetch", "asyncData", "fetch", "head", "validate"}
)


def options_methods(tree: Node, component: str) -> list[Symbol]:
    """The methods of an Options API component (`export default { methods: { save() {}
    }, computed: {…}, watch: {…}, mounted() {} }`, also through `defineComponent({…})`
    or `Vue.extend({…})`) as the component's methods (`Card.save`): the template and
    `this.save()` call them by that name. Lines are the script's."""
    for statement in tree.named_children:
        value = statement.child_by_field_name("value")
        if statement.type == "export_statement" and value is not None:
            options = options_object(value)
            if options is not None:
                return [
                    _option_symbol(entry, name, component)
                    for entry, name in option_entries(options)
                    if name is not None
                ]
    return []


def options_object(value: Node) -> Node | None:
    """The options object `export default` gives: `value` itself, or the object a call
    is given (`defineComponent({…})`)."""
    if value.type == "call_expression":
        arguments = value.child_by_field_name("arguments")
        objects = [a for a in arguments.named_children if a.type == "object"] if arguments else []
        return objects[0] if objects else None
    return value if value.type == "object" else None


def option_entries(options: Node) -> Iterator[tuple[Node, str | None]]:
    """Each entry of a component's options (those of `methods`, `computed` and `watch` in
    their place), with the name of the component's method it defines, else None (`props`,
    `setup()`, whose functions the template gets by name, a watcher of a dotted path)."""
    for entry in options.named_children:
        name = option_name(entry)
        group = entry.child_by_field_name("value") if entry.type == "pair" else None
        if name in OPTION_GROUPS and group is not None and group.type == "object":
            for member in group.named_children:
                own = option_name(member)
                method = own and "." not in own and _entry_function(member) is not None
                yield member, own if method else None
        else:
            hook = name in OPTION_HOOKS and _entry_function(entry) is not None
            yield entry, name if hook else None


def option_name(entry: Node) -> str:
    key = entry.child_by_field_name("key") if entry.type == "pair" else None
    if entry.type == "method_definition":
        key = entry.child_by_field_name("name")
    text = key.text.decode("utf-8", "replace") if key is not None and key.text else ""
    return text.strip("'\"")


def _entry_function(entry: Node) -> Node | None:
    if entry.type == "method_definition":
        return entry
    value = entry.child_by_field_name("value") if entry.type == "pair" else None
    return value if value is not None and value.type in FUNCTION_VALUES else None


def _option_symbol(entry: Node, name: str, component: str) -> Symbol:
    function = _entry_function(entry) or entry
    body = function.child_by_field_name("body")
    head_end = body.start_point.row if body is not None else entry.end_point.row
    source = entry.text.decode("utf-8", "replace") if entry.text else name
    head = (
        source.split("{", 1)[0] if body is not None and body.type == "statement_block" else source
    )
    return Symbol(
        name=name,
        qualified_name=f"{component}.{name}",
        kind="method",
        start_line=entry.start_point.row + 1,
        end_line=entry.end_point.row + 1,
        header_end_line=head_end + 1,
        signature=" ".join(head.split())[:200],
        parent=component,
    )


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
    return _SCRIPT.finditer(blank_comments(text))


def _script_language(block: re.Match[str]) -> str:
    lang = _LANG.search(block["attributes"])
    return _SCRIPT_LANGUAGES.get(lang[1].lower(), "javascript") if lang else "javascript"


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def blank_comments(markup: str) -> str:
    """`markup` with its `<!-- … -->` comments blanked (lines kept)."""
    return _COMMENT.sub(lambda m: _blank(m.group()), markup)


def called_names(expression: str) -> Iterator[re.Match[str]]:
    """The names called in a template's expression (`save` and `isValid` of
    `save(item) && isValid()`), as matches (group 1) at their offsets."""
    return _CALLED.finditer(expression)


def _template(text: str) -> str:
    """A component's template: its text with comments, scripts and styles blanked."""
    template = _SCRIPT.sub(lambda m: _blank(m.group()), blank_comments(text))
    return _STYLE.sub(lambda m: _blank(m.group()), template)


def component_tags(text: str) -> list[tuple[str, int, bool]]:
    """The components a template uses, outside scripts, styles and comments: (name as
    the script binds it, line, whether the tag was kebab-case and so counts only when
    that name is bound). `<vp-badge>` is `VpBadge`."""
    template = _template(text)
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
    template = _template(text)
    lines = LineIndex(template)
    found: list[tuple[str, int]] = []
    for m in _HANDLER.finditer(template):
        found.append((m[1] or m[2], lines.line(m.start())))
    for m in _BOUND.finditer(template):
        start = m.start(1) if m[1] is not None else m.start(2)
        for call in called_names(m[1] if m[1] is not None else m[2]):
            found.append((call[1], lines.line(start + call.start())))
    return sorted(set(found), key=lambda call: (call[1], call[0]))
