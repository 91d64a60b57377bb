"""Facts of a Python file, read from its tree-sitter tree.

Scopes follow Python: modules, classes and functions open a scope (lambdas and
comprehensions too, so their parameters shadow outer names); blocks (`if`, `try`,
`with`, loops) do not. Bindings record every way a name gets a value that resolution can
use: definitions (through their decorators), imports, assignments (chained, tuple and
starred ones too), parameters and their defaults, `with … as`, loop variables, the first
parameter of a method, what a function returns or yields, and the elements of list,
tuple, set and dict literals. Instance attributes (`self.x = …`) are recorded on the
class; the arguments of a call are kept when one of them can hold code.
"""

from __future__ import annotations

import re

from codecompass.indexing.facts import (
    CONSTANT_NAME,
    EVENT_CALLS,
    ClassFacts,
    FileFacts,
    FunctionFacts,
    Reads,
    Ref,
    Scope,
    add_module_values,
    binding_scope,
    written,
)
from codecompass.indexing.treesitter import Node

MAX_CHAIN = 200
# Generic containers whose first type argument is what iterating them gives.
_ITERABLES = frozenset(
    {"list", "List", "set", "Set", "frozenset", "FrozenSet", "tuple", "Tuple", "deque"}
    | {"Sequence", "MutableSequence", "Iterable", "Iterator", "Collection", "AbstractSet"}
    | {"MutableSet", "Generator", "AsyncIterator", "AsyncIterable", "KeysView", "Deque"}
)
_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")
# The literal head of a method name built at run time: `visit_`, `_print_`, `do_`,
# `handle` (not `_` or `__` alone: every private or special method would match).
_DISPATCH_PREFIX = re.compile(r"_*[A-Za-z]\w*")
# Annotations of a name whose string default is its value: `str`, `Final[str]`, …
_STR_ANNOTATION = re.compile(r"(?:typing\.)?(?:(?:Final|ClassVar)\[\s*str\s*\]|Final)|str")
_HTTP_WORDS = frozenset(
    {"get", "post", "put", "patch", "delete", "head", "options", "GET", "POST", "PUT"}
    | {"PATCH", "DELETE", "HEAD", "OPTIONS"}
)
# Expressions whose value is a builtin object: calls on it never reach the workspace.
_LITERALS = {
    "list": "list",
    "list_comprehension": "list",
    "dictionary": "dict",
    "dictionary_comprehension": "dict",
    "set": "set",
    "set_comprehension": "set",
    "tuple": "tuple",
    "integer": "int",
    "float": "float",
    "true": "bool",
    "false": "bool",
    "none": "None",
    "concatenated_string": "str",
    "binary_operator": "object",
}
# Decorators that hand the definition back (or make a descriptor of it): the name keeps
# the definition itself.
_TRANSPARENT_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "property", "cached_property", "setter", "getter"}
    | {"deleter", "abstractmethod", "override", "overload", "final", "wraps", "lru_cache"}
    | {"cache", "total_ordering", "dataclass", "contextmanager", "asynccontextmanager"}
)
# A container reached by literal keys from a name: `d`, `d['a']`, `d['a'][0]`.
_CONTAINER_CHAIN = re.compile(r"[A-Za-z_]\w*(?:\[[^\[\]]+\])*")
_KEY = re.compile(r"[\w.-]{0,40}")
_ADDERS = frozenset({"append", "add", "insert", "extend", "update", "setdefault"})
_CONTAINERS = frozenset({"list", "tuple", "set", "dictionary"})
_PATTERNS = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list"})
_COMPREHENSIONS = frozenset(
    {"list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"}
)


def looks_like_url_argument(value: str) -> bool:
    return "/" in value or value in _HTTP_WORDS


# Django's calls that name a route (`reverse("hc-details")`, `redirect("hc-details")`).
URL_NAME_CALLS = frozenset({"reverse", "reverse_lazy", "redirect", "resolve_url"})
# Django's shortcuts that query a model (or a queryset) given first: the manager
# method each runs.
_DJANGO_SHORTCUTS = {
    "get_object_or_404": "get",
    "aget_object_or_404": "get",
    "get_list_or_404": "filter",
    "aget_list_or_404": "filter",
}


def _is_argument(node: Node) -> bool:
    """The node is an argument of a call, positional or keyword (a callback handed on)."""
    parent = node.parent
    if parent is not None and parent.type == "keyword_argument":
        return parent.child_by_field_name("value") == node
    return parent is not None and parent.type == "argument_list"


# Where a name is written, bound or called, not read (`facts.written`): a parent node's
# type → its fields holding the name, "" for any child. Parameters, targets, keyword
# names, captures.
_NOT_READ: dict[str, tuple[str, ...]] = {
    "keyword_argument": ("name",),
    "assignment": ("left",),
    "augmented_assignment": ("left",),
    "for_statement": ("left",),
    "for_in_clause": ("left",),
    "named_expression": ("name",),
    "call": ("function",),  # called: a call ref names it
    # The attribute's name is part of a chain (`read` and the call refs see chains); its
    # object is read (`PERMISSIONS.create`, `_HOSTNAME.match(host)`).
    "attribute": ("attribute",),
    "raise_statement": ("",),  # `raise Error`: a call ref names it
    "as_pattern_target": ("",),
    "global_statement": ("",),
    "nonlocal_statement": ("",),
    "lambda_parameters": ("",),
    "parameters": ("",),
    "default_parameter": ("name",),
    "typed_parameter": ("",),
    "typed_default_parameter": ("name",),
    "list_splat_pattern": ("",),
    "dictionary_splat_pattern": ("",),
    "keyword_pattern": ("",),
    "case_pattern": ("",),
    "pattern_list": ("",),
    "tuple_pattern": ("",),
    "list_pattern": ("",),
}


class PythonExtractor:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.properties: frozenset[str] = frozenset()  # the file's own (`run`)
        self.facts = FileFacts("python", scopes=[Scope("", "module", -1, 0)])
        self.reads = Reads(self.facts.scopes)  # names read, not called

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def run(self, root: Node) -> FileFacts:
        text = self.data.decode("utf-8", "replace")
        self.properties = frozenset(m.group(1) for m in _PROPERTY.finditer(text))
        for child in root.named_children:
            self.visit(child, 0)
        add_module_values(self.facts, self.reads)
        return self.facts

    def name_read(self, node: Node, scope: int) -> None:
        """Note a name this scope reads (not writes, binds or calls), for
        `add_module_values`."""
        if not written(node, _NOT_READ):
            self.reads.note(scope, self.text(node), _line(node))

    def read(self, node: Node, scope: int) -> None:
        """An attribute read, not called, that may run a property: `self.root` (or any
        receiver's, when this file defines a property of that name). marshmallow's
        `Field.root`, read as `self.root.opts`, had no caller."""
        parent = node.parent
        if parent is not None and parent.child_by_field_name("function") == node:
            return  # called: a call ref names it
        chain = self.chain(node)
        if chain is None or "?" in chain:
            return
        head, _, name = chain.rpartition(".")
        if head in ("self", "cls") or name in self.properties or self.typed(head, scope):
            self.ref("read", chain, _line(node), scope)
        # `settings.DEFAULT_LIMIT`, `sorted(items, key=utils.by_name)`: a module's constant
        # or function, read through the module (`add_module_values` keeps imported heads).
        if "." not in head and (CONSTANT_NAME.fullmatch(name) or _is_argument(node)):
            self.reads.note(scope, chain, _line(node))

    def typed(self, receiver: str, scope: int) -> bool:
        """Whether a receiver's first name holds a value whose class resolution may
        know: annotated (`s: Selectable`), narrowed, or set from an expression
        (`for selectable in query.selectables`). A property another file defines is read
        through such names (sqlfluff's `selectable.select_info` had no caller)."""
        root = receiver.split(".", 1)[0].split("[", 1)[0]
        at = binding_scope(self.facts.scopes, scope, root)
        if at < 0:
            return False
        value = self.facts.scopes[at].bindings[root][-1][1]
        return value.startswith(("type:", "narrow:")) or (
            value.startswith("expr:") and value != "expr:?"
        )

    # -- chains ---------------------------------------------------------------------
    def chain(self, node: Node | None) -> str | None:
        if node is None:
            return None
        out = self._chain(node)
        if out is None or len(out) > MAX_CHAIN:
            return None
        return out

    def _chain(self, node: Node) -> str | None:
        t = node.type
        if t == "identifier":
            return self.text(node)
        if t == "attribute":
            obj_node = node.child_by_field_name("object")
            obj = (self._chain(obj_node) if obj_node is not None else None) or "?"
            attr = node.child_by_field_name("attribute")
            return f"{obj}.{self.text(attr)}" if attr is not None else None
        if t == "call":
            func = node.child_by_field_name("function")
            inner = self._chain(func) if func is not None else None
            shortcut = _DJANGO_SHORTCUTS.get((inner or "").rpartition(".")[2])
            if shortcut:
                return self._django_shortcut(node, shortcut) or f"{inner}()"
            return f"{inner or '?'}()"
        if t == "subscript":
            value = node.child_by_field_name("value")
            inner = self._chain(value) if value is not None else None
            index = node.child_by_field_name("subscript")
            if index is not None and index.type == "slice":
                return "?"  # a slice: a new list, its elements shifted
            return f"{inner or '?'}[{self.key(index)}]"
        if t == "await" and node.named_children:
            return self._chain(node.named_children[0])
        return "?"

    def _django_shortcut(self, call: Node, method: str) -> str | None:
        """`get_object_or_404(Check, …)` as `Check.objects.get()`, of a queryset
        (`get_object_or_404(Check.objects.filter(…), …)`) as `….get()`;
        `get_list_or_404` as `filter()`."""
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is None or first.type not in ("identifier", "attribute", "call"):
            return None
        model = self._chain(first)
        if not model or model == "?":
            return None
        if first.type != "call" and model.rpartition(".")[2][:1].isupper():
            model += ".objects"  # the model class: its default manager
        return f"{model}.{method}()"

    def key(self, node: Node | None) -> str:
        """A subscript or dict key as chains write it: `'name` for a string, digits for
        an integer, "" when not a literal (or an unwieldy one)."""
        if node is None:
            return ""
        if node.type == "integer":
            text = self.text(node)
            return text if text.isdigit() and len(text) <= 12 else ""
        if node.type == "string" and not any(c.type == "interpolation" for c in node.children):
            text = "".join(self.text(c) for c in node.named_children if c.type == "string_content")
            return "'" + text if _KEY.fullmatch(text) else ""
        return ""

    def value_of(self, node: Node | None, scope: int) -> str:
        """The binding value an expression gives a name."""
        if node is None:
            return "expr:?"
        if node.type in ("string", "concatenated_string"):
            pattern = self.string_pattern(node, scope)
            return f"str:{pattern}" if pattern is not None else "expr:?"
        if node.type == "binary_operator":  # BASE + "/api": a string when a side is one
            pattern = self.string_pattern(node, scope)
            if pattern is not None:
                return f"str:{pattern}"
        if node.type in ("identifier", "attribute", "call", "subscript", "await"):
            chain = self.chain(node)
            if chain is not None:
                return f"expr:{chain}"
        if node.type in _LITERALS:
            return f"lit:{_LITERALS[node.type]}"
        return "expr:?"

    def bind_value(
        self, name: str, node: Node | None, scope: int, line: int, key: str = ""
    ) -> None:
        """Bind `name` to each value `node` may have; a container literal also binds its
        elements to `name[]`. An element of a container is bound with its `key`
        (`key:K:value`); a nested container is named after its key, `d['a']`."""
        target = self.facts.scopes[scope]
        tag = f"key:{key}:" if key else ""
        for part in _alternatives(node):
            if part is not None and part.type in _CONTAINERS:
                inner = f"{name.removesuffix('[]')}[{key}]" if name.endswith("[]") else name
                target.bind(name, line, f"{tag}cont:{inner}")
                self.bind_elements(f"{inner}[]", part, scope, line)
            else:
                target.bind(name, line, tag + self.value_of(part, scope))

    def bind_elements(self, pseudo: str, node: Node, scope: int, line: int) -> None:
        """Elements of a container literal, each tagged with its key or position (a
        dict's literal keys, a list's or tuple's indexes; none after a splat)."""
        position: int | None = 0
        for element in node.named_children:
            if element.type == "comment":
                continue
            if element.type in ("list_splat", "dictionary_splat"):
                position = None
                continue
            key = str(position) if position is not None and node.type != "set" else ""
            if element.type == "pair":
                key = self.key(element.child_by_field_name("key"))
                element = element.child_by_field_name("value") or element
            self.bind_value(pseudo, element, scope, line, key)
            if position is not None:
                position += 1

    def owner_scope(self, name: str, scope: int) -> int:
        """The scope where `name` is bound, seen from `scope` (its own when unbound)."""
        index = scope
        while index >= 0:
            s = self.facts.scopes[index]
            if name in s.bindings:
                return index
            index = s.parent
        return scope

    def string_pattern(self, node: Node, scope: int, chains: bool = False) -> str | None:
        """A string literal's text, `{}` standing for each f-string interpolation; with
        `chains`, `{=C}` for one that is a dotted name `C` (resolution may read it:
        `f"{settings.API_PREFIX}/users"`, `settings.API_PREFIX + "/users"`)."""
        if node.type == "concatenated_string":
            parts = [self.string_pattern(c, scope, chains) for c in node.named_children]
            return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
        if node.type == "binary_operator":  # BASE + "/users"
            operator = node.child_by_field_name("operator")
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if operator is None or operator.type != "+" or left is None or right is None:
                return None
            head = self.string_pattern(left, scope, chains)
            tail = self.string_pattern(right, scope, chains)
            if head is None and tail is None:
                return None
            if chains:
                head = head if head is not None else self.named_part(left)
                tail = tail if tail is not None else self.named_part(right)
            return (head if head is not None else "{}") + (tail if tail is not None else "{}")
        if node.type == "identifier":
            found = self.lookup_local(self.text(node), scope)
            return found[4:] if found is not None and found.startswith("str:") else None
        if node.type != "string":
            return None
        out: list[str] = []
        for child in node.named_children:
            if child.type == "string_content":
                out.append(self.text(child))
            elif child.type == "interpolation":
                expr = child.child_by_field_name("expression")
                named = expr is not None and expr.type == "identifier"
                known = self.lookup_local(self.text(expr), scope) if named and expr else None
                if known is not None and known.startswith("str:"):
                    out.append(known[4:])
                elif chains and expr is not None:
                    out.append(self.named_part(expr) or "{}")
                else:
                    out.append("{}")
        return "".join(out)[:300]

    def named_part(self, node: Node) -> str | None:
        """`{=C}` for a part of a string that is a dotted name `C`, else None."""
        if node.type not in ("identifier", "attribute"):
            return None
        chain = self.chain(node)
        return f"{{={chain}}}" if chain is not None and _DOTTED.fullmatch(chain) else None

    def lookup_local(self, name: str, scope: int) -> str | None:
        """The latest value bound to `name` so far in `scope` or an enclosing one."""
        index = scope
        while index >= 0:
            s = self.facts.scopes[index]
            found = s.bindings.get(name)
            if found:
                return found[-1][1]
            index = s.parent
        return None

    # -- statements and expressions -----------------------------------------------------
    def visit(self, node: Node, scope: int) -> None:
        t = node.type
        if t == "identifier":
            self.name_read(node, scope)
            return
        if t == "decorated_definition":
            definition = node.child_by_field_name("definition")
            decorators = [c for c in node.named_children if c.type == "decorator"]
            if definition is not None:
                self.definition(definition, scope, decorators)
            return
        if t in ("function_definition", "class_definition"):
            self.definition(node, scope, [])
            return
        if t == "import_statement":
            self.import_statement(node, scope)
            return
        if t == "import_from_statement":
            self.import_from(node, scope)
            return
        if t == "future_import_statement":
            return
        if t == "assignment":
            self.assignment(node, scope)
            return
        if t == "call":
            self.call(node, scope)
            return
        if t == "raise_statement" and node.named_children:
            raised = node.named_children[0]
            if raised.type in ("identifier", "attribute"):  # `raise Error` instantiates it
                chain = self.chain(raised)
                if chain is not None and chain != "?":
                    self.ref("call", chain, _line(raised), scope)
        if t == "attribute":
            self.read(node, scope)
        if t == "with_item":
            self.with_item(node, scope)
            return
        if t in ("if_statement", "elif_clause"):
            self.narrow(node, scope)
        if t == "lambda" or t in _COMPREHENSIONS:
            scope = self.pseudo_scope(node, scope)
        if t == "for_statement" or t == "for_in_clause":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            chain = self.chain(right) if right is not None else None
            if chain is not None and chain != "?" and right is not None:
                self.ref("iterate", chain, _line(right), scope)
            if left is not None:
                element = f"expr:{chain}[]" if chain is not None and chain != "?" else "expr:?"
                self.bind_targets(left, scope, element)
        if t == "named_expression":
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is not None:
                self.facts.scopes[scope].bind(
                    self.text(name), _line(node), self.value_of(value, scope)
                )
        if t == "except_clause":
            self.caught(node.child_by_field_name("value"), scope)
            for child in node.named_children:
                if child.type == "as_pattern":
                    alias = child.child_by_field_name("alias")
                    if alias is not None:
                        self.bind_targets(alias, scope, "expr:?")
        for child in node.named_children:
            self.visit(child, scope)

    def caught(self, value: Node | None, scope: int) -> None:
        """`except (ValueError, errors.InvalidURL) as e:` catches each class named."""
        if value is not None and value.type == "as_pattern":
            value = value.named_children[0] if value.named_children else None
        if value is None:
            return
        for kind in value.named_children if value.type == "tuple" else [value]:
            chain = self.chain(kind) if kind.type in ("identifier", "attribute") else None
            if chain is not None and chain != "?":
                self.ref("catch", chain, _line(kind), scope)

    def narrow(self, node: Node, scope: int) -> None:
        """`if isinstance(x, C):` binds `x` to a C in its branch (`narrow:C`; a tuple of
        classes, to each), and back to what it held after it. After `if not
        isinstance(x, C):` ending in a raise, return, continue or break, the rest of the
        block sees a C. Only for a name of this scope."""
        condition = node.child_by_field_name("condition")
        body = node.child_by_field_name("consequence")
        if condition is None or body is None:
            return
        negated = condition.type == "not_operator"
        test = condition.child_by_field_name("argument") if negated else condition
        found = self.isinstance_test(test)
        own = self.facts.scopes[scope]
        if found is None or found[0] not in own.bindings:
            return
        name, classes = found
        if negated:
            last = body.named_children[-1] if body.named_children else None
            if last is not None and last.type in _LEAVES_BLOCK:
                for chain in classes:
                    own.bind(name, node.end_point[0] + 2, f"narrow:{chain}")
            return
        start = _line(node)
        held_at = max((line for line, _ in own.bindings[name] if line <= start), default=None)
        held = [value for line, value in own.bindings[name] if line == held_at]
        for chain in classes:
            own.bind(name, _line(body), f"narrow:{chain}")
        for value in held:  # what it held before, again after the branch
            own.bind(name, body.end_point[0] + 2, value)

    def isinstance_test(self, test: Node | None) -> tuple[str, list[str]] | None:
        """`isinstance(x, C)` or `isinstance(x, (C, D))`: x and the classes' chains."""
        if test is None or test.type != "call":
            return None
        function = test.child_by_field_name("function")
        args = test.child_by_field_name("arguments")
        if function is None or self.text(function) != "isinstance" or args is None:
            return None
        given = [a for a in args.named_children if a.type != "comment"]
        if len(given) != 2 or given[0].type != "identifier":
            return None
        kinds = given[1].named_children if given[1].type == "tuple" else [given[1]]
        chains = [self.chain(k) for k in kinds if k.type in ("identifier", "attribute")]
        classes = [c for c in chains if c and c != "?"]
        if not classes or len(classes) != len(kinds):
            return None
        return self.text(given[0]), classes

    def pseudo_scope(self, node: Node, scope: int) -> int:
        """A scope for a lambda or comprehension: it is not a symbol, but names bound in
        it (parameters, loop variables) must not be looked up outside."""
        parent = self.facts.scopes[scope]
        index = len(self.facts.scopes)
        self.facts.scopes.append(Scope(parent.name, "function", scope, _line(node)))
        if node.type == "lambda":
            params = node.child_by_field_name("parameters")
            for child in params.named_children if params is not None else []:
                name = _param_name(child)
                if name is not None:
                    self.facts.scopes[index].bind(self.text(name), _line(child), "expr:?")
        return index

    def bind_targets(self, node: Node, scope: int, value: str) -> None:
        if node.type == "identifier":
            self.facts.scopes[scope].bind(self.text(node), _line(node), value)
            return
        for child in node.named_children:
            if child.type in (
                "identifier",
                "pattern_list",
                "tuple_pattern",
                "list_pattern",
                "as_pattern_target",
                "tuple",
                "list",
                "list_splat_pattern",
            ):
                self.bind_targets(child, scope, "expr:?" if child.type != "identifier" else value)

    def definition(self, node: Node, scope: int, decorators: list[Node]) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = self.text(name_node)
        parent = self.facts.scopes[scope]
        qualified = f"{parent.name}.{name}" if parent.name else name
        line = _line(node)
        is_class = node.type == "class_definition"
        index = len(self.facts.scopes)
        self.facts.scopes.append(Scope(qualified, "class" if is_class else "function", scope, line))
        decorator_chains: list[tuple[str, int]] = []
        for decorator in decorators:
            expr = decorator.named_children[0] if decorator.named_children else None
            if expr is None:
                continue
            if expr.type == "call":
                self.call(expr, scope)
                inner = self.chain(expr.child_by_field_name("function"))
                chain = f"{inner}()" if inner is not None and inner != "?" else None
            else:
                chain = self.chain(expr)
                self.visit_children_except(expr, scope)
            if chain is not None and chain != "?":
                decorator_chains.append((chain, _line(decorator)))
        # Applying a decorator calls it with what the decorators below it returned.
        for n, (chain, decorator_line) in enumerate(decorator_chains):
            below = [c for c, _ in decorator_chains[n + 1 :]]
            argument = "wrap:" + "|".join([qualified, *below]) if below else f"def:{qualified}"
            self.ref("decorate", chain, decorator_line, scope, None, [("", argument)])
        applied = [
            c
            for c, _ in decorator_chains
            if c.split(".")[-1].rstrip("()") not in _TRANSPARENT_DECORATORS
        ]
        # A class decorator hands the class back (registries, dataclasses, reprs): the
        # name keeps the class.
        if applied and parent.kind != "class" and not is_class:
            parent.bind(name, line, "wrap:" + "|".join([qualified, *applied]))
        else:
            parent.bind(name, line, f"def:{qualified}")
        chains = [c for c, _ in decorator_chains]
        if is_class:
            self.class_body(node, qualified, scope, index)
        else:
            self.function(node, qualified, scope, index, chains, parent.kind == "class")

    def visit_children_except(self, node: Node, scope: int) -> None:
        for child in node.named_children:
            if child.type in ("call", "lambda"):
                self.visit(child, scope)

    def class_body(self, node: Node, qualified: str, scope: int, index: int) -> None:
        facts = ClassFacts(index)
        self.facts.classes[qualified] = facts
        bases = node.child_by_field_name("superclasses")
        for arg in bases.named_children if bases is not None else []:
            if arg.type == "keyword_argument":
                value = arg.child_by_field_name("value")
                if value is not None:
                    self.visit(value, scope)
                continue
            # `AuthProvider[CredentialsRequest]` extends `AuthProvider`
            generic = arg.child_by_field_name("value") if arg.type == "subscript" else None
            chain = self.chain(generic or arg)
            if chain is not None and chain != "?":
                facts.bases.append(chain)
                self.ref("inherit", chain, _line(arg), scope)
            if arg.type in ("call", "subscript"):
                self.visit(arg, scope)
        body = node.child_by_field_name("body")
        for child in body.named_children if body is not None else []:
            self.visit(child, index)

    def function(
        self,
        node: Node,
        qualified: str,
        scope: int,
        index: int,
        decorators: list[str],
        is_method: bool,
    ) -> None:
        facts = FunctionFacts(index, decorators=decorators)
        self.facts.functions[qualified] = facts
        own = self.facts.scopes[index]
        params = node.child_by_field_name("parameters")
        first = True
        static = any(d.split(".")[-1] == "staticmethod" for d in decorators)
        classmethod_ = any(d.split(".")[-1] == "classmethod" for d in decorators)
        owner = self.facts.scopes[scope].name
        for param in params.named_children if params is not None else []:
            name_node = _param_name(param)
            if name_node is None:
                continue
            pname = self.text(name_node)
            star = {"list_splat_pattern": "*", "dictionary_splat_pattern": "**"}.get(param.type, "")
            facts.params.append(star + pname)
            annotation = param.child_by_field_name("type")
            default = param.child_by_field_name("value")
            if default is not None:
                self.visit(default, scope)
                if annotation is None and default.type in ("identifier", "attribute"):
                    # `def f(callback=handler)`: the default, unless a caller passes another
                    own.bind(pname, _line(param), self.value_of(default, scope))
            value = "expr:?"
            if annotation is not None:
                chain = self.annotation(annotation, scope)
                if chain:
                    value = f"type:{chain}"
            if (
                first
                and is_method
                and not static
                and param.type in ("identifier", "typed_parameter")
            ):
                if pname == "cls" or classmethod_:
                    value = f"cls:{owner}"
                elif value == "expr:?":
                    value = f"self:{owner}"
            first = False
            if annotation is not None and value.startswith("type:") and not star:
                self.bind_annotated(index, pname, _line(param), annotation, value[5:])
            else:
                own.bind(pname, _line(param), value)
        returns = node.child_by_field_name("return_type")
        if returns is not None:
            facts.returns = self.annotation(returns, scope) or ""
        body = node.child_by_field_name("body")
        for child in body.named_children if body is not None else []:
            self.visit(child, index)
        if body is not None:
            self.results(body, index)
        returned = [v for _, v in own.bindings.get("<return>", [])]
        if is_method and not facts.returns and "expr:self" in returned:
            facts.returns = "Self"  # a fluent method

    def results(self, body: Node, scope: int) -> None:
        """Bind `<return>` and `<yield>` to what the function returns and yields (nested
        definitions left out), once the body's own names are bound."""
        stack = list(reversed(body.named_children))
        while stack:
            node = stack.pop()
            if node.type in ("function_definition", "class_definition", "lambda"):
                continue
            if node.type in ("return_statement", "yield"):
                value = node.named_children[0] if node.named_children else None
                if value is not None and value.type != "expression_list":
                    pseudo = "<return>" if node.type == "return_statement" else "<yield>"
                    self.bind_value(pseudo, value, scope, _line(node))
            stack.extend(reversed(node.named_children))

    def annotation(self, node: Node, scope: int) -> str | None:
        """Record type references inside an annotation; return its main type as a chain."""
        for chain, line in self.type_names(node):
            self.ref("type", chain, line, scope)
        return self.main_type(node)

    def type_names(self, node: Node) -> list[tuple[str, int]]:
        t = node.type
        if t in ("identifier", "attribute"):
            chain = self.chain(node)
            return [(chain, _line(node))] if chain and "?" not in chain else []
        if t == "string":
            text = "".join(self.text(c) for c in node.named_children if c.type == "string_content")
            return [(text, _line(node))] if _DOTTED.fullmatch(text) else []
        found: list[tuple[str, int]] = []
        for child in node.named_children:
            found.extend(self.type_names(child))
        return found

    def main_type(self, node: Node) -> str | None:
        core = self.unwrapped(node)
        if core is None:
            return None
        t = core.type
        if t in ("identifier", "attribute"):
            return self.chain(core)
        if t == "string":
            text = "".join(self.text(c) for c in core.named_children if c.type == "string_content")
            return text if _DOTTED.fullmatch(text) else None
        if t in ("generic_type", "subscript"):
            return self.type_arguments(core)[0] or None
        return None

    def element_type(self, node: Node) -> str | None:
        """The type of what iterating a value so annotated gives: `list[Selectable]`,
        `Sequence["Node"]`, `Optional[list[X]]`, `tuple[X, ...]`,
        `Annotated[list[X], Field(…)]` → its element's chain."""
        core = self.unwrapped(node)
        if core is None or core.type not in ("generic_type", "subscript"):
            return None
        base, args = self.type_arguments(core)
        if base.split(".")[-1] not in _ITERABLES or not args:
            return None
        return self.main_type(args[0])

    def unwrapped(self, node: Node | None) -> Node | None:
        """An annotation without what only wraps its type: `X | None`, `Optional[X]`,
        `Annotated[X, …]`."""
        while node is not None:
            t = node.type
            if t == "type" and node.named_children:
                node = node.named_children[0]
            elif t == "binary_operator":  # X | None
                sides = (node.child_by_field_name(side) for side in ("left", "right"))
                node = next((p for p in sides if p is not None and p.type != "none"), None)
            elif t in ("generic_type", "subscript"):
                base, args = self.type_arguments(node)
                if base.split(".")[-1] not in ("Optional", "Annotated"):
                    return node
                node = args[0] if args else None
            else:
                return node
        return None

    def type_arguments(self, node: Node) -> tuple[str, list[Node]]:
        """A generic annotation's base chain ("" when unknown) and its type arguments."""
        base = self.main_type(node.named_children[0]) if node.named_children else None
        args = list(node.named_children[1:])
        while args and args[0].type == "type_parameter":
            args = list(args[0].named_children)
        return base or "", args

    def bind_annotated(self, scope: int, name: str, line: int, annotation: Node, main: str) -> None:
        """Bind an annotated name to its type; a container of a known element type
        (`items: list[Selectable]`) to a container whose elements are that type, so
        `for s in items: s.select_info` reaches `Selectable`."""
        element = self.element_type(annotation)
        if element is None:
            self.facts.scopes[scope].bind(name, line, f"type:{main}")
            return
        self.facts.scopes[scope].bind(name, line, f"cont:{name}")
        self.facts.scopes[scope].bind(f"{name}[]", line, f"type:{element}")

    def import_statement(self, node: Node, scope: int) -> None:
        s = self.facts.scopes[scope]
        for child in node.named_children:
            line = _line(child)
            if child.type == "dotted_name":
                dotted = self.text(child)
                s.bind(dotted.split(".")[0], line, f"import:{dotted.split('.')[0]}")
                self.ref("import", dotted, line, scope)
            elif child.type == "aliased_import":
                name = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                if name is None or alias is None:
                    continue
                dotted = self.text(name)
                s.bind(self.text(alias), line, f"import:{dotted}")
                self.ref("import", dotted, line, scope)

    def import_from(self, node: Node, scope: int) -> None:
        module = node.child_by_field_name("module_name")
        if module is None:
            return
        spec = self.text(module).replace(" ", "")
        s = self.facts.scopes[scope]
        for child in node.named_children:
            if child == module or child.start_byte == module.start_byte:
                continue
            line = _line(child)
            if child.type == "wildcard_import":
                self.facts.stars.append(spec)
                self.ref("import", f"{spec}:*", line, scope)
            elif child.type == "dotted_name":
                name = self.text(child)
                s.bind(name.split(".")[-1], line, f"from:{spec}:{name}")
                self.ref("import", f"{spec}:{name}", line, scope)
            elif child.type == "aliased_import":
                name_node = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                if name_node is None or alias is None:
                    continue
                name = self.text(name_node)
                s.bind(self.text(alias), line, f"from:{spec}:{name}")
                self.ref("import", f"{spec}:{name}", line, scope)

    def assignment(self, node: Node, scope: int) -> None:
        # `a = b = f` nests: every left side gets the innermost right side.
        targets: list[Node] = []
        right: Node | None = node
        annotation = node.child_by_field_name("type")
        while right is not None and right.type == "assignment":
            left = right.child_by_field_name("left")
            if left is not None:
                targets.append(left)
            right = right.child_by_field_name("right")
        if right is not None:
            self.visit(right, scope)
        line = _line(node)
        declared = self.annotation(annotation, scope) if annotation is not None else None
        # `PREFIX: str = "/api"` keeps its text, for the URLs built from it.
        plain = (
            annotation is not None
            and right is not None
            and right.type in ("string", "concatenated_string")
            and _STR_ANNOTATION.fullmatch(self.text(annotation)) is not None
        )
        for left in targets:
            if plain and left.type == "identifier":
                self.assign(left, right, scope, line)
            elif declared and left.type == "identifier" and annotation is not None:
                self.bind_annotated(scope, self.text(left), line, annotation, declared)
                self.router_prefix(self.text(left), right)
            elif declared and left.type == "attribute":
                self.instance_attribute(left, f"type:{declared}", scope)
            else:
                self.assign(left, right, scope, line)

    def assign(self, left: Node, right: Node | None, scope: int, line: int) -> None:
        t = left.type
        if t == "identifier":
            self.bind_value(self.text(left), right, scope, line)
            self.router_prefix(self.text(left), right)
            self.constructor_overrides(self.text(left), right, scope, line)
        elif t == "attribute":
            for part in _alternatives(right):
                self.instance_attribute(left, self.value_of(part, scope), scope)
                self.object_attribute(left, self.value_of(part, scope), scope, line)
            obj = left.child_by_field_name("object")
            if obj is not None and obj.type != "identifier":
                self.visit(obj, scope)
        elif t == "subscript":  # d["k"] = f, l[0] = f: one more element of the container
            container = self.chain(left.child_by_field_name("value"))
            key = self.key(left.child_by_field_name("subscript"))
            if container is not None and _CONTAINER_CHAIN.fullmatch(container):
                owner = self.owner_scope(container.split("[", 1)[0], scope)
                self.bind_value(f"{container}[]", right, owner, line, key)
            for child in left.named_children:
                self.visit(child, scope)
        elif t in _PATTERNS:
            self.unpack(left, right, scope, line)

    def unpack(self, left: Node, right: Node | None, scope: int, line: int) -> None:
        """`a, (b, c), *d = f, (g, h), i, j`: pair targets and values by position when
        the right side is a literal of the same shape, else each target gets an element
        of the right side."""
        targets = [c for c in left.named_children if c.type != "comment"]
        values = (
            [c for c in right.named_children if c.type != "comment"]
            if right is not None and right.type in ("expression_list", "tuple", "list")
            else None
        )
        starred = [i for i, c in enumerate(targets) if c.type == "list_splat_pattern"]
        if (
            values is not None
            and len(starred) <= 1
            and not any(v.type in ("list_splat", "dictionary_splat") for v in values)
        ):
            fixed = len(targets) - len(starred)
            if (starred and len(values) >= fixed) or len(values) == len(targets):
                star = starred[0] if starred else len(targets)
                rest = len(values) - fixed
                for i, target in enumerate(targets):
                    if i < star:
                        self.assign(target, values[i], scope, line)
                    elif i == star:
                        inner = target.named_children[0] if target.named_children else None
                        if inner is not None and inner.type == "identifier":
                            name = self.text(inner)
                            self.facts.scopes[scope].bind(name, line, f"cont:{name}")
                            for j, value in enumerate(values[star : star + rest]):
                                self.bind_value(f"{name}[]", value, scope, line, str(j))
                    else:
                        self.assign(target, values[i - 1 + rest], scope, line)
                return
        chain = self.chain(right) if right is not None else None
        element = f"expr:{chain}[]" if chain is not None and chain != "?" else "expr:?"
        self.bind_targets(left, scope, element)
        for child in left.named_children:
            if child.type in ("subscript", "attribute", "call"):
                self.visit(child, scope)

    def instance_attribute(self, left: Node, value: str, scope: int) -> None:
        """`self.x = …` inside a method: an attribute of the method's class."""
        obj = left.child_by_field_name("object")
        attr = left.child_by_field_name("attribute")
        if obj is None or attr is None or obj.type != "identifier":
            return
        s = self.facts.scopes[scope]
        bound = s.bindings.get(self.text(obj))
        if not bound or not bound[0][1].startswith("self:"):
            return
        owner = self.facts.classes.get(bound[0][1][5:])
        if owner is None:
            return
        if value.startswith("expr:") and _DOTTED.fullmatch(value[5:]) and "." not in value[5:]:
            local = s.bindings.get(value[5:])
            if local and local[-1][1].startswith("type:"):
                value = local[-1][1]
        owner.attrs.setdefault(self.text(attr), []).append((scope, value))

    def object_attribute(self, left: Node, value: str, scope: int, line: int) -> None:
        """`settings.PREFIX = …` on a name that is not `self`: the pseudo name
        `settings.PREFIX`, bound where `settings` is, says the attribute is set at run
        time (a class-level default read through `settings` is then not its value)."""
        chain = self.chain(left)
        if chain is None or "." not in chain or not _DOTTED.fullmatch(chain):
            return
        head = chain.split(".", 1)[0]
        owner = self.owner_scope(head, scope)
        bound = self.facts.scopes[owner].bindings.get(head)
        if bound and bound[0][1].startswith("self:"):
            return
        self.facts.scopes[owner].bind(chain, line, value)

    def constructor_overrides(self, name: str, right: Node | None, scope: int, line: int) -> None:
        """`settings = Settings(PREFIX="/v2")` at a module's top level: keyword arguments
        of a class-like call bind `settings(PREFIX)` (dataclasses, pydantic and attrs
        classes take their fields so); `**options` binds `settings(**)`."""
        if scope != 0 or right is None or right.type != "call":
            return  # only a module's objects are read through (`Resolver.instance_string`)
        func = self.chain(right.child_by_field_name("function"))
        args = right.child_by_field_name("arguments")
        if func is None or args is None or not func.rpartition(".")[2][:1].isupper():
            return
        for arg in args.named_children:
            if arg.type == "dictionary_splat":
                self.facts.scopes[scope].bind(f"{name}(**)", line, "expr:?")
            elif arg.type == "keyword_argument":
                key = arg.child_by_field_name("name")
                if key is not None:
                    value = self.value_of(arg.child_by_field_name("value"), scope)
                    self.facts.scopes[scope].bind(f"{name}({self.text(key)})", line, value)

    def router_prefix(self, name: str, right: Node | None) -> None:
        """`bp = Blueprint(…, url_prefix="/api")` / `router = APIRouter(prefix="/api")`;
        `{}` for a router's prefix that is not a string we can read."""
        if right is None or right.type != "call":
            return
        func = right.child_by_field_name("function")
        router = func is not None and self.text(func).endswith(("Router", "Blueprint"))
        args = right.child_by_field_name("arguments")
        for arg in args.named_children if args is not None else []:
            if arg.type != "keyword_argument":
                continue
            key = arg.child_by_field_name("name")
            value = arg.child_by_field_name("value")
            if key is None or value is None or self.text(key) not in ("url_prefix", "prefix"):
                continue
            pattern = self.string_pattern(value, 0)
            if pattern:
                self.facts.prefixes[name] = pattern
            elif pattern is None and router:
                self.facts.prefixes[name] = "{}"

    def with_item(self, node: Node, scope: int) -> None:
        value = node.child_by_field_name("value")
        if value is None:
            return
        if value.type == "as_pattern":
            expr = value.named_children[0] if value.named_children else None
            alias = value.child_by_field_name("alias")
            if expr is not None:
                self.visit(expr, scope)
            if alias is not None:
                self.bind_targets(alias, scope, self.value_of(expr, scope))
            return
        self.visit(value, scope)

    def call(self, node: Node, scope: int) -> None:
        func = node.child_by_field_name("function")
        chain = self.chain(func)
        args_node = node.child_by_field_name("arguments")
        if chain is not None:
            # The line of the called name, not of the receiver: in a chain split over
            # lines, `.save()` is where the call is.
            named = func.child_by_field_name("attribute") if func is not None else None
            line = _line(named or func or node)
            event = chain.rpartition(".")[2] in EVENT_CALLS
            values = self.argument_values(args_node, scope, event)
            verb = chain.rpartition(".")[2]
            args = self.call_args(args_node, scope, verb in URL_NAME_CALLS, verb in _HTTP_WORDS)
            self.ref("call", chain, line, scope, args, values)
            self.container_update(chain, args_node, scope, line)
            prefix = self.dispatch_prefix(args_node, scope) if chain == "getattr" else None
            if prefix:
                self.ref("dispatch", prefix, line, scope)
        if func is not None and func.type != "identifier":
            self.visit(func, scope)
        if args_node is not None:
            self.visit(args_node, scope)

    def dispatch_prefix(self, args: Node | None, scope: int) -> str | None:
        """The method-name prefix of a dispatch by name on the object itself:
        `getattr(self, "visit_" + type(node).__name__)`, `getattr(self, f"_print_{name}")`,
        Django's `getattr(self, "clean_%s" % name)`, `"do_{}".format(cmd)`, or through a
        local holding such a string (sympy's `printmethod`)."""
        if args is None or args.type != "argument_list":
            return None
        items = [a for a in args.named_children if a.type != "comment"]
        if len(items) < 2 or items[0].type != "identifier":
            return None
        if self.text(items[0]) not in ("self", "cls"):
            return None
        head, hole = self.formatted_head(items[1], scope)
        wanted = hole and _DISPATCH_PREFIX.fullmatch(head) and (head.endswith("_") or len(head) > 2)
        return head if wanted else None

    def formatted_head(self, node: Node, scope: int) -> tuple[str, bool]:
        """The literal text before the first hole of a string built at run time, and
        whether it has one: `"a_" + x`, `f"a_{x}"`, `"a_%s" % x`, `"a_{}".format(x)`."""
        template, holes = node, ("{}",)
        if node.type == "binary_operator":
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type == "%":
                template, holes = node.child_by_field_name("left") or node, ("%",)
        elif node.type == "call":
            func = node.child_by_field_name("function")
            method = func.child_by_field_name("attribute") if func is not None else None
            if func is not None and method is not None and self.text(method) == "format":
                template, holes = func.child_by_field_name("object") or node, ("{",)
        if template is not node and template.type not in ("string", "concatenated_string"):
            return "", False
        text = self.string_pattern(template, scope) or ""
        cut = min((i for i in (text.find(h) for h in holes) if i >= 0), default=-1)
        return (text[:cut], True) if cut >= 0 else (text, False)

    def argument_values(
        self, args: Node | None, scope: int, event: bool = False
    ) -> list[tuple[str, str]] | None:
        """The arguments as binding values, when one may hold code (a name, a call);
        always for an event call, with the elements of its list arguments."""
        if args is None or args.type != "argument_list":
            return None
        out: list[tuple[str, str]] = []
        elements: list[tuple[str, str]] = []
        position = 0
        for arg in args.named_children:
            if arg.type == "keyword_argument":
                key = arg.child_by_field_name("name")
                value = arg.child_by_field_name("value")
                if key is not None:
                    out.append((self.text(key), self.value_of(value, scope)))
                    if event:
                        elements += self.element_values(self.text(key), value, scope)
            elif arg.type in ("list_splat", "dictionary_splat", "parenthesized_expression"):
                break  # positions after a splat are unknown
            elif arg.type != "comment":
                out.append(("", self.value_of(arg, scope)))
                if event:
                    elements += self.element_values(str(position), arg, scope)
                position += 1
        if event:
            return out + elements if out else None
        if not any(v.startswith("expr:") and v != "expr:?" for _, v in out):
            return None
        return out

    def element_values(self, slot: str, node: Node | None, scope: int) -> list[tuple[str, str]]:
        """`["a", B]` at `slot` as (`slot[]`, value) pairs (topics to subscribe to)."""
        if node is None or node.type not in ("list", "tuple", "set"):
            return []
        return [
            (f"{slot}[]", self.value_of(element, scope))
            for element in node.named_children
            if element.type != "comment"
        ]

    def container_update(self, chain: str, args: Node | None, scope: int, line: int) -> None:
        """`l.append(f)`, `d.update({...})`, `d.setdefault(k, f)`: elements of the
        container bound to a name."""
        head, _, method = chain.rpartition(".")
        if args is None or not head.isidentifier() or method not in _ADDERS:
            return
        items = [a for a in args.named_children if a.type != "comment"]
        if method in ("setdefault", "insert"):
            items = items[1:2]
        owner = self.owner_scope(head, scope)
        for item in items[:1]:
            if method == "update" and item.type == "dictionary":
                self.bind_elements(f"{head}[]", item, owner, line)
            elif method == "extend" and item.type in _CONTAINERS:
                for element in item.named_children:
                    self.bind_value(f"{head}[]", element, owner, line)
            elif method == "setdefault":
                key = self.key(args.named_children[0]) if args.named_children else ""
                self.bind_value(f"{head}[]", item, owner, line, key)
            elif method not in ("update", "extend"):
                self.bind_value(f"{head}[]", item, owner, line)

    def call_args(
        self, args: Node | None, scope: int, by_name: bool = False, verb: bool = False
    ) -> list[str] | None:
        """String arguments that may name a URL or an HTTP method: the first two
        positional ones, `url=`, `method=`, then the last positional argument when it is
        a name (a route's view: Django's `path("users/", views.users)`), then `name=`
        (a Django route's). With `by_name` (`reverse("hc-details")`), a first string
        argument is kept whatever it holds; with `verb` (`client.post(…)`), a first
        argument that is a dotted name, as `{=C}` (`api_routes.recipes`: resolution may
        read the string it holds)."""
        if args is None or args.type != "argument_list":
            return None
        positional: list[str] = []
        keywords = {"url": "", "method": "", "methods": "", "name": ""}
        handler = ""
        items = [a for a in args.named_children if a.type != "keyword_argument"]
        if len(items) >= 3 and items[-1].type == "dictionary":
            items = items[:-1]  # Django's `path("x/", view, {"url": ""})`: the view's kwargs
        if len(items) >= 2 and items[-1].type in ("identifier", "attribute"):
            handler = self.chain(items[-1]) or ""
        elif len(items) >= 2 and items[-1].type == "call":
            handler = self.view_call(items[-1])
        for arg in args.named_children:
            if arg.type == "keyword_argument":
                key = arg.child_by_field_name("name")
                value = arg.child_by_field_name("value")
                if key is None or value is None or self.text(key) not in keywords:
                    continue
                if value.type in ("list", "tuple", "set"):  # methods=["GET", "POST"]
                    found = [self.string_pattern(v, scope) for v in value.named_children]
                    keywords[self.text(key)] = ",".join(v for v in found if v)
                    continue
                keywords[self.text(key)] = self.string_pattern(value, scope, True) or ""
            elif len(positional) < 2 and arg.type not in ("list_splat", "dictionary_splat"):
                text = self.string_pattern(arg, scope, True)
                if text is None and verb and not positional and arg.type == "attribute":
                    named = self.named_part(arg)
                    if named is not None and not named.startswith(("{=self.", "{=cls.")):
                        text = named
                # `@router.get("")`, Django's `path("", view)`: the root of the router
                root = text == "" and not positional and arg.type == "string"
                positional.append("/" if root else text or "")
        positional += [""] * (2 - len(positional))
        method = keywords["method"] or keywords["methods"]
        out = [*positional, keywords["url"], method, handler, keywords["name"]]
        if positional[0] and (by_name or (handler and keywords["name"])):
            return out  # `reverse("hc-index")`; `path("contact.vcf", view, name="…")`
        if verb and positional[0].startswith("{="):
            return out  # `client.post(api_routes.recipes)`
        if not any(looks_like_url_argument(v) for v in out[:4] if v) and not handler.startswith(
            "include:"
        ):
            return None
        return out

    def view_call(self, call: Node) -> str:
        """A Django view given as a call: `include("app.urls")` as `include:app.urls`,
        `include(check_urls)` (a list of patterns) as `include:check_urls`,
        `views.Posts.as_view()` as the class `views.Posts`, an instance (`feeds.Feed()`)
        as its class; else ""."""
        func = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if func is None or args is None:
            return ""
        owner, _, name = self.text(func).rpartition(".")
        if name == "as_view" and _DOTTED.fullmatch(owner):
            return owner
        if name[:1].isupper() and _DOTTED.fullmatch(self.text(func)):
            return self.text(func)  # an instance as the view: `WeblogEntryFeed()`
        if name != "include":
            return ""
        first = args.named_children[0] if args.named_children else None
        if first is not None and first.type == "identifier":  # `include(check_urls)`
            return f"include:{self.text(first)}"
        spec = self.string_pattern(first, 0) if first is not None else None
        return f"include:{spec}" if spec and _DOTTED.fullmatch(spec) else ""

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


# A property's name, by its decorator: `@property`, `@cached_property`,
# `@functools.cached_property`.
_PROPERTY = re.compile(
    r"@(?:functools\.)?(?:cached_)?property\s*\n\s*(?:async\s+)?def\s+([A-Za-z_]\w*)"
)


_LEAVES_BLOCK = frozenset(
    {"raise_statement", "return_statement", "continue_statement", "break_statement"}
)


def _alternatives(node: Node | None) -> list[Node | None]:
    """The values an expression may have: both sides of `a if c else b` and `a or b`
    (the resolver takes the first it can follow), else the expression itself."""
    if node is None:
        return [None]
    if node.type == "conditional_expression" and len(node.named_children) >= 3:
        first, _, second = node.named_children[:3]
        return [*_alternatives(first), *_alternatives(second)]
    if node.type == "boolean_operator":
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if operator is not None and operator.type == "or":
            return [*_alternatives(left), *_alternatives(right)]
    return [node]


def _param_name(param: Node) -> Node | None:
    if param.type == "identifier":
        return param
    name = param.child_by_field_name("name")
    if name is not None and name.type == "identifier":
        return name
    for child in param.named_children:
        if child.type == "identifier":
            return child
    return None


def _line(node: Node) -> int:
    return node.start_point.row + 1
