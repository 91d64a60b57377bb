"""A small auth service indexed once with the real model, an estate of six services
linked by HTTP, rpc, an sdk and events (the graph tests' fixtures), the web app served
from a thread on a free loopback port, and Debian's chromium driven by Playwright (no
browser download). Without chromium or Playwright the browser tests skip, unless
CODECOMPASS_TEST_BROWSER=required (set by `.ci/run`), where they fail instead."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from codecompass.embedders import create_embedder
from codecompass.engine import Engine
from codecompass.protocols import Embedder
from codecompass.service import Service
from codecompass.settings import Settings, UISettings, load_settings
from codecompass.web import create_app
from tests.conftest import TinyEmbedder, make_git_repo
from tests.graph.helpers import add_fixture, workspace

GITHUB_TOKEN = "ghp_" + "Q" * 36

TOKENS = '''"""Bearer tokens: parse the header and check the token."""

import hmac


class TokenError(Exception):
    """Raised when a token is missing or wrong."""


def parse_header(header: str) -> str:
    """The token of an Authorization header."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        raise TokenError("not a bearer token")
    return token


def verify_token(token: str, expected: str) -> bool:
    """Check a bearer token against the expected one in constant time."""
    return hmac.compare_digest(token, expected)
'''

HANDLERS = '''"""HTTP handlers that need a valid token."""

from auth.tokens import TokenError, parse_header, verify_token


class Handler:
    """Base handler: authorizes each request."""

    def authorize(self, header: str, expected: str) -> bool:
        token = parse_header(header)
        if not verify_token(token, expected):
            raise TokenError("wrong token")
        return True


def get_user(handler: Handler, header: str) -> dict[str, str]:
    """Return the current user once the token is checked."""
    handler.authorize(header, "user-token")
    return {"name": "ada"}
'''

ADMIN = '''"""Admin-only handlers."""

from api.handlers import Handler


class AdminHandler(Handler):
    """Handlers for administrators."""

    def delete_user(self, header: str, name: str) -> bool:
        self.authorize(header, "admin-token")
        return bool(name)
'''


# Typed overloads: three definitions of one name, walked together by the explorer.
FMT = '''"""Formatting of values for responses."""

from typing import overload


@overload
def describe(value: int) -> str: ...
@overload
def describe(value: str) -> str: ...
def describe(value):
    return str(value)


def banner(name):
    return describe(name)
'''


@dataclass(frozen=True)
class Site:
    repo: Path
    data: Path


@pytest.fixture(scope="session")
def onnx() -> Embedder:
    return create_embedder("onnx")


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory, onnx: Embedder) -> Site:
    base = tmp_path_factory.mktemp("web")
    repo = make_git_repo(
        base / "authsvc",
        {
            "auth/tokens.py": TOKENS,
            "api/handlers.py": HANDLERS,
            "api/admin.py": ADMIN,
            "config/settings.py": f'"""Settings."""\n\nGITHUB_TOKEN = "{GITHUB_TOKEN}"\n',
            "api/fmt.py": FMT,
            "db/report.sql": "CREATE FUNCTION order_count(uid BIGINT) RETURNS BIGINT AS $$\n"
            "    SELECT COUNT(*) FROM orders WHERE user_id = uid;\n$$ LANGUAGE SQL;\n",
        },
    )
    data = base / "data"
    engine, root = Engine.for_repo(repo, data_dir=data, embedder=onnx)
    with engine:
        engine.index(root)
    return Site(repo, data)


def settings_for(data: Path, **ui: Any) -> Settings:
    settings = load_settings(data, environ={})
    return dataclasses.replace(settings, ui=dataclasses.replace(UISettings(), **ui))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Running:
    url: str
    settings: Settings

    def get(self, path: str, token: str | None = None) -> tuple[int, Any]:
        """GET `path`: (status, parsed JSON)."""
        request = urllib.request.Request(self.url + path)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


def start(settings: Settings, embedder: Embedder, token: str = "") -> Iterator[Running]:
    """The web app in a thread on a free port, until the generator is closed."""
    app = create_app(Service(settings, embedder=embedder, transport="web"), token=token)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web app did not start")
        time.sleep(0.05)
    try:
        yield Running(f"http://127.0.0.1:{port}", settings)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="session")
def web(site: Site, onnx: Embedder) -> Iterator[Running]:
    yield from start(settings_for(site.data), onnx)


# The graph tests' service estates (tests/fixtures/graph/), as repository name → fixture:
# 4 http links and an sdk one (web → api), 4 rpc (storefront → checkout, checkout's
# servicer → its .proto), 5 event (shop → billing).
ESTATE = {
    "api": "crossrepo/api",
    "web": "crossrepo/web",
    "shop": "services/kafka/shop",
    "billing": "services/kafka/billing",
    "checkout": "services/grpc/checkout",
    "storefront": "services/grpc/storefront",
}


@pytest.fixture(scope="session")
def estate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The estate indexed for real (the tiny embedder: links do not need the model);
    its data folder."""
    base = tmp_path_factory.mktemp("estate")
    with workspace(base) as engine:
        for name, fixture in ESTATE.items():
            add_fixture(engine, base, fixture, name)
    return base / "data"


@pytest.fixture(scope="session")
def linked(estate: Path) -> Iterator[Running]:
    """The web app over the estate."""
    yield from start(settings_for(estate), TinyEmbedder())


def chromium_path() -> str | None:
    return os.environ.get("CODECOMPASS_TEST_CHROMIUM") or shutil.which("chromium")


# Module scope: Playwright's sync API keeps an event loop running in the main thread
# while it is open, which would break any later test that starts one (anyio.run).
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    reason = None
    path = chromium_path()
    if path is None:
        reason = "chromium is not installed (apt-get install chromium)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "Playwright is not installed (pip install -e '.[dev]')"
    if reason is not None:
        if os.environ.get("CODECOMPASS_TEST_BROWSER") == "required":
            pytest.fail(f"A browser is required here but {reason}")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield opened
    finally:
        context.close()
    assert errors == [], errors  # no script error on any page a test visits
