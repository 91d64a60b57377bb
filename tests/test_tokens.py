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


def test_paths_split_into_segments() -> None:
    assert code_tokens("src/codecompass/hashing.py") == ["src", "codecompass", "hashing", "py"]


def test_overlong_words_dropped() -> None:
    assert code_tokens("a" * 65 + " ok") == ["ok"]
