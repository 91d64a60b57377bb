"""Requests a framework's tests make to their own application, read from the test file's
text (the PHP and Ruby facts keep no call's arguments):

| written (in a test file)                                    | call               |
| ----------------------------------------------------------- | ------------------ |
| Laravel: `$this->getJson('api/songs')`, `$this->post('/x')`, | `GET /api/songs`   |
| a helper named so (`$this->getAs("api/songs/{$song->id}")`)  | `GET /api/songs/{}` |
| Rails: `get "/api/v1/accounts"`, `post("/x", params: …)`     | `POST /x`          |

Such a request is a client call of the route it names (`http.py` links them): `callers`
of a controller's action lists the tests that request it. A Rails path helper
(`get accounts_url`) is not read.
"""

from __future__ import annotations

import re

from codecompass.graph.http import client_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.languages import is_test_path
from codecompass.indexing.textscan import LineIndex
from codecompass.models import HttpFact

_LARAVEL = re.compile(
    r"\$this\s*->\s*(get|post|put|patch|delete)(?:Json|As)?\s*\(\s*(['\"])(?P<url>[^'\"\n]*)\2"
)
_RAILS = re.compile(
    r"^\s*(get|post|put|patch|delete)\s*\(?\s*(['\"])(?P<url>/[^'\"\n]*)\2", re.MULTILINE
)
# PHP's `{$song->id}` and `$id`, Ruby's `#{account.id}`: a parameter.
_HOLE = re.compile(r"\{\$[^{}]*\}|\$\w+(?:->\w+)*|#\{[^{}]*\}")


def requests_in_tests(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The requests a Laravel or Rails test file makes (see the module docstring)."""
    if ctx.language not in ("php", "ruby") or not is_test_path(ctx.path):
        return []
    text = resolver.file_text(ctx)
    pattern = _LARAVEL if ctx.language == "php" else _RAILS
    lines = LineIndex(text)
    found: list[HttpFact] = []
    for m in pattern.finditer(text):
        url = _HOLE.sub("{}", m["url"])
        # the test client requests the application itself: `api/songs` is `/api/songs`
        path = client_path(url if url.startswith(("/", "http")) else "/" + url)
        if not path:
            continue
        line = lines.line(m.start(1))
        found.append(HttpFact("call", m.group(1).upper(), path, line, ctx.source_id(line)))
    return found
