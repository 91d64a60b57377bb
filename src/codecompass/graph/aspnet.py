"""ASP.NET Core routes and `HttpClient` calls, read from a C# file's text.

The C# facts keep no call's arguments, so this reads the file itself, with a
bracket-matching scanner (`textscan`) for comments and strings:

| written                                                     | fact                        |
| ----------------------------------------------------------- | --------------------------- |
| `var api = app.MapGroup("api/catalog");`                    | a prefix for `api`          |
| `api.MapGet("/items/{id:int}", GetItemById)`                | `GET /api/catalog/items/{}` |
|                                                             | → `GetItemById`             |
| `[Route("api/[controller]")]` on `OrdersController`,        | `GET /api/orders/{}` →      |
| `[HttpGet("{id}")]` on `GetOrder`                           | `OrdersController.GetOrder` |
| `[ApiV1]` (`ApiV1Attribute : RouteAttribute`, passing       | the same, below `api/v1/…`  |
| `base("api/v1/[controller]")`), or on a base controller     |                             |
| `httpClient.GetFromJsonAsync<T>($"{baseUrl}items/{id}")`    | a client call `GET …` (on a |
|                                                             | receiver named `…http…` or  |
|                                                             | `…client…`)                 |
| `new HttpRequestMessage(HttpMethod.Post, uri)`              | a client call `POST …`      |

A handler named as a method group is the method of that name in the file; a lambda
handles its route in the method mapping it. `[controller]` is the class's name without
`Controller`, lower case; `[action]` the method's. A client's URL may be a string local
assigned before the call in the same method (`var uri = $"…"; GetAsync(uri)`) or a string
field or constant of the file (`remoteServiceBaseUrl = "api/catalog/"`), which also fills
an interpolation; a URL with no leading `/` is relative to the client's base address.
"""

from __future__ import annotations

import re

from codecompass.graph.http import call_fact, join_paths, route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import LineIndex, Syntax, mask
from codecompass.models import HttpFact, SymbolRecord

_CSHARP = Syntax(line_comments=("//",), block_comments=(("/*", "*/"),))
_GROUP = re.compile(r"\b(\w+)\s*=\s*(\w+)\s*\.\s*MapGroup\s*\(\s*\$?@?\"")
_MAP = re.compile(r"\b(\w+)\s*\.\s*Map(Get|Post|Put|Patch|Delete)\s*\(\s*\$?@?\"")
_HANDLER = re.compile(r"\s*,\s*([A-Za-z_]\w*)\s*\)")
_CLIENT = re.compile(
    r"(?:(?P<receiver>\w+)\s*\.\s*(Get|Post|Put|Patch|Delete)"
    r"(?:FromJson|AsJson|String|Stream|ByteArray)?Async"
    r"\s*(?:<[^<>()]*(?:<[^<>()]*>[^<>()]*)*>)?\s*\("
    r"|\bnew\s+HttpRequestMessage\s*\(\s*HttpMethod\s*\.\s*(Get|Post|Put|Patch|Delete)\s*,)"
    r"\s*(?:(\$?@?\")|([A-Za-z_]\w*)\s*[,)])"
)
# A receiver named as an HTTP client: `httpClient`, `_client`, `Http`, `apiClient`.
_HTTP_CLIENT = re.compile(r"(?i)http|client")
_CONSTANT = re.compile(r"\b(\w+)\s*=\s*\$?@?\"([^\"\n]*)\"\s*;")
_ROUTE_ATTRIBUTE = re.compile(r"\[\s*Route\s*\(\s*@?\"([^\"]*)\"")
_VERB_ATTRIBUTE = re.compile(r"\[\s*Http(Get|Post|Put|Patch|Delete)\s*(?:\(\s*@?\"([^\"]*)\")?")
_NAMED = re.compile(r"\{([A-Za-z_]\w*)(?:[^{}]*)\}")


# An attribute on a declaration: `[ApiV1]`, `[Route("x")]`, `[Authorize, ApiV2]`.
_ATTRIBUTE_NAME = re.compile(r"[\[,]\s*([A-Za-z_][\w.]*)\s*(?=[\](,])")
# A `RouteAttribute` subclass's constructor: `: base("api/v1/[controller]")` or a constant.
_BASE_TEMPLATE = re.compile(r":\s*base\s*\(\s*(?:@?\"([^\"]*)\"|([A-Za-z_]\w*))\s*\)")
_BASE_LEVELS = 3


def aspnet_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The routes and client calls of one C# file (see the module docstring)."""
    if ctx.language != "csharp":
        return []
    text = resolver.file_text(ctx)
    if not any(word in text for word in ("Map", "Route", "[Http", "Async")):
        return []
    masked = mask(text, _CSHARP)
    lines = LineIndex(text)
    return [
        *_minimal_routes(ctx, text, masked, lines),
        *_controller_routes(resolver, ctx, text),
        *_client_calls(ctx, text, masked, lines),
    ]


def _string_at(text: str, quote: int) -> str:
    """The literal whose opening quote is at `quote` (`{…}` holes kept)."""
    end = text.find('"', quote + 1)
    return text[quote + 1 : end] if end > quote else ""


def _minimal_routes(ctx: Ctx, text: str, masked: str, lines: LineIndex) -> list[HttpFact]:
    prefixes: dict[str, str] = {}
    for m in _GROUP.finditer(masked):
        above = prefixes.get(m.group(2), "")
        prefixes[m.group(1)] = join_paths(above, _string_at(text, m.end() - 1))
    found: list[HttpFact] = []
    for m in _MAP.finditer(masked):
        quote = m.end() - 1
        template = join_paths(prefixes.get(m.group(1), ""), _string_at(text, quote))
        line = lines.line(m.start(2))
        after = quote + len(_string_at(text, quote)) + 2
        handler = _HANDLER.match(masked, after)
        node = _method_named(ctx, handler.group(1)) if handler else None
        pattern = route_path("/" + template)
        found.append(
            HttpFact("route", m.group(2).upper(), pattern, line, node or ctx.source_id(line))
        )
    return found


def _controller_routes(resolver: Resolver, ctx: Ctx, text: str) -> list[HttpFact]:
    """Attribute routing: `[Route]` on a controller (or a `RouteAttribute` of the
    repository's, or on a base controller), `[HttpGet("…")]` on its actions."""
    rows = text.split("\n")
    found: list[HttpFact] = []
    for cls in (s for s in ctx.symbols if s.kind == "class"):
        template = _class_route(resolver, ctx, cls, rows, 0)
        if template is None and not cls.name.endswith("Controller"):
            continue
        name = cls.name.removesuffix("Controller").lower()
        prefix = template.replace("[controller]", name) if template else ""
        for method in (s for s in ctx.symbols if s.parent == cls.qualified_name):
            attributes = _attributes(rows, method)
            own = _ROUTE_ATTRIBUTE.search(attributes)
            verbs: list[tuple[str, str]] = [
                (v.group(1).upper(), v.group(2) or "") for v in _VERB_ATTRIBUTE.finditer(attributes)
            ]
            if not verbs and own is None:
                continue  # conventional routing is not read
            for verb, template in verbs or [("*", "")]:
                written = template or (own.group(1) if own else "")
                written = written.replace("[action]", method.name)
                path = (
                    written.lstrip("~")
                    if written.startswith(("/", "~/"))
                    else join_paths(prefix, written)
                )
                pattern = route_path("/" + path.replace("[controller]", name))
                line = method.start_line + _verb_row(attributes)
                found.append(HttpFact("route", verb, pattern, line, method.id))
    return found


def _verb_row(attributes: str) -> int:
    """The row, from a declaration's first, of its first routing attribute (a doc comment
    may come first)."""
    for row, text in enumerate(attributes.split("\n")):
        if _VERB_ATTRIBUTE.search(text) or _ROUTE_ATTRIBUTE.search(text):
            return row
    return 0


def _class_route(
    resolver: Resolver, ctx: Ctx, cls: SymbolRecord, rows: list[str], level: int
) -> str | None:
    """The route template a class declares: its `[Route("…")]`, an attribute of the
    repository that derives from `RouteAttribute` (`[ApiV1]`), else its base class's,
    which controllers inherit (ASP.NET's `RouteAttribute` is inherited)."""
    head = _attributes(rows, cls)
    own = _ROUTE_ATTRIBUTE.search(head)
    if own is not None:
        return own.group(1)
    if not cls.name.endswith("Controller"):
        return None  # an entity or a DTO: its attributes and bases are not looked up
    for attribute in _ATTRIBUTE_NAME.finditer(head):
        name = attribute.group(1).rpartition(".")[2]
        if name in ("Route", "RouteAttribute") or name.startswith("Http"):
            continue
        for written in (name + "Attribute", name):
            for declared in resolver.index.by_name(written, ctx.repo):
                template = _route_attribute_template(resolver, declared)
                if template is not None:
                    return template
    if level >= _BASE_LEVELS:
        return None
    for base_name in resolver.bases(cls):
        for base in resolver.index.by_name(base_name, ctx.repo):
            where = resolver.ctx(base.repo, base.path) if base.kind == "class" else None
            if where is None or base.id == cls.id:
                continue
            base_rows = resolver.file_text(where).split("\n")
            template = _class_route(resolver, where, base, base_rows, level + 1)
            if template is not None:
                return template
    return None


def _route_attribute_template(resolver: Resolver, declared: SymbolRecord) -> str | None:
    """The template a `RouteAttribute` subclass passes its base constructor."""
    where = resolver.ctx(declared.repo, declared.path) if declared.kind == "class" else None
    if where is None or "RouteAttribute" not in resolver.bases(declared):
        return None
    rows = resolver.file_text(where).split("\n")
    body = "\n".join(rows[declared.start_line - 1 : declared.end_line])
    found = _BASE_TEMPLATE.search(body)
    if found is None:
        return None
    if found.group(1) is not None:
        return found.group(1)
    constants = {m.group(1): m.group(2) for m in _CONSTANT.finditer(body)}
    return constants.get(found.group(2))


def _attributes(rows: list[str], symbol: SymbolRecord) -> str:
    """The lines of a declaration up to its name: its attributes."""
    name = re.escape(symbol.name)
    declared = re.compile(rf"\b{name}\b\s*[(<{{:]|\bclass\s+{name}\b")
    out: list[str] = []
    for row in rows[symbol.start_line - 1 : symbol.end_line]:
        out.append(row)
        if declared.search(row):
            break
    return "\n".join(out)


def _client_calls(ctx: Ctx, text: str, masked: str, lines: LineIndex) -> list[HttpFact]:
    constants = {m.group(1): m.group(2) for m in _CONSTANT.finditer(text) if "{" not in m.group(2)}
    found: list[HttpFact] = []
    for m in _CLIENT.finditer(masked):
        if m["receiver"] and not _HTTP_CLIENT.search(m["receiver"]):
            continue  # `repository.GetAsync("key")`, `cache.GetAsync(…)`: no HTTP client
        verb = m.group(2) or m.group(3)  # `GetAsync(…)`, `new HttpRequestMessage(…)`
        line = lines.line(m.start())
        if m.group(4):
            url = _string_at(text, m.end(4) - 1)
        else:
            name = m.group(5)
            held = _local_string(ctx, text, masked, name, m.start(), lines)
            if held is None and name not in constants:
                continue
            url = held if held is not None else constants[name]
        url = _NAMED.sub(lambda n: constants.get(n.group(1), "{" + n.group(1) + "}"), url)
        fact = call_fact(verb.upper(), url, line, ctx.source_id(line))
        if fact is not None:
            found.append(fact)
    return found


def _local_string(
    ctx: Ctx, text: str, masked: str, name: str, before: int, lines: LineIndex
) -> str | None:
    """The string last assigned to `name` before offset `before`, in the same method."""
    method = ctx.innermost(lines.line(before), sections=False)
    start = lines.starts[method.start_line - 1] if method is not None else 0
    assigned = list(re.finditer(rf"\b{re.escape(name)}\s*=\s*\$?@?\"", masked[start:before]))
    if not assigned:
        return None
    return _string_at(text, start + assigned[-1].end() - 1)


def _method_named(ctx: Ctx, name: str) -> str | None:
    found = [s for s in ctx.symbols if s.name == name and s.kind in ("method", "function")]
    return found[0].id if found else None
