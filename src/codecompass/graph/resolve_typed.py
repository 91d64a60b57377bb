"""Resolve Go, Java, C# and Rust references through packages, imports and declared types.

A chain such as ``mx.pool.Get`` is evaluated segment by segment (see
``indexing/extract_typed.py`` for the facts it reads): ``mx`` is the receiver, a
``Mux``; ``pool`` is a field of ``Mux`` declared ``*sync.Pool``; ``Get`` is therefore
a method of ``sync.Pool``, outside the repository, and the call stays unresolved as
``?sync.Pool.Get`` instead of landing on a look-alike ``Mux.Get``. Values come from
parameters, receivers, ``this``/``self``, locals with a declared type or built by a
constructor or literal, fields, return types, type parameters' bounds, and the type
hierarchy (Go embedding, ``extends``/``implements``, a C# base list, Rust traits).

Names are looked up the way each language scopes them: locals, then (Java, C#) members
of the enclosing classes, then the file's imports, the package (Go: the folder, imports
found through ``go.mod``; Java: the ``package``; C#: the namespace and its parents;
Rust: the module, with ``crate::``, ``super::``, ``self::`` and the crate's own name),
then wildcard imports, then what the language provides. Every look-up goes through the
``SymbolIndex`` so a file is resolved again when what it used changes.

Only a receiver whose type is unknown falls back to a method guessed by name, at the
confidence of an ambiguous name (≤ 0.4); confidences are in ``resolve.py``'s table.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codecompass.graph.models import TYPE_KINDS
from codecompass.graph.resolve import (
    CONF_AMBIGUOUS,
    CONF_EXACT,
    CONF_MODULE_ATTR,
    CONF_NEAR,
    CONF_SCOPE,
    END,
    INTERFACE_KINDS,
    LANGUAGE_BUILTINS,
    MAX_DEPTH,
    Ctx,
    LanguageEdges,
    Resolver,
    _segments,
    _unresolved,
)
from codecompass.indexing.extract_go import import_name
from codecompass.indexing.facts import ClassFacts, Ref, Scope
from codecompass.models import Edge, SymbolRecord

_SEGMENT = re.compile(r"^([^()\[\]?]*)((?:\(\)|\[\]|\?)*)$")
_OPS = re.compile(r"\(\)|\[\]|\?")
TYPE_SYMBOLS = TYPE_KINDS | {"type"}
CALLABLE = frozenset({"function", "method"})
# What an element-holding value gives back from these methods: the element itself, or
# (Rust) an Option of it.
ELEMENT_METHODS = frozenset(
    {"get", "getFirst", "getLast", "peek", "poll", "pop", "remove", "next", "element"}
    | {"ElementAt", "First", "FirstOrDefault", "Last", "LastOrDefault", "Single"}
    | {"SingleOrDefault", "Dequeue", "Peek", "Pop"}
)
RUST_OPTION_METHODS = frozenset({"get", "get_mut", "first", "last", "pop", "next", "find"})
RUST_UNWRAP = frozenset({"unwrap", "expect", "unwrap_or", "unwrap_or_default", "unwrap_or_else"})
SAME_VALUE = frozenset(
    {"clone", "to_owned", "as_ref", "as_mut", "borrow", "borrow_mut", "iter", "iter_mut"}
    | {"into_iter", "drain", "values", "lock", "read", "write", "deref"}
)
GO_TYPES = frozenset(
    """bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64
    rune string uint uint8 uint16 uint32 uint64 uintptr any comparable""".split()  # noqa: SIM905
)
RUST_BUILTIN = frozenset(
    "bool char str i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64".split()  # noqa: SIM905
)
# The prelude's variants: in nearly every function, an edge to `?Some` or `?Ok` says no
# more than Python's `len` (which has none).
RUST_PRELUDE_VARIANTS = frozenset({"Some", "None", "Ok", "Err"})
JAVA_PRIMITIVES = frozenset(
    "boolean byte char short int long float double void var".split()  # noqa: SIM905
)
CSHARP_PRIMITIVES = frozenset(
    """bool byte sbyte char decimal double float int uint nint nuint long ulong short
    ushort object string void dynamic var""".split()  # noqa: SIM905
)

# Extension methods one call may mean, at most (`AddApplicationServices` is in each of
# eShop's seven services: the caller's own project's is chosen).
MAX_EXTENSIONS = 3


@dataclass(frozen=True, slots=True)
class TVal:
    """What an expression or a type evaluates to."""

    kind: str  # pkg, type, inst, func, ext, builtin, missing, unknown, unbound
    conf: float = CONF_EXACT
    via: str = ""
    sym: SymbolRecord | None = None
    name: str = ""  # ext: dotted name; pkg: its key; missing: Type.member; else the name
    repo: str = ""
    elem: TVal | None = None  # what a sequence holds, what an Option wraps
    gives: TVal | None = None  # what calling this gives, when known without a symbol
    declared: bool = False  # ext: an instance of the type `name` (not a path to something)

    def weaker(self, conf: float, via: str | None = None) -> TVal:
        return replace(self, conf=min(self.conf, conf), via=via or self.via)

    @property
    def known(self) -> bool:
        return self.kind not in ("unknown", "unbound", "missing")


UNKNOWN = TVal("unknown", conf=0.0)

_resolvers: weakref.WeakKeyDictionary[Resolver, dict[str, TypedResolver]] = (
    weakref.WeakKeyDictionary()
)


def typed_edges(base: Resolver, ctx: Ctx, ref: Ref) -> list[Edge]:
    """Edges of one reference of a Go, Java, C# or Rust file (the hook resolve.py calls)."""
    return _typed(base, ctx.language).edges(ctx, ref)


def typed_instance(
    base: Resolver, ctx: Ctx, value: str, scope: int, line: int
) -> SymbolRecord | None:
    """The type of the workspace a binding value (`type:T`, `expr:NewT()`, `expr:svc`)
    of a Go, Java, C# or Rust file holds an instance of, or None (graph/rpc.py)."""
    found = _typed(base, ctx.language).binding(ctx, scope, value, line, 0)
    return found.sym if found.kind in ("inst", "type") and found.sym is not None else None


def _typed(base: Resolver, language: str) -> TypedResolver:
    found = _resolvers.get(base)
    if found is None:
        found = _resolvers[base] = {}
    resolver = found.get(language)
    if resolver is None:
        kind = {"go": GoResolver, "java": JavaResolver, "csharp": CSharpResolver}.get(
            language, RustResolver
        )
        resolver = found[language] = kind(base)
    return resolver


class TypedResolver:
    """What the four languages share; each subclass says how its names are scoped."""

    instance_words: frozenset[str] = frozenset()  # `this`
    super_words: frozenset[str] = frozenset()  # `super`, `base`
    class_members_in_scope = False  # Java and C# see their class's members unqualified
    extension = ""
    primitives: frozenset[str] = frozenset()  # keyword types: `int`, `string`
    called_field_is_accessor = False  # Java: `r.name()` of a record reads its component

    def __init__(self, base: Resolver) -> None:
        self.base = base
        self.index = base.index
        self._memo: dict[tuple[object, ...], tuple[object, frozenset[tuple[str, str]]]] = {}
        self._busy: set[tuple[object, ...]] = set()

    # -- caching with dependency replay --------------------------------------------------
    def memo(self, key: tuple[object, ...], compute: Callable[[], TVal | None]) -> TVal | None:
        """A look-up's result, computed once per run; its dependencies are recorded again
        for every file that uses it."""
        hit = self._memo.get(key)
        if hit is not None:
            self.index.deps.update(hit[1])
            return hit[0]  # type: ignore[return-value]
        if key in self._busy:
            return UNKNOWN
        before = set(self.index.deps)
        self._busy.add(key)
        try:
            found = compute()
        finally:
            self._busy.discard(key)
        self._memo[key] = (found, frozenset(self.index.deps - before))
        return found

    # -- one reference -------------------------------------------------------------------
    def edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        if ref.kind == "import":
            return self.import_edges(ctx, ref)
        source = ctx.source_id(ref.line)
        if ref.kind in ("inherit", "implement"):
            return self.base_edges(ctx, ref, self.class_source(ctx, ref.scope) or source)
        if ref.kind == "type":
            return self.type_edges(ctx, ref)
        value = self.eval_chain(ctx, ref.name, ref.scope, ref.line, 0)
        if ref.kind == "call":
            return self.call_edges(ctx, ref, value, source)
        if ref.kind == "value" and value.kind == "func" and value.sym is not None:
            if value.sym.id == source:
                return []
            return [self.base._to_sym(source, value.sym, "references", value.conf, ref, "value")]
        return []

    def type_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        """A declared type of the repository (a parameter's, a field's, a generic
        argument): a `references` edge from the code declaring it; none for others, nor
        from the type's own members (`Circle operator +(Circle a, Circle b)`)."""
        found = self.resolve_type(ctx, ref.name, ref.scope, 0)
        source = ctx.source_id(ref.line)
        if found.kind != "type" or found.sym is None:
            return []
        if source == found.sym.id or source.startswith(found.sym.id + "."):
            return []
        return [self.base._to_sym(source, found.sym, "references", found.conf, ref, "type")]

    def class_source(self, ctx: Ctx, scope: int) -> str | None:
        """The type a base is declared for (a Rust `impl Trait for T` names `T`)."""
        if not 0 <= scope < len(ctx.facts.scopes):
            return None
        s = ctx.facts.scopes[scope]
        found = ctx.symbol(s.name) if s.kind == "class" else None
        return found.id if found is not None else None

    def call_edges(self, ctx: Ctx, ref: Ref, value: TVal, source: str) -> list[Edge]:
        kind = value.kind
        if kind in ("func", "type") and value.sym is not None:
            via = value.via or "scope"
            typed = [value.sym] if kind == "type" else []
            if kind == "func":
                methods = self.overloads(ctx, value.sym, ref)
            else:  # `new Foo(…)` runs a constructor too
                own = self.own_members(value.sym, value.sym.name)
                methods = (
                    self.overloads(ctx, own[-1], ref) if own and own[-1].kind in CALLABLE else []
                )
            rows = [self.base._to_sym(source, s, "calls", value.conf, ref, via) for s in typed]
            # Overloads the call's arguments cannot tell apart: an ambiguous name.
            conf = (
                value.conf
                if len(methods) < 2
                else min(value.conf, 0.8 / len(methods), CONF_AMBIGUOUS)
            )
            for s in methods:
                rows.append(
                    self.base._to_sym(
                        source, s, "calls", conf, ref, via if len(methods) < 2 else "overload"
                    )
                )
            return rows
        if kind == "ext":
            return [_unresolved(source, value.name, "calls", value.conf, ref, "external")]
        if kind == "builtin":
            return []
        if kind == "missing":
            return [_unresolved(source, value.name, "calls", 0.0, ref, "member")]
        if kind == "unbound":
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unbound")]
        if kind in ("pkg", "inst"):
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]
        segments = _segments(ref.name, _SEGMENT)
        if len(segments) < 2 or _OPS.search(ref.name.rsplit(".", 1)[-1]):
            return [_unresolved(source, ref.name, "calls", 0.0, ref, "unknown")]
        return self.base.guess_method(ctx, replace(ref, name=_plain(ref.name)), source)

    def overloads(self, ctx: Ctx, sym: SymbolRecord, ref: Ref) -> list[SymbolRecord]:
        """Java/C# overloads of a method that fit the call: its number of arguments,
        then the types of those whose type is known (`Ref.args`: the count, then each
        argument as a binding value). Overloads inherited from a base class compete
        when none of the class's own fits."""
        if sym.kind != "method" or not ref.args:
            return [sym]
        target = self.base.ctx(sym.repo, sym.path)
        same = target.by_qualified.get(sym.qualified_name, []) if target else []
        if len(same) < 2 and not ref.args[1:]:
            return [sym]
        arguments = [
            self.binding(ctx, ref.scope, value, ref.line, 1) if value != "?" else UNKNOWN
            for value in ref.args[1:]
        ]
        kinds = [self.type_names(a, 0) for a in arguments]
        count = int(ref.args[0])
        owner = target.symbol(sym.parent) if target is not None and sym.parent else None
        groups = [same]
        if owner is not None:
            for base in self.bases(owner, 1):
                inherited = self.member(base.sym, sym.name, 1, frozenset()) if base.sym else None
                if inherited is not None and inherited.kind == "func" and inherited.sym:
                    home = self.base.ctx(inherited.sym.repo, inherited.sym.path)
                    if home is not None:
                        groups.append(home.by_qualified.get(inherited.sym.qualified_name, []))
        known = all(k is not None for k in kinds)
        for group in groups:
            scored: list[tuple[tuple[int, bool], SymbolRecord]] = []
            for s in group:
                params = _parameters(s.signature, s.name)
                score = _match(params, kinds) if _accepts(params, count) else -1
                if score >= 0:
                    # Every argument's type known: a fixed arity beats varargs, as in Java.
                    fixed = known and not any(p.rest for p in params or [])
                    scored.append(((score, fixed), s))
            if scored:
                best = max(score for score, _ in scored)
                return [s for score, s in scored if score == best]
        return [sym] if len(same) < 2 else same

    def type_names(self, value: TVal, depth: int) -> tuple[frozenset[str], bool] | None:
        """Simple names of a value's type and its supertypes, and whether that list is
        complete (a type of the repository, or a final platform type such as String);
        None when the type is not known."""
        if value.kind == "inst" and value.sym is not None and depth <= MAX_DEPTH:
            names = {value.sym.name}
            closed = True
            for base in self.bases(value.sym, depth + 1):
                if base.kind == "ext":  # `implements Filer`: known by name, not beyond
                    names |= {base.name, base.name.rsplit(".", 1)[-1]}
                    closed = False
                    continue
                inherited = self.type_names(replace(base, kind="inst"), depth + 1)
                if inherited is None:
                    closed = False
                    continue
                names |= inherited[0]
                closed = closed and inherited[1]
            return frozenset(names), closed
        if value.kind == "builtin" and value.name and value.elem is None:
            return frozenset({value.name, *_WIDENS.get(value.name, ())}), True
        if value.kind == "ext" and value.declared and value.elem is None:
            short = value.name.rsplit(".", 1)[-1]
            return frozenset({value.name, short, *_WIDENS.get(short, ())}), short in _WIDENS
        parts = value.name.split(".")
        if value.kind == "ext" and len(parts) > 1 and parts[-1].isupper() and parts[-2].istitle():
            return frozenset({parts[-2]}), False  # `Modifier.PUBLIC`: a constant of its type
        return None

    def base_edges(self, ctx: Ctx, ref: Ref, source: str) -> list[Edge]:
        found = self.resolve_type(ctx, ref.name, ref.scope, 0)
        edge_type = "implements" if ref.kind == "implement" else "extends"
        if found.kind == "type" and found.sym is not None:
            if found.sym.id == source:
                return []
            if found.sym.kind in INTERFACE_KINDS:
                edge_type = "implements"
            return [self.base._to_sym(source, found.sym, edge_type, found.conf, ref, found.via)]
        if found.kind == "ext":
            return [_unresolved(source, found.name, edge_type, found.conf, ref, "external")]
        if found.kind == "builtin":
            return []
        return [_unresolved(source, ref.name, edge_type, 0.0, ref, "unknown")]

    # -- evaluation ----------------------------------------------------------------------
    def eval_chain(
        self, ctx: Ctx, chain: str, scope: int, line: int, depth: int, *, called: bool = True
    ) -> TVal:
        """`called`: the chain's last name is called (a method, not a field of that name:
        Rust and Java allow both)."""
        if depth > MAX_DEPTH:
            return UNKNOWN
        segments = _segments(chain, _SEGMENT)
        if not segments:
            return UNKNOWN
        head, ops = segments[0]
        if head in ("", "?"):
            value = UNKNOWN
        else:
            # `MovieRepository.Update(…)`: a property with a body, read, not called
            field = not ops.startswith("()") and (len(segments) > 1 or not called)
            found = self.lookup(ctx, head, scope, line, depth, types=False, field=field)
            value = found if found is not None else TVal("unbound", conf=0.0, name=head)
        value = self.apply_ops(value, ops, depth)
        last = len(segments) - 1
        for n, (name, ops) in enumerate(segments[1:], start=1):
            field = not ops.startswith("()") and (n < last or not called)
            value = self.attribute(value, name, depth, field=field, ctx=ctx)
            value = self.apply_ops(value, ops, depth)
        return value

    def apply_ops(self, value: TVal, ops: str, depth: int) -> TVal:
        for op in _OPS.findall(ops):
            value = self.call_result(value, depth) if op == "()" else self.element(value, depth)
        return value

    def element(self, value: TVal, depth: int) -> TVal:
        """What indexing or iterating a value gives."""
        if value.elem is not None:
            return value.elem
        if value.kind in ("ext", "builtin"):
            return replace(value, gives=None)
        if value.kind == "inst" and value.sym is not None:  # `type Routes []Route`
            for base in self.bases(value.sym, depth + 1):
                if base.elem is not None:
                    return base.elem
        return UNKNOWN

    def attribute(
        self, value: TVal, name: str, depth: int, *, field: bool = False, ctx: Ctx | None = None
    ) -> TVal:
        """`name` of `value`; `ctx`, the file of an expression writing it (Rust looks there
        for a method its crate adds to an outside type)."""
        kind = value.kind
        if kind == "pkg":
            found = self.package_member(value, name, depth + 1)
            if found is None:
                return TVal("missing", conf=0.0, name=f"{value.name}.{name}")
            return found.weaker(min(value.conf, CONF_MODULE_ATTR), "package")
        if value.elem is not None and kind in ("ext", "builtin"):
            return self.element_method(value, name)
        if kind == "ext":
            return replace(value, name=f"{value.name}.{name}", gives=None, declared=False)
        if kind == "builtin":
            return replace(value, gives=None)
        if kind in ("type", "inst") and value.sym is not None:
            found = self.member(value.sym, name, depth + 1, frozenset(), field=field)
            if found is None:
                return TVal("missing", conf=0.0, name=f"{value.sym.name}.{name}")
            found = found.weaker(min(value.conf, CONF_SCOPE))
            if not field and self.called_field_is_accessor and found.via == "field":
                # `request.address()` of a Java record: its accessor gives the component
                # (no call of the component's type)
                return TVal("builtin", conf=found.conf, via="field", gives=found)
            return found
        return UNKNOWN

    def element_method(self, value: TVal, name: str) -> TVal:
        elem = value.elem
        if name in ELEMENT_METHODS and elem is not None:
            gives = elem
        elif name in SAME_VALUE:
            gives = value
        else:
            gives = None
        return replace(value, elem=None, gives=gives, name=f"{value.name}.{name}")

    def call_result(self, value: TVal, depth: int) -> TVal:
        kind = value.kind
        if value.gives is not None:
            return value.gives
        if kind in ("ext", "builtin"):
            return replace(value, elem=None, declared=False)
        if kind == "type" and value.sym is not None:
            return replace(value, kind="inst")
        if kind == "func" and value.sym is not None:
            return self.returned(value.sym, 0, value.conf, depth + 1)
        return UNKNOWN

    def returned(self, function: SymbolRecord, index: int, conf: float, depth: int) -> TVal:
        """What calling a function gives (its `index`-th result), from its declaration."""
        target = self.base.ctx(function.repo, function.path)
        facts = target.facts.functions.get(function.qualified_name) if target else None
        if target is None or facts is None or not facts.returns or depth > MAX_DEPTH:
            return UNKNOWN
        results = facts.returns.split(",")
        if index >= len(results):
            return UNKNOWN
        found = self.eval_type(target, results[index], facts.scope, depth + 1)
        return found.weaker(min(conf, CONF_SCOPE), "returns") if found.known else found

    # -- names ---------------------------------------------------------------------------
    def lookup(
        self,
        ctx: Ctx,
        name: str,
        scope: int,
        line: int,
        depth: int,
        *,
        types: bool,
        field: bool = False,
    ) -> TVal | None:
        """A name as the language scopes it; None when nothing binds it. `field`: the name
        is not called, so a class's field (or property) of that name comes before a
        method."""
        if depth > MAX_DEPTH:
            return UNKNOWN
        scopes = ctx.facts.scopes
        if not types and (name in self.instance_words or name in self.super_words):
            cls = self.enclosing_class(ctx, scope)
            if cls is None:
                return UNKNOWN
            if name in self.instance_words:
                return TVal("inst", conf=CONF_EXACT, via="self", sym=cls)
            return self.super_value(cls, depth)
        index = scope if 0 <= scope < len(scopes) else 0
        # A member inherited from a class outside the repository could be any name: the
        # answer only when nothing else binds the name.
        inherited: TVal | None = None
        while index >= 0:
            s = scopes[index]
            found = self.scope_binding(ctx, index, s, name, line, depth, types)
            if found is not None:
                return found
            if s.kind == "class" and self.class_members_in_scope:
                cls = ctx.symbol(s.name, s.line)
                if cls is not None and cls.kind in TYPE_SYMBOLS:
                    member = self.member(cls, name, depth + 1, frozenset(), field=field)
                    if member is not None and member.kind == "ext":
                        inherited = inherited or member
                    elif member is not None and (not types or member.kind == "type"):
                        return member.weaker(CONF_SCOPE, "member")
            if s.kind in ("namespace", "module"):
                found = self.scope_names(ctx, index, name, depth, types)
                if found is not None:
                    return found
            index = s.parent
        found = self.language_names(ctx, name, depth, types)
        if found is not None:
            return found
        if inherited is not None and not types and name not in self.primitives:
            return inherited  # `string.IsNullOrEmpty` is no member of an outside base
        return self.unbound_name(name, types)

    def unbound_name(self, name: str, types: bool) -> TVal | None:
        """A name bound nowhere: something the language provides, or None."""
        return None

    def scope_binding(
        self, ctx: Ctx, index: int, s: Scope, name: str, line: int, depth: int, types: bool
    ) -> TVal | None:
        entries = s.bindings.get(name)
        if not entries:
            return None
        if s.kind == "function":
            entries = [e for e in entries if e[0] <= line]
        if types:
            entries = [e for e in entries if e[1].startswith(("tparam:", "import:"))]
        for bound_line, value in reversed(entries):
            key = (ctx.repo, ctx.path, index, value, bound_line)
            if key in self._busy:
                continue
            found = self.binding(ctx, index, value, bound_line, depth + 1)
            if value.startswith("tparam:") and not types and found.kind == "inst":
                return replace(found, kind="type")
            return found
        return None

    def binding(self, ctx: Ctx, scope: int, value: str, line: int, depth: int) -> TVal:
        key = (ctx.repo, ctx.path, scope, value, line)
        found = self.memo(key, lambda: self._binding(ctx, scope, value, line, depth))
        return found if found is not None else UNKNOWN

    def _binding(self, ctx: Ctx, scope: int, value: str, line: int, depth: int) -> TVal:
        kind, _, rest = value.partition(":")
        if depth > MAX_DEPTH:
            return UNKNOWN
        if kind in ("type", "tparam"):
            found = self.eval_type(ctx, rest, scope, depth + 1)
            return found.weaker(CONF_SCOPE, "type") if found.known else found
        if kind == "expr":
            if rest == "?":
                return UNKNOWN
            return self.eval_chain(ctx, rest, scope, line, depth + 1, called=False)
        if kind == "elem":
            found = self.eval_chain(ctx, rest, scope, line, depth + 1, called=False)
            if found.kind == "ext" and found.elem is None:
                return UNKNOWN  # what an outside collection holds is not known
            return self.element(found, depth + 1)
        if kind == "nth":
            number, _, chain = rest.partition(":")
            index = int(number)
            if chain.endswith("()"):
                function = self.eval_chain(ctx, chain[:-2], scope, line, depth + 1)
                if function.kind == "func" and function.sym is not None:
                    return self.returned(function.sym, index, function.conf, depth + 1)
                return UNKNOWN
            return self.eval_chain(ctx, chain, scope, line, depth + 1) if index == 0 else UNKNOWN
        if kind == "import":
            return self.import_value(ctx, rest, scope, depth + 1)
        return UNKNOWN

    def eval_type(self, ctx: Ctx, written: str, scope: int, depth: int) -> TVal:
        """An instance of the type written `written` in `scope`."""
        found = self.resolve_type(ctx, written, scope, depth)
        if found.kind == "type":
            return replace(found, kind="inst")
        if found.kind == "ext":
            return replace(found, declared=True)
        return found

    def resolve_type(self, ctx: Ctx, written: str, scope: int, depth: int) -> TVal:
        """The type written `written` (a type, not an instance: kind `type`, or ext,
        builtin, a sequence, unknown)."""
        if depth > MAX_DEPTH or not written or written == "?":
            return UNKNOWN
        if written.startswith("[]"):
            elem = self.eval_type(ctx, written[2:], scope, depth + 1)
            return TVal("builtin", name="[]", elem=elem)
        if written.startswith("?"):
            elem = self.eval_type(ctx, written[1:], scope, depth + 1)
            return TVal("ext", name="Option", elem=elem)
        parts = written.split(".")
        value = self.lookup(ctx, parts[0], scope, END, depth + 1, types=True)
        if value is None:
            value = self.unknown_type(parts[0])
        if value.kind == "inst" and value.sym is not None:
            value = replace(value, kind="type")  # a type parameter's bound
        for part in parts[1:]:
            value = self.attribute(value, part, depth + 1)
        if value.kind == "func":
            return UNKNOWN
        return value.weaker(CONF_EXACT, value.via or "type")

    def unknown_type(self, name: str) -> TVal:
        """A type name bound nowhere in the repository."""
        return TVal("unbound", conf=0.0, name=name)

    def enclosing_class(self, ctx: Ctx, scope: int) -> SymbolRecord | None:
        scopes = ctx.facts.scopes
        index = scope
        while 0 <= index < len(scopes):
            s = scopes[index]
            if s.kind == "class":
                found = ctx.symbol(s.name, s.line)
                if found is not None and found.kind in TYPE_SYMBOLS:
                    return found
            index = s.parent
        return None

    def super_value(self, cls: SymbolRecord, depth: int) -> TVal:
        for base in self.bases(cls, depth + 1):
            if base.kind == "type" and base.sym is not None:
                if base.sym.kind not in INTERFACE_KINDS:
                    return TVal("inst", conf=CONF_SCOPE, via="super", sym=base.sym)
            elif base.kind == "ext":
                return base.weaker(CONF_SCOPE, "super")
        return UNKNOWN

    # -- types and their members ------------------------------------------------------
    def class_facts(self, sym: SymbolRecord) -> tuple[Ctx | None, ClassFacts | None]:
        target = self.base.ctx(sym.repo, sym.path)
        if target is None:
            return None, None
        return target, target.facts.classes.get(sym.qualified_name)

    def bases(self, sym: SymbolRecord, depth: int) -> list[TVal]:
        target, facts = self.class_facts(sym)
        if target is None or facts is None or depth > MAX_DEPTH:
            return []
        scope = (
            target.facts.scopes[facts.scope].parent if facts.scope < len(target.facts.scopes) else 0
        )
        return [
            self.resolve_type(target, written, scope, depth + 1)
            for written in [*facts.bases, *facts.implements]
        ]

    def member(
        self, sym: SymbolRecord, name: str, depth: int, seen: frozenset[str], *, field: bool = False
    ) -> TVal | None:
        """A member of a type through its hierarchy: None when nowhere declared. A field
        comes before a method of the same name when `field` (the name is not called)."""
        if depth > MAX_DEPTH or sym.id in seen:
            return None
        key = ("member", sym.id, name, field)
        return self.memo(key, lambda: self._member(sym, name, depth, seen | {sym.id}, field))

    def _member(
        self, sym: SymbolRecord, name: str, depth: int, seen: frozenset[str], field: bool
    ) -> TVal | None:
        # A constructor (Java, C#: a method named like its class) is not reached by name.
        own = self.own_members(sym, name) if name != sym.name else []
        target, facts = self.class_facts(sym)
        if field and facts is not None and name in facts.attrs:
            own = []
        if own:
            found = own[-1]
            kind = "type" if found.kind in TYPE_SYMBOLS else "func"
            if found.kind not in TYPE_SYMBOLS and found.kind not in CALLABLE:
                return UNKNOWN
            return TVal(kind, conf=CONF_SCOPE, via="member", sym=found)
        if target is not None and facts is not None and name in facts.attrs:
            for scope, value in reversed(facts.attrs[name]):
                found_attr = self.binding(target, scope, value, END, depth + 1)
                return found_attr.weaker(CONF_SCOPE, "field")
        for base in self.bases(sym, depth + 1):
            if base.kind == "type" and base.sym is not None:
                inherited = self.member(base.sym, name, depth + 1, seen, field=field)
                if inherited is not None:
                    return inherited
            elif base.kind == "ext":
                return TVal("ext", conf=CONF_SCOPE, via="external", name=f"{base.name}.{name}")
        return self.embedded(sym, name, depth)

    def embedded(self, sym: SymbolRecord, name: str, depth: int) -> TVal | None:
        return None

    def own_members(self, sym: SymbolRecord, name: str) -> list[SymbolRecord]:
        """Members of the type declared in its own body (Java, C#: the same file)."""
        target = self.base.ctx(sym.repo, sym.path)
        if target is None:
            return []
        return target.members.get((sym.qualified_name, name), [])

    def as_value(self, sym: SymbolRecord, conf: float, via: str) -> TVal:
        if sym.kind in TYPE_SYMBOLS:
            return TVal("type", conf=conf, via=via, sym=sym)
        if sym.kind in CALLABLE:
            return TVal("func", conf=conf, via=via, sym=sym)
        if sym.kind == "module":
            return TVal("pkg", conf=conf, via=via, sym=sym, name=f"{sym.path}#{sym.qualified_name}")
        return TVal("unknown", conf=0.0)

    def candidates(self, name: str, repo: str) -> list[SymbolRecord]:
        """Top-level symbols of this language named `name` in `repo`."""
        return [
            s
            for s in self.index.by_name(name, repo)
            if s.qualified_name == name and s.path.endswith(self.extension)
        ]

    # -- per language --------------------------------------------------------------------
    def scope_names(self, ctx: Ctx, index: int, name: str, depth: int, types: bool) -> TVal | None:
        """Names a namespace or module scope provides besides its bindings."""
        return None

    def language_names(self, ctx: Ctx, name: str, depth: int, types: bool) -> TVal | None:
        return None

    def import_value(self, ctx: Ctx, spec: str, scope: int, depth: int) -> TVal:
        return UNKNOWN

    def package_member(self, pkg: TVal, name: str, depth: int) -> TVal | None:
        return None

    def import_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        return self.base.generic_import(ctx, ref)

    def file_edges(self, ctx: Ctx, ref: Ref, repo: str, paths: list[str]) -> list[Edge]:
        return [
            self.base._to_file(ctx.file_id, repo, p, "imports", CONF_EXACT, ref)
            for p in sorted(paths)[:10]
        ]


# ---------------------------------------------------------------------------------- Go


class GoResolver(TypedResolver):
    extension = ".go"

    def __init__(self, base: Resolver) -> None:
        super().__init__(base)
        self._modules: dict[str, list[tuple[str, str]]] = {}

    def modules(self, repo: str) -> list[tuple[str, str]]:
        """(module path, folder) of every go.mod of the repository, longest path first."""
        cached = self._modules.get(repo)
        if cached is not None:
            return cached
        found: list[tuple[str, str]] = []
        root = self.index.root(repo)
        for path in self.index.repo_files(repo):
            if posixpath.basename(path) != "go.mod" or root is None:
                continue
            try:
                text = (root / path).read_text(encoding="utf-8")
            except OSError:
                continue
            m = re.search(r"^\s*module\s+\"?([^\s\"]+)", text, re.MULTILINE)
            if m:
                found.append((m.group(1), posixpath.dirname(path)))
        found.sort(key=lambda item: -len(item[0]))
        self._modules[repo] = found
        return found

    def folder(self, repo: str, spec: str) -> str | None:
        """The folder of the repository an import path names, or None (outside)."""
        modules = self.modules(repo)
        for module, folder in modules:
            if spec == module or spec.startswith(module + "/"):
                rest = spec[len(module) :].lstrip("/")
                path = posixpath.join(folder, rest) if folder else rest
                return path.rstrip("/") if self.go_files(repo, path) else None
        if modules:
            return None
        return self.base._go_dir(repo, spec)

    def go_files(self, repo: str, folder: str) -> list[str]:
        return sorted(
            p
            for p in self.index.repo_files(repo)
            if posixpath.dirname(p) == folder and p.endswith(".go") and not p.endswith("_test.go")
        )

    def import_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        folder = self.folder(ctx.repo, ref.name)
        if folder is None:
            return [_unresolved(ctx.file_id, ref.name, "imports", CONF_EXACT, ref, "external")]
        return self.file_edges(ctx, ref, ctx.repo, self.go_files(ctx.repo, folder))

    def import_value(self, ctx: Ctx, spec: str, scope: int, depth: int) -> TVal:
        folder = self.folder(ctx.repo, spec)
        if folder is None:
            return TVal("ext", via="external", name=import_name(spec))
        return TVal("pkg", via="import", name=folder, repo=ctx.repo)

    def package_member(self, pkg: TVal, name: str, depth: int) -> TVal | None:
        key = ("go-package", pkg.repo, pkg.name, name)
        return self.memo(key, lambda: self._package_member(pkg.repo, pkg.name, name))

    def _package_member(self, repo: str, folder: str, name: str) -> TVal | None:
        found = [
            s
            for s in self.candidates(name, repo)
            if posixpath.dirname(s.path) == folder and not s.path.endswith("_test.go")
        ]
        if not found:
            return None
        return self.as_value(found[0], CONF_EXACT, "package")

    def language_names(self, ctx: Ctx, name: str, depth: int, types: bool) -> TVal | None:
        folder = posixpath.dirname(ctx.path)
        key = ("go-package", ctx.repo, folder, name)
        found = self.memo(key, lambda: self._package_member(ctx.repo, folder, name))
        if found is None and ctx.path.endswith("_test.go"):
            tests = [
                s for s in self.candidates(name, ctx.repo) if posixpath.dirname(s.path) == folder
            ]
            found = self.as_value(tests[0], CONF_EXACT, "package") if tests else None
        if found is not None:
            return found
        for spec in self.imports(ctx):
            folder_of = self.folder(ctx.repo, spec)
            if folder_of is not None and self.package_clause(ctx.repo, folder_of) == name:
                return TVal("pkg", via="import", name=folder_of, repo=ctx.repo)
        if name in GO_TYPES or name in LANGUAGE_BUILTINS["go"] or name in ("nil", "true"):
            return TVal("builtin", name=name)
        return None

    def imports(self, ctx: Ctx) -> list[str]:
        return [
            value[7:]
            for entries in ctx.facts.scopes[0].bindings.values()
            for _, value in entries
            if value.startswith("import:")
        ]

    def package_clause(self, repo: str, folder: str) -> str:
        files = self.go_files(repo, folder)
        facts = self.index.facts(repo, files[0]) if files else None
        return facts.scopes[0].name if facts is not None and facts.scopes else ""

    def own_members(self, sym: SymbolRecord, name: str) -> list[SymbolRecord]:
        folder = posixpath.dirname(sym.path)
        return [
            s
            for s in self.index.by_qualified(f"{sym.name}.{name}", sym.repo)
            if posixpath.dirname(s.path) == folder and s.path.endswith(".go")
        ]

    def embedded(self, sym: SymbolRecord, name: str, depth: int) -> TVal | None:
        """An embedded field is also a field named after its type."""
        target, facts = self.class_facts(sym)
        if target is None or facts is None:
            return None
        for written in facts.bases:
            if written.rsplit(".", 1)[-1] == name:
                return self.eval_type(target, written, facts.scope, depth + 1).weaker(
                    CONF_SCOPE, "field"
                )
        return None


# -------------------------------------------------------------------- Java and C# share


class ClassBasedResolver(TypedResolver):
    instance_words = frozenset({"this"})
    class_members_in_scope = True

    def package_of(self, repo: str, path: str, qualified: str) -> str:
        """The package (namespace) a top-level type of a file is declared in."""
        facts = self.index.facts(repo, path)
        if facts is None or not facts.scopes:
            return ""
        cls = facts.classes.get(qualified)
        index = cls.scope if cls is not None else 0
        while 0 <= index < len(facts.scopes):
            s = facts.scopes[index]
            if s.kind in ("namespace", "module"):
                return s.name
            index = s.parent
        return facts.scopes[0].name

    def types_in(self, repo: str, package: str, name: str) -> list[SymbolRecord]:
        key = ("package-types", repo, package, name)
        found = self.memo(key, lambda: self._types_in(repo, package, name))
        return [found.sym] if found is not None and found.sym is not None else []

    def _types_in(self, repo: str, package: str, name: str) -> TVal | None:
        for s in self.candidates(name, repo):
            if s.kind in TYPE_SYMBOLS and self.package_of(s.repo, s.path, s.qualified_name) == (
                package
            ):
                return TVal("type", sym=s)
        return None

    def package_member(self, pkg: TVal, name: str, depth: int) -> TVal | None:
        found = self.types_in(pkg.repo, pkg.name, name)
        if found:
            return TVal("type", conf=CONF_EXACT, via="import", sym=found[0])
        return None

    def resolve_dotted(self, ctx: Ctx, spec: str, depth: int) -> TVal:
        """`a.b.C.m`: the longest package prefix holding the next name as a type."""
        parts = spec.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            found = self.types_in(ctx.repo, ".".join(parts[:cut]), parts[cut])
            if found:
                value = TVal("type", conf=CONF_EXACT, via="import", sym=found[0])
                for part in parts[cut + 1 :]:
                    value = self.attribute(value, part, depth + 1)
                return replace(value, conf=CONF_EXACT, via="import") if value.known else value
        return TVal("ext", via="external", name=spec)

    def star_names(self, ctx: Ctx, name: str, depth: int, stars: list[str]) -> TVal | None:
        for spec in stars:
            found = self.types_in(ctx.repo, spec, name)
            if found:
                return TVal("type", conf=CONF_MODULE_ATTR, via="import", sym=found[0])
            owner = self.resolve_dotted(ctx, spec, depth + 1)
            if owner.kind == "type" and owner.sym is not None:  # static import of members
                member = self.member(owner.sym, name, depth + 1, frozenset())
                if member is not None:
                    return member.weaker(CONF_MODULE_ATTR, "import")
        return None

    def unknown_type(self, name: str) -> TVal:
        """A type name (or the head of a qualified one, a package) found nowhere."""
        if name in self.primitives:
            return TVal("builtin", name=name)
        return TVal("ext", via="external", name=name)

    def resolve_type(self, ctx: Ctx, written: str, scope: int, depth: int) -> TVal:
        head = written.split(".", 1)[0]
        if "." in written and head[:1].islower():  # `com.example.Foo`, written in full
            found = self.lookup(ctx, head, scope, END, depth + 1, types=True)
            if found is None or (found.kind == "ext" and found.name == head):
                return self.resolve_dotted(ctx, written, depth + 1)
        return super().resolve_type(ctx, written, scope, depth)

    def unbound_name(self, name: str, types: bool) -> TVal | None:
        """`String`, `System`, `Console`, `string`: from the platform (java.lang, a
        `using`, a keyword type)."""
        if name[:1].isupper() or types or name in self.primitives:
            return self.unknown_type(name)
        return None

    def package_files(self, ctx: Ctx, package: str) -> list[str]:
        """Files of a package of the repository, found where the folder mirrors it."""
        tail = package.replace(".", "/")
        out = []
        for path in self.index.repo_files(ctx.repo):
            folder = posixpath.dirname(path)
            if not path.endswith(self.extension):
                continue
            if not (folder == tail or folder.endswith("/" + tail)):
                continue
            if self.index.facts(ctx.repo, path) is not None and self.declares(
                ctx.repo, path, package
            ):
                out.append(path)
        return out

    def declares(self, repo: str, path: str, package: str) -> bool:
        facts = self.index.facts(repo, path)
        if facts is None:
            return False
        return any(s.name == package for s in facts.scopes if s.kind in ("module", "namespace"))


# --------------------------------------------------------------------------------- Java


class JavaResolver(ClassBasedResolver):
    super_words = frozenset({"super"})
    called_field_is_accessor = True
    extension = ".java"
    primitives = JAVA_PRIMITIVES

    def import_value(self, ctx: Ctx, spec: str, scope: int, depth: int) -> TVal:
        return self.resolve_dotted(ctx, spec, depth + 1)

    def language_names(self, ctx: Ctx, name: str, depth: int, types: bool) -> TVal | None:
        package = ctx.facts.scopes[0].name if ctx.facts.scopes else ""
        found = self.types_in(ctx.repo, package, name)
        if found:
            return TVal("type", conf=CONF_EXACT, via="package", sym=found[0])
        return self.star_names(ctx, name, depth, ctx.facts.stars)

    def import_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        source = ctx.file_id
        if ref.name.endswith(".*"):
            package = ref.name[:-2]
            files = self.package_files(ctx, package)
            if files:
                return self.file_edges(ctx, ref, ctx.repo, files)
            owner = self.resolve_dotted(ctx, package, 0)
            if owner.kind == "type" and owner.sym is not None:
                return self.file_edges(ctx, ref, owner.sym.repo, [owner.sym.path])
            return [_unresolved(source, package, "imports", CONF_EXACT, ref, "external")]
        found = self.resolve_dotted(ctx, ref.name, 0)
        if found.sym is not None and found.kind in ("type", "func"):
            rows = self.file_edges(ctx, ref, found.sym.repo, [found.sym.path])
            rows.append(self.base._to_sym(source, found.sym, "imports", CONF_EXACT, ref, "import"))
            return rows
        if found.kind == "ext":
            return [_unresolved(source, ref.name, "imports", CONF_EXACT, ref, "external")]
        return [_unresolved(source, ref.name, "imports", 0.0, ref, "unknown")]


# ----------------------------------------------------------------------------------- C#


class CSharpResolver(ClassBasedResolver):
    super_words = frozenset({"base"})
    extension = ".cs"
    primitives = CSHARP_PRIMITIVES

    def namespaces(self, ctx: Ctx, index: int) -> list[str]:
        """The namespaces a scope sees types of: its own and each enclosing one."""
        scopes = ctx.facts.scopes
        names: list[str] = []
        while 0 <= index < len(scopes):
            s = scopes[index]
            if s.kind in ("namespace", "module") and s.name:
                parts = s.name.split(".")
                for cut in range(len(parts), 0, -1):
                    names.append(".".join(parts[:cut]))
            index = s.parent
        return [*dict.fromkeys(names), ""]

    def scope_names(self, ctx: Ctx, index: int, name: str, depth: int, types: bool) -> TVal | None:
        s = ctx.facts.scopes[index]
        if s.kind == "module":
            return None
        for namespace in self.namespaces(ctx, index)[:-1]:
            found = self.types_in(ctx.repo, namespace, name)
            if found:
                return TVal("type", conf=CONF_EXACT, via="namespace", sym=found[0])
        return None

    def language_names(self, ctx: Ctx, name: str, depth: int, types: bool) -> TVal | None:
        for namespace in self.namespaces(ctx, 0):
            found = self.types_in(ctx.repo, namespace, name)
            if found:
                return TVal("type", conf=CONF_EXACT, via="namespace", sym=found[0])
        value = self.star_names(ctx, name, depth, ctx.facts.stars)
        if value is not None:
            return value
        stars, aliases = self.index.project_usings(ctx.repo, ctx.path)
        if name in aliases:
            return self.resolve_dotted(ctx, aliases[name], depth + 1)
        held = self.star_names(ctx, name, depth, stars)
        return held if held is not None else self.static_member(ctx, name)

    def static_member(self, ctx: Ctx, name: str) -> TVal | None:
        """A name from outside that a `using static` type holds: `HealthBase` after
        `using static Grpc.Health.V1.Health;` (a type named as its owner's prefix, as
        gRPC's generated `XBase` and `XClient` are)."""
        for ref in ctx.facts.refs:
            if ref.kind != "import":
                continue
            owner = ref.name.rsplit(".", 1)[-1]
            if name.startswith(owner) and name[len(owner) : len(owner) + 1].isupper():
                return TVal("ext", conf=CONF_SCOPE, via="import", name=f"{ref.name}.{name}")
        return None

    def import_value(self, ctx: Ctx, spec: str, scope: int, depth: int) -> TVal:
        return self.resolve_dotted(ctx, spec, depth + 1)

    def call_edges(self, ctx: Ctx, ref: Ref, value: TVal, source: str) -> list[Edge]:
        """A method no type of the call's receiver has may be an extension method of
        the repository (`builder.AddRabbitMqEventBus(…)` on an outside builder): the
        static methods so named whose first parameter is `this`, those of the caller's
        own project first."""
        rows = super().call_edges(ctx, ref, value, source)
        if value.kind in ("func", "type", "builtin") or "." not in ref.name:
            return rows
        name = _plain(ref.name).rpartition(".")[2]
        found = [
            s
            for s in self.index.by_name(name, ctx.repo)
            if s.kind == "method" and "(this " in s.signature and s.id != source
        ]
        project = self.index.csharp_project(ctx.repo, ctx.path)
        near = [s for s in found if self.index.csharp_project(s.repo, s.path) == project]
        chosen = near or found
        if ref.args:  # overloads taking this many arguments (`AddMigration<T, U>()`)
            count = int(ref.args[0])
            chosen = [s for s in chosen if _takes(s.signature, count + 1)] or chosen
        if not chosen or len(chosen) > MAX_EXTENSIONS:
            return rows
        conf = CONF_NEAR if len(chosen) == 1 else min(CONF_AMBIGUOUS, 0.8 / len(chosen))
        return rows + [
            self.base._to_sym(source, s, "calls", conf, ref, "extension") for s in chosen
        ]

    def own_members(self, sym: SymbolRecord, name: str) -> list[SymbolRecord]:
        own = super().own_members(sym, name)
        if own:
            return own
        # A partial class declared in several files of one namespace.
        namespace = self.package_of(sym.repo, sym.path, sym.qualified_name)
        return [
            s
            for s in self.index.by_qualified(f"{sym.qualified_name}.{name}", sym.repo)
            if s.path != sym.path
            and s.path.endswith(".cs")
            and self.package_of(s.repo, s.path, sym.qualified_name) == namespace
        ]

    def import_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        files = self.package_files(ctx, ref.name)
        if files:
            return self.file_edges(ctx, ref, ctx.repo, files)
        found = self.resolve_dotted(ctx, ref.name, 0)
        if found.sym is not None and found.kind == "type":
            rows = self.file_edges(ctx, ref, found.sym.repo, [found.sym.path])
            rows.append(
                self.base._to_sym(ctx.file_id, found.sym, "imports", CONF_EXACT, ref, "import")
            )
            return rows
        return [_unresolved(ctx.file_id, ref.name, "imports", CONF_EXACT, ref, "external")]


# --------------------------------------------------------------------------------- Rust


class RustResolver(TypedResolver):
    extension = ".rs"

    def __init__(self, base: Resolver) -> None:
        super().__init__(base)
        self._crates: dict[str, str] = {}
        self._workspaces: dict[str, dict[str, str]] = {}
        self.dependencies: set[str] = set()

    def extension_method(self, ctx: Ctx, value: TVal, name: str) -> TVal | None:
        """A method the crate adds to an outside type (`impl CommandExt for Command`,
        `impl Ordinal for usize`): `Type.name` defined in the calling crate, which
        defines no type so named (just's own `Style` is not `nu_ansi_term::Style`), for a
        value of that type or made by its associated function (`Command::new(…)`), in
        the crate of `ctx`'s file."""
        parts = value.name.split(".")
        if not parts[-1]:
            return None
        owner = parts[-1]
        if not value.declared and owner[:1].islower() and len(parts) > 1:
            owner = parts[-2]  # `Command::new(…)` made a Command
        if value.kind == "ext" and not owner[:1].isupper():
            return None
        if any(s.kind in TYPE_KINDS for s in self.index.by_name(owner, ctx.repo)):
            return None  # a type of the crate's own: an outside type of that name is another
        root = posixpath.dirname(self.crate_root(ctx.repo, ctx.path))
        found = sorted(
            (
                s
                for s in self.index.by_name(name, ctx.repo)
                if s.kind in CALLABLE
                and s.qualified_name.rsplit(".", 2)[-2:] == [owner, name]
                and s.path.endswith(".rs")
                and (not root or s.path.startswith(root + "/"))
            ),
            key=lambda s: s.path,
        )
        if not found:
            return None
        return TVal("func", conf=CONF_SCOPE, via="member", sym=found[0])

    # A module is a pkg value named "<file>#<inline path>".
    def module(self, repo: str, path: str, inline: str) -> TVal:
        return TVal("pkg", via="import", name=f"{path}#{inline}", repo=repo)

    def crate_root(self, repo: str, path: str) -> str:
        """lib.rs or main.rs of the crate a file belongs to (the file itself if none)."""
        files = self.index.repo_files(repo)
        folder = posixpath.dirname(path)
        while True:
            for name in ("lib.rs", "main.rs"):
                candidate = posixpath.join(folder, name) if folder else name
                if candidate in files:
                    return candidate
            if not folder:
                return path
            folder = posixpath.dirname(folder)

    def module_path(self, repo: str, path: str) -> list[str]:
        root = self.crate_root(repo, path)
        if root == path:
            return []
        rel = path[len(posixpath.dirname(root)) :].lstrip("/").removesuffix(".rs")
        parts = rel.split("/")
        if parts[-1] == "mod":
            parts.pop()
        return parts

    def child_module(self, repo: str, path: str, inline: str, name: str) -> TVal | None:
        target = self.base.ctx(repo, path)
        qualified = f"{inline}.{name}" if inline else name
        if target is not None and any(
            s.kind == "module" for s in target.by_qualified.get(qualified, [])
        ):
            return self.module(repo, path, qualified)
        if inline:
            return None
        base = path.removesuffix(".rs")
        if posixpath.basename(path) in ("lib.rs", "main.rs", "mod.rs") or path == self.crate_root(
            repo, path
        ):
            base = posixpath.dirname(path)
        files = self.index.repo_files(repo)
        for candidate in (f"{base}/{name}.rs", f"{base}/{name}/mod.rs"):
            candidate = candidate.lstrip("/")
            if candidate in files:
                return self.module(repo, candidate, "")
        return None

    def module_at(self, repo: str, root: str, parts: list[str]) -> TVal | None:
        value: TVal | None = self.module(repo, root, "")
        for part in parts:
            if value is None:
                return None
            path, inline = value.name.split("#", 1)
            value = self.child_module(repo, path, inline, part)
        return value

    def current_module(self, ctx: Ctx, scope: int) -> TVal:
        inline = ""
        index = scope
        while 0 <= index < len(ctx.facts.scopes):
            s = ctx.facts.scopes[index]
            if s.kind == "namespace":
                inline = s.name
                break
            index = s.parent
        return self.module(ctx.repo, ctx.path, inline)

    def crate_name(self, repo: str) -> str:
        """The repository's crate name (Cargo.toml at its root); also notes the crates it
        depends on, whose paths are outside the repository."""
        cached = self._crates.get(repo)
        if cached is not None:
            return cached
        name = ""
        data = _read_toml(self.index.root(repo), "Cargo.toml")
        for table in ("lib", "package"):
            section = data.get(table)
            if isinstance(section, dict) and isinstance(section.get("name"), str):
                name = section["name"].replace("-", "_")
                break
        for table in ("dependencies", "dev-dependencies", "build-dependencies"):
            section = data.get(table)
            if isinstance(section, dict):
                self.dependencies.update(k.replace("-", "_") for k in section)
        self._crates[repo] = name
        return name

    def workspace_crates(self, repo: str) -> dict[str, str]:
        """The library crates the repository holds (a workspace's members, its path
        dependencies): crate name → library root (`[lib] path`, or `src/lib.rs` beside the
        Cargo.toml). In ripgrep, `use globset::GlobSetBuilder` in the `ignore` crate is
        the `globset` crate of the same repository, not an external one."""
        cached = self._workspaces.get(repo)
        if cached is not None:
            return cached
        found: dict[str, str] = {}
        root = self.index.root(repo)
        files = self.index.repo_files(repo)
        manifests = [p for p in files if posixpath.basename(p) == "Cargo.toml"]
        for manifest in sorted(manifests, key=lambda p: (p.count("/"), p)):
            data = _read_toml(root, manifest)
            lib, package = data.get("lib"), data.get("package")
            lib = lib if isinstance(lib, dict) else {}
            name = lib.get("name") or (package.get("name") if isinstance(package, dict) else None)
            path = lib.get("path")
            entry = posixpath.normpath(
                posixpath.join(
                    posixpath.dirname(manifest), path if isinstance(path, str) else "src/lib.rs"
                )
            )
            if isinstance(name, str) and entry in files:
                found.setdefault(name.replace("-", "_"), entry)
        self._workspaces[repo] = found
        return found

    def import_value(self, ctx: Ctx, spec: str, scope: int, depth: int) -> TVal:
        parts = spec.split(".")
        head = parts[0]
        start: TVal | None
        here = self.current_module(ctx, scope)
        if head == "crate" or (head == self.crate_name(ctx.repo) and head):
            root = self.crate_root(ctx.repo, ctx.path)
            if head != "crate" and root == ctx.path:
                root = self.library_root(ctx.repo) or root
            start = self.module(ctx.repo, root, "")
        elif head == "self":
            start = here
        elif head == "super":
            start = self.parent_module(ctx, here)
            while start is not None and len(parts) > 1 and parts[1] == "super":
                parts = parts[1:]
                start = self.parent_module(ctx, start)
        else:
            path, inline = here.name.split("#", 1)
            start = self.child_module(ctx.repo, path, inline, head) or self.package_member(
                here, head, depth + 1
            )
            if start is None:
                crate = self.workspace_crates(ctx.repo).get(head)
                if crate is None:
                    return TVal("ext", via="external", name=spec)
                start = self.module(ctx.repo, crate, "")
        if start is None:
            return UNKNOWN
        value = start
        for part in parts[1:]:
            value = self.attribute(value, part, depth + 1)
        return value.weaker(CONF_EXACT, "import") if value.known else value

    def import_edges(self, ctx: Ctx, ref: Ref) -> list[Edge]:
        source = ctx.file_id
        spec = ref.name.removesuffix(".*")
        value = self.import_value(ctx, spec, 0, 0)
        if value.kind == "pkg":
            path = value.name.split("#", 1)[0]
            return self.file_edges(ctx, ref, value.repo, [path])
        if value.kind in ("type", "func") and value.sym is not None:
            rows = self.file_edges(ctx, ref, value.sym.repo, [value.sym.path])
            rows.append(self.base._to_sym(source, value.sym, "imports", CONF_EXACT, ref, "import"))
            return rows
        if value.kind == "ext":
            return [_unresolved(source, spec, "imports", CONF_EXACT, ref, "external")]
        return [_unresolved(source, spec, "imports", 0.0, ref, "unknown")]

    def library_root(self, repo: str) -> str | None:
        files = self.index.repo_files(repo)
        for candidate in ("src/lib.rs", "lib.rs"):
            if candidate in files:
                return candidate
        return None

    def parent_module(self, ctx: Ctx, module: TVal) -> TVal | None:
        path, inline = module.name.split("#", 1)
        if inline:
            return self.module(ctx.repo, path, inline.rpartition(".")[0])
        parts = self.module_path(ctx.repo, path)
        if not parts:
            return None
        return self.module_at(ctx.repo, self.crate_root(ctx.repo, path), parts[:-1])

    def package_member(self, pkg: TVal, name: str, depth: int) -> TVal | None:
        key = ("rust-item", pkg.repo, pkg.name, name)
        return self.memo(key, lambda: self._item(pkg, name, depth))

    def _item(self, pkg: TVal, name: str, depth: int) -> TVal | None:
        path, inline = pkg.name.split("#", 1)
        target = self.base.ctx(pkg.repo, path)
        if target is None:
            return None
        qualified = f"{inline}.{name}" if inline else name
        for s in target.by_qualified.get(qualified, []):
            if s.kind in CALLABLE or s.kind in TYPE_SYMBOLS:
                return self.as_value(s, CONF_EXACT, "scope")
        child = self.child_module(pkg.repo, path, inline, name)
        if child is not None:
            return child
        index = self.module_scope(target, inline)
        if index is None:
            return None
        entries = target.facts.scopes[index].bindings.get(name)
        if entries:  # `pub use` re-exports
            found = self.binding(target, index, entries[-1][1], END, depth + 1)
            return found if found.known else None
        for spec in target.facts.stars if not inline else []:
            module = self.import_value(target, spec, index, depth + 1)
            if module.kind == "pkg" and module.name != pkg.name:
                star = self.package_member(module, name, depth + 1)
                if star is not None:
                    return star
        return None

    def module_scope(self, ctx: Ctx, inline: str) -> int | None:
        if not inline:
            return 0
        for index, s in enumerate(ctx.facts.scopes):
            if s.kind == "namespace" and s.name == inline:
                return index
        return None

    def scope_names(self, ctx: Ctx, index: int, name: str, depth: int, types: bool) -> TVal | None:
        s = ctx.facts.scopes[index]
        module = self.module(ctx.repo, ctx.path, s.name if s.kind == "namespace" else "")
        path, inline = module.name.split("#", 1)
        qualified = f"{inline}.{name}" if inline else name
        for sym in ctx.by_qualified.get(qualified, []):
            if sym.kind in CALLABLE or sym.kind in TYPE_SYMBOLS or sym.kind == "module":
                return self.as_value(sym, CONF_EXACT, "scope")
        return self.child_module(ctx.repo, path, inline, name)

    def language_names(self, ctx: Ctx, name: str, depth: int, types: bool) -> TVal | None:
        if name == "crate":
            return self.module(ctx.repo, self.crate_root(ctx.repo, ctx.path), "")
        if name == "super":
            return self.parent_module(ctx, self.module(ctx.repo, ctx.path, ""))
        if name == self.crate_name(ctx.repo):
            root = self.library_root(ctx.repo)
            if root is not None:
                return self.module(ctx.repo, root, "")
        crate = self.workspace_crates(ctx.repo).get(name)
        if crate is not None:
            return self.module(ctx.repo, crate, "")
        for spec in ctx.facts.stars:
            module = self.import_value(ctx, spec, 0, depth + 1)
            if module.kind == "pkg":
                found = self.package_member(module, name, depth + 1)
                if found is not None:
                    return found
        return None

    def call_edges(self, ctx: Ctx, ref: Ref, value: TVal, source: str) -> list[Edge]:
        """A module cannot be called: `helper()` after `use crate::helper::helper` calls
        the module's function of its own name (modules and functions are two namespaces
        in Rust, and the module was found first). `just` re-exports its helpers so:
        `callers load_dotenv` had found none."""
        if value.kind == "pkg":
            name = _plain(ref.name).rpartition(".")[2]
            found = self.package_member(value, name, 1)
            if found is not None and found.kind == "func":
                value = replace(found, conf=min(found.conf, value.conf or CONF_EXACT))
        return super().call_edges(ctx, ref, value, source)

    def unbound_name(self, name: str, types: bool) -> TVal | None:
        if name in RUST_BUILTIN or name in RUST_PRELUDE_VARIANTS:
            return TVal("builtin", name=name)
        if name in ("std", "core", "alloc") or name in self.dependencies:
            return TVal("ext", via="external", name=name)
        if name[:1].isupper():  # the prelude and macros' types: Vec, String, Some, Ok
            return TVal("ext", via="external", name=name)
        return None

    def own_members(self, sym: SymbolRecord, name: str) -> list[SymbolRecord]:
        """Methods of `impl` blocks anywhere in the crate (their qualified names end with
        `Type.method`), those beside the type first."""
        suffix = f"{sym.name}.{name}"
        root = posixpath.dirname(self.crate_root(sym.repo, sym.path))
        found = [
            s
            for s in self.index.by_name(name, sym.repo)
            if s.kind in CALLABLE
            and (s.qualified_name == suffix or s.qualified_name.endswith("." + suffix))
            and s.path.endswith(".rs")
            and (not root or s.path.startswith(root + "/"))
        ]
        exact = [s for s in found if s.qualified_name == f"{sym.qualified_name}.{name}"]
        return sorted(exact or found, key=lambda s: (s.path != sym.path, s.path))[:1]

    def attribute(
        self, value: TVal, name: str, depth: int, *, field: bool = False, ctx: Ctx | None = None
    ) -> TVal:
        if value.elem is not None and value.name == "Option" and name in RUST_UNWRAP:
            return replace(value, elem=None, gives=value.elem, name=f"Option.{name}")
        if value.elem is not None and value.kind == "builtin" and name in RUST_OPTION_METHODS:
            option = TVal("ext", name="Option", elem=value.elem)
            return replace(value, elem=None, gives=option, name=f"[].{name}")
        if value.kind == "inst" and (name in SAME_VALUE or name in RUST_UNWRAP):
            found = super().attribute(value, name, depth, field=field)
            if found.kind == "missing":
                return replace(TVal("builtin", name=name), gives=value)
            return found
        if (
            ctx is not None
            and not field
            and value.kind in ("ext", "builtin")
            and value.elem is None
        ):
            added = self.extension_method(ctx, value, name)
            if added is not None:
                return added
        return super().attribute(value, name, depth, field=field)


def _plain(chain: str) -> str:
    """A chain without Rust's `?` operator, for the by-name guess."""
    return chain.replace("?", "")


# What an argument of a platform type may also be passed as.
_WIDENS: dict[str, tuple[str, ...]] = {
    "String": ("CharSequence", "Comparable", "Serializable"),
    "string": ("String",),
    "Class": ("Type", "AnnotatedElement", "GenericDeclaration"),
    "int": ("long", "float", "double", "Integer", "Number", "Int32"),
    "char": ("int", "long", "Character"),
    "double": ("Double", "Number"),
    "boolean": ("Boolean",),
    "bool": ("Boolean",),
}
_ANY = frozenset({"Object", "object", "dynamic"})
_MODIFIERS = frozenset({"final", "this", "params", "ref", "out", "in", "scoped", "readonly"})


@dataclass(frozen=True, slots=True)
class Param:
    type: str  # simple name: `List<String> xs` → List, `Foo... xs` → Foo
    written: str = ""  # the name as written when qualified (`java.lang.reflect.Type`)
    rest: bool = False  # varargs / params: takes any number of arguments
    optional: bool = False  # a C# default value


def _parameters(signature: str, name: str) -> list[Param] | None:
    """The parameters of a Java/C# method signature (None: unreadable)."""
    start = signature.find(name + "(")
    start = start + len(name) if start >= 0 else signature.find("(")
    end = signature.rfind(")")
    if start < 0 or end < start:
        return None
    inner = signature[start + 1 : end]
    parts: list[str] = []
    depth = 0
    current = ""
    for char in inner:
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    out: list[Param] = []
    for part in parts:
        text = re.sub(r"@\w+(\([^)]*\))?", " ", part)
        text, _, default = text.partition("=")
        words = [w for w in text.replace("...", " ... ").split() if w not in _MODIFIERS]
        rest = "..." in words or part.lstrip().startswith("params ")
        words = [w for w in words if w != "..."]
        written = " ".join(words[:-1]) if len(words) > 1 else (words[0] if words else "")
        bare = re.sub(r"<.*", "", written).replace("[]", "").rstrip("?").strip()
        simple = bare.rsplit(".", 1)[-1]
        qualified = bare if "." in bare else ""
        out.append(Param(simple, qualified, rest=rest, optional=bool(default.strip())))
    return out


def _accepts(params: list[Param] | None, count: int) -> bool:
    """Whether a method with these parameters takes `count` arguments."""
    if params is None:
        return True
    required = sum(1 for p in params if not p.rest and not p.optional)
    if any(p.rest for p in params):
        return count >= required
    return required <= count <= len(params)


def _match(params: list[Param] | None, kinds: list[tuple[frozenset[str], bool] | None]) -> int:
    """How many arguments of known type a method's parameters take as they are; -1 when
    one cannot be passed (its type and all its supertypes are known, and none is the
    parameter's)."""
    if params is None:
        return 0
    score = 0
    for index, known in enumerate(kinds):
        if known is None or not params:
            continue
        names, closed = known
        param = params[min(index, len(params) - 1)]
        wanted = param.type
        generic = len(wanted) <= 2 or (wanted[:1] == "T" and wanted[1:2].isupper())
        full = {n for n in names if n.endswith("." + wanted)}
        if param.written and full and param.written not in full:
            return -1  # javax.lang.model.type.TypeVariable is not java.lang.reflect's
        if wanted in names:
            score += 2
        elif generic:
            score += 1  # `Publish<T>(T n)` takes a Ping more closely than `Publish(object n)`
        elif closed and not (wanted in _ANY or not wanted):
            return -1
    return score


# The hook link.py hands the resolver (resolve.py cannot import this module: it imports it).
TYPED_LANGUAGE_EDGES: dict[str, LanguageEdges] = dict.fromkeys(
    ("go", "java", "csharp", "rust"), typed_edges
)


def _read_toml(root: Path | None, path: str) -> dict[str, Any]:
    """A TOML file of the work tree, or nothing when it is missing or malformed."""
    if root is None:
        return {}
    try:
        return tomllib.loads((root / path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _takes(signature: str, count: int) -> bool:
    """Whether a C# method's signature takes `count` arguments: its parameters, less
    those with a default value or `params`, up to all of them."""
    inside = signature.partition("(")[2].rpartition(")")[0]
    depth, parts, current = 0, [], ""
    for char in inside:
        depth += char in "<([{"
        depth -= char in ">)]}"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts = [p for p in [*parts, current] if p.strip()]
    required = sum(1 for p in parts if "=" not in p and not p.strip().startswith("params "))
    variadic = any(p.strip().startswith("params ") for p in parts)
    return required <= count and (variadic or count <= len(parts))
