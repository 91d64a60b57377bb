"""What the grammars of issue 17 cost: install size, start-up, first parse, throughput.

Prints, for the grammar wheels added in issue 17 (core and the `languages` extra):

- install size: the bytes of each installed wheel's files (from its RECORD), summed for
  the core grammars and for the extra;
- start-up: `import codecompass` in a fresh interpreter, and which grammar modules that
  import loads (none: grammars load on the first file of their language);
- first parse per language, in a fresh interpreter: the grammar's import, its tag query's
  compilation and one parse of the language's fixture (tests/fixtures/languages/…);
- throughput: warm parses of every fixture, in files/s and KB/s.

    .venv/bin/python benchmarks/languages.py [--runs 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from codecompass.indexing import treesitter
from codecompass.indexing.languages import (
    CORE_LANGUAGES,
    EXTRA_LANGUAGES,
    MARKUP_LANGUAGES,
    SYMBOL_LANGUAGES,
    language_for_path,
)
from codecompass.indexing.parse import parse

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "languages"
# The grammars the project had before issue 17.
FIRST_TWELVE = frozenset(
    {
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "java",
        "rust",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
    }
)
NEW_LANGUAGES = SYMBOL_LANGUAGES - FIRST_TWELVE - MARKUP_LANGUAGES

_FIRST_PARSE = """
import sys, time
started = time.perf_counter()
from codecompass.indexing.parse import parse
imported = time.perf_counter()
text = open(sys.argv[1], encoding="utf-8").read()
parsed = parse(text, sys.argv[2], sys.argv[1])
first = time.perf_counter()
parse(text, sys.argv[2], sys.argv[1])
second = time.perf_counter()
print(imported - started, first - imported, second - first, len(parsed.symbols))
"""

_IMPORT = """
import sys, time
started = time.perf_counter()
import codecompass
from codecompass.indexing.parse import parse
elapsed = time.perf_counter() - started
print(elapsed, sorted(m for m in sys.modules if m.startswith("tree_sitter_") and "." not in m))
"""


def _fixture(language: str) -> Path:
    (path,) = list((FIXTURES / language).iterdir())
    assert language_for_path(path.name) == language, path
    return path


def install_sizes() -> dict[str, Any]:
    """Installed bytes per grammar wheel added in issue 17, split core / extra."""
    owners = metadata.packages_distributions()
    out: dict[str, Any] = {"core": {}, "extra": {}}
    for language in sorted((CORE_LANGUAGES - FIRST_TWELVE) | EXTRA_LANGUAGES):
        module = treesitter._GRAMMARS[language][0]
        group = "extra" if language in EXTRA_LANGUAGES else "core"
        names = owners.get(module)
        if not names:
            out[group][language] = None  # not installed
            continue
        dist = metadata.distribution(names[0])
        size = sum(f.size or 0 for f in dist.files or [])
        out[group][language] = {"dist": f"{dist.name} {dist.version}", "bytes": size}
    for group in ("core", "extra"):
        sizes = [v["bytes"] for v in out[group].values() if v]
        out[f"{group}_mb"] = round(sum(sizes) / 1e6, 1)
    return out


def startup(runs: int) -> dict[str, Any]:
    times = []
    loaded: list[str] = []
    for _ in range(runs):
        elapsed, modules = _run(_IMPORT).split(" ", 1)
        times.append(float(elapsed))
        loaded = json.loads(modules.replace("'", '"'))
    return {"import_ms_median": round(1000 * statistics.median(times), 1), "grammars": loaded}


def _run(script: str, *args: str) -> str:
    """What ``script`` prints, run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args], check=True, capture_output=True, text=True
    ).stdout
    return out.strip()


def first_parses() -> dict[str, dict[str, float]]:
    """Per language, in a fresh interpreter: first parse (grammar load) vs a warm one."""
    out = {}
    for language in sorted(NEW_LANGUAGES):
        path = _fixture(language)
        _, first, second, symbols = _run(_FIRST_PARSE, str(path), language).split()
        out[language] = {
            "first_ms": round(1000 * float(first), 1),
            "warm_ms": round(1000 * float(second), 2),
            "symbols": int(symbols),
        }
    return out


def throughput(runs: int) -> dict[str, Any]:
    """Warm parses of every new language's fixture, `runs` times each."""
    texts = []
    for language in sorted(NEW_LANGUAGES):
        path = _fixture(language)
        texts.append((language, path.name, path.read_text(encoding="utf-8")))
    for language, name, text in texts:
        parse(text, language, name)  # load every grammar first
    size = sum(len(text.encode("utf-8")) for _, _, text in texts)
    started = time.perf_counter()
    for _ in range(runs):
        for language, name, text in texts:
            parse(text, language, name)
    elapsed = time.perf_counter() - started
    files = runs * len(texts)
    return {
        "files": len(texts),
        "files_per_s": round(files / elapsed),
        "kb_per_s": round(runs * size / 1024 / elapsed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = {
        "install": install_sizes(),
        "startup": startup(5),
        "first_parse": first_parses(),
        "throughput": throughput(args.runs),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    install = report["install"]
    print(f"install size added: core {install['core_mb']} MB, extra {install['extra_mb']} MB")
    for group in ("core", "extra"):
        for language, entry in install[group].items():
            shown = f"{entry['bytes'] / 1e6:5.2f} MB  {entry['dist']}" if entry else "absent"
            print(f"  {group:5} {language:11} {shown}")
    start = report["startup"]
    print(
        f"import codecompass (+ parse module): {start['import_ms_median']} ms median, "
        f"grammar modules loaded: {start['grammars'] or 'none'}"
    )
    print("first parse in a fresh process (grammar import + query + parse) vs warm:")
    for language, entry in report["first_parse"].items():
        print(
            f"  {language:11} first {entry['first_ms']:7.1f} ms   warm {entry['warm_ms']:6.2f} ms"
            f"   {entry['symbols']} symbols"
        )
    rate = report["throughput"]
    print(
        f"throughput on {rate['files']} fixtures: {rate['files_per_s']} files/s, "
        f"{rate['kb_per_s']} KB/s"
    )


if __name__ == "__main__":
    main()
