"""Reading the graph: find symbols, walk dependencies both ways, cut subgraphs, and
write a repository overview within a token budget. Every frontend goes through here
(via ``Engine``); search's graph expansion uses ``neighbors`` and ``importance``.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Sequence

from codecompass.errors import Candidate, Hint, InputError, NotFoundError, OutOfRangeError
from codecompass.graph.http import Mounts
from codecompass.graph.lookup import (
    COMPLETE,
    MAX_CANDIDATES,
    SIMPLE_NAME,
    TRAILING,
    Match,
    choose,
    dotted_parts,
    file_match,
    file_splits,
    innermost,
    member_dots,
    module_rooted,
    namespace_folders,
    normalize,
    overload_group,
    path_rooted,
    private_member,
    qualified_tails,
    symbol_match,
)
from codecompass.graph.models import (
    EDGE_TYPES,
    EDGE_WEIGHTS,
    RPC_PREFIX,
    TYPE_KINDS,
    VIRTUAL_PREFIXES,
)
from codecompass.graph.models import TOPIC_PREFIX as PREFIX
from codecompass.indexing.extract import calls_unread
from codecompass.indexing.languages import (
    is_declaration_path,
    is_example_path,
    is_test_path,
    language_for_path,
    stub_module,
)
from codecompass.models import Edge, EdgeQuery, FileRecord, SymbolQuery, SymbolRecord
from codecompass.schemas import (
    GraphNode,
    GraphResult,
    NodeDetails,
    Overview,
    OverviewFile,
    OverviewSymbol,
    SymbolMatch,
)
from codecompass.security.access import FULL_ACCESS, Access
from codecompass.storage import Backend

DEFAULT_LIMIT = 200
# A symbol argument may be a node id, `repo/path#Qualified.name`, and paths run up to
# security.paths.MAX_PATH_CHARS (1,024): 2,000 leaves room for the repository and the
# qualified name, and is far below what would make a lookup slow (fuzzy matching is
# quadratic in the length) or a storage pattern too long.
MAX_SYMBOL_CHARS = 2000
MAX_CLOSE = 5  # names offered when a symbol argument names nothing
MAX_ALSO_NAMED = 3  # other readings of a name named beside the one walked
# What declares without running. A file of these alone (with an interface's members) is
# often referenced by every file (TypeScript's `types/options.ts`, a `version.rb`), so its
# PageRank leads; the overview shows the code that does the work before it.
DECLARATION_KINDS = frozenset(
    {"type", "interface", "enum", "struct", "constant", "variable", "module"}
)
# What calls or is called: a root of these kinds in a language whose calls are not read
# gets a word of warning with an empty walk.
CODE_KINDS = frozenset(
    {"file", "function", "method", "class", "struct", "interface", "trait", "enum", "module"}
)
# A caller of a base's or an interface's method may run the method of a class below it:
# a walk to callers climbs this many levels of bases (constructors excepted: calling a
# base's constructor builds the base).
DISPATCH_LEVELS = 3
MAX_IMPLEMENTATIONS = 10  # of one interface method, shown in a walk to what a call runs
MAX_SERVED_FILES = 8  # files of route handlers named in an overview
MAX_SERVED_ROUTES = 6  # routes named for each
CONSTRUCTOR_NAMES = frozenset({"__init__", "__new__", "constructor", "init", "initialize", "new"})
# A traversal leaves keyword and similarity edges out unless asked: they connect
# everything to everything a little.
TRAVERSE_TYPES: tuple[str, ...] = tuple(t for t in EDGE_TYPES if t not in ("keyword", "similar"))


# What holds nested functions that a walk out of it enters (a class's methods are not
# its code in that sense: they are walked only when asked for, along `contains`).
NESTING_KINDS = frozenset({"function", "method"})
# A find_symbol candidate: score, exact, written from the repository root, the symbol.
_Scored = tuple[float, bool, bool, SymbolRecord]


def check_types(types: Sequence[str] | None, default: Sequence[str]) -> tuple[str, ...]:
    if types is None or len(types) == 0:
        return tuple(default)
    unknown = [t for t in types if t not in EDGE_TYPES]
    if unknown:
        raise InputError(
            f"Unknown edge type(s) {', '.join(unknown)}; use any of {', '.join(EDGE_TYPES)}."
        )
    return tuple(types)


def _symbol_text(name: str) -> str:
    """A symbol argument without surrounding blanks, refused when absurdly long."""
    text = name.strip()
    if len(text) > MAX_SYMBOL_CHARS:
        raise InputError(
            f"The symbol name is {len(text)} characters long; the limit is "
            f"{MAX_SYMBOL_CHARS}. Pass a name, a qualified name or a node id as search "
            "results show it."
        )
    return text


def estimate_tokens(text: str) -> int:
    """Tokens as an agent's model would count them, estimated as characters / 4."""
    return math.ceil(len(text) / 4)


class GraphReader:
    """One read of the graph, as one principal may see it: nodes outside its access are
    neither returned nor walked through. File and repository lists are read once."""

    def __init__(self, backend: Backend, access: Access = FULL_ACCESS) -> None:
        self.backend = backend
        self.access = access
        self._repos: list[str] | None = None
        self._files: dict[tuple[str, str], FileRecord] | None = None

    # -- nodes --------------------------------------------------------------------
    def repos(self) -> list[str]:
        if self._repos is None:
            self._repos = [
                r.id for r in self.backend.repos.repos() if self.access.allows_repo(r.id)
            ]
        return self._repos

    def _all_files(self) -> dict[tuple[str, str], FileRecord]:
        if self._files is None:
            self._files = {
                key: f for key, f in self.backend.files.files().items() if self.access.allows(*key)
            }
        return self._files

    def file_record(self, repo: str, path: str) -> FileRecord | None:
        """The indexed record of a file the caller may see (all are read once per reader)."""
        return self._all_files().get((repo, path))

    def _line_count(self, key: tuple[str, str]) -> int:
        record = self.file_record(*key)
        return record.line_count if record is not None else 0

    def _symbols(self, query: SymbolQuery) -> list[SymbolRecord]:
        return [
            s for s in self.backend.symbols.symbols(query) if self.access.allows(s.repo, s.path)
        ]

    def is_module(self, node: str) -> bool:
        """Whether `node` is a file or a module symbol: what an import names."""
        if self.split_file_id(node) is not None:
            return True
        return any(s.kind == "module" for s in self._symbols(SymbolQuery(ids=[node])))

    def is_type(self, node: str) -> bool:
        """Whether `node` is a class, interface, struct, trait, enum, type alias or a
        module symbol (a Ruby mixin, an Elixir module)."""
        kinds = TYPE_KINDS | {"module"}
        return any(s.kind in kinds for s in self._symbols(SymbolQuery(ids=[node])))

    def split_file_id(self, node: str) -> tuple[str, str] | None:
        """`repo/path` → (repo, path) for a file of the index, else None."""
        for repo in sorted(self.repos(), key=len, reverse=True):
            if node.startswith(repo + "/"):
                path = node[len(repo) + 1 :]
                if self.file_record(repo, path) is not None:
                    return repo, path
        return None

    def nodes(self, ids: Iterable[str]) -> dict[str, GraphNode]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, GraphNode] = {}
        importance = self.importance(wanted)
        symbol_ids = [i for i in wanted if "#" in i and not i.startswith(VIRTUAL_PREFIXES)]
        for s in self._symbols(SymbolQuery(ids=symbol_ids)):
            found[s.id] = GraphNode(
                id=s.id,
                kind=s.kind,
                name=s.qualified_name,
                repo=s.repo,
                path=s.path,
                start_line=s.start_line,
                end_line=s.end_line,
                importance=importance.get(s.id, 0.0),
            )
        repos = set(self.repos())
        for node in wanted:
            if node in found:
                continue
            if node.startswith("?"):
                found[node] = _bare(node, "unresolved", node[1:])
            elif node.startswith("kw:"):
                found[node] = _bare(node, "keyword", node[3:])
            elif node.startswith(PREFIX):
                found[node] = _bare(node, "topic", node[len(PREFIX) :])
            elif node.startswith(RPC_PREFIX):
                found[node] = _bare(node, "rpc", node[len(RPC_PREFIX) :])
            elif node in repos:
                found[node] = GraphNode(
                    id=node,
                    kind="repo",
                    name=node,
                    repo=node,
                    path=None,
                    start_line=None,
                    end_line=None,
                    importance=1.0,
                )
            elif "#" in node:
                found[node] = _bare(node, "missing", node.split("#", 1)[1])
            else:
                split = self.split_file_id(node)
                if split is None:
                    found[node] = _bare(node, "missing", node)
                    continue
                repo, path = split
                record = self.file_record(repo, path)
                found[node] = GraphNode(
                    id=node,
                    kind="file",
                    name=path.rsplit("/", 1)[-1],
                    repo=repo,
                    path=path,
                    start_line=1,
                    end_line=record.line_count if record is not None else None,
                    importance=importance.get(node, 0.0),
                )
        return found

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]:
        return self.backend.links.importance(list(node_ids))

    def has_graph(self) -> bool:
        return bool(self.backend.edges.edges(EdgeQuery(limit=1)))

    # -- finding symbols ----------------------------------------------------------
    def lookup(
        self,
        text: str,
        *,
        repo: str | None = None,
        kind: str | None = None,
        files: bool = False,
        every: bool = False,
    ) -> list[Match]:
        """Every node `text` names as written (the readings of `graph.lookup`), best
        first. Files and paths are read only when no name reads (they cost a pass over
        the file list); with `files`, files are candidates too (`markup.py`,
        `rich.markup`, a line above every symbol). The ends of qualified names are read
        only when nothing else reads, unless `every`. A line outside every file named is
        an OutOfRangeError."""
        found: dict[str, Match] = {}

        def keep(match: Match) -> None:
            held = found.get(match.id)
            if held is None or match.rank() > held.rank():
                found[match.id] = match

        for s in self._symbols(SymbolQuery(ids=[text], repo=repo, kind=kind)):
            keep(symbol_match(s, COMPLETE, True))
        written = normalize(text)
        parts = dotted_parts(written)
        if parts is not None:
            self._read_dotted(parts, repo, kind, keep)
        if not found and parts is not None and len(parts) > 1:
            # `console.print`: a simple name in a module (`Console.print` in console.py).
            module = "/".join(parts[:-1])
            for s in self._symbols(SymbolQuery(names=[parts[-1]], repo=repo, kind=kind)):
                rooted = module_rooted(module, s.repo, s.path)
                if rooted is not None:
                    keep(symbol_match(s, SIMPLE_NAME, rooted))
        if not found:
            for left, right in file_splits(written):
                if "/" in left or "." in left:
                    self._read_in_files(left, right, repo, kind, files, keep)
        if not found and files and kind is None:
            self._read_files(written, parts, repo, keep)
        if parts is not None and len(parts) > 1 and (every or not found):
            suffix = "." + ".".join(parts)
            for s in self._symbols(SymbolQuery(qualified_suffix=suffix, repo=repo, kind=kind)):
                if s.qualified_name.endswith(suffix):  # the stores may fold case here
                    keep(symbol_match(s, TRAILING, False))
        if parts is not None and not found:
            # The head of qualified names that is no symbol itself: a Terraform resource
            # type (`aws_launch_template` → `aws_launch_template.this`).
            prefix = ".".join(parts) + "."
            query = SymbolQuery(
                qualified_prefix=prefix, repo=repo, kind=kind, limit=MAX_CANDIDATES + 1
            )
            for s in self._symbols(query):
                keep(symbol_match(s, TRAILING, False))
        importance = self.importance(list(found))
        return sorted(
            found.values(),
            key=lambda m: (tuple(-r for r in m.rank()), -importance.get(m.id, 0.0), m.id),
        )

    def _read_dotted(
        self,
        parts: list[str],
        repo: str | None,
        kind: str | None,
        keep: Callable[[Match], None],
    ) -> None:
        """`Class.method`, `module.func`, `pkg.module.Class.method`, `name`."""
        tails = qualified_tails(parts)
        scores = dict.fromkeys(tails, COMPLETE)
        for tail, start in list(tails.items()):
            private = private_member(tail) if "." in tail else None  # members only
            if private is not None:
                tails[private], scores[private] = start, SIMPLE_NAME
        # `App.Services.Favorites.add`: a namespace the folders mirror, the closest kept
        spaced: list[tuple[int, SymbolRecord]] = []
        for s in self._symbols(SymbolQuery(qualified_names=list(tails), repo=repo, kind=kind)):
            start = tails[s.qualified_name]
            rooted = False if start == 0 else module_rooted("/".join(parts[:start]), s.repo, s.path)
            if rooted is not None:
                keep(symbol_match(s, scores[s.qualified_name], rooted))
            elif mirrored := namespace_folders(parts[:start], s.path):
                spaced.append((mirrored, s))
        closest = max((n for n, _ in spaced), default=0)
        for n, s in spaced:
            if n == closest:
                keep(symbol_match(s, TRAILING, False))
        name = ".".join(parts)
        names = {name: SIMPLE_NAME}
        private = private_member(name) if len(parts) == 1 else None
        if private is not None:
            names[private] = TRAILING
        for s in self._symbols(SymbolQuery(names=list(names), repo=repo, kind=kind)):
            keep(symbol_match(s, names[s.name], False))

    def _read_files(
        self,
        written: str,
        parts: list[str] | None,
        repo: str | None,
        keep: Callable[[Match], None],
    ) -> None:
        """A file by its path (`markup.py`, `rich/markup.py`) or its module (`rich.markup`)."""
        for (r, path), rooted in self._files_written(written, repo).items():
            keep(file_match(r, path, rooted))
        if parts is None or len(parts) < 2:
            return
        module, last = "/".join(parts), parts[-1]
        for r, path in self._all_files():
            if last not in path or repo not in (None, r):
                continue  # cheap first: a module's last part is in its path
            at_root = module_rooted(module, r, path)
            if at_root is not None:
                keep(file_match(r, path, at_root))

    def _files_written(self, written: str, repo: str | None) -> dict[tuple[str, str], bool]:
        """The files `written` names as a path → whether it is written from the root.
        Only its last parts count when they hold a `/` or a `.` (`markup.py`): a bare
        word is a symbol's name, not a file's."""
        whole = written.removeprefix("./").strip("/")
        bare = "/" not in whole and "." not in whole
        out: dict[tuple[str, str], bool] = {}
        for r, path in self._all_files():
            if repo not in (None, r) or (bare and path != whole):
                continue
            rooted = path_rooted(whole, r, path)
            if rooted is not None:
                out[(r, path)] = rooted
        return out

    def _read_in_files(
        self,
        left: str,
        right: str,
        repo: str | None,
        kind: str | None,
        files: bool,
        keep: Callable[[Match], None],
    ) -> None:
        """`path#name`, `path:name`, `path:line`."""
        where = self._files_written(left, repo)
        if not where:
            return
        if right.isdigit():
            line = int(right)
            counts = {key: self._line_count(key) for key in where}
            # An empty file has a line 1 (and nothing on it).
            inside = {key: where[key] for key, n in counts.items() if 1 <= line <= max(1, n)}
            if not inside:
                sizes = ", ".join(f"{r}/{p} has {n}" for (r, p), n in sorted(counts.items()))
                raise OutOfRangeError(
                    f"Line {line} is outside the file ({sizes} lines); give a line inside it."
                )
            by_file: dict[tuple[str, str], list[SymbolRecord]] = {}
            for s in self._symbols(SymbolQuery(files=list(inside), kind=kind)):
                by_file.setdefault((s.repo, s.path), []).append(s)
            for (r, path), rooted in inside.items():
                symbol = innermost(by_file.get((r, path), []), line)
                if symbol is not None:
                    keep(symbol_match(symbol, COMPLETE, rooted))
                elif files and kind is None:
                    keep(file_match(r, path, rooted))
            return
        name = member_dots(normalize(right))
        private = private_member(name)
        for s in self._symbols(SymbolQuery(files=list(where), kind=kind)):
            rooted = where[(s.repo, s.path)]
            if s.qualified_name == name:
                keep(symbol_match(s, COMPLETE, rooted))
            elif s.name == name or s.qualified_name.endswith("." + name):
                keep(symbol_match(s, SIMPLE_NAME, rooted))
            elif private is not None and (
                s.qualified_name == private
                or s.name == private
                or s.qualified_name.endswith("." + private)
            ):
                keep(symbol_match(s, TRAILING, rooted))

    def find_symbol(
        self, name: str, *, kind: str | None = None, repo: str | None = None, limit: int = 20
    ) -> list[SymbolMatch]:
        """The symbols `name` names as written (see `graph.lookup`: 1.0 for an id, a
        qualified name, a module or file and a qualified name, a file and a line; 0.95 a
        simple name; 0.9 the end of a qualified name), then case-insensitive (0.85) and
        fuzzy ones; `exact` from 0.95 up. Ties go to a module or path written from the
        repository root, then to code over tests, then to importance."""
        query = _symbol_text(name)
        if not query:
            raise InputError("Give a symbol name, e.g. Console.print.")
        scored: dict[str, _Scored] = {
            m.id: (m.score, m.score >= SIMPLE_NAME, m.rooted, m.symbol)
            for m in self.lookup(query, repo=repo, kind=kind, every=True)
            if m.symbol is not None
        }
        self._add_close(query, kind, repo, limit, scored)
        return self._ranked(scored, limit)

    def _add_close(
        self,
        query: str,
        kind: str | None,
        repo: str | None,
        limit: int,
        scored: dict[str, _Scored],
    ) -> None:
        """Names equal but for case (0.85), then names holding the last part or close to
        it (fuzzy, below 0.8, by likeness to the whole name as written), into `scored`."""

        def add(found: Iterable[SymbolRecord], score_of: Callable[[SymbolRecord], float]) -> None:
            for s in found:
                score = score_of(s)
                if s.id not in scored or score > scored[s.id][0]:
                    scored[s.id] = (score, False, False, s)

        def rows(**where: object) -> list[SymbolRecord]:
            return self._symbols(
                SymbolQuery(kind=kind, repo=repo, limit=2000, **where)  # type: ignore[arg-type]
            )

        def likeness(s: SymbolRecord) -> float:
            return _ratio(query, s.qualified_name) if "." in query else _ratio(query, s.name)

        add(rows(name_folded=query), lambda s: 0.85)
        tail = query.rsplit(".", 1)[-1]
        if len(scored) < limit:
            add(rows(name_contains=tail), lambda s: round(0.8 * likeness(s), 4))
        if len(scored) < limit:
            names = self.backend.symbols.symbol_names(repo=repo, kind=kind)
            for match in difflib.get_close_matches(tail, names, n=limit, cutoff=0.6):
                add(rows(names=[match]), lambda s: round(0.7 * likeness(s), 4))

    def _ranked(self, scored: dict[str, _Scored], limit: int) -> list[SymbolMatch]:
        importance = self.importance(list(scored))
        ordered = sorted(
            scored.values(),
            key=lambda x: (
                -x[0],
                not x[2],
                is_test_path(x[3].path),
                -importance.get(x[3].id, 0.0),
                x[3].id,
            ),
        )
        return [
            SymbolMatch(
                id=s.id,
                repo=s.repo,
                path=s.path,
                name=s.name,
                qualified_name=s.qualified_name,
                kind=s.kind,
                signature=s.signature,
                start_line=s.start_line,
                end_line=s.end_line,
                score=score,
                exact=exact,
            )
            for score, exact, _, s in ordered[:limit]
        ]

    def resolve_node(self, symbol: str, *, repo: str | None = None) -> str:
        """The node id a symbol argument means, written any way `graph.lookup` reads
        (node id, repository, file path, qualified or simple name, module and name, file
        and name or line). Several equally good candidates raise AmbiguousSymbolError
        listing them; none raises NotFoundError offering the closest names."""
        return self._resolve(symbol, repo, with_overloads=False)[0]

    def also_named(self, symbol: str, chosen: Sequence[str], *, repo: str | None = None) -> str:
        """A note naming the other symbols a name reads nearly as well as the one chosen
        (`get`: the top-level function, read completely, and `Session.get`, a member of
        that name), or "" when there are none."""
        text = _symbol_text(symbol)
        if not text or "#" in text or "/" in text:
            return ""
        others = [
            m.id
            for m in self.lookup(text, repo=repo)
            if m.score >= SIMPLE_NAME and m.id not in chosen and m.kind != "file"
        ]
        if not others:
            return ""
        shown = ", ".join(others[:MAX_ALSO_NAMED])
        more = f" and {len(others) - MAX_ALSO_NAMED} more" if len(others) > MAX_ALSO_NAMED else ""
        one = len(others) == 1
        return (
            f"{text!r} also names {shown}{more}; pass {'its id' if one else 'an id'} to walk "
            f"{'it' if one else 'one of them'} instead."
        )

    def resolve_nodes(self, symbol: str, *, repo: str | None = None) -> list[str]:
        """As `resolve_node`, but the overloads of one method (`lookup.overload_group`) are all
        returned, first by line, rather than called ambiguous."""
        return self._resolve(symbol, repo, with_overloads=True)

    def _resolve(self, symbol: str, repo: str | None, with_overloads: bool) -> list[str]:
        text = _symbol_text(symbol)
        if not text:
            raise InputError("Give a symbol: a node id, a qualified name or a name.")
        if self._symbols(SymbolQuery(ids=[text])):
            return [text]
        if text.startswith((PREFIX, RPC_PREFIX)) and self._edges("target", [text], EDGE_TYPES, 0.0):
            return [text]  # a topic some producer or consumer names, an rpc some side names
        if text in self.repos() and repo in (None, text):
            return [text]
        split = self.split_file_id(text)
        if split is not None and repo in (None, split[0]):
            return [text]
        ranked = [m for m in self.lookup(text, repo=repo, files=True) if m.score >= TRAILING]
        group = overload_group(ranked) if with_overloads else []
        if group:
            return self._implemented(group)
        chosen = choose(text, ranked)
        if chosen is not None:
            return self._implemented([chosen])
        scored: dict[str, _Scored] = {}
        self._add_close(text, None, repo, MAX_CLOSE, scored)
        close = self._ranked(scored, MAX_CLOSE)
        offered = f" Closest: {', '.join(m.id for m in close)}." if close else ""
        raise NotFoundError(
            f"Unknown symbol {text!r}.{offered}",
            Hint(
                cli=f"Find its exact name with `codecompass symbol {text}`.",
                mcp=f"Find its exact name with find_symbol (name={text!r}).",
            ),
            candidates=tuple(
                Candidate(m.id, m.kind, m.repo, m.path, m.start_line, m.score) for m in close
            ),
        )

    def _implemented(self, matches: list[Match]) -> list[str]:
        """The ids of `matches`, a Python type stub's symbol replaced by the code it
        declares: the same qualified name in the module beside it (`x.pyi` → `x.py`), or
        the symbol of that name the module imports (attrs's `attrs/__init__.pyi#define`
        is `attr/_next_gen.py#define`, which `attrs/__init__.py` re-exports). Calls
        resolve to the code, so a walk from the stub found nothing."""
        ids: list[str] = []
        for match in matches:
            module = stub_module(match.path)
            found = match.id
            if module is not None and match.symbol is not None:
                found = self._module_symbol(match.repo, module, match.symbol) or found
            if found not in ids:
                ids.append(found)
        return ids

    def _module_symbol(self, repo: str, path: str, declared: SymbolRecord) -> str | None:
        same = self.symbols_at([(repo, path, declared.qualified_name)])
        if same:
            return min(same, key=lambda s: s.start_line).id
        if declared.parent is not None:
            return None
        for edge in self._edges("source", [f"{repo}/{path}"], ("imports",), 0.0, True):
            if edge.target.rpartition("#")[2].split("@")[0] == declared.name:
                return edge.target
        return None

    # -- walking ------------------------------------------------------------------------
    def traverse(
        self,
        start: str,
        *,
        depth: int = 2,
        types: Sequence[str] | None = None,
        direction: str = "out",
        min_confidence: float = 0.0,
        repo: str | None = None,
        limit: int = DEFAULT_LIMIT,
        default_types: Sequence[str] = TRAVERSE_TYPES,
        overloads: Sequence[str] = (),
        reference_vias: frozenset[str] | None = None,
    ) -> GraphResult:
        """Breadth-first from `start` (and from its `overloads`, node ids walked as roots
        too), returning every edge followed and the path from the root to each node
        reached. `limit` caps the nodes (the roots included); `reference_vias` keeps
        only the `references` edges made so."""
        if direction not in ("out", "in", "both"):
            raise InputError(f"direction must be out, in or both, not {direction!r}.")
        if depth < 0:
            raise InputError("depth must be 0 or more.")
        edge_types = check_types(types, default_types)
        root = self.resolve_node(start, repo=None)
        parent: dict[str, str | None] = dict.fromkeys([root, *overloads])
        edges: list[Edge] = []
        seen_edges: set[tuple[str, str, str, int | None]] = set()
        frontier = list(parent)
        truncated = False
        climb = direction in ("in", "both") and "calls" in edge_types
        descend = direction in ("out", "both") and "calls" in edge_types
        enter = direction in ("out", "both") and "contains" not in edge_types
        notes: list[str] = []
        joined: dict[str, str] = {}  # a method the walk joined → the method it joined from

        def join(extra: list[Edge], level: list[str]) -> bool:
            """Add dispatch edges whose other end is new to `level`; False when full."""
            for edge in extra:
                new, known = (
                    (edge.target, edge.source)
                    if edge.source in parent
                    else (edge.source, edge.target)
                )
                if new in parent or not self.access.allows_node(new):
                    continue
                if edge.confidence < min_confidence or repo not in (None, edge.target_repo):
                    continue
                if len(parent) >= limit:
                    return False
                parent[new] = known
                joined[new] = known
                level.append(new)
                edges.append(edge)
            return True

        for _ in range(depth):
            if not frontier:
                break
            # The declarations a method implements join this level: their callers are
            # the method's callers too (Mediator.Send is called through ISender.Send).
            if climb and not join(self._dispatch(frontier), frontier):
                truncated = True
            # A function's nested functions are its own code: they join its level.
            if enter and not join(self._nested(frontier), frontier):
                truncated = True
            found: list[tuple[Edge, str]] = []
            if direction in ("out", "both"):
                found += [
                    (e, e.target)
                    for e in self._edges("source", frontier, edge_types, min_confidence)
                ]
            if direction in ("in", "both"):
                found += [
                    (e, e.source)
                    for e in self._edges("target", frontier, edge_types, min_confidence)
                ]
            if reference_vias is not None:
                found = [
                    (e, o) for e, o in found if e.type != "references" or e.via in reference_vias
                ]
            found.sort(key=lambda x: (-x[0].confidence * x[0].weight, x[0].type, x[1]))
            others = self.nodes(o for _, o in found) if repo else {}
            # An argument's flow into another file's body that the body's own edge
            # already says (`item: Entity` then `item.save()`) is the same call twice.
            direct = {(e.source, e.target, e.type) for e, _ in found if e.via != "argument"}
            next_frontier: list[str] = []
            for edge, other in found:
                if edge.via == "argument" and (edge.source, edge.target, edge.type) in direct:
                    continue
                if edge.type == "calls" and joined.get(edge.target) == edge.source:
                    continue  # `super().save()` in the override: no call of the override
                if not self.access.allows_node(other):
                    continue  # never shown, never walked through
                if repo is not None:
                    node = others.get(other)
                    if node is not None and node.repo not in (None, repo):
                        continue
                key = (edge.source, edge.target, edge.type, edge.evidence_line)
                if other not in parent:
                    if len(parent) >= limit:
                        truncated = True
                        continue
                    parent[other] = edge.source if other == edge.target else edge.target
                    next_frontier.append(other)
                if key not in seen_edges:
                    seen_edges.add(key)
                    edges.append(edge)
            if descend:
                # What a call of an interface's method may run: its implementations.
                implementations, capped = self._implementations(next_frontier)
                notes += capped
                if not join(implementations, next_frontier):
                    truncated = True
            frontier = next_frontier
        result = self._result(root, parent, edges, truncated, overloads, "calls" in edge_types)
        result.limits.extend(notes)
        return result

    def _nested(self, ids: Sequence[str]) -> list[Edge]:
        """The `contains` edges from each function or method among `ids` to the
        functions nested in it (a React component's `const handleClick = () => …`, a
        Python closure), and from those to theirs."""
        found: list[Edge] = []
        outer = [i for i in ids if "#" in i]
        while outer:
            kinds = {s.id: s.kind for s in self._symbols(SymbolQuery(ids=outer))}
            outer = [i for i in outer if kinds.get(i) in NESTING_KINDS]
            edges = [
                e
                for e in self._edges("source", outer, ("contains",), 0.0, resolved=True)
                if e.target.startswith(e.source + ".")
            ]
            found += edges
            outer = [e.target for e in edges]
        return found

    def _dispatch(self, ids: Sequence[str]) -> list[Edge]:
        """For each method among `ids`, an `implements` edge (via `dispatch`) to each
        method of the same name that its class's bases and interfaces declare, up to
        `DISPATCH_LEVELS` up, as sure as the weakest inheritance edge on the way. Three
        queries a level, for every method at once."""
        # (method, a class it is a member of or inherits from, confidence so far)
        reached: list[tuple[SymbolRecord, str, float]] = []
        for method in self._symbols(SymbolQuery(ids=[i for i in ids if "#" in i], kind="method")):
            owner = (method.parent or "").rpartition(".")[2]
            if owner and method.name not in CONSTRUCTOR_NAMES and method.name != owner:
                reached.append((method, f"{method.repo}/{method.path}#{method.parent}", 1.0))
        seen = {(method.id, cls) for method, cls, _ in reached}
        found: list[Edge] = []
        for _ in range(DISPATCH_LEVELS):
            bases: dict[str, list[Edge]] = {}
            classes = sorted({cls for _, cls, _ in reached})
            for edge in self._edges("source", classes, ("extends", "implements"), 0.0):
                if edge.resolved:
                    bases.setdefault(edge.source, []).append(edge)
            reached = [
                (method, edge.target, min(conf, edge.confidence))
                for method, cls, conf in reached
                for edge in bases.get(cls, [])
            ]
            reached = [r for r in reached if (r[0].id, r[1]) not in seen]
            if not reached:
                break
            seen.update((method.id, cls) for method, cls, _ in reached)
            records = {r.id: r for r in self._symbols(SymbolQuery(ids=[c for _, c, _ in reached]))}
            # (repo, path, qualified name) of a declaration → the methods implementing it
            wanted: dict[tuple[str, str, str], list[tuple[SymbolRecord, float]]] = {}
            for method, cls, conf in reached:
                base = records.get(cls)
                if base is not None:
                    key = (base.repo, base.path, f"{base.qualified_name}.{method.name}")
                    wanted.setdefault(key, []).append((method, conf))
            for decl in self.symbols_at(wanted):
                for method, conf in wanted[(decl.repo, decl.path, decl.qualified_name)]:
                    found.append(_dispatch_edge(method, decl, conf))
        return found

    def _implementations(self, ids: Sequence[str]) -> tuple[list[Edge], list[str]]:
        """For each abstract method among `ids` (or an interface's or trait's),
        `implements` edges (via `dispatch`) from the methods of that name in the types
        implementing or extending its type, up to
        `DISPATCH_LEVELS` down, at most `MAX_IMPLEMENTATIONS` each (code before tests
        and examples); and a note for each declaration that has more."""
        methods = [
            m
            for m in self._symbols(SymbolQuery(ids=[i for i in ids if "#" in i], kind="method"))
            if m.parent
        ]
        owners = {
            r.id: r
            for r in self._symbols(
                SymbolQuery(ids=[f"{m.repo}/{m.path}#{m.parent}" for m in methods])
            )
        }
        found: list[Edge] = []
        notes: list[str] = []
        for method in methods:
            owner = owners.get(f"{method.repo}/{method.path}#{method.parent}")
            if owner is None or (
                owner.kind not in ("interface", "trait") and not _abstract(method)
            ):
                continue
            below: list[tuple[SymbolRecord, float]] = []  # implementations, confidence
            level, seen = {owner.id: 1.0}, {owner.id}
            for _ in range(DISPATCH_LEVELS):
                reached: dict[str, float] = {}
                for edge in self._edges("target", list(level), ("implements", "extends"), 0.0):
                    if edge.resolved and edge.source not in seen:
                        seen.add(edge.source)
                        reached[edge.source] = min(level[edge.target], edge.confidence)
                types = self._symbols(SymbolQuery(ids=list(reached)))
                wanted = {
                    (t.repo, t.path, f"{t.qualified_name}.{method.name}"): reached[t.id]
                    for t in types
                }
                below += [
                    (s, wanted[(s.repo, s.path, s.qualified_name)]) for s in self.symbols_at(wanted)
                ]
                level = reached
                if not level:
                    break
            below.sort(key=lambda b: (is_test_path(b[0].path), is_example_path(b[0].path), b[0].id))
            found += [_dispatch_edge(s, method, conf) for s, conf in below[:MAX_IMPLEMENTATIONS]]
            if len(below) > MAX_IMPLEMENTATIONS:
                notes.append(
                    f"{len(below) - MAX_IMPLEMENTATIONS} more implementations of "
                    f"{method.qualified_name} are not shown; the types implementing "
                    f"{owner.qualified_name} are the `implements` edges into it"
                )
        return found, notes

    def symbols_at(self, keys: Iterable[tuple[str, str, str]]) -> list[SymbolRecord]:
        """The symbols named by (repo, path, qualified name), in one query."""
        wanted = set(keys)
        query = SymbolQuery(
            files=sorted({(repo, path) for repo, path, _ in wanted}),
            qualified_names=sorted({qualified for _, _, qualified in wanted}),
        )
        return [s for s in self._symbols(query) if (s.repo, s.path, s.qualified_name) in wanted]

    def _result(
        self,
        root: str,
        parent: dict[str, str | None],
        edges: list[Edge],
        truncated: bool,
        overloads: Sequence[str],
        walks_calls: bool,
    ) -> GraphResult:
        nodes = self.nodes(parent)
        limits: list[str] = []
        start = nodes[root]
        if walks_calls and start.path and start.kind in CODE_KINDS and calls_unread(start.path):
            # An empty answer would read as "nobody calls it".
            language = language_for_path(start.path)
            limits.append(
                f"calls are not read from {language} files yet: the calls of and to "
                f"{start.name} in {language} code are unknown, not absent; search for its "
                "name to find where it is used"
            )
        paths: list[list[str]] = []
        for node in parent:
            if parent[node] is None:  # a root
                continue
            path = [node]
            step = parent[node]
            while step is not None:
                path.append(step)
                step = parent[step]
            paths.append(list(reversed(path)))
        return GraphResult(
            root=root,
            nodes=[nodes[n] for n in parent],
            edges=edges,
            paths=paths,
            truncated=truncated,
            overloads=list(overloads),
            limits=limits,
        )

    def _edges(
        self,
        column: str,
        ids: Sequence[str],
        types: Sequence[str],
        min_confidence: float,
        resolved: bool | None = None,
    ) -> list[Edge]:
        query = EdgeQuery(
            sources=list(ids) if column == "source" else None,
            targets=list(ids) if column == "target" else None,
            types=list(types),
            min_confidence=min_confidence,
            resolved=resolved,
        )
        return self.backend.edges.edges(query)

    def subgraph(
        self, ids: Sequence[str], *, limit: int = DEFAULT_LIMIT, skip_unknown: bool = False
    ) -> GraphResult:
        """The given nodes (up to `limit`) and every edge between them; with
        `skip_unknown`, ids that name no node are left out instead of refused."""
        resolved = list(dict.fromkeys(self._resolved(ids, skip_unknown)))
        truncated = len(resolved) > limit
        kept = resolved[:limit]
        members = set(kept)
        edges = [e for e in self._edges("source", kept, EDGE_TYPES, 0.0) if e.target in members]
        nodes = self.nodes(kept)
        root = kept[0] if kept else ""
        return GraphResult(
            root=root, nodes=[nodes[n] for n in kept], edges=edges, paths=[], truncated=truncated
        )

    def details(self, node: str, *, limit: int = 50) -> NodeDetails:
        """A node with its signature, doc and edges in and out (the `limit` strongest
        each way; unresolved references and keyword edges included, as they are
        evidence too)."""
        node_id = self.resolve_node(node)
        symbol = next(iter(self._symbols(SymbolQuery(ids=[node_id]))), None)
        visible = [
            [e for e in self._edges(column, [node_id], EDGE_TYPES, 0.0) if self._shows(e)]
            for column in ("target", "source")
        ]
        strongest = [
            sorted(edges, key=lambda e: (-e.confidence * e.weight, e.type, e.source, e.target))[
                :limit
            ]
            for edges in visible
        ]
        ends = {e.source for e in strongest[0]} | {e.target for e in strongest[1]}
        return NodeDetails(
            node=self.nodes([node_id])[node_id],
            signature=symbol.signature if symbol else "",
            doc=symbol.doc if symbol else "",
            in_edges=strongest[0],
            out_edges=strongest[1],
            in_total=len(visible[0]),
            out_total=len(visible[1]),
            neighbours={n.id: n.name for n in self.nodes(sorted(ends)).values()},
        )

    def _shows(self, edge: Edge) -> bool:
        return self.access.allows_node(edge.source) and self.access.allows_node(edge.target)

    def _resolved(self, ids: Sequence[str], skip_unknown: bool) -> Iterable[str]:
        for node in ids:
            try:
                yield self.resolve_node(node)
            except (InputError, NotFoundError):
                if not skip_unknown:
                    raise

    # -- search's view ------------------------------------------------------------------
    def neighbors(
        self, node_ids: Sequence[str], edge_types: Sequence[str], max_in: int | None = None
    ) -> list[Edge]:
        """Resolved edges touching any of `node_ids`, either direction; with `max_in`, a
        node more than `max_in` edges end at gives its outgoing edges only."""
        types = [t for t in edge_types if t in EDGE_TYPES]
        if not node_ids or not types:
            return []
        starts = ends = list(node_ids)
        if max_in is not None:
            degree = self.backend.edges.in_degrees(starts)
            ends = [node for node in starts if degree.get(node, 0) <= max_in]
        seen: set[tuple[str, str, str]] = set()
        out: list[Edge] = []
        for column, ids in (("source", starts), ("target", ends)):
            for edge in self._edges(column, ids, types, 0.0, resolved=True):
                key = (edge.source, edge.target, edge.type)
                if key in seen:
                    continue
                if not (
                    self.access.allows_node(edge.source) and self.access.allows_node(edge.target)
                ):
                    continue
                seen.add(key)
                out.append(edge)
        return out

    # -- overview -----------------------------------------------------------------------
    def overview(self, repo: str, budget_tokens: int = 2000) -> Overview:
        """The most important files, and in each its most important symbols with their
        signatures, until the token budget is spent: a map to read before anything else."""
        if budget_tokens < 50:
            raise InputError("budget_tokens must be at least 50.")
        every_symbol = self._symbols(SymbolQuery(repo=repo))
        symbols = [s for s in every_symbol if s.kind != "section"]
        files = [path for (r, path) in self._all_files() if r == repo]
        by_file: dict[str, list[SymbolRecord]] = {}
        for s in symbols:
            by_file.setdefault(s.path, []).append(s)
        stored = self.importance([s.id for s in symbols] + [f"{repo}/{path}" for path in by_file])
        # Shown relative to the repository's top file and top symbol, each 1.0.
        importance = _relative(stored, {f"{repo}/{p}" for p in by_file})
        sections = len(every_symbol) - len(symbols)
        text = (
            f"# {repo}: {len(files)} files, {len(every_symbol)} symbols ({len(symbols)} in "
            f"code, {sections} document sections). Most important first (PageRank): code, "
            "then files of declarations alone (data classes too), examples, tests and type "
            "stubs.\n"
        )[: budget_tokens * 4]
        served = self._served(repo)
        if served and estimate_tokens(text + served) <= budget_tokens // 2:
            text += served
        ranked = sorted(
            by_file,
            key=lambda p: (
                is_test_path(p) or is_declaration_path(p),
                is_example_path(p),
                _declarations_alone(by_file[p]),
                -importance.get(f"{repo}/{p}", 0.0),
                p,
            ),
        )
        shown: list[OverviewFile] = []
        for path in ranked:
            score = importance.get(f"{repo}/{path}", 0.0)
            chosen, namesakes = _most_important_names(by_file[path], importance)
            depth = _nesting_depths(by_file[path])
            lines = [f"{path}  [{score:.2f}]"]
            for s in chosen:
                indent = "  " * (1 + depth[s.id])
                shown_signature = s.short_signature() or f"{s.kind} {s.name}"
                owner = s.qualified_name.rpartition(".")[0]
                if owner and not s.parent and not _names(shown_signature, owner):
                    # Defined outside its type's body (a Rust `impl`, an extension): the
                    # signature alone does not say whose method `fn parse(…)` is.
                    shown_signature = f"{owner}: {shown_signature}"
                more = namesakes[s.id]
                also = f"  (+{more} more of this name)" if more else ""
                lines.append(f"{indent}{shown_signature}  :{s.start_line}{also}")
            block = "\n".join(lines) + "\n"
            if estimate_tokens(text + block) > budget_tokens:
                if shown:
                    break
                block = block[: max(0, (budget_tokens - estimate_tokens(text)) * 4)]
            text += block
            shown.append(
                OverviewFile(
                    path=path,
                    importance=round(score, 4),
                    symbols=[
                        OverviewSymbol(
                            id=s.id,
                            name=s.qualified_name,
                            kind=s.kind,
                            signature=s.signature,
                            line=s.start_line,
                            importance=round(importance.get(s.id, 0.0), 4),
                            namesakes=namesakes[s.id],
                        )
                        for s in chosen
                    ],
                )
            )
        return Overview(repo=repo, text=text, tokens=estimate_tokens(text), files=shown)

    def _served(self, repo: str) -> str:
        """The HTTP routes the repository serves, its entry points: by the file of their
        handler, most routes first (`MAX_SERVED_FILES` files, `MAX_SERVED_ROUTES` each),
        each route as it is served (its routers' prefixes) with its handler's name."""
        facts = self.backend.links.http_facts()
        mounts = Mounts(facts)
        by_file: dict[str, list[str]] = {}
        for route in (f for f in facts if f.role == "route" and f.repo == repo):
            where, _, handler = route.node.partition("#")
            path = (
                where[len(repo) + 1 :] if handler and where.startswith(repo + "/") else route.path
            )
            template = mounts.templates(route)[0][0]
            method = "" if route.method == "*" else route.method + " "  # `*`: any method
            shown = f"{method}{template} {handler.rpartition('.')[2]}".rstrip()
            listed = by_file.setdefault(path, [])
            if shown not in listed:
                listed.append(shown)
        if not by_file:
            return ""
        count = sum(len(v) for v in by_file.values())
        lines = [f"## Serves {count} HTTP route{'s' * (count != 1)}"]
        ranked = sorted(by_file.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        for path, routes in ranked[:MAX_SERVED_FILES]:
            more = len(routes) - MAX_SERVED_ROUTES
            tail = f" (+{more} more)" if more > 0 else ""
            lines.append(f"{path}: {', '.join(routes[:MAX_SERVED_ROUTES])}{tail}")
        if len(ranked) > MAX_SERVED_FILES:
            lines.append(f"… {len(ranked) - MAX_SERVED_FILES} more files")
        return "\n".join(lines) + "\n\n"


def _abstract(method: SymbolRecord) -> bool:
    """Whether `method` is declared `abstract` (Java, Kotlin, C#, TypeScript, PHP, Scala):
    a call of it runs an override."""
    return "abstract" in method.signature.partition("(")[0].split()


def _dispatch_edge(method: SymbolRecord, declaration: SymbolRecord, confidence: float) -> Edge:
    return Edge(
        source=method.id,
        target=declaration.id,
        type="implements",
        weight=EDGE_WEIGHTS["implements"],
        confidence=confidence,
        via="dispatch",
        name=declaration.qualified_name,
        evidence_path=method.path,
        evidence_line=method.start_line,
        target_repo=declaration.repo,
        target_path=declaration.path,
        target_line=declaration.start_line,
    )


def _names(signature: str, owner: str) -> bool:
    """Whether ``signature`` names the type ``owner`` as a whole word (`-> Args`, a Go
    receiver), not as the start of another name (`ManagerDelegate` in a `Manager`)."""
    return (
        re.search(rf"(?<![\w$]){re.escape(owner.rpartition('.')[2])}(?![\w$])", signature)
        is not None
    )


def _nesting_depths(symbols: Sequence[SymbolRecord]) -> dict[str, int]:
    """How many of the file's symbols enclose each one: the dots of a qualified name
    do not say it (`defmodule Phoenix.Socket.Message` is at the top)."""
    parent_of = {s.qualified_name: s.parent for s in symbols}
    depths: dict[str, int] = {}
    for s in symbols:
        depth, parent = 0, s.parent
        while parent is not None and parent in parent_of and depth < len(parent_of):
            depth, parent = depth + 1, parent_of[parent]
        depths[s.id] = depth
    return depths


def _most_important_names(
    symbols: list[SymbolRecord], importance: dict[str, float], shown: int = 10
) -> tuple[list[SymbolRecord], dict[str, int]]:
    """A file's ``shown`` most important names, each by its most important symbol, in line
    order; and per symbol shown, how many more of the file's symbols share its name
    (overloads, a macro defined in each branch of an ``#if``)."""
    first: dict[str, SymbolRecord] = {}
    namesakes: dict[str, int] = {}
    for s in sorted(symbols, key=lambda s: (-importance.get(s.id, 0.0), s.start_line)):
        kept = first.get(s.qualified_name)
        if kept is not None:
            namesakes[kept.id] += 1
        elif len(first) < shown:
            first[s.qualified_name] = s
            namesakes[s.id] = 0
    return sorted(first.values(), key=lambda s: s.start_line), namesakes


def _declarations_alone(symbols: list[SymbolRecord]) -> bool:
    """Whether a file only declares: types, interfaces and their members (a C# or PHP
    interface's methods are signatures), constants, namespaces (Ruby's `version.rb`),
    classes holding data alone (no method but properties: Ombi's `Settings`, `OmbiUser`)."""
    interfaces = {s.qualified_name for s in symbols if s.kind == "interface"}
    # a property with a body (C#'s `bool IsError => …`) is a method with no parameters
    with_code = {
        s.parent for s in symbols if s.kind in ("method", "function") and "(" in s.signature
    }
    return all(
        s.kind in DECLARATION_KINDS
        or s.parent in interfaces
        or (s.kind == "class" and s.qualified_name not in with_code)
        or (s.kind == "method" and s.parent not in with_code and "(" not in s.signature)
        for s in symbols
    )


def _relative(scores: dict[str, float], files: set[str]) -> dict[str, float]:
    """Files scaled by the best file, symbols by the best symbol: a repository's top
    file reads 1.0 even when its symbols hold most of the rank."""
    best_file = max((v for k, v in scores.items() if k in files), default=0.0)
    best_symbol = max((v for k, v in scores.items() if k not in files), default=0.0)
    out: dict[str, float] = {}
    for node, value in scores.items():
        top = best_file if node in files else best_symbol
        out[node] = value / top if top > 0 else 0.0
    return out


def _bare(node: str, kind: str, name: str) -> GraphNode:
    """A node the index knows nothing more about (unresolved, keyword, missing)."""
    return GraphNode(
        id=node,
        kind=kind,
        name=name,
        repo=None,
        path=None,
        start_line=None,
        end_line=None,
        importance=0.0,
    )


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()
