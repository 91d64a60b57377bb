"""Facts of a Java file: its package, imports, classes with fields and bases, locals.

Locals are bound at their declaration with their declared type (``var`` takes the
initialiser's), loop and pattern variables (``for (Foo f : fs)``, ``x instanceof Foo
f``) at their statement. A method reference (``Foo::bar``, ``this::bar``) is a ``value``
reference; every call records its number of arguments (``Ref.args``) to pick among
overloads.
"""

from __future__ import annotations

from typing import ClassVar

from codecompass.indexing.extract_typed import TypedExtractor, bounded, join, line
from codecompass.indexing.facts import ClassFacts, Ref
from codecompass.indexing.treesitter import Node

_CLASSES = frozenset(
    {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "annotation_type_declaration",
    }
)
_FUNCTIONS = frozenset({"method_declaration", "constructor_declaration"})
_PRIMITIVE_TYPES = frozenset({"integral_type", "floating_point_type", "boolean_type", "void_type"})
# Collections whose elements a loop or `get` gives.
_SEQUENCES = frozenset(
    {"List", "ArrayList", "LinkedList", "Set", "HashSet", "TreeSet", "LinkedHashSet"}
    | {"Collection", "Iterable", "Deque", "ArrayDeque", "Queue", "Stream", "Iterator"}
    | {"Optional", "Supplier", "Future", "CompletableFuture"}
)
_MAPS = frozenset({"Map", "HashMap", "TreeMap", "LinkedHashMap", "ConcurrentHashMap"})
_LITERAL_TYPES = {
    "string_literal": "type:String",
    "text_block": "type:String",
    "class_literal": "type:Class",
    "decimal_integer_literal": "type:int",
    "hex_integer_literal": "type:int",
    "decimal_floating_point_literal": "type:double",
    "true": "type:boolean",
    "false": "type:boolean",
    "character_literal": "type:char",
}


class JavaExtractor(TypedExtractor):
    language = "java"
    string_nodes = frozenset({"string_literal", "text_block"})
    string_type = "String"
    creations: ClassVar[dict[str, str]] = {"object_creation_expression": "type"}
    type_names = frozenset({"type_identifier", "scoped_type_identifier"})
    type_holders = frozenset(
        {"generic_type", "type_arguments", "array_type", "annotated_type", "wildcard"}
    )
    sequences = _SEQUENCES
    maps = _MAPS

    # -- types ----------------------------------------------------------------------------
    def type_of(self, node: Node | None) -> str:
        if node is None:
            return "?"
        t = node.type
        if t == "type_identifier" or t == "identifier":
            return self.text(node)
        if t == "scoped_type_identifier":
            return ".".join(self.type_of(c) for c in node.named_children)
        if t == "generic_type":
            parts = node.named_children
            base = self.type_of(parts[0]) if parts else "?"
            arguments = list(parts[1].named_children) if len(parts) > 1 else []
            short = base.rsplit(".", 1)[-1]
            if short in self.sequences and arguments:
                return "[]" + self.type_of(arguments[0])
            if short in self.maps and len(arguments) == 2:
                return "[]" + self.type_of(arguments[1])
            return base
        if t == "array_type":
            return "[]" + self.type_of(node.child_by_field_name("element"))
        if t in _PRIMITIVE_TYPES:
            return self.text(node)
        if t == "annotated_type" and node.named_children:
            return self.type_of(node.named_children[-1])
        return "?"

    # -- chains ---------------------------------------------------------------------------
    def _chain(self, node: Node) -> str:
        t = node.type
        if t in ("identifier", "type_identifier"):
            return self.text(node)
        if t in ("this", "super"):
            return t
        if t == "field_access":
            target = node.child_by_field_name("object")
            field = node.child_by_field_name("field")
            head = self._chain(target) if target is not None else "?"
            return f"{head}.{self.text(field)}"
        if t == "method_invocation":
            return self._mocked(node) or self.callee(node) + "()"
        if t == "object_creation_expression":
            written = self.type_of(node.child_by_field_name("type"))
            return "?" if written.startswith(("[]", "?")) else written + "()"
        if t == "array_access":
            array = node.child_by_field_name("array")
            return (self._chain(array) if array is not None else "?") + "[]"
        if t == "cast_expression":
            written = self.type_of(node.child_by_field_name("type"))
            return "?" if written.startswith(("[]", "?")) else written + "()"
        if t == "parenthesized_expression" and node.named_children:
            return self._chain(node.named_children[0])
        return "?"

    def _mocked(self, node: Node) -> str | None:
        """Mockito's `verify(mock, times(1))` and `spy(x)` give back the object they are
        given: `verify(authClient).createUser(u)` calls `authClient.createUser`."""
        target = node.child_by_field_name("object")
        name = node.child_by_field_name("name")
        if name is None or self.text(name) not in ("verify", "spy"):
            return None
        if target is not None and self.text(target) != "Mockito":
            return None
        arguments = node.child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments and arguments.named_children else None
        if first is None or first.type not in ("identifier", "field_access"):
            return None
        return self._chain(first)

    def callee(self, node: Node) -> str:
        target = node.child_by_field_name("object")
        name = self.text(node.child_by_field_name("name"))
        if target is None:
            return name
        return f"{self._chain(target)}.{name}"

    # -- declarations ---------------------------------------------------------------------
    def visit(self, node: Node, scope: int, owner: str) -> None:
        """`owner`: the qualified name definitions here nest under."""
        t = node.type
        if t == "package_declaration":
            for child in node.named_children:
                self.facts.scopes[0].name = self.text(child)
        elif t == "import_declaration":
            self.import_declaration(node)
        elif t in _CLASSES:
            self.type_declaration(node, scope, owner)
        elif t in _FUNCTIONS:
            self.function(node, scope, owner)
        elif t == "field_declaration" or t == "constant_declaration":
            self.field(node, scope, owner)
        elif t == "enum_constant":
            constant = self.text(node.child_by_field_name("name"))
            facts = self.facts.classes.get(owner)
            if facts is not None and constant:
                facts.attrs.setdefault(constant, []).append((scope, f"type:{owner}"))
            body = node.child_by_field_name("body")
            if body is not None and constant:
                # a constant with a body is a subclass of its enum: its methods are its own
                # (`TokeniserState.BogusComment.read` overrides `TokeniserState.read`)
                qualified = join(owner, constant)
                inner, own = self.open_class(qualified, scope, node)
                enum = owner.rsplit(".", 1)[-1]
                own.bases.append(enum)
                self.ref("inherit", enum, node, inner)
                self.visit_children(body, inner, qualified)
            else:
                self.visit_children(node, scope, owner)
        elif t == "local_variable_declaration":
            self.local(node, scope, owner)
        elif t == "enhanced_for_statement":
            self.for_each(node, scope, owner)
        elif t in ("catch_formal_parameter", "resource"):
            name = node.child_by_field_name("name")
            types = [c for c in node.named_children if c.type == "catch_type"]
            declared = types[0].named_children[0] if types and types[0].named_children else None
            written = self.type_of(declared or node.child_by_field_name("type"))
            if name is not None:
                self.bind(scope, self.text(name), name, f"type:{written}")
            self.visit_children(node, scope, owner)
        elif t == "instanceof_expression":
            name = node.child_by_field_name("name")
            if name is not None:
                written = self.type_of(node.child_by_field_name("right"))
                self.bind(scope, self.text(name), name, f"type:{written}")
            self.visit_children(node, scope, owner)
        elif t == "lambda_expression":
            inner = self.open_function("", scope, node, "")
            self.parameters(node.child_by_field_name("parameters"), inner)
            self.visit_children(node, inner, owner)
        elif t == "method_invocation" or t == "object_creation_expression":
            self.call(node, scope, owner)
        elif t == "method_reference":
            parts = node.named_children
            if len(parts) == 2 and parts[1].type == "identifier":
                head = self.chain(parts[0]) or self.type_of(parts[0])
                self.value_ref(f"{head}.{self.text(parts[1])}", node, scope)
        else:
            self.visit_children(node, scope, owner)

    def import_declaration(self, node: Node) -> None:
        path = next(
            (self.text(c) for c in node.named_children if c.type != "asterisk"), ""
        ).replace(" ", "")
        if not path:
            return
        if any(c.type == "asterisk" for c in node.named_children):
            self.facts.stars.append(path)
            self.ref("import", f"{path}.*", node, 0)
            return
        self.ref("import", path, node, 0)
        self.bind(0, path.rsplit(".", 1)[-1], node, f"import:{path}")

    def type_declaration(self, node: Node, scope: int, owner: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        qualified = join(owner, name)
        inner, facts = self.open_class(qualified, scope, node)
        self.type_parameters(node.child_by_field_name("type_parameters"), inner)
        self.supertypes(node, inner, facts)
        if node.type == "record_declaration":
            for parameter in (node.child_by_field_name("parameters") or node).named_children:
                if parameter.type == "formal_parameter":
                    field = self.text(parameter.child_by_field_name("name"))
                    written = self.type_of(parameter.child_by_field_name("type"))
                    facts.attrs.setdefault(field, []).append((inner, f"type:{written}"))
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit_children(body, inner, qualified)

    def supertypes(self, node: Node, scope: int, facts: ClassFacts) -> None:
        for child in node.named_children:
            if child.type == "superclass":
                for written in child.named_children:
                    facts.bases.append(self.type_of(written))
                    self.ref("inherit", self.type_of(written), written, scope)
                    self.type_arguments(written, scope)
            elif child.type in ("super_interfaces", "extends_interfaces"):
                into = facts.implements if child.type == "super_interfaces" else facts.bases
                kind = "implement" if child.type == "super_interfaces" else "inherit"
                for listed in child.named_children:
                    for written in listed.named_children:
                        into.append(self.type_of(written))
                        self.ref(kind, self.type_of(written), written, scope)
                        self.type_arguments(written, scope)

    def type_arguments(self, written: Node, scope: int) -> None:
        """`implements Handler<ShipOrder>` uses ShipOrder."""
        if written.type == "generic_type":
            for arguments in written.named_children[1:]:
                for argument in arguments.named_children:
                    self.type_refs(argument, scope)

    def type_parameters(self, node: Node | None, scope: int) -> None:
        if node is None:
            return
        for parameter in node.named_children:
            names = [c for c in parameter.named_children if c.type == "type_identifier"]
            bounds = [c for c in parameter.named_children if c.type == "type_bound"]
            bound = "?"
            if bounds and bounds[0].named_children:
                bound = self.type_of(bounds[0].named_children[0])
            if names:
                self.bind(scope, self.text(names[0]), names[0], f"tparam:{bound}")

    def function(self, node: Node, scope: int, owner: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        returns = (
            self.type_of(node.child_by_field_name("type"))
            if node.type != ("constructor_declaration")
            else ""
        )
        inner = self.open_function(join(owner, name), scope, node, returns)
        if node.type != "constructor_declaration":
            self.type_refs(node.child_by_field_name("type"), inner)
        self.type_parameters(node.child_by_field_name("type_parameters"), inner)
        self.parameters(node.child_by_field_name("parameters"), inner)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit_children(body, inner, join(owner, name))

    def parameters(self, node: Node | None, scope: int) -> None:
        if node is None:
            return
        for parameter in node.named_children:
            if parameter.type == "formal_parameter":
                written = self.type_of(parameter.child_by_field_name("type"))
                self.type_refs(parameter.child_by_field_name("type"), scope)
                name = parameter.child_by_field_name("name")
            elif parameter.type == "spread_parameter":
                types = [c for c in parameter.named_children if c.type != "variable_declarator"]
                written = "[]" + self.type_of(types[0] if types else None)
                declarators = [
                    c for c in parameter.named_children if c.type == "variable_declarator"
                ]
                name = declarators[0].child_by_field_name("name") if declarators else None
            else:
                continue
            if name is not None:
                self.bind(scope, self.text(name), name, f"type:{written}")

    def field(self, node: Node, scope: int, owner: str) -> None:
        written = self.type_of(node.child_by_field_name("type"))
        self.type_refs(node.child_by_field_name("type"), scope)
        facts = self.facts.classes.get(owner)
        for declarator in node.children_by_field_name("declarator"):
            name = self.text(declarator.child_by_field_name("name"))
            if facts is not None and name:
                facts.attrs.setdefault(name, []).append((scope, f"type:{written}"))
            self.visit_children(declarator, scope, owner)

    # -- statements -----------------------------------------------------------------------
    def local(self, node: Node, scope: int, owner: str) -> None:
        declared = node.child_by_field_name("type")
        written = self.type_of(declared)
        inferred = declared is not None and self.text(declared) == "var"
        if not inferred:
            self.type_refs(declared, scope)
        for declarator in node.children_by_field_name("declarator"):
            name = self.text(declarator.child_by_field_name("name"))
            value = declarator.child_by_field_name("value")
            bound = self.value_of(value) if inferred else f"type:{written}"
            self.bind_after(scope, name, node, bound)
            self.visit_children(declarator, scope, owner)

    def for_each(self, node: Node, scope: int, owner: str) -> None:
        declared = node.child_by_field_name("type")
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is not None:
            if declared is not None and self.text(declared) != "var":
                bound = f"type:{self.type_of(declared)}"
            else:
                chain = self.chain(value)
                bound = f"elem:{chain}" if chain and chain != "?" else "expr:?"
            self.bind(scope, self.text(name), name, bound)
        self.visit_children(node, scope, owner)

    def call(self, node: Node, scope: int, owner: str) -> None:
        arguments = node.child_by_field_name("arguments")
        listed = arguments.named_children if arguments is not None else []
        values = [str(len(listed)), *(self.argument(a) for a in listed)]
        if node.type == "method_invocation":
            callee = bounded(self.callee(node))
        else:
            written = self.type_of(node.child_by_field_name("type"))
            callee = None if written.startswith(("[]", "?")) else written
        if callee:
            at = node.child_by_field_name("name") or node
            self.facts.refs.append(Ref("call", callee, line(at), scope, values))
        self.visit_children(node, scope, owner)

    def argument(self, node: Node) -> str:
        """An argument as a binding value, to tell overloads apart."""
        literal = _LITERAL_TYPES.get(node.type)
        if literal is not None:
            return literal
        if node.type in ("lambda_expression", "method_reference", "null_literal"):
            return "?"
        if node.type == "cast_expression":
            return f"type:{self.type_of(node.child_by_field_name('type'))}"
        if node.type == "binary_expression" and "string_literal" in (
            c.type for c in node.named_children
        ):
            return "type:String"  # `"a" + b`
        if node.type == "ternary_expression":
            branch = node.child_by_field_name("consequence")
            return self.argument(branch) if branch is not None else "?"
        return self.value_of(node)
