"""Look-ups resolution needs — files, modules, symbols, facts — with dependency tracking.

Every look-up made while resolving one file is recorded as a dependency of that file:
``file`` (it read another file's symbols or facts), ``module`` (a Python dotted name or
npm package it looked for, found or not), ``path`` (a JS/Python relative module base it
looked for), ``name`` (a name it matched across the repository). When a file changes,
the files whose dependencies mention it are resolved again, and only those.
"""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from codecompass.graph.tsconfig import Aliases, nearest_config, read_aliases
from codecompass.indexing.facts import FileFacts, assigned_attributes
from codecompass.models import FactsQuery, SymbolQuery, SymbolRecord
from codecompass.storage import Backend

PY_EXTENSIONS = (".py", ".pyi")
JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")
_JS_STRIP = re.compile(r"(\.d\.ts|\.(?:ts|tsx|js|jsx|mjs|cjs|mts|cts))$")


@dataclass(frozen=True, slots=True)
class Package:
    """A package a repository provides to others: its name and where it is declared."""

    repo: str
    name: str
    entry: str | None  # the module file others reach (package.json "main", __init__.py)
    declared_in: str  # file holding the declaration (pyproject.toml, package.json, …)
    line: int


# A project file's global using: `<Using Include="Shop.Domain" />`, with `Alias="D"`.
_PROJECT_USING = re.compile(r'<Using\s+Include="([\w.]+)"(?:\s+Alias="(\w+)")?[^>]*/?>')


def file_key(repo: str, path: str) -> str:
    return f"{repo}\x00{path}"


def name_key(repo: str | None, name: str) -> str:
    """The dependency key of a name looked up in `repo` (every look-up names its
    repository, so a name another repository gains resolves nothing here)."""
    return name if repo is None else f"{repo}\x00{name}"


def js_base(path: str) -> str:
    """`src/a.ts` → `src/a`; the key a JS module look-up records."""
    return _JS_STRIP.sub("", path)


class SymbolIndex:
    """One link run's view of the workspace. Caches are valid for the run only."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.deps: set[tuple[str, str]] = set()
        self._files: dict[str, dict[str, str]] | None = None
        self._roots: dict[str, Path] = {}
        self._symbols: dict[tuple[str, str], list[SymbolRecord]] = {}
        self._named: dict[tuple[str, str, str | None], list[SymbolRecord]] = {}
        self._facts: dict[tuple[str, str], FileFacts | None] = {}
        self._modules: dict[str, list[tuple[str, str]]] | None = None
        self._python_packages: set[str] | None = None
        self._packages: dict[str, list[Package]] | None = None
        self._provided: dict[str, set[str]] = {}
        self._mains: dict[tuple[str, str], str | None] = {}  # folder package.json "main"
        self._aliases: dict[tuple[str, str], Aliases | None] = {}  # by tsconfig
        self._assigned: dict[str, frozenset[str]] = {}
        self._global_imports: dict[str, dict[str, list[str]]] = {}
        self._csharp_projects: dict[str, frozenset[str]] = {}
        self._file_names: dict[str, frozenset[str]] = {}
        self._project_usings: dict[tuple[str, str], tuple[list[str], dict[str, str]]] = {}

    # -- files ----------------------------------------------------------------------
    def files(self) -> dict[str, dict[str, str]]:
        if self._files is None:
            files: dict[str, dict[str, str]] = defaultdict(dict)
            for (repo, path), file in self.backend.files.files().items():
                files[repo][path] = file.language
            self._files = dict(files)
            for record in self.backend.repos.repos():
                self._roots[record.id] = Path(record.root)
        return self._files

    def repo_files(self, repo: str) -> dict[str, str]:
        return self.files().get(repo, {})

    def root(self, repo: str) -> Path | None:
        self.files()
        return self._roots.get(repo)

    def file_names(self, repo: str) -> frozenset[str]:
        """The names (last parts) of a repository's files, read once per run."""
        found = self._file_names.get(repo)
        if found is None:
            names = {posixpath.basename(p) for p in self.repo_files(repo)}
            found = self._file_names[repo] = frozenset(names)
        return found

    def has_file(self, repo: str, path: str) -> bool:
        return path in self.repo_files(repo)

    # -- symbols and facts ----------------------------------------------------------
    def symbols(self, repo: str, path: str) -> list[SymbolRecord]:
        self.deps.add(("file", file_key(repo, path)))
        key = (repo, path)
        found = self._symbols.get(key)
        if found is None:
            found = self.backend.symbols.symbols(SymbolQuery(files=[key]))
            found.sort(key=lambda s: (s.start_line, -s.end_line))
            self._symbols[key] = found
        return found

    def facts(self, repo: str, path: str) -> FileFacts | None:
        self.deps.add(("file", file_key(repo, path)))
        key = (repo, path)
        if key not in self._facts:
            found = self.backend.facts.facts(FactsQuery(repo, paths=[path]))
            self._facts[key] = FileFacts.from_json(found[0].facts_json) if found else None
        return self._facts[key]

    def assigned_attributes(self, repo: str) -> frozenset[str]:
        """The attributes any file of a repository sets on an object other than `self`
        (see `facts.assigned_attributes`). Read once per run and recorded as no file's
        dependency: a reassignment added later is seen when the reader is resolved again."""
        found = self._assigned.get(repo)
        if found is None:
            names: set[str] = set()
            for row in self.backend.facts.facts(FactsQuery(repo)):
                names |= assigned_attributes(row.facts_json)
            found = self._assigned[repo] = frozenset(names)
        return found

    def project_usings(self, repo: str, path: str) -> tuple[list[str], dict[str, str]]:
        """What the `global using`s of a C# file's project bring (its own file's too,
        which it binds itself already): namespaces, and aliases by name, worked out once
        a project. The reader depends on the project's `globals` key, which a change of
        any of them triggers."""
        project = self.csharp_project(repo, path)
        self.deps.add(("globals", file_key(repo, project)))
        found = self._project_usings.get((repo, project))
        if found is None:
            stars: list[str] = []
            aliases: dict[str, str] = {}
            for other, given in sorted(self._global_imports_of(repo).items()):
                if self.csharp_project(repo, other) != project:
                    continue
                for entry in given:
                    alias, _, target = entry.rpartition("=")
                    if alias:
                        aliases.setdefault(alias, target)
                    elif target not in stars:
                        stars.append(target)
            found = self._project_usings[(repo, project)] = (stars, aliases)
        return found

    def _global_imports_of(self, repo: str) -> dict[str, list[str]]:
        """C#'s `global using`s of a repository, by file, read once per run: those of its
        C# files, and a project file's `<Using Include="…" />` items (`Alias="…"` too)."""
        found = self._global_imports.get(repo)
        if found is None:
            found = self._global_imports[repo] = {}
            for row in self.backend.facts.facts(FactsQuery(repo)):
                if '"global_imports"' in row.facts_json:
                    found[row.path] = FileFacts.from_json(row.facts_json).global_imports
            root = self.root(repo)
            for path in (p for p in self.repo_files(repo) if p.endswith(".csproj")):
                try:
                    text = (root / path).read_text(encoding="utf-8") if root else ""
                except (OSError, UnicodeDecodeError):
                    continue
                items = [
                    f"{m.group(2)}={m.group(1)}" if m.group(2) else m.group(1)
                    for m in _PROJECT_USING.finditer(text)
                ]
                if items:
                    found[path] = items
        return found

    def csharp_project(self, repo: str, path: str) -> str:
        """The folder of the nearest `.csproj` above a file (one compilation: `global
        using`s reach its files), or "" (the repository) when there is none."""
        projects = self._csharp_projects.get(repo)
        if projects is None:
            folders = {posixpath.dirname(p) for p in self.repo_files(repo) if p.endswith(".csproj")}
            projects = self._csharp_projects[repo] = frozenset(folders)
        folder = posixpath.dirname(path)
        while folder and folder not in projects:
            folder = posixpath.dirname(folder)
        return folder

    def by_name(self, name: str, repo: str | None = None) -> list[SymbolRecord]:
        self.deps.add(("name", name_key(repo, name)))
        return self._lookup("name", name, repo)

    def by_qualified(self, qualified: str, repo: str | None = None) -> list[SymbolRecord]:
        self.deps.add(("name", name_key(repo, qualified.rsplit(".", 1)[-1])))
        return self._lookup("qualified", qualified, repo)

    def by_folded_name(self, name: str, repo: str) -> list[SymbolRecord]:
        """Symbols named `name` in any case (Django's `securityissue_set` is the reverse
        side of `SecurityIssue`'s foreign keys). A symbol added later under a name not
        yet known does not relink the file that asked."""
        key = ("folded", name, repo)
        found = self._named.get(key)
        if found is None:
            query = SymbolQuery(name_folded=name, repo=repo)
            found = self._named[key] = self.backend.symbols.symbols(query)
        self.deps.update(("name", name_key(repo, s.name)) for s in found)
        return found

    def _lookup(self, column: str, value: str, repo: str | None) -> list[SymbolRecord]:
        key = (column, value, repo)
        found = self._named.get(key)
        if found is None:
            if column == "name":
                query = SymbolQuery(names=[value], repo=repo)
            else:
                query = SymbolQuery(qualified_names=[value], repo=repo)
            found = self._named[key] = self.backend.symbols.symbols(query)
        return found

    # -- Python modules ---------------------------------------------------------------
    def python_modules(self) -> dict[str, list[tuple[str, str]]]:
        if self._modules is None:
            modules: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for repo, files in self.files().items():
                for path in files:
                    if path.endswith(PY_EXTENSIONS):
                        for name in self.module_names(repo, path):
                            modules[name].append((repo, path))
            self._modules = dict(modules)
        return self._modules

    def python_packages(self) -> set[str]:
        """Every dotted name that holds a module of the workspace (`app` of `app.auth`),
        namespace packages included."""
        if self._python_packages is None:
            self._python_packages = {
                name.rsplit(".", depth)[0]
                for name in self.python_modules()
                for depth in range(1, name.count(".") + 1)
            }
        return self._python_packages

    def module_names(self, repo: str, path: str) -> list[str]:
        """Dotted names a Python file is imported by: from its source root (the first
        folder up without `__init__.py`), from its distribution's root (below), and
        from the repository root."""
        if not path.endswith(PY_EXTENSIONS):
            return []
        files = self.repo_files(repo)
        parts = path.rsplit(".", 1)[0].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        folders = path.split("/")[:-1]
        depth = len(folders)
        while depth > 0 and "/".join(folders[:depth]) + "/__init__.py" in files:
            depth -= 1
        canonical = parts[depth:]
        if depth == 0 and "__init__.py" in files:
            root = self.root(repo)
            if root is not None and root.name.isidentifier():
                canonical = [root.name, *canonical]
        # A namespace package (PEP 420) has no `__init__.py`: langgraph's
        # `libs/checkpoint/langgraph/checkpoint/base/` is `langgraph.checkpoint.base`,
        # named from its distribution's root (the nearest folder up with a
        # pyproject.toml, setup.py or setup.cfg; its `src/` when the code is there).
        start = _distribution_start(files, folders[:depth]) if depth > 0 else None
        distributed = parts[start:] if start is not None else []
        names: list[str] = []
        for named in (canonical, distributed, parts):
            # A part no import can name (`functools.partial.py`, `cell-var-from-loop/`)
            # makes no module: pylint's example file had become `functools.partial`.
            if named and all(part.isidentifier() for part in named):
                dotted = ".".join(named)
                if dotted not in names:
                    names.append(dotted)
        return names

    def python_module(self, dotted: str, repo: str, importer: str) -> list[tuple[str, str]]:
        """Files that `import dotted` reaches from `importer` in `repo`: the same
        repository first, then a package another repository provides."""
        self.deps.add(("module", dotted))
        found = self.python_modules().get(dotted, [])
        same = [f for f in found if f[0] == repo]
        if same:
            if len(same) > 1:
                same.sort(key=lambda f: -_common_prefix(f[1], importer))
                best = _common_prefix(same[0][1], importer)
                same = [f for f in same if _common_prefix(f[1], importer) == best]
            return same
        top = dotted.split(".")[0]
        return [f for f in found if top in self.provided(f[0])]

    def provided(self, repo: str) -> set[str]:
        """Top-level Python packages a repository provides to the others."""
        cached = self._provided.get(repo)
        if cached is not None:
            return cached
        files = self.repo_files(repo)
        names: set[str] = set()
        for path in files:
            parts = path.split("/")
            if parts[-1] != "__init__.py":
                continue
            if len(parts) == 2 or (len(parts) == 3 and parts[0] in ("src", "lib")):
                names.add(parts[-2])
        if "__init__.py" in files:
            root = self.root(repo)
            if root is not None:
                names.add(root.name)
        self._provided[repo] = names
        return names

    def relative_python(self, repo: str, importer: str, spec: str) -> tuple[str, str] | None:
        """`from ..a import b` in `importer`: the file of `..a` (module or package)."""
        dots = len(spec) - len(spec.lstrip("."))
        rest = spec[dots:]
        folder = posixpath.dirname(importer)
        for _ in range(dots - 1):
            folder = posixpath.dirname(folder)
        base = posixpath.join(folder, *rest.split(".")) if rest else folder
        self.deps.add(("path", file_key(repo, base)))
        files = self.repo_files(repo)
        for candidate in (f"{base}.py", f"{base}.pyi", f"{base}/__init__.py"):
            candidate = candidate.lstrip("/")
            if candidate in files:
                return repo, candidate
        return None

    def python_submodule(self, repo: str, package_file: str, name: str) -> tuple[str, str] | None:
        if not package_file.endswith("__init__.py"):
            return None
        folder = posixpath.dirname(package_file)
        base = posixpath.join(folder, name) if folder else name
        self.deps.add(("path", file_key(repo, base)))
        files = self.repo_files(repo)
        for candidate in (f"{base}.py", f"{base}.pyi", f"{base}/__init__.py"):
            if candidate in files:
                return repo, candidate
        return None

    # -- JavaScript / TypeScript modules ------------------------------------------------
    def js_module(self, repo: str, importer: str, spec: str) -> tuple[str, str] | None:
        """The file an ES import / require of `spec` reaches, or None (external)."""
        if spec.startswith("."):
            base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
            return self._js_file(repo, base)
        aliases = self.ts_aliases(repo, importer)
        for base in aliases.bases(spec) if aliases is not None else ():
            found = self._js_file(repo, base)
            if found is not None:
                return found
        if spec == "$lib" or spec.startswith("$lib/"):
            library = self.sveltekit_lib(repo, importer)
            if library is not None:
                return self._js_file(repo, library + spec[len("$lib") :])
        package = self.npm_package(spec)
        if package is None:
            return None
        name = package.name
        sub = spec[len(name) :].lstrip("/")
        if sub:
            root_folder = posixpath.dirname(package.declared_in)
            return self._js_file(package.repo, posixpath.join(root_folder, sub).lstrip("./"))
        if package.entry is not None:
            return package.repo, package.entry
        return self._js_file(package.repo, "index")

    def _js_file(self, repo: str, base: str) -> tuple[str, str] | None:
        """The file `base` names, Node's way: the file itself, with an extension, then
        the folder's package.json "main", then its index file. The repository root is
        `""` (`require('..')` from a top-level folder)."""
        base = "" if base in (".", "./") else base
        if base.startswith("../") or base == "..":
            return None  # above the repository
        self.deps.add(("path", file_key(repo, js_base(base))))
        files = self.repo_files(repo)
        candidates: list[str] = []
        if base:
            stem = js_base(base)
            # The file itself first, whatever it holds: `./Nav.svelte`, `./Card.vue`.
            candidates = [base] if posixpath.splitext(base)[1] else []
            candidates += [stem + ext for ext in JS_EXTENSIONS]
        for candidate in candidates:
            if candidate in files:
                return repo, candidate
        folder = f"{base}/" if base else ""
        manifest = f"{folder}package.json"
        self.deps.add(("path", file_key(repo, manifest)))
        if manifest in files:
            key = (repo, manifest)
            if key not in self._mains:
                self._mains[key] = _package_main(self.root(repo), manifest, files)
            main = self._mains[key]
            if main is not None:
                return repo, main
        for ext in JS_EXTENSIONS:
            if f"{folder}index{ext}" in files:
                return repo, f"{folder}index{ext}"
        return None

    def sveltekit_lib(self, repo: str, importer: str) -> str | None:
        """`src/lib` of the SvelteKit project around `importer` (the nearest folder up
        with a `svelte.config.*`), what `$lib` names: SvelteKit declares the alias in a
        tsconfig it writes at build time (`.svelte-kit/`, never in the repository).
        Every config looked for is recorded as a dependency."""
        files = self.repo_files(repo)
        folder = posixpath.dirname(importer)
        while True:
            prefix = f"{folder}/" if folder else ""
            self.deps.add(("path", file_key(repo, f"{prefix}svelte.config")))
            if any(f"{prefix}svelte.config{ext}" in files for ext in JS_EXTENSIONS):
                return f"{prefix}src/lib"
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def ts_aliases(self, repo: str, importer: str) -> Aliases | None:
        """The `paths` and `baseUrl` of the tsconfig (or jsconfig) nearest to `importer`;
        every config looked for or read is recorded as a dependency."""
        files = self.repo_files(repo)
        looked, config = nearest_config(files, importer)
        self.deps.update(("tsconfig", file_key(repo, path)) for path in looked)
        root = self.root(repo)
        if config is None or root is None:
            return None
        key = (repo, config)
        if key not in self._aliases:
            self._aliases[key] = read_aliases(root, files, config)
        aliases = self._aliases[key]
        if aliases is not None:
            self.deps.update(("tsconfig", file_key(repo, path)) for path in aliases.read)
        return aliases

    def npm_package(self, spec: str) -> Package | None:
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        self.deps.add(("module", f"npm:{name}"))
        for package in self.packages().get(name, []):
            if package.declared_in.endswith("package.json"):
                return package
        return None

    def python_package(self, repo: str, top: str) -> Package | None:
        for package in self.packages().get(top, []):
            if package.repo == repo:
                return package
        return None

    def packages(self) -> dict[str, list[Package]]:
        """Packages each repository declares (package.json "name", pyproject.toml
        [project] name, and top-level Python packages), read from the work tree."""
        if self._packages is not None:
            return self._packages
        found: dict[str, list[Package]] = defaultdict(list)
        for repo, files in self.files().items():
            root = self.root(repo)
            for path in files:
                if path.split("/")[-1] == "package.json" and path.count("/") <= 2:
                    package = _read_package_json(root, repo, path, files)
                    if package is not None:
                        found[package.name].append(package)
            pyproject = _read_pyproject(root)
            for top in sorted(self.provided(repo)):
                entry = next(
                    (p for p in (f"{top}/__init__.py", f"src/{top}/__init__.py") if p in files),
                    "__init__.py" if "__init__.py" in files else None,
                )
                if pyproject is not None and _normalize(pyproject[0]) == _normalize(top):
                    found[top].append(Package(repo, top, entry, "pyproject.toml", pyproject[1]))
                else:
                    found[top].append(Package(repo, top, entry, entry or "", 1))
        self._packages = dict(found)
        return self._packages


_DISTRIBUTION_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


def _distribution_start(files: dict[str, str], folders: list[str]) -> int | None:
    """Where the import names of code under `folders` start: the index of the first
    folder below the nearest one up (that folder or an ancestor) holding a Python
    distribution's metadata, past its `src/`."""
    for end in range(len(folders), -1, -1):
        prefix = "/".join(folders[:end])
        if any((f"{prefix}/{name}" if prefix else name) in files for name in _DISTRIBUTION_FILES):
            return end + 1 if end < len(folders) and folders[end] == "src" else end
    return None


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        n += 1
    return n


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _read_package_json(
    root: Path | None, repo: str, path: str, files: dict[str, str]
) -> Package | None:
    if root is None:
        return None
    try:
        text = (root / path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str) or not name:
        return None
    folder = posixpath.dirname(path)
    entry: str | None = None
    built = False  # an entry names a file the repository lacks: build output
    for key in ("module", "main", "types"):
        value = data.get(key)
        if isinstance(value, str):
            candidate = posixpath.normpath(posixpath.join(folder, value))
            stem = js_base(candidate)
            for option in (candidate, *(stem + ext for ext in JS_EXTENSIONS)):
                if option in files:
                    entry = option
                    break
            else:
                built = True
        if entry is not None:
            break
    if built:
        # Pinia's "module" is `dist/pinia.mjs`, its "main" an `index.js` that requires
        # `./dist/…`: the code others reach is built from `src/index.ts`.
        entry = next(
            (
                option
                for ext in JS_EXTENSIONS
                if (option := posixpath.join(folder, f"src/index{ext}")) in files
            ),
            entry,
        )
    if entry is None:
        for ext in JS_EXTENSIONS:
            for option in (f"index{ext}", f"src/index{ext}"):
                option = posixpath.join(folder, option) if folder else option
                if option in files:
                    entry = option
                    break
            if entry is not None:
                break
    return Package(repo, name, entry, path, _line_of(text, '"name"'))


def _package_main(root: Path | None, manifest: str, files: dict[str, str]) -> str | None:
    """The file a folder's package.json "main" names, when it is in the index."""
    if root is None:
        return None
    try:
        data = json.loads((root / manifest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    main = data.get("main") if isinstance(data, dict) else None
    if not isinstance(main, str) or not main:
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(manifest), main))
    if target.startswith(".."):
        return None
    folder = "" if target == "." else f"{target}/"
    options = [] if target == "." else [target, *(js_base(target) + e for e in JS_EXTENSIONS)]
    options += [f"{folder}index{ext}" for ext in JS_EXTENSIONS]
    return next((option for option in options if option in files), None)


def _read_pyproject(root: Path | None) -> tuple[str, int] | None:
    if root is None:
        return None
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, ValueError):
        return None
    project = data.get("project")
    name = project.get("name") if isinstance(project, dict) else None
    if not isinstance(name, str):
        return None
    start = text.find("[project]")
    at = text.find("name", max(start, 0))
    return name, text.count("\n", 0, at) + 1 if at >= 0 else 1
