"""Uses of a route by its name (`graph/http.py` matches each with the route declared
with that name, as it does Django's `reverse("front:hc-details")`):

- Django templates' `{% url 'front:hc-details' check.code %}` (and django-hosts'
  `{% host_url … %}`), outside `{% comment %}` and `{# … #}`;
- Rails's route helpers in Ruby and its templates: `get accounts_url` (a test's request:
  its method), `redirect_to account_path(@account)`, `link_to "x", new_session_path`
  (the route of that name answering GET, when there is one).
"""

from __future__ import annotations

import re

from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import LineIndex
from codecompass.models import HttpFact

# `{% url 'name' %}`; django-hosts' `{% host_url 'name' host 'docs' %}`
# a route helper, after a test's request verb if any; not a method of an object
_RAILS_HELPER = re.compile(
    r"(?:\b(?P<verb>get|post|put|patch|delete|head)\s*\(?\s*)?"
    r"(?<![.\w])(?P<name>[a-z]\w*?)_(?:path|url)\b(?!\s*[=:])"
)
# ActionView's asset helpers and common names that end so
_NOT_ROUTES = frozenset(
    {"image", "asset", "javascript", "stylesheet", "font", "video", "audio", "file", "full"}
)
_RAILS_TEMPLATES = (".erb", ".haml", ".slim")
_URL_TAG = re.compile(r"\{%-?\s*(?:host_)?url\s+(['\"])([\w:.-]+)\1")
# what a template leaves out: `{% comment %}…{% endcomment %}`, `{# … #}`
_COMMENT = re.compile(r"\{%-?\s*comment\b.*?\{%-?\s*endcomment\s*-?%\}|\{#.*?#\}", re.S)


def url_tag_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """A file's uses of routes by their names (see the module docstring)."""
    if ctx.language == "ruby" or ctx.path.endswith(_RAILS_TEMPLATES):
        return _rails_helpers(resolver.file_text(ctx), ctx)
    if ctx.language in ("python", "javascript", "typescript"):
        return []
    text = resolver.file_text(ctx)
    if "{%" not in text or "url " not in text:
        return []
    lines = LineIndex(text)
    kept = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return [
        HttpFact("by-name", "*", m.group(2), lines.line(m.start()), ctx.file_id)
        for m in _URL_TAG.finditer(kept)
    ]


def _rails_helpers(text: str, ctx: Ctx) -> list[HttpFact]:
    """`get accounts_url`, `account_path(@account)`: Rails's route helpers."""
    if "_path" not in text and "_url" not in text:
        return []
    lines = LineIndex(text)
    found: list[HttpFact] = []
    for m in _RAILS_HELPER.finditer(text):
        if m.group("name") in _NOT_ROUTES:
            continue
        method = (m.group("verb") or "*").upper()
        line = lines.line(m.start("name"))
        found.append(HttpFact("by-name", method, m.group("name"), line, ctx.source_id(line)))
    return found
