r"""PHP names to files, as Composer's autoloader finds them, and the names a PHP file
binds: what a `use` names (`imported`) and the declared types of its classes' properties
(`property_class`, for `$this->songs->search()`).

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
import re
from pathlib import Path
from typing import TYPE_CHECKING

from codecompass.graph.models import TYPE_KINDS
from codecompass.models import SymbolRecord

if TYPE_CHECKING:  # the resolver imports this module
    from codecompass.graph.resolve import Ctx, Resolver

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


# A typed PHP property: declared, or promoted by a constructor parameter.
_PROPERTY = re.compile(
    r"\b(?:public|protected|private)\s+(?:readonly\s+)?\??\s*([A-Za-z_\\][\w\\]*)\s+\$(\w+)"
)


def roots_of(resolver: Resolver, repo: str) -> Roots:
    """A repository's PSR-4 prefixes, read once per run."""
    found = resolver.composer.get(repo)
    if found is None:
        found = resolver.composer[repo] = composer_roots(
            resolver.index.root(repo), resolver.index.repo_files(repo)
        )
    return found


def imported(resolver: Resolver, ctx: Ctx, alias: str) -> SymbolRecord | bool | None:
    """The class or function of the repository a PHP file's `use` binds to `alias`
    (`use App\\Models\\Song;`, `… as S`), False when the `use` names something from
    outside the repository (`Illuminate\\Support\\Facades\\Log`), None when no `use`
    binds it."""
    if alias in ctx.imported_symbols:
        return ctx.imported_symbols[alias]
    found: SymbolRecord | bool | None = None
    for ref in ctx.facts.refs:
        if ref.kind != "import":
            continue
        spec, _, given = ref.name.partition(" as ")
        if (given or spec.rpartition(".")[2]) != alias:
            continue
        found = False
        for edge in resolver.generic_import(ctx, ref):
            if edge.resolved and edge.target_path and "#" in edge.target:
                symbols = resolver.index.symbols(ctx.repo, edge.target_path)
                found = next((s for s in symbols if s.id == edge.target), False)
            elif not edge.resolved and edge.via != "external":
                found = None  # the repository's, but not found: guess as before
        break
    ctx.imported_symbols[alias] = found
    return found


def property_class(
    resolver: Resolver, ctx: Ctx, within: SymbolRecord | None, prop: str
) -> SymbolRecord | bool | None:
    """The class or interface of the repository a PHP property is declared as, in the
    class holding `within`: a promoted constructor parameter (`private readonly
    SongRepository $songs`) or a typed property (`protected Cache $cache;`); False for a
    type the file `use`s from outside the repository; None when unknown."""
    cls = resolver._enclosing_type(ctx, within)
    if cls is None:
        return None
    if ctx.php_properties is None:
        ctx.php_properties = _properties(resolver, ctx)
    written = ctx.php_properties.get(cls.qualified_name, {}).get(prop)
    if not written:
        return None
    short = written.rsplit("\\", 1)[-1]
    used = imported(resolver, ctx, short)
    if isinstance(used, SymbolRecord):
        return used if used.kind in TYPE_KINDS else None
    if used is False:
        return False
    named = [s for s in resolver.index.by_name(short, ctx.repo) if s.kind in TYPE_KINDS]
    return named[0] if len(named) == 1 else None


def _properties(resolver: Resolver, ctx: Ctx) -> dict[str, dict[str, str]]:
    """Each class of a PHP file → its typed properties (name → type as written)."""
    rows = resolver.file_text(ctx).split("\n")
    out: dict[str, dict[str, str]] = {}
    for cls in (s for s in ctx.symbols if s.kind in TYPE_KINDS):
        body = "\n".join(rows[cls.start_line - 1 : cls.end_line])
        out[cls.qualified_name] = {m.group(2): m.group(1) for m in _PROPERTY.finditer(body)}
    return out
