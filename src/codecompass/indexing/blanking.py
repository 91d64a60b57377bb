"""Texts blanked for a second parse of C-family files tree-sitter could not read.

Two things the parser cannot expand break its reading of otherwise valid code:

- Macros that mark declarations (C, C++, Objective-C): ``FMT_CONSTEXPR size_padding(…)``,
  ``CURL_EXTERN CURLcode curl_easy_init(…)``, ``static FMT_INLINE void grow(…)``,
  ``class GTEST_API_ Test {``, ``template <typename T, FMT_ENABLE_IF(…)>``, ``void Lock()
  EXCLUSIVE_LOCK_FUNCTION() {``, ``NLOHMANN_JSON_NAMESPACE_END``,
  ``JSON_PRIVATE_UNLESS_TESTED:`` or ``NS_ASSUME_NONNULL_BEGIN`` on a line of its own.
  tree-sitter reads the macro as a type, fails on what follows, and its error recovery
  can swallow the rest of a class, so later functions nest inside the wrong symbol.
- Conditional directives inside a declaration (C#): ``class Sink : ILogEventSink #if
  FEATURE_ASYNC , IAsyncDisposable #endif {``, or a body under ``#if`` and a ``;`` under
  ``#else``. Keeping each conditional's first branch alone reads code a compiler has
  read. Not for the others: their other branches are often the main code (``#ifdef
  _WIN32 … #else`` the POSIX one), and keeping every branch at once can open two blocks
  and close one (curl's mbedtls.c then read the functions after one as nested in it).

``blanked_text`` gives the text to try, overwriting those spans with spaces (byte
offsets and lines stay put, so every node still points into the original text). They
are guesses from the shape alone, so the parse decides: parse.py keeps the blanked text's
tree only when it has fewer syntax errors (``error_count``). An ALL_CAPS type such as
``DWORD GetVersion(…)`` is blanked too; a file where that hurts keeps its first tree.
"""

from __future__ import annotations

import re

from codecompass.indexing import treesitter

__all__ = ["BLANKED_LANGUAGES", "blanked_text", "error_count", "without_attribute_macros"]

BLANKED_LANGUAGES = frozenset({"c", "cpp", "objc", "csharp", "sql", "html", "typescript", "tsx"})
_MACRO_LANGUAGES = frozenset({"c", "cpp", "objc"})

# ``#if``/``#ifdef``/``#ifndef``/``#elif``/``#else``/``#endif`` lines, with continuations.
_CONDITIONAL_DIRECTIVE = re.compile(
    rb"(?m)^[ \t]*#[ \t]*(?P<kind>ifdef|ifndef|if|elif|else|endif)\b"
    rb"(?P<condition>(?:[^\n]*\\\n)*[^\n]*)"
)
_NEVER = re.compile(rb"\s*0\s*(?://.*|/\*.*)?")  # ``#if 0``
_MACRO = rb"\b[A-Z][A-Z0-9_]*[A-Z0-9_]\b"  # two characters or more: ``T`` is a type
_WORD = rb"[A-Za-z_][A-Za-z0-9_]*\b"
# Comments, literals and preprocessor lines (with their continuations) are passed over.
_PASSED = (
    rb"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    rb"|(?m:^[ \t]*#(?:[^\n]*\\\n)*[^\n]*)"
)
_CANDIDATES = re.compile(
    _PASSED
    # MACRO before a declaration: a type or name, then a declarator or a parameter list.
    + rb"|(?P<marker>"
    + _MACRO
    + rb")(?=\s+~?"
    + _WORD
    + rb"\s*(?:[(*&<]|::|"
    + _WORD
    + rb"))"
    # A line of its own: ``NLOHMANN_JSON_NAMESPACE_END``, ``Q_OBJECT``.
    + rb"|(?m:^[ \t]*(?P<alone>"
    + _MACRO
    + rb")[ \t]*$)"
    # An access label: ``JSON_PRIVATE_UNLESS_TESTED:``, ``public Q_SLOTS:`` (with the colon
    # when the macro is the whole label).
    + rb"|(?m:^[ \t]*(?:(?:public|protected|private)[ \t]+(?P<qualifier>"
    + _MACRO
    + rb")|(?P<label>"
    + _MACRO
    + rb"[ \t]*:))(?=[ \t]*(?:$|//|/\*)))"
    # A call on the line before a declaration: ``JSON_HEDLEY_DEPRECATED_FOR(3.11, x)``.
    + rb"|(?m:^[ \t]*(?P<leading>"
    + _MACRO
    + rb")[ \t]*\()"
    # ``if FMT_CONSTEXPR20 (…)``: a macro standing for ``constexpr``.
    + rb"|\bif\s+(?P<condition>"
    + _MACRO
    + rb")(?=\s*\()"
    # ``class MACRO Name {`` and ``class MACRO("default") Name : Base``.
    + rb"|\b(?:class|struct|union)\s+(?P<visibility>"
    + _MACRO
    + rb")(?P<visibility_call>\s*\()?"
    # After a parameter list: ``void Lock() EXCLUSIVE_LOCK_FUNCTION(mu_) {``.
    + rb"|\)(?:\s*const\b)?\s*(?P<trailer>"
    + _MACRO
    + rb")(?P<trailer_call>\s*\()?"
    # An array's initializer: ``static const char* names[] LEVEL_NAMES;``.
    + rb"|\]\s*(?P<initializer>"
    + _MACRO
    + rb")(?=\s*;)"
    # After a member's name, ``int count_ GUARDED_BY(mu_);``, or an Objective-C method's
    # last parameter, ``…:(NSURLSessionTaskMetrics *)metrics API_AVAILABLE(ios(10)) {``.
    + rb"|\b(?!(?:return|else|do|case|goto|throw|delete|new|co_return|co_yield|co_await)\b)"
    + _WORD
    + rb"\s+(?P<annotation>"
    + _MACRO
    + rb")(?=\s*\()"
    # ``, FMT_ENABLE_IF(…)>`` closing a template parameter list.
    + rb"|(?P<constraint>,\s*"
    + _MACRO
    + rb"\s*\()"
    # A call between a declaration's type and its name, in any case: tmux's
    # ``void printflike(1, 2) log_debug(const char *, ...);`` (two calls side by side are
    # no expression).
    + rb"|(?<=[\w*][ \t])(?P<between>"
    + _WORD
    + rb"[ \t]*\([^()\n]+\))(?=\s+\**\s*(?![A-Z0-9_]+\b)"
    + _WORD
    + rb"\s*\()",
    re.DOTALL,
)
_CLASS_HEAD = re.compile(rb"\s+" + _WORD + rb"\s*(?:final\s*)?[:{]")
_TEMPLATE_END = re.compile(rb"\s*>")
_BODY_START = re.compile(rb"\s*(?:\{|override\b|final\b|" + _MACRO + rb")")
_DECLARATION_END = re.compile(rb"\s*(?:[;{]|=|override\b|final\b|" + _MACRO + rb")")
_MEMBER_END = re.compile(rb"\s*[;={]")
# A declaration's first word: a keyword or a type name, not another macro.
_DECLARATION_START = re.compile(rb"[ \t]*\n\s*(?![A-Z0-9_]+\b)" + _WORD)
_MACRO_NAME = re.compile(_MACRO)
_NAME_BEFORE = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*|operator\s*\S{1,3})\s*\Z")
_STATEMENT_KEYWORDS = frozenset(
    {b"if", b"while", b"for", b"switch", b"catch", b"return", b"sizeof", b"alignof", b"decltype"}
)


def blanked_text(
    language: str, data: bytes, root: treesitter.Node | None = None, timeout: float = 5.0
) -> bytes:
    """The text to parse again when ``data``'s tree has syntax errors: C, C++ and
    Objective-C without attribute-like macros, C# with only the first branch of each
    conditional, SQL without Jinja, HTML without a server template's tags, TypeScript
    without the bodies its grammar gave up on (read from ``root``, ``data``'s tree, when
    given); ``data`` itself when there is nothing to blank."""
    if language in _MACRO_LANGUAGES:
        return without_attribute_macros(data)
    if language == "csharp":
        return _blank(data, _other_branches(data))
    if language == "sql":
        return without_jinja(data)
    if language == "html":
        return _blank(data, [m.span() for m in _SERVER_TAG.finditer(data)])
    if language in ("typescript", "tsx"):
        tree = root if root is not None else treesitter.parse_tree(language, data, timeout)
        return without_broken_bodies(language, data, tree, timeout)
    return data


BROKEN_BODIES = 8  # the most top-level bodies blanked in one file
HEADER_LINES = 20  # the longest declaration header looked through for its `{`
_BLOCK_END = re.compile(rb"^\}[;)]*[ \t]*\r?$", re.M)


def without_broken_bodies(
    language: str, data: bytes, root: treesitter.Node, timeout: float
) -> bytes:
    """TypeScript whose grammar gives up on a top-level declaration: from there on the
    tree is one error, and every later definition is lost (immer's `IProduce` interface
    of overloaded generic call signatures made the rest of `types-external.ts` no
    symbols). The body of each such declaration, from the line after its header's `{`
    to the next `}` at the start of a line, is blanked, so the declaration keeps its
    name and the rest parses; a blanking that leaves no more statements whole than
    before is undone, and the reading stops there."""
    whole = _whole_statements(root)
    start = 0
    for _ in range(BROKEN_BODIES):
        row = _first_broken_row(root, start) if root.has_error else None
        if row is None:
            break
        lines = data.split(b"\n")
        # The declaration holding the failure: the last line at or above it that starts
        # at its first column with a word (`export interface IProduceWithPatches {`).
        while row > start and not lines[row][:1].isalpha():
            row -= 1
        opened = next(
            (
                r
                for r in range(row, min(row + HEADER_LINES, len(lines)))
                if lines[r].rstrip().endswith(b"{")
            ),
            None,
        )
        if opened is None:
            break
        body = sum(len(line) + 1 for line in lines[: opened + 1])
        end = _BLOCK_END.search(data, body)
        if end is None:
            break
        blanked = _blank(data, [(body, end.start())])
        second = treesitter.parse_tree(language, blanked, timeout)
        if _whole_statements(second) <= whole:
            break
        data, root, whole = blanked, second, _whole_statements(second)
        start = data.count(b"\n", 0, end.end()) + 1
    return data


def _whole_statements(root: treesitter.Node) -> int:
    """Top-level statements and declarations without an error (not the loose names and
    parameter lists of an error's debris)."""
    return sum(
        1
        for child in root.children
        if child.type.endswith(("statement", "declaration")) and not child.has_error
    )


def _first_broken_row(root: treesitter.Node, after: int) -> int | None:
    """The first row, at or after `after`, where a top-level statement fails: an error,
    a bare keyword or name the grammar could not place in one, or one holding an error
    that starts indented."""
    for child in root.children:
        row = child.start_point[0]
        broken = child.is_error or not child.is_named or child.type == "identifier"
        # A statement holding an error that starts indented: the grammar fell out of the
        # declaration above it. One at the first column keeps its own local repair.
        if row >= after and (broken or (child.has_error and child.start_point[1] > 0)):
            return row
    return None


# A server template's tags in HTML: ERB's (Rails views, `show.html.erb`), EJS's, JSP's
# and ASP's `<% … %>`, `<%= … %>`, `<%# … %>`. The HTML grammar reads them as broken tags.
_SERVER_TAG = re.compile(rb"<%.*?%>", re.S)


# Jinja in SQL (dbt models): expressions, statements and comments.
_JINJA = re.compile(rb"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
# `{{ ref('stg_orders') }}`, `{{ ref('package', 'model') }}`, `{{ source('shop', 'orders') }}`:
# the relation a model reads, its name the last string.
JINJA_RELATION = re.compile(
    rb"\{\{-?\s*(ref|source)\s*\((?:\s*['\"][^'\"\n]*['\"]\s*,)?\s*['\"]([^'\"\n]+)['\"]"
    rb"[^)]*\)\s*-?\}\}"
)


GRAMMAR_SUFFIXES = (".y", ".l", ".yy", ".ll")


def grammar_code(text: str) -> str:
    """A yacc/bison or lex file as C: its prologue (`%{ … %}`) and everything after the
    second `%%`, at the file's own lines; the declarations and rules blank (their actions
    are fragments of C around `$$`). tmux's command parser, `cmd-parse.y`, had no
    symbol."""
    out: list[str] = []
    section, prologue = "declarations", False
    for line in text.split("\n"):
        mark = line.strip()
        if section == "declarations" and mark in ("%{", "%}"):
            prologue = mark == "%{"
            out.append("")
        elif mark == "%%" and not prologue and section != "code":
            section = "rules" if section == "declarations" else "code"
            out.append("")
        else:
            keep = section == "code" or (section == "declarations" and prologue)
            out.append(line if keep else "")
    return "\n".join(out)


def without_jinja(data: bytes) -> bytes:
    """``data`` as SQL: a dbt `ref()` or `source()` replaced by the relation's name, any
    other `{{ … }}` by `_` (a name, so that `select {{ columns }} from` still parses),
    `{% … %}` and `{# … #}` by spaces; offsets and newlines stay."""
    spans = [match.span() for match in _JINJA.finditer(data)]
    out = bytearray(_blank(data, spans))
    for start, end in spans:
        relation = JINJA_RELATION.fullmatch(data, start, end)
        name = relation.group(2) if relation is not None else b"_"
        if relation is not None or data.startswith(b"{{", start):
            out[start : start + len(name)] = name
    return bytes(out)


def without_attribute_macros(data: bytes) -> bytes:
    """``data`` with each attribute-like macro (and a macro call's arguments) replaced by
    spaces; newlines are kept."""
    spans: list[tuple[int, int]] = []
    for match in _CANDIDATES.finditer(data):
        group = match.lastgroup
        if group in (
            "marker",
            "condition",
            "initializer",
            "alone",
            "qualifier",
            "label",
            "between",
        ):
            spans.append(match.span(group))
        elif group == "leading":
            end = _after_arguments(data, match.end())
            # Arguments holding a call (``UNITTEST_BEGIN(setup(&easy))``) are code.
            if (
                end > 0
                and b"(" not in data[match.end() : end]
                and _DECLARATION_START.match(data, end)
            ):
                spans.append((match.start("leading"), end))
        elif group in ("visibility", "visibility_call"):
            start, end = match.span("visibility")
            if match.group("visibility_call"):
                end = _after_arguments(data, match.end())
            if end > 0 and _CLASS_HEAD.match(data, end):
                spans.append((start, end))
        elif group in ("trailer", "trailer_call"):
            start, end = match.span("trailer")
            if match.group("trailer_call"):
                end = _after_arguments(data, match.end())
                ends = _DECLARATION_END
            else:
                ends = _BODY_START
            if end > 0 and ends.match(data, end) and _closes_parameters(data, match.start()):
                spans.append((start, end))
        elif group == "annotation":
            end = _after_arguments(data, data.index(b"(", match.end()) + 1)
            if end > 0 and _MEMBER_END.match(data, end):
                spans.append((match.start("annotation"), end))
        elif group == "constraint":
            end = _after_arguments(data, match.end())
            if end > 0 and _TEMPLATE_END.match(data, end):
                spans.append((match.start(), end))
    return _blank(data, spans)


def _other_branches(data: bytes) -> list[tuple[int, int]]:
    """The spans of every conditional directive line and of every branch after a
    conditional's first (after its ``#else`` or first ``#elif``); ``#if 0`` keeps its
    ``#else`` instead. One branch is code a compiler has read, braces balanced, where
    every branch at once may open two blocks and close one."""
    spans: list[tuple[int, int]] = []
    taken: list[bool] = []  # per open conditional: whether a branch was already kept
    skipped_from: tuple[int, int] | None = None  # (offset, depth) of the outermost skip
    for match in _CONDITIONAL_DIRECTIVE.finditer(data):
        spans.append(match.span())
        kind = match.group("kind")
        if kind.startswith(b"if"):
            never = kind == b"if" and _NEVER.fullmatch(match.group("condition")) is not None
            taken.append(not never)
            if never and skipped_from is None:
                skipped_from = (match.end(), len(taken))
        elif not taken:
            continue  # an #else or #endif without its #if: the file is cut oddly
        elif kind == b"endif":
            taken.pop()
            if skipped_from is not None and skipped_from[1] > len(taken):
                spans.append((skipped_from[0], match.start()))
                skipped_from = None
        elif taken[-1]:
            if skipped_from is None:
                skipped_from = (match.end(), len(taken))
        else:  # the branch after an #if 0
            taken[-1] = True
            if skipped_from is not None and skipped_from[1] == len(taken):
                spans.append((skipped_from[0], match.start()))
                skipped_from = None
    if skipped_from is not None:
        spans.append((skipped_from[0], len(data)))
    return spans


def _blank(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``data`` with every byte of ``spans`` but newlines replaced by a space."""
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = re.sub(rb"[^\n]", b" ", data[start:end])
    return bytes(out)


def _after_arguments(data: bytes, start: int) -> int:
    """The offset after the ``)`` closing an argument list opened just before ``start``;
    -1 when a ``;``, brace or the end of the text comes first."""
    depth = 1
    for offset in range(start, min(len(data), start + 4096)):
        byte = data[offset]
        if byte == 0x28:  # (
            depth += 1
        elif byte == 0x29:  # )
            depth -= 1
            if depth == 0:
                return offset + 1
        elif byte in b";{}":
            return -1
    return -1


def _closes_parameters(data: bytes, close: int) -> bool:
    """Whether the ``)`` at ``close`` ends a parameter list: its ``(`` follows a name that
    is neither a statement keyword (``if (ok) CHECK(x);``) nor a macro (``STEP(a)
    STEP(b)``, statements without semicolons)."""
    depth = 0
    for offset in range(close, max(-1, close - 4096), -1):
        byte = data[offset]
        if byte == 0x29:  # )
            depth += 1
        elif byte == 0x28:  # (
            depth -= 1
            if depth == 0:
                before = _NAME_BEFORE.search(data, max(0, offset - 64), offset)
                return (
                    before is not None
                    and before.group(1) not in _STATEMENT_KEYWORDS
                    and not _MACRO_NAME.fullmatch(before.group(1))
                )
        elif byte in b";{}":
            return False
    return False


def error_count(root: treesitter.Node) -> int:
    """ERROR and MISSING nodes in the tree; 0 at once for a tree without errors."""
    count = 0
    stack = [root] if root.has_error else []
    while stack:
        node = stack.pop()
        if node.is_missing:
            count += 1
        elif node.is_error:
            count += 1
            stack.extend(node.children)
        elif node.has_error:
            stack.extend(node.children)
    return count
