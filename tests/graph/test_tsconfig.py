"""Import aliases from tsconfig.json / jsconfig.json (`graph.tsconfig`): the matching
rules, JSONC, `extends`, and the graph a Next.js-style `@/` alias gives, kept current
when the config changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codecompass.graph.tsconfig import Aliases, nearest_config, read_aliases, strip_jsonc
from tests.graph.helpers import edges, workspace, write


def test_jsonc_loses_comments_and_trailing_commas_not_string_text() -> None:
    text = (
        '{\n  // a "comment"\n  "a": [1, 2, /* x */ ],\n  "b": {"url": "http://x/*y*/",\n'
        '  // last\n  },\n  "c": "quote \\" , }",\n}\n'
    )
    assert json.loads(strip_jsonc(text)) == {
        "a": [1, 2],
        "b": {"url": "http://x/*y*/"},
        "c": 'quote " , }',
    }


def aliases(paths: dict[str, list[str]], base_url: str | None = None) -> Aliases:
    items = tuple((k, tuple(v)) for k, v in paths.items())
    return Aliases("tsconfig.json", ("tsconfig.json",), base_url, base_url or "", items)


@pytest.mark.parametrize(
    ("spec", "bases"),
    [
        ("@/components/button", ["src/components/button"]),
        # the longest prefix wins over `@/*`, its targets tried in order
        ("@/ui/card", ["packages/ui/src/card", "legacy/ui/card"]),
        # an exact pattern wins over every wildcard
        ("@/config", ["config/site"]),
        ("~icons", []),
        ("react", []),
    ],
)
def test_the_paths_pattern_that_matches_gives_the_bases(spec: str, bases: list[str]) -> None:
    found = aliases(
        {
            "@/*": ["./src/*"],
            "@/ui/*": ["packages/ui/src/*", "./legacy/ui/*"],
            "@/config": ["./config/site"],
        }
    )
    assert found.bases(spec) == bases


def test_base_url_resolves_bare_names_after_the_paths() -> None:
    found = aliases({"@lib/*": ["lib/*"]}, base_url="web")
    assert found.bases("@lib/date") == ["web/lib/date", "web/@lib/date"]
    assert found.bases("components/nav") == ["web/components/nav"]


def test_the_nearest_config_and_every_place_looked(tmp_path: Path) -> None:
    files = {"apps/web/tsconfig.json", "jsconfig.json", "apps/web/src/page.tsx"}
    assert nearest_config(files, "apps/web/src/page.tsx") == (
        [
            "apps/web/src/tsconfig.json",
            "apps/web/src/jsconfig.json",
            "apps/web/tsconfig.json",
        ],
        "apps/web/tsconfig.json",
    )
    assert nearest_config(files, "tools/x.js") == (
        ["tools/tsconfig.json", "tools/jsconfig.json", "tsconfig.json", "jsconfig.json"],
        "jsconfig.json",
    )


def test_extends_is_followed_and_the_extending_config_wins(tmp_path: Path) -> None:
    files = {
        "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["x/*"]}}}',
        "apps/web/tsconfig.json": (
            '{"extends": "../../tsconfig.base",\n'
            ' "compilerOptions": {"paths": {"@/*": ["./src/*"]},}}  // ours'
        ),
        "apps/api/tsconfig.json": '{"extends": "@tsconfig/node20/tsconfig.json"}',
    }
    write(tmp_path, files)
    web = read_aliases(tmp_path, set(files), "apps/web/tsconfig.json")
    assert web is not None
    assert web.read == ("apps/web/tsconfig.json", "tsconfig.base.json")
    # `baseUrl` comes from the base; `paths` from web's config, relative to that baseUrl.
    assert (web.base_url, web.paths_base, web.paths) == ("", "", (("@/*", ("./src/*",)),))
    # A config of an npm package is not followed: nothing declared, no aliases.
    assert read_aliases(tmp_path, set(files), "apps/api/tsconfig.json") is None


SITE = {
    "tsconfig.json": (
        "{\n  // Next.js writes comments and trailing commas here\n"
        '  "compilerOptions": {\n    "paths": {"@/*": ["./src/*"],},\n  },\n}\n'
    ),
    "src/lib/utils.ts": "export function cn(...names: string[]) {\n  return names.join(' ');\n}\n",
    "src/lib/formatutils.ts": "export function cn(name: string) {\n  return name;\n}\n",
    "src/app/page.tsx": (
        'import {cn} from "@/lib/utils";\n\nexport function Page() {\n  return cn("a", "b");\n}\n'
    ),
}


def test_an_alias_links_the_import_and_follows_a_config_change(tmp_path: Path) -> None:
    root = write(tmp_path / "site", SITE)
    with workspace(tmp_path) as engine:
        engine.add_repo(root, name="site")
        page = {(s, t, ty) for s, t, ty, *_ in edges(engine) if s.startswith("site/src/app")}
        assert page == {
            ("site/src/app/page.tsx", "site/src/lib/utils.ts", "imports"),
            ("site/src/app/page.tsx", "site/src/lib/utils.ts#cn", "imports"),
            ("site/src/app/page.tsx#Page", "site/src/lib/utils.ts#cn", "calls"),
        }
        # The alias now points elsewhere: the page is resolved again with the config.
        config = SITE["tsconfig.json"].replace(
            '"@/*": ["./src/*"]', '"@/lib/*": ["./src/lib/format*"]'
        )
        (root / "tsconfig.json").write_text(config, encoding="utf-8")
        stats = engine.index(root, name="site")
        assert (stats.graph["changed"], stats.graph["dependents"]) == (1, 1)
        page = {(s, t, ty) for s, t, ty, *_ in edges(engine) if s.startswith("site/src/app")}
        assert page == {
            ("site/src/app/page.tsx", "site/src/lib/formatutils.ts", "imports"),
            ("site/src/app/page.tsx", "site/src/lib/formatutils.ts#cn", "imports"),
            ("site/src/app/page.tsx#Page", "site/src/lib/formatutils.ts#cn", "calls"),
        }
