"""Import aliases of TypeScript and JavaScript projects: `compilerOptions.paths` and
`baseUrl` of the `tsconfig.json` (or `jsconfig.json`) nearest to a file.

`import {Button} from "@/components/ui/button"` names `src/components/ui/button.tsx` when
the config says `"paths": {"@/*": ["./src/*"]}`; without it the import reads as an npm
package and every call through it stays unresolved. The rules are TypeScript's:

- an exact pattern (no `*`) wins, then the pattern with the longest prefix before its
  `*`; each of its targets is tried in order, the `*` replaced by what it matched;
- targets are relative to `baseUrl` when one is set, else to the folder of the config
  that declares `paths`;
- `baseUrl` alone also resolves a bare name (`components/button`) when such a file
  exists;
- `extends` is followed for relative paths (`./tsconfig.base.json`), not for configs of
  npm packages; the extending config's own options win.

Configs are JSON with comments and trailing commas (JSONC); one that does not parse is
ignored, as if absent.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from pathlib import Path

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
MAX_EXTENDS = 5  # configs followed through `extends`; a cycle stops there too
MAX_CONFIG_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Aliases:
    """What a config says about non-relative imports. Paths are repository-relative."""

    config: str  # the config file found nearest to the importer
    read: tuple[str, ...]  # every config file read for it (itself and what it extends)
    base_url: str | None
    paths_base: str  # the folder `paths` targets are relative to
    paths: tuple[tuple[str, tuple[str, ...]], ...]

    def bases(self, spec: str) -> list[str]:
        """Repository-relative module bases `spec` may name, in the order to try them."""
        found: list[str] = []
        for target in self._matched_targets(spec):
            found.append(_join(self.paths_base, target))
        if self.base_url is not None:
            found.append(_join(self.base_url, spec))
        return found

    def _matched_targets(self, spec: str) -> list[str]:
        best: tuple[int, list[str]] | None = None
        for pattern, targets in self.paths:
            if "*" not in pattern:
                if pattern == spec:
                    return list(targets)
                continue
            prefix, _, suffix = pattern.partition("*")
            if not (spec.startswith(prefix) and spec.endswith(suffix)):
                continue
            if len(spec) < len(prefix) + len(suffix):
                continue
            matched = spec[len(prefix) : len(spec) - len(suffix)]
            if best is None or len(prefix) > best[0]:
                best = (len(prefix), [t.replace("*", matched, 1) for t in targets])
        return best[1] if best is not None else []


def nearest_config(files: dict[str, str] | set[str], importer: str) -> tuple[list[str], str | None]:
    """The config files that could govern `importer`, nearest first (every place looked
    at, to record as dependencies), and the first that exists."""
    looked: list[str] = []
    folder = posixpath.dirname(importer)
    while True:
        for name in CONFIG_NAMES:
            candidate = posixpath.join(folder, name) if folder else name
            looked.append(candidate)
            if candidate in files:
                return looked, candidate
        if not folder:
            return looked, None
        folder = posixpath.dirname(folder)


def read_aliases(root: Path, files: dict[str, str] | set[str], config: str) -> Aliases | None:
    """The aliases `config` declares, following relative `extends`; None when it has
    neither `paths` nor `baseUrl`, or does not parse."""
    read: list[str] = []
    base_url: str | None = None
    paths: dict[str, list[str]] | None = None
    paths_base = posixpath.dirname(config)
    current: str | None = config
    while current is not None and current in files and current not in read:
        if len(read) >= MAX_EXTENDS:
            break
        read.append(current)
        options = _load(root / current)
        if options is None:
            break
        folder = posixpath.dirname(current)
        compiler = options.get("compilerOptions")
        if isinstance(compiler, dict):
            if base_url is None and isinstance(compiler.get("baseUrl"), str):
                base_url = _join(folder, compiler["baseUrl"])
            if paths is None and isinstance(compiler.get("paths"), dict):
                paths = {
                    str(k): [t for t in v if isinstance(t, str)]
                    for k, v in compiler["paths"].items()
                    if isinstance(v, list)
                }
                paths_base = folder
        current = _extended(folder, options.get("extends"))
    if base_url is None and paths is None:
        return None
    return Aliases(
        config=config,
        read=tuple(read),
        base_url=base_url,
        paths_base=base_url if base_url is not None else paths_base,
        paths=tuple((k, tuple(v)) for k, v in (paths or {}).items()),
    )


def _extended(folder: str, value: object) -> str | None:
    """The repository-relative config a relative `extends` names (TypeScript 5's list
    form: its first entry)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if not isinstance(value, str) or not value.startswith("."):
        return None
    target = _join(folder, value)
    return target if target.endswith(".json") else f"{target}.json"


def _join(folder: str, relative: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, relative))
    return "" if joined == "." else joined


def _load(path: Path) -> dict[str, object] | None:
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        data = json.loads(strip_jsonc(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def strip_jsonc(text: str) -> str:
    """JSON from JSONC: comments (`//`, `/* */`) and trailing commas left out, strings
    kept as they are."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        after = _after_comment(text, i)
        if after is not None:
            i = after
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif c == ",":
            if not text.startswith(("}", "]"), _after_blank(text, i + 1)):
                out.append(c)  # else a trailing comma, left out
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _after_comment(text: str, i: int) -> int | None:
    """The index just after a comment that starts at `i`; None when none does."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    return None


def _after_blank(text: str, i: int) -> int:
    """The index of the first character from `i` on that is no space or comment."""
    while i < len(text):
        after = _after_comment(text, i)
        if after is not None:
            i = after
        elif text[i] in " \t\r\n":
            i += 1
        else:
            break
    return i
