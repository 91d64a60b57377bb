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
                    (`node_modules`, `.venv`, `dist`, `.codecompass`, ...). Counted once per
                    such directory (reported as `dir/`), not per file, so that both
                    listing modes agree -- the walk never enters these folders.
   ``secret``       `security.secrets.is_secret_path`; never overridable by `allow`.
   ``blocked``      matches `DiscoveryRules.block`.
   ``not_allowed``  `DiscoveryRules.allow` is non-empty and the path matches none of it.
   ``lockfile``     dependency lock files.
   ``translations`` gettext and XLIFF catalogs (`.po`, `.pot`, `.mo`, `.xlf`): each
                    message once per language, outranking the code that emits it.
   ``media``        pictures and fonts written as text (`.svg`, `.eps`, `.ps`, `.ai`,
                    `.afm`, `.bdf`): drawing commands and glyph metrics, no code to find.
   ``minified``     `*.min.js`, `*.min.css`, `*.map`, ...
   ``generated``    protobuf/grpc stubs, `*.g.dart`, `*.designer.cs`, ...
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
   ``generated``    a generator marker in a comment line among the first 5 lines.

Empty files are kept. `examples` holds the first five paths per reason, in sorted order.
A `root` that is not a folder raises `InputError`.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from codecompass.decoding import size_limit, sniff_text
from codecompass.errors import InputError
from codecompass.gitexec import run_git
from codecompass.security.secrets import is_secret_path

SNIFF_BYTES = 8192
MAX_EXAMPLES = 5
_GIT_TIMEOUT_S = 120
GONE = "gone"  # deleted between listing and reading: dropped, not counted

VENDORED_DIRS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".git",
        ".hg",
        ".svn",
        "dist",
        "build",
        "vendor",
        "third_party",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "target",
        ".next",
        ".nuxt",
        "coverage",
        ".gradle",
        "bower_components",
        "site-packages",
        ".idea",
        ".codecompass",
    }
)

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
)
_GENERATED_MARKER_LINES = 5
_COMMENT_STARTS = tuple(
    s.encode() for s in ("#", "//", "/*", "*", "<!--", "--", ";", "%", '"""', "'''", "(*", "{-")
)
# "Generated from <source> by <tool>": Snowball stemmers, ANTLR parsers, configure output.
# One word between "from" and "by" keeps prose ("generated from the input by") out.
_GENERATED_MARKER = re.compile(
    rb"@generated\b|DO NOT EDIT|(?i:\b(?:auto-?generated|automatically generated)\b)"
    rb"|(?i:\bgenerated from \S+ by\b)"
)

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
            shown.append(path)


def _extension(name: str) -> str:
    return name.rpartition(".")[2].lower() if "." in name else ""


def sniff(head: bytes, path: str) -> str | None:
    """Return a skip reason read from a file's first bytes, or None to keep the file.

    `head` is the start of the file (up to 8 KiB); `path` only selects which checks apply.
    """
    if not head:
        return None
    text = sniff_text(head)
    if text is None or head.startswith(_PDF_MAGIC):
        return "binary"
    head = text
    name = path.rsplit("/", 1)[-1]
    if _extension(name) in _MINIFIABLE_EXTENSIONS:
        lines = head.split(b"\n")
        if max(map(len, lines)) > _MAX_LINE_CHARS:
            return "minified"
        if len(head) > _AVERAGE_RULE_MIN_BYTES and len(head) / len(lines) > _MAX_AVERAGE_LINE_CHARS:
            return "minified"
    for line in head.split(b"\n", _GENERATED_MARKER_LINES)[:_GENERATED_MARKER_LINES]:
        stripped = line.lstrip()
        if stripped.startswith(_COMMENT_STARTS) and _GENERATED_MARKER.search(stripped):
            return "generated"
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
    if lower.endswith(_GENERATED_SUFFIXES):
        return "generated"
    if _extension(lower) in _BINARY_EXTENSIONS:
        return "binary"
    return None


def _vendored_dir(path: str) -> str | None:
    """The top-most vendored directory of `path` as "a/b/", or None."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part in VENDORED_DIRS:
            return "/".join(parts[: i + 1]) + "/"
    return None


def _compile(globs: tuple[str, ...]) -> pathspec.GitIgnoreSpec | None:
    return pathspec.GitIgnoreSpec.from_lines(globs) if globs else None


class _Classifier:
    """Applies the skip rules to one repo-relative path at a time."""

    def __init__(self, root: Path, rules: DiscoveryRules, result: DiscoveryResult) -> None:
        self.root = root
        self.rules = rules
        self.result = result
        self.allow = _compile(rules.allow)
        self.block = _compile(rules.block)
        self.vendored: set[str] = set()
        self.dir_is_safe: dict[str, bool] = {"": True}
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
        if is_secret_path(path):
            return "secret"
        if self.block is not None and self.block.match_file(path):
            return "blocked"
        if self.allow is not None and not self.allow.match_file(path):
            return "not_allowed"
        return _name_reason(path.rsplit("/", 1)[-1])

    def classify(self, path: str) -> None:
        vendored = _vendored_dir(path)
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
            reason = self._content_reason(path, abs_path)
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

    def _content_reason(self, path: str, abs_path: Path) -> str | None:
        try:
            fd = os.open(abs_path, self.open_flags)
        except FileNotFoundError:
            return GONE
        except OSError:
            return "symlink" if os.path.islink(abs_path) else "unreadable"
        try:
            head = os.read(fd, SNIFF_BYTES)
        except OSError:
            return "unreadable"
        finally:
            os.close(fd)
        return sniff(head, path)


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
        self.stack.append((prefix, pathspec.GitIgnoreSpec.from_lines(text.splitlines())))
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
                if entry.name in VENDORED_DIRS:
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
    return sniff(data[:SNIFF_BYTES], candidate.path) or data


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
        if _vendored_dir(path) is not None:
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
