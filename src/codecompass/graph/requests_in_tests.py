"""Requests a framework's tests make to their own application, read from the test file's
text (the PHP and Ruby facts keep no call's arguments):

| written (in a test file)                                    | call               |
| ----------------------------------------------------------- | ------------------ |
| Laravel: `$this->getJson('api/songs')`, `$this->post('/x')`, | `GET /api/songs`   |
| a helper named so (`$this->getAs("api/songs/{$song->id}")`)  | `GET /api/songs/{}` |
| Rails: `get "/api/v1/accounts"`, `post("/x", params: …)`     | `POST /x`          |
| Symfony: `$client->request('GET', '/en/blog/')`, `jsonRequest`, | `GET /en/blog`    |
| `xmlHttpRequest`, `Request::METHOD_POST` as the method        |                    |

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

# `$this->get('api/songs')`; after a chain of the test's own helpers
# (`$this->asAdmin($id)->get('/admin/talks')`), a path from the root only: a service
# container's `->get('doctrine')` is no request
_LARAVEL = re.compile(
    r"\$this\s*->\s*(?P<chain>(?:\w+\s*\((?:[^()]|\([^()]*\))*\)\s*->\s*)*)"
    r"(get|post|put|patch|delete)(?:Json|As)?\s*\(\s*(['\"])(?P<url>[^'\"\n]*)\3"
)
_SYMFONY = re.compile(
    r"->\s*(?:request|jsonRequest|xmlHttpRequest)\s*\(\s*"
    r"(?:(['\"])(?P<verb>[A-Za-z]+)\1|Request::METHOD_(?P<constant>[A-Z]+))\s*,\s*"
    r"(['\"])(?P<url>[^'\"\n]*)\4"
)
_RAILS = re.compile(
    r"^\s*(get|post|put|patch|delete)\s*\(?\s*(['\"])(?P<url>/[^'\"\n]*)\2", re.MULTILINE
)
# PHP's `{$song->id}` and `$id`, Ruby's `#{account.id}`: a parameter.
_HOLE = re.compile(r"\{\$[^{}]*\}|\$\w+(?:->\w+)*|#\{[^{}]*\}")
# what PHP joins to a string: `. $entry->getId()`, `. '.json'`
_PHP_JOINED = re.compile(
    r"""\s*\.(?!=)\s*(?:'([^'\n]*)'|"([^"\n]*)"|[^.,;'"()\n]*(?:\([^()\n]*\))*)"""
)


def requests_in_tests(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The requests a Laravel, Symfony or Rails test file makes (module docstring)."""
    if ctx.language not in ("php", "ruby") or not is_test_path(ctx.path):
        return []
    text = resolver.file_text(ctx)
    patterns = (_LARAVEL, _SYMFONY) if ctx.language == "php" else (_RAILS,)
    lines = LineIndex(text)
    found: list[HttpFact] = []
    for m in (m for pattern in patterns for m in pattern.finditer(text)):
        if m.re is _LARAVEL and m["chain"] and not m["url"].startswith("/"):
            continue
        url = m["url"] + (_php_joined(text, m.end()) if ctx.language == "php" else "")
        url = _HOLE.sub("{}", url)
        # the test client requests the application itself: `api/songs` is `/api/songs`
        path = client_path(url if url.startswith(("/", "http")) else "/" + url)
        if not path:
            continue
        symfony = m.re is _SYMFONY
        line = lines.line(m.start() if symfony else m.start("url"))
        verb = m["verb"] or m["constant"] if symfony else m.group(2 if m.re is _LARAVEL else 1)
        found.append(HttpFact("call", verb.upper(), path, line, ctx.source_id(line)))
    return found


def _php_joined(text: str, end: int) -> str:
    """What a PHP string literal ending at `end` is joined with (`'/view/' .
    $entry->getId() . '.json'` → `{}.json`): strings as written, a value as `{}`."""
    out: list[str] = []
    while (m := _PHP_JOINED.match(text, end)) is not None and m.end() > end:
        literal = m.group(1) if m.group(1) is not None else m.group(2)
        out.append(literal if literal is not None else "{}")
        end = m.end()
    return "".join(out)
