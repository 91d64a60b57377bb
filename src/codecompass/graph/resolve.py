"""Resolve one file's references into edges, each with an honest confidence.

Python and JavaScript/TypeScript are resolved through scopes and imports: a chain such
as ``self.repo.get().save`` is evaluated segment by segment into a value — a module, a
symbol, an instance of a class, something external (``requests.Session``), a builtin —
following imports (relative and absolute, aliases, re-exports, ``index`` files,
``require``), class attributes, instance attributes, return annotations and the class
hierarchy. Go, Java, C# and Rust are resolved through packages, imports and declared
types by ``resolve_typed.py``; C, C++, Ruby, PHP and the languages read through their
grammar alone (Kotlin, Swift, Scala, Dart, Elixir, Lua…) by name. Confidence:

====================================================  ==========
static import; a name bound to a definition             1.0
attribute of an imported module (``mod.f()``)           0.9
through an instance or class (``self.``, ``cls.``,      0.8
``super()``, inferred and annotated types)
Go, Java, C#, Rust: a function or type of the package,  1.0
or one an import names
Go, Java, C#, Rust: package-qualified (``pkg.F()``)     0.9
Go, Java, C#, Rust: through a declared or inferred      0.8
type (receiver, field, local, return, interface)
By name: same file, class or imported package          0.7
By name: the qualified name written (``Repo.get`` is    0.7
``MyApp.Repo.get``, not another ``get``)
a name bound to different things in its scope           0.6
By name: a unique name in the repository                0.5
an ambiguous name: each of k ≤ 3 candidates (Go, Java,  min(0.4, 0.8/k)
C#, Rust: a method guessed for a receiver of unknown
type; overloads the arguments cannot tell apart)
====================================================  ==========

A reference that resolves to nothing in the workspace is stored *unresolved* with its
name (``?os.path.join`` when it is known to come from outside, ``?obj.save`` when
nothing is known); Python and JS never guess a bare name, and guess a method by name
only when the receiver's type is unknown (never when it is external or builtin).
"""

from __future__ import annotations

import builtins
import posixpath
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TypeVar

from codecompass.graph.http import RELATIVE as RELATIVE_URL
from codecompass.graph.http import UNKNOWN as UNKNOWN_PREFIX
from codecompass.graph.http import client_path, named_as, route_path
from codecompass.graph.index import Package, SymbolIndex, file_key
from codecompass.graph.models import EDGE_WEIGHTS, LINK_WEIGHT, MEMBER_WEIGHT, TYPE_KINDS
from codecompass.graph.php import Roots, composer_roots, declaring_files
from codecompass.indexing.extract import DEEP_LANGUAGES, ECMA_LANGUAGES
from codecompass.indexing.extract_python import URL_NAME_CALLS
from codecompass.indexing.facts import FileFacts, FunctionFacts, Ref, binding_scope
from codecompass.indexing.inflection import camel
from codecompass.indexing.languages import is_test_path, language_for_path, stub_module
from codecompass.indexing.textscan import LineIndex, Syntax, mask, matching
from codecompass.models import Edge, HttpFact, SymbolRecord

CONF_EXACT = 1.0
CONF_MODULE_ATTR = 0.9
CONF_SCOPE = 0.8
CONF_NEAR = 0.7
CONF_REBOUND = 0.6
CONF_UNIQUE = 0.5
CONF_AMBIGUOUS = 0.4
COMPONENT_EXTENSIONS = (".vue", ".svelte")
# A method named `prefix…` of a class whose method calls `getattr(self, "prefix" + …)`:
# called when the name built at run time is its own, which the code does not say.
CONF_DISPATCH = 0.6
MAX_CANDIDATES = 3
MAX_DEPTH = 12
FLOW_DEPTH = 3  # calls deep that an argument is followed into function bodies
END = 10**9  # "after every line": module-level names as seen from a function body

# Functions every program of a language can call without importing them: a call to one
# is no edge (it used to show as an unresolved `?append` node).
LANGUAGE_BUILTINS: dict[str, frozenset[str]] = {
    "go": frozenset(
        {
            *("append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len"),
            *("make", "max", "min", "new", "panic", "print", "println", "real", "recover"),
        }
    ),
    # The shell's own commands (nvm's `return` and `command` were 500 of its calls).
    "bash": frozenset(
        {
            *("return", "local", "export", "declare", "typeset", "readonly", "unset", "set"),
            *("shift", "command", "builtin", "echo", "printf", "read", "cd", "exit", "eval"),
            *("exec", "source", ".", "test", "[", "[[", "true", "false", ":", "trap", "wait"),
            *("shopt", "alias", "unalias", "let", "getopts", "pwd", "pushd", "popd", "type"),
            *("hash", "umask", "kill", "break", "continue", "jobs", "ulimit"),
        }
    ),
}
_JVM_OBJECT = frozenset({"toString", "equals", "hashCode", "getClass", "clone", "finalize"})
# Methods every object of a language has (its root class, or the traits every type
# derives): `message.toString()` on a receiver of unknown type is not the one class of the
# repository that overrides it (shelf's `HijackException.toString` had 14 such callers).
OBJECT_METHODS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("java", "kotlin", "scala", "groovy"), _JVM_OBJECT),
    "csharp": frozenset({"ToString", "Equals", "GetHashCode", "GetType", "MemberwiseClone"}),
    "dart": frozenset({"toString", "hashCode", "noSuchMethod"}),
    **dict.fromkeys(
        ECMA_LANGUAGES, frozenset({"toString", "valueOf", "toLocaleString", "hasOwnProperty"})
    ),
    # Ruby: Object's, and Enumerable's and Kernel's that any collection or value answers
    # (maybe's `items.each` went to its one `Series#each`, 129 calls).
    "ruby": frozenset(
        {
            *("to_s", "inspect", "hash", "eql?", "==", "dup", "clone", "freeze", "tap"),
            *("then", "send", "public_send", "respond_to?", "is_a?", "nil?", "to_h", "to_a"),
            *("each", "each_with_index", "each_with_object", "map", "flat_map", "select"),
            *("filter", "reject", "find", "detect", "find_by", "where", "sum", "count"),
            *("group_by", "sort_by", "min_by", "max_by", "inject", "reduce", "first"),
            *("last", "include?", "any?", "all?", "none?", "empty?", "present?", "blank?"),
            *("presence", "try", "merge", "fetch", "dig", "keys", "values", "size", "uniq"),
        }
    ),
    # Go: fmt.Stringer's and error's, which any type may have (a uuid's `id.String()`)
    "go": frozenset({"String", "Error", "GoString"}),
    "swift": frozenset({"description", "debugDescription", "hash"}),
    "objc": frozenset({"description", "debugDescription", "isEqual", "hash", "copy"}),
    # Rust: the traits every type may have, and the methods of the standard library's
    # collections, strings, options and iterators. A receiver of unknown type calling
    # `len` or `push` holds a `Vec` or a `str` far more often than the repository's own
    # type: 24 of 25 of `just`'s guesses at its `Value.len` were wrong.
    "rust": frozenset(
        {"clone", "to_string", "to_owned", "fmt", "eq", "ne", "cmp", "hash"}
        | {"len", "is_empty", "push", "pop", "insert", "remove", "get", "get_mut", "clear"}
        | {"contains", "contains_key", "extend", "iter", "iter_mut", "into_iter", "keys"}
        | {"values", "entry", "first", "last", "push_str", "as_str", "as_ref", "as_mut"}
        | {"unwrap", "expect", "unwrap_or", "unwrap_or_default", "ok", "err", "map", "and_then"}
        | {"collect", "join", "split", "trim", "starts_with", "ends_with", "chars", "lines"}
        | {"next", "filter", "find", "any", "all", "count", "sum", "rev", "take", "skip"}
    ),
}
CALLABLE_KINDS = frozenset({"function", "method", "class", "struct", "constant", "variable"})
# Symbols that hold a value: an attribute read through one is the value's.
HELD_KINDS = frozenset({"constant", "variable"})
INTERFACE_KINDS = frozenset({"interface", "trait"})
# What a Python name read, not called, links to (`value` refs): a module's constant, or a
# function handed on (`sorted(key=by_name)`, a callback). A class named as a value is
# mostly an `isinstance` test, which says little about who depends on it.
MODULE_VALUE_KINDS = frozenset({"constant", "function"})
PY_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "reveal_type"}
JS_GLOBALS = frozenset(
    """
    console Object Array JSON Math Promise String Number Boolean Date Error TypeError
    RangeError SyntaxError RegExp Map Set WeakMap WeakSet Symbol BigInt parseInt parseFloat
    isNaN isFinite setTimeout clearTimeout setInterval clearInterval setImmediate require
    module exports process Buffer window document globalThis fetch Reflect Proxy Intl
    encodeURIComponent decodeURIComponent encodeURI decodeURI structuredClone queueMicrotask
    alert localStorage sessionStorage navigator location history URL URLSearchParams
    TextEncoder TextDecoder AbortController Headers Request Response FormData Blob File
    crypto performance describe it test expect jest beforeEach afterEach beforeAll afterAll
    vi Function Infinity NaN undefined arguments eval atob btoa requestAnimationFrame
    customElements HTMLElement Event CustomEvent EventTarget WebSocket Worker Uint8Array
    ArrayBuffer DataView Int32Array Float32Array Float64Array
    """.split()  # noqa: SIM905
)
# What a Vue or Svelte compiler defines inside a component's script: Vue's macros and
# Svelte 5's runes, no function of any module.
COMPONENT_MACROS = frozenset(
    """
    defineProps defineEmits defineExpose defineModel defineOptions defineSlots withDefaults
    $props $state $derived $effect $bindable $inspect $host
    """.split()  # noqa: SIM905
)
# Methods of str, bytes, list, dict, set, int: a call of one on an unknown receiver is
# most likely on a builtin, and is not guessed by name.
BUILTIN_METHODS = frozenset(
    name
    for kind in (str, bytes, list, dict, set, int, tuple)
    for name in dir(kind)
    if not name.startswith("__")
)
# Typing constructs: a value typed through them (a TypeVar, a generic container's
# element) is unknown, not external.
TYPING_ROOTS = frozenset({"typing", "typing_extensions", "collections", "abc"})
HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
CLIENT_ROOTS = frozenset({"requests", "httpx", "aiohttp", "axios"})
# A typed PHP property: declared, or promoted by a constructor parameter.
_PHP_PROPERTY = re.compile(
    r"\b(?:public|protected|private)\s+(?:readonly\s+)?\??\s*([A-Za-z_\\][\w\\]*)\s+\$(\w+)"
)
# Globals and hooks that fetch the URL they are given, as `fetch` does: Nuxt's `$fetch`,
# `useFetch`, ofetch, SWR's key (unless the repository defines the name itself).
FETCH_LIKE = frozenset({"$fetch", "useFetch", "useLazyFetch", "ofetch", "useSWR"})
# jQuery's requests, by method: `$.get(url)`, `$.getJSON(url)`, `$.ajax(url)`.
JQUERY_REQUESTS = {"get": "GET", "getJSON": "GET", "post": "POST", "ajax": "*"}
# Django: a model's managers, and the manager and queryset methods that give another
# queryset of its rows or one row (a `get_or_create` gives a pair: not followed).
DJANGO_MANAGERS = frozenset({"objects", "_default_manager", "_base_manager"})
QUERY_METHODS = frozenset(
    {
        *("all", "filter", "exclude", "order_by", "select_related", "prefetch_related"),
        *("annotate", "alias", "distinct", "only", "defer", "using", "select_for_update"),
        *("none", "reverse", "union", "intersection", "difference", "iterator"),
    }
)
INSTANCE_METHODS = frozenset(
    {
        *("get", "first", "last", "latest", "earliest", "create", "aget", "afirst"),
        *("alast", "alatest", "aearliest", "acreate"),
    }
)
# Bare functions a client hook hands out, by the method each calls.
HTTP_CALL_NAMES = {
    **{verb: verb.upper() for verb in ("get", "post", "put", "patch", "delete")},
    "del": "DELETE",
}
# Packages whose objects declare routes with `get`/`post` (`const api = express.Router()`):
# never a client, whatever their name.
SERVER_ROOTS = frozenset(
    {"express", "hono", "koa", "@koa/router", "koa-router", "fastify", "elysia", "h3"}
)
# Words naming an object as an HTTP client (a wrapper module, an injected HttpClient).
# `requests` and `request` too: mealie's `this.requests.post(…)`, supertest's
# `request(app).get(…)` (a header read, `ctx.request.get("host")`, holds no path).
HTTP_CLIENT_WORDS = frozenset(
    {"http", "https", "api", "client", "axios", "fetcher", "ky", "requests", "request"}
)
ROUTE_ROOTS = frozenset({"flask", "fastapi", "starlette", "django", "express"})
# Calls that mount a router on another: FastAPI, Flask, Express.
MOUNT_VERBS = frozenset({"include_router", "register_blueprint", "use"})
# Test clients of a framework call its routes (`TestClient(app).get("/users")`).
TEST_CLIENTS = frozenset({"testclient", "test_client"})
_PYTHON = Syntax(line_comments=("#",), quotes=('"""', "'''", '"', "'"))
# a module-level list: `check_urls = [`
_LIST_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*\[", re.M)
# a Ruby local, instance variable or method name: `family`, `plaid_account`
_RUBY_LOCAL = re.compile(r"[a-z][a-z0-9_]*")
# Languages whose capitalised receivers are constants (classes, modules), never locals.
_CONSTANT_RECEIVERS = frozenset({"ruby", "elixir", "crystal"})
_NAMESPACE_KINDS = TYPE_KINDS | {"module", "namespace"}
_PLAIN_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_SEGMENT = re.compile(r"^([^()\[\]]*)((?:\(\)|\[[^\[\]]*\])*)$")
_OP = re.compile(r"\(\)|\[([^\[\]]*)\]")
# A dotted name inside a URL argument (`extract_python.PythonExtractor.named_part`).
_NAMED_PART = re.compile(r"\{=([^{}]*)\}")


@dataclass(frozen=True, slots=True)
class Value:
    """What an expression evaluates to, as far as static reading can tell.

    Kinds: module, sym (a definition), inst (an instance of a class), ext (something from
    outside the workspace), builtin, super, cont (a container literal: its elements are
    bound to the pseudo name ``name[]`` in scope ``scope`` of ``path``), gen (a
    generator of what function ``sym`` yields), union (any of ``alts``), unknown,
    unbound.
    """

    kind: str
    conf: float = 1.0
    via: str = ""
    sym: SymbolRecord | None = None
    repo: str = ""
    path: str = ""
    name: str = ""  # external dotted name, builtin name, unbound name, container name
    scope: int = 0  # a container's scope
    alts: tuple[Value, ...] = ()
    bound: bool = False  # a method reached through an instance: `self` is passed

    @property
    def known(self) -> bool:
        return self.kind not in ("unknown", "unbound")

    @property
    def each(self) -> tuple[Value, ...]:
        return self.alts if self.kind == "union" else (self,)

    def weaker(self, conf: float, via: str | None = None) -> Value:
        if self.kind == "union":
            alts = tuple(a.weaker(conf, via) for a in self.alts)
            return replace(self, conf=min(self.conf, conf), alts=alts)
        return replace(self, conf=min(self.conf, conf), via=via or self.via)


UNKNOWN = Value("unknown", conf=0.0)
_T = TypeVar("_T")
MAX_VALUES = 8  # alternatives a name may hold before it counts as unknown


def _django_model(outside: Value) -> bool:
    """Whether a class's outside base is Django's (a model: `models.Model`)."""
    return outside.kind == "ext" and outside.name.split(".")[0] == "django"


def _rows_manager(model: SymbolRecord, outside: Value, name: str) -> Value:
    """`Check.objects`: the manager Django gives a model, querying its rows (see
    `QUERY_METHODS`, `INSTANCE_METHODS`)."""
    return Value("ext", conf=CONF_SCOPE, via="manager", name=f"{outside.name}.{name}", sym=model)


def _classic_script(facts: FileFacts) -> bool:
    """A script a page loads as is: it neither imports (`import`, `require`) nor
    exports."""
    return not facts.exports and not facts.stars and all(r.kind != "import" for r in facts.refs)


def union(values: list[Value]) -> Value:
    """One value for several alternatives: unknown ones dropped, duplicates merged."""
    seen: dict[tuple[str, str], Value] = {}
    for value in values:
        for alt in value.each:
            if not alt.known:
                continue
            key = _identity(alt)
            if key not in seen or alt.conf > seen[key].conf:
                seen[key] = alt
    if not seen:
        return UNKNOWN
    if len(seen) == 1:
        return next(iter(seen.values()))
    if len(seen) > MAX_VALUES:
        return UNKNOWN
    alts = tuple(seen.values())
    return Value("union", conf=max(a.conf for a in alts), alts=alts)


@dataclass(slots=True)
class FileResolution:
    edges: list[Edge] = field(default_factory=list)
    http: list[HttpFact] = field(default_factory=list)
    # per reference: the edges it produced (the jedi benchmark reads call sites here)
    sites: list[tuple[Ref, list[Edge]]] = field(default_factory=list)


class Ctx:
    """One file as resolution sees it: its facts and its symbols."""

    def __init__(self, repo: str, path: str, facts: FileFacts, symbols: list[SymbolRecord]) -> None:
        self.repo = repo
        self.path = path
        self.facts = facts
        self.language = facts.language
        self.symbols = symbols
        self.by_qualified: dict[str, list[SymbolRecord]] = {}
        self.members: dict[tuple[str, str], list[SymbolRecord]] = {}
        self.top: dict[str, list[SymbolRecord]] = {}
        # Functions with methods stored on their prototype (`Foo.prototype.m = …` is the
        # top-level method `Foo.m`): ES5 constructors.
        self.prototyped: set[str] = set()
        for s in symbols:
            self.by_qualified.setdefault(s.qualified_name, []).append(s)
            if s.parent is not None:
                self.members.setdefault((s.parent, s.name), []).append(s)
                continue
            self.top.setdefault(s.name, []).append(s)
            if s.kind == "method" and "." in s.qualified_name:
                self.prototyped.add(s.qualified_name.rpartition(".")[0])
        self._innermost: list[SymbolRecord | None] | None = None
        self._uses: dict[tuple[int, frozenset[str]], list[Ref]] = {}
        # Zig and Lua: the files (or False, None) an alias's import names; see
        # `Resolver._imported_file`.
        self.imported_files: dict[str, list[str] | bool | None] = {}
        # PHP: the symbol (or False, None) a `use` binds to an alias; see
        # `Resolver.php_imported`.
        self.imported_symbols: dict[str, SymbolRecord | bool | None] = {}
        # PHP: the declared types of each class's properties (`Resolver.php_properties`).
        self.php_properties: dict[str, dict[str, str]] | None = None
        # Django: a URLconf's lists of patterns (`Resolver._pattern_lists`).
        self.pattern_lists: dict[str, tuple[int, int]] | None = None

    @property
    def file_id(self) -> str:
        return f"{self.repo}/{self.path}"

    def call_source(self, ref: Ref, innermost: str) -> str:
        """Who makes a call: the innermost symbol around its line, except on the lines
        of a definition's decorators, which the scope around the definition runs."""
        symbol = self.innermost(ref.line, sections=False)
        if symbol is None or symbol.id != innermost:
            return innermost
        facts = self.facts.functions.get(symbol.qualified_name) or self.facts.classes.get(
            symbol.qualified_name
        )
        if facts is None or ref.line >= self.facts.scopes[facts.scope].line:
            return innermost
        if 0 < ref.scope < len(self.facts.scopes):
            s = self.facts.scopes[ref.scope]
            found = self.symbol(s.name, s.line)
            return found.id if found is not None else innermost
        return self.file_id

    def param_uses(self, function: FunctionFacts, names: frozenset[str]) -> list[Ref]:
        """Calls and loops in a function's body (nested functions included) that start
        from one of its parameters `names` (the called chain or an argument)."""
        key = (function.scope, names)
        cached = self._uses.get(key)
        if cached is None:
            cached = self._uses[key] = self._param_uses(function, names)
        return cached

    def _param_uses(self, function: FunctionFacts, names: frozenset[str]) -> list[Ref]:
        inside = {function.scope}
        for index, scope in enumerate(self.facts.scopes):
            if scope.parent in inside:
                inside.add(index)  # scopes are listed parents first
        uses: list[Ref] = []
        for ref in self.facts.refs:
            if ref.kind not in ("call", "iterate") or ref.scope not in inside:
                continue
            heads = [_head(ref.name)] + [
                _head(v[5:]) for _, v in ref.values or () if v[:5] in ("expr:", "cont:")
            ]
            if any(h in names and self.reaches(h, ref.scope, function.scope) for h in heads):
                uses.append(ref)
        return uses

    def reaches(self, name: str, scope: int, target: int) -> bool:
        """Whether `name` looked up from `scope` is found in scope `target`."""
        index = scope
        while 0 <= index < len(self.facts.scopes):
            s = self.facts.scopes[index]
            if name in s.bindings:
                return index == target
            index = s.parent
        return False

    def symbol(self, qualified: str, line: int | None = None) -> SymbolRecord | None:
        found = self.by_qualified.get(qualified)
        if not found:
            return None
        if line is not None and len(found) > 1:
            for s in found:
                if s.start_line <= line <= s.end_line:
                    return s
        # A name defined several times (overloads, redefinitions) ends up bound to the
        # last definition.
        return found[-1]

    def innermost(self, line: int, sections: bool) -> SymbolRecord | None:
        if self._innermost is None:
            last = max((s.end_line for s in self.symbols), default=0)
            table: list[SymbolRecord | None] = [None] * (last + 2)
            for s in sorted(self.symbols, key=lambda s: (s.start_line, -s.end_line)):
                if s.kind == "section" and not sections:
                    continue
                for n in range(s.start_line, s.end_line + 1):
                    table[n] = s
            self._innermost = table
        if 0 <= line < len(self._innermost):
            return self._innermost[line]
        return None

    def source_id(self, line: int) -> str:
        found = self.innermost(line, sections=self.language in ("markdown", "rst"))
        return found.id if found is not None else self.file_id


# Resolution a language gets from another module (graph/resolve_typed.py for Go, Java,
# C#, Rust): the edges of one reference, given this resolver for its helpers.
LanguageEdges = Callable[["Resolver", Ctx, Ref], list[Edge]]
# More edges a Python or JS call with arguments makes, given what its chain evaluates
# to, who makes it and the innermost symbol around it (graph/events.py: events).
CallEdges = Callable[["Resolver", Ctx, Ref, Value, str, str], list[Edge]]
# Service facts of a file once its references are resolved, from each reference and the
# edges it made (graph/rpc.py: rpc servers and stubs; graph/openapi.py: operations).
FileHook = Callable[["Resolver", Ctx, FileResolution], list[HttpFact]]


class Resolver:
    def __init__(
        self,
        index: SymbolIndex,
        languages: dict[str, LanguageEdges] | None = None,
        calls: Sequence[CallEdges] = (),
        files: Sequence[FileHook] = (),
    ) -> None:
        self.index = index
        self.languages = languages or {}
        self.calls = tuple(calls)
        self.files = tuple(files)
        self._ctx: dict[tuple[str, str], Ctx | None] = {}
        # Facts do not change during a run: a binding evaluates to the same value every
        # time (module-level imports are looked up from every function).
        self._bindings: dict[tuple[str, str, int, str, int, int], Value] = {}
        # …and the look-ups it made, so a file using a cached value records them too.
        self._binding_deps: dict[
            tuple[str, str, int, str, int, int], frozenset[tuple[str, str]]
        ] = {}
        # A binding that came out unknown at some depth stays unknown from any deeper
        # start (less budget), and one under evaluation is unknown to itself: without
        # these, `x = x.f()` repeated in one function re-evaluates exponentially.
        self._unknown_at: dict[tuple[str, str, int, str, int, int], int] = {}
        self._in_progress: set[tuple[str, str, int, str, int, int]] = set()
        # What parameters hold while a call is followed into a function body (see
        # `follow_arguments`): (repo, path, scope, name) → value. Bindings evaluated
        # under it are cached apart (per `_env_id`).
        self._env: dict[tuple[str, str, int, str], Value] = {}
        self._env_id = 0
        self._env_count = 0
        # Method resolution orders, per (class id, env id when the class is nested in a
        # function), with the look-ups computing them made (see `linearize`).
        self._orders: dict[tuple[str, int], tuple[list[SymbolRecord], Value | None]] = {}
        self._follows: dict[
            tuple[str, int, frozenset[str], frozenset[tuple[tuple[str, str, int, str], Value]]],
            tuple[list[Edge], frozenset[tuple[str, str]]],
        ] = {}
        self._order_deps: dict[tuple[str, int], frozenset[tuple[str, str]]] = {}
        self._ordering: set[tuple[str, int]] = set()
        self._composer: dict[str, Roots] = {}

    def ctx(self, repo: str, path: str) -> Ctx | None:
        """The file's facts and symbols, read once per run; the dependency on the file
        is recorded for every caller (the file being resolved), as the index does."""
        key = (repo, path)
        if key in self._ctx:
            self.index.deps.add(("file", file_key(repo, path)))
            return self._ctx[key]
        facts = self.index.facts(repo, path)
        symbols = self.index.symbols(repo, path)
        found = self._ctx[key] = Ctx(repo, path, facts, symbols) if facts is not None else None
        return found

    # -- one file --------------------------------------------------------------------
    def resolve_file(self, repo: str, path: str) -> FileResolution:
        out = FileResolution()
        ctx = self.ctx(repo, path)
        if ctx is None:
            return out
        out.edges.extend(self.containment(ctx))
        deep = ctx.language in DEEP_LANGUAGES
        for ref in ctx.facts.refs:
            if ref.kind == "dispatch":
                continue  # read by `dispatch_edges`, for the classes that inherit it
            # A component template's call (`@click="save"`) resolves as its scripts' calls
            # do, kept only when it reaches a definition, via `template`: search does not
            # expand through these (a component's handlers are wiring, not what it does).
            template = ref.kind == "template"
            read = replace(ref, kind="call") if template else ref
            try:
                if read.kind in ("doc", "link"):
                    rows = self.doc_edges(ctx, read)
                elif read.kind == "file":
                    rows = self.file_link(ctx, read)
                elif ctx.language in self.languages:
                    rows = self.languages[ctx.language](self, ctx, read)
                elif deep:
                    rows = self.deep_edges(ctx, read, out)
                else:
                    rows = self.generic_edges(ctx, read)
            except RecursionError:
                rows = []
            if template:
                rows = [row for row in rows if row.resolved]
                for row in rows:
                    row.via = "template-call"
            out.sites.append((ref, rows))
            out.edges.extend(rows)
        if ctx.language == "python":
            out.edges.extend(self.dispatch_edges(ctx))
        out.edges = _dedupe(out.edges)
        if deep:
            out.http.extend(self.router_facts(ctx))
        for hook in self.files:
            try:
                out.http.extend(hook(self, ctx, out))
            except RecursionError:
                continue
        return out

    def dispatch_edges(self, ctx: Ctx) -> list[Edge]:
        """Calls by a name built at run time: a method calling `getattr(self, "visit_" +
        type(node).__name__)` calls the `visit_…` methods of its class and of every class
        inheriting it (sympy's printers, AST visitors). Made for each class of this file
        from the dispatchers in its method resolution order, so a subclass's new
        handler, or a changed prefix (the base's file is a dependency), relinks here.
        A mixin's handlers count where a class first joins the mixin to a dispatcher
        (sympy's `class CXX11CodePrinter(_CXXCodePrinterBase, C99CodePrinter)`): the
        evidence is that class's line."""
        rows: list[Edge] = []
        for cls in ctx.symbols:
            if cls.kind != "class":
                continue
            order = self.linearize(cls)[0]
            found = [(base, d) for base in order for d in self.dispatchers(base)]
            for owner in order if found else ():
                own = owner.id == cls.id
                methods = self._methods(owner)
                for base, (prefix, dispatcher, line) in found:
                    if not own and not self._joins(order, owner, base):
                        continue
                    for method in methods:
                        name = method.name
                        if not name.startswith(prefix) or name == prefix:
                            continue
                        if method.id == dispatcher.id:
                            continue
                        evidence = method if own else cls
                        row = _edge(
                            dispatcher.id, method.id, "calls", CONF_DISPATCH,
                            f"{prefix}…", "getattr", evidence.start_line,
                        )  # fmt: skip
                        row.target_repo, row.target_path = dispatcher.repo, dispatcher.path
                        row.target_line = line
                        rows.append(row)
        return rows

    def _joins(self, order: list[SymbolRecord], mixin: SymbolRecord, base: SymbolRecord) -> bool:
        """Whether the class whose method resolution order is `order` is the first to
        bring `mixin` and the dispatching `base` together: neither inherits the other's
        line, and no base in `order` had both already (its own file made the edges)."""
        if base.id in {c.id for c in self.linearize(mixin)[0]}:
            return False  # the mixin inherits the dispatcher: its own file links it
        for other in order[1:]:
            if other.id != mixin.id:
                inherited = {c.id for c in self.linearize(other)[0]}
                if mixin.id in inherited and base.id in inherited:
                    return False
        return True

    def _methods(self, cls: SymbolRecord) -> list[SymbolRecord]:
        ctx = self.ctx(cls.repo, cls.path)
        members = ctx.symbols if ctx is not None else []
        kinds = ("method", "function")
        return [s for s in members if s.parent == cls.qualified_name and s.kind in kinds]

    def dispatchers(self, cls: SymbolRecord) -> list[tuple[str, SymbolRecord, int]]:
        """The methods of `cls` that dispatch by name on their own object: (the name's
        literal prefix, the method, the line of the `getattr`)."""
        ctx = self.ctx(cls.repo, cls.path)
        if ctx is None:
            return []
        found: list[tuple[str, SymbolRecord, int]] = []
        for ref in ctx.facts.refs:
            if ref.kind != "dispatch":
                continue
            scope = ctx.facts.scopes[ref.scope]
            owner = ctx.facts.scopes[scope.parent] if scope.parent >= 0 else None
            if scope.kind != "function" or owner is None or owner.name != cls.qualified_name:
                continue
            method = ctx.symbol(scope.name, scope.line)
            if method is not None:
                found.append((ref.name, method, ref.line))
        return found

    def containment(self, ctx: Ctx) -> list[Edge]:
        rows = [_edge(ctx.repo, ctx.file_id, "contains", 1.0, "", "contains", 1)]
        rows[0].target_repo, rows[0].target_path = ctx.repo, ctx.path
        for s in ctx.symbols:
            parent = ctx.symbol(s.parent, s.start_line) if s.parent is not None else None
            source = parent.id if parent is not None else ctx.file_id
            weight = MEMBER_WEIGHT if parent is not None and parent.kind in TYPE_KINDS else None
            row = _edge(source, s.id, "contains", 1.0, s.name, "contains", s.start_line, weight)
            row.target_repo, row.target_path = ctx.repo, ctx.path
            rows.append(row)
        return rows

    # -- Python / JS / TS -----------------------------------------------------------------
    def deep_edges(self, ctx: Ctx, ref: Ref, out: FileResolution) -> list[Edge]:
        if ref.kind == "import":
            return self.import_edges(ctx, ref)
        innermost = source = ctx.source_id(ref.line)
        if ref.kind == "value":  # a module's constant read, a function passed on
            return self.name_value(ctx, ref, source)
        if ref.kind in ("call", "decorate") and ctx.language == "python":
            source = ctx.call_source(ref, innermost)
        value = self.eval_chain(ctx, ref.name, ref.scope, ref.line, 0)
        if ref.kind == "call" and ctx.language in ECMA_LANGUAGES:
            value = self.own_constant(ctx, ref, value)
        if ref.kind == "call":
            if ref.args or ref.values:
                # a route decorator's handler is the definition it decorates
                out.http.extend(self.http_facts(ctx, ref, value, innermost))
            rows = self.call_edges(ctx, ref, value, source)
            if ref.values:
                for more in self.calls:
                    rows += more(self, ctx, ref, value, source, innermost)
            return rows + self.argument_edges(ctx, ref, value) + self.built_by(ctx, ref, source)
        if ref.kind == "decorate":
            # Only decorators of the workspace are worth an edge: `@property`,
            # `@app.route(…)` are everywhere and say nothing.
            rows = [
                e for e in self.call_edges(ctx, ref, value, source) if e.resolved and e.target_repo
            ]
            for row in rows:
                row.via = "decorator"
            return rows + self.argument_edges(ctx, ref, value)
        if ref.kind == "iterate":
            return self.iteration_edges(ctx, ref, value, source)
        if ref.kind == "catch":  # Python: `except InvalidURL:` handles the repository's class
            if value.kind != "sym" or value.sym is None or value.sym.kind not in TYPE_KINDS:
                return []
            return [self._to_sym(source, value.sym, "references", value.conf, ref, "except")]
        if ref.kind == "read":  # an attribute read runs a property's method
            head, _, name = ref.name.rpartition(".")
            receiver = self.eval_chain(ctx, head, ref.scope, ref.line, 0)
            found = self.property_of(receiver, name)
            if found is None:
                return []
            return [self._to_sym(source, found, "calls", receiver.conf, ref, "property")]
        edge_type = {
            "inherit": "extends",
            "implement": "implements",
            "type": "references",
        }.get(ref.kind, "references")
        if value.kind == "sym" and value.sym is not None:
            if edge_type in ("extends", "implements"):
                edge_type = "implements" if value.sym.kind in INTERFACE_KINDS else edge_type
            return [self._to_sym(source, value.sym, edge_type, value.conf, ref, value.via)]
        if value.kind == "module":
            return [self._to_file(source, value.repo, value.path, edge_type, value.conf, ref)]
        if edge_type in ("extends", "implements"):
            if value.kind == "ext":
                return [_unresolved(source, value.name, edge_type, value.conf, ref, "external")]
            if value.kind in ("unbound", "unknown"):
                return [_unresolved(source, ref.name, edge_type, 0.0, ref, value.kind)]
            return []
        if value.kind == "unbound":
            return [_unresolved(source, ref.name, edge_type, 0.0, ref, "unbound")]
        return []

    def name_value(self, ctx: Ctx, ref: Ref, source: str) -> list[Edge]:
        """A `references` edge (via `value`) to the constant or function a module-level
        name read holds: the file's own definition of that name (its value is a literal,
        not the symbol), else what the name's import resolves to; `module.NAME`, what
        the module's attribute resolves to; else the function that built the object
        (`built_by`)."""
        found = ctx.symbol(ref.name) if "." not in ref.name else None
        conf = CONF_EXACT
        if found is None:
            value = self.eval_chain(ctx, ref.name, ref.scope, ref.line, 0)
            if value.kind != "sym":
                return self.built_by(ctx, ref, source)
            found, conf = value.sym, value.conf
        if found is None or found.kind not in MODULE_VALUE_KINDS or found.id == source:
            return []
        return [self._to_sym(source, found, "references", conf, ref, "value")]

    def built_by(self, ctx: Ctx, ref: Ref, source: str) -> list[Edge]:
        """A `references` edge (via `value`) to the function of the repository that built
        the module-level object a read or a call goes through: `pretty_email_regex =
        _build_pretty_email_regex()`, then `pretty_email_regex.fullmatch(value)` in a
        method, which depends on what the builder made."""
        if ctx.language != "python" or ref.scope == 0:
            return []
        segments = _segments(ref.name)
        head = segments[0][0] if segments else ""
        bound = ctx.facts.scopes[0].bindings.get(head)
        made = bound[-1][1] if bound else ""
        if not (made.startswith("expr:") and made.endswith("()")):
            return []
        if binding_scope(ctx.facts.scopes, ref.scope, head) != 0:
            return []  # a local or a parameter of that name
        builder = self.eval_chain(ctx, made[5:-2], 0, ref.line, 0)
        found = builder.sym if builder.kind == "sym" else None
        if found is None or found.kind != "function" or found.id == source:
            return []
        conf = min(builder.conf, CONF_SCOPE)
        return [self._to_sym(source, found, "references", conf, ref, "value")]

    def call_edges(self, ctx: Ctx, ref: Ref, value: Value, source: str) -> list[Edge]:
        kind = value.kind
        if kind == "union":
            rows = [row for alt in value.alts for row in self.call_edges(ctx, ref, alt, source)]
            return [row for row in rows if row.resolved] or rows[:1]
        if kind == "sym" and value.sym is not None:
            rows = [self._to_sym(source, value.sym, "calls", value.conf, ref, value.via)]
            constructor = self.constructor(value.sym)
            if constructor is not None:
                rows.append(
                    self._to_sym(source, constructor, "calls", value.conf, ref, "constructor")
                )
            return rows
        if kind in ("cont", "gen"):
            return []
        if kind == "super" and value.sym is not None:
            base = self.first_base(value.sym, 0)
            if base is not None:
                return [self._to_sym(source, base, "calls", CONF_SCOPE, ref, "super")]
            return []
        if kind == "inst" and value.sym is not None:
            call = self.member_lookup(value.sym, "__call__", True, 0, frozenset())
            if call is not None and call.kind == "sym" and call.sym is not None:
                return [self._to_sym(source, call.sym, "calls", call.conf, ref, "member")]
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]
        if kind == "ext":
            rows = [_unresolved(source, value.name, "calls", value.conf, ref, "external")]
            return rows + self.prisma_model(ctx, value.name, source, ref)
        if kind == "builtin":
            return []
        if kind == "unbound":
            component = self.registered_component(ctx, ref.name)
            if component is not None:
                return [self._to_sym(source, component, "calls", CONF_UNIQUE, ref, "name")]
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unbound")]
        if kind == "module":
            # `const express = require('..'); express()`: what the module exports as a whole
            target = self.ctx(value.repo, value.path)
            exported = target.facts.exports.get("default") if target is not None else None
            if target is not None and exported is not None:
                found = self.binding(target, 0, exported, END, 1)
                if found.known and found.kind != "module":
                    return self.call_edges(ctx, ref, found.weaker(value.conf), source)
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]
        return self.guess_method(ctx, ref, source)

    def registered_component(self, ctx: Ctx, name: str) -> SymbolRecord | None:
        """The one Vue or Svelte component of this name that a component's template uses
        without importing it: registered globally or imported for it by the framework
        (Nuxt's `components/`, unplugin-vue-components)."""
        if not ctx.path.endswith(COMPONENT_EXTENSIONS) or not name[:1].isupper() or "." in name:
            return None
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.kind == "module" and s.parent is None and s.path.endswith(COMPONENT_EXTENSIONS)
        ]
        return found[0] if len(found) == 1 else None

    def constructor(self, cls: SymbolRecord) -> SymbolRecord | None:
        """The method a call of class `cls` runs first (`__init__`, `constructor`),
        inherited or its own; None for a function or a class without one."""
        if cls.kind not in TYPE_KINDS:
            return None
        name = "__init__" if cls.path.endswith((".py", ".pyi")) else "constructor"
        found = self.member_lookup(cls, name, False, 0, frozenset())
        return found.sym if found is not None and found.kind == "sym" else None

    def iteration_edges(self, ctx: Ctx, ref: Ref, value: Value, source: str) -> list[Edge]:
        """`for x in obj`: `obj.__iter__()`, then `__next__` of what it returns, for
        objects of workspace classes (containers and generators call nothing of ours)."""
        rows: list[Edge] = []
        for alt in value.each:
            if alt.kind != "inst" or alt.sym is None:
                continue
            iterator = self.attribute(alt, "__iter__", 0)
            for method, held in ((iterator, alt), (None, self.call_result(iterator, 0))):
                step = method if method is not None else self.attribute(held, "__next__", 0)
                for found in step.each:
                    if found.kind == "sym" and found.sym is not None:
                        rows.append(
                            self._to_sym(source, found.sym, "calls", found.conf, ref, "iteration")
                        )
        return rows

    # -- following arguments into a function ---------------------------------------------
    def argument_edges(self, ctx: Ctx, ref: Ref, callee: Value) -> list[Edge]:
        """`follow_arguments` from a call of this file. An edge from a body in another
        file is owned by this one, so its evidence is this call's line, which passes the
        argument (`@require_sudo_mode` on a view: its wrapper calls the view); the body's
        own line would point into this file at something else."""
        rows = self.follow_arguments(ctx, ref, callee, 0, frozenset())
        for row in rows:
            if not row.source.startswith((ctx.file_id + "#", ctx.file_id + "@")) and (
                row.source != ctx.file_id
            ):
                row.evidence_line = ref.line
        return rows

    def follow_arguments(
        self, ctx: Ctx, ref: Ref, callee: Value, depth: int, seen: frozenset[str]
    ) -> list[Edge]:
        """Calls a function makes through what this call passes it: `run(handler)` with
        `def run(cb): cb()` is a call of `handler` by `run`. The body's references that
        use a parameter are resolved again with the parameter holding the argument (and
        so on into the functions they pass it to, `FLOW_DEPTH` deep). The edges come
        from the body's file, owned by this one (which read that file's facts)."""
        if not ref.values or depth >= FLOW_DEPTH:
            return []
        # Bodies that do something with a parameter first: most calls pass data to
        # functions that only read it, and their arguments need no evaluating.
        callees: list[tuple[Value, SymbolRecord, Ctx, FunctionFacts]] = []
        for alt in callee.each:
            target = self.called_function(alt)
            if target is None or target.sym is None or target.sym.id in seen:
                continue
            function = target.sym
            fctx = self.ctx(function.repo, function.path)
            facts = fctx.facts.functions.get(function.qualified_name) if fctx else None
            if fctx is None or facts is None:
                continue
            if fctx.param_uses(facts, frozenset(p.lstrip("*") for p in facts.params)):
                callees.append((target, function, fctx, facts))
        if not callees:
            return []
        args = [
            (key, self.binding(ctx, ref.scope, value, ref.line, 1)) for key, value in ref.values
        ]
        if not any(_flows(v) for _, v in args):
            return []
        rows: list[Edge] = []
        for target, function, fctx, facts in callees:
            env = self.parameter_env(fctx, facts, target.bound, args)
            if not env:
                continue
            uses = fctx.param_uses(facts, frozenset(name for *_, name in env))
            if not uses:
                continue

            def replay(
                fctx: Ctx = fctx,
                uses: list[Ref] = uses,
                function: SymbolRecord = function,
                names: frozenset[str] = frozenset(name for *_, name in env),
                scope: int = facts.scope,
            ) -> list[Edge]:
                found: list[Edge] = []
                for use in uses:
                    value = self.eval_chain(fctx, use.name, use.scope, use.line, 0)
                    head = _head(use.name)
                    # Only what the parameter's value decides is new: a call of another
                    # function that merely passes the parameter on is the body's own
                    # edge, and a guess by name does not come from the argument.
                    if head in names and fctx.reaches(head, use.scope, scope):
                        source = fctx.source_id(use.line)
                        if use.kind == "iterate":
                            edges = self.iteration_edges(fctx, use, value, source)
                        else:
                            edges = self.call_edges(fctx, use, value, source)
                        for edge in edges:
                            if edge.resolved and edge.via != "name":
                                edge.confidence = round(min(edge.confidence, CONF_SCOPE), 4)
                                edge.via = "argument"
                                found.append(edge)
                    if use.kind == "call":
                        found += self.follow_arguments(
                            fctx, use, value, depth + 1, seen | {function.id}
                        )
                return found

            rows += self.followed(function, depth, seen, env, replay)
        return rows

    def followed(
        self,
        function: SymbolRecord,
        depth: int,
        seen: frozenset[str],
        env: dict[tuple[str, str, int, str], Value],
        replay: Callable[[], list[Edge]],
    ) -> list[Edge]:
        """`replay` under `env`, once per function and what its parameters hold: call
        sites passing the same values find the same edges (copies, with the look-ups
        made recorded again for the file asking)."""
        key = (function.id, depth, seen, frozenset({**self._env, **env}.items()))
        cached = self._follows.get(key)
        if cached is None:
            before = set(self.index.deps)
            edges = self.with_env(env, replay)
            cached = self._follows[key] = (edges, frozenset(self.index.deps - before))
        else:
            self.index.deps.update(cached[1])
        return [replace(edge) for edge in cached[0]]

    def called_function(self, value: Value) -> Value | None:
        """The function a call of `value` runs: itself, a class's constructor (with
        `self` filled in), an object's `__call__`."""
        if value.kind == "sym" and value.sym is not None:
            if value.sym.kind in ("function", "method"):
                return value
            constructor = self.constructor(value.sym)
            if constructor is not None:
                return Value("sym", conf=value.conf, sym=constructor, bound=True)
        if value.kind == "inst" and value.sym is not None:
            call = self.member_lookup(value.sym, "__call__", True, 0, frozenset())
            if call is not None and call.kind == "sym":
                return replace(call, bound=True)
        return None

    def parameter_env(
        self, fctx: Ctx, facts: FunctionFacts, bound: bool, args: list[tuple[str, Value]]
    ) -> dict[tuple[str, str, int, str], Value]:
        params = facts.params[1:] if bound else facts.params
        plain = [p for p in params if not p.startswith("*")]
        env: dict[tuple[str, str, int, str], Value] = {}
        position = 0
        for key, value in args:
            if key:
                name = key if key in plain else None
            else:
                name = params[position] if position < len(params) else None
                if name is not None and name.startswith("*"):
                    name = None
                position += 1
            if name is not None and _flows(value):
                env[(fctx.repo, fctx.path, facts.scope, name)] = value
        return env

    def with_env(self, env: dict[tuple[str, str, int, str], Value], work: Callable[[], _T]) -> _T:
        saved = (self._env, self._env_id)
        self._env = {**self._env, **env}
        self._env_count += 1
        self._env_id = self._env_count
        try:
            return work()
        finally:
            self._env, self._env_id = saved

    def binds_class(self, method: SymbolRecord) -> bool:
        """Whether a method's first parameter is its class (a classmethod)."""
        ctx = self.ctx(method.repo, method.path)
        facts = ctx.facts.functions.get(method.qualified_name) if ctx is not None else None
        if ctx is None or facts is None or not facts.params:
            return False
        first = ctx.facts.scopes[facts.scope].bindings.get(facts.params[0], [])
        return any(v.startswith("cls:") for _, v in first)

    def guess_method(self, ctx: Ctx, ref: Ref, source: str) -> list[Edge]:
        """The receiver's type is unknown: methods of that name, if there are few."""
        segments = _segments(ref.name)
        if len(segments) < 2 or segments[0][0] == "?":
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]
        name = segments[-1][0]
        if (
            (name.startswith("__") and name.endswith("__"))
            or name in BUILTIN_METHODS
            or name in OBJECT_METHODS.get(ctx.language, ())
        ):
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]
        candidates = _without_stub_twins(
            [
                s
                for s in self.index.by_name(name, ctx.repo)
                if s.kind == "method" and _callable_from(ctx, s)
            ]
        )
        if not candidates or len(candidates) > MAX_CANDIDATES:
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]
        conf = min(CONF_AMBIGUOUS, 0.8 / len(candidates))
        return [self._to_sym(source, s, "calls", conf, ref, "name") for s in candidates]

    def import_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        source = ctx.file_id
        spec, sep, name = ref.name.partition(":")
        module = self.module_value(ctx, spec)
        if module.kind != "module":
            external = f"{spec}.{name}" if sep and name not in ("*", "default") else spec
            return [_unresolved(source, external, "imports", 1.0, ref, "external")]
        # `from . import fields` in a package's `__init__` imports a submodule, not itself.
        itself = (module.repo, module.path) == (ctx.repo, ctx.path)
        rows = (
            [] if itself else [self._to_file(source, module.repo, module.path, "imports", 1.0, ref)]
        )
        if module.repo != ctx.repo:
            rows.append(self.package_edge(ctx, module, spec, ref))
        if sep and name != "*":
            found = self.module_attr(module, name, 0, defined=True)
            if found is not None and found.kind == "sym" and found.sym is not None:
                rows.append(self._to_sym(source, found.sym, "imports", 1.0, ref, "import"))
            elif found is not None and found.kind == "module":
                rows.append(self._to_file(source, found.repo, found.path, "imports", 1.0, ref))
        return rows

    def package_edge(self, ctx: Ctx, module: Value, spec: str, ref: Ref) -> Edge:
        package: Package | None
        if ctx.language == "python":
            package = self.index.python_package(module.repo, spec.lstrip(".").split(".")[0])
        else:
            package = self.index.npm_package(spec)
        row = self._to_file(ctx.file_id, module.repo, module.path, "package", 1.0, ref)
        row.via = "package"
        if package is not None and package.declared_in:
            row.target_path, row.target_line = package.declared_in, package.line
        return row

    # -- evaluation ---------------------------------------------------------------------
    def eval_chain(self, ctx: Ctx, chain: str, scope: int, line: int, depth: int) -> Value:
        if depth > MAX_DEPTH:
            return UNKNOWN
        segments = _segments(chain)
        if not segments:
            return UNKNOWN
        head, ops = segments[0]
        if head == "?" or not head:
            value = Value("builtin", name="literal")
        elif head == "super" and (ctx.language in ECMA_LANGUAGES or ops.startswith("()")):
            cls = self.enclosing_class(ctx, scope)
            if cls is None:
                return UNKNOWN
            value = Value("super", conf=CONF_SCOPE, via="super", sym=cls)
            ops = ops[2:] if ctx.language == "python" else ops
        else:
            found = self.lookup(ctx, head, scope, line, depth)
            if found is None and ctx.language in ECMA_LANGUAGES:
                found = self.script_global(ctx, head)
            if found is None:
                return Value("unbound", conf=0.0, name=head)
            value = found
        value = self.apply_ops(value, ops, depth)
        last = len(segments) - 1
        for n, (name, ops) in enumerate(segments[1:], start=1):
            value = self.attribute(value, name, depth, final=n == last)
            value = self.apply_ops(value, ops, depth)
        return value

    def script_global(self, ctx: Ctx, name: str) -> Value | None:
        """A name a classic script (a `.js` file that neither imports nor exports) leaves
        unbound: a top-level function or class of the repository's other classic
        scripts, which a page loads together (healthchecks' `adaptiveSetInterval`)."""
        if not ctx.path.endswith(".js") or not _classic_script(ctx.facts):
            return None
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.parent is None
            and s.kind in ("function", "class")
            and s.path != ctx.path
            and s.path.endswith(".js")
        ]
        found = [s for s in found if _classic_script(self.index.facts(s.repo, s.path) or ctx.facts)]
        if not found or len(found) > MAX_CANDIDATES:
            return None
        conf = CONF_UNIQUE if len(found) == 1 else min(CONF_AMBIGUOUS, 0.8 / len(found))
        return union([Value("sym", conf=conf, via="script", sym=s) for s in found])

    def apply_ops(self, value: Value, ops: str, depth: int) -> Value:
        for op in _OP.finditer(ops):
            if op.group(0) == "()":
                value = self.call_result(value, depth)
            else:
                value = self.element(value, op.group(1), depth)
        return value

    def element(self, value: Value, key: str, depth: int) -> Value:
        """An element of a container (the one at literal `key` when it was bound with
        that key: the latest such binding), of a generator, or what `value[…]` gives."""
        if value.kind == "union":
            return union([self.element(alt, key, depth) for alt in value.alts])
        if value.kind == "ext" and value.via == "manager" and value.sym is not None:
            # a row of a queryset: `for check in Check.objects.filter(…)`, `qs[0]`
            return Value("inst", conf=min(value.conf, CONF_SCOPE), via="manager", sym=value.sym)
        if value.kind in ("ext", "builtin"):
            return value
        if depth > MAX_DEPTH:
            return UNKNOWN
        if value.kind == "cont":
            ctx = self.ctx(value.repo, value.path)
            if ctx is None or not 0 <= value.scope < len(ctx.facts.scopes):
                return UNKNOWN
            entries = ctx.facts.scopes[value.scope].bindings.get(value.name + "[]", [])
            keyed = [(n, v) for n, v in entries if key and v.startswith(f"key:{key}:")]
            if keyed:
                last = max(n for n, _ in keyed)
                entries = [(n, v) for n, v in keyed if n == last]
            found = union([self.binding(ctx, value.scope, v, n, depth + 1) for n, v in entries])
            return found.weaker(value.conf) if found.known else UNKNOWN
        if value.kind == "gen" and value.sym is not None:
            return self.function_output(value.sym, "<yield>", value.conf, depth)
        if value.kind == "inst" and value.sym is not None:  # what iterating it gives
            iterator = self.call_result(self.attribute(value, "__iter__", depth + 1), depth + 1)
            return self.call_result(self.attribute(iterator, "__next__", depth + 1), depth + 1)
        return UNKNOWN

    def lookup(self, ctx: Ctx, name: str, scope: int, line: int, depth: int) -> Value | None:
        """A name as Python/JS scoping sees it: the enclosing function scopes (not class
        bodies, except the reference's own), then the module, star imports, builtins."""
        scopes = ctx.facts.scopes
        index = scope if 0 <= scope < len(scopes) else 0
        own = True
        while index >= 0:
            s = scopes[index]
            if s.kind == "class" and not own:
                index = s.parent
                continue
            entries = s.bindings.get(name)
            if entries:
                held = self._env.get((ctx.repo, ctx.path, index, name)) if self._env else None
                if held is not None:
                    return held
                return self.bound_value(ctx, index, entries, line if own else END, depth)
            own = False
            index = s.parent
        if ctx.language == "python":
            # `from m import *` brings m's names in; JS `export * from` does not.
            for spec in ctx.facts.stars:
                module = self.module_value(ctx, spec)
                if module.kind == "module":
                    found_star = self.module_attr(module, name, depth + 1)
                    if found_star is not None and found_star.known:
                        return found_star
            if name in PY_BUILTINS:
                return Value("builtin", name=name)
        elif name in JS_GLOBALS or (
            name in COMPONENT_MACROS and ctx.path.endswith(COMPONENT_EXTENSIONS)
        ):
            return Value("builtin", name=name)
        return None

    def bound_value(
        self, ctx: Ctx, scope: int, entries: list[tuple[int, str]], line: int, depth: int
    ) -> Value:
        """What a name holds at `line`: its latest binding up to that line (all the
        alternatives bound on that line: `a if c else b`, a parameter's default), or
        else the first binding after it (a function reads module names bound later)."""
        lines = sorted({n for n, _ in entries}, key=lambda n: (n > line, -n))
        for bound_line in lines:
            values = [
                self.binding(ctx, scope, value, bound_line, depth + 1)
                for n, value in entries
                if n == bound_line
            ]
            known = [v for v in values if v.known and not _is_none(v)]
            if not known:
                continue
            found = union(known)
            if not found.known:
                return found
            if len(known) < len([v for v in values if not _is_none(v)]):
                return found.weaker(CONF_REBOUND, "rebound")  # or a value we cannot see
            if self.rebound(ctx, scope, entries, found, depth):
                return found.weaker(CONF_REBOUND, "rebound")
            return found
        return UNKNOWN

    def rebound(
        self,
        ctx: Ctx,
        scope: int,
        entries: list[tuple[int, str]],
        chosen: Value,
        depth: int,
    ) -> bool:
        """Whether a name is also bound to something else in its scope (branches,
        try/except imports, a redefinition): it may hold either when the code runs."""
        # A branch's `isinstance` narrowing is no other value the name may hold.
        entries = [(n, v) for n, v in entries if not v.startswith("narrow:")]
        values = {v for _, v in entries if v not in _PLACEHOLDERS}
        if len(values) < 2:
            return False
        mine = _identity(chosen)
        for bound_line, value in entries:
            if value in _PLACEHOLDERS:
                continue
            other = self.binding(ctx, scope, value, bound_line, depth + 1)
            if other.known and not _is_none(other) and _identity(other) != mine:
                return True
        return False

    def binding(self, ctx: Ctx, scope: int, value: str, line: int, depth: int) -> Value:
        key = (ctx.repo, ctx.path, scope, value, line, self._env_id)
        cached = self._bindings.get(key)
        if cached is None and depth >= self._unknown_at.get(key, MAX_DEPTH + 1):
            cached = UNKNOWN
        if cached is not None:
            self.index.deps.update(self._binding_deps.get(key, ()))
            return cached
        if key in self._in_progress:
            return UNKNOWN
        before = set(self.index.deps)
        self._in_progress.add(key)
        try:
            found = self._binding(ctx, scope, value, line, depth)
        finally:
            self._in_progress.discard(key)
        deps = frozenset(self.index.deps - before)
        # A value cut short by the depth limit may be found whole from a shallower start.
        if found.known or depth <= 2:
            self._bindings[key] = found
            self._binding_deps[key] = deps
        else:
            self._unknown_at[key] = min(depth, self._unknown_at.get(key, depth))
            self._binding_deps[key] = self._binding_deps.get(key, frozenset()) | deps
        return found

    def _binding(self, ctx: Ctx, scope: int, value: str, line: int, depth: int) -> Value:
        kind, _, rest = value.partition(":")
        if depth > MAX_DEPTH:
            return UNKNOWN
        if kind == "key":  # an element of a container, with its key: `key:'a:expr:f`
            return self.binding(ctx, scope, rest.partition(":")[2], line, depth)
        if kind == "def":
            sym = ctx.symbol(rest, line)
            if sym is None:
                return UNKNOWN
            return Value("sym", conf=CONF_EXACT, via="scope", sym=sym)
        if kind == "import":
            return self.module_value(ctx, rest)
        if kind == "from":
            spec, _, name = rest.rpartition(":")
            module = self.module_value(ctx, spec)
            # A namespace package (PEP 420) has no file of its own: `from app import auth`
            # with no `app/__init__.py` imports the module `app.auth`.
            if (
                module.kind != "module"
                and ctx.language == "python"
                and (spec.startswith(".") or spec in self.index.python_packages())
            ):
                joined = f"{spec}{name}" if spec.endswith(".") else f"{spec}.{name}"
                submodule = self.module_value(ctx, joined)
                if submodule.kind == "module":
                    return submodule
            if module.kind == "module":
                found = self.module_attr(module, name, depth + 1)
                if (found is None or not found.known) and ctx.language == "python":
                    # Python falls back to the submodule: a package's `from . import
                    # fields` binds the name to itself until the import has run.
                    found = self.submodule(module, name) or found
                if found is None or not found.known:
                    return UNKNOWN
                return found.weaker(CONF_EXACT, "import")
            if module.kind == "ext":
                if ctx.language != "python" and name == "default":
                    return Value("ext", conf=CONF_EXACT, via="external", name=module.name)
                return Value("ext", conf=CONF_EXACT, via="external", name=f"{module.name}.{name}")
            return UNKNOWN
        if kind == "expr":
            if rest == "?" or not rest:
                return UNKNOWN
            return self.eval_chain(ctx, rest, scope, line, depth + 1)
        if kind in ("type", "narrow"):
            found = self.eval_chain(ctx, rest, scope, line, depth + 1)
            if found.kind == "sym" and found.sym is not None and found.sym.kind in TYPE_KINDS:
                via = "annotation" if kind == "type" else "isinstance"
                return Value("inst", conf=min(found.conf, CONF_SCOPE), via=via, sym=found.sym)
            if found.kind in ("ext", "builtin"):
                return found
            return UNKNOWN
        if kind in ("self", "cls"):
            cls = ctx.symbol(rest)
            if cls is None:
                return UNKNOWN
            return Value("inst" if kind == "self" else "sym", conf=CONF_EXACT, via="self", sym=cls)
        if kind == "str":
            return Value("builtin", name="str")
        if kind == "lit":
            return Value("builtin", name=rest)
        if kind == "cont":
            return Value(
                "cont", via="literal", repo=ctx.repo, path=ctx.path, name=rest, scope=scope
            )
        if kind == "wrap":
            qualified, *decorators = rest.split("|")
            sym = ctx.symbol(qualified, line)
            if sym is None:
                return UNKNOWN
            held = Value("sym", conf=CONF_EXACT, via="scope", sym=sym)
            for chain in reversed(decorators):
                decorator = self.eval_chain(ctx, chain, scope, line, depth + 1)
                held = self.decorated(decorator, held, depth + 1)
            return held
        return UNKNOWN

    def decorated(self, decorator: Value, held: Value, depth: int) -> Value:
        """What a decorator returns for `held`; `held` itself when the decorator is not
        a function of the workspace we can follow (most keep the function callable)."""
        out: list[Value] = []
        for alt in decorator.each:
            if alt.kind == "sym" and alt.sym is not None and alt.sym.kind in TYPE_KINDS:
                out.append(Value("inst", conf=alt.conf, via="decorator", sym=alt.sym))
                continue
            if alt.kind != "sym" or alt.sym is None:
                out.append(held)
                continue
            function = alt.sym
            fctx = self.ctx(function.repo, function.path)
            facts = fctx.facts.functions.get(function.qualified_name) if fctx else None
            if fctx is None or facts is None:
                out.append(held)
                continue
            env = self.parameter_env(fctx, facts, alt.bound, [("", held)])

            def output(function: SymbolRecord = function, conf: float = alt.conf) -> Value:
                return self.returned(function, conf, depth)

            result = self.with_env(env, output)
            # Only code of the workspace replaces the definition: a return annotation
            # such as `Callable[…]` says nothing about which function comes back.
            follows = result.kind in ("sym", "inst", "union", "gen")
            out.append(result.weaker(alt.conf, "decorator") if follows else held)
        return union(out) if out else held

    def module_value(self, ctx: Ctx, spec: str) -> Value:
        if ctx.language == "python":
            if spec.startswith("."):
                found = self.index.relative_python(ctx.repo, ctx.path, spec)
                return (
                    Value("module", conf=CONF_EXACT, via="import", repo=found[0], path=found[1])
                    if found is not None
                    else UNKNOWN
                )
            files = self.index.python_module(spec, ctx.repo, ctx.path)
            if (ctx.repo, ctx.path) in files and not _is_package(ctx.path):
                # `from json import loads` in rich's own json.py (rich indexed from its
                # folder, so the file is module `json` too): a module cannot import
                # itself, so it is the standard library's.
                files = [f for f in files if f != (ctx.repo, ctx.path)]
            if files:
                repo, path = files[0]
                return Value("module", conf=CONF_EXACT, via="import", repo=repo, path=path)
            return Value("ext", conf=CONF_EXACT, via="external", name=spec)
        found = self.index.js_module(ctx.repo, ctx.path, spec)
        if found is not None:
            return Value("module", conf=CONF_EXACT, via="import", repo=found[0], path=found[1])
        if spec.startswith("."):
            return UNKNOWN
        return Value("ext", conf=CONF_EXACT, via="external", name=spec)

    def module_attr(
        self, module: Value, name: str, depth: int, *, defined: bool = False
    ) -> Value | None:
        """`name` looked up in a module of the workspace; None when it has no such name.
        `defined`: a decorated definition is itself, not what its decorators return (an
        import names the definition)."""
        if depth > MAX_DEPTH:
            return None
        target = self.ctx(module.repo, module.path)
        if target is None:
            return None
        if target.language in ECMA_LANGUAGES:
            exported = target.facts.exports.get(name)
            local = exported.removeprefix("expr:") if exported else ""
            if local in target.top:
                name = local  # `export { Button }`: the definition, as `export const Button`
            elif exported is not None:
                found = self.binding(target, 0, exported, END, depth + 1)
                return found.weaker(module.conf) if found.known else found
        module_scope = target.facts.scopes[0] if target.facts.scopes else None
        entries = module_scope.bindings.get(name) if module_scope is not None else None
        if entries and entries[-1][1].startswith("wrap:") and not defined:
            wrapped = self.binding(target, 0, entries[-1][1], entries[-1][0], depth + 1)
            if wrapped.known:
                return wrapped.weaker(module.conf)
        top = target.top.get(name)
        if top:
            return Value("sym", conf=module.conf, via=module.via or "import", sym=top[-1])
        if entries:
            for bound_line, value in reversed(entries):
                if value.startswith("def:"):
                    continue
                found = self.binding(target, 0, value, bound_line, depth + 1)
                if found.known:
                    return found.weaker(module.conf)
            if any(not v.startswith("def:") for _, v in entries):
                return UNKNOWN
        if target.language == "python":
            sub = self.submodule(module, name)
            if sub is not None:
                return sub
        for spec in target.facts.stars:
            star = self.module_value(target, spec)
            if star.kind == "module" and (star.repo, star.path) != (module.repo, module.path):
                found_star = self.module_attr(star, name, depth + 1)
                if found_star is not None:
                    return found_star
        return None

    def submodule(self, package: Value, name: str) -> Value | None:
        """The module `name` of a Python package (`package` is its `__init__`), if any."""
        sub = self.index.python_submodule(package.repo, package.path, name)
        if sub is None:
            return None
        return Value("module", conf=package.conf, via="import", repo=sub[0], path=sub[1])

    def attribute(self, value: Value, name: str, depth: int, *, final: bool = False) -> Value:
        if value.kind == "union":
            return union([self.attribute(alt, name, depth, final=final) for alt in value.alts])
        kind = value.kind
        if kind == "module":
            found = self.module_attr(value, name, depth + 1)
            if found is None or not found.known:
                return UNKNOWN
            return found.weaker(CONF_MODULE_ATTR, "module")
        if kind == "ext":
            if value.name.split(".")[0] in TYPING_ROOTS:
                return UNKNOWN
            found = replace(value, name=f"{value.name}.{name}")
            if value.via == "manager" and name not in QUERY_METHODS | INSTANCE_METHODS:
                found = replace(found, via="external", sym=None)  # `.count`, `.model`, …
            return found
        if kind == "builtin":
            return value
        if kind == "unknown" and name in BUILTIN_METHODS and not final:
            return Value("builtin", name=name)
        if kind == "sym" and value.sym is not None and value.sym.kind in HELD_KINDS:
            held = self.held_value(value.sym, depth + 1)  # `db.post` after `db = new Client()`
            if held is not None:
                return self.attribute(held.weaker(value.conf), name, depth + 1, final=final)
        if kind in ("sym", "inst") and value.sym is not None:
            if value.sym.kind not in TYPE_KINDS:
                return self.prototype_member(value, name)
            found = self.member_lookup(value.sym, name, kind == "inst", depth + 1, frozenset())
            if found is None:
                # `__dict__`, `__class__`, … come from `object` when not defined here.
                dunder = name.startswith("__") and name.endswith("__")
                return Value("builtin", name=name) if dunder else UNKNOWN
            if not found.known:
                return found
            found = found.weaker(min(value.conf, CONF_SCOPE))
            if found.kind == "sym" and found.via == "member" and found.sym is not None:
                # a method through an instance (or a classmethod through its class)
                # is called with its first parameter filled in
                return replace(found, bound=kind == "inst" or self.binds_class(found.sym))
            return found
        if kind == "super" and value.sym is not None:
            found = self.member_lookup(value.sym, name, True, depth + 1, frozenset(), skip=True)
            if found is None:
                return UNKNOWN
            return found.weaker(CONF_SCOPE, "super") if found.known else found
        return UNKNOWN

    def own_constant(self, ctx: Ctx, ref: Ref, value: Value) -> Value:
        """A call of a module-level constant or function the file defines as a symbol
        (`<DialogOverlay>` beside `const DialogOverlay = React.forwardRef(…)`) calls that
        symbol, as a call from another file does, not what made it."""
        held = ctx.top.get(ref.name) if "." not in ref.name else None
        # a function too: `const Button = forwardRef((props, ref) => …)` is one
        if not held or held[-1].kind not in HELD_KINDS | {"function"} or value.kind == "sym":
            return value
        bound = _binding_of(ctx, ref.name, ref.scope)
        if bound is None or bound[0] != 0:
            return value  # a local of that name
        return Value("sym", conf=CONF_EXACT, via="file", sym=held[-1])

    def held_value(self, sym: SymbolRecord, depth: int) -> Value | None:
        """What a module-level JavaScript or TypeScript variable holds (`export const db =
        new PrismaClient()`), for the attributes read through it; None when unknown."""
        ctx = self.ctx(sym.repo, sym.path)
        if ctx is None or ctx.language not in ECMA_LANGUAGES or sym.parent is not None:
            return None
        module = ctx.facts.scopes[0] if ctx.facts.scopes else None
        for line, value in reversed(module.bindings.get(sym.name, []) if module else []):
            if not value.startswith("def:"):
                found = self.binding(ctx, 0, value, line, depth)
                return found if found.known and found.kind != "sym" else None
        return None

    def prototype_member(self, value: Value, name: str) -> Value:
        """`this.name` in `Foo.prototype.m = function …`: `this` is an instance of the
        constructor function Foo, whose methods are the functions stored on its
        prototype (the symbols `Foo.name`)."""
        ctx = self.ctx(value.sym.repo, value.sym.path) if value.sym is not None else None
        if value.kind != "inst" or value.sym is None or ctx is None:
            return UNKNOWN
        methods = ctx.by_qualified.get(f"{value.sym.qualified_name}.{name}")
        if not methods:
            return UNKNOWN
        conf = min(value.conf, CONF_SCOPE)
        return Value("sym", conf=conf, via="member", sym=methods[-1], bound=True)

    def member_lookup(
        self,
        cls: SymbolRecord,
        name: str,
        instance: bool,
        depth: int,
        seen: frozenset[str],
        *,
        skip: bool = False,
    ) -> Value | None:
        """An attribute of a class through its method resolution order (C3, as Python
        computes it); None when nowhere defined, UNKNOWN when defined without a type we
        can follow. `skip` starts after the class itself (`super()`)."""
        if depth > MAX_DEPTH or cls.id in seen:
            return None
        order, outside = self.linearize(cls)
        for n, owner in enumerate(order):
            if skip and n == 0:
                continue
            found = self.own_member(owner, name, instance, depth)
            if found is not None:
                if name in DJANGO_MANAGERS and outside is not None and _django_model(outside):
                    # `objects = CheckManager()`: its own methods, and the model's rows
                    return union([found, _rows_manager(cls, outside, name)])
                return found
        if outside is None:
            return None
        if outside.kind == "ext":
            if outside.name.split(".")[0] in TYPING_ROOTS:
                return UNKNOWN  # a generic container's method: its element type
            if name in DJANGO_MANAGERS and _django_model(outside):
                return _rows_manager(cls, outside, name)  # `Check.objects`
            if name.endswith("_set") and _django_model(outside):
                related = self._related_model(cls, name.removesuffix("_set"))
                if related is not None:  # `hero.donation_set`: the Donations of a Hero
                    return _rows_manager(related, outside, name)
            return Value("ext", conf=CONF_SCOPE, via="external", name=f"{outside.name}.{name}")
        return UNKNOWN

    def _related_model(self, model: SymbolRecord, folded: str) -> SymbolRecord | None:
        """The repository's one Django model named `folded` in lower case (the reverse side
        of its foreign keys, `<model>_set`), the one in `model`'s folder if several."""
        found = [
            s
            for s in self.index.by_folded_name(folded, model.repo)
            if s.kind == "class" and s.name.lower() == folded and self._is_django_model(s)
        ]
        if len(found) > 1:
            folder = posixpath.dirname(model.path)
            found = [s for s in found if posixpath.dirname(s.path) == folder]
        return found[0] if len(found) == 1 else None

    def _is_django_model(self, cls: SymbolRecord) -> bool:
        outside = self.linearize(cls)[1]
        return outside is not None and _django_model(outside)

    def own_member(self, cls: SymbolRecord, name: str, instance: bool, depth: int) -> Value | None:
        """An attribute a class defines itself: a member, a class-level binding, or an
        attribute its methods set on instances."""
        ctx = self.ctx(cls.repo, cls.path)
        if ctx is None:
            return None
        members = ctx.members.get((cls.qualified_name, name))
        if members:
            member = members[-1]
            found = Value("sym", conf=CONF_SCOPE, via="member", sym=member)
            if instance and self.is_property(ctx, member):
                return self.call_result(found, depth + 1)
            return found
        facts = ctx.facts.classes.get(cls.qualified_name)
        if facts is None:
            return None
        entries = ctx.facts.scopes[facts.scope].bindings.get(name)
        if entries:
            for bound_line, value in reversed(entries):
                if value.startswith("def:"):
                    continue
                found = self.binding(ctx, facts.scope, value, bound_line, depth + 1)
                if found.known and not _is_none(found):
                    return found.weaker(CONF_SCOPE, "attribute")
            return UNKNOWN
        if instance and name in facts.attrs:
            for scope, value in reversed(facts.attrs[name]):
                found = self.binding(ctx, scope, value, END, depth + 1)
                if found.known and not _is_none(found):
                    return found.weaker(CONF_SCOPE, "attribute")
            return UNKNOWN
        return None

    def linearize(self, cls: SymbolRecord) -> tuple[list[SymbolRecord], Value | None]:
        """The classes of the workspace in `cls`'s method resolution order, and the
        first base that is not one of them (external or unknown: None when all are).

        Computed once per class and run (every member look-up needs it, and sympy's
        deep hierarchies made it the hot path), with the look-ups it made recorded again
        for each file that uses it; a class whose order is being computed is its own
        order to itself (a cycle)."""
        ctx = self.ctx(cls.repo, cls.path)
        facts = ctx.facts.classes.get(cls.qualified_name) if ctx is not None else None
        if ctx is None or facts is None:
            return [cls], None
        parent_scope = ctx.facts.scopes[facts.scope].parent
        # Bases are read in the enclosing scope: a class inside a function may take a
        # parameter's value, which depends on the call being followed.
        key = (cls.id, self._env_id if parent_scope else 0)
        cached = self._orders.get(key)
        if cached is not None:
            self.index.deps.update(self._order_deps[key])
            return cached
        if key in self._ordering:
            return [cls], None
        before = set(self.index.deps)
        self._ordering.add(key)
        try:
            found = self._linearize(ctx, cls, facts.bases, parent_scope)
        finally:
            self._ordering.discard(key)
        self._orders[key] = found
        self._order_deps[key] = frozenset(self.index.deps - before)
        return found

    def _linearize(
        self, ctx: Ctx, cls: SymbolRecord, bases: list[str], parent_scope: int
    ) -> tuple[list[SymbolRecord], Value | None]:
        chains: list[list[SymbolRecord]] = []
        direct: list[SymbolRecord] = []
        outside: Value | None = None
        for base_chain in bases:
            base = self.eval_chain(ctx, base_chain, parent_scope, END, 1)
            if base.kind == "sym" and base.sym is not None and base.sym.kind in TYPE_KINDS:
                order, base_outside = self.linearize(base.sym)
                chains.append(order)
                direct.append(base.sym)
                outside = outside or base_outside
            elif base.kind != "builtin" and outside is None:
                outside = base if base.kind == "ext" else UNKNOWN
        merged = _c3_merge([*chains, direct])
        if merged is None:  # an inconsistent hierarchy: depth first, as Python 2 did
            merged = []
            for order in chains:
                merged += [c for c in order if c not in merged]
        return [cls, *merged], outside

    def property_of(self, receiver: Value, name: str) -> SymbolRecord | None:
        """The property `name` an instance's attribute read runs (through the class's
        method resolution order), if that attribute is one."""
        if receiver.kind != "inst" or receiver.sym is None:
            return None
        for owner in self.linearize(receiver.sym)[0]:
            ctx = self.ctx(owner.repo, owner.path)
            members = ctx.members.get((owner.qualified_name, name)) if ctx is not None else None
            if ctx is not None and members:
                return members[-1] if self.is_property(ctx, members[-1]) else None
        return None

    def is_property(self, ctx: Ctx, member: SymbolRecord) -> bool:
        facts = ctx.facts.functions.get(member.qualified_name)
        if facts is None:
            return False
        return any(
            d.split(".")[-1] in ("property", "cached_property", "getter", "setter", "deleter")
            for d in facts.decorators
        )

    def first_base(self, cls: SymbolRecord, depth: int) -> SymbolRecord | None:
        ctx = self.ctx(cls.repo, cls.path)
        facts = ctx.facts.classes.get(cls.qualified_name) if ctx is not None else None
        if ctx is None or facts is None:
            return None
        parent_scope = ctx.facts.scopes[facts.scope].parent
        for base_chain in facts.bases:
            base = self.eval_chain(ctx, base_chain, parent_scope, END, depth + 1)
            if base.kind == "sym" and base.sym is not None:
                return base.sym
        return None

    def call_result(self, value: Value, depth: int) -> Value:
        if value.kind == "union":
            return union([self.call_result(alt, depth) for alt in value.alts])
        kind = value.kind
        if kind == "ext" and value.name.split(".")[0] in TYPING_ROOTS:
            return UNKNOWN
        if kind == "ext" and value.via == "manager" and value.sym is not None:
            # a queryset method: another queryset of the model, or one of its rows
            if value.name.rpartition(".")[2] in INSTANCE_METHODS:
                conf = min(value.conf, CONF_SCOPE)
                return Value("inst", conf=conf, via="manager", sym=value.sym)
            return value
        if kind in ("ext", "builtin"):
            return value
        if kind == "sym" and value.sym is not None:
            sym = value.sym
            if sym.kind in TYPE_KINDS:
                return Value("inst", conf=value.conf, via=value.via, sym=sym)
            found = self.returned(sym, value.conf, depth)
            if found.known:
                return found
            ctx = self.ctx(sym.repo, sym.path)
            if ctx is not None and sym.qualified_name in ctx.prototyped:
                # `new Foo()` of an ES5 constructor function: an instance of Foo
                return Value("inst", conf=min(value.conf, CONF_SCOPE), via=value.via, sym=sym)
            return found
        if kind == "module" and depth <= MAX_DEPTH:
            target = self.ctx(value.repo, value.path)
            if target is not None and "default" in target.facts.exports:
                found = self.binding(target, 0, target.facts.exports["default"], END, depth + 1)
                return self.call_result(found, depth + 1) if found.known else UNKNOWN
        return UNKNOWN

    def returned(self, function: SymbolRecord, conf: float, depth: int) -> Value:
        """What calling a function gives: an instance of its return annotation, else
        what its `return` statements give, or a generator when it yields."""
        ctx = self.ctx(function.repo, function.path)
        facts = ctx.facts.functions.get(function.qualified_name) if ctx is not None else None
        if ctx is None or facts is None or depth > MAX_DEPTH:
            return UNKNOWN
        bindings = ctx.facts.scopes[facts.scope].bindings
        if "<yield>" in bindings:
            return Value("gen", conf=min(conf, CONF_SCOPE), via="return", sym=function)
        if not facts.returns:
            if "<return>" not in bindings:
                return UNKNOWN
            return self.function_output(function, "<return>", conf, depth)
        returns = facts.returns
        if returns.split(".")[-1] in ("Self", "this") and function.parent is not None:
            owner = ctx.symbol(function.parent)
            if owner is not None:
                return Value("inst", conf=min(conf, CONF_SCOPE), via="annotation", sym=owner)
        scope = ctx.facts.scopes[facts.scope].parent if facts.scope < len(ctx.facts.scopes) else 0
        found = self.eval_chain(ctx, returns, scope, END, depth + 1)
        if found.kind == "sym" and found.sym is not None and found.sym.kind in TYPE_KINDS:
            return Value("inst", conf=min(conf, CONF_SCOPE), via="annotation", sym=found.sym)
        if found.kind in ("ext", "builtin"):
            return found
        return UNKNOWN

    def function_output(
        self, function: SymbolRecord, pseudo: str, conf: float, depth: int
    ) -> Value:
        """What a function's `return` (or `yield`) statements give, all of them."""
        ctx = self.ctx(function.repo, function.path)
        facts = ctx.facts.functions.get(function.qualified_name) if ctx is not None else None
        if ctx is None or facts is None or depth > MAX_DEPTH:
            return UNKNOWN
        entries = ctx.facts.scopes[facts.scope].bindings.get(pseudo, [])
        values = [self.binding(ctx, facts.scope, v, n, depth + 1) for n, v in entries]
        found = union([v for v in values if not _is_none(v)])
        return found.weaker(min(conf, CONF_SCOPE), "return") if found.known else UNKNOWN

    def enclosing_class(self, ctx: Ctx, scope: int) -> SymbolRecord | None:
        scopes = ctx.facts.scopes
        index = scope
        while 0 <= index < len(scopes):
            s = scopes[index]
            if s.kind == "class":
                return ctx.symbol(s.name, s.line)
            index = s.parent
        return None

    # -- docs and links -------------------------------------------------------------------
    def doc_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        explicit = ref.kind == "link"
        weight = LINK_WEIGHT if explicit else EDGE_WEIGHTS["references"]
        source = ctx.source_id(ref.line)
        name = ref.name.strip(".")
        if ctx.language in DEEP_LANGUAGES and ctx.facts.scopes:
            value = self.eval_chain(ctx, name, 0, END, 0)
            if value.kind == "sym" and value.sym is not None:
                if value.sym.id == source:
                    return []
                row = self._to_sym(
                    source, value.sym, "references", min(value.conf, 0.9), ref, "scope"
                )
                row.weight = weight
                return [row]
            if value.kind in ("ext", "builtin"):
                return []
        candidates = [s for s in self.index.by_qualified(name, ctx.repo) if s.kind != "section"]
        dotted = "." in name
        if not candidates and dotted:
            last = name.rsplit(".", 1)[1]
            candidates = [
                s
                for s in self.index.by_name(last, ctx.repo)
                if s.kind != "section"
                and (s.qualified_name.endswith("." + name) or name.endswith("." + s.qualified_name))
            ]
        elif not candidates:
            candidates = [s for s in self.index.by_name(name, ctx.repo) if s.kind != "section"]
        candidates = [s for s in candidates if s.id != source]
        folder = posixpath.dirname(ctx.path)
        near = [s for s in candidates if posixpath.dirname(s.path) == folder]
        if len(near) == 1 and len(candidates) > 1:
            # the package's own (`{@link PetType}` beside a PetType of another service)
            conf = CONF_EXACT if explicit else CONF_SCOPE
            row = self._to_sym(source, near[0], "references", conf, ref, "package")
            row.weight = weight
            return [row]
        if candidates and len(candidates) <= MAX_CANDIDATES:
            if len(candidates) == 1:
                conf = CONF_SCOPE if dotted else 0.6
            else:
                conf = min(CONF_AMBIGUOUS, 0.8 / len(candidates))
            rows = [self._to_sym(source, s, "references", conf, ref, "name") for s in candidates]
            for row in rows:
                row.weight = weight
            return rows
        if explicit:
            row = _unresolved(source, name, "references", 0.0, ref, "unknown")
            row.weight = weight
            return [row]
        return []

    def file_link(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        path, _, anchor = ref.name.partition("#L")
        if not self.index.has_file(ctx.repo, path):
            return []
        source = ctx.source_id(ref.line)
        target_ctx_symbols = self.index.symbols(ctx.repo, path)
        if anchor.isdigit():
            line = int(anchor)
            inner = [s for s in target_ctx_symbols if s.start_line <= line <= s.end_line]
            if inner:
                best = max(inner, key=lambda s: (s.start_line, -s.end_line))
                row = self._to_sym(source, best, "references", CONF_EXACT, ref, "link")
                row.weight = LINK_WEIGHT
                return [row]
        row = self._to_file(source, ctx.repo, path, "references", CONF_EXACT, ref)
        row.weight, row.via = LINK_WEIGHT, "link"
        return [row]

    # -- other languages: by name ---------------------------------------------------------
    def generic_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        if ref.kind == "import":
            return self.generic_import(ctx, ref)
        source_sym = ctx.innermost(ref.line, sections=False)
        source = source_sym.id if source_sym is not None else ctx.file_id
        segments = _segments(ref.name)
        if not segments or not segments[-1][0] or segments[-1][0] == "?":
            return []
        name = segments[-1][0]
        receiver = [s[0] for s in segments[:-1]]
        if (
            not receiver
            and name in LANGUAGE_BUILTINS.get(ctx.language, ())
            and not any(s.name == name for s in ctx.symbols)
        ):
            return []  # the language's own, not code of the repository
        if ref.kind == "value":
            return self._function_value(ctx, source, name, ref)
        if ref.kind in ("inherit", "implement", "type"):
            # a Ruby class includes modules (`include Syncable`, a Rails concern)
            kinds = TYPE_KINDS | {"module"} if ctx.language == "ruby" else TYPE_KINDS
            edge_type = {"inherit": "extends", "implement": "implements"}.get(
                ref.kind, "references"
            )
        else:
            kinds = CALLABLE_KINDS | TYPE_KINDS
            edge_type = "calls"

        def finish(found: list[SymbolRecord], conf: float, via: str) -> list[Edge]:
            rows = []
            for s in found:
                kind = edge_type
                if kind in ("extends", "implements"):
                    kind = "implements" if s.kind in INTERFACE_KINDS else kind
                rows.append(self._to_sym(source, s, kind, conf, ref, via))
            return rows

        if edge_type == "calls" and receiver in (
            [],
            ["this"],
            ["self"],
            ["@"],
            ["$this"],
            ["static"],
        ):
            members = self._own_members(ctx, source_sym, name)
            # Another overload, rather than the caller itself; the arguments would tell
            # which one.
            others = [m for m in members if m.id != source] or members
            if len(others) == 1:
                return finish(others, CONF_NEAR, "scope")
            if others:
                chosen = others[:MAX_CANDIDATES]
                return finish(chosen, min(CONF_AMBIGUOUS, 0.8 / len(chosen)), "scope")
        if ctx.language == "php" and len(receiver) == 2 and receiver[0] == "this":
            # `$this->songs->search()`: an injected service, by its declared type
            typed = self.php_property_class(ctx, source_sym, receiver[1])
            if typed is False:  # `LoggerInterface $logger`: from outside
                return [_unresolved(source, ref.name, edge_type, CONF_NEAR, ref, "external")]
            if isinstance(typed, SymbolRecord) and edge_type == "calls":
                return self._class_call(ctx, source, typed, name, ref, finish)
        if ctx.language == "php" and len(receiver) <= 1:
            used = self.php_imported(ctx, receiver[0] if receiver else name)
            if used is False:  # `Log::error`, `extends Model`: from outside
                return [_unresolved(source, ref.name, edge_type, CONF_NEAR, ref, "external")]
            if isinstance(used, SymbolRecord):
                if not receiver:  # `new Song()`, `extends Request`, `create_user()`
                    return finish([used], CONF_EXACT, "import")
                if edge_type == "calls" and used.kind in TYPE_KINDS:  # `Song::query()`
                    return self._class_call(ctx, source, used, name, ref, finish)
        local = [s for s in ctx.symbols if s.name == name and s.kind in kinds and s.id != source]
        if len(local) == 1 and not (receiver and receiver not in (["this"], ["self"])):
            return finish(local, CONF_NEAR, "file")
        if (
            edge_type == "calls"
            and not receiver
            and not local
            and source_sym is not None
            and source_sym.name == name
        ):
            return finish([source_sym], CONF_NEAR, "file")  # it calls itself
        if receiver and ctx.language in ("zig", "lua"):
            imported = self._imported_file(ctx, receiver[0])
            if imported is False:  # `std.debug.print`
                return [_unresolved(source, ref.name, edge_type, CONF_NEAR, ref, "external")]
            if isinstance(imported, list) and len(receiver) == 1:  # `posix.close`
                found = [
                    s
                    for path in imported
                    for s in self.index.symbols(ctx.repo, path)
                    if s.name == name and s.kind in kinds
                ]
                if found:
                    conf = CONF_NEAR if len(found) == 1 else CONF_AMBIGUOUS
                    return finish(found[:MAX_CANDIDATES], conf, "import")
        if receiver and receiver[0] == "?" and ctx.language == "ruby":
            # a literal's: ActiveSupport's `30.days`, `"x".humanize` (not PHP's
            # `(new Service())->run()`, which the guess by name gets right)
            return [_unresolved(source, ref.name, edge_type, 0.0, ref, "unknown")]
        if receiver and ctx.language == "ruby" and edge_type == "calls":
            held = self._ruby_receiver_class(ctx, source_sym, receiver)
            if held is not None:
                return self._ruby_instance_call(ctx, source, held, name, ref, finish)
        if ctx.language == "kotlin":
            # `owners.findById(id)` with `val owners: OwnerRepository`; an imported name
            written = receiver[-1] if receiver and edge_type == "calls" else None
            if written is not None and len(receiver) <= 2 and receiver[0] in (written, "this"):
                typed = self.kotlin_declared_class(ctx, source_sym, written, ref.line)
            else:
                typed = None if receiver else self.kotlin_imported(ctx, name)
            if typed is False:  # a type from outside the repository
                return [_unresolved(source, ref.name, edge_type, CONF_NEAR, ref, "external")]
            if isinstance(typed, SymbolRecord):
                if written is None:
                    return finish([typed], CONF_NEAR, "import")
                return self._class_call(ctx, source, typed, name, ref, finish)
        if receiver and len(receiver) == 1:
            package_dir = self._imported_dir(ctx, receiver[0])
            if package_dir is False:
                return [_unresolved(source, ref.name, edge_type, CONF_NEAR, ref, "external")]
            if isinstance(package_dir, str):
                found = [
                    s
                    for s in self.index.by_name(name, ctx.repo)
                    if s.kind in kinds and posixpath.dirname(s.path) == package_dir
                ]
                if found:
                    return finish(
                        found[:MAX_CANDIDATES],
                        CONF_NEAR if len(found) == 1 else CONF_AMBIGUOUS,
                        "import",
                    )
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.kind in kinds and s.id != source and _callable_from(ctx, s)
        ]
        if ctx.language == "ruby" and not receiver and edge_type == "calls":
            found = self._ruby_self_methods(ctx, source_sym, found)
        if len(local) > 1:
            found = local
        if receiver:
            scope = source_sym.qualified_name if source_sym is not None else ""
            # `File.join`, `YAML.load`, `Enum.map`: a constant the repository does not
            # define where the caller can see it (from its scope outwards) is the
            # language's or a library's, and so is its method; Jekyll's `File.join`s had
            # gone to its `PathManager.join` (129 such guesses).
            outside = (
                ctx.language in _CONSTANT_RECEIVERS
                and receiver[0][:1].isupper()
                and not self._constants_written(ctx, receiver, scope, _NAMESPACE_KINDS)
            )
            if outside and ctx.language == "ruby":
                # Ruby's constants are lexical: `Jekyll::LiquidRenderer::File` is no
                # `File` in `Jekyll::Cache`.
                return [_unresolved(source, ref.name, edge_type, CONF_NEAR, ref, "external")]
            # `Repo.get` names `MyApp.Repo.get` (an Elixir alias, a Lua table, a Ruby or
            # Perl package) among the other `get`s.
            written = ".".join([*receiver, name])
            named = [
                s
                for s in found
                if s.qualified_name == written or s.qualified_name.endswith("." + written)
            ]
            if len(named) == 1:
                return finish(named, CONF_NEAR, "qualified")
            cls = self._class_written(ctx, receiver, scope) if edge_type == "calls" else None
            if cls is not None:
                return self._class_call(ctx, source, cls, name, ref, finish)
            if name == "new" and ctx.language == "ruby":
                # `Set.new`, `repo.issues.new`: an instance made by a class from outside,
                # not a call of some method `new` (Rails controllers all have one).
                return [_unresolved(source, ref.name, edge_type, 0.0, ref, "unknown")]
            if outside:  # Elixir's aliases were named above
                return [_unresolved(source, ref.name, edge_type, CONF_NEAR, ref, "external")]
        if edge_type == "calls" and name in OBJECT_METHODS.get(ctx.language, ()):
            return [_unresolved(source, ref.name, edge_type, 0.0, ref, "unknown")]
        classes = {s.qualified_name for s in found if s.kind in TYPE_KINDS}
        # `new Circle()` names the class; its constructor `Circle.Circle` is not another
        # candidate.
        found = [s for s in found if not (s.kind == "method" and s.parent in classes)]
        folder = posixpath.dirname(ctx.path)
        near = [s for s in found if posixpath.dirname(s.path) == folder]
        if len(near) == 1 and (edge_type != "calls" or not receiver):
            return finish(near, CONF_NEAR, "package")
        if len(found) == 1:
            return finish(found, CONF_UNIQUE, "name")
        if 1 < len(found) <= MAX_CANDIDATES:
            return finish(found, min(CONF_AMBIGUOUS, 0.8 / len(found)), "name")
        return [_unresolved(source, ref.name, edge_type, 0.0, ref, "unknown")]

    def _function_value(self, ctx: Ctx, source: str, name: str, ref: Ref) -> list[Edge]:
        """A function named as a value: C's `.exec = cmd_new_session_exec`, a callback
        handed on (`event_set(&ev, fd, EV_READ, server_accept, NULL)`). A `references`
        edge to the repository's function so named (the file's own first: a static
        one); none when no function is (the name is a variable's). tmux's 61
        `cmd_*_exec`, reached only through their command tables, had no caller."""
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.kind == "function" and s.id != source and _callable_from(ctx, s)
        ]
        own = [s for s in found if s.path == ctx.path]
        found = own or found
        if len(found) == 1:
            conf = CONF_NEAR if own else CONF_UNIQUE
        elif 1 < len(found) <= MAX_CANDIDATES:
            conf = min(CONF_AMBIGUOUS, 0.8 / len(found))
        else:
            return []
        return [self._to_sym(source, s, "references", conf, ref, "value") for s in found]

    def _ruby_self_methods(
        self, ctx: Ctx, within: SymbolRecord | None, found: list[SymbolRecord]
    ) -> list[SymbolRecord]:
        """Of the methods so named, those a call without a receiver can reach in Ruby:
        the caller's class's, or those of a class or module it inherits or includes (as
        its file writes them), or a top-level one; from a module (a mixin), any. maybe's
        `scope :chronological` went to an unrelated `AutoMerchantDetector#scope` (47
        such), a test's fixture accessor `accounts(:x)` to a class's `accounts` (88)."""
        cls = self._enclosing_type(ctx, within, TYPE_KINDS | {"module"})
        if cls is None:
            return [s for s in found if s.parent is None]
        if cls.kind == "module":
            # A mixin calls its includers' methods: those of the classes including it
            # (Jekyll's `Convertible#read_yaml` had reached `Document`, `Excerpt` and
            # `StaticFile`, none of which includes it: 16 of its 26 edges).
            mixin = cls.qualified_name.rsplit(".", 1)[-1]
            return [
                s
                for s in found
                if s.parent is None
                or s.parent == cls.qualified_name
                or self._includes(s.repo, s.parent, mixin)
            ]
        owners = {cls.qualified_name.rsplit(".", 1)[-1]}
        owners |= {
            r.name.rsplit(".", 1)[-1]
            for r in ctx.facts.refs
            if r.kind == "inherit" and cls.start_line <= r.line <= cls.end_line
        }
        return [
            s for s in found if s.parent is None or (s.parent or "").rsplit(".", 1)[-1] in owners
        ]

    def _ruby_receiver_class(
        self, ctx: Ctx, within: SymbolRecord | None, receiver: list[str]
    ) -> SymbolRecord | None:
        """The class a Ruby receiver holds: `self` in a class is that class; a lowercase
        name (`family`, `@family`, `Current.family`) holds the repository's one class so
        named (`Family`), as Rails's code names its objects."""
        if receiver == ["self"]:
            cls = self._enclosing_type(ctx, within, TYPE_KINDS | {"module"})
            return cls if cls is not None and cls.kind != "module" else None
        word = receiver[-1].lstrip("@")
        if not _RUBY_LOCAL.fullmatch(word):
            return None
        # The class so named where the caller can see it, from its scope outwards: in
        # `Jekyll::Renderer`, `document` is a `Jekyll::Document`, not a benchmark
        # script's top-level `Document` (34 of Jekyll's calls had gone there).
        scope = within.qualified_name if within is not None else ""
        seen = self._constants_written(ctx, [camel(word)], scope, frozenset({"class"}))
        if len(seen) == 1:
            return seen[0]
        classes = [
            s
            for s in self.index.by_name(camel(word), ctx.repo)
            if s.kind == "class" and _callable_from(ctx, s)
        ]
        top = [s for s in classes if s.qualified_name == s.name] or classes
        return top[0] if len(top) == 1 else None

    def _ruby_instance_call(
        self,
        ctx: Ctx,
        source: str,
        cls: SymbolRecord,
        name: str,
        ref: Ref,
        finish: Callable[[list[SymbolRecord], float, str], list[Edge]],
    ) -> list[Edge]:
        """A call on an instance of `cls`: its method, else its bases' or modules' (as its
        file writes them), then its subclasses' overrides (`@import` may hold an
        `AccountImport`); any other name is a column, an association or a method from
        outside the repository, not a guess among other classes' methods."""
        bases = self.bases(cls)
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.kind in CALLABLE_KINDS and s.id != source
        ]
        owned = [s for s in found if s.parent == cls.qualified_name] or [
            s for s in found if (s.parent or "").rsplit(".", 1)[-1] in bases
        ]
        overrides = [s for s in found if s not in owned and cls.name in self._owner_bases(s)]
        chosen = (owned + overrides)[:MAX_CANDIDATES]
        if chosen:
            return finish(chosen, min(CONF_UNIQUE, _split(len(chosen))), "member")
        return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]

    def _owner_bases(self, member: SymbolRecord) -> set[str]:
        """The simple names of the classes the class defining `member` extends."""
        owner = [
            s
            for s in self.index.symbols(member.repo, member.path)
            if s.qualified_name == member.parent and s.kind in TYPE_KINDS
        ]
        return self.bases(owner[0]) if owner else set()

    def _class_written(self, ctx: Ctx, receiver: list[str], scope: str) -> SymbolRecord | None:
        """The class of the repository a call's receiver names (`Repo.find_by`,
        `GithubFetcher::User.new`), looked up from the innermost scope of the caller
        (`scope`, its qualified name) out, as Ruby's and Kotlin's constants are: in
        `Sinatra::Base`, `Request` is `Sinatra::Request`. A nested class elsewhere is not
        it: okhttp's `Logger.getLogger` is `java.util.logging`'s, not
        `HttpLoggingInterceptor.Logger`'s."""
        exact = self._constants_written(ctx, receiver, scope, TYPE_KINDS)
        if len(exact) > 1 and ctx.language == "ruby":  # a class reopened in other files
            return min(exact, key=lambda s: (s.path, s.start_line))
        return exact[0] if len(exact) == 1 else None

    def _constants_written(
        self, ctx: Ctx, receiver: list[str], scope: str, kinds: frozenset[str]
    ) -> list[SymbolRecord]:
        """The repository's symbols of `kinds` a capitalised receiver names from `scope`
        outwards (a class reopened in several files is several)."""
        if not receiver or not receiver[-1][:1].isupper():
            return []
        classes = [
            s
            for s in self.index.by_name(receiver[-1], ctx.repo)
            if s.kind in kinds and _callable_from(ctx, s)
        ]
        outer = scope.split(".") if scope else []
        for depth in range(len(outer), -1, -1):
            written = ".".join([*outer[:depth], *receiver])
            exact = [s for s in classes if s.qualified_name == written]
            if exact:
                return exact
        return []

    def _class_call(
        self,
        ctx: Ctx,
        source: str,
        cls: SymbolRecord,
        name: str,
        ref: Ref,
        finish: Callable[[list[SymbolRecord], float, str], list[Edge]],
    ) -> list[Edge]:
        """A call on a class named as its receiver whose method the class does not define
        itself: Ruby's `Repo.new` makes a `Repo`; a method of a nested object (a Kotlin
        companion's) or of a base class of the repository is that method; anything else
        is inherited from outside the repository (ActiveRecord's `Repo.find_by`,
        Eloquent's `User::where`): unresolved, with a reference to the class, never a
        guess among other classes' methods of that name (`ReposController.new`)."""
        if name == "new" and ctx.language == "ruby":
            return finish([cls], CONF_NEAR, "constructor")
        # Any file's: a call in http.zig's router, which has three `init`s of its own, of
        # `Params.init` is params.zig's.
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.kind in CALLABLE_KINDS | TYPE_KINDS and s.id != source and _callable_from(ctx, s)
        ]
        owner = cls.qualified_name
        nested = [s for s in found if s.qualified_name.startswith(owner + ".")]
        # the class's own file first: a class of that name in another namespace (PHP's
        # `Subsonic\SongResource` beside `Resources\SongResource`) is another class
        nested = [s for s in nested if s.path == cls.path] or nested
        # the class's own method, not a nested class's override (an enum entry's)
        nested = [s for s in nested if s.qualified_name == f"{owner}.{name}"] or nested
        if nested:
            return finish(nested[:MAX_CANDIDATES], _split(len(nested)), "member")
        bases = self.bases(cls)
        inherited = [
            s for s in found if s.qualified_name.rpartition(".")[0].rsplit(".", 1)[-1] in bases
        ]
        if inherited:
            return finish(inherited[:MAX_CANDIDATES], _split(len(inherited)), "super")
        return [
            _unresolved(source, ref.name, "calls", 0.0, ref, "unknown"),
            self._to_sym(source, cls, "references", CONF_NEAR, ref, "receiver"),
        ]

    def _includes(self, repo: str, qualified: str, mixin: str) -> bool:
        """Whether the class `qualified` (in any file that opens it) includes or extends
        `mixin` (a simple name), itself or through a class it extends (`Post < Page`,
        `Page` including it)."""
        seen: set[str] = set()
        wanted = [(qualified, True)]  # (name, whether it is a qualified name)
        while wanted and len(seen) < MAX_BASE_WALK:
            name, exact = wanted.pop()
            short = name.rsplit(".", 1)[-1]
            for c in self.index.by_name(short, repo):
                if c.kind not in TYPE_KINDS or c.id in seen:
                    continue
                if not exact or c.qualified_name == name:
                    seen.add(c.id)
                    bases = self.bases(c)
                    if mixin in bases:
                        return True
                    wanted += [(base, False) for base in bases]
        return False

    def bases(self, cls: SymbolRecord) -> set[str]:
        """The simple names of the classes `cls` extends, as its file writes them (those
        of classes nested in it too)."""
        facts = self.index.facts(cls.repo, cls.path)
        if facts is None:
            return set()
        return {
            r.name.rsplit(".", 1)[-1]
            for r in facts.refs
            if r.kind == "inherit" and cls.start_line <= r.line <= cls.end_line
        }

    def _own_members(
        self, ctx: Ctx, source_sym: SymbolRecord | None, name: str
    ) -> list[SymbolRecord]:
        """The members called `name` of the type a call is made in: in its file, else
        anywhere in the repository under the type's qualified name (a Swift or Kotlin
        extension, a C++ method defined outside its class, a reopened Ruby class)."""
        cls = self._enclosing_type(ctx, source_sym)
        if cls is not None:
            owner = cls.qualified_name
        elif source_sym is not None and source_sym.kind == "method":
            owner = source_sym.qualified_name.rpartition(".")[0]
        else:
            return []
        members = ctx.members.get((owner, name), [])
        if members or not owner:
            return members
        qualified = f"{owner}.{name}"
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.qualified_name == qualified and _callable_from(ctx, s)
        ]
        return sorted(found, key=lambda s: (s.path != ctx.path, s.path, s.start_line))

    def _enclosing_type(
        self, ctx: Ctx, sym: SymbolRecord | None, kinds: frozenset[str] = TYPE_KINDS
    ) -> SymbolRecord | None:
        while sym is not None:
            if sym.kind in kinds:
                return sym
            sym = ctx.symbol(sym.parent) if sym.parent is not None else None
        return None

    def _imported_dir(self, ctx: Ctx, alias: str) -> str | bool | None:
        """Go-style `pkg.Func`: the folder of the imported package named `alias` (str),
        False when `alias` names an import from outside the repository, else None."""
        for ref in ctx.facts.refs:
            if ref.kind != "import":
                continue
            spec = ref.name.strip("\"'<>")
            if spec.rsplit("/", 1)[-1] != alias:
                continue
            folder = self._go_dir(ctx.repo, spec)
            return folder if folder is not None else False
        return None

    def _imported_file(self, ctx: Ctx, alias: str) -> list[str] | bool | None:
        """The files of the import a Zig or Lua file binds to `alias` by its module's
        name (`const posix = @import("posix.zig")`, `local path = require("plenary.path")`);
        False when that import is from outside the repository (`@import("std")`), None
        when no import has that name. Asked once per alias and file: every call through
        the alias asks."""
        if alias in ctx.imported_files:
            return ctx.imported_files[alias]
        found: list[str] | bool | None = None
        for ref in ctx.facts.refs:
            if ref.kind != "import":
                continue
            spec = ref.name.strip("\"'<>")
            stem = posixpath.basename(spec).removesuffix(".zig").rsplit(".", 1)[-1]
            if stem != alias:
                continue
            edges = self.generic_import(ctx, ref)
            paths = [e.target_path for e in edges if e.resolved and e.target_path]
            found = sorted(set(paths)) if paths else False
            break
        ctx.imported_files[alias] = found
        return found

    def _go_dir(self, repo: str, spec: str) -> str | None:
        folders = {posixpath.dirname(p) for p in self.index.repo_files(repo)}
        best: str | None = None
        for folder in folders:
            matches = folder and (spec == folder or spec.endswith("/" + folder))
            if matches and (best is None or len(folder) > len(best)):
                best = folder
        return best

    def generic_import(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        source = ctx.file_id
        spec = ref.name.strip("\"'<>")
        files = self.index.repo_files(ctx.repo)
        language = ctx.language
        if language == "go":
            folder = self._go_dir(ctx.repo, spec)
            if folder is None:
                return [_unresolved(source, spec, "imports", 1.0, ref, "external")]
            targets = sorted(
                p
                for p in files
                if posixpath.dirname(p) == folder
                and p.endswith(".go")
                and not p.endswith("_test.go")
            )
            return [self._to_file(source, ctx.repo, p, "imports", 1.0, ref) for p in targets[:10]]
        if language in ("c", "cpp"):
            near = posixpath.normpath(posixpath.join(posixpath.dirname(ctx.path), spec))
            if near in files:
                return [self._to_file(source, ctx.repo, near, "imports", 1.0, ref)]
            found = sorted(p for p in files if p == spec or p.endswith("/" + spec))
            return self._split_files(ctx, ref, found, spec)
        if language == "ruby":
            wanted = spec if spec.endswith(".rb") else spec + ".rb"
            found = sorted(p for p in files if p == wanted or p.endswith("/" + wanted))
            return self._split_files(ctx, ref, found, spec)
        if language == "dart":
            return self._split_files(ctx, ref, _dart_import(ctx.path, spec, files), spec)
        if language == "php":
            spec = spec.partition(" as ")[0]
            declaring = declaring_files(self._composer_roots(ctx.repo), files, spec)
            if declaring is not None:
                return self._php_import(ctx, ref, spec, declaring)
        near = posixpath.normpath(posixpath.join(posixpath.dirname(ctx.path), spec))
        # A file named by its path (Julia's `include("utils.jl")`), or a folder's
        # `default.nix` (Nix's `import ./lib`).
        for named in (near, f"{near}/default.nix"):
            if named in files and named != ctx.path:
                return [self._to_file(source, ctx.repo, named, "imports", 1.0, ref)]
        parts = [
            p for p in re.split(r"[.\\/]|::", spec) if p and p not in ("crate", "self", "super")
        ]
        for drop in range(min(2, len(parts))):
            stem = "/".join(parts[: len(parts) - drop]) if drop else "/".join(parts)
            if not stem:
                break
            found = sorted(
                p
                for p in files
                # A dbt model may `ref()` a seed: a CSV file the project loads as a table.
                if (files[p] == language or (language == "sql" and p.endswith(".csv")))
                and (
                    p.rsplit(".", 1)[0] == stem
                    or p.rsplit(".", 1)[0].endswith("/" + stem)
                    or p.endswith(("/" + stem + "/mod.rs", "/" + stem + "/init.lua"))
                )
            )
            if found:
                rows = self._split_files(ctx, ref, found, spec)
                if drop and len(found) == 1:
                    symbol = next(
                        (s for s in self.index.symbols(ctx.repo, found[0]) if s.name == parts[-1]),
                        None,
                    )
                    if symbol is not None:
                        rows.append(self._to_sym(source, symbol, "imports", 1.0, ref, "import"))
                elif not drop and len(found) == 1:
                    symbol = next(
                        (
                            s
                            for s in self.index.symbols(ctx.repo, found[0])
                            if s.name == parts[-1] and s.parent is None
                        ),
                        None,
                    )
                    if symbol is not None:
                        rows.append(self._to_sym(source, symbol, "imports", 1.0, ref, "import"))
                return rows
        # A module named apart from its file: Fortran's `use json_kinds`, Elixir's `alias
        # Plug.Conn` (lib/plug/conn.ex), Julia's `using .Utils`.
        modules = [
            s
            for s in self.index.by_qualified(".".join(parts), ctx.repo)
            if s.kind == "module" and files.get(s.path) == language
        ]
        if modules and len(modules) <= MAX_CANDIDATES:
            modules = [s for s in modules if s.path != ctx.path]
            if not modules:
                return []  # Phoenix.Socket's own `alias Phoenix.Socket`
            rows = self._split_files(ctx, ref, sorted({s.path for s in modules}), spec)
            conf = rows[0].confidence
            return rows + [self._to_sym(source, s, "imports", conf, ref, "import") for s in modules]
        return [_unresolved(source, spec, "imports", 1.0, ref, "external")]

    def _php_import(self, ctx: Ctx, ref: Ref, spec: str, declaring: list[str]) -> list[Edge]:
        """A `use` of a name under a PSR-4 prefix of the repository: the file declaring
        it and the class, function or constant itself; unknown when none does."""
        name = spec.rpartition(".")[2]
        for path in declaring:
            symbol = next(
                (
                    s
                    for s in self.index.symbols(ctx.repo, path)
                    if s.name == name and s.parent is None
                ),
                None,
            )
            if symbol is not None:
                return [
                    self._to_file(ctx.file_id, ctx.repo, path, "imports", CONF_EXACT, ref),
                    self._to_sym(ctx.file_id, symbol, "imports", CONF_EXACT, ref, "import"),
                ]
        return [_unresolved(ctx.file_id, spec, "imports", 0.0, ref, "unknown")]

    def _composer_roots(self, repo: str) -> Roots:
        found = self._composer.get(repo)
        if found is None:
            found = self._composer[repo] = composer_roots(
                self.index.root(repo), self.index.repo_files(repo)
            )
        return found

    def prisma_model(self, ctx: Ctx, called: str, source: str, ref: Ref) -> list[Edge]:
        """`prisma.post.findMany()` (`@prisma/client.PrismaClient.post.findMany`) uses
        the schema's model `Post`: a reference to it."""
        parts = called.split(".")
        if len(parts) < 4 or parts[0] != "@prisma/client" or parts[1] != "PrismaClient":
            return []
        name = parts[2][:1].upper() + parts[2][1:]
        models = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.kind == "class" and s.path.endswith(".prisma")
        ]
        if len(models) != 1:
            return []
        return [self._to_sym(source, models[0], "references", CONF_SCOPE, ref, "model")]

    def kotlin_declared_class(
        self, ctx: Ctx, within: SymbolRecord | None, name: str, line: int
    ) -> SymbolRecord | bool | None:
        """The class or interface a Kotlin name is declared as, in the function or class
        using it: a parameter or a local (`pets: PetRepository?`, `val x: Foo = …`), a
        property or constructor property of the class (`val owners: OwnerRepository`);
        False for a type from outside the repository; None when unknown."""
        text = self.file_text(ctx)
        if not text:
            return None
        lines = LineIndex(text)
        declared = re.compile(rf"\b(?:va[lr]\s+)?{re.escape(name)}\s*:\s*([A-Z][\w.]*)")
        scope: SymbolRecord | None = within
        while scope is not None:
            start = lines.starts[scope.start_line - 1]
            end = lines.starts[min(line, len(lines.starts)) - 1] if scope is within else len(text)
            if scope is not within:  # a class: its properties and constructor's
                end = lines.starts[min(scope.end_line, len(lines.starts) - 1)]
            found = declared.search(text, start, end)
            if found is not None:
                return self._kotlin_type(ctx, found.group(1))
            scope = ctx.symbol(scope.parent) if scope.parent is not None else None
        return None

    def _kotlin_type(self, ctx: Ctx, written: str) -> SymbolRecord | bool | None:
        """A type as a Kotlin file writes it: imported, of the file's package (its
        folder), else the repository's one class of that name."""
        short = written.rsplit(".", 1)[-1]
        return self._type_named(ctx, short, self.kotlin_imported(ctx, short), nearby=True)

    def _type_named(
        self, ctx: Ctx, short: str, imported: SymbolRecord | bool | None, *, nearby: bool
    ) -> SymbolRecord | bool | None:
        """The type a file names `short`: the definition its import binds (False for one
        from outside the repository), else the repository's one type of that name (with
        `nearby`, of the file's folder first)."""
        if isinstance(imported, SymbolRecord):
            return imported if imported.kind in TYPE_KINDS else None
        if imported is False:
            return False
        named = [s for s in self.index.by_name(short, ctx.repo) if s.kind in TYPE_KINDS]
        folder = posixpath.dirname(ctx.path)
        near = [s for s in named if nearby and posixpath.dirname(s.path) == folder]
        chosen = near or named
        return chosen[0] if len(chosen) == 1 else None

    def kotlin_imported(self, ctx: Ctx, name: str) -> SymbolRecord | bool | None:
        """The definition a Kotlin `import a.b.Name` binds to `name`: the one of that
        name under the package's folder; False when the import is from outside the
        repository; None when no import names it."""
        for ref in ctx.facts.refs:
            if ref.kind != "import" or ref.name.rsplit(".", 1)[-1] != name:
                continue
            package = "/" + ref.name.rpartition(".")[0].replace(".", "/")
            found = [
                s
                for s in self.index.by_name(name, ctx.repo)
                if s.parent is None and ("/" + posixpath.dirname(s.path)).endswith(package)
            ]
            return found[0] if len(found) == 1 else False if not found else None
        return None

    def php_property_class(
        self, ctx: Ctx, within: SymbolRecord | None, prop: str
    ) -> SymbolRecord | bool | None:
        """The class or interface of the repository a PHP property is declared as, in the
        class holding `within`: a promoted constructor parameter (`private readonly
        SongRepository $songs`) or a typed property (`protected Cache $cache;`); False
        for a type the file `use`s from outside the repository; None when unknown."""
        cls = self._enclosing_type(ctx, within)
        if cls is None:
            return None
        if ctx.php_properties is None:
            ctx.php_properties = self._php_properties(ctx)
        written = ctx.php_properties.get(cls.qualified_name, {}).get(prop)
        if not written:
            return None
        short = written.rsplit("\\", 1)[-1]
        return self._type_named(ctx, short, self.php_imported(ctx, short), nearby=False)

    def file_text(self, ctx: Ctx) -> str:
        """The file's text as the work tree holds it ("" when it cannot be read): for
        what the facts keep no trace of (a PHP property's type, a route's arguments)."""
        root = self.index.root(ctx.repo)
        try:
            return (root / ctx.path).read_text(encoding="utf-8") if root is not None else ""
        except (OSError, UnicodeDecodeError):
            return ""

    def _php_properties(self, ctx: Ctx) -> dict[str, dict[str, str]]:
        """Each class of a PHP file → its typed properties (name → type as written)."""
        rows = self.file_text(ctx).split("\n")
        out: dict[str, dict[str, str]] = {}
        for cls in (s for s in ctx.symbols if s.kind in TYPE_KINDS):
            body = "\n".join(rows[cls.start_line - 1 : cls.end_line])
            out[cls.qualified_name] = {m.group(2): m.group(1) for m in _PHP_PROPERTY.finditer(body)}
        return out

    def php_imported(self, ctx: Ctx, alias: str) -> SymbolRecord | bool | None:
        """The class or function of the repository a PHP file's `use` binds to `alias`
        (`use App\\Models\\Song;`, `… as S`), False when the `use` names something from
        outside the repository (`Illuminate\\Support\\Facades\\Log`), None when no `use`
        binds it."""
        if alias in ctx.imported_symbols:
            return ctx.imported_symbols[alias]
        found: SymbolRecord | bool | None = None
        for ref in ctx.facts.refs:
            if ref.kind != "import":
                continue
            spec, _, given = ref.name.partition(" as ")
            if (given or spec.rpartition(".")[2]) != alias:
                continue
            found = False
            for edge in self.generic_import(ctx, ref):
                if edge.resolved and edge.target_path and "#" in edge.target:
                    symbols = self.index.symbols(ctx.repo, edge.target_path)
                    found = next((s for s in symbols if s.id == edge.target), False)
                elif not edge.resolved and edge.via != "external":
                    found = None  # the repository's, but not found: guess as before
            break
        ctx.imported_symbols[alias] = found
        return found

    def _split_files(self, ctx: Ctx, ref: Ref, found: list[str], spec: str) -> list[Edge]:
        if not found:
            return [_unresolved(ctx.file_id, spec, "imports", 1.0, ref, "external")]
        if len(found) > MAX_CANDIDATES:
            return [_unresolved(ctx.file_id, spec, "imports", 0.0, ref, "ambiguous")]
        conf = CONF_EXACT if len(found) == 1 else min(CONF_AMBIGUOUS, 0.8 / len(found))
        rows = [self._to_file(ctx.file_id, ctx.repo, p, "imports", conf, ref) for p in found]
        for row in rows:
            row.via = "path" if len(found) == 1 else "name"
        return rows

    # -- HTTP -------------------------------------------------------------------------------
    def http_facts(self, ctx: Ctx, ref: Ref, value: Value, source: str) -> list[HttpFact]:
        """The routes, client calls and mounts a call makes (see `HttpFact`)."""
        args = [self.read_names(ctx, a, ref.scope) for a in ref.args or []] + [""] * 6
        first, second, url_kw, method_kw, handler, route_name = args[:6]
        if url_kw and ctx.language in ECMA_LANGUAGES:
            # only client calls give JS a `url` (the property of an options object)
            verb = ref.name.rpartition(".")[2]
            method = verb if verb in HTTP_VERBS else method_kw or "*"
            return _client_call(method, url_kw, ref.line, source)
        if value.kind == "builtin" and value.name == "fetch":
            return _client_call(method_kw or "GET", first or url_kw, ref.line, source)
        if ctx.language in ECMA_LANGUAGES and ref.name in FETCH_LIKE and value.kind != "sym":
            return _client_call(method_kw or "GET", first, ref.line, source)
        receiver, _, verb = ref.name.rpartition(".")
        if ctx.language in ECMA_LANGUAGES and receiver in ("$", "jQuery") and first:
            jquery = JQUERY_REQUESTS.get(verb)  # `$.getJSON(base + "/x/")`, `$.post(url)`
            return _client_call(jquery, first, ref.line, source) if jquery else []
        server = value.kind == "ext" and value.name.split(".")[0] in SERVER_ROOTS
        if (
            ctx.language in ECMA_LANGUAGES
            and verb in HTTP_VERBS
            and not server
            and named_as(receiver, HTTP_CLIENT_WORDS)
        ):
            # a wrapper or an injected client: `http.post('favorites/toggle')`,
            # `this.http.get<User[]>('/api/users')` (Angular), `api.delete(`/posts/${id}`)`;
            # a wrapper of the repository may put a base of its own in front
            return _client_call(verb, first, ref.line, source, value.kind == "sym")
        if ctx.language in ECMA_LANGUAGES and not receiver and verb in HTTP_CALL_NAMES:
            bound = _binding_of(ctx, ref.name, ref.scope)
            held = bound[1].removeprefix("expr:").rpartition(".")[0] if bound else ""
            if held and named_as(held.replace("()", ""), HTTP_CLIENT_WORDS):
                # `const { get, del } = useApi(); get('/config')`: a hook's functions
                method = HTTP_CALL_NAMES[verb]
                return _client_call(method, first, ref.line, source, True)
        if (
            ctx.language == "python"
            and verb in HTTP_VERBS
            and receiver.rpartition(".")[2] == "client"
            and any(
                r.kind == "import" and re.split(r"[.:]", r.name)[0] == "locust"
                for r in ctx.facts.refs
            )
        ):
            # a locust task's `l.client.get("/cart")`: the load test requests the app
            return _client_call(verb, first or url_kw, ref.line, source)
        if value.kind != "ext":
            return []
        parts = value.name.split(".")
        root, verb = parts[0], parts[-1]
        testing = any(p.lower() in TEST_CLIENTS for p in parts)
        if (root in CLIENT_ROOTS or testing) and (verb in HTTP_VERBS or verb == "request"):
            if verb == "request":
                return _client_call(first or "*", second or url_kw, ref.line, source)
            return _client_call(verb, first or url_kw, ref.line, source)
        if root == "@nestjs/common":
            return self.nest_facts(ctx, ref, verb, first)
        if root == "@nestjs/core" and verb == "setGlobalPrefix" and first:
            # mounted on the file: several applications in a repository give several
            pattern = route_path("/" + first.lstrip("/"))
            app = _nest_application(ctx.repo)
            return [HttpFact("mount", "prepend", pattern, ref.line, app, router=ctx.file_id)]
        if root in ("django", "django_hosts") and verb in URL_NAME_CALLS and first:
            # `reverse("front:hc-details")`, `redirect("hc-details", code)`: by its name
            return [HttpFact("by-name", "*", first, ref.line, source)] if "/" not in first else []
        if root not in ROUTE_ROOTS:
            return []
        receiver = ref.name.rpartition(".")[0]
        if verb in MOUNT_VERBS and (verb == "use") == (root == "express"):
            return self.mount_fact(ctx, ref, verb, receiver)
        if not ref.args:
            return []
        if root == "django":  # a URLconf module is the router of its patterns
            if verb not in ("path", "re_path", "url"):
                return []
            pattern = route_path(first, regex=verb != "path") or "/"
            lists = self._pattern_lists(ctx)
            here = next(
                (f"{ctx.file_id}#{name}" for name, (a, b) in lists.items() if a <= ref.line <= b),
                ctx.file_id,
            )
            if handler.startswith("include:"):
                if first.startswith("{}"):  # `path(prefix, include(…))`: not read
                    pattern = UNKNOWN_PREFIX
                included = handler.removeprefix("include:")
                if included in lists:  # `include(check_urls)`, a list of this URLconf
                    child = f"{ctx.file_id}#{included}"
                else:
                    module = self.module_value(ctx, included)
                    if module.kind != "module":
                        return []
                    child = f"{module.repo}/{module.path}"
                return [HttpFact("mount", "prepend", pattern, ref.line, child, router=here)]
            methods = ["*"]
        elif verb in HTTP_VERBS:
            pattern, methods = route_path(first), [verb.upper()]
        elif verb in ("route", "api_route", "all"):
            pattern = route_path(first)
            stated = [m.strip().upper() for m in method_kw.split(",") if m.strip()]
            methods = stated or ["GET" if root == "flask" and verb == "route" else "*"]
        else:
            return []
        if not pattern:
            return []
        django = root == "django"
        router = here if django else self.router_key(ctx, receiver, ref.scope, ref.line)
        node = source
        if handler:
            found = self.eval_chain(ctx, handler, ref.scope, ref.line, 0)
            if found.kind == "sym" and found.sym is not None:
                node = found.sym.id
        routes = [HttpFact("route", m, pattern, ref.line, node, router=router) for m in methods]
        if django and route_name:  # `name="hc-details"`, under the URLconf's `app_name`
            space = self.string_value(ctx, "expr:app_name", 0)
            named = f"{space}:{route_name}" if space else route_name
            routes.append(HttpFact("named", "*", named, ref.line, node, router=router))
        return routes

    def _pattern_lists(self, ctx: Ctx) -> dict[str, tuple[int, int]]:
        """A Django URLconf's module-level lists of patterns other than `urlpatterns`
        (`check_urls = [path(…), …]`), each with its first and last line: each is a
        router of its own, which `include(check_urls)` mounts."""
        if ctx.pattern_lists is None:
            text = self.file_text(ctx)
            masked = mask(text, _PYTHON)
            lines = LineIndex(text)
            ctx.pattern_lists = {}
            for m in _LIST_ASSIGNMENT.finditer(masked):
                close = matching(masked, m.end() - 1, "[", "]")
                if m.group(1) != "urlpatterns" and close > m.end():
                    span = (lines.line(m.start()), lines.line(close))
                    ctx.pattern_lists[m.group(1)] = span
        return ctx.pattern_lists

    def read_names(self, ctx: Ctx, text: str, scope: int) -> str:
        """A URL argument with each `{=C}` (a dotted name in it) replaced by the string
        `C` holds, or by `{}` when that cannot be read."""
        if "{=" not in text:
            return text

        def read(m: re.Match[str]) -> str:
            found = self.string_value(ctx, f"expr:{m.group(1)}", scope)
            return found if found is not None else "{}"

        return _NAMED_PART.sub(read, text)

    def mount_fact(self, ctx: Ctx, ref: Ref, verb: str, receiver: str) -> list[HttpFact]:
        """`app.include_router(r, prefix=…)`, `app.register_blueprint(bp, url_prefix=…)`,
        `app.use('/api', router)`: a router mounted on another under a prefix."""
        if verb == "use":  # the extractor keeps [prefix, "", "", "", router]
            args = (ref.args or []) + [""] * 5
            prefix: str | None = self.read_names(ctx, args[0], ref.scope)
            child, given = args[4], True
        else:
            values = ref.values or []
            child = next((v for k, v in values if not k), "").removeprefix("expr:")
            keyword = "url_prefix" if verb == "register_blueprint" else "prefix"
            held = next((v for k, v in values if k == keyword), None)
            given = held is not None
            prefix = self.string_value(ctx, held, ref.scope) if held is not None else ""
        parent = self.router_key(ctx, receiver, ref.scope, ref.line)
        if child.startswith("require:"):
            module = self.module_value(ctx, child.removeprefix("require:"))
            mounted = self.module_router(module, "", 0)
        else:
            mounted = self.router_key(ctx, child, ref.scope, ref.line)
        if not parent or not mounted:
            return []
        if prefix is None or prefix.startswith("{}"):
            pattern = UNKNOWN_PREFIX
        else:
            pattern = route_path(prefix)
        # Flask: a blueprint registered with url_prefix loses the one it was built with.
        mode = "replace" if verb == "register_blueprint" and given else "prepend"
        return [HttpFact("mount", mode, pattern, ref.line, mounted, router=parent)]

    def nest_facts(self, ctx: Ctx, ref: Ref, verb: str, path: str) -> list[HttpFact]:
        """NestJS: `@Controller('users')` gives its class a prefix, `@Get(':id')` on a
        method a route of that class (`GET /users/{}`); `@All()` any method. Every
        controller is mounted on the repository's application (`_nest_application`)."""
        pattern = route_path("/" + path.lstrip("/"))
        if verb == "Controller":  # the class it decorates is the next one
            classes = (s for s in ctx.symbols if s.kind in TYPE_KINDS and s.start_line >= ref.line)
            decorated = min(classes, key=lambda s: s.start_line, default=None)
            if decorated is None:
                return []
            application = _nest_application(ctx.repo)
            return [
                HttpFact("router", "*", pattern, ref.line, decorated.id),
                HttpFact("mount", "prepend", "", ref.line, decorated.id, router=application),
            ]
        symbol = ctx.innermost(ref.line, sections=False)
        if symbol is None:
            return []
        method = "*" if verb == "All" else verb.upper()
        if method != "*" and method.lower() not in HTTP_VERBS or symbol.parent is None:
            return []
        router = f"{ctx.file_id}#{symbol.parent}"
        return [HttpFact("route", method, pattern, ref.line, symbol.id, router=router)]

    def router_facts(self, ctx: Ctx) -> list[HttpFact]:
        """Routers built with a prefix of their own: `APIRouter(prefix="/users")`."""
        out: list[HttpFact] = []
        module = ctx.facts.scopes[0].bindings if ctx.facts.scopes else {}
        for name, prefix in sorted(ctx.facts.prefixes.items()):
            if prefix.startswith("{}"):
                pattern = self.built_prefix(ctx, name) or UNKNOWN_PREFIX
            elif prefix.startswith("/"):
                pattern = route_path(prefix)
            else:
                continue
            line = module[name][-1][0] if name in module else 0
            out.append(HttpFact("router", "*", pattern, line, f"{ctx.file_id}#{name}"))
        return out

    def built_prefix(self, ctx: Ctx, name: str) -> str:
        """The prefix a router was built with when it names a string of another module:
        `APIRouter(prefix=config.PREFIX)`, read from the constructor call's arguments."""
        lines = {n for s in ctx.facts.scopes for n, _ in s.bindings.get(name, ())}
        for ref in ctx.facts.refs:
            if ref.kind != "call" or ref.line not in lines or not ref.values:
                continue
            for key, value in ref.values:
                if key in ("prefix", "url_prefix"):
                    found = self.string_value(ctx, value, ref.scope)
                    if found is not None and found.startswith("/"):
                        return route_path(found)
        return ""

    def router_key(self, ctx: Ctx, chain: str, scope: int, line: int, depth: int = 0) -> str:
        """The router a chain names: `repo/path#name` after the variable it was created
        in, following imports and aliases; "" when that cannot be told."""
        if depth > MAX_DEPTH or not _PLAIN_CHAIN.fullmatch(chain):
            return ""
        owner, _, name = chain.rpartition(".")
        if owner:
            return self.module_router(self.eval_chain(ctx, owner, scope, line, 0), name, depth)
        found = _binding_of(ctx, name, scope)
        if found is None:
            return ""
        where, value = found
        kind, _, rest = value.partition(":")
        if kind == "from":
            spec, _, imported = rest.rpartition(":")
            return self.module_router(self.module_value(ctx, spec), imported, depth)
        if kind == "import":  # JS: `const users = require('./users')`
            return self.module_router(self.module_value(ctx, rest), "", depth)
        if kind == "expr" and _PLAIN_CHAIN.fullmatch(rest) and rest != chain:
            return self.router_key(ctx, rest, where, line, depth + 1)  # an alias
        return f"{ctx.file_id}#{name}"

    def module_router(self, module: Value, name: str, depth: int) -> str:
        """The router a module holds under `name`; for "" the module itself: a JS
        module's default export, a Python module of routes (a Django URLconf)."""
        target = self.ctx(module.repo, module.path) if module.kind == "module" else None
        if target is None or depth > MAX_DEPTH:
            return ""
        if target.language in ECMA_LANGUAGES:
            kind, _, rest = target.facts.exports.get(name or "default", "").partition(":")
            if kind == "from":
                spec, _, imported = rest.rpartition(":")
                return self.module_router(self.module_value(target, spec), imported, depth + 1)
            if kind == "import":
                return self.module_router(self.module_value(target, rest), "", depth + 1)
            if kind == "expr" and _PLAIN_CHAIN.fullmatch(rest):
                return self.router_key(target, rest, 0, END, depth + 1)
            if not name:
                return ""
        elif not name:
            return target.file_id
        if target.facts.scopes and name in target.facts.scopes[0].bindings:
            return self.router_key(target, name, 0, END, depth + 1)
        return ""

    def string_value(self, ctx: Ctx, value: str, scope: int, depth: int = 0) -> str | None:
        """The text of a binding value that is a string we can read: a literal, or a
        name of this module or another bound to one; None otherwise."""
        kind, _, rest = value.partition(":")
        if kind == "str":
            return rest
        if depth > MAX_DEPTH:
            return None
        if kind == "from":
            spec, _, name = rest.rpartition(":")
            return self.module_string(self.module_value(ctx, spec), name, depth)
        if kind != "expr" or not _PLAIN_CHAIN.fullmatch(rest):
            return None
        owner, _, name = rest.rpartition(".")
        if owner:
            module = self.eval_chain(ctx, owner, scope, END, 0)
            if module.kind == "module" or "." in owner:
                return self.module_string(module, name, depth)
            return self.instance_string(ctx, owner, name, scope, depth + 1)
        found = _binding_of(ctx, name, scope)
        return self.string_value(ctx, found[1], found[0], depth + 1) if found else None

    def instance_string(
        self, ctx: Ctx, owner: str, name: str, scope: int, depth: int
    ) -> str | None:
        """`settings.PREFIX` where `settings = Settings()` at a module's top level (here or
        imported) and `Settings` declares `PREFIX = "/api"` in its body: that string, or
        the one the constructor is given (`Settings(PREFIX="/staging")`), unless the
        attribute may hold another (set on `settings` or on instances, given as
        `**options`, bound twice in the class, a method of that name; set on any object
        by a file of the instance's repository)."""
        found = _binding_of(ctx, owner, scope) if depth <= MAX_DEPTH else None
        if found is None:
            return None
        where, value = found
        bindings = ctx.facts.scopes[where].bindings
        if {f"{owner}.{name}", f"{owner}(**)"} & bindings.keys():
            return None
        given = bindings.get(f"{owner}({name})")
        kind, _, rest = value.partition(":")
        if kind == "from":
            spec, _, imported = rest.rpartition(":")
            module = self.module_value(ctx, spec)
            target = self.ctx(module.repo, module.path) if module.kind == "module" else None
            if target is None:
                return None
            return self.instance_string(target, imported, name, 0, depth + 1)
        called = rest.removesuffix("()")
        if where != 0 or kind != "expr" or called == rest or len(bindings[owner]) != 1:
            return None
        cls = self.eval_chain(ctx, called, 0, END, depth)
        if cls.kind != "sym" or cls.sym is None or cls.sym.kind not in TYPE_KINDS:
            return None
        if name in self.index.assigned_attributes(ctx.repo):
            return None
        if given is not None:
            return self.string_value(ctx, given[0][1], where, depth + 1)
        return self.class_string(cls.sym, name)

    def class_string(self, cls: SymbolRecord, name: str) -> str | None:
        """The string a class's body binds `name` to, the first in its method resolution
        order, when nothing else may replace it (see `instance_string`)."""
        text: str | None = None
        for owner in self.linearize(cls)[0]:
            ctx = self.ctx(owner.repo, owner.path)
            facts = ctx.facts.classes.get(owner.qualified_name) if ctx is not None else None
            if ctx is None or facts is None or name in facts.attrs:
                return None
            if ctx.members.get((owner.qualified_name, name)):
                return None
            entries = ctx.facts.scopes[facts.scope].bindings.get(name)
            if entries and text is None:
                value = entries[-1][1]
                if len(entries) > 1 or not value.startswith("str:") or "{}" in value:
                    return None
                text = value[4:]
        return text

    def module_string(self, module: Value, name: str, depth: int) -> str | None:
        target = self.ctx(module.repo, module.path) if module.kind == "module" else None
        if target is None or not target.facts.scopes:
            return None
        found = target.facts.scopes[0].bindings.get(name)
        return self.string_value(target, found[-1][1], 0, depth + 1) if found else None

    # -- edge helpers -----------------------------------------------------------------------
    def _to_sym(
        self, source: str, sym: SymbolRecord, edge_type: str, conf: float, ref: Ref, via: str
    ) -> Edge:
        row = _edge(source, sym.id, edge_type, conf, ref.name, via or "scope", ref.line)
        row.target_repo, row.target_path = sym.repo, sym.path
        return row

    def _to_file(
        self, source: str, repo: str, path: str, edge_type: str, conf: float, ref: Ref
    ) -> Edge:
        row = _edge(source, f"{repo}/{path}", edge_type, conf, ref.name, "import", ref.line)
        row.target_repo, row.target_path = repo, path
        return row


def _split(candidates: int) -> float:
    """The confidence of each of `candidates` targets one call may mean (overloads the
    arguments would tell apart): CONF_NEAR for one, else split."""
    return CONF_NEAR if candidates == 1 else min(CONF_AMBIGUOUS, 0.8 / candidates)


def _edge(
    source: str,
    target: str,
    edge_type: str,
    conf: float,
    name: str,
    via: str,
    line: int,
    weight: float | None = None,
) -> Edge:
    return Edge(
        source=source,
        target=target,
        type=edge_type,
        weight=EDGE_WEIGHTS[edge_type] if weight is None else weight,
        confidence=round(conf, 4),
        resolved=True,
        name=name,
        via=via,
        evidence_line=line,
    )


# Programming languages that call each other's definitions by name: C's family links into
# one program (and Rust, Go, Swift, Zig and Fortran call C by name), the JVM's and
# JavaScript's share classes and modules, PowerShell calls .NET's. Any other pair cannot:
# a C++ header's `arc()` is no call of a Python method `Path.arc`, a shell or Nix
# function no Julia one. Markup and build files are in no family and may name anything.
_CALL_FAMILIES: dict[str, str] = {
    **dict.fromkeys(("c", "cpp", "objc", "swift", "zig", "fortran", "rust", "go"), "native"),
    **dict.fromkeys(("java", "kotlin", "scala", "groovy"), "jvm"),
    **dict.fromkeys((*ECMA_LANGUAGES, "vue", "svelte"), "ecma"),
    **dict.fromkeys(("csharp", "powershell"), "dotnet"),
    **{name: name for name in ("python", "ruby", "php", "dart", "lua", "perl", "bash", "nix")},
    **{name: name for name in ("elixir", "haskell", "ocaml", "julia", "r")},
}


def _callable_from(ctx: Ctx, target: SymbolRecord) -> bool:
    """Whether the code of `ctx` can call `target` by its name: in its language's family
    (see `_CALL_FAMILIES`), and never a test's from code that is not a test (Slim's
    `App.handle` guessed `createResponse` in three test helpers)."""
    if _test_file(target.path) and not _test_file(ctx.path):
        return False
    source_family = _CALL_FAMILIES.get(ctx.language)
    if source_family is None:
        return True
    target_family = _path_family(target.path)
    return target_family is None or source_family == target_family


_test_file = lru_cache(maxsize=65_536)(is_test_path)


@lru_cache(maxsize=65_536)
def _path_family(path: str) -> str | None:
    """The call family of a file's language: asked for every candidate of a name (5 µs
    a path uncached), thousands of times per relink."""
    return _CALL_FAMILIES.get(language_for_path(path))


def _without_stub_twins(symbols: list[SymbolRecord]) -> list[SymbolRecord]:
    """These symbols less those of a type stub (`x.pyi`) whose module (`x.py`) defines the
    same name among them: the code called is the module's (Matplotlib ships a stub beside
    most modules, which made every method guess two candidates, or more than three)."""
    defined = {(s.repo, s.path, s.qualified_name) for s in symbols}
    return [s for s in symbols if (s.repo, stub_module(s.path), s.qualified_name) not in defined]


def _unresolved(source: str, name: str, edge_type: str, conf: float, ref: Ref, via: str) -> Edge:
    row = _edge(source, f"?{name}", edge_type, conf, ref.name, via, ref.line)
    row.resolved = False
    return row


# Bindings that say "no value yet" rather than another value.
_PLACEHOLDERS = frozenset({"expr:None", "lit:None", "expr:?"})
MAX_BASE_WALK = 20  # classes a mixin check walks up through (`_includes`)


def _identity(value: Value) -> tuple[str, str]:
    """What a value is, for comparing two bindings (an instance of a class is not a
    different thing from another instance of it)."""
    if value.kind == "union":
        return ("union", "|".join(sorted("/".join(_identity(a)) for a in value.alts)))
    if value.kind == "cont":
        return ("cont", f"{value.repo}/{value.path}:{value.scope}:{value.name}")
    if value.sym is not None:
        return (value.kind, value.sym.id)
    return (value.kind, value.name or value.path)


def _flows(value: Value) -> bool:
    """Whether an argument is worth following into a body: code, or an object of it."""
    return value.kind in ("sym", "inst", "cont", "gen", "union")


def _is_none(value: Value) -> bool:
    return value.kind == "builtin" and value.name == "None"


def _dedupe(rows: list[Edge]) -> list[Edge]:
    """One edge per source, target, type and line; one per source, target and type for
    a call followed into another body through arguments (at the first call passing
    them: sympy's 10,017 such edges would be 73,116, one a call site) and for a value
    read (its first line: a function's lambdas, comprehensions and nested arrows read
    for it)."""
    best: dict[tuple[str, str, str, int | None], Edge] = {}
    for row in rows:
        line = None if row.via in _ONCE_VIAS else row.evidence_line
        key = (row.source, row.target, row.type, line)
        kept = best.get(key)
        if kept is None or (row.confidence, -_line_of(row)) > (kept.confidence, -_line_of(kept)):
            best[key] = row
    return list(best.values())


_ONCE_VIAS = frozenset({"argument", "value"})


def _line_of(row: Edge) -> int:
    return row.evidence_line or 0


def _c3_merge(sequences: list[list[SymbolRecord]]) -> list[SymbolRecord] | None:
    """C3 linearization's merge: None when the orders cannot be reconciled."""
    pending = [list(seq) for seq in sequences if seq]
    out: list[SymbolRecord] = []
    while pending:
        for seq in pending:
            head = seq[0]
            if not any(head in other[1:] for other in pending):
                break
        else:
            return None
        out.append(head)
        pending = [[c for c in seq if c != head] for seq in pending]
        pending = [seq for seq in pending if seq]
    return out


def _head(chain: str) -> str:
    return chain.split(".", 1)[0].split("(", 1)[0].split("[", 1)[0]


def _segments(chain: str, pattern: re.Pattern[str] = _SEGMENT) -> list[tuple[str, str]]:
    """`a.b().c[]` → [(a, ""), (b, "()"), (c, "[]")]; [] when a part does not fit."""
    out: list[tuple[str, str]] = []
    for part in chain.split("."):
        m = pattern.match(part)
        if m is None:
            return []
        out.append((m.group(1), m.group(2)))
    return out


def _dart_import(path: str, spec: str, files: Collection[str]) -> list[str]:
    """The files a Dart import names: `package:name/src/a.dart` is `lib/src/a.dart` of
    the package `name` (a folder of that name when the repository holds several), a
    relative import is beside the importing file; `dart:` libraries are outside."""
    if spec.startswith("package:"):
        package, _, rest = spec[len("package:") :].partition("/")
        found = sorted(p for p in files if p == f"lib/{rest}" or p.endswith(f"/lib/{rest}"))
        own = [p for p in found if p == f"{package}/lib/{rest}" or f"/{package}/lib/" in p]
        return own or found
    if ":" in spec:
        return []
    near = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
    return [near] if near in files else []


def _is_package(path: str) -> bool:
    return posixpath.basename(path) in ("__init__.py", "__init__.pyi")


def _binding_of(ctx: Ctx, name: str, scope: int) -> tuple[int, str] | None:
    """The scope a name is bound in, seen from `scope`, and its last binding there."""
    scopes = ctx.facts.scopes
    index = scope if 0 <= scope < len(scopes) else 0
    while 0 <= index < len(scopes):
        entries = scopes[index].bindings.get(name)
        if entries:
            return index, entries[-1][1]
        index = scopes[index].parent
    return None


def _nest_application(repo: str) -> str:
    """The router a NestJS application's controllers are mounted on, one a repository;
    `app.setGlobalPrefix('api')` mounts it under `/api`."""
    return f"{repo}#@nestjs/core"


def _client_call(
    method: str, url: str, line: int, source: str, below_base: bool = False
) -> list[HttpFact]:
    """A client call's fact. A relative URL is below the client's base; with
    `below_base` (a wrapper of the repository) a URL from `/` may be too."""
    relative = bool(url) and not url.startswith(("/", "http:", "https:", "{}"))
    # `http.post('favorites/toggle')`, `http.get('data')`: below the client's base
    pattern = client_path("/" + url if relative else url)
    if not pattern:
        return []
    if url.startswith("{}"):
        base = UNKNOWN_PREFIX  # a base URL not read: `${BASE}/users`
    elif relative or (below_base and url.startswith("/")):
        base = RELATIVE_URL
    else:
        base = ""
    return [HttpFact("call", method.upper(), pattern, line, source, router=base)]
