"""Symbol arguments as people write them: the readings of a written name, how each
reading scores, and how one candidate is chosen or the name called ambiguous.

Everything that takes a symbol (the CLI's `symbol`, `callers`, `deps`, `graph`; the MCP
tools; `Engine.find_symbol`, `Engine.callers` …) goes through `GraphReader.lookup`,
which tries each reading against the index:

| written                                        | read as                              | score |
| ---------------------------------------------- | ------------------------------------ | ----- |
| `rich/markup.py#render`                        | a node id                            | 1.0   |
| `Console.print`                                | a qualified name                     | 1.0   |
| `markup.render`, `rich.console.Console.print`  | a module, then a qualified name      | 1.0   |
| `markup.py#render`, `rich/markup.py:render`    | a file, then a qualified name in it  | 1.0   |
| `markup.py:50`                                 | the innermost symbol at that line    | 1.0   |
| `markup.py:escape_backslashes`, `console.print`| a file or module, then a simple name | 0.95  |
| `render`                                       | a simple name                        | 0.95  |
| `Inner.method`                                 | the end of `Outer.Inner.method`      | 0.9   |
| `App\\Services\\Favorites::add`              | a namespace its folders mirror, then | 0.9   |
|                                                | a qualified name (C#, PHP)           |       |
| `aws_launch_template`                          | a head of qualified names, no symbol | 0.9   |

`Class::method`, `Class#method` and `module:func` read as `Class.method` and
`module.func`; a trailing `()` is dropped. A JavaScript private member (`#retry`) answers
to its name as written (`Ky.#retry`, `#retry`) and, a step lower (0.95 for a qualified
name, 0.9 for a simple one or a name in a file), without its `#` (`Ky.retry`, `retry`),
as people say it. A *module* is a file's path without its
extension, `.` for `/` (`rich.markup` is `rich/markup.py`, and as well `.js`, `.ts`,
`.go` … files); a package's `__init__`, `index` or `mod` file also answers to its folder,
and a Go, Java, Kotlin or Scala file to its folder (the package). A *file* is a path
relative to the repository root (with or without the repository's name in front) or
only its last parts (`markup.py`). `path:line` names the file itself when no symbol
contains the line. Resolving (not `find_symbol`) also reads a whole path or a dotted
module name (`rich.markup`) as a file. A simple name in a module, the readings that
need the file list (a path, a module as a file) and the ends of qualified names are
tried, in that order, only when no earlier reading answers; the head of qualified names
last (a Terraform resource type: `aws_launch_template` is `aws_launch_template.this`).

Choosing: code comes before tests (`res.send` is express's `lib/response.js#res.send`,
not a mock of it in `test/`; walkdir's `filter_entry` is a method of the library, not the
test function of that name in `src/tests/`, though a function's own name outscores a
method's) and before type declarations (attrs's `define` is `attr/_next_gen.py#define`,
not the two overloads its `attrs/__init__.pyi` declares), then candidates rank by
score, then by whether the written module or path reaches the repository root
(`rich.markup.render` is `rich/markup.py#render` rather than a vendored
`pip/_vendor/rich/markup.py#render`), then by importance. The first is chosen when no
other candidate has its place (code or test, code or declaration), score and rootedness;
otherwise the name is ambiguous and the error lists every candidate, best first. Walking the graph
(`callers`, `deps`, `graph`) takes the overloads of one method together when they are
the best candidates: C#'s or Java's `Mediator.Send` is every `Send` of that class, and a
Ruby class reopened in several files is every file's.
A Python type stub's symbol, when chosen, is answered by the code it declares
(`GraphReader._implemented`). Case-insensitive and fuzzy matches (below 0.9, from
`find_symbol`) are offered when nothing else matches, never chosen.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from codecompass.errors import AmbiguousSymbolError, Candidate, Hint
from codecompass.indexing.languages import is_declaration_path, is_test_path
from codecompass.models import SymbolRecord

COMPLETE = 1.0  # the name, as written, names the node completely
SIMPLE_NAME = 0.95
TRAILING = 0.9  # the least a reading needs to be chosen without being asked
MAX_QUALIFIED_PARTS = 10  # `a.b.….z`: at most this many trailing parts are a qualified name
MAX_CANDIDATES_SHOWN = 8
MAX_CANDIDATES = 20
INDEX_STEMS = frozenset({"__init__", "index", "mod"})
# Go, Java, Kotlin, Scala: a file belongs to the package its folder names.
FOLDER_PACKAGE_EXTENSIONS = frozenset({".go", ".java", ".kt", ".kts", ".scala"})
_LINE_AND_COLUMN = re.compile(r"(.+):(\d+):\d+")
_MEMBER_HASH = re.compile(r"(?<=[^.])#")


@dataclass(frozen=True, slots=True)
class Match:
    """A node a written name may mean. `rooted`: the module or path written reaches the
    repository root (a node id counts as rooted)."""

    id: str
    kind: str  # a symbol kind, or "file"
    repo: str
    path: str
    line: int | None
    score: float
    rooted: bool
    symbol: SymbolRecord | None = None

    def rank(self) -> tuple[bool, bool, float, bool]:
        """Higher is better: code over tests, code over type declarations (`.pyi`,
        `.d.ts`), then the score, then rootedness."""
        return (
            not is_test_path(self.path),
            not is_declaration_path(self.path),
            self.score,
            self.rooted,
        )

    def candidate(self) -> Candidate:
        return Candidate(self.id, self.kind, self.repo, self.path, self.line, self.score)


def symbol_match(symbol: SymbolRecord, score: float, rooted: bool) -> Match:
    s = symbol
    return Match(s.id, s.kind, s.repo, s.path, s.start_line, score, rooted, s)


def file_match(repo: str, path: str, rooted: bool) -> Match:
    return Match(f"{repo}/{path}", "file", repo, path, None, COMPLETE, rooted)


def normalize(text: str) -> str:
    """Other languages' separators as dots (PHP's namespace `\\` too, in a name with
    no dot or slash: not a Windows path); no call parentheses."""
    if "\\" in text and "." not in text and "/" not in text:
        text = text.lstrip("\\").replace("\\", ".")
    return text.replace("::", ".").removesuffix("()")


def namespace_folders(namespace: Sequence[str], path: str) -> int:
    """How many trailing parts of a namespace the folders of `path` end with, ignoring
    case and splitting folder names at dots: C# and PHP symbols are named without their
    namespace, which the folders mirror (`App.Services` → `app/Services/`: 2,
    `eShop.Basket.API.Extensions` → `src/Basket.API/Extensions/`: 3)."""
    words = [w.lower() for folder in path.split("/")[:-1] for w in folder.split(".") if w]
    wanted = [p.lower() for p in namespace]
    count = 0
    while count < min(len(words), len(wanted)) and words[-1 - count] == wanted[-1 - count]:
        count += 1
    return count


def member_dots(text: str) -> str:
    """`Class#method` as `Class.method`. A `#` that opens a name (at the start or after
    a dot) is kept: it is part of a JavaScript private member's name (`Ky.#retry`)."""
    return _MEMBER_HASH.sub(".", text)


def private_member(name: str) -> str | None:
    """`Ky.retry` → `Ky.#retry`: the JavaScript private member a name without its `#`
    may mean; None when the last part already has one."""
    head, dot, last = name.rpartition(".")
    if not last or last.startswith("#"):
        return None
    return f"{head}{dot}#{last}"


def file_splits(text: str) -> list[tuple[str, str]]:
    """(file, name or line) pairs the text may be: at its first `#`, at its last `:`
    (`path:line:column` keeps the line)."""
    splits: list[tuple[str, str]] = []
    if "#" in text:
        left, right = text.split("#", 1)
        splits.append((left, right))
    column = _LINE_AND_COLUMN.fullmatch(text)
    if column is not None:
        splits.append((column[1], column[2]))
    elif ":" in text:
        left, right = text.rsplit(":", 1)
        splits.append((left, right))
    return [(left, right) for left, right in splits if left and right]


def dotted_parts(text: str) -> list[str] | None:
    """`a.b.c` → its parts; None when the text cannot be a dotted name."""
    name = member_dots(text).replace(":", ".")
    parts = name.split(".")
    if "/" in name or not all(parts):
        return None
    return parts


def qualified_tails(parts: Sequence[str]) -> dict[str, int]:
    """Each trailing run of parts that may be a qualified name → where it starts (0: the
    whole name, which needs no module)."""
    first = max(0, len(parts) - MAX_QUALIFIED_PARTS)
    tails = {".".join(parts[i:]): i for i in range(max(first, 1), len(parts))}
    tails[".".join(parts)] = 0
    return tails


def path_rooted(written: str, repo: str, path: str) -> bool | None:
    """Whether `written` names the file `repo/path`: True from the repository root (with
    or without the repository's name), False by its last parts, None not at all."""
    written = written.removeprefix("./").strip("/")
    full = f"{repo}/{path}"
    if written in (path, full):
        return True
    if full.endswith("/" + written):
        return False
    return None


def module_forms(path: str) -> list[str]:
    """The module paths (`/`-separated, from the repository root; "" for the root
    folder) a file answers to."""
    folder, _, base = path.rpartition("/")
    dot = base.rfind(".")
    stem, extension = (base[:dot], base[dot:]) if dot > 0 else (base, "")
    forms = [f"{folder}/{stem}" if folder else stem]
    if stem in INDEX_STEMS or extension in FOLDER_PACKAGE_EXTENSIONS:
        forms.append(folder)
    return forms


def module_rooted(module: str, repo: str, path: str) -> bool | None:
    """Whether the module written `module` (`/`-separated) is the file `repo/path`: True
    from the repository root, False by its last parts, None not at all."""
    found: bool | None = None
    for form in module_forms(path):
        full = f"{repo}/{form}" if form else repo
        if module in (form, full):
            return True
        if full.endswith("/" + module):
            found = False
    return found


def innermost(symbols: Sequence[SymbolRecord], line: int) -> SymbolRecord | None:
    """The smallest symbol whose lines hold `line` (the later one on a tie)."""
    around = [s for s in symbols if s.start_line <= line <= s.end_line]
    return min(around, key=lambda s: (s.end_line - s.start_line, -s.start_line), default=None)


# Files that declare an interface others implement: a name they share with code is the
# code's first.
_INTERFACE_FILES = (".proto", ".thrift", ".graphql", ".gql", ".avdl", ".smithy")


def choose(text: str, ranked: Sequence[Match]) -> Match | None:
    """The candidate `text` means, from candidates best first: the first, unless another
    has its rank (then AmbiguousSymbolError lists them all; but the one in code among
    declarations in interface files is meant, and copies of one declaration are one).
    None when there is none."""
    tied = _tied(ranked)
    if len(tied) <= 1:
        return tied[0] if tied else None
    # the code, over declarations of it in interface files (an rpc's `.proto` copies)
    code = [m for m in tied if not m.path.endswith(_INTERFACE_FILES)]
    if len(code) == 1:
        return code[0]
    if not code and len({_declared(m) for m in tied}) == 1:
        # copies of one declaration (each service keeps its `demo.proto`): the one
        # nearest the root stands for them all
        return min(tied, key=lambda m: (m.path.count("/"), m.path))
    raise ambiguous(text, tied, ranked)


def _declared(m: Match) -> tuple[str, str, str]:
    """What a declaration in an interface file declares, wherever its copy lies."""
    name = m.symbol.qualified_name if m.symbol is not None else ""
    return (m.kind, name, posixpath.basename(m.path))


def _tied(ranked: Sequence[Match]) -> list[Match]:
    """The candidates of the best rank."""
    return [m for m in ranked if m.rank() == ranked[0].rank()] if ranked else []


def overload_group(ranked: Sequence[Match]) -> list[Match]:
    """The best candidates when they are the overloads of one method (one qualified name
    in one file: C#'s three `Mediator.Send`), or one Ruby class or module reopened in
    several files (Jekyll's `Commands::Serve` in four), first by file and line; else an
    empty list."""
    tied = _tied(ranked)
    best = tied[0] if tied else None
    if best is None or best.symbol is None or len(tied) < 2:
        return []
    name = (best.repo, best.symbol.qualified_name)
    if any(m.symbol is None or (m.repo, m.symbol.qualified_name) != name for m in tied):
        return []
    one_file = all(m.path == best.path for m in tied)
    reopened = all(
        m.symbol is not None and m.symbol.kind in ("class", "module") and m.path.endswith(".rb")
        for m in tied
    )
    if not (one_file or reopened):
        return []
    return sorted(tied, key=lambda m: (m.path, m.line or 0))


def ambiguous(text: str, tied: Sequence[Match], ranked: Sequence[Match]) -> AmbiguousSymbolError:
    kinds = {"file" if m.kind == "file" else "symbol" for m in tied}
    noun = "files" if kinds == {"file"} else "symbols" if kinds == {"symbol"} else "nodes"
    shown = [_describe(m) for m in ranked[:MAX_CANDIDATES_SHOWN]]
    if len(ranked) > MAX_CANDIDATES_SHOWN:
        shown.append(f"… {len(ranked) - MAX_CANDIDATES_SHOWN} more")
    # Overloads share every name: only a line tells them apart.
    example = f"{tied[0].path}:{tied[0].line}" if overload_group(tied) else _longer_names(tied[0])
    return AmbiguousSymbolError(
        f"{text!r} is ambiguous; {len(tied)} {noun} match equally well (best first):\n  "
        + "\n  ".join(shown),
        Hint(
            cli=f"Run the command again with one of these ids, or a longer name such as {example}.",
            mcp=f"Call again with one of these ids, or a longer name such as {example}.",
        ),
        candidates=tuple(m.candidate() for m in ranked[:MAX_CANDIDATES]),
    )


def _describe(m: Match) -> str:
    where = "file" if m.line is None else f"{m.kind}, line {m.line}"
    return f"{m.id}  ({where}, score {m.score:.2f})"


def _longer_names(m: Match) -> str:
    """How to write `m` so that it is told apart: its module and qualified name, or its
    path and line."""
    if m.symbol is None:
        return f"{m.repo}/{m.path}"
    folder, _, stem = module_forms(m.path)[0].rpartition("/")
    if stem in INDEX_STEMS:  # a package: named after its folder
        stem = folder.rpartition("/")[2] or m.repo
    name = m.symbol.qualified_name
    if name.split(".")[0] == stem:
        # A class named after its file (Java, C#, PHP): `Handler.Handler.handle` would be
        # as ambiguous as the name. A Java or Go package tells it apart; else the line.
        package = folder.rpartition("/")[2]
        if not package or not m.path.endswith(tuple(FOLDER_PACKAGE_EXTENSIONS)):
            return f"{m.path}:{m.line}"
        stem = package
    return f"{stem}.{name} or {m.path}:{m.line}"
