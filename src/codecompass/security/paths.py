"""Confine user-given paths to an indexed repository before anything reads them.

Frontends (MCP tools, CLI) pass paths that come from agents or people. `confine` turns
one into a file (or folder) under a repository root, or refuses it with an
`AccessDeniedError` that says why. Refused, in this order:

* empty or overlong paths, control characters (NUL included);
* percent-encoded forms (`%2e%2e%2f`, `%252e`): paths are taken literally, so an encoded
  one is a client bug or an attack, never a real file name worth the risk;
* Unicode look-alikes that NFKC-normalize to `.`, `/` or `\\` (`．．／`);
* absolute paths: `/etc/passwd`, `~/x`, `C:\\x`, `\\\\server\\share`, `file:` URLs;
* any `..` component (`a/../b` too: a plain path never needs one);
* what discovery never indexes by path: VCS and tool folders (`.git/`, `node_modules/`,
  `.codecompass/`, …), secret files (`security.secrets.is_secret_path`), the `block`
  globs, and paths outside non-empty `allow` globs;
* symbolic links anywhere below the root (discovery never follows them either), and
  anything that resolves outside the root;
* for files: non-regular files, files over `max_file_bytes` (a notebook: 16 ×), binary
  content.

Backslashes are read as separators, so `..\\..\\x` is caught like `../../x`.

A path the index holds is read `literal`ly instead (`Engine.confine` knows): on POSIX a
file may be named `a\\b.py`, `~x.py`, ` x.py` or hold a tab or a newline, and search
returns that name, so it must open that file and no other. Only the rules about the text
of a path are lifted; `..`, absolute paths, NUL, the folder, secret and block rules, and
the symlink walk below apply as before.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pathspec

from codecompass.decoding import decode_text, size_limit, sniff_text
from codecompass.errors import AccessDeniedError, Hint, InputError, NotFoundError
from codecompass.security.secrets import is_secret_path

MAX_PATH_CHARS = 1024
SNIFF_BYTES = 8192
# Folders whose files are never served, whatever the rules say: version control and
# tool internals (credentials often sit in .git/config), dependency and build output.
_NEVER_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".codecompass",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        "site-packages",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".idea",
    }
)
_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"^[A-Za-z]:")
_SEPARATORS = "./\\"

FIND_THE_PATH = Hint(
    cli="Find it with `codecompass search` or `codecompass symbol`.",
    mcp="Find it with search_code or find_symbol.",
)


@dataclass(frozen=True, slots=True)
class PathPolicy:
    """What may be read below a root: the index's allow/block globs and size cap."""

    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    max_file_bytes: int = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ConfinedPath:
    root: Path
    rel: str  # repo-relative, "/" separators; "" for the root itself
    absolute: Path
    is_dir: bool
    repo: str = ""  # the repository's name, when the caller knows it


def confine(
    root: Path,
    path: str,
    policy: PathPolicy,
    *,
    allow_dir: bool = False,
    repo: str = "",
    literal: bool = False,
) -> ConfinedPath:
    """The file (or, with `allow_dir`, folder) that `path` names below `root`, or an error.

    `literal`: `path` is exactly a path the index holds; take its characters as they are
    (see the module docstring)."""
    rel = _literal(path) if literal and os.sep == "/" else _normalize(path)
    if rel:
        _check_names(rel, policy)
    root = root.resolve()
    current = root
    for part in rel.split("/") if rel else []:
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            raise NotFoundError(
                f"{rel} is not a file in the repository (no such path).", FIND_THE_PATH
            ) from None
        except OSError as exc:
            raise AccessDeniedError(f"{rel} cannot be read ({exc.strerror}).") from None
        if stat.S_ISLNK(st.st_mode):
            raise AccessDeniedError(
                f"{rel} goes through a symbolic link; links are never followed. "
                "Open the file the link points to by its own path."
            )
    resolved = current.resolve()
    if not resolved.is_relative_to(root):
        raise AccessDeniedError(f"{path!r} is outside the repository; access refused.")
    if resolved.is_dir():
        if not allow_dir:
            raise InputError(f"{rel or '.'} is a folder; give the path of a file.")
        return ConfinedPath(root, rel, resolved, True, repo)
    if policy.allow and not pathspec.GitIgnoreSpec.from_lines(policy.allow).match_file(rel):
        raise AccessDeniedError(f"{rel} is outside the allow list ([index] allow); access refused.")
    st = os.stat(resolved)
    if not stat.S_ISREG(st.st_mode):
        raise AccessDeniedError(f"{rel} is not a regular file; access refused.")
    limit = size_limit(rel, policy.max_file_bytes)
    if st.st_size > limit:
        raise AccessDeniedError(
            f"{rel} is {st.st_size} bytes, over the max_file_bytes cap "
            f"({limit}); open it in an editor instead."
        )
    return ConfinedPath(root, rel, resolved, False, repo)


def read_text(confined: ConfinedPath) -> str:
    """The text of a confined file, refusing binaries; never follows a late-swapped link."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(confined.absolute, flags)
    except OSError as exc:
        raise AccessDeniedError(f"{confined.rel} cannot be opened ({exc.strerror}).") from None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    binary = f"{confined.rel} is a binary file; only text is served."
    if sniff_text(data[:SNIFF_BYTES]) is None:
        raise AccessDeniedError(binary)
    decoded = decode_text(data, confined.rel)  # as the index read it: lines agree
    if decoded.binary:
        raise AccessDeniedError(binary)
    return decoded.text


def is_plain_path(path: str) -> bool:
    """True when the strict reading takes `path` exactly as it is written."""
    try:
        return _normalize(path) == path
    except InputError:
        return False


def _literal(path: str) -> str:
    """An indexed path as it is, refused only if it could leave the root."""
    if not isinstance(path, str) or not path:
        raise InputError("The path is empty; give a path relative to the repository root.")
    if len(path) > MAX_PATH_CHARS:
        raise InputError(f"The path is longer than {MAX_PATH_CHARS} characters.")
    if "\0" in path:
        raise AccessDeniedError("The path holds a NUL character; access refused.")
    if path.startswith("/"):
        raise AccessDeniedError(
            f"{path!r} is absolute; give a path relative to the repository root, "
            "as search results show it."
        )
    if any(part in ("", ".", "..") for part in path.split("/")):
        raise AccessDeniedError(
            f"{path!r} climbs with '..' or has empty parts; give the path from the "
            "repository root, as search results show it."
        )
    return path


def _normalize(path: str) -> str:
    if not isinstance(path, str) or not path.strip():
        raise InputError("The path is empty; give a path relative to the repository root.")
    if len(path) > MAX_PATH_CHARS:
        raise InputError(f"The path is longer than {MAX_PATH_CHARS} characters.")
    if _CONTROL.search(path):
        raise AccessDeniedError("The path holds control characters; access refused.")
    if _ENCODED.search(path):
        raise AccessDeniedError(
            f"{path!r} looks percent-encoded; paths are taken literally, pass the plain path."
        )
    normalized = unicodedata.normalize("NFKC", path)
    if any(normalized.count(c) != path.count(c) for c in _SEPARATORS):
        raise AccessDeniedError(
            f"{path!r} holds look-alike dots or slashes; use plain ASCII '.' and '/'."
        )
    text = path.strip().replace("\\", "/")
    lowered = text.lower()
    if (
        text.startswith(("/", "~"))
        or _DRIVE.match(text)
        or lowered.startswith("file:")
        or Path(text).is_absolute()
    ):
        raise AccessDeniedError(
            f"{path!r} is absolute; give a path relative to the repository root, "
            "as search results show it."
        )
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise AccessDeniedError(
            f"{path!r} climbs with '..', outside the repository; give the path from the "
            "repository root instead."
        )
    return "/".join(parts)


def _check_names(rel: str, policy: PathPolicy) -> None:
    for part in rel.split("/"):
        if part.lower() in _NEVER_DIRS:
            raise AccessDeniedError(
                f"{rel} is in or is {part}/, a tool, VCS or dependency folder that Code "
                "Compass never serves."
            )
    if is_secret_path(rel):
        raise AccessDeniedError(f"{rel} is a secrets file; Code Compass never returns its content.")
    if policy.block:
        spec = pathspec.GitIgnoreSpec.from_lines(policy.block)
        if spec.match_file(rel) or spec.match_file(rel + "/"):
            raise AccessDeniedError(
                f"{rel} matches the block list ([index] block); access refused."
            )
