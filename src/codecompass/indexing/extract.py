"""Extract a file's facts: the language extractor, plus mentions in docs and Markdown.

Facts come from the tree ``parse.py`` built (one parse per file). Python and
JavaScript/TypeScript get scope-aware extractors; the other tree-sitter languages reuse
the references the parser reports (calls, imports, inheritance), which resolve by name.
Doc comments and Markdown/reST text add ``doc`` mentions (backticks) and ``link``
references (``@see``, ``{@link}``, Sphinx roles); Markdown links to files of the
repository become ``file`` references. The operations of an OpenAPI document (YAML or
JSON) and the rpcs of a ``.proto`` file are the file's endpoints.
"""

from __future__ import annotations

import posixpath
import re

from codecompass.decoding import is_notebook_path
from codecompass.indexing import treesitter
from codecompass.indexing.extract_csharp import CSharpExtractor
from codecompass.indexing.extract_ecma import EcmaExtractor
from codecompass.indexing.extract_go import GoExtractor
from codecompass.indexing.extract_java import JavaExtractor
from codecompass.indexing.extract_python import PythonExtractor
from codecompass.indexing.extract_rust import RustExtractor
from codecompass.indexing.extract_typed import TypedExtractor
from codecompass.indexing.facts import FileFacts, Ref, Scope
from codecompass.indexing.idl import protobuf_endpoints
from codecompass.indexing.languages import TREE_SITTER_LANGUAGES, language_for_path
from codecompass.indexing.openapi import operation_endpoints, read_document
from codecompass.indexing.parse import parse
from codecompass.indexing.sfc import (
    component_name,
    component_tags,
    options_methods,
    script_code,
    template_calls,
)
from codecompass.models import ParsedFile, Symbol

ECMA_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
# Go, Java, C# and Rust: packages, imports and declared types (extract_typed.py).
TYPED_EXTRACTORS: dict[str, type[TypedExtractor]] = {
    "go": GoExtractor,
    "java": JavaExtractor,
    "csharp": CSharpExtractor,
    "rust": RustExtractor,
}
MARKUP_LANGUAGES = frozenset({"markdown", "rst"})
# Languages with a scope-aware extractor; the others resolve the parser's references by name.
DEEP_LANGUAGES = frozenset({"python"}) | ECMA_LANGUAGES

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


# Formats without calls: documents, data, styles and schemas.
_CALLLESS_LANGUAGES = frozenset(
    {"text", "markdown", "rst", "json", "yaml", "toml", "html", "css", "scss", "protobuf"}
    | {"graphql"}
)


def calls_unread(path: str) -> bool:
    """Whether the file at `path` is code whose calls are not read, so that the callees
    of its functions, and their callers in its own language, cannot be known. A Vue or
    Svelte component's script and a notebook's cells are read in their own language."""
    language = language_for_path(path)
    if language in _CALLLESS_LANGUAGES or language in ("vue", "svelte"):
        return False
    if is_notebook_path(path) or language in DEEP_LANGUAGES or language in TYPED_EXTRACTORS:
        return False
    return not (
        language in TREE_SITTER_LANGUAGES and treesitter.query_captures(language, "@reference.call")
    )


def extract_facts(path: str, text: str, parsed: ParsedFile) -> FileFacts:
    """The facts of one file version, read from the tree its parse left (`parsed.tree`);
    a file that failed to parse yields only doc facts."""
    language = parsed.language
    facts = FileFacts(language)
    tree = parsed.tree
    try:
        if language == "python" and tree is not None:
            facts = PythonExtractor(text.encode("utf-8", "surrogatepass")).run(tree)
        elif language in ECMA_LANGUAGES and tree is not None:
            data = text.encode("utf-8", "surrogatepass")
            facts = EcmaExtractor(data, language).run(tree)
        elif language in ("vue", "svelte"):
            facts = _component_facts(path, text)
        elif language in TYPED_EXTRACTORS and tree is not None:
            data = text.encode("utf-8", "surrogatepass")
            facts = TYPED_EXTRACTORS[language](data).run(tree)
        elif language in TREE_SITTER_LANGUAGES and language not in DEEP_LANGUAGES:
            facts = _with_module_scope(FileFacts(language))
            facts.refs.extend(Ref(r.kind, r.name, r.line, 0) for r in parsed.references)
    except (RecursionError, ValueError):
        facts = FileFacts(language)
    if not facts.scopes:
        facts = _with_module_scope(facts)
    if language == "protobuf":
        facts.endpoints = protobuf_endpoints(text, parsed.symbols)
    elif language in ("yaml", "json") and tree is not None:
        try:
            document = read_document(text.encode("utf-8", "surrogatepass"), tree)
        except RecursionError:
            document = None
        facts.endpoints = operation_endpoints(document) if document is not None else []
    if language in MARKUP_LANGUAGES:
        facts.refs.extend(markup_refs(path, text))
    else:
        for symbol in parsed.symbols:
            if symbol.doc:
                facts.refs.extend(doc_refs(symbol.doc, symbol.start_line))
    return facts


def _component_facts(path: str, text: str) -> FileFacts:
    """A Vue or Svelte component's facts: its scripts read as one JavaScript (or
    TypeScript) module, their definitions nested under the component as its symbols are.
    The facts are in the script's language, so the component resolves as a script does.
    Of the template, the components it uses and the functions it calls are read."""
    found = script_code(text)
    name = component_name(path)
    options: list[Symbol] = []
    if found is None:
        facts = _with_module_scope(FileFacts("javascript"))
    else:
        code, language = found
        parsed = parse(code, language)
        if parsed.tree is None:
            return FileFacts(language)
        data = code.encode("utf-8", "surrogatepass")
        facts = EcmaExtractor(data, language, module=name).run(parsed.tree)
        options = options_methods(parsed.tree, name)
    # An Options API component's methods, as its template sees them (`save` is
    # `Card.save`), in a scope of their own: the scripts' code does not see them so.
    members = len(facts.scopes)
    if options:
        facts.scopes.append(Scope(name, "function", 0, 1))
        for method in options:
            facts.scopes[members].bind(
                method.name, method.start_line, f"def:{method.qualified_name}"
            )
    # What importing the file gives is the component (`import Nav from './Nav.svelte'`).
    facts.exports.setdefault("default", f"def:{name}")
    # A component the template uses is called by this one, as JSX's `<Nav />` is.
    bound = facts.scopes[0].bindings
    for tag, line, kebab in component_tags(text):
        if not kebab or tag in bound:
            facts.refs.append(Ref("call", tag, line, 0))
    # The functions its template calls (`@click="save(item)"`), from the scope binding
    # them: a `<script setup>`'s top level, or `setup()`'s locals handed to the template.
    order = [members, *range(members)] if options else range(len(facts.scopes))
    for called, line in template_calls(text):
        head = called.split(".")[0]
        scope = next((i for i in order if head in facts.scopes[i].bindings), None)
        if scope is not None:
            facts.refs.append(Ref("template", called, line, scope))
    return facts


def _with_module_scope(facts: FileFacts) -> FileFacts:
    facts.scopes.append(Scope("", "module", -1, 0))
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
