"""HTTP links through a settings object and from clients taking an options object.

The estate (tests/fixtures/graph/services/settings/) is a FastAPI service whose
prefixes are class-level defaults of a `Config` read through `config = Config()`, its
tests calling it with `f"{config.API_PREFIX}/…"`, and a TypeScript web client whose
calls state the URL as `url:` of an object (generated SDKs, axios). Decoys: prefixes
set at run time (on the object, in `__init__`, by a constructor keyword) stay unknown;
an object with a `url` given to something that is not an HTTP client does not link."""

from __future__ import annotations

from pathlib import Path

from tests.graph.helpers import add_fixture, recall, workspace
from tests.graph.test_service_links import Link, http_links

R = "service/app/routers"
T = "service/tests/test_api.py"
W = "web/src/sdk.ts"
SERVICE_LINKS = {
    # include_router(accounts.router, prefix=config.API_PREFIX), `API_PREFIX: str = …`
    (f"{T}#test_read_account", f"{R}/accounts.py#read_account", "GET", "/api/v2/accounts/{}",
     0.8, "template", 10, "app/routers/accounts.py", 6),
    (f"{T}#test_read_me", f"{R}/accounts.py#read_me", "GET", "/api/v2/accounts/me", 0.9,
     "literal", 14, "app/routers/accounts.py", 11),
    # config.API_PREFIX + "/accounts/"
    (f"{T}#test_open_account", f"{R}/accounts.py#open_account", "POST", "/api/v2/accounts",
     0.9, "literal", 18, "app/routers/accounts.py", 16),
    # `config.ADMIN_PREFIX = os.environ[…]` in main.py: unknown on both sides
    (f"{T}#test_admin_stats", f"{R}/admin.py#stats", "GET", "/stats", 0.5, "unknown-prefix",
     22, "app/routers/admin.py", 6),
    # `self.AUDIT_PREFIX = …` in Config.__init__
    (f"{T}#test_audit_events", f"{R}/audit.py#events", "GET", "/events", 0.5,
     "unknown-prefix", 26, "app/routers/audit.py", 6),
}  # fmt: skip
WEB_LINKS = {
    # (options.client ?? client).get({ url: '/api/v2/accounts/{account_id}', … })
    (f"{W}#AccountsService.readAccount", f"{R}/accounts.py#read_account", "GET",
     "/api/v2/accounts/{}", 0.8, "template", 8, "app/routers/accounts.py", 6),
    (f"{W}#AccountsService.openAccount", f"{R}/accounts.py#open_account", "POST",
     "/api/v2/accounts", 0.9, "literal", 16, "app/routers/accounts.py", 16),
    # __request(OpenAPI, { method: 'DELETE', url: … })
    (f"{W}#closeAccount", f"{R}/accounts.py#close_account", "DELETE", "/api/v2/accounts/{}",
     0.8, "template", 21, "app/routers/accounts.py", 21),
    # axios({ method: 'patch', url: `…/${id}/limits` })
    (f"{W}#setLimits", f"{R}/accounts.py#set_limits", "PATCH", "/api/v2/accounts/{}/limits",
     0.8, "template", 25, "app/routers/accounts.py", 26),
    # axios.request({ url, method: 'GET' }) with `const url = '…'`
    (f"{W}#readMe", f"{R}/accounts.py#read_me", "GET", "/api/v2/accounts/me", 0.9, "literal",
     30, "app/routers/accounts.py", 11),
}  # fmt: skip


def test_prefixes_are_read_through_a_settings_object(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/settings/service", "service")
        found = http_links(engine)
        assert found == SERVICE_LINKS
        assert recall(found, SERVICE_LINKS) == 1.0
        # `Config(API_PREFIX="/staging")`: the keyword replaces the default
        assert not {row for row in found if "test_client.py" in row[0]}


def test_clients_taking_an_options_object_link_to_the_routes(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/settings/service", "service")
        add_fixture(engine, tmp_path, "services/settings/web", "web")
        found: set[Link] = {row for row in http_links(engine) if row[0].startswith("web/")}
        assert found == WEB_LINKS
        decoys = {"showAccount", "remember"}
        assert not {row for row in found if row[0].rpartition("#")[2] in decoys}
