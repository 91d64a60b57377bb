"""How recall ranks memories and fits them into a token budget.

Relevance to a query is hybrid: the cosine of the query and memory vectors (the same
embedder as the code) and BM25 over the memories' code-aware tokens, so "advisory locks"
and `acquire_lock` both find what they should. Salience (decayed, when decay is on) and
recency then order memories of equal relevance.

The budget is shared out by type, as the memory seed suggests (decisions and specs get
the largest shares, errors the smallest); a type that needs less leaves its share to the
others, so the budget is used whenever there is enough to say.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from codecompass.models import MemoryRecord, MemoryType
from codecompass.tokens import code_tokens

# The order types are served in, and each one's share of the budget.
PRIORITY: tuple[MemoryType, ...] = ("context", "decision", "pattern", "spec", "error")
SHARES: Mapping[MemoryType, float] = {
    "context": 0.15,
    "decision": 0.25,
    "pattern": 0.20,
    "spec": 0.25,
    "error": 0.15,
}
DENSE_WEIGHT, LEXICAL_WEIGHT = 0.75, 0.25
# A memory scoring below this cosine, with no query term in common, is not about the
# query (MiniLM puts unrelated short texts at 0.0-0.25).
MIN_COSINE = 0.3
RECENCY_DAYS = 90.0  # recency adds up to 10 % for a memory used or written today
K1, B = 1.2, 0.75


@dataclass(frozen=True, slots=True)
class Scored:
    record: MemoryRecord
    score: float
    why: dict[str, float] = field(default_factory=dict)


def memory_terms(text: str) -> Counter[str]:
    return Counter(code_tokens(text))


def bm25(
    query: Sequence[str], docs: Mapping[str, Counter[str]], ids: Iterable[str]
) -> dict[str, float]:
    """BM25 of the documents `ids` (a subset of `docs`, which gives the statistics)."""
    terms = set(query)
    if not terms or not docs:
        return {}
    n = len(docs)
    avg = sum(sum(c.values()) for c in docs.values()) / n or 1.0
    df = {t: sum(1 for c in docs.values() if t in c) for t in terms}
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items() if d}
    scores: dict[str, float] = {}
    for doc_id in ids:
        counts = docs[doc_id]
        length = sum(counts.values())
        total = 0.0
        for term, weight in idf.items():
            tf = counts.get(term, 0)
            if tf:
                total += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))
        if total:
            scores[doc_id] = total
    return scores


def age_days(record: MemoryRecord, now: datetime) -> float:
    """Days since the memory was last used (or written)."""
    last = datetime.fromisoformat(record.last_accessed or record.updated or record.created)
    return max(0.0, (now - last).total_seconds() / 86400)


def effective_salience(record: MemoryRecord, now: datetime, half_life_days: float | None) -> float:
    """Salience, halved every `half_life_days` without use (no decay when None)."""
    if not half_life_days:
        return record.salience
    return record.salience * math.pow(0.5, age_days(record, now) / half_life_days)


def rank(
    records: Sequence[MemoryRecord],
    *,
    now: datetime,
    half_life_days: float | None,
    cosines: Mapping[str, float] | None = None,
    lexical: Mapping[str, float] | None = None,
) -> list[Scored]:
    """Memories best first. With a query (`cosines` given), only those about it."""
    top_lexical = max(lexical.values(), default=0.0) if lexical else 0.0
    scored: list[Scored] = []
    for record in records:
        salience = effective_salience(record, now, half_life_days)
        recency = 1.0 + 0.1 * max(0.0, 1.0 - age_days(record, now) / RECENCY_DAYS)
        why = {"salience": round(salience, 4), "recency": round(recency, 4)}
        if cosines is None:
            relevance = 1.0
        else:
            dense = cosines.get(record.id, 0.0)
            lex = (lexical or {}).get(record.id, 0.0) / top_lexical if top_lexical else 0.0
            if dense < MIN_COSINE and not lex:
                continue
            relevance = DENSE_WEIGHT * max(dense, 0.0) + LEXICAL_WEIGHT * lex
            why |= {"dense": round(dense, 4), "lexical": round(lex, 4)}
        score = relevance * (0.5 + 0.5 * min(salience, 1.0)) * recency
        scored.append(Scored(record, round(score, 6), why))
    scored.sort(key=lambda s: (-s.score, s.record.created, s.record.id))
    return scored


def fit_budget(
    ranked: Sequence[Scored], cost: Callable[[Scored], int], budget: int
) -> list[Scored]:
    """The memories to show, in `ranked` order, costing at most `budget` in all: first
    each type within its share (types in `PRIORITY` order), then the best of the rest
    in whatever budget is left."""
    chosen: set[str] = set()
    used = 0
    for kind in PRIORITY:
        quota, spent = budget * SHARES[kind], 0
        for item in ranked:
            if item.record.type != kind:
                continue
            price = cost(item)
            if spent + price > quota or used + price > budget:
                continue
            chosen.add(item.record.id)
            spent += price
            used += price
    for item in ranked:
        price = cost(item)
        if item.record.id not in chosen and used + price <= budget:
            chosen.add(item.record.id)
            used += price
    return [item for item in ranked if item.record.id in chosen]
