"""Python's dispatch by name: `getattr(self, "visit_" + …)` calls the methods of the
object's class named so, in the dispatcher's class and in every class inheriting it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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


def _dispatched(engine: Engine) -> set[tuple[str, str, float, str, str]]:
    """The name-dispatch edges: source and target (qualified names), confidence, the
    evidence (path:line, in the file owning the edge) and the dispatch site."""
    rows = engine.backend.edges.edges(EdgeQuery(types=["calls"]))
    return {
        (e.source.rsplit("#", 1)[1], e.target.rsplit("#", 1)[1], e.confidence,
         f"{e.evidence_path}:{e.evidence_line}", f"{e.target_path}:{e.target_line}")
        for e in rows if e.via == "getattr"
    }  # fmt: skip


@contextmanager
def _indexed(tmp_path: Path, path: str, text: str) -> Iterator[tuple[Engine, Path]]:
    """A repository of BASE and one more file, indexed."""
    repo = write(tmp_path / "r", {"pkg/__init__.py": "", "pkg/printer.py": BASE, path: text})
    with workspace(tmp_path) as engine:
        engine.index(repo, name="r")
        yield engine, repo


def test_a_mixins_handlers_are_called_from_the_class_joining_it_to_a_dispatcher(
    tmp_path: Path,
) -> None:
    with _indexed(tmp_path, "pkg/mixins.py", MIXINS) as (engine, _):
        assert {edge for edge in _dispatched(engine) if edge[0] == "Visitor.visit"} == {
            # the `class Both` line, where the mixin meets the dispatcher
            ("Visitor.visit", "Calls.visit_Call", 0.6, "pkg/mixins.py:9", "pkg/printer.py:18"),
            ("Visitor.visit", "Later.visit_Attribute", 0.6, "pkg/mixins.py:14",
             "pkg/printer.py:18"),
        }  # fmt: skip


def test_a_dispatch_by_name_calls_the_handlers_of_the_class_and_its_subclasses(
    tmp_path: Path,
) -> None:
    with _indexed(tmp_path, "pkg/latex.py", LATEX) as (engine, repo):
        site = "pkg/printer.py:9"  # the getattr of Printer._print
        assert _dispatched(engine) == {
            ("Printer._print", "Printer._print_Basic", 0.6, "pkg/printer.py:12", site),
            ("Printer._print", "LatexPrinter._print_Mul", 0.6, "pkg/latex.py:5", site),
            ("Printer._print", "LatexPrinter._print_Pow", 0.6, "pkg/latex.py:8", site),
            ("Visitor.visit", "Names.visit_Name", 0.6, "pkg/latex.py:19", "pkg/printer.py:18"),
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
        assert ("Printer._print", "LatexPrinter._print_Add", 0.6, "pkg/latex.py:11", site) in found
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
