"""HTTP links across a service estate: routers mounted under prefixes (nested, imported,
unknown), path parameters in each framework's syntax, client URLs built from base-URL
constants, methods that must agree, and the confidence saying how each link was made.

Each estate (tests/fixtures/graph/services/<framework>/) is indexed as several
repositories; its decoys (another method on the same path, a URL in a comment or a
docstring, a path that only shares a prefix) must not link."""

from __future__ import annotations

from pathlib import Path

from codecompass.engine import Engine
from codecompass.graph.http import Mounts, call_fact, client_path, link_http, route_path
from codecompass.models import EdgeQuery, HttpFact
from tests.graph.helpers import add_fixture, recall, workspace, write

# source, target, method, template, confidence, via, client line, route file, route line
Link = tuple[str, str, str, str, float, str, int, str, int]


def http_links(engine: Engine) -> set[Link]:
    rows = set()
    for e in engine.backend.edges.edges(EdgeQuery(types=["http"])):
        method, _, template = e.name.partition(" ")
        assert e.evidence_line is not None and e.target_line is not None and e.target_path
        rows.add((e.source, e.target, method, template, e.confidence, e.via,
                  e.evidence_line, e.target_path, e.target_line))  # fmt: skip
    return rows


def repo_links(tmp_path: Path, name: str, files: dict[str, str]) -> set[Link6]:
    """Write `files` as the repository `name`, index it alone and read its HTTP links:
    (source, target, method, template, confidence, via)."""
    write(tmp_path / name, files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / name, name=name)
        return {(s, t, m, p, c, v) for s, t, m, p, c, v, *_ in http_links(engine)}


Link6 = tuple[str, str, str, str, float, str]
S = "service/app/routers"
C = "client/client.py"
FASTAPI_LINKS = {
    # include_router(api_router, prefix=settings.API_PREFIX) → api_router.include_router(
    # users_router, prefix="/users") → @router.get("/{user_id}")
    (f"{C}#fetch_user", f"{S}/users.py#get_user", "GET", "/api/users/{}", 0.8, "template",
     11, "app/routers/users.py", 8),
    (f"{C}#register", f"{S}/users.py#create_user", "POST", "/api/users", 0.9, "literal",
     15, "app/routers/users.py", 13),
    (f"{C}#remove", f"{S}/users.py#delete_user", "DELETE", "/api/users/{}", 0.8, "template",
     19, "app/routers/users.py", 18),
    (f"{C}#orders_of", f"{S}/users.py#user_orders", "GET", "/api/users/{}/orders", 0.8,
     "template", 24, "app/routers/users.py", 23),
    # APIRouter(prefix=ORDERS_PREFIX) imported from settings, included without a prefix
    (f"{C}#order", f"{S}/orders.py#read_order", "GET", "/api/orders/{}", 0.8, "template",
     28, "app/routers/orders.py", 10),
    (f"{C}#alive", f"{S}/health.py#health", "GET", "/health", 0.9, "literal",
     32, "app/routers/health.py", 8),
    # mounted under settings.LEGACY_PREFIX: matched without it
    (f"{C}#report", f"{S}/legacy.py#report", "GET", "/reports/{}", 0.5, "unknown-prefix",
     36, "app/routers/legacy.py", 8),
}  # fmt: skip

R = "api/src/routes"
W = "web/src/api.js"
EXPRESS_LINKS = {
    # app.use('/api', api) → api.use('/users', users) → router.get('/', …)
    (f"{W}#fetchUsers", f"{R}/users.js#listUsers", "GET", "/api/users", 0.9, "literal",
     8, "src/routes/users.js", 27),
    (f"{W}#fetchUser", f"{R}/users.js#getUser", "GET", "/api/users/{}", 0.8, "template",
     13, "src/routes/users.js", 28),
    (f"{W}#createUser", f"{R}/users.js#createUser", "POST", "/api/users", 0.9, "literal",
     18, "src/routes/users.js", 29),
    # router.use('/:userId/items', items): a nested router with a parameter in its prefix
    (f"{W}#fetchItems", f"{R}/users.js#listItems", "GET", "/api/users/{}/items", 0.8,
     "template", 26, "src/routes/users.js", 31),
    # an ES module's default export mounted behind a middleware; axios, BASE + '/orders/' + id
    (f"{W}#fetchOrder", f"{R}/orders.js#getOrder", "GET", "/api/orders/{}", 0.8, "template",
     31, "src/routes/orders.js", 10),
    # new URL('/health', ORIGIN)
    (f"{W}#health", "api/src/app.js#health", "GET", "/health", 0.9, "literal",
     36, "src/app.js", 25),
    # app.use(process.env.LEGACY_PREFIX, legacy)
    (f"{W}#fetchReport", f"{R}/legacy.js#report", "GET", "/reports/{}", 0.5, "unknown-prefix",
     40, "src/routes/legacy.js", 10),
}  # fmt: skip


def test_fastapi_estate_links_exactly_the_expected_calls(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/fastapi/service", "service")
        add_fixture(engine, tmp_path, "services/fastapi/client", "client")
        found = http_links(engine)
        assert found == FASTAPI_LINKS
        assert recall(found, FASTAPI_LINKS) == 1.0
        decoys = {"list_users", "rename", "settings_of", "documented"}
        assert not {row for row in found if row[0].rpartition("#")[2] in decoys}
        callers = engine.callers("get_user", types=["http"])
        assert [(e.source, e.evidence_line, e.target_line) for e in callers.edges] == [
            (f"{C}#fetch_user", 11, 8)
        ]


def test_express_estate_links_exactly_the_expected_calls(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/express/api", "api")
        add_fixture(engine, tmp_path, "services/express/web", "web")
        found = http_links(engine)
        assert found == EXPRESS_LINKS
        assert recall(found, EXPRESS_LINKS) == 1.0
        decoys = {"updateUser", "fetchUserStats", "cancelOrder"}
        assert not {row for row in found if row[0].rpartition("#")[2] in decoys}


def test_links_follow_a_change_to_a_mounted_prefix(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        service = add_fixture(engine, tmp_path, "services/fastapi/service", "service")
        add_fixture(engine, tmp_path, "services/fastapi/client", "client")
        settings = service / "app" / "settings.py"
        text = settings.read_text(encoding="utf-8").replace('"/api"', '"/v2"')
        settings.write_text(text, encoding="utf-8")
        engine.index(service, name="service")  # main.py reads the prefix from settings.py
        found = {(row[0], row[1]) for row in http_links(engine)}
        assert found == {
            (f"{C}#alive", f"{S}/health.py#health"),
            (f"{C}#report", f"{S}/legacy.py#report"),
        }


FLASK_APP = """from flask import Blueprint, Flask

from shop.admin import admin

app = Flask(__name__)
api = Blueprint("api", __name__, url_prefix="/api")
v2 = Blueprint("v2", __name__, url_prefix="/ignored")


@api.route("/items/<int:item_id>", methods=["GET", "POST"])
def item(item_id):
    return {}


@v2.get("/things/<slug>")
def thing(slug):
    return {}


api.register_blueprint(v2, url_prefix="/v2")
app.register_blueprint(api)
app.register_blueprint(admin)
"""
FLASK_ADMIN = """from flask import Blueprint

admin = Blueprint("admin", __name__, url_prefix="/backoffice")


@admin.route("/stats")
def stats():
    return {}
"""
FLASK_TEST = """from shop.app import app


def test_item():
    assert app.test_client().get("/api/items/3").status_code == 200
"""
DJANGO_ROOT = """from django.urls import include, path, re_path

from blog import views

urlpatterns = [
    path("blog/", include("blog.urls")),
    re_path(r"^about/$", views.about),
]
"""
DJANGO_BLOG = """from django.urls import path

from . import views

urlpatterns = [
    path("", views.index),
    path("posts/<slug:slug>/", views.post_detail),
    path("posts/", views.PostList.as_view()),
]
"""
DJANGO_VIEWS = """def index(request):
    return None


def post_detail(request, slug):
    return None


def about(request):
    return None


class PostList:
    pass
"""
CLIENT = """import requests

API = "http://shop.internal"


def a():
    return requests.get(f"{API}/api/items/3")


def b():
    return requests.post(f"{API}/api/items/3")


def c():
    return requests.get(f"{API}/api/v2/things/abc")


def d():
    return requests.get(f"{API}/backoffice/stats")


def e(slug):
    return requests.get(f"{API}/blog/posts/{slug}")


def f():
    return requests.get(f"{API}/about")


def g():
    return requests.get(f"{API}/blog/posts")


def h():
    return requests.get(f"{API}/ignored/things/abc")


def i():
    return requests.get(f"{API}/blog/")
"""


def test_flask_blueprints_and_django_includes(tmp_path: Path) -> None:
    shop = write(
        tmp_path / "shop",
        {
            "shop/__init__.py": "",
            "shop/app.py": FLASK_APP,
            "shop/admin.py": FLASK_ADMIN,
            "site/__init__.py": "",
            "site/urls.py": DJANGO_ROOT,
            "blog/__init__.py": "",
            "blog/urls.py": DJANGO_BLOG,
            "blog/views.py": DJANGO_VIEWS,
            "tests/test_app.py": FLASK_TEST,
        },
    )
    client = write(tmp_path / "client", {"client.py": CLIENT})
    with workspace(tmp_path) as engine:
        engine.add_repo(shop, name="shop")
        engine.add_repo(client, name="client")
        found = {(row[0].rpartition("#")[2], row[1], row[2], row[3], row[4], row[5])
                 for row in http_links(engine)}  # fmt: skip
    assert found == {
        # methods=["GET", "POST"]: one route per method
        ("a", "shop/shop/app.py#item", "GET", "/api/items/{}", 0.8, "template"),
        ("b", "shop/shop/app.py#item", "POST", "/api/items/{}", 0.8, "template"),
        # a framework's test client calls the routes of its own repository
        ("test_item", "shop/shop/app.py#item", "GET", "/api/items/{}", 0.8, "template"),
        # register_blueprint(v2, url_prefix="/v2") replaces v2's own "/ignored"
        ("c", "shop/shop/app.py#thing", "GET", "/api/v2/things/{}", 0.8, "template"),
        # registered without url_prefix: the blueprint keeps its own
        ("d", "shop/shop/admin.py#stats", "GET", "/backoffice/stats", 0.9, "literal"),
        # Django states no method; include() prefixes the included URLconf
        ("e", "shop/blog/views.py#post_detail", "GET", "/blog/posts/{}", 0.7, "any-method"),
        ("f", "shop/blog/views.py#about", "GET", "/about", 0.7, "any-method"),
        ("g", "shop/blog/views.py#PostList", "GET", "/blog/posts", 0.7, "any-method"),
        ("i", "shop/blog/views.py#index", "GET", "/blog", 0.7, "any-method"),
    }


def test_every_framework_parameter_syntax_becomes_one_template() -> None:
    assert route_path("/users/{user_id}") == "/users/{}"
    assert route_path("/files/{path:path}") == "/files/{}"
    assert route_path("/users/:id") == "/users/{}"
    assert route_path("/users/:id?") == "/users/{}"
    assert route_path("/users/<int:user_id>") == "/users/{}"
    assert route_path("/users/<user_id>") == "/users/{}"
    assert route_path("posts/<slug:slug>/") == "/posts/{}"
    assert route_path(r"^posts/(?P<pk>\d+)/$", regex=True) == "/posts/{}"
    assert client_path("https://api.example.com/api/users/{}?page=2") == "/api/users/{}"
    assert client_path("{}/users/{}") == "/users/{}"


def fact(
    role: str, method: str, pattern: str, node: str, router: str = "", path: str = "f"
) -> HttpFact:
    return HttpFact(role, method, pattern, 1, node, repo="r", path=path, router=router)


def test_mounts_compose_prefixes_and_an_unknown_one_keeps_what_is_below_it() -> None:
    mounts = Mounts(
        [
            fact("router", "*", "/own", "r#child"),
            fact("mount", "prepend", "/v1", "r#mid", router="r#app"),
            fact("mount", "prepend", "/mid", "r#child", router="r#mid"),
            fact("mount", "prepend", "?", "r#child", router="r#other"),
            fact("mount", "replace", "/new", "r#bp", router="r#app"),
            fact("router", "*", "/old", "r#bp"),
            fact("mount", "prepend", "/a", "r#loop", router="r#loop2"),
            fact("mount", "prepend", "/b", "r#loop2", router="r#loop"),
        ]
    )
    assert mounts.templates(fact("route", "GET", "/x/{}", "h", router="r#child")) == [
        ("/v1/mid/own/x/{}", True),
        ("/own/x/{}", False),
    ]
    assert mounts.templates(fact("route", "GET", "/x", "h", router="r#bp")) == [("/new/x", True)]
    assert mounts.templates(fact("route", "GET", "/x", "h", router="r#loop")) == [("/a/x", True)]


def test_methods_must_agree_and_the_most_specific_route_wins() -> None:
    facts = [
        fact("route", "GET", "/users/{}", "users#get"),
        fact("route", "GET", "/users/me", "users#me"),
        fact("route", "POST", "/users/{}", "users#post"),
        fact("route", "*", "/users/{}/posts", "users#posts"),
        fact("call", "GET", "/users/me", "web#me"),
        fact("call", "GET", "/users/{}", "web#one"),
        fact("call", "PUT", "/users/{}", "web#put"),
        fact("call", "DELETE", "/users/{}/posts", "web#posts"),
        fact("call", "GET", "/users/{}", "web#based", router="?"),
    ]
    edges = [e for rows in link_http(facts).values() for e in rows]
    assert sorted((e.source, e.target, e.confidence, e.via, e.name) for e in edges) == [
        ("web#based", "users#get", 0.6, "unknown-base", "GET /users/{}"),
        ("web#me", "users#me", 0.9, "literal", "GET /users/me"),
        ("web#one", "users#get", 0.8, "template", "GET /users/{}"),
        ("web#posts", "users#posts", 0.7, "any-method", "DELETE /users/{}/posts"),
    ]


def test_a_call_below_an_unknown_base_may_end_a_longer_route() -> None:
    """`axios.get(config.apiUrl + '/recipes/' + id)`: the base is often the origin and
    `/api`. Such a call was matched only to routes of its own length, so it reached none
    of `/api/...`; it now ends a longer route as a relative URL does, the route with the
    fewest segments in front winning."""
    facts = [
        fact("route", "GET", "/api/recipes/{}", "recipes#get"),
        fact("route", "GET", "/api/admin/recipes/{}", "admin#get"),
        fact("route", "DELETE", "/api/recipes/{}", "recipes#delete"),
        fact("route", "GET", "/api/users/{}/favorites", "users#favorites"),
        fact("call", "GET", "/recipes/{}", "web#recipe", router="?"),
        fact("call", "GET", "/{}/favorites", "web#favorites", router="?"),
        fact("call", "GET", "/recipes/{}", "web#absolute"),
    ]
    edges = [e for rows in link_http(facts).values() for e in rows]
    assert sorted((e.source, e.target, e.confidence, e.via, e.name) for e in edges) == [
        ("web#favorites", "users#favorites", 0.6, "unknown-base", "GET /api/users/{}/favorites"),
        ("web#recipe", "recipes#get", 0.6, "unknown-base", "GET /api/recipes/{}"),
    ]


def test_a_word_after_an_unread_base_starts_a_relative_url() -> None:
    """Ombi's Angular services request `${this.url}tv/pending` below a base ending with a
    slash: the segment `{}tv` fitted any segment, so the call reached `movie/pending`
    too, and `${this.url}Movie/` fitted no route at all."""
    facts = [
        fact("route", "GET", "/api/v1/request/tv/pending", "requests#tv"),
        fact("route", "GET", "/api/v1/request/movie/pending", "requests#movie"),
        fact("route", "POST", "/api/v1/request/movie", "requests#add"),
    ]
    pending = call_fact("GET", "{}tv/pending", 3, "web#pending")
    add = call_fact("POST", "{}Movie/", 4, "web#add")
    assert pending is not None and add is not None
    assert (pending.pattern, pending.router, add.pattern) == ("/tv/pending", "?/", "/Movie")
    edges = [e for rows in link_http([*facts, pending, add]).values() for e in rows]
    assert sorted((e.source, e.target, e.name) for e in edges) == [
        ("web#add", "requests#add", "POST /api/v1/request/movie"),
        ("web#pending", "requests#tv", "GET /api/v1/request/tv/pending"),
    ]


def test_nestjs_controllers_serve_the_routes_their_decorators_declare(tmp_path: Path) -> None:
    """`@Controller('users')` with `@Get(':id')` and `@Post()` declared no route: NestJS
    was no route framework here, so a web client's calls linked to nothing."""
    controller = (
        "import { Controller, Get, Post, All, Injectable } from '@nestjs/common';\n\n"
        "@Controller('users')\n"
        "export class UsersController {\n"
        "  @Get(':id')\n  findOne(id: string) {\n    return id;\n  }\n\n"
        "  @Post()\n  create() {\n    return 1;\n  }\n\n"
        "  @All('ping')\n  ping() {\n    return 'pong';\n  }\n}\n\n"
        "@Injectable()\nexport class UsersService {}\n"
    )
    client = (
        "export const loadUser = (id: string) => fetch(`/users/${id}`);\n"
        "export const addUser = () => fetch('/users', { method: 'POST' });\n"
        "export const ping = () => fetch('/users/ping', { method: 'DELETE' });\n"
    )
    write(tmp_path / "nest", {"src/users.controller.ts": controller, "web/api.ts": client})
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "nest", name="nest")
        found = http_links(engine)
    users = "nest/src/users.controller.ts#UsersController"
    assert found == {
        ("nest/web/api.ts#loadUser", f"{users}.findOne", "GET", "/users/{}", 0.8, "template",
         1, "src/users.controller.ts", 5),
        ("nest/web/api.ts#addUser", f"{users}.create", "POST", "/users", 0.9, "literal",
         2, "src/users.controller.ts", 10),
        ("nest/web/api.ts#ping", f"{users}.ping", "DELETE", "/users/ping", 0.7, "any-method",
         3, "src/users.controller.ts", 15),
    }  # fmt: skip


def test_nestjs_global_prefix_and_controller_options_reach_the_routes(tmp_path: Path) -> None:
    """`app.setGlobalPrefix('api')` in main.ts puts every controller under /api, and
    `@Controller({ path: 'items' })` names its prefix in an options object: calls of
    `/api/...` linked to nothing."""
    main = (
        "import { NestFactory } from '@nestjs/core';\n"
        "import { NestExpressApplication } from '@nestjs/platform-express';\n"
        "import { AppModule } from './app.module';\n\n"
        "const PREFIX = 'api';\n\n"
        "async function bootstrap() {\n"
        "  const app = await NestFactory.create<NestExpressApplication>(AppModule);\n"
        "  app.setGlobalPrefix(PREFIX, { exclude: ['health'] });\n"
        "  await app.listen(3000);\n}\nbootstrap();\n"
    )
    controllers = (
        "import { Controller, Get } from '@nestjs/common';\n\n"
        "@Controller('users')\nexport class UsersController {\n"
        "  @Get(':id')\n  findOne(id: string) {\n    return id;\n  }\n}\n\n"
        "@Controller({ path: 'items', version: '2' })\nexport class ItemsController {\n"
        "  @Get()\n  list() {\n    return [];\n  }\n}\n"
    )
    client = (
        "export const loadUser = (id: string) => fetch(`/api/users/${id}`);\n"
        "export const items = () => fetch('/api/items');\n"
        "export const unprefixed = () => fetch('/users/7');\n"
    )
    files = {"src/main.ts": main, "src/app.controller.ts": controllers, "web/api.ts": client}
    write(tmp_path / "nest", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "nest", name="nest")
        found = http_links(engine)
    app = "nest/src/app.controller.ts"
    assert found == {
        ("nest/web/api.ts#loadUser", f"{app}#UsersController.findOne", "GET", "/api/users/{}",
         0.8, "template", 1, "src/app.controller.ts", 5),
        ("nest/web/api.ts#items", f"{app}#ItemsController.list", "GET", "/api/items", 0.9,
         "literal", 2, "src/app.controller.ts", 13),
    }  # fmt: skip


def test_routes_a_files_path_declares_link_their_clients(tmp_path: Path) -> None:
    """taxonomy's `PostCreateButton` POSTs `/api/posts`, which `app/api/posts/route.ts`
    serves by exporting `POST`; umami's Cypress tests call its 97 `route.ts` files: a
    route declared by a file's path (Next.js, SvelteKit, Nuxt) linked to nothing."""
    next_files = {
        "app/api/posts/route.ts": (
            "export async function GET() {\n  return Response.json([]);\n}\n\n"
            "export async function POST(req: Request) {\n  return Response.json({});\n}\n"
        ),
        "app/(admin)/api/posts/[postId]/route.ts": (
            "async function handler(req: Request) {\n  return new Response(null);\n}\n\n"
            "export { handler as PATCH, handler as DELETE };\n"
        ),
        "src/pages/api/users/index.ts": (
            "export default function users(req, res) {\n  res.json([]);\n}\n"
        ),
        "components/post-create-button.tsx": (
            "export function create() {\n  return fetch('/api/posts', { method: 'POST' });\n}\n"
            "export function remove(id: string) {\n"
            "  return fetch(`/api/posts/${id}`, { method: 'DELETE' });\n}\n"
            "export function users() {\n  return fetch('/api/users');\n}\n"
        ),
    }
    kit_files = {
        "src/routes/api/items/[id]/+server.ts": (
            "export const GET = async ({ params }) => new Response(params.id);\n"
        ),
        "src/lib/api.ts": "export const item = (id) => fetch(`/api/items/${id}`);\n",
    }
    nuxt_files = {
        "nuxt.config.ts": "export default defineNuxtConfig({});\n",
        "server/api/users/[id].get.ts": (
            "export default defineEventHandler((event) => {\n  return {};\n});\n"
        ),
        "pages/user.vue": (
            "<script setup>\nconst load = (id) => $fetch(`/api/users/${id}`);\n</script>\n"
        ),
    }
    express_files = {  # a server/ folder outside Nuxt declares nothing by its path
        "server/routes/health.js": "export default function health(req, res) {}\n",
        "client.js": "export const ping = () => fetch('/health');\n",
    }
    for name, files in [("next", next_files), ("kit", kit_files), ("nuxt", nuxt_files),
                        ("plain", express_files)]:  # fmt: skip
        write(tmp_path / name, files)
    with workspace(tmp_path) as engine:
        for name in ("next", "kit", "nuxt", "plain"):
            engine.add_repo(tmp_path / name, name=name)
        found = {(s, t, m, p, c, v) for s, t, m, p, c, v, *_ in http_links(engine)}
    button = "next/components/post-create-button.tsx"
    posts = "next/app/(admin)/api/posts/[postId]/route.ts#handler"
    assert found == {
        (f"{button}#create", "next/app/api/posts/route.ts#POST", "POST", "/api/posts", 0.9,
         "literal"),
        (f"{button}#remove", posts, "DELETE", "/api/posts/{}", 0.8, "template"),
        (f"{button}#users", "next/src/pages/api/users/index.ts#users", "GET", "/api/users", 0.7,
         "any-method"),
        ("kit/src/lib/api.ts#item", "kit/src/routes/api/items/[id]/+server.ts#GET", "GET",
         "/api/items/{}", 0.8, "template"),
        # an anonymous default export: the file handles it
        ("nuxt/pages/user.vue#user.load", "nuxt/server/api/users/[id].get.ts", "GET",
         "/api/users/{}", 0.8, "template"),
    }  # fmt: skip


def test_a_client_named_as_one_calls_the_routes(tmp_path: Path) -> None:
    """koel's frontend calls its API through `http.post('favorites/toggle')` (a wrapper
    of axios), an Angular service through its injected `this.http.get<User[]>(…)`: only
    `axios`, `fetch` and the like were clients. An Express router named `api` declares
    routes, and `cache.get('/users')` is no call."""
    server = (
        "const express = require('express');\n"
        "const api = express.Router();\n\n"
        "function listUsers(req, res) {\n  res.json([]);\n}\n\n"
        "function toggle(req, res) {\n  res.json({});\n}\n\n"
        "api.get('/users', listUsers);\n"
        "api.post('/favorites/toggle', toggle);\n"
        "api.get('/data', listUsers);\n"
        "api.get('/browse/folders', listUsers);\n"
        "api.get('/browse/songs', toggle);\n"
        "api.get('/config', listUsers);\n\n"
        "const app = express();\n"
        "app.use('/api', api);\n"
    )
    wrapper = (
        "import axios from 'axios';\n\n"
        "export const http = {\n"
        "  post: (url: string) => axios.post(`/api/${url}`),\n"
        "};\n"
    )
    calls = (
        "import { http } from './http';\n"
        "import { HttpClient } from '@angular/common/http';\n\n"
        "export function toggleFavorite() {\n  return http.post('favorites/toggle');\n}\n\n"
        "export const data = () => http.get('data');\n"
        "export const folders = (q: string) => http.get(`browse/folders${q}`);\n\n"
        # umami: a hook hands out `get` and `del`, whose wrapper puts `/api` in front
        "export function useConfig() {\n"
        "  const { get, del } = useApi();\n  return get('/config');\n}\n\n"
        "export class UserService {\n"
        "  constructor(private http: HttpClient) {}\n"
        "  users() {\n    return this.http.get<string[]>('/api/users');\n  }\n"
        "  cached(cache: Map<string, string>) {\n    return cache.get('/api/users');\n  }\n}\n"
    )
    files = {"server/app.js": server, "web/http.ts": wrapper, "web/calls.ts": calls}
    found = repo_links(tmp_path, "shop", files)
    assert found == {
        # a relative URL: below the wrapper's base, which is not read
        ("shop/web/calls.ts#toggleFavorite", "shop/server/app.js#toggle", "POST",
         "/api/favorites/toggle", 0.6, "unknown-base"),
        # one segment is enough below a base; `folders${q}` is no `songs`
        ("shop/web/calls.ts#data", "shop/server/app.js#listUsers", "GET", "/api/data", 0.6,
         "unknown-base"),
        ("shop/web/calls.ts#folders", "shop/server/app.js#listUsers", "GET",
         "/api/browse/folders", 0.6, "unknown-base"),
        ("shop/web/calls.ts#useConfig", "shop/server/app.js#listUsers", "GET", "/api/config",
         0.6, "unknown-base"),
        ("shop/web/calls.ts#UserService.users", "shop/server/app.js#listUsers", "GET",
         "/api/users", 0.9, "literal"),
    }  # fmt: skip


def test_requests_and_supertest_are_clients(tmp_path: Path) -> None:
    """mealie's API classes call `this.requests.post(…)` and Express apps test their
    routes with supertest's `request(app).get(…)`: neither was named as a client. A
    `requests` map's `get(id)` holds no path, so it is no call."""
    server = (
        "const express = require('express');\nconst app = express();\n"
        "app.get('/api/users', function list(req, res) {});\n"
        "app.post('/api/users', function create(req, res) {});\n"
        "module.exports = app;\n"
    )
    client = (
        "export class UsersApi {\n"
        "  constructor(private requests: ApiRequestInstance) {}\n"
        "  create() {\n    return this.requests.post('/api/users', {});\n  }\n"
        "  pending(id: string) {\n    return this.requests.get(id);\n  }\n}\n"
    )
    test = (
        "const request = require('supertest');\nconst app = require('../server');\n\n"
        "test('lists', async () => {\n  await request(app).get('/api/users');\n});\n"
    )
    # Cypress's `cy.request({url})` sends a GET (Ombi's had reached a POST route)
    cypress = "it('lists', () => {\n  cy.request({ url: '/api/users' });\n});\n"
    files = {
        "server.js": server,
        "web/users.ts": client,
        "test/users.test.js": test,
        "cypress/e2e/users.cy.js": cypress,
    }
    found = {(s, t, m, c) for s, t, m, _, c, _ in repo_links(tmp_path, "app", files)}
    assert found == {
        ("app/web/users.ts#UsersApi.create", "app/server.js#create", "POST", 0.9),
        ("app/test/users.test.js", "app/server.js#list", "GET", 0.9),
        ("app/cypress/e2e/users.cy.js", "app/server.js#list", "GET", 0.9),
    }


def test_a_test_client_given_an_imported_constant_requests_its_path(tmp_path: Path) -> None:
    """mealie's tests request `api_client.post(api_routes.recipes, json=…)` 248 times,
    with `recipes = "/api/recipes"` in a module of their own: only a concatenation
    (`api_routes.recipes + "/abc"`) was read. `self.key` is nobody's path."""
    app = (
        "from fastapi import FastAPI\n\napp = FastAPI()\n\n\n"
        '@app.post("/api/recipes")\ndef create_one():\n    pass\n\n\n'
        '@app.get("/api/recipes/{slug}")\ndef get_one(slug: str):\n    pass\n'
    )
    routes = 'recipes = "/api/recipes"\n'
    test = (
        "from fastapi.testclient import TestClient\n\n"
        "from app.main import app\nfrom tests.utils import api_routes\n\n"
        "client = TestClient(app)\n\n\n"
        "def test_create():\n    client.post(api_routes.recipes, json={})\n\n\n"
        "def test_get():\n    client.get(api_routes.recipes + '/abc')\n"
    )
    files = {
        "app/__init__.py": "",
        "app/main.py": app,
        "tests/__init__.py": "",
        "tests/utils/__init__.py": "",
        "tests/utils/api_routes.py": routes,
        "tests/test_recipes.py": test,
    }
    found = {(s, t, m, p) for s, t, m, p, _, _ in repo_links(tmp_path, "meal", files)}
    assert found == {
        ("meal/tests/test_recipes.py#test_create", "meal/app/main.py#create_one", "POST",
         "/api/recipes"),
        ("meal/tests/test_recipes.py#test_get", "meal/app/main.py#get_one", "GET",
         "/api/recipes/{}"),
    }  # fmt: skip


def test_a_routes_object_of_the_file_names_the_paths(tmp_path: Path) -> None:
    """mealie's API classes request `this.requests.post(routes.shoppingListIdAddRecipe(a,
    b))` with `routes` an object of template literals and functions returning them: none
    of its 119 API-client calls was linked."""
    server = (
        "const express = require('express');\nconst app = express();\n"
        "app.get('/api/lists', function lists(req, res) {});\n"
        "app.post('/api/lists/:id/recipe/:recipeId', function addRecipe(req, res) {});\n"
    )
    client = (
        'const prefix = "/api";\n\n'
        "const routes = {\n"
        "  lists: `${prefix}/lists`,\n"
        "  listRecipe: (id: string, recipeId: string) =>\n"
        "    `${prefix}/lists/${id}/recipe/${recipeId}`,\n"
        "};\n\n"
        "export class ListsApi {\n"
        "  constructor(private requests: ApiRequestInstance) {}\n"
        "  all() {\n    return this.requests.get(routes.lists);\n  }\n"
        "  addRecipe(id: string, recipeId: string) {\n"
        "    return this.requests.post(routes.listRecipe(id, recipeId), {});\n  }\n}\n"
    )
    found = repo_links(tmp_path, "meal", {"server.js": server, "web/lists.ts": client})
    assert {(s, m, p, c) for s, _, m, p, c, _ in found} == {
        ("meal/web/lists.ts#ListsApi.all", "GET", "/api/lists", 0.9),
        ("meal/web/lists.ts#ListsApi.addRecipe", "POST", "/api/lists/{}/recipe/{}", 0.8),
    }


def test_laravel_route_tables_link_their_controllers(tmp_path: Path) -> None:
    """koel's `routes/api.base.php` declares 204 routes (`Route::post('favorites/toggle',
    [FavoriteController::class, 'toggle'])` in `Route::prefix('api')->group(…)`), and its
    frontend calls them through `http.post('favorites/toggle')`: PHP declared no route,
    and 4 of 4 links were wrong."""
    controller = (
        "<?php\nnamespace App\\Http\\Controllers;\n\n"
        "class FavoriteController\n{\n"
        "    public function toggle() {}\n}\n"
    )
    photos = (
        "<?php\nnamespace App\\Http\\Controllers;\n\n"
        "class PhotoController\n{\n"
        "    public function index() {}\n"
        "    public function show($id) {}\n"
        "    public function destroy($id) {}\n}\n"
    )
    login = "<?php\nnamespace App\\Http\\Controllers;\n\nclass LoginController\n{\n}\n"
    routes = (
        "<?php\n\n"
        "use App\\Http\\Controllers\\FavoriteController;\n"
        "use App\\Http\\Controllers\\PhotoController;\n"
        "use App\\Http\\Controllers\\LoginController;\n"
        "use Illuminate\\Support\\Facades\\Route;\n\n"
        "Route::prefix('v1')\n"
        "    ->middleware('auth') // the API\n"
        "    ->group(static function (): void {\n"
        "        Route::post('me', LoginController::class);\n"
        "        Route::group(['prefix' => 'user'], static function (): void {\n"
        "            Route::post('favorites/toggle', [FavoriteController::class, 'toggle']);\n"
        "        });\n"
        "        Route::apiResource('photos', PhotoController::class)->only(['index', 'show']);\n"
        "        Route::get('ping', static fn () => null);\n"
        "    });\n"
    )
    client = (
        "import { http } from './http';\n\n"
        "export const toggle = () => http.post('user/favorites/toggle');\n"
        "export const photo = (id: number) => fetch(`/api/v1/photos/${id}`);\n"
        "export const login = () => fetch('/api/v1/me', { method: 'POST' });\n"
        "export const ping = () => fetch('/api/v1/ping');\n"
    )
    files = {
        "composer.json": '{"autoload": {"psr-4": {"App\\\\": "app/"}}}\n',
        "app/Http/Controllers/FavoriteController.php": controller,
        "app/Http/Controllers/PhotoController.php": photos,
        "app/Http/Controllers/LoginController.php": login,
        "routes/api.php": routes,
        "resources/js/api.ts": client,
    }
    found = repo_links(tmp_path, "app", files)
    c = "app/app/Http/Controllers"
    js = "app/resources/js/api.ts"
    assert found == {
        (f"{js}#toggle", f"{c}/FavoriteController.php#FavoriteController.toggle", "POST",
         "/api/v1/user/favorites/toggle", 0.6, "unknown-base"),
        (f"{js}#photo", f"{c}/PhotoController.php#PhotoController.show", "GET",
         "/api/v1/photos/{}", 0.8, "template"),
        # an invokable controller with no `__invoke` of its own: the class
        (f"{js}#login", f"{c}/LoginController.php#LoginController", "POST", "/api/v1/me", 0.9,
         "literal"),
        # a closure: the routes file handles it
        (f"{js}#ping", "app/routes/api.php", "GET", "/api/v1/ping", 0.9, "literal"),
    }  # fmt: skip


def test_rails_routes_link_their_controller_actions(tmp_path: Path) -> None:
    """maybe (Rails) declares 280 routes in `config/routes.rb`, and its Stimulus
    controllers `fetch` five of them (`POST /plaid_items/{id}/sync`): Rails declared no
    route, so `links` was empty."""
    routes = (
        "Rails.application.routes.draw do\n"
        '  root "pages#dashboard"\n'
        '  get "changelog", to: "pages#changelog"\n\n'
        "  resources :plaid_items, only: %i[create destroy] do\n"
        "    member do\n      post :sync\n    end\n"
        "    resource :transfer_match, only: %i[create]\n"
        "  end\n\n"
        "  namespace :api do\n"
        "    namespace :v1 do\n"
        "      resources :accounts, only: [:index]\n"
        '      get :usage, to: "usage#show"\n'
        "    end\n"
        "  end\n"
        "end\n"
    )
    controllers = {
        "app/controllers/pages_controller.rb": (
            "class PagesController\n  def dashboard\n  end\n\n  def changelog\n  end\nend\n"
        ),
        "app/controllers/plaid_items_controller.rb": (
            "class PlaidItemsController\n  def create\n  end\n\n  def sync\n  end\nend\n"
        ),
        "app/controllers/transfer_matches_controller.rb": (
            "class TransferMatchesController\n  def create\n  end\nend\n"
        ),
        "app/controllers/api/v1/accounts_controller.rb": (
            "module Api\n  module V1\n    class AccountsController\n"
            "      def index\n      end\n    end\n  end\nend\n"
        ),
    }
    client = (
        "export function sync(id) {\n"
        "  return fetch(`/plaid_items/${id}/sync`, { method: 'POST' });\n}\n"
        "export function link() {\n  return fetch('/plaid_items', { method: 'POST' });\n}\n"
        "export function match(id) {\n"
        "  return fetch(`/plaid_items/${id}/transfer_match`, { method: 'POST' });\n}\n"
        "export function accounts() {\n  return fetch('/api/v1/accounts');\n}\n"
        "export function changelog() {\n  return fetch('/changelog');\n}\n"
        "export function removed(id) {\n"
        "  return fetch(`/plaid_items/${id}`, { method: 'DELETE' });\n}\n"
    )
    files = {"config/routes.rb": routes, "app/javascript/api.js": client, **controllers}
    links = repo_links(tmp_path, "maybe", files)
    found = {(s.rpartition("#")[2], t, m, p) for s, t, m, p, *_ in links}
    c = "maybe/app/controllers"
    assert found == {
        ("sync", f"{c}/plaid_items_controller.rb#PlaidItemsController.sync", "POST",
         "/plaid_items/{}/sync"),
        ("link", f"{c}/plaid_items_controller.rb#PlaidItemsController.create", "POST",
         "/plaid_items"),
        ("match", f"{c}/transfer_matches_controller.rb#TransferMatchesController.create",
         "POST", "/plaid_items/{}/transfer_match"),
        ("accounts", f"{c}/api/v1/accounts_controller.rb#Api.V1.AccountsController.index",
         "GET", "/api/v1/accounts"),
        ("changelog", f"{c}/pages_controller.rb#PagesController.changelog", "GET",
         "/changelog"),
        # `destroy` is declared, but not defined: the controller handles it
        ("removed", f"{c}/plaid_items_controller.rb#PlaidItemsController", "DELETE",
         "/plaid_items/{}"),
    }  # fmt: skip


def test_aspnet_routes_and_http_clients_link(tmp_path: Path) -> None:
    """eShop maps its APIs with `app.MapGroup("api/catalog")` and `api.MapGet("/items/
    {id:int}", GetItemById)`, and its web app calls them through `HttpClient`
    (`GetFromJsonAsync<T>($"{remoteServiceBaseUrl}items/{id}")`): C# declared no route
    and made no client call, and an OpenAPI operation was served by the wrong method."""
    api = (
        "namespace Catalog.API;\n\n"
        "public static class CatalogApi\n{\n"
        "    public static IEndpointRouteBuilder MapCatalogApi(this IEndpointRouteBuilder app)\n"
        "    {\n"
        '        var api = app.MapGroup("api/catalog");\n'
        '        api.MapGet("/items/{id:int}", GetItemById);\n'
        '        api.MapGet("/catalogbrands", GetItemById);\n'
        '        api.MapDelete("/items/{id:int}", (int id) => Results.NoContent());\n'
        "        return app;\n    }\n\n"
        "    public static Task<CatalogItem> GetItemById(int id) => null;\n}\n"
    )
    controller = (
        "namespace Ordering.API;\n\n"
        '[Route("api/[controller]")]\n'
        "public class OrdersController : ControllerBase\n{\n"
        '    [HttpGet("{orderId:int}")]\n'
        "    public IActionResult GetOrder(int orderId) => Ok();\n\n"
        "    [HttpPut]\n"
        '    [Route("cancel")]\n'
        "    public IActionResult CancelOrder() => Ok();\n}\n"
    )
    client = (
        "namespace WebApp;\n\n"
        "public class CatalogService(HttpClient httpClient)\n{\n"
        '    private readonly string remoteServiceBaseUrl = "api/catalog/";\n\n'
        "    public Task<CatalogItem?> GetCatalogItem(int id)\n    {\n"
        '        var uri = $"{remoteServiceBaseUrl}items/{id}";\n'
        "        return httpClient.GetFromJsonAsync<CatalogItem>(uri);\n    }\n\n"
        "    public Task Remove(int id) =>\n"
        '        httpClient.DeleteAsync($"/api/catalog/items/{id}");\n\n'
        '    public Task Order() => httpClient.GetAsync("/api/orders/7");\n\n'
        # a cache's GetAsync is no HTTP call
        '    public Task Cached(IDistributedCache cache) => cache.GetAsync("/api/orders/7");\n\n'
        '    public Task Cancel() => httpClient.PutAsJsonAsync("/api/orders/cancel", 1);\n\n'
        '    private const string CancelUrl = "/api/orders/cancel";\n\n'
        "    public Task Send() =>\n"
        "        httpClient.SendAsync(new HttpRequestMessage(HttpMethod.Put, CancelUrl));\n\n"
        "    public Task Brands() =>\n"
        '        httpClient.GetFromJsonAsync<Brand[]>($"{remoteServiceBaseUrl}catalogBrands");\n}\n'
    )
    files = {
        "src/Catalog.API/Apis/CatalogApi.cs": api,
        "src/Ordering.API/Controllers/OrdersController.cs": controller,
        "src/WebApp/Services/CatalogService.cs": client,
    }
    found = repo_links(tmp_path, "shop", files)
    web = "shop/src/WebApp/Services/CatalogService.cs#CatalogService"
    catalog = "shop/src/Catalog.API/Apis/CatalogApi.cs#CatalogApi"
    orders = "shop/src/Ordering.API/Controllers/OrdersController.cs#OrdersController"
    assert found == {
        # `{remoteServiceBaseUrl}items/{id}` → `api/catalog/items/{}`, relative
        (f"{web}.GetCatalogItem", f"{catalog}.GetItemById", "GET", "/api/catalog/items/{}",
         0.6, "unknown-base"),
        # a lambda handles its route in the method mapping it
        (f"{web}.Remove", f"{catalog}.MapCatalogApi", "DELETE", "/api/catalog/items/{}", 0.8,
         "template"),
        (f"{web}.Order", f"{orders}.GetOrder", "GET", "/api/orders/{}", 0.8, "template"),
        (f"{web}.Cancel", f"{orders}.CancelOrder", "PUT", "/api/orders/cancel", 0.9,
         "literal"),
        # `new HttpRequestMessage(HttpMethod.Put, CancelUrl)`, a constant of the file
        (f"{web}.Send", f"{orders}.CancelOrder", "PUT", "/api/orders/cancel", 0.9, "literal"),
        # ASP.NET routes ignore case: `catalogBrands` is `/catalogbrands`
        (f"{web}.Brands", f"{catalog}.GetItemById", "GET", "/api/catalog/catalogbrands", 0.6,
         "unknown-base"),
    }  # fmt: skip


def test_aspnet_route_attributes_of_its_own_and_of_a_base_controller(tmp_path: Path) -> None:
    """Ombi routes 39 of its 40 controllers with `[ApiV1]`, a `RouteAttribute` whose
    constructor passes `base("api/v1/[controller]")`, or inherits `[ApiV2]` from
    `V2Controller`: every action was read at the root (`POST /`), so a login reached 9
    controllers. The action's evidence is its verb attribute, not its doc comment."""
    attributes = (
        "namespace Ombi.Attributes\n{\n"
        "    public class ApiV1Attribute : RouteAttribute\n    {\n"
        '        protected const string ApiBase = "api/v1/[controller]";\n\n'
        "        public ApiV1Attribute() : base(ApiBase)\n        {\n        }\n    }\n\n"
        "    public class ApiV2Attribute : RouteAttribute\n    {\n"
        '        public ApiV2Attribute() : base("api/v2/[controller]") { }\n    }\n}\n'
    )
    token = (
        "namespace Ombi.Controllers\n{\n"
        "    [ApiV1]\n    [ApiController]\n"
        "    public class TokenController : ControllerBase\n    {\n"
        "        /// <summary>\n        /// Signs a user in.\n        /// </summary>\n"
        "        [HttpPost]\n"
        "        public IActionResult GetToken() => Ok();\n    }\n}\n"
    )
    v2 = (
        "namespace Ombi.Controllers.V2\n{\n"
        "    [ApiV2]\n    public class V2Controller : ControllerBase\n    {\n    }\n\n"
        "    public class SearchController : V2Controller\n    {\n"
        '        [HttpPost("multi/{searchTerm}")]\n'
        "        public IActionResult MultiSearch(string searchTerm) => Ok();\n    }\n}\n"
    )
    client = (
        "namespace Ombi.Client\n{\n"
        "    public class Api(HttpClient httpClient)\n    {\n"
        '        public Task Login() => httpClient.PostAsync("/api/v1/token", null);\n\n'
        '        public Task Search() => httpClient.PostAsync("/api/v2/search/multi/x", null);\n'
        "    }\n}\n"
    )
    files = {
        "src/Ombi/Attributes/ApiAttributes.cs": attributes,
        "src/Ombi/Controllers/V1/TokenController.cs": token,
        "src/Ombi/Controllers/V2/SearchController.cs": v2,
        "src/Ombi.Client/Api.cs": client,
    }
    write(tmp_path / "ombi", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "ombi", name="ombi")
        rows = http_links(engine)
    found = {(s.rpartition("#")[2], t.rpartition("#")[2], p, line) for s, t, _, p, *_, line in rows}
    assert found == {
        ("Api.Login", "TokenController.GetToken", "/api/v1/token", 10),
        ("Api.Search", "SearchController.MultiSearch", "/api/v2/search/multi/{}", 10),
    }


def test_laravel_and_rails_tests_request_their_routes(tmp_path: Path) -> None:
    """koel's 600 feature tests `$this->getJson('api/…')` its routes, and maybe's API tests
    `post "/api/v1/auth/signup"`: neither was a client call, so `callers` of an action
    listed no test."""
    controller = (
        "<?php\nnamespace App\\Http\\Controllers;\n\n"
        "class SongController\n{\n    public function show($id) {}\n}\n"
    )
    routes = (
        "<?php\n\nuse App\\Http\\Controllers\\SongController;\n"
        "use Illuminate\\Support\\Facades\\Route;\n\n"
        "Route::get('songs/{song}', [SongController::class, 'show']);\n"
    )
    php_test = (
        "<?php\nnamespace Tests\\Feature;\n\n"
        "class SongTest extends TestCase\n{\n"
        "    public function testShow(): void\n    {\n"
        '        $this->getJson("api/songs/{$this->song->id}")->assertOk();\n'
        "        cache()->get('api/songs/1');\n    }\n}\n"
    )
    rails_routes = (
        "Rails.application.routes.draw do\n"
        "  namespace :api do\n    namespace :v1 do\n"
        '      post "auth/signup", to: "auth#signup"\n    end\n  end\nend\n'
    )
    auth = (
        "module Api\n  module V1\n    class AuthController\n"
        "      def signup\n      end\n    end\n  end\nend\n"
    )
    rails_test = (
        "class AuthControllerTest < ActionDispatch::IntegrationTest\n"
        '  test "signs up" do\n'
        '    post "/api/v1/auth/signup", params: { email: "a@b.c" }\n'
        "  end\nend\n"
    )
    files = {
        "composer.json": '{"autoload": {"psr-4": {"App\\\\": "app/"}}}\n',
        "app/Http/Controllers/SongController.php": controller,
        "routes/api.php": routes,
        "tests/Feature/SongTest.php": php_test,
        "config/routes.rb": rails_routes,
        "app/controllers/api/v1/auth_controller.rb": auth,
        "test/controllers/api/v1/auth_controller_test.rb": rails_test,
    }
    found = {link[:4] for link in repo_links(tmp_path, "app", files)}
    assert found == {
        ("app/tests/Feature/SongTest.php#SongTest.testShow",
         "app/app/Http/Controllers/SongController.php#SongController.show", "GET",
         "/api/songs/{}"),
        ("app/test/controllers/api/v1/auth_controller_test.rb#AuthControllerTest",
         "app/app/controllers/api/v1/auth_controller.rb#Api.V1.AuthController.signup", "POST",
         "/api/v1/auth/signup"),
    }  # fmt: skip


def test_spring_and_jaxrs_routes_and_java_clients_link(tmp_path: Path) -> None:
    """spring-petclinic-microservices: 15 routes (`@RequestMapping("/owners")` on a class,
    `@GetMapping(value = "/{ownerId}")` on its methods) and 20 client calls (WebClient
    `.get().uri("http://customers-service/owners/{ownerId}")`, AngularJS `$http`), and
    `links` listed none: Java declared no route and made no call."""
    owners = (
        "package petclinic.customers.web;\n\n"
        "/** Owners. */\n"
        '@RequestMapping("/owners")\n'
        "@RestController\n"
        "class OwnerResource {\n"
        "    /** Create. */\n"
        "    @PostMapping\n"
        "    @ResponseStatus(HttpStatus.CREATED)\n"
        "    public Owner createOwner(@Valid @RequestBody OwnerRequest request) {\n"
        "        return null;\n    }\n\n"
        '    @GetMapping(value = "/{ownerId}")\n'
        '    public Optional<Owner> findOwner(@PathVariable("ownerId") int ownerId) {\n'
        "        return null;\n    }\n\n"
        '    @RequestMapping(value = {"/{ownerId}/pets", "/{ownerId}/animals"},\n'
        '                    method = RequestMethod.PUT, produces = "application/json")\n'
        "    public void updatePets(int ownerId) {\n    }\n\n"
        # not a route: no mapping annotation
        "    public void helper() {\n    }\n}\n"
    )
    visits = (
        "package petclinic.visits\n\n"
        "@RestController\n"
        "class VisitResource {\n"
        '    @GetMapping("/pets/visits")\n'
        "    fun read(@RequestParam petId: List<Int>): Visits = Visits()\n"
        "}\n"
    )
    items = (
        "package shop;\n\n"
        "@Path(Paths.ITEMS)\n"  # a prefix not read: the method's own path is matched
        "public class ItemResource {\n"
        "    @GET\n"
        '    @Path("{id}/price")\n'
        '    public Price price(@PathParam("id") long id) {\n        return null;\n    }\n}\n'
    )
    gateway = (
        "package petclinic.api;\n\n"
        "public class CustomersServiceClient {\n"
        '    private String hostname = "http://visits-service/";\n\n'
        "    public Mono<OwnerDetails> getOwner(final int ownerId) {\n"
        "        return webClientBuilder.build().get()\n"
        '            .uri("http://customers-service/owners/{ownerId}", ownerId)\n'
        "            .retrieve().bodyToMono(OwnerDetails.class);\n    }\n\n"
        "    public Mono<Visits> getVisits(List<Integer> petIds) {\n"
        "        return webClientBuilder.build().get()\n"
        '            .uri(hostname + "pets/visits?petId={petId}", joinIds(petIds))\n'
        "            .retrieve().bodyToMono(Visits.class);\n    }\n\n"
        "    public void save(int ownerId) {\n"
        '        String url = "http://customers-service/owners/" + ownerId + "/pets";\n'
        "        restTemplate.exchange(url, HttpMethod.PUT, null, Void.class);\n"
        # a cache's `put` is no HTTP call
        '        cache.put("/owners/1", null);\n    }\n\n'
        "    public Price price() {\n"
        '        return restTemplate.getForObject(baseUrl() + "/items/7/price", Price.class);\n'
        "    }\n}\n"
    )
    feign = (
        "package petclinic.api;\n\n"
        '@FeignClient(name = "customers-service", path = "/owners")\n'
        "public interface OwnersClient {\n"
        '    @GetMapping("/{ownerId}")\n'
        '    OwnerDetails getOwner(@PathVariable("ownerId") int ownerId);\n}\n'
    )
    test = (
        "package petclinic.customers.web;\n\n"
        "class OwnerResourceTest {\n"
        "    @Test\n"
        "    void shouldCreateOwner() throws Exception {\n"
        '        mvc.perform(post("/owners").content("{}")).andExpect(status().isCreated());\n'
        "    }\n}\n"
    )
    # Spring Cloud Gateway forwards /api/customer/** to the service named so, less two
    # segments; the frontend calls it there
    gateway_yml = (
        "spring:\n  application:\n    name: api-gateway\n  cloud:\n    gateway:\n"
        "      routes:\n"
        "        - id: customers-service\n          uri: lb://customers-service\n"
        "          predicates:\n            - Path=/api/customer/**\n"
        "          filters:\n            - StripPrefix=2\n"
        "        - id: unknown\n          uri: lb://nowhere\n"
        "          predicates:\n            - Path=/api/none/**\n"
    )
    frontend = (
        "angular.module('ownerDetails').controller('OwnerDetailsController', "
        "function ($http, $stateParams) {\n"
        "    $http.get('api/customer/owners/' + $stateParams.ownerId).then(function (r) {});\n"
        "});\n"
    )
    files = {
        "customers/src/main/resources/application.yml": (
            "spring:\n  application:\n    name: customers-service\n"
        ),
        "gateway/src/main/resources/application.yml": gateway_yml,
        "gateway/src/main/resources/static/scripts/owner-details.js": frontend,
        "customers/src/main/java/petclinic/customers/web/OwnerResource.java": owners,
        "visits/src/main/kotlin/petclinic/visits/VisitResource.kt": visits,
        "shop/src/main/java/shop/ItemResource.java": items,
        "gateway/src/main/java/petclinic/api/CustomersServiceClient.java": gateway,
        "gateway/src/main/java/petclinic/api/OwnersClient.java": feign,
        "customers/src/test/java/petclinic/customers/web/OwnerResourceTest.java": test,
        # an integration test: `RequestEntity`, and `exchange` alone in its file
        "customers/src/test/java/petclinic/customers/web/OwnerIT.java": (
            "package petclinic.customers.web;\n\nclass OwnerIT {\n"
            "    void reads() {\n"
            '        template.exchange(RequestEntity.get("/owners/1").build(), String.class);\n'
            '        rest.exchange("http://localhost:" + port + "/owners/7", HttpMethod.GET,'
            " null, String.class);\n    }\n}\n"
        ),
    }
    found = repo_links(tmp_path, "pc", files)
    owner = "pc/customers/src/main/java/petclinic/customers/web/OwnerResource.java#OwnerResource"
    client = "pc/gateway/src/main/java/petclinic/api/CustomersServiceClient.java#"
    client += "CustomersServiceClient"
    visit = "pc/visits/src/main/kotlin/petclinic/visits/VisitResource.kt#VisitResource.read"
    item = "pc/shop/src/main/java/shop/ItemResource.java#ItemResource.price"
    feign_get = "pc/gateway/src/main/java/petclinic/api/OwnersClient.java#OwnersClient.getOwner"
    test_id = "pc/customers/src/test/java/petclinic/customers/web/OwnerResourceTest.java#"
    test_id += "OwnerResourceTest.shouldCreateOwner"
    assert found == {
        (f"{client}.getOwner", f"{owner}.findOwner", "GET", "/owners/{}", 0.8, "template"),
        # a field of the file holds the host; the Kotlin controller serves it
        (f"{client}.getVisits", visit, "GET", "/pets/visits", 0.9, "literal"),
        # a local holds the URL; the method comes from `HttpMethod.PUT`; both paths served
        (f"{client}.save", f"{owner}.updatePets", "PUT", "/owners/{}/pets", 0.8, "template"),
        # a base not read, under a prefix not read
        (f"{client}.price", item, "GET", "/{}/price", 0.5, "unknown-prefix"),
        (feign_get, f"{owner}.findOwner", "GET", "/owners/{}", 0.8, "template"),
        (test_id, f"{owner}.createOwner", "POST", "/owners", 0.9, "literal"),
        ("pc/customers/src/test/java/petclinic/customers/web/OwnerIT.java#OwnerIT.reads",
         f"{owner}.findOwner", "GET", "/owners/{}", 0.8, "template"),
        ("pc/gateway/src/main/resources/static/scripts/owner-details.js", f"{owner}.findOwner",
         "GET", "/api/customer/owners/{}", 0.6, "unknown-base"),
    }  # fmt: skip


def test_a_gateway_written_as_properties_or_rewriting_paths_serves_its_services(
    tmp_path: Path,
) -> None:
    """The same gateway routes as `application.properties` keys, a `RewritePath` in
    place of `StripPrefix`, a service named in its `bootstrap.properties`."""
    gateway = (
        "spring.application.name=gateway\n"
        "spring.cloud.gateway.routes[0].id=vets\n"
        "spring.cloud.gateway.routes[0].uri=lb://vets-service\n"
        "spring.cloud.gateway.routes[0].predicates[0]=Path=/api/vet/**\n"
        "spring.cloud.gateway.routes[0].filters[0]=RewritePath=/api/vet/(?<rest>.*), /${rest}\n"
    )
    files = {
        "gateway/src/main/resources/application.properties": gateway,
        "vets/src/main/resources/bootstrap.properties": "spring.application.name=vets-service\n",
        "vets/src/main/java/vets/VetResource.java": (
            "package vets;\n\n@RestController\nclass VetResource {\n"
            '    @GetMapping("/vets")\n    public List<Vet> list() {\n        return null;\n'
            "    }\n}\n"
        ),
        "web/vets.ts": "export const vets = () => fetch('/api/vet/vets');\n",
    }
    found = repo_links(tmp_path, "pc", files)
    assert found == {
        ("pc/web/vets.ts#vets", "pc/vets/src/main/java/vets/VetResource.java#VetResource.list",
         "GET", "/api/vet/vets", 0.9, "literal"),
    }  # fmt: skip


def test_django_includes_of_a_list_and_of_a_prefix_not_read(tmp_path: Path) -> None:
    """healthchecks: `path(prefix, include("hc.front.urls"))` with `prefix` bound twice
    read as a parameter segment, so none of 148 routes linked; and `path("checks/<uuid:
    code>/", include(check_urls))`, a list of the same URLconf, lost its prefix."""
    root = (
        "from django.urls import include, path\n\n"
        'prefix = ""\n'
        "if _path := site_path():\n"
        '    prefix = f"{_path}/"\n\n'
        'urlpatterns = [path(prefix, include("front.urls"))]\n'
    )
    front = (
        "from django.urls import include, path\n\n"
        "from front import views\n\n"
        "check_urls = [\n"
        '    path("pause/", views.pause, name="hc-pause"),\n'
        "]\n\n"
        "urlpatterns = [\n"
        '    path("checks/<uuid:code>/", include(check_urls)),\n'
        '    path("projects/menu/", views.menu),\n'
        "]\n"
    )
    views = "def pause(request, code):\n    pass\n\n\ndef menu(request):\n    pass\n"
    script = (
        "function pause(code) {\n"
        "    fetch(base + '/checks/' + code + '/pause/', {method: 'POST'});\n"
        "    fetch('/projects/menu/');\n"
        "}\n"
    )
    files = {
        "site/__init__.py": "",
        "site/urls.py": root,
        "front/__init__.py": "",
        "front/urls.py": front,
        "front/views.py": views,
        "static/js/details.js": script,
    }
    assert repo_links(tmp_path, "hc", files) == {
        ("hc/static/js/details.js#pause", "hc/front/views.py#pause", "POST",
         "/checks/{}/pause", 0.5, "unknown-prefix"),
        ("hc/static/js/details.js#pause", "hc/front/views.py#menu", "GET", "/projects/menu",
         0.5, "unknown-prefix"),
    }  # fmt: skip


def test_jquery_requests_are_client_calls(tmp_path: Path) -> None:
    """healthchecks' frontend calls its views with `$.ajax({url, type: "post"})`,
    `$.getJSON(url)` and `$.post(url)`: none was a client call."""
    server = (
        "const express = require('express');\nconst app = express();\n"
        "app.post('/checks/cron_preview/', function preview(req, res) {});\n"
        "app.get('/checks/validate_schedule/', function validate(req, res) {});\n"
        "app.post('/checks/:code/pause/', function pause(req, res) {});\n"
    )
    script = (
        "function preview(base, token) {\n"
        '    $.ajax({url: base + "/checks/cron_preview/", type: "post", data: {}});\n'
        '    $.getJSON(base + "/checks/validate_schedule/", {}, function (data) {});\n'
        "}\n"
        "function pause(code) {\n"
        '    jQuery.post("/checks/" + code + "/pause/", function () {});\n'
        # a jQuery selection's `.get(0)` is no request
        '    $("#x").get(0);\n'
        "}\n"
    )
    found = repo_links(tmp_path, "hc", {"server.js": server, "static/js/checks.js": script})
    js = "hc/static/js/checks.js"
    assert found == {  # an inline handler's route is its file's
        (f"{js}#preview", "hc/server.js#preview", "POST", "/checks/cron_preview", 0.6,
         "unknown-base"),
        (f"{js}#preview", "hc/server.js#validate", "GET", "/checks/validate_schedule", 0.6,
         "unknown-base"),
        (f"{js}#pause", "hc/server.js#pause", "POST", "/checks/{}/pause", 0.8, "template"),
    }  # fmt: skip


def test_a_url_built_from_this_reads_what_the_constructor_set(tmp_path: Path) -> None:
    """OpenCFP's `Talk` scripts set `this.baseUrl = '/admin/talks/'` (and the reviewer's
    `'/reviewer/talks/'`) and request `this.baseUrl + this.id + '/rate'`: the base was
    not read, so each `rate` reached both RateActions. A class's constructor or field
    counts the same; a member set to two different strings is not read."""
    server = (
        "const express = require('express');\nconst app = express();\n"
        "app.post('/admin/talks/:id/rate', function adminRate(req, res) {});\n"
        "app.post('/reviewer/talks/:id/rate', function reviewerRate(req, res) {});\n"
        "app.get('/api/users/:id', function user(req, res) {});\n"
    )
    admin = (
        "function Talk(id) {\n  this.id = id;\n  this.baseUrl = '/admin/talks/';\n}\n\n"
        "Talk.prototype.rate = function (rating) {\n"
        "  var url = this.baseUrl + this.id + '/rate';\n"
        '  $.ajax({type: "POST", url: url, data: {rating: rating}});\n'
        "};\n"
    )
    reviewer = admin.replace("/admin/", "/reviewer/")
    client = (
        "import axios from 'axios';\n\n"
        "export class Users {\n  base = '/api/users/';\n\n"
        "  one(id: string) {\n    return axios.get(this.base + id);\n  }\n}\n\n"
        "export class Either {\n  constructor(admin: boolean) {\n"
        "    this.base = '/admin/talks/';\n"
        "    if (!admin) {\n      this.base = '/reviewer/talks/';\n    }\n  }\n\n"
        "  rate(id: string) {\n    return axios.post(this.base + id + '/rate');\n  }\n}\n"
    )
    files = {
        "server.js": server,
        "js/admin/talk.js": admin,
        "js/reviewer/talk.js": reviewer,
        "src/users.ts": client,
    }
    found = repo_links(tmp_path, "cfp", files)
    # Each route's named handler (`function adminRate(req, res)`) is its function.
    assert found == {
        ("cfp/js/admin/talk.js#Talk.rate", "cfp/server.js#adminRate", "POST",
         "/admin/talks/{}/rate", 0.8, "template"),
        ("cfp/js/reviewer/talk.js#Talk.rate", "cfp/server.js#reviewerRate", "POST",
         "/reviewer/talks/{}/rate", 0.8, "template"),
        ("cfp/src/users.ts#Users.one", "cfp/server.js#user", "GET", "/api/users/{}", 0.8,
         "template"),
        # two bases: below an unknown one, either route fits
        ("cfp/src/users.ts#Either.rate", "cfp/server.js#adminRate", "POST",
         "/admin/talks/{}/rate", 0.6, "unknown-base"),
        ("cfp/src/users.ts#Either.rate", "cfp/server.js#reviewerRate", "POST",
         "/reviewer/talks/{}/rate", 0.6, "unknown-base"),
    }  # fmt: skip


def test_an_angular_service_requests_below_the_path_it_gives_its_base(tmp_path: Path) -> None:
    """Ombi's services pass their path to a helper base (`super(http, "/api/v1/Lidarr",
    href)`), which keeps it in `this.url`; `${this.url}/enabled/` was read as `{}/enabled`,
    reaching Lidarr's, Radarr's and Sonarr's `enabled` alike."""
    server = (
        "const express = require('express');\nconst app = express();\n"
        "app.get('/api/v1/lidarr/enabled', function lidarr(req, res) {});\n"
        "app.get('/api/v1/radarr/enabled', function radarr(req, res) {});\n"
    )
    helper = (
        "export class ServiceHelpers {\n"
        "  constructor(protected http: HttpClient, protected url: string, href: string) {\n"
        "    this.url = href + this.url;\n  }\n}\n"
    )
    service = (
        "import { ServiceHelpers } from './helpers';\n\n"
        "export class LidarrService extends ServiceHelpers {\n"
        "  constructor(http: HttpClient, href: string) {\n"
        '    super(http, "/api/v1/Lidarr", href);\n  }\n\n'
        "  public enabled() {\n    return this.http.get<boolean>(`${this.url}/enabled/`);\n  }\n}\n"
    )
    files = {"server.js": server, "app/helpers.ts": helper, "app/lidarr.service.ts": service}
    found = repo_links(tmp_path, "ombi", files)
    assert found == {
        ("ombi/app/lidarr.service.ts#LidarrService.enabled", "ombi/server.js#lidarr", "GET",
         "/api/v1/lidarr/enabled", 0.6, "unknown-base"),
    }  # fmt: skip


def test_django_url_names_link_reverse_redirect_and_url_tags_to_their_views(
    tmp_path: Path,
) -> None:
    """healthchecks: `callers views.details` found nothing, though `reverse("hc-details",
    args=[…])`, `redirect("hc-details", code)` and templates' `{% url 'hc-details' … %}`
    all lead to it by its name; an `app_name` namespaces a URLconf's names."""
    urls = (
        "from django.urls import path\n\nfrom front import views\n\n"
        'app_name = "front"\n\n'
        "urlpatterns = [\n"
        '    path("checks/<uuid:code>/details/", views.details, name="hc-details"),\n'
        '    path("", views.index, name="hc-index"),\n'
        # no slash, so no path to read but for its name
        '    path("contact.vcf", views.contact, name="hc-contact-vcf"),\n'
        # a view's kwargs after it; an instance as the view
        '    path("docs/", views.details, {"url": ""}, name="hc-docs"),\n'
        '    path("feed/", views.Feed(), name="hc-feed"),\n'
        "]\n"
    )
    views = (
        "from django.shortcuts import redirect\nfrom django.urls import reverse\n\n\n"
        "def details(request, code):\n    pass\n\n\n"
        "def index(request):\n    pass\n\n\n"
        "def contact(request):\n    pass\n\n\n"
        "class Feed:\n    def __call__(self, request):\n        pass\n\n\n"
        "def add(request, code):\n"
        '    url = reverse("front:hc-details", args=[code])\n'
        '    return redirect("front:hc-details", code)\n\n\n'
        "def home(request):\n"
        '    return redirect("front:hc-nope")\n'
    )
    template = (
        "<ul>\n{% for check in checks %}\n"
        "  <li><a href=\"{% url 'front:hc-details' check.code %}\">{{ check }}</a></li>\n"
        "{% endfor %}\n</ul>\n"
        "<a href=\"{% url 'front:hc-contact-vcf' %}\">card</a>\n"
        "<a href=\"{% host_url 'front:hc-docs' host 'docs' %}\">docs</a>\n"
        "{% comment %}<a href=\"{% url 'front:hc-index' %}\">old</a>{% endcomment %}\n"
        "{# <a href=\"{% url 'front:hc-index' %}\"> #}\n"
        "<a href=\"{% url 'front:hc-feed' %}\">feed</a>\n"
    )
    files = {
        "front/__init__.py": "",
        "front/urls.py": urls,
        "front/views.py": views,
        "templates/front/checks.html": template,
        # django-hosts' reverse
        "front/links.py": (
            "from django_hosts.resolvers import reverse\n\n\n"
            'def home_link():\n    return reverse("front:hc-index", host="www")\n'
        ),
    }
    d = "hc/front/views.py#details"
    assert repo_links(tmp_path, "hc", files) == {
        ("hc/front/views.py#add", d, "*", "url front:hc-details", 0.9, "url-name"),
        ("hc/templates/front/checks.html", d, "*", "url front:hc-details", 0.9, "url-name"),
        ("hc/templates/front/checks.html", "hc/front/views.py#contact", "*",
         "url front:hc-contact-vcf", 0.9, "url-name"),
        ("hc/templates/front/checks.html", d, "*", "url front:hc-docs", 0.9, "url-name"),
        ("hc/front/links.py#home_link", "hc/front/views.py#index", "*", "url front:hc-index",
         0.9, "url-name"),
        ("hc/templates/front/checks.html", "hc/front/views.py#Feed", "*", "url front:hc-feed",
         0.9, "url-name"),
    }  # fmt: skip


def test_go_routers_and_http_clients_link(tmp_path: Path) -> None:
    """online-boutique's Go frontend routes with gorilla/mux (`r.HandleFunc(baseUrl+
    "/cart", svc.viewCartHandler).Methods(http.MethodGet)`), and Go declared no route
    and made no client call at all: net/http (1.22 patterns), gorilla (subrouters), chi
    (`r.Route` blocks), gin and echo (groups); `http.Get`, `http.NewRequest`."""
    frontend = (
        "package main\n\n"
        'import (\n\t"net/http"\n\n\t"github.com/gorilla/mux"\n)\n\n'
        "func run(svc *frontendServer, baseUrl string) {\n"
        "\tr := mux.NewRouter()\n"
        '\tr.HandleFunc(baseUrl+"/cart", svc.viewCartHandler)'
        ".Methods(http.MethodGet, http.MethodHead)\n"
        '\tr.HandleFunc(baseUrl+"/cart", svc.addToCartHandler).Methods(http.MethodPost)\n'
        '\tapi := r.PathPrefix("/api").Subrouter()\n'
        '\tapi.HandleFunc("/product/{id}", svc.productHandler)\n'
        "}\n"
    )
    handlers = (
        'package main\n\nimport "net/http"\n\ntype frontendServer struct{}\n\n'
        "func (fe *frontendServer) viewCartHandler(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func (fe *frontendServer) addToCartHandler(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func (fe *frontendServer) productHandler(w http.ResponseWriter, r *http.Request) {}\n"
    )
    std = (
        'package items\n\nimport "net/http"\n\n'
        "func Routes(mux *http.ServeMux) {\n"
        '\tmux.HandleFunc("GET /items/{id}", getItem)\n'
        '\thttp.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {})\n'
        "}\n\n"
        "func getItem(w http.ResponseWriter, r *http.Request) {}\n"
    )
    chi = (
        'package orders\n\nimport "github.com/go-chi/chi/v5"\n\n'
        "func Router(h *Handler) chi.Router {\n"
        "\tr := chi.NewRouter()\n"
        '\tr.Route("/orders", func(r chi.Router) {\n'
        '\t\tr.Get("/", h.List)\n'
        '\t\tr.Post("/{orderID}/cancel", h.Cancel)\n'
        "\t})\n"
        "\treturn r\n}\n\n"
        "type Handler struct{}\n\n"
        "func (h *Handler) List(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func (h *Handler) Cancel(w http.ResponseWriter, r *http.Request) {}\n"
    )
    gin = (
        'package users\n\nimport "github.com/gin-gonic/gin"\n\n'
        "func Setup(r *gin.Engine) {\n"
        '\tv1 := r.Group("/v1")\n'
        '\tv1.GET("/users/:id", showUser)\n'
        "}\n\n"
        "func showUser(c *gin.Context) {}\n"
    )
    client = (
        "package client\n\n"
        'import (\n\t"fmt"\n\t"net/http"\n)\n\n'
        'const base = "http://orders:8080"\n\n'
        "func Cancel(id string) error {\n"
        '\treq, _ := http.NewRequest(http.MethodPost, base+"/orders/"+id+"/cancel", nil)\n'
        "\t_, err := http.DefaultClient.Do(req)\n"
        "\treturn err\n}\n\n"
        "func Item(host string, id int) {\n"
        '\thttp.Get(fmt.Sprintf("%s/items/%d", host, id))\n'
        '\turl := "http://users/v1/users/" + fmt.Sprint(id)\n'
        "\thttp.Get(url)\n"
        "\t// a query's Get is no request\n"
        '\tq.Get("id")\n'
        "}\n"
    )
    files = {
        "frontend/main.go": frontend,
        "frontend/handlers.go": handlers,
        "items/routes.go": std,
        "orders/router.go": chi,
        "users/routes.go": gin,
        "client/client.go": client,
    }
    write(tmp_path / "shop", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "shop", name="shop")
        routes = {
            (f.method, f.pattern, f.node.partition("#")[2], bool(f.router))
            for f in engine.backend.links.http_facts()
            if f.role == "route"
        }
        found = {(s, t, m, p, c, v) for s, t, m, p, c, v, *_ in http_links(engine)}
    assert routes == {
        # under `baseUrl`, not read; gorilla's `.Methods(…)`
        ("GET", "/cart", "frontendServer.viewCartHandler", True),
        ("HEAD", "/cart", "frontendServer.viewCartHandler", True),
        ("POST", "/cart", "frontendServer.addToCartHandler", True),
        ("*", "/api/product/{}", "frontendServer.productHandler", False),  # a subrouter
        ("GET", "/items/{}", "getItem", False),  # a Go 1.22 pattern
        ("*", "/health", "Routes", False),  # an inline handler: the function registering it
        ("GET", "/orders", "Handler.List", False),  # in chi's `r.Route("/orders", …)`
        ("POST", "/orders/{}/cancel", "Handler.Cancel", False),
        ("GET", "/v1/users/{}", "showUser", False),  # a gin group
    }
    assert found == {
        ("shop/client/client.go#Cancel", "shop/orders/router.go#Handler.Cancel", "POST",
         "/orders/{}/cancel", 0.8, "template"),
        ("shop/client/client.go#Item", "shop/items/routes.go#getItem", "GET", "/items/{}",
         0.6, "unknown-base"),
        ("shop/client/client.go#Item", "shop/users/routes.go#showUser", "GET", "/v1/users/{}",
         0.8, "template"),
    }  # fmt: skip


def test_a_locust_load_test_requests_the_routes(tmp_path: Path) -> None:
    """online-boutique's load generator, `l.client.get("/product/" + id)` in a locust
    task, requests the frontend's routes: no client call was read."""
    app = (
        "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
        '@app.route("/product/<pid>")\ndef product(pid):\n    return pid\n'
    )
    locustfile = (
        "import random\n\nfrom locust import FastHttpUser, TaskSet\n\n\n"
        "def browse(l):\n"
        '    l.client.get("/product/" + random.choice(["a", "b"]))\n'
    )
    files = {"app.py": app, "loadgenerator/locustfile.py": locustfile}
    assert repo_links(tmp_path, "shop", files) == {
        ("shop/loadgenerator/locustfile.py#browse", "shop/app.py#product", "GET",
         "/product/{}", 0.8, "template"),
    }  # fmt: skip


def test_the_root_route_and_the_nearest_of_equal_routes() -> None:
    """piggymetrics' `post("/")` in a test did not reach `POST /` (a path with no
    segment never matched), and `get("/current")` in account-service's tests also
    reached statistics-service's `GET /current`: of routes fitting a call equally, those
    nearest to the caller's file win."""
    facts = [
        fact("route", "POST", "/", "accounts#create", path="account/src/main/Ctl.java"),
        fact("route", "GET", "/current", "accounts#cur", path="account/src/main/Ctl.java"),
        fact("route", "GET", "/current", "stats#cur", path="statistics/src/main/Ctl.java"),
        fact("call", "POST", "/", "test#create", path="account/src/test/CtlTest.java"),
        fact("call", "GET", "/current", "test#cur", path="account/src/test/CtlTest.java"),
        fact("call", "GET", "/current", "web#cur", path="web/app.js"),
    ]
    edges = [e for rows in link_http(facts).values() for e in rows]
    assert sorted((e.source, e.target, e.via) for e in edges) == [
        ("test#create", "accounts#create", "literal"),
        ("test#cur", "accounts#cur", "literal"),
        # as near to both: both
        ("web#cur", "accounts#cur", "literal"),
        ("web#cur", "stats#cur", "literal"),
    ]


def test_a_spring_context_path_prefixes_its_modules_routes(tmp_path: Path) -> None:
    """piggymetrics sets `server.servlet.context-path: /accounts` in its config
    server's `shared/account-service.yml`: the account service serves `/accounts/{name}`,
    which the notification service's Feign client calls; the routes were read as
    `/{name}` and nothing linked. A module's own `application.properties` says it too."""
    files = {
        "config/src/main/resources/shared/account-service.yml": (
            "server:\n  servlet:\n    context-path: /accounts\n  port: 6000\n"
        ),
        "account-service/src/main/resources/bootstrap.yml": (
            "spring:\n  application:\n    name: account-service\n"
        ),
        "account-service/src/main/java/acc/AccountController.java": (
            "package acc;\n\n@RestController\npublic class AccountController {\n"
            '    @RequestMapping(path = "/{name}", method = RequestMethod.GET)\n'
            "    public Account getAccountByName(@PathVariable String name) { return null; }\n}\n"
        ),
        "notification-service/src/main/java/nt/AccountServiceClient.java": (
            "package nt;\n\n"
            '@FeignClient(name = "account-service")\npublic interface AccountServiceClient {\n'
            '    @RequestMapping(method = RequestMethod.GET, value = "/accounts/{accountName}")\n'
            '    Account getAccount(@PathVariable("accountName") String accountName);\n}\n'
        ),
        "auth-service/src/main/resources/application.properties": (
            "spring.application.name=auth-service\nserver.servlet.context-path=/uaa\n"
        ),
        "auth-service/src/main/java/auth/UserController.java": (
            'package auth;\n\n@RestController\n@RequestMapping("/users")\n'
            "public class UserController {\n"
            "    @PostMapping\n    public void createUser(User user) { }\n}\n"
        ),
        "account-service/src/main/java/acc/AuthServiceClient.java": (
            "package acc;\n\n"
            '@FeignClient(name = "auth-service")\npublic interface AuthServiceClient {\n'
            '    @RequestMapping(method = RequestMethod.POST, value = "/uaa/users")\n'
            "    void createUser(User user);\n}\n"
        ),
    }
    acc = "pc/account-service/src/main/java/acc"
    assert repo_links(tmp_path, "pc", files) == {
        ("pc/notification-service/src/main/java/nt/AccountServiceClient.java"
         "#AccountServiceClient.getAccount", f"{acc}/AccountController.java"
         "#AccountController.getAccountByName", "GET", "/accounts/{}", 0.8, "template"),
        (f"{acc}/AuthServiceClient.java#AuthServiceClient.createUser",
         "pc/auth-service/src/main/java/auth/UserController.java#UserController.createUser",
         "POST", "/uaa/users", 0.9, "literal"),
    }  # fmt: skip


def test_a_mockmvc_request_is_below_its_modules_context_path(tmp_path: Path) -> None:
    """piggymetrics' MockMvc tests request `get("/current")` of a controller that its
    service serves at `/accounts/current` (MockMvc has no context path); with the
    context path read they linked nothing, and before, `/current` reached the other
    service's `/current` too."""
    controller = (
        "package {p};\n\n@RestController\npublic class {c} {{\n"
        '    @RequestMapping(path = "/current", method = RequestMethod.GET)\n'
        "    public Object current() {{ return null; }}\n\n"
        '    @RequestMapping(path = "/{{name}}", method = RequestMethod.GET)\n'
        "    public Object byName(@PathVariable String name) {{ return null; }}\n}}\n"
    )
    test = (
        "package acc;\n\nclass AccountControllerTest {\n    void current() throws Exception {\n"
        '        mockMvc.perform(get("/current")).andExpect(status().isOk());\n'
        '        mockMvc.perform(get("/" + "test")).andExpect(status().isOk());\n'
        "    }\n}\n"
    )
    files = {
        "account/src/main/resources/application.yml": (
            "spring:\n  application:\n    name: account-service\n"
            "server:\n  servlet:\n    context-path: /accounts\n"
        ),
        "account/src/main/java/acc/AccountController.java": controller.format(
            p="acc", c="AccountController"
        ),
        "account/src/test/java/acc/AccountControllerTest.java": test,
        "statistics/src/main/resources/application.yml": (
            "server:\n  servlet:\n    context-path: /statistics\n"
        ),
        "statistics/src/main/java/st/StatisticsController.java": controller.format(
            p="st", c="StatisticsController"
        ),
    }
    acc = "pc/account/src/main/java/acc/AccountController.java#AccountController"
    assert repo_links(tmp_path, "pc", files) == {
        ("pc/account/src/test/java/acc/AccountControllerTest.java#AccountControllerTest.current",
         f"{acc}.current", "GET", "/accounts/current", 0.9, "literal"),
        ("pc/account/src/test/java/acc/AccountControllerTest.java#AccountControllerTest.current",
         f"{acc}.byName", "GET", "/accounts/{}", 0.8, "template"),
    }  # fmt: skip


def test_go_routes_on_a_router_passed_in_and_requests_written_in_tests(tmp_path: Path) -> None:
    """gin-realworld registers on a `*gin.RouterGroup` its caller made
    (`users.Register(v1.Group("/users"))`): its routes were read as at the root. miniflux:
    `http.NewRequest("GET", "/", nil)` in unit tests (method literals were not read)
    reached three `/` catch-alls, 117 spurious links; `{$}` ends a Go pattern; its API
    client's `c.request.Get(ctx, "/v1/version")` and `httptest.NewRequest` were missed."""
    users = (
        'package users\n\nimport "github.com/gin-gonic/gin"\n\n'
        "func Register(router *gin.RouterGroup) {\n"
        '\trouter.POST("/login", Login)\n'
        "}\n\n"
        "func Login(c *gin.Context) {}\n"
    )
    routes = (
        'package api\n\nimport "net/http"\n\n'
        "func Serve() {\n"
        "\tmux := http.NewServeMux()\n"
        '\tmux.HandleFunc("/", catchAll)\n'
        '\tmux.HandleFunc("GET /{$}", home)\n'
        '\tmux.HandleFunc("GET /v1/version", version)\n'
        '\tmux.Handle("/v1/", NewHandler(store, pool))\n'
        "}\n\n"
        "func catchAll(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func home(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func version(w http.ResponseWriter, r *http.Request) {}\n\n"
        "func NewHandler(s, p any) http.Handler { return nil }\n"
    )
    tests = (
        'package api\n\nimport (\n\t"net/http"\n\t"net/http/httptest"\n)\n\n'
        "func TestHome(t *testing.T) {\n"
        '\treq, _ := http.NewRequest("GET", "/", nil)\n'
        '\treq2 := httptest.NewRequest(http.MethodGet, "/v1/version", nil)\n'
        "}\n"
    )
    client = (
        "package client\n\n"
        "func (c *Client) Version(ctx context.Context) {\n"
        '\tc.request.Get(ctx, "/v1/version")\n'
        "}\n"
    )
    files = {
        "users/routers.go": users,
        "api/routes.go": routes,
        "api/routes_test.go": tests,
        "client/client.go": client,
    }
    write(tmp_path / "app", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "app", name="app")
        routes_read = {
            (f.method, f.pattern, f.node.partition("#")[2], bool(f.router))
            for f in engine.backend.links.http_facts()
            if f.role == "route"
        }
        found = {(s, t, m, p, c, v) for s, t, m, p, c, v, *_ in http_links(engine)}
    assert routes_read == {
        ("POST", "/login", "Login", True),  # below a prefix its caller gave: unknown
        ("*", "/", "catchAll", False),
        ("GET", "/", "home", False),  # `{$}`: exactly this path
        ("GET", "/v1/version", "version", False),
        ("*", "/v1", "NewHandler", False),  # the function making the handler
    }
    t = "app/api/routes_test.go#TestHome"
    assert found == {
        # a method stated on both sides: a root request reaches `GET /`, not the catch-all
        (t, "app/api/routes.go#home", "GET", "/", 0.9, "literal"),
        (t, "app/api/routes.go#version", "GET", "/v1/version", 0.9, "literal"),
        ("app/client/client.go#Client.Version", "app/api/routes.go#version", "GET",
         "/v1/version", 0.9, "literal"),
    }  # fmt: skip


def test_a_kotlin_mapping_names_arguments_after_its_path(tmp_path: Path) -> None:
    """spring-petclinic-kotlin: `@GetMapping("vets.json", produces = […])` lost its path
    (`GET /`), so its test's `get("/vets.json")` reached nothing; a class's
    `@RequestMapping("/v2", produces = […])` lost its prefix."""
    controller = (
        "package pc\n\n"
        '@RequestMapping("/v2", produces = ["application/json"])\n'
        "@RestController\n"
        "class VetController(val vets: VetRepository) {\n"
        '    @GetMapping("vets.json", produces = ["application/json"])\n'
        "    fun showJsonVetList(): Vets = Vets()\n"
        "}\n"
    )
    test = (
        "package pc\n\nclass VetControllerTest {\n"
        "    fun json() {\n"
        '        mockMvc.perform(get("/v2/vets.json")).andExpect(status().isOk)\n'
        "    }\n}\n"
    )
    files = {
        "src/main/kotlin/pc/VetController.kt": controller,
        "src/test/kotlin/pc/VetControllerTest.kt": test,
    }
    assert repo_links(tmp_path, "pc", files) == {
        ("pc/src/test/kotlin/pc/VetControllerTest.kt#VetControllerTest.json",
         "pc/src/main/kotlin/pc/VetController.kt#VetController.showJsonVetList", "GET",
         "/v2/vets.json", 0.9, "literal"),
    }  # fmt: skip


def test_rails_path_helpers_link_to_their_routes_actions(tmp_path: Path) -> None:
    """maybe's tests request `get accounts_url` and its views `link_to …,
    account_path(a)`: Rails's route helpers name the routes `config/routes.rb` declares,
    and none was read, so `callers AccountsController#index` missed them."""
    routes = (
        "Rails.application.routes.draw do\n"
        '  root "pages#dashboard"\n'
        "  resources :accounts do\n"
        "    member do\n      post :sync\n    end\n"
        "    resources :entries, only: %i[index show]\n"
        "  end\n"
        "  resource :session, only: %i[new create] do\n    get :verify\n  end\n"
        "  namespace :api do\n"
        "    resources :tags, only: [:index]\n"
        "  end\n"
        '  get "changelog", to: "pages#changelog", as: :release_notes\n'
        "end\n"
    )
    controllers = {
        "app/controllers/pages_controller.rb": (
            "class PagesController\n  def dashboard\n  end\n\n  def changelog\n  end\nend\n"
        ),
        "app/controllers/accounts_controller.rb": (
            "class AccountsController\n  def index\n  end\n\n  def show\n  end\n\n"
            "  def create\n    redirect_to account_path(@account)\n  end\n\n"
            "  def sync\n  end\nend\n"
        ),
        "app/controllers/entries_controller.rb": (
            "class EntriesController\n  def index\n  end\nend\n"
        ),
        "app/controllers/sessions_controller.rb": (
            "class SessionsController\n  def new\n  end\n\n  def verify\n  end\nend\n"
        ),
        "app/controllers/api/tags_controller.rb": (
            "module Api\n  class TagsController\n    def index\n    end\n  end\nend\n"
        ),
    }
    test = (
        "class AccountsControllerTest < ActionDispatch::IntegrationTest\n"
        '  test "lists" do\n'
        "    get accounts_url\n"
        "    post sync_account_url(accounts(:one))\n"
        "    get api_tags_path\n"
        "  end\nend\n"
    )
    view = (
        '<%= link_to "Entries", account_entries_path(@account) %>\n'
        '<%= link_to "Sign in", new_session_path %>\n'
        '<%= link_to "Home", root_path %>\n'
        '<%= link_to "Notes", release_notes_path %>\n'
        '<%= link_to "Verify", verify_session_path %>\n'
    )
    files = {
        "config/routes.rb": routes,
        **controllers,
        "test/controllers/accounts_controller_test.rb": test,
        "app/views/accounts/show.html.erb": view,
    }
    c = "r/app/controllers"
    t = "r/test/controllers/accounts_controller_test.rb#AccountsControllerTest"
    v = "r/app/views/accounts/show.html.erb"
    found = {(s, tgt, m, p) for s, tgt, m, p, _, via in repo_links(tmp_path, "r", files)
             if via == "url-name"}  # fmt: skip
    assert found == {
        (t, f"{c}/accounts_controller.rb#AccountsController.index", "GET", "url accounts"),
        (t, f"{c}/accounts_controller.rb#AccountsController.sync", "POST", "url sync_account"),
        (t, f"{c}/api/tags_controller.rb#Api.TagsController.index", "GET", "url api_tags"),
        (f"{c}/accounts_controller.rb#AccountsController.create",
         f"{c}/accounts_controller.rb#AccountsController.show", "GET", "url account"),
        (v, f"{c}/entries_controller.rb#EntriesController.index", "GET", "url account_entries"),
        (v, f"{c}/sessions_controller.rb#SessionsController.new", "GET", "url new_session"),
        (v, f"{c}/pages_controller.rb#PagesController.dashboard", "GET", "url root"),
        (v, f"{c}/pages_controller.rb#PagesController.changelog", "GET", "url release_notes"),
        (v, f"{c}/sessions_controller.rb#SessionsController.verify", "GET", "url verify_session"),
    }  # fmt: skip


def test_rust_routes_and_reqwest_calls_link(tmp_path: Path) -> None:
    """Rust services declared no route: actix-web's and rocket's `#[get("/users/{id}")]`
    on a handler, axum's `Router::new().route("/orders/:id", get(show).delete(remove))`;
    reqwest's `client.get(format!("{}/users/{}", base, id))` made no call."""
    actix = (
        "use actix_web::{get, post, web, HttpResponse};\n\n"
        '#[get("/users/{id}")]\n'
        "async fn show_user(path: web::Path<u32>) -> HttpResponse {\n"
        "    HttpResponse::Ok().finish()\n}\n\n"
        '#[post("/users")]\n'
        "async fn create_user() -> HttpResponse {\n    HttpResponse::Ok().finish()\n}\n\n"
        "pub fn config(cfg: &mut web::ServiceConfig) {\n"
        '    cfg.service(web::resource("/users/{id}/avatar").route(web::get().to(avatar)));\n'
        "}\n\n"
        "async fn avatar() -> HttpResponse {\n    HttpResponse::Ok().finish()\n}\n\n"
        '#[get("/items/<id>")]\n'  # rocket's parameters
        "fn item(id: u32) -> String {\n    String::new()\n}\n"
    )
    axum = (
        "use axum::{routing::{get, post}, Router};\n\n"
        "pub fn app() -> Router {\n"
        "    Router::new()\n"
        '        .route("/orders/:id", get(show_order).delete(remove_order))\n'
        '        .route("/orders", post(create_order))\n'
        "}\n\n"
        "async fn show_order() {}\n\nasync fn remove_order() {}\n\nasync fn create_order() {}\n"
    )
    client = (
        "pub async fn fetch(client: &reqwest::Client, base: &str, id: u32) {\n"
        '    client.get(format!("{}/users/{}", base, id)).send().await;\n'
        '    client.delete(format!("http://orders/orders/{}", id)).send().await;\n'
        '    reqwest::get("http://orders/orders").await;\n'
        '    client.get(format!("{}/users/{}/avatar", base, id)).send().await;\n'
        '    reqwest::get(format!("http://users/items/{}", id)).await;\n'
        '    let url = format!("{BASE}/orders/{id}");\n'
        "    reqwest::Client::new().delete(&url).send().await;\n"
        "}\n\n"
        'const BASE: &str = "http://orders";\n'
    )
    # actix's scopes hold their routes; a handler named by its module path
    scoped = (
        "pub fn routes(cfg: &mut web::ServiceConfig) {\n"
        '    cfg.service(web::resource("/").to(index)).service(\n'
        '        web::scope("/api")\n'
        '            .service(web::resource("users")\n'
        "                .route(web::post().to_async(users::register)))\n"
        '            .service(web::scope("/comments").route("", get().to(comments::list))),\n'
        "    );\n}\n\n"
        "async fn index() {}\n"
    )
    files = {
        "users/src/main.rs": actix,
        "orders/src/routes.rs": axum,
        "web/src/client.rs": client,
        "blog/src/app/mod.rs": scoped,
        "blog/src/app/users.rs": "pub async fn register() {}\n\npub async fn list() {}\n",
        "blog/src/app/comments.rs": "pub async fn list() {}\n",
    }
    c = "r/web/src/client.rs#fetch"
    write(tmp_path / "r", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "r", name="r")
        routes = {
            (f.method, f.pattern, f.node)
            for f in engine.backend.links.http_facts()
            if f.role == "route" and f.path.startswith("blog/")
        }
    assert routes == {
        ("*", "/", "r/blog/src/app/mod.rs#index"),
        ("POST", "/api/users", "r/blog/src/app/users.rs#register"),
        ("GET", "/api/comments", "r/blog/src/app/comments.rs#list"),
    }
    assert repo_links(tmp_path / "again", "r", files) == {
        (c, "r/users/src/main.rs#show_user", "GET", "/users/{}", 0.6, "unknown-base"),
        (c, "r/orders/src/routes.rs#remove_order", "DELETE", "/orders/{}", 0.8, "template"),
        (c, "r/users/src/main.rs#avatar", "GET", "/users/{}/avatar", 0.6, "unknown-base"),
        (c, "r/users/src/main.rs#item", "GET", "/items/{}", 0.8, "template"),
    }  # fmt: skip


def test_rails_route_names_as_lobsters_writes_them(tmp_path: Path) -> None:
    """lobsters: `:as => "user"` (the hash-rocket spelling) was not read (125 helper uses
    missed), `resources :mails, as: "mod_mails"` lost its singular names, a path with
    parameters got a name Rails does not give, forms' methods were not read, and
    `@root_path`, `json[:comments_url]` and `Routes.user_url` were misread."""
    routes = (
        "Rails.application.routes.draw do\n"
        '  get "/~:username" => "users#show", :as => "user"\n'
        '  get "/page/:page" => "home#index"\n'
        "  resources :invitations, only: [:index, :create]\n"
        "  namespace :mod do\n"
        '    resources :mails, as: "mod_mails", only: [:show]\n'
        "  end\n"
        "end\n"
    )
    files = {
        "config/routes.rb": routes,
        "app/controllers/users_controller.rb": "class UsersController\n  def show\n  end\nend\n",
        "app/controllers/home_controller.rb": "class HomeController\n  def index\n  end\nend\n",
        "app/controllers/invitations_controller.rb": (
            "class InvitationsController\n  def index\n  end\n\n  def create\n  end\nend\n"
        ),
        "app/controllers/mod/mails_controller.rb": (
            "module Mod\n  class MailsController\n    def show\n    end\n  end\nend\n"
        ),
        "app/views/users/show.html.erb": (
            '<%= link_to "me", user_path(@user) %>\n'
            "<%= form_with url: invitations_path, method: :post do |f| %><% end %>\n"
            '<%= link_to "mail", mod_mod_mail_path(m) %>\n'
            "<%= @root_path %>\n"
        ),
        "app/models/story.rb": (
            "class Story\n  def as_json\n    json[:comments_url] = 1\n"
            "    Routes.user_url(self.user)\n  end\nend\n"
        ),
    }
    c = "r/app/controllers"
    v = "r/app/views/users/show.html.erb"
    found = {(s, t, m, p) for s, t, m, p, _, via in repo_links(tmp_path, "r", files)
             if via == "url-name"}  # fmt: skip
    assert found == {
        (v, f"{c}/users_controller.rb#UsersController.show", "GET", "url user"),
        (v, f"{c}/invitations_controller.rb#InvitationsController.create", "POST",
         "url invitations"),
        (v, f"{c}/mod/mails_controller.rb#Mod.MailsController.show", "GET", "url mod_mod_mail"),
        ("r/app/models/story.rb#Story.as_json", f"{c}/users_controller.rb#UsersController.show",
         "GET", "url user"),
    }  # fmt: skip


def test_symfony_route_attributes_link(tmp_path: Path) -> None:
    """Symfony controllers declare their routes with attributes (`#[Route('/blog/{slug}',
    methods: ['GET'])]`, a class's `#[Route('/admin')]` prefixing its methods') or, in
    older code, `@Route` annotations: PHP declared no route outside Laravel's tables."""
    controller = (
        "<?php\n\nnamespace App\\\\Controller;\n\n"
        "#[Route('/blog')]\n"
        "class BlogController extends AbstractController\n{\n"
        "    #[Route('/{slug}', name: 'blog_post', methods: ['GET'])]\n"
        "    public function show(string $slug): Response\n    {\n    }\n\n"
        '    /**\n     * @Route("/{slug}/comment", methods={"POST"})\n     */\n'
        "    public function comment(string $slug): Response\n    {\n    }\n}\n"
    )
    client = (
        "export const post = (slug) => fetch(`/blog/${slug}`);\n"
        "export const comment = (slug) => fetch(`/blog/${slug}/comment`, {method: 'POST'});\n"
    )
    files = {"src/Controller/BlogController.php": controller, "assets/blog.js": client}
    c = "r/src/Controller/BlogController.php#BlogController"
    assert repo_links(tmp_path, "r", files) == {
        ("r/assets/blog.js#post", f"{c}.show", "GET", "/blog/{}", 0.8, "template"),
        ("r/assets/blog.js#comment", f"{c}.comment", "POST", "/blog/{}/comment", 0.8,
         "template"),
    }  # fmt: skip


def test_thymeleaf_links_and_forms_link_to_spring_routes(tmp_path: Path) -> None:
    """spring-petclinic's pages reach its controllers through Thymeleaf link expressions
    (`th:href="@{/owners/new}"`, `@{__${owner.id}__/edit}` relative to the page, a form's
    `th:action` sent by its `method`), and `links` listed none of them."""
    controller = (
        "package petclinic.owner;\n\n"
        "@Controller\n"
        "class OwnerController {\n"
        '    @GetMapping("/owners/new")\n'
        "    public String initCreationForm() {\n        return null;\n    }\n\n"
        '    @PostMapping("/owners/new")\n'
        "    public String processCreationForm() {\n        return null;\n    }\n\n"
        '    @GetMapping("/owners")\n'
        "    public String processFindForm() {\n        return null;\n    }\n\n"
        '    @GetMapping("/owners/{ownerId}")\n'
        "    public String showOwner() {\n        return null;\n    }\n\n"
        '    @GetMapping("/owners/{ownerId}/edit")\n'
        "    public String initUpdateOwnerForm() {\n        return null;\n    }\n}\n"
    )
    vets = (
        "package petclinic.vet;\n\n@Controller\nclass VetController {\n"
        '    @GetMapping("/vets.html")\n'
        "    public String showVetList() {\n        return null;\n    }\n}\n"
    )
    find = (
        '<html xmlns:th="https://www.thymeleaf.org">\n<body>\n'
        '<form th:object="${owner}" th:action="@{/owners}" method="get"\n'
        '      class="form-horizontal" id="search-owner-form">\n</form>\n'
        '<a class="btn" th:href="@{/owners/new}" th:text="#{addOwner}">Add Owner</a>\n'
        '<link th:href="@{/resources/css/petclinic.css}" rel="stylesheet">\n'
        '<img th:src="@{/resources/images/pets.png}"/>\n'
        '<!-- <a th:href="@{/owners/{id}/edit(id=${owner.id})}">old</a> -->\n'
        '<a th:href="@{__${link}__}" th:title="${title}">menu</a>\n'
        "</body>\n</html>\n"
    )
    details = (
        '<html xmlns:th="https://www.thymeleaf.org">\n<body>\n'
        '<a th:href="@{/owners/__${owner.id}__}" th:text="${owner.lastName}"></a>\n'
        '<a th:href="@{__${owner.id}__/edit}" class="btn">Edit</a>\n'
        '<form th:action="@{\'/owners/new\'}" method="POST"></form>\n'
        '<a th:if="${page > 1}" th:href="@{\'/vets.html?page=__${i}__\'}">[[${i}]]</a>\n'
        '<a th:href="@{/owners/{id}/edit(id=${owner.id})}">Edit</a>\n'
        "</body>\n</html>\n"
    )
    t = "r/src/main/resources/templates/owners"
    c = "r/src/main/java/petclinic/owner/OwnerController.java#OwnerController"
    files = {
        "src/main/java/petclinic/owner/OwnerController.java": controller,
        "src/main/java/petclinic/vet/VetController.java": vets,
        "src/main/resources/templates/owners/findOwners.html": find,
        "src/main/resources/templates/owners/ownerDetails.html": details,
    }
    found = {(s, t, m, p) for s, t, m, p, *_ in repo_links(tmp_path, "r", files)}
    assert found == {
        (f"{t}/findOwners.html", f"{c}.processFindForm", "GET", "/owners"),
        (f"{t}/findOwners.html", f"{c}.initCreationForm", "GET", "/owners/new"),
        (f"{t}/ownerDetails.html", f"{c}.showOwner", "GET", "/owners/{}"),
        (f"{t}/ownerDetails.html", f"{c}.initUpdateOwnerForm", "GET", "/owners/{}/edit"),
        (f"{t}/ownerDetails.html", f"{c}.processCreationForm", "POST", "/owners/new"),
        (f"{t}/ownerDetails.html", "r/src/main/java/petclinic/vet/VetController.java"
         "#VetController.showVetList", "GET", "/vets.html"),
    }  # fmt: skip


def test_symfony_apps_as_written_link_routes_names_and_test_requests(tmp_path: Path) -> None:
    """symfony/demo and wallabag: their routes were read, yet `links` listed none. Their
    tests request `$client->request('GET', '/en/blog/')` under the `/{_locale}` prefix
    `config/routes.yaml` gives the controllers; templates and controllers use routes by
    name (`path('blog_post')`, `redirectToRoute('blog_index')`); attributes come as
    `methods: 'POST'`, `[Request::METHOD_POST]`, `{page<\\d+>}`, `name:` first, in a group
    after `IsGranted`, fully qualified, on an invokable class, or commented out."""
    blog = (
        "<?php\n\nnamespace App\\Controller;\n\n"
        "#[Route('/blog', name: 'blog_')]\n"
        "final class BlogController extends AbstractController\n{\n"
        "    #[Route('/', name: 'index', methods: ['GET'])]\n"
        "    public function index(): Response\n    {\n    }\n\n"
        "    #[Route('/page/{page<\\d+>}', name: 'index_paginated', methods: ['GET'])]\n"
        "    public function indexPaginated(int $page): Response\n    {\n    }\n\n"
        "    #[Route('/posts/{slug}', methods: 'GET', name: 'post')]\n"
        "    public function postShow(string $slug): Response\n    {\n    }\n\n"
        "    // #[Route('/commented-out')]\n"
        "    #[IsGranted('IS_AUTHENTICATED'), Route('/comment/{postSlug}/new', "
        "methods: [Request::METHOD_POST], name: 'comment_new')]\n"
        "    public function commentNew(): Response\n    {\n"
        "        return $this->redirectToRoute('blog_index');\n    }\n\n"
        "    #[Route(name: 'search', path: '/search')]\n"
        "    public function search(): Response\n    {\n    }\n\n"
        "    #[Route('/list/{page}', defaults: ['page' => 1])]\n"
        "    public function list(int $page): Response\n    {\n    }\n\n"
        "    public function feed(int $page = 1): Response\n    {\n    }\n}\n"
    )
    post = (
        "<?php\n\nnamespace App\\Controller\\Admin;\n\n"
        "#[Route('/admin/post', methods: ['GET'])]\n"
        "class PostController\n{\n"
        "    #[Route('/{id<\\d+>}/edit', name: 'admin_post_edit')]\n"
        "    public function edit(int $id): Response\n    {\n    }\n\n"
        "    #[\\Symfony\\Component\\Routing\\Attribute\\Route(path: ['en' => '/about-us', "
        "'nl' => '/over-ons'])]\n"
        "    public function about(): Response\n    {\n    }\n}\n"
    )
    health = (
        "<?php\n\nnamespace App\\Controller\\Admin;\n\n"
        "#[Route('/health', methods: ['GET'])]\n"
        "class HealthController\n{\n"
        "    public function __invoke(): Response\n    {\n    }\n}\n"
    )
    routes = (
        "homepage:\n    path: /{_locale}\n"
        "    controller: Symfony\\Bundle\\FrameworkBundle\\Controller\\TemplateController"
        "::templateAction\n\n"
        "controllers:\n    resource: routing.controllers\n    prefix: /{_locale}\n\n"
        "feed:\n    path: /feed/{page}\n    methods: GET\n    defaults:\n"
        "        _controller: 'App\\Controller\\BlogController::feed'\n        page: 1\n\n"
        "dashboard:\n    path: /dashboard\n"
        "    controller: App\\Action\\Admin\\DashboardAction\n"
    )
    action = "<?php\n\nnamespace App\\Action\\{};\n\nclass DashboardAction\n{{\n" + (
        "    public function __invoke(): Response\n    {{\n    }}\n}}\n"
    )
    test = (
        "<?php\n\nnamespace App\\Tests\\Controller;\n\n"
        "final class BlogControllerTest extends WebTestCase\n{\n"
        "    public function testPages(): void\n    {\n"
        "        $client->request('GET', '/en/blog/');\n"
        "        $client->request('GET', \"/en/blog/posts/{$post->getSlug()}\");\n"
        "        $this->client->request(Request::METHOD_POST, '/en/blog/comment/x/new');\n"
        "        $client->xmlHttpRequest('GET', '/en/blog/search');\n"
        "        $client->request('GET', '/en/admin/post/' . $post->getId() . '/edit');\n"
        "        $client->request('GET', '/en/blog/list');\n"
        "        $client->request('GET', '/feed');\n"
        "        $client->request('GET', '/en/health');\n"
        "        $client->request('GET', '/nl/admin/post/over-ons');\n"
        "        $this->asAdmin($admin->id)->get('/dashboard');\n"
        "        $this->getContainer()->get('doctrine');\n"
        "        $url = self::$container->get('router')\n"
        "            ->generate('blog_post');\n"
        "        $this->router->generate('blog_' . $kind);\n"
        "    }\n}\n"
    )
    twig = (
        "{% for post in posts %}\n"
        "  <a href=\"{{ path('blog_post', {slug: post.slug}) }}\">{{ post.title }}</a>\n"
        "  <a href=\"{{ url('admin_post_edit', {id: post.id}) }}\">edit</a>\n"
        "{% endfor %}\n<a href=\"{{ path('homepage') }}\">home</a>\n"
    )
    files = {
        "src/Controller/BlogController.php": blog,
        "src/Controller/Admin/PostController.php": post,
        "src/Controller/Admin/HealthController.php": health,
        "config/routes.yaml": routes,
        "tests/Controller/BlogControllerTest.php": test,
        "templates/blog/index.html.twig": twig,
        "src/Action/Admin/DashboardAction.php": action.format("Admin"),
        "src/Action/Speaker/DashboardAction.php": action.format("Speaker"),
    }
    c = "r/src/Controller/BlogController.php#BlogController"
    edit = "r/src/Controller/Admin/PostController.php#PostController.edit"
    t = "r/tests/Controller/BlogControllerTest.php#BlogControllerTest.testPages"
    tw = "r/templates/blog/index.html.twig"
    found = {(s, t, m, p) for s, t, m, p, *_ in repo_links(tmp_path, "r", files)}
    assert found == {
        (t, f"{c}.index", "GET", "/{}/blog"),
        (t, f"{c}.postShow", "GET", "/{}/blog/posts/{}"),
        (t, f"{c}.commentNew", "POST", "/{}/blog/comment/{}/new"),
        (t, f"{c}.search", "GET", "/{}/blog/search"),
        (t, edit, "GET", "/{}/admin/post/{}/edit"),
        (t, f"{c}.list", "GET", "/{}/blog/list"),
        (t, f"{c}.feed", "GET", "/feed"),
        (t, "r/src/Controller/Admin/HealthController.php#HealthController.__invoke", "GET",
         "/{}/health"),
        (t, "r/src/Controller/Admin/PostController.php#PostController.about", "GET",
         "/{}/admin/post/over-ons"),
        (t, "r/src/Action/Admin/DashboardAction.php#DashboardAction.__invoke", "GET",
         "/dashboard"),
        (t, f"{c}.postShow", "GET", "url blog_post"),
        (tw, f"{c}.postShow", "GET", "url blog_post"),
        # a route without a handler in the repository: its declaration
        (tw, "r/config/routes.yaml", "*", "url homepage"),
        (tw, edit, "GET", "url admin_post_edit"),
        (f"{c}.commentNew", f"{c}.index", "GET", "url blog_index"),
    }  # fmt: skip
