"""Syntax errors of C, C++ and C# files before and after the second parse.

Every C, C++ and C# file under the folders given is parsed as indexing parses it first,
then, when that tree has errors, as `blanking.blanked_text` gives it (C/C++ attribute-like
macros blanked, C# conditionals' other branches blanked); parse.py keeps the tree with
fewer ERROR/MISSING nodes. Prints, per folder: files, files with errors, errors in the first
trees, errors in the trees kept, files where the blanked text's tree was kept, and the
parse time of the first trees against the extra parses.

    .venv/bin/python benchmarks/second_parse.py ~/src/fmt ~/src/leveldb ~/src/serilog
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from codecompass.indexing import treesitter
from codecompass.indexing.blanking import BLANKED_LANGUAGES, blanked_text, error_count
from codecompass.indexing.languages import language_for_file

TIMEOUT_SECONDS = 30.0


def measure(folder: Path) -> dict[str, float]:
    figures = dict.fromkeys(
        ("files", "with_errors", "errors_first", "errors_kept", "second_kept"), 0.0
    )
    figures |= {"first_seconds": 0.0, "extra_seconds": 0.0}
    for directory, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if name != ".git"]
        for name in names:
            path = Path(directory, name)
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            language = language_for_file(str(path), text)
            if language not in BLANKED_LANGUAGES:
                continue
            data = text.encode("utf-8")
            started = time.perf_counter()
            first = error_count(treesitter.parse_tree(language, data, TIMEOUT_SECONDS))
            parsed = time.perf_counter()
            kept = first
            blanked = blanked_text(language, data) if first else data
            if blanked != data:
                second = treesitter.parse_tree(language, blanked, TIMEOUT_SECONDS)
                kept = min(first, error_count(second))
            figures["first_seconds"] += parsed - started
            figures["extra_seconds"] += time.perf_counter() - parsed
            figures["files"] += 1
            figures["with_errors"] += first > 0
            figures["errors_first"] += first
            figures["errors_kept"] += kept
            figures["second_kept"] += kept < first
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    print("folder  files  with errors  errors first → kept  second tree kept  parse s (+extra)")
    for folder in args.folders:
        f = measure(folder)
        print(
            f"{folder.name}  {f['files']:.0f}  {f['with_errors']:.0f}  "
            f"{f['errors_first']:.0f} → {f['errors_kept']:.0f}  {f['second_kept']:.0f}  "
            f"{f['first_seconds']:.2f} (+{f['extra_seconds']:.2f})"
        )


if __name__ == "__main__":
    main()
