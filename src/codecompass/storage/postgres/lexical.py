"""BM25 in PostgreSQL from term statistics kept in tables, computed with SQLite FTS5's
own formula so that both backends give the same scores for the same chunks.

Each active chunk has one row per distinct term (`lexical_terms`) holding its weighted
frequency (symbol × 4 + path × 2 + body × 1, the embedded backend's column weights) and
its length in tokens (`chunks.lex_length`). For a query of terms t with n(t) matching
chunks among N, and average length L:

    idf(t)   = ln((N - n(t) + 0.5) / (n(t) + 0.5)),  or 1e-6 when not positive
    score(d) = Σ idf(t) · f(t, d) · (k1 + 1) / (f(t, d) + k1 · (1 - b + b · |d| / L))

with k1 = 1.2, b = 0.75: FTS5's `bm25()` term for term, in double precision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from codecompass.models import ChunkFilter
from codecompass.storage.postgres.db import PgDatabase

K1, B = 1.2, 0.75

# Written in the order FTS5 evaluates it, every constant a double.
_SCORE = (
    "sum(q.idf * ((t.freq * (%(k1)s::float8 + 1.0::float8)) / (t.freq + %(k1)s::float8 * "
    "(1.0::float8 - %(b)s::float8 + %(b)s::float8 * c.lex_length / %(avgdl)s::float8))))"
)


def bm25_idf(rows: int, hits: int) -> float:
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0 else 1e-6


def filter_sql(where: ChunkFilter, params: dict[str, Any]) -> str:
    """SQL conditions on the chunk alias `c` for a typed filter (adds its parameters)."""
    clauses: list[str] = []
    if where.repo:
        clauses.append("c.repo = %(f_repo)s")
        params["f_repo"] = where.repo
    if where.language:
        clauses.append("c.language = %(f_language)s")
        params["f_language"] = where.language
    if where.kind:
        clauses.append("c.kind = %(f_kind)s")
        params["f_kind"] = where.kind
    if where.path_prefix:
        clauses.append("left(c.path, %(f_plen)s) = %(f_prefix)s")
        params["f_plen"], params["f_prefix"] = len(where.path_prefix), where.path_prefix
    if where.scopes is not None:
        allowed = []
        for n, scope in enumerate(where.scopes):
            allowed.append(f"(c.repo = %(s{n}_repo)s AND left(c.path, %(s{n}_len)s) = %(s{n}_p)s)")
            params[f"s{n}_repo"] = scope.repo
            params[f"s{n}_len"] = len(scope.path_prefix)
            params[f"s{n}_p"] = scope.path_prefix
        clauses.append("(" + (" OR ".join(allowed) or "false") + ")")
    return "".join(f" AND {c}" for c in clauses)


class PgLexicalMatch:
    def __init__(self, db: PgDatabase, terms: Sequence[str], where: ChunkFilter) -> None:
        self.db, self.where = db, where
        self.terms = list(dict.fromkeys(terms))
        self._query: dict[str, Any] | None = None

    def _params(self) -> dict[str, Any]:
        """The query's statistics, read once: N, the average length and each IDF."""
        if self._query is None:
            ws = self.db.workspace
            rows, total = self.db.rows(
                "SELECT count(*), coalesce(sum(lex_length), 0) FROM chunks "
                "WHERE workspace = %s AND status = 'active'",
                (ws,),
            )[0]
            hits = dict(
                self.db.rows(
                    "SELECT term, count(*) FROM lexical_terms WHERE workspace = %s "
                    "AND term = ANY(%s) GROUP BY term",
                    (ws, self.terms),
                )
            )
            present = [t for t in self.terms if hits.get(t)]
            self._query = {
                "ws": ws,
                "terms": present,
                "idfs": [bm25_idf(int(rows), int(hits[t])) for t in present],
                "avgdl": float(total) / float(rows) if rows else 1.0,
                "k1": K1,
                "b": B,
            }
        return self._query

    def _select(self, extra: str, params: dict[str, Any], tail: str = "") -> list[tuple[Any, ...]]:
        if not params["terms"]:
            return []
        return self.db.rows(
            f"SELECT c.id, {_SCORE} AS score, c.seq "
            "FROM lexical_terms t "
            "JOIN unnest(%(terms)s::text[], %(idfs)s::float8[]) AS q(term, idf) ON q.term = t.term "
            "JOIN chunks c ON c.seq = t.doc "
            f"WHERE t.workspace = %(ws)s AND t.term = ANY(%(terms)s){extra} "
            f"GROUP BY c.id, c.seq{tail}",
            params,
        )

    def top(self, limit: int) -> list[tuple[str, float]]:
        params = dict(self._params())
        params["limit"] = limit
        extra = filter_sql(self.where, params)
        rows = self._select(extra, params, " ORDER BY score DESC, seq LIMIT %(limit)s")
        return [(str(cid), float(score)) for cid, score, _ in rows]

    def scores(self, ids: Sequence[str]) -> dict[str, float]:
        if not ids:
            return {}
        params = dict(self._params())
        params["ids"] = list(ids)
        rows = self._select(" AND c.id = ANY(%(ids)s)", params)
        return {str(cid): float(score) for cid, score, _ in rows}


class PgLexical:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    def match(self, terms: Sequence[str], where: ChunkFilter) -> PgLexicalMatch:
        return PgLexicalMatch(self.db, terms, where)

    def doc_freqs(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        wanted = list(dict.fromkeys(terms))
        ws = self.db.workspace
        total = self.db.rows(
            "SELECT count(*) FROM chunks WHERE workspace = %s AND status = 'active'", (ws,)
        )[0][0]
        found = dict(
            self.db.rows(
                "SELECT term, count(*) FROM lexical_terms WHERE workspace = %s "
                "AND term = ANY(%s) GROUP BY term",
                (ws, wanted),
            )
        )
        return {t: int(found[t]) for t in wanted if found.get(t)}, int(total)

    def postings(self, ids: Sequence[str]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for cid, term, freq in self.db.rows(
            "SELECT c.id, t.term, t.freq FROM chunks c JOIN lexical_terms t "
            "ON t.workspace = c.workspace AND t.doc = c.seq "
            "WHERE c.workspace = %s AND c.id = ANY(%s)",
            (self.db.workspace, list(ids)),
        ):
            out.setdefault(str(cid), {})[str(term)] = float(freq)
        return out
