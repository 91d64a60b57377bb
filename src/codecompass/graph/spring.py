"""Spring MVC and JAX-RS routes and Java/Kotlin HTTP clients, read from a file's text.

The Java and Kotlin facts keep no annotation's arguments, so this reads the file itself
with a scanner that blanks comments and strings (`textscan.mask`):

| written                                                      | fact                          |
| ------------------------------------------------------------ | ----------------------------- |
| `@RequestMapping("/owners")` on a class, `@GetMapping("/{id}")` | route `GET /owners/{}` → the  |
| on its method                                                | method                        |
| `@RequestMapping(value = "/x", method = RequestMethod.POST)` | route `POST /x` (no `method`: |
|                                                              | any)                          |
| `@Path("/items")` on a class, `@GET @Path("{id}")` on a method | route `GET /items/{}`         |
| (JAX-RS)                                                     |                               |
| the same on a method of a `@FeignClient`, `@HttpExchange` or | a client call by that method  |
| `@RegisterRestClient` interface (`@GetExchange("/x")`)       |                               |
| `webClient.get().uri("http://customers-service/owners/{id}")` | a client call `GET            |
| (WebClient, RestClient, WebTestClient), `.method(HttpMethod.PUT)` | /owners/{}`                |
| `mockMvc.perform(get("/owners/{id}", 1))`                    | a client call (a test's       |
|                                                              | request)                      |
| `restTemplate.getForObject(url, …)`, `exchange(url, HttpMethod.POST, …)` | a client call        |

A path or URL may be a literal, a list of literals (one route each), or a concatenation
of literals and names: a string constant or field of the file, a local assigned a string
before the call in its method, a Kotlin template (`"$base/owners"`). A name not read
that starts a URL leaves its base unknown; a class prefix not read leaves the route
under an unknown prefix (matched on what follows). A class's `@RequestMapping` paths
prefix each of its methods' paths.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from codecompass.graph.code_urls import CodeText, Dialect, split_top
from codecompass.graph.http import UNKNOWN, call_fact, join_paths, named_as, route_path
from codecompass.graph.models import TYPE_KINDS
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import Syntax, matching
from codecompass.models import HttpFact, SymbolRecord

_JAVA = Syntax(line_comments=("//",), block_comments=(("/*", "*/"),), quotes=('"""', '"', "'"))
_LANGUAGES = frozenset({"java", "kotlin"})
# `@GetMapping`, `@RequestMapping` (Spring MVC); `@GetExchange`, `@HttpExchange`
# (Spring's HTTP interfaces); `@GET`, `@Path` (JAX-RS)
_ANNOTATION = re.compile(
    r"@(?:(?P<spring>Get|Post|Put|Delete|Patch|Request)Mapping"
    r"|(?P<exchange>Get|Post|Put|Delete|Patch|Http)Exchange"
    r"|(?P<jaxrs>GET|POST|PUT|DELETE|PATCH)|(?P<path>Path))\b"
)
_CLIENT_TYPE = re.compile(r"@(?:FeignClient|HttpExchange|RegisterRestClient)\b")
_FEIGN = re.compile(r"@FeignClient\b")
_NAMED_ARG = re.compile(r"\b(\w+)\s*=(?!=)")
_REQUEST_METHOD = re.compile(r"\b(?:RequestMethod\s*\.\s*)?(GET|POST|PUT|DELETE|PATCH)\b")
_FLUENT = re.compile(
    r"\.\s*(?:(get|post|put|delete|patch)\s*\(\s*\)"
    r"|method\s*\(\s*HttpMethod\s*\.\s*(GET|POST|PUT|DELETE|PATCH)\s*\))\s*\.\s*uri\s*\("
)
_MOCK_MVC = re.compile(
    r"\bperform\s*\(\s*(?:MockMvcRequestBuilders\s*\.\s*)?(get|post|put|delete|patch)\s*\("
)
# `RequestEntity.get(…)`, handed to RestTemplate's exchange
_REQUEST_ENTITY = re.compile(r"\bRequestEntity\s*\.\s*(get|post|put|delete|patch|head)\s*\(")
_TEMPLATE_CALL = re.compile(
    r"\b([\w.]*\w)\s*\.\s*(get|post|put|patch|delete|exchange)"
    r"(?:ForObject|ForEntity|ForLocation)?\s*\("
)
_TEMPLATE_WORDS = frozenset({"rest", "template", "http", "client"})
_HTTP_METHOD_ARG = re.compile(r"HttpMethod\s*\.\s*(GET|POST|PUT|DELETE|PATCH)\b")
_CONSTANT = re.compile(r"\b(?:String|val|var)\s+(\w+)\s*(?::\s*String\s*)?=\s*\"([^\"\n]*)\"")


# what a file holding a route or a request has somewhere
_HINTS = ("Mapping", "@Path", "Exchange", "exchange(", "uri(", "perform(", "For", "RequestEntity")
_DIALECTS = {
    "java": Dialect(_JAVA, _CONSTANT, r"\b{name}\s*=(?!=)", lines_end=False),
    "kotlin": Dialect(_JAVA, _CONSTANT, r"\b{name}\s*(?::\s*String\s*)?=(?!=)", lines_end=True),
}


def spring_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The routes and client calls of one Java or Kotlin file (see the module
    docstring)."""
    if ctx.language not in _LANGUAGES:
        return []
    text = resolver.file_text(ctx)
    if not any(word in text for word in _HINTS):
        return []
    source = _Source(ctx, text, _DIALECTS[ctx.language])
    return [*source.declared(), *source.fluent_calls(), *source.template_calls()]


class _Source(CodeText):
    """One Java or Kotlin file's text (see `CodeText`)."""

    # -- routes and declared clients --------------------------------------------------
    def declared(self) -> list[HttpFact]:
        """Routes of the classes' methods; calls of a client interface's methods."""
        found: list[HttpFact] = []
        for cls in (s for s in self.ctx.symbols if s.kind in TYPE_KINDS):
            head = self._head(cls)
            client = bool(_CLIENT_TYPE.search(self.masked, *head))
            prefixes = [p for _, _, paths in self._mappings(*head, client) for p in paths]
            feign = _FEIGN.search(self.masked, *head)
            if feign:  # `@FeignClient(name = "customers", path = "/owners")`
                prefixes += self._paths(self.args(feign.end()), ("path",), positional=False)
            prefixes = prefixes or [""]
            if None in prefixes and not client:
                found.append(HttpFact("router", "*", UNKNOWN, cls.start_line, cls.id))
            members = (
                s
                for s in self.ctx.symbols
                if s.parent == cls.qualified_name and s.kind in ("method", "function")
            )
            for method in members:
                for line, verb, paths in self._mappings(*self._head(method), client):
                    if verb is None:
                        continue  # `@Path` alone on a method: a sub-resource locator
                    for prefix in prefixes:
                        for path in paths:
                            fact = self._declared(method, line, verb, prefix, path, client, cls)
                            found += [fact] if fact is not None else []
        return found

    def _declared(
        self,
        method: SymbolRecord,
        line: int,
        verb: str,
        prefix: str | None,
        path: str | None,
        client: bool,
        cls: SymbolRecord,
    ) -> HttpFact | None:
        """A client interface's call, else a route; under a prefix not read (None) the
        route is the class's router's (see `declared`) and a call's base is unknown."""
        if path is None:
            return None
        if client:
            url = join_paths(path) if prefix is None else join_paths(prefix, path)
            return call_fact(verb, ("{base}" if prefix is None else "") + url, line, method.id)
        if prefix is None:
            pattern = route_path(join_paths(path))
            return HttpFact("route", verb, pattern, line, method.id, router=cls.id)
        pattern = route_path(join_paths(prefix, path))
        router = application_router(self.ctx.repo, module_root(self.ctx.path))
        return HttpFact("route", verb, pattern, line, method.id, router=router)

    def _head(self, symbol: SymbolRecord) -> tuple[int, int]:
        """The offsets of a declaration's head: from its first line (its annotations) to
        its name."""
        start = self.lines.starts[symbol.start_line - 1]
        end = self.lines.starts[min(symbol.end_line, len(self.lines.starts) - 1)]
        name = re.escape(symbol.name)
        declared = re.compile(
            rf"\b(?:class|interface|record|enum|object)\s+{name}\b|\b{name}\s*[(<]"
        )
        found = declared.search(self.masked, start, end)
        return start, found.start() if found else end

    def _mappings(
        self, start: int, end: int, client: bool
    ) -> Iterator[tuple[int, str | None, list[str | None]]]:
        """Each mapping annotation in masked[start:end]: (line, verb — `*` for any, None
        for a path alone — and its paths, None for one not read)."""
        jaxrs_verb: str | None = None
        jaxrs_paths: list[str | None] = []
        jaxrs_line = 0
        for m in _ANNOTATION.finditer(self.masked, start, end):
            args = self.args(m.end())
            line = self.lines.line(m.start())
            if m["jaxrs"]:
                jaxrs_verb, jaxrs_line = m["jaxrs"], jaxrs_line or line
                continue
            if m["path"]:
                jaxrs_paths, jaxrs_line = self._paths(args), jaxrs_line or line
                continue
            kind = m["spring"] or m["exchange"]
            if kind in ("Request", "Http"):
                verbs = self._request_methods(args) or ["*"]
            else:
                verbs = [kind.upper()]
            keys = ("value", "path", "url") if m["exchange"] or client else ("value", "path")
            paths = self._paths(args, keys) or [""]
            for verb in verbs:
                yield line, verb, paths
        if jaxrs_verb or jaxrs_paths:
            yield jaxrs_line, jaxrs_verb, jaxrs_paths or [""]

    def _paths(
        self,
        args: tuple[int, int] | None,
        keys: tuple[str, ...] = ("value",),
        positional: bool = True,
    ) -> list[str | None]:
        """The paths an annotation's arguments give: the first positional argument (if
        `positional`; Kotlin may name others after it: `@GetMapping("vets.json",
        produces = […])`) or the first of `keys` named; a list gives several."""
        if args is None:
            return []
        named: dict[str, tuple[int, int]] = {}
        for index, (a, b) in enumerate(split_top(self.masked, *args, ",")):
            lead = len(self.masked[a:b]) - len(self.masked[a:b].lstrip())
            m = _NAMED_ARG.match(self.masked, a + lead)
            if m is None:
                if index == 0 and positional:
                    return self._values(a, b)
                continue
            named.setdefault(m.group(1), (m.end(), b))
        return next((self._values(*named[key]) for key in keys if key in named), [])

    def _values(self, start: int, end: int) -> list[str | None]:
        """The strings of an argument: one expression, or a `{…}`/`[…]` list of them."""
        raw = self.masked[start:end].strip().rstrip(",").strip()
        offset = start + self.masked[start:end].index(raw) if raw else start
        if raw[:1] in "{[" and raw[-1:] in "}]":
            offset, raw = offset + 1, raw[1:-1]
        out: list[str | None] = []
        for piece_start, piece_end in split_top(self.masked, offset, offset + len(raw), ","):
            value = self.expression(piece_start, piece_end)
            if value is not None and value.startswith("{base}"):
                value = None
            out.append(value)
        return out

    def _request_methods(self, args: tuple[int, int] | None) -> list[str]:
        if args is None:
            return []
        start, end = args
        for m in _NAMED_ARG.finditer(self.masked, start, end):
            if m.group(1) == "method":
                stop = _NAMED_ARG.search(self.masked, m.end(), end)
                region = self.text[m.end() : stop.start() if stop else end]
                return list(dict.fromkeys(v.group(1) for v in _REQUEST_METHOD.finditer(region)))
        return []

    # -- client calls in code ---------------------------------------------------------
    def fluent_calls(self) -> list[HttpFact]:
        """`client.get().uri(…)`, `.method(HttpMethod.PUT).uri(…)`,
        `RequestEntity.get(…)`, MockMvc's `perform(get(…))`: a request the module's
        application makes to itself, below its context path (its router's own prefix)."""
        found: list[HttpFact] = []
        for m in [*_FLUENT.finditer(self.masked), *_REQUEST_ENTITY.finditer(self.masked)]:
            verb = next(g for g in m.groups() if g).upper()
            found += self.call(verb, m.end() - 1, m.start())
        application = application_router(self.ctx.repo, module_root(self.ctx.path))
        for m in _MOCK_MVC.finditer(self.masked):
            found += [
                replace(f, router=application) if not f.router else f
                for f in self.call(m.group(1).upper(), m.end() - 1, m.start())
            ]
        return found

    def template_calls(self) -> list[HttpFact]:
        """RestTemplate's (or TestRestTemplate's) `getForObject(url, …)`,
        `exchange(url, HttpMethod.POST, …)`, on a receiver named as a client or a
        template."""
        found: list[HttpFact] = []
        for m in _TEMPLATE_CALL.finditer(self.masked):
            if not named_as(m.group(1), _TEMPLATE_WORDS):
                continue
            verb = m.group(2).upper()
            open_at = m.end() - 1
            if verb == "EXCHANGE":
                close = matching(self.masked, open_at, "(", ")")
                method = _HTTP_METHOD_ARG.search(self.text, open_at, max(close, open_at))
                verb = method.group(1) if method else "*"
            found += self.call(verb, open_at, m.start())
        return found


def module_root(path: str) -> str:
    """The folder of the build module (Maven, Gradle) a file is in: what comes before
    its `src/main/` or `src/test/` ("" for the repository's root)."""
    for marker in ("/src/main/", "/src/test/"):
        head, found, _ = ("/" + path).partition(marker)
        if found:
            return head.strip("/")
    return ""


def application_router(repo: str, root: str) -> str:
    """The router a module's Spring routes are declared on: one application a module,
    which a gateway may serve under a prefix of its own (`graph/spring_config.py`)."""
    return f"{repo}/{root}#spring-application" if root else f"{repo}#spring-application"
