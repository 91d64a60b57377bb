"""Check the CALLS edges of the code graph against jedi's goto-definition on a real package.

The package (default `requests`, installed from PyPI) is copied and indexed; call sites
are enumerated with Python's own `ast` (not our parser), 100 are drawn at random (fixed
seed), and at each one jedi's goto (following imports; `infer` when goto lands on a
variable) is the oracle. A site's oracle answer is a symbol of the package, or
"external" (stdlib, builtins, another package), or nothing (jedi cannot tell).

Reported, at confidence ≥ 0.8 and overall:
- precision: of our resolved CALLS edges at the sampled sites, the share pointing where
  jedi points (an edge into the package where jedi says "external" is wrong);
- recall: of the sites jedi resolves into the package, the share where one of our edges
  points to jedi's symbol;
and the kinds of failures, with examples. A call of a class has two edges, to the class
and to the constructor it runs (`__init__`); jedi names the class, so the constructor edge
is left out here (benchmarks/pycg_micro.py checks those).

    .venv/bin/python benchmarks/graph_vs_jedi.py [--package requests] [--sites 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import ast
import importlib
import random
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import jedi
from hash_embedder import HashEmbedder  # benchmarks/, the script's folder

from codecompass.engine import Engine
from codecompass.models import EdgeQuery, SymbolQuery


@dataclass(frozen=True)
class Site:
    path: str  # relative to the package folder
    line: int
    column: int  # of the called name
    name: str  # the called name (last attribute)
    text: str  # the call's source, for examples


def call_sites(root: Path) -> list[Site]:
    sites: list[Site] = []
    for file in sorted(root.rglob("*.py")):
        source = file.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        rel = file.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name):
                line, column, name = func.lineno, func.col_offset, func.id
            elif isinstance(func, ast.Attribute) and func.end_lineno is not None:
                assert func.end_col_offset is not None
                line, column, name = (
                    func.end_lineno,
                    func.end_col_offset - len(func.attr),
                    func.attr,
                )
            else:
                continue
            text = ast.get_source_segment(source, node) or name
            sites.append(Site(rel, line, column, name, " ".join(text.split())[:80]))
    return sites


def oracle(script: jedi.Script, site: Site, root: Path) -> tuple[str, tuple[str, int, str] | None]:
    """("internal", (path, line, name)) | ("external", None) | ("none", None)."""
    try:
        names = script.goto(site.line, site.column, follow_imports=True)
        if not any(n.type in ("function", "class") for n in names):
            names = script.infer(site.line, site.column) or names
    except Exception:  # jedi can fail on odd code; that site has no oracle answer
        return "none", None
    names = [n for n in names if n.type in ("function", "class")]
    if not names:
        return "none", None
    n = names[0]
    if n.module_path is None:
        return "external", None
    try:
        rel = Path(n.module_path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return "external", None
    return "internal", (rel, n.line or 0, n.name)


def symbol_at(engine: Engine, repo: str, path: str, line: int, name: str) -> str | None:
    """Our symbol for jedi's definition: the innermost symbol named `name` whose range
    holds the definition line."""
    found = [
        s
        for s in engine.backend.symbols.symbols(SymbolQuery(names=[name], files=[(repo, path)]))
        if s.start_line <= line <= s.end_line
    ]
    return max(found, key=lambda s: s.start_line).id if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--package", default="requests")
    parser.add_argument("--sites", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--examples", type=int, default=4)
    args = parser.parse_args()
    module = importlib.import_module(args.package)
    assert module.__file__ is not None
    source = Path(module.__file__).parent
    version = getattr(module, "__version__", "?")

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / args.package
        shutil.copytree(source, work, ignore=shutil.ignore_patterns("__pycache__"))
        engine, _ = Engine.for_repo(work, data_dir=Path(tmp) / "data", embedder=HashEmbedder())
        with engine:
            engine.index(work)
            repo = args.package
            calls: dict[tuple[str, int], list[Found]] = {}
            for e in engine.backend.edges.edges(EdgeQuery(types=["calls"], repo=repo)):
                calls.setdefault((e.evidence_path or "", e.evidence_line or 0), []).append(e)
            sites = call_sites(work)
            sample = random.Random(args.seed).sample(sites, min(args.sites, len(sites)))
            project = jedi.Project(path=tmp, added_sys_path=[tmp])
            scripts: dict[str, jedi.Script] = {}
            rows: list[Row] = []
            for site in sample:
                script = scripts.get(site.path)
                if script is None:
                    file = work / site.path
                    script = jedi.Script(
                        file.read_text(encoding="utf-8"), path=file, project=project
                    )
                    scripts[site.path] = script
                verdict, where = oracle(script, site, work)
                truth = symbol_at(engine, repo, *where) if where is not None else None
                if verdict == "internal" and truth is None:
                    verdict = "none"  # jedi points at something we do not model as a symbol
                ours: list[Found] = [
                    (e.target, e.confidence, int(e.resolved), e.via, e.name)
                    for e in calls.get((site.path, site.line), [])
                    if _last_name(e.name) == site.name and e.via != "constructor"
                ]
                rows.append((site, verdict, truth, ours))
            report(rows, args, version, len(sites))


def _last_name(chain: str) -> str:
    return chain.rsplit(".", 1)[-1].split("(", 1)[0].split("[", 1)[0]


Found = tuple[str, float, int, str, str]  # target, confidence, resolved, via, name
Row = tuple[Site, str, str | None, list[Found]]


def report(rows: list[Row], args: argparse.Namespace, version: str, total: int) -> None:
    verdicts = Counter(v for _, v, _, _ in rows)
    print(
        f"package      {args.package} {version}: {total} call sites, {len(rows)} sampled "
        f"(seed {args.seed})"
    )
    print(
        f"oracle       jedi {jedi.__version__}: {verdicts['internal']} into the package, "
        f"{verdicts['external']} external, {verdicts['none']} no answer"
    )
    for threshold, label in ((0.8, "confidence >= 0.8"), (0.0, "all confidences")):
        predicted = correct_edges = 0
        hits = 0
        failures: Counter[str] = Counter()
        examples: dict[str, list[str]] = {}
        for site, verdict, truth, ours in rows:
            resolved = [o for o in ours if o[2] and o[1] >= threshold]
            predicted += len(resolved)
            good = [o for o in resolved if verdict == "internal" and o[0] == truth]
            correct_edges += len(good)
            if verdict == "internal" and good:
                hits += 1
            kind = failure_kind(verdict, truth, ours, resolved, threshold)
            if kind is not None:
                failures[kind] += 1
                shown = ", ".join(f"{o[0]} ({o[1]:.2f}, {o[3]})" for o in ours) or "no edge"
                examples.setdefault(kind, []).append(
                    f"{site.path}:{site.line} `{site.text}` jedi={truth or verdict} ours={shown}"
                )
        internal = verdicts["internal"]
        precision = correct_edges / predicted if predicted else 0.0
        recall = hits / internal if internal else 0.0
        print(
            f"\nCALLS at {label}: precision {precision:.2f} ({correct_edges}/{predicted} edges), "
            f"recall {recall:.2f} ({hits}/{internal} sites)"
        )
        for kind, n in failures.most_common():
            print(f"  {n:3d}  {kind}")
            for example in examples[kind][: args.examples]:
                print(f"         {example}")


def failure_kind(
    verdict: str, truth: str | None, ours: list[Found], resolved: list[Found], threshold: float
) -> str | None:
    targets = {o[0] for o in resolved}
    if verdict == "internal":
        if truth in targets:
            return "ambiguous: right symbol among several candidates" if len(targets) > 1 else None
        if targets:
            return "wrong symbol (resolved elsewhere than jedi)"
        if any(o[2] for o in ours):
            return "right or wrong, but below the confidence threshold"
        vias = {o[3] for o in ours}
        if "unknown" in vias:
            return "unresolved: receiver type unknown"
        if "external" in vias:
            return "unresolved: taken for external"
        if "unbound" in vias:
            return "unresolved: name not bound"
        return "no edge (skipped as builtin or not extracted)"
    if verdict == "external" and targets:
        return "resolved into the package where jedi says external"
    return None


if __name__ == "__main__":
    main()
