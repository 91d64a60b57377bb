"""Extract a file's facts: the language extractor, plus mentions in docs and Markdown.

Python and JavaScript/TypeScript get scope-aware extractors; the other tree-sitter
languages reuse the references ``parse.py`` reports (calls, imports, inheritance), which
resolve by name. Doc comments and Markdown/reST text add ``doc`` mentions (backticks)
and ``link`` references (``@see``, ``{@link}``, Sphinx roles); Markdown links to files of
the repository become ``file`` references.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from codecompass.graph.extract_ecma import EcmaExtractor
from codecompass.graph.extract_python import PythonExtractor
from codecompass.graph.facts import FileFacts, Ref, Scope
from codecompass.indexing import treesitter
from codecompass.indexing.languages import TREE_SITTER_LANGUAGES
from codecompass.indexing.parse import parse

ECMA_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
MARKUP_LANGUAGES = frozenset({"markdown", "rst"})
_PARSE_SECONDS = 2.0

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|obj|exc|data|const|ref):`~?([^`<>]+?)`")
_JSDOC_LINK = re.compile(r"\{@link(?:plain|code)?\s+([A-Za-z_$][\w$.#]*)")
_SEE = re.compile(r"@see\s+([A-Za-z_$][\w$.#]*)")
_BACKTICK = re.compile(
    r"(?<![`\w])``?([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\(\))?``?(?![`\w])"
)
_MD_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
# Words that show up in backticks but are never worth a link.
_NOT_NAMES = frozenset(
    {
        "None",
        "True",
        "False",
        "null",
        "undefined",
        "true",
        "false",
        "self",
        "this",
        "cls",
        "int",
        "str",
        "bool",
        "float",
        "dict",
        "list",
        "tuple",
        "set",
        "bytes",
        "object",
        "string",
        "number",
        "void",
        "any",
    }
)


@dataclass(frozen=True, slots=True)
class DocSymbol:
    """The little of a symbol that doc extraction needs."""

    start_line: int
    doc: str


def extract_facts(
    path: str, language: str, text: str, symbols: Sequence[DocSymbol] = ()
) -> FileFacts:
    """The facts of one file version; a file that fails to parse yields only doc facts."""
    facts = FileFacts(language)
    try:
        if language == "python":
            facts = PythonExtractor(text.encode("utf-8", "surrogatepass")).run(
                _tree(language, text)
            )
        elif language in ECMA_LANGUAGES:
            data = text.encode("utf-8", "surrogatepass")
            facts = EcmaExtractor(data, language).run(_tree(language, text))
        elif language in TREE_SITTER_LANGUAGES:
            facts = _generic_facts(language, text)
    except (treesitter.ParseTimeout, RecursionError, ValueError):
        facts = FileFacts(language)
    if not facts.scopes:
        facts = _with_module_scope(facts)
    if language in MARKUP_LANGUAGES:
        facts.refs.extend(markup_refs(path, text))
    else:
        for symbol in symbols:
            facts.refs.extend(doc_refs(symbol.doc, symbol.start_line))
    return facts


def _tree(language: str, text: str) -> treesitter.Node:
    data = text.encode("utf-8", "surrogatepass")
    return treesitter.parse_tree(language, data, _PARSE_SECONDS + len(data) / 500_000)


def _with_module_scope(facts: FileFacts) -> FileFacts:
    facts.scopes.append(Scope("", "module", -1, 0))
    return facts


def _generic_facts(language: str, text: str) -> FileFacts:
    """Other languages: the parser's references, resolved later by name."""
    parsed = parse(text, language)
    facts = _with_module_scope(FileFacts(language))
    for ref in parsed.references:
        facts.refs.append(Ref(ref.kind, ref.name, ref.line, 0))
    return facts


def doc_refs(doc: str, line: int) -> list[Ref]:
    """Mentions in a doc comment, all reported at the symbol's first line."""
    if not doc:
        return []
    refs: list[Ref] = []
    seen: set[tuple[str, str]] = set()
    for kind, name in _mentions(doc):
        if (kind, name) not in seen:
            seen.add((kind, name))
            refs.append(Ref(kind, name, line, 0))
    return refs


def _mentions(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for pattern in (_ROLE, _JSDOC_LINK, _SEE):
        for m in pattern.finditer(text):
            name = m.group(1).strip().replace("#", ".").rstrip("()")
            if name:
                found.append(("link", name))
    stripped = _ROLE.sub("", text)
    for m in _BACKTICK.finditer(stripped):
        name = m.group(1).replace("::", ".").replace("#", ".")
        if len(name) >= 3 and name not in _NOT_NAMES:
            found.append(("doc", name))
    return found


def markup_refs(path: str, text: str) -> list[Ref]:
    """Mentions and links in a Markdown / reST file, line by line, outside code fences."""
    refs: list[Ref] = []
    folder = posixpath.dirname(path)
    fenced = False
    for number, line in enumerate(text.split("\n"), start=1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for kind, name in _mentions(line):
            refs.append(Ref(kind, name, number, 0))
        for m in _MD_LINK.finditer(line):
            target = _link_target(folder, m.group(1))
            if target is not None:
                refs.append(Ref("file", target, number, 0))
    return refs


def _link_target(folder: str, href: str) -> str | None:
    """A repo-relative path (with an optional `#L10` anchor) for a relative link."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.IGNORECASE) or href.startswith(("#", "/")):
        return None
    target, _, anchor = href.partition("#")
    target = target.split("?", 1)[0]
    if not target:
        return None
    joined = posixpath.normpath(posixpath.join(folder, target))
    if joined.startswith(".."):
        return None
    line = re.match(r"L(\d+)", anchor)
    return f"{joined}#L{line.group(1)}" if line else joined
