"""What one file says about names: its scopes and bindings, references and routes.

Facts are extracted once per file version (``extract.py``) and stored as JSON, so a file
can be resolved again (because a file it imports changed) without reading or parsing it.
Everything here is syntax; meaning comes from ``resolve.py``.

A binding value is a short string:

- ``def:Q`` a definition of this file with qualified name ``Q``;
- ``import:M`` the module ``M`` (``import a.b`` binds ``a`` to ``import:a``; JS
  ``import * as ns from './m'`` and ``require('./m')`` bind to ``import:./m``);
- ``from:M:N`` the name ``N`` of module ``M`` (``from .a import b``; JS named and default
  imports, ``default`` for the latter);
- ``expr:C`` the value of an expression chain ``C`` (see below), e.g. ``expr:Foo()``;
- ``type:C`` an instance of the type written ``C`` (annotations);
- ``self:Q`` / ``cls:Q`` the first parameter of a method of class ``Q``;
- ``str:S`` a string literal (kept for URL paths of HTTP calls);
- ``lit:T`` another literal (a number, a comprehension, …): a builtin object;
- ``cont:N`` a list, tuple, set or dict literal whose elements are bound to the pseudo
  name ``N[]`` in the same scope (``d = {"a": f}`` binds ``d`` to ``cont:d`` and ``d[]`` to
  ``expr:f``; ``d["b"] = g`` and ``d.update(…)`` add to ``d[]``);
- ``wrap:Q|C1|C2`` the definition ``Q`` passed through its decorators ``C1``, ``C2`` (in
  source order; applied bottom-up): the name holds what the decorators return.

Pseudo names ``obj.attr`` (Python) record an attribute set on an object other than
``self``: ``settings.PREFIX = v`` binds ``settings.PREFIX`` where ``settings`` is bound;
a module-level ``settings = Settings(PREFIX=v)`` binds ``settings(PREFIX)`` (and
``settings(**)`` for a ``**`` argument). A class-level default read through such an
object is then not trusted (``Resolver.instance_string``).

Pseudo names in a function's own scope: ``<return>`` (each returned expression) and
``<yield>`` (each yielded one: calling a generator function gives a generator of them).

A chain is a reference written the way ``parse.py`` writes names: dotted segments, each
a name followed by ``()`` for a call or ``[]`` for a subscript (``self.repo.get().save``);
``?`` stands for a receiver that is not a name (a literal, a parenthesised expression).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codecompass.indexing.treesitter import Node

# Bumped whenever extraction or resolution changes: the next link stage extracts the
# facts of every file stored under another version again and resolves every file, so an
# upgraded index gets the new graph without `--full`. 7: submodules bound by their own
# package's import, tsconfig aliases, name look-ups per repository, Rust's prelude. 8: C#
# properties with code are functions; a name guessed from code is never a test's. 9: the
# calls (and inheritance, imports) of Kotlin, Swift, Scala, Dart, Elixir, Lua and the
# other grammar-only languages; a qualified name written picks its symbol. 10: a method
# every object has (`toString`, `to_s`, `clone`) is not guessed by name. 11: imports of
# Fortran, Haskell, Perl, Elixir, Julia and Lua (`use`, `import`, `alias`, `using`,
# `include("…")`, `require`). 12: Python's dispatch by name (`getattr(self, "visit_" + …)`)
# calls the methods so named. 13: also a name built with `%` or `.format`
# (Django's `getattr(self, "clean_%s" % name)`). 14: and the handlers of a mixin, from the
# class that joins it to the dispatcher. 15: a crate of the same Cargo workspace is that
# crate, not an external one (`use globset::…` in ripgrep's `ignore`), and `extern crate
# x as y` binds `y`; a Vue or Svelte component's scripts and the components its template
# uses are read (an unimported one by name), an import of `./Nav.svelte` reaches that
# file, SvelteKit's `$lib` is its `src/lib`; a Python namespace package is named from
# its distribution's root (langgraph); NestJS's decorators declare routes. 16: NestJS's
# global prefix and `@Controller({ path })`; C#'s `global using` reaches its project, a
# keyword type is no member of an outside base, declared types are `type` references, a
# repository extension method is found by name; PHP's `use` through Composer's PSR-4
# map, typed properties, `X::class`; Ruby's bare calls, callback macros, job enqueues
# and associations; a JS/TS export list names the definition, an attribute through a
# module-level constant is its value's, a Prisma client's call its model; routes
# declared by file paths (Next.js, SvelteKit, Nuxt), Laravel's and Rails's route tables,
# ASP.NET routes and HttpClient calls, clients named as such. 17: a Ruby receiver holds
# the class it is named after (`self`, `@family` → `Family`); Spring MVC and JAX-RS
# routes, Java/Kotlin HTTP clients, Spring Cloud Gateway routes and context paths; Go
# routers and clients; Django's route names, included lists and ORM managers; jQuery
# and locust requests; classic scripts' globals; Kotlin declared types and imports;
# C#'s `using static`; Java record accessors; Go's `String`/`Error` not guessed; an
# argument followed into another file's body is evidenced at the call passing it. 18:
# Thymeleaf pages' links and forms request routes; a Django model's `<model>_set`. 19:
# Symfony's routing configuration, route names and test requests. 20: a Symfony YAML
# route's controller by its namespace, routes with no handler here, chained test requests.
# 21: a call on a class (Kotlin) reaches the class's own method before a nested class's
# override of it (an enum entry's). 22: a URL after a base not read may end a longer
# route; `settings.PREFIX` of `settings = Settings(PREFIX="/v2")` is the string given.
# 23: a word right after an unread base starts a relative URL (`${this.url}tv/pending`);
# ASP.NET route attributes of the repository's own (`[ApiV1]`) and of base controllers.
# 24: objects named `requests` or `request` are HTTP clients (supertest's `request(app)`).
# 25: a name read, not called, is a class's field or property before a method of that name
# (C#'s `MovieRepository => …` property as a receiver). 26: an Angular template calls its
# component's methods. 27: a Ruby (Elixir, Crystal) constant the repository does not
# define is from outside: its methods are never guessed by name (`File.join`). 28: where
# the caller can see it, from its scope outwards (`App::Renderer::File` is no `File` in
# `App::Cache`); a C function named as a value is referenced. 29: a lowercase Ruby
# receiver holds the class so named that its caller can see (`document` in
# `Jekyll::Renderer` is a `Jekyll::Document`, not a script's top-level `Document`).
# 30: a Rust receiver of unknown type calling a method of the standard library's
# collections, strings, options or iterators (`len`, `push`) is not guessed by name.
# 31: a Ruby class reopened in several files is called as one (`Serve.new`).
# 32: a Ruby mixin calls the methods of the classes including it, not of any class.
# 33: a Python attribute read running a property is a call of it (`self.root`).
# 34: a Python name narrowed by `isinstance` holds that class in its branch; a Rust
# crate's methods on an outside type (`impl CommandExt for Command`) are its calls'.
# 35: a Python name read, not called, of the module's own constant or function (defined
# or imported at the top level) is a `value` ref (`limit = DEFAULT_LIMIT`, `key=by_name`).
# 36: so is one read through an imported module (`settings.DEFAULT_LIMIT`, a constant's
# name or an argument: `key=utils.by_name`). 37: a Python `except` clause references the
# classes it catches. 38: JavaScript and TypeScript names read, not called, are `value`
# refs too (`MAX_RETRIES + 1`, `items.sort(byName)`, `config.MAX_RETRIES`). 39: a Python
# read or call through a module-level object references the function that built it
# (`pattern = _build()`, then `pattern.fullmatch(s)`). 40: the object of an attribute
# is read (`PERMISSIONS.create`, `_HOSTNAME.match(host)`), and a class body's or the
# module's reads count at each line (each decorated method, default or constant).
# 41: `from app import auth` and `from . import auth` in a namespace package (no
# `app/__init__.py`) import the module `app/auth.py` (the resolver's change: every file
# is linked again). 42: a Python name annotated as a container of a type (`items:
# list[Selectable]`, a dataclass field) holds elements of that type, and an attribute read
# through a name of known value (`s: Selectable`, `for s in items`) may run a property.
# 43: `Annotated[list[X], Field(…)]` is a container of X too.
FACTS_VERSION = 43

# Calls that may publish to or subscribe to a topic, a queue or an event (the last
# segment of the called chain; `graph/events.py` tells which really do): their
# arguments are always kept (`Ref.values`), string literals and the elements of list
# and object literals included.
EVENT_CALLS = frozenset(
    {
        *("send", "send_and_wait", "produce", "subscribe", "publish", "request"),
        *("KafkaConsumer", "AIOKafkaConsumer", "basic_publish", "basic_consume"),
        *("send_message", "send_message_batch", "receive_message"),
        *("send_robust", "connect", "receiver"),
        *("emit", "on", "once", "addListener", "prependListener", "prependOnceListener"),
        *("sendToQueue", "consume"),
    }
)
# Calls registering the handlers of an rpc service (Node `server.addService(svc, {…})`,
# `graph/rpc.py`): their arguments are kept as those of `EVENT_CALLS` are.
SERVICE_CALLS = frozenset({"addService"})

REF_KINDS = (
    "call",  # a call of the chain
    "import",  # an import statement (name = the module spec, or spec:name)
    "inherit",  # a base class / extends / embedding
    "implement",  # TS/Java `implements`
    "type",  # a type annotation or type use
    "decorate",  # a decorator applied to a definition (a call, whose argument is the def)
    "iterate",  # `for x in <chain>`: calls `__iter__` / `__next__` of a workspace class
    "value",  # a function or method named as a value (a references edge); Python: also
    # a module's constant read
    "doc",  # a mention in a doc comment or a Markdown section (backticks)
    "link",  # an explicit link: @see, {@link}, a Sphinx role, a Markdown link to code
    "file",  # a Markdown link to a file of the repository (name = repo-relative path)
    "dispatch",  # Python `getattr(self, "prefix" + …)`: calls the methods named prefix…
    "catch",  # Python `except X:`: the class it catches (a references edge)
)


@dataclass(slots=True)
class Scope:
    name: str  # qualified name of the def/class, "" for the module
    kind: str  # module, class, function
    parent: int  # index of the enclosing scope, -1 for the module
    line: int  # line of the `def`/`class` keyword (0 for the module)
    bindings: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def bind(self, name: str, line: int, value: str) -> None:
        self.bindings.setdefault(name, []).append((line, value))


@dataclass(slots=True)
class Ref:
    kind: str
    name: str
    line: int
    scope: int  # the scope whose names the reference is looked up in
    args: list[str] | None = None  # string literal arguments of a call (URL paths, methods)
    # the arguments of a call as binding values: ("", value) positional, ("name", value)
    # keyword; only kept when one of them can hold code (a name, a container), or for
    # an `EVENT_CALLS` call, whose list and object literal arguments also give their
    # elements: ("0[]", value) for each element of the first positional argument,
    # ("topics[]", value) of a keyword one, ("0.topic", value) for a key of an object
    values: list[tuple[str, str]] | None = None


@dataclass(slots=True)
class ClassFacts:
    scope: int  # the class's own scope
    bases: list[str] = field(default_factory=list)  # chains, looked up in the parent scope
    implements: list[str] = field(default_factory=list)
    # attributes set on instances (self.x = …, TS fields): name → [(scope, value)], the
    # value being looked up in that scope (the method that assigned it)
    attrs: dict[str, list[tuple[int, str]]] = field(default_factory=dict)


@dataclass(slots=True)
class FunctionFacts:
    scope: int
    returns: str = ""  # the return annotation as a chain, "" when absent
    decorators: list[str] = field(default_factory=list)
    params: list[str] = field(default_factory=list)  # in order; `*args`, `**kwargs` marked


@dataclass(slots=True)
class Endpoint:
    """An operation a file declares for other services to call: an OpenAPI operation
    (`kind` "openapi", `name` "GET /users/{id}" with the servers' base path in front,
    `alias` its operationId) or an rpc of a ``.proto`` service ("rpc",
    "shop.Checkout/PlaceOrder"); `symbol` is the qualified name of the symbol that
    declares it (``paths./users/{id}.get``, ``Checkout.PlaceOrder``)."""

    kind: str
    name: str
    line: int
    symbol: str
    alias: str = ""


@dataclass(slots=True)
class FileFacts:
    language: str
    scopes: list[Scope] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    classes: dict[str, ClassFacts] = field(default_factory=dict)
    functions: dict[str, FunctionFacts] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)  # `from m import *`, `export * from 'm'`
    exports: dict[str, str] = field(default_factory=dict)  # JS: exported name → value
    prefixes: dict[str, str] = field(default_factory=dict)  # router variable → URL prefix
    endpoints: list[Endpoint] = field(default_factory=list)  # OpenAPI operations, rpcs
    # C#'s `global using N;` ("N") and `global using A = N.T;` ("A=N.T"): seen by every
    # file of the project.
    global_imports: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "language": self.language,
            "scopes": [[s.name, s.kind, s.parent, s.line, s.bindings] for s in self.scopes],
            "refs": [_ref_row(r) for r in self.refs],
            "classes": {
                q: [c.scope, c.bases, c.implements, c.attrs] for q, c in self.classes.items()
            },
            "functions": {
                q: [f.scope, f.returns, f.decorators, f.params] for q, f in self.functions.items()
            },
            "stars": self.stars,
            "exports": self.exports,
            "prefixes": self.prefixes,
        }
        if self.endpoints:
            data["endpoints"] = [
                [e.kind, e.name, e.line, e.symbol, e.alias] for e in self.endpoints
            ]
        if self.global_imports:
            data["global_imports"] = self.global_imports
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> FileFacts:
        data = json.loads(text)
        scopes = [
            Scope(
                name,
                kind,
                parent,
                line,
                {k: [(int(a), str(b)) for a, b in v] for k, v in bindings.items()},
            )
            for name, kind, parent, line, bindings in data["scopes"]
        ]
        refs = [
            Ref(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4] if len(r) > 4 else None,
                [(str(k), str(v)) for k, v in r[5]] if len(r) > 5 else None,
            )
            for r in data["refs"]
        ]
        classes = {
            q: ClassFacts(
                c[0], c[1], c[2], {k: [(int(a), str(b)) for a, b in v] for k, v in c[3].items()}
            )
            for q, c in data["classes"].items()
        }
        functions = {q: FunctionFacts(f[0], f[1], f[2], f[3]) for q, f in data["functions"].items()}
        return cls(
            language=data["language"],
            scopes=scopes,
            refs=refs,
            classes=classes,
            functions=functions,
            stars=data["stars"],
            exports=data["exports"],
            prefixes=data["prefixes"],
            endpoints=[Endpoint(*row) for row in data.get("endpoints", [])],
            global_imports=data.get("global_imports", []),
        )

    def interface_key(self) -> str:
        """What other files can see of this one: a change here re-resolves importers.

        Of a function body, callers see what it returns and yields, and the uses of its
        parameters (a call passing a function or an object follows it into the body),
        without their lines: a one-function edit elsewhere in the body costs nothing.
        """
        visible = {
            "scopes": [
                [s.name, s.kind, {k: [v for _, v in b] for k, b in s.bindings.items()}]
                for s in self.scopes
                if s.kind != "function"
            ],
            "bodies": [
                [
                    s.name,
                    {k: [v for _, v in s.bindings[k]] for k in _BODY_OUT if k in s.bindings},
                ]
                for s in self.scopes
                if s.kind == "function"
            ],
            "uses": sorted({(r.kind, r.name) for r in self.refs if self._uses_param(r)}),
            "classes": {q: [c.bases, c.implements, c.attrs] for q, c in self.classes.items()},
            "functions": {
                q: [f.returns, f.decorators, f.params] for q, f in self.functions.items()
            },
            "stars": self.stars,
            "exports": self.exports,
            "prefixes": self.prefixes,
        }
        if self.global_imports:
            visible["global_imports"] = self.global_imports
        return json.dumps(visible, sort_keys=True, separators=(",", ":"))

    def _uses_param(self, ref: Ref) -> bool:
        """A reference in a function body that starts from a name the function does not
        bind itself but a parameter may hold (its head or one of its arguments)."""
        if ref.scope <= 0 or ref.scope >= len(self.scopes):
            return False
        heads = [ref.name.split(".", 1)[0].split("(", 1)[0].split("[", 1)[0]]
        heads += [v[5:].split(".", 1)[0].split("(", 1)[0] for _, v in ref.values or []]
        return any(self._param_scope(h, ref.scope) for h in heads if h)

    def _param_scope(self, name: str, scope: int) -> bool:
        index = scope
        while 0 < index < len(self.scopes):
            s = self.scopes[index]
            if name in s.bindings:
                function = self.functions.get(s.name)
                return (
                    function is not None
                    and function.scope == index
                    and any(p.lstrip("*") == name for p in function.params)
                )
            index = s.parent
        return False


# A pseudo name `obj.attr` as `to_json` writes a scope's bindings: `"obj.attr":[[`.
_OBJECT_ATTRIBUTE = re.compile(r'"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\.([A-Za-z_]\w*)":\[\[')


def assigned_attributes(facts_json: str) -> set[str]:
    """The attributes a file sets on objects other than `self` (the pseudo names
    `obj.attr` of its scopes: `settings.PREFIX = …`), read from stored facts without
    decoding them."""
    return set(_OBJECT_ATTRIBUTE.findall(facts_json))


# Pseudo names of a function scope that callers read (see the module docstring).
_BODY_OUT = ("<return>", "<yield>")


def _ref_row(ref: Ref) -> list[Any]:
    row: list[Any] = [ref.kind, ref.name, ref.line, ref.scope]
    if ref.args or ref.values:
        row.append(ref.args)
    if ref.values:
        row.append([list(pair) for pair in ref.values])
    return row


# A constant's name by convention: `DEFAULT_LIMIT`, `MAX2`.
CONSTANT_NAME = re.compile(r"_*[A-Z][A-Z0-9_]*")


def binding_scope(scopes: Sequence[Scope], scope: int, name: str) -> int:
    """The scope whose binding of `name` the code of `scope` sees (-1: none), looking
    outwards as Python does: a class body's names are not seen from its methods."""
    index = scope
    while index >= 0:
        current = scopes[index]
        if (index == scope or current.kind != "class") and name in current.bindings:
            return index
        index = current.parent
    return -1


class Reads:
    """The names each scope reads, not calls, for `add_module_values`: a function's
    first read of each name, and a class body's or the module's at each line (a
    decorated method's decorator, a default, a constant: each read for another
    symbol)."""

    def __init__(self, scopes: Sequence[Scope]) -> None:
        self.scopes = scopes
        self.lines: dict[tuple[int, str, int], int] = {}

    def note(self, scope: int, name: str, line: int) -> None:
        once = 0 if self.scopes[scope].kind == "function" else line
        self.lines.setdefault((scope, name, once), line)


def add_module_values(facts: FileFacts, reads: Reads) -> None:
    """A `value` ref for each name a scope reads, not calls, that is the module's own:
    defined or imported at the top level, not a local, a parameter or an enclosing
    function's name, or `module.NAME` through a module the file imports. The object of
    an attribute counts (`PERMISSIONS.create`, `_HOSTNAME.match(host)`): a class or a
    module named so makes no edge (the resolver keeps constants and functions)."""
    scopes = facts.scopes
    for (scope, name, _), line in reads.lines.items():
        head, dot, _ = name.partition(".")
        if binding_scope(scopes, scope, head) != 0:
            continue
        if dot and not scopes[0].bindings[head][-1][1].startswith(("import:", "from:")):
            continue  # `Box.SIZE`, `S.Zero`: an attribute of an object, not a module's
        facts.refs.append(Ref("value", name, line, scope))


def written(node: Node, where: Mapping[str, tuple[str, ...]]) -> bool:
    """Whether a name node is written, bound or called where it stands, not read: its
    parent's type maps (`where`) to the fields that hold such names ("" for any child):
    a parameter, a target, a keyword's name, the function of a call."""
    parent = node.parent
    fields = where.get(parent.type) if parent is not None else None
    if parent is None or fields is None:
        return False
    return "" in fields or any(parent.child_by_field_name(f) == node for f in fields)
