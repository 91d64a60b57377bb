"""The one ranking function: a weighted sum of named features, each in [0, 1].

| feature      | what it measures                                                          |
| ------------ | ------------------------------------------------------------------------- |
| `cosine`     | similarity of the query and chunk embeddings (clipped at 0)               |
| `bm25`       | FTS5 BM25 over code-aware tokens, divided by the query's best score       |
| `keywords`   | IDF-weighted share of the query's terms found in the chunk                |
| `name`       | the chunk's symbol is named in the query (rarer names count more)         |
| `path`       | the chunk's file is named in the query (path, module, traceback, stem)    |
| `frame`      | the chunk's function appears in a stack-trace frame of the query          |
| `member`     | the chunk is a member of a class (or module part) the query names         |
| `dispatch`   | a best file's method handling a type the query names (`_print_Sum`)       |
| `message`    | the chunk holds words of an error message the query quotes (4 in a row)   |
| `literal`    | the chunk holds, whole in quotes, a literal of the query (`query.py`):    |
|              | `"invalid-name"`, `"--ignore-patterns"`                                   |
| `edge`       | reached by graph expansion: best edge weight × confidence from a seed     |
| `ppr`        | personalized PageRank from the best seeds (their scores) over those edges |
| `importance` | the symbol's graph importance (PageRank-like), when a graph exists        |
| `freshness`  | how recently the chunk's file changed (half-life `freshness_days`)        |
| `test`       | 1 for test code (`tests/`, `test_*.py`, `*.spec.ts`, …): weighed negative |
| `stub`       | 1 for a type stub (`x.pyi`, `x.d.ts`) whose code (`x.py`, `x.js`) is      |
|              | indexed beside it: weighed negative                                       |
| `doc`        | 1 for documentation and plain text (Markdown, reST, text windows), for    |
|              | Jupyter notebooks, a repository's tutorials and worked examples, for an   |
|              | application's English message catalog (`locales/en.json`), and for code  |
|              | that shows, measures or documents the project (`examples/`, `benchmarks/`,|
|              | `docs_src/`: `languages.is_auxiliary_path`)                               |
| `short`      | 1 for a function, method or class of at most 3 lines (an accessor, a      |
|              | `pass` class), an `__init__` that only stores its arguments, or a module  |
|              | chunk of nothing but imports, package and namespace lines: rarely what a  |
|              | question is about, weighed negative                                       |

Seed 000's formula (0.6·cos + 0.2·keywords + 0.15·edge + 0.05·freshness) is the
starting point; the weights in `SearchSettings` were tuned on evaluation runs recorded
in docs/retrieval.md. `why["features"]` reports each feature's value, weight and
contribution, so a score can always be taken apart.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, TypeVar

from codecompass.decoding import is_notebook_path
from codecompass.indexing.discover import english_catalog

K = TypeVar("K", bound=Hashable)

# How much more than the best chunk's file (or symbol) another must total to come before
# it. The lead rule kept the sympy dev split's file@1; with no margin gin lost less and
# the dev split one task; at 0.1 (of 0, 0.1, 0.2, 0.35 and none) 15 issue sets, gin and
# 100 questions all gained at @1 and the dev split lost nothing.
LEAD_MARGIN = 0.1

FEATURES = (
    "cosine",
    "bm25",
    "keywords",
    "name",
    "path",
    "frame",
    "member",
    "dispatch",
    "message",
    "literal",
    "edge",
    "ppr",
    "importance",
    "freshness",
    "test",
    "stub",
    "doc",
    "short",
)


@dataclass(frozen=True, slots=True)
class RankWeights:
    cosine: float = 0.6
    bm25: float = 0.0
    keywords: float = 0.2
    name: float = 0.0
    path: float = 0.0
    frame: float = 0.0
    member: float = 0.0
    dispatch: float = 0.0
    message: float = 0.0
    literal: float = 0.0
    edge: float = 0.15
    ppr: float = 0.0
    importance: float = 0.0
    freshness: float = 0.05
    test: float = 0.0
    stub: float = 0.0
    doc: float = 0.0
    short: float = 0.0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> RankWeights:
        return cls(**{f: float(values[f]) for f in FEATURES if f in values})

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def with_(self, **changes: float) -> RankWeights:
        return RankWeights(**{**self.as_dict(), **changes})

    def only(self, *features: str) -> RankWeights:
        """These weights with every other feature switched off (for ablations)."""
        return RankWeights(**{f: (getattr(self, f) if f in features else 0.0) for f in FEATURES})


SEED_000 = RankWeights()


def score(features: Mapping[str, float], weights: RankWeights) -> float:
    return weighted_sum(features, weighted(weights))


def weighted_sum(features: Mapping[str, float], weighted: tuple[tuple[str, float], ...]) -> float:
    total = 0.0
    for name, weight in weighted:
        value = features.get(name)
        if value:  # adding 0.0 changes no sum: the same float as summing every term
            total += weight * value
    return total


@lru_cache(maxsize=64)
def weighted(weights: RankWeights) -> tuple[tuple[str, float], ...]:
    """The features with a non-zero weight (a search scores thousands of candidates: it
    looks them up once, hashing the weights costs more than a candidate's sum)."""
    return tuple((name, getattr(weights, name)) for name in FEATURES if getattr(weights, name))


def explain(features: Mapping[str, float], weights: RankWeights) -> dict[str, dict[str, float]]:
    """Each non-zero feature's value, weight and contribution to the score."""
    out: dict[str, dict[str, float]] = {}
    for name in FEATURES:
        value = features.get(name, 0.0)
        if value == 0.0:
            continue
        weight = getattr(weights, name)
        out[name] = {
            "value": round(value, 4),
            "weight": weight,
            "contribution": round(weight * value, 4),
        }
    return out


def file_scores(scored: Sequence[tuple[K, float]], support: float) -> list[tuple[K, float]]:
    """Files by their best chunk's score plus `support` × the next two best ones (so a
    file with several pieces of evidence edges out one lucky chunk); best first, but
    the file holding the best chunk of all leads unless clearly passed (`lead_first`).
    `scored` is (file key, chunk score) in descending score order."""
    seen: dict[K, list[float]] = {}
    for key, value in scored:
        seen.setdefault(key, []).append(value)
    totals = {k: v[0] + support * sum(v[1:3]) for k, v in seen.items()}
    return lead_first(totals.items(), next(iter(seen), None))


def raise_files(
    totals: Sequence[tuple[K, float]], bonus: Mapping[K, float], lead: K | None
) -> list[tuple[K, float]]:
    """`file_scores`' files with evidence about each file as a whole added (its test
    evidence), re-ranked; `lead`, the file of the best chunk, still leads unless clearly
    passed."""
    if not totals or not bonus:
        return list(totals)
    raised = [(key, total + bonus.get(key, 0.0)) for key, total in totals]
    return lead_first(raised, lead)


def lead_first(totals: Iterable[tuple[K, float]], lead: K | None) -> list[tuple[K, float]]:
    """Items by total, best first, but `lead` (the best chunk's file or symbol) before
    every item that totals less than LEAD_MARGIN more: support orders the runners-up
    and overrules the strongest single piece of evidence, the first hit, only by a
    clear margin."""
    ordered = sorted(totals, key=lambda kv: -kv[1])
    first = next((kv for kv in ordered if kv[0] == lead), None)
    if first is None:
        return ordered
    bar = first[1] + LEAD_MARGIN * abs(first[1])
    ahead = [kv for kv in ordered if kv[0] != lead and kv[1] > bar]
    behind = [kv for kv in ordered if kv[0] != lead and kv[1] <= bar]
    return [*ahead, first, *behind]


def symbol_scores(
    scored: Sequence[tuple[K, str, float]],
    file_total: Mapping[K, float],
    file_weight: float,
    member_share: float,
    file_falloff: float,
) -> dict[tuple[K, str], tuple[float, float]]:
    """The symbol view's scores: each (file, symbol) → (its own score, its share of its
    file's score); the view ranks by their sum. `scored` is (file key, symbol, chunk
    score) in descending score order; symbols found only as owners are left out.

    - Own: the symbol's best chunk; a class (any owner of members) at least
      `member_share` × its best member's chunk, because a change to a class is often
      found through its methods (a new `_print_X` method of a printer).
    - File share: `file_weight` × the file's score, less `file_falloff` of it for each
      point the symbol's own score is below the file's best symbol (none when far
      below; a negative file score is kept whole). The file's evidence lifts the
      symbols that carry it, not every weak sibling: otherwise a module of many small
      classes (`exceptions.py`) that wins the file view fills the symbol view with
      classes nobody asked about."""
    best: dict[tuple[K, str], float] = {}
    for key, symbol, value in scored:
        best.setdefault((key, symbol), value)
    if member_share > 0:
        for (key, symbol), value in list(best.items()):
            owner = (key, symbol.rpartition(".")[0])
            if owner[1] and owner in best:
                best[owner] = max(best[owner], member_share * value)
    file_best: dict[K, float] = {}
    for (key, _), value in best.items():
        file_best[key] = max(file_best.get(key, value), value)
    return {
        (key, symbol): (
            own,
            file_share(file_total[key], file_weight, file_falloff, file_best[key] - own),
        )
        for (key, symbol), own in best.items()
    }


def file_share(file_total: float, weight: float, falloff: float, gap: float) -> float:
    """What a symbol (or a chunk) `gap` points below its file's best gets of the file's
    score: `weight` × the score, less `falloff` of it per point of the gap (never below
    0). A penalty (a file of tests) is no evidence: everything in the file keeps it."""
    share = weight * file_total
    if share > 0:
        share *= max(0.0, 1.0 - falloff * gap)
    return share


def spread_files(files: Sequence[K], lead: Sequence[K], places: int) -> list[int]:
    """The order (indices) of a ranked list whose item i belongs to `files[i]`, changed
    so that the best item of each `lead` file is among the first `places`: an item
    brought up takes the last of those places, in its own order, and the items it
    displaces follow it. The symbol view spreads over the file view's best files this
    way: one file's many members otherwise fill it, and the changed function is often
    in the runner-up file."""
    first: dict[K, int] = {}
    for index, key in enumerate(files):
        first.setdefault(key, index)
    brought = sorted(
        index for key in dict.fromkeys(lead) if (index := first.get(key, -1)) >= places
    )
    if not brought or len(brought) >= places:
        return list(range(len(files)))
    moved = set(brought)
    rest = [index for index in range(len(files)) if index not in moved]
    # The items displaced are the last of the places that are no lead file's best.
    bests = {index for key in lead if (index := first.get(key, places)) < places}
    displaced = [index for index in rest[:places] if index not in bests][-len(brought) :]
    gone = set(displaced)
    kept = [index for index in rest[:places] if index not in gone]
    return kept + brought + displaced + rest[places:]


def after_the_first(keys: Sequence[K], wanted: Sequence[K]) -> list[int]:
    """The order (indices) of a ranked list whose item i has `keys[i]`, changed so that
    the first item of each `wanted` key follows the list's first item, in `wanted`'s
    order. A question about what uses a name is answered by its users: their own words
    seldom match it, so the definition and its file's members came before them."""
    first: dict[K, int] = {}
    for index, key in enumerate(keys):
        first.setdefault(key, index)
    brought = [first[key] for key in dict.fromkeys(wanted) if first.get(key, 0) > 0]
    moved = set(brought)
    rest = [index for index in range(len(keys)) if index not in moved]
    return rest[:1] + brought + rest[1:]


def raised_in_order(scores: Sequence[float]) -> list[float]:
    """`scores` of a list in its final order, each raised to the one after it where
    lower: an item brought forward (the best symbol of a leading file, a user of a
    named symbol) ties with the one it displaced, so that sorting by score keeps the
    order."""
    out = list(scores)
    for index in range(len(out) - 2, -1, -1):
        out[index] = max(out[index], out[index + 1])
    return out


def hit_ranking(
    scored: Sequence[tuple[K, str | None, float]],
    symbol_values: Mapping[tuple[K, str], tuple[float, float]],
    file_total: Mapping[K, float],
    file_weight: float,
    file_falloff: float,
) -> list[tuple[int, float]]:
    """The order of the hits, as (index into `scored`, score): the best chunk of all
    first, as its file leads the file view; then every other chunk by its symbol's score
    in the symbol view (own + file share, `symbol_scores`), so the hits rank functions
    as the view does. A chunk outside any symbol (module code, a document) scores its
    own plus the share a symbol of its score would get. The first hit's score is the
    best of all (its own may be lower), so scores fall down the list as people read
    them. `scored` is (file key, symbol or None, chunk score) in descending score
    order."""
    symbol_total = {item: own + share for item, (own, share) in symbol_values.items()}
    file_best: dict[K, float] = {}
    totals: list[float] = []
    for key, symbol, value in scored:
        best = file_best.setdefault(key, value)
        total = symbol_total.get((key, symbol)) if symbol else None
        if total is None:
            total = value + file_share(file_total[key], file_weight, file_falloff, best - value)
        totals.append(total)
    if not totals:
        return []
    rest = sorted(range(1, len(totals)), key=totals.__getitem__, reverse=True)  # stable
    return [(0, max(totals)), *((index, totals[index]) for index in rest)]


_DOC_LANGUAGES = frozenset({"markdown", "rst", "text"})


def is_documentation(language: str, path: str) -> bool:
    """Text for people: documents, notebooks, the English message catalog."""
    return language in _DOC_LANGUAGES or is_notebook_path(path) or english_catalog(path)
