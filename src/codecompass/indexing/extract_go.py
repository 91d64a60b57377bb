"""Facts of a Go file: its package, imports, struct fields, receivers and locals.

An import binds the name the package is used by: its alias, else the last element of
its path without a major-version suffix (``github.com/go-chi/chi/v5`` → ``chi``,
``gopkg.in/yaml.v3`` → ``yaml``); resolution also accepts the package clause of an
imported folder of the repository when the two differ.
"""

from __future__ import annotations

import re

from codecompass.indexing.extract_typed import TypedExtractor
from codecompass.indexing.treesitter import Node

_VERSION = re.compile(r"^v\d+$")
# `pb.RegisterCheckoutServer(s, &server{})`: a gRPC registration, whose arguments are
# kept (`Ref.values`) for `graph/rpc.py` to find the implementing type.
_REGISTER = re.compile(r"(?:^|\.)Register\w+Server$")
_FUNCTIONS = frozenset({"function_declaration", "method_declaration"})
# The predeclared types: named everywhere, never the repository's.
_PREDECLARED = frozenset(
    {
        *("any", "bool", "byte", "comparable", "complex64", "complex128", "error", "rune"),
        *("float32", "float64", "int", "int8", "int16", "int32", "int64", "string"),
        *("uint", "uint8", "uint16", "uint32", "uint64", "uintptr"),
    }
)
# Type expressions whose named children are the types they are made of.
_TYPE_HOLDERS = frozenset(
    {
        "generic_type",
        "pointer_type",
        "parenthesized_type",
        "slice_type",
        "array_type",
        "implicit_length_array_type",
        "map_type",
        "channel_type",
        "type_arguments",
        "type_elem",
    }
)


def import_name(path: str) -> str:
    """The name a Go import is used by when it has no alias (a guess for packages
    outside the repository, whose package clause is not known)."""
    parts = [p for p in path.split("/") if p]
    while len(parts) > 1 and _VERSION.match(parts[-1]):
        parts.pop()
    name = parts[-1] if parts else path
    name = re.sub(r"\.v\d+$", "", name)
    name = name.removeprefix("go-").removesuffix(".go").removesuffix("-go")
    return name.replace("-", "").replace(".", "")


class GoExtractor(TypedExtractor):
    language = "go"
    type_names = frozenset({"type_identifier", "qualified_type"})
    type_holders = _TYPE_HOLDERS
    builtin_types = _PREDECLARED

    # -- types ----------------------------------------------------------------------------
    def type_of(self, node: Node | None) -> str:
        """A type expression as a type string (see extract_typed)."""
        if node is None:
            return "?"
        t = node.type
        if t == "type_identifier":
            return self.text(node)
        if t == "qualified_type":
            package = node.child_by_field_name("package")
            name = node.child_by_field_name("name")
            return f"{self.text(package)}.{self.text(name)}"
        if t in ("pointer_type", "parenthesized_type"):
            inner = node.named_children
            return self.type_of(inner[0]) if inner else "?"
        if t == "generic_type":
            return self.type_of(node.child_by_field_name("type"))
        if t in ("slice_type", "array_type", "implicit_length_array_type"):
            return "[]" + self.type_of(node.child_by_field_name("element"))
        if t == "map_type":
            return "[]" + self.type_of(node.child_by_field_name("value"))
        if t == "channel_type":
            return "[]" + self.type_of(node.child_by_field_name("value"))
        return "?"

    def results(self, node: Node | None) -> str:
        if node is None:
            return ""
        if node.type != "parameter_list":
            return self.type_of(node)
        types: list[str] = []
        for parameter in node.named_children:
            if parameter.type not in ("parameter_declaration", "variadic_parameter_declaration"):
                continue
            names = parameter.children_by_field_name("name")
            types += [self.type_of(parameter.child_by_field_name("type"))] * max(1, len(names))
        return ",".join(types)

    def signature_refs(self, node: Node, scope: int, own: str = "") -> None:
        """The types a function's (or an interface method's) parameters and results name."""
        for field in ("parameters", "result"):
            part = node.child_by_field_name(field)
            if part is None:
                continue
            if part.type != "parameter_list":
                self.type_refs(part, scope, own)
                continue
            for parameter in part.named_children:
                self.type_refs(parameter.child_by_field_name("type"), scope, own)

    # -- chains ---------------------------------------------------------------------------
    def _chain(self, node: Node) -> str:
        t = node.type
        if t in ("identifier", "type_identifier", "field_identifier", "package_identifier"):
            return self.text(node)
        if t == "selector_expression":
            operand = node.child_by_field_name("operand")
            field = node.child_by_field_name("field")
            head = self._chain(operand) if operand is not None else "?"
            return f"{head}.{self.text(field)}"
        if t == "call_expression":
            function = node.child_by_field_name("function")
            return (self._chain(function) if function is not None else "?") + "()"
        if t == "index_expression":
            operand = node.child_by_field_name("operand")
            return (self._chain(operand) if operand is not None else "?") + "[]"
        if t in ("parenthesized_expression", "unary_expression"):
            inner = node.child_by_field_name("operand") or (
                node.named_children[0] if node.named_children else None
            )
            return self._chain(inner) if inner is not None else "?"
        if t == "composite_literal":
            return self._as_call(self.type_of(node.child_by_field_name("type")))
        if t == "type_assertion_expression":
            return self._as_call(self.type_of(node.child_by_field_name("type")))
        if t in ("qualified_type", "generic_type", "pointer_type"):
            type_string = self.type_of(node)
            return "?" if type_string.startswith(("[]", "?")) else type_string
        return "?"

    @staticmethod
    def _as_call(type_string: str) -> str:
        if type_string.startswith(("[]", "?")):
            return "?"
        return type_string + "()"

    def value_of(self, node: Node | None) -> str:
        if node is None:
            return "expr:?"
        t = node.type
        if t in ("composite_literal", "type_assertion_expression"):
            return "type:" + self.type_of(node.child_by_field_name("type"))
        if t == "unary_expression":
            operand = node.child_by_field_name("operand")
            return self.value_of(operand) if operand is not None else "expr:?"
        if t == "parenthesized_expression" and node.named_children:
            return self.value_of(node.named_children[0])
        if t == "call_expression":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            name = self.text(function) if function is not None else ""
            if name in ("new", "make") and arguments is not None and arguments.named_children:
                return "type:" + self.type_of(arguments.named_children[0])
        if t in ("interpreted_string_literal", "raw_string_literal", "int_literal"):
            return "type:string" if "string" in t else "type:int"
        return self.expression(node)

    # -- declarations ---------------------------------------------------------------------
    def visit(self, node: Node, scope: int, owner: str = "") -> None:
        t = node.type
        if t == "package_clause":
            for child in node.named_children:
                self.facts.scopes[0].name = self.text(child)
        elif t == "import_spec":
            self.import_spec(node)
        elif t == "type_spec" or t == "type_alias":
            self.type_spec(node, scope)
        elif t in _FUNCTIONS:
            self.function(node, scope)
        elif t == "func_literal":
            inner = self.open_function("", scope, node, "")
            self.parameters(node.child_by_field_name("parameters"), inner)
            self.visit_children(node, inner)
        elif t in ("var_spec", "const_spec"):
            self.var_spec(node, scope)
        elif t in ("short_var_declaration", "assignment_statement"):
            self.assignment(node, scope)
        elif t == "range_clause":
            self.range_clause(node, scope)
        elif t == "call_expression":
            self.call(node, scope)
        elif t == "composite_literal":
            self.type_refs(node.child_by_field_name("type"), scope)
            self.visit_children(node, scope)
        elif t == "keyed_element":
            values = node.named_children
            if len(values) == 2:
                self.value_ref(self.chain(_unwrap(values[1])), values[1], scope)
            self.visit_children(node, scope)
        elif t == "return_statement":
            for child in node.named_children:
                for item in child.named_children if child.type == "expression_list" else [child]:
                    if item.type in ("identifier", "selector_expression"):
                        self.value_ref(self.chain(item), item, scope)
            self.visit_children(node, scope)
        else:
            self.visit_children(node, scope)

    def import_spec(self, node: Node) -> None:
        path_node = node.child_by_field_name("path")
        path = self.text(path_node).strip('"`')
        if not path:
            return
        self.ref("import", path, node, 0)
        alias_node = node.child_by_field_name("name")
        alias = self.text(alias_node)
        if alias == ".":
            self.facts.stars.append(path)
        elif alias != "_":
            self.bind(0, alias or import_name(path), node, f"import:{path}")

    def type_spec(self, node: Node, scope: int) -> None:
        name = self.text(node.child_by_field_name("name"))
        body = node.child_by_field_name("type")
        if not name or body is None:
            return
        class_scope, facts = self.open_class(name, scope, node)
        self.type_parameters(node.child_by_field_name("type_parameters"), class_scope)
        if body.type == "struct_type":
            for fields in body.named_children:
                for field in fields.named_children:
                    if field.type != "field_declaration":
                        continue
                    type_string = self.type_of(field.child_by_field_name("type"))
                    names = field.children_by_field_name("name")
                    if not names:
                        facts.bases.append(type_string)
                        self.ref("inherit", type_string, field, class_scope)
                        continue
                    for field_name in names:
                        facts.attrs.setdefault(self.text(field_name), []).append(
                            (class_scope, f"type:{type_string}")
                        )
                    self.type_refs(field.child_by_field_name("type"), class_scope, name)
        elif body.type == "interface_type":
            for element in body.named_children:
                if element.type == "method_elem":
                    method = self.text(element.child_by_field_name("name"))
                    returns = self.results(element.child_by_field_name("result"))
                    self.open_function(f"{name}.{method}", class_scope, element, returns)
                    self.signature_refs(element, class_scope, name)
                elif element.type == "type_elem" and len(element.named_children) == 1:
                    type_string = self.type_of(element.named_children[0])
                    facts.bases.append(type_string)
                    self.ref("inherit", type_string, element, class_scope)
        elif node.type == "type_alias" or body.type in ("slice_type", "map_type", "array_type"):
            facts.bases.append(self.type_of(body))

    def type_parameters(self, node: Node | None, scope: int) -> None:
        if node is None:
            return
        for parameter in node.named_children:
            constraint = parameter.child_by_field_name("type")
            bound = "?"
            if constraint is not None and len(constraint.named_children) == 1:
                bound = self.type_of(constraint.named_children[0])
            for name in parameter.children_by_field_name("name"):
                self.bind(scope, self.text(name), name, f"tparam:{bound}")

    def function(self, node: Node, scope: int) -> None:
        name = self.text(node.child_by_field_name("name"))
        receiver = node.child_by_field_name("receiver")
        receiver_type = ""
        if receiver is not None:
            for parameter in receiver.named_children:
                receiver_type = self.type_of(parameter.child_by_field_name("type"))
        qualified = f"{receiver_type}.{name}" if receiver_type else name
        returns = self.results(node.child_by_field_name("result"))
        inner = self.open_function(qualified, scope, node, returns)
        self.type_parameters(node.child_by_field_name("type_parameters"), inner)
        self.parameters(receiver, inner)
        self.parameters(node.child_by_field_name("parameters"), inner)
        self.signature_refs(node, inner, receiver_type)
        result = node.child_by_field_name("result")
        if result is not None and result.type == "parameter_list":
            self.parameters(result, inner)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, inner)

    def parameters(self, node: Node | None, scope: int) -> None:
        if node is None:
            return
        for parameter in node.named_children:
            if parameter.type not in ("parameter_declaration", "variadic_parameter_declaration"):
                continue
            type_string = self.type_of(parameter.child_by_field_name("type"))
            if parameter.type == "variadic_parameter_declaration":
                type_string = "[]" + type_string
            for name in parameter.children_by_field_name("name"):
                self.bind(scope, self.text(name), name, f"type:{type_string}")

    # -- statements -----------------------------------------------------------------------
    def var_spec(self, node: Node, scope: int) -> None:
        names = node.children_by_field_name("name")
        declared = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        values = value.named_children if value is not None else []
        declared_type = self.type_of(declared) if declared else ""
        self.bind_all(node, names, values, declared_type, scope)
        self.type_refs(declared, scope)
        if value is not None:
            for item in values:
                self.value_ref(self.chain(item), item, scope)
            self.visit(value, scope)

    def assignment(self, node: Node, scope: int) -> None:
        """`:=` declares; `=` cannot change a Go variable's type, so binds nothing."""
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        names = [n for n in left.named_children if n.type == "identifier"] if left else []
        declares = node.type == "short_var_declaration"
        if declares and left is not None and len(names) == len(left.named_children) and right:
            self.bind_all(node, names, right.named_children, "", scope)
        if right is not None:
            for item in right.named_children:
                self.value_ref(self.chain(_unwrap(item)), item, scope)
            self.visit(right, scope)
        if left is not None:
            self.visit(left, scope)

    def bind_all(
        self, statement: Node, names: list[Node], values: list[Node], declared: str, scope: int
    ) -> None:
        def bind(name: Node, value: str) -> None:
            self.bind_after(scope, self.text(name), statement, value)

        if declared:
            for name in names:
                bind(name, f"type:{declared}")
        elif len(values) == len(names):
            for name, value in zip(names, values, strict=True):
                bind(name, self.value_of(value))
        elif len(values) == 1 and names:
            value = values[0]
            if value.type in ("type_assertion_expression", "index_expression"):
                bind(names[0], self.value_of(value))
                return
            chain = self.chain(value) if value.type == "call_expression" else None
            for index, name in enumerate(names):
                bind(name, f"nth:{index}:{chain}" if chain else "expr:?")

    def range_clause(self, node: Node, scope: int) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        chain = self.chain(right) if right is not None else None
        names = left.named_children if left is not None else []
        if len(names) == 2 and chain and names[1].type == "identifier":
            self.bind(scope, self.text(names[1]), names[1], f"elem:{chain}")
        if right is not None:
            self.visit(right, scope)

    def call(self, node: Node, scope: int) -> None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is not None and function.type != "func_literal":
            at = function.child_by_field_name("field") or function
            chain = self.chain(function)
            self.ref("call", chain, at, scope)
            if chain and arguments is not None and _REGISTER.search(chain):
                self.facts.refs[-1].values = [
                    ("", self.value_of(a)) for a in arguments.named_children if a.type != "comment"
                ]
        if arguments is not None:
            for argument in arguments.named_children:
                if argument.type in ("identifier", "selector_expression"):
                    self.value_ref(self.chain(argument), argument, scope)
        self.visit_children(node, scope)


def _unwrap(node: Node) -> Node:
    """A literal element's expression (`literal_element` wraps it)."""
    if node.type == "literal_element" and node.named_children:
        return node.named_children[0]
    return node
