"""Routes a framework's route table declares: Laravel's `routes/*.php`.

Read from the file's text with a bracket-matching scanner (`textscan`), not the graph's
references, which keep no call's arguments in PHP:

| written                                                  | routes                       |
| -------------------------------------------------------- | ---------------------------- |
| `Route::get('users/{id}', [UserController::class, 'show'])` | `GET /users/{}` → `show`  |
| `Route::post('me', LoginController::class)`              | `POST /me` → `__invoke`      |
| `Route::put('x', 'UserController@update')`               | `PUT /x` → `update`          |
| `Route::match(['get', 'post'], 'x', …)`, `Route::any(…)` | each method, or any          |
| `Route::resource('photos', PhotoController::class)`      | index, create, store, show,  |
|                                                          | edit, update, destroy        |
| `Route::apiResource('albums.songs', …)`                  | the five without a form,     |
|                                                          | nested: `/albums/{}/songs`   |

`->only([…])` and `->except([…])` narrow a resource. A group's prefix goes before the
routes inside it: `Route::prefix('api')->group(function () { … })`,
`Route::group(['prefix' => 'admin'], function () { … })`; `Route::controller(X::class)
->group(…)` gives the routes inside it a controller (`Route::get('x', 'show')`), and
`routes/api.php` is served under `/api`, as Laravel's default application does. The
controller is the class the file `use`s by that name (else the repository's only class so
named); the handler its method, else the class. A closure handles its route in the
routes file itself.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from codecompass.graph.http import route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import LineIndex, Syntax, mask, matching
from codecompass.models import HttpFact, SymbolRecord

_PHP = Syntax(line_comments=("//", "#"), block_comments=(("/*", "*/"),))
_ROUTE = re.compile(r"\bRoute::")
_LINK = re.compile(r"\s*(?:->|::)\s*(?P<name>\w+)\s*\(")
_STRING = re.compile(r"""(['"])(.*?)\1""", re.DOTALL)
_CLASS = re.compile(r"\\?(?P<name>[\w\\]+)::class")
_ACTION = re.compile(r"""^(['"])(?P<class>[\w\\]+)@(?P<method>\w+)\1$""")
_VERBS = frozenset({"get", "post", "put", "patch", "delete", "options"})
# Laravel's resource actions: (action, method, path below the resource, needs a form).
_RESOURCE = (
    ("index", "GET", "", False),
    ("create", "GET", "/create", True),
    ("store", "POST", "", False),
    ("show", "GET", "/{}", False),
    ("edit", "GET", "/{}/edit", True),
    ("update", "PUT", "/{}", False),
    ("update", "PATCH", "/{}", False),
    ("destroy", "DELETE", "/{}", False),
)


@dataclass(frozen=True, slots=True)
class _Call:
    name: str
    args: str  # the text between the parentheses, as written
    start: int  # offset of the name


@dataclass(frozen=True, slots=True)
class _Group:
    start: int  # the closure's body, between its braces
    end: int
    prefix: str
    controller: str


def route_table_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The routes a Laravel routes file declares (see the module docstring)."""
    if ctx.language != "php" or "routes" not in ctx.path.split("/")[:-1]:
        return []
    root = resolver.index.root(ctx.repo)
    try:
        text = (root / ctx.path).read_text(encoding="utf-8") if root is not None else ""
    except (OSError, UnicodeDecodeError):
        return []
    masked = mask(text, _PHP)
    chains = [_chain(text, masked, m.end()) for m in _ROUTE.finditer(masked)]
    groups = [g for chain in chains if (g := _group(text, masked, chain)) is not None]
    base = "/api" if posixpath.basename(ctx.path) == "api.php" else ""
    lines = LineIndex(text)
    found: list[HttpFact] = []
    for chain in chains:
        if not chain or any(c.name == "group" for c in chain):
            continue
        at = chain[0].start
        around = [g for g in groups if g.start < at < g.end]
        prefix = "/".join([base, *(g.prefix for g in around)])
        controller = next((g.controller for g in reversed(around) if g.controller), "")
        line = lines.line(at)
        for method, path, cls, action in _routes(chain, controller):
            node = _handler(resolver, ctx, cls, action) if cls else ctx.file_id
            pattern = route_path("/" + "/".join(p.strip("/") for p in (prefix, path) if p))
            found.append(HttpFact("route", method, pattern or "/", line, node))
    return found


def _chain(text: str, masked: str, at: int) -> list[_Call]:
    """`Route::a(…)->b(…)->…` from just after `Route::`: each call's name and arguments."""
    calls: list[_Call] = []
    position = at
    first = True
    while True:
        found = re.compile(r"\s*(?P<name>\w+)\s*\(").match(masked, position) if first else None
        found = found or _LINK.match(masked, position)
        if found is None:
            return calls
        first = False
        opening = found.end() - 1
        closing = matching(masked, opening, "(", ")")
        calls.append(_Call(found["name"], text[opening + 1 : closing], found.start("name")))
        position = closing + 1


def _group(text: str, masked: str, chain: list[_Call]) -> _Group | None:
    """The closure a `->group(…)` call runs, with the prefix and controller the chain
    gives its routes."""
    call = next((c for c in chain if c.name == "group"), None)
    if call is None:
        return None
    opening = text.find("{", call.start, call.start + len(call.name) + 1 + len(call.args))
    if opening < 0:
        return None  # `->group(base_path('routes/x.php'))`: another file
    end = matching(masked, opening)
    prefix = ""
    controller = ""
    for c in chain:
        if c.name == "prefix":
            prefix = _first_string(c.args)
        elif c.name == "controller":
            controller = _class_name(c.args)
        elif c.name == "group":  # `['prefix' => 'admin']`, before the closure's body
            head = c.args.split("{", 1)[0]
            keyed = re.search(r"""['"]prefix['"]\s*=>\s*(['"])(.*?)\1""", head)
            prefix = keyed.group(2) if keyed else prefix
    return _Group(opening, end, prefix.strip("/"), controller)


def _routes(chain: list[_Call], controller: str) -> list[tuple[str, str, str, str]]:
    """(method, path, controller class, action) of each route one chain declares."""
    head = chain[0]
    if head.name in _VERBS or head.name in ("any", "match"):
        methods = ["*"] if head.name == "any" else [head.name.upper()]
        args = head.args
        if head.name == "match":
            listed, _, args = args.partition("]")
            methods = [m.upper() for _, m in _STRING.findall(listed)] or ["*"]
            args = args.lstrip(" ,")
        strings = _STRING.findall(args)
        if not strings:
            return []
        path = strings[0][1]
        cls, action = _action(args[args.find(strings[0][1]) + len(strings[0][1]) + 1 :])
        if not cls and action:
            cls = controller  # `Route::controller(X::class)->group(…)`: `'show'`
        return [(m, path, cls, action) for m in methods]
    if head.name in ("resource", "apiResource"):
        name = _first_string(head.args)
        cls = _class_name(head.args)
        if not name or not cls:
            return []
        narrow = {c.name: [s for _, s in _STRING.findall(c.args)] for c in chain[1:]}
        kept = narrow.get("only")
        dropped = set(narrow.get("except", []))
        parts = name.split(".")
        base = "/".join(f"{p}/{{}}" for p in parts[:-1]) + ("/" if len(parts) > 1 else "")
        out = []
        for action, method, below, form in _RESOURCE:
            if form and head.name == "apiResource":
                continue
            if (kept is not None and action not in kept) or action in dropped:
                continue
            out.append((method, f"{base}{parts[-1]}{below}", cls, action))
        return out
    return []


def _action(args: str) -> tuple[str, str]:
    """The controller class and method a route's handler argument names; ("", "") for a
    closure."""
    text = args.strip().lstrip(",").strip()
    pair = re.match(r"\[\s*\\?([\w\\]+)::class\s*,\s*(['\"])(\w+)\2", text)
    if pair:
        return pair.group(1), pair.group(3)
    action = _ACTION.match(text.split(",")[0].strip())
    if action:
        return action["class"], action["method"]
    invokable = re.match(r"\\?([\w\\]+)::class", text)
    if invokable:
        return invokable.group(1), "__invoke"
    name = re.match(r"""(['"])(\w+)\1""", text)
    return ("", name.group(2)) if name else ("", "")


def _first_string(args: str) -> str:
    found = _STRING.search(args)
    return found.group(2) if found else ""


def _class_name(args: str) -> str:
    found = _CLASS.search(args)
    return found["name"] if found else ""


def _handler(resolver: Resolver, ctx: Ctx, written: str, action: str) -> str:
    """The node handling a route: the controller's method, else the controller, else
    the routes file."""
    short = written.rsplit("\\", 1)[-1]
    used = resolver.php_imported(ctx, short)
    cls: SymbolRecord | None = used if isinstance(used, SymbolRecord) else None
    if cls is None:
        named = [s for s in resolver.index.by_name(short, ctx.repo) if s.kind == "class"]
        cls = named[0] if len(named) == 1 else None
    if cls is None:
        return ctx.file_id
    for s in resolver.index.symbols(cls.repo, cls.path):
        if s.qualified_name == f"{cls.qualified_name}.{action}":
            return s.id
    return cls.id
