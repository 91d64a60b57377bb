"""End to end: secrets planted in ordinary source and config files are redacted before
anything is stored, so no byte of them is in the data folder, and no channel returns them.

The repository holds 15 secrets in shapes a plain token-prefix redactor misses (passwords,
URL credentials, a Django key, an AWS secret key, Stripe and Slack, bearer tokens, random
keys assigned to secret names), across Python, a Django settings file, JavaScript,
TypeScript, YAML, JSON and a committed `.env.example`.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import Engine
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder, make_git_repo

# Built from pieces so that this file itself does not look like it holds live secrets.
SECRETS = {
    "django_key": "django-insecure-" + "q7v!x2#l9@m4$k8^w3&z6*p1",
    "django_db_password": "Tr0ub4dor" + "-3xQ",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
    "db_url_password": "hunter2" + "pass",
    "docstring_url_password": "S3cret" + "AdminPw",
    "http_call_password": "Vn7kQ2x" + "Pz9Lw",
    "stripe": "sk_" + "live_51HxQ2eK8vL3mN9pR4sT6uW0y",
    "slack_webhook": "T024BE7LD/B01ABCDEF12/" + "Xy9zAb3Cd5Ef7Gh9Ij1Kl3Mn",
    "bearer": "Zx8Cv7Bn6Mq5" + "Wl4Ek3Rj2Th1",
    "yaml_password": "Pg-8842" + "-prodX",
    "yaml_client_secret": "Qw3rTy7UiOp1" + "AsDf9GhJk2Lz",
    "env_password": "envExample" + "Pw42",
    "env_token": "a9f8e7d6c5b4a3f2" + "e1d0c9b8a7f6e5d4",
    "json_password": "jsonPa55" + "word!",
    "ts_api_key": "K7xP2mQ9vL4n" + "R8tZ3wY6",
}
assert len(SECRETS) == 15

FILES = {
    "config/settings.py": f'''"""Django settings for the shop."""

SECRET_KEY = '{SECRETS["django_key"]}'

DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "shop",
        "USER": "shop",
        "PASSWORD": "{SECRETS["django_db_password"]}",
    }}
}}

AWS_SECRET_ACCESS_KEY = "{SECRETS["aws_secret"]}"
''',
    "shop/db.py": f'''"""Database access for orders."""

DATABASE_URL = "postgres://app:{SECRETS["db_url_password"]}@db:5432/app"


def connect_orders_database(url: str = DATABASE_URL) -> str:
    """Open the orders database (admin: postgres://admin:{SECRETS["docstring_url_password"]}@db/app)."""
    return url
''',
    "shop/client.py": f'''"""Calls to the internal order service."""

import requests


def fetch_open_orders() -> list[dict[str, str]]:
    """Fetch the open orders from the internal service."""
    response = requests.get("https://svc:{SECRETS["http_call_password"]}@internal.example.com/api/orders")
    return response.json()
''',
    "web/payments.js": f"""// Charge cards through Stripe and report to Slack.
const stripe = require("stripe")("{SECRETS["stripe"]}");
const SLACK_URL = "https://hooks.slack.com/services/{SECRETS["slack_webhook"]}";

export async function chargeOrder(order) {{
  await fetch("/api/charges", {{
    method: "POST",
    headers: {{ Authorization: "Bearer {SECRETS["bearer"]}" }},
  }});
  return stripe.charges.create({{ amount: order.total }});
}}
""",
    "web/auth.ts": f"""/** Keys for the partner API. */
export const apiKey = "{SECRETS["ts_api_key"]}";

export function partnerHeaders(): Record<string, string> {{
  return {{ "X-Api-Key": apiKey }};
}}
""",
    "deploy/values.yaml": f"""# Helm values for the shop
database:
  host: db
  password: {SECRETS["yaml_password"]}
oauth:
  client_id: shop-web
  client_secret: "{SECRETS["yaml_client_secret"]}"
""",
    ".env.example": f"DB_PASSWORD={SECRETS['env_password']}\nAPI_TOKEN={SECRETS['env_token']}\n",
    "config/app.json": json.dumps(
        {"database": {"user": "shop", "password": SECRETS["json_password"]}}, indent=2
    )
    + "\n",
}

QUERIES = [
    "Django settings SECRET_KEY DATABASES PASSWORD AWS_SECRET_ACCESS_KEY",
    "database url connect orders database",
    "fetch open orders internal service",
    "charge order stripe slack Authorization Bearer",
    "partner api key headers",
    "helm values database password oauth client secret",
    "DB_PASSWORD API_TOKEN",
    "database user password json",
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("planted")
    repo = make_git_repo(base / "shop", FILES)
    data = base / "data"
    result = CliRunner().invoke(main, ["index", str(repo), "--data-dir", str(data), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["new"] == len(FILES)
    return repo, data


def leaked(text: str) -> list[str]:
    return sorted(name for name, value in SECRETS.items() if value in text)


def dump(value: Any) -> str:
    """Every string a result holds, as one text (pydantic models, dataclasses, lists)."""

    def plain(item: Any) -> Any:
        if hasattr(item, "model_dump"):
            return item.model_dump()
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            return dataclasses.asdict(item)
        return repr(item)

    return json.dumps(value, default=plain, ensure_ascii=False)


def test_no_secret_byte_is_stored_in_the_data_folder(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    files = [p for p in data.rglob("*") if p.is_file()]
    assert any(p.name == "index.sqlite" for p in files)
    found = {
        name: [str(p.relative_to(data)) for p in files if value.encode() in p.read_bytes()]
        for name, value in SECRETS.items()
    }
    assert {name: where for name, where in found.items() if where} == {}


def test_search_results_hold_no_secret(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    with Engine.open(data) as engine:
        hits = [hit for q in QUERIES for hit in engine.search(q, k=50, detail="full")]
        paths = {hit.path for hit in hits}
        assert paths == set(FILES)  # every planted file came back, so the check has teeth
        assert leaked(dump(hits)) == []
        assert leaked(dump([engine.ask(q) for q in QUERIES])) == []


def test_open_file_holds_no_secret_and_keeps_line_numbers(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    with Engine.open(data) as engine:
        for path, text in FILES.items():
            view = engine.open_file(path)
            assert view.total_lines == len(text.splitlines())
            assert leaked(view.text) == [], path
            assert len(view.text.splitlines()) == len(text.splitlines())


def test_symbols_and_overview_hold_no_secret(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    with Engine.open(data) as engine:
        names = [
            "SECRET_KEY",
            "DATABASES",
            "AWS_SECRET_ACCESS_KEY",
            "DATABASE_URL",
            "connect_orders_database",
            "fetch_open_orders",
            "apiKey",
            "chargeOrder",
        ]
        matches = [m for name in names for m in engine.find_symbol(name)]
        assert {"SECRET_KEY", "DATABASE_URL", "AWS_SECRET_ACCESS_KEY"} <= {m.name for m in matches}
        assert leaked(dump(matches)) == []
        assert leaked(dump(engine.repo_overview(budget_tokens=20_000))) == []


def test_cli_search_and_open_print_no_secret(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    runner = CliRunner()
    outputs: list[str] = []
    for query in QUERIES:
        for extra in (["--json", "--detail", "full"], ["--detail", "full"]):
            args = ["search", query, "--data-dir", str(data), "-k", "50", *extra]
            result = runner.invoke(main, args)
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
    for path in FILES:
        for extra in (["--json"], []):
            result = runner.invoke(main, ["open", path, "--data-dir", str(data), *extra])
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
    assert leaked("\n".join(outputs)) == []


KEY_MODULE = """\"\"\"Signing keys.\"\"\"

TEST_KEY = \"\"\"-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB
aFDrBz9vFqU4yN3BkLhDqFjM5HFf1a9xP1yUQ0lVJz1o2Q==
-----END RSA PRIVATE KEY-----\"\"\"
DB_PASSWORD = "hunter2pass"


def sign_payload(payload: bytes) -> bytes:
    \"\"\"Sign with TEST_KEY.\"\"\"
    return payload
"""


def test_redacted_files_keep_their_line_numbers(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "keys", {"keys.py": KEY_MODULE})
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        engine.add_repo(repo, name="keys")
        (symbol,) = engine.find_symbol("sign_payload")
        hits = engine.search("sign payload", k=10, detail="full")
    lines = KEY_MODULE.split("\n")
    assert lines[symbol.start_line - 1] == "def sign_payload(payload: bytes) -> bytes:"
    hit = next(h for h in hits if h.symbol == "sign_payload")
    assert (hit.start_line, hit.end_line) == (symbol.start_line, symbol.end_line)
    stored = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    assert b"MIIEowIBAAKCAQEA" not in stored and b"hunter2pass" not in stored


def test_open_file_from_inside_a_key_block_shows_no_key(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "keys", {"keys.py": KEY_MODULE})
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        engine.add_repo(repo, name="keys")
        for start in (3, 4, 5):  # the block's first line, then lines inside it
            view = engine.open_file("keys.py", start, 6)
            assert "MIIEowIBAAKCAQEA" not in view.text and "aFDrBz9vFqU4" not in view.text
            assert view.text.count("\n") == 6 - start  # line numbers hold
