"""From ranked candidates to answers: hits (deduplicated, capped per file, explained),
the file view, the symbol view and the subgraph around the hits."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codecompass.indexing.chunk import CONTAINER_KINDS
from codecompass.models import ChunkRecord, SymbolQuery, SymbolRecord
from codecompass.schemas import FileHit, Hit, SymbolHit
from codecompass.search.context import SearchContext
from codecompass.search.expand import HUB_IN_EDGES
from codecompass.search.features import TOKENS
from codecompass.search.format import format_snippet
from codecompass.search.rank import (
    after_the_first,
    explain,
    hit_ranking,
    is_documentation,
    lead_first,
    raise_files,
    raised_in_order,
    spread_files,
    symbol_scores,
)

SymbolItem = tuple[tuple[str, str], str]  # ((repo, path), qualified name): a symbol view item
MAX_SUBGRAPH_NODES = 200
# The symbol view's first SPREAD_PLACES hold the best symbol of each of the file
# view's first SPREAD_FILES files (`rank.spread_files`).
SPREAD_FILES = 3
SPREAD_PLACES = 10
# A function's best chunk, more than this share of its lines in a function nested in
# it, is that nested function's evidence (`_inner_functions`).
INNER_SHARE = 0.5
# No class: a class nested in a function (immer's `enableMapSet.DraftSet`) has its
# methods' chunks, which show it; shown after its holder too, it cost immer a task.
FUNCTION_KINDS = ("function", "method")


SymbolValues = dict[tuple[tuple[str, str], str], tuple[float, float]]


def symbol_values(
    ctx: SearchContext, order: Sequence[str], totals: Sequence[tuple[tuple[str, str], float]]
) -> SymbolValues:
    """Each (file, symbol) of the candidates → (its own score, its file share): see
    `rank.symbol_scores`."""
    chunks, cands, options = ctx.chunks, ctx.cands, ctx.options
    return symbol_scores(
        [
            ((chunks[cid].repo, chunks[cid].path), symbol, cands[cid].score)
            for cid in order
            if (symbol := chunks[cid].symbol)
        ],
        dict(totals),
        options.symbol_file_weight,
        options.symbol_member_share,
        options.symbol_file_falloff,
    )


def hit_order(
    ctx: SearchContext,
    order: Sequence[str],
    totals: Sequence[tuple[tuple[str, str], float]],
    values: SymbolValues,
) -> list[tuple[str, float]]:
    """The candidates in the order of the hits, each with its hit score (see
    `rank.hit_ranking`)."""
    chunks, cands = ctx.chunks, ctx.cands
    scored = [
        ((chunks[cid].repo, chunks[cid].path), chunks[cid].symbol, cands[cid].score)
        for cid in order
    ]
    options = ctx.options
    ranking = hit_ranking(
        scored, values, dict(totals), options.symbol_file_weight, options.symbol_file_falloff
    )
    ranked = [(order[index], value) for index, value in ranking]
    if ctx.callers:
        ranked = [ranked[i] for i in after_the_first([cid for cid, _ in ranked], list(ctx.callers))]
    return ranked


def hits(
    ctx: SearchContext, ranking: Sequence[tuple[str, float]], values: SymbolValues
) -> list[Hit]:
    """The first `k` of `ranking` (candidate, hit score), windows of one symbol and
    overlapping ranges once, at most `max_per_file` from a file while other files have
    results, explained."""
    options, chunks = ctx.options, ctx.chunks
    score_of = dict(ranking)
    kept: list[ChunkRecord] = []
    held: list[ChunkRecord] = []  # past a file's `max_per_file`, in rank order
    per_file: dict[tuple[str, str], int] = {}
    copies = Copies()
    for cid, _ in ranking:
        chunk = chunks[cid]
        key = copies.file_key(chunk)  # a file and its copies count as one
        if copies.seen(chunk, (chunk.file_hash, chunk.start_line, chunk.end_line)):
            continue
        if chunk.symbol and copies.seen(chunk, copied_symbol(chunk)):
            continue  # a near copy: the same code in a file of the same name
        if any(duplicates(chunk, other) for other in kept):
            continue
        if per_file.get(key, 0) >= options.max_per_file:
            held.append(chunk)
            continue
        kept.append(chunk)
        per_file[key] = per_file.get(key, 0) + 1
        if len(kept) >= options.k:
            break
    # When the other files run out, `k` wins over the cap: Scrapy's method with the bug,
    # in the first file, could not be reached at `-k 200`.
    for chunk in held:
        if len(kept) >= options.k:
            break
        if not any(duplicates(chunk, other) for other in kept):
            kept.append(chunk)
    docs = _docs(ctx, kept)
    shown = raised_in_order([score_of[chunk.id] for chunk in kept])
    out: list[Hit] = []
    for chunk, score in zip(kept, shown, strict=True):
        value, own = score_of[chunk.id], ctx.cands[chunk.id].score
        share = value - own
        if chunk.symbol:
            own, share = values.get(((chunk.repo, chunk.path), chunk.symbol), (own, share))
        why = _hit_why(ctx, chunk, own, share)
        if value > own + share + 1e-9:  # its score raised to the best total
            why |= {"first_as_best_chunk": True, "raised_by": round(value - own - share, 6)}
        if score > value + 1e-9:
            why["own_score"] = round(value, 6)
        copies.note(chunk, why)
        out.append(_hit(ctx, chunk, score, why, docs))
    return out


def view_hits(
    ctx: SearchContext, view: Sequence[FileHit | SymbolHit], values: SymbolValues
) -> list[Hit]:
    """A view's files or symbols as hits, in the view's order: each by its best chunk
    (snippet and lines), scored as the view scores it, `why` holding the chunk's
    evidence and the view's own reasons (`symbol_lines` when the symbol is longer than
    its best chunk). The answer `search_code` gives for `view` "files" or "symbols"."""
    best = [ctx.chunks[item.why["best_chunk"]] for item in view]
    docs = _docs(ctx, best)
    out: list[Hit] = []
    for item, chunk in zip(view, best, strict=True):
        cand = ctx.cands[chunk.id]
        own, share = cand.score, 0.0
        if chunk.symbol:
            own, share = values.get(((chunk.repo, chunk.path), chunk.symbol), (own, share))
        why = _hit_why(ctx, chunk, own, share)
        why |= {k: v for k, v in item.why.items() if k not in _VIEW_WHY_LEFT}
        if isinstance(item, SymbolHit) and (item.start_line, item.end_line) != (
            chunk.start_line,
            chunk.end_line,
        ):
            why["symbol_lines"] = [item.start_line, item.end_line]
        out.append(_hit(ctx, chunk, item.score, why, docs))
    return out


# A view's `why` entries a hit already says otherwise: its chunk (the hit itself) and
# the score parts the chunk's evidence restates.
_VIEW_WHY_LEFT = frozenset({"best_chunk", "best_chunk_lines", "chunk_score", "file_share"})


def _docs(ctx: SearchContext, chunks: Sequence[ChunkRecord]) -> dict[str, str]:
    """The docs of the chunks' symbols, by symbol id (a compact snippet's second line)."""
    ids = [c.symbol_id for c in chunks if c.symbol_id]
    if not ids:
        return {}
    return {s.id: s.doc for s in ctx.sources.symbols.symbols(SymbolQuery(ids=ids))}


def _hit_why(ctx: SearchContext, chunk: ChunkRecord, own: float, share: float) -> dict[str, Any]:
    """Why a chunk came back: its features, sources and matched terms, how its score
    adds up, and each retriever's rank and score."""
    cand = ctx.cands[chunk.id]
    present = TOKENS.get(chunk)
    why: dict[str, Any] = {
        "features": explain(cand.features, ctx.weights),
        "sources": dict(cand.sources),
        "matched_terms": [t for t in ctx.idf if t in present][:20],
        **_score_parts(cand.score, own, share),
    }
    # Each retriever's own rank and score, as in the first search version.
    for source, feature in (("dense", "cosine"), ("lexical", "bm25")):
        if source in cand.sources:
            why[source] = {
                "rank": cand.sources[source],
                "score": round(cand.features.get(feature, 0.0), 4),
            }
    if cand.graph_path:
        why["graph_path"] = list(cand.graph_path)
    if chunk.id in ctx.callers:
        why["caller_of"] = ctx.callers[chunk.id]
    _add_links(ctx, chunk.symbol_id, why)
    return why


def _add_links(ctx: SearchContext, symbol_id: str | None, why: dict[str, Any]) -> None:
    """The named class a special method runs for (`special_of`), the exception class
    whose message the code raises (`raises`), and the function holding the message a
    check guards (`guard_of`)."""
    for key, links in (
        ("special_of", ctx.special_of),
        ("raises", ctx.raises),
        ("guard_of", ctx.guard_of),
    ):
        if symbol_id in links:
            why[key] = links[symbol_id]


def _hit(
    ctx: SearchContext, chunk: ChunkRecord, score: float, why: dict[str, Any], docs: dict[str, str]
) -> Hit:
    return Hit(
        repo=chunk.repo,
        path=chunk.path,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        symbol=chunk.symbol,
        kind=chunk.kind,
        language=chunk.language,
        score=round(score, 6),
        snippet=format_snippet(chunk, ctx.options.detail, docs.get(chunk.symbol_id or "", "")),
        why=why,
    )


def files(
    ctx: SearchContext,
    order: Sequence[str],
    totals: Sequence[tuple[tuple[str, str], float]],
    limit: int,
) -> list[FileHit]:
    """The file view's first `limit` files: the files' chunk totals raised by their test
    evidence."""
    weight = ctx.options.file_tested
    bonus = {key: weight * t.value for key, t in ctx.tested.items()} if weight else {}
    lead = (ctx.chunks[order[0]].repo, ctx.chunks[order[0]].path) if order else None
    totals = raise_files(totals, bonus, lead)
    chunks = ctx.chunks
    uses = {(chunks[cid].repo, chunks[cid].path): target for cid, target in ctx.callers.items()}
    if uses:
        totals = [totals[i] for i in after_the_first([key for key, _ in totals], list(uses))]
    ids_of: dict[tuple[str, str], list[str]] = {}
    for cid in order:
        ids_of.setdefault((chunks[cid].repo, chunks[cid].path), []).append(cid)
    best = max((total for _, total in totals), default=0.0)
    copies = Copies()
    kept: list[tuple[tuple[str, str], float, dict[str, Any]]] = []
    for key, total in totals:
        if len(kept) >= limit:
            break
        top = chunks[ids_of[key][0]]
        if copies.seen(top, (top.file_hash,)):
            continue
        why = _file_why(ctx, key, ids_of[key], bonus.get(key))
        if key in uses:
            why["caller_of"] = uses[key]
        copies.note(top, why)
        if not kept and best > total:  # the best chunk's file leads: shown at the top score
            why["first_as_best_chunk"] = True
        kept.append((key, total, why))
    shown = raised_in_order([best if n == 0 else total for n, (_, total, _) in enumerate(kept)])
    out: list[FileHit] = []
    for (key, total, why), score in zip(kept, shown, strict=True):
        ids = ids_of[key]
        top = chunks[ids[0]]
        if score > total + 1e-9:
            why["own_score"] = round(total, 6)
        symbols = list(dict.fromkeys(chunks[i].symbol for i in ids if chunks[i].symbol))
        out.append(
            FileHit(
                repo=top.repo,
                path=top.path,
                score=round(score, 6),
                start_line=top.start_line,
                end_line=top.end_line,
                symbols=[s for s in symbols if s][:5],
                why=why,
            )
        )
    return out


def _file_why(
    ctx: SearchContext, key: tuple[str, str], ids: Sequence[str], bonus: float | None
) -> dict[str, Any]:
    why: dict[str, Any] = {"best_chunk": ids[0], "chunks_matched": len(ids)}
    if bonus is not None:
        tested = ctx.tested[key]
        why["tested_by"] = {
            "path": tested.test_path,
            "relevance": round(tested.value, 4),
            "contribution": round(bonus, 6),
        }
    return why


def symbols(
    ctx: SearchContext,
    order: Sequence[str],
    totals: Sequence[tuple[tuple[str, str], float]],
    values: SymbolValues,
    lead_files: Sequence[tuple[str, str]],
) -> list[SymbolHit]:
    """Each function, method or class once, by its best chunk, scored with its file's
    total (see `rank.symbol_scores`), at the lines that define it; the best symbol of
    each `lead_files` file (the file view's first) within the first places (see
    `rank.spread_files`), `why.spread_for_file` giving that file's place. A class's best
    chunk may be a window of its outline that holds only its members' signatures: `why`
    names that chunk and its lines. Sections of documents are left to the hits and the
    file view: they are no code to change."""
    chunks, cands, options = ctx.chunks, ctx.cands, ctx.options
    file_total = dict(totals)
    first: dict[SymbolItem, str] = {}
    for cid in order:
        chunk = chunks[cid]
        if chunk.symbol and not is_documentation(chunk.language, chunk.path):
            first.setdefault(((chunk.repo, chunk.path), chunk.symbol), cid)
    for item in _namespaces(ctx, first):
        del first[item]
    copies = Copies()
    ranked = [
        (value, item)
        for value, item in sorted(
            ((sum(parts), item) for item, parts in values.items() if item in first),
            key=lambda pair: (-pair[0], first[pair[1]]),
        )
        if not copies.seen(chunks[first[item]], (chunks[first[item]].file_hash, item[1]))
        and not copies.seen(chunks[first[item]], copied_symbol(chunks[first[item]]))
    ]
    # The best chunk of all leads, as in the hits and the file view: its symbol's total
    # may be below that of a sibling in a file of more evidence.
    lead = next(iter(first), None)
    if lead is not None and first[lead] == order[0]:
        ranked = [(value, item) for item, value in lead_first([(i, v) for v, i in ranked], lead)]
    spread = spread_files([item[0] for _, item in ranked], lead_files, SPREAD_PLACES)
    brought = {ranked[index][1] for place, index in enumerate(spread) if index > place}
    ranked = [ranked[index] for index in spread]
    uses = {_symbol_key(chunks[cid]): target for cid, target in ctx.callers.items()}
    if uses:
        ranked = [ranked[i] for i in after_the_first([item for _, item in ranked], list(uses))]
    ranked, nested = _with_nested(ctx, ranked, first)
    ranked = ranked[: options.max_symbols]
    ids = [
        sid for _, item in ranked if item not in nested and (sid := chunks[first[item]].symbol_id)
    ]
    defined = {s.id: s for s in ctx.sources.symbols.symbols(SymbolQuery(ids=ids))} if ids else {}
    out: list[SymbolHit] = []
    shown = raised_in_order([value for value, _ in ranked])
    for place, ((value, item), score) in enumerate(zip(ranked, shown, strict=True)):
        found = nested.get(item)
        inner, holder = (found.symbol, found.holder) if found else (None, item)
        cid = found.chunk_id if found else first[holder]
        chunk = chunks[cid]
        why: dict[str, Any] = {
            "best_chunk": cid,
            "file_score": round(file_total[item[0]], 6),
            **_score_parts(cands[first[holder]].score, *values[holder]),
        }
        if inner is not None:
            why["nested_in"] = chunk.symbol
        if place == 0 and item == lead and score > value + 1e-9:
            why["first_as_best_chunk"] = True  # the best chunk's symbol, above its own total
        if item in brought:
            why["spread_for_file"] = list(lead_files).index(item[0]) + 1
        if item in uses:
            why["caller_of"] = uses[item]
        _add_links(ctx, chunk.symbol_id, why)
        if score > value + 1e-9:
            why["own_score"] = round(value, 6)
        definition = inner or defined.get(chunk.symbol_id or "")
        start, end = (
            (definition.start_line, definition.end_line)
            if definition
            else (chunk.start_line, chunk.end_line)
        )
        if (start, end) != (chunk.start_line, chunk.end_line):
            why["best_chunk_lines"] = [chunk.start_line, chunk.end_line]
        copies.note(chunk, why)
        out.append(
            SymbolHit(
                repo=chunk.repo,
                path=chunk.path,
                symbol=inner.qualified_name if inner else chunk.symbol or "",
                kind=inner.kind if inner else chunk.kind,
                score=round(score, 6),
                start_line=start,
                end_line=end,
                why=why,
            )
        )
    return out


def _namespaces(ctx: SearchContext, first: dict[SymbolItem, str]) -> list[SymbolItem]:
    """The modules among `first` that hold classes or modules and no function: a
    namespace, as C#'s, which the index leaves out. Ruby wraps each file in one (`module
    Rack`), whose chunk holds the doc comment of the class inside it: in rack's audit it
    came second in the symbol view for 4 of 25 tasks, above the class's methods."""
    modules = [item for item, cid in first.items() if ctx.chunks[cid].kind == "module"]
    if not modules:
        return []
    kinds: dict[SymbolItem, set[str]] = {}
    for file, symbols in _symbols_by_file(ctx, [item[0] for item in modules]).items():
        for s in symbols:
            if s.parent:
                kinds.setdefault((file, s.parent), set()).add(s.kind)
    return [
        item
        for item in modules
        if kinds.get(item, set()) & {"class", "module"} and not kinds[item] & set(FUNCTION_KINDS)
    ]


@dataclass(frozen=True, slots=True)
class Nested:
    """A nested function in the symbol view: its symbol, its holder's item, and the
    holder's chunk holding its first line (its evidence: the holder's best chunk may lie
    outside it)."""

    symbol: SymbolRecord
    holder: SymbolItem
    chunk_id: str


def _with_nested(
    ctx: SearchContext, ranked: list[tuple[float, SymbolItem]], first: dict[SymbolItem, str]
) -> tuple[list[tuple[float, SymbolItem]], dict[SymbolItem, Nested]]:
    """The view with each nested function the query names or frames (which has no chunk
    of its own) right after the function holding it, at its score: Django's
    `Command.handle.get_objects`, a traceback's `sensitive_variables.decorator`; and,
    among the first SPREAD_PLACES, the nested function holding most of a function's
    best chunk (`_inner_functions`). After, not before: a fix inside a nested function
    is a change of its holder too, and benchmarks name the holder (SymPy's `_TR56` for
    its `_f`: before it, the holder lost 2 first places of 403). By item, the nested
    symbol and the item of its holder."""
    inside: dict[SymbolItem, list[tuple[SymbolRecord, str]]] = {}
    for cid, symbols in ctx.nested.items():
        if cid in ctx.chunks and symbols:
            inside.setdefault(_symbol_key(ctx.chunks[cid]), []).extend((s, cid) for s in symbols)
    for item, found in _inner_functions(ctx, ranked[:SPREAD_PLACES], first).items():
        inside.setdefault(item, []).append(found)
    if not inside:
        return ranked, {}
    present = {item for _, item in ranked}
    nested: dict[SymbolItem, Nested] = {}
    out: list[tuple[float, SymbolItem]] = []
    for value, item in ranked:
        out.append((value, item))
        for s, cid in inside.get(item, ()):
            key = (item[0], s.qualified_name)
            if key not in present and key not in nested:
                nested[key] = Nested(s, item, cid)
                out.append((value, key))
    return out, nested


def _inner_functions(
    ctx: SearchContext, ranked: Sequence[tuple[float, SymbolItem]], first: dict[SymbolItem, str]
) -> dict[SymbolItem, tuple[SymbolRecord, str]]:
    """Of functions in `ranked` whose best chunk lies mostly (more than INNER_SHARE of its
    lines) in a function nested in them, that nested function (the innermost) and the chunk.
    Search keeps a nested function in its holder's chunks, so a factory's evidence named
    only the factory: fastify's 800-line `fastify` for the `onBadUrl` inside it that
    writes the quoted response."""
    held = {
        item: chunk
        for _, item in ranked
        if item in first and (chunk := ctx.chunks[first[item]]).kind in FUNCTION_KINDS
    }
    if not held:
        return {}
    in_file = _symbols_by_file(ctx, [item[0] for item in held])
    found: dict[SymbolItem, tuple[SymbolRecord, str]] = {}
    for item, chunk in held.items():
        lines = chunk.end_line - chunk.start_line + 1
        inner = [
            s
            for s in in_file.get(item[0], ())
            if s.kind in FUNCTION_KINDS
            and s.qualified_name.startswith(f"{item[1]}.")
            and min(s.end_line, chunk.end_line) - max(s.start_line, chunk.start_line) + 1
            > INNER_SHARE * lines
        ]
        if inner:
            innermost = max(inner, key=lambda s: (s.qualified_name.count("."), -s.start_line))
            found[item] = (innermost, chunk.id)
    return found


def _symbols_by_file(
    ctx: SearchContext, files: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], list[SymbolRecord]]:
    """The symbols of `files` (repo, path), by file, in one catalog query."""
    by_file: dict[tuple[str, str], list[SymbolRecord]] = {}
    for s in ctx.sources.symbols.symbols(SymbolQuery(files=list(dict.fromkeys(files)))):
        by_file.setdefault((s.repo, s.path), []).append(s)
    return by_file


def _symbol_key(chunk: ChunkRecord) -> SymbolItem:
    return ((chunk.repo, chunk.path), chunk.symbol or "")


def brief_why(why: dict[str, Any]) -> dict[str, Any]:
    """A hit's `why` in a third of the tokens, for an agent's `compact` results: each
    feature's contribution alone, and the retrievers' ranks once (in `sources`)."""
    features = {name: f["contribution"] for name, f in why.get("features", {}).items()}
    rest = {k: v for k, v in why.items() if k not in ("features", "dense", "lexical")}
    return {"features": features, **rest}


def _score_parts(chunk_score: float, own: float, share: float) -> dict[str, float]:
    """How a view score adds up, for `why`: the chunk's own score, its share of its
    file's score and, when its best member lifted a class (`symbol_member_share`), the
    lifted score that replaces the chunk's."""
    parts = {"chunk_score": round(chunk_score, 6), "file_share": round(share, 6)}
    if own > chunk_score + 1e-9:
        parts["member_score"] = round(own, 6)
    return parts


def subgraph(ctx: SearchContext, found: Sequence[Hit]) -> dict[str, Any]:
    nodes: dict[str, dict[str, Any]] = {}
    for hit in found:
        if hit.symbol:
            node = f"{hit.repo}/{hit.path}#{hit.symbol}"
            nodes[node] = {
                "id": node,
                "kind": hit.kind,
                "path": hit.path,
                "start_line": hit.start_line,
                "end_line": hit.end_line,
                "score": hit.score,
                "hit": True,
            }
    edges: list[dict[str, Any]] = []
    graph = ctx.sources.graph
    if graph is not None and nodes:
        # A hub's callers (thousands for sympy's `cos`) would fill the nodes in the
        # order they were written; its edges to other hits are read from their side.
        for e in graph.neighbors(list(nodes), ctx.options.edge_types, max_in=HUB_IN_EDGES):
            for end in (e.source, e.target):
                if end not in nodes and len(nodes) < MAX_SUBGRAPH_NODES:
                    nodes[end] = {"id": end, "hit": False}
            if e.source in nodes and e.target in nodes:
                edges.append(
                    {
                        "source": e.source,
                        "target": e.target,
                        "type": e.type,
                        "weight": e.weight,
                        "confidence": e.confidence,
                    }
                )
    return {"nodes": list(nodes.values()), "edges": edges}


class Copies:
    """Whole files copied to other places (four identical `demo.proto`): the first of
    a copy's results stands for all, naming the others in `why["copies"]`."""

    def __init__(self) -> None:
        self.first: dict[tuple[object, ...], ChunkRecord] = {}
        self.whys: dict[str, dict[str, Any]] = {}  # a kept result's `why`, by chunk id
        self.others: dict[str, list[str]] = {}  # copies seen before their `why` was
        self.files: dict[str, tuple[str, str]] = {}  # a file's hash → its first place

    def file_key(self, chunk: ChunkRecord) -> tuple[str, str]:
        """The first place seen of the file holding `chunk` (itself, or a copy)."""
        place = (chunk.repo, chunk.path)
        return self.files.setdefault(chunk.file_hash, place) if chunk.file_hash else place

    def seen(self, chunk: ChunkRecord, key: tuple[object, ...]) -> bool:
        """Whether `chunk`, by `key` (its file's hash first), is a copy of one already
        kept in another file; noted if so."""
        if not chunk.file_hash:
            return False
        kept = self.first.setdefault(key, chunk)
        if (kept.repo, kept.path) == (chunk.repo, chunk.path):
            return False
        where = chunk.path if chunk.repo == kept.repo else f"{chunk.repo}/{chunk.path}"
        why = self.whys.get(kept.id)
        if why is not None:
            why.setdefault("copies", []).append(where)
        else:
            self.others.setdefault(kept.id, []).append(where)
        return True

    def note(self, chunk: ChunkRecord, why: dict[str, Any]) -> None:
        """`why` of a kept result: its copies seen so far, and those seen later."""
        self.whys[chunk.id] = why
        if chunk.id in self.others:
            why["copies"] = self.others.pop(chunk.id)


def copied_symbol(chunk: ChunkRecord) -> tuple[object, ...]:
    """What a symbol's chunk is the same as in a near copy of its file (the same code,
    in a file of the same name: online-boutique's `demo.proto`s that differ by a line):
    its text and its file's name."""
    return ("text", chunk.text_hash, chunk.symbol, posixpath.basename(chunk.path))


def duplicates(a: ChunkRecord, b: ChunkRecord) -> bool:
    """Windows of one symbol, or ranges sharing at least half of each, are one result;
    an outline and what it elides are not."""
    if a.path != b.path or a.repo != b.repo:
        return False
    if a.symbol is not None and a.symbol == b.symbol and a.kind == b.kind:
        return True
    if _elides(a, b) or _elides(b, a):
        return False
    overlap = min(a.end_line, b.end_line) - max(a.start_line, b.start_line) + 1
    if overlap <= 0:
        return False
    return overlap * 2 >= (a.end_line - a.start_line + 1) and overlap * 2 >= (
        b.end_line - b.start_line + 1
    )


def _elides(outline: ChunkRecord, inner: ChunkRecord) -> bool:
    """Whether `outline`, a class's (a module's) chunk, shows `inner`'s symbol only as its
    header, its body elided: Scrapy's `CachingHostnameResolver.resolveHostName`, half of
    its class's lines, had been dropped as a copy of the class's chunk at any `-k`."""
    if inner.symbol is None or outline.kind not in CONTAINER_KINDS:
        return False
    return outline.symbol is None or inner.symbol.startswith(outline.symbol + ".")
