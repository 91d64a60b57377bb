"""JavaScript/TypeScript shapes beyond ES modules and classes, each fixture a repository
of its own with its exact edge set: CommonJS (an express-like `response.js`, `exports.x`,
`module.exports = require(…)`), directory requires, object literals, class fields."""

from __future__ import annotations

import shutil
from pathlib import Path

from codecompass.graph.index import SymbolIndex
from codecompass.models import SymbolQuery
from tests.graph.helpers import FIXTURES, Edge, edges, repo_edges, workspace, write

C = "cjs"
COMMONJS: set[Edge] = {
    (f"{C}/index.js", f"{C}/lib/express.js", "imports", 1.0, 1),
    # An object literal: `this` in a method is the object; an arrow function uses the
    # object by name.
    (f"{C}/api.js#api.get", f"{C}/api.js#api.request", "calls", 0.8, 3),
    (f"{C}/api.js#api.post", f"{C}/api.js#api.request", "calls", 0.8, 8),
    # Class fields: `repo = new Repo()` is an instance attribute, `onSave = () => …` a
    # method whose `this` is the instance.
    (f"{C}/api.js#Service", f"{C}/api.js#Repo", "calls", 1.0, 16),
    (f"{C}/api.js#Service.onSave", f"{C}/api.js#Repo.save", "calls", 0.8, 18),
    (f"{C}/api.js#Service.run", f"{C}/api.js#Service.onSave", "calls", 0.8, 22),
    (f"{C}/api.js#Service.run", f"{C}/api.js#api.get", "calls", 0.8, 23),
    # `var app = exports = module.exports = {}`: what is assigned to app is exported.
    (f"{C}/lib/application.js", f"{C}/lib/utils.js", "imports", 1.0, 1),
    (f"{C}/lib/application.js#app.init", f"{C}/lib/application.js#app.set", "calls", 0.8, 6),
    (f"{C}/lib/application.js#app.init", f"{C}/lib/utils.js#compileTrust", "calls", 0.9, 6),
    (f"{C}/lib/express.js", f"{C}/lib/application.js", "imports", 1.0, 1),
    (f"{C}/lib/express.js", f"{C}/lib/response.js", "imports", 1.0, 2),
    (f"{C}/lib/express.js", f"{C}/lib/utils.js", "imports", 1.0, 3),
    (f"{C}/lib/express.js", f"{C}/lib/utils.js#compileTrust", "imports", 1.0, 3),
    # A directory require: the folder's index.js, or the "main" of its package.json.
    (f"{C}/lib/express.js", f"{C}/lib/router/index.js", "imports", 1.0, 4),
    (f"{C}/lib/express.js", f"{C}/lib/plugin/main.js", "imports", 1.0, 5),
    (f"{C}/lib/express.js#createApplication", f"{C}/lib/application.js#app.init", "calls", 0.9, 12),
    (f"{C}/lib/express.js#createApplication", f"{C}/lib/plugin/main.js#install", "calls", 0.9, 13),
    (f"{C}/lib/express.js#trust", f"{C}/lib/utils.js#compileTrust", "calls", 1.0, 21),
    # `new Router()` of that constructor function is an instance of it.
    (f"{C}/lib/express.js#route", f"{C}/lib/router/index.js#Router", "calls", 1.0, 25),
    # `Object.assign(Router.prototype, {})` at the top level reads the function.
    (f"{C}/lib/router/index.js", f"{C}/lib/router/index.js#Router", "references", 1.0, 7),
    (f"{C}/lib/express.js#route", f"{C}/lib/router/index.js#Router.handle", "calls", 0.8, 26),
    # response.js: `this` in a function assigned to `res.x` is res.
    (f"{C}/lib/response.js", "?http", "imports", 1.0, 1),
    (f"{C}/lib/response.js#res.json", f"{C}/lib/response.js#res.send", "calls", 0.8, 16),
    (f"{C}/lib/response.js#res.send", f"{C}/lib/response.js#res.json", "calls", 0.8, 8),
    (f"{C}/lib/response.js#res.send", "?this.end", "calls", 0.0, 10),
    # A prototype method of a constructor function: `this` is an instance of Router,
    # whose methods are the functions on Router.prototype.
    (
        f"{C}/lib/router/index.js#Router.handle",
        f"{C}/lib/router/index.js#Router.dispatch",
        "calls",
        0.8,
        4,
    ),
    (f"{C}/lib/utils.js#compileTrust", f"{C}/lib/utils.js#normalize", "calls", 1.0, 2),
    # `require('..')` from a top-level folder: the repository's index.js.
    (f"{C}/test/app.test.js", f"{C}/index.js", "imports", 1.0, 1),
    (f"{C}/test/app.test.js", f"{C}/lib/response.js", "imports", 1.0, 2),
    (f"{C}/test/app.test.js", f"{C}/lib/response.js", "imports", 1.0, 3),
    (f"{C}/test/app.test.js", f"{C}/lib/response.js#res.json", "imports", 1.0, 3),
    (f"{C}/test/app.test.js", f"{C}/lib/utils.js", "imports", 1.0, 4),
    # `res.json` of the module object, `const {json} = require(…)`, `require(…).x`.
    (f"{C}/test/app.test.js#check", f"{C}/lib/response.js#res.json", "calls", 0.9, 7),
    (f"{C}/test/app.test.js#check", f"{C}/lib/response.js#res.json", "calls", 1.0, 8),
    # index.js is `module.exports = require('./lib/express')`: its names are express.js's.
    (f"{C}/test/app.test.js#check", f"{C}/lib/express.js#trust", "calls", 0.9, 9),
    (f"{C}/test/app.test.js#check", f"{C}/lib/utils.js#compileTrust", "calls", 1.0, 10),
}

F = "tsf"
FIELDS: set[Edge] = {
    (f"{F}/main.ts", f"{F}/store.ts", "imports", 1.0, 1),
    (f"{F}/main.ts", f"{F}/store.ts#Service", "imports", 1.0, 1),
    (f"{F}/main.ts", f"{F}/store.ts#api", "imports", 1.0, 1),
    (f"{F}/main.ts#main", f"{F}/store.ts#Service", "references", 1.0, 3),
    (f"{F}/main.ts#main", f"{F}/store.ts#Service.run", "calls", 0.8, 4),
    (f"{F}/main.ts#main", f"{F}/store.ts#api.list", "calls", 0.8, 5),
    (f"{F}/main.ts#main", f"{F}/store.ts#api.first", "calls", 0.8, 6),
    # `first` is declared to return a Repo.
    (f"{F}/main.ts#main", f"{F}/store.ts#Repo.save", "calls", 0.8, 6),
    (f"{F}/store.ts#Service", f"{F}/store.ts#Repo", "references", 1.0, 6),
    (f"{F}/store.ts#Service", f"{F}/store.ts#Repo", "calls", 1.0, 7),
    (f"{F}/store.ts#Service.constructor", f"{F}/store.ts#Repo", "references", 1.0, 12),
    # `private repo: Repo`, `private backup = new Repo()`, `private readonly store: Repo`.
    (f"{F}/store.ts#Service.handler", f"{F}/store.ts#Repo.save", "calls", 0.8, 9),
    (f"{F}/store.ts#Service.run", f"{F}/store.ts#Service.handler", "calls", 0.8, 17),
    (f"{F}/store.ts#Service.run", f"{F}/store.ts#Repo.save", "calls", 0.8, 18),
    (f"{F}/store.ts#Service.run", f"{F}/store.ts#Repo.save", "calls", 0.8, 19),
    (f"{F}/store.ts#api.first", f"{F}/store.ts#Repo", "calls", 1.0, 27),
    (f"{F}/store.ts#api.first", f"{F}/store.ts#Repo", "references", 1.0, 27),
    (f"{F}/store.ts#api.list", f"{F}/store.ts#Repo", "references", 1.0, 24),
}


def _index(tmp_path: Path, fixture: str, name: str) -> Path:
    repo = tmp_path / name
    shutil.copytree(FIXTURES / fixture, repo)
    return repo


def test_commonjs_edges(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        engine.add_repo(_index(tmp_path, "javascript/commonjs", C), name=C)
        assert edges(engine) == COMMONJS


def test_class_field_edges(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        engine.add_repo(_index(tmp_path, "typescript/fields", F), name=F)
        assert edges(engine) == FIELDS


def test_directory_modules(tmp_path: Path) -> None:
    repo = tmp_path / "dirs"
    for path, text in {
        "index.js": "",
        "lib/index.ts": "",
        "lib/sub/index.mjs": "",
        "pkg/package.json": '{"main": "./src/entry"}',
        "pkg/src/entry.cjs": "",
        "broken/package.json": '{"main": "missing.js"}',
        "broken/index.tsx": "",
        "test/deep/a.test.js": "",
    }.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    with workspace(tmp_path) as engine:
        engine.add_repo(repo, name="dirs")
        index = SymbolIndex(engine.backend)
        found = {
            spec: index.js_module("dirs", "test/deep/a.test.js", spec)
            for spec in ("../..", "../../", "../../lib", "../../lib/sub", "../../pkg")
        }
        found["./broken"] = index.js_module("dirs", "a.js", "./broken")
        found["../../.."] = index.js_module("dirs", "test/deep/a.test.js", "../../..")
        assert found == {
            "../..": ("dirs", "index.js"),
            "../../": ("dirs", "index.js"),
            "../../lib": ("dirs", "lib/index.ts"),
            "../../lib/sub": ("dirs", "lib/sub/index.mjs"),
            "../../pkg": ("dirs", "pkg/src/entry.cjs"),
            # A "main" naming no indexed file falls back to the index file.
            "./broken": ("dirs", "broken/index.tsx"),
            "../../..": None,  # above the repository
        }


def test_a_workspace_package_built_to_dist_is_reached_at_its_source(tmp_path: Path) -> None:
    """Pinia's playground imports `defineStore` from 'pinia', whose package.json names
    `dist/pinia.mjs` (built, not in the repository) and an `index.js` requiring `./dist/…`:
    the import stopped at that shim, and `src/store.ts` ranked below the playground's
    files in the overview. The source entry `src/index.ts` is the package's module."""
    manifest = (
        '{"name": "pinia", "main": "index.js", "module": "dist/pinia.mjs",'
        ' "types": "dist/pinia.d.ts"}'
    )
    repo = write(
        tmp_path / "pinia",
        {
            "packages/pinia/package.json": manifest,
            "packages/pinia/index.js": "module.exports = require('./dist/pinia.cjs')\n",
            "packages/pinia/src/index.ts": "export { defineStore } from './store'\n",
            "packages/pinia/src/store.ts": "export function defineStore(id: string) {}\n",
            "packages/playground/src/counter.ts": (
                "import { defineStore } from 'pinia'\n\n"
                "export function useCounter() {\n  return defineStore('counter')\n}\n"
            ),
        },
    )
    with workspace(tmp_path) as engine:
        engine.add_repo(repo, name="pinia")
        package = SymbolIndex(engine.backend).npm_package("pinia")
        assert package is not None and package.entry == "packages/pinia/src/index.ts"
        calls = {(s, t) for s, t, kind, *_ in edges(engine) if kind == "calls"}
        assert (
            "pinia/packages/playground/src/counter.ts#useCounter",
            "pinia/packages/pinia/src/store.ts#defineStore",
        ) in calls


def test_components_scripts_are_read_and_sveltekit_lib_is_src_lib(tmp_path: Path) -> None:
    """A Svelte or Vue component's `<script>` made no edge at all: no import of another
    component, no call into `src/lib`, no use of a component in its template. And
    SvelteKit's `$lib` (declared only in the tsconfig it writes at build time) reached
    nothing."""
    files = {
        "svelte.config.js": "export default { kit: {} };\n",
        "src/lib/api.js": "export function get(path) {\n  return fetch(path);\n}\n",
        "src/routes/+page.server.js": (
            "import * as api from '$lib/api.js';\n\n"
            "export async function load() {\n  return api.get('articles');\n}\n"
        ),
        "src/routes/Nav.svelte": "<nav>home</nav>\n",
        "src/routes/+page.svelte": (
            "<script>\n"
            "  import Nav from './Nav.svelte';\n"
            "  import { get } from '$lib/api.js';\n\n"
            "  function refresh() {\n    return get('feed');\n  }\n"
            "  const { title } = $props();\n"
            "</script>\n\n<Nav />\n<button on:click={refresh}>more</button>\n"
        ),
        "src/composables/useFetch.ts": (
            "export function useFetch(url: string) {\n  return { url };\n}\n"
        ),
        "src/components/CardBadge.vue": "<template><b>new</b></template>\n",
        "src/components/AppHeader.vue": "<template><h1>app</h1></template>\n",
        "src/components/Card.vue": (
            "<template>\n  <div>{{ data.url }}</div>\n"
            "  <card-badge />\n  <router-link to='/'>home</router-link>\n"
            "  <AppHeader />\n  <Transition />\n</template>\n\n"
            '<script setup lang="ts">\n'
            "import { useFetch } from '../composables/useFetch';\n"
            "import CardBadge from './CardBadge.vue';\n"
            "const data = useFetch('/cards');\n"
            "defineProps<{ id: string }>();\n"
            "</script>\n"
        ),
    }
    found = repo_edges(tmp_path, "app", files, ("imports", "calls"))
    page, card = "app/src/routes/+page.svelte", "app/src/components/Card.vue"
    assert {e for e in found if e[0].startswith((page, card, "app/src/routes/+page.server"))} == {
        ("app/src/routes/+page.server.js", "app/src/lib/api.js", "imports", 1.0, 1),
        ("app/src/routes/+page.server.js#load", "app/src/lib/api.js#get", "calls", 0.9, 4),
        # What a component file gives is the component.
        (page, "app/src/routes/Nav.svelte", "imports", 1.0, 2),
        (page, "app/src/routes/Nav.svelte#Nav", "imports", 1.0, 2),
        (page, "app/src/lib/api.js", "imports", 1.0, 3),
        (page, "app/src/lib/api.js#get", "imports", 1.0, 3),
        (f"{page}#+page.refresh", "app/src/lib/api.js#get", "calls", 1.0, 6),
        # The template's `<Nav />` and its handler `on:click={refresh}`. Svelte's
        # `$props()` and Vue's `defineProps()` are the compiler's: no edge.
        (f"{page}#+page", "app/src/routes/Nav.svelte#Nav", "calls", 1.0, 11),
        (f"{page}#+page", f"{page}#+page.refresh", "calls", 1.0, 12),
        (card, "app/src/composables/useFetch.ts", "imports", 1.0, 10),
        (card, "app/src/composables/useFetch.ts#useFetch", "imports", 1.0, 10),
        (card, "app/src/components/CardBadge.vue", "imports", 1.0, 11),
        (card, "app/src/components/CardBadge.vue#CardBadge", "imports", 1.0, 11),
        (f"{card}#Card", "app/src/composables/useFetch.ts#useFetch", "calls", 1.0, 12),
        # `<card-badge />` is the imported `CardBadge`; `<router-link>`, bound to nothing
        # here (a globally registered component, a custom element), makes no edge.
        (f"{card}#Card", "app/src/components/CardBadge.vue#CardBadge", "calls", 1.0, 3),
        # Not imported (Nuxt's `components/`, a global registration): the one component
        # of that name, as a guess; Vue's own `<Transition>` is no file of the repository.
        (f"{card}#Card", "app/src/components/AppHeader.vue#AppHeader", "calls", 0.5, 5),
        (f"{card}#Card", "?Transition", "calls", 0.0, 6),
    }


def test_an_export_list_names_the_definition_and_a_constant_holds_its_value(
    tmp_path: Path,
) -> None:
    """taxonomy (shadcn/ui): `const Button = React.forwardRef(…); export { Button }` made
    every `<Button>` a call of `?react.forwardRef` (156 of 170 components had no caller),
    and `db.post.findMany()` after `export const db = new PrismaClient()` reached nothing."""
    files = {
        "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["./*"]}}}\n',
        "components/ui/button.tsx": (
            'import * as React from "react"\nimport { cva } from "class-variance-authority"\n\n'
            'const buttonVariants = cva("inline-flex", { variants: {} })\n\n'
            "const Button = React.forwardRef((props, ref) => {\n"
            "  return <button ref={ref} {...props} />\n})\n"
            'Button.displayName = "Button"\n\n'
            "const IconButton = React.forwardRef((props, ref) => <Button {...props} />)\n\n"
            "export { Button, IconButton, buttonVariants }\n"
        ),
        "lib/db.ts": (
            'import { PrismaClient } from "@prisma/client"\n\n'
            "export const db = new PrismaClient()\n"
        ),
        "app/page.tsx": (
            'import { Button, buttonVariants } from "@/components/ui/button"\n'
            'import { db } from "@/lib/db"\n\n'
            "export async function Page() {\n"
            "  const posts = await db.post.findMany()\n"
            "  return <Button className={buttonVariants({})}>{posts.length}</Button>\n}\n"
        ),
    }
    edges = repo_edges(tmp_path, "ui", files, ("calls",))
    found = {e for e in edges if "page" in e[0]}
    # in the file defining it too: `<Button>` in IconButton is Button (6 such in taxonomy)
    button = "ui/components/ui/button.tsx"
    assert (f"{button}#IconButton", f"{button}#Button", "calls", 1.0, 11) in edges
    assert found == {
        ("ui/app/page.tsx#Page", "?@prisma/client.PrismaClient.post.findMany", "calls", 1.0, 5),
        ("ui/app/page.tsx#Page", "ui/components/ui/button.tsx#Button", "calls", 1.0, 6),
        ("ui/app/page.tsx#Page", "ui/components/ui/button.tsx#buttonVariants", "calls", 1.0, 6),
    }


def test_a_prisma_client_call_references_its_model(tmp_path: Path) -> None:
    """taxonomy's `db.post.findMany()` reached nothing, and `symbol Post` found an old
    migration's `CREATE TABLE`: the schema's models had no symbols nor users."""
    files = {
        "prisma/schema.prisma": (
            "model Post {\n  id String @id\n}\n\nmodel User {\n  id String @id\n}\n"
        ),
        "lib/db.ts": (
            'import { PrismaClient } from "@prisma/client"\n\n'
            "export const db = new PrismaClient()\n"
        ),
        "app/posts.ts": (
            'import { db } from "../lib/db"\n\n'
            "export async function posts() {\n  return db.post.findMany()\n}\n"
        ),
    }
    found = {e for e in repo_edges(tmp_path, "web", files) if e[0] == "web/app/posts.ts#posts"}
    assert found == {
        ("web/app/posts.ts#posts", "?@prisma/client.PrismaClient.post.findMany", "calls", 1.0, 4),
        ("web/app/posts.ts#posts", "web/prisma/schema.prisma#Post", "references", 0.8, 4),
        # the client constant it reads
        ("web/app/posts.ts#posts", "web/lib/db.ts#db", "references", 1.0, 4),
    }


def test_classic_scripts_call_each_others_top_level_functions(tmp_path: Path) -> None:
    """healthchecks' static/js: `adaptiveSetInterval` and `loadPingDetails` are defined in
    one script and called in others (the page loads them all; no imports), and `callers`
    found none. A script that imports or exports is a module: its unbound names stay
    unbound."""
    files = {
        "static/js/timer.js": (
            "function adaptiveSetInterval(fn, when) {\n    setInterval(fn, when);\n}\n\n"
            "class DateFormatter {\n    format(d) { return d; }\n}\n"
        ),
        "static/js/details.js": (
            "$(function () {\n"
            "    adaptiveSetInterval(refresh, 1000);\n"
            "    var f = new DateFormatter();\n"
            "    f.format(1);\n"
            "    undefinedThing();\n"
            "});\n"
        ),
        "src/module.js": (
            "import { x } from './x.js';\n\nexport function run() {\n"
            "    adaptiveSetInterval(x, 1);\n}\n"
        ),
        "src/x.js": "export const x = 1;\n",
    }
    found = {(s, t, c) for s, t, ty, c, _ in repo_edges(tmp_path, "hc", files, ("calls",))}
    assert {e for e in found if e[1].startswith("hc/static/js/timer.js")} == {
        ("hc/static/js/details.js", "hc/static/js/timer.js#adaptiveSetInterval", 0.5),
        ("hc/static/js/details.js", "hc/static/js/timer.js#DateFormatter", 0.5),
        ("hc/static/js/details.js", "hc/static/js/timer.js#DateFormatter.format", 0.5),
    }


def test_an_angular_field_set_by_inject_holds_the_service(tmp_path: Path) -> None:
    """Ombi: `private searchService = inject(SearchV2Service)` made
    `this.searchService.popularMoviesByPage()` a call of `?@angular/core.inject…`."""
    files = {
        "app/search.service.ts": (
            "export class SearchV2Service {\n  popular(page: number) {\n    return page;\n  }\n}\n"
        ),
        "app/carousel.component.ts": (
            "import { inject } from '@angular/core';\n"
            "import { SearchV2Service } from './search.service';\n\n"
            "export class CarouselComponent {\n"
            "  private searchService = inject(SearchV2Service);\n"
            "  private other = inject<SearchV2Service>(TOKEN);\n\n"
            "  load() {\n"
            "    this.searchService.popular(1);\n"
            "    this.other.popular(2);\n  }\n}\n"
        ),
    }
    found = {e for e in repo_edges(tmp_path, "ng", files, ("calls",)) if "load" in e[0]}
    popular = "ng/app/search.service.ts#SearchV2Service.popular"
    assert {(e[1], e[4]) for e in found} == {(popular, 9), (popular, 10)}


def test_a_components_template_calls_its_handlers(tmp_path: Path) -> None:
    """mealie: `callers parseIngredientText` missed the template's `{{ … }}` calls, and a
    component's `@click="handleImageDrop($event)"` reached nothing: the template's calls
    were not read. A name no script binds (`count++`, `$emit`) makes no call."""
    files = {
        "src/util.ts": "export function format(n: number): string {\n  return String(n);\n}\n",
        "src/Setup.vue": (
            "<template>\n"
            '  <button @click="save(item)" :disabled="!isValid()">Save</button>\n'
            '  <button v-on:click.prevent="remove">Remove</button>\n'
            '  <span>{{ format(total) }} {{ $emit("x") }}</span>\n'
            "</template>\n\n"
            '<script setup lang="ts">\n'
            'import { format } from "./util";\n\n'
            "function save(item: number) {\n  return item;\n}\n"
            "const remove = () => save(1);\n"
            "const isValid = () => true;\n"
            "</script>\n"
        ),
        "src/Comp.vue": (
            '<template>\n  <button @click="handleDrop($event)">x</button>\n</template>\n'
            '<script lang="ts">\nimport { defineComponent } from "vue";\n'
            "export default defineComponent({\n  setup() {\n"
            "    function handleDrop(e: Event) {\n      return e;\n    }\n"
            "    return { handleDrop };\n  },\n});\n</script>\n"
        ),
    }
    found = {
        (e[0].rpartition("#")[2], e[1].rpartition("#")[2], e[4])
        for e in repo_edges(tmp_path, "ui", files, ("calls",))
        if e[0].endswith(("#Setup", "#Comp")) and e[4] < 5
    }
    assert found == {
        ("Setup", "Setup.save", 2),
        ("Setup", "Setup.isValid", 2),
        ("Setup", "Setup.remove", 3),
        ("Setup", "format", 4),
        ("Comp", "Comp.handleDrop", 2),
    }


def test_an_angular_template_calls_its_components_methods(tmp_path: Path) -> None:
    """Ombi: "what happens when I click the request button on a movie's page" never got
    from `(click)="request()"` in `movie-details.component.html` to the component's
    `request`: a template's calls were not read. A name the component does not define
    (`$any`, a pipe) and a commented-out binding make no call."""
    files = {
        "app/movie-details.component.ts": (
            "import { Component } from '@angular/core';\n\n"
            "@Component({\n  selector: 'movie-details',\n"
            "  templateUrl: './movie-details.component.html',\n})\n"
            "export class MovieDetailsComponent {\n"
            "  request() {\n    return 1;\n  }\n\n"
            "  canRequest(user: string) {\n    return !!user;\n  }\n\n"
            "  title() {\n    return 'x';\n  }\n}\n"
        ),
        "app/movie-details.component.html": (
            "<h1>{{ title() }}</h1>\n"
            '<button (click)="request()" [disabled]="!canRequest(user)">Request</button>\n'
            '<div *ngIf="canRequest(user)">{{ $any(x) }}</div>\n'
            '<!-- <button (click)="title()">old</button> -->\n'
        ),
        "app/other.html": '<button (click)="request()">x</button>\n',
    }
    found = {
        (e[0].rpartition("/")[2], e[1].rpartition("#")[2], e[4])
        for e in repo_edges(tmp_path, "ng", files, ("calls",))
        if ".html" in e[0]
    }
    assert found == {
        ("movie-details.component.html", "MovieDetailsComponent.title", 1),
        ("movie-details.component.html", "MovieDetailsComponent.request", 2),
        ("movie-details.component.html", "MovieDetailsComponent.canRequest", 2),
        ("movie-details.component.html", "MovieDetailsComponent.canRequest", 3),
    }


def test_an_options_api_components_methods_are_its_own(tmp_path: Path) -> None:
    """A Vue 2 component (`export default { methods: { save() {} } }`) had no symbol but
    itself: `symbol save` found nothing, and neither the template's `@click="save(item)"`
    nor `this.save(2)` reached anything. Its methods, computed values, watchers and hooks
    are `Opts.save`, …, `this` in them the component; a watcher of a dotted path
    (`"user.name"()`) is no name of its own."""
    files = {
        "src/util.ts": "export function format(n: number): string {\n  return String(n);\n}\n",
        "src/Opts.vue": (
            "<template>\n"
            '  <button @click="save(item)" :disabled="!isValid()">Save</button>\n'
            "</template>\n\n"
            '<script>\nimport { format } from "./util";\n\n'
            "export default {\n"
            '  name: "Opts",\n'
            "  computed: {\n    total() {\n      return format(1);\n    },\n  },\n"
            "  methods: {\n    save(item) {\n      return item;\n    },\n"
            "    isValid: function () {\n      return true;\n    },\n  },\n"
            '  watch: {\n    "user.name"() {},\n  },\n'
            "  mounted() {\n    this.save(2);\n  },\n};\n</script>\n"
        ),
    }
    write(tmp_path / "ui", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "ui", name="ui")
        symbols = engine.backend.symbols.symbols(SymbolQuery(files=[("ui", "src/Opts.vue")]))
        found = edges(engine, ("calls",))
    assert sorted((s.start_line, s.qualified_name, s.kind) for s in symbols)[1:] == [
        (11, "Opts.total", "method"),
        (16, "Opts.save", "method"),
        (19, "Opts.isValid", "method"),
        (26, "Opts.mounted", "method"),
    ]
    opts = "ui/src/Opts.vue"
    assert {(e[0], e[1], e[4]) for e in found if e[0].startswith(opts)} == {
        (f"{opts}#Opts", f"{opts}#Opts.save", 2),
        (f"{opts}#Opts", f"{opts}#Opts.isValid", 2),
        (f"{opts}#Opts.total", "ui/src/util.ts#format", 12),
        (f"{opts}#Opts.mounted", f"{opts}#Opts.save", 27),  # `this` is the component
    }
