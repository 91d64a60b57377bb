"""Features every candidate gets, whichever source found it (see `rank.FEATURES`)."""

from __future__ import annotations

import math
import re
from collections import Counter, OrderedDict
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np

from codecompass.indexing.languages import declared_code, is_auxiliary_path
from codecompass.models import ChunkRecord, SymbolQuery
from codecompass.preamble import only_preamble
from codecompass.search.context import Candidate, SearchContext
from codecompass.search.query import message_phrases
from codecompass.search.rank import is_documentation, score
from codecompass.tokens import code_tokens


class TokenCache:
    """Token sets of chunks (a chunk id never changes its text), least recently used out."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self.data: OrderedDict[str, frozenset[str]] = OrderedDict()

    def get(self, chunk: ChunkRecord) -> frozenset[str]:
        found = self.data.get(chunk.id)
        if found is not None:
            self.data.move_to_end(chunk.id)
            return found
        tokens = frozenset(code_tokens(f"{chunk.symbol or ''} {chunk.path} {chunk.text}"))
        self.data[chunk.id] = tokens
        if len(self.data) > self.size:
            self.data.popitem(last=False)
        return tokens


TOKENS = TokenCache()


def fill(ctx: SearchContext, cands: dict[str, Candidate]) -> None:
    """Give these candidates every feature the weights use (cosine, keywords, member,
    message, literal, test, stub, doc, short, freshness)."""
    weights, options, chunks = ctx.weights, ctx.options, ctx.chunks
    names = ctx.query_names
    messages = ctx.parsed.messages if weights.message or options.collect else []
    literals = ctx.parsed.literals if weights.literal or options.collect else []
    phrases, literal_pattern = _query_matchers(tuple(messages), tuple(literals))
    phrases = phrases.without(ctx.generic_phrases)
    stubs = _implemented_stubs(ctx, cands) if weights.stub or options.collect else set()
    short = _short_symbols(ctx, cands) if weights.short or options.collect else set()
    for cid, cand in cands.items():
        chunk = chunks[cid]
        owners = (chunk.symbol or "").split(".")[:-1]
        if owners and any(owner in names for owner in owners):
            cand.features["member"] = 1.0
        if phrases.by_word and _holds_message(_flat_strings(chunk.text), phrases, messages):
            cand.features["message"] = 1.0
        if literal_pattern is not None and literal_pattern.search(chunk.text):
            cand.features["literal"] = 1.0
        if ctx.is_test(chunk.repo, chunk.path):
            cand.features["test"] = 1.0
        if (chunk.repo, chunk.path) in stubs:
            cand.features["stub"] = 1.0
        if is_documentation(chunk.language, chunk.path) or is_auxiliary_path(chunk.path):
            cand.features["doc"] = 1.0
        if (
            cid in short
            or (chunk.kind == "module" and only_preamble(chunk.text))
            or _stores_arguments(chunk.symbol, chunk.text)
        ):
            cand.features["short"] = 1.0
    vectors = ctx.sources.vectors
    if (weights.cosine or options.collect) and ctx.query_vectors is not None and vectors:
        missing = [cid for cid, c in cands.items() if "cosine" not in c.features]
        found = vectors.vectors_of(missing)
        have = [cid for cid in missing if cid in found]
        if have:
            matrix = np.stack([found[cid] for cid in have])
            best = (matrix @ ctx.query_vectors.T).max(axis=1)
            for cid, cos in zip(have, best.tolist(), strict=True):
                cands[cid].features["cosine"] = max(0.0, cos)
    idf = ctx.idf
    total = sum(idf.values())
    if (weights.keywords or options.collect) and total > 0:
        for cid, cand in cands.items():
            present = TOKENS.get(chunks[cid])
            cand.features["keywords"] = sum(w for t, w in idf.items() if t in present) / total
    if weights.freshness or options.collect:
        now = datetime.now(UTC)
        records = ctx.file_records((chunks[cid].repo, chunks[cid].path) for cid in cands)
        for cid, cand in cands.items():
            c = chunks[cid]
            file = records.get((c.repo, c.path))
            stamp = file.indexed_at if file else None
            if stamp:
                age = (now - datetime.fromisoformat(stamp)).total_seconds() / 86400
                cand.features["freshness"] = 0.5 ** (max(0.0, age) / options.freshness_days)


def _implemented_stubs(ctx: SearchContext, cands: dict[str, Candidate]) -> set[tuple[str, str]]:
    """The type declaration files among these candidates' files (`x.pyi`, `x.d.ts`)
    whose code (`x.py`; `x.ts`, `x.js`, …) is indexed beside them. Such a stub repeats
    the code's signatures without its body, and took 79 of the 600 hits of 60 Matplotlib
    queries (Umami's `tracker/index.d.ts` led 2 of 12 issue texts over `index.js`); a
    stub with no code beside it (a C extension's, a package's only types) is the only
    view of its code and keeps its rank."""
    files = {(chunk.repo, chunk.path) for chunk in map(ctx.chunks.__getitem__, cands)}
    stubs = {key: code for key in files if (code := declared_code(key[1]))}
    if not stubs:
        return set()
    indexed = set(ctx.paths)
    return {key for key, code in stubs.items() if any((key[0], c) in indexed for c in code)}


# A function, method or class of at most this many lines (`def f(self):` and one
# `return` under a decorator, a `pass` class) is seldom what a question is about, yet the
# file's share lifted accessors above the code to change. Weight −0.2, cross-validated on
# 1,340 queries of 12 sets: symbol view func@5 +1.7 ± 1.0 (docs/retrieval.md). A module
# chunk of nothing but the file's head (`preamble.only_preamble`) counts as short too.
SHORT_SYMBOL_LINES = 3
SHORT_SYMBOL_KINDS = frozenset({"function", "method", "class"})


def _short_symbols(ctx: SearchContext, cands: dict[str, Candidate]) -> set[str]:
    """The candidates that hold a whole short symbol. Only a chunk as short could; the
    last window of a longer symbol is as short, so the symbol's own lines decide."""
    chunks = ctx.chunks
    maybe = {
        cid: sid
        for cid in cands
        if (sid := chunks[cid].symbol_id)
        and chunks[cid].end_line - chunks[cid].start_line < SHORT_SYMBOL_LINES
    }
    if not maybe:
        return set()
    found = ctx.sources.symbols.symbols(SymbolQuery(ids=sorted(set(maybe.values()))))
    short = {
        s.id
        for s in found
        if s.kind in SHORT_SYMBOL_KINDS and s.end_line - s.start_line < SHORT_SYMBOL_LINES
    }
    return {cid for cid, sid in maybe.items() if sid in short}


# A constructor that only stores its arguments (`self.alpha = alpha`), as every
# scikit-learn estimator's does: as seldom what a question is about as an accessor.
_STORED = re.compile(r"\s*self\.(\w+)\s*=\s*\1\s*")
_SUPER_INIT = re.compile(r"\s*super\(\)\.__init__\((?:[^()]|\([^()]*\))*\)\s*$", re.M)
_BODY_START = re.compile(r"\)\s*(?:->\s*None\s*)?:\s*$")
_DOCSTRING = re.compile(r"\A\s*[rRuU]?(\"\"\"|''')[\s\S]*?\1")  # a body's leading docstring


def _stores_arguments(symbol: str | None, text: str) -> bool:
    """Whether this chunk is a whole `__init__` whose body only stores its arguments."""
    if symbol is None or not symbol.endswith("__init__"):
        return False
    lines = text.split("\n")
    starts = [n for n, line in enumerate(lines) if _BODY_START.search(line)]
    if not starts:
        return False
    body = [line for line in lines[starts[0] + 1 :] if not line.strip().startswith("#")]
    code = _DOCSTRING.sub("", "\n".join(body), count=1)
    rest = _SUPER_INIT.sub("", code)
    stored = [line for line in rest.split("\n") if line.strip()]
    return (bool(stored) or rest != code) and all(_STORED.fullmatch(line) for line in stored)


# A string literal continued on the next line: `'…has not been' '  defined…'` or `+`.
_STRING_BREAK = re.compile(r"""(['"])\s*\+?\s*\1""")
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=4)
def _query_matchers(
    messages: tuple[str, ...], literals: tuple[str, ...]
) -> tuple[_Phrases, re.Pattern[str] | None]:
    """What finds the query's error messages and literals in a chunk, made once per query
    (`fill` runs for every batch of candidates a search adds)."""
    # A literal in quotes of either kind, whole: `"invalid-name"`, not `"invalid-names"`;
    # padded with spaces too (Sphinx writes `'   :no-index-entry:'`).
    literal_pattern = (
        re.compile("([\"']) *(?:" + "|".join(map(re.escape, literals)) + ") *\\1")
        if literals
        else None
    )
    return _Phrases(message_phrases(list(messages))), literal_pattern


class _Phrases:
    """Message phrases (three words or more, one space apart) looked up by their second
    word: a phrase is in a text only if that word is one of the text's words. Testing
    every phrase against every candidate made 31 million substring tests a search on a
    log of 14,000 error lines."""

    def __init__(self, phrases: list[str]) -> None:
        self.by_word: dict[str, list[str]] = {}
        for phrase in phrases:
            self.by_word.setdefault(phrase.split(" ")[1], []).append(phrase)

    def found_in(self, flat: str) -> bool:
        return bool(self.held_in(flat, first=True))

    def held_in(self, flat: str, *, first: bool = False) -> list[str]:
        """The phrases `flat` holds (the first found only, with `first`)."""
        held: list[str] = []
        for word in self.by_word.keys() & flat.split(" "):
            for phrase in self.by_word[word]:
                if phrase in flat:
                    held.append(phrase)
                    if first:
                        return held
        return held

    def without(self, generic: frozenset[str]) -> _Phrases:
        if not generic:
            return self
        return _Phrases([p for held in self.by_word.values() for p in held if p not in generic])


TEMPLATE_WORDS = 3  # the fewest fixed words of a template that place a message
# A placeholder of a message template: printf's `%s`, `%(name)s`, `%-5d`, Go's `%v`;
# `str.format`'s `{}`, `{0}`, `{name!r}`; an f-string's or a JS template's `{x}`, `${x}`.
_PLACEHOLDER = re.compile(
    r"%(?:\([\w.]+\))?[-+ #0]*\d*(?:\.\d+)?[sdrifgeExXvqcoTtpw]|\$?\{[^{}\n]{0,60}\}"
)
_STRING = re.compile(r"""(["'`])((?:\\.|(?!\1)[^\\\n])*)\1""")


def _holds_message(flat: str, phrases: _Phrases, messages: list[str]) -> bool:
    """Whether flat code text holds one of the messages: four words of it in a row, or
    the whole message as a template with placeholders."""
    return phrases.found_in(flat) or _holds_template(flat, messages)


def _holds_template(flat: str, messages: list[str]) -> bool:
    if "%" not in flat and "{" not in flat:
        return False  # no placeholder: no template
    return any(template.search(message) for template in _templates(flat) for message in messages)


# A run of a message's words that more chunks of the pool hold than this (tests aside) is the
# wording of many messages (pydantic's audit: `is not a valid` of `'foo' is not a valid
# SomeEnum`, the `1 validation error for` every error of it prints): it places nothing.
GENERIC_PHRASE_CHUNKS = 3


def drop_generic_messages(ctx: SearchContext) -> None:
    """Take `message` from the candidates that hold only generic runs of the query's
    messages (see GENERIC_PHRASE_CHUNKS; tests, which assert a message in many places,
    are not counted), and keep those runs from marking the candidates added later
    (`SearchContext.generic_phrases`)."""
    messages = ctx.parsed.messages
    if not messages:
        return
    phrases, _ = _query_matchers(tuple(messages), ())
    held: dict[str, tuple[str, list[str]]] = {}  # candidate → its flat text, its phrases
    counts: Counter[str] = Counter()
    for cid, cand in ctx.cands.items():
        if cand.features.get("message"):
            chunk = ctx.chunks[cid]
            flat = _flat_strings(chunk.text)
            held[cid] = (flat, phrases.held_in(flat))
            if not ctx.is_test(chunk.repo, chunk.path):
                counts.update(held[cid][1])
    generic = frozenset(p for p, n in counts.items() if n > GENERIC_PHRASE_CHUNKS)
    if not generic:
        return
    ctx.generic_phrases = generic
    for cid, (flat, found) in held.items():
        if found and generic.issuperset(found) and not _holds_template(flat, messages):
            del ctx.cands[cid].features["message"]


@lru_cache(maxsize=4096)
def _templates(flat: str) -> tuple[re.Pattern[str], ...]:
    """The message templates among a chunk's string literals, each as a pattern in which
    a placeholder stands for one word: `'Filtering by %s not allowed'` finds
    `Filtering by author__name not allowed`, which no run of four words placed. The
    text is flat (`_flat_strings`): one space between words."""
    found: list[re.Pattern[str]] = []
    for m in _STRING.finditer(flat):
        parts = _PLACEHOLDER.split(m.group(2))
        if len(parts) < 2 or sum(len(p.split()) for p in parts) < TEMPLATE_WORDS:
            continue
        found.append(re.compile(r"\S+".join(map(re.escape, parts))))
    return tuple(found)


GUARD_LINES = 4  # how far above the line holding a message its guard is looked for
_GUARD = re.compile(r"^\s*(?:\}\s*)?(?:if|elif|else if|unless)\b(.*)$")
_CALLED_NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def guard_calls(text: str, messages: list[str]) -> list[str]:
    """The functions the guard of a message calls: in `if not
    self.model_admin.lookup_allowed(*params):` above `raise
    DisallowedModelAdminLookup(f"Filtering by {key} not allowed")`, the check that failed
    is `lookup_allowed`. A guard is the nearest `if` (`elif`, `else if`, `unless`) above
    the line where the message starts, indented less, at most GUARD_LINES above."""
    phrases, _ = _query_matchers(tuple(messages), ())
    lines = text.splitlines()
    called: dict[str, None] = {}
    for at, line in enumerate(lines):
        if not any(quote in line for quote in "\"'`"):
            continue
        window = _flat_strings("\n".join(lines[at : at + 3]))
        if not _holds_message(window, phrases, messages):
            continue
        indent = len(line) - len(line.lstrip())
        for above in reversed(lines[max(0, at - GUARD_LINES) : at]):
            depth = len(above) - len(above.lstrip())
            if not above.strip() or depth >= indent:
                continue
            guard = _GUARD.match(above)
            if guard is not None:
                called.update(dict.fromkeys(_CALLED_NAME.findall(guard.group(1))))
            break
    return list(called)


def _flat_strings(text: str) -> str:
    """Code text with split string literals joined and every run of white space one
    space, so a message wrapped over lines reads as it is printed."""
    return _SPACE.sub(" ", _STRING_BREAK.sub("", text))


def add_importance(ctx: SearchContext, cands: dict[str, Candidate]) -> None:
    graph = ctx.sources.graph
    assert graph is not None
    symbol_ids = [ctx.chunks[cid].symbol_id or "" for cid in cands]
    importance = graph.importance([sid for sid in symbol_ids if sid])
    for cid, cand in cands.items():
        sid = ctx.chunks[cid].symbol_id
        if sid and sid in importance:
            cand.features["importance"] = _importance_feature(importance[sid])


def _importance_feature(value: float) -> float:
    # PageRank scaled to a maximum of 1 is heavy-tailed: almost every node is near 0.
    # A log scale spreads the ordinary symbols out and keeps the result in [0, 1].
    return math.log1p(1000.0 * max(0.0, value)) / math.log1p(1000.0)


def handled_type(symbol: str | None) -> str | None:
    """The type a method handles by the dispatch-by-name convention of visitors and
    printers (`visit_Call` → `Call`, `_print_MatAdd` → `MatAdd`), else None.

    The handler of a type the query names is where its behaviour lives, yet its name
    matches nothing in the query: `_print_Sum` for "pretty printing of Sum is off"."""
    method = (symbol or "").rsplit(".", 1)[-1].lstrip("_")
    verb, _, handled = method.partition("_")
    if verb.islower() and len(handled) >= 3 and handled[0].isupper() and handled.isidentifier():
        return handled
    return None


def mark_handlers(ctx: SearchContext) -> None:
    """Set `dispatch` on the handlers of a type the query names that sit in one of the
    `expand_files` best files (ranked without it), and re-score them. The feature picks
    the right method of a file other evidence found; on its own it let every printer's
    `_print_Symbol` flood the hits of an issue whose snippet builds a `Symbol`."""
    names = ctx.query_names
    handlers = [cid for cid in ctx.cands if handled_type(ctx.chunks[cid].symbol) in names]
    if not handlers:
        return
    order = sorted(ctx.cands, key=lambda cid: -ctx.cands[cid].score)
    totals = ctx.file_totals(order)
    best = {key for key, _ in totals[: ctx.options.expand_files]}
    for cid in handlers:
        chunk = ctx.chunks[cid]
        if (chunk.repo, chunk.path) in best:
            cand = ctx.cands[cid]
            cand.features["dispatch"] = 1.0
            cand.score = score(cand.features, ctx.weights)
