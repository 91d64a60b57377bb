"""Files that are not plain UTF-8: byte-order marks pick the encoding, and bytes that
are invalid in it are read in a named way and reported, never changed silently."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from codecompass.decoding import decode_text, sniff_text
from codecompass.engine import Engine
from codecompass.errors import AccessDeniedError
from tests.conftest import TinyEmbedder, git, make_git_repo
from tests.peek import peek

CODE = """\
\"\"\"Greetings.\"\"\"


def greet(name):
    return "héllo " + name


class Door:
    pass
"""
ENCODED = {
    "le.py": codecs.BOM_UTF16_LE + CODE.encode("utf-16-le"),
    "be.py": codecs.BOM_UTF16_BE + CODE.encode("utf-16-be"),
    "sig.py": codecs.BOM_UTF8 + CODE.encode("utf-8"),
    "crlf.py": codecs.BOM_UTF16_LE + CODE.replace("\n", "\r\n").encode("utf-16-le"),
}
# Text from a Latin-1/Windows editor: é, “ and ” as single bytes.
LEGACY = b"# caf\xe9 menu\n\n\ndef order(item):\n    return \x93\xe9\x94 + item\n"


def open_engine(tmp_path: Path) -> Engine:
    root, data = tmp_path / "proj", tmp_path / "data"
    return Engine.for_repo(root, data_dir=data, embedder=TinyEmbedder())[0]


def write_repo(root: Path, files: dict[str, bytes]) -> Path:
    make_git_repo(root, {"README.md": "# Proj\n"})
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "files")
    return root


# --- decode_text and sniff_text ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ENCODED))
def test_a_byte_order_mark_names_the_encoding(name: str) -> None:
    decoded = decode_text(ENCODED[name])
    assert decoded.text.replace("\r\n", "\n") == CODE
    assert decoded.problem is None


def test_utf32_with_a_mark_and_plain_utf8_decode_cleanly() -> None:
    assert decode_text(codecs.BOM_UTF32_LE + CODE.encode("utf-32-le")).text == CODE
    assert decode_text(codecs.BOM_UTF32_BE + CODE.encode("utf-32-be")).text == CODE
    plain = decode_text(CODE.encode("utf-8"))
    assert (plain.text, plain.encoding, plain.problem) == (CODE, "utf-8", None)


def test_invalid_utf8_bytes_are_read_as_cp1252_and_named() -> None:
    decoded = decode_text(LEGACY)
    assert decoded.text == "# café menu\n\n\ndef order(item):\n    return “é” + item\n"
    assert decoded.problem == "not valid UTF-8: 4 bytes read as Windows-1252 (first on line 1)"
    # Valid UTF-8 around a stray byte keeps its meaning; a byte cp1252 leaves undefined
    # becomes U+FFFD, and the note says so.
    mixed = decode_text("naïve\n".encode() + b"x = '\xe9'\ny = '\x81'\n")
    assert mixed.text == "naïve\nx = 'é'\ny = '\ufffd'\n"
    assert mixed.problem == (
        "not valid UTF-8: 2 bytes read as Windows-1252 (first on line 2); "
        "1 of them undefined there, replaced with U+FFFD"
    )


# A legacy module that declares its encoding (PEP 263), as Python reads it.
GREETING = "# -*- coding: shift_jis -*-\n\n\ndef greet():\n    return 'こんにちは'\n"
SHIFT_JIS = GREETING.encode("shift_jis")


@pytest.mark.parametrize(
    ("path", "data", "text", "encoding"),
    [
        ("greet.py", SHIFT_JIS, GREETING, "shift_jis"),
        (
            "a.py",
            b"#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\nx = '\xe9'\n",
            "#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\nx = 'é'\n",
            "iso8859-1",
        ),
        (
            "b.pyi",
            b"\n# coding=cp1251\nx: str  # \xcf\xf0\xe8\n",
            "\n# coding=cp1251\nx: str  # При\n",
            "cp1251",
        ),
        # Valid UTF-8 stays UTF-8, whatever the comment says (a stale cookie).
        ("c.py", "# coding: latin-1\nx = 'é'\n".encode(), "# coding: latin-1\nx = 'é'\n", "utf-8"),
    ],
)
def test_a_python_files_coding_comment_names_its_encoding(
    path: str, data: bytes, text: str, encoding: str
) -> None:
    decoded = decode_text(data, path)
    assert (decoded.text, decoded.encoding, decoded.problem) == (text, encoding, None)


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("notes.txt", SHIFT_JIS),  # only Python files declare
        ("late.py", b"x = 1\n# coding: latin-1\ny = '\xe9'\n"),  # after code: no cookie
        ("third.py", b"#\n#\n# coding: latin-1\ny = '\xe9'\n"),  # line 3: too late
        ("odd.py", b"# coding: klingon\ny = '\xe9'\n"),  # a codec Python does not know
        ("wrong.py", b"# coding: ascii\ny = '\xe9'\n"),  # invalid in what it declares
    ],
)
def test_without_a_usable_coding_comment_invalid_utf8_reads_as_before(
    path: str, data: bytes
) -> None:
    assert decode_text(data, path) == decode_text(data)
    assert decode_text(data, path).problem is not None


# A FITS image: 80-column ASCII header cards (more than the 8 KiB head the NUL test
# reads), then big-endian pixels.
CARDS = b"".join(f"KEY{n:<5}= {n:>20} / a header card".ljust(80).encode() for n in range(120))
FITS = CARDS + b"END".ljust(80) + bytes([0, 0, 0x80, 0x3F, 0xFF, 0x7F, 0, 1]) * 64


@pytest.mark.parametrize(
    ("data", "binary"),
    [
        (FITS, True),
        (b"\x1f\x9d\x90text\x01\x02\x03\x84\x85" * 4, True),  # compress(1): no NUL
        (LEGACY, False),
        (b"caf\xe9\tcr\r\nff\x0c esc \x1b[0m\n" * 20, False),  # text's own controls
        (b"valid UTF-8 with a NUL\0 is no concern here\n", False),
        (codecs.BOM_UTF16_LE + "a\nb\n".encode("utf-16-le") + b"\x00\xd8", False),
    ],
)
def test_bytes_invalid_in_utf8_with_nuls_or_controls_are_binary(data: bytes, binary: bool) -> None:
    assert decode_text(data).binary is binary


def test_invalid_utf16_units_are_replaced_and_named() -> None:
    data = codecs.BOM_UTF16_LE + "a\nb\n".encode("utf-16-le") + b"\x00\xd8" + b"c\x00"
    decoded = decode_text(data)
    assert decoded.text == "a\nb\n\ufffdc"
    assert decoded.problem == (
        "not valid UTF-16-LE: 1 code unit replaced with U+FFFD (first on line 3)"
    )


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"print('hi')\n", b"print('hi')\n"),
        (codecs.BOM_UTF8 + b"x = 1\n", b"x = 1\n"),
        (codecs.BOM_UTF16_LE + "x = 'é'\n".encode("utf-16-le"), "x = 'é'\n".encode()),
        (codecs.BOM_UTF16_BE + "x = 1\n".encode("utf-16-be"), b"x = 1\n"),
        # a head cut inside a code unit or a surrogate pair is still text
        (codecs.BOM_UTF16_LE + "ab".encode("utf-16-le")[:-1], b"a"),
        (codecs.BOM_UTF16_LE + "a😀".encode("utf-16-le")[:-2], b"a"),
        (b"abc\0def", None),
        ("h\0i\0".encode("ascii"), None),  # UTF-16 without a mark: not told from binary
        (codecs.BOM_UTF8 + b"a\0b", None),
        (codecs.BOM_UTF16_LE + "a\0b".encode("utf-16-le"), None),
        (codecs.BOM_UTF16_LE + b"\x00\xd8\x00\xd8" * 8, None),  # lone surrogates
        (codecs.BOM_UTF32_LE + b"\xff\xff\xff\xff", None),
    ],
)
def test_sniff_text(head: bytes, expected: bytes | None) -> None:
    assert sniff_text(head) == expected


# --- the pipeline and open_file -------------------------------------------------------


def test_files_with_a_byte_order_mark_are_indexed_with_right_lines(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "proj", {**ENCODED, "blob.dat": b"\x00\x01\x02binary"})
    with open_engine(tmp_path) as engine:
        stats = engine.index(root)
        assert stats.skipped == {"binary": 1}  # blob.dat only
        assert stats.new == 5 and stats.decode_errors == 0
        rows = peek(
            engine,
            "SELECT path, qualified_name, start_line, end_line FROM symbols ORDER BY path, name",
        )
        for name in ENCODED:
            assert (name, "Door", 8, 9) in rows and (name, "greet", 4, 5) in rows
        texts = peek(engine, "SELECT text FROM chunks WHERE symbol = 'greet'")
        assert {t for (t,) in texts} == {'def greet(name):\n    return "héllo " + name'}
        hits = engine.search("greet héllo", k=10)
        # the same text in each encoding: one result naming the others as its copies
        found = {h.path for h in hits} | {c for h in hits for c in h.why.get("copies", [])}
        assert found >= set(ENCODED)
        for name in ENCODED:
            view = engine.open_file(name, 4, 5)
            assert view.text == 'def greet(name):\n    return "héllo " + name'
            assert view.total_lines == 9


def test_invalid_utf8_is_indexed_readably_and_reported(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "proj", {"menu.py": LEGACY})
    note = "not valid UTF-8: 4 bytes read as Windows-1252 (first on line 1)"
    with open_engine(tmp_path) as engine:
        stats = engine.index(root)
        assert (stats.decode_errors, stats.decode_examples) == (1, ["menu.py"])
        assert stats.as_dict()["decode_errors"] == 1
        flagged = "SELECT path, decode_error FROM files WHERE decode_error IS NOT NULL"
        assert peek(engine, flagged) == [("menu.py", note)]
        texts = peek(engine, "SELECT text FROM chunks WHERE symbol = 'order'")
        assert texts == [("def order(item):\n    return “é” + item",)]
        assert "\ufffd" not in engine.open_file("menu.py").text
        assert engine.open_file("menu.py", 1, 1).text == "# café menu"
        (repo,) = engine.status()["repos"]
        assert repo["decode_errors"] == 1
        assert repo["decode_error_files"] == [{"path": "menu.py", "problem": note}]

        # Saved again as UTF-8, the same text is no longer a decode error.
        (root / "menu.py").write_bytes(LEGACY.decode("cp1252").encode("utf-8"))
        stats = engine.index(root)
        assert stats.decode_errors == 0 and stats.changed == 1
        assert peek(engine, "SELECT count(*) FROM files WHERE decode_error IS NOT NULL") == [(0,)]
        assert engine.status()["repos"][0]["decode_error_files"] == []


def test_a_declared_legacy_encoding_is_indexed_and_opened_as_python_reads_it(
    tmp_path: Path,
) -> None:
    """pylint's test data holds a `# coding: latin_1` module: it was a decode error, read
    as Windows-1252. A `shift_jis` module read that way is garbled."""
    root = write_repo(tmp_path / "proj", {"greet.py": SHIFT_JIS})
    with open_engine(tmp_path) as engine:
        stats = engine.index(root)
        assert stats.decode_errors == 0
        texts = peek(engine, "SELECT text FROM chunks WHERE symbol = 'greet'")
        assert texts == [("def greet():\n    return 'こんにちは'",)]
        assert engine.open_file("greet.py", 4, 5).text == "def greet():\n    return 'こんにちは'"
        assert engine.status()["repos"][0]["decode_error_files"] == []


def test_binary_data_behind_a_text_head_is_skipped_not_indexed(tmp_path: Path) -> None:
    """astropy's test data: 22 FITS images indexed as text, 49,273 invalid bytes in one."""
    root = write_repo(tmp_path / "proj", {"image.fits": FITS, "menu.py": LEGACY})
    with open_engine(tmp_path) as engine:
        stats = engine.index(root)
        assert stats.skipped == {"binary": 1}
        assert stats.skipped_examples == {"binary": ["image.fits"]}
        assert (stats.decode_errors, stats.decode_examples) == (1, ["menu.py"])
        assert peek(engine, "SELECT path FROM files ORDER BY path") == [
            ("README.md",),
            ("menu.py",),
        ]
        with pytest.raises(AccessDeniedError, match="image.fits is a binary file"):
            engine.open_file("image.fits")


def test_open_file_counts_lines_as_the_index_does(tmp_path: Path) -> None:
    """A line separator (U+2028), a form feed, a lone CR and CRLF: `open_file` shows each
    chunk's lines at the lines the chunk names."""
    code = (
        'SEP = "a\u2028b"\n'  # a line separator inside a string: no line break
        "\x0c\n"  # a form feed on a line of its own (PEP 8's page break)
        "def after():\r\n"
        "    return 1\r"
        "x = after()\n"
    )
    root = write_repo(tmp_path / "proj", {"seps.py": code.encode("utf-8")})
    with open_engine(tmp_path) as engine:
        engine.index(root)
        rows = peek(engine, "SELECT start_line, end_line, text FROM chunks WHERE symbol = 'after'")
        assert rows == [(3, 4, "def after():\n    return 1")]
        view = engine.open_file("seps.py", 3, 4)
        assert (view.text, view.total_lines) == ("def after():\n    return 1", 5)
        assert engine.open_file("seps.py", 1, 2).text == 'SEP = "a\u2028b"\n'
