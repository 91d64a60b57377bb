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
from codecompass.graph.http import call_fact, named_as, route_path
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
_ACTIX_TO = re.compile(
    r"\bweb\s*::\s*(get|post|put|delete|patch|head)\s*\(\s*\)\s*\.\s*to\s*\(\s*([A-Za-z_][\w:]*)"
)
_CLIENT = re.compile(r"\b([A-Za-z_][\w.:]*)\s*(?:\.|::)\s*(get|post|put|delete|patch|head)\s*\(")
_FORMAT = re.compile(r"\bformat!\s*\(")
_ROUTE_METHOD = re.compile(r"\bmethod\s*=\s*\"([A-Za-z]+)\"")
_ROCKET_PARAM = re.compile(r"<[^<>]+>")


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
        """axum's `.route("/x", get(a).post(b))`, actix's `web::resource("/x")
        .route(web::get().to(a))`."""
        found: list[HttpFact] = []
        for m in _ROUTE_CALL.finditer(self.masked):
            arguments = self.arguments(m.end() - 1)
            if len(arguments) < 2:
                continue
            path = self.expression(*arguments[0])
            if path is None or not path.startswith("/"):
                continue
            written = self.masked[arguments[1][0] : arguments[-1][1]]
            line = self.lines.line(m.start())
            for verb, handler in _METHOD_ROUTER.findall(written):
                method = "*" if verb == "any" else verb.upper()
                node = self._handler(resolver, handler.rpartition("::")[2], line)
                found.append(HttpFact("route", method, route_path(path), line, node))
        for m in _RESOURCE.finditer(self.masked):
            arguments = self.arguments(m.end() - 1)
            path = self.expression(*arguments[0]) if arguments else None
            close = matching(self.masked, m.end() - 1, "(", ")")
            if path is None or close < 0:
                continue
            stop = self.masked.find(";", close)
            statement = self.masked[close : stop if stop > 0 else len(self.masked)]
            line = self.lines.line(m.start())
            for verb, handler in _ACTIX_TO.findall(statement):
                node = self._handler(resolver, handler.rpartition("::")[2], line)
                found.append(HttpFact("route", verb.upper(), route_path(path), line, node))
        return found

    def _handler(self, resolver: Resolver, name: str, line: int) -> str:
        """The function `name`: the file's, else the repository's one of that name."""
        own = [s for s in self.ctx.symbols if s.name == name and s.kind in ("function", "method")]
        if own:
            return own[0].id
        found = [
            s
            for s in resolver.index.by_name(name, self.ctx.repo)
            if s.kind in ("function", "method") and s.path.endswith(".rs")
        ]
        return found[0].id if len(found) == 1 else self.ctx.source_id(line)

    def client_calls(self) -> list[HttpFact]:
        """reqwest's `client.get(url)`, `reqwest::get(url)`."""
        found: list[HttpFact] = []
        for m in _CLIENT.finditer(self.masked):
            receiver = m.group(1)
            if receiver != "reqwest" and not named_as(receiver.replace("::", "."), _WORDS):
                continue
            arguments = self.arguments(m.end() - 1)
            if len(arguments) != 1:
                continue
            start, end = arguments[0]
            url = self._format(start, end) if _FORMAT.match(self.masked, start) else None
            if url is None:
                found += self.call(m.group(2).upper(), m.end() - 1, m.start())
            else:
                line = self.lines.line(m.start())
                found += self.fact(m.group(2).upper(), url, line)
        return found

    def _format(self, start: int, end: int) -> str | None:
        """`format!("{}/users/{}", base, id)`: `{base}/users/{}` (a leading value not
        read is the base)."""
        arguments = self.arguments(self.masked.index("(", start))
        if not arguments:
            return None
        template = self.expression(*arguments[0])
        if template is None:
            return None
        filled = re.sub(r"\{[^{}]*\}", "{}", template)
        return "{base}" + filled[2:] if filled.startswith("{}") else filled

    def fact(self, method: str, url: str, line: int) -> list[HttpFact]:
        made = call_fact(method, url, line, self.ctx.source_id(line))
        return [made] if made is not None else []


_WORDS = frozenset({"client", "http", "reqwest"})
