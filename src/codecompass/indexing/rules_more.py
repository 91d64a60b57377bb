"""``Rules`` for the grammar-backed languages beyond the first twelve (issue 17).

These languages get symbols, chunks and the references their queries capture: calls in
every language with functions, inheritance and imports in the object-oriented ones; the
graph resolves them by name. ``GrammarRules`` adds what the generic walker in ``parse.py``
needs for grammars shaped differently from the C family:

- ``body_types``: where a body starts when the grammar has no ``body`` field;
- the kind ``section`` for the named parts of data and markup files (YAML and TOML
  keys, CSS rule sets, HTML ids);
- comment markers of every family (``--``, ``(* *)``, ``{- -}``, ``!``, ``<# #>``…);
- ``finish``: a last pass over the symbols of a file, which drops trailing blank lines
  from every range and, per language, merges the clauses of one function (Haskell,
  Elixir) or widens a symbol over a body the grammar keeps beside it (Dart).
"""

from __future__ import annotations

import bisect
import inspect
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import get_args

from codecompass.indexing.blanking import JINJA_RELATION
from codecompass.indexing.openapi import operation_symbols, read_document
from codecompass.indexing.rules import (
    Definition,
    FileContext,
    RefTuple,
    Rules,
    clean_comment,
    code_text,
    collapse,
    end_row,
    function_declarator_name,
    normalize_name,
    operator_name,
    string_literal_value,
)
from codecompass.indexing.treesitter import Node
from codecompass.models import Symbol, SymbolKind

__all__ = ["MORE_RULES", "GrammarRules"]

# Every kind a query capture may name (`@definition.<kind>`).
_KINDS: dict[str, SymbolKind] = {kind: kind for kind in get_args(SymbolKind)}

# Block comments: opener → closer, longest openers first.
_BLOCK_COMMENTS = (
    ("(**", "*)"),
    ("(*", "*)"),
    ("{-|", "-}"),
    ("{-", "-}"),
    ("--[[", "]]"),
    ("<#", "#>"),
    ("<!--", "-->"),
)
_LINE_MARKERS = ("---", "--", "///", "//!", "//", "#", "!>", "!", ";;", ";", "%%", "%")
_PRIVATE_WORDS = frozenset({"private", "fileprivate", "protected"})


# A line of nothing but a repeated mark (`!*****…`, `-- ------`): a banner, not text.
_RULER = re.compile(r"\s*([*=~#/!+-])\1{3,}\s*")


def clean_any_comment(text: str) -> str:
    """Comment text without its markers or banner lines, for any comment syntax."""
    cleaned = _comment_text(text)
    lines = cleaned.split("\n")
    while lines and _RULER.fullmatch(lines[0]):
        lines.pop(0)
    while lines and _RULER.fullmatch(lines[-1]):
        lines.pop()
    return inspect.cleandoc("\n".join(lines))


def _comment_text(text: str) -> str:
    text = text.strip()
    if text.startswith("/*"):
        return clean_comment(text)
    for opener, closer in _BLOCK_COMMENTS:
        if text.startswith(opener):
            body = text[len(opener) :]
            if body.endswith(closer):
                body = body[: -len(closer)]
            lines = [line.strip().removeprefix("*").strip() for line in body.split("\n")]
            return inspect.cleandoc("\n".join(lines))
    lines = []
    for line in text.split("\n"):
        stripped = line.strip()
        for marker in _LINE_MARKERS:
            if stripped.startswith(marker):
                stripped = stripped[len(marker) :]
                break
        lines.append(stripped[1:] if stripped.startswith(" ") else stripped)
    if lines and lines[0].startswith(("| ", "^ ")):  # Haddock's "-- |" and "-- ^"
        lines[0] = lines[0][2:]
    return inspect.cleandoc("\n".join(lines))


def _text(ctx: FileContext, node: Node | None) -> str:
    return ctx.text(node) if node is not None else ""


def _has_private_modifier(ctx: FileContext, node: Node) -> bool:
    for child in node.children:
        if child.type == "modifiers":
            words = set(ctx.text(child).split())
            return bool(words & _PRIVATE_WORDS)
    return False


class GrammarRules(Rules):
    """Defaults for the grammars added in issue 17; a language overrides what differs."""

    comment_types = frozenset({"comment", "line_comment", "block_comment"})
    # Child types (named or not) that start a definition's body when there is no
    # ``body`` field.
    body_types: frozenset[str] = frozenset()
    # Join the consecutive clauses of one function into one symbol.
    merge_clauses = False
    # Keep a callee's text as written: languages whose names hold `'` or `-`.
    raw_call_names = False
    # The function whose call with a string loads a module or file: an import, no call.
    loader: str | None = None

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        return _KINDS.get(kind)

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        # A pattern may leave out @name where naming a child makes the query slow to
        # compile (Swift functions, Objective-C methods): the name is then found here.
        if name_node is None:
            name_node = node.child_by_field_name("name")
        # `name` quotes an identifier in Kotlin, Scala and Swift: the name is inside.
        return [part.strip("`") for part in super().name_parts(ctx, node, name_node)]

    def body(self, node: Node) -> Node | None:
        found = node.child_by_field_name("body")
        if found is not None:
            return found
        for child in node.children:
            if child.type in self.body_types:
                return child
        return None

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "call" and self.loader is not None and _text(ctx, name_node) == self.loader:
            # `require("plenary.path")`, `include("utils.jl")`; `require(name)` names none.
            loaded = _loaded(ctx, node)
            if loaded:
                yield "import", loaded, node.start_point.row
            return
        if kind == "call" and self.raw_call_names and name_node is not None:
            yield "call", ctx.text(name_node), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)

    def signature(self, ctx: FileContext, definition: Definition, text: str) -> str:
        text = super().signature(ctx, definition, text)
        # An expression body follows "=" (Scala, OCaml, Kotlin): the header ends before it.
        return text[:-1].rstrip() if text.endswith(" =") else text

    def clean_doc(self, comments: list[str]) -> str:
        return "\n".join(clean_any_comment(comment) for comment in comments).strip()

    def finish(
        self, ctx: FileContext, definitions: Sequence[Definition], symbols: list[Symbol]
    ) -> list[Symbol]:
        """The file's symbols, ranges trimmed of trailing blank lines (and clauses merged)."""
        lines = ctx.data.split(b"\n")
        trimmed = []
        for symbol in symbols:
            end = min(symbol.end_line, len(lines))
            while end > symbol.start_line and not lines[end - 1].strip():
                end -= 1
            if end != symbol.end_line:
                header_end = min(symbol.header_end_line, end)
                symbol = replace(symbol, end_line=end, header_end_line=header_end)
            trimmed.append(symbol)
        trimmed.sort(key=lambda s: (s.start_line, -s.end_line))
        return _merge_clauses(trimmed) if self.merge_clauses else trimmed


def _merge_clauses(symbols: list[Symbol]) -> list[Symbol]:
    """Adjacent siblings with the same name and kind become one symbol (the first
    clause's header and doc, the last clause's end): ``pop [] = …`` / ``pop (x:xs) = …``."""
    out: list[Symbol] = []
    for symbol in symbols:
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.qualified_name == symbol.qualified_name
            and previous.kind == symbol.kind
            and previous.parent == symbol.parent
            and previous.end_line < symbol.start_line
        ):
            out[-1] = replace(previous, end_line=symbol.end_line)
        else:
            out.append(symbol)
    return out


# --------------------------------------------------------------------------- JVM and Apple


# Annotations and comments inside a declaration's modifiers are not its signature.
_ANNOTATIONS = frozenset(
    {"annotation", "marker_annotation", "attribute", "comment", "line_comment", "block_comment"}
)


class KotlinRules(GrammarRules):
    # A property's accessors are its body (`val empty: Boolean get() = …`).
    body_types = frozenset({"class_body", "enum_class_body", "function_body", "getter", "setter"})
    signature_skip = _ANNOTATIONS
    signature_descend = frozenset({"modifiers"})

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        if node.type == "class_declaration":
            if any(child.type == "interface" for child in node.children):
                return "interface"
            for child in node.children:
                if child.type == "modifiers" and "enum" in ctx.text(child).split():
                    return "enum"
        return super().accept(ctx, kind, node)

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if node.type == "companion_object" and name_node is None:
            name = node.child_by_field_name("name")
            return [ctx.text(name) if name is not None else "Companion"]
        return super().name_parts(ctx, node, name_node)

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not _has_private_modifier(ctx, definition.node)

    def callee_text(self, ctx: FileContext, node: Node, name_node: Node | None) -> str:
        # The grammar puts `!` in `!StringUtils.hasLength(name)` on the receiver: the
        # call is `StringUtils.hasLength`, not `?.hasLength`.
        return super().callee_text(ctx, node, name_node).lstrip("!-+~ ")

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        parent = node.parent
        if kind == "call" and parent is not None and parent.type == "explicit_delegation":
            return  # `: Repository by store {…}` reads the body as a lambda passed to `store`
        if kind == "inherit" and parent is not None and parent.type == "enum_entry":
            enum = parent.parent.parent if parent.parent is not None else None
            name = enum.child_by_field_name("name") if enum is not None else None
            if name is not None:
                yield "inherit", ctx.text(name), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


class SwiftRules(GrammarRules):
    comment_types = frozenset({"comment", "multiline_comment"})
    body_types = frozenset({"computed_property"})
    signature_skip = _ANNOTATIONS | {"multiline_comment"}
    signature_descend = frozenset({"modifiers"})

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not _has_private_modifier(ctx, definition.node)


class ScalaRules(GrammarRules):
    signature_skip = _ANNOTATIONS

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not _has_private_modifier(ctx, definition.node)


class GroovyRules(GrammarRules):
    signature_skip = _ANNOTATIONS
    signature_descend = frozenset({"modifiers"})

    def callee_text(self, ctx: FileContext, node: Node, name_node: Node | None) -> str:
        name = node.child_by_field_name("name")
        receiver = node.child_by_field_name("object")
        if name is None or name_node is not None:
            return super().callee_text(ctx, node, name_node)
        if receiver is None:
            return ctx.text(name)
        shown = ctx.text(receiver)
        if receiver.type == "object_creation_expression":
            shown = f"({shown})"  # no name: `?.build`
        return f"{shown}.{ctx.text(name)}"

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not _has_private_modifier(ctx, definition.node)


_DART_CONSTRUCTORS = frozenset(
    {"constructor_signature", "constant_constructor_signature", "factory_constructor_signature"}
)


class DartRules(GrammarRules):
    comment_types = frozenset({"comment", "documentation_comment"})

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "import":
            yield "import", string_literal_value(ctx.text(node)), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)

    def callee_text(self, ctx: FileContext, node: Node, name_node: Node | None) -> str:
        if node.type != "selector":
            return super().callee_text(ctx, node, name_node)
        # `a.b.c(1)` is a flat run of siblings: `a`, then selectors `.b`, `.c` and `(1)`.
        start = node
        while (before := start.prev_named_sibling) is not None and before.type == "selector":
            start = before
        if before is not None:
            start = before
        return ctx.span(start.start_byte, node.start_byte)

    body_types = frozenset({"class_body", "extension_body", "enum_body"})

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        signature = node.named_children[0] if node.named_children else None
        if name_node is None and signature is not None:
            if signature.type in _DART_CONSTRUCTORS:  # `Point(…)`: Point; `Point.at(…)`: at
                names = [c for c in signature.children if c.type == "identifier"]
                return [ctx.text(names[-1])] if names else []
            if signature.type == "operator_signature":
                parts = {c.type: c for c in signature.children}
                keyword, params = parts.get("operator"), parts.get("formal_parameter_list")
                if keyword is not None and params is not None:
                    return [operator_name(ctx.span(keyword.end_byte, params.start_byte))]
        return super().name_parts(ctx, node, name_node)

    def body(self, node: Node) -> Node | None:
        found = super().body(node)
        if found is not None or node.type not in ("method_signature", "function_signature"):
            return found
        sibling = node.next_named_sibling
        return sibling if sibling is not None and sibling.type == "function_body" else None

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not definition.name.startswith("_")

    def finish(
        self, ctx: FileContext, definitions: Sequence[Definition], symbols: list[Symbol]
    ) -> list[Symbol]:
        # A function's body is the signature's next sibling, so the walker saw only the
        # signature; widen each such symbol over its body first.
        widened = []
        for definition, symbol in zip(definitions, symbols, strict=True):
            body = self.body(definition.node)
            if body is not None and body.type == "function_body":
                symbol = replace(symbol, end_line=max(symbol.end_line, end_row(body) + 1))
            widened.append(symbol)
        return super().finish(ctx, definitions, widened)


class ObjcRules(GrammarRules):
    wrappers = {"implementation_definition": False}
    # A method's block, or the first member of an @interface or @protocol.
    body_types = frozenset(
        {"compound_statement", "property_declaration", "method_declaration", "@end"}
    )

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if node.type == "function_definition":
            name_node = function_declarator_name(node)
        elif name_node is None and node.type in ("method_definition", "method_declaration"):
            name_node = next((c for c in node.named_children if c.type == "identifier"), None)
        return super().name_parts(ctx, node, name_node)

    def body(self, node: Node) -> Node | None:
        return None if node.type == "method_declaration" else super().body(node)

    def callee_text(self, ctx: FileContext, node: Node, name_node: Node | None) -> str:
        if node.type != "message_expression":
            return super().callee_text(ctx, node, name_node)
        # `[receiver method:…]` is `receiver.method`, the method named by its first part
        # as its definition is; a receiver that is itself a message is no name (`?`).
        receiver = node.child_by_field_name("receiver")
        method = node.child_by_field_name("method")
        if receiver is None or method is None:
            return ""
        shown = ctx.text(receiver)
        if receiver.type not in ("identifier", "self", "super"):
            shown = f"({shown})"
        return f"{shown}.{ctx.text(method)}"

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not any(
            child.type == "storage_class_specifier" and ctx.text(child) == "static"
            for child in definition.node.children
        )


# --------------------------------------------------------------------------- scripting


class LuaRules(GrammarRules):
    loader = "require"

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        name = node.child_by_field_name("name")
        if name is not None and name.type == "method_index_expression":
            return "method"
        return super().accept(ctx, kind, node)

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        return [part for part in re.split(r"[.:]", _text(ctx, name_node)) if part]

    def body(self, node: Node) -> Node | None:
        if node.type in ("variable_declaration", "assignment_statement"):
            function = next(
                (n for n in _descendants(node, 3) if n.type == "function_definition"), None
            )
            return function.child_by_field_name("body") if function is not None else None
        return super().body(node)

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not ctx.text(definition.node).startswith("local")

    def callee_text(self, ctx: FileContext, node: Node, name_node: Node | None) -> str:
        return super().callee_text(ctx, node, name_node).replace(":", ".")  # obj:method()


_ELIXIR_KINDS: dict[str, SymbolKind] = {
    "defmodule": "module",
    "defimpl": "module",
    "defprotocol": "interface",
    "def": "function",
    "defp": "function",
    "defmacro": "function",
    "defmacrop": "function",
    "defguard": "function",
    "defguardp": "function",
    "defdelegate": "function",
}
# The forms that name a module the code uses: imports.
_ELIXIR_USES = frozenset({"alias", "import", "require", "use"})
# Calls that are the language's own syntax, not calls of code (definitions are above).
_ELIXIR_FORMS = frozenset(
    {
        *("defstruct", "defexception", "defoverridable"),
        *("if", "unless", "case", "cond", "with", "for", "try", "receive"),
        *("quote", "unquote", "unquote_splicing", "fn", "super", "__MODULE__"),
    }
)
_ELIXIR_DOC = re.compile(r'@doc\s+(?:~[sS])?(?:"""(.*?)"""|"((?:[^"\\]|\\.)*)")', re.S)


def _implemented_for(ctx: FileContext, arguments: Node | None) -> list[str]:
    """The one type a `defimpl … for: Type` names; none for a list or an implicit type."""
    keywords = arguments.named_children[-1] if arguments and arguments.named_children else None
    if keywords is None or keywords.type != "keywords":
        return []
    for pair in keywords.named_children:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if _text(ctx, key).rstrip().rstrip(":") == "for" and value and value.type == "alias":
            return ctx.text(value).split(".")
    return []


class ElixirRules(GrammarRules):
    body_types = frozenset({"do_block"})
    attachment_types = frozenset({"unary_operator"})  # @doc, @spec, @impl above a def
    merge_clauses = True

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        return _ELIXIR_KINDS.get(_text(ctx, node.child_by_field_name("target")))

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        arguments = next((c for c in node.named_children if c.type == "arguments"), None)
        head = arguments.named_children[0] if arguments and arguments.named_children else None
        if head is not None and head.type == "binary_operator":  # def f(x) when x > 0
            head = head.child_by_field_name("left")
        if head is None:
            return []
        if head.type == "alias":
            # `defimpl Proto, for: Type` is the module Elixir names `Proto.Type`.
            return ctx.text(head).split(".") + _implemented_for(ctx, arguments)
        if head.type == "call":
            head = head.child_by_field_name("target")
        if head is None or head.type != "identifier":
            return []
        return [ctx.text(head)]

    def body(self, node: Node) -> Node | None:
        found = super().body(node)
        if found is not None:
            return found
        # `def merge(a, b), do: expr`: the keyword list is the body.
        arguments = next((c for c in node.named_children if c.type == "arguments"), None)
        keywords = arguments.named_children[-1] if arguments and arguments.named_children else None
        if keywords is None or keywords.type != "keywords" or not keywords.named_children:
            return None
        key = keywords.named_children[0].child_by_field_name("key")
        return keywords if key is not None and (key.text or b"").strip() == b"do:" else None

    def signature(self, ctx: FileContext, definition: Definition, text: str) -> str:
        return super().signature(ctx, definition, text).removesuffix(",")

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        target = _text(ctx, definition.node.child_by_field_name("target"))
        return target not in ("defp", "defmacrop", "defguardp")

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "call" and _text(ctx, node.child_by_field_name("target")) in _ELIXIR_USES:
            arguments = next((c for c in node.named_children if c.type == "arguments"), None)
            module = arguments.named_children[0] if arguments and arguments.named_children else None
            for name in _elixir_modules(ctx, module):
                yield "import", name, node.start_point.row
            return
        if kind == "call" and not self._is_call(ctx, node):
            return
        yield from super().references(ctx, kind, node, name_node)

    def _is_call(self, ctx: FileContext, node: Node) -> bool:
        """Whether a `call` node calls code: not a definition or special form, not a
        field read, not the head of a definition (`def total(items)`), not a module
        attribute (`@doc "…"`)."""
        target_node = node.child_by_field_name("target")
        target = _text(ctx, target_node)
        if target in _ELIXIR_KINDS or target in _ELIXIR_FORMS:
            return False
        if target_node is not None and target_node.type == "dot":
            # `user.id` reads a field; `Conn.halt` and `conn.assign()` call.
            left = target_node.child_by_field_name("left")
            written = any(child.type == "arguments" for child in node.children)
            if not written and (left is None or left.type != "alias"):
                return False
        parent = node.parent
        if parent is not None and parent.type == "unary_operator":
            return not ctx.text(parent).startswith("@")
        if parent is not None and parent.type == "binary_operator":
            if parent.child_by_field_name("left") != node:
                return True  # the guard of `def f(x) when is_map(x)` calls
            parent = parent.parent
        definer = parent.parent if parent is not None and parent.type == "arguments" else None
        return not (
            definer is not None
            and definer.type == "call"
            and _text(ctx, definer.child_by_field_name("target")) in _ELIXIR_KINDS
        )

    def docstring(self, ctx: FileContext, definition: Definition) -> str | None:
        sibling = definition.node.prev_named_sibling
        while sibling is not None and sibling.type == "unary_operator":
            found = _ELIXIR_DOC.match(ctx.text(sibling))
            if found:
                return inspect.cleandoc(found.group(1) or found.group(2) or "")
            sibling = sibling.prev_named_sibling
        return None


def _elixir_modules(ctx: FileContext, module: Node | None) -> list[str]:
    """The modules an `alias` (`import`, `use`, `require`) names: `Plug.Conn`, and each
    of `Phoenix.Socket.{Broadcast, Message}`."""
    if module is not None and module.type == "alias":
        return [ctx.text(module)]
    if module is None or module.type != "dot" or len(module.named_children) != 2:
        return []
    left, right = module.named_children
    if left.type != "alias" or right.type != "tuple":
        return []
    prefix = ctx.text(left)
    return [f"{prefix}.{ctx.text(c)}" for c in right.named_children if c.type == "alias"]


class JuliaRules(GrammarRules):
    loader = "include"

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "call" and _julia_head(node):
            return
        yield from super().references(ctx, kind, node, name_node)

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if name_node is None:
            return []
        if name_node.type in ("type_head", "signature"):
            for candidate in _descendants(name_node, 4):
                if candidate.type == "call_expression":
                    name_node = candidate
                    break
                if candidate.type == "identifier":
                    return [ctx.text(candidate)]
        if name_node.type == "call_expression":
            callee = name_node.named_children[0] if name_node.named_children else None
            return normalize_name(_text(ctx, callee)).split(".") if callee else []
        return [ctx.text(name_node)]

    def body(self, node: Node) -> Node | None:
        if node.type == "assignment":  # `f(x) = expr`: the signature ends at the `=`
            return node.named_children[-1] if len(node.named_children) == 3 else None
        for index, child in enumerate(node.named_children):
            if child.type in ("signature", "type_head") or (
                node.type == "module_definition" and child.type == "identifier"
            ):
                rest = node.named_children[index + 1 :]
                return rest[0] if rest else None
        return None

    def docstring(self, ctx: FileContext, definition: Definition) -> str | None:
        sibling = definition.outer.prev_named_sibling
        if sibling is None or sibling.type != "string_literal":
            return None
        if end_row(sibling) != definition.outer.start_point.row - 1:
            return None
        return inspect.cleandoc(string_literal_value(ctx.text(sibling)))


_JULIA_HEAD_WRAPPERS = frozenset({"where_expression", "typed_expression"})


def _julia_head(call: Node) -> bool:
    """Whether a call expression is a function's own head: `function f(x)` (also typed,
    or with `where`) or `f(x) = …` (also `f(x)::T = …`, `f(x::T) where {T} = …`)."""
    head, parent = call, call.parent
    while parent is not None and parent.type in _JULIA_HEAD_WRAPPERS:
        if parent.named_children[0] != head:
            break
        head, parent = parent, parent.parent
    if parent is not None and parent.type == "assignment":
        return parent.named_children[0] == head
    node: Node | None = call
    for _ in range(3):
        node = node.parent if node is not None else None
        if node is not None and node.type == "signature":
            return True
    return False


class PerlRules(GrammarRules):
    def prepare(self, ctx: FileContext) -> None:
        for child in ctx.root.named_children:
            name = child.child_by_field_name("name")
            if (
                child.type == "package_statement"
                and name is not None
                and not any(c.type == "block" for c in child.named_children)
            ):
                ctx.package_starts.append((child.start_byte, ctx.text(name)))

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        name = _text(ctx, name_node)
        if node.type == "subroutine_declaration_statement" and node.parent == ctx.root:
            # `package Mojo::Cache;` then `sub get`: the sub is `Mojo::Cache::get`.
            at = bisect.bisect(ctx.package_starts, (node.start_byte, "")) - 1
            if at >= 0 and "::" not in name:
                name = f"{ctx.package_starts[at][1]}::{name}"
        return [part for part in name.split("::") if part]

    def finish(
        self, ctx: FileContext, definitions: Sequence[Definition], symbols: list[Symbol]
    ) -> list[Symbol]:
        """A `package Name;` statement holds the subs it names, up to the next one."""
        symbols = super().finish(ctx, definitions, symbols)
        starts = {ctx.row_at(ctx.root, offset) + 1 for offset, _ in ctx.package_starts}
        names = {name.replace("::", ".") for _, name in ctx.package_starts}
        out: list[Symbol] = []
        package: int | None = None  # where in `out` the open package statement is
        for symbol in symbols:
            if symbol.kind == "module" and symbol.end_line in starts:
                package = len(out) if symbol.qualified_name in names else None
            elif (
                package is not None
                and symbol.kind != "module"
                and symbol.parent is None
                and symbol.qualified_name == f"{out[package].qualified_name}.{symbol.name}"
            ):
                symbol = replace(symbol, parent=out[package].qualified_name)
                out[package] = replace(out[package], end_line=symbol.end_line)
            out.append(symbol)
        return out

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return not definition.name.startswith("_")


class PowerShellRules(GrammarRules):
    body_types = frozenset({"{", "script_block"})

    def docstring(self, ctx: FileContext, definition: Definition) -> str | None:
        # Comment-based help is most often written inside the function, at its start or
        # its end; the grammar makes it a child of the function statement.
        for child in definition.node.named_children:
            if child.type == "comment" and _PS_HELP_SECTION.search(ctx.text(child)):
                return _powershell_help(ctx.text(child))
        return None

    def clean_doc(self, comments: list[str]) -> str:
        return "\n".join(_powershell_help(comment) for comment in comments).strip()

    def signature(self, ctx: FileContext, definition: Definition, text: str) -> str:
        # The grammar starts a class or enum statement after its keyword.
        keyword = {"class_statement": "class", "enum_statement": "enum"}.get(definition.node.type)
        return f"{keyword} {text}" if keyword else super().signature(ctx, definition, text)

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind == "call" and name_node is not None and name_node.type == "command_name":
            # `Get-Item` is one name, as its function is named.
            yield "call", ctx.text(name_node), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


# A section of PowerShell's comment-based help (`.SYNOPSIS`, `.PARAMETER Path`).
_PS_HELP_SECTION = re.compile(r"^\s*\.(?:SYNOPSIS|DESCRIPTION|PARAMETER|EXAMPLE)\b", re.M | re.I)
# A section keyword alone on its line: a heading the text does not need.
_PS_BARE_SECTION = re.compile(
    r"^\s*\.(?:SYNOPSIS|DESCRIPTION|NOTES|EXAMPLE|INPUTS|OUTPUTS|LINK)\s*$", re.I
)


def _powershell_help(comment: str) -> str:
    """A `<# … #>` block or `#` lines as doc text: markers and bare section keywords
    removed, so that the synopsis comes first."""
    lines = clean_any_comment(comment).split("\n")
    return "\n".join(line for line in lines if not _PS_BARE_SECTION.match(line)).strip()


class NixRules(GrammarRules):
    def body(self, node: Node) -> Node | None:
        # `pipe = val: functions: foldl' …`: the body of the innermost of the curried
        # functions, so that the signature is `pipe = val: functions:`.
        function = node.child_by_field_name("expression")
        if function is None or function.type != "function_expression":
            return None
        inner = function.child_by_field_name("body")
        while inner is not None and inner.type == "function_expression":
            inner = inner.child_by_field_name("body")
        return inner

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        argument = node.child_by_field_name("argument")
        if kind == "call" and _text(ctx, name_node) in ("import", "callPackage"):
            # `import ./lib.nix`, `callPackage ./pkgs/tool { }`: the file (or folder) read.
            if argument is not None and argument.type in ("path_expression", "spath_expression"):
                yield "import", ctx.text(argument), node.start_point.row
            return
        yield from super().references(ctx, kind, node, name_node)


# --------------------------------------------------------------------------- functional


class HaskellRules(GrammarRules):
    comment_types = frozenset({"comment", "haddock"})
    # `go'` and `foldl'` are names: a call is named as written (`Map.insert` too).
    raw_call_names = True
    body_types = frozenset({"class_declarations"})
    attachment_types = frozenset({"signature"})  # `f :: a -> b` directly above `f x = …`
    merge_clauses = True

    def prepare(self, ctx: FileContext) -> None:
        header = next((c for c in ctx.root.named_children if c.type == "header"), None)
        exports = header.child_by_field_name("exports") if header is not None else None
        if exports is None:
            return
        for export in exports.named_children:
            # "Queue(..)" exports the type with its constructors: the name is what counts.
            ctx.exported_names.add(ctx.text(export).split("(")[0].strip())
        ctx.exported_names.add(_EXPORT_LIST)

    def body(self, node: Node) -> Node | None:
        # An equation without a type signature: its head ends at the first `=` or guard.
        return node.child_by_field_name("match") or super().body(node)

    def signature(self, ctx: FileContext, definition: Definition, text: str) -> str:
        sibling = definition.outer.prev_named_sibling
        if definition.kind == "function" and sibling is not None and sibling.type == "signature":
            # Without the Haddock comments of its arguments (`-> Name -- ^ the type`).
            return collapse(code_text(ctx, self, sibling, sibling.start_byte, sibling.end_byte))
        return super().signature(ctx, definition, text)

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        if _EXPORT_LIST not in ctx.exported_names:
            return True  # no export list: the module exports everything
        return definition.name in ctx.exported_names


_EXPORT_LIST = "(export list)"  # in FileContext.exported_names: the module has one


class OcamlRules(GrammarRules):
    raw_call_names = True  # `x'` is a name
    wrappers = {
        "value_definition": True,
        "type_definition": True,
        "module_definition": True,
        "class_definition": True,
    }

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        if node.type == "let_binding":
            holder = node.parent
            if holder is None or holder.type != "value_definition":
                return None
            if holder.parent is not None and holder.parent.type not in (
                "compilation_unit",
                "structure",
            ):
                return None  # a local `let … in`
            return "function" if _ocaml_function(node) else "constant"
        if node.type == "value_specification":
            type_node = node.child_by_field_name("type")
            return (
                "function"
                if type_node is not None and type_node.type == "function_type"
                else "constant"
            )
        return super().accept(ctx, kind, node)

    def body(self, node: Node) -> Node | None:
        if node.type == "let_binding" and not _ocaml_function(node):
            return None  # a constant's signature is its whole (short) definition
        return super().body(node)


_OCAML_FUNCTIONS = frozenset({"fun_expression", "function_expression"})


def _ocaml_function(binding: Node) -> bool:
    if any(child.type == "parameter" for child in binding.named_children):
        return True
    body = binding.child_by_field_name("body")
    return body is not None and body.type in _OCAML_FUNCTIONS


# --------------------------------------------------------------------------- systems


_ZIG_CONTAINERS = frozenset(
    {"struct_declaration", "union_declaration", "enum_declaration", "opaque_declaration"}
)


class ZigRules(GrammarRules):
    def body(self, node: Node) -> Node | None:
        if node.type != "variable_declaration":
            return super().body(node)
        container = next((c for c in node.named_children if c.type in _ZIG_CONTAINERS), None)
        if container is None:
            return None
        return next((c for c in container.children if c.type == "{"), None)

    def visible(self, ctx: FileContext, definition: Definition) -> bool:
        return any(child.type == "pub" for child in definition.node.children)


class FortranRules(GrammarRules):
    _HEADERS = frozenset(
        {
            "module_statement",
            "program_statement",
            "function_statement",
            "subroutine_statement",
            "derived_type_statement",
            "interface_statement",
        }
    )

    def body(self, node: Node) -> Node | None:
        children = node.named_children
        for index, child in enumerate(children):
            if child.type in self._HEADERS:
                return children[index + 1] if index + 1 < len(children) else None
        return None


# --------------------------------------------------------------------------- data, build, web


class SqlRules(GrammarRules):
    body_types = frozenset({"column_definitions", "create_query", "function_body"})

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        return [part.strip('"`[]') for part in _text(ctx, name_node).split(".") if part]

    def references(
        self, ctx: FileContext, kind: str, node: Node, name_node: Node | None
    ) -> Iterable[RefTuple]:
        if kind != "import":
            yield from super().references(ctx, kind, node, name_node)
            return
        # A dbt model reads another by `{{ ref('stg_orders') }}`, parsed as `stg_orders`:
        # that model's file. A plain table name, or a dbt `source()`, is no import.
        written = JINJA_RELATION.match(ctx.written, node.start_byte)
        if written is not None and written.group(1) == b"ref":
            yield "import", written.group(2).decode("utf-8", "replace"), node.start_point.row


_TERRAFORM_ADDRESS = {"data": "data", "module": "module", "variable": "var", "output": "output"}
_HCL_KINDS: dict[str, SymbolKind] = {
    "resource": "struct",
    "data": "struct",
    "module": "module",
    "variable": "variable",
    "output": "variable",
    "provider": "module",
}


class HclRules(GrammarRules):
    body_types = frozenset({"block_start"})

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        if node.type == "attribute":  # only the entries of a `locals` block
            block = node.parent.parent if node.parent is not None else None
            return "variable" if block is not None and _hcl_type(ctx, block) == "locals" else None
        if not _hcl_labels(ctx, node):
            return None  # terraform {}, locals {}: no name of their own
        return _HCL_KINDS.get(_hcl_type(ctx, node), "struct")

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        if node.type == "attribute":
            return ["local", _text(ctx, name_node)]
        block_type = _hcl_type(ctx, node)
        labels = _hcl_labels(ctx, node)
        if block_type == "resource":
            return labels
        return [_TERRAFORM_ADDRESS.get(block_type, block_type), *labels]


def _hcl_type(ctx: FileContext, block: Node) -> str:
    first = block.named_children[0] if block.named_children else None
    return _text(ctx, first) if first is not None and first.type == "identifier" else ""


def _hcl_labels(ctx: FileContext, block: Node) -> list[str]:
    labels = []
    for child in block.named_children[1:]:
        if child.type == "string_lit":
            labels.append(string_literal_value(ctx.text(child)))
        elif child.type == "identifier":
            labels.append(ctx.text(child))
        else:
            break
    return labels


# A mapping with more entries than this is data (a translation table, a fixture dump),
# not configuration: its keys are not worth a symbol each, and skipping them keeps a
# large file fast to index.
MAX_DATA_KEYS = 2000


class DataRules(GrammarRules):
    """YAML, TOML and JSON: the keys of the top-level mapping are sections; so are the
    operations of an OpenAPI or Swagger document (``openapi.py``)."""

    def accept(self, ctx: FileContext, kind: str, node: Node) -> SymbolKind | None:
        holder = node.parent
        if holder is not None and holder.named_child_count > MAX_DATA_KEYS:
            return None
        return super().accept(ctx, kind, node)

    def finish(
        self, ctx: FileContext, definitions: Sequence[Definition], symbols: list[Symbol]
    ) -> list[Symbol]:
        document = read_document(ctx.data, ctx.root)
        if document is not None:
            symbols = symbols + operation_symbols(document)
        return super().finish(ctx, definitions, symbols)


class YamlRules(DataRules):
    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        return [string_literal_value(_text(ctx, name_node).strip())]

    def body(self, node: Node) -> Node | None:
        value = node.child_by_field_name("value")
        return value if value is not None and value.type == "block_node" else None


class TomlRules(DataRules):
    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        return [_text(ctx, name_node)]

    def body(self, node: Node) -> Node | None:
        if node.type == "pair":
            return None
        return next((c for c in node.named_children if c.type == "pair"), None)


class JsonRules(DataRules):
    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        return [string_literal_value(_text(ctx, name_node))]

    def body(self, node: Node) -> Node | None:
        value = node.child_by_field_name("value")
        return value if value is not None and value.type in ("object", "array") else None


class CssRules(GrammarRules):
    comment_types = frozenset({"comment", "js_comment"})
    body_types = frozenset({"block", "keyframe_block_list"})

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        name = collapse(_text(ctx, name_node))
        return [f"@keyframes {name}" if node.type == "keyframes_statement" else name]


class HtmlRules(GrammarRules):
    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        attribute = name_node
        while attribute is not None and attribute.type != "attribute":
            attribute = attribute.parent
        if attribute is None or not attribute.named_children:
            return []
        if ctx.text(attribute.named_children[0]).lower() != "id":
            return []
        return [_text(ctx, name_node)]

    def body(self, node: Node) -> Node | None:
        start = node.named_children[0] if node.named_children else None
        return start.next_sibling if start is not None and start.type == "start_tag" else None


class MakeRules(GrammarRules):
    body_types = frozenset({"recipe", "raw_text"})

    def name_parts(self, ctx: FileContext, node: Node, name_node: Node | None) -> list[str]:
        name = _text(ctx, name_node)
        if not name or name.startswith(".") or "%" in name or "$" in name:
            return []  # .PHONY and friends, pattern rules, computed targets
        return [name]


def _loaded(ctx: FileContext, call: Node) -> str:
    """The module or file a loader's call names by a string literal (Lua's `require
    "a.b"`, Julia's `include("utils.jl")`); "" when it names none (`require(path)`)."""
    for child in _descendants(call, 3):
        if child.type in ("string", "string_literal"):
            value = string_literal_value(ctx.text(child))
            return value if "$" not in value else ""
    return ""


def _descendants(node: Node, depth: int) -> list[Node]:
    """Named descendants of ``node`` down to ``depth`` levels, breadth first."""
    found: list[Node] = []
    level = [node]
    for _ in range(depth):
        level = [child for parent in level for child in parent.named_children]
        found.extend(level)
    return found


MORE_RULES: dict[str, Rules] = {
    "kotlin": KotlinRules(),
    "swift": SwiftRules(),
    "scala": ScalaRules(),
    "groovy": GroovyRules(),
    "dart": DartRules(),
    "objc": ObjcRules(),
    "lua": LuaRules(),
    "elixir": ElixirRules(),
    "julia": JuliaRules(),
    "bash": GrammarRules(),
    "perl": PerlRules(),
    "powershell": PowerShellRules(),
    "haskell": HaskellRules(),
    "ocaml": OcamlRules(),
    "nix": NixRules(),
    "zig": ZigRules(),
    "fortran": FortranRules(),
    "sql": SqlRules(),
    "hcl": HclRules(),
    "yaml": YamlRules(),
    "toml": TomlRules(),
    "json": JsonRules(),
    "css": CssRules(),
    "scss": CssRules(),
    "html": HtmlRules(),
    "make": MakeRules(),
}
