import blake3

from codecompass.hashing import chunk_id, hash_bytes, hash_text, normalize_text


def test_seed_example_crlf_and_trailing_spaces() -> None:
    raw = "function test() {\r\n  return 42;  \r\n}\r\n"
    assert normalize_text(raw) == "function test() {\n  return 42;\n}\n"
    expected = blake3.blake3(b"function test() {\n  return 42;\n}\n").hexdigest()
    assert hash_text(raw) == expected


def test_lone_cr_becomes_lf() -> None:
    assert normalize_text("a\rb\r") == "a\nb\n"


def test_control_characters_dropped_but_tab_and_newline_kept() -> None:
    assert normalize_text("a\x00b\x07c\td\x1be\x7f\x85\nf\x0c") == "abc\tde\nf"


def test_nfc_composition() -> None:
    decomposed = "cafe\u0301"
    assert normalize_text(decomposed) == "caf\u00e9"
    assert hash_text(decomposed) == hash_text("caf\u00e9")


def test_keeps_tabs_inner_spaces_and_edge_blank_lines() -> None:
    text = "\n\n\tx  =   1\n\n"
    assert normalize_text(text) == text


def test_whitespace_only_lines_become_empty() -> None:
    assert normalize_text("   \n\t\n") == "\n\n"
    assert normalize_text("   ") == ""


def test_empty_text_hashes_as_empty_string() -> None:
    assert hash_text("") == blake3.blake3(b"").hexdigest()


def test_binary_hashed_raw() -> None:
    data = b"\x00\x01\r\n\xff"
    assert hash_bytes(data) == blake3.blake3(data).hexdigest()


def test_chunk_id_depends_on_every_part() -> None:
    base = chunk_id("r", "a.py", 1, 2, "h")
    assert len(base) == 64
    assert base == chunk_id("r", "a.py", 1, 2, "h")
    others = {
        chunk_id("r2", "a.py", 1, 2, "h"),
        chunk_id("r", "b.py", 1, 2, "h"),
        chunk_id("r", "a.py", 11, 2, "h"),
        chunk_id("r", "a.py", 1, 12, "h"),
        chunk_id("r", "a.py", 1, 2, "h2"),
    }
    assert base not in others and len(others) == 5
    assert chunk_id("r", "a.py", 1, 12, "h") != chunk_id("r", "a.py", 11, 2, "h")
