"""Per-language knowledge the generic tag walker in ``parse.py`` needs.

The query files say *where* definitions and references are; a ``Rules`` object says how
to name them, where their body starts, what counts as their doc comment and whether they
are visible outside their file. Every hook has a default that suits C-like grammars, so a
language overrides only what differs.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from codecompass.indexing import commonjs
from codecompass.indexing.inflection import camel, singular
from codecompass.indexing.treesitter import Node
from codecompass.models import ReferenceKind, Symbol, SymbolKind

TYPE_KINDS: frozenset[str] = frozenset({"class", "struct", "interface", "trait", "enum"})
FUNCTION_KINDS: frozenset[str] = frozenset({"function", "method"})

_SIMPLE_NAME = re.compile(r"[A-Za-z_$#@][\w$#@]*(?:\.[A-Za-z_$#@][\w$#@]*)*")
_SEGMENT = re.compile(r"[A-Za-z_$#@~][\w$#@!?=]*(?:\(\)|\[\])*")
_WHITESPACE = re.compile(r"\s+")
_OPEN_SPACE = re.compile(r"([(\[]) ")
_CLOSE_SPACE = re.compile(r" ([)\]])")
_TRAILING_COMMA = re.compile(r",([)\]>])")
# A type parameter list wrapped over lines: `create<\n  T extends X\n>(`.
_WRAPPED_ANGLE = re.compile(r"<[ \t]*\n\s*|\s*\n[ \t]*>")
_STRING_PREFIX = re.compile(r"^[rRuUbBfF]{1,3}(?=[\"'])")
_TEMPLATE_ARGS = re.compile(r"<.*>$")
_CSHARP_XML = re.compile(r"</?(?:summary|remarks|returns|value|para|example)\s*>")

_CONSTANT_NAME = re.compile(r"_*[A-Z][A-Z0-9_]+")

_MAX_NAME = 200


@dataclass(slots=True, eq=False)
class Definition:
    """A captured definition (or a naming-only scope) on its way to becoming a Symbol."""

    node: Node  # the node the query captured
    outer: Node  # ``node`` widened over wrappers such as ``export`` or decorators
    kind: SymbolKind
    name: str
    prefix: tuple[str, ...] = ()  # qualifiers written in the name itself: Go receivers, a::b::f
    is_scope: bool = False  # qualifies what it contains but is not reported as a symbol
    container: Definition | None = None
    qualified: str = ""
    parent: str | None = None
    exported: bool = True


@dataclass(slots=True)
class FileContext:
    """One file being parsed: its bytes plus whatever a language wants to remember."""

    data: bytes
    root: Node
    known_types: set[str] = field(default_factory=set)  # qualified names of type-like symbols
    exported_names: set[str] = field(default_factory=set)
    # Perl: where each `package Name;` statement starts (byte offset, name), in order; the
    # subs after it, up to the next, are the package's.
    package_starts: list[tuple[int, str]] = field(default_factory=list)
    # Rows of code blanked for the parse (`blanking.py`): a doc comment reaches across them.
    blanked_rows: frozenset[int] = frozenset()
    # The file as written when the parse read a blanked copy (`data`), else empty.
    written: bytes = b""
    # Ruby: the local variable names of each method (by its start byte), `_ruby_locals`.
    ruby_locals: dict[int, frozenset[str]] = field(default_factory=dict)

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def span(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def adjacent(self, upper: int, lower: int) -> bool:
        """Whether row ``lower`` follows row ``upper``, or only blanked rows lie between."""
        return upper < lower and all(row in self.blanked_rows for row in range(upper + 1, lower))

    def row_at(self, anchor: Node, offset: int) -> int:
        """0-based row of byte ``offset``, counted from ``anchor`` which starts before it."""
        return anchor.start_point.row + self.data.count(b"\n", anchor.start_byte, offset)


RefTuple = tuple[ReferenceKind, str, int]  # kind, name, 0-based row


def end_row(node: Node) -> int:
    """Last row that holds part of ``node`` (a node ending in a newline ends the row before)."""
    point = node.end_point
    if point.column == 0 and point.row > node.start_point.row:
        return point.row - 1
    return point.row


def collapse(text: str) -> str:
    """Whitespace runs to single spaces, tidied inside brackets."""
    if "<" in text or ">" in text:
        text = _WRAPPED_ANGLE.sub(lambda m: m.group().strip(), text)
    text = " ".join(text.split())
    if "( " in text or "[ " in text:
        text = _OPEN_SPACE.sub(r"\1", text)
    if " )" in text or " ]" in text:
        text = _CLOSE_SPACE.sub(r"\1", text)
    if ",)" in text or ",]" in text or ",>" in text:
        text = _TRAILING_COMMA.sub(r"\1", text)
    return text


def operator_name(symbol: str) -> str:
    """An operator method's name, as C++ writes it: `operator==` (C#, Dart)."""
    return "operator" + symbol.strip()


def normalize_name(text: str) -> str:
    """Reduce a callee or type expression to a dotted name.

    ``::``, ``->``, ``?.`` and ``\\`` become ``.``; argument lists and subscripts are kept
    only as ``()`` / ``[]``; generic arguments are dropped; a segment that is not a name
    (a string literal, a parenthesised expression) becomes ``?``. ``self.c().d[0].e``
    becomes ``self.c().d[].e`` and ``"-".join`` becomes ``?.join``.
    """
    if len(text) <= _MAX_NAME and _SIMPLE_NAME.fullmatch(text):
        return text
    out: list[str] = []
    depth = 0
    closer = ""
    opener = ""
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if depth:
            if char == opener:
                depth += 1
            elif char == closer:
                depth -= 1
                if depth == 0 and opener != "<":
                    out.append(opener + closer)
            index += 1
            continue
        pair = text[index : index + 2]
        if pair in ("::", "->", "?."):
            if text[index + 2 : index + 3] == "<":
                # Rust turbofish ``f::<T>``: drop the separator with the generics.
                index += 2
                continue
            out.append(".")
            index += 2
            continue
        if char in "([{<":
            opener = char
            closer = {"(": ")", "[": "]", "{": "}", "<": ">"}[char]
            depth = 1
        elif char == "\\":
            out.append(".")
        elif not char.isspace():
            out.append(char)
        index += 1
    segments = [segment.lstrip("$") for segment in "".join(out).split(".")]
    while segments and not segments[0]:
        segments.pop(0)
    name = ".".join(
        segment if _SEGMENT.fullmatch(segment) else "?" for segment in segments if segment
    )
    return name[:_MAX_NAME]


def clean_comment(text: str) -> str:
    """Comment text without its markers, common indentation removed."""
    text = text.strip()
    lines: list[str]
    if text.startswith("/*"):
        body = text[3:] if text.startswith(("/**", "/*!")) else text[2:]
        if body.endswith("*/"):
            body = body[:-2]
        lines = []
        for line in body.split("\n"):
            stripped = line.strip()
            if stripped.startswith("*"):
                stripped = stripped[1:]
                line = stripped[1:] if stripped.startswith(" ") else stripped
            lines.append(line)
    else:
        lines = []
        for line in text.split("\n"):
            stripped = line.strip()
            for marker in ("///", "//!", "//", "#!", "#"):
                if stripped.startswith(marker):
                    stripped = stripped[len(marker) :]
                    break
            lines.append(stripped[1:] if stripped.startswith(" ") else stripped)
    return inspect.cleandoc("\n".join(lines))


def string_literal_value(text: str) -> str:
    """The contents of a quoted string literal, prefixes and quotes removed."""
    text = _STRING_PREFIX.sub("", text, count=1)
    for quote in ('"""', "'''", '"', "'", "`"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            return text[len(quote) : -len(quote)]
    return text


def named_children_of_type(node: Node, types: frozenset[str]) -> Iterator[Node]:
    for child in node.named_children:
        if child.type in types:
            yield child


def first_child_of_type(node: Node, types: frozenset[str]) -> Node | None:
    for child in node.children:
        if child.type in types:
            return child
    return None


class Rules:
    """Defaults for C-family grammars; subclasses override what their language does differently."""

    comment_types: frozenset[str] = frozenset({"comment"})
    # Siblings directly above a definition that belong to it besides comments.
    attachment_types: frozenset[str] = frozenset()
    # Children skipped when finding where a signature starts (decorators, annotations).
    signature_skip: frozenset[str] = frozenset()
    # Children whose own children are searched for the signature start (``modifiers``).
    signature_descend: frozenset[str] = frozenset()
    # Parent node types a definition's range widens over (``export``, decorators). With
    # True the parent is climbed only when it holds no other declaration of the same type
    # (``const a = () => 1, b = 2`` keeps ``a`` to its own declarator).
    wrappers: dict[str, bool] = {}
    # Symbol kinds whose function children are methods.
    type_like_kinds: frozenset[str] = TYPE_KINDS
    # Fields of a call node that end a callee captured without ``@name`` (Java, PHP, Ruby:
    # the callee is the call's text up to its arguments or block).
    call_argument_fields: tuple[str, ...] = ("arguments",)

    def prepare(self, ctx: FileContext) -> None:
        """Collect per-file facts before definitions are processed."""

    def qualifies_a_type(self, qualifier: str, namespaces: set[str]) -> bool:
        """Whether a function written ``qualifier::name`` whose qualifier is no type of
        this file is a member of a type defined elsewhere (``namespaces``: the file's)."""
        return False

    def finish(
        self, ctx: FileContext, definitions: Sequence[Definition], symbols: list[Symbol]
    ) -> list[Symbol]:
        """A last pass over the file's symbols (`definitions` made them, in order)."""
        return symbols

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        """Qualifier parts written in the definition's own name, then the name."""
        if name_node is None:
            return []
        return [ctx.text(name_node)]

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        """The kind to report for a captured definition, or None to drop it."""
        return _as_kind(kind)

    def body(self, node: Node) -> Node | None:
        return node.child_by_field_name("body")

    def header(self, ctx: FileContext, node: Node, body: Node) -> tuple[int, int]:
        """(end of signature, byte on the last header line) for a definition with a body."""
        start = body.start_byte
        if ctx.data[start : start + 1] == b"{":
            return start, start
        # Comments between the header and the body (Ruby keeps those above a body's first
        # statement there) document that statement, not this header.
        for child in reversed(node.children):
            if child.end_byte > body.start_byte:
                continue
            if child.type not in self.comment_types:
                break
            start = child.start_byte
        before = len(ctx.data[node.start_byte : start].rstrip()) + node.start_byte
        return start, max(node.start_byte, before - 1)

    def signature(self, ctx: FileContext, definition: Definition, text: str) -> str:
        """Final touch on the collapsed signature text."""
        return text[:-1].rstrip() if text.endswith(";") else text

    def docstring(self, ctx: FileContext, definition: Definition) -> str | None:
        """Doc text found inside the definition (Python docstrings); None to use comments."""
        return None

    def clean_doc(self, comments: list[str]) -> str:
        return "\n".join(clean_comment(comment) for comment in comments).strip()

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        """Whether the definition itself is marked public (its container is checked apart)."""
        return True

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        """References for one captured ``@reference.<kind>`` match."""
        if kind == "call":
            name = normalize_name(self.callee_text(ctx, node, name_node))
            if name:
                yield "call", name, node.start_point.row
        elif kind == "inherit":
            name = normalize_name(ctx.text(name_node or node))
            if name:
                yield "inherit", name, node.start_point.row
        elif kind == "import":
            name = normalize_name(ctx.text(name_node or node))
            if name:
                yield "import", name, node.start_point.row
        elif kind == "type" and name_node is not None:
            yield "type", normalize_name(ctx.text(name_node)), node.start_point.row
        elif kind == "value" and name_node is not None:  # a function named as a value
            yield "value", ctx.text(name_node), name_node.start_point.row

    def callee_text(self, ctx: FileContext, node: Node, name_node: Node | None) -> str:
        if name_node is not None:
            return ctx.text(name_node)
        end = node.end_byte
        for field_name in self.call_argument_fields:
            child = node.child_by_field_name(field_name)
            if child is not None:
                end = min(end, child.start_byte)
        return ctx.span(node.start_byte, end)

    def scope_name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if name_node is None:
            return []
        return [part for part in normalize_name(ctx.text(name_node)).split(".") if part]


def code_text(ctx: FileContext, rules: Rules, node: Node, start: int, end: int) -> str:
    """The text of bytes `start`..`end` of `node` without its comments: collapsed to one
    line, a line comment would swallow the rest (`def put(  # type: ignore` → `def
    put(# type: ignore self, url)`)."""
    comments: list[tuple[int, int]] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if current.end_byte <= start or current.start_byte >= end:
            continue
        if current.type in rules.comment_types:
            comments.append((current.start_byte, current.end_byte))
        else:
            pending.extend(current.children)
    if not comments:
        return ctx.span(start, end)
    text, at = "", start
    for first, last in sorted(comments):
        text += ctx.span(at, max(at, first)).rstrip()
        at = max(at, last)
        following = ctx.span(at, at + 1)
        if text and following and (text[-1].isalnum() or text[-1] == "_") and following.isalnum():
            text += " "  # `a/*x*/b` stays two words
    return text + ctx.span(at, end)


_KINDS: dict[str, SymbolKind] = {
    "module": "module",
    "class": "class",
    "function": "function",
    "method": "method",
    "interface": "interface",
    "type": "type",
    "enum": "enum",
    "struct": "struct",
    "trait": "trait",
    "constant": "constant",
    "variable": "variable",
}


def _as_kind(kind: str) -> SymbolKind | None:
    return _KINDS.get(kind)


# --------------------------------------------------------------------------- Python


class PythonRules(Rules):
    wrappers = {"decorated_definition": False}
    signature_skip = frozenset({"decorator", "comment"})

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        parts = super().name_parts(ctx, node, name_node)
        if node.type == "assignment" and not (parts and _CONSTANT_NAME.fullmatch(parts[-1])):
            return []
        return parts

    def header(self, ctx: FileContext, node: Node, body: Node) -> tuple[int, int]:
        colon = None
        for child in node.children:
            if child.start_byte >= body.start_byte:
                break
            if child.type == ":":
                colon = child
        if colon is None:
            return super().header(ctx, node, body)
        return colon.start_byte, colon.start_byte

    def docstring(self, ctx: FileContext, definition: Definition) -> str | None:
        body = definition.node.child_by_field_name("body")
        if body is None or definition.kind not in ("class", "function", "method"):
            return None
        for statement in body.named_children:
            if statement.type == "comment":
                continue
            if statement.type == "expression_statement" and statement.named_child_count == 1:
                literal = statement.named_children[0]
                if literal.type == "string":
                    return inspect.cleandoc(string_literal_value(ctx.text(literal)))
            return None
        return None

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        name = definition.name
        return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import":
            yield from self._imports(ctx, node)
        elif kind == "inherit":
            target = node.child_by_field_name("value") if node.type == "subscript" else node
            name = normalize_name(ctx.text(target or node))
            if name:
                yield "inherit", name, node.start_point.row
        else:
            yield from super().references(ctx, kind, node, name_node)

    def _imports(self, ctx: FileContext, node: Node) -> Iterator[RefTuple]:
        module = ""
        module_node = node.child_by_field_name("module_name")
        if module_node is not None:
            module = _WHITESPACE.sub("", ctx.text(module_node))
        for child in node.named_children:
            if child is module_node or child == module_node:
                continue
            if child.type == "aliased_import":
                target = child.child_by_field_name("name")
            elif child.type in ("dotted_name", "wildcard_import"):
                target = child
            else:
                continue
            if target is None:
                continue
            name = _WHITESPACE.sub("", ctx.text(target))
            if module:
                name = module + name if module.endswith(".") else f"{module}.{name}"
            yield "import", name, child.start_point.row


# --------------------------------------------------------------------------- JavaScript / TS


class EcmaRules(Rules):
    comment_types = frozenset({"comment"})
    attachment_types = frozenset({"decorator"})
    signature_skip = frozenset({"decorator", "comment"})
    wrappers = {
        "export_statement": False,
        "lexical_declaration": True,
        "variable_declaration": True,
        "expression_statement": True,
        "ambient_declaration": True,
    }
    type_like_kinds = TYPE_KINDS

    def prepare(self, ctx: FileContext) -> None:
        for statement in ctx.root.named_children:
            if statement.type != "export_statement":
                continue
            if statement.child_by_field_name("source") is not None:
                continue
            for clause in named_children_of_type(statement, frozenset({"export_clause"})):
                for specifier in clause.named_children:
                    local = specifier.child_by_field_name("name")
                    if local is not None:
                        ctx.exported_names.add(ctx.text(local))
            value = statement.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                ctx.exported_names.add(ctx.text(value))
        # CommonJS: what module.exports is set to is exported; module-level objects that
        # receive functions (`res.json = function …`) are class-like (see commonjs.py).
        shapes = commonjs.module_shapes(ctx.data, ctx.root)
        ctx.exported_names.update(shapes.module_objects)
        ctx.known_types.update(shapes.objects)

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        if node.type == "variable_declarator" and kind == "class":
            return "class" if _is_object(ctx, node) else None
        declared = node.type == "variable_declarator" and kind == "function"
        field = node.type in ("public_field_definition", "field_definition") and kind == "method"
        value = node.child_by_field_name("value") if declared or field else None
        # `users.map((u) => u.name)`, a local `computed(() => …)`: a value (a constant if
        # anything), not a function
        if (
            value is not None
            and value.type == "call_expression"
            and (made_function(value) is None or (declared and _in_function(node)))
        ):
            return None
        if node.type == "assignment_expression":
            left = node.child_by_field_name("left")
            found = commonjs.assigned_name(ctx.data, left) if left is not None else None
            if found is None:
                return "function" if left is not None and _exported_function(ctx, node) else None
            return "method" if found.prototype else "function"
        if node.type in ("method_definition", "pair") and node.parent is not None:
            grand = node.parent.parent
            if grand is not None and grand.type in ("assignment_expression", "arguments"):
                owner = commonjs.literal_owner(ctx.data, node.parent)
                if owner is None:
                    return None
                if grand.type == "arguments" and not commonjs.holds_functions(
                    node.child_by_field_name("value")
                ):
                    return None  # a descriptor of a plain value
                return "method" if owner else "function"
        return super().accept(ctx, kind, node)

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if name_node is None:
            return []
        if node.type == "assignment_expression":
            found = commonjs.assigned_name(ctx.data, name_node)
            if found is not None:
                return list(found.parts)
            value = node.child_by_field_name("right")
            own = value.child_by_field_name("name") if value is not None else None
            return [ctx.text(own)] if own is not None else []
        name = ctx.text(name_node)
        if name_node.type == "nested_identifier":
            return name.replace(" ", "").split(".")
        if node.type in ("method_definition", "pair") and node.parent is not None:
            owner = commonjs.literal_owner(ctx.data, node.parent)
            if owner is not None:
                return [*owner, name]
        if node.type == "variable_declarator" and not _CONSTANT_NAME.fullmatch(name):
            value = _asserted_function(node.child_by_field_name("value"))
            if value is None or (
                value.type not in _FUNCTION_VALUES
                and (made_function(value) is None or _in_function(node))
                and not _is_object(ctx, node)
                and not _exported_product(ctx, node, name)
            ):
                return []  # a constant pattern matched a lower-case variable
        return [name]

    def body(self, node: Node) -> Node | None:
        holder = _FUNCTION_HOLDERS.get(node.type)
        if holder is not None:
            value = node.child_by_field_name(holder)
            if value is not None and value.type == "call_expression":
                value = made_function(value)
            return value.child_by_field_name("body") if value is not None else None
        if node.type == "variable_declarator":
            value = _asserted_function(node.child_by_field_name("value"))
            if value is None:
                return None
            if value.type in _FUNCTION_VALUES:
                return value.child_by_field_name("body")
            made = made_function(value)
            if made is not None:
                return made.child_by_field_name("body")
            return value if commonjs.holds_functions(value) else None
        return node.child_by_field_name("body")

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        container = definition.container
        if container is not None and container.kind in TYPE_KINDS:
            if definition.name.startswith("#"):
                return False
            for child in definition.node.children:
                if child.type == "accessibility_modifier":
                    return ctx.text(child) != "private"
            return True
        if _inside_export(definition.outer):
            return True
        if container is None and definition.node.type in _ASSIGNED_DEFINITIONS:
            # `exports.x = …`, members of module.exports or of the object it is set to.
            if definition.node.type == "assignment_expression":
                left = definition.node.child_by_field_name("left")
                found = commonjs.assigned_name(ctx.data, left) if left is not None else None
                if found is None or found.exported:
                    return True
            return not definition.prefix or definition.prefix[0] in ctx.exported_names
        return container is None and definition.name in ctx.exported_names

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import":
            yield from self._imports(ctx, node)
            return
        if (
            kind == "call"
            and node.type in _JSX_ELEMENTS
            and (name_node is None or not ctx.text(name_node)[:1].isupper())
        ):
            return  # a lower-case JSX tag is an HTML element, not a component
        if kind == "call" and node.type == "call_expression" and name_node is not None:
            callee = ctx.text(name_node)
            if callee in ("require", "import"):
                module = _first_string_argument(ctx, node)
                if module is not None:
                    yield "import", module, node.start_point.row
                    return
        yield from super().references(ctx, kind, node, name_node)

    def _imports(self, ctx: FileContext, node: Node) -> Iterator[RefTuple]:
        source = node.child_by_field_name("source")
        if source is None:
            return
        module = string_literal_value(ctx.text(source))
        row = node.start_point.row
        found = False
        for child in node.named_children:
            if child.type == "import_clause":
                for part in child.named_children:
                    if part.type == "identifier":
                        found = True
                        yield "import", f"{module}:default", part.start_point.row
                    elif part.type == "namespace_import":
                        found = True
                        yield "import", f"{module}:*", part.start_point.row
                    elif part.type == "named_imports":
                        for specifier in part.named_children:
                            imported = specifier.child_by_field_name("name")
                            if imported is not None:
                                found = True
                                name = string_literal_value(ctx.text(imported))
                                yield "import", f"{module}:{name}", specifier.start_point.row
            elif child.type == "export_clause":
                for specifier in child.named_children:
                    imported = specifier.child_by_field_name("name")
                    if imported is not None:
                        found = True
                        name = ctx.text(imported)
                        yield "import", f"{module}:{name}", specifier.start_point.row
            elif child.type == "namespace_export":
                found = True
                yield "import", f"{module}:*", child.start_point.row
        if not found:
            if node.type == "export_statement":
                # ``export * from "m"`` has no clause node of its own.
                yield "import", f"{module}:*", row
            else:
                yield "import", module, row


_JSX_ELEMENTS = frozenset({"jsx_opening_element", "jsx_self_closing_element"})
_FUNCTION_VALUES = commonjs.FUNCTION_VALUES
# Definitions whose function is held in a field: node type → that field.
_FUNCTION_HOLDERS = {
    "assignment_expression": "right",
    "pair": "value",
    "field_definition": "value",
    "public_field_definition": "value",
}
_ASSIGNED_DEFINITIONS = frozenset({"assignment_expression", "method_definition", "pair"})


# Calls given a function that make a value, not a wrapped function: a list's or a
# promise's methods (`users.map((u) => u.name)`), reactive values (Vue's `computed`,
# React's `useMemo`) and timers.
_VALUE_MAKERS = frozenset(
    {"map", "filter", "reduce", "reduceRight", "flatMap", "forEach", "find", "findIndex"}
    | {"findLast", "findLastIndex", "some", "every", "sort", "then", "catch", "finally"}
    | {"computed", "useMemo", "ref", "shallowRef", "reactive", "watch", "watchEffect"}
    | {"useState", "useReducer", "useEffect", "useLayoutEffect", "createMemo"}
    | {"createEffect", "createSignal", "derived", "readable", "writable", "autorun"}
    | {"reaction", "effect", "signal", "setTimeout", "setInterval", "requestAnimationFrame"}
)


def _asserted_function(value: Node | None) -> Node | None:
    """The arrow function of `<T>(a: T): T => …` that the `.ts` grammar, recovering from
    something it cannot read, took for a type assertion of it; else `value` itself."""
    if value is not None and value.type == "type_assertion" and value.named_children:
        inner = value.named_children[-1]
        if inner.type in _FUNCTION_VALUES:
            return inner
    return value


def made_function(value: Node) -> Node | None:
    """The function a call is given first, itself or in a call it is given first
    (`memo((props) => …)`, `memo(forwardRef((props, ref) => …))`, `throttle(fn, 100)`):
    what the call makes is that function, wrapped; not what a value maker makes
    (`users.map((u) => u.name)`, `computed(() => …)`)."""
    for _ in range(2):
        if value.type != "call_expression":
            return None
        callee = value.child_by_field_name("function")
        if callee is not None and callee.type == "member_expression":
            callee = callee.child_by_field_name("property")
        if callee is not None and (callee.text or b"").decode("utf-8", "replace") in _VALUE_MAKERS:
            return None
        arguments = value.child_by_field_name("arguments")
        given = arguments.named_children if arguments is not None else []
        if not given:
            return None
        first = given[0]
        if first.type in _FUNCTION_VALUES:
            return first
        value = first
    return None


def _in_function(node: Node) -> bool:
    """Whether `node` is inside a function's body: a Vue composable's
    `const score = computed(() => …)` is a value the function makes, not a function."""
    parent = node.parent
    while parent is not None:
        if parent.type in _FUNCTION_VALUES or parent.type in (
            "function_declaration",
            "generator_function_declaration",
            "method_definition",
        ):
            return True
        parent = parent.parent
    return False


def _is_object(ctx: FileContext, declarator: Node) -> bool:
    """A variable that holds an object literal with functions, or a module-level one
    that receives functions (`prepare` found those)."""
    value = declarator.child_by_field_name("value")
    if commonjs.holds_functions(value):
        return True
    name = declarator.child_by_field_name("name")
    if name is None or ctx.text(name) not in ctx.known_types:
        return False
    declaration = declarator.parent
    top = declaration.parent if declaration is not None else None
    if top is not None and top.type == "export_statement":
        top = top.parent
    return top is not None and top.type == "program"


# What may wrap the call that makes an exported binding's value (`… as any`, `await …`).
_VALUE_WRAPPERS = frozenset(
    {
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
        "parenthesized_expression",
        "await_expression",
    }
)


def _exported_product(ctx: FileContext, declarator: Node, name: str) -> bool:
    """An exported module-level `const` set to what a call or `new` makes (zod's
    `export const safeParse = core._safeParse(ZodRealError)`, a router, a client, a
    store), to a member of something (tRPC's `export const router = t.router`) or to
    another name (`export const createTRPCProxyClient = createTRPCClient`, an old name
    kept), or to an object literal (Next.js's `export const authOptions = {…}`, a site's
    `siteConfig`). It is the module's API, and calls of it in other files name it."""
    declaration = declarator.parent
    if declaration is None or declaration.type != "lexical_declaration":
        return False
    top = declaration.parent
    exported = top is not None and top.type == "export_statement"
    if exported:
        top = top.parent if top is not None else None
    if top is None or top.type != "program" or not (exported or name in ctx.exported_names):
        return False
    value = declarator.child_by_field_name("value")
    while value is not None and value.type in _VALUE_WRAPPERS and value.named_children:
        value = value.named_children[0]
    return value is not None and value.type in _EXPORTED_VALUES


_EXPORTED_VALUES = frozenset(
    {"call_expression", "new_expression", "member_expression", "identifier", "object"}
)


def _exported_function(ctx: FileContext, assignment: Node) -> bool:
    """`module.exports = function name() {}`: the function is a module-level symbol."""
    left = assignment.child_by_field_name("left")
    right = assignment.child_by_field_name("right")
    return (
        left is not None
        and commonjs.is_module_exports(ctx.data, left)
        and right is not None
        and right.child_by_field_name("name") is not None
    )


def _inside_export(node: Node) -> bool:
    current: Node | None = node
    while current is not None and current.type in _DECLARATION_PARTS:
        if current.type == "export_statement":
            return True
        current = current.parent
    return False


_DECLARATION_PARTS = frozenset(
    {
        "export_statement",
        "variable_declarator",
        "lexical_declaration",
        "variable_declaration",
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "internal_module",
        "module",
        "expression_statement",
        "ambient_declaration",
    }
)


def _first_string_argument(ctx: FileContext, call: Node) -> str | None:
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.named_child_count == 0:
        return None
    first = arguments.named_children[0]
    if first.type not in ("string", "template_string"):
        return None
    return string_literal_value(ctx.text(first))


# --------------------------------------------------------------------------- Go


class GoRules(Rules):
    wrappers = {"type_declaration": True, "const_declaration": True, "var_declaration": True}

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        parts = super().name_parts(ctx, node, name_node)
        if node.type == "method_declaration":
            receiver = node.child_by_field_name("receiver")
            type_name = _go_receiver_type(ctx, receiver) if receiver is not None else None
            if type_name:
                return [type_name, *parts]
        return parts

    def body(self, node: Node) -> Node | None:
        if node.type == "type_spec":
            spec_type = node.child_by_field_name("type")
            if spec_type is None:
                return None
            if spec_type.type == "struct_type":
                return first_child_of_type(spec_type, frozenset({"field_declaration_list"}))
            if spec_type.type == "interface_type":
                return first_child_of_type(spec_type, frozenset({"{"}))
            return None
        return node.child_by_field_name("body")

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return definition.name[:1].isupper()

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import" and name_node is not None:
            yield "import", string_literal_value(ctx.text(name_node)), node.start_point.row
            return
        if kind == "inherit" and node.type == "pointer_type":
            node = node.named_children[0] if node.named_child_count else node
        yield from super().references(ctx, kind, node, name_node)


def _go_receiver_type(ctx: FileContext, receiver: Node) -> str | None:
    for parameter in receiver.named_children:
        node: Node | None = parameter.child_by_field_name("type")
        while node is not None and node.type in ("pointer_type", "generic_type"):
            if node.type == "generic_type":
                node = node.child_by_field_name("type")
            else:
                node = node.named_children[0] if node.named_child_count else None
        if node is not None:
            return ctx.text(node)
    return None


# --------------------------------------------------------------------------- Java


class JavaRules(Rules):
    comment_types = frozenset({"line_comment", "block_comment"})
    signature_skip = frozenset({"marker_annotation", "annotation", "line_comment", "block_comment"})
    signature_descend = frozenset({"modifiers"})
    call_argument_fields = ("arguments",)

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        node = definition.node
        modifiers = first_child_of_type(node, frozenset({"modifiers"}))
        words = set(ctx.text(modifiers).split()) if modifiers is not None else set()
        container = definition.container
        if container is not None and container.kind == "interface":
            return "private" not in words
        return "public" in words

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import":
            text = ctx.text(node).removeprefix("import").strip().rstrip(";").strip()
            text = text.removeprefix("static ").strip()
            yield "import", _WHITESPACE.sub("", text), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


# --------------------------------------------------------------------------- C#


class CSharpRules(Rules):
    signature_skip = frozenset({"attribute_list", "comment"})

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if node.type == "operator_declaration" and name_node is not None:
            return [operator_name(ctx.text(name_node))]
        return super().name_parts(ctx, node, name_node)

    def body(self, node: Node) -> Node | None:
        if node.type == "property_declaration":  # `{ get { … } }` or `=> …`
            return node.child_by_field_name("accessors") or node.child_by_field_name("value")
        return super().body(node)

    def clean_doc(self, comments: list[str]) -> str:
        return _CSHARP_XML.sub("", super().clean_doc(comments)).strip()

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        container = definition.container
        words = {ctx.text(child) for child in definition.node.children if child.type == "modifier"}
        if container is not None and container.kind == "interface":
            return "private" not in words
        return "public" in words

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import":
            target = None
            for child in node.named_children:
                if child.type in ("identifier", "qualified_name", "alias_qualified_name"):
                    target = child
            if target is not None:
                yield "import", normalize_name(ctx.text(target)), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


# --------------------------------------------------------------------------- Rust


class RustRules(Rules):
    comment_types = frozenset({"line_comment", "block_comment"})
    attachment_types = frozenset({"attribute_item"})
    signature_skip = frozenset({"attribute_item", "line_comment", "block_comment"})

    def clean_doc(self, comments: list[str]) -> str:
        # Inner doc comments (``//!``) document the enclosing module, not what follows.
        return super().clean_doc([c for c in comments if not c.lstrip().startswith("//!")])

    def scope_name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        # `impl Deserializer for &'a mut Deserializer<R>` (or `*const T`) implements for
        # the type referred to: its methods had been `?.deserialize_any`. A type with no
        # name (`[T]`, a tuple) names none.
        while name_node is not None and name_node.type in ("reference_type", "pointer_type"):
            name_node = name_node.child_by_field_name("type")
        parts = super().scope_name_parts(ctx, node, name_node)
        return [part for part in parts[-1:] if part.removeprefix("r#").isidentifier()]

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        container = definition.container
        if container is not None and container.is_scope:
            impl = container.node
            if impl.child_by_field_name("trait") is not None:
                return True
        if container is not None and container.kind == "trait":
            return True
        for child in definition.node.children:
            if child.type == "visibility_modifier":
                return ctx.text(child) == "pub"
        return False

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import" and name_node is not None:
            for path in _rust_use_paths(ctx, name_node, ""):
                yield "import", path, node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


def _rust_use_paths(ctx: FileContext, node: Node, prefix: str) -> Iterator[str]:
    def join(a: str, b: str) -> str:
        return f"{a}.{b}" if a and b else a or b

    if node.type == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = join(prefix, normalize_name(ctx.text(path)) if path is not None else "")
        use_list = node.child_by_field_name("list")
        if use_list is not None:
            for item in use_list.named_children:
                yield from _rust_use_paths(ctx, item, inner)
    elif node.type == "use_list":
        for item in node.named_children:
            yield from _rust_use_paths(ctx, item, prefix)
    elif node.type == "use_as_clause":
        path = node.child_by_field_name("path")
        if path is not None:
            yield join(prefix, normalize_name(ctx.text(path)))
    elif node.type == "use_wildcard":
        yield join(prefix, normalize_name(ctx.text(node).removesuffix("*")) + ".*").lstrip(".")
    else:
        yield join(prefix, normalize_name(ctx.text(node)))


# --------------------------------------------------------------------------- C / C++


class CRules(Rules):
    wrappers = {"template_declaration": False}
    _specifiers = frozenset({"struct_specifier", "union_specifier", "enum_specifier"})

    def qualifies_a_type(self, qualifier: str, namespaces: set[str]) -> bool:
        # `Compaction* VersionSet::PickCompaction()` in version_set.cc: the class is in the
        # header. A namespace qualifier is one the file opens, or the standard library's.
        return qualifier not in namespaces and qualifier != "std"

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if node.type == "function_definition":
            target = function_declarator_name(node)
            if target is None:
                return []
            return _split_qualified(ctx.text(target))
        if name_node is not None and name_node.type == "qualified_identifier":
            # `class VersionSet::Builder {` nests a class declared in the header.
            return _split_qualified(ctx.text(name_node))
        return super().name_parts(ctx, node, name_node)

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        parent = node.parent
        if (
            node.type in self._specifiers
            and parent is not None
            and parent.type == "type_definition"
        ):
            return None  # reported once, under the typedef name
        if node.type == "type_definition":
            inner = node.child_by_field_name("type")
            if inner is not None and inner.child_by_field_name("body") is not None:
                if inner.type == "enum_specifier":
                    return "enum"
                if inner.type in ("struct_specifier", "union_specifier"):
                    return "struct"
                if inner.type == "class_specifier":
                    return "class"
        return super().accept(ctx, kind, node)

    def body(self, node: Node) -> Node | None:
        if node.type == "type_definition":
            inner = node.child_by_field_name("type")
            return inner.child_by_field_name("body") if inner is not None else None
        if node.type == "preproc_function_def":
            return node.child_by_field_name("value")  # signature `#define MAX(a, b)`
        return node.child_by_field_name("body")

    def signature(self, ctx: FileContext, definition: Definition, text: str) -> str:
        if definition.node.type == "type_definition" and definition.kind != "type":
            return f"{text} {definition.name}" if definition.name not in text else text
        if definition.node.type == "preproc_function_def":
            text = text.rstrip("\\ ")  # the continuation before a body on the next line
        return super().signature(ctx, definition, text)

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        container = definition.container
        if container is not None and container.kind in TYPE_KINDS:
            return _cpp_member_access(ctx, definition, container) == "public"
        for child in definition.node.children:
            if child.type == "storage_class_specifier" and ctx.text(child) == "static":
                return False
        return True

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import" and name_node is not None:
            text = ctx.text(name_node).strip()
            yield "import", string_literal_value(text).strip("<>"), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


def function_declarator_name(node: Node) -> Node | None:
    """The name of a C-family function definition, under any pointer or reference
    declarators around its function declarator (`char *f(void)`)."""
    current: Node | None = node.child_by_field_name("declarator")
    while current is not None and current.type != "function_declarator":
        current = current.child_by_field_name("declarator")
    if current is None:
        return None
    return current.child_by_field_name("declarator")


def _split_qualified(text: str) -> list[str]:
    text = _WHITESPACE.sub("", text)
    parts = [part for part in text.split("::") if part]
    return [part if part.startswith("operator") else _TEMPLATE_ARGS.sub("", part) for part in parts]


def _cpp_member_access(ctx: FileContext, definition: Definition, container: Definition) -> str:
    sibling = definition.outer.prev_named_sibling
    while sibling is not None:
        if sibling.type == "access_specifier":
            return ctx.text(sibling).strip()
        sibling = sibling.prev_named_sibling
    return "private" if container.node.type == "class_specifier" else "public"


# --------------------------------------------------------------------------- Ruby


class RubyRules(Rules):
    type_like_kinds = TYPE_KINDS | {"module"}
    call_argument_fields = ("arguments", "block")
    _visibility_words = frozenset({"private", "public", "protected"})

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if name_node is None:
            return []
        return [part for part in ctx.text(name_node).split("::") if part]

    def finish(
        self, ctx: FileContext, definitions: Sequence[Definition], symbols: list[Symbol]
    ) -> list[Symbol]:
        """`attr_accessor :config` (`attr_reader`, `attr_writer :x` as `x=`) defines its
        class's methods: Jekyll's `Site#config`, called 156 times, was no symbol."""
        owners = [s for s in symbols if s.kind in self.type_like_kinds]
        known = {s.qualified_name for s in symbols}
        added: list[Symbol] = []
        stack = [ctx.root]
        while stack:
            node = stack.pop()
            if node.type in _RUBY_SCOPES and node is not ctx.root:
                continue  # inside a method: a call, not a declaration
            stack.extend(node.named_children)
            method = node.child_by_field_name("method") if node.type == "call" else None
            kind = ctx.text(method) if method is not None else ""
            if kind not in _RUBY_ATTRIBUTES or node.child_by_field_name("receiver") is not None:
                continue
            line = node.start_point.row + 1
            around = [o for o in owners if o.start_line <= line <= o.end_line]
            if not around:
                continue
            owner = max(around, key=lambda o: o.start_line)
            arguments = node.child_by_field_name("arguments")
            for argument in arguments.named_children if arguments is not None else []:
                if argument.type != "simple_symbol":
                    continue
                name = ctx.text(argument).lstrip(":") + ("=" if kind == "attr_writer" else "")
                qualified = f"{owner.qualified_name}.{name}"
                if qualified not in known:
                    known.add(qualified)
                    signature = " ".join(ctx.text(node).split())
                    added.append(
                        Symbol(name, qualified, "method", line, line, line, signature, "", True,
                               owner.qualified_name)
                    )  # fmt: skip
        return sorted([*symbols, *added], key=lambda s: (s.start_line, -s.end_line))

    def header(self, ctx: FileContext, node: Node, body: Node) -> tuple[int, int]:
        end, last = super().header(ctx, node, body)
        # ``class A; end`` and ``def f = expr``: the body starts after a separator.
        text = ctx.span(node.start_byte, end).rstrip()
        trimmed = text.rstrip(";=").rstrip()
        return node.start_byte + len(trimmed.encode("utf-8")), last

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        node = definition.node
        if node.type != "method":
            return True
        parent = node.parent
        if parent is not None and parent.type == "argument_list":
            call = parent.parent
            if call is not None and call.type == "call":
                method = call.child_by_field_name("method")
                if method is not None and ctx.text(method) in ("private", "protected"):
                    return False
        sibling = definition.outer.prev_named_sibling
        while sibling is not None:
            if sibling.type == "identifier" and ctx.text(sibling) in self._visibility_words:
                return ctx.text(sibling) == "public"
            sibling = sibling.prev_named_sibling
        return True

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "inherit" and node.parent is not None and node.parent.type == "argument_list":
            call = node.parent.parent
            method = call.child_by_field_name("method") if call is not None else None
            if method is None or ctx.text(method) not in ("include", "extend", "prepend"):
                return
        if kind == "call" and node.type == "identifier":  # a bare name as a statement
            name = ctx.text(node)
            if name not in self._visibility_words and name not in _ruby_locals(ctx, node):
                yield "call", name, node.start_point.row
            return
        if kind == "call" and node.type == "call" and node.child_by_field_name("receiver") is None:
            method = node.child_by_field_name("method")
            if method is not None and ctx.text(method) in ("require", "require_relative", "load"):
                module = _first_string_argument(ctx, node)
                if module is not None:
                    yield "import", module, node.start_point.row
                    return
            if method is not None and ctx.text(method) in RUBY_ASSOCIATIONS:
                model = _associated_model(ctx, node, ctx.text(method))
                if model:  # `has_many :entries` → Entry
                    yield "type", model, node.start_point.row
            if method is not None and ctx.text(method) in RUBY_CALLBACKS:
                # `before_action :set_account`: the class calls the method it names
                arguments = node.child_by_field_name("arguments")
                for argument in arguments.named_children if arguments is not None else []:
                    if argument.type == "simple_symbol":
                        yield "call", ctx.text(argument).lstrip(":"), argument.start_point.row
        for found in super().references(ctx, kind, node, name_node):
            yield found
            head, dot, verb = found[1].rpartition(".")
            if found[0] == "call" and dot and verb in RUBY_JOB_ENQUEUES:
                yield "call", f"{head}.perform", found[2]  # `SyncJob.perform_later` runs it


# Rails and ActiveModel macros naming methods of the class as symbols: callbacks and
# custom validations (not `skip_before_action`, which removes one).
RUBY_CALLBACKS = frozenset(
    {
        *("before_action", "after_action", "around_action", "prepend_before_action"),
        *("append_before_action", "helper_method"),
        *("before_validation", "after_validation", "validate", "validates_with"),
        *("before_save", "after_save", "around_save", "before_create", "after_create"),
        *("before_update", "after_update", "before_destroy", "after_destroy"),
        *("after_commit", "after_create_commit", "after_update_commit"),
        *("after_destroy_commit", "after_save_commit", "after_rollback"),
        *("after_initialize", "after_find", "after_touch"),
    }
)
# ActiveRecord associations: the model each names (`has_many :entries` is Entry's).
RUBY_ASSOCIATIONS = frozenset({"has_many", "has_one", "belongs_to", "has_and_belongs_to_many"})
_CLASS_NAME = re.compile(r"""class_name:\s*['"]([\w:]+)['"]|:class_name\s*=>\s*['"]([\w:]+)['"]""")


def _associated_model(ctx: FileContext, call: Node, method: str) -> str:
    """The model an association names: its `class_name:`, else its name singular and
    camel-cased (`:entries` → `Entry`, `:plaid_accounts` → `PlaidAccount`)."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or not arguments.named_children:
        return ""
    explicit = _CLASS_NAME.search(ctx.text(arguments))
    if explicit:
        return (explicit.group(1) or explicit.group(2)).replace("::", ".")
    first = arguments.named_children[0]
    if first.type != "simple_symbol":
        return ""
    name = ctx.text(first).lstrip(":")
    if method in ("has_many", "has_and_belongs_to_many"):
        name = singular(name)
    return camel(name)


# Enqueuing a job (ActiveJob, Sidekiq) runs its `perform`.
RUBY_JOB_ENQUEUES = frozenset(
    {"perform_later", "perform_now", "perform_async", "perform_in", "perform_at", "perform_bulk"}
)
_RUBY_SCOPES = frozenset({"method", "singleton_method", "program"})
_RUBY_ATTRIBUTES = frozenset({"attr_accessor", "attr_reader", "attr_writer"})
_RUBY_BINDERS = frozenset(
    {
        *("assignment", "operator_assignment", "method_parameters", "block_parameters"),
        *("lambda_parameters", "optional_parameter", "keyword_parameter"),
        *("splat_parameter", "hash_splat_parameter", "block_parameter", "destructured_parameter"),
        *("left_assignment_list", "exception_variable", "for"),
    }
)


def _ruby_locals(ctx: FileContext, node: Node) -> frozenset[str]:
    """The local variables of the method (or file) holding `node`: the names its
    assignments and parameters bind, its blocks' included."""
    scope = node.parent
    while scope is not None and scope.type not in _RUBY_SCOPES:
        scope = scope.parent
    if scope is None:
        return frozenset()
    found = ctx.ruby_locals.get(scope.start_byte)
    if found is None:
        names: set[str] = set()
        stack = [scope]
        while stack:
            current = stack.pop()
            for child in current.named_children:
                if child.type in ("method", "singleton_method", "class", "module"):
                    continue  # a scope of its own
                assigned = current.type not in ("assignment", "operator_assignment") or (
                    child == current.child_by_field_name("left")
                )
                if child.type == "identifier" and current.type in _RUBY_BINDERS and assigned:
                    names.add(ctx.text(child))
                stack.append(child)
        found = ctx.ruby_locals[scope.start_byte] = frozenset(names)
    return found


# --------------------------------------------------------------------------- PHP


_PHP_NAMES = frozenset({"qualified_name", "name", "namespace_name"})


class PhpRules(Rules):
    signature_skip = frozenset({"attribute_list", "comment"})

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        for child in definition.node.children:
            if child.type == "visibility_modifier":
                return ctx.text(child) == "public"
        return True

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import":  # `use A\B;`, `use A\{B, C as D};`, `use function A\f;`
            names = [c for c in node.named_children if c.type in _PHP_NAMES]
            if not names:
                return
            name = normalize_name(ctx.text(names[0]))
            group = node.parent
            declaration = group.parent if group is not None else None
            if (
                group is not None
                and declaration is not None
                and group.type == "namespace_use_group"
            ):
                prefix = next((c for c in declaration.named_children if c.type in _PHP_NAMES), None)
                if prefix is not None:
                    name = f"{normalize_name(ctx.text(prefix))}.{name}"
            alias = ctx.text(names[1]) if len(names) > 1 else ""
            yield "import", f"{name} as {alias}" if alias else name, node.start_point.row
            return
        if kind == "type":  # `Song::class`
            parts = node.named_children
            if len(parts) == 2 and parts[0].type in _PHP_NAMES and ctx.text(parts[1]) == "class":
                name = normalize_name(ctx.text(parts[0]).lstrip("\\"))
                yield "type", name, node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


RULES: dict[str, Rules] = {
    "python": PythonRules(),
    "javascript": EcmaRules(),
    "typescript": EcmaRules(),
    "tsx": EcmaRules(),
    "go": GoRules(),
    "java": JavaRules(),
    "rust": RustRules(),
    "c": CRules(),
    "cpp": CRules(),
    "csharp": CSharpRules(),
    "ruby": RubyRules(),
    "php": PhpRules(),
}
