"""Where candidates come from: dense vectors, BM25, what the query names (symbols, files,
traceback frames), every chunk of the best files, and graph neighbours of the best seeds.

Each source adds chunk ids to the context with the feature it measured; `features.fill`
then gives every candidate every other feature.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from codecompass.graph.lookup import private_member
from codecompass.indexing.languages import is_test_folder, is_test_path, name_under_test
from codecompass.models import ChunkEntry, Edge, SymbolQuery, SymbolRecord
from codecompass.protocols import GraphView, Vectors
from codecompass.search.context import Candidate, SearchContext, Tested
from codecompass.search.expand import expand, personalized_rank
from codecompass.search.features import fill, guard_calls
from codecompass.search.query import module_path_candidates, query_windows
from codecompass.tokens import code_tokens

# Long queries (issues, tracebacks) keep their rarest terms for BM25: a term in a tenth
# of all chunks adds little to the ranking but most of the lexical index's cost.
MAX_QUERY_TERMS = 40
COMMON_TERM_SHARE = 0.1
# BM25 (FTS5's, and the PostgreSQL twin's) gives a term in half the chunks or more an IDF
# of 1e-6: it adds nothing to a score, but matching it scores nearly every chunk (a
# repository's name is in every path), which was most of a short query's lexical time.
WEIGHTLESS_TERM_SHARE = 0.5
# A name shared by more symbols than this only brings candidates from files the query
# also names; otherwise `__init__` or `eval` would flood the pool.
NAME_FANOUT = 30
NESTED_KINDS = frozenset({"function", "method", "class"})  # nested symbols the view shows
# A frame's function weighs 1 nearest the failure (of the repository's frames), OUTER_FRAME
# farther out: the fix was in the innermost of them in 22 of the 33 tasks of six issue sets
# whose traceback held it, and long outer functions (a CLI's command, a linter's loop)
# matched more of the words. Over 14 issue sets (378 tasks), 0.9 → 0.7 moved 8 to
# file@1 and 2 to function@5 and cost no task at @1, @5 or @10; 0.5 moved 3 more to
# file@1 but cost function@5 on the dev split; 0.3 cost function@10.
OUTER_FRAME = 0.7
# A frame's line tells apart the functions of its name in its file, but only half: the
# line of a traceback from another version of the code drifts (marshmallow's did, and a
# line that chose the function outright lost 4 tasks there). A namesake not holding the
# line weighs this much of the frame's weight: on 15 issue sets function@5 214 → 215,
# scikit-learn's function@10 15 → 16, nothing lost at @5 or @10.
FRAME_OFF_LINE = 0.5
# Of a framed function's chunks, the one holding the frame's line is the evidence to
# show (werkzeug's audit: `run_wsgi`'s hit showed lines 382–393 for a frame at 370); the
# others weigh this much of the frame's weight, gently, as the line may have drifted.
FRAME_OTHER_CHUNK = 0.9
# A name written only in the query's fenced code (its reproducing snippet: the public API
# it calls, `TypeAdapter`, `echo.Context`, `EnvironBuilder`), when the prose around says
# what is wrong, weighs this much of its naming. 0.3 / 0.4 / 0.5 against 1.0 over the dev
# split and four audit sets (pydantic, echo, werkzeug, fastify; 177 tasks) gave file@1
# +3 / +3 / +3, function@5 +3 / +4 / +3, function@10 +2 / +4 / +2; 0.7 gave +2, +1, 0.
FENCED_NAME = 0.4
# A name written only in a traceback's frames, of a function a frame's file has, for a
# namesake outside the frames' files: the frame names its own file's function (gson's
# `JsonTreeReader.nextLong` frame had named `JsonReader.nextLong`).
FRAMED_ELSEWHERE = 0.5
PATH_CHUNKS = 600  # chunks brought in by files the query names, all files together
# A question about what uses a name brings the users of the CALLED_SYMBOLS symbols it
# names best (by at least CALLED_NAME, or a name of CALLED_SHARED code symbols at most),
# MAX_CALLERS in all.
CALLED_NAME = 0.5
CALLED_SHARED = 2
CALLED_SYMBOLS = 3
MAX_CALLERS = 30
SPECIAL_METHOD = 0.7  # a special method the query's code runs, × its class's naming
SPECIAL_CLASSES = 8  # the best-named classes whose special methods are looked for
BASE_DEPTH = 3  # how far up its bases a class's special method is looked for
CALLER_EDGES = ("calls", "references")
FILE_CHUNKS = 200  # chunks of one best file brought in by file expansion
# Chunks of one symbol brought in by graph expansion, from its start. A generated
# function of thousands of chunks (sympy's Rubi rules) would otherwise bring them all.
SYMBOL_CHUNKS = 50
QUOTED_CHUNKS = 20  # chunks a quoted message brings by the BM25 of its own words
# The best test files (ranked as if they were code) that vouch for the files they test;
# a test name shared by more code files than TESTED_TIES at the same depth names none.
TESTED_FILES = 2
TESTED_TIES = 2
_TEST_AFFIX = re.compile(r"^tests?_|_tests?$")  # `auth_tests`, `test_util`: a test folder's topic
_STOPWORDS_TEXT = """a about above after again against all also am an and any are as at be
    because been before being below between both but by can could did do does doing done
    down during each
    else few for from further get gets got had has have having he her here hers him his how i
    if in into is it its itself just like may me might more most must my no nor not now of
    off on once only or other our out over own same shall she should so some such than that
    the their them then there these they this those through to too under until up upon us
    very was we were what when where which while who whom why will with would you your
    yours"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


# -- query terms ----------------------------------------------------------------------
def term_idf(ctx: SearchContext, terms: Sequence[str]) -> dict[str, float]:
    """IDF of each distinct query term the index holds (stop words and unknown terms out)."""
    wanted = [t for t in dict.fromkeys(terms) if t not in STOPWORDS and len(t) > 1]
    if not wanted:
        wanted = list(dict.fromkeys(terms))
    freqs, total = ctx.sources.lexical.doc_freqs(wanted)
    return {t: _idf(freqs[t] / total) for t in wanted if freqs.get(t, 0) > 0 and total}


def _idf(share: float) -> float:
    """BM25's IDF of a term found in `share` of the chunks (for a large collection)."""
    return math.log(1.0 + (1.0 - share) / max(share, 1e-9))


def query_terms(idf: dict[str, float]) -> list[str]:
    """The terms the lexical search asks for: the rarest first, none BM25 gives no weight
    (unless no other is left); in a long query, only those rarer than COMMON_TERM_SHARE
    of chunks."""
    ranked = sorted(idf, key=lambda t: -idf[t])
    weightless = _idf(WEIGHTLESS_TERM_SHARE)
    terms = [t for t in ranked if idf[t] > weightless] or ranked
    if len(ranked) > MAX_QUERY_TERMS // 2:
        floor = _idf(COMMON_TERM_SHARE)
        terms = [t for t in terms if idf[t] >= floor] or terms
    return terms[:MAX_QUERY_TERMS]


# -- dense and lexical --------------------------------------------------------------------
def dense_top(ctx: SearchContext, pool: int) -> tuple[Vectors, list[tuple[str, float]]]:
    """The query's vectors and the `pool` nearest chunks, without touching `ctx`: it runs
    on a worker thread while the lexical search runs."""
    embedder, vectors = ctx.sources.embedder, ctx.sources.vectors
    assert embedder is not None and vectors is not None
    query_vectors = embedder.embed(query_windows(ctx.query))
    return query_vectors, vectors.search(query_vectors, pool, ctx.options.where)


def add_dense(ctx: SearchContext, query_vectors: Vectors, top: list[tuple[str, float]]) -> None:
    ctx.query_vectors = query_vectors
    for rank, (cid, cos) in enumerate(top, 1):
        ctx.add(cid, "dense", rank).features["cosine"] = max(0.0, cos)


def lexical_top(ctx: SearchContext, pool: int) -> list[tuple[str, float]]:
    """The `pool` best chunks by BM25; keeps the match in `ctx.lexical` for the BM25 of
    the chunks other sources bring."""
    terms = query_terms(ctx.idf)
    if not terms:
        return []
    ctx.lexical = ctx.sources.lexical.match(terms, ctx.options.where)
    return ctx.lexical.top(pool)


def add_quoted(ctx: SearchContext) -> None:
    """The chunks best matching each quoted message's own words, stop words and all: the
    query's terms leave out `can` and `t` of "can't find session", and what is left
    (`find`, `session`) is in hundreds of tmux's chunks. The message feature then marks
    those holding the phrase."""
    for message in ctx.parsed.quoted_messages:
        terms = list(dict.fromkeys(code_tokens(message)))
        top = ctx.sources.lexical.match(terms, ctx.options.where).top(QUOTED_CHUNKS)
        for rank, (cid, _) in enumerate(top, 1):
            ctx.add(cid, "quoted", rank)


# An exception class constructed in more places than this says nothing of where a
# message it formats came from.
RAISERS = 5
GUARD_NAMESAKES = 3
GUARD_KINDS = frozenset({"function", "method"})
_EXCEPTION_CLASS = re.compile(r"(?:Error|Exception|Warning)$")  # by its name's end


def add_raisers(ctx: SearchContext) -> None:
    """An exception class often formats its own message: click's `NoSuchCommand.__init__`
    holds `No such command {name!r}.`, and the code that failed is `Group.resolve_command`,
    which raises it. The places constructing an exception class (its name, or a base's up
    to BASE_DEPTH levels, ends in `Error`, `Exception` or `Warning`) whose code holds a
    message of the query share that message's feature, when there are at most RAISERS."""
    graph = ctx.sources.graph
    if graph is None:
        return
    found: dict[str, float] = {}  # class id → its best message value
    for cid, cand in ctx.cands.items():
        value, chunk = cand.features.get("message"), ctx.chunks[cid]
        if not value or not chunk.symbol_id:
            continue
        owner = chunk.symbol_id if chunk.kind == "class" else _parent_id(chunk.symbol_id)
        if owner is not None and value > found.get(owner, 0.0):
            found[owner] = value
    if not found:
        return
    lineage = _lineages(graph, sorted(found))
    raisers: dict[str, list[str]] = {}
    for edge in graph.neighbors(sorted(found), ("calls",)):
        if edge.target in found and edge.source != edge.target:
            raisers.setdefault(edge.target, []).append(edge.source)
    value_of: dict[str, float] = {}
    for owner, sources in raisers.items():
        names = [short_name(node) for node in lineage[owner]]
        if len(sources) <= RAISERS and any(_EXCEPTION_CLASS.search(n) for n in names):
            for sid in sources:
                if found[owner] > value_of.get(sid, 0.0):
                    value_of[sid] = found[owner]
                    ctx.raises[sid] = owner
    _mark_symbols(ctx, value_of, "raiser")


def add_guards(ctx: SearchContext) -> None:
    """The functions the guard of a matched message calls (`features.guard_calls`) share
    its `message`: the check that failed is where a fix lands (Django's `lookup_allowed`
    above `raise DisallowedModelAdminLookup("Filtering by …")`). A name with more than
    GUARD_NAMESAKES definitions marks none of them."""
    messages = ctx.parsed.messages
    if not messages:
        return
    wanted: dict[str, tuple[float, str]] = {}  # called name → best message value, guarded
    for cid, cand in ctx.cands.items():
        value, chunk = cand.features.get("message"), ctx.chunks[cid]
        if value and chunk.symbol_id:
            for name in guard_calls(chunk.text, messages):
                if value > wanted.get(name, (0.0, ""))[0]:
                    wanted[name] = (value, chunk.symbol_id)
    if not wanted:
        return
    rows = ctx.sources.symbols.symbols(
        SymbolQuery(names=sorted(wanted), repo=ctx.options.where.repo)
    )
    namesakes = Counter(row.name for row in rows)
    value_of: dict[str, float] = {}
    for row in rows:
        if row.kind in GUARD_KINDS and namesakes[row.name] <= GUARD_NAMESAKES:
            value_of[row.id], ctx.guard_of[row.id] = wanted[row.name]
    _mark_symbols(ctx, value_of, "guard")


def _mark_symbols(ctx: SearchContext, value_of: dict[str, float], source: str) -> None:
    """Give the chunks of these symbols (the first SYMBOL_CHUNKS of each) `message` at
    their value, as candidates."""
    if not value_of:
        return
    entries = {
        sid: held[:SYMBOL_CHUNKS]
        for sid, held in ctx.sources.chunks.symbol_chunks(sorted(value_of)).items()
    }
    new_ids = [e.id for held in entries.values() for e in held if e.id not in ctx.chunks]
    ctx.chunks.update(ctx.sources.chunks.chunks(new_ids))
    added: dict[str, Candidate] = {}
    for sid, held in entries.items():
        for entry in held:
            if entry.id not in ctx.chunks or not ctx.passes(ctx.chunks[entry.id]):
                continue
            cand = ctx.cands.get(entry.id) or added.setdefault(
                entry.id, Candidate(sources={source: 0})
            )
            cand.features["message"] = max(cand.features.get("message", 0.0), value_of[sid])
    _join(ctx, added)


def short_name(symbol_id: str) -> str:
    """`FooError` of `repo/path#mod.FooError@12`: the last part of the qualified name,
    without the line a repeated definition's id carries."""
    return symbol_id.partition("#")[2].rsplit(".", 1)[-1].partition("@")[0]


def _parent_id(symbol_id: str) -> str | None:
    """`repo/path#Owner` of `repo/path#Owner.method`, else None."""
    head, _, qualified = symbol_id.partition("#")
    owner = qualified.rpartition(".")[0]
    return f"{head}#{owner}" if owner else None


def add_lexical(ctx: SearchContext, top: list[tuple[str, float]]) -> None:
    best = ctx.lexical_best = top[0][1] if top and top[0][1] > 0 else 1.0
    for rank, (cid, bm25) in enumerate(top, 1):
        ctx.add(cid, "lexical", rank).features["bm25"] = max(0.0, bm25 / best)


def fill_bm25(ctx: SearchContext, cands: dict[str, Candidate]) -> None:
    """Give chunks the lexical top did not bring (found by dense, by name, or by
    expansion) their BM25, normalised by the lexical top's best score."""
    if ctx.lexical is None or not cands:
        return
    for cid, found in ctx.lexical.scores(list(cands)).items():
        cands[cid].features["bm25"] = max(0.0, found / ctx.lexical_best)


# -- names, paths and frames ----------------------------------------------------------
def _specificity(count: int) -> float:
    return 1.0 / (1.0 + math.log(max(1, count)))


@dataclass(frozen=True, slots=True)
class PathIndex:
    """The indexed paths as `add_named` looks names up in them."""

    files: Sequence[tuple[str, str]]  # (repo, path), as the catalog gave them
    paths: list[str]
    repo_of: dict[str, str]
    stems: dict[str, list[str]]  # file name without its extension → paths
    names: dict[str, list[str]]  # file name → paths


_last_path_index: PathIndex | None = None


def path_index(files: Sequence[tuple[str, str]]) -> PathIndex:
    """The index of these paths, made again only when the catalog gives another object:
    the embedded one keeps its paths until a file comes or goes (1 ms a search on
    sympy's 1,633 files, where the whole index took 1.7)."""
    global _last_path_index
    if _last_path_index is not None and _last_path_index.files is files:
        return _last_path_index
    stems: dict[str, list[str]] = {}
    names: dict[str, list[str]] = {}
    for _, path in files:
        name = path.rsplit("/", 1)[-1]
        names.setdefault(name, []).append(path)
        stems.setdefault(name.rsplit(".", 1)[0], []).append(path)
    index = PathIndex(files, [p for _, p in files], {p: r for r, p in files}, stems, names)
    _last_path_index = index
    return index


def _match_files(wanted: str, index: PathIndex) -> list[str]:
    """Indexed paths that `wanted` (maybe absolute, maybe partial) names: only paths of
    its file name can (a log of 24,000 paths took 19 s comparing each with every path)."""
    wanted = wanted.lstrip("~").lstrip("/")
    if not wanted:
        return []
    paths = index.names.get(wanted.rsplit("/", 1)[-1], [])
    if not paths:
        # An installed package's compiled file is its source's: the frame `…/node_modules/
        # hono/dist/cjs/request.js` is hono's `src/request.ts`, when the repository is
        # that package (by its name, or a folder of the path: `packages/zod/src/…`).
        package, sources = _compiled_from(wanted)
        for source in sources:
            found = [
                p
                for p in _match_files(source, index)
                if index.repo_of[p] == package or f"/{package}/" in f"/{p}"
            ]
            if found:
                return found
    exact = [p for p in paths if p == wanted]
    if exact:
        return exact
    # An absolute path from a traceback ends with the repo path; a partial path is the
    # tail of one; an installed module's path is the tail of one kept under a folder
    # (`…/site-packages/flask/app.py` is `src/flask/app.py`). Keep the matches sharing
    # the most trailing folders.
    tails = [wanted, *_installed_module(wanted)]
    shared: dict[str, int] = {}
    for path in paths:
        for tail in tails:
            if tail.endswith("/" + path) or path.endswith("/" + tail):
                depth = min(path.count("/"), tail.count("/"))
                shared[path] = max(shared.get(path, -1), depth)
    if not shared:
        return []
    deepest = max(shared.values())
    return [p for p, depth in shared.items() if depth == deepest]


# A file of a JavaScript package under `node_modules`: the package's name (without its
# scope) and the module path below its build folders (`dist/`, `dist/cjs/`, `lib/esm/`).
_BUILT_MODULE = re.compile(
    r"(?:^|/)node_modules/(?:@[\w.-]+/)?([\w.-]+)/(?:(?:dist|lib|build|out|esm|cjs|es|umd)/)*"
    r"([\w./@-]+?)\.[mc]?js$"
)
_SOURCE_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs")


def _compiled_from(path: str) -> tuple[str, list[str]]:
    """The package of a file under `node_modules` and the source paths it may be built
    from: `hono` and `src/request.ts`, `request.ts`, … for `…/node_modules/hono/dist/
    request.js`; no sources for another path."""
    m = _BUILT_MODULE.search(path)
    if m is None:
        return "", []
    package, module = m.groups()
    return package, [f"{root}{module}{ext}" for root in ("src/", "") for ext in _SOURCE_EXTENSIONS]


def _installed_module(path: str) -> list[str]:
    """The module path inside an installed package's path: what follows
    `site-packages/` or `dist-packages/` (and an `.egg` folder), at least a package
    folder and a file."""
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in f"/{path}":
            parts = f"/{path}".rsplit(marker, 1)[1].split("/")
            if parts[0].endswith(".egg"):
                parts = parts[1:]
            return ["/".join(parts)] if len(parts) >= 2 else []
    return []


def add_named(ctx: SearchContext) -> None:
    """Chunks whose symbol or file the query names, with the strength of the naming."""
    q = ctx.parsed
    names = q.names
    dotted = q.dotted
    repo = ctx.options.where.repo
    index = path_index(ctx.paths)
    paths, repo_of = index.paths, index.repo_of

    file_value: dict[str, float] = {}

    def name_file(path: str, value: float) -> None:
        file_value[path] = max(file_value.get(path, 0.0), value)

    for wanted in q.paths:
        for path in _match_files(wanted, index):
            name_file(path, 1.0)
    modules = {wanted for name in dotted for wanted in module_path_candidates(name)}
    for path in paths if modules else ():
        # A module also lives in a source root that is no package itself:
        # `flask.app` in `src/flask/app.py`, `matplotlib.axes` in `lib/matplotlib/`.
        root, _, inner = path.partition("/")
        if path in modules or (inner in modules and f"{root}/__init__.py" not in repo_of):
            name_file(path, 0.7)
    for name in names:
        # A name the query's own code defines (`def main():`) names no `main.py`.
        if len(name) >= 3 and name in index.stems and name not in q.defined:
            share = index.stems[name]
            for path in share:
                name_file(path, 0.5 * _specificity(len(share)))
    frame_funcs: dict[str, set[str]] = {}
    in_repository: list[tuple[int, list[str], str]] = []  # frame index, its files, function
    frame_lines: dict[tuple[str, str], set[int]] = {}  # (path, function's name) → lines
    # A frame whose function has no name (`at /app/lib/request.js:219:5`), or a name no
    # symbol of its file answers to (`Object.get [as hostname]`), is its line's chunk's.
    by_line: list[tuple[int, list[str], str, int]] = []  # index, files, function, line
    for at, frame in enumerate(q.frames):
        found_paths = _match_files(frame.path, index)
        if not found_paths or not (frame.function or frame.line):
            continue
        in_repository.append((at, found_paths, frame.function or ""))
        if frame.line and frame.function != "<module>":  # a module's top: no function
            by_line.append((at, found_paths, frame.function or "", frame.line))
        for path in found_paths:
            frame_funcs.setdefault(path, set())
            if frame.function:
                frame_funcs[path].add(frame.function)
                if frame.line:
                    name = frame.function.rsplit(".", 1)[-1]
                    frame_lines.setdefault((path, name), set()).add(frame.line)
    by_line = _within_files(ctx, by_line)
    innermost_at, innermost = _innermost(in_repository, q.python_frames, q.cause_frames)
    for wanted, line in q.anchors:
        for path in _match_files(wanted, index):
            pointed = _symbol_at(ctx, repo_of[path], path, line)
            if pointed is not None:  # the code a link points at, as an outer frame's
                frame_funcs.setdefault(path, set()).add(pointed)

    # A JavaScript private member (`#retry`, `Ky.#retry`) answers to its name without `#`.
    private = [f"#{n}" for n in names] + [p for d in dotted if (p := private_member(d))]
    wanted_names = list(dict.fromkeys([*names, *dotted, *private]))
    # Ruby's (Elixir's, Crystal's) `save!` and `valid?` answer to `save` and `valid`: the
    # query's words lose the mark (`Story.recalculate!` reads as `Story.recalculate`).
    wanted_names += [f"{name}{mark}" for name in wanted_names for mark in "!?"]
    rows = (
        ctx.sources.symbols.symbols(SymbolQuery(names_or_qualified=wanted_names, repo=repo))
        if wanted_names
        else []
    )
    by_name = Counter(_plain(row.name) for row in rows)
    # A frame in a function nested in another (`newplotfunc` in `_plot2d`) is in the
    # outer one's chunks: search keeps a nested function in its outer function.
    # Of namesakes nested in several functions of a file, the ones holding the frame's
    # line, if any does (typer's `internal_convertor`, nested in two convertor builders).
    outer: dict[tuple[str, str], str] = {}
    framed_nested: list[SymbolRecord] = []
    inner_framed = [
        s
        for s in rows
        if s.kind == "function" and s.parent and s.name in frame_funcs.get(s.path, ())
    ]

    def holds_frame_line(s: SymbolRecord) -> bool:
        return any(s.start_line <= n <= s.end_line for n in frame_lines.get((s.path, s.name), ()))

    holding = {(s.path, s.name) for s in inner_framed if holds_frame_line(s)}
    for s in inner_framed:
        if not s.parent or ((s.path, s.name) in holding and not holds_frame_line(s)):
            continue
        outer[(s.path, s.name)] = s.parent
        frame_funcs[s.path].add(s.parent)
        framed_nested.append(s)
    if innermost is not None:
        paths, functions = innermost
        functions |= {outer[(p, f)] for p in paths for f in functions if (p, f) in outer}
    named = set(names)
    framed_names = {f.function.rsplit(".", 1)[-1] for f in q.frames if f.function}
    fenced = q.fenced_only - framed_names
    # Names only frames write, of functions found in the frames' files: a frame of a
    # bundle (`node_modules/yup/index.js` read as `src/index.ts`) finds its function
    # elsewhere, and its name keeps its weight there.
    framed_here = {
        _plain(s.name) for s in rows if s.path in frame_funcs and _plain(s.name) in q.framed_only
    }
    # A query that is one name asks for the symbol of that qualified name, however many
    # methods share it: `trigsimp` is the function, `Symbol` the class, not its members.
    alone = _plain(ctx.query.strip())
    symbol_value: dict[str, float] = {}
    for s in rows:
        qualified = _plain(s.qualified_name)
        if qualified in dotted or qualified == alone:
            value = 1.0
        else:
            count = by_name[_plain(s.name)]
            if count > NAME_FANOUT and s.path not in file_value and s.path not in frame_funcs:
                continue
            value = _specificity(count)
            owner = (s.parent or "").rsplit(".", 1)[-1]
            if owner and owner in named:
                value = min(1.0, value + 0.5)
        if _plain(s.name) in fenced:
            value *= FENCED_NAME
        elif _plain(s.name) in framed_here and s.path not in frame_funcs:
            value *= FRAMED_ELSEWHERE
        symbol_value[s.id] = max(symbol_value.get(s.id, 0.0), value)

    special = _special_methods(ctx, rows, symbol_value)
    for s, value, named_class in special:
        if value > symbol_value.get(s.id, 0.0):
            symbol_value[s.id] = value
            ctx.special_of[s.id] = named_class
    named_rows = [*rows, *(s for s, _, _ in special)]

    # The strongest naming first: files share the PATH_CHUNKS budget in this order.
    wanted_files = sorted({*file_value, *frame_funcs}, key=lambda p: (-file_value.get(p, 1.0), p))
    keys = [(repo_of[p], p) for p in wanted_files if p in repo_of]
    keys += [(s.repo, s.path) for s in named_rows if s.id in symbol_value]
    found: dict[str, dict[str, float]] = {}
    budget = PATH_CHUNKS
    pointed_in: dict[str, list[SymbolRecord]] = {}  # what the query names or frames
    for s in [*(s for s in named_rows if s.id in symbol_value), *framed_nested]:
        pointed_in.setdefault(s.path, []).append(s)
    off_line = _off_line(rows, frame_lines)
    entries_of = ctx.sources.chunks.chunk_entries(keys)
    lines_in: dict[str, set[int]] = {}
    for _, paths, _, line in by_line:
        for path in paths:
            lines_in.setdefault(path, set()).add(line)
    for (_, path), entries in entries_of.items():
        holding_lines = {
            (chunk.id, chunk.symbol_id)
            for line in lines_in.get(path, ())
            if (chunk := _chunk_at(entries, line)) is not None
        }
        line_owners = {owner for _, owner in holding_lines}
        held = _held_symbols(entries, pointed_in.get(path, ()))
        for cid, inside in held.items():
            if nested := [s for s in inside if s.kind in NESTED_KINDS]:
                ctx.nested[cid] = nested
        for entry in entries:
            cid, owner_id = entry.id, entry.symbol_id
            funcs = frame_funcs.get(path)
            if funcs and _in_frames(entry, funcs):
                nearest = (
                    innermost is not None
                    and path in innermost[0]
                    and _in_frames(entry, innermost[1])
                )
                weight = 1.0 if nearest else OUTER_FRAME
                if owner_id in off_line:
                    weight *= FRAME_OFF_LINE
                elif owner_id in line_owners and (cid, owner_id) not in holding_lines:
                    weight *= FRAME_OTHER_CHUNK
                found[cid] = {"frame": weight}
                continue
            features: dict[str, float] = {}
            if owner_id is not None and owner_id in symbol_value:
                features["name"] = symbol_value[owner_id]
            held_naming = max((symbol_value.get(s.id, 0.0) for s in held.get(cid, ())), default=0)
            if held_naming:
                features["name"] = max(features.get("name", 0.0), held_naming)
            # A named symbol in a named file has both pieces of evidence: `lambdify` is
            # the function of `lambdify.py` before a class of that name elsewhere. The
            # budget caps only the chunks the file's naming alone brings in.
            if path in file_value and (features or budget > 0):
                if not features:
                    budget -= 1
                features["path"] = file_value[path]
            if features:
                found[cid] = features
    entries_in = {path: entries for (_, path), entries in entries_of.items()}
    _frame_unnamed(found, entries_in, by_line, innermost_at)
    callers = _caller_chunks(ctx, rows, symbol_value) if q.wants_callers else {}
    for cid, (value, _) in callers.items():
        features = found.setdefault(cid, {})
        features["name"] = max(features.get("name", 0.0), value)
    for cid, features in found.items():
        for source, value in features.items():
            cand = ctx.add(cid, source, 0)
            cand.features[source] = max(cand.features.get(source, 0.0), value)
        if cid in callers:
            ctx.cands[cid].graph_path = callers[cid][1]
    best_first = sorted(callers.items(), key=lambda item: -item[1][0])
    ctx.callers = {cid: path[0] for cid, (_, path) in best_first}


def _frame_unnamed(
    found: dict[str, dict[str, float]],
    entries_in: Mapping[str, Sequence[ChunkEntry]],
    by_line: list[tuple[int, list[str], str, int]],
    innermost_at: int,
) -> None:
    """The chunk holding the line of each frame (index, files, function, line) whose
    function no chunk of its file answers to, framed: at 1.0 for the innermost frame,
    OUTER_FRAME for the others."""
    for at, paths, function, line in by_line:
        for path in paths:
            entries = entries_in.get(path, [])
            if function and any(_in_frames(entry, {function}) for entry in entries):
                continue
            holding = _chunk_at(entries, line)
            if holding is not None:
                weight = 1.0 if at == innermost_at else OUTER_FRAME
                features = found.setdefault(holding.id, {})
                features["frame"] = max(features.get("frame", 0.0), weight)


def _within_files(
    ctx: SearchContext, by_line: list[tuple[int, list[str], str, int]]
) -> list[tuple[int, list[str], str, int]]:
    """The frames (index, files, function, line) whose line lies within their files: a
    bundle's line (`index.js:2349`, read as the 149 lines of `src/index.ts`) points at
    nothing of the source, and had framed its last chunk."""
    paths = {path for _, found, _, _ in by_line for path in found}
    if not paths:
        return by_line
    lines = {path: f.line_count for (_, path), f in ctx.sources.files.files(paths=paths).items()}
    kept = [
        (at, [p for p in found if line <= (lines.get(p) or line)], function, line)
        for at, found, function, line in by_line
    ]
    return [frame for frame in kept if frame[1]]


def _special_methods(
    ctx: SearchContext, rows: Sequence[SymbolRecord], symbol_value: dict[str, float]
) -> list[tuple[SymbolRecord, float, str]]:
    """The special methods the query's code runs (`ds == ds2`, `repr(elem)`) of the
    classes it names, each with SPECIAL_METHOD times its class's naming, and that class.
    A class without its own method runs its nearest base's, found up to BASE_DEPTH
    levels up the `extends` edges: SymPy's `Symbol('x') == C()` runs `Expr.__eq__`.
    A class the code calls runs its constructor too, but that is no evidence: issues
    build their objects in every example, and marking constructors lost 3 tasks of 15
    issue sets in the symbol view and gained none."""
    q = ctx.parsed
    if not q.special:
        return []
    class_value = {
        s.id: symbol_value[s.id] for s in rows if s.kind == "class" and s.id in symbol_value
    }
    named = sorted(class_value, key=lambda cid: -class_value[cid])[:SPECIAL_CLASSES]
    if not named:
        return []
    lineage = _lineages(ctx.sources.graph, named)
    wanted_ids = {f"{node}.{m}" for cid in named for node in lineage[cid] for m in q.special}
    defined = {s.id: s for s in ctx.sources.symbols.symbols(SymbolQuery(ids=sorted(wanted_ids)))}
    out: list[tuple[SymbolRecord, float, str]] = []
    for cid in named:
        for method in q.special:
            nearest = next(
                (defined[i] for n in lineage[cid] if (i := f"{n}.{method}") in defined), None
            )
            if nearest is not None:
                out.append((nearest, SPECIAL_METHOD * class_value[cid], cid))
    return out


def _lineages(graph: GraphView | None, classes: Sequence[str]) -> dict[str, list[str]]:
    """Each class's id, then its bases breadth-first up to BASE_DEPTH levels: the order
    Python looks a method up in, near enough for a class tree without diamonds."""
    lineage = {cid: [cid] for cid in classes}
    if graph is None or not classes:
        return lineage
    level = {cid: [cid] for cid in classes}
    for _ in range(BASE_DEPTH):
        below = {node for nodes in level.values() for node in nodes}
        bases: dict[str, list[str]] = {}
        for edge in graph.neighbors(sorted(below), ("extends",)):
            if edge.source in below:
                bases.setdefault(edge.source, []).append(edge.target)
        level = {
            cid: [b for node in nodes for b in bases.get(node, ()) if b not in lineage[cid]]
            for cid, nodes in level.items()
        }
        for cid, found in level.items():
            lineage[cid] += dict.fromkeys(found)
    return lineage


def _off_line(
    rows: Sequence[SymbolRecord], frame_lines: dict[tuple[str, str], set[int]]
) -> set[str]:
    """The functions a frame names that do not hold its line, when a namesake in the
    same file does: a frame `line 1204, in fit` is `LogisticRegression.fit`, not
    `LogisticRegressionCV.fit` of the same file (an outside audit on scikit-learn)."""
    namesakes: dict[tuple[str, str], list[SymbolRecord]] = {}
    for s in rows:
        if (s.path, s.name) in frame_lines:
            namesakes.setdefault((s.path, s.name), []).append(s)
    off: set[str] = set()
    for key, found in namesakes.items():
        lines = frame_lines[key]
        holding = {s.id for s in found if any(s.start_line <= n <= s.end_line for n in lines)}
        if holding and len(found) > len(holding):
            off.update(s.id for s in found if s.id not in holding)
    return off


def _held_symbols(
    entries: Sequence[ChunkEntry], pointed: Sequence[SymbolRecord]
) -> dict[str, list[SymbolRecord]]:
    """The symbols the query points at (names, or a frame names) that have no chunk of
    their own, by the chunk holding their first line: a nested function (axios's
    `mergeConfig.getMergedValue`, Django's `Command.handle.get_objects`) is searched
    within its outer function. That chunk gets their naming, and the symbol view shows
    them as themselves (`SearchContext.nested`)."""
    owners = {entry.symbol_id for entry in entries}
    held: dict[str, list[SymbolRecord]] = {}
    for s in dict.fromkeys(pointed):
        holding = _chunk_at(entries, s.start_line) if s.id not in owners else None
        if holding is not None:
            held.setdefault(holding.id, []).append(s)
    return held


def _chunk_at(entries: Sequence[ChunkEntry], line: int) -> ChunkEntry | None:
    """The chunk of a file's `entries` (in line order) holding `line`: the last one
    starting at or before it."""
    at = bisect.bisect_right([entry.start_line for entry in entries], line)
    return entries[at - 1] if at else None


def _caller_chunks(
    ctx: SearchContext, rows: Sequence[SymbolRecord], symbol_value: dict[str, float]
) -> dict[str, tuple[float, tuple[str, str]]]:
    """In a question about what uses a name ("what calls Vote.cast"), the chunks that
    call or reference the code symbols it names best (a name of at most CALLED_SHARED
    code symbols, or named as strongly as CALLED_NAME), each with the naming's strength
    times the edge's confidence, and the (named symbol, user) path: the callers are the
    answer, named through their relation. Documents' sections are no code: SymPy's
    `sympify` shares its name with two."""
    graph = ctx.sources.graph
    code = [s for s in rows if s.id in symbol_value and s.kind != "section"]
    shared = Counter(_plain(s.name) for s in code)
    named = sorted(
        (
            s.id
            for s in code
            if symbol_value[s.id] >= CALLED_NAME or shared[_plain(s.name)] <= CALLED_SHARED
        ),
        key=lambda sid: -symbol_value[sid],
    )[:CALLED_SYMBOLS]
    if graph is None or not named:
        return {}
    best: dict[str, tuple[float, int, str]] = {}  # user → (value, line, named symbol)
    for edge in graph.neighbors(named, CALLER_EDGES):
        if edge.target not in named or edge.source in named or edge.evidence_line is None:
            continue
        value = symbol_value[edge.target] * edge.confidence
        if value > best.get(edge.source, (0.0, 0, ""))[0]:
            best[edge.source] = (value, edge.evidence_line, edge.target)
    users = sorted(best, key=lambda sid: -best[sid][0])[:MAX_CALLERS]
    out: dict[str, tuple[float, tuple[str, str]]] = {}
    for sid, entries in ctx.sources.chunks.symbol_chunks(users).items():
        value, line, target = best[sid]
        holding = _chunk_at(entries, line) or entries[0]
        out[holding.id] = (value, (target, sid))
    return out


def _symbol_at(ctx: SearchContext, repo: str, path: str, line: int) -> str | None:
    """The qualified name of the innermost function, method or class of a file holding
    `line`, if any."""
    symbols = ctx.sources.symbols.symbols(SymbolQuery(files=[(repo, path)]))
    holding = [
        s
        for s in symbols
        if s.start_line <= line <= s.end_line and s.kind in ("function", "method", "class")
    ]
    inner = min(holding, key=lambda s: s.end_line - s.start_line, default=None)
    return inner.qualified_name if inner is not None else None


def _innermost(
    frames: list[tuple[int, list[str], str]], python_frames: int, cause_frames: int
) -> tuple[int, tuple[list[str], set[str]] | None]:
    """The index, and the files and function, of the frame nearest the failure among
    `frames` (index in the query's frames, the repository's files it names, its
    function): a Python traceback's last (of the cause's traceback in a chain: pylint
    wraps a crash in a second one), another language's first (Python's are the first
    `python_frames`, the cause's the first `cause_frames`); -1 and None for none."""
    python = [f for f in frames if f[0] < python_frames]
    cause = [f for f in python if f[0] < cause_frames]
    nearest = (cause or python)[-1] if python else frames[0] if frames else None
    return (nearest[0], (nearest[1], {nearest[2]})) if nearest else (-1, None)


def _plain(name: str) -> str:
    """A name as a query's words give it: `Ky.#retry` → `Ky.retry`, `User.valid?` →
    `User.valid`."""
    return name.replace("#", "").rstrip("!?")


def _in_frames(entry: ChunkEntry, functions: set[str]) -> bool:
    """Whether a frame names this symbol (of this chunk's file): by its name (Python's
    `helper`), or by its class and name (`Router.handle` in JavaScript, Java, Go, .NET,
    Ruby and PHP). The id is `repo/path#qualified`; a JavaScript private method's own
    name has a `#` too (`Ky.#retry`)."""
    if entry.symbol_id is None:
        return False
    qualified = entry.symbol_id.removeprefix(f"{entry.repo}/{entry.path}#").split("@", 1)[0]
    if qualified.rsplit(".", 1)[-1] in functions:
        return True
    return any(qualified == f or qualified.endswith(f".{f}") for f in functions if "." in f)


# -- expansion ------------------------------------------------------------------------
def _join(ctx: SearchContext, added: dict[str, Candidate]) -> None:
    """Score newly found candidates like the others and add them to the pool."""
    fill_bm25(ctx, added)
    fill(ctx, added)
    ctx.cands.update(added)


def expand_files(ctx: SearchContext) -> None:
    """Bring every chunk of the best files into the pool: the right file is found far
    more often than the right function in it, whose own words may not match the query."""
    ctx.rescore()
    files: list[tuple[str, str]] = []
    for cid in ctx.ranked():
        key = (ctx.chunks[cid].repo, ctx.chunks[cid].path)
        if key not in files:
            files.append(key)
        if len(files) >= ctx.options.expand_files:
            break
    _join_files(ctx, files, "file")


def _join_files(
    ctx: SearchContext, files: list[tuple[str, str]], source: str
) -> dict[str, Candidate]:
    """FILE_CHUNKS chunks of each of these files that are not candidates yet, added to
    the pool with their features (all but `importance`), not yet scored: all of a file's
    when it has no more, else its best by BM25 (the first ones after them). The first
    FILE_CHUNKS alone had left out zod's `handleOptionalResult`, chunk 400 of 586 of
    its file."""
    new_ids: list[str] = []
    for entries in ctx.sources.chunks.chunk_entries(files).values():
        ids = [e.id for e in entries if e.id not in ctx.cands]
        if len(entries) > FILE_CHUNKS and ctx.lexical is not None:
            bm25 = ctx.lexical.scores(ids)
            ids = sorted(ids, key=lambda cid: -bm25.get(cid, 0.0))  # stable: in line order
        new_ids += ids[: max(0, FILE_CHUNKS - (len(entries) - len(ids)))]
    if not new_ids:
        return {}
    ctx.chunks.update(ctx.sources.chunks.chunks(new_ids))
    added = {
        cid: Candidate(sources={source: 0})
        for cid in new_ids
        if cid in ctx.chunks and ctx.passes(ctx.chunks[cid])
    }
    _join(ctx, added)
    return added


def files_under_test(
    test_path: str, paths: Sequence[str], holds_code: Callable[[str], bool] | None = None
) -> list[str]:
    """The code files of `paths` that `test_path` tests: named as its name says
    (`name_under_test`, or that name with a leading `_`, Python's private module),
    sharing the longest folder with it once test folders are left out
    (`sympy/printing/tests/test_ccode.py` → `sympy/printing/ccode.py`); none when more
    than TESTED_TIES files tie.

    A file in the test's folder, below it or above it qualifies, and so does one under
    another root (`tests/test_cli.py` → `src/flask/cli.py`) unless the test sits in a
    root that holds code itself (`xarray/tests/test_coding.py` is no test of
    `asv_bench/benchmarks/coding.py`); one that branches off into a sibling package does
    not (`astropy/io/fits/tests/test_core.py` is no test of `astropy/io/ascii/core.py`).
    Of namesakes tied in depth, those in folders named as the test's (`auth_tests` as
    `auth`) win: a `tests/` tree that mirrors the package
    (`tests/auth_tests/test_forms.py` → `django/contrib/auth/forms.py`).

    Checked against 3,410 (test, code file) pairs of commits that change tests and one
    code file (the last 3,000 commits of seven Python projects): leaving out sibling
    packages dropped 21 namings the commits contradict and none they confirm, the root
    rule 11 more (xarray); the mirror rule named 5 pairs more (3 confirmed, 2 where the
    commit fixed another file).

    `holds_code(folder)` says whether code files lie under a top folder (`xarray/`);
    without it, `paths` are taken to be every indexed path."""
    names = _names_under_test(test_path)
    if not names:
        return []
    home = [part for part in test_path.split("/")[:-1] if not is_test_folder(part)]
    shared: dict[str, int] = {}
    elsewhere: list[str] = []  # under another root
    for path in paths:
        if not path.endswith(names) or is_test_path(path):
            continue
        folder = path.split("/")
        if folder.pop() not in names:
            continue
        depth = 0
        for mine, theirs in zip(home, folder, strict=False):
            if mine != theirs:
                break
            depth += 1
        if depth in (len(home), len(folder)):  # the test's folder, below or above it
            shared[path] = depth
        elif depth == 0:
            elsewhere.append(path)
    if elsewhere and not shared:
        holds_code = holds_code or _holds_code([("", p) for p in paths], "")
        if not holds_code(home[0]):
            shared = dict.fromkeys(elsewhere, 0)
    if not shared:
        return []
    deepest = max(shared.values())
    best = [p for p, depth in shared.items() if depth == deepest]
    if len(best) > 1:  # tests/ mirroring the package: `tests/lint/test_utils.py` → `pylint/lint/`
        topics = {_TEST_AFFIX.sub("", part) for part in home}
        mirrored = {p: len(topics.intersection(p.split("/")[:-1])) for p in best}
        most = max(mirrored.values())
        best = [p for p in best if mirrored[p] == most]
    return best if len(best) <= TESTED_TIES else []


def _holds_code(paths: Sequence[tuple[str, str]], repo: str) -> Callable[[str], bool]:
    """Whether code files of `repo` lie under a top folder of it, among (repo, path)."""
    return lambda folder: any(
        r == repo and p.startswith(f"{folder}/") and not is_test_path(p) for r, p in paths
    )


def _names_under_test(test_path: str) -> tuple[str, ...]:
    """The file names a test may test: its `name_under_test` and, as Python names a
    private module, the same with a leading `_`."""
    wanted = name_under_test(test_path)
    return (wanted, "_" + wanted) if wanted else ()


def add_tested(ctx: SearchContext) -> dict[str, Candidate]:
    """Test evidence for the file view (`ctx.tested`), from scored candidates: an
    issue's example code reads like the tests of the code at fault, but tests rank low
    (`test` weighs negative), so the best `TESTED_FILES` test files, ranked as if they
    were code, vouch for the files they test, in proportion to their best chunk against
    the best candidate of all. Returns the chunks of those files that join the pool
    (when a file had none there), with every feature but `importance`, not yet scored."""
    penalty = ctx.weights.test
    best_test: dict[tuple[str, str], float] = {}
    present: set[tuple[str, str]] = set()
    top = 0.0
    for cid, cand in ctx.cands.items():
        chunk = ctx.chunks[cid]
        key = (chunk.repo, chunk.path)
        present.add(key)
        relevance = cand.score
        if cand.features.get("test"):
            relevance -= penalty
            if relevance > best_test.get(key, -math.inf):
                best_test[key] = relevance
        top = relevance if relevance > top else top
    tests = sorted(best_test.items(), key=lambda item: -item[1])[:TESTED_FILES]
    names = tuple(name for (_, test), _ in tests for name in _names_under_test(test))
    if top <= 0 or not names:
        return {}
    named = [(repo, path) for repo, path in ctx.paths if path.endswith(names)]
    for (repo, test), relevance in tests:
        candidates = [p for r, p in named if r == repo]
        for path in files_under_test(test, candidates, _holds_code(ctx.paths, repo)):
            value = max(0.0, relevance / top)
            known = ctx.tested.get((repo, path))
            if known is None or value > known.value:
                ctx.tested[(repo, path)] = Tested(test, value)
    absent = [key for key in ctx.tested if key not in present]
    return _join_files(ctx, absent, "tested") if absent else {}


def expand_graph(ctx: SearchContext) -> None:
    """Follow strong edges from the best symbols one hop out (see `expand.py`)."""
    graph = ctx.sources.graph
    assert graph is not None
    ctx.rescore()
    seeds: list[str] = []
    for cid in ctx.ranked():
        sid = ctx.chunks[cid].symbol_id
        if sid and sid not in seeds:
            seeds.append(sid)
        if len(seeds) >= ctx.options.graph_seeds:
            break
    if not seeds:
        return
    expansion = expand(graph, seeds, hops=ctx.options.graph_hops, edge_types=ctx.options.edge_types)
    reached = expansion.reached
    by_symbol: dict[str, list[str]] = {}
    for cid, c in ctx.chunks.items():
        if c.symbol_id:
            by_symbol.setdefault(c.symbol_id, []).append(cid)
    new_ids: list[str] = []
    for sid, entries in ctx.sources.chunks.symbol_chunks(list(reached)).items():
        for e in entries[:SYMBOL_CHUNKS]:
            if e.id not in ctx.chunks:
                by_symbol.setdefault(sid, []).append(e.id)
                new_ids.append(e.id)
    ctx.chunks.update(ctx.sources.chunks.chunks(new_ids))
    added: dict[str, Candidate] = {}
    for node, r in reached.items():
        for cid in by_symbol.get(node, []):
            if cid not in ctx.chunks or not ctx.passes(ctx.chunks[cid]):
                continue
            target = ctx.cands.get(cid) or added.get(cid)
            if target is None:
                target = added[cid] = Candidate()
            target.sources.setdefault("graph", 0)
            if r.strength > target.features.get("edge", 0.0):
                target.features["edge"] = r.strength
                target.graph_path = r.path
    _join(ctx, added)
    if ctx.weights.ppr or ctx.options.collect:
        _add_rank(ctx, seeds, expansion.edges, by_symbol)


def _add_rank(
    ctx: SearchContext, seeds: list[str], edges: list[Edge], by_symbol: dict[str, list[str]]
) -> None:
    """The `ppr` feature: personalized PageRank from the seeds, each restarting in
    proportion to its best chunk's score, over the edges expansion followed."""
    restart: dict[str, float] = {}
    for sid in seeds:
        scores = [ctx.cands[cid].score for cid in by_symbol.get(sid, []) if cid in ctx.cands]
        restart[sid] = max(scores, default=0.0)
    for node, value in personalized_rank(edges, restart).items():
        for cid in by_symbol.get(node, []):
            cand = ctx.cands.get(cid)
            if cand is not None:
                cand.features["ppr"] = value
