"""Facts of a C# file: namespaces, usings, types with fields, properties and bases, locals.

Namespaces (blocks and file-scoped) are scopes named by their full name; ``using N;``
and ``using static T;`` are wildcard imports (``stars``) and ``using A = N.T;`` binds
``A``; a ``global using`` is also kept for the other files of its project
(``global_imports``). Fields and properties are attributes with their declared type;
``Task<T>`` is written ``T`` (what ``await`` gives). A method group passed as a value
(``Run(Helper)``) or assigned is a ``value`` reference.
"""

from __future__ import annotations

from typing import ClassVar

from codecompass.indexing.extract_typed import TypedExtractor, join, line
from codecompass.indexing.facts import Ref
from codecompass.indexing.rules import operator_name
from codecompass.indexing.treesitter import Node

_CLASSES = frozenset(
    {
        "class_declaration",
        "struct_declaration",
        "interface_declaration",
        "record_declaration",
        "record_struct_declaration",
        "enum_declaration",
    }
)
_FUNCTIONS = frozenset({"method_declaration", "constructor_declaration", "operator_declaration"})
# Type nodes whose identifier children are types (elsewhere one may be a name: a tuple
# element's).
_TYPE_WRAPPERS = frozenset(
    {"array_type", "nullable_type", "ref_type", "scoped_type", "pointer_type", "type_argument_list"}
)


_SEQUENCES = frozenset(
    {"List", "IList", "IEnumerable", "ICollection", "IReadOnlyList", "IReadOnlyCollection"}
    | {"HashSet", "ISet", "Queue", "Stack", "LinkedList", "IAsyncEnumerable", "Lazy"}
    | {"ImmutableArray", "ImmutableList", "IQueryable", "IOrderedEnumerable", "Span"}
)
_MAPS = frozenset({"Dictionary", "IDictionary", "IReadOnlyDictionary", "ConcurrentDictionary"})
_AWAITED = frozenset({"Task", "ValueTask"})
_LITERAL_TYPES = {
    "string_literal": "type:string",
    "verbatim_string_literal": "type:string",
    "raw_string_literal": "type:string",
    "interpolated_string_expression": "type:string",
    "typeof_expression": "type:Type",
    "integer_literal": "type:int",
    "real_literal": "type:double",
    "boolean_literal": "type:bool",
    "character_literal": "type:char",
}


def _has_code(prop: Node) -> bool:
    """Whether a property runs code: an arrow body, or an accessor with a body."""
    value = prop.child_by_field_name("value")
    if value is not None and value.type == "arrow_expression_clause":
        return True
    accessors = prop.child_by_field_name("accessors")
    return accessors is not None and any(
        a.child_by_field_name("body") is not None for a in accessors.named_children
    )


class CSharpExtractor(TypedExtractor):
    language = "csharp"
    string_nodes = frozenset({"string_literal", "interpolated_string_expression"})
    string_type = "string"
    creations: ClassVar[dict[str, str]] = {"object_creation_expression": "type"}

    # -- types ----------------------------------------------------------------------------
    def type_of(self, node: Node | None) -> str:
        if node is None:
            return "?"
        t = node.type
        if t in ("identifier", "predefined_type"):
            return self.text(node)
        if t == "qualified_name":
            return ".".join(self.type_of(c) for c in node.named_children)
        if t == "alias_qualified_name":
            return self.type_of(node.named_children[-1]) if node.named_children else "?"
        if t == "generic_name":
            parts = node.named_children
            base = self.text(parts[0]) if parts else "?"
            arguments = parts[1].named_children if len(parts) > 1 else []
            if base in _AWAITED and arguments:
                return self.type_of(arguments[0])
            if base in _SEQUENCES and arguments:
                return "[]" + self.type_of(arguments[0])
            if base in _MAPS and len(arguments) == 2:
                return "[]" + self.type_of(arguments[1])
            return base
        if t == "array_type":
            return "[]" + self.type_of(node.child_by_field_name("type"))
        if t in ("nullable_type", "ref_type", "scoped_type", "pointer_type"):
            inner = node.child_by_field_name("type") or (
                node.named_children[0] if node.named_children else None
            )
            return self.type_of(inner)
        return "?"

    def type_refs(self, node: Node | None, scope: int, own: str = "") -> None:
        """A `type` reference for each type a declared type names, its generic arguments
        too (`IRequestHandler<ShipOrderCommand, bool>`): who uses a type, not only who
        calls it. Keyword types (`int`, `string`) name nothing; C# passes no `own`."""
        if node is None:
            return
        t = node.type
        if t in ("identifier", "qualified_name"):
            self.ref("type", self.type_of(node), node, scope)
        elif t == "generic_name":
            parts = node.named_children
            if parts:
                self.ref("type", self.text(parts[0]), parts[0], scope)
            for arguments in parts[1:]:
                for argument in arguments.named_children:
                    self.type_refs(argument, scope)
        elif t != "predefined_type":
            for child in node.named_children:
                if child.type != "identifier" or t in _TYPE_WRAPPERS:
                    self.type_refs(child, scope)

    # -- chains ---------------------------------------------------------------------------
    def _chain(self, node: Node) -> str:
        t = node.type
        if t in ("identifier", "predefined_type"):
            return self.text(node)
        if t == "generic_name" and node.named_children:
            return self.text(node.named_children[0])
        if t in ("this_expression", "this"):
            return "this"
        if t in ("base_expression", "base"):
            return "base"
        if t == "member_access_expression":
            target = node.child_by_field_name("expression")
            name = node.child_by_field_name("name")
            head = self._chain(target) if target is not None else "?"
            return f"{head}.{self._chain(name) if name is not None else '?'}"
        if t == "conditional_access_expression":
            condition = node.child_by_field_name("condition")
            head = self._chain(condition) if condition is not None else "?"
            binding = next(
                (c for c in node.named_children if c.type == "member_binding_expression"), None
            )
            name = binding.child_by_field_name("name") if binding is not None else None
            return f"{head}.{self._chain(name)}" if name is not None else head
        if t == "invocation_expression":
            function = node.child_by_field_name("function")
            return (self._chain(function) if function is not None else "?") + "()"
        if t == "object_creation_expression":
            written = self.type_of(node.child_by_field_name("type"))
            return "?" if written.startswith(("[]", "?")) else written + "()"
        if t == "element_access_expression":
            target = node.child_by_field_name("expression")
            return (self._chain(target) if target is not None else "?") + "[]"
        if t == "cast_expression":
            written = self.type_of(node.child_by_field_name("type"))
            return "?" if written.startswith(("[]", "?")) else written + "()"
        if t in ("parenthesized_expression", "await_expression") and node.named_children:
            return self._chain(node.named_children[0])
        return "?"

    # -- declarations ---------------------------------------------------------------------
    def visit(self, node: Node, scope: int, owner: str) -> None:
        t = node.type
        if t == "using_directive":
            self.using(node, scope)
        elif t == "namespace_declaration":
            namespace = self.text(node.child_by_field_name("name"))
            outer = self.facts.scopes[scope].name if scope else ""
            inner = self.open_scope(join(outer, namespace), "namespace", scope, node)
            self.visit_children(node, inner, owner)
        elif t == "file_scoped_namespace_declaration":
            self.facts.scopes[0].name = self.text(node.child_by_field_name("name"))
            self.visit_children(node, scope, owner)
        elif t in _CLASSES:
            self.type_declaration(node, scope, owner)
        elif t in _FUNCTIONS or t == "local_function_statement":
            self.function(node, scope, owner)
        elif t in ("field_declaration", "event_field_declaration"):
            self.field(node, scope, owner)
        elif t == "property_declaration":
            prop = self.text(node.child_by_field_name("name"))
            facts = self.facts.classes.get(owner)
            written = self.type_of(node.child_by_field_name("type"))
            self.type_refs(node.child_by_field_name("type"), scope)
            if facts is not None and prop:
                facts.attrs.setdefault(prop, []).append((scope, f"type:{written}"))
            if prop and _has_code(node):  # a symbol of its own (queries/csharp.scm)
                scope = self.open_function(join(owner, prop), scope, node, written)
            self.visit_children(node, scope, owner)
        elif t == "enum_member_declaration":
            member = self.text(node.child_by_field_name("name"))
            facts = self.facts.classes.get(owner)
            if facts is not None and member:
                facts.attrs.setdefault(member, []).append((scope, f"type:{owner}"))
        elif t == "local_declaration_statement" or t == "using_statement":
            self.locals(node, scope, owner)
        elif t == "foreach_statement":
            self.for_each(node, scope, owner)
        elif t in ("declaration_pattern", "catch_declaration", "declaration_expression"):
            name = node.child_by_field_name("name")
            declared = node.child_by_field_name("type")
            if name is not None and declared is not None and declared.type != "implicit_type":
                self.bind(scope, self.text(name), name, f"type:{self.type_of(declared)}")
            self.visit_children(node, scope, owner)
        elif t == "lambda_expression" or t == "anonymous_method_expression":
            inner = self.open_function("", scope, node, "")
            self.parameters(node.child_by_field_name("parameters"), inner)
            self.visit_children(node, inner, owner)
        elif t == "invocation_expression" or t == "object_creation_expression":
            self.call(node, scope, owner)
        elif t == "assignment_expression":
            right = node.child_by_field_name("right")
            if right is not None and right.type in ("identifier", "member_access_expression"):
                self.value_ref(self.chain(right), right, scope)
            self.visit_children(node, scope, owner)
        else:
            self.visit_children(node, scope, owner)

    def using(self, node: Node, scope: int) -> None:
        alias = node.child_by_field_name("name")
        targets = [
            c
            for c in node.named_children
            if c.type in ("identifier", "qualified_name", "alias_qualified_name", "generic_name")
            and c != alias
        ]
        if not targets:
            return
        path = self.type_of(targets[-1])
        self.ref("import", path, node, 0)
        if alias is not None:
            self.bind(scope, self.text(alias), node, f"import:{path}")
        else:
            self.facts.stars.append(path)
        if any(c.type == "global" for c in node.children):
            given = f"{self.text(alias)}={path}" if alias is not None else path
            self.facts.global_imports.append(given)

    def type_declaration(self, node: Node, scope: int, owner: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        qualified = join(owner, name)
        inner, facts = self.open_class(qualified, scope, node)
        bounds: dict[str, str] = {}
        for child in node.named_children:
            if child.type == "type_parameter_constraints_clause":
                parts = child.named_children
                constraints = [c for c in parts if c.type == "type_parameter_constraint"]
                if parts and constraints and constraints[0].named_children:
                    bounds[self.text(parts[0])] = self.type_of(constraints[0].named_children[0])
        for child in node.named_children:
            if child.type == "type_parameter_list":
                for parameter in child.named_children:
                    tname = self.text(parameter.child_by_field_name("name"))
                    self.bind(inner, tname, parameter, f"tparam:{bounds.get(tname, '?')}")
            elif child.type == "base_list":
                for listed in child.named_children:
                    if listed.type == "primary_constructor_base_type" and listed.named_children:
                        listed = listed.named_children[0]
                    facts.bases.append(self.type_of(listed))
                    self.ref("inherit", self.type_of(listed), listed, inner)
                    if listed.type == "generic_name":  # `IHandler<ShipCmd>` uses ShipCmd
                        for arguments in listed.named_children[1:]:
                            for argument in arguments.named_children:
                                self.type_refs(argument, inner)
            elif child.type == "parameter_list":  # record / primary constructor
                for parameter in child.named_children:
                    field = self.text(parameter.child_by_field_name("name"))
                    written = self.type_of(parameter.child_by_field_name("type"))
                    if field:
                        facts.attrs.setdefault(field, []).append((inner, f"type:{written}"))
                self.parameters(child, inner)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit_children(body, inner, qualified)

    def function(self, node: Node, scope: int, owner: str) -> None:
        operator = node.child_by_field_name("operator")  # named as its symbol: `operator==`
        name = self.text(node.child_by_field_name("name"))
        if operator is not None:
            name = operator_name(self.text(operator))
        declared = node.child_by_field_name("returns") or node.child_by_field_name("type")
        returns = self.type_of(declared) if declared is not None else ""
        qualified = join(owner, name)
        inner = self.open_function(qualified, scope, node, returns)
        self.type_refs(declared, inner)
        for child in node.named_children:
            if child.type == "type_parameter_list":
                for parameter in child.named_children:
                    tname = self.text(parameter.child_by_field_name("name"))
                    self.bind(inner, tname, parameter, "tparam:?")
        self.parameters(node.child_by_field_name("parameters"), inner)
        for child in node.named_children:
            if child.type in ("block", "arrow_expression_clause", "constructor_initializer"):
                self.visit(child, inner, qualified)

    def parameters(self, node: Node | None, scope: int) -> None:
        if node is None:
            return
        if node.type == "identifier":  # `x => …`
            return
        written = "?"
        for child in node.named_children:
            # `params int[] xs` puts the type and name beside the parameters.
            if child.type == "parameter":
                declared = child.child_by_field_name("type")
                name = child.child_by_field_name("name")
                if name is not None and declared is not None:
                    self.bind(scope, self.text(name), name, f"type:{self.type_of(declared)}")
                self.type_refs(declared, scope)
            elif child.type not in ("identifier", "attribute_list"):
                written = self.type_of(child)
                self.type_refs(child, scope)
            elif child.type == "identifier" and written != "?":
                self.bind(scope, self.text(child), child, f"type:{written}")
                written = "?"

    def field(self, node: Node, scope: int, owner: str) -> None:
        facts = self.facts.classes.get(owner)
        for declaration in node.named_children:
            if declaration.type != "variable_declaration":
                continue
            written = self.type_of(declaration.child_by_field_name("type"))
            self.type_refs(declaration.child_by_field_name("type"), scope)
            for declarator in declaration.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = self.text(declarator.child_by_field_name("name"))
                if facts is not None and name:
                    facts.attrs.setdefault(name, []).append((scope, f"type:{written}"))
                self.visit_children(declarator, scope, owner)

    # -- statements -----------------------------------------------------------------------
    def locals(self, node: Node, scope: int, owner: str) -> None:
        for declaration in node.named_children:
            if declaration.type != "variable_declaration":
                self.visit(declaration, scope, owner)
                continue
            declared = declaration.child_by_field_name("type")
            inferred = declared is None or declared.type == "implicit_type"
            if not inferred:
                self.type_refs(declared, scope)
            for declarator in declaration.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = self.text(declarator.child_by_field_name("name"))
                values = [c for c in declarator.named_children if c.type != "identifier"]
                value = values[-1] if values else None
                bound = self.value_of(value) if inferred else f"type:{self.type_of(declared)}"
                self.bind_after(scope, name, node, bound)
                if value is not None and value.type in ("identifier", "member_access_expression"):
                    self.value_ref(self.chain(value), value, scope)
                self.visit_children(declarator, scope, owner)

    def argument(self, node: Node) -> str:
        """An argument as a binding value, to tell overloads apart (`?`: unknown)."""
        if node.child_by_field_name("name") is not None or len(node.children) > 1:
            return "?"  # named, `ref`, `out`: not matched by position
        inner = node.named_children[-1] if node.named_children else None
        if inner is None:
            return "?"
        literal = _LITERAL_TYPES.get(inner.type)
        if literal is not None:
            return literal
        if inner.type in ("lambda_expression", "null_literal"):
            return "?"
        if inner.type == "cast_expression":
            return f"type:{self.type_of(inner.child_by_field_name('type'))}"
        if inner.type == "conditional_expression":
            inner = inner.child_by_field_name("consequence") or inner
            literal = _LITERAL_TYPES.get(inner.type)
            if literal is not None:
                return literal
        return self.value_of(inner)

    def for_each(self, node: Node, scope: int, owner: str) -> None:
        declared = node.child_by_field_name("type")
        name = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if name is not None and name.type == "identifier":
            if declared is not None and declared.type != "implicit_type":
                bound = f"type:{self.type_of(declared)}"
            else:
                chain = self.chain(right)
                bound = f"elem:{chain}" if chain and chain != "?" else "expr:?"
            self.bind(scope, self.text(name), name, bound)
        self.visit_children(node, scope, owner)

    def call(self, node: Node, scope: int, owner: str) -> None:
        arguments = node.child_by_field_name("arguments")
        listed = [c for c in arguments.named_children if c.type == "argument"] if arguments else []
        values = [str(len(listed)), *(self.argument(a) for a in listed)]
        if node.type == "invocation_expression":
            function = node.child_by_field_name("function")
            callee = self.chain(function) if function is not None else None
            at = function.child_by_field_name("name") if function is not None else None
        else:
            written = self.type_of(node.child_by_field_name("type"))
            callee = None if written.startswith(("[]", "?")) else written
            at = None
        if callee:
            self.facts.refs.append(Ref("call", callee, line(at or node), scope, values))
        for argument in listed:
            inner = argument.named_children[-1] if argument.named_children else None
            if inner is not None and inner.type in ("identifier", "member_access_expression"):
                self.value_ref(self.chain(inner), inner, scope)
        self.visit_children(node, scope, owner)
