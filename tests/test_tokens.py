from codecompass.tokens import code_tokens, split_identifier


def test_identifiers_kept_whole_and_split() -> None:
    assert code_tokens("verifyToken(verify_token)") == [
        "verifytoken",
        "verify",
        "token",
        "verify_token",
        "verify",
        "token",
    ]


def test_acronyms_and_digits() -> None:
    assert split_identifier("parseHTTPResponse2") == ["parse", "http", "response", "2"]
    assert split_identifier("simple") == []
    assert code_tokens("__init__") == ["init"]


def test_a_plural_acronym_is_one_part() -> None:
    """`getURLs` split into `get ur ls`, so it never met "urls" or `getUrls`."""
    assert split_identifier("getURLs") == ["get", "urls"]
    assert split_identifier("APIsList") == ["apis", "list"]
    assert split_identifier("xForwardedForIPs") == ["x", "forwarded", "for", "ips"]
    assert code_tokens("URLs") == ["urls"]
    # An `s` starting a word stays that word's: `IOstream`, `HTTPServer`.
    assert split_identifier("IOstream") == ["i", "ostream"]
    assert split_identifier("HTTPServer") == ["http", "server"]


def test_paths_split_into_segments() -> None:
    assert code_tokens("src/codecompass/hashing.py") == ["src", "codecompass", "hashing", "py"]


def test_overlong_words_dropped() -> None:
    assert code_tokens("a" * 65 + " ok") == ["ok"]
