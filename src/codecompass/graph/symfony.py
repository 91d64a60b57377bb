"""Symfony's routes, declared on controllers: PHP 8 attributes (`#[Route('/blog/{slug}',
name: 'blog_post', methods: ['GET'])]`) or, in older code, docblock annotations
(`@Route("/{slug}/comment", methods={"POST"})`). A class's own route prefixes its
methods'; a route without `methods` answers any method.
"""

from __future__ import annotations

import re

from codecompass.graph.http import join_paths, route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import LineIndex
from codecompass.models import HttpFact, SymbolRecord

# `#[Route(` or `@Route(`, then its path: the first string, or `path:` / `path=`
_ROUTE = re.compile(r"(?:#\[\s*|@)Route\s*\(")
_PATH = re.compile(r"""^\s*(?:path\s*[:=]\s*)?(['"])(.*?)\1""")
_METHODS = re.compile(r"""\bmethods\s*[:=]\s*[\[{]?([^\]})]*)""")
_QUOTED = re.compile(r"""(['"])([A-Za-z]+)\1""")


def symfony_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The routes a PHP controller's attributes or annotations declare."""
    if ctx.language != "php":
        return []
    text = resolver.file_text(ctx)
    if "Route" not in text:
        return []
    lines = LineIndex(text)
    found: list[HttpFact] = []
    for cls in (s for s in ctx.symbols if s.kind == "class"):
        prefixes = [p for _, p, _ in _routes(text, lines, cls)] or [""]
        for method in (s for s in ctx.symbols if s.parent == cls.qualified_name):
            for line, path, verbs in _routes(text, lines, method):
                for prefix in prefixes:
                    pattern = route_path(join_paths(prefix, path) or "/")
                    found += [HttpFact("route", v, pattern, line, method.id) for v in verbs]
    return found


def _routes(text: str, lines: LineIndex, symbol: SymbolRecord) -> list[tuple[int, str, list[str]]]:
    """(line, path, methods) of each route in a declaration's head: from its first line
    (its docblock and attributes) to its name."""
    start = lines.starts[symbol.start_line - 1]
    declared = re.compile(rf"\b(?:class|function)\s+{re.escape(symbol.name)}\b")
    name = declared.search(text, start)
    head = text[start : name.start() if name else start]
    out: list[tuple[int, str, list[str]]] = []
    for m in _ROUTE.finditer(head):
        rest = head[m.end() :]
        path = _PATH.match(rest)
        if path is None:
            continue
        close = rest.find(")]") if m.group(0).startswith("#") else rest.find(")")
        arguments = rest[: close if close >= 0 else len(rest)]
        listed = _METHODS.search(arguments)
        verbs = [v.upper() for _, v in _QUOTED.findall(listed.group(1))] if listed else []
        out.append((lines.line(start + m.start()), path.group(2), verbs or ["*"]))
    return out
