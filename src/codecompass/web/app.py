"""The web app behind `codecompass ui`: the page (static files shipped in the package)
and the JSON endpoints it calls, documented in docs/web.md for other tools.

Every endpoint is a GET that parses its query string, calls the engine through the
shared service (one call at a time, as the caller's principal, audited with transport
"web"), and answers JSON with every string passed through secret redaction, as the MCP
tools do. Errors answer `{"error": {"code", "message"}}` with a 4xx/5xx status.
Off loopback, or with principals, every request but the page's own files and /healthz
needs `Authorization: Bearer <token>`; the page takes the token from its URL's
fragment (`#token=…`, never sent to the server) and sends it with each call.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from codecompass.audit import CallRecord
from codecompass.engine import Engine
from codecompass.errors import CodeCompassError, ConfigError, InputError
from codecompass.graph.models import EDGE_TYPES, LINK_VIAS
from codecompass.indexing.chunk import CHUNK_KINDS
from codecompass.models import ChunkFilter
from codecompass.schemas import FileContent
from codecompass.search.retrieve import VIEWS
from codecompass.service import (
    LOCAL,
    PRINCIPAL_KEY,
    BearerTokenAuth,
    Service,
    error_code,
    redact_all,
)
from codecompass.storage import damage_of
from codecompass.web.explain import explain_graph
from codecompass.web.highlight import highlight_lines

log = logging.getLogger("codecompass.web")

STATIC = Path(__file__).parent / "static"
MAX_TOP_K = 50
MAX_DEPTH = 5
MAX_EXPAND = 200  # nodes one expansion may add
FILE_MAX_LINES = 2000  # the code view reads at most this many lines
STATUS_DAYS = 30
RELATIONS = ("callers", "callees", "dependencies", "dependents")
HTTP_STATUS = {
    "invalid_argument": 400,
    "out_of_range": 400,
    "access_denied": 403,
    "not_found": 404,
    "unknown_repo": 404,
    "not_indexed": 409,
    "model_mismatch": 409,
}


class Params:
    """A request's query string, read with clear errors for bad values."""

    def __init__(self, request: Request) -> None:
        self.values = request.query_params

    def text(self, name: str) -> str | None:
        return (self.values.get(name) or "").strip() or None

    def required(self, name: str) -> str:
        value = self.text(name)
        if value is None:
            raise InputError(f"Give the {name!r} parameter.")
        return value

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        raw = self.text(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise InputError(f"{name} must be a whole number, not {raw!r}.") from None
        if not low <= value <= high:
            raise InputError(f"{name} must be between {low} and {high}, not {value}.")
        return value

    def choice(self, name: str, options: list[str], default: str | None = None) -> str | None:
        value = self.text(name) or default
        if value is not None and value not in options:
            raise InputError(f"{name} must be one of {', '.join(options)}, not {value!r}.")
        return value

    def types(self) -> list[str] | None:
        raw = self.text("types")
        return [t.strip() for t in raw.split(",") if t.strip()] if raw else None


def editor_url(pattern: str, path: Path, line: int, repo: str, rel: str) -> str:
    """The "open in editor" link: the [ui] editor pattern with the file's absolute path,
    line, repository and relative path filled in (paths URL-quoted). An absolute POSIX
    path after `scheme://file/` loses its leading slash: VS Code (1.84 on) opens
    `vscode://file/home/me/x.py:3`, not `vscode://file//home/me/x.py:3`."""
    url = pattern.format(
        path=quote(path.as_posix(), safe="/:"), line=line, repo=quote(repo), rel=quote(rel)
    )
    return _FILE_URL_DOUBLE_SLASH.sub(r"\1/", url, count=1)


_FILE_URL_DOUBLE_SLASH = re.compile(r"^([A-Za-z][\w+.-]*://file)//")


def check_editor(pattern: str) -> None:
    """Refuse an editor pattern that could not be filled in, at start-up."""
    try:
        editor_url(pattern, Path("/x"), 1, "r", "x")
    except (KeyError, IndexError, ValueError) as exc:
        raise ConfigError(
            f"[ui] editor {pattern!r} is not a valid pattern ({exc!r}); use the placeholders "
            "{path}, {line}, {repo} and {rel}, e.g. vscode://file/{path}:{line}."
        ) from None


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(redact_all(data), status_code=status)


class WebApp:
    """The endpoints over one service."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.settings = service.settings

    async def call(
        self,
        request: Request,
        tool: str,
        work: Callable[[Engine, Params, CallRecord], Any],
        *,
        audited: bool = True,
    ) -> Response:
        """Parse, run `work` on the engine as the caller, audit (the page's own set-up
        call is not audited), shape the answer."""
        principal = request.scope.get("state", {}).get(PRINCIPAL_KEY, LOCAL)
        rec = CallRecord(tool=tool, client="codecompass-ui", principal=principal, transport="web")
        params = Params(request)
        try:
            access = self.service.access_of(principal)
            result = await self.service.run_as(access, lambda engine: work(engine, params, rec))
        except CodeCompassError as exc:
            code = error_code(exc)
            message = exc.for_mcp()
            rec.fail(code, message)
            await self._audit(rec, audited)
            error: dict[str, Any] = {"code": code, "message": message}
            if exc.candidates:  # an ambiguous or misspelt symbol: what it may have meant
                error["candidates"] = [c.as_dict() for c in exc.candidates]
            return _json({"error": error}, HTTP_STATUS.get(code, 500))
        except Exception as exc:
            damage = damage_of(exc)
            code, message = (
                (damage.code, damage.for_mcp())
                if damage is not None
                else ("internal_error", "Unexpected server error; the server log has the details.")
            )
            if damage is None:
                log.exception("%s failed", tool)
            rec.fail(code, message)
            await self._audit(rec, audited)
            return _json({"error": {"code": code, "message": message}}, 500)
        await self._audit(rec, audited)
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        return _json(data)

    async def _audit(self, rec: CallRecord, audited: bool) -> None:
        if audited:
            await self.service.write_audit(rec)

    # -- endpoints ---------------------------------------------------------------------
    async def config(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> dict[str, Any]:
            ui = self.settings.ui
            return {
                "repos": engine.repo_names(),
                "languages": engine.indexed_languages(),
                "kinds": sorted(CHUNK_KINDS),
                "edge_types": list(EDGE_TYPES),
                "link_vias": list(LINK_VIAS),
                "details": ["compact", "preview", "full"],
                "max_nodes": ui.max_nodes,
                "max_edges": ui.max_edges,
                "editor": ui.editor,
            }

        return await self.call(request, "ui_config", work, audited=False)

    async def search(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> dict[str, Any]:
            query = params.required("q")
            where = ChunkFilter(
                repo=params.text("repo"),
                language=params.text("language"),
                path_prefix=params.text("path"),
                kind=params.text("kind"),
            )
            k = params.integer("k", 10, 1, MAX_TOP_K)
            detail = params.choice("detail", ["compact", "preview", "full"], "preview")
            view = params.choice("view", list(VIEWS), "hits")
            rec.query = query
            rec.filters = {
                "repo": where.repo,
                "language": where.language,
                "path": where.path_prefix,
                "kind": where.kind,
                "k": k,
                "detail": detail,
                "view": view,
            }
            began = time.perf_counter()
            options = engine.search_options(k=k, where=where, detail=detail, view=view)
            found = engine.retrieve(query, options)
            rec.result_count = rec.evidence_count = len(found.hits)
            answer = found.code_result(rec.query_id).as_dict()
            answer["graph"] = explain_graph(engine, found.hits, limit=self.settings.ui.max_nodes)
            answer["elapsed_ms"] = round((time.perf_counter() - began) * 1000, 1)
            return answer

        return await self.call(request, "search_code", work)

    async def file(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> dict[str, Any]:
            path = params.required("path")
            repo = params.text("repo")
            start = params.integer("start", 1, 1, 10_000_000)
            end = params.integer("end", start + FILE_MAX_LINES - 1, 1, 10_000_000)
            if end < start:
                raise InputError(f"end {end} is before start {start}; swap them.")
            end = min(end, start + FILE_MAX_LINES - 1)
            rec.filters = {"path": path, "repo": repo, "start": start, "end": end}
            view = engine.open_file(path, start, end, repo=repo)
            rec.result_count = view.end_line - view.start_line + 1
            content = FileContent(
                repo=view.repo,
                path=view.path,
                start_line=view.start_line,
                end_line=view.end_line,
                total_lines=view.total_lines,
                content=view.text,
                truncated=view.end_line < view.total_lines,
                next_start_line=view.end_line + 1 if view.end_line < view.total_lines else None,
            ).as_dict()
            root = Path(engine.repo(view.repo).root)
            line = params.integer("line", view.start_line, 1, 10_000_000)
            return {
                **content,
                "html": highlight_lines(view.path, view.text),
                "stale": engine.changed_on_disk(view.repo, view.path),
                "editor_url": editor_url(
                    self.settings.ui.editor, root / view.path, line, view.repo, view.path
                ),
            }

        return await self.call(request, "open_file", work)

    async def node(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> Any:
            node = params.required("id")
            rec.query = node
            return engine.node_details(node)

        return await self.call(request, "node_details", work)

    async def expand(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> Any:
            node = params.required("id")
            direction = params.choice("direction", ["in", "out", "both"], "both")
            limit = params.integer("limit", MAX_EXPAND, 1, MAX_EXPAND)
            rec.query = node
            result = engine.traverse(
                node, depth=1, types=params.types(), direction=direction or "both", limit=limit
            )
            rec.result_count = len(result.nodes)
            return result

        return await self.call(request, "traverse_graph", work)

    async def symbols(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> dict[str, Any]:
            name = params.required("q")
            rec.query = name
            matches = engine.find_symbol(
                name,
                kind=params.text("kind"),
                repo=params.text("repo"),
                limit=params.integer("limit", 20, 1, 100),
            )
            rec.result_count = len(matches)
            return {"matches": [m.as_dict() for m in matches]}

        return await self.call(request, "find_symbol", work)

    async def explore(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> Any:
            node = params.required("id")
            relation = params.choice("relation", list(RELATIONS), "callers") or "callers"
            depth = params.integer("depth", 2, 1, MAX_DEPTH)
            types = params.types()
            rec.query = node
            rec.filters = {"relation": relation, "depth": depth, "types": types}
            if relation == "callees":  # what it calls: its dependencies along calls
                result = engine.dependencies(node, types=types or ["calls"], depth=depth)
            else:
                walk = {
                    "callers": engine.callers,
                    "dependencies": engine.dependencies,
                    "dependents": engine.dependents,
                }[relation]
                result = walk(node, types=types, depth=depth)
            rec.result_count = len(result.nodes)
            return result

        return await self.call(request, "traverse_graph", work)

    async def links(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> Any:
            via = params.choice("via", list(LINK_VIAS))
            repo = params.text("repo")
            rec.filters = {"via": via, "repo": repo}
            result = engine.links(via=via, repo=repo)
            rec.result_count = len(result.links)
            return result

        return await self.call(request, "service_links", work)

    async def status(self, request: Request) -> Response:
        def work(engine: Engine, params: Params, rec: CallRecord) -> dict[str, Any]:
            days = params.integer("days", STATUS_DAYS, 1, 3650)
            since = (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S")
            return {"index": engine.status(), "usage": engine.usage_stats(since), "days": days}

        return await self.call(request, "index_status", work)

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=_NO_CACHE)


_NO_CACHE = {"Cache-Control": "no-cache"}
_SECURITY_HEADERS = [
    # The page loads nothing from elsewhere: scripts, styles and requests stay here.
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        b"frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


def _with_headers(app: ASGIApp) -> ASGIApp:
    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        async def send_with(message: Any) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *_SECURITY_HEADERS]
            await send(message)

        await app(scope, receive, send_with)

    return wrapped


def is_public(path: str) -> bool:
    """The page's own files hold no data: they load without a token."""
    return path in ("/", "/healthz") or path.startswith("/static/")


def create_app(service: Service, *, token: str = "", warm: bool = True) -> ASGIApp:
    """The web app over `service`; behind a bearer-token check when there is a token or
    principals. With `warm`, the index and the embedding model load at start-up, so the
    first search answers as fast as the next."""
    check_editor(service.settings.ui.editor)
    web = WebApp(service)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> Any:
        await anyio.to_thread.run_sync(service.open)
        if warm:
            await anyio.to_thread.run_sync(_warm, service)
        try:
            yield
        finally:
            await anyio.to_thread.run_sync(service.close)

    endpoints: list[tuple[str, Callable[[Request], Awaitable[Response]]]] = [
        ("/api/config", web.config),
        ("/api/search", web.search),
        ("/api/file", web.file),
        ("/api/node", web.node),
        ("/api/expand", web.expand),
        ("/api/symbols", web.symbols),
        ("/api/explore", web.explore),
        ("/api/links", web.links),
        ("/api/status", web.status),
        ("/healthz", web.healthz),
        ("/", web.page),
    ]
    app: ASGIApp = Starlette(
        routes=[
            *(Route(path, endpoint, methods=["GET"]) for path, endpoint in endpoints),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )
    if token or service.principals.principals():
        app = BearerTokenAuth(app, token, service.principals, public=is_public)
    return _with_headers(app)


def _warm(service: Service) -> None:
    try:
        engine = service.engine()
        engine.embedder.embed(["warm up"])
    except CodeCompassError:
        pass  # no index yet: each call says so
