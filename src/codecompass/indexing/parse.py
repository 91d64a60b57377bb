"""Turn one file's text into symbols and references.

Code is parsed with tree-sitter and read through tag queries (``queries/*.scm``) with
uniform capture names; a single walker turns the captures into ``Symbol`` and
``Reference`` records, with per-language details supplied by ``rules.py``:

- ``@definition.<kind>`` + ``@name``: a symbol of that kind. Nesting comes from range
  containment, so qualified names nest: ``Outer.Inner.method``. A function directly
  inside a class, struct, interface, trait or enum (or a Rust ``impl``, or a Ruby module)
  becomes a ``method``.
- ``@scope.<kind>`` + ``@name``: qualifies what it contains without being a symbol —
  Rust ``impl Foo`` (``Foo.bar``) and C++ namespaces (``geo.Circle.area``). C# and PHP
  namespaces and Java packages are left out of qualified names. Names written qualified
  join with ``.`` too: a Go method is ``Store.Get`` (from its receiver), C++
  ``void ns::Circle::area()`` is ``ns.Circle.area``, a method unless ``Circle`` is a
  namespace the file opens (or ``std``): the class is usually in another file, the
  header.
- ``@reference.<kind>`` (+ ``@name``): a use, reported with the qualified name of the
  innermost enclosing symbol or scope as ``scope``.

``parent`` is always the qualified name of the innermost symbol *in this file whose line
range contains* the symbol, or None; so a Go method, a method in a top-level Rust ``impl``
and a C++ class directly inside a namespace have ``parent=None`` even though their
qualified names are dotted.

Conventions:

- Lines are 1-based and inclusive and count ``"\\n"`` only. ``start_line`` includes
  decorators/attributes and the contiguous comment lines directly above (no blank line
  between); ``header_end_line`` is the line holding the ``:`` (Python), the ``{``
  (C-like), or the end of the header where a body follows on the next line (Ruby).
- Nested functions are included, qualified through their enclosing function
  (``Repository.save.log``), and never exported. Anonymous functions and class fields are
  not symbols; ``const f = () => …`` and ``const f = function () …`` are functions ``f``.
  JS/TS (``commonjs.py``): a class field holding a function is a method; ``obj.f =
  function …`` is ``obj.f`` (``exports.f`` is ``f``, ``Foo.prototype.f`` the method
  ``Foo.f``); a variable holding an object literal with functions, or a module-level one
  receiving functions, is a ``class`` whose functions are its methods.
- Constants (kind ``constant``): module-level ALL_CAPS assignments of two or more
  characters in Python and JS/TS, top-level Go ``const`` and Rust ``const``/``static``,
  every Ruby ``CONSTANT = …`` and C/C++ ``#define`` s.
- ``exported``: the symbol's own marking (Python: no leading ``_`` unless dunder; JS/TS:
  ``export`` or listed in ``export {…}``, class members unless ``private``/``#name``; Go:
  capitalised; Java/C#: ``public``, interface members implicitly; PHP: not
  ``private``/``protected``; Rust: exactly ``pub``, trait items and trait-impl methods
  follow the trait; C/C++: not ``static``, class members by the preceding access specifier;
  Ruby: public unless after a bare ``private``/``protected`` or wrapped in ``private def``)
  and, for a member, its enclosing type or module being exported too. Symbols inside
  functions are never exported.
- Reference names: calls as written with argument lists reduced to ``()`` and
  subscripts to ``[]`` (``self.bar``, ``obj.method``, ``self.c().d``, ``items[].save``);
  ``::``/``->`` become ``.``, generic arguments and PHP ``$`` are dropped, and a
  receiver that is not a name (a literal, a parenthesised expression) becomes ``?``.
  JSX ``<Component/>`` counts as a call.
  Imports: Python ``import a.b`` → ``a.b``, ``from x import y as z`` → ``x.y``,
  ``from . import y`` → ``.y``; JS/TS ``import {a} from './m'`` → ``./m:a`` (the ``:``
  keeps dotted file names unambiguous), default import → ``./m:default``, namespace
  import and ``export * from`` → ``./m:*``, side-effect import, ``require('m')`` and
  ``import('m')`` → ``m``; Java/C#/Rust/PHP paths dotted (``std.collections.HashMap``,
  Rust use-lists expanded); Go and C include paths and Ruby ``require`` strings verbatim.
  Inheritance (``class A(B)``, ``extends``, ``implements``, Rust ``impl Trait for``, Go
  embedding, Ruby ``include``) has kind ``inherit`` with the subclass as ``scope``.

Languages without a grammar are read in pure Python (``_PLAIN_READERS``: Markdown, reST,
R, Protobuf, GraphQL, CMake, Dockerfile); a Vue or Svelte component is its ``<script>``
parsed as JS/TS (``sfc.py``); a Jupyter notebook is its cells, parsed in the kernel's
language at the notebook's own lines (``notebook.py``, through ``parse_file``). The
grammars added in issue 17 have their ``Rules`` in ``rules_more.py``, whose ``finish``
pass tidies their symbols.

``parse`` never raises: any failure returns ``ParsedFile(language, error=...)`` so the
caller can fall back to line windows. That also happens when tree-sitter exceeds its
time budget (1 s + 1 s per 500 KB), when a file yields no symbols and most of its
top-level nodes are syntax errors (probably not the language its extension claims), when
a language's grammar wheel is not installed (the error names the extra to install) and
when its query file is missing. Definitions and references nested deeper than
``treesitter.MAX_QUERY_DEPTH`` tree levels are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from codecompass.decoding import is_notebook_path
from codecompass.hashing import file_lines
from codecompass.indexing import treesitter
from codecompass.indexing.blanking import (
    BLANKED_LANGUAGES,
    GRAMMAR_SUFFIXES,
    blanked_text,
    error_count,
    grammar_code,
)
from codecompass.indexing.buildfiles import parse_cmake, parse_dockerfile
from codecompass.indexing.cython import parse_cython
from codecompass.indexing.idl import parse_graphql, parse_prisma, parse_protobuf
from codecompass.indexing.languages import (
    EXTRA_INSTALL_HINT,
    EXTRA_LANGUAGES,
    TREE_SITTER_LANGUAGES,
    is_c_template,
    language_for_file,
    template_code,
)
from codecompass.indexing.markup import parse_markdown, parse_rst
from codecompass.indexing.notebook import NotebookError, notebook_view
from codecompass.indexing.rlang import parse_r
from codecompass.indexing.rules import (
    FUNCTION_KINDS,
    RULES,
    Definition,
    FileContext,
    RefTuple,
    Rules,
    code_text,
    collapse,
    end_row,
)
from codecompass.indexing.rules_more import MORE_RULES
from codecompass.indexing.sfc import parse_component
from codecompass.models import ParsedFile, Reference, Symbol

__all__ = ["SourceFile", "missing_grammar_message", "parse", "parse_file"]

_MAX_SIGNATURE = 200
# Time budget for tree-sitter: a fixed allowance plus a floor speed far below normal
# (normal is several MB/s), so only pathological inputs hit it.
_PARSE_SECONDS = 1.0
_PARSE_BYTES_PER_SECOND = 500_000

# Languages read by pure-Python code, without a grammar.
_PLAIN_READERS: dict[str, Callable[[str], list[Symbol]]] = {
    "markdown": parse_markdown,
    "rst": parse_rst,
    "r": parse_r,
    "cython": parse_cython,
    "protobuf": parse_protobuf,
    "graphql": parse_graphql,
    "prisma": parse_prisma,
    "cmake": parse_cmake,
    "dockerfile": parse_dockerfile,
}
_COMPONENT_LANGUAGES = frozenset({"vue", "svelte"})


def parse(text: str, language: str, path: str = "") -> ParsedFile:
    """Symbols and references of one file, and its tree for fact extraction; never
    raises (a failure after the tree was built still returns the tree). ``path`` names
    a Vue or Svelte component."""
    root: treesitter.Node | None = None
    try:
        reader = _PLAIN_READERS.get(language)
        if reader is not None:
            return ParsedFile(language, symbols=reader(text))
        if language in _COMPONENT_LANGUAGES:
            return ParsedFile(language, symbols=parse_component(text, path, parse))
        if language not in TREE_SITTER_LANGUAGES or not text.strip():
            return ParsedFile(language)
        if not treesitter.grammar_installed(language):
            return ParsedFile(language, error=missing_grammar_message(language))
        if not treesitter.has_query(language):
            return ParsedFile(language, error=f"no tag query for {language}: chunked by lines")
        if path.endswith(GRAMMAR_SUFFIXES):
            text = grammar_code(text)
        data = text.encode("utf-8", "surrogatepass")
        timeout = _PARSE_SECONDS + len(data) / _PARSE_BYTES_PER_SECOND
        root = treesitter.parse_tree(language, data, timeout)
        blanked_rows: frozenset[int] = frozenset()
        written = b""
        if language in BLANKED_LANGUAGES and root.has_error:
            # Signatures are read from the text parsed: without the blanked macros too.
            root, parsed_data = _second_parse(language, data, root, timeout)
            if parsed_data is not data:
                blanked_rows = _blanked_rows(data, parsed_data)
                written, data = data, parsed_data
        parsed = _read_tree(data, root, language, blanked_rows, written)
        parsed.tree = root
        return parsed
    except treesitter.ParseTimeout as exc:
        return ParsedFile(language, error=str(exc))
    except RecursionError:
        return ParsedFile(language, error="nesting too deep to parse", tree=root)
    except Exception as exc:  # any failure means "fall back to line windows"
        return ParsedFile(language, error=f"{type(exc).__name__}: {exc}"[:300], tree=root)


def _second_parse(
    language: str, data: bytes, root: treesitter.Node, timeout: float
) -> tuple[treesitter.Node, bytes]:
    """The tree of ``data``'s blanked text (``blanking.py``) and that text, when the tree
    has fewer syntax errors than ``root``; otherwise ``root`` and ``data``."""
    blanked = blanked_text(language, data, root, timeout)
    if blanked == data:
        return root, data
    second = treesitter.parse_tree(language, blanked, timeout)
    if error_count(second) < error_count(root):
        return second, blanked
    return root, data


def _blanked_rows(data: bytes, blanked: bytes) -> frozenset[int]:
    """The rows holding code in ``data`` and nothing but spaces in ``blanked``."""
    return frozenset(
        row
        for row, (line, parsed_line) in enumerate(
            zip(data.split(b"\n"), blanked.split(b"\n"), strict=True)
        )
        if line.strip() and not parsed_line.strip()
    )


@dataclass(slots=True)
class SourceFile:
    """A file as the index reads it."""

    parsed: ParsedFile
    code: str  # the text the parser read, which facts are extracted from
    lines: list[str]  # what chunks show: one entry per line of the file


def parse_file(path: str, text: str) -> SourceFile:
    """`parse` for a stored file: the language from its path (or a script's `#!` line);
    a notebook through its cells."""
    if is_notebook_path(path):
        try:
            view = notebook_view(text)
        except NotebookError as exc:
            error = f"{exc}: chunked by lines"
            return SourceFile(ParsedFile("text", error=error), text, file_lines(text))
        if view.problem is not None:
            error = f"{view.problem}: its source lines chunked as text"
            return SourceFile(ParsedFile("text", error=error), view.code, view.shown)
        return SourceFile(parse(view.code, view.language, path), view.code, view.shown)
    code = template_code(text) if is_c_template(path) else text
    return SourceFile(parse(code, language_for_file(path, code), path), code, file_lines(text))


def missing_grammar_message(language: str) -> str:
    """Why a file of ``language`` has no symbols when its grammar wheel is not installed."""
    hint = EXTRA_INSTALL_HINT if language in EXTRA_LANGUAGES else "reinstall codecompass"
    return f"no {language} grammar installed ({hint}): chunked by lines"


def _read_tree(
    data: bytes,
    root: treesitter.Node,
    language: str,
    blanked_rows: frozenset[int],
    written: bytes = b"",
) -> ParsedFile:
    rules = RULES.get(language) or MORE_RULES[language]
    ctx = FileContext(data, root, blanked_rows=blanked_rows, written=written)
    rules.prepare(ctx)

    definitions: dict[int, tuple[int, Definition]] = {}
    raw_references: list[tuple[str, treesitter.Node, treesitter.Node | None]] = []
    for pattern, captures in treesitter.run_query(language, root):
        name_nodes = captures.get("name")
        name_node = name_nodes[0] if name_nodes else None
        for capture, nodes in captures.items():
            role, _, kind = capture.partition(".")
            if role == "reference":
                raw_references.append((kind, nodes[0], name_node))
            elif role in ("definition", "scope"):
                node = nodes[0]
                previous = definitions.get(node.id)
                if previous is not None and previous[0] <= pattern:
                    continue
                definition = _definition(ctx, rules, role, kind, node, name_node)
                if definition is not None:
                    definitions[node.id] = (pattern, definition)

    ordered = sorted(
        (item[1] for item in definitions.values()),
        key=lambda d: (d.outer.start_byte, -d.outer.end_byte),
    )
    _nest(ctx, rules, ordered)
    kept = [d for d in ordered if not d.is_scope]
    symbols = [_symbol(ctx, rules, d) for d in kept]
    symbols = rules.finish(ctx, kept, symbols)
    symbols.sort(key=lambda s: (s.start_line, -s.end_line))
    references = _references(ctx, rules, ordered, raw_references)
    error = None
    if not symbols and root.has_error and _mostly_errors(root):
        error = "syntax errors throughout the file"
    return ParsedFile(language, symbols=symbols, references=references, error=error)


def _definition(
    ctx: FileContext,
    rules: Rules,
    role: str,
    kind: str,
    node: treesitter.Node,
    name_node: treesitter.Node | None,
) -> Definition | None:
    if role == "scope":
        parts = rules.scope_name_parts(ctx, node, name_node)
        if not parts:
            return None
        return Definition(
            node=node,
            outer=node,
            kind="module" if kind == "namespace" else "class",
            name=parts[-1],
            prefix=tuple(parts[:-1]),
            is_scope=True,
        )
    symbol_kind = rules.accept(ctx, kind, node)
    if symbol_kind is None:
        return None
    parts = rules.name_parts(ctx, node, name_node)
    if not parts or not parts[-1]:
        return None
    return Definition(
        node=node,
        outer=_climb(rules, node),
        kind=symbol_kind,
        name=parts[-1],
        prefix=tuple(parts[:-1]),
    )


def _climb(rules: Rules, node: treesitter.Node) -> treesitter.Node:
    outer = node
    while True:
        parent = outer.parent
        if parent is None or parent.type not in rules.wrappers:
            return outer
        if rules.wrappers[parent.type]:
            siblings = sum(1 for child in parent.named_children if child.type == outer.type)
            if siblings != 1:
                return outer
        outer = parent


def _nest(ctx: FileContext, rules: Rules, ordered: list[Definition]) -> None:
    """Set container, qualified name, parent, kind and exported, outermost first."""
    namespaces = {
        part for d in ordered if d.is_scope and d.kind == "module" for part in (*d.prefix, d.name)
    }
    stack: list[Definition] = []
    for definition in ordered:
        start = definition.outer.start_byte
        end = definition.outer.end_byte
        while stack and not (
            stack[-1].outer.start_byte <= start and end <= stack[-1].outer.end_byte
        ):
            stack.pop()
        container = stack[-1] if stack else None
        definition.container = container
        base = container.qualified if container is not None else ""
        path = ".".join(part for part in (base, *definition.prefix) if part)
        definition.qualified = f"{path}.{definition.name}" if path else definition.name
        enclosing = container
        while enclosing is not None and enclosing.is_scope:
            enclosing = enclosing.container
        definition.parent = enclosing.qualified if enclosing is not None else None
        if definition.kind == "function" and _is_type_member(rules, ctx, definition, namespaces):
            definition.kind = "method"
        if not definition.is_scope and definition.kind in rules.type_like_kinds:
            ctx.known_types.add(definition.qualified)
        definition.exported = _exported(ctx, rules, definition)
        stack.append(definition)


def _is_type_member(
    rules: Rules, ctx: FileContext, definition: Definition, namespaces: set[str]
) -> bool:
    if definition.prefix:
        qualifier = ".".join((*_qualifier(definition.container), *definition.prefix))
        return qualifier in ctx.known_types or rules.qualifies_a_type(
            definition.prefix[-1], namespaces
        )
    container = definition.container
    if container is None:
        return False
    if container.is_scope:
        return container.kind == "class"
    return container.kind in rules.type_like_kinds


def _qualifier(container: Definition | None) -> tuple[str, ...]:
    return (container.qualified,) if container is not None else ()


def _exported(ctx: FileContext, rules: Rules, definition: Definition) -> bool:
    if definition.is_scope:
        return True
    own = rules.visible(ctx, definition)
    container = definition.container
    if container is None or container.is_scope:
        return own
    if container.kind in FUNCTION_KINDS:
        return False
    return own and container.exported


def _symbol(ctx: FileContext, rules: Rules, definition: Definition) -> Symbol:
    node = definition.node
    outer = definition.outer
    comments, first_row = _attachments(ctx, rules, outer)
    signature_start = _signature_start(rules, outer)
    body = rules.body(node)
    if body is not None and body.start_byte > signature_start:
        signature_end, header_byte = rules.header(ctx, node, body)
        signature = collapse(code_text(ctx, rules, outer, signature_start, signature_end))
        header_row = ctx.row_at(node, header_byte) if header_byte >= node.start_byte else None
        header_end = header_row if header_row is not None else node.start_point.row
    else:
        signature = ""
        header_end = end_row(outer)
        if outer.end_byte - signature_start <= 4 * _MAX_SIGNATURE:
            signature = collapse(code_text(ctx, rules, outer, signature_start, outer.end_byte))
        if not signature or len(signature) > _MAX_SIGNATURE:
            line_end = ctx.data.find(b"\n", signature_start, outer.end_byte)
            end = line_end if line_end >= 0 else outer.end_byte
            signature = collapse(code_text(ctx, rules, outer, signature_start, end))[
                : 2 * _MAX_SIGNATURE
            ]
            header_end = ctx.row_at(outer, signature_start)
    signature = rules.signature(ctx, definition, signature)
    doc = rules.docstring(ctx, definition)
    if doc is None:
        doc = rules.clean_doc([ctx.text(comment) for comment in comments]) if comments else ""
    last_row = end_row(outer)
    return Symbol(
        name=definition.name,
        qualified_name=definition.qualified,
        kind=definition.kind,
        start_line=first_row + 1,
        end_line=last_row + 1,
        header_end_line=min(max(header_end, outer.start_point.row), last_row) + 1,
        signature=signature,
        doc=doc,
        exported=definition.exported,
        parent=definition.parent,
    )


def _attachments(
    ctx: FileContext, rules: Rules, outer: treesitter.Node
) -> tuple[list[treesitter.Node], int]:
    """Comments directly above ``outer`` (top first) and the first row they reach."""
    comments: list[treesitter.Node] = []
    first_row = outer.start_point.row
    sibling = _above(rules, outer)
    while sibling is not None:
        is_comment = sibling.type in rules.comment_types
        if not is_comment and sibling.type not in rules.attachment_types:
            break
        if not ctx.adjacent(end_row(sibling), first_row):
            break
        if not _starts_line(ctx, sibling):
            break
        if is_comment:
            comments.append(sibling)
        first_row = sibling.start_point.row
        sibling = _above(rules, sibling)
    comments.reverse()
    return comments, first_row


def _above(rules: Rules, node: treesitter.Node) -> treesitter.Node | None:
    """The named node before `node`. The first child of a node that starts where it does
    looks before that node: Ruby puts the comments above a body's first statement beside
    the body. A comment that ends the node before is taken: Haskell puts the comments
    above a module's first declaration at the end of its imports."""
    holder = node
    while holder.prev_named_sibling is None and holder.parent is not None:
        if holder.parent.start_byte != node.start_byte:
            return None
        holder = holder.parent
    before = holder.prev_named_sibling
    if before is not None and before.type not in rules.comment_types and before.named_children:
        last = before.named_children[-1]
        if last.type in rules.comment_types:
            return last
    return before


def _starts_line(ctx: FileContext, node: treesitter.Node) -> bool:
    # Bounded look-back: on a minified single-line file an unbounded rfind per
    # definition would be quadratic.
    window = max(0, node.start_byte - 512)
    newline = ctx.data.rfind(b"\n", window, node.start_byte)
    if newline < 0 and window > 0:
        return False
    return not ctx.data[newline + 1 : node.start_byte].strip()


def _signature_start(rules: Rules, node: treesitter.Node) -> int:
    found = _first_signature_child(rules, node)
    return found if found is not None else node.start_byte


def _first_signature_child(rules: Rules, node: treesitter.Node) -> int | None:
    for child in node.children:
        if child.type in rules.signature_skip:
            continue
        if child.type in rules.signature_descend:
            inner = _first_signature_child(rules, child)
            if inner is not None:
                return inner
            continue
        return child.start_byte
    return None


def _references(
    ctx: FileContext,
    rules: Rules,
    ordered: list[Definition],
    raw: list[tuple[str, treesitter.Node, treesitter.Node | None]],
) -> list[Reference]:
    raw.sort(key=lambda item: item[1].start_byte)
    references: list[Reference] = []
    stack: list[Definition] = []
    position = 0
    for kind, node, name_node in raw:
        start = node.start_byte
        while position < len(ordered) and ordered[position].outer.start_byte <= start:
            entering = ordered[position]
            while stack and stack[-1].outer.end_byte <= entering.outer.start_byte:
                stack.pop()
            stack.append(entering)
            position += 1
        while stack and stack[-1].outer.end_byte <= start:
            stack.pop()
        scope = stack[-1].qualified if stack else None
        references.extend(_make_references(rules.references(ctx, kind, node, name_node), scope))
    return references


def _make_references(found: Iterable[RefTuple], scope: str | None) -> Iterable[Reference]:
    for kind, name, row in found:
        if name:
            yield Reference(name=name, kind=kind, line=row + 1, scope=scope)


def _mostly_errors(root: treesitter.Node) -> bool:
    children = root.children
    if not children:
        return False
    broken = sum(1 for child in children if child.is_error or child.is_missing)
    return broken * 2 > len(children)
