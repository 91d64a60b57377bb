"""Load on the server backend: N concurrent MCP clients over streamable HTTP while an
indexer rewrites a file again and again, with a principal allowed one repository only.

Setup (all in a temporary folder): a throwaway PostgreSQL cluster (or --postgres-url),
two repositories, `public` and `vault`, the second planted with canary strings; both
indexed into one server workspace (vectors in PostgreSQL, or in the Qdrant server at
--qdrant-url); a principal `reader` whose token allows `public` only; `codecompass serve
--http` in its own process. Then, for --seconds:

- an indexer process loop rewrites `public/churn.py`, every function of which carries
  the same `MARKER_<n>` for round n, and runs `codecompass index` on it;
- each client runs its own MCP session with the reader's token and calls search_code,
  open_file, find_symbol, get_callers, traverse_graph, ask_code, repo_overview and
  index_status in turn.

It reports calls, throughput, p50/p95 per tool and overall, and three counts that must
be zero: errors (a tool error or an exception), mixed (one answer showing two versions
of churn.py: a half-indexed file), leaks (a canary, a `vault` path or node in an answer).

    .venv/bin/python benchmarks/mcp_load.py [--clients 8] [--seconds 60] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from codecompass.evaluation.metrics import percentile  # noqa: E402
from codecompass.security.access import add_principal  # noqa: E402

CANARY = "CANARYVAULT7Q"
MARKER = re.compile(r"MARKER_(\d+)")
FUNCTIONS = 5
ADMIN_TOKEN = "load-test-admin-token-0123456789"

PUBLIC = {
    "app/orders.py": '''"""Orders: placing, cancelling and pricing."""


def place_order(cart, customer):
    """Place an order for the items in the cart."""
    total = price_cart(cart)
    return {"customer": customer, "total": total}


def cancel_order(order):
    """Cancel an open order."""
    order["status"] = "cancelled"
    return order


def price_cart(cart):
    """Sum the prices of the items in a cart."""
    return sum(item["price"] for item in cart)
''',
    "app/users.py": '''"""Users and their sessions."""

from app.orders import place_order


def checkout(user, cart):
    """Check a user's cart out into an order."""
    return place_order(cart, user["name"])
''',
}
VAULT = {
    "vault/keys.py": f'''"""{CANARY} vault keys module."""


def rotate_keys_{CANARY.lower()}(store):
    """Rotate every key in the store ({CANARY})."""
    return [k for k in store]
''',
    f"vault/{CANARY.lower()}_orders.py": f'''"""Orders of the vault, {CANARY}."""


def place_order_{CANARY.lower()}(cart):
    """Place an order for the vault ({CANARY})."""
    return cart
''',
}


def churn_source(n: int) -> str:
    """churn.py at round n: every function names the round's marker."""
    parts = ['"""Churned on every round of the indexer."""\n']
    for f in range(FUNCTIONS):
        parts.append(
            f"\n\ndef churn_step_{f}(value):\n"
            f'    """Churn step {f}: apply round MARKER_{n} to the value."""\n'
            f'    return (value, "MARKER_{n}", {f})\n'
        )
    return "".join(parts)


def write_repo(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def codecompass(data: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codecompass", *args, "--data-dir", str(data)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )


@contextmanager
def server(data: Path, env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "codecompass", "serve", "--http", "--port", str(port)]
        + ["--data-dir", str(data)],
        env={**env, "CODECOMPASS_SERVER_TOKEN": ADMIN_TOKEN},
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    line = ""
    while "MCP server on" not in line:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start: {proc.stderr.read()}")
        line = proc.stderr.readline()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


class Indexer(threading.Thread):
    """Rewrites churn.py and indexes `public`, round after round, until stopped."""

    def __init__(self, repo: Path, data: Path, env: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.repo, self.data, self.env = repo, data, env
        self.rounds = 0
        self.failures: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            n = self.rounds + 1
            write_atomically(self.repo / "churn.py", churn_source(n))
            try:
                codecompass(self.data, "index", str(self.repo), "--name", "public", env=self.env)
            except subprocess.CalledProcessError as exc:
                self.failures.append(exc.stderr[-500:])
                return
            self.rounds = n


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_code", {"query": "churn step marker round", "top_k": 10}),
    ("search_code", {"query": "place an order for the items", "top_k": 8}),
    ("open_file", {"path": "churn.py"}),
    ("find_symbol", {"name": "place_order"}),
    ("get_callers", {"symbol": "place_order"}),
    ("traverse_graph", {"start": "app/orders.py", "depth": 2, "direction": "both"}),
    ("ask_code", {"query": "how is an order placed?", "top_k": 5}),
    ("repo_overview", {"budget_tokens": 800}),
    ("index_status", {}),
    ("search_code", {"query": f"vault keys rotate {CANARY}", "top_k": 10}),
]


def check(tool: str, result: Any) -> tuple[bool, bool, bool, bool]:
    """(error, mixed, leak, showed churn.py) of one answer."""
    text = json.dumps(result.structured_content) + " ".join(
        getattr(block, "text", "") for block in result.content
    )
    leak = CANARY in text or CANARY.lower() in text or '"vault/' in text or "vault/" in text
    markers = set(MARKER.findall(text))
    if tool == "index_status":
        markers = set()  # status lists changed files, not contents
    return bool(result.is_error), len(markers) > 1, leak, bool(markers)


async def client_loop(
    url: str, token: str, until: float, offset: int, samples: list[tuple[str, float]]
) -> dict[str, Any]:
    errors: list[str] = []
    mixed = leaks = calls = churned = 0
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        i = offset
        while time.monotonic() < until:
            tool, args = CALLS[i % len(CALLS)]
            i += 1
            began = time.perf_counter()
            try:
                result = await client.call_tool(tool, args)
            except Exception as exc:  # a transport failure counts as an error
                errors.append(f"{tool}: {type(exc).__name__}: {exc}")
                continue
            samples.append((tool, (time.perf_counter() - began) * 1000))
            calls += 1
            error, mix, leak, churn = check(tool, result)
            if error:
                errors.append(f"{tool}: {json.dumps(result.structured_content)[:300]}")
            mixed += mix
            leaks += leak
            churned += churn
    return {"calls": calls, "errors": errors, "mixed": mixed, "leaks": leaks, "churned": churned}


async def admin_sees_the_canary(url: str) -> bool:
    """The control: the canary is there to find, for a token allowed to read it."""
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        result = await client.call_tool("search_code", CALLS[-1][1])
    return check("search_code", result)[2]


def run(args: argparse.Namespace) -> dict[str, Any]:
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        url = args.postgres_url
        if not url:
            from tests.pg import cluster

            url = stack.enter_context(cluster()).url()
        public, vault, data = tmp / "public", tmp / "vault", tmp / "data"
        write_repo(public, {**PUBLIC, "churn.py": churn_source(0)})
        write_repo(vault, VAULT)
        data.mkdir()
        storage = [
            "[storage]",
            'backend = "server"',
            f'postgres_url = "{url}"',
            f'workspace = "load-{os.getpid()}"',
        ]
        if args.qdrant_url:
            storage.append(f'qdrant_url = "{args.qdrant_url}"')
        (data / "config.toml").write_text("\n".join(storage) + "\n", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPASS_")}
        began = time.perf_counter()
        codecompass(data, "repo", "add", str(public), "--name", "public", env=env)
        codecompass(data, "repo", "add", str(vault), "--name", "vault", env=env)
        setup_s = time.perf_counter() - began
        token = add_principal(data / "principals.toml", "reader", ["public"])
        url_mcp = stack.enter_context(server(data, env))
        indexer = Indexer(public, data, env)
        samples: list[tuple[str, float]] = []

        async def clients() -> list[dict[str, Any]]:
            until = time.monotonic() + args.seconds
            results: list[dict[str, Any]] = [{} for _ in range(args.clients)]

            async def one(n: int) -> None:
                results[n] = await client_loop(url_mcp, token, until, n, samples)

            async with anyio.create_task_group() as tg:
                for n in range(args.clients):
                    tg.start_soon(one, n)
            return results

        indexer.start()
        started = time.perf_counter()
        per_client = anyio.run(clients)
        elapsed = time.perf_counter() - started
        indexer.stop.set()
        indexer.join(timeout=300)
        control = anyio.run(admin_sees_the_canary, url_mcp)

    by_tool: dict[str, list[float]] = {}
    for tool, ms in samples:
        by_tool.setdefault(tool, []).append(ms)
    everything = sorted(ms for _, ms in samples)
    errors = [e for r in per_client for e in r["errors"]]
    return {
        "clients": args.clients,
        "seconds": round(elapsed, 1),
        "setup_seconds": round(setup_s, 1),
        "vectors": "qdrant" if args.qdrant_url else "postgres",
        "calls": sum(r["calls"] for r in per_client),
        "throughput_per_s": round(sum(r["calls"] for r in per_client) / elapsed, 1),
        "p50_ms": round(percentile(everything, 50), 1),
        "p95_ms": round(percentile(everything, 95), 1),
        "tools": {
            tool: {
                "calls": len(v),
                "p50_ms": round(percentile(sorted(v), 50), 1),
                "p95_ms": round(percentile(sorted(v), 95), 1),
            }
            for tool, v in sorted(by_tool.items())
        },
        "index_rounds": indexer.rounds,
        "indexer_failures": indexer.failures,
        "errors": len(errors),
        "error_examples": errors[:5],
        "mixed": sum(r["mixed"] for r in per_client),
        "answers_showing_churn": sum(r["churned"] for r in per_client),
        "leaks": sum(r["leaks"] for r in per_client),
        "admin_sees_canary": control,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--postgres-url", default="")
    parser.add_argument("--qdrant-url", default=os.environ.get("QDRANT_URL", ""))
    parser.add_argument("--json", action="store_true", help="print the report as JSON only")
    args = parser.parse_args()
    report = run(args)
    if args.json:
        print(json.dumps(report))
        return
    print(
        f"{report['clients']} clients for {report['seconds']} s over streamable HTTP, "
        f"vectors in {report['vectors']}; {report['index_rounds']} index rounds meanwhile"
    )
    print(
        f"calls {report['calls']}  throughput {report['throughput_per_s']}/s  "
        f"p50 {report['p50_ms']} ms  p95 {report['p95_ms']} ms"
    )
    for tool, t in report["tools"].items():
        print(f"  {tool:16} {t['calls']:5} calls  p50 {t['p50_ms']:7.1f}  p95 {t['p95_ms']:7.1f}")
    print(
        f"errors {report['errors']}  mixed versions {report['mixed']} (of "
        f"{report['answers_showing_churn']} answers showing churn.py)  leaks {report['leaks']} "
        f"(the admin token finds the canary: {report['admin_sees_canary']})  "
        f"indexer failures {len(report['indexer_failures'])}"
    )
    for example in report["error_examples"]:
        print("  error:", example)


if __name__ == "__main__":
    main()
