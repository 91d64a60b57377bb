"""A small shop repository indexed once with the real model, planted with things no tool
may ever return (each carries a canary string), plus helpers to drive the server."""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult

from codecompass.embedders import create_embedder
from codecompass.engine import Engine
from codecompass.mcp_server import ServerState, build_server
from codecompass.protocols import Embedder
from codecompass.settings import Settings, load_settings
from tests.conftest import git, make_git_repo

T = TypeVar("T")

SERVICE = '''"""Orders service."""

from decimal import Decimal


class OrderBook:
    """Keeps open orders by id."""

    def __init__(self) -> None:
        self.orders: dict[str, Decimal] = {}

    def add(self, order_id: str, amount: Decimal) -> None:
        """Record an order."""
        self.orders[order_id] = amount

    def cancel(self, order_id: str) -> bool:
        """Remove an order; return whether it existed."""
        return self.orders.pop(order_id, None) is not None


def parse_amount(text: str) -> Decimal:
    """Turn user input such as '12.50' into a Decimal."""
    return Decimal(text.strip())
'''

CHECKOUT = '''"""Checkout flow."""

from orders.service import OrderBook, parse_amount


def checkout(book: OrderBook, order_id: str, raw: str) -> bool:
    """Charge the amount, then close the order."""
    amount = parse_amount(raw)
    book.add(order_id, amount)
    return book.cancel(order_id)
'''

GITHUB_TOKEN = "ghp_" + "Q" * 36
CANARIES = (
    "CANARY-ENV",
    "CANARY-PEM",
    "CANARY-YAML",
    "CANARY-BLOCKED",
    "CANARY-BIG",
    "CANARY-BIN",
    "CANARY-OUTSIDE",
    "CANARY-GITCONFIG",
    "root:x:0:0",
    GITHUB_TOKEN,
)


@dataclass(frozen=True)
class Shop:
    repo: Path
    data: Path
    outside: Path


def plant_shop(base: Path) -> Shop:
    repo = make_git_repo(
        base / "shop",
        {
            "orders/service.py": SERVICE,
            "orders/checkout.py": CHECKOUT,
            "config/settings.py": f'"""Settings."""\n\nGITHUB_TOKEN = "{GITHUB_TOKEN}"\n',
            "docs/guide.md": "# Guide\n\n## Cancelling\n\nCall `OrderBook.cancel` to drop it.\n",
            ".env": "API_KEY=CANARY-ENV-hunter2\n",
            "keys/server.pem": "-----BEGIN PRIVATE KEY-----\nCANARY-PEM\n-----END PRIVATE KEY",
            "config/secrets.yaml": "password: CANARY-YAML\n",
            "private/notes.py": "NOTE = 'CANARY-BLOCKED'\n",
            "big.txt": "CANARY-BIG\n" * 6000,
        },
    )
    (repo / "blob.bin").write_bytes(b"\x00CANARY-BIN\n")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("CANARY-OUTSIDE\n", encoding="utf-8")
    os.symlink(outside / "secret.txt", repo / "link_out")
    os.symlink(outside, repo / "linkdir")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "binary and links")
    with (repo / ".git" / "config").open("a", encoding="utf-8") as handle:
        handle.write("# CANARY-GITCONFIG\n")
    data = base / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        '[index]\nmax_file_bytes = 50000\nblock = ["private/**"]\n', encoding="utf-8"
    )
    return Shop(repo, data, outside)


@pytest.fixture(scope="session")
def onnx() -> Embedder:
    return create_embedder("onnx")


@pytest.fixture(scope="session")
def shop(tmp_path_factory: pytest.TempPathFactory, onnx: Embedder) -> Shop:
    planted = plant_shop(tmp_path_factory.mktemp("mcp"))
    engine, root = Engine.for_repo(planted.repo, data_dir=planted.data, embedder=onnx)
    with engine:
        engine.index(root)
    return planted


def settings_for(data: Path, **sections: Any) -> Settings:
    import dataclasses

    return dataclasses.replace(load_settings(data, environ={}), **sections)


def run_client(state: ServerState, body: Callable[[Client], Awaitable[T]], **client_args: Any) -> T:
    """Connect the SDK's in-memory client to a fresh server over `state` and run `body`."""

    async def main() -> T:
        async with Client(build_server(state), **client_args) as client:
            return await body(client)

    return anyio.run(main)


def text_of(result: CallToolResult) -> str:
    """Everything a client receives from one call, as one string (for leak checks)."""
    blocks = [getattr(block, "text", "") for block in result.content]
    return "\n".join(blocks) + json.dumps(result.structured_content)


def error_of(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error, text_of(result)
    assert result.structured_content is not None
    error: dict[str, Any] = result.structured_content["error"]
    return error
