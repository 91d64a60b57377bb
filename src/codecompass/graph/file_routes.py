"""Routes a file's path declares: the frameworks that route by the file system.

| framework            | file                              | handler                        |
| -------------------- | --------------------------------- | ------------------------------ |
| Next.js App Router   | `app/api/posts/[id]/route.ts`     | exported `GET`, `POST`, …      |
| Next.js Pages Router | `pages/api/posts/[id].ts`         | the default export, any method |
| SvelteKit            | `src/routes/api/items/+server.ts` | exported `GET`, `POST`, …      |
| Nuxt (Nitro)         | `server/api/users/[id].get.ts`    | the default export; the method |
|                      |                                   | its name ends with, else any   |

A folder in brackets is a parameter (`[id]`, `[...slug]`, `[[...slug]]`: one `{}`), one
in parentheses a route group the URL leaves out (`(marketing)`), as is a Next.js
parallel route's `@slot`; `index` is its folder. The handler is the function so named, or
the one an export clause names so (`export { handler as GET, handler as POST }`). The
facts are `route` facts with no router: `http.py` links client calls to them as to any.
"""

from __future__ import annotations

import re

from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.extract import ECMA_LANGUAGES
from codecompass.models import HttpFact, SymbolRecord

VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_SCRIPT = re.compile(r"\.(?:[cm]?[jt]s|[jt]sx)$")
_NUXT_METHOD = re.compile(r"\.(get|post|put|patch|delete|head|options)$")
_NUXT_CONFIGS = frozenset({"nuxt.config.ts", "nuxt.config.js", "nuxt.config.mjs"})


def file_route_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The routes this script's path and exports declare (see the module docstring)."""
    if ctx.language not in ECMA_LANGUAGES or not _SCRIPT.search(ctx.path):
        return []
    parts = ctx.path.split("/")
    stem = _SCRIPT.sub("", parts[-1])
    folders = parts[:-1]
    if stem == "route" and "app" in folders:  # Next.js App Router
        return _verb_routes(ctx, folders[folders.index("app") + 1 :])
    if stem == "+server" and "routes" in folders:  # SvelteKit
        return _verb_routes(ctx, folders[folders.index("routes") + 1 :])
    if "pages" in folders:  # Next.js Pages Router: pages/api/… only
        below = folders[folders.index("pages") + 1 :]
        if below[:1] == ["api"]:
            return _default_route(ctx, "*", [*below, stem])
        return []
    if "server" in folders and _nuxt(resolver, ctx.repo):
        # Nuxt: server/api/… keeps /api, server/routes/… does not
        below = folders[folders.index("server") + 1 :]
        found = _NUXT_METHOD.search(stem)
        method = found.group(1).upper() if found else "*"
        name = _NUXT_METHOD.sub("", stem)
        if below[:1] == ["api"]:
            return _default_route(ctx, method, [*below, name])
        if below[:1] == ["routes"]:
            return _default_route(ctx, method, [*below[1:], name])
    return []


def _nuxt(resolver: Resolver, repo: str) -> bool:
    """Whether the repository is a Nuxt application (a `server/` folder is any server's
    elsewhere: an Express app's `server/routes/users.js`)."""
    return not _NUXT_CONFIGS.isdisjoint(resolver.index.file_names(repo))


def route_template(segments: list[str]) -> str:
    """`["api", "(admin)", "posts", "[id]"]` → `/api/posts/{}`."""
    kept: list[str] = []
    for segment in segments:
        if not segment or segment.startswith(("(", "@")):
            continue  # a route group, a parallel route's slot
        kept.append("{}" if segment.startswith("[") and segment.endswith("]") else segment)
    if kept and kept[-1] == "index":
        kept.pop()
    return "/" + "/".join(kept)


def _verb_routes(ctx: Ctx, segments: list[str]) -> list[HttpFact]:
    pattern = route_template(segments)
    out: list[HttpFact] = []
    for verb in VERBS:
        handler = _handler(ctx, verb)
        if handler is not None:
            out.append(HttpFact("route", verb, pattern, handler.start_line, handler.id))
    return out


def _default_route(ctx: Ctx, method: str, segments: list[str]) -> list[HttpFact]:
    exported = ctx.facts.exports.get("default", "")
    if not exported:
        return []
    named = exported.partition(":")[2] if exported.startswith(("def:", "expr:")) else ""
    handler = _named(ctx, named)
    pattern = route_template(segments)
    if handler is not None:
        return [HttpFact("route", method, pattern, handler.start_line, handler.id)]
    return [HttpFact("route", method, pattern, 1, ctx.file_id)]  # an anonymous handler


def _handler(ctx: Ctx, verb: str) -> SymbolRecord | None:
    """The top-level function exported as `verb`: so named, or named by an export
    clause (`export { handler as GET }`)."""
    exported = ctx.facts.exports.get(verb, "")
    if exported.startswith("expr:"):
        return _named(ctx, exported.removeprefix("expr:"))
    return _named(ctx, verb)


def _named(ctx: Ctx, name: str) -> SymbolRecord | None:
    found = ctx.top.get(name, [])
    return found[0] if found else None
