"""Hostile arguments every transport must refuse, with the error code each must get.

Each row is (tool, arguments, code). The paths aim at the planted canaries in
`tests/mcp/conftest.py`: traversal in plain, encoded and look-alike forms, absolute and
Windows paths, secrets, VCS internals, a blocked file, symlinks out of the repository,
binaries, oversized files; then option injection into git and a bogus repository name.
"""

from __future__ import annotations

from typing import Any

HOSTILE: list[tuple[str, dict[str, Any], str]] = [
    ("open_file", {"path": "../outside/secret.txt"}, "access_denied"),
    ("open_file", {"path": "../../../../../../etc/passwd"}, "access_denied"),
    ("open_file", {"path": "/etc/passwd"}, "access_denied"),
    ("open_file", {"path": "~/.ssh/id_rsa"}, "access_denied"),
    ("open_file", {"path": "C:\\Windows\\win.ini"}, "access_denied"),
    ("open_file", {"path": "\\\\server\\share\\secret.txt"}, "access_denied"),
    ("open_file", {"path": "..\\..\\..\\etc\\passwd"}, "access_denied"),
    ("open_file", {"path": "file:///etc/passwd"}, "access_denied"),
    ("open_file", {"path": "%2e%2e/%2e%2e/etc/passwd"}, "access_denied"),
    ("open_file", {"path": "%252e%252e%252f.env"}, "access_denied"),
    ("open_file", {"path": "orders/%2e%2e/.env"}, "access_denied"),
    ("open_file", {"path": "\uff0e\uff0e/outside/secret.txt"}, "access_denied"),
    ("open_file", {"path": "orders/../../outside/secret.txt"}, "access_denied"),
    ("open_file", {"path": "orders/./../.env"}, "access_denied"),
    ("open_file", {"path": "orders/service.py\x00.env"}, "access_denied"),
    ("open_file", {"path": ".env"}, "access_denied"),
    ("open_file", {"path": "keys/server.pem"}, "access_denied"),
    ("open_file", {"path": "config/secrets.yaml"}, "access_denied"),
    ("open_file", {"path": ".git/config"}, "access_denied"),
    ("open_file", {"path": "private/notes.py"}, "access_denied"),
    ("open_file", {"path": "link_out"}, "access_denied"),
    ("open_file", {"path": "linkdir/secret.txt"}, "access_denied"),
    ("open_file", {"path": "blob.bin"}, "access_denied"),
    ("open_file", {"path": "big.txt"}, "access_denied"),
    ("open_file", {"path": "orders/service.py", "repo": "../shop"}, "unknown_repo"),
    ("git_blame", {"path": ".env", "start_line": 1, "end_line": 1}, "access_denied"),
    ("git_blame", {"path": "link_out", "start_line": 1, "end_line": 1}, "access_denied"),
    ("git_log", {"path": "../outside"}, "access_denied"),
    ("git_log", {"path": ".git"}, "access_denied"),
    ("git_log", {"path": ".", "range": "--output=/tmp/codecompass-pwned"}, "invalid_argument"),
    ("git_log", {"path": ".", "range": "HEAD; cat .env"}, "invalid_argument"),
    ("git_log", {"path": ".", "range": "HEAD:.env"}, "invalid_argument"),
    ("git_log", {"path": "--all"}, "not_found"),
    ("search_code", {"query": "order", "filters": {"repo": "../../etc"}}, "unknown_repo"),
]
