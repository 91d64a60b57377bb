"""Routes a framework's route table declares: Laravel's `routes/*.php` and Rails's
`config/routes.rb`.

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

Rails (`config/routes.rb`, read line by line, `do … end` blocks nested):

| written                                          | routes                           |
| ------------------------------------------------ | -------------------------------- |
| `resources :accounts`                            | index, new, create, show, edit,  |
|                                                  | update, destroy                  |
| `resource :session`                              | the same but index, without `{}` |
| `member do post :sync end`, `on: :member`        | `POST /accounts/{}/sync` → sync  |
| `collection do get :summary end`                 | `GET /accounts/summary`          |
| `get "changelog", to: "pages#changelog"`         | `GET /changelog` →               |
| (`get "x" => "c#a"`)                             | `PagesController.changelog`      |
| `root "pages#dashboard"`                         | `GET /`                          |
| `namespace :api`, `scope "/admin"`, `scope module: :x` | prefixes, controller modules |

`only:` and `except:` narrow `resources`; `controller:` and `module:` name the controller;
a nested `resources` goes below its parent's `{}`. The controller `api/v1/accounts` is the
class `Api::V1::AccountsController`, its action the method so named.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace

from codecompass.graph.http import route_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.inflection import camel, plural, singular
from codecompass.indexing.textscan import LineIndex, Syntax, mask, matching
from codecompass.models import HttpFact, SymbolRecord

_PHP = Syntax(line_comments=("//", "#"), block_comments=(("/*", "*/"),))
_ROUTE = re.compile(r"\bRoute::")
_FIRST_CALL = re.compile(r"\s*(?P<name>\w+)\s*\(")
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
    """The routes a Laravel routes file or a Rails `config/routes.rb` declares (see the
    module docstring)."""
    laravel = ctx.language == "php" and "routes" in ctx.path.split("/")[:-1]
    rails = ctx.language == "ruby" and ctx.path.endswith("config/routes.rb")
    if not laravel and not rails:
        return []
    text = resolver.file_text(ctx)
    if rails:
        return _rails_routes(resolver, ctx, text)
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
    while True:
        found = (_LINK if calls else _FIRST_CALL).match(masked, position)
        if found is None:
            return calls
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


# ---------------------------------------------------------------------------- Rails

_RAILS_ACTIONS = (  # (action, method, below the collection, on a member)
    ("index", "GET", "", False),
    ("new", "GET", "/new", False),
    ("create", "POST", "", False),
    ("show", "GET", "", True),
    ("edit", "GET", "/edit", True),
    ("update", "PATCH", "", True),
    ("update", "PUT", "", True),
    ("destroy", "DELETE", "", True),
)
_RAILS_VERBS = ("get", "post", "put", "patch", "delete")
_RAILS_WORD = re.compile(r"""^\s*(?P<word>\w+)\b\s*(?P<rest>.*?)\s*$""")
_RAILS_NAME = re.compile(r""":(\w+)|(['"])(.*?)\2""")
# `as: :user`, or the older `:as => "user"`
_RAILS_OPTION = re.compile(
    r"""(?::(\w+)\s*=>\s*|\b(\w+):\s*)"""
    r"""(?:(['"])(.*?)\3|:(\w+)|%i\[([^\]]*)\]|\[([^\]]*)\])"""
)
_RAILS_TARGET = re.compile(r"""=>\s*(['"])(\w[\w/]*#\w+)\1""")
_BLOCK = re.compile(r"\bdo(\s*\|[^|]*\|)?\s*$")
_OPENS = re.compile(r"^\s*(?:if|unless|case|begin|while|until|def|class|module)\b")


@dataclass(frozen=True, slots=True)
class _Scope:
    """One open `do … end` block: what it adds to the paths and controllers inside."""

    path: str = ""  # the segments its routes go below ("accounts/{}" in a member)
    module: str = ""  # controller module ("api/v1")
    controller: str = ""  # the resource's controller, for `get :sync` inside it
    member: str = ""  # a resource's member path, for `post :x, on: :member`
    collection: str = ""  # its collection path
    name: str = ""  # what route names go below (`api_v1`, `account` in its block)
    member_name: str = ""  # a resource's one (`account`: `sync_account`)
    collection_name: str = ""  # and many (`accounts`: `search_accounts`)
    block: str = ""  # "member" or "collection" inside such a block


def _rails_routes(resolver: Resolver, ctx: Ctx, text: str) -> list[HttpFact]:
    stack: list[_Scope] = [_Scope()]
    found: list[HttpFact] = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""
        parsed = _RAILS_WORD.match(line)
        if parsed is None:
            continue
        word, rest = parsed["word"], parsed["rest"]
        opens = _BLOCK.search(line) is not None
        if word == "end":
            if len(stack) > 1:
                stack.pop()
            continue
        here = stack[-1]
        scope = _rails_line(word, _BLOCK.sub("", rest), here, number, found)
        if opens:
            stack.append(scope or _Scope(here.path, here.module, here.controller, name=here.name))
        elif _OPENS.match(line):
            stack.append(here)  # an `if … end` in the routes: nothing of its own
    return [
        replace(fact, node=_rails_handler(resolver, ctx, *fact.node.split("#", 1)))
        for fact in found
    ]


def _rails_line(
    word: str, rest: str, here: _Scope, line: int, out: list[HttpFact]
) -> _Scope | None:
    """The routes one line of `routes.rb` declares (into `out`, with `controller#action`
    as their node until resolved) and the scope a block it opens gives its lines."""
    names = [m.group(1) or m.group(3) for m in _RAILS_NAME.finditer(rest.split(",")[0])]
    options = _options(rest)
    if word in ("resources", "resource"):
        many = word == "resources"
        for name in [m.group(1) or m.group(3) for m in _RAILS_NAME.finditer(_head(rest))]:
            module = "/".join(p for p in (here.module, options.get("module", "")) if p)
            # a singular resource's controller is plural (`resource :session` → sessions)
            controller = options.get("controller") or (name if many else plural(name))
            controller = f"{module}/{controller}" if module else controller
            base = _join(here.path, options.get("path", name))
            member = f"{base}/{{}}" if many else base
            kept = _listed(options, "only")
            dropped = _listed(options, "except") or []
            called = options.get("as", name)  # `resources :mails, as: "mod_mails"`
            one = _name(here.name, singular(called) if many else called)
            every = _name(here.name, called) if many else one
            for action, method, below, on_member in _RAILS_ACTIONS:
                if not many and action == "index":
                    continue
                if (kept is not None and action not in kept) or action in dropped:
                    continue
                path = (member if on_member else base) + below
                node = f"{controller}#{action}"
                out.append(HttpFact("route", method, route_path("/" + path), line, node))
                named = one if on_member or not many else every
                if action in ("new", "edit"):
                    named = f"{action}_{one}"
                out.append(HttpFact("named", method, named, line, node))
            nested = f"{base}/{{}}" if many else base
            # a singular resource's own verbs are its member's (`verify_mfa`)
            block = "" if many else "member"
            scope = _Scope(nested, here.module, controller, member, base, one, one, every, block)
        return scope if names else None
    if word == "namespace" and names:
        module = _join(here.module, names[0])
        path = _join(here.path, options.get("path", names[0]))
        return _Scope(path, module, name=_name(here.name, options.get("as", names[0])))
    if word == "scope":
        path = names[0] if names and not rest.lstrip().startswith(("module", "path")) else ""
        path = options.get("path", path)
        module = _join(here.module, options.get("module", ""))
        return _Scope(
            _join(here.path, path.strip("/")), module, name=_name(here.name, options.get("as", ""))
        )
    if word in ("member", "collection") and here.controller:
        path = here.member if word == "member" else here.collection
        return replace(here, path=path, block=word)
    if word == "root":
        target = options.get("to") or (names[0] if names else "")
        if "#" in target:
            node = _in_module(here.module, target)
            out.append(HttpFact("route", "GET", "/", line, node))
            out.append(HttpFact("named", "GET", _name(here.name, "root"), line, node))
        return None
    if word in (*_RAILS_VERBS, "match") and names:
        methods = (
            [word.upper()]
            if word != "match"
            else [v.upper() for v in (_listed(options, "via") or ["*"])]
        )
        name = names[0]
        arrow = _RAILS_TARGET.search(rest)
        target = options.get("to") or (arrow.group(2) if arrow else "")
        on = options.get("on")
        path = here.member if on == "member" else here.collection if on == "collection" else ""
        path = _join(path or here.path, name)
        if not target and here.controller:
            target = f"{here.controller}#{options.get('action', name)}"
        elif target and "#" in target and here.module and "/" not in target.split("#")[0]:
            target = _in_module(here.module, target)
        if "#" not in target:
            return None
        block = here.block or (on if on in ("member", "collection") else "")
        if "as" in options:
            named = _name(here.name if not block else "", options["as"])
        elif any(c in name for c in ":*("):
            named = ""  # a path with parameters: Rails names it only when told
        elif block:
            owner = here.member_name if block == "member" else here.collection_name
            named = f"{_name('', name)}_{owner}"
        else:
            named = _name(here.name, name)
        for method in methods:
            out.append(HttpFact("route", method, route_path("/" + path), line, target))
            if named:
                out.append(HttpFact("named", method, named, line, target))
    return None


def _name(prefix: str, written: str) -> str:
    """A route's name below `prefix`: `api` + `accounts` → `api_accounts`;
    `changelog/latest` → `changelog_latest`."""
    own = re.sub(r"\W+", "_", written.strip("/")).strip("_")
    return "_".join(p for p in (prefix, own) if p)


def _head(rest: str) -> str:
    """The names before the options: `:accounts, :entries, only: …` → `:accounts, :entries`."""
    found = re.search(r"\b\w+:\s", rest)
    return rest[: found.start()] if found else rest


def _options(rest: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _RAILS_OPTION.finditer(rest):
        value = m.group(4) or m.group(5) or m.group(6) or m.group(7) or ""
        out[m.group(1) or m.group(2)] = value
    return out


def _listed(options: dict[str, str], key: str) -> list[str] | None:
    if key not in options:
        return None
    return [w.strip(" :'\"") for w in re.split(r"[\s,]+", options[key]) if w.strip(" :'\"")]


def _join(*parts: str) -> str:
    return "/".join(p.strip("/") for p in parts if p and p.strip("/"))


def _in_module(module: str, target: str) -> str:
    return f"{module}/{target}" if module else target


def _rails_handler(resolver: Resolver, ctx: Ctx, controller: str, action: str) -> str:
    """`api/v1/accounts` + `sync` → `Api::V1::AccountsController#sync`'s node, else the
    controller's, else the routes file's."""
    parts = [camel(p) for p in controller.split("/") if p]
    if not parts:
        return ctx.file_id
    qualified = ".".join([*parts[:-1], parts[-1] + "Controller"])
    classes = [s for s in resolver.index.by_qualified(qualified, ctx.repo) if s.kind == "class"]
    if not classes:
        return ctx.file_id
    methods = resolver.index.by_qualified(f"{qualified}.{action}", ctx.repo)
    return methods[0].id if methods else classes[0].id
