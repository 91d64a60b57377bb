"""Facts of a statically typed file (Go, Java, C#, Rust): what declared types say.

Each language has its walker (``extract_go.py``, ``extract_java.py``,
``extract_csharp.py``, ``extract_rust.py``) on the base class here; resolution is
``graph/resolve_typed.py``. They fill the same ``FileFacts`` as Python and JS, read this
way:

- scopes: the module (its ``name`` is the file's package: Go ``package``, Java
  ``package``, a C# file-scoped namespace), ``namespace`` (a C# namespace block, a Rust
  inline ``mod``: name qualified from the file's own), ``class`` (a type: name = its
  symbol's qualified name; also a Rust ``impl`` block) and ``function`` (name = the
  symbol's qualified name; closures and lambdas belong to their function);
- bindings: imports, parameters, receivers, locals and generic parameters, each one of

  - ``type:T`` an instance of the type written ``T``;
  - ``expr:C`` the value of the chain ``C``;
  - ``elem:C`` an element of what ``C`` holds (``for _, x := range xs``, ``foreach``);
  - ``nth:I:C`` the ``I``-th value of a call returning several (Go ``a, err := f()``);
  - ``tparam:T`` a type parameter standing for ``T``, its first bound (so a value of
    type ``T: Shape`` is a ``Shape``), or ``?``; Rust's ``Self`` in an ``impl`` too;
  - ``import:S`` what an import names (Go: the package path; Java, C#, Rust: the dotted
    path, Rust relative heads ``crate``, ``super``, ``self`` kept);

- classes: ``bases`` (Java ``extends``, Go embedded types, a C# base list, Rust traits
  implemented in this file), ``implements`` (Java) and ``attrs`` (fields and C#
  properties with their declared type, as ``type:T`` looked up in the class scope);
- functions: ``returns``, the declared result type (Go results joined with ``,``).
- stars: Java ``import p.*`` and ``import static p.T.*``, C# ``using N;`` and
  ``using static T;``, Rust ``use m::*``, Go dot-imports.

A type ``T`` is written as a chain of names (``sync.Pool``, ``Outer.Inner``) with its
generic arguments and pointer or reference marks dropped; ``[]T`` holds elements of
type ``T`` (Go slices and maps, arrays, Java/C# collections, Rust ``Vec``), ``?T`` is
a Rust ``Option``/``Result`` of ``T`` and ``?`` is a type that cannot be followed.

A chain is written as in ``facts.py``, plus Rust's ``?`` operator as an op
(``self.parse()?.next``). A cast, a Go type assertion and a composite literal are
written as a call of their type (``Context().Reset``: an instance of ``Context``).

References: ``import`` (name = the spec), ``call`` (the callee's chain), ``value`` (a
name used as a value — an argument, an assigned value, a field of a literal — which
links when it names a function or method), ``inherit`` and ``implement`` (a type, in
the class's scope).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from codecompass.indexing.facts import ClassFacts, FileFacts, FunctionFacts, Ref, Scope
from codecompass.indexing.treesitter import Node

MAX_CHAIN = 200
TYPED_LANGUAGES = frozenset({"go", "java", "csharp", "rust"})


class TypedExtractor:
    """The bookkeeping shared by the four walkers: scopes, bindings, references."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.facts = FileFacts(self.language, scopes=[Scope("", "module", -1, 0)])

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    language = ""
    # Literals of the language's string type, and the type's name.
    string_nodes: frozenset[str] = frozenset()
    string_type = ""
    # Expressions that build a value of the type they write: node type → the field
    # holding that type (`new Foo()`, `Foo { .. }`).
    creations: ClassVar[dict[str, str]] = {}
    # Declared types (`type_refs`): the nodes naming one, the nodes holding others
    # (generic arguments, pointers, slices…), and names never the repository's.
    type_names: ClassVar[frozenset[str]] = frozenset()
    type_holders: ClassVar[frozenset[str]] = frozenset()
    builtin_types: ClassVar[frozenset[str]] = frozenset()

    def run(self, root: Node) -> FileFacts:
        for child in root.named_children:
            self.visit(child, 0, "")
        return self.facts

    def visit(self, node: Node, scope: int, owner: str) -> None:
        """`owner`: what definitions here nest under (a qualified name in Java and C#,
        inline modules in Rust; Go has none)."""
        raise NotImplementedError

    def visit_children(self, node: Node, scope: int, owner: str = "") -> None:
        for child in node.named_children:
            self.visit(child, scope, owner)

    def type_of(self, node: Node | None) -> str:
        raise NotImplementedError

    def type_refs(self, node: Node | None, scope: int, own: str = "") -> None:
        """A `type` reference for each type a declared type names, its type arguments too
        (`List<Order>`, `map[string]*Server`, `Vec<Recipe>`): who uses a type, not only
        who calls it. None for `own` (a Go receiver's type in its own methods)."""
        if node is None:
            return
        if node.type in self.type_names:
            name = self.type_of(node)
            if name != own and name not in self.builtin_types:
                self.ref("type", name, node, scope)
        elif node.type in self.type_holders:
            for child in node.named_children:
                self.type_refs(child, scope, own)

    def _chain(self, node: Node) -> str:
        raise NotImplementedError

    def chain(self, node: Node | None) -> str | None:
        return bounded(self._chain(node)) if node is not None else None

    def value_of(self, node: Node | None) -> str:
        """The binding value an expression gives a name."""
        if node is None:
            return "expr:?"
        if node.type in self.string_nodes:
            return f"type:{self.string_type}"
        field = self.creations.get(node.type)
        if field is not None:
            return f"type:{self.type_of(node.child_by_field_name(field))}"
        return self.expression(node)

    def expression(self, node: Node) -> str:
        chain = self.chain(node)
        return f"expr:{chain}" if chain else "expr:?"

    # -- scopes and bindings ------------------------------------------------------------
    def open_scope(self, name: str, kind: str, parent: int, node: Node) -> int:
        self.facts.scopes.append(Scope(name, kind, parent, line(node)))
        return len(self.facts.scopes) - 1

    def open_class(self, name: str, parent: int, node: Node) -> tuple[int, ClassFacts]:
        scope = self.open_scope(name, "class", parent, node)
        facts = self.facts.classes.get(name)
        if facts is None:
            facts = self.facts.classes[name] = ClassFacts(scope)
        return scope, facts

    def open_function(self, name: str, parent: int, node: Node, returns: str) -> int:
        scope = self.open_scope(name, "function", parent, node)
        if name and name not in self.facts.functions:
            self.facts.functions[name] = FunctionFacts(scope, returns)
        return scope

    def bind(self, scope: int, name: str, node: Node, value: str) -> None:
        """A binding seen from `node`'s line on (parameters, loop variables)."""
        if name and name != "_":
            self.facts.scopes[scope].bind(name, line(node), value)

    def bind_after(self, scope: int, name: str, statement: Node, value: str) -> None:
        """A local declared by `statement`: seen from the line after it, so that its
        own right-hand side (`r = r.WithContext(…)`) still sees the previous value."""
        if name and name != "_":
            self.facts.scopes[scope].bind(name, statement.end_point.row + 2, value)

    def bound_locally(self, name: str, scope: int) -> bool:
        """Whether `name` is a local of a function scope enclosing `scope` (a variable,
        never a function value worth a reference)."""
        index = scope
        while index >= 0:
            s = self.facts.scopes[index]
            if s.kind != "function":
                return False
            if name in s.bindings:
                return True
            index = s.parent
        return False

    def ref(self, kind: str, name: str | None, node: Node, scope: int) -> None:
        if name:
            self.facts.refs.append(Ref(kind, name, line(node), scope))

    def value_ref(self, chain: str | None, node: Node, scope: int) -> None:
        """A name used as a value: a reference when it turns out to be a function."""
        if not chain or "(" in chain or "[" in chain or chain.startswith("?"):
            return
        head = chain.split(".", 1)[0]
        if "." not in chain and self.bound_locally(head, scope):
            return
        self.ref("value", chain, node, scope)

    def walk_children(self, node: Node, scope: int, visit: Callable[[Node, int], None]) -> None:
        for child in node.named_children:
            visit(child, scope)


def line(node: Node) -> int:
    return node.start_point.row + 1


def join(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def bounded(chain: str | None) -> str | None:
    if chain is None or len(chain) > MAX_CHAIN:
        return None
    return chain
