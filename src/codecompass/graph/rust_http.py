"""Rust HTTP routes and client calls, read from a file's text (`code_urls.CodeText`).

| written                                                        | fact                    |
| -------------------------------------------------------------- | ----------------------- |
| `#[get("/users/{id}")]` on `async fn show_user` (actix-web,    | route `GET /users/{}`   |
| rocket: `<id>`), `#[route("/x", method = "GET")]`              | → `show_user`           |
| `.route("/orders/:id", get(show).delete(remove))` (axum;       | route `GET /orders/{}`  |
| `axum::routing::get`), `web::resource("/x").route(web::get()   | → `show`, …             |
| .to(handler))` (actix)                                         |                         |
| `client.get(url)`, `reqwest::get(url)`, `.post(…)` (reqwest;   | a client call           |
| on a receiver named as a client), the URL a literal or         |                         |
| `format!("{}/users/{}", base, id)`                             |                         |

A handler is the function of that name in the file, else the repository's one. What a
router is nested under (axum's `.nest("/api", …)`, actix's `web::scope("/api")`) is not
read: such routes are matched as if at the root.
"""

from __future__ import annotations

import re

from codecompass.graph.code_urls import CodeText, Dialect
from codecompass.graph.http import join_paths, named_as, route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import Syntax, matching
from codecompass.models import HttpFact

_RUST = Dialect(
    Syntax(line_comments=("//",), block_comments=(("/*", "*/"),), quotes=('"',)),
    re.compile(r"\b(?:const|static)\s+([A-Z_][A-Z0-9_]*)\s*:\s*&str\s*=\s*\"([^\"\n]*)\""),
    r"\blet\s+(?:mut\s+)?{name}\s*(?::\s*[^=]+)?=(?!=)",
    lines_end=False,
)
_ATTRIBUTE = re.compile(r"#\[\s*(get|post|put|delete|patch|head|options|route)\s*\(")
_FN = re.compile(r"\bfn\s+([A-Za-z_]\w*)")
_ROUTE_CALL = re.compile(r"\.\s*route\s*\(")
_RESOURCE = re.compile(r"\bweb\s*::\s*resource\s*\(")
_METHOD_ROUTER = re.compile(
    r"\b(get|post|put|delete|patch|head|options|any)\s*\(\s*([A-Za-z_][\w:]*)\s*\)"
)
# actix's `web::get().to(h)` (or `get().to_async(h)`)
_ACTIX_TO = re.compile(
    r"\b(get|post|put|delete|patch|head)\s*\(\s*\)\s*\.\s*to(?:_async)?\s*\(\s*([A-Za-z_][\w:]*)"
)
_SCOPE = re.compile(r"\bweb\s*::\s*scope\s*\(|\.\s*nest\s*\(")
_LINK = re.compile(r"\s*\.\s*(\w+)\s*(?:::<[^<>]*>)?\s*\(")
_HANDLER = re.compile(r"[A-Za-z_][\w:]*")
_CLIENT = re.compile(
    r"\b([A-Za-z_][\w.:]*(?:\(\s*\))?)\s*(?:\.|::)\s*(get|post|put|delete|patch|head)\s*\("
)
_ROUTE_METHOD = re.compile(r"\bmethod\s*=\s*\"([A-Za-z]+)\"")
_ROCKET_PARAM = re.compile(r"<[^<>]+>")


def _modules_shared(path: str, modules: list[str]) -> int:
    """How many of `modules` (last first) a Rust file's module path ends with:
    `src/app/features/comment/controllers.rs` and `comment::controllers` → 2."""
    parts = path.removesuffix(".rs").removesuffix("/mod").split("/")
    shared = 0
    for written, part in zip(reversed(modules), reversed(parts), strict=False):
        if written != part:
            break
        shared += 1
    return shared


def rust_http_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The routes and client calls of one Rust file (see the module docstring)."""
    if ctx.language != "rust":
        return []
    text = resolver.file_text(ctx)
    if "route" not in text and "#[" not in text and "reqwest" not in text and "get(" not in text:
        return []
    source = _RustSource(ctx, text, _RUST)
    return [*source.attributes(resolver), *source.routers(resolver), *source.client_calls()]


class _RustSource(CodeText):
    """One Rust file's text (see `CodeText`)."""

    def attributes(self, resolver: Resolver) -> list[HttpFact]:
        """`#[get("/users/{id}")] async fn show_user(…)`: a route of the function."""
        found: list[HttpFact] = []
        for m in _ATTRIBUTE.finditer(self.masked):
            arguments = self.arguments(m.end() - 1)
            handler = _FN.search(self.masked, m.end())
            if not arguments or handler is None:
                continue
            path = self.expression(*arguments[0])
            if path is None or not path.startswith("/"):
                continue
            verb = m.group(1).upper()
            if verb == "ROUTE":
                stated = _ROUTE_METHOD.findall(self.text, arguments[0][1], arguments[-1][1])
                methods = [v.upper() for v in stated] or ["*"]
            else:
                methods = [verb]
            line = self.lines.line(m.start())
            node = self._handler(resolver, handler.group(1), line)
            pattern = route_path(_ROCKET_PARAM.sub("{}", path))
            found += [HttpFact("route", v, pattern, line, node) for v in methods]
        return found

    def routers(self, resolver: Resolver) -> list[HttpFact]:
        """axum's `.route("/x", get(a).post(b))`; actix's `.route("/x", web::get()
        .to(a))` and `web::resource("/x").route(web::get().to(a))` (or `.to(a)`: any
        method), under the `web::scope("/api")` or axum `.nest("/api", …)` chains that
        hold them."""
        scopes = self._scopes()
        found: list[HttpFact] = []
        for m in _ROUTE_CALL.finditer(self.masked):
            arguments = self.arguments(m.end() - 1)
            if len(arguments) < 2:
                continue
            path = self._path(arguments[0])
            if path is None:
                continue
            line = self.lines.line(m.start())
            written = self.masked[arguments[1][0] : arguments[-1][1]]
            handlers = [*_ACTIX_TO.findall(written), *_METHOD_ROUTER.findall(written)]
            found += self._routes(resolver, handlers, path, scopes, m.start(), line)
        for m in _RESOURCE.finditer(self.masked):
            arguments = self.arguments(m.end() - 1)
            path = self._path(arguments[0]) if arguments else None
            if path is None:
                continue
            routed: list[tuple[str, str]] = []
            for name, span in self._chain(matching(self.masked, m.end() - 1, "(", ")") + 1):
                text = self.masked[span[0] : span[1]]
                if name == "route":
                    routed += _ACTIX_TO.findall(text)
                elif name in ("to", "to_async") and _HANDLER.fullmatch(text.strip()):
                    routed.append(("any", text.strip()))
            line = self.lines.line(m.start())
            found += self._routes(resolver, routed, path, scopes, m.start(), line)
        return found

    def _routes(
        self,
        resolver: Resolver,
        routed: list[tuple[str, str]],
        path: str,
        scopes: list[tuple[int, int, str]],
        at: int,
        line: int,
    ) -> list[HttpFact]:
        """A route for each (method, handler) of `path`, below the scopes around `at`."""
        prefix = join_paths(*(p for start, end, p in scopes if start < at < end))
        pattern = route_path(join_paths(prefix, path))
        out: list[HttpFact] = []
        for verb, handler in routed:
            method = "*" if verb == "any" else verb.upper()
            out.append(
                HttpFact("route", method, pattern, line, self._handler(resolver, handler, line))
            )
        return out

    def _path(self, span: tuple[int, int]) -> str | None:
        """A route's path: an expression read, or `""` (the scope's own)."""
        if self.text[span[0] : span[1]].strip() == '""':
            return ""
        return self.expression(*span)

    def _scopes(self) -> list[tuple[int, int, str]]:
        """(start, end, path) of each actix `web::scope("/api")` chain and each axum
        `.nest("/api", …)` router written inline."""
        out: list[tuple[int, int, str]] = []
        for m in _SCOPE.finditer(self.masked):
            arguments = self.arguments(m.end() - 1)
            path = self.expression(*arguments[0]) if arguments else None
            if path is None:
                continue
            if m.group(0).lstrip(".").lstrip().startswith("nest"):
                if len(arguments) >= 2:
                    out.append((arguments[1][0], arguments[1][1], path))
                continue
            close = matching(self.masked, m.end() - 1, "(", ")")
            spans = [span for _, span in self._chain(close + 1)]
            out.append((m.start(), spans[-1][1] if spans else close, path))
        return out

    def _chain(self, at: int) -> list[tuple[str, tuple[int, int]]]:
        """The method calls chained from offset `at` (`.service(…).route(…)`): each name
        and the span of its arguments."""
        out: list[tuple[str, tuple[int, int]]] = []
        while True:
            link = _LINK.match(self.masked, at)
            if link is None:
                return out
            close = matching(self.masked, link.end() - 1, "(", ")")
            if close < 0:
                return out
            out.append((link.group(1), (link.end(), close)))
            at = close + 1

    def _handler(self, resolver: Resolver, written: str, line: int) -> str:
        """The function a handler names: the file's, else the repository's of that name
        whose module path ends as written (`comment::controllers::index`)."""
        *modules, name = written.split("::")
        own = [s for s in self.ctx.symbols if s.name == name and s.kind in ("function", "method")]
        if own and not modules:
            return own[0].id
        found = [
            s
            for s in resolver.index.by_name(name, self.ctx.repo)
            if s.kind in ("function", "method") and s.path.endswith(".rs")
        ]
        if len(found) > 1 and modules:
            ranked = sorted(found, key=lambda s: -_modules_shared(s.path, modules))
            best = _modules_shared(ranked[0].path, modules)
            found = [s for s in ranked if _modules_shared(s.path, modules) == best]
        return found[0].id if len(found) == 1 else self.ctx.source_id(line)

    def client_calls(self) -> list[HttpFact]:
        """reqwest's `client.get(url)`, `reqwest::Client::new().post(url)`,
        `reqwest::get(url)`."""
        found: list[HttpFact] = []
        for m in _CLIENT.finditer(self.masked):
            receiver = m.group(1).replace("()", "")
            if not receiver.startswith("reqwest") and not named_as(
                receiver.replace("::", "."), _WORDS
            ):
                continue
            if len(self.arguments(m.end() - 1)) == 1:
                found += self.call(m.group(2).upper(), m.end() - 1, m.start())
        return found


_WORDS = frozenset({"client", "http", "reqwest"})
