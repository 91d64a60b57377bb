import pytest

from codecompass.errors import InputError
from codecompass.models import ChunkRecord
from codecompass.search.format import check_detail, compact, preview


def _chunk(text: str, signature: str = "") -> ChunkRecord:
    return ChunkRecord(
        id="x",
        repo="r",
        path="a.py",
        language="python",
        kind="function",
        symbol="f",
        symbol_id="r/a.py#f",
        signature=signature,
        start_line=1,
        end_line=text.count("\n") + 1,
        header="",
        text=text,
        text_hash="h",
        file_hash="h",
        embed_key="k",
        tokens=1,
    )


def test_preview_keeps_up_to_40_lines() -> None:
    text = "\n".join(f"line {i}" for i in range(40))
    assert preview(text) == text


def test_preview_cuts_long_bodies_to_25_lines() -> None:
    text = "\n".join(f"line {i}" for i in range(41))
    out = preview(text).split("\n")
    assert out[:25] == [f"line {i}" for i in range(25)]
    assert out[25] == "… 16 more lines"
    assert len(out) == 26


def test_preview_caps_characters_at_a_line_boundary() -> None:
    text = "\n".join("x" * 99 for _ in range(30))
    out = preview(text).split("\n")
    assert out[-1] == "… 15 more lines"
    assert all(line == "x" * 99 for line in out[:-1])
    assert sum(len(line) + 1 for line in out[:-1]) <= 1500


def test_compact_is_signature_and_first_doc_line() -> None:
    chunk = _chunk("def f(x):\n    return x", signature="def f(x)")
    assert compact(chunk, "Return x.\n\nMore.") == "def f(x)\nReturn x."
    assert compact(_chunk("\n  body line\n")) == "body line"


def test_unknown_detail_is_refused() -> None:
    with pytest.raises(InputError, match="use one of: compact, preview, full"):
        check_detail("short")
