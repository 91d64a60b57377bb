"""CommonJS and pre-``class`` JavaScript shapes, read the same way by the symbol walker
(``rules.py``) and the facts extractor (``extract_ecma.py``), so symbol names and the
names facts bind always agree.

- ``obj.name = function () {}`` (or an arrow function) defines ``obj.name``;
  ``exports.name = …`` and ``module.exports.name = …`` define the module-level ``name``;
  ``Foo.prototype.name = …`` defines the method ``Foo.name``.
- An *object* is a variable holding an object literal with function members
  (``const api = { get() {} }``), or a module-level variable declared with another value
  that receives functions at module level (``var res = Object.create(…)`` then
  ``res.json = function json() {}``). It is reported as a class-like symbol whose
  members are those functions, so ``api.get()``, ``res.json()`` and ``this.json()``
  inside ``res.send`` resolve like methods.
- A *module object* is a module-level variable that ``module.exports`` is set to
  (``module.exports = res``, ``var app = exports = module.exports = {}``): what is
  assigned to its properties is exported.
"""

from __future__ import annotations

from dataclasses import dataclass

from codecompass.indexing.treesitter import Node

FUNCTION_VALUES = frozenset({"function_expression", "arrow_function", "generator_function"})
_CLASS_VALUES = frozenset({"class", "class_declaration"})
_DECLARATIONS = frozenset({"variable_declaration", "lexical_declaration"})
_MAX_PARTS = 6
# Builtins whose members tests replace (`Date.now = () => 0`): a mock, not a definition.
# Their prototypes stay (`String.prototype.x = …` is a polyfill).
_BUILTIN_ROOTS = frozenset(
    {
        *("Array", "Boolean", "Date", "Intl", "JSON", "Math", "Number", "Object", "Promise"),
        *("Reflect", "String", "Symbol", "console", "document", "global", "globalThis"),
        *("navigator", "performance", "process"),
    }
)


@dataclass(frozen=True, slots=True)
class Assigned:
    """A function assigned to a property, named the way symbols are."""

    parts: tuple[str, ...]  # qualifiers then the name: ("res", "json"), ("Foo", "bar"), ("x",)
    prototype: bool  # `Foo.prototype.bar = …`: a method of instances of Foo
    exported: bool  # `exports.x = …` / `module.exports.x = …`


def text(data: bytes, node: Node) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def member_path(data: bytes, node: Node) -> list[str] | None:
    """`a.b.c` → ["a", "b", "c"] when every part is a plain name, else None."""
    parts: list[str] = []
    while node.type == "member_expression":
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        if obj is None or prop is None or prop.type != "property_identifier":
            return None
        parts.append(text(data, prop))
        if len(parts) > _MAX_PARTS:
            return None
        node = obj
    if node.type != "identifier":
        return None
    parts.append(text(data, node))
    parts.reverse()
    return parts


def is_module_exports(data: bytes, node: Node) -> bool:
    return node.type == "member_expression" and member_path(data, node) == ["module", "exports"]


def assigned_name(data: bytes, left: Node) -> Assigned | None:
    """How `left = function …` is named; None for `module.exports = …` itself and for
    targets that are not plain dotted names (`this.x`, `a[k]`)."""
    path = member_path(data, left)
    if path is None or len(path) < 2:
        return None
    if path[:2] == ["module", "exports"]:
        rest, exported = path[2:], True
    elif path[0] == "exports":
        rest, exported = path[1:], True
    else:
        rest, exported = path, False
    if len(rest) == 1:
        return Assigned((rest[0],), False, exported)
    if not rest or exported or rest[-1] == "prototype":
        return None
    if rest[-2] == "prototype":
        qualifier = rest[:-2]
        return Assigned((*qualifier, rest[-1]), True, False) if qualifier else None
    if rest[0] in _BUILTIN_ROOTS:
        return None
    return Assigned(tuple(rest), False, False)


def literal_owner(data: bytes, obj: Node) -> tuple[str, ...] | None:
    """Qualifiers for the functions of an object literal assigned to `module.exports`
    (none: they are module-level) or to `Foo.prototype` (("Foo",)), or whose properties
    `Object.defineProperties` defines on one of them; None otherwise."""
    parent = obj.parent
    if parent is None:
        return None
    if parent.type == "arguments":
        return _defined_owner(data, obj)
    if parent.type != "assignment_expression":
        return None
    left = parent.child_by_field_name("left")
    path = member_path(data, left) if left is not None else None
    if path == ["module", "exports"]:
        return ()
    if path is not None and len(path) >= 2 and path[-1] == "prototype":
        return tuple(path[:-1])
    return None


def _defined_owner(data: bytes, obj: Node) -> tuple[str, ...] | None:
    """`Object.defineProperties(Foo.prototype, {…})`'s object literal: ("Foo",) (or ()
    for `module.exports`), its second argument's owner; None for any other call's."""
    arguments = obj.parent
    call = arguments.parent if arguments is not None else None
    callee = call.child_by_field_name("function") if call is not None else None
    if arguments is None or callee is None:
        return None
    if member_path(data, callee) != ["Object", "defineProperties"]:
        return None
    args = arguments.named_children
    if len(args) != 2 or args[1] != obj:
        return None
    path = member_path(data, args[0])
    if path == ["module", "exports"]:
        return ()
    if path is not None and len(path) >= 2 and path[-1] == "prototype":
        return tuple(path[:-1])
    return None


def holds_functions(node: Node | None) -> bool:
    """Whether an object literal has a method or a property holding a function."""
    if node is None or node.type != "object":
        return False
    for child in node.named_children:
        if child.type == "method_definition":
            return True
        if child.type == "pair":
            key = child.child_by_field_name("key")
            value = child.child_by_field_name("value")
            if (
                key is not None
                and key.type == "property_identifier"
                and value is not None
                and value.type in FUNCTION_VALUES
            ):
                return True
    return False


def assigned_value(node: Node | None) -> Node | None:
    """The value at the end of an assignment chain: `a = b = v` → `v`."""
    while node is not None and node.type == "assignment_expression":
        node = node.child_by_field_name("right")
    return node


@dataclass(slots=True)
class ModuleShapes:
    """What a file's module-level statements make of its variables."""

    objects: set[str]  # variables declared with a non-function value that receive functions
    module_objects: set[str]  # variables module.exports is set to


def module_shapes(data: bytes, root: Node) -> ModuleShapes:
    """Scan the module-level statements (not the whole tree: it runs on every file)."""
    declared: set[str] = set()
    receivers: set[str] = set()
    module_objects: set[str] = set()
    for statement in root.named_children:
        if statement.type == "export_statement":
            inner = statement.child_by_field_name("declaration")
            statement = inner if inner is not None else statement
        if statement.type in _DECLARATIONS:
            for declarator in statement.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = declarator.child_by_field_name("name")
                value = declarator.child_by_field_name("value")
                if name is None or name.type != "identifier":
                    continue
                final = assigned_value(value)
                if final is not None and final.type not in FUNCTION_VALUES | _CLASS_VALUES:
                    declared.add(text(data, name))
                if value is not None and _sets_module_exports(data, value):
                    module_objects.add(text(data, name))
        elif statement.type == "expression_statement" and statement.named_children:
            expression = statement.named_children[0]
            if expression.type != "assignment_expression":
                continue
            if _sets_module_exports(data, expression):
                module_objects.update(_chain_names(data, expression))
            left = expression.child_by_field_name("left")
            right = expression.child_by_field_name("right")
            if left is None or right is None or right.type not in FUNCTION_VALUES:
                continue
            found = assigned_name(data, left)
            plain = found is not None and not found.exported and not found.prototype
            if found is not None and plain and len(found.parts) == 2:
                receivers.add(found.parts[0])
    return ModuleShapes(declared & receivers, module_objects)


def _sets_module_exports(data: bytes, node: Node) -> bool:
    current: Node | None = node
    while current is not None and current.type == "assignment_expression":
        left = current.child_by_field_name("left")
        if left is not None and is_module_exports(data, left):
            return True
        current = current.child_by_field_name("right")
    return False


def _chain_names(data: bytes, node: Node) -> set[str]:
    """Variables an assignment chain that sets module.exports ends up naming:
    `exports = module.exports = app` → {"app"}, `app = module.exports = {}` → {"app"}."""
    names: set[str] = set()
    current: Node | None = node
    while current is not None and current.type == "assignment_expression":
        left = current.child_by_field_name("left")
        if left is not None and left.type == "identifier" and text(data, left) != "exports":
            names.add(text(data, left))
        current = current.child_by_field_name("right")
    if current is not None and current.type == "identifier":
        names.add(text(data, current))
    return names
