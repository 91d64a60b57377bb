"""BM25 over FTS5: three columns of code-aware tokens (symbol, path, body) weighted
4 : 2 : 1, scored with FTS5's own `bm25()` (k1 = 1.2, b = 0.75)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from codecompass.models import ChunkFilter, LexicalRow
from codecompass.storage.rows import postings
from codecompass.storage.sqlite.db import BATCH, Database, KeptReads

BM25 = "bm25(chunks_fts, 4.0, 2.0, 1.0)"
# Reads kept while the chunks stay as they are (db.KeptReads).
KEPT_TERMS = 200_000
KEPT_ROWIDS = 65_536
KEPT_TERM_MATCHES = 1_000_000  # 16 bytes each

# The chunks one term matches: rowids, and the term's part of their BM25.
TermMatches = tuple[np.ndarray, np.ndarray]


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 query matching any of the terms, each as a phrase."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class SQLiteLexicalMatch:
    """The BM25 of every chunk the terms match, summed the first time it is needed: the
    top and the chunks that join a search later (found by dense search, by name, by
    expansion) read the same sums. FTS5 scores every match for any ranked query anyway
    (`ORDER BY rank LIMIT n` costs as much), and asking it for chosen rowids re-runs the
    whole match for every batch."""

    def __init__(self, lexical: SQLiteLexical, terms: Sequence[str], where: ChunkFilter) -> None:
        self.lexical, self.db, self.where = lexical, lexical.db, where
        self.terms = list(dict.fromkeys(terms))
        self._scores: tuple[np.ndarray, np.ndarray] | None = None

    def _all(self) -> tuple[np.ndarray, np.ndarray]:
        """Every chunk the terms match, as sorted rowids and their BM25. BM25 is a sum over
        the terms, so it is summed from each term's matches, which are kept: asking FTS5
        for all the terms at once costs `bm25()` for every match again at every search
        (about 2 µs a match; short queries match 6,000 chunks, issue texts 20,000). The
        parts are added in the terms' order, as `bm25()` adds them, so the sums are the
        same to the last bit."""
        if self._scores is None:
            found = self.lexical.term_matches(self.terms)
            parts = [found[t] for t in self.terms if t in found]
            if not parts:
                self._scores = (np.zeros(0, np.int64), np.zeros(0))
            else:
                rowids, at = np.unique(np.concatenate([r for r, _ in parts]), return_inverse=True)
                sums = np.bincount(at, weights=np.concatenate([s for _, s in parts]))
                self._scores = (rowids, sums)
        return self._scores

    def top(self, limit: int) -> list[tuple[str, float]]:
        """The `limit` best chunks that pass the filter: the matches in score order (the
        lower rowid first on a tie), checked against the filter a batch at a time."""
        if not self.terms or limit <= 0 or self.where.scopes == ():
            return []
        rowids, sums = self._all()
        ranked = np.lexsort((rowids, -sums))
        clauses, params = ("", []) if self._unfiltered() else _filter_sql(self.where)
        step = max(limit, BATCH) if clauses else limit
        out: list[tuple[str, float]] = []
        for start in range(0, len(ranked), step):
            part = ranked[start : start + step]
            batch = rowids[part].tolist()
            cur = self.db.execute(
                f"SELECT c.rowid, c.id FROM chunks c WHERE c.rowid IN "
                f"({','.join('?' * len(batch))}){clauses}",
                (*batch, *params),
            )
            ids = dict(cur)
            for rowid, value in zip(batch, sums[part].tolist(), strict=True):
                if rowid in ids:
                    out.append((str(ids[rowid]), value))
                    if len(out) == limit:
                        return out
        return out

    def scores(self, ids: Sequence[str]) -> dict[str, float]:
        if not self.terms or not ids:
            return {}
        rowids, sums = self._all()
        wanted = self.lexical.rowids.read(ids, self._load_rowids)
        if not len(rowids) or not wanted:
            return {}
        asked = np.fromiter(wanted.values(), np.int64, len(wanted))
        at = np.searchsorted(rowids, asked).clip(max=len(rowids) - 1)
        found = zip(wanted, (rowids[at] == asked).tolist(), sums[at].tolist(), strict=True)
        return {cid: value for cid, matched, value in found if matched}

    def _load_rowids(self, ids: list[str]) -> Iterator[tuple[str, int]]:
        rows = self.db.in_batches("SELECT id, rowid FROM chunks WHERE id IN ({marks})", ids)
        return ((str(cid), int(rowid)) for cid, rowid in rows)

    def _unfiltered(self) -> bool:
        w = self.where
        if w.language or w.kind or w.path_prefix or w.scopes is not None:
            return False
        if not w.repo:
            return True
        repos = [str(r[0]) for r in self.db.execute("SELECT id FROM repos")]
        return repos == [w.repo]


def _filter_sql(where: ChunkFilter) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if where.repo:
        clauses.append("c.repo = ?")
        params.append(where.repo)
    if where.language:
        clauses.append("c.language = ?")
        params.append(where.language)
    if where.kind:
        clauses.append("c.kind = ?")
        params.append(where.kind)
    if where.path_prefix:
        clauses.append("substr(c.path, 1, ?) = ?")
        params.extend([len(where.path_prefix), where.path_prefix])
    if where.scopes is not None:
        allowed = ["(c.repo = ? AND substr(c.path, 1, ?) = ?)" for _ in where.scopes] or ["0"]
        clauses.append("(" + " OR ".join(allowed) + ")")
        for scope in where.scopes:
            params.extend([scope.repo, len(scope.path_prefix), scope.path_prefix])
    return "".join(f" AND {c}" for c in clauses), params


class SQLiteLexical:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Looking terms up in fts5vocab costs about 0.2 ms a term, and an issue text has
        # hundreds.
        self._doc_freqs: KeptReads[str, int] = KeptReads(db, KEPT_TERMS)
        self.rowids: KeptReads[str, int] = KeptReads(db, KEPT_ROWIDS)
        self._term_matches: KeptReads[str, TermMatches] = KeptReads(
            db, KEPT_TERM_MATCHES, cost=lambda matches: max(1, len(matches[0]))
        )

    def match(self, terms: Sequence[str], where: ChunkFilter) -> SQLiteLexicalMatch:
        return SQLiteLexicalMatch(self, terms, where)

    def term_matches(self, terms: Sequence[str]) -> dict[str, TermMatches]:
        return self._term_matches.read(terms, self._load_term_matches)

    def _load_term_matches(self, terms: list[str]) -> Iterator[tuple[str, TermMatches]]:
        for term in terms:
            rows = self.db.execute(
                f"SELECT rowid, {BM25} FROM chunks_fts WHERE chunks_fts MATCH ?",
                (match_expression([term]),),
            ).fetchall()
            rowids = np.fromiter((r for r, _ in rows), np.int64, len(rows))
            yield term, (rowids, -np.fromiter((s for _, s in rows), np.float64, len(rows)))

    def doc_freqs(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        freqs = self._doc_freqs.read(terms, self._load_doc_freqs)
        return {t: n for t, n in freqs.items() if n}, self._count()

    def _load_doc_freqs(self, terms: list[str]) -> Iterable[tuple[str, int]]:
        self.db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab "
            "USING fts5vocab(main, chunks_fts, row)"
        )
        found = dict.fromkeys(terms, 0)  # a term no chunk holds is kept too
        rows = self.db.in_batches(
            "SELECT term, doc FROM temp.chunks_vocab WHERE term IN ({marks})", terms
        )
        found.update((str(t), int(d)) for t, d in rows)
        return found.items()

    def _count(self) -> int:
        """The FTS table's rows, without counting them (counting its one-row-per-chunk
        shadow table took 1–3 ms a call on 67,000 chunks, and a search asks twice).
        FTS5 keeps the row count as the first varint of its averages record, rowid 1 of
        the `_data` shadow table, for `bm25()`."""
        row = self.db.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
        return _varint(row[0]) if row and row[0] else 0

    def postings(self, ids: Sequence[str]) -> dict[str, dict[str, float]]:
        rows = self.db.in_batches(
            "SELECT c.id, f.symbol, f.path, f.body FROM chunks c "
            "JOIN chunks_fts f ON f.rowid = c.rowid WHERE c.id IN ({marks})",
            list(ids),
        )
        return {str(cid): postings(LexicalRow(s, p, b))[0] for cid, s, p, b in rows}


def _varint(data: bytes) -> int:
    """The SQLite varint at the start of `data`: 7 bits a byte, high bit set on every byte
    but the last, the ninth byte (if reached) all 8 bits."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return value
