"""Symbols of interface definition files, in pure Python: Protobuf, GraphQL and Prisma.

No maintained grammar wheel exists on PyPI for Protobuf, and GraphQL's ships only as a
source archive that needs a C compiler; both formats are regular enough to read with a
bracket-matching scanner (``textscan``).

Protobuf: ``message`` is a struct, ``enum`` an enum, ``service`` an interface and ``rpc``
a method of its service; nested messages and enums qualify through their message
(``User.Status``). The ``package`` is left out of qualified names, as for Java; it is
part of the rpc endpoints a file declares (``protobuf_endpoints``:
``shop.Checkout/PlaceOrder``, the full method name gRPC uses).

GraphQL: object types are classes, ``input`` structs, ``interface``/``enum`` themselves,
``union``/``scalar`` types, ``schema`` a module, directives (``@auth``), operations and
fragments functions. The fields of the root operation types (``Query``, ``Mutation``,
``Subscription``, or those a ``schema`` block names) are methods: ``Query.user``, also
when an ``extend type Query`` adds them; an extension is no symbol of its own.

Prisma: a ``model`` or ``view`` is a class (a table: ``db.post`` in the client), a
composite ``type`` a struct, an ``enum`` an enum, a ``datasource`` or ``generator`` a
module; each model's fields are its members (``Post.authorId``), with the line as their
signature. ``///`` comments above a block or field are its doc.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from codecompass.indexing.facts import Endpoint
from codecompass.indexing.textscan import (
    LineIndex,
    Syntax,
    comment_above,
    last_code_line,
    mask,
    matching,
    signature_of,
    symbol,
)
from codecompass.models import Symbol, SymbolKind

__all__ = ["parse_graphql", "parse_prisma", "parse_protobuf", "protobuf_endpoints"]

_PROTO_SYNTAX = Syntax(line_comments=("//",), block_comments=(("/*", "*/"),))
_PROTO_TOKEN = re.compile(
    r"\b(?P<keyword>message|enum|service|oneof|extend)\s+(?P<name>[A-Za-z_][\w.]*)"
    r"|\brpc\s+(?P<rpc>[A-Za-z_]\w*)"
    r"|(?P<open>\{)|(?P<close>\})|(?P<semi>;)"
)
_PROTO_KINDS: dict[str, SymbolKind] = {"message": "struct", "enum": "enum", "service": "interface"}
_PROTO_PACKAGE = re.compile(r"\bpackage\s+([A-Za-z_][\w.]*)\s*;")


def parse_protobuf(text: str) -> list[Symbol]:
    """Messages, enums, services and rpcs of a ``.proto`` file."""
    masked = mask(text, _PROTO_SYNTAX)
    lines = text.split("\n")
    index = LineIndex(text)
    symbols: list[Symbol] = []
    # Open blocks: (qualified name or None for a block that is no symbol, its symbol's
    # position in `symbols`).
    stack: list[tuple[str | None, int]] = []
    pending: tuple[str, str, int] | None = None  # (kind word, name, offset) awaiting { or ;

    def parent() -> str | None:
        return next((name for name, _ in reversed(stack) if name is not None), None)

    for token in _PROTO_TOKEN.finditer(masked):
        if token["keyword"] or token["rpc"]:
            word = token["keyword"] or "rpc"
            pending = (word, token["name"] or token["rpc"], token.start())
        elif token["open"]:
            if pending is None or pending[0] in ("oneof", "extend"):
                stack.append((None, -1))
            else:
                found = _proto_symbol(text, lines, index, pending, token.start(), parent())
                stack.append((found.qualified_name, len(symbols)))
                symbols.append(found)
            pending = None
        elif token["close"]:
            if stack:
                _, position = stack.pop()
                if position >= 0:
                    end = index.line(token.start())
                    symbols[position] = _with_end(symbols[position], end)
        elif token["semi"]:
            if pending is not None and pending[0] == "rpc":
                symbols.append(_proto_symbol(text, lines, index, pending, token.start(), parent()))
            pending = None
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def protobuf_endpoints(text: str, symbols: Sequence[Symbol]) -> list[Endpoint]:
    """The rpcs of a ``.proto`` file's services (`symbols` from `parse_protobuf`), each
    named ``package.Service/Method`` at the line of its ``rpc`` keyword."""
    masked = mask(text, _PROTO_SYNTAX)
    found = _PROTO_PACKAGE.search(masked)
    package = found.group(1) if found else ""
    services = {s.qualified_name for s in symbols if s.kind == "interface"}
    lines = masked.split("\n")
    out: list[Endpoint] = []
    for s in symbols:
        if s.kind != "method" or s.parent not in services:
            continue
        keyword = re.compile(rf"\brpc\s+{re.escape(s.name)}\b")
        line = next(
            (n for n in range(s.start_line, s.header_end_line + 1) if keyword.search(lines[n - 1])),
            s.header_end_line,
        )
        service = f"{package}.{s.parent}" if package else s.parent
        out.append(Endpoint("rpc", f"{service}/{s.name}", line, s.qualified_name))
    return out


def _proto_symbol(
    text: str,
    lines: list[str],
    index: LineIndex,
    pending: tuple[str, str, int],
    stop: int,
    parent: str | None,
) -> Symbol:
    word, name, offset = pending
    first = index.line(offset)
    doc, start = comment_above(lines, first, ("//",))
    header_end = index.line(stop)
    kind: SymbolKind = "method" if word == "rpc" else _PROTO_KINDS[word]
    signature = signature_of(text[offset:stop])
    return symbol(name, kind, (start, header_end, header_end), signature, parent=parent, doc=doc)


def _with_end(found: Symbol, end: int) -> Symbol:
    return symbol(
        found.name,
        found.kind,
        (found.start_line, found.header_end_line, end),
        found.signature,
        parent=found.parent,
        doc=found.doc,
    )


_GRAPHQL_SYNTAX = Syntax(line_comments=("#",), quotes=('"""', '"'))
_GRAPHQL_KINDS: dict[str, SymbolKind] = {
    "type": "class",
    "input": "struct",
    "interface": "interface",
    "enum": "enum",
    "union": "type",
    "scalar": "type",
    "schema": "module",
    "directive": "function",
    "query": "function",
    "mutation": "function",
    "subscription": "function",
    "fragment": "function",
}
_GRAPHQL_DEFINITION = re.compile(
    r"(?P<extend>\bextend\s+)?\b(?P<word>" + "|".join(_GRAPHQL_KINDS) + r")\b"
    r"(?:\s+(?P<name>@?[A-Za-z_]\w*))?"
)
_GRAPHQL_ROOTS = ("Query", "Mutation", "Subscription")
_MAX_DESCRIPTION = 8192
_ROOT_BINDING = re.compile(r"\b(?:query|mutation|subscription)\s*:\s*([A-Za-z_]\w*)")
_FIELD = re.compile(r"(?m)^[ \t]*([A-Za-z_]\w*)\s*[(:]")


def parse_graphql(text: str) -> list[Symbol]:
    """Type system definitions, operations and fragments of a GraphQL document, and the
    fields of its root operation types."""
    masked = mask(text, _GRAPHQL_SYNTAX)
    lines = text.split("\n")
    index = LineIndex(text)
    starts = _top_level_definitions(masked)
    roots = set(_ROOT_BINDING.findall(masked)) or set(_GRAPHQL_ROOTS)
    symbols: list[Symbol] = []
    for position, (offset, word, name, extension) in enumerate(starts):
        limit = starts[position + 1][0] if position + 1 < len(starts) else len(masked)
        brace = masked.find("{", offset, limit)
        if word in ("query", "mutation", "subscription") and not name:
            continue  # an anonymous operation has nothing to look up
        name = name or word  # `schema`
        header_end = index.line(brace) if brace >= 0 else index.line(offset)
        if brace >= 0:
            close = matching(masked, brace)
            end = index.line(close)
            signature = signature_of(masked[offset:brace])
        else:
            end = last_code_line(lines, index.line(offset), index.line(limit - 1))
            signature = signature_of(text[offset : index.starts[end - 1] + len(lines[end - 1])])
        doc, start = _graphql_doc(text, lines, index, offset)
        if not extension:  # `extend type User` adds to User: not a second User
            found = symbol(name, _GRAPHQL_KINDS[word], (start, header_end, end), signature, doc=doc)
            symbols.append(found)
        if word == "type" and name in roots and brace >= 0:
            symbols.extend(_root_fields(text, masked, lines, index, brace, name, extension))
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def _top_level_definitions(masked: str) -> list[tuple[int, str, str, bool]]:
    """(offset, keyword, name, is an extension) of each definition that starts outside
    any bracket."""
    depth = 0
    found: list[tuple[int, str, str, bool]] = []
    index = 0
    while index < len(masked):
        char = masked[index]
        if char in "{(":
            depth += 1
        elif char in "})":
            depth = max(0, depth - 1)
        elif depth == 0 and char.isalpha() and (index == 0 or not masked[index - 1].isalnum()):
            match = _GRAPHQL_DEFINITION.match(masked, index)
            if match:
                found.append((index, match["word"], match["name"] or "", bool(match["extend"])))
                index = match.end()
                continue
            while index < len(masked) and (masked[index].isalnum() or masked[index] == "_"):
                index += 1
            continue
        index += 1
    return found


def _graphql_doc(text: str, lines: list[str], index: LineIndex, offset: int) -> tuple[str, int]:
    """A description string right before ``offset``, or ``#`` comment lines above it."""
    # A bounded look-back: copying all the text before each definition would be
    # quadratic on a large schema.
    window = max(0, offset - _MAX_DESCRIPTION)
    before = text[window:offset].rstrip()
    opening, body = -1, ""
    if before.endswith('"""') and len(before) >= 6:
        opening = before.rfind('"""', 0, len(before) - 3)
        body = before[opening + 3 : -3] if opening >= 0 else ""
    elif before.endswith('"') and len(before) >= 2:
        opening = before.rfind('"', before.rfind("\n") + 1, len(before) - 1)
        body = before[opening + 1 : -1] if opening >= 0 else ""
    if opening >= 0:
        return " ".join(body.split()), index.line(window + opening)
    return comment_above(lines, index.line(offset), ("#",))


def _root_fields(
    text: str,
    masked: str,
    lines: list[str],
    index: LineIndex,
    brace: int,
    owner: str,
    extension: bool,
) -> list[Symbol]:
    close = matching(masked, brace)
    body = masked[brace + 1 : close]
    fields: list[tuple[int, str]] = []
    for match in _FIELD.finditer(body):
        # Only fields at the body's own level, not argument names inside ( … ).
        if body.count("(", 0, match.start()) == body.count(")", 0, match.start()):
            fields.append((brace + 1 + match.start(1), match[1]))
    heads = [(_graphql_doc(text, lines, index, offset), offset, name) for offset, name in fields]
    found = []
    for position, ((doc, start), offset, name) in enumerate(heads):
        first = index.line(offset)
        limit = (
            heads[position + 1][0][1] - 1 if position + 1 < len(heads) else index.line(close) - 1
        )
        end = max(first, last_code_line(lines, first, limit))
        line_end = index.starts[end - 1] + len(lines[end - 1])
        signature = signature_of(masked[offset : min(line_end, close)])
        parent = None if extension else owner  # an extension is no symbol to nest in
        lines_of = (start, first, end)
        found.append(
            symbol(name, "method", lines_of, signature, parent=parent, qualifier=owner, doc=doc)
        )
    return found


# --------------------------------------------------------------------------- Prisma

_PRISMA_SYNTAX = Syntax(line_comments=("//",), block_comments=(("/*", "*/"),))
_PRISMA_BLOCK = re.compile(
    r"^[ \t]*(?P<word>model|view|type|enum|datasource|generator)\s+(?P<name>[A-Za-z_]\w*)\s*\{",
    re.MULTILINE,
)
_PRISMA_KINDS: dict[str, SymbolKind] = {
    "model": "class",
    "view": "class",
    "type": "struct",
    "enum": "enum",
    "datasource": "module",
    "generator": "module",
}
_PRISMA_FIELD = re.compile(r"^[ \t]*(?P<name>[A-Za-z_]\w*)\b", re.MULTILINE)


def parse_prisma(text: str) -> list[Symbol]:
    """Models, views, composite types, enums, datasources and generators of a Prisma
    schema, and the fields of models, views and types."""
    masked = mask(text, _PRISMA_SYNTAX)
    lines = text.split("\n")
    index = LineIndex(text)
    symbols: list[Symbol] = []
    for match in _PRISMA_BLOCK.finditer(masked):
        brace = match.end() - 1
        close = matching(masked, brace)
        start, end = index.line(match.start("word")), index.line(close)
        word, name = match["word"], match["name"]
        doc = _prisma_doc(lines, start)
        signature = signature_of(masked[match.start("word") : brace])
        symbols.append(symbol(name, _PRISMA_KINDS[word], (start, start, end), signature, doc=doc))
        if word not in ("model", "view", "type"):
            continue
        for field in _PRISMA_FIELD.finditer(masked, brace + 1, close):
            line = index.line(field.start("name"))
            written = masked[index.starts[line - 1] : index.starts[line - 1] + len(lines[line - 1])]
            if line in (start, end) or written.strip().startswith("@@"):
                continue  # a block attribute (`@@index([…])`) is no field
            found = symbol(
                field["name"],
                "variable",
                (line, line, line),
                signature_of(written),
                parent=name,
                doc=_prisma_doc(lines, line),
            )
            symbols.append(found)
    return sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def _prisma_doc(lines: list[str], line: int) -> str:
    """The ``///`` comment lines right above line ``line`` (1-based)."""
    found: list[str] = []
    at = line - 2
    while at >= 0 and lines[at].strip().startswith("///"):
        found.append(lines[at].strip()[3:].strip())
        at -= 1
    return "\n".join(reversed(found))
