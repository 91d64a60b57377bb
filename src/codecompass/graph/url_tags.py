"""Uses of a route by its name (`graph/http.py` matches each with the route declared
with that name, as it does Django's `reverse("front:hc-details")`):

- Django templates' `{% url 'front:hc-details' check.code %}` (and django-hosts'
  `{% host_url … %}`), outside `{% comment %}` and `{# … #}`;
- Rails's route helpers in Ruby and its templates: `get accounts_url` (a test's request:
  its method), `redirect_to account_path(@account)`, `link_to "x", new_session_path`
  (the route of that name answering GET, when there is one).

Thymeleaf's link expressions name a route by its path instead (`_thymeleaf_links`).
"""

from __future__ import annotations

import re

from codecompass.graph.http import RELATIVE, call_fact, client_path
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.textscan import LineIndex, matching
from codecompass.models import HttpFact

# `{% url 'name' %}`; django-hosts' `{% host_url 'name' host 'docs' %}`
# a route helper, after a test's request verb if any; not a method of another object
# (but `Routes.user_url`), an instance variable, a symbol, a string or a definition
_RAILS_HELPER = re.compile(
    r"(?:\b(?P<verb>get|post|put|patch|delete|head)\s*\(?\s*)?"
    r"(?:(?<=Routes\.)|(?<=url_helpers\.)|(?<![.\w@:'\"]))(?<!def )"
    r"(?P<name>[a-z]\w*?)_(?:path|url)\b(?![\s'\"]*[=:])"
)
# what a form or a button on the helper's line sends: `method: :delete`, else POST
_FORM_METHOD = re.compile(r"\bmethod:\s*:?['\"]?(\w+)")
_FORM = re.compile(r"\b(?:form_with|form_for|form_tag|button_to)\b")
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
    if "@{" in text and "th:" in text:
        return _thymeleaf_links(text, ctx)
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
    rows = text.split("\n")
    found: list[HttpFact] = []
    for m in _RAILS_HELPER.finditer(text):
        line = lines.line(m.start("name"))
        row = rows[line - 1]
        if m.group("name") in _NOT_ROUTES or row.lstrip().startswith("#"):
            continue
        method = (m.group("verb") or "*").upper()
        if method == "*" and _FORM.search(row):  # its options may go on below
            call = _statement(rows, line)
            stated = _FORM_METHOD.search(call)
            method = stated.group(1).upper() if stated else "POST"
        found.append(HttpFact("by-name", method, m.group("name"), line, ctx.source_id(line)))
    return found


def _statement(rows: list[str], line: int) -> str:
    """The line `line` and those continuing its call (up to 5): until one closes an ERB
    tag or opens a block."""
    taken: list[str] = []
    for row in rows[line - 1 : line + 4]:
        taken.append(row)
        if "%>" in row or row.rstrip().endswith((" do", "|")):
            break
    return "\n".join(taken)


# a link's or a form's tag (a `>` in a quoted value, `${page > 1}`, does not end it) and
# its Thymeleaf URL: `<a th:href="@{/owners/new}">`, `<form th:action="@{/owners}"
# method="post">`; `<link th:href>` is a style sheet
_TH_TAG = re.compile(r"""<(a|form)\b(?:[^>"']|"[^"]*"|'[^']*')*>""", re.I)
_TH_URL = re.compile(r"""\bth:(?:href|action)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_TH_METHOD = re.compile(r"\b(?:th:)?method\s*=\s*['\"]\s*(\w+)", re.I)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# what stands for a value in a link: `__${owner.id}__`, `${i}`, `{ownerId}`
_TH_VALUE = re.compile(r"__\$\{.*?\}__|\$\{[^{}]*\}|\{\w+\}")


def _thymeleaf_links(text: str, ctx: Ctx) -> list[HttpFact]:
    """Requests a Thymeleaf page makes through its links and forms: `th:href` on an
    `<a>` (GET), `th:action` on a `<form>` (sent by its `method`, GET without one).
    `@{/owners/{id}/edit(id=${owner.id})}`, `@{'/vets.html?page=' + ${i}}` and
    `@{__${owner.id}__/edit}` (relative to the page: a path below an unread prefix) are
    read; a URL with nothing literal in it (`@{__${link}__}`) is not."""
    lines = LineIndex(text)
    kept = _HTML_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    found: list[HttpFact] = []
    for m in _TH_TAG.finditer(kept):
        attribute = _TH_URL.search(m.group(0))
        if attribute is None:
            continue
        url = _link_expression(attribute.group(1) or attribute.group(2))
        if url is None:
            continue
        method = "GET"
        if m.group(1).lower() == "form":
            stated = _TH_METHOD.search(m.group(0))
            method = stated.group(1).upper() if stated else "GET"
        line = lines.line(m.start() + attribute.start())
        source = ctx.source_id(line)
        if url.startswith("/"):
            fact = call_fact(method, url, line, source)
        else:  # relative to the page: the end of a longer route
            pattern = client_path("/" + url.replace("{v}", "{}"))
            fact = HttpFact("call", method, pattern, line, source, router=RELATIVE)
        if fact is not None:
            found.append(fact)
    return found


def _link_expression(value: str) -> str | None:
    """The URL of a Thymeleaf link expression, `{v}` where a value goes (no leading `/`
    when relative to the page), or None: not one, or nothing literal in it."""
    start = value.find("@{")
    if start < 0:
        return None
    end = matching(value, start + 1)
    if value[end] != "}":
        return None
    body = value[start + 2 : end].strip()
    if body.startswith("'"):  # `'/owners?page=' + ${i}`: the quoted parts and the values
        body = "".join(
            part.strip().strip("'") if part.strip().startswith("'") else "{v}"
            for part in body.split("+")
        )
    body = body.removeprefix("~")
    open_params = body.find("(")
    if open_params > 0:  # `(id=${owner.id})`: the parameters, not the path
        body = body[:open_params]
    url = _TH_VALUE.sub("{v}", body).split("?", 1)[0]
    if url != "/" and not url.replace("{v}", "").strip("/"):
        return None
    return url
