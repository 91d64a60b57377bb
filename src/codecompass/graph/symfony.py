"""Symfony's routes, and what reaches them by name.

- Controllers declare routes with PHP 8 attributes (`#[Route('/blog/{slug}', name:
  'blog_post', methods: ['GET'])]`, also in a group after another attribute, or fully
  qualified) or, in older code, docblock annotations (`@Route("/{slug}/comment",
  methods={"POST"})`). A class's own route prefixes its methods' paths and names and
  gives them its methods; on an invokable class (`__invoke`) it is that method's route.
  A route without `methods` answers any method. `{page<\\d+>}` and `{page?1}` are
  parameters; a last parameter with a default (inline, in `defaults`, or the action's
  argument, `int $page = 1`) may be left out, as `.{_format}` may.
- The routing configuration (`config/routes.yaml`, `config/routes/*.yaml`, Symfony 3's
  `app/config/routing.yml`) imports the controllers of a folder (`resource:
  ../src/Controller/`, `routing.controllers`, `@AppBundle/Controller/`) under a
  `prefix` (a path, or one per locale), and declares routes of its own (`path:` with
  `controller:` or `defaults: {_controller: 'App\\Controller\\X::feed'}`).
- A route's name is used by Twig's `path('blog_post', …)` and `url(…)`, a
  controller's `redirectToRoute`/`generateUrl`, a router's `generate` and
  FOSJsRouting's `Routing.generate` (`graph/http.py` links each use to the route).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from codecompass.graph.http import join_paths, route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import LineIndex, matching
from codecompass.models import HttpFact, SymbolRecord

# `#[Route(`, `#[IsGranted(…), Route(`, `#[\Symfony\…\Route(`, `@Route(`
_ROUTE = re.compile(r"(?:#\[\s*|@|,\s*)(?:\\?(?:\w+\\)+)?Route\s*\(")
# a line comment in a declaration's head (`// #[Route('/old')]`), not an attribute
_LINE_COMMENT = re.compile(r"^[ \t]*(?://|#(?!\[)).*$", re.MULTILINE)
_STRING = r"""(['"])((?:(?!\1).)*)\1"""
_NAMED = {key: re.compile(rf"\b{key}\s*[:=]\s*") for key in ("path", "name", "methods")}
_FIRST = re.compile(r"\s*(?=['\"\[{])")
_QUOTED = re.compile(_STRING)
_VERB = re.compile(r"""(?:(['"])([A-Za-z]+)\1|METHOD_([A-Z]+))""")
_DEFAULTS = re.compile(r"\bdefaults\s*[:=]\s*")
_DEFAULT_KEY = re.compile(r"""(['"])(\w+)\1\s*(?:=>|=|:)""")
# `{page}`, `{page<\d+>}`, `{page?1}`, `{page<\d+>?1}`: (name, "?…" if a default)
_PLACEHOLDER = re.compile(r"\{(\w+)(?:<[^>]*>)?(\?[^{}]*)?\}")

# uses of a route's name
# (a name joined with more, `'app_' . $class . '_show'`, names no one route)
_WHOLE_NAME = r"\s*\(\s*(['\"])([\w.-]+)\1(?!\s*[.~+])"
_PHP_NAME_USE = re.compile(
    r"(?:\bredirectToRoute|\bgenerateUrl"
    r"|(?:[Rr]outer\w*|[Gg]enerator|\(\s*['\"]router['\"]\s*\))\s*->\s*generate)" + _WHOLE_NAME
)
_TWIG_NAME_USE = re.compile(r"\b(?:path|url)" + _WHOLE_NAME)
_JS_NAME_USE = re.compile(r"\bRouting\s*\.\s*generate" + _WHOLE_NAME)

_CONFIG = re.compile(r"(?:^|/)config/(?:routes(?:/[\w.-]+)?|routing(?:_\w+)?)\.ya?ml$")
_CONTROLLERS_FOLDER = "src/Controller"  # what `routing.controllers` imports
_APP = "#symfony-app"


@dataclass(slots=True)
class _Route:
    line: int
    paths: list[str]
    verbs: list[str]
    name: str = ""
    optional: set[str] = field(default_factory=set)  # parameters with a default


def controller_router(repo: str, folder: str) -> str:
    """The router of a folder's controllers: the routing configuration mounts it."""
    return f"{repo}/{folder}#symfony"


def symfony_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """A controller's routes, the routing configuration's imports and routes, and the
    uses of route names (module docstring)."""
    if _CONFIG.search(ctx.path):
        return _config_facts(resolver, ctx)
    if ctx.path.endswith(".twig"):
        return _name_uses(resolver.file_text(ctx), _TWIG_NAME_USE, ctx)
    if ctx.language in ("javascript", "typescript"):
        text = resolver.file_text(ctx)
        return _name_uses(text, _JS_NAME_USE, ctx) if "Routing" in text else []
    if ctx.language != "php":
        return []
    text = resolver.file_text(ctx)
    found = _name_uses(text, _PHP_NAME_USE, ctx)
    if "Route" in text:
        found += _controller_routes(text, ctx)
    return found


def _controller_routes(text: str, ctx: Ctx) -> list[HttpFact]:
    lines = LineIndex(text)
    router = controller_router(ctx.repo, posixpath.dirname(ctx.path))
    found: list[HttpFact] = []
    for cls in (s for s in ctx.symbols if s.kind == "class"):
        own = _routes(text, lines, cls)
        methods = [s for s in ctx.symbols if s.parent == cls.qualified_name]
        invoked = [m for m in methods if m.name == "__invoke"]
        if own and len(invoked) == 1 and not _routes(text, lines, invoked[0]):
            found += _facts(own, [_Route(0, [""], [])], invoked[0].id, router)
            continue
        for method in methods:
            routes = _routes(text, lines, method)
            defaulted = _defaulted_arguments(text, lines, method) if routes else set()
            for route in routes:
                route.optional |= defaulted
            found += _facts(routes, own or [_Route(0, [""], [])], method.id, router)
    return found


def _facts(routes: list[_Route], prefixes: list[_Route], node: str, router: str) -> list[HttpFact]:
    """Each route under each class route: its paths (and the shorter ones its optional
    last parameter allows) for each method, and its name."""
    found: list[HttpFact] = []
    for route in routes:
        for prefix in prefixes:
            verbs = route.verbs or prefix.verbs or ["*"]
            optional = route.optional | prefix.optional
            for base in prefix.paths:
                for path in route.paths:
                    for pattern in _patterns(join_paths(base, path), optional):
                        found += [
                            HttpFact("route", v, pattern, route.line, node, router=router)
                            for v in verbs
                        ]
            if route.name:
                name = prefix.name + route.name
                found += [HttpFact("named", v, name, route.line, node) for v in verbs]
    return found


def _defaulted_arguments(text: str, lines: LineIndex, method: SymbolRecord) -> set[str]:
    """The arguments of a method with a default (`int $page = 1`)."""
    start = lines.starts[method.start_line - 1]
    declared = re.compile(rf"\bfunction\s+{re.escape(method.name)}\s*\(")
    found = declared.search(text, start)
    if found is None:
        return set()
    arguments = text[found.end() : matching(text, found.end() - 1, "(", ")")]
    return set(re.findall(r"\$(\w+)\s*=", arguments))


def _patterns(path: str, optional: set[str]) -> list[str]:
    """A route's path as a pattern, and without its last parameter when that has a
    default (`/list/{page}` is `/list` too; `/entries.{_format}` is `/entries`)."""
    out = [route_path(_PLACEHOLDER.sub("{}", path) or "/")]
    head, _, last = path.rpartition("/")
    whole = _PLACEHOLDER.fullmatch(last)
    if whole and (whole.group(1) in optional or whole.group(2)):
        out.append(route_path(_PLACEHOLDER.sub("{}", head) or "/"))
    stem, dot, tail = last.rpartition(".")
    suffix = _PLACEHOLDER.fullmatch(tail) if dot else None
    if suffix and stem and (suffix.group(1) in optional or suffix.group(2)):
        out.append(route_path(_PLACEHOLDER.sub("{}", f"{head}/{stem}")))
    return out


def _routes(text: str, lines: LineIndex, symbol: SymbolRecord) -> list[_Route]:
    """The routes in a declaration's head: from its first line (its docblock and
    attributes) to its name; line comments left out."""
    start = lines.starts[symbol.start_line - 1]
    declared = re.compile(rf"\b(?:class|function)\s+{re.escape(symbol.name)}\b")
    name = declared.search(text, start)
    head = text[start : name.start() if name else start]
    head = _LINE_COMMENT.sub(lambda m: " " * len(m.group(0)), head)
    out: list[_Route] = []
    for m in _ROUTE.finditer(head):
        close = matching(head, m.end() - 1, "(", ")")
        arguments = head[m.end() : close]
        paths = _argument(arguments, "path")
        if paths is None:
            continue
        names = _argument(arguments, "name")
        verbs = [(v[1] or v[2]).upper() for v in _VERB.findall(_methods_text(arguments))]
        route = _Route(lines.line(start + m.start()), paths, verbs)
        route.name = names[0] if names else ""
        route.optional = {
            p.group(1) for path in paths for p in _PLACEHOLDER.finditer(path) if p.group(2)
        }
        defaults = _DEFAULTS.search(arguments)
        if defaults:
            listed = _value_text(arguments, defaults.end())
            route.optional |= {k for _, k in _DEFAULT_KEY.findall(listed)}
        out.append(route)
    return out


def _methods_text(arguments: str) -> str:
    found = _NAMED["methods"].search(arguments)
    return _value_text(arguments, found.end()) if found else ""


def _argument(arguments: str, key: str) -> list[str] | None:
    """An argument's strings (`path: '/x'`, `path: ['en' => '/a', 'nl' => '/b']`); the
    path may also come first without its name. None when absent."""
    found = _NAMED[key].search(arguments)
    if found is None and key == "path":
        found = _FIRST.match(arguments)
    if found is None:
        return None
    value = _value_text(arguments, found.end())
    if value[:1] in "[{":  # a path per locale: the strings after `=>` (or `=`)
        pairs = re.findall(rf"(?:=>|=)\s*{_STRING}", value)
        return [text for _, text in pairs] or [text for _, text in _QUOTED.findall(value)]
    single = _QUOTED.match(value)
    return [single.group(2)] if single else None


def _value_text(arguments: str, start: int) -> str:
    """The text of the value starting at `start`: a string, or a bracketed list."""
    value = arguments[start:].lstrip()
    if value[:1] in "[{":
        opener = value[0]
        return value[: matching(value, 0, opener, "]" if opener == "[" else "}") + 1]
    single = _QUOTED.match(value)
    return single.group(0) if single else value.split(",", 1)[0]


def _name_uses(text: str, pattern: re.Pattern[str], ctx: Ctx) -> list[HttpFact]:
    """Uses of route names, once per name and line."""
    lines = LineIndex(text)
    seen: set[tuple[int, str]] = set()
    found: list[HttpFact] = []
    for m in pattern.finditer(text):
        line = lines.line(m.start(2))
        if (line, m.group(2)) not in seen:
            seen.add((line, m.group(2)))
            found.append(HttpFact("by-name", "*", m.group(2), line, ctx.source_id(line)))
    return found


# -- the routing configuration ---------------------------------------------------------
_KEY = re.compile(r"^(\s*)([\w.-]+|'[^']*'|\"[^\"]*\")\s*:(?:\s+(.*?))?\s*(?:\s#.*)?$")
_ITEM = re.compile(r"^\s*-\s*([^#\s]+)")


def _config_facts(resolver: Resolver, ctx: Ctx) -> list[HttpFact]:
    """A routing file's imports of controller folders (mounts of their routers under
    its prefixes) and its own routes."""
    text = resolver.file_text(ctx)
    found: list[HttpFact] = []
    for line, name, block in _blocks(text):
        resource, prefixes = block.get("resource"), _values(block.get("prefix")) or [""]
        if resource:
            folder = _resource_folder(resolver, ctx, resource)
            patterns = [route_path(_PLACEHOLDER.sub("{}", p)) for p in prefixes]
            app = f"{ctx.repo}{_APP}"
            for router in _controller_routers(resolver, ctx.repo, folder) if folder else []:
                found += [
                    HttpFact("mount", "prepend", p, line, router, router=app) for p in patterns
                ]
            continue
        defaults = block.get("defaults")
        target = block.get("controller") or (
            defaults.get("_controller") if isinstance(defaults, dict) else None
        )
        paths = _values(block.get("path"))
        if not paths:
            continue
        handler = _controller_method(resolver, ctx, target) if isinstance(target, str) else None
        # no handler in the repository (`/logout`, a framework's controller): the route's
        # declaration stands for it
        node = handler.id if handler is not None else ctx.source_id(line)
        verbs = [v.upper() for v in _values(block.get("methods"))] or ["*"]
        optional = set(defaults) if isinstance(defaults, dict) else set()
        route = _Route(line, paths, verbs, name.strip("'\""), optional)
        found += _facts([route], [_Route(0, [""], [])], node, "")
    return found


def _blocks(text: str) -> list[tuple[int, str, dict[str, str | dict[str, str]]]]:
    """The top-level entries of a routing file: (line, name, {key: value or {key:
    value}}), two levels deep; a list's items (`- GET`) joined with commas."""
    out: list[tuple[int, str, dict[str, str | dict[str, str]]]] = []
    parent, child_indent = "", -1
    for number, row in enumerate(text.splitlines(), 1):
        if not row.strip() or row.lstrip().startswith("#"):
            continue
        m = _KEY.match(row)
        if m is None:
            item = _ITEM.match(row)
            block = out[-1][2] if out else None
            if item is None or block is None or not parent:
                continue
            previous = block.get(parent)  # `methods:` then `- GET`
            if isinstance(previous, str):
                block[parent] = f"{previous},{item.group(1)}" if previous else item.group(1)
            elif not previous:
                block[parent] = item.group(1)
            continue
        indent, key, value = len(m.group(1)), m.group(2), _scalar(m.group(3))
        if indent == 0:
            out.append((number, key, {}))
            parent, child_indent = "", -1
        elif out:
            block = out[-1][2]
            if child_indent < 0 or indent <= child_indent:
                child_indent, parent = indent, key
                block[key] = value if value else {}
            elif isinstance(nested := block.get(parent), dict):
                nested[key.strip("'\"")] = value
    return out


def _scalar(value: str | None) -> str:
    return (value or "").strip().strip("'\"")


def _values(value: str | dict[str, str] | None) -> list[str]:
    """A scalar's items (`[GET, POST]`, `GET|POST`, `GET,POST`), or a map's values (a
    prefix or a path per locale)."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, str)]
    if value.startswith("{"):  # `{ en: '', nl: /nl }`
        return [_scalar(v.partition(":")[2]) for v in value.strip("{}").split(",")]
    return [_scalar(v) for v in re.split(r"[,|]", value.strip("[]")) if _scalar(v)]


def _resource_folder(resolver: Resolver, ctx: Ctx, resource: str | dict[str, str]) -> str:
    """The folder of controllers a `resource` imports ("" when not one)."""
    if isinstance(resource, dict):
        resource = resource.get("path", "")
    if resource == "routing.controllers":
        return _CONTROLLERS_FOLDER
    if resource.startswith("@"):  # `@WallabagCoreBundle/Controller/`: the bundle's folder
        bundle, _, rest = resource[1:].partition("/")
        for path in resolver.index.repo_files(ctx.repo):
            if posixpath.basename(path) == f"{bundle}.php":
                return posixpath.normpath(posixpath.join(posixpath.dirname(path), rest))
        return ""
    if posixpath.splitext(resource)[1]:
        return ""  # a file: another routing file, or a class
    return posixpath.normpath(posixpath.join(posixpath.dirname(ctx.path), resource))


def _controller_routers(resolver: Resolver, repo: str, folder: str) -> list[str]:
    """The routers of the folders of PHP files in `folder` and below."""
    folders = {
        posixpath.dirname(path)
        for path in resolver.index.repo_files(repo)
        if path.endswith(".php") and path.startswith(folder + "/")
    }
    return [controller_router(repo, f) for f in sorted(folders)]


def _controller_method(resolver: Resolver, ctx: Ctx, target: str) -> SymbolRecord | None:
    """The method a route's `controller` names: `App\\Controller\\X::feed`, or an
    invokable class's `__invoke` (`App\\Controller\\Health`)."""
    cls, _, method = target.replace("\\\\", "\\").partition("::")
    parts = [p for p in cls.split("\\") if p]
    found = [
        s
        for s in resolver.index.by_name(method or "__invoke", ctx.repo)
        if parts and s.parent == parts[-1]
    ]
    # of classes of one name in several namespaces, the one whose path ends as its
    # namespace does (`OpenCFP\Http\Action\DashboardAction` in
    # `src/Http/Action/DashboardAction.php`)
    for depth in range(1, len(parts)):
        if len(found) <= 1:
            break
        tail = "/" + "/".join(parts[-depth - 1 :]) + ".php"
        found = [s for s in found if ("/" + s.path).endswith(tail)] or found
    return found[0] if len(found) == 1 else None
