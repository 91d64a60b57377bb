"""Score the code graph's CALLS edges on PyCG's micro-benchmark (vitsalis/PyCG, ICSE 2021).

The benchmark is 119+ small Python programs, each with a hand-made call graph
(``callgraph.json``: caller → callees, by dotted names such as ``main.A.func``). It is
read from a fetched snapshot of the PyCG repository and never committed:

    # the `fetch` tool (or `git clone https://github.com/vitsalis/PyCG`) gives a checkout
    .venv/bin/python benchmarks/pycg_micro.py --pycg /work/.mirror/vitsalis+PyCG/repo
    .venv/bin/python benchmarks/pycg_micro.py --pycg ~/src/PyCG --show-misses lambdas

``--pycg`` takes a working tree or a bare git directory (read with ``git archive``).

Each program is indexed into a workspace of its own (the hash embedder: the graph does
not depend on the model). Our edges are named the way PyCG names functions: the module
path with dots, then the qualified name (``pkg/mod.py#A.f`` → ``pkg.mod.A.f``; code at
module level is the module, ``pkg.mod``). Scoring:

- expected: PyCG's edges, minus calls of builtins (``<builtin>.…``);
- found: expected edges our graph has as a resolved CALLS edge;
- precision: of our resolved CALLS edges between functions of the program, the share
  PyCG lists. PyCG has no nodes for classes: a call of a class is scored by the edge to
  the constructor it runs, and the edge to the class node itself is not counted.

The headline is the 13 categories the issue measured (assignments … functions); the
others (builtins, direct_calls, dynamic, exceptions, external) are printed below it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from hash_embedder import HashEmbedder  # benchmarks/, the script's folder

from codecompass.engine import Engine
from codecompass.models import EdgeQuery, SymbolQuery
from codecompass.settings import load_settings

HEADLINE = (
    "assignments",
    "dicts",
    "decorators",
    "lambdas",
    "generators",
    "kwargs",
    "args",
    "lists",
    "mro",
    "returns",
    "classes",
    "imports",
    "functions",
)
OTHER = ("builtins", "direct_calls", "dynamic", "exceptions", "external")


@dataclass
class Score:
    expected: int = 0
    found: int = 0
    ours: int = 0  # our resolved CALLS edges between the program's functions
    correct: int = 0
    misses: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.expected += other.expected
        self.found += other.found
        self.ours += other.ours
        self.correct += other.correct


def snippets_root(pycg: Path, work: Path) -> Path:
    """The `micro-benchmark/snippets` folder of a checkout, or of a bare git dir."""
    tree = pycg / "micro-benchmark" / "snippets"
    if tree.is_dir():
        return tree
    archive = subprocess.run(
        ["git", "--git-dir", str(pycg), "archive", "HEAD", "micro-benchmark/snippets"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
    return work / "micro-benchmark" / "snippets"


def module_name(path: str) -> str:
    stem = path.removesuffix(".py")
    if stem.endswith("/__init__") or stem == "__init__":
        stem = stem.removesuffix("__init__").rstrip("/")
    return stem.replace("/", ".")


def pycg_name(node: str, repo: str) -> str | None:
    """`repo/pkg/mod.py#A.f` → `pkg.mod.A.f`; a file id → its module; else None."""
    if not node.startswith(repo + "/"):
        return None
    path, _, qualified = node[len(repo) + 1 :].partition("#")
    if not path.endswith(".py"):
        return None
    module = module_name(path)
    return f"{module}.{qualified}" if qualified else module


def score_program(folder: Path, data: Path, min_confidence: float) -> Score:
    expected_graph: dict[str, list[str]] = json.loads(
        (folder / "callgraph.json").read_text(encoding="utf-8")
    )
    expected = {
        (caller, callee)
        for caller, callees in expected_graph.items()
        for callee in callees
        if not callee.startswith("<builtin>")
    }
    engine = Engine(load_settings(data), embedder=HashEmbedder())
    try:
        repo = "prog"
        engine.add_repo(folder, name=repo)
        classes = {
            s.id for s in engine.backend.symbols.symbols(SymbolQuery(kind="class", limit=10_000))
        }
        ours: set[tuple[str, str]] = set()
        for edge in engine.backend.edges.edges(EdgeQuery(types=["calls"])):
            if not edge.resolved or edge.confidence < min_confidence or edge.target in classes:
                continue
            source, target = pycg_name(edge.source, repo), pycg_name(edge.target, repo)
            if source is not None and target is not None:
                ours.add((source, target))
    finally:
        engine.close()
    score = Score(expected=len(expected), ours=len(ours))
    score.found = len(expected & ours)
    score.correct = len(ours & expected)
    score.misses = sorted(f"{a} -> {b}" for a, b in expected - ours)
    score.wrong = sorted(f"{a} -> {b}" for a, b in ours - expected)
    return score


def ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "  -  "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pycg", type=Path, required=True, help="PyCG checkout or git dir")
    parser.add_argument("--min-confidence", type=float, default=0.0)
    parser.add_argument("--show-misses", nargs="*", default=None, help="categories (or all)")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = snippets_root(args.pycg.expanduser(), Path(tmp))
        by_category: dict[str, Score] = defaultdict(Score)
        details: dict[str, list[tuple[str, Score]]] = defaultdict(list)
        for category in sorted(p.name for p in root.iterdir() if p.is_dir()):
            for program in sorted(p for p in (root / category).iterdir() if p.is_dir()):
                data = Path(tmp) / "data" / category / program.name
                score = score_program(program, data, args.min_confidence)
                by_category[category].add(score)
                details[category].append((program.name, score))
    print(f"PyCG micro-benchmark, CALLS edges at confidence >= {args.min_confidence}")
    print(
        f"{'category':<14}{'found/expected':>16}{'recall':>9}{'correct/ours':>15}{'precision':>11}"
    )
    for group, names in (("headline", HEADLINE), ("other", OTHER)):
        total = Score()
        for name in names:
            s = by_category.get(name)
            if s is None:
                continue
            total.add(s)
            print(
                f"{name:<14}{f'{s.found}/{s.expected}':>16}{ratio(s.found, s.expected):>9}"
                f"{f'{s.correct}/{s.ours}':>15}{ratio(s.correct, s.ours):>11}"
            )
        print(
            f"{'= ' + group:<14}{f'{total.found}/{total.expected}':>16}"
            f"{ratio(total.found, total.expected):>9}"
            f"{f'{total.correct}/{total.ours}':>15}{ratio(total.correct, total.ours):>11}\n"
        )
    if args.show_misses is not None:
        wanted = set(args.show_misses) or set(by_category)
        for category in sorted(wanted & set(details)):
            for program, s in details[category]:
                for line in s.misses:
                    print(f"miss  {category}/{program}: {line}")
                for line in s.wrong:
                    print(f"wrong {category}/{program}: {line}")
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
