"""What a Spring application's configuration says about where its routes are served.

- `server.servlet.context-path: /accounts` (or `server.context-path`, WebFlux's
  `spring.webflux.base-path`) in a module's `application.yml` (or `.properties`,
  `bootstrap.*`), or in a config server's `<application name>.yml`: every route of that
  module is under it (its application router's own prefix, `spring.application_router`).
- Spring Cloud Gateway routes, a path of the gateway forwarded to a service by name:

```yaml
spring:
  cloud:
    gateway:
      routes:
        - id: customers
          uri: lb://customers-service
          predicates:
            - Path=/api/customer/**
          filters:
            - StripPrefix=2
```

serves the routes of the module whose `spring.application.name` is `customers-service`
under `/api/customer` too, so the frontend's `$http.get('api/customer/owners')` reaches
`OwnerResource.findAll` at `/owners`. `StripPrefix=n` drops the path's first n segments;
`RewritePath=/api/customer/(?<segment>.*), /${segment}` drops what comes before the
group; with neither, the service serves the path whole (no prefix). The same routes
written as `application.properties` keys (`spring.cloud.gateway.routes[0].uri=lb://…`)
are read too. A service is found by the `spring.application.name` of the
`application.yml`, `bootstrap.yml` (or `.yaml`, `.properties`) under its module's
`src/main/resources/`.
"""

from __future__ import annotations

import posixpath
import re

from codecompass.graph.http import route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.graph.spring import application_router, module_root
from codecompass.models import HttpFact

_CONFIG_EXTENSIONS = ("yml", "yaml", "properties")
_CONFIG_NAMES = frozenset(
    f"{stem}.{ext}" for stem in ("application", "bootstrap") for ext in _CONFIG_EXTENSIONS
)
_CONTEXT_PATH_KEYS = (
    *("server.servlet.context-path", "server.servlet.contextPath", "server.context-path"),
    *("server.contextPath", "spring.webflux.base-path"),
)
_ITEM = re.compile(r"^(\s*)-\s")
_URI = re.compile(r"\buri\s*[:=]\s*[\"']?(?:lb|https?)://([\w.-]+)")
_PATH = re.compile(r"\bPath\s*=\s*([^\s\"']+)")
_STRIP = re.compile(r"\bStripPrefix\s*=\s*(\d+)")
_REWRITE = re.compile(r"\bRewritePath\s*=\s*([^,\s\"']+)")
_PROPERTY_ROUTE = re.compile(r"^\s*spring\.cloud\.gateway(?:\.[\w.-]+)?\.routes\[(\d+)\]\.(.*)$")
# a YAML key or a property: (indent, key, value)
_KEY = re.compile(r"^(\s*)([\w.\-\[\]]+)\s*[:=]\s*(.*?)\s*(?:#.*)?$")


def spring_config_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """A configuration file's context path and gateway mounts (module docstring)."""
    name = posixpath.basename(ctx.path)
    stem, _, extension = name.rpartition(".")
    if extension not in _CONFIG_EXTENSIONS:
        return []
    config = name in _CONFIG_NAMES
    if not config and "config" not in ctx.path:  # a config server's `shared/<name>.yml`
        return []
    text = resolver.file_text(ctx)
    found: list[HttpFact] = []
    context = config_value(text, _CONTEXT_PATH_KEYS)
    if context is not None:
        if config and "src/main/resources/" in ctx.path:
            module: str | None = module_root(ctx.path)
        else:
            module = _services(resolver, ctx.repo).get(stem)
        if module is not None:
            router = application_router(ctx.repo, module)
            found.append(HttpFact("router", "*", route_path(context[0]), context[1], router))
    if config and "gateway" in text and "Path" in text:
        found += _gateway_mounts(resolver, ctx, text)
    return found


def _gateway_mounts(resolver: Resolver, ctx: Ctx, text: str) -> list[HttpFact]:
    services = _services(resolver, ctx.repo)
    gateway = application_router(ctx.repo, module_root(ctx.path))
    direct = f"{ctx.repo}#spring-direct"
    found: list[HttpFact] = []
    for line, block in _routes(text, ctx.path.endswith(".properties")):
        uri, paths = _URI.search(block), _PATH.findall(block)
        root = services.get(uri.group(1)) if uri else None
        if root is None or not paths:
            continue
        router = application_router(ctx.repo, root)
        for path in paths[0].split(","):
            prefix = _prefix(path, block)
            if prefix:
                found += [
                    HttpFact("mount", "prepend", prefix, line, router, router=gateway),
                    HttpFact("mount", "prepend", "", line, router, router=direct),
                ]
    return found


def _prefix(path: str, block: str) -> str:
    """What the gateway strips from `path` (`/api/customer/**`) before forwarding it."""
    literal = [s for s in path.split("/") if s and "*" not in s and "{" not in s]
    strip = _STRIP.search(block)
    if strip:
        return "/" + "/".join(literal[: int(strip.group(1))])
    rewrite = _REWRITE.search(block)
    if rewrite:
        head = rewrite.group(1).split("(", 1)[0]
        return "/" + "/".join(s for s in head.split("/") if s)
    return ""


def _routes(text: str, properties: bool) -> list[tuple[int, str]]:
    """(line, text) of each route of the file: an item of a YAML list under `routes:`,
    or the keys of one `routes[i]` of a properties file."""
    rows = text.split("\n")
    if properties:
        grouped: dict[str, tuple[int, list[str]]] = {}
        for number, row in enumerate(rows, 1):
            m = _PROPERTY_ROUTE.match(row)
            if m:
                grouped.setdefault(m.group(1), (number, []))[1].append(m.group(2))
        return [(line, "\n".join(keys)) for line, keys in grouped.values()]
    found: list[tuple[int, str]] = []
    for number, row in enumerate(rows):
        if row.strip() != "routes:":
            continue
        indent = _indent(row)
        starts: list[int] = []
        end = len(rows)
        for index in range(number + 1, len(rows)):
            current = rows[index]
            stripped = current.strip()
            if not stripped or stripped.startswith("#"):
                continue
            depth = _indent(current)
            if depth < indent or (depth == indent and not stripped.startswith("-")):
                end = index
                break
            item = _ITEM.match(current)
            if item and (not starts or len(item.group(1)) == _indent(rows[starts[0]])):
                starts.append(index)
        for a, b in zip(starts, [*starts[1:], end], strict=True):
            found.append((a + 1, "\n".join(rows[a:b])))
    return found


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip())


def config_value(text: str, keys: tuple[str, ...]) -> tuple[str, int] | None:
    """The value of the first of `keys` (dotted: `server.servlet.context-path`) a YAML
    or properties file sets, nested or flat, with its line; None when unset."""
    stack: list[tuple[int, str]] = []
    for number, row in enumerate(text.split("\n"), 1):
        m = _KEY.match(row)
        if m is None or row.lstrip().startswith(("#", "-")):
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = ".".join([*(key for _, key in stack), m.group(2)])
        value = m.group(3).strip().strip("\"'")
        if path in keys and value:
            return value, number
        if not value:
            stack.append((indent, m.group(2)))
    return None


def _services(resolver: Resolver, repo: str) -> dict[str, str]:
    """Each `spring.application.name` of the repository → its module's root."""
    root = resolver.index.root(repo)
    found: dict[str, str] = {}
    if root is None:
        return found
    for path in resolver.index.repo_files(repo):
        if posixpath.basename(path) not in _CONFIG_NAMES or "src/main/resources/" not in path:
            continue
        try:
            text = (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        name = config_value(text, ("spring.application.name",))
        if name:
            found.setdefault(name[0], module_root(path))
    return found
