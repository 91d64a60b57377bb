"""The architecture's two promises, checked on the source: storage libraries, SQL and
connections live in `storage/` alone, and neither modules nor packages import each other
in a cycle. Imports are read with `ast`, so lazy imports inside functions and
TYPE_CHECKING imports count too."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "codecompass"
STORAGE_LIBRARIES = ("sqlite3", "lancedb", "pyarrow", "psycopg", "psycopg_pool", "qdrant_client")
SQL_METHODS = ("execute", "executemany", "executescript")


def modules() -> dict[str, Path]:
    """codecompass module name → file (a package is its __init__.py)."""
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = ["codecompass", *path.relative_to(SRC).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import in the file, codecompass or not."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:
                # `from codecompass import answer` imports the module codecompass.answer.
                target = f"{base}.{alias.name}"
                yield (target if target in known else base), node.lineno


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {
        name: {target for target, _ in imports(name, path, known) if target in known} - {name}
        for name, path in known.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph as a list of nodes (first = last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def package_of(module: str) -> str:
    """The unit of the package graph: a subpackage of codecompass, or a top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_storage_libraries_are_imported_only_in_storage() -> None:
    known = modules()
    leaks = [
        f"{path.relative_to(SRC)}:{line} imports {target}"
        for name, path in known.items()
        if not name.startswith("codecompass.storage")
        for target, line in imports(name, path, known)
        if target.split(".")[0] in STORAGE_LIBRARIES
    ]
    assert leaks == []


def test_no_sql_is_run_outside_storage() -> None:
    calls = []
    for name, path in modules().items():
        if name.startswith("codecompass.storage"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SQL_METHODS
            ):
                calls.append(f"{path.relative_to(SRC)}:{node.lineno} .{node.func.attr}(")
    assert calls == []


def test_no_module_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_no_package_import_cycle() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        here = package_of(module)
        packages.setdefault(here, set()).update(
            package_of(t) for t in targets if package_of(t) != here
        )
    assert find_cycle(packages) is None


def test_the_checks_see_what_they_look_for() -> None:
    # The cycle finder and the import reader are themselves code that could be wrong.
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    graph = import_graph()
    assert "codecompass.storage.sqlite.db" in graph["codecompass.storage.sqlite.catalog"]
    assert "codecompass.answer" in graph["codecompass.engine"]  # `from codecompass import answer`
    db = modules()["codecompass.storage.sqlite.db"]
    assert "sqlite3" in {t for t, _ in imports("codecompass.storage.sqlite.db", db, modules())}


def test_the_cli_starts_without_loading_heavy_libraries() -> None:
    # `import codecompass` and the CLI's start-up must not pay for a model runtime, a
    # vector library or a server SDK: those load when a command needs them.
    heavy = ("lancedb", "pyarrow", "onnxruntime", "tokenizers", "mcp", "psycopg", "qdrant_client")
    code = (
        "import sys, codecompass, codecompass.cli; "
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
