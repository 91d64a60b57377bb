"""Keeping credentials out of the index: secret-file rules and in-text redaction."""
