"""Facts of a Rust file: ``use`` paths, inline modules, structs, traits, ``impl`` blocks.

An inline ``mod`` is a namespace scope; an ``impl`` block is a class scope binding
``Self`` to its type (a trait it implements is a base of that type). ``use`` paths are
written dotted with their relative head kept (``crate.store.Store``, ``super.x``);
``use m::*`` is a star. Smart pointers and references are seen through (``Box<dyn
Shape>`` is a ``Shape``), ``Vec<T>``, slices and maps hold ``[]T`` and ``Option<T>``
and ``Result<T, E>`` are ``?T``; ``if let Some(x) = …`` and ``for x in …`` bind ``x`` to
an element of what they unpack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from codecompass.indexing.extract_typed import TypedExtractor, join
from codecompass.indexing.facts import ClassFacts, FileFacts
from codecompass.indexing.treesitter import Node

_SEQUENCES = frozenset(
    {"Vec", "VecDeque", "HashSet", "BTreeSet", "BinaryHeap", "LinkedList", "IntoIter", "Iter"}
)
_MAPS = frozenset({"HashMap", "BTreeMap", "IndexMap"})
_OPTIONS = frozenset({"Option", "Result"})
# Smart pointers, and the web frameworks' handles on shared state that deref to it
# (actix's `web::Data<AppState>`, axum's `State<AppState>`, `Extension<T>`)
_POINTERS = frozenset(
    {"Box", "Rc", "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Cow", "Pin", "Weak"}
    | {"Data", "State", "Extension"}
)
_WRAPS = frozenset({"Some", "Ok", "Err"})
# Tokens that start a path or field chain inside a macro's arguments.
_MACRO_NAME_HEADS = frozenset({"identifier", "self", "crate", "super"})
# Type expressions whose named children are the types they are made of.
_TYPE_HOLDERS = frozenset(
    {
        "generic_type",
        "type_arguments",
        "reference_type",
        "pointer_type",
        "array_type",
        "slice_type",
        "tuple_type",
        "dynamic_type",
        "abstract_type",
        "bounded_type",
        "ordered_field_declaration_list",
    }
)


class RustExtractor(TypedExtractor):
    language = "rust"
    type_names = frozenset({"type_identifier", "scoped_type_identifier"})
    type_holders = _TYPE_HOLDERS
    builtin_types = frozenset({"Self"})
    string_nodes = frozenset({"string_literal", "raw_string_literal"})
    string_type = "str"
    creations: ClassVar[dict[str, str]] = {"struct_expression": "name"}
    option_aliases: frozenset[str] = frozenset()

    def run(self, root: Node) -> FileFacts:
        self.option_aliases = _option_aliases(root, self.text)
        return super().run(root)

    # -- types ----------------------------------------------------------------------------
    def type_of(self, node: Node | None) -> str:
        if node is None:
            return "?"
        t = node.type
        if t in ("type_identifier", "primitive_type", "identifier"):
            return self.text(node)
        if t == "scoped_type_identifier":
            path = node.child_by_field_name("path")
            name = self.text(node.child_by_field_name("name"))
            head = self.path(path) if path is not None else ""
            return join(head, name) if head != "?" else "?"
        if t == "generic_type":
            base = self.type_of(node.child_by_field_name("type"))
            arguments = node.child_by_field_name("type_arguments")
            listed = [
                c
                for c in (arguments.named_children if arguments is not None else [])
                if c.type not in ("lifetime", "type_binding")
            ]
            short = base.rsplit(".", 1)[-1]
            if short in _SEQUENCES and listed:
                return "[]" + self.type_of(listed[0])
            if short in _MAPS and len(listed) == 2:
                return "[]" + self.type_of(listed[1])
            if listed and (
                short in _OPTIONS or short in self.option_aliases or short.endswith("Result")
            ):
                # `Result<T, E>`, and an alias of it (`type R<T> = Result<T, Error>` here,
                # `RunResult<'a, T>`, `io::Result<T>` anywhere): `?` gives the T.
                return "?" + self.type_of(listed[0])
            if short in _POINTERS and listed:
                return self.type_of(listed[0])
            return base
        if t in ("reference_type", "pointer_type"):
            return self.type_of(node.child_by_field_name("type"))
        if t in ("array_type", "slice_type"):
            return "[]" + self.type_of(node.child_by_field_name("element"))
        if t in ("dynamic_type", "abstract_type"):
            inner = node.child_by_field_name("trait")
            return (
                self.type_of(inner) if inner is not None and inner.type != "function_type" else "?"
            )
        if t == "bounded_type" and node.named_children:
            return self.type_of(node.named_children[0])
        return "?"

    def path(self, node: Node) -> str:
        """A path as a dotted chain: `crate::a::B` → `crate.a.B`, `self::x` → `x`."""
        t = node.type
        if t in ("identifier", "type_identifier", "super", "crate"):
            return self.text(node)
        if t == "self":
            return ""
        if t == "scoped_identifier" or t == "scoped_type_identifier":
            inner = node.child_by_field_name("path")
            head = self.path(inner) if inner is not None else ""
            name = node.child_by_field_name("name")
            return join(head, self.text(name)) if head != "?" else "?"
        if t == "generic_type":
            return self.type_of(node)
        return "?"

    # -- chains ---------------------------------------------------------------------------
    def _chain(self, node: Node) -> str:
        t = node.type
        if t in ("identifier", "self", "type_identifier"):
            return self.text(node)
        if t in ("scoped_identifier", "scoped_type_identifier"):
            return self.path(node) or "?"
        if t == "generic_function":
            function = node.child_by_field_name("function")
            return self._chain(function) if function is not None else "?"
        if t == "field_expression":
            value = node.child_by_field_name("value")
            field = node.child_by_field_name("field")
            head = self._chain(value) if value is not None else "?"
            return f"{head}.{self.text(field)}"
        if t == "call_expression":
            function = node.child_by_field_name("function")
            return (self._chain(function) if function is not None else "?") + "()"
        if t == "try_expression" and node.named_children:
            return self._chain(node.named_children[0]) + "?"
        if t == "index_expression" and node.named_children:
            return self._chain(node.named_children[0]) + "[]"
        if t == "struct_expression":
            written = self.type_of(node.child_by_field_name("name"))
            return "?" if written.startswith(("[]", "?")) else written + "()"
        if t in ("reference_expression", "unary_expression", "parenthesized_expression"):
            inner = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_children else None
            )
            return self._chain(inner) if inner is not None else "?"
        if t == "await_expression" and node.named_children:
            return self._chain(node.named_children[0])
        return "?"

    # -- declarations ---------------------------------------------------------------------
    def visit(self, node: Node, scope: int, prefix: str) -> None:
        """`prefix`: the inline modules (and impl type) definitions here nest under."""
        t = node.type
        if t == "use_declaration":
            argument = node.child_by_field_name("argument")
            if argument is not None:
                self.use(argument, "", node, scope)
        elif t == "extern_crate_declaration":
            # `pub extern crate grep_searcher as searcher;`: ripgrep's `grep` facade.
            name = self.text(node.child_by_field_name("name"))
            alias = node.child_by_field_name("alias")
            self.imported(name, self.text(alias) if alias is not None else name, node, scope)
        elif t == "mod_item":
            body = node.child_by_field_name("body")
            name = self.text(node.child_by_field_name("name"))
            if body is not None and name:
                inner = self.open_scope(join(prefix, name), "namespace", scope, node)
                self.visit_children(body, inner, join(prefix, name))
        elif t in ("struct_item", "union_item", "enum_item"):
            self.struct(node, scope, prefix)
        elif t == "trait_item":
            self.trait(node, scope, prefix)
        elif t == "impl_item":
            self.impl(node, scope, prefix)
        elif t in ("function_item", "function_signature_item"):
            self.function(node, scope, prefix)
        elif t == "let_declaration":
            self.let(node, scope, prefix)
        elif t in ("let_condition", "for_expression"):
            pattern = node.child_by_field_name("pattern")
            value = node.child_by_field_name("value")
            chain = self.chain(value) if value is not None else None
            if pattern is not None and chain and chain != "?":
                self.bind_pattern(pattern, f"elem:{chain}", scope, t == "for_expression")
            self.visit_children(node, scope, prefix)
        elif t == "closure_expression":
            inner = self.open_function("", scope, node, "")
            self.parameters(node.child_by_field_name("parameters"), inner)
            self.visit_children(node, inner, prefix)
        elif t == "call_expression":
            self.call(node, scope, prefix)
        elif t == "macro_invocation":
            for tree in node.named_children:
                if tree.type == "token_tree":
                    self.macro_calls(tree, scope)
        elif t == "match_arm":
            pattern = node.child_by_field_name("pattern")
            if pattern is not None:
                self.bind_unknown(pattern, scope)
            self.visit_children(node, scope, prefix)
        elif t == "struct_expression":
            self.type_refs(node.child_by_field_name("name"), scope)
            self.visit_children(node, scope, prefix)
        else:
            self.visit_children(node, scope, prefix)

    def use(self, node: Node, head: str, statement: Node, scope: int) -> None:
        t = node.type
        if t == "scoped_use_list":
            path = node.child_by_field_name("path")
            inner = join(head, self.use_path(path)) if path is not None else head
            listed = node.child_by_field_name("list")
            for item in listed.named_children if listed is not None else []:
                self.use(item, inner, statement, scope)
        elif t == "use_list":
            for item in node.named_children:
                self.use(item, head, statement, scope)
        elif t == "use_as_clause":
            path = node.child_by_field_name("path")
            alias = self.text(node.child_by_field_name("alias"))
            if path is not None:
                self.imported(join(head, self.use_path(path)), alias, statement, scope)
        elif t == "use_wildcard":
            target = node.named_children[0] if node.named_children else None
            full = join(head, self.use_path(target)) if target is not None else head
            if full:
                self.facts.stars.append(full)
                self.ref("import", f"{full}.*", statement, 0)
        else:
            full = join(head, self.use_path(node))
            if full.endswith(".self"):  # `use a::b::{self}` names the module b
                full = full[:-5]
            self.imported(full, full.rsplit(".", 1)[-1], statement, scope)

    def use_path(self, node: Node) -> str:
        if node.type == "self":
            return "self"
        if node.type == "scoped_identifier":
            inner = node.child_by_field_name("path")
            head = self.use_path(inner) if inner is not None else ""
            return join(head, self.text(node.child_by_field_name("name")))
        return self.text(node).replace("::", ".").lstrip(".")

    def imported(self, full: str, alias: str, statement: Node, scope: int) -> None:
        if not full or full in ("self", "super", "crate"):
            return
        self.ref("import", full, statement, 0)
        if alias and alias != "_":
            self.bind(scope, alias, statement, f"import:{full}")

    def struct(self, node: Node, scope: int, prefix: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        inner, facts = self.open_class(join(prefix, name), scope, node)
        self.type_parameters(node, inner)
        body = node.child_by_field_name("body")
        if body is not None and body.type == "field_declaration_list":
            for field in body.named_children:
                if field.type == "field_declaration":
                    field_name = self.text(field.child_by_field_name("name"))
                    written = self.type_of(field.child_by_field_name("type"))
                    facts.attrs.setdefault(field_name, []).append((inner, f"type:{written}"))
                    self.type_refs(field.child_by_field_name("type"), inner)
        elif body is not None and body.type == "ordered_field_declaration_list":
            self.type_refs(body, inner)  # a tuple struct's `struct Meters(Length);`
        elif body is not None and body.type == "enum_variant_list":
            for variant in body.named_children:
                # `Problem::Missing(…)` is the enum's, not a method some trait of it has.
                variant_name = self.text(variant.child_by_field_name("name"))
                if variant_name:
                    facts.attrs.setdefault(variant_name, []).append(
                        (inner, f"type:{join(prefix, name)}")
                    )
                fields = variant.child_by_field_name("body")
                for field in fields.named_children if fields is not None else []:
                    self.type_refs(field.child_by_field_name("type") or field, inner)

    def trait(self, node: Node, scope: int, prefix: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        if not name:
            return
        qualified = join(prefix, name)
        inner, facts = self.open_class(qualified, scope, node)
        self.bind(inner, "Self", node, f"tparam:{name}")
        bounds = node.child_by_field_name("bounds")
        for bound in bounds.named_children if bounds is not None else []:
            written = self.type_of(bound)
            facts.bases.append(written)
            self.ref("inherit", written, bound, inner)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit_children(body, inner, qualified)

    def impl(self, node: Node, scope: int, prefix: str) -> None:
        written = self.type_of(node.child_by_field_name("type"))
        if written in ("?", "") or written.startswith(("[]", "?")):
            return
        name = written.rsplit(".", 1)[-1]
        qualified = join(prefix, name)
        inner = self.open_scope(qualified, "class", scope, node)
        self.bind(inner, "Self", node, f"tparam:{written}")
        self.type_parameters(node, inner)
        trait = node.child_by_field_name("trait")
        body = node.child_by_field_name("body")
        if trait is not None:
            facts = self.facts.classes.get(qualified)
            if facts is None:
                facts = self.facts.classes[qualified] = ClassFacts(inner)
            facts.bases.append(self.type_of(trait))
            self.ref("inherit", self.type_of(trait), trait, inner)
            if self.type_of(trait).rsplit(".", 1)[-1] in ("Deref", "DerefMut"):
                # `type Target = Token`: a `Name` derefs to a `Token`, and the methods
                # Name lacks are Token's (`name.lexeme()`), found as a base's are.
                for item in body.named_children if body is not None else []:
                    if (
                        item.type == "type_item"
                        and self.text(item.child_by_field_name("name")) == "Target"
                    ):
                        facts.bases.insert(0, self.type_of(item.child_by_field_name("type")))
        if body is not None:
            self.visit_children(body, inner, qualified)

    def type_parameters(self, node: Node, scope: int) -> None:
        bounds: dict[str, str] = {}
        for child in node.named_children:
            if child.type == "where_clause":
                for predicate in child.named_children:
                    left = predicate.child_by_field_name("left")
                    found = predicate.child_by_field_name("bounds")
                    if left is not None and found is not None and found.named_children:
                        bounds[self.text(left)] = self.type_of(found.named_children[0])
        parameters = node.child_by_field_name("type_parameters")
        for parameter in parameters.named_children if parameters is not None else []:
            if parameter.type != "type_parameter":
                continue
            name = self.text(parameter.child_by_field_name("name"))
            found = parameter.child_by_field_name("bounds")
            bound = bounds.get(name, "?")
            if found is not None and found.named_children:
                bound = self.type_of(found.named_children[0])
            self.bind(scope, name, parameter, f"tparam:{bound}")

    def function(self, node: Node, scope: int, prefix: str) -> None:
        name = self.text(node.child_by_field_name("name"))
        returns = node.child_by_field_name("return_type")
        qualified = join(prefix, name)
        inner = self.open_function(qualified, scope, node, self.type_of(returns) if returns else "")
        self.type_parameters(node, inner)
        parameters = node.child_by_field_name("parameters")
        self.parameters(parameters, inner)
        for parameter in parameters.named_children if parameters is not None else []:
            self.type_refs(parameter.child_by_field_name("type"), inner)
        self.type_refs(returns, inner)
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit_children(body, inner, qualified)

    def parameters(self, node: Node | None, scope: int) -> None:
        if node is None:
            return
        for parameter in node.named_children:
            if parameter.type == "self_parameter":
                self.bind(scope, "self", parameter, "type:Self")
                continue
            pattern = parameter.child_by_field_name("pattern")
            if parameter.type == "identifier":
                pattern = parameter
            declared = parameter.child_by_field_name("type")
            if pattern is not None and pattern.type == "identifier" and declared is not None:
                self.bind(scope, self.text(pattern), pattern, f"type:{self.type_of(declared)}")
            elif pattern is not None and declared is None:  # a closure's `|name|`
                self.bind_unknown(pattern, scope)

    # -- statements -----------------------------------------------------------------------
    def let(self, node: Node, scope: int, prefix: str) -> None:
        pattern = node.child_by_field_name("pattern")
        declared = node.child_by_field_name("type")
        value = node.child_by_field_name("value")
        if pattern is not None and pattern.type == "mut_pattern" and pattern.named_children:
            pattern = pattern.named_children[0]
        self.type_refs(declared, scope)
        if pattern is not None and pattern.type == "identifier":
            bound = f"type:{self.type_of(declared)}" if declared else self.value_of(value)
            self.bind_after(scope, self.text(pattern), node, bound)
            if value is not None and value.type in ("identifier", "scoped_identifier"):
                self.value_ref(self.chain(value), value, scope)
        elif pattern is not None and value is not None:
            chain = self.chain(value)
            if chain and chain != "?":
                self.bind_pattern(pattern, f"elem:{chain}", scope, False)
        self.visit_children(node, scope, prefix)

    def bind_unknown(self, pattern: Node, scope: int) -> None:
        """The names a pattern binds with no type written (a `match` arm's, a closure's):
        they shadow the items so named. `just` names its locals after its modules, and
        `|name| name.lexeme()` had been read as a call into the module `name.rs`."""
        t = pattern.type
        if t == "identifier":
            if not self.text(pattern)[:1].isupper():  # `None`, `Empty`: variants
                self.bind(scope, self.text(pattern), pattern, "expr:?")
            return
        if t in ("scoped_identifier", "type_identifier", "field_identifier"):
            return
        skipped = (pattern.child_by_field_name("type"), pattern.child_by_field_name("condition"))
        for child in pattern.named_children:
            if child not in skipped:
                self.bind_unknown(child, scope)

    def bind_pattern(self, pattern: Node, value: str, scope: int, loop: bool) -> None:
        """`x` in `for x in …`, `Some(x)` / `Ok(x)` in `if let`, `let Some(x) = …`."""
        if pattern.type == "identifier" and loop:
            self.bind(scope, self.text(pattern), pattern, value)
        elif pattern.type == "tuple_struct_pattern":
            head = pattern.child_by_field_name("type")
            inner = [c for c in pattern.named_children if c != head]
            wrapped = head is not None and self.text(head) in _WRAPS and len(inner) == 1
            if wrapped and inner[0].type == "identifier":
                self.bind(scope, self.text(inner[0]), inner[0], value)
        elif pattern.type == "reference_pattern" and pattern.named_children:
            self.bind_pattern(pattern.named_children[0], value, scope, loop)

    def macro_calls(self, tree: Node, scope: int) -> None:
        """Calls written inside a macro's arguments (`format!("{}", t.lexeme())`,
        `write!(f, …)`, `assert_eq!`, `vec![…]`), which the grammar leaves as tokens: a
        path or field chain followed by `(…)`, in nested token trees too."""
        tokens = tree.children
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if token.type == "token_tree":
                self.macro_calls(token, scope)
            if token.type not in _MACRO_NAME_HEADS:
                i += 1
                continue
            parts, j = [self.text(token)], i + 1
            while (
                j + 1 < len(tokens)
                and tokens[j].type in (".", "::")
                and tokens[j + 1].type == "identifier"
            ):
                parts.append(self.text(tokens[j + 1]))
                j += 2
            called = j < len(tokens) and tokens[j].type == "token_tree"
            if called and tokens[j].children[0].type == "(" and parts[-1] != "self":
                if parts[0] == "self" and tokens[i + 1].type == "::":
                    parts = parts[1:]  # `self::helper(…)`, as `path` writes it
                self.ref("call", ".".join(parts), tokens[j - 1], scope)
            i = j

    def call(self, node: Node, scope: int, prefix: str) -> None:
        function = node.child_by_field_name("function")
        if function is not None:
            at = function.child_by_field_name("field") or function.child_by_field_name("name")
            chain = self.chain(function)
            if chain and chain != "?":
                self.ref("call", chain, at or node, scope)
        arguments = node.child_by_field_name("arguments")
        for argument in arguments.named_children if arguments is not None else []:
            if argument.type in ("identifier", "scoped_identifier"):
                self.value_ref(self.chain(argument), argument, scope)
        self.visit_children(node, scope, prefix)


def _option_aliases(root: Node, text: Callable[[Node], str]) -> frozenset[str]:
    """Generic aliases of `Option` or `Result` the file's modules define (`type R<T> =
    Result<T, String>`), to unwrap as those (not a trait's or an impl's associated types)."""
    found: set[str] = set()
    bodies = [root]
    while bodies:
        for item in bodies.pop().named_children:
            body = item.child_by_field_name("body") if item.type == "mod_item" else None
            if body is not None:
                bodies.append(body)
            name = item.child_by_field_name("name")
            value = item.child_by_field_name("type")
            if (
                item.type != "type_item"
                or item.child_by_field_name("type_parameters") is None
                or name is None
                or value is None
                or value.type != "generic_type"
            ):
                continue
            base = value.child_by_field_name("type")
            if base is not None and text(base).rsplit("::", 1)[-1] in _OPTIONS:
                found.add(text(name))
    return frozenset(found)
