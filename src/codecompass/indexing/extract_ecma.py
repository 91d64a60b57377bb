"""Facts of a JavaScript / TypeScript / TSX file, read from its tree-sitter tree.

Scopes: the module, classes, and functions (declarations, methods, arrow functions and
function expressions). Bindings come from ES imports, ``require``, declarations,
``const``/``let``/``var`` with their initialiser, typed parameters and ``this`` inside
methods. Exports are recorded so that other files can follow ``export {a as b}``,
``export default``, re-exports (``export … from``) and CommonJS ``module.exports``.

CommonJS and prototype shapes (``commonjs.py``): a function assigned to ``obj.name`` is
the function ``obj.name``, with ``this`` bound to ``obj``; ``exports.x = …`` and the
members of the object ``module.exports`` is set to are exports. An object (an object
literal with functions, or a module-level variable receiving functions) gets class facts
and its name is bound to ``self:<object>``: its functions are found as its members (the
assigned ones through ``attrs``). Class fields holding functions are methods.
"""

from __future__ import annotations

import re

from codecompass.indexing import commonjs
from codecompass.indexing.extract_python import looks_like_url_argument
from codecompass.indexing.facts import (
    CONSTANT_NAME,
    EVENT_CALLS,
    SERVICE_CALLS,
    ClassFacts,
    FileFacts,
    FunctionFacts,
    Reads,
    Ref,
    Scope,
    add_module_values,
    written,
)
from codecompass.indexing.sfc import option_entries, options_object
from codecompass.indexing.treesitter import Node

MAX_CHAIN = 200
_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)
_CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
# Expressions whose value is a builtin object: calls on it never reach the workspace.
_LITERALS = frozenset(
    {"array", "object", "number", "true", "false", "null", "regex", "template_string"}
)
# Calls named as HTTP verbs: a one-word first argument may be a relative URL
# (`http.get('data')`).
_HTTP_VERB_CALLS = frozenset({"get", "post", "put", "patch", "delete"})
_TYPE_NAMES = frozenset({"type_identifier", "nested_type_identifier", "identifier"})
_MIDDLEWARE = frozenset({"call_expression", "arrow_function", "function_expression", "function"})
_QUOTES = "\"'`"
# Calls of an HTTP client that may take their URL in an options object.
_CLIENT_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "request"})
_REQUEST_FUNCTIONS = frozenset({"request", "__request"})
_JQUERY_AJAX = frozenset({"$.ajax", "jQuery.ajax"})


# Where a name is written, bound or called, not read (`facts.written`): a parent node's
# type → its fields holding the name, "" for any child. Parameters, declarations,
# targets, imports, JSX tag names.
_NOT_READ: dict[str, tuple[str, ...]] = {
    "call_expression": ("function",),
    "new_expression": ("constructor",),
    # The property is part of a chain (`member_read` sees chains); the object is read
    # (`PERMISSIONS.websiteCreate`, `SESSION_COLUMNS.includes(column)`).
    "member_expression": ("property",),
    "variable_declarator": ("name",),
    "assignment_expression": ("left",),
    "augmented_assignment_expression": ("left",),
    "update_expression": ("",),
    "formal_parameters": ("",),
    "required_parameter": ("pattern",),  # not its default value
    "optional_parameter": ("pattern",),
    "arrow_function": ("parameter",),
    "for_in_statement": ("left",),
    "catch_clause": ("parameter",),
    "import_specifier": ("",),
    "export_specifier": ("",),
    "namespace_import": ("",),
    "namespace_export": ("",),
    "import_clause": ("",),
    "labeled_statement": ("label",),
    "break_statement": ("",),
    "continue_statement": ("",),
    "array_pattern": ("",),
    "object_pattern": ("",),
    "assignment_pattern": ("left",),
    "rest_pattern": ("",),
    "pair_pattern": ("value",),
    "jsx_opening_element": ("name",),
    "jsx_closing_element": ("name",),
    "jsx_self_closing_element": ("name",),
    "jsx_namespace_name": ("",),
    "function_declaration": ("name",),
    "function_expression": ("name",),
    "generator_function_declaration": ("name",),
    "class_declaration": ("name",),
    "class": ("name",),
}


class EcmaExtractor:
    def __init__(self, data: bytes, language: str, module: str = "") -> None:
        """`module`: the name definitions at the top level nest under (a Vue or Svelte
        component's scripts: `UserCard.refresh`, as its symbols are named)."""
        self.data = data
        self.facts = FileFacts(language, scopes=[Scope(module, "module", -1, 0)])
        # Generic parameters (`<T>`) declared anywhere in the file: never a reference.
        self.type_params: set[str] = set()
        self.shapes = commonjs.ModuleShapes(set(), set())
        # What a constructor function sets on `this` (`this.baseUrl = '/admin/talks/'` in
        # `function Talk`), by the function's name: a class's members are in its attrs.
        self.this_values: dict[str, dict[str, list[str]]] = {}
        # The one path a class's constructor hands its base (Angular's `super(http,
        # "/api/v1/Request/", href)`), which the base keeps in a member of its own.
        self.super_paths: dict[str, list[str]] = {}
        # The paths an object literal of the file holds, by its name and key: mealie's
        # `const routes = { recipes: `${prefix}/recipes`, recipe: (id) => `…/${id}` }`.
        self.object_paths: dict[str, dict[str, str]] = {}
        self.reads = Reads(self.facts.scopes)  # names read, not called

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def run(self, root: Node) -> FileFacts:
        self.collect_type_params(root)
        self.shapes = commonjs.module_shapes(self.data, root)
        for child in root.named_children:
            self.visit(child, 0)
        add_module_values(self.facts, self.reads)
        return self.facts

    def name_read(self, node: Node, scope: int) -> None:
        """Note a name this scope reads (not writes, binds or calls), for
        `add_module_values`: `MAX_RETRIES + 1`, `items.sort(byName)`, `{ MAX_RETRIES }`."""
        if written(node, _NOT_READ):
            return
        if scope == 0 and _exported(self, node):
            return  # `module.exports = { info }`, `export default info`: no use of it
        self.reads.note(scope, self.text(node), _line(node))

    def member_read(self, node: Node, scope: int) -> None:
        """`config.MAX_RETRIES`, `list.sort(util.byName)`: a module's constant (a name in
        capitals) or function (an argument) read through a module the file imports."""
        parent = node.parent
        if parent is None or parent.child_by_field_name("function") == node:
            return
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "identifier":
            return
        name = self.text(prop)
        if CONSTANT_NAME.fullmatch(name) or parent.type == "arguments":
            self.reads.note(scope, f"{self.text(obj)}.{name}", _line(node))

    def collect_type_params(self, node: Node) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "type_parameter":
                name = current.child_by_field_name("name")
                if name is not None:
                    self.type_params.add(self.text(name))
                continue
            stack.extend(current.named_children)

    # -- chains -------------------------------------------------------------------------
    def chain(self, node: Node | None) -> str | None:
        if node is None:
            return None
        out = self._chain(node)
        if out is None or len(out) > MAX_CHAIN:
            return None
        return out

    def _chain(self, node: Node) -> str | None:
        t = node.type
        if t in ("identifier", "this", "super", "property_identifier", "type_identifier"):
            return self.text(node)
        if t == "member_expression":
            obj = node.child_by_field_name("object")
            prop = node.child_by_field_name("property")
            inner = self._chain(obj) if obj is not None else None
            if prop is None:
                return None
            return f"{inner or '?'}.{self.text(prop)}"
        if t == "nested_type_identifier":
            return self.text(node).replace(" ", "")
        if t in ("call_expression", "new_expression"):
            func = node.child_by_field_name("function") or node.child_by_field_name("constructor")
            if func is not None and func.type == "import":
                return "?()"
            inner = self._chain(func) if func is not None else None
            return f"{inner or '?'}()"
        if t == "subscript_expression":
            obj = node.child_by_field_name("object")
            inner = self._chain(obj) if obj is not None else None
            return f"{inner or '?'}[]"
        if t in ("await_expression", "non_null_expression") and node.named_children:
            return self._chain(node.named_children[0])
        return "?"

    def value_of(self, node: Node | None, scope: int) -> str:
        if node is None:
            return "expr:?"
        t = node.type
        if t in ("string", "template_string"):
            pattern = self.string_pattern(node, scope)
            return f"str:{pattern}" if pattern is not None else "expr:?"
        if t == "binary_expression" or _is_url(self, node):  # BASE + '/users'
            pattern = self.string_pattern(node, scope)
            if pattern is not None:
                return f"str:{pattern}"
        spec = self.require_spec(node)
        if spec is not None:
            return f"import:{spec}"
        if t == "member_expression":
            obj = node.child_by_field_name("object")
            prop = node.child_by_field_name("property")
            spec = self.require_spec(obj) if obj is not None else None
            if spec is not None and prop is not None:
                return f"from:{spec}:{self.text(prop)}"
        if t in ("as_expression", "satisfies_expression") and node.named_children:
            return self.value_of(node.named_children[0], scope)
        injected = _injected(self, node) if t == "call_expression" else None
        if injected is not None:
            return f"type:{injected}"
        if t == "assignment_expression":  # `a = b = v`
            return self.value_of(node.child_by_field_name("right"), scope)
        if t in (
            "identifier",
            "member_expression",
            "call_expression",
            "new_expression",
            "subscript_expression",
            "await_expression",
            "this",
        ):
            chain = self.chain(node)
            if chain is not None:
                return f"expr:{chain}"
        if t in _LITERALS:
            return f"lit:{t}"
        return "expr:?"

    def require_spec(self, node: Node) -> str | None:
        """The module of `require('m')` (or `await import('m')`), else None."""
        if node.type == "await_expression" and node.named_children:
            node = node.named_children[0]
        if node.type != "call_expression":
            return None
        func = node.child_by_field_name("function")
        if func is None or self.text(func) not in ("require", "import"):
            return None
        args = node.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is None or first.type != "string":
            return None
        return self.string_pattern(first, 0)

    def string_pattern(self, node: Node, scope: int) -> str | None:
        """A string's text, `{}` for each part that is not a string we can read (a
        substitution, a concatenated value); `new URL(path, base)` as the URL it makes."""
        if node.type == "identifier":
            found = self.lookup_local(self.text(node), scope)
            return found[4:] if found is not None and found.startswith("str:") else None
        if node.type == "member_expression":  # this.baseUrl, routes.recipes
            return self.member_string(node, scope)
        func = node.child_by_field_name("function") if node.type == "call_expression" else None
        if func is not None and func.type == "member_expression":  # routes.recipe(id)
            held = self.member_string(func, scope)
            if held is not None:
                return held
        if node.type == "binary_expression":  # BASE + '/users/' + id
            operator = node.child_by_field_name("operator")
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if operator is None or self.text(operator) != "+" or left is None or right is None:
                return None
            head = self.string_pattern(left, scope)
            tail = self.string_pattern(right, scope)
            if head is None and tail is None:
                return None
            text = (head if head is not None else "{}") + (tail if tail is not None else "{}")
            return text[:300]
        if _is_url(self, node):
            args = node.child_by_field_name("arguments")
            items = list(args.named_children) if args is not None else []
            path = self.string_pattern(items[0], scope) if items else None
            base = self.string_pattern(items[1], scope) if len(items) > 1 else None
            if path is None or "://" in path or len(items) < 2:
                return path
            origin = re.match(r"[a-zA-Z][\w+.-]*://[^/]*", base or "")
            if path.startswith("/"):  # an absolute path keeps only the base's origin
                return (origin.group(0) if origin else "{}") + path
            return (base or "{}").rstrip("/") + "/" + path
        if node.type not in ("string", "template_string"):
            return None
        out: list[str] = []
        for child in node.named_children:
            if child.type == "string_fragment":
                out.append(self.text(child))
            elif child.type == "template_substitution":
                inner = child.named_children[0] if child.named_children else None
                known = None
                if inner is not None and inner.type in ("identifier", "member_expression"):
                    known = self.string_pattern(inner, scope)
                out.append(known if known is not None else "{}")
            elif child.type == "escape_sequence":
                out.append(self.text(child))
        return "".join(out)[:300]

    def record_object_paths(self, name: str, value: Node, scope: int) -> None:
        """The paths an object literal holds (`{ recipes: `${prefix}/recipes` }`), also
        as functions of its values (`recipe: (id) => `${prefix}/recipes/${id}``)."""
        while value.type in ("as_expression", "satisfies_expression") and value.named_children:
            value = value.named_children[0]
        if value.type != "object":
            return
        paths: dict[str, str] = {}
        for pair in value.named_children:
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            held = pair.child_by_field_name("value") if pair.type == "pair" else None
            if key is None or held is None:
                continue
            if held.type == "arrow_function":
                held = held.child_by_field_name("body")
            pattern = self.string_pattern(held, scope) if held is not None else None
            if pattern is not None and "/" in pattern:
                paths[self.text(key).strip("'\"")] = pattern
        if paths:
            self.object_paths[name] = paths

    def member_string(self, node: Node, scope: int) -> str | None:
        """The string a member holds, else None: `routes.recipes` of an object literal of
        the file; `this.name` when its class (or constructor function) sets it to one
        string only, or, never set, below the one path its constructor hands `super`."""
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        if obj is not None and prop is not None and obj.type == "identifier":
            return self.object_paths.get(self.text(obj), {}).get(self.text(prop))
        if obj is None or prop is None or obj.type != "this":
            return None
        owner = self.lookup_local("this", scope)
        if owner is None or not owner.startswith("self:"):
            return None
        cls = self.facts.classes.get(owner[5:])
        if cls is not None:
            values = {value for _, value in cls.attrs.get(self.text(prop), [])}
        else:
            values = set(self.this_values.get(owner[5:], {}).get(self.text(prop), []))
        if not values and cls is not None and len(self.super_paths.get(owner[5:], [])) == 1:
            # a member the class never sets, below the one path it gave its base: the
            # base may put its own prefix first (an app's base href)
            return "{}" + self.super_paths[owner[5:]][0]
        value = values.pop() if len(values) == 1 else ""
        return value[4:] if value.startswith("str:") else None

    def lookup_local(self, name: str, scope: int) -> str | None:
        index = scope
        while index >= 0:
            s = self.facts.scopes[index]
            found = s.bindings.get(name)
            if found:
                return found[-1][1]
            index = s.parent
        return None

    # -- walking ------------------------------------------------------------------------
    def visit(self, node: Node, scope: int) -> None:
        t = node.type
        if t in ("identifier", "shorthand_property_identifier"):
            self.name_read(node, scope)
            return
        if t == "member_expression":
            self.member_read(node, scope)
        if t == "import_statement":
            self.import_statement(node, scope)
            return
        if t == "export_statement":
            self.export_statement(node, scope)
            return
        if t in _CLASSES:
            self.class_declaration(node, scope, None)
            return
        if t in _FUNCTIONS:
            self.function(node, scope, None)
            return
        if t == "interface_declaration":
            self.interface(node, scope)
            return
        if t == "variable_declarator":
            self.declarator(node, scope)
            return
        if t in ("call_expression", "new_expression"):
            self.call(node, scope)
            return
        if t in ("jsx_opening_element", "jsx_self_closing_element"):
            name = node.child_by_field_name("name")
            chain = self.chain(name)
            if chain is not None and chain[:1].isupper():
                self.ref("call", chain, _line(node), scope)
        if t == "assignment_expression" and self.assignment(node, scope):
            return
        if t == "type_annotation":
            self.type_refs(node, scope)
            return
        for child in node.named_children:
            self.visit(child, scope)

    def import_statement(self, node: Node, scope: int) -> None:
        source = node.child_by_field_name("source")
        spec = self.string_pattern(source, 0) if source is not None else None
        if spec is None:
            return
        line = _line(node)
        s = self.facts.scopes[scope]
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            self.ref("import", spec, line, scope)
            return
        for child in clause.named_children:
            if child.type == "identifier":
                s.bind(self.text(child), line, f"from:{spec}:default")
                self.ref("import", f"{spec}:default", line, scope)
            elif child.type == "namespace_import":
                ident = child.named_children[0] if child.named_children else None
                if ident is not None:
                    s.bind(self.text(ident), line, f"import:{spec}")
                self.ref("import", f"{spec}:*", line, scope)
            elif child.type == "named_imports":
                for spec_node in child.named_children:
                    if spec_node.type != "import_specifier":
                        continue
                    name = spec_node.child_by_field_name("name")
                    alias = spec_node.child_by_field_name("alias")
                    if name is None:
                        continue
                    local = self.text(alias or name)
                    s.bind(local, _line(spec_node), f"from:{spec}:{self.text(name)}")
                    self.ref("import", f"{spec}:{self.text(name)}", _line(spec_node), scope)

    def export_statement(self, node: Node, scope: int) -> None:
        source = node.child_by_field_name("source")
        spec = self.string_pattern(source, 0) if source is not None else None
        line = _line(node)
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(c.type == "default" for c in node.children)
        for child in node.named_children:
            if child.type == "decorator":  # `@Controller('users') export class …`
                self.visit(child, scope)
        if declaration is not None:
            names = self.declared_names(declaration)
            self.visit(declaration, scope)
            if is_default and names:
                self.facts.exports["default"] = f"def:{self.qualified(scope, names[0])}"
            return
        if value is not None:
            if value.type in _CLASSES or value.type in _FUNCTIONS:
                name_node = value.child_by_field_name("name")
                self.visit(value, scope)
                self.facts.exports["default"] = (
                    f"def:{self.qualified(scope, self.text(name_node))}"
                    if name_node is not None
                    else "expr:?"
                )
            elif not self.component_options(value, line):
                self.visit(value, scope)
                self.facts.exports["default"] = self.value_of(value, scope)
            return
        for child in node.named_children:
            if child.type == "export_clause":
                for item in child.named_children:
                    if item.type != "export_specifier":
                        continue
                    name = item.child_by_field_name("name")
                    alias = item.child_by_field_name("alias")
                    if name is None:
                        continue
                    exported = self.text(alias or name)
                    if spec is not None:
                        self.facts.exports[exported] = f"from:{spec}:{self.text(name)}"
                        self.ref("import", f"{spec}:{self.text(name)}", line, scope)
                    else:
                        self.facts.exports[exported] = f"expr:{self.text(name)}"
            elif child.type == "namespace_export" and spec is not None:
                ident = child.named_children[0] if child.named_children else None
                if ident is not None:
                    self.facts.exports[self.text(ident)] = f"import:{spec}"
                self.ref("import", f"{spec}:*", line, scope)
        if spec is not None and not any(
            c.type in ("export_clause", "namespace_export") for c in node.named_children
        ):
            self.facts.stars.append(spec)
            self.ref("import", f"{spec}:*", line, scope)

    def declared_names(self, node: Node) -> list[str]:
        name = node.child_by_field_name("name")
        if name is not None:
            return [self.text(name)]
        names: list[str] = []
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            ident = declarator.child_by_field_name("name")
            if ident is not None and ident.type == "identifier":
                names.append(self.text(ident))
        return names

    def qualified(self, scope: int, name: str) -> str:
        parent = self.facts.scopes[scope].name
        return f"{parent}.{name}" if parent else name

    def class_declaration(self, node: Node, scope: int, given: str | None) -> None:
        name_node = node.child_by_field_name("name")
        name = given or (self.text(name_node) if name_node is not None else None)
        line = _line(node)
        if name is None:
            for child in node.named_children:
                self.visit(child, scope)
            return
        qualified = self.qualified(scope, name)
        self.facts.scopes[scope].bind(name, line, f"def:{qualified}")
        index = len(self.facts.scopes)
        self.facts.scopes.append(Scope(qualified, "class", scope, line))
        facts = ClassFacts(index)
        self.facts.classes[qualified] = facts
        for child in node.named_children:
            if child.type == "class_heritage":
                self.heritage(child, scope, facts)
            elif child.type == "decorator":
                self.visit(child, scope)
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type == "method_definition":
                self.function(member, index, None, owner=qualified)
            elif member.type in ("public_field_definition", "field_definition"):
                self.field(member, index, facts)
            else:
                self.visit(member, index)

    def heritage(self, node: Node, scope: int, facts: ClassFacts) -> None:
        clauses = [
            c for c in node.named_children if c.type in ("extends_clause", "implements_clause")
        ]
        if not clauses:  # JavaScript: `extends <expression>` directly
            for child in node.named_children:
                chain = self.chain(child)
                if chain is not None and chain != "?":
                    facts.bases.append(chain)
                    self.ref("inherit", chain, _line(child), scope)
                self.visit(child, scope)
            return
        for clause in clauses:
            if clause.type == "extends_clause":
                value = clause.child_by_field_name("value")
                chain = self.chain(value)
                if value is not None and chain is not None and chain != "?":
                    facts.bases.append(chain)
                    self.ref("inherit", chain, _line(value), scope)
            else:
                for item in clause.named_children:
                    chain = self.type_chain(item)
                    if chain is not None and chain not in self.type_params:
                        facts.implements.append(chain)
                        self.ref("implement", chain, _line(item), scope)

    def interface(self, node: Node, scope: int) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = self.text(name_node)
        qualified = self.qualified(scope, name)
        self.facts.scopes[scope].bind(name, _line(node), f"def:{qualified}")
        index = len(self.facts.scopes)
        self.facts.scopes.append(Scope(qualified, "class", scope, _line(node)))
        facts = ClassFacts(index)
        self.facts.classes[qualified] = facts
        for child in node.named_children:
            if child.type == "extends_type_clause":
                for item in child.named_children:
                    chain = self.type_chain(item)
                    if chain is not None:
                        facts.bases.append(chain)
                        self.ref("inherit", chain, _line(item), scope)
            elif child.type in ("interface_body", "object_type"):
                self.type_refs(child, scope)

    def type_chain(self, node: Node) -> str | None:
        if node.type == "generic_type":
            name = node.child_by_field_name("name")
            return self.type_chain(name) if name is not None else None
        if node.type in _TYPE_NAMES:
            return self.text(node).replace(" ", "")
        return None

    def type_refs(self, node: Node, scope: int) -> None:
        if node.type in ("type_identifier", "nested_type_identifier"):
            name = self.text(node).replace(" ", "")
            if name not in self.type_params:
                self.ref("type", name, _line(node), scope)
            return
        for child in node.named_children:
            self.type_refs(child, scope)

    def field(self, node: Node, scope: int, facts: ClassFacts) -> None:
        name = node.child_by_field_name("name") or node.child_by_field_name("property")
        annotation = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        if name is not None and value is not None and value.type in commonjs.FUNCTION_VALUES:
            # A method; even an arrow function's `this` is the instance here.
            self.function(value, scope, self.text(name), owner=self.facts.scopes[scope].name)
            return
        if value is not None:
            self.visit(value, scope)
        if annotation is not None:
            self.type_refs(annotation, scope)
        if name is None:
            return
        bound = self.annotation_value(annotation) or self.value_of(value, scope)
        facts.attrs.setdefault(self.text(name), []).append((scope, bound))

    def annotation_value(self, annotation: Node | None) -> str | None:
        if annotation is None:
            return None
        for child in annotation.named_children:
            chain = self.type_chain(child)
            if chain is not None:
                return f"type:{chain}"
        return None

    def function(
        self,
        node: Node,
        scope: int,
        given: str | None,
        owner: str | None = None,
        *,
        bind: bool = True,
        this: str | None = None,
    ) -> None:
        """A function scope. `owner`: the class (or object) it is a member of, `this`
        being bound to it unless `this` gives another value; `bind=False` for a function
        stored in a property (`obj.f = function …`), which binds no local name."""
        name_node = node.child_by_field_name("name")
        name = given or (self.text(name_node) if name_node is not None else None)
        line = _line(node)
        parent = self.facts.scopes[scope]
        member = owner is not None or given is not None
        if name is not None and (node.type != "method_definition" or member):
            qualified = self.qualified(scope, name)
            named = node.type not in ("function_expression", "arrow_function") or given is not None
            if named and bind:
                parent.bind(name, line, f"def:{qualified}")
        else:
            qualified = parent.name
            name = None
        index = len(self.facts.scopes)
        self.facts.scopes.append(Scope(qualified, "function", scope, line))
        own = self.facts.scopes[index]
        if name is not None:
            self.facts.functions[qualified] = FunctionFacts(index)
        if this is not None:
            own.bind("this", line, this)
        elif owner is not None:
            own.bind("this", line, f"self:{owner}")
        returns = node.child_by_field_name("return_type")
        if returns is not None:
            self.type_refs(returns, scope)
            if name is not None:
                value = self.annotation_value(returns)
                self.facts.functions[qualified].returns = value[5:] if value else ""
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        class_facts = self.facts.classes.get(owner) if owner is not None else None
        if params is None:
            param_nodes: list[Node] = []
        elif params.type == "identifier":  # `x => …`
            param_nodes = [params]
        else:
            param_nodes = list(params.named_children)
        for param in param_nodes:
            self.parameter(param, index, class_facts if name == "constructor" else None)
        for child in node.named_children:
            if child.type == "decorator":
                self.visit(child, scope)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, index)
            if owner is not None and name is not None and _returns_receiver(self, body, "this"):
                facts_entry = self.facts.functions[qualified]
                facts_entry.returns = facts_entry.returns or "this"

    def parameter(self, param: Node, scope: int, class_facts: ClassFacts | None) -> None:
        pattern = param.child_by_field_name("pattern") if param.type != "identifier" else param
        annotation = param.child_by_field_name("type") if param.type != "identifier" else None
        value = param.child_by_field_name("value") if param.type != "identifier" else None
        if value is not None:
            self.visit(value, scope)
        if annotation is not None:
            self.type_refs(annotation, scope)
        if pattern is not None and pattern.type != "identifier":
            # `{ maxWidth = DEFAULT_WIDTH, ...rest }`: its names are the function's.
            self.pattern(pattern, _line(param), scope)
            return
        if pattern is None:
            return
        bound = self.annotation_value(annotation) or "expr:?"
        self.facts.scopes[scope].bind(self.text(pattern), _line(param), bound)
        if class_facts is not None and any(
            c.type == "accessibility_modifier" or self.text(c) == "readonly" for c in param.children
        ):
            class_facts.attrs.setdefault(self.text(pattern), []).append((scope, bound))

    def declarator(self, node: Node, scope: int) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        annotation = node.child_by_field_name("type")
        if annotation is not None:
            self.type_refs(annotation, scope)
        if name is None:
            return
        line = _line(node)
        s = self.facts.scopes[scope]
        if name.type == "identifier" and value is not None:
            self.record_object_paths(self.text(name), value, scope)
        if (
            name.type == "identifier"
            and value is not None
            and (value.type in _FUNCTIONS or value.type in _CLASSES)
        ):
            if value.type in _CLASSES:
                self.class_declaration(value, scope, self.text(name))
            else:
                self.function(value, scope, self.text(name))
            return
        if name.type == "identifier" and value is not None and commonjs.holds_functions(value):
            self.object_literal(value, scope, self.object_class(self.text(name), scope, line))
            return
        if (
            name.type == "identifier"
            and value is not None
            and scope == 0
            and self.text(name) in self.shapes.objects
        ):
            self.visit(value, scope)
            self.object_class(self.text(name), scope, line)
            return
        if value is not None:
            self.visit(value, scope)
        if name.type == "identifier":
            bound = self.annotation_value(annotation) or self.value_of(value, scope)
            s.bind(self.text(name), line, bound)
        elif name.type == "object_pattern":
            spec = self.require_spec(value) if value is not None else None
            # `const { get, post } = useApi()`: each name is that member of the value
            whole = self.value_of(value, scope) if value is not None and spec is None else ""
            held = whole if whole.startswith("expr:") and whole != "expr:?" else ""
            imported: list[str] = []  # `const {a, b: c} = require('m')` imports m's a and b
            for child in name.named_children:
                if child.type == "shorthand_property_identifier_pattern":
                    local = self.text(child)
                    member = f"{held}.{local}" if held else "expr:?"
                    s.bind(local, line, f"from:{spec}:{local}" if spec else member)
                    imported.append(local)
                elif child.type == "pair_pattern":
                    key = child.child_by_field_name("key")
                    val = child.child_by_field_name("value")
                    if key is not None and val is not None and val.type == "identifier":
                        member = f"{held}.{self.text(key)}" if held else "expr:?"
                        s.bind(
                            self.text(val),
                            line,
                            f"from:{spec}:{self.text(key)}" if spec else member,
                        )
                        imported.append(self.text(key))
                    else:  # `{ a: { b } }`, `{ a: b = B }`
                        self.pattern(child, line, scope)
                else:  # `{ size = DEFAULT_SIZE }`, `...rest`
                    self.pattern(child, line, scope)
            if spec is not None:
                for item in imported or [""]:
                    self.ref("import", f"{spec}:{item}" if item else spec, line, scope)
        else:
            self.pattern(name, line, scope)

    def pattern(self, pattern: Node, line: int, scope: int) -> None:
        """Bind the names a destructuring pattern binds and read its defaults
        (`[a, b = FALLBACK]`: `b` is bound, `FALLBACK` read)."""
        names, defaults = _pattern_parts(pattern)
        for default in defaults:
            self.visit(default, scope)
        for name in names:
            self.facts.scopes[scope].bind(self.text(name), line, "expr:?")

    def component_options(self, value: Node, line: int) -> bool:
        """A Vue component's options (`export default { methods: { save() {} } }`, also
        through `defineComponent({…})`), read as the component's class: its methods,
        computed values, watchers and hooks are its members, `this` inside them the
        component (`this.save()` is `Card.save`). False when `value` is no such object
        or the file is no component."""
        component = self.facts.scopes[0].name
        options = options_object(value) if component else None
        if options is None:
            return False
        func = value.child_by_field_name("function") if value is not options else None
        if func is not None:
            self.visit(func, 0)
        index = len(self.facts.scopes)
        self.facts.scopes.append(Scope(component, "class", 0, line))
        self.facts.classes[component] = ClassFacts(index)
        for entry, name in option_entries(options):
            held = entry.child_by_field_name("value") if entry.type == "pair" else None
            if name is None:
                self.visit(entry, 0)
            elif entry.type == "method_definition":
                self.function(entry, index, None, owner=component)
            elif held is not None:
                arrow = held.type == "arrow_function"  # its `this` is not the component
                self.function(held, index, name, None if arrow else component)
        self.facts.exports["default"] = f"def:{component}"
        return True

    def object_class(self, name: str, scope: int, line: int) -> str:
        """Class facts for an object bound to `name`; `name` holds its only instance."""
        qualified = self.qualified(scope, name)
        self.facts.scopes[scope].bind(name, line, f"self:{qualified}")
        index = len(self.facts.scopes)
        self.facts.scopes.append(Scope(qualified, "class", scope, line))
        self.facts.classes[qualified] = ClassFacts(index)
        return qualified

    def object_literal(self, node: Node, scope: int, qualified: str) -> None:
        facts = self.facts.classes[qualified]
        for member in node.named_children:
            if member.type == "method_definition":
                self.function(member, facts.scope, None, owner=qualified)
                continue
            if member.type == "shorthand_property_identifier":
                name = self.text(member)
                facts.attrs.setdefault(name, []).append((scope, f"expr:{name}"))
                continue
            key = member.child_by_field_name("key") if member.type == "pair" else None
            value = member.child_by_field_name("value") if member.type == "pair" else None
            if key is None or value is None or key.type != "property_identifier":
                self.visit(member, scope)
            elif value.type in commonjs.FUNCTION_VALUES:
                # An arrow function's `this` is not the object.
                arrow = value.type == "arrow_function"
                self.function(value, facts.scope, self.text(key), None if arrow else qualified)
            else:
                self.visit(value, scope)
                bound = self.value_of(value, scope)
                facts.attrs.setdefault(self.text(key), []).append((scope, bound))

    def assignment(self, node: Node, scope: int) -> bool:
        """Facts of `left = right`; True when it visited `right` itself."""
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or right is None or left.type != "member_expression":
            return False
        if right.type in commonjs.FUNCTION_VALUES:
            if self.assigned_function(left, right, scope):
                return True
        elif right.type == "object" and self.assigned_object(left, right, scope):
            return True
        obj = left.child_by_field_name("object")
        prop = left.child_by_field_name("property")
        if obj is None or prop is None:
            return False
        target = self.text(obj)
        name = self.text(prop)
        if target == "this":
            owner = self.lookup_local("this", scope)
            cls = self.facts.classes.get(owner[5:]) if owner and owner.startswith("self:") else None
            if cls is not None:
                cls.attrs.setdefault(name, []).append((scope, self.value_of(right, scope)))
            elif owner is None and self.facts.scopes[scope].kind == "function":
                values = self.this_values.setdefault(self.facts.scopes[scope].name, {})
                values.setdefault(name, []).append(self.value_of(right, scope))
        elif scope == 0 and target == "module" and name == "exports":
            value = self.value_of(right, scope)
            self.facts.exports["default"] = value
            if value.startswith("import:"):  # `module.exports = require('./m')` re-exports m
                self.facts.stars.append(value[7:])
        elif scope == 0 and (
            target in ("exports", "module.exports") or target in self.shapes.module_objects
        ):
            self.facts.exports[name] = self.value_of(right, scope)
        return False

    def assigned_function(self, left: Node, right: Node, scope: int) -> bool:
        """`obj.f = function …`, `exports.f = …`, `Foo.prototype.f = …`,
        `module.exports = function f …`; False for other targets (`this.f = …`)."""
        found = commonjs.assigned_name(self.data, left)
        if found is None:
            if not commonjs.is_module_exports(self.data, left):
                return False
            name_node = right.child_by_field_name("name")
            self.function(right, scope, None)
            if scope == 0:
                self.facts.exports["default"] = (
                    f"def:{self.qualified(scope, self.text(name_node))}"
                    if name_node is not None
                    else "expr:?"
                )
            return True
        self.stored_function(right, found, scope)
        return True

    def assigned_object(self, left: Node, right: Node, scope: int) -> bool:
        """`module.exports = {…}` and `Foo.prototype = {…}`: their functions are
        module-level functions and methods of Foo."""
        qualifier = commonjs.literal_owner(self.data, right)
        if qualifier is None:
            return False
        exported = not qualifier and scope == 0
        for member in right.named_children:
            key = member.child_by_field_name("key") if member.type == "pair" else None
            value = member.child_by_field_name("value") if member.type == "pair" else None
            if member.type == "method_definition":
                name_node = member.child_by_field_name("name")
                function: Node | None = member
            elif key is not None and value is not None and value.type in commonjs.FUNCTION_VALUES:
                name_node, function = key, value
            else:
                name_node, function = None, None
            if function is None or name_node is None or name_node.type != "property_identifier":
                if member.type == "shorthand_property_identifier" and exported:
                    self.facts.exports[self.text(member)] = f"expr:{self.text(member)}"
                elif key is not None and exported:
                    self.facts.exports[self.text(key)] = self.value_of(value, scope)
                self.visit(value if value is not None else member, scope)
                continue
            parts = (*qualifier, self.text(name_node))
            self.stored_function(
                function, commonjs.Assigned(parts, bool(qualifier), not qualifier), scope
            )
        return True

    def stored_function(self, node: Node, found: commonjs.Assigned, scope: int) -> None:
        """A function stored in a property: its scope, and where it can be found again —
        as a member of its object or class, or as an export."""
        *qualifier, name = found.parts
        owner, this = self.receiver(qualifier, found.prototype, scope)
        dotted = ".".join(found.parts)
        if node.type == "arrow_function":  # its `this` is the enclosing one
            self.function(node, scope, dotted, bind=False)
        else:
            self.function(node, scope, dotted, owner, bind=False, this=this)
        value = f"def:{self.qualified(scope, dotted)}"
        member_of = owner
        if found.prototype and this is not None:
            member_of = this[5:]
        cls = self.facts.classes.get(member_of) if member_of is not None else None
        if cls is not None:
            cls.attrs.setdefault(name, []).append((scope, value))
        # A member of the object module.exports is set to is an export too.
        of_module = len(qualifier) == 1 and qualifier[0] in self.shapes.module_objects
        if scope == 0 and not found.prototype and (found.exported or of_module):
            self.facts.exports[name] = value

    def receiver(
        self, qualifier: list[str], prototype: bool, scope: int
    ) -> tuple[str | None, str | None]:
        """For a function stored in a property of `qualifier`: the class or object it is
        a member of (when the file defines one), and what `this` is inside it."""
        if not qualifier:
            return None, None
        if len(qualifier) == 1:
            bound = self.lookup_local(qualifier[0], scope)
            if bound is not None and bound.startswith("self:") and not prototype:
                return bound[5:], None
            if bound is not None and bound.startswith("def:") and prototype:
                return None, f"self:{bound[4:]}"
        if prototype:
            return None, None
        return None, f"expr:{'.'.join(qualifier)}"

    def call(self, node: Node, scope: int) -> None:
        func = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        args = node.child_by_field_name("arguments")
        if func is not None and func.type == "super" and args is not None:
            self.super_call(args, scope)
        chain = self.chain(func)
        if chain is not None and chain not in ("require", "import", "?"):
            prop = func.child_by_field_name("property") if func is not None else None
            line = _line(prop or func or node)
            mount = self.mount_args(args, scope) if chain.endswith(".use") else None
            verb = chain.rpartition(".")[2]
            event = verb in EVENT_CALLS or verb in SERVICE_CALLS
            values = self.event_values(args, scope) if event else None
            found = (
                mount
                or self.options_call(chain, args, scope)
                or self.call_args(args, scope, verb in _HTTP_VERB_CALLS)
            )
            decorator = node.parent is not None and node.parent.type == "decorator"
            if found is None and (decorator or verb == "setGlobalPrefix"):
                # NestJS: `@Controller('users')`, `@Get(':id')`, `app.setGlobalPrefix('api')`
                found = [self.nest_path(args, scope), "", "", "", ""]
            self.ref("call", chain, line, scope, found, values)
        spec = self.require_spec(node)
        if spec is not None:
            self.ref("import", spec, _line(node), scope)
        for child in node.named_children:
            self.visit(child, scope)

    def super_call(self, args: Node, scope: int) -> None:
        """Record the paths (string literals holding a `/`) a constructor hands its base."""
        owner = self.lookup_local("this", scope)
        if owner is None or not owner.startswith("self:"):
            return
        paths = [
            text
            for arg in args.named_children
            if arg.type == "string"
            and (text := self.string_pattern(arg, scope)) is not None
            and "/" in text
        ]
        self.super_paths.setdefault(owner[5:], []).extend(paths)

    def nest_path(self, args: Node | None, scope: int) -> str:
        """The first argument of a NestJS decorator or `setGlobalPrefix` when it is a
        string, or the `path` of an options object (`@Controller({ path: 'users' })`)."""
        items = list(args.named_children) if args is not None else []
        first = items[0] if items else None
        if first is not None and first.type == "object":
            for pair in first.named_children:
                key = pair.child_by_field_name("key") if pair.type == "pair" else None
                if key is not None and self.text(key).strip("'\"") == "path":
                    first = pair.child_by_field_name("value")
                    break
            else:
                return ""
        return (self.string_pattern(first, scope) or "") if first is not None else ""

    def call_args(self, args: Node | None, scope: int, verb: bool = False) -> list[str] | None:
        """A call's first two string arguments, its `method:` option and a handler named
        last, when one looks like a URL; for an HTTP verb's call (`http.get('data')`), a
        first argument that is one word will do too (the resolver tells clients)."""
        if args is None or args.type != "arguments":
            return None
        items = list(args.named_children)
        positional = [self.string_pattern(a, scope) or "" for a in items[:2]]
        positional += [""] * (2 - len(positional))
        method = ""
        for item in items[1:]:
            if item.type == "object":
                for pair in item.named_children:
                    key = pair.child_by_field_name("key") if pair.type == "pair" else None
                    val = pair.child_by_field_name("value") if pair.type == "pair" else None
                    if key is not None and val is not None and self.text(key) == "method":
                        method = self.string_pattern(val, scope) or ""
        handler = ""
        if len(items) >= 2 and items[-1].type in ("identifier", "member_expression"):
            handler = self.chain(items[-1]) or ""
        out = [*positional, "", method, handler]
        word = verb and bool(re.fullmatch(r"[\w.{}-]+(?:\?\S*)?", positional[0]))
        if not word and not any(looks_like_url_argument(v) for v in out[:4] if v):
            return None
        return out

    def options_call(self, chain: str, args: Node | None, scope: int) -> list[str] | None:
        """An HTTP client called with an options object holding its URL, `client.post({
        url: '/users', … })`, `axios({ method: 'post', url })`, `__request(OpenAPI, {
        method: 'GET', url: '/users/{id}' })`, jQuery's `$.ajax({ url, type: 'post' })`:
        ["", "", url, method, ""], the only calls whose third slot (`url=` in Python) is
        filled in JS. The callee must be shaped like a client: a verb or `request`
        member call, `axios`, a function named `request`, `$.ajax`; the URL a string
        starting with `/` or `http` (any path for `$.ajax`)."""
        verb = chain.rpartition(".")[2]
        jquery = chain in _JQUERY_AJAX
        client = chain == "axios" or verb in _REQUEST_FUNCTIONS or jquery
        if not client and not ("." in chain and verb in _CLIENT_VERBS):
            return None
        items = list(args.named_children) if args is not None else []
        for item in items[:2]:
            if item.type != "object":
                continue
            found: dict[str, str] = {}
            for pair in item.named_children:
                if pair.type == "shorthand_property_identifier":  # `{ url, method }`
                    bound = self.lookup_local(self.text(pair), scope) or ""
                    found[self.text(pair)] = bound[4:] if bound.startswith("str:") else ""
                    continue
                key = pair.child_by_field_name("key") if pair.type == "pair" else None
                value = pair.child_by_field_name("value") if pair.type == "pair" else None
                if key is not None and value is not None:
                    found[self.text(key).strip(_QUOTES)] = self.string_pattern(value, scope) or ""
            url = found.get("url", "")
            # jQuery's `$.ajax` requests whatever its `url` (`base + "/x/"`), by `type`
            if url.startswith(("/", "http")) or (jquery and "/" in url):
                method = found.get("method") or (found.get("type", "") if jquery else "")
                # axios and Cypress's `cy.request` send a GET when no method is given
                default = "GET" if chain in ("axios", "cy.request") else ""
                return ["", "", url, method or default, ""]
        return None

    def mount_args(self, args: Node | None, scope: int) -> list[str] | None:
        """`app.use('/api', router)`: [prefix, "", "", "", router], the prefix `{}` when
        it is not a string we can read, the router `require:./m` for `require('./m')`."""
        items = list(args.named_children) if args is not None else []
        if not items:
            return None
        prefix, first = "", items[0]
        bound = self.lookup_local(self.text(first), scope) if first.type == "identifier" else None
        # A function first is a middleware, not a path: `app.use(auth, router)`.
        middleware = first.type in _MIDDLEWARE or (bound or "").startswith("def:")
        if len(items) >= 2 and not middleware:
            prefix = self.string_pattern(first, scope) or "{}"
        last = items[-1]
        spec = self.require_spec(last)
        if spec is not None:
            router = f"require:{spec}"
        elif last.type in ("identifier", "member_expression"):
            router = self.chain(last) or ""
        else:
            return None
        return [prefix, "", "", "", router] if router else None

    def event_values(self, args: Node | None, scope: int) -> list[tuple[str, str]] | None:
        """The arguments of an event call as binding values, with the elements of array
        arguments (`0[]`) and the properties of object ones (`0.topic`, `0.topics[]`)."""
        if args is None or args.type != "arguments":
            return None
        out: list[tuple[str, str]] = []
        inner: list[tuple[str, str]] = []
        for position, arg in enumerate(args.named_children):
            if arg.type == "spread_element":
                break  # positions after a spread are unknown
            out.append(("", self.value_of(arg, scope)))
            if arg.type == "array":
                inner += [(f"{position}[]", self.value_of(a, scope)) for a in arg.named_children]
            elif arg.type == "object":
                for pair in arg.named_children:
                    if pair.type == "shorthand_property_identifier":  # `{ topic }`
                        inner.append((f"{position}.{self.text(pair)}", f"expr:{self.text(pair)}"))
                        continue
                    key = pair.child_by_field_name("key") if pair.type == "pair" else None
                    value = pair.child_by_field_name("value") if pair.type == "pair" else None
                    if key is None or value is None:
                        continue
                    slot = f"{position}.{self.text(key).strip(_QUOTES)}"
                    inner.append((slot, self.value_of(value, scope)))
                    if value.type == "array":
                        inner += [
                            (f"{slot}[]", self.value_of(a, scope)) for a in value.named_children
                        ]
        return out + inner if out else None

    def ref(
        self,
        kind: str,
        name: str,
        line: int,
        scope: int,
        args: list[str] | None = None,
        values: list[tuple[str, str]] | None = None,
    ) -> None:
        self.facts.refs.append(Ref(kind, name, line, scope, args, values))


def _exported(extractor: EcmaExtractor, node: Node) -> bool:
    """The node is in what a module exports: `export default …`, `export { … }`,
    `module.exports = …`, `exports.x = …`."""
    current: Node | None = node
    while current is not None and current.parent is not None:
        parent = current.parent
        if parent.type == "export_statement":
            return parent.child_by_field_name("declaration") is None
        if (
            parent.type == "assignment_expression"
            and parent.child_by_field_name("right") == current
        ):
            left = parent.child_by_field_name("left")
            target = extractor.text(left) if left is not None else ""
            return target == "module.exports" or target.startswith(("module.exports.", "exports."))
        current = parent
    return False


def _returns_receiver(extractor: EcmaExtractor, body: Node, receiver: str) -> bool:
    """Whether a function body has `return this` (a fluent method), nested functions
    left out."""
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type in _FUNCTIONS or node.type in _CLASSES:
            continue
        if node.type == "return_statement":
            value = node.named_children[0] if node.named_children else None
            if value is not None and extractor.text(value) == receiver:
                return True
        stack.extend(node.named_children)
    return False


def _pattern_parts(pattern: Node) -> tuple[list[Node], list[Node]]:
    """The names a destructuring pattern binds, and the default values it reads:
    `{ a, b: c, d = D, ...rest }`, `[x, y = Y]`."""
    names: list[Node] = []
    defaults: list[Node] = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        if node.type in ("identifier", "shorthand_property_identifier_pattern"):
            names.append(node)
        elif node.type in ("object_assignment_pattern", "assignment_pattern"):
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            defaults += [right] if right is not None else []
            stack += [left] if left is not None else []
        elif node.type == "pair_pattern":
            value = node.child_by_field_name("value")
            stack += [value] if value is not None else []
        else:
            stack.extend(node.named_children)
    return names, defaults


def _injected(extractor: EcmaExtractor, call: Node) -> str | None:
    """The service Angular's `inject(SearchV2Service)` (or `inject<T>(token)`) gives."""
    func = call.child_by_field_name("function")
    if func is None or extractor.text(func) != "inject":
        return None
    written = call.child_by_field_name("type_arguments")
    if written is not None and written.named_children:
        return extractor.type_chain(written.named_children[0])
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is None or first.type not in ("identifier", "member_expression"):
        return None
    return extractor.chain(first)


def _is_url(extractor: EcmaExtractor, node: Node) -> bool:
    """`new URL(…)`."""
    constructor = node.child_by_field_name("constructor")
    return (
        node.type == "new_expression"
        and constructor is not None
        and extractor.text(constructor) == "URL"
    )


def _line(node: Node) -> int:
    return node.start_point.row + 1
