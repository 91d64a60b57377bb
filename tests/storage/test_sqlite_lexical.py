"""The embedded lexical index: BM25 summed from each term's kept matches, and its row
count read from FTS5's averages record."""

from __future__ import annotations

from pathlib import Path

from codecompass.models import ChunkFilter
from codecompass.storage.embedded import open_embedded
from codecompass.storage.sqlite.db import KeptReads
from codecompass.storage.sqlite.lexical import BM25, SQLiteLexical, _varint, match_expression
from tests.storage.conformance import SOURCES, file_write, populate


def test_the_row_count_is_read_from_fts5s_varint() -> None:
    assert [_varint(b) for b in (b"\x05", b"\x7f\x01", b"\x81\x00", b"\x84\x8e\x18\x99")] == [
        5,
        127,
        128,
        67352,
    ]
    assert _varint(b"\xff" * 9) == 2**64 - 1


def test_bm25_summed_from_each_term_equals_fts5s_bm25_of_the_whole_query(tmp_path: Path) -> None:
    backend = open_embedded(tmp_path)
    try:
        chunks = populate(backend)
        lexical = backend.lexical
        assert isinstance(lexical, SQLiteLexical)
        terms = ["verify", "secret", "save"]
        whole = lexical.db.execute(
            f"SELECT c.id, {BM25} FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
            "WHERE chunks_fts MATCH ?",
            (match_expression(terms),),
        )
        expected = {str(cid): -float(score) for cid, score in whole}
        match = lexical.match(terms, ChunkFilter())
        top = match.top(50)
        assert dict(top) == expected  # to the last bit, not approximately
        assert [score for _, score in top] == sorted(expected.values(), reverse=True)
        every = [c.id for cs in chunks.values() for c in cs]
        assert match.scores([*every, "absent"]) == expected
        assert len(expected) == 7 and len(every) == 9  # the import and `loadUser` unmatched
    finally:
        backend.close()


def test_each_terms_matches_are_kept_until_a_chunk_changes(tmp_path: Path) -> None:
    backend = open_embedded(tmp_path)
    other = open_embedded(tmp_path)  # another process, such as a watcher
    try:
        populate(backend)
        lexical = backend.lexical
        assert isinstance(lexical, SQLiteLexical)
        statements: list[str] = []
        lexical.db.conn.set_trace_callback(statements.append)

        def matched(
            terms: list[str], where: ChunkFilter | None = None
        ) -> tuple[list[str], dict[str, float]]:
            statements.clear()
            scores = dict(lexical.match(terms, where or ChunkFilter()).top(50))
            return [s.split("MATCH ")[1] for s in statements if "MATCH" in s], scores

        asked, first = matched(["token", "verify"])
        assert asked == ["'\"token\"'", "'\"verify\"'"]
        asked, again = matched(["verify", "user", "token"])
        assert asked == ["'\"user\"'"] and set(again) >= set(first)
        asked, scoped = matched(["token", "user"], ChunkFilter(language="typescript"))
        assert asked == [] and scoped == {c: again[c] for c in scoped} and len(scoped) == 2
        pieces = [*SOURCES[("web", "src/client.ts")], ("check", "function", "verify(token)")]
        other.files.write_files([file_write("web", "src/client.ts", pieces)])
        asked, after = matched(["token", "verify"])
        assert asked == ["'\"token\"'", "'\"verify\"'"] and len(after) == len(first) + 1
    finally:
        backend.close()
        other.close()


def test_a_keep_with_a_cost_holds_values_up_to_that_total(tmp_path: Path) -> None:
    backend = open_embedded(tmp_path)
    try:
        lexical = backend.lexical
        assert isinstance(lexical, SQLiteLexical)
        kept: KeptReads[str, str] = KeptReads(lexical.db, 5, cost=len)
        loads: list[list[str]] = []

        def load(keys: list[str]) -> list[tuple[str, str]]:
            loads.append(keys)
            return [(k, k * 2) for k in keys]

        assert kept.read(["a", "b"], load) == {"a": "aa", "b": "bb"}  # cost 4
        assert kept.read(["b", "c"], load) == {"b": "bb", "c": "cc"}  # 6: "a" goes
        # all three are returned; the least recently read ("a", read first) is not kept
        assert kept.read(["a", "b", "c"], load) == {"a": "aa", "b": "bb", "c": "cc"}
        assert kept.read(["c", "b"], load) == {"c": "cc", "b": "bb"}
        assert loads == [["a", "b"], ["c"], ["a"]]
        assert kept.read(["a"], load) == {"a": "aa"} and loads[-1] == ["a"]
    finally:
        backend.close()
