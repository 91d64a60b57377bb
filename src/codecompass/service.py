"""What the served frontends (the MCP server and the web UI) share: one engine per process,
opened on first use; who is calling (bearer tokens and principals); one engine call at a
time; the audit record of each call; and the last line of defence against secrets in
what goes out.

An HTTP frontend binds to loopback unless told otherwise, and then needs a token
(`check_http_binding`); `BearerTokenAuth` checks it on every request but the public
paths and leaves the caller's principal in the request's state (`PRINCIPAL_KEY`).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from codecompass.audit import CallRecord, render_prometheus
from codecompass.engine import Engine, find_data_dir
from codecompass.errors import AccessDeniedError, CodeCompassError, ConfigError, NotIndexedError
from codecompass.protocols import Embedder
from codecompass.security.access import Access, PrincipalFile, authenticate, principals_path
from codecompass.security.secrets import redact_secrets
from codecompass.settings import ENV_PREFIX, Settings
from codecompass.storage import index_exists

log = logging.getLogger("codecompass.service")

T = TypeVar("T")

# Who is calling: LOCAL over stdio and unauthenticated loopback HTTP, ADMIN with the
# server token, else the name of the principal whose token the request carried.
LOCAL, ADMIN = "local", "admin"
MCP_PATH = "/mcp"
UNAUTHORIZED = (
    "Missing or wrong bearer token; send 'Authorization: Bearer <token>' with your token."
)
JSONRPC_UNAUTHORIZED = -32001  # an implementation-defined server error
PRINCIPAL_KEY = "codecompass_principal"  # where BearerTokenAuth leaves it in the ASGI scope


def error_code(exc: BaseException) -> str:
    return exc.code if isinstance(exc, CodeCompassError) else "internal_error"


def redact_all(value: Any) -> Any:
    """Every string of a result with secret shapes blanked: a last line of defence for
    text that reaches a frontend from stores that do not redact (signatures of constants)."""
    if isinstance(value, str):
        return redact_secrets(value)[0]
    if isinstance(value, list):
        return [redact_all(item) for item in value]
    if isinstance(value, dict):
        return {key: redact_all(item) for key, item in value.items()}
    return value


EMPTY_STATS: dict[str, Any] = {
    "tools": {},
    "no_hit_rate": None,
    "evidence_rate": None,
    "provider_errors": {},
    "indexing": {
        "runs_by_status": {},
        "totals": {"files_indexed": 0, "chunks_added": 0, "texts_embedded": 0},
    },
}


class Service:
    """What one serving process holds: settings, the engine (and through it the audit
    store), the principals file, and the limiter that serialises engine calls."""

    def __init__(
        self, settings: Settings, *, embedder: Embedder | None = None, transport: str = "stdio"
    ) -> None:
        self.settings = settings
        self.transport = transport
        self._embedder = embedder
        self._engine: Engine | None = None
        self._opening = threading.Lock()
        self.principals = PrincipalFile(principals_path(settings))
        # The engine's connections and caches are not made for concurrent callers.
        self.limiter = anyio.CapacityLimiter(1)

    def engine(self) -> Engine:
        """The engine, opened on first use once an index exists."""
        with self._opening:
            if self._engine is None:
                if not index_exists(self.settings):
                    raise NotIndexedError(
                        f"No index in {self.settings.data_dir} yet; run `codecompass index "
                        f"PATH --data-dir {self.settings.data_dir}`, then call again (no "
                        "restart needed)."
                    )
                self._engine = Engine(self.settings, embedder=self._embedder)
            return self._engine

    def open(self) -> None:
        """Open the index now if there is one; a problem is reported by each call
        (not_indexed, data_dir, …) rather than stopping the server."""
        try:
            self.engine().backend  # noqa: B018  (opens storage and applies migrations once)
        except NotIndexedError:
            pass
        except CodeCompassError as exc:
            log.warning("The index is not usable yet: %s", exc)
            self.close()

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def audit(self, rec: CallRecord) -> None:
        """Keep the call's record once the index exists (calls before it go unrecorded)."""
        if self._engine is None and not index_exists(self.settings):
            return
        entry = rec.entry(log_queries=self.settings.server.log_queries)
        self.engine().backend.audit.record(entry)

    async def write_audit(self, rec: CallRecord) -> None:
        try:
            await anyio.to_thread.run_sync(self.audit, rec)
        except Exception:  # the audit must never fail a call
            log.exception("could not write the audit record")

    def access_of(self, name: str) -> Access:
        """What the principal `name` (or LOCAL, ADMIN) may read."""
        if name in (LOCAL, ADMIN):
            return Access(name)
        principal = self.principals.named(name)
        if principal is None:  # removed from the file since the request was authenticated
            raise AccessDeniedError(f"The principal {name!r} no longer exists; ask for a token.")
        return principal.access()

    async def run_as(self, access: Access, work: Callable[[Engine], T]) -> T:
        """`work` on the engine as `access` sees it, in a worker thread, one at a time."""
        return await anyio.to_thread.run_sync(
            lambda: work(self.engine().scoped(access)), limiter=self.limiter
        )

    def metrics_text(self) -> str:
        if not index_exists(self.settings):
            return render_prometheus(EMPTY_STATS)
        return render_prometheus(self.engine().usage_stats())


# -- HTTP -------------------------------------------------------------------------------
def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_http_binding(host: str, token: str, principals: bool = False) -> None:
    if not is_loopback(host) and not token and not principals:
        raise ConfigError(
            f"Binding to {host} exposes the index beyond this machine, so a bearer token is "
            "required: set CODECOMPASS_SERVER_TOKEN to a long random secret (e.g. the output "
            "of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)."
        )
    if token and len(token) < 16:
        raise ConfigError("The server token is shorter than 16 characters; use a longer one.")


def run_http(app: ASGIApp, host: str, port: int, started: Callable[[str, int], None]) -> None:
    """Serve `app` with uvicorn until the process is stopped; `started(host, port)` runs
    once the socket listens (port 0 takes a free port, which it names)."""
    import uvicorn

    server = uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    )

    async def run() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve)
            while not server.started:
                if server.should_exit:
                    return
                await anyio.sleep(0.05)
            sockets = [s for srv in server.servers for s in (srv.sockets or [])]
            bound = sockets[0].getsockname() if sockets else (host, port)
            started(str(bound[0]), int(bound[1]))

    anyio.run(run)


def only_healthz(path: str) -> bool:
    return path == "/healthz"


class BearerTokenAuth:
    """ASGI wrapper: every HTTP request but the `public` paths must carry `Authorization:
    Bearer <token>`: the server's own token (full access, principal "admin") or a
    principal's (its scopes). The principal's name goes to the request's state."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        principals: PrincipalFile,
        public: Callable[[str], bool] = only_healthz,
    ) -> None:
        self.app = app
        self.expected = token.encode() if token else None
        self.principals = principals
        self.public = public

    def principal(self, header: bytes) -> str | None:
        scheme, _, given = header.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not given:  # the scheme in any case (RFC 7235)
            return None
        token = given.strip().encode("latin-1")
        if self.expected is not None and hmac.compare_digest(token, self.expected):
            return ADMIN
        found = authenticate(given.strip(), self.principals.principals())
        return found.name if found is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.public(scope.get("path", "")):
            given = next((v for k, v in scope.get("headers", []) if k == b"authorization"), b"")
            principal = self.principal(given)
            if principal is None:
                response = _unauthorized(scope.get("path", ""))
                await response(scope, receive, send)
                return
            scope.setdefault("state", {})[PRINCIPAL_KEY] = principal
        await self.app(scope, receive, send)


def _unauthorized(path: str) -> JSONResponse:
    """401: on the MCP endpoint a JSON-RPC error, which MCP clients show their user (a
    body of another shape only gives them the status); elsewhere the web API's error."""
    if path.startswith(MCP_PATH):
        error = {
            "code": JSONRPC_UNAUTHORIZED,
            "message": UNAUTHORIZED,
            "data": {"code": "unauthorized"},
        }
        body: dict[str, object] = {"jsonrpc": "2.0", "id": None, "error": error}
    else:
        body = {"error": {"code": "unauthorized", "message": UNAUTHORIZED}}
    return JSONResponse(
        body, status_code=401, headers={"WWW-Authenticate": 'Bearer realm="codecompass"'}
    )


def data_dir_for_serve(data_dir: Path | None) -> Path | None:
    """--data-dir, else $CODECOMPASS_DATA_DIR (left to the settings), else the nearest
    index from the current folder up, else `.codecompass/` here (indexed later)."""
    if data_dir is not None or os.environ.get(f"{ENV_PREFIX}DATA_DIR"):
        return data_dir
    return find_data_dir(Path.cwd().resolve())
