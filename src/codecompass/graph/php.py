r"""PHP names to files, as Composer's autoloader finds them.

Each `composer.json` of a repository maps namespace prefixes to folders (`autoload` and
`autoload-dev`, PSR-4): with `"App\\": "app/"`, `App\Services\FavoriteService` is
`app/Services/FavoriteService.php`. Names are dotted here, as the extractor writes them
(`App.Services.FavoriteService`). A function or constant (`use function
Tests\create_user`) has no file of its own: it is looked for in the files of its
namespace's folder.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

# (dotted namespace prefix, "" for the root namespace; folder, "" for the repository root)
Roots = list[tuple[str, str]]


def composer_roots(root: Path | None, files: dict[str, str]) -> Roots:
    """The PSR-4 prefixes of every `composer.json` of the repository, longest first."""
    found: set[tuple[str, str]] = set()
    if root is None:
        return []
    for manifest in (p for p in files if posixpath.basename(p) == "composer.json"):
        try:
            data = json.loads((root / manifest).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        base = posixpath.dirname(manifest)
        for section in ("autoload", "autoload-dev"):
            block = data.get(section) if isinstance(data, dict) else None
            psr4 = block.get("psr-4") if isinstance(block, dict) else None
            for prefix, folders in psr4.items() if isinstance(psr4, dict) else ():
                dotted = prefix.strip("\\").replace("\\", ".")
                for folder in [folders] if isinstance(folders, str) else folders:
                    if isinstance(folder, str):
                        path = posixpath.normpath(posixpath.join(base, folder))
                        found.add((dotted, "" if path == "." else path))
    return sorted(found, key=lambda r: (-len(r[0]), r))


def declaring_files(roots: Roots, files: dict[str, str], qualified: str) -> list[str] | None:
    """The files that may declare `qualified`: its PSR-4 file, else the PHP files of its
    namespace's folder; None when no prefix of the repository's covers it (the root
    namespace's prefix covers only what it holds)."""
    covered = False
    for prefix, folder in roots:
        if prefix and qualified != prefix and not qualified.startswith(prefix + "."):
            continue
        covered = covered or bool(prefix)
        rest = qualified[len(prefix) :].lstrip(".").split(".")
        own = posixpath.join(folder, *rest) + ".php"
        if own in files:
            return [own]
        namespace = posixpath.join(folder, *rest[:-1])
        near = sorted(p for p in files if p.endswith(".php") and posixpath.dirname(p) == namespace)
        if near:
            return near
    return [] if covered else None
