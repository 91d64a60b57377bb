"""The embedded lexical index reads its row count from FTS5's averages record."""

from __future__ import annotations

from codecompass.storage.sqlite.lexical import _varint


def test_the_row_count_is_read_from_fts5s_varint() -> None:
    assert [_varint(b) for b in (b"\x05", b"\x7f\x01", b"\x81\x00", b"\x84\x8e\x18\x99")] == [
        5,
        127,
        128,
        67352,
    ]
    assert _varint(b"\xff" * 9) == 2**64 - 1
