"""Map a file path to the language name the parser understands.

Detection is by file name first (a few well-known extension-less files), then by
extension, case-insensitively; a script without an extension by the interpreter its
``#!`` line names (``language_for_file``). Anything unrecognised is ``"text"``, which
parses to no symbols and is chunked by line windows.

Every language but ``"text"`` has symbols: the ``TREE_SITTER_LANGUAGES`` through a
grammar wheel and a tag query (``queries/<language>.scm``), the others through a small
pure-Python reader (``PLAIN_LANGUAGES``). The grammars of ``EXTRA_LANGUAGES`` ship with
``codecompass[languages]``; without them those files are still chunked, by line windows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import PurePath

# Names people type for a language (lower-cased first): `--lang Go`, `--lang ts`.
LANGUAGE_ALIASES: dict[str, str] = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "golang": "go",
    "rs": "rust",
    "c++": "cpp",
    "cxx": "cpp",
    "c#": "csharp",
    "cs": "csharp",
    "rb": "ruby",
    "md": "markdown",
    "txt": "text",
    "kt": "kotlin",
    "kts": "kotlin",
    "scala3": "scala",
    "ex": "elixir",
    "exs": "elixir",
    "hs": "haskell",
    "ml": "ocaml",
    "jl": "julia",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
    "postgres": "sql",
    "postgresql": "sql",
    "tf": "hcl",
    "terraform": "hcl",
    "yml": "yaml",
    "proto": "protobuf",
    "gql": "graphql",
    "makefile": "make",
    "docker": "dockerfile",
    "containerfile": "dockerfile",
    "objective-c": "objc",
    "objectivec": "objc",
    "ps1": "powershell",
    "pwsh": "powershell",
    "f90": "fortran",
    "htm": "html",
}

# Grammars that come with the core install: the config, build and web formats found in
# most repositories, each under 1.6 MB installed.
CORE_LANGUAGES: frozenset[str] = frozenset(
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
        "bash",
        "css",
        "scss",
        "html",
        "json",
        "yaml",
        "toml",
        "hcl",
        "lua",
        "make",
    }
)

# Grammars behind the `codecompass[languages]` extra: heavier or rarer ones.
EXTRA_LANGUAGES: frozenset[str] = frozenset(
    {
        "kotlin",
        "swift",
        "scala",
        "elixir",
        "haskell",
        "ocaml",
        "dart",
        "zig",
        "julia",
        "sql",
        "groovy",
        "perl",
        "objc",
        "powershell",
        "nix",
        "fortran",
    }
)

TREE_SITTER_LANGUAGES: frozenset[str] = CORE_LANGUAGES | EXTRA_LANGUAGES

EXTRA_INSTALL_HINT = "pip install 'codecompass[languages]'"

MARKUP_LANGUAGES: frozenset[str] = frozenset({"markdown", "rst"})

# Read by pure-Python code: documents, formats with no usable grammar wheel (R, Cython,
# Protobuf, GraphQL, Prisma, CMake, Dockerfile) and single-file components, whose <script>
# is parsed with the JavaScript/TypeScript grammar.
PLAIN_LANGUAGES: frozenset[str] = MARKUP_LANGUAGES | frozenset(
    {"r", "cython", "protobuf", "graphql", "prisma", "cmake", "dockerfile", "vue", "svelte"}
)

SYMBOL_LANGUAGES: frozenset[str] = TREE_SITTER_LANGUAGES | PLAIN_LANGUAGES

LANGUAGES: frozenset[str] = SYMBOL_LANGUAGES | {"text"}

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".y": "c",  # yacc and lex: their C sections (`blanking.grammar_code`)
    ".l": "c",
    ".yy": "cpp",
    ".ll": "cpp",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".jbuilder": "ruby",
    ".gemspec": "ruby",
    ".podspec": "ruby",  # CocoaPods
    ".ru": "ruby",
    ".php": "php",
    ".phtml": "php",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".rmd": "markdown",  # R Markdown
    ".qmd": "markdown",  # Quarto
    ".mdx": "markdown",  # Markdown with JSX (Docusaurus, Next.js, Storybook)
    ".rst": "rst",
    ".rest": "rst",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".lua": "lua",
    ".rockspec": "lua",  # a LuaRocks package manifest is Lua
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".dart": "dart",
    ".zig": "zig",
    ".jl": "julia",
    ".r": "r",
    ".pyx": "cython",
    ".pxd": "cython",
    ".pxi": "cython",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".sql": "sql",
    ".tf": "hcl",
    ".tfvars": "hcl",
    ".hcl": "hcl",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".json": "json",
    ".proto": "protobuf",
    ".graphql": "graphql",
    ".graphqls": "graphql",
    ".gql": "graphql",
    ".prisma": "prisma",
    ".vue": "vue",
    ".svelte": "svelte",
    ".css": "css",
    ".scss": "scss",
    ".html": "html",
    ".htm": "html",
    ".mk": "make",
    ".cmake": "cmake",
    ".dockerfile": "dockerfile",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".pl": "perl",
    ".pm": "perl",
    ".m": "objc",
    ".mm": "objc",
    ".ps1": "powershell",
    ".psm1": "powershell",
    ".psd1": "powershell",  # a module manifest: one hashtable
    ".nix": "nix",
    ".f90": "fortran",
    ".f95": "fortran",
    ".f03": "fortran",
    ".f08": "fortran",
}

# Exact file names (lower-cased) that carry no telling extension.
_FILE_NAMES: dict[str, str] = {
    "rakefile": "ruby",
    "gemfile": "ruby",
    "guardfile": "ruby",
    "podfile": "ruby",
    "vagrantfile": "ruby",
    "brewfile": "ruby",
    "capfile": "ruby",
    "dangerfile": "ruby",
    "fastfile": "ruby",  # fastlane's lanes; Appfile and Matchfile are its settings
    "appfile": "ruby",
    "matchfile": "ruby",
    "sconstruct": "python",
    "sconscript": "python",
    "makefile": "make",
    "gnumakefile": "make",
    "cmakelists.txt": "cmake",
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "jenkinsfile": "groovy",
    ".bashrc": "bash",
    ".bash_profile": "bash",
    ".zshrc": "bash",
    ".profile": "bash",
}


# numpy's and SciPy's templated C (`loops.c.src`, `arraytypes.h.src`, `funcs.inc.src`):
# C with `@TYPE@` placeholders a build step repeats for each type.
_TEMPLATE_LANGUAGES = {".c": "c", ".h": "c", ".inc": "c", ".cpp": "cpp", ".hpp": "cpp"}
_TEMPLATE_WORD = re.compile(r"@(\w+)@")


# Embedded Ruby templates, named after what they render (`show.html.erb`, `x.js.erb`).
_EMBEDDED_RUBY = (".erb",)


def _template_language(name: str) -> str | None:
    """The language of a numpy-style C or C++ template named `name` (lower case,
    `x.c.src`), else None."""
    if not name.endswith(".src"):
        return None
    stem = name[: -len(".src")]
    dot = stem.rfind(".")
    return _TEMPLATE_LANGUAGES.get(stem[dot:]) if dot >= 0 else None


def is_c_template(path: str) -> bool:
    """A numpy-style C or C++ template (`x.c.src`)."""
    return _template_language(path.lower()) is not None


def template_code(text: str) -> str:
    """A C template as the parser reads it: each `@TYPE@` a name of the same length,
    `_TYPE_` (so `@TYPE@_add` defines `_TYPE__add`), lines and offsets unchanged."""
    return _TEMPLATE_WORD.sub(lambda m: f"_{m.group(1)}_", text)


def language_for_path(path: str) -> str:
    """Language name for ``path`` (one of ``LANGUAGES``); ``"text"`` when unknown."""
    name = PurePath(path.replace("\\", "/")).name.lower()
    template = _template_language(name)
    if template is not None:
        return template
    by_name = _FILE_NAMES.get(name)
    if by_name is not None:
        return by_name
    if name.endswith(_EMBEDDED_RUBY) and name.count(".") > 1:
        name = name.rsplit(".", 1)[0]  # a Rails view, `_form.html.erb`: its output's language
    dot = name.rfind(".")
    if dot <= 0:
        # No extension, or a dot-file such as ".gitignore".
        return "text"
    by_extension = _EXTENSIONS.get(name[dot:])
    if by_extension is None and name.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"  # Dockerfile.dev, Containerfile.prod
    return by_extension or "text"


# The interpreter a `#!` line names → the language of a script without an extension
# (httpx's `scripts/check`, SymPy's `bin/isympy`).
_INTERPRETERS: dict[str, str] = {
    **dict.fromkeys(("sh", "bash", "zsh", "dash", "ksh", "ash"), "bash"),
    **dict.fromkeys(("python", "pypy", "pypy3"), "python"),
    **dict.fromkeys(("node", "nodejs", "deno", "bun"), "javascript"),
    **dict.fromkeys(("lua", "luajit"), "lua"),
    **dict.fromkeys(("pwsh", "powershell"), "powershell"),
    **{name: name for name in ("ruby", "perl", "php", "julia", "elixir", "groovy", "make")},
    "Rscript": "r",
}
_VERSIONED = re.compile(r"(python|pypy|ruby|perl|php|lua|node)[\d.]+")


# A `.h` header is C unless its code says otherwise (markers at the start of a line, so
# that prose in a comment rarely counts).
_OBJC_HEADER = re.compile(r"^\s*@(?:interface|protocol|implementation)\b", re.M)
_CPP_HEADER = re.compile(
    r"^\s*(?:namespace\s+[\w:]*\s*\{|template\s*<|class\s+\w[\w:]*\s*[:{]"
    r"|(?:public|private|protected)\s*:|using\s+namespace\b|#include\s*<(?:[a-z_]+)>)"
    r"|\bstd::\w",
    re.M,
)


# A `.t` file is a Perl test script when its code says so; dune and Mercurial name their
# shell transcripts (cram tests) `.t` too.
_PERL_TEST = re.compile(r"\A#!.*\bperl|^use\s+(?:strict|warnings|v?5|[A-Z][\w:]*)\b", re.M)


# reStructuredText kept in `.txt` files (Django's 600 pages of documentation, many a
# `README.txt` or `CHANGES.txt`).
_RST_ADORNMENT = re.compile(r"([=\-~^*+#\"'`:.])\1{2,}")
# A directive, a link target, a substitution, a footnote or citation, a role, a link.
_RST_MARKUP = re.compile(
    r"^\.\. (?:[\w:-]+::|_[^:\n]*:|\|[^|\n]+\||\[[^\]\n]+\])|:[\w:-]+:`[^`\n]+`|`[^`\n]+`__?(?!\w)",
    re.M,
)


def _reads_as_rst(text: str) -> bool:
    """Two titles, a title with an overline, or a title and other markup. A title is a
    line over a line of one punctuation character at least as long, after a blank line
    or the same line (its overline)."""
    lines = [line.rstrip() for line in text.splitlines()]
    titles = 0
    for i in range(len(lines) - 1):
        title, under = lines[i], lines[i + 1]
        overlined = i > 0 and lines[i - 1] == under  # which allows an inset title
        if (
            title.strip()
            and (overlined or not title[0].isspace())
            and len(under) >= len(title)
            and _RST_ADORNMENT.fullmatch(under)
            and not _RST_ADORNMENT.fullmatch(title.strip())
            and (i == 0 or not lines[i - 1] or overlined)
        ):
            titles += 1
            if titles == 2 or overlined:
                return True
    return titles == 1 and _RST_MARKUP.search(text) is not None


def language_for_file(path: str, text: str) -> str:
    """`language_for_path`; for a `.h` header, C++ or Objective-C when its code is
    (fmt's `include/fmt/format.h` read as C kept 9 of its classes and structs, no
    namespace, no member); for a `.t` file, Perl when it reads as a Perl test script
    (Mojolicious keeps 110 under `t/`); for a file without an extension, the language of
    the interpreter its `#!` line names."""
    language = language_for_path(path)
    if language == "c" and path.lower().endswith(".h"):
        if _OBJC_HEADER.search(text):
            return "objc"
        return "cpp" if _CPP_HEADER.search(text) else "c"
    if path.lower().endswith(".t"):
        return "perl" if _PERL_TEST.search(text[:4096]) else language
    if path.lower().endswith(".txt") and language == "text":
        return "rst" if _reads_as_rst(text) else language
    name = PurePath(path.replace("\\", "/")).name
    if language != "text" or not text.startswith("#!") or name.rfind(".") > 0:
        return language
    words = text[2:200].split("\n", 1)[0].split()
    if words and PurePath(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return language
    interpreter = PurePath(words[0]).name
    versioned = _VERSIONED.fullmatch(interpreter)
    return _INTERPRETERS.get(versioned.group(1) if versioned else interpreter, language)


# `regress`: tmux's, PostgreSQL's and the BSDs' regression suites.
_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "regress"})


def is_test_folder(name: str) -> bool:
    """A folder that holds tests (`tests`, `__tests__`, `spec`, …)."""
    return name in _TEST_DIRS


@lru_cache(maxsize=65_536)  # a search asks for every candidate, mostly of a few files
def is_test_path(path: str) -> bool:
    """A test, by the conventions of the common test runners. A `testing` folder below
    the repository's first level is a package's tools for its users' tests, not a test
    suite (`numpy/testing/`, `sphinx/testing/`, Angular's `core/testing/`); a file there
    is a test only by its own name. pytest's own suite is its top-level `testing/`."""
    parts = path.split("/")
    return _test_folder_at(parts[:-1]) is not None or _is_test_name(parts[-1])


def _test_folder_at(folders: Sequence[str]) -> int | None:
    """Where the first test folder is among these folders (a `testing` folder counts at
    the top alone)."""
    for i, part in enumerate(folders):
        if part in _TEST_DIRS and (part != "testing" or i == 0):
            return i
    return None


def _is_test_name(name: str) -> bool:
    """A file a test runner collects by its name."""
    stem = name.rsplit(".", 1)[0]
    return (
        name.startswith("test_")
        or stem.endswith(("_test", "_tests", ".test", ".spec"))
        or name.endswith(".t")  # Perl's tests, and cram tests
        or name == "conftest.py"
    )


def nested_test_package(path: str) -> str | None:
    """The `test` or `tests` folder below the first level that makes this path a test,
    when it is the path's first test folder (`django/test` of `django/test/utils.py`)."""
    if "/test/" not in path and "/tests/" not in path:
        return None
    parts = path.split("/")
    at = _test_folder_at(parts[:-1])
    if not at or parts[at] not in ("test", "tests"):
        return None
    return "/".join(parts[: at + 1])


def is_test_tooling(folder: str, paths: Iterable[str]) -> bool:
    """Whether this `nested_test_package` holds a package's tools for its users' tests,
    not a test suite, given the paths of every file below it: it is a Python package
    (`__init__.py`) and no file below it is one a test runner collects, nor `tests.py`.
    Django's `django/test/` (TestCase, the test client, `override_settings`) is one; a
    suite nested in a package names its files for its runner (`tornado/test/web_test.py`,
    `mypy/test/conftest.py`, `sympy/core/tests/test_basic.py`). A folder of test helpers
    alone reads as tooling too (astropy's `io/tests/mixin_columns.py`)."""
    package = False
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if _is_test_name(name) or name in ("tests.py", "test.py"):
            return False
        package = package or path == f"{folder}/__init__.py"
    return package


# `sample` alone is left out: it names the package of PyPA's sample project.
_EXAMPLE_DIRS = frozenset({"examples", "example", "_examples", "_example", "samples", "demos"})
# Code that shows, measures or documents the project rather than being it.
# Not `doc` nor `docs`: a package may be named so (cobra's `doc/` writes man pages).
_AUXILIARY_DIRS = _EXAMPLE_DIRS | {"benchmarks", "benchmark", "bench", "asv_bench", "docs_src"}


_JVM_SOURCE_ROOTS = frozenset({"java", "kotlin", "scala", "groovy"})


def is_example_path(path: str) -> bool:
    """Code in an examples, samples or demos folder: how to use the project, not the
    project itself. Below a Maven or Gradle source root (`src/main/java/`) folders are
    packages: Spring's `org/springframework/samples/petclinic` is the project."""
    return any(folder in _EXAMPLE_DIRS for folder in _project_folders(path))


def is_auxiliary_path(path: str) -> bool:
    """Code that shows, measures or documents the project: examples, benchmarks
    (`sympy/core/benchmarks/`, `asv_bench/`), its documentation's code (typer's
    `docs_src/`)."""
    return any(folder in _AUXILIARY_DIRS for folder in _project_folders(path))


def _project_folders(path: str) -> list[str]:
    """The folders of `path` above a Maven or Gradle source root's packages."""
    folders = path.split("/")[:-1]
    for index, folder in enumerate(folders):
        if folder in _JVM_SOURCE_ROOTS and index >= 2 and folders[index - 2] == "src":
            return folders[:index]
    return folders


_TEST_SUFFIXES = ("_tests", "_test", "_spec", ".test", ".spec", "Tests", "Test")


def name_under_test(path: str) -> str | None:
    """The name of the file a test file tests, by the runners' naming conventions
    (`test_ccode.py` → `ccode.py`, `mux_test.go` → `mux.go`, `app.spec.ts` → `app.ts`,
    `ParserTest.java` → `Parser.java`); a file in a test folder without a test name
    (`tests/cli.py`) tests its namesake. None for anything but a test, and for a test
    folder's fixtures (`conftest.py`) and package marker (`__init__.py`)."""
    name = path.rsplit("/", 1)[-1]
    if not is_test_path(path) or name in ("conftest.py", "__init__.py"):
        return None
    stem, dot, extension = name.rpartition(".")
    if not dot:
        return None
    if stem.startswith("test_"):
        stem = stem[5:]
    elif stem.startswith("Test") and stem[4:5].isupper():  # TestParser.java
        stem = stem[4:]
    for suffix in _TEST_SUFFIXES:
        if stem.endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    return f"{stem}.{extension}" if stem.strip("_.") else None


# A type declaration file's suffix → the suffixes of the code it may declare, beside it.
# A package's `index.d.cts` (`.d.mts`) types its CommonJS (ES module) build, which is
# seldom indexed: the source beside it, `index.js`, is that code.
_DECLARED = {
    ".pyi": (".py",),
    ".pxd": (".pyx",),  # a Cython module's declarations
    ".d.ts": (".ts", ".tsx", ".js", ".jsx"),
    ".d.mts": (".mts", ".mjs", ".ts", ".js"),
    ".d.cts": (".cts", ".cjs", ".ts", ".js"),
}


def is_declaration_path(path: str) -> bool:
    """Type declarations only (`.d.ts`, `.pyi`): signatures of code that lives elsewhere."""
    return path.endswith(tuple(_DECLARED))


def declared_code(path: str) -> tuple[str, ...]:
    """The files a type declaration file may describe, beside it: `x.pyi` → `x.py`,
    `x.d.ts` → `x.ts`, `x.js`, …; none for any other file."""
    for suffix, code in _DECLARED.items():
        if path.endswith(suffix):
            stem = path[: -len(suffix)]
            return tuple(stem + ext for ext in code)
    return ()


def stub_module(path: str) -> str | None:
    """The module a Python type stub describes (`pkg/x.pyi` → `pkg/x.py`), else None."""
    return declared_code(path)[0] if path.endswith(".pyi") else None
