"""OpenAPI links across a service estate: each operation of an OpenAPI or Swagger
document is a symbol of it; handlers serve operations (`serves`: a route of the same
method and template, or a function the operationId names), clients call them (`http`: an
HTTP call fitting the template, or a generated client's method named after the
operationId) and reach the handler through them.

The estate (tests/fixtures/graph/services/openapi/) is a FastAPI service holding
openapi.yaml (3 operations under the server path `/api`, 2 implemented, plus a DELETE
route the document does not describe) and a portal calling one operation through
`requests` and one through a generated client. Its decoys (the same path with another
method, an operationId named only in a comment) must not link."""

from __future__ import annotations

import json
from pathlib import Path

from codecompass.engine import Engine
from codecompass.graph.openapi import _route_serves, _variants
from codecompass.indexing.extract import extract_facts
from codecompass.indexing.facts import Endpoint
from codecompass.indexing.parse import parse
from codecompass.models import EdgeQuery, HttpFact, SymbolQuery
from tests.graph.helpers import TypedLink, add_fixture, recall, typed_links, workspace

# type, source, target, method and template, confidence, via, source line, other side
Link = TypedLink

R = "users/users/routes.py"
D = "users/openapi.yaml"
LIST, GET, CREATE = (
    f"{D}#paths./users.get",
    f"{D}#paths./users/{{userId}}.get",
    f"{D}#paths./users.post",
)
C = "portal/portal/people.py"
OPENAPI_LINKS = {
    # @router.get("/users") under include_router(router, prefix="/api"); servers: …/api
    ("serves", f"{R}#list_users", LIST, "GET /api/users", 0.9, "route", 9, "users/openapi.yaml:9"),
    ("serves", f"{R}#get_user", GET, "GET /api/users/{}", 0.9, "route", 14,
     "users/openapi.yaml:16"),
    # requests.get(f"{BASE}/users/{user_id}"): the operation as a route would be…
    ("http", f"{C}#profile", GET, "GET /api/users/{}", 0.8, "template", 10,
     "users/openapi.yaml:16"),
    # …and the route itself (http.py), so no link through the operation
    ("http", f"{C}#profile", f"{R}#get_user", "GET /api/users/{}", 0.8, "template", 10,
     "users/users/routes.py:14"),
    # DefaultApi(ApiClient()).list_users(): the generated method of listUsers…
    ("http", f"{C}#directory", LIST, "GET /api/users", 0.6, "generated", 15,
     "users/openapi.yaml:9"),
    # …reaches the handler through the operation
    ("http", f"{C}#directory", f"{R}#list_users", "GET /api/users", 0.6, "generated", 15,
     "users/users/routes.py:9"),
    # the decoy DELETE on getUser's path reaches the DELETE route only
    ("http", f"{C}#forget", f"{R}#delete_user", "DELETE /api/users/{}", 0.8, "template", 20,
     "users/users/routes.py:19"),
}  # fmt: skip


def openapi_links(engine: Engine) -> set[Link]:
    return typed_links(engine, ("serves", "http"))


def estate(engine: Engine, tmp_path: Path) -> None:
    add_fixture(engine, tmp_path, "services/openapi/users", "users")
    add_fixture(engine, tmp_path, "services/openapi/portal", "portal")


def test_openapi_estate_links_exactly_the_expected_handlers_and_clients(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        estate(engine, tmp_path)
        found = openapi_links(engine)
        assert found == OPENAPI_LINKS
        assert recall(found, OPENAPI_LINKS) == 1.0
        # createUser is named in a comment only, and implemented nowhere
        assert not {link for link in found if CREATE in link[1:3]}
        assert not {link for link in found if link[1] == f"{C}#invite"}


def test_operations_are_symbols_of_their_document(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        estate(engine, tmp_path)
        query = SymbolQuery(files=[("users", "openapi.yaml")])
        symbols = {
            s.id: (s.name, s.kind, s.parent, s.start_line, s.end_line, s.signature, s.doc)
            for s in engine.backend.symbols.symbols(query)
            if s.parent == "paths"
        }
        assert symbols == {
            LIST: ("GET /users", "section", "paths", 9, 11,
                   "GET /api/users operationId: listUsers", "List the users"),
            CREATE: ("POST /users", "section", "paths", 12, 14,
                     "POST /api/users operationId: createUser", "Create a user"),
            GET: ("GET /users/{userId}", "section", "paths", 16, 24,
                  "GET /api/users/{userId} operationId: getUser", "One user"),
        }  # fmt: skip
        node = engine.graph.nodes([GET])[GET]
        assert (node.kind, node.name, node.path, node.start_line) == (
            "section",
            "paths./users/{userId}.get",
            "openapi.yaml",
            16,
        )
        # who calls the operation, who calls its handler (through it, for the generated
        # client), what a handler serves
        callers = engine.callers(GET)
        assert [(e.source, e.type, e.via) for e in callers.edges] == [
            (f"{C}#profile", "http", "template")
        ]
        handler = engine.callers(f"{R}#list_users")
        assert [(e.source, e.type, e.via) for e in handler.edges] == [
            (f"{C}#directory", "http", "generated")
        ]
        served = engine.dependencies(f"{R}#get_user", types=["serves"])
        assert [(e.target, e.name) for e in served.edges] == [(GET, "GET /api/users/{}")]


def test_links_via_http_shows_operations_and_their_handlers(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        estate(engine, tmp_path)
        result = engine.links(via="http", repo="users")
        rows = {
            (k.how, k.source.id, k.target.id, k.source.line, k.target.line) for k in result.links
        }
        assert rows == {(link[5], link[1], link[2], link[6], int(link[7].rpartition(":")[2]))
                        for link in OPENAPI_LINKS}  # fmt: skip
        assert result.counts == {"http": 7}
        assert engine.links(via="rpc").links == []


CONNEXION_SPEC = {
    "swagger": "2.0",
    "basePath": "/v1",
    "paths": {
        "/pets/{petId}": {
            "get": {"operationId": "pets.api.handlers.get_pet", "summary": "A pet"},
            "delete": {"operationId": "removePet"},
        },
        "/pets": {"post": {"operationId": "add"}},
    },
}
HANDLERS = """def get_pet(pet_id):
    return {"id": pet_id}


def remove_pet(pet_id):
    return None


def add(body):
    return body
"""
SHOP = """import requests


def pet(pet_id):
    return requests.get(f"http://pets:8080/v1/pets/{pet_id}").json()


def remove(client, pet_id):
    client.removePet(pet_id)


def forget(cache, pet_id):
    cache.removePet(pet_id)
"""


def test_connexion_handlers_are_the_functions_their_operation_ids_name(tmp_path: Path) -> None:
    pets = tmp_path / "pets"
    (pets / "pets" / "api").mkdir(parents=True)
    (pets / "swagger.json").write_text(json.dumps(CONNEXION_SPEC, indent=2), encoding="utf-8")
    (pets / "pets" / "__init__.py").write_text("", encoding="utf-8")
    (pets / "pets" / "api" / "__init__.py").write_text("", encoding="utf-8")
    (pets / "pets" / "api" / "handlers.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "shop.py").write_text(SHOP, encoding="utf-8")
    with workspace(tmp_path) as engine:
        engine.add_repo(pets, name="pets")
        engine.add_repo(tmp_path / "shop", name="shop")
        found = openapi_links(engine)
    H = "pets/pets/api/handlers.py"
    get = "pets/swagger.json#paths./pets/{petId}.get"
    delete = "pets/swagger.json#paths./pets/{petId}.delete"
    assert found == {
        # connexion's `module.function`: exact
        ("serves", f"{H}#get_pet", get, "GET /v1/pets/{}", 0.9, "operation-id", 1,
         "pets/swagger.json:6"),
        # a function of the document's repository named like the operationId
        ("serves", f"{H}#remove_pet", delete, "DELETE /v1/pets/{}", 0.6, "name", 5,
         "pets/swagger.json:10"),
        # `add` is one word: a handler by name, but too common a name for a client
        ("serves", f"{H}#add", "pets/swagger.json#paths./pets.post", "POST /v1/pets", 0.6, "name",
         9, "pets/swagger.json:15"),
        # a requests call of the full URL reaches the operation, and the handler through it
        ("http", "shop/shop.py#pet", get, "GET /v1/pets/{}", 0.8, "template", 5,
         "pets/swagger.json:6"),
        ("http", "shop/shop.py#pet", f"{H}#get_pet", "GET /v1/pets/{}", 0.8, "template", 5,
         "pets/pets/api/handlers.py:1"),
        # a method named like removePet of an unknown receiver named as a client (not
        # `cache.removePet`, line 13)
        ("http", "shop/shop.py#remove", delete, "DELETE /v1/pets/{}", 0.5, "generated", 9,
         "pets/swagger.json:10"),
        ("http", "shop/shop.py#remove", f"{H}#remove_pet", "DELETE /v1/pets/{}", 0.5, "generated",
         9, "pets/pets/api/handlers.py:5"),
    }  # fmt: skip


def test_documents_are_read_from_yaml_and_json_only_when_they_are_openapi() -> None:
    swagger = json.dumps(CONNEXION_SPEC, indent=2)
    facts = extract_facts("swagger.json", swagger, parse(swagger, "json"))
    assert facts.endpoints == [
        Endpoint("openapi", "GET /v1/pets/{petId}", 6, "paths./pets/{petId}.get",
                 "pets.api.handlers.get_pet"),
        Endpoint("openapi", "DELETE /v1/pets/{petId}", 10, "paths./pets/{petId}.delete",
                 "removePet"),
        Endpoint("openapi", "POST /v1/pets", 15, "paths./pets.post", "add"),
    ]  # fmt: skip
    flow = (
        "openapi: '3.1.0'\n"
        "servers: [{url: 'http://{host}:8080/api/v2/'}]\n"
        "paths:\n"
        "  /items/{id}: {put: {operationId: putItem}, parameters: []}\n"
        "  /health:\n"
        "    $ref: './health.yaml'\n"
    )
    endpoints = extract_facts("api.yml", flow, parse(flow, "yaml")).endpoints
    assert endpoints == [Endpoint("openapi", "PUT /api/v2/items/{id}", 4, "paths./items/{id}.put",
                                  "putItem")]  # fmt: skip
    other = "name: build\npaths:\n  /x:\n    get: {}\n"
    assert extract_facts("ci.yaml", other, parse(other, "yaml")).endpoints == []
    assert all(s.parent is None for s in parse(other, "yaml").symbols)


def test_operation_ids_have_one_spelling_per_convention() -> None:
    assert _variants("getUserById") == ["getUserById", "get_user_by_id", "GetUserById"]
    assert _variants("get_user") == ["get_user", "getUser", "GetUser"]
    assert _variants("HTTPStatus") == ["HTTPStatus", "http_status", "httpStatus", "HttpStatus"]


def test_routes_serve_operations_of_their_template_and_method() -> None:
    def fact(role: str, method: str, pattern: str, node: str, router: str = "") -> HttpFact:
        return HttpFact(role, method, pattern, 7, node, repo="r", path="app.py", router=router)

    operations = [
        fact("operation", "GET", "/api/items/{}", "r/api.yaml#paths./items/{id}.get"),
        fact("operation", "PUT", "/api/items/{}", "r/api.yaml#paths./items/{id}.put"),
        fact("operation", "GET", "/api/items/mine", "r/api.yaml#paths./items/mine.get"),
    ]
    facts = [
        *operations,
        # Django: any method, under an include() prefix
        fact("route", "*", "/items/{}", "r/views.py#item", router="r/items/urls.py"),
        fact("mount", "prepend", "/api", "r/items/urls.py", router="r/urls.py"),
        # mounted under a prefix that cannot be read: matched on what follows it
        fact("route", "GET", "/mine", "r/views.py#mine", router="r/app.py#legacy"),
        fact("mount", "prepend", "?", "r/app.py#legacy", router="r/app.py#app"),
        # the same path, another method: serves nothing
        fact("route", "DELETE", "/api/items/{}", "r/views.py#drop"),
    ]
    served = {
        (edge.source, op, edge.via, edge.confidence)
        for op, rows in _route_serves(facts, operations).items()
        for _, edge in rows
    }
    assert served == {
        ("r/views.py#item", "r/api.yaml#paths./items/{id}.get", "any-method", 0.7),
        ("r/views.py#item", "r/api.yaml#paths./items/{id}.put", "any-method", 0.7),
        ("r/views.py#mine", "r/api.yaml#paths./items/mine.get", "unknown-prefix", 0.5),
    }


def test_a_route_fitting_a_call_better_than_an_operation_wins(tmp_path: Path) -> None:
    """koel's `http.get(`browse/songs?${query}`)` reached `GET /api/playlist/{playlistId}/
    songs` in its api.yaml: operations were matched apart from the routes, and the route
    it calls, `/api/browse/songs`, is not documented."""
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "koel", "version": "1"},
        "paths": {"/api/playlist/{playlistId}/songs": {"get": {"operationId": "playlistSongs"}}},
    }
    server = (
        "const express = require('express');\nconst api = express.Router();\n\n"
        "function browseSongs(req, res) {}\n\n"
        "api.get('/browse/songs', browseSongs);\n"
        "const app = express();\napp.use('/api', api);\n"
    )
    client = "export const songs = (q) => http.get(`browse/songs?${q}`);\n"
    (tmp_path / "koel").mkdir()
    (tmp_path / "koel" / "api.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    (tmp_path / "koel" / "server.js").write_text(server, encoding="utf-8")
    (tmp_path / "koel" / "web.ts").write_text(client, encoding="utf-8")
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "koel", name="koel")
        found = {
            (e.source, e.target) for e in engine.backend.edges.edges(EdgeQuery(types=["http"]))
        }
    assert found == {("koel/web.ts#songs", "koel/server.js#browseSongs")}
