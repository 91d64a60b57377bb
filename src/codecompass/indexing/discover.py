"""Find the files of a repository worth indexing, and count what was skipped and why.

Listing. When `root` is inside a git work tree and `git` runs, the files are those git
reports: tracked plus untracked-but-not-ignored (`git ls-files --cached --others
--exclude-standard`), relative to `root` even when `root` is a subfolder of the repo.
Tracked files deleted on disk are dropped without a count. When `root` is itself ignored
by its enclosing repo, or there is no git, the folder is walked instead: `.gitignore`
files (root and nested, deeper files winning, `!` negation honoured) are applied, `.git`
is never entered and symlinked directories are never descended. Ignored paths are not
counted in either mode -- git does not report them.

Skip reasons, in the order they are tested (the first that applies is counted):

1. path rules, no I/O:
   ``vendored``     a directory component is a dependency, build, cache or tool folder
                    (`node_modules`, `.venv`, `dist`, `.codecompass`, a `*.docset`
                    documentation bundle, ...). Counted once per such directory (reported
                    as `dir/`), not per file, so that both listing modes agree -- the walk
                    never enters these folders.
   ``secret``       `security.secrets.is_secret_path`; never overridable by `allow`.
   ``blocked``      matches `DiscoveryRules.block`.
   ``not_allowed``  `DiscoveryRules.allow` is non-empty and the path matches none of it.
   ``lockfile``     dependency lock files.
   ``translations`` gettext and XLIFF catalogs (`.po`, `.pot`, `.mo`, `.xlf`, and any
                    file of a gettext `LC_MESSAGES/` folder: Sphinx's `sphinx.js`): each
                    message once per language, outranking the code that emits it. And
                    documentation translated from an English original that is indexed
                    too: a folder named for a language (`docs/ko/docs/x.md` beside
                    `docs/en/docs/x.md`) or a name ending in one (`README_ZH.md` beside
                    `README.md`, `index.zh-CN.md` beside `index.en-US.md`). FastAPI
                    holds each page in 15 languages: 14 copies of every answer that
                    pushed its code out of the file view. (One existence check per
                    such file.) And an application's message catalog in a language
                    other than English (`locale_catalog`: `locales/fr.json`,
                    `public/intl/messages/de-DE.json`; 45,382 of umami's 47,470
                    symbols).
   ``superseded``   documentation Docusaurus keeps for an older release whose page the
                    current docs hold too (`versioned_docs/version-10.x/x.md` beside
                    `docs/x.md`): tRPC's middlewares page three times, the older copies
                    first for "how do I add authentication middleware". (Existence
                    checks only for files under `versioned_docs/`.)
   ``media``        pictures and fonts written as text (`.svg`, `.eps`, `.ps`, `.ai`,
                    `.afm`, `.bdf`): drawing commands and glyph metrics, no code to find.
   ``minified``     `*.min.js`, `*.min.css`, `*.map`, ...
   ``generated``    protobuf/grpc stubs, `*.g.dart`, `*.designer.cs`, Xcode's
                    `project.pbxproj`, the Maven and Gradle wrappers (`mvnw`,
                    `gradlew`), ...; and a script or stylesheet shipped beside its
                    minified copy (Phoenix's `priv/static/phoenix.js` beside
                    `phoenix.min.js`: a bundle of `assets/js/`, which led its map).
                    (One existence check per such file.)
   ``binary``       extensions that are never text (images, archives, fonts, objects,
                    model weights, databases, ...).
2. `lstat`, never following a link:
   ``symlink``      the path, or a directory above it inside `root`, is a symlink. Links
                    are never followed, so nothing outside `root` is read.
   ``submodule``    the path is a directory (a git submodule or nested repository).
   ``special``      a FIFO, socket or device; never opened, since reading could block.
   ``too_large``    size > `max_file_bytes` (a file of exactly that size is kept); a
                    Jupyter notebook may be `NOTEBOOK_SIZE_FACTOR` times larger, as
                    only its cells' sources are read, not the outputs that make it big.
   ``unreadable``   `lstat` or `open` failed for a reason other than the file being gone.
3. content of the first 8 KiB (`sniff`):
   ``binary``       a NUL byte, unless a UTF-16/32 byte-order mark opens the file and
                    its head decodes (`decoding.sniff_text`); the rules below then read
                    the decoded head. UTF-16 without a mark stays binary. A PDF under
                    another name (an Illustrator `.ai` file) is binary too.
   ``minified``     for js/css/json/html: a line over 5,000 chars, or an average line
                    over 300 chars in a head of more than 1,000 bytes.
   ``generated``    a generator marker in a comment line among the first 5 lines (not
                    one about files the file uses, "This module includes files
                    automatically generated from ply"; nor one naming an OpenAPI
                    client generator: that SDK links a frontend to its backend; nor
                    Rails's `db/schema.rb` or `db/structure.sql`, where a developer
                    looks up the tables' columns); or an HTML page a
                    documentation tool wrote: a `<meta name="generator">` or a
                    `<!-- Generated by` comment in its head (Sphinx, Doxygen, javadoc,
                    rustdoc, MkDocs, ...), or
                    "Generated by" in its last 2 KiB (jazzy's footer). Rendered API
                    pages repeat the doc comments of the code, each page in hundreds
                    of chunks that outrank the code they describe. A
                    script or stylesheet whose last 2 KiB hold a source map comment
                    (`/*# sourceMappingURL=… */`: Spring PetClinic's compiled Bootstrap,
                    2,603 CSS rule sets).
4. content of the whole file, for one of a data format over 64 KiB (`is_data`):
   ``data``         a JSON, JSON Lines, GeoJSON, CSV or TSV file over `DATA_MAX_BYTES`
                    (64 KiB): records, not code (moto's AMI lists per region were 60%
                    of its chunks). Not a manifest (`package.json`, `composer.json`, …),
                    nor an OpenAPI, Swagger or JSON Schema document (`"openapi":`,
                    `"swagger":`, `"$schema":` anywhere in it: such a file is read
                    whole, as sorted keys put `"openapi"` after `"components"`).

Empty files are kept. `examples` holds the first five paths per reason, in sorted order.
A `root` that is not a folder raises `InputError`.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from codecompass.decoding import size_limit, sniff_text
from codecompass.errors import ConfigError, InputError
from codecompass.gitexec import run_git
from codecompass.security.secrets import is_secret_path

SNIFF_BYTES = 8192
TAIL_BYTES = 2048  # the end of an HTML page, a script or a stylesheet (`sniff`)
MAX_EXAMPLES = 5
_GIT_TIMEOUT_S = 120
GONE = "gone"  # deleted between listing and reading: dropped, not counted

VENDORED_DIRS = frozenset(
    {
        "node_modules",
        ".venv",
        "__pycache__",
        ".git",
        ".hg",
        ".svn",
        "vendor",
        "_vendor",  # pip, setuptools: copies of their dependencies
        "vendored",
        "third_party",
        "third-party",
        "thirdparty",
        "3rdparty",
        "extern",  # matplotlib's agg and ttconv; `extern/pybind11` submodules
        "externals",  # scikit-learn's copies of joblib, six, liac-arff, array-api-compat
        "cextern",  # astropy's copies of wcslib, cfitsio and expat: 17% of its chunks
        "bundled",  # spdlog's copy of fmt
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".next",
        ".nuxt",
        ".gradle",
        "bower_components",
        "site-packages",
        ".idea",
        ".codecompass",
    }
)
# A Dash docset (what jazzy and other documentation tools also write): rendered pages, a
# search database, and copies of the site's scripts and styles. Python packaging
# metadata: setuptools' `*.egg-info/` (Django's sdist holds one: a copy of its README, and
# SOURCES.txt, the 4,000 paths of the package) and an installed `*.dist-info/`.
_VENDORED_DIR_SUFFIXES = (".docset", ".egg-info", ".dist-info")


# Where builds, environments and coverage reports (`htmlcov/`: coverage.py's default, a
# copy of every measured file as HTML) go, unless the folder is a Python package of that
# name: coverage.py's `coverage/`, pypa/build's `src/build/`, the standard library's
# `venv/`, Sphinx's test roots' `target/`.
OUTPUT_DIRS = frozenset({"venv", "dist", "build", "target", "coverage", "htmlcov"})


def is_vendored_dir(folder: str, exists: Callable[[str], bool]) -> bool:
    """Whether the folder at repo-relative `folder` ("a/b") holds dependencies or build
    output, never indexed. `exists` tells whether a repo-relative file is there."""
    name = folder.rpartition("/")[2]
    if name in OUTPUT_DIRS:
        return not exists(folder + "/__init__.py")
    return name in VENDORED_DIRS or name.endswith(_VENDORED_DIR_SUFFIXES)


_LOCKFILE_NAMES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "pipfile.lock",
        "cargo.lock",
        "composer.lock",
        "gemfile.lock",
        "go.sum",
        "uv.lock",
        "bun.lockb",
        "packages.lock.json",
        "gradle.lockfile",
    }
)

_MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.cjs", ".min.css", ".map")
_MINIFIABLE_EXTENSIONS = frozenset({"js", "mjs", "cjs", "css", "json", "html", "htm"})
# Records, not code: over DATA_MAX_BYTES such a file is a dump (moto's AMI and instance
# type lists per region were 52,789 of its 88,483 chunks, sympy's CI test durations,
# pylint's contributor aliases). Manifests and API descriptions stay, whatever their size.
DATA_MAX_BYTES = 64 * 1024
_DATA_EXTENSIONS = frozenset({"json", "jsonl", "ndjson", "geojson", "csv", "tsv"})
_MANIFESTS = frozenset({"package.json", "composer.json", "manifest.json", "app.json"})
_DESCRIBES = re.compile(rb'"(?:openapi|swagger|\$schema)"\s*:')
_MAX_LINE_CHARS = 5000
_MAX_AVERAGE_LINE_CHARS = 300
_AVERAGE_RULE_MIN_BYTES = 1000

_GENERATED_SUFFIXES = (
    "_pb2.py",
    "_pb2.pyi",
    "_pb2_grpc.py",
    ".pb.go",
    ".pb.cc",
    ".pb.h",
    ".g.dart",
    ".freezed.dart",
    ".designer.cs",
    ".pbxproj",  # Xcode's project file: written by the IDE, thousands of object ids
)
_GENERATED_MARKER_LINES = 5
_COMMENT_STARTS = tuple(
    s.encode() for s in ("#", "//", "/*", "*", "<!--", "--", ";", "%", '"""', "'''", "(*", "{-")
)
# "Generated from <source> by <tool>": Snowball stemmers, ANTLR parsers, configure output.
# One word between "from" and "by" keeps prose ("generated from the input by") out.
# "This file was generated by Bundler", numpy's f2c LAPACK "This is generated code" (8,000
# of its chunks).
_GENERATED_MARKER = re.compile(
    rb"@generated\b|DO NOT EDIT|(?i:\b(?:auto-?generated|automatically generated)\b)"
    rb"|(?i:\bgenerated from \S+ by\b)"
    rb"|(?i:\bthis (?:file|code|module|header) (?:is|was|has been) (?:machine[- ])?generated\b)"
    rb"|(?i:\bthis is (?:machine[- ])?generated code\b)"
)
# A line that says a person keeps the file: IPython's `docs/source/conf.py` "has been
# edited manually from the auto-generated one", `tests/simpleerr.py` says "DO NOT EDIT
# FURTHER! It will break exception doctests".
_HAND_KEPT = re.compile(
    rb"(?i)\b(?:edited (?:manually|by hand)|(?:manually|hand)[- ]edited|do not edit further)\b"
)
# A line about other files a hand-written one uses: astropy's unit parsers say "This
# module includes files automatically generated from ply (these end in _lextab.py …)".
_USES_GENERATED = re.compile(
    rb"(?i)\b(?:includes|uses|imports|reads|loads|needs|requires)\b[^.]*\b(?:files|modules|tables)\b"
    rb"[^.]*\bgenerated\b"
)
# An OpenAPI client's SDK is how a frontend calls its backend (`ItemsService.readItems` →
# `client.get({ url: '/api/v1/items/' })`): read as code, its calls link the two.
_API_CLIENT_GENERATOR = re.compile(
    rb"(?i)openapi-ts|openapi-typescript-codegen|openapi[- ]generator|swagger-codegen|\borval\b"
)
# A database's schema as Rails dumps it: "auto-generated", yet where its developers look
# up every table's columns (the migrations hold only their history); a Python package's
# `__init__.py` a script wrote, through which the package's names are imported.
_KEPT_THOUGH_GENERATED = ("db/schema.rb", "db/structure.sql", "__init__.py")
_HTML_EXTENSIONS = frozenset({"html", "htm", "xhtml"})
_HTML_GENERATOR_IN_HEAD = re.compile(
    rb"(?i)<meta\b[^>]*\bname\s*=\s*[\"']?generator\b|<!--\s*generated by\b"
)
# A tool's footer names the tool; prose in a template says "generated by the handler"
# (Django's technical_500.html and admin_doc/index.html were skipped as generated).
_HTML_GENERATOR_IN_TAIL = re.compile(
    rb"(?i)\bgenerated (?:by|using|with)\b"
    rb"(?!\s+(?:the|a|an|this|that|these|those|each|every|its|their|your|our|some|any)\b)"
)
# A compiler's source map comment ends what it wrote (Sass, TypeScript, Babel, bundlers).
_SCRIPT_EXTENSIONS = frozenset({"js", "mjs", "cjs", "css"})
_SOURCE_MAP = re.compile(rb"(?m)^\s*(?://|/\*)\s*[#@]\s*sourceMappingURL=")
_TAIL_EXTENSIONS = _HTML_EXTENSIONS | _SCRIPT_EXTENSIONS
# The Maven and Gradle wrapper scripts, which their tools write; an sdist's `PKG-INFO`
# (setuptools' metadata with a copy of the README).
_GENERATED_NAMES = frozenset({"mvnw", "mvnw.cmd", "gradlew", "gradlew.bat", "pkg-info"})

# Translation catalogs (gettext, XLIFF): every user-facing string once per language, with
# the source lines that use it. Sphinx keeps more bytes of them than of Python; an issue
# quoting a message would find a hundred catalogs before the code that raises it.
_TRANSLATION_EXTENSIONS = frozenset({"po", "pot", "mo", "xlf", "xliff"})

# Pictures and fonts that are text, not code: vector images (a plotting library's test
# baselines outweigh its Python), PostScript, and font metrics or bitmaps. Their words
# (`path`, `clip`, `font`, `transform`) are the words of a graphics codebase's questions.
_MEDIA_EXTENSIONS = frozenset({"svg", "eps", "ps", "ai", "afm", "bdf"})

# A PDF's streams are compressed bytes, but its head can be NUL-free text (Illustrator
# saves `.ai` files as PDF): read as text, it fills the index with decode errors.
_PDF_MAGIC = b"%PDF-"

_BINARY_EXTENSIONS = frozenset(
    {
        # images
        "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns", "webp", "tif", "tiff", "psd",
        "avif", "heic", "xcf",
        # audio / video
        "mp3", "mp4", "m4a", "wav", "ogg", "flac", "avi", "mov", "mkv", "webm",
        # archives and packages
        "zip", "tar", "gz", "tgz", "bz2", "xz", "7z", "rar", "zst", "lz4", "whl", "egg",
        "deb", "rpm", "apk", "dmg", "iso", "img", "msi",
        # fonts
        "woff", "woff2", "ttf", "otf", "eot",
        # compiled code
        "pyc", "pyo", "pyd", "so", "dll", "dylib", "exe", "bin", "o", "a", "lib", "obj",
        "class", "jar", "war", "ear", "wasm", "beam",
        # documents
        "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp",
        # model weights and data
        "onnx", "npy", "npz", "pt", "ckpt", "safetensors", "h5", "hdf5", "pkl",
        "pickle", "parquet", "arrow", "feather", "tflite", "pb", "lance",
        # databases
        "db", "sqlite", "sqlite3", "mdb", "ldb",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file to index."""

    path: str  # repo-relative, "/" separators
    abs_path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class DiscoveryRules:
    """User limits on discovery. Globs are gitignore-style, relative to the root."""

    max_file_bytes: int = 1024 * 1024
    allow: tuple[str, ...] = ()  # when non-empty only matching files are kept
    block: tuple[str, ...] = ()  # always skipped


@dataclass(slots=True)
class DiscoveryResult:
    """Files to index plus an account of what was left out."""

    files: list[Candidate] = field(default_factory=list)  # sorted by path
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> count
    examples: dict[str, list[str]] = field(default_factory=dict)  # reason -> first paths

    def skip(self, reason: str, path: str) -> None:
        self.skipped[reason] += 1
        shown = self.examples.setdefault(reason, [])
        if len(shown) < MAX_EXAMPLES:
            shown.append(path if _utf8(path) else _printable_path(path))


def _utf8(path: str) -> bool:
    """Whether a path read from the file system is UTF-8 (a name of other bytes arrives
    with surrogate escapes, which no database, hash or terminal takes)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _printable_path(path: str) -> str:
    """A path with its undecodable bytes shown as U+FFFD."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _extension(name: str) -> str:
    return name.rpartition(".")[2].lower() if "." in name else ""


def sniff(head: bytes, path: str, tail: bytes | None = None) -> str | None:
    """Return a skip reason read from a file's first bytes, or None to keep the file.

    `head` is the start of the file (up to 8 KiB); `path` only selects which checks apply.
    `tail` is the end of an HTML page, a script or a stylesheet (up to `TAIL_BYTES`);
    None when `head` is the whole file.
    """
    if not head:
        return None
    text = sniff_text(head)
    if text is None or head.startswith(_PDF_MAGIC):
        return "binary"
    head = text
    name = path.rsplit("/", 1)[-1]
    extension = _extension(name)
    tail = head[-TAIL_BYTES:] if tail is None else tail
    if extension in _HTML_EXTENSIONS and (
        _HTML_GENERATOR_IN_HEAD.search(head) or _HTML_GENERATOR_IN_TAIL.search(tail)
    ):
        return "generated"
    if extension in _SCRIPT_EXTENSIONS and _SOURCE_MAP.search(tail):
        return "generated"  # a compiler's output
    if extension in _MINIFIABLE_EXTENSIONS:
        lines = head.splitlines() or [b""]  # `\r` alone ends a line too
        if max(map(len, lines)) > _MAX_LINE_CHARS:
            return "minified"
        if len(head) > _AVERAGE_RULE_MIN_BYTES and len(head) / len(lines) > _MAX_AVERAGE_LINE_CHARS:
            return "minified"
    if path.endswith(_KEPT_THOUGH_GENERATED):
        return None
    for line in head.split(b"\n", _GENERATED_MARKER_LINES)[:_GENERATED_MARKER_LINES]:
        stripped = line.lstrip()
        if (
            stripped.startswith(_COMMENT_STARTS)
            and _GENERATED_MARKER.search(stripped)
            and not _HAND_KEPT.search(stripped)
            and not _USES_GENERATED.search(stripped)
            and not _API_CLIENT_GENERATOR.search(stripped)
        ):
            return "generated"
    return None


def sniff_file(data: bytes, path: str) -> str | None:
    """`sniff` for a file read whole: its head, and its tail; and `is_data`."""
    return sniff(data[:SNIFF_BYTES], path, data[-TAIL_BYTES:]) or (
        "data" if is_data(data, path) else None
    )


def is_data(data: bytes, path: str) -> bool:
    """A file `_may_be_data`, read whole, with no API or schema description anywhere in
    it (a document written with sorted keys has `"openapi"` after its `"components"`)."""
    return _may_be_data(path, len(data)) and not _DESCRIBES.search(data)


def _may_be_data(path: str, size: int) -> bool:
    """A JSON, JSON Lines, GeoJSON, CSV or TSV file over DATA_MAX_BYTES, no manifest."""
    name = path.rsplit("/", 1)[-1]
    return (
        size > DATA_MAX_BYTES
        and _extension(name) in _DATA_EXTENSIONS
        and name.lower() not in _MANIFESTS
    )


_DOC_EXTENSIONS = frozenset({"md", "mdx", "markdown", "rst", "adoc", "txt", "html"})
# ISO 639-1 codes of languages documentation is translated into, English left out.
_LANGUAGE_CODES = """
af am ar az be bg bn bs ca cs cy da de el eo es et eu fa fi fr ga gl gu he hi hr hu hy id
is it ja ka kk km kn ko ky lo lt lv mk ml mn mr ms my nb ne nl nn no pa pl ps pt ro ru si
sk sl sq sr sv sw ta te tg th tk tl tr uk ur uz vi zh
"""
_LANGUAGES = frozenset(_LANGUAGE_CODES.split())
# `ko`, `pt-BR`, `zh_CN`, `zh-Hant`: a region of two letters or a script, not any word
# (docutils' `docinfo_test_no_org.rst` is no Norwegian `docinfo_test.rst`).
_TAG = r"[A-Za-z]{2}(?:[-_](?:[A-Za-z]{2}|(?i:hans|hant|latn|cyrl|arab)))?"
_LANGUAGE_TAG = re.compile(_TAG)
_NAME_LANGUAGE = re.compile(rf"^(?P<stem>.+?)(?P<sep>[._-])(?P<tag>{_TAG})$")
_ENGLISH_FOLDERS = ("en", "en-US", "en_US")
_ENGLISH_SUFFIXES = (*_ENGLISH_FOLDERS, "en-us", "en_us", "EN")


def _language(tag: str) -> bool:
    """Whether a folder or name suffix names a language other than English."""
    return _LANGUAGE_TAG.fullmatch(tag) is not None and tag[:2].lower() in _LANGUAGES


# Folders that hold an application's message catalogs, one file (or folder) a language.
_CATALOG_FOLDERS = frozenset(
    {"locales", "locale", "i18n", "l10n", "intl", "lang", "langs", "languages"}
    | {"translations", "messages"}
)
_CATALOG_EXTENSIONS = frozenset({"json", "yaml", "yml", "properties", "toml"})


def locale_catalog(path: str) -> bool:
    """A message catalog of a language other than English: a JSON, YAML, properties or
    TOML file below a catalog folder, named for the language or in a folder so named
    (`public/intl/messages/de-DE.json`, `locales/fr/common.json`). umami's 50 catalogs
    were 45,382 of its 47,470 symbols; the English one stays, each message once."""
    return _catalog_of(path, _language)


def english_catalog(path: str) -> bool:
    """The English message catalog (`locales/en.json`, `locales/en-US/common.json`):
    indexed, each message once, but text for people, ranked as documentation
    (excalidraw's `en.json` led two of 25 questions about code)."""
    return _catalog_of(path, _english)


def _english(tag: str) -> bool:
    return _LANGUAGE_TAG.fullmatch(tag) is not None and tag[:2].lower() == "en"


def _catalog_of(path: str, language: Callable[[str], bool]) -> bool:
    # the extension first: search asks this of every candidate, nearly all code
    if path.rpartition(".")[2].lower() not in _CATALOG_EXTENSIONS:
        return False
    parts = path.split("/")
    stem, dot, extension = parts[-1].rpartition(".")
    if not dot:
        return False
    folders = [p.lower() for p in parts[:-1]]
    for index, folder in enumerate(folders):
        if folder in _CATALOG_FOLDERS:
            return any(language(tag) for tag in [*parts[index + 1 : -1], stem])
    return False


def minified_twin(path: str, exists: Callable[[str], bool]) -> str | None:
    """The minified copy shipped beside a script or stylesheet (`phoenix.min.js` beside
    `phoenix.js`), when `exists` finds it: the readable file is then a build's output too,
    a bundle of code the repository keeps elsewhere."""
    stem, dot, extension = path.rpartition(".")
    if not dot or extension.lower() not in _SCRIPT_EXTENSIONS or stem.endswith(".min"):
        return None
    twin = f"{stem}.min.{extension}"
    return twin if exists(twin) else None


def superseded_by(path: str, exists: Callable[[str], bool]) -> str | None:
    """The current page of a documentation file Docusaurus keeps for an older release,
    when `exists` finds it: `www/versioned_docs/version-10.x/server/x.md` is
    `www/docs/server/x.md` now (the `docs/` beside `versioned_docs/`, or at the
    repository's root as Jest keeps it), in Markdown or MDX."""
    stem, dot, extension = path.rpartition(".")
    if not dot or extension.lower() not in _DOC_EXTENSIONS:
        return None
    parts = stem.split("/")
    if "versioned_docs" not in parts[:-1]:
        return None
    at = parts.index("versioned_docs")
    if not parts[at + 1].startswith("version-") or at + 2 >= len(parts):
        return None
    page = "/".join(parts[at + 2 :])
    for docs in dict.fromkeys(("/".join([*parts[:at], "docs"]), "docs")):
        for current in (f"{docs}/{page}.md", f"{docs}/{page}.mdx"):
            if exists(current):
                return current
    return None


def translated_from(path: str, exists: Callable[[str], bool]) -> str | None:
    """The English original a documentation file is a translation of, when `exists`
    finds it: the same path with a language folder replaced by `en` (`docs/ko/x.md` →
    `docs/en/x.md`), or the same name without (or with an English) language suffix
    (`README_ZH.md` → `README.md`, `index.zh-CN.md` → `index.en-US.md`)."""
    folders, _, name = path.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot or extension.lower() not in _DOC_EXTENSIONS:
        return None
    parts = folders.split("/") if folders else []
    for index, part in enumerate(parts):
        if _language(part):
            for english in _ENGLISH_FOLDERS:
                original = "/".join([*parts[:index], english, *parts[index + 1 :], name])
                if exists(original):
                    return original
    suffixed = _NAME_LANGUAGE.match(stem)
    if suffixed is not None and _language(suffixed["tag"]):
        prefix = f"{folders}/" if folders else ""
        names = [f"{suffixed['stem']}.{extension}"] + [
            f"{suffixed['stem']}{suffixed['sep']}{english}.{extension}"
            for english in _ENGLISH_SUFFIXES
        ]
        for candidate in names:
            if exists(prefix + candidate):
                return prefix + candidate
    return None


def _name_reason(name: str) -> str | None:
    lower = name.lower()
    if lower in _LOCKFILE_NAMES or lower.endswith(".lock"):
        return "lockfile"
    if _extension(lower) in _TRANSLATION_EXTENSIONS:
        return "translations"
    if _extension(lower) in _MEDIA_EXTENSIONS:
        return "media"
    if lower.endswith(_MINIFIED_SUFFIXES):
        return "minified"
    if lower.endswith(_GENERATED_SUFFIXES) or lower in _GENERATED_NAMES:
        return "generated"
    if _extension(lower) in _BINARY_EXTENSIONS:
        return "binary"
    return None


def vendored_dir(path: str, exists: Callable[[str], bool]) -> str | None:
    """The top-most vendored folder of the file at `path`, as "a/b/", or None."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        folder = "/".join(parts[:i])
        if is_vendored_dir(folder, exists):
            return folder + "/"
    return None


def _usable(pattern: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([pattern])
    except (ValueError, re.error):  # GitIgnorePatternError is a ValueError; [z-a] re.error
        return False
    return True


def gitignore_spec(lines: Iterable[str]) -> pathspec.GitIgnoreSpec:
    """The rules of a `.gitignore`. A line that is no pattern (`!` or `\\` alone) is
    skipped, as git skips it: black's test data holds a `.gitignore` of one `!`, which
    stopped the whole index run. (pathspec also rejects a reversed range, `[z-a]`.)"""
    return pathspec.GitIgnoreSpec.from_lines([line for line in lines if _usable(line)])


def _compile(globs: tuple[str, ...], setting: str) -> pathspec.GitIgnoreSpec | None:
    """The user's `allow` or `block` globs; one that is no pattern is a config error."""
    for glob in globs:
        if not _usable(glob):
            raise ConfigError(
                f"[index] {setting}: {glob!r} is not a gitignore-style pattern. Fix or "
                f"remove it in the data folder's config.toml (or "
                f"CODECOMPASS_INDEX_{setting.upper()})."
            )
    return pathspec.GitIgnoreSpec.from_lines(globs) if globs else None


class _Classifier:
    """Applies the skip rules to one repo-relative path at a time."""

    def __init__(self, root: Path, rules: DiscoveryRules, result: DiscoveryResult) -> None:
        self.root = root
        self.rules = rules
        self.result = result
        self.allow = _compile(rules.allow, "allow")
        self.block = _compile(rules.block, "block")
        self.vendored: set[str] = set()
        self.dir_is_safe: dict[str, bool] = {"": True}
        # Whether a file is at a path: on disk (`gitsource` asks its commit's tree).
        self.exists: Callable[[str], bool] = self._on_disk
        # If a file is swapped for a link or a FIFO between lstat and open, O_NOFOLLOW
        # refuses the link and O_NONBLOCK keeps the open from waiting for a FIFO writer.
        self.open_flags = os.O_RDONLY
        for flag in ("O_NOFOLLOW", "O_NONBLOCK", "O_BINARY"):
            self.open_flags |= getattr(os, flag, 0)

    def finish(self) -> None:
        for dir_path in sorted(self.vendored):
            self.result.skip("vendored", dir_path)
        self.result.files.sort(key=lambda c: c.path)

    def _safe_dir(self, rel_dir: str) -> bool:
        """False when `rel_dir` or a directory above it (inside root) is a symlink."""
        unknown: list[str] = []  # from rel_dir up to the nearest folder already judged
        while rel_dir not in self.dir_is_safe:
            unknown.append(rel_dir)
            rel_dir = rel_dir.rpartition("/")[0]
        safe = self.dir_is_safe[rel_dir]
        for folder in reversed(unknown):  # top down, without recursion (deep trees)
            safe = safe and not os.path.islink(self.root / folder)
            self.dir_is_safe[folder] = safe
        return safe

    def path_reason(self, path: str) -> str | None:
        if not _utf8(path):
            return "name_not_utf8"
        if is_secret_path(path):
            return "secret"
        if self.block is not None and self.block.match_file(path):
            return "blocked"
        if self.allow is not None and not self.allow.match_file(path):
            return "not_allowed"
        reason = _name_reason(path.rsplit("/", 1)[-1])
        if reason is None and (locale_catalog(path) or "/LC_MESSAGES/" in f"/{path}"):
            return "translations"  # a gettext folder's files are catalogs, a script too
        if reason is None and translated_from(path, self.exists) is not None:
            return "translations"
        if reason is None and superseded_by(path, self.exists) is not None:
            return "superseded"
        if reason is None and minified_twin(path, self.exists) is not None:
            return "generated"
        return reason

    def _on_disk(self, path: str) -> bool:
        return os.path.isfile(self.root / path)

    def classify(self, path: str) -> None:
        vendored = vendored_dir(path, self.exists)
        if vendored is not None:
            self.vendored.add(vendored)
            return
        reason = self.path_reason(path)
        if reason is not None:
            self.result.skip(reason, path)
            return
        abs_path = self.root / path
        if not self._safe_dir(path.rpartition("/")[0]):
            self.result.skip("symlink", path)
            return
        try:
            st = os.lstat(abs_path)
        except FileNotFoundError:
            return
        except OSError:
            self.result.skip("unreadable", path)
            return
        reason = self._stat_reason(path, st)
        if reason is None:
            reason = self._content_reason(path, abs_path, st.st_size)
        if reason is None:
            self.result.files.append(Candidate(path, abs_path, st.st_size, st.st_mtime_ns))
        elif reason != GONE:
            self.result.skip(reason, path)

    def _stat_reason(self, path: str, st: os.stat_result) -> str | None:
        mode = st.st_mode
        if stat.S_ISLNK(mode):
            return "symlink"
        if stat.S_ISDIR(mode):
            return "submodule"
        if not stat.S_ISREG(mode):
            return "special"
        if st.st_size > size_limit(path, self.rules.max_file_bytes):
            return "too_large"
        return None

    def _content_reason(self, path: str, abs_path: Path, size: int) -> str | None:
        try:
            fd = os.open(abs_path, self.open_flags)
        except FileNotFoundError:
            return GONE
        except OSError:
            return "symlink" if os.path.islink(abs_path) else "unreadable"
        extension = _extension(path.rsplit("/", 1)[-1])
        head, tail, whole = b"", None, None
        try:
            if _may_be_data(path, size):
                whole = _read_up_to(fd, size)  # a rare file, read whole for `is_data`
            else:
                head = os.read(fd, SNIFF_BYTES)
                if size > SNIFF_BYTES and extension in _TAIL_EXTENSIONS:
                    os.lseek(fd, size - TAIL_BYTES, os.SEEK_SET)
                    tail = os.read(fd, TAIL_BYTES)
        except OSError:
            return "unreadable"
        finally:
            os.close(fd)
        return sniff(head, path, tail) if whole is None else sniff_file(whole, path)


def _read_up_to(fd: int, limit: int) -> bytes:
    """A file's bytes from where `fd` stands, up to `limit` and one more."""
    parts: list[bytes] = []
    total = 0
    while total <= limit:
        part = os.read(fd, min(1 << 20, limit + 1 - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def _run_git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return run_git(["-C", str(root), *args], timeout=_GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None


def _git_list(root: Path) -> list[str] | None:
    """Paths under `root` that git tracks or would track, or None when git cannot say."""
    probe = _run_git(root, "rev-parse", "--is-inside-work-tree", "--show-prefix")
    if probe is None or probe.returncode != 0:
        return None
    lines = probe.stdout.decode("utf-8", "replace").splitlines()
    if not lines or lines[0].strip() != "true":
        return None
    if len(lines) > 1 and lines[1].strip():
        # A subfolder that its repo ignores would list as empty: treat it as a plain folder.
        ignored = _run_git(root, "check-ignore", "-q", ".")
        if ignored is None or ignored.returncode == 0:
            return None
    listing = _run_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listing is None or listing.returncode != 0:
        return None
    # Unmerged files are listed once per conflict stage; nested repos end with "/".
    return sorted({os.fsdecode(p).rstrip("/") for p in listing.stdout.split(b"\0") if p})


class _Ignores:
    """The `.gitignore` files met on the way down a walk, deepest last."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, pathspec.GitIgnoreSpec]] = []

    def push(self, prefix: str, gitignore: Path) -> bool:
        try:
            text = gitignore.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        self.stack.append((prefix, gitignore_spec(text.splitlines())))
        return True

    def ignored(self, path: str) -> bool:
        for prefix, spec in reversed(self.stack):
            decision = spec.check_file(path[len(prefix) :]).include
            if decision is not None:
                return decision
        return False


def _walk(root: Path, classifier: _Classifier) -> Iterator[str]:
    """Yield repo-relative paths of every non-directory entry a git-less walk keeps.

    The walk keeps its own stack, not Python's: a tree thousands of folders deep must
    not end the run with a RecursionError. A `None` on the stack marks where a folder's
    .gitignore stops applying (after all of its subfolders)."""
    ignores = _Ignores()
    todo: list[tuple[str, str] | None] = [("", str(root))]
    while todo:
        item = todo.pop()
        if item is None:
            ignores.stack.pop()
            continue
        prefix, abs_dir = item
        try:
            with os.scandir(abs_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            if prefix:
                classifier.result.skip("unreadable", prefix)
            continue
        for entry in entries:
            # A symlinked .gitignore is not read: it could point outside the root (git
            # itself refuses them).
            if (
                entry.name == ".gitignore"
                and entry.is_file(follow_symlinks=False)
                and ignores.push(prefix, Path(entry.path))
            ):
                todo.append(None)
        folders: list[tuple[str, str]] = []
        for entry in entries:
            if entry.name == ".git":
                continue
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if ignores.ignored(rel + "/"):
                    continue
                if is_vendored_dir(rel, classifier.exists):
                    classifier.vendored.add(rel + "/")
                    continue
                folders.append((rel + "/", entry.path))
            elif not ignores.ignored(rel):
                yield rel
        todo.extend(reversed(folders))


def discover(root: Path, rules: DiscoveryRules = DiscoveryRules()) -> DiscoveryResult:
    """List the files under `root` to index, with counts and examples of what was skipped."""
    root = root.resolve()
    if not root.is_dir():
        raise InputError(f"{root} is not a folder: pass the folder of the code to index")
    result = DiscoveryResult()
    classifier = _Classifier(root, rules, result)
    paths = _git_list(root)
    if paths is None:
        paths = sorted(_walk(root, classifier))
    for path in paths:
        classifier.classify(path)
    classifier.finish()
    return result


def read_candidate(candidate: Candidate, max_file_bytes: int) -> bytes | str:
    """A discovered file's bytes, opened as discovery opens it (never through a symlink),
    or the skip reason if it changed into something discovery would have skipped."""
    flags = os.O_RDONLY
    for flag in ("O_NOFOLLOW", "O_NONBLOCK", "O_BINARY"):
        flags |= getattr(os, flag, 0)
    try:
        fd = os.open(candidate.abs_path, flags)
    except OSError:
        return "symlink" if os.path.islink(candidate.abs_path) else "unreadable"
    limit = size_limit(candidate.path, max_file_bytes)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "special"
        if st.st_size > limit:
            return "too_large"
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError:
        return "unreadable"
    finally:
        os.close(fd)
    if len(data) > limit:
        return "too_large"
    return sniff_file(data, candidate.path) or data


def skip_reasons(
    root: Path, paths: list[str], rules: DiscoveryRules = DiscoveryRules()
) -> dict[str, str | None]:
    """For each repo-relative path, why `discover` would leave it out if it were listed
    (`vendored`, `secret`, `binary`, `too_large`, …, or `gone` when nothing is there), or
    None when it would be indexed. Listing rules (git's view, .gitignore) are not applied:
    only each path's own rules, with the same I/O as a run (lstat, the first 8 KiB)."""
    result = DiscoveryResult()
    classifier = _Classifier(root.resolve(), rules, result)
    reasons: dict[str, str | None] = {}
    for path in paths:
        if vendored_dir(path, classifier.exists) is not None:
            reasons[path] = "vendored"
            continue
        kept, skipped = len(result.files), result.skipped.copy()
        classifier.classify(path)
        added = result.skipped - skipped
        if len(result.files) > kept:
            reasons[path] = None
        else:
            reasons[path] = next(iter(added), GONE)
    return reasons
