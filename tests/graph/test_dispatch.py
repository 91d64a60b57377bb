"""Python's dispatch by name: `getattr(self, "visit_" + …)` calls the methods of the
object's class named so, in the dispatcher's class and in every class inheriting it."""

from __future__ import annotations

from pathlib import Path

from codecompass.engine import Engine
from codecompass.models import EdgeQuery
from tests.graph.helpers import workspace, write

BASE = """class Printer:
    def doprint(self, expr):
        return self._print(expr)

    def _print(self, expr):
        for cls in type(expr).__mro__:
            printmethod = "_print_" + cls.__name__
            if hasattr(self, printmethod):
                return getattr(self, printmethod)(expr)
        return str(expr)

    def _print_Basic(self, expr):
        return repr(expr)


class Visitor:
    def visit(self, node):
        return getattr(self, f"visit_{type(node).__name__}", self.generic)(node)

    def generic(self, node):
        return None
"""
LATEX = """from pkg.printer import Printer, Visitor


class LatexPrinter(Printer):
    def _print_Mul(self, expr):
        return "a \\\\cdot b"

    def _print_Pow(self, expr):
        return "a^b"

    def _printed(self):  # named like a handler's prefix without the underscore
        return True

    def _print_(self):  # the prefix alone is no handler
        return None


class Names(Visitor):
    def visit_Name(self, node):
        return node.id

    def print_Name(self, node):  # not this dispatcher's prefix
        return node.id
"""


MIXINS = """from pkg.printer import Visitor


class Calls:  # a mixin: no dispatcher of its own
    def visit_Call(self, node):
        return node.func


class Both(Calls, Visitor):  # joins them: Visitor.visit reaches Calls.visit_Call
    pass


class Later(Both):  # inherits the pair: no second edge
    def visit_Attribute(self, node):
        return node.attr
"""


def test_a_mixins_handlers_are_called_from_the_class_joining_it_to_a_dispatcher(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path / "r", {"pkg/__init__.py": "", "pkg/printer.py": BASE,
                                  "pkg/mixins.py": MIXINS})  # fmt: skip
    with workspace(tmp_path) as engine:
        engine.index(repo, name="r")
        rows = engine.backend.edges.edges(EdgeQuery(types=["calls"]))
        found = sorted(
            (e.source.rsplit("#", 1)[1], e.target.rsplit("#", 1)[1], e.evidence_path,
             e.evidence_line)
            for e in rows if e.via == "getattr" and e.source.endswith("Visitor.visit")
        )  # fmt: skip
        assert found == [
            ("Visitor.visit", "Calls.visit_Call", "pkg/mixins.py", 9),  # `class Both` line
            ("Visitor.visit", "Later.visit_Attribute", "pkg/mixins.py", 14),
        ]


def _dispatched(engine: Engine) -> set[tuple[str, str, float, int, str]]:
    rows = engine.backend.edges.edges(EdgeQuery(types=["calls"]))
    return {
        (e.source.rsplit("#", 1)[1], e.target.rsplit("#", 1)[1], e.confidence,
         e.evidence_line or 0, f"{e.target_path}:{e.target_line}")
        for e in rows if e.via == "getattr"
    }  # fmt: skip


def test_a_dispatch_by_name_calls_the_handlers_of_the_class_and_its_subclasses(
    tmp_path: Path,
) -> None:
    repo = write(tmp_path / "r", {"pkg/__init__.py": "", "pkg/printer.py": BASE,
                                  "pkg/latex.py": LATEX})  # fmt: skip
    with workspace(tmp_path) as engine:
        engine.index(repo, name="r")
        assert _dispatched(engine) == {
            ("Printer._print", "Printer._print_Basic", 0.6, 12, "pkg/printer.py:9"),
            ("Printer._print", "LatexPrinter._print_Mul", 0.6, 5, "pkg/printer.py:9"),
            ("Printer._print", "LatexPrinter._print_Pow", 0.6, 8, "pkg/printer.py:9"),
            ("Visitor.visit", "Names.visit_Name", 0.6, 19, "pkg/printer.py:18"),
        }
        callers = engine.callers("LatexPrinter._print_Mul")
        assert [(e.source.rsplit("#", 1)[1], e.via) for e in callers.edges] == [
            ("Printer._print", "getattr")
        ]

        # A new handler in the subclass, and a prefix changed in the base's file: both
        # reach the subclass's edges on the next run.
        (repo / "pkg/latex.py").write_text(
            LATEX.replace("    def _printed(self):", "    def _print_Add(self, expr):"),
            encoding="utf-8",
        )
        (repo / "pkg/printer.py").write_text(BASE.replace('f"visit_{', 'f"on_{'), encoding="utf-8")
        engine.index(repo, name="r")
        found = _dispatched(engine)
        assert ("Printer._print", "LatexPrinter._print_Add", 0.6, 11, "pkg/printer.py:9") in found
        assert not any(source == "Visitor.visit" for source, *_ in found)


def test_only_a_literal_prefix_on_the_object_itself_is_a_dispatch() -> None:
    from codecompass.indexing.extract import extract_facts
    from codecompass.indexing.parse import parse_file

    source = (
        "class C:\n"
        "    def run(self, name, obj):\n"
        "        getattr(self, 'do_' + name)\n"  # 3: a prefix ending in _
        "        getattr(cls, f'handle{name}')\n"  # 4: three characters or more
        "        getattr(self, '__' + name)\n"  # every special method: no
        "        getattr(self, 'x' + name)\n"  # too short: no
        "        getattr(obj, 'visit_' + name)\n"  # another object: no
        "        getattr(self, name + '_done')\n"  # no literal head: no
        "        getattr(self, 'plain')\n"  # a name written whole is a plain call: no
        "        getattr(self, 'clean_%s' % name)()\n"  # 10: Django's forms
        "        getattr(self, 'on_{}'.format(name))\n"  # 11
        "        getattr(self, name % 'x_')\n"  # no literal template: no
    )
    facts = extract_facts("c.py", source, parse_file("c.py", source).parsed)
    found = [(r.name, r.line) for r in facts.refs if r.kind == "dispatch"]
    assert found == [("do_", 3), ("handle", 4), ("clean_", 10), ("on_", 11)]
