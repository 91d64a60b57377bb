"""Django templates' `{% url 'front:hc-details' check.code %}`: a link to the view the
route of that name serves (`graph/http.py` matches it with the route's `name=`, as it
does `reverse("front:hc-details")`)."""

from __future__ import annotations

import re

from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import LineIndex
from codecompass.models import HttpFact

# `{% url 'name' %}`; django-hosts' `{% host_url 'name' host 'docs' %}`
_URL_TAG = re.compile(r"\{%-?\s*(?:host_)?url\s+(['\"])([\w:.-]+)\1")
# what a template leaves out: `{% comment %}…{% endcomment %}`, `{# … #}`
_COMMENT = re.compile(r"\{%-?\s*comment\b.*?\{%-?\s*endcomment\s*-?%\}|\{#.*?#\}", re.S)


def url_tag_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """A template's `{% url 'name' %}` tags, each a reference to a route by its name."""
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
