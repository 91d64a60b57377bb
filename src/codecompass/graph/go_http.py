"""Go HTTP routes and client calls, read from a file's text (`code_urls.CodeText`).

| written                                                        | fact                    |
| -------------------------------------------------------------- | ----------------------- |
| `mux.HandleFunc("GET /items/{id}", getItem)` (net/http, Go 1.22 | route `GET /items/{}`   |
| patterns; without a method: any), `http.HandleFunc(…)`         | → `getItem`             |
| `r.HandleFunc("/cart", h.viewCart).Methods(http.MethodGet)`    | route `GET /cart`       |
| (gorilla/mux); `api := r.PathPrefix("/api").Subrouter()`       | a prefix for `api`      |
| `r.Get("/", h.List)` (chi, fiber), `r.GET("/users/:id", show)` | route                   |
| (gin, echo); `v1 := r.Group("/v1")`                            | a prefix for `v1`       |
| `r.Route("/orders", func(r chi.Router) { … })` (chi)           | a prefix inside         |
| `http.Get(url)`, `http.Post(url, …)`,                          | a client call           |
| `http.NewRequest(http.MethodPost, url, body)`, `client.Get(url)` |                       |
| on a receiver named as a client                                |                         |

A handler named by a function or method (`h.List`, `svc.viewCartHandler`) is the one of
that name in the file's package (folder) when there is one; an inline `func(…)` handles
its route in the function registering it. A path or prefix not read (`baseUrl +
"/cart"`) leaves the route under an unknown prefix (matched on what follows).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from codecompass.graph.code_urls import CodeText, Dialect
from codecompass.graph.http import PACKAGE, UNKNOWN, join_paths, named_as, route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import Syntax, matching
from codecompass.models import HttpFact

_GO = Dialect(
    Syntax(line_comments=("//",), block_comments=(("/*", "*/"),), quotes=("`", '"', "'")),
    re.compile(r"\b([A-Za-z_]\w*)\s*(?:string\s*)?=\s*\"([^\"\n]*)\""),
    r"\b{name}\s*:?=(?!=)",
    lines_end=True,
    quotes='"`',
)
_ROUTE = re.compile(
    r"\b([A-Za-z_][\w.]*)\s*\.\s*(HandleFunc|Handle|Get|Post|Put|Delete|Patch|Head|Options|Any"
    r"|GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s*\("
)
_VERBS = frozenset({"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"})
_GROUP = re.compile(r"\b([A-Za-z_]\w*)\s*:?=\s*([A-Za-z_]\w*)\s*\.\s*(?:Group|PathPrefix)\s*\(")
_CHI_ROUTE = re.compile(r"\b([A-Za-z_]\w*)\s*\.\s*Route\s*\(")
_CLOSURE = re.compile(r"\s*func\s*\(\s*([A-Za-z_]\w*)")
_METHODS = re.compile(r"\s*\.\s*Methods\s*\(")
_METHOD_NAME = re.compile(r"\bhttp\s*\.\s*Method(\w+)|\"([A-Z]+)\"")
_CLIENT = re.compile(
    r"\b([A-Za-z_][\w.]*)\s*\.\s*(Get|Head|Post|Put|Patch|Delete|PostForm|NewRequest"
    r"|NewRequestWithContext)\s*\("
)
_CLIENT_WORDS = frozenset({"client", "request", "requester"})
_CONTEXT = re.compile(r"ctx|context\.\w+\(\)|\w+\.Context\(\)")
_HANDLER = re.compile(r"([A-Za-z_][\w.]*)\s*(?:\)\s*)*$")
_MAKER = re.compile(r"([A-Za-z_][\w.]*)\s*\(")  # `api.NewHandler(store, pool)`
# a router made in the file: `r := mux.NewRouter()`, `gin.Default()`, `http.NewServeMux()`
_MADE = r"\b{name}\s*:?=\s*&?[\w.]*\b(?:New\w*|Default)\s*\("
_MAX_DEPTH = 8
# the types of an application's own router, at the root of its paths
_ROOT_TYPES = frozenset({"ServeMux", "Engine", "Echo", "App"})


def go_http_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The routes and client calls of one Go file (see the module docstring)."""
    if ctx.language != "go":
        return []
    text = resolver.file_text(ctx)
    if not _ROUTE.search(text) and not _CLIENT.search(text):
        return []
    source = _GoSource(ctx, text, _GO)
    return [*source.routes(resolver), *source.client_calls()]


class _GoSource(CodeText):
    """One Go file's text (see `CodeText`)."""

    def routes(self, resolver: Resolver) -> list[HttpFact]:
        found: list[HttpFact] = []
        unknown_router = f"{self.ctx.file_id}#?prefix"
        for m in _ROUTE.finditer(self.masked):
            receiver, verb = m.group(1), m.group(2)
            if named_as(receiver, _CLIENT_WORDS) or (
                receiver in ("http", "httptest") and verb not in ("HandleFunc", "Handle")
            ):
                continue  # `http.Get(url)`, `client.Post(…)`: requests
            arguments = self.arguments(m.end() - 1)
            if len(arguments) < 2:
                continue  # `q.Get("id")`, `header.Get("X-Id")`
            path = self.expression(*arguments[0], before=m.start())
            if path is None or "/" not in path:
                continue
            methods, path = self._methods(verb, path.replace("{$}", ""), m.end() - 1)
            prefix = self._prefix(receiver, m.start(), 0)
            line = self.lines.line(m.start())
            node = self._handler(resolver, arguments[-1], line)
            known = prefix is not None and not path.startswith("{base}")
            if known:
                pattern, router = route_path(join_paths(prefix or "", path)), ""
            else:
                pattern, router = (
                    route_path(join_paths(path.removeprefix("{base}"))),
                    unknown_router,
                )
            found += [HttpFact("route", v, pattern, line, node, router=router) for v in methods]
        if any(f.router for f in found):
            found.append(HttpFact("router", "*", UNKNOWN, 1, unknown_router))
        return found

    def _methods(self, verb: str, path: str, open_at: int) -> tuple[list[str], str]:
        """The methods a route answers and its path: the verb's name, a Go 1.22 pattern's
        method (`GET /items/{id}`), gorilla's `.Methods(…)` after the call, else any."""
        if verb.upper() in _VERBS:
            return [verb.upper()], path
        head, space, rest = path.partition(" ")
        if space and head in _VERBS:
            return [head], rest
        close = matching(self.masked, open_at, "(", ")")
        after = _METHODS.match(self.masked, close + 1) if close > open_at else None
        if after is not None:
            args = self.args(after.end() - 1)
            if args is not None:
                named = [a or b for a, b in _METHOD_NAME.findall(self.text[args[0] : args[1]])]
                if named:
                    return list(dict.fromkeys(n.upper() for n in named)), path
        return ["*"], path

    def _prefix(self, receiver: str, at: int, depth: int) -> str | None:
        """The prefix routes registered on `receiver` at offset `at` get: a chi
        `Route` block's, a group's or subrouter's (and those above it); None when a
        part of it is not read."""
        if depth > _MAX_DEPTH:
            return None
        for m in _CHI_ROUTE.finditer(self.masked, 0, at):
            arguments = self.arguments(m.end() - 1)
            if len(arguments) < 2:
                continue
            closure = _CLOSURE.match(self.masked, arguments[1][0])
            body = self.masked.find("{", arguments[1][0], arguments[1][1])
            if closure is None or closure.group(1) != receiver or body < 0:
                continue
            if body < at < matching(self.masked, body, "{", "}"):
                return self._joined(m.group(1), m.start(), arguments[0], depth)
        assigned = [m for m in _GROUP.finditer(self.masked, 0, at) if m.group(1) == receiver]
        if not assigned:
            # made here (`r := mux.NewRouter()`), or net/http's own: the root; a router
            # passed in (`router *gin.RouterGroup`) may be below a prefix its caller gave
            made = re.search(_MADE.format(name=re.escape(receiver)), self.masked[:at])
            return "" if receiver == "http" or made or self._root_parameter(receiver, at) else None
        group = assigned[-1]
        arguments = self.arguments(group.end() - 1)
        if not arguments:
            return None
        return self._joined(group.group(2), group.start(), arguments[0], depth)

    def _root_parameter(self, receiver: str, at: int) -> bool:
        """Whether `receiver` is a parameter of an application's own router type
        (`mux *http.ServeMux`, `r *gin.Engine`, `e *echo.Echo`, `app *fiber.App`), not a
        group or router its caller may have put below a prefix."""
        function = self.ctx.innermost(self.lines.line(at), sections=False)
        start = self.lines.starts[function.start_line - 1] if function is not None else 0
        declared = re.search(rf"\b{re.escape(receiver)}\s+\*?([\w.]+)", self.masked[start:at])
        return declared is not None and declared.group(1).rpartition(".")[2] in _ROOT_TYPES

    def _joined(self, parent: str, at: int, path: tuple[int, int], depth: int) -> str | None:
        above = self._prefix(parent, at, depth + 1)
        own = self.expression(*path, before=at)
        if above is None or own is None or own.startswith("{base}"):
            return None
        return join_paths(above, own)

    def _handler(self, resolver: Resolver, span: tuple[int, int], line: int) -> str:
        """The function or method handling a route: named, in the file's package."""
        written = self.text[span[0] : span[1]].strip()
        made = _MAKER.match(written)
        if made is not None and not written.startswith("func"):
            named: re.Match[str] | None = made
        else:
            named = _HANDLER.search(written) if not written.startswith("func") else None
        if named is not None:
            name = named.group(1).rpartition(".")[2]
            folder = posixpath.dirname(self.ctx.path)
            found = [
                s
                for s in resolver.index.by_name(name, self.ctx.repo)
                if s.kind in ("function", "method") and posixpath.dirname(s.path) == folder
            ]
            if len(found) == 1:
                return found[0].id
        return self.ctx.source_id(line)

    def client_calls(self) -> list[HttpFact]:
        """`http.Get(url)`, `http.NewRequest(method, url, body)`, and the same on a
        receiver named as a client (`c.httpClient.Get(url)`). A test's request of a path
        alone (`httptest.NewRequest("GET", "/v1/version", nil)`) is served by its own
        package's routes, if any (miniflux's response tests build `GET /` requests for
        handlers of their own)."""
        found = self._client_calls()
        if not self.ctx.path.endswith("_test.go"):
            return found
        package = f"{PACKAGE}{self.ctx.repo}/{posixpath.dirname(self.ctx.path)}"
        return [replace(f, router=package) if not f.router else f for f in found]

    def _client_calls(self) -> list[HttpFact]:
        found: list[HttpFact] = []
        for m in _CLIENT.finditer(self.masked):
            receiver, verb = m.group(1), m.group(2)
            package = receiver in ("http", "httptest")
            if not package and not named_as(receiver, _CLIENT_WORDS):
                continue
            if receiver == "httptest" and verb != "NewRequest":
                continue
            if package and verb in ("Put", "Patch", "Delete"):
                continue  # net/http has no such function
            open_at = m.end() - 1
            if verb.startswith("NewRequest"):
                arguments = self.arguments(open_at)
                position = 1 if verb == "NewRequestWithContext" else 0
                if len(arguments) <= position + 1:
                    continue
                written = self.text[arguments[position][0] : arguments[position][1]]
                method = _METHOD_NAME.search(written)
                found += self.call(
                    (method.group(1) or method.group(2)).upper() if method else "*",
                    open_at,
                    m.start(),
                    position + 1,
                )
            else:
                # `c.request.Get(ctx, "/v1/version")`: after a context, the URL
                arguments = self.arguments(open_at)
                first = self.text[arguments[0][0] : arguments[0][1]].strip() if arguments else ""
                position = 1 if _CONTEXT.fullmatch(first) else 0
                stated = "POST" if verb == "PostForm" else verb.upper()
                found += self.call(stated, open_at, m.start(), position)
        return found
