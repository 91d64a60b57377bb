"""Angular templates: the methods of its component a template calls.

A component names its template beside it (`templateUrl: './movie-details.component.html'`
in `movie-details.component.ts`); the template calls the component's methods from its
event bindings (`(click)="request()"`), property bindings (`[disabled]="isValid()"`),
structural directives (`*ngIf="canEdit(user)"`) and interpolations (`{{ title() }}`).
Each such call is a `calls` edge from the template file to the method (via
`template-call`, which search's expansion does not follow), evidenced at the template's
line; the component's file is a dependency of the template's.
"""

from __future__ import annotations

import posixpath
import re

from codecompass.graph.resolve import CONF_SCOPE, Ctx, FileResolution, Resolver
from codecompass.indexing.facts import Ref
from codecompass.indexing.sfc import blank_comments, called_names
from codecompass.indexing.textscan import LineIndex
from codecompass.models import HttpFact

_TEMPLATE_URL = re.compile(r"""\btemplateUrl\s*:\s*['"`]([^'"`]+)['"`]""")
# `(click)="…"`, `[disabled]="…"`, `[(ngModel)]="…"`, `*ngIf="…"`, `{{ … }}`
_BOUND = re.compile(
    r"""\s(?:\([\w.:-]+\)|\[\(?[\w.:-]+\)?\]|\*ng\w+)\s*=\s*"([^"]*)"|\{\{(.*?)\}\}""", re.S
)


def angular_template_calls(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """Add the template's calls of its component's methods to `out` (no HTTP facts)."""
    if ctx.language != "html":
        return []
    component = resolver.ctx(ctx.repo, ctx.path.rsplit(".", 1)[0] + ".ts")
    if component is None:
        return []
    code = resolver.file_text(component)
    named = _TEMPLATE_URL.search(code)
    if named is None or posixpath.basename(named[1]) != posixpath.basename(ctx.path):
        return []
    line = code.count("\n", 0, named.start()) + 1
    classes = sorted(
        (s for s in component.symbols if s.kind == "class" and s.end_line >= line),
        key=lambda s: s.start_line,
    )
    if not classes:
        return []
    owner = classes[0].qualified_name
    methods = {
        s.name: s
        for s in component.symbols
        if s.parent == owner and s.kind in ("method", "function")
    }
    text = blank_comments(resolver.file_text(ctx))
    lines = LineIndex(text)
    seen: set[tuple[str, int]] = set()
    for bound in _BOUND.finditer(text):
        group = 1 if bound[1] is not None else 2
        for call in called_names(bound[group]):
            method = methods.get(call[1])
            at = lines.line(bound.start(group) + call.start())
            if method is None or (method.id, at) in seen:
                continue
            seen.add((method.id, at))
            ref = Ref("call", call[1], at, 0)
            out.edges.append(
                resolver._to_sym(ctx.file_id, method, "calls", CONF_SCOPE, ref, "template-call")
            )
    return []
