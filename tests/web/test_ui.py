"""The page in a real headless chromium: search → results → code, the graph (node count,
expand, edge filter, the cap), the symbol explorer, the links between services, the
status page, offline loading, the keyboard, labels, contrast and the layout at 1024 px."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import codecompass.web as web_package
from codecompass.protocols import Embedder
from codecompass.search.rank import FEATURES
from tests.conftest import TinyEmbedder, make_git_repo
from tests.graph.helpers import workspace
from tests.web.conftest import Running, Site, settings_for, start

pytestmark = pytest.mark.slow

QUERY = "check the bearer token"


def api_search(web: Running, query: str = QUERY) -> dict[str, Any]:
    status, data = web.get("/api/search?" + urllib.parse.urlencode({"q": query}))
    assert status == 200, data
    return data


def search(page: Any, web: Running, query: str = QUERY) -> None:
    page.goto(web.url + "/")
    page.wait_for_selector("body[data-ready]")
    page.fill("#q", query)
    page.press("#q", "Enter")
    page.wait_for_selector("#results li[role=option]")
    page.wait_for_selector("#code .line")


def show_graph(page: Any, level: str = "symbols") -> None:
    page.click("nav a[data-page=graph]")
    page.select_option("#lod", level)
    page.wait_for_function("l => document.querySelector('#cy').dataset.level === l", arg=level)


def test_search_then_click_shows_the_code(page: Any, web: Running, site: Site) -> None:
    expected = api_search(web)["results"]
    search(page, web)
    items = page.locator("#results li[role=option]")
    assert items.count() == len(expected) >= 2
    assert items.nth(0).locator(".loc").inner_text() == (
        f"{expected[0]['path']}:{expected[0]['start_line']}-{expected[0]['end_line']}"
    )
    assert "found by" in items.nth(0).locator(".why").inner_text()
    # What lowered a score (here the three-line `verify_token`, weighed as short) is
    # said in words, since the bar draws only what raised it.
    lowered = [i for i, hit in enumerate(expected) if hit["symbol"] == "verify_token"]
    assert len(lowered) == 1
    why = items.nth(lowered[0]).locator(".why").inner_text()
    assert why.endswith("lowered as short symbol -0.200")
    # The score bar ends with the hit's share of its file's score.
    share = expected[0]["why"]["file_share"]
    assert share > 0
    label = items.nth(0).locator(".bar").get_attribute("aria-label")
    assert label.endswith(f", its file's evidence {share:.3f}")
    second = expected[1]
    items.nth(1).click()
    title = f"{second['repo']}/{second['path']}:{second['start_line']}-{second['end_line']}"
    page.wait_for_function(
        "t => document.querySelector('#code-title').textContent === t", arg=title
    )
    page.wait_for_selector(
        f"#code-view[data-loaded='{second['repo']}/{second['path']}:{second['start_line']}']"
    )
    hit_lines = [
        int(n)
        for n in page.locator("#code .line.hit").evaluate_all(
            "lines => lines.map(l => l.dataset.line)"
        )
    ]
    assert hit_lines == list(range(second["start_line"], second["end_line"] + 1))
    assert page.locator("#code .line.hit .k").count() >= 1  # highlighted keywords
    link = page.get_attribute("#open-editor", "href")
    assert link == f"vscode://file{(site.repo / second['path']).as_posix()}:{second['start_line']}"


def test_graph_renders_the_subgraph_of_the_results(page: Any, web: Running) -> None:
    graph = api_search(web)["graph"]
    shown_types = {e["type"] for e in graph["edges"]} - {"keyword", "similar"}
    edges = [e for e in graph["edges"] if e["type"] in shown_types]
    assert len(graph["nodes"]) >= 3 and edges
    search(page, web)
    show_graph(page)
    assert page.get_attribute("#cy", "data-nodes") == str(len(graph["nodes"]))
    assert page.evaluate("window.codecompassGraph.nodes().length") == len(graph["nodes"])
    assert page.evaluate("window.codecompassGraph.edges().length") == len(edges)
    roles = {n["role"] for n in graph["nodes"]}
    assert "seed" in roles


LABELS = """([graph, zoom]) => { const cy = window[graph]; cy.zoom(zoom);
  return cy.nodes().map(n => [n.data('label'), n.hasClass('named'),
    Math.round(n.numericStyle('font-size') * cy.zoom() * 100) / 100,
    n.numericStyle('min-zoomed-font-size')]); }"""


def test_graph_labels_stay_readable_when_zoomed_out(page: Any, web: Running) -> None:
    """Fitted to a big graph, every label had been drawn at 5-9 px."""
    search(page, web)
    show_graph(page)
    labels = page.evaluate(LABELS, ["codecompassGraph", 0.4])
    assert labels and {(px, least) for _, _, px, least in labels} == {(12.0, 0.0)}
    # the explorer: its root named, the callers' labels hidden while under 8 px
    explore(page, web.url, "verify_token", "callers", 2)
    labels = {name: rest for name, *rest in page.evaluate(LABELS, ["codecompassExplorer", 0.4])}
    assert labels.pop("verify_token") == [True, 12.0, 0.0]
    assert labels and set(map(tuple, labels.values())) == {(False, 4.8, 8.0)}
    page.evaluate(
        "() => window.codecompassExplorer.nodes().filter(n => n.data('label') === "
        "'get_user').select()"
    )
    labels = {name: rest for name, *rest in page.evaluate(LABELS, ["codecompassExplorer", 0.4])}
    assert labels["get_user"] == [False, 12.0, 0.0]  # the selected node is shown too
    assert labels["Handler.authorize"] == [False, 4.8, 8.0]
    labels = page.evaluate(LABELS, ["codecompassExplorer", 2])
    assert {px for _, _, px, _ in labels} == {24.0}  # zoomed in: drawn at the model's size


def test_the_detail_filter_sizes_the_snippets_in_the_list(page: Any, web: Running) -> None:
    search(page, web)
    for detail in ("compact", "full"):
        status, data = web.get(
            "/api/search?" + urllib.parse.urlencode({"q": QUERY, "detail": detail})
        )
        assert status == 200
        searched = page.get_attribute("body", "data-searched")
        page.select_option("#f-detail", detail)  # a filter's change searches again
        page.wait_for_function("s => document.body.dataset.searched !== s", arg=searched)
        shown = page.locator("#results li[role=option] .snippet").all_text_contents()
        assert shown == [hit["snippet"] for hit in data["results"] if hit["snippet"]]
        assert len(shown) == len(data["results"])
    compact, full = (
        web.get("/api/search?" + urllib.parse.urlencode({"q": QUERY, "detail": d}))[1]["results"][0]
        for d in ("compact", "full")
    )
    assert len(compact["snippet"]) < len(full["snippet"])


def test_show_functions_or_files_lists_one_result_each(page: Any, web: Running) -> None:
    search(page, web)
    for view in ("symbols", "files"):
        status, data = web.get("/api/search?" + urllib.parse.urlencode({"q": QUERY, "view": view}))
        assert status == 200, data
        keys = [
            (h["path"], h["symbol"]) if view == "symbols" else h["path"] for h in data["results"]
        ]
        assert len(keys) == len(set(keys)) >= 2  # one result per function, or per file
        searched = page.get_attribute("body", "data-searched")
        page.select_option("#f-view", view)  # a filter's change searches again
        page.wait_for_function("s => document.body.dataset.searched !== s", arg=searched)
        shown = page.locator("#results li[role=option] .loc").all_text_contents()
        assert shown == [f"{h['path']}:{h['start_line']}-{h['end_line']}" for h in data["results"]]
    status, data = web.get("/api/search?" + urllib.parse.urlencode({"q": QUERY, "view": "all"}))
    assert status == 400 and "view must be one of hits, symbols, files" in data["error"]["message"]


def click_node(page: Any, node_id: str) -> None:
    """A real mouse click on the node where the canvas drew it."""
    x, y = page.evaluate(
        "id => { const p = window.codecompassGraph.getElementById(id).renderedPosition();"
        " return [p.x, p.y]; }",
        node_id,
    )
    box = page.locator("#cy").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)
    page.wait_for_selector(f"#details[data-node='{node_id}']")


def test_click_a_node_then_expand_its_neighbours(page: Any, web: Running) -> None:
    graph = api_search(web)["graph"]
    target = next(n for n in graph["nodes"] if n["id"].endswith("#verify_token"))
    shown = {n["id"] for n in graph["nodes"]}

    def expanded(node: str) -> set[str]:
        status, data = web.get(
            "/api/expand?" + urllib.parse.urlencode({"id": node, "types": TYPES})
        )
        assert status == 200
        return {n["id"] for n in data["nodes"]}

    # Names the index could not resolve (`?hmac.compare_digest`) are not drawn.
    assert any(n.startswith("?") for n in expanded(target["id"]))
    grower = next(n for n in sorted(shown) if {m for m in expanded(n) if m[0] != "?"} - shown)
    union = shown | {m for m in expanded(grower) if m[0] != "?"}
    search(page, web)
    show_graph(page)
    click_node(page, target["id"])
    details = page.locator("#details")
    assert details.locator("h2").inner_text() == "verify_token"
    assert "def verify_token(token: str, expected: str) -> bool" in details.inner_text()
    assert "calls" in details.inner_text()
    # A node with no docstring shows none (not "null"), and nothing shows "undefined".
    click_node(page, "authsvc/api/handlers.py#Handler.authorize")
    text = details.inner_text()
    assert details.locator("h2").inner_text() == "Handler.authorize"
    assert "null" not in text and "undefined" not in text
    click_node(page, target["id"])
    page.click("#expand-node")
    page.wait_for_timeout(500)
    assert page.get_attribute("#cy", "data-nodes") == str(len(shown))  # nothing resolved
    click_node(page, grower)
    page.click("#expand-node")
    page.wait_for_function(
        "n => document.querySelector('#cy').dataset.nodes === String(n)", arg=len(union)
    )
    drawn = page.evaluate("window.codecompassGraph.nodes().map(n => n.id())")
    assert not any(n.startswith("?") for n in drawn)


TYPES = "contains,imports,calls,extends,implements,references,http,package"


def test_filter_by_edge_type(page: Any, web: Running) -> None:
    graph = api_search(web)["graph"]
    visible = [e for e in graph["edges"] if e["type"] in TYPES.split(",")]
    without_calls = [e for e in visible if e["type"] != "calls"]
    assert len(without_calls) < len(visible)
    search(page, web)
    show_graph(page)
    assert page.get_attribute("#cy", "data-edges") == str(len(visible))
    where = "() => window.codecompassGraph.nodes().map(n => [n.id(), n.position()])"
    before = page.evaluate(where)
    page.uncheck("#edge-filter input[value=calls]")
    page.wait_for_function(
        "n => document.querySelector('#cy').dataset.edges === String(n)", arg=len(without_calls)
    )
    assert (
        page.evaluate(
            "window.codecompassGraph.edges().filter(e => e.data('type') === 'calls').length"
        )
        == 0
    )
    # The nodes stay where they were: hiding edges had laid the whole graph out again.
    assert page.evaluate(where) == before


@pytest.fixture(scope="module")
def capped(site: Site, onnx: Embedder) -> Iterator[Running]:
    yield from start(settings_for(site.data, max_nodes=3, max_edges=2), onnx)


def test_an_error_at_start_stays_on_screen(page: Any, onnx: Embedder, tmp_path: Path) -> None:
    """With nothing indexed the page was blank until a search: routing to the first
    page had erased the start's error."""
    running = start(settings_for(tmp_path / "empty"), onnx)
    empty = next(running)
    try:
        page.goto(empty.url + "/")
        page.wait_for_selector("body[data-ready]")
        assert page.is_visible("#error")
        assert page.inner_text("#error").startswith("not_indexed:")
    finally:
        running.close()


def test_a_token_pasted_into_an_open_tab_is_taken(page: Any, site: Site, onnx: Embedder) -> None:
    """Opened without its token, then given `#token=…` in the same tab (no reload): the
    token had been ignored and left in the address bar and the history."""
    running = start(settings_for(site.data), onnx, token="s3cret-token")
    guarded = next(running)
    try:
        page.goto(guarded.url + "/")
        page.wait_for_selector("body[data-ready]")
        assert page.inner_text("#error").startswith("unauthorized")
        page.evaluate("location.hash = '#token=s3cret-token'")
        page.wait_for_function("() => location.hash === '#/search'")
        page.wait_for_function("() => document.querySelector('#error').hidden")
        assert page.evaluate("sessionStorage.getItem('codecompass-token')") == "s3cret-token"
        search(page, guarded)
    finally:
        running.close()


def test_a_graph_over_the_cap_says_so(page: Any, capped: Running) -> None:
    assert len(api_search(capped)["graph"]["nodes"]) == 3  # the server keeps to the cap too
    search(page, capped)
    show_graph(page)
    message = page.locator("#cap-message")
    assert message.is_visible()
    assert "limit of 3 nodes / 2 edges" in message.inner_text()
    assert int(page.get_attribute("#cy", "data-nodes")) <= 3
    assert int(page.get_attribute("#cy", "data-edges")) <= 2


def explore(page: Any, url: str, symbol: str, relation: str, depth: int) -> None:
    """Open the symbol explorer on `symbol` and wait for its tree."""
    page.goto(url + "/#/explore")
    page.wait_for_selector("body[data-ready]")
    page.fill("#x-symbol", symbol)
    page.select_option("#x-relation", relation)
    page.fill("#x-depth", str(depth))
    page.click("#explore-form button[type=submit]")
    page.wait_for_selector("#x-tree [role=treeitem]")


def test_symbol_explorer_shows_callers_as_tree_and_graph(page: Any, web: Running) -> None:
    explore(page, web.url, "verify_token", "callers", 2)
    names = page.locator("#x-tree [role=treeitem] > span > strong").all_inner_texts()
    # verify_token ← Handler.authorize ← get_user and AdminHandler.delete_user
    assert names[0] == "verify_token"
    assert "Handler.authorize" in names
    assert {"get_user", "AdminHandler.delete_user"} <= set(names)
    assert page.get_attribute("#x-cy", "data-nodes") == str(len(names))
    # One row per hop from the root (callers point at it: a directed layout had put
    # them all in one row).
    rows = page.evaluate(
        "names => names.map(n => Math.round(window.codecompassExplorer.nodes()"
        ".filter(x => x.data('label') === n)[0].position().y))",
        ["verify_token", "Handler.authorize", "get_user"],
    )
    assert rows[0] < rows[1] < rows[2], rows


def test_keyboard_reaches_every_graph_node(page: Any, web: Running) -> None:
    """The canvas cannot take the focus: its nodes are also a list of buttons, search hits
    first, and a button shows the node's details as a click on the canvas does."""
    graph = api_search(web)["graph"]
    search(page, web)
    show_graph(page)
    buttons = page.locator("#graph-nodes button.node")
    assert buttons.count() == len(graph["nodes"])
    assert page.inner_text("#graph-list-summary") == f"The {len(graph['nodes'])} nodes as a list"
    roles = [b.split(" · ")[-1] for b in buttons.all_text_contents()]
    seeds = sum(1 for n in graph["nodes"] if n["role"] == "seed")
    assert roles[:seeds] == ["search hit"] * seeds and "search hit" not in roles[seeds:]
    page.click("#graph-list summary")
    target = "authsvc/api/handlers.py#Handler.authorize"
    page.focus(f"#graph-nodes button[data-node='{target}']")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#details[data-node='{target}']")
    assert page.locator("#details h2").inner_text() == "Handler.authorize"
    selected = page.evaluate("window.codecompassGraph.$(':selected').map(n => n.id())")
    assert selected == [target]


def test_keyboard_walks_the_explorer_tree_and_opens_the_code(page: Any, web: Running) -> None:
    explore(page, web.url, "verify_token", "callers", 2)
    items = page.locator("#x-tree [role=treeitem]")
    names = page.locator("#x-tree [role=treeitem] > span > strong").all_inner_texts()
    assert [items.nth(i).get_attribute("tabindex") for i in range(items.count())] == ["0"] + [
        "-1"
    ] * (len(names) - 1)
    focused = "document.activeElement.querySelector(':scope > span > strong').textContent"
    page.focus("#x-tree [role=treeitem]")
    page.keyboard.press("ArrowDown")
    assert page.evaluate(focused) == names[1] == "Handler.authorize"
    page.keyboard.press("ArrowLeft")  # an open branch closes: its callers leave the walk
    page.keyboard.press("ArrowLeft")  # a closed one steps out to its parent
    assert page.evaluate(focused) == "verify_token"
    page.keyboard.press("End")
    assert page.evaluate(focused) == "Handler.authorize"  # its callers are hidden
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(focused) == names[2]
    selected = page.evaluate("window.codecompassExplorer.$(':selected').map(n => n.id())")
    assert selected == [page.evaluate("document.activeElement.dataset.node")]
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    page.wait_for_selector("#code-view[data-loaded^='authsvc/api/handlers.py:']")
    assert page.evaluate("location.hash") == "#/search"
    # The focus follows the code it opened (it had fallen to the page's body).
    assert page.evaluate("document.activeElement.id") == "code"


def test_a_later_search_wins_and_a_failed_one_clears_the_last(page: Any, web: Running) -> None:
    """A slower earlier answer had replaced a later one (results of another language
    under the filter chosen); a failed search had left the last results and code on
    screen; arrow keys on a filter fired one search per option passed."""
    search(page, web)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/search" in r.url else None)
    slow = {"first": True}

    def delay_first(route: Any) -> None:
        if slow["first"]:
            slow["first"] = False
            page.wait_for_timeout(1500)
        route.continue_()

    page.route("**/api/search?*", delay_first)
    page.fill("#q", "first slow question")
    page.press("#q", "Enter")
    page.fill("#q", "refresh")
    page.press("#q", "Enter")
    page.wait_for_function("() => document.body.dataset.searched", timeout=10000)
    page.wait_for_timeout(2000)  # the slow answer arrives, and is left unshown
    expected = api_search(web, "refresh")["results"]
    shown = page.locator("#results li[role=option] .loc").all_inner_texts()
    assert shown == [f"{h['path']}:{h['start_line']}-{h['end_line']}" for h in expected]
    page.unroute("**/api/search?*")
    asked.clear()
    page.focus("#f-kind")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    page.wait_for_timeout(900)
    assert len(asked) == 1  # once the list rests
    page.select_option("#f-kind", "")
    page.fill("#f-path", "no/such/dir/")
    page.press("#q", "Enter")
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#results li[role=option][id]").count() == 0
    assert page.get_attribute("#code-view", "data-loaded") is None
    page.fill("#q", "   ")
    page.press("#q", "Enter")
    assert page.inner_text("#search-status").startswith("Type a query")


def test_symbol_explorer_roots_every_overload(page: Any, web: Running) -> None:
    explore(page, web.url, "describe", "callers", 1)
    roots = page.locator("#x-tree > ul > [role=treeitem] > span > strong").all_inner_texts()
    assert roots == ["describe", "describe", "describe"]  # two @overload stubs, the body
    names = page.locator("#x-tree [role=treeitem] > span > strong").all_inner_texts()
    assert names == ["describe", "describe", "describe", "banner"]  # a call of the body
    assert page.get_attribute("#x-cy", "data-nodes") == "4"


def test_symbol_explorer_asks_for_a_symbol_when_given_spaces(page: Any, web: Running) -> None:
    explore(page, web.url, "verify_token", "callers", 2)
    page.fill("#x-symbol", "   ")
    page.fill("#x-depth", "")
    page.click("#explore-form button[type=submit]")
    # The last walk's status had stayed ("callers of verify_token: …").
    assert page.inner_text("#x-status").startswith("Type a symbol")


def test_symbol_explorer_says_when_calls_are_not_read(page: Any, web: Running) -> None:
    page.goto(web.url + "/#/explore")
    page.wait_for_selector("body[data-ready]")
    page.fill("#x-symbol", "order_count")
    page.click("#explore-form button[type=submit]")
    page.wait_for_selector("#x-tree [role=treeitem]")
    assert page.inner_text("#x-status") == (
        "callers of order_count: 0 node(s) within depth 2. Note: calls are not read from "
        "sql files yet: the calls of and to order_count in sql code are unknown, not "
        "absent; search for its name to find where it is used."
    )


def test_status_page(page: Any, web: Running, site: Site) -> None:
    api_search(web)  # at least one search in the log
    status, data = web.get("/api/status")
    assert status == 200
    repo = data["index"]["repos"][0]
    page.goto(web.url + "/#/status")
    page.wait_for_selector("#page-status[data-loaded]")
    row = page.locator("#repos-table tbody tr").first.locator("td").all_inner_texts()
    assert row[:4] == [repo["id"], str(repo["files"]), str(repo["symbols"]), str(repo["chunks"])]
    assert page.locator("#charts figure.chart").count() == 3
    tools = page.locator("#tools-table tbody td:first-child").all_inner_texts()
    assert "search_code" in tools


def test_the_page_loads_with_the_network_blocked(page: Any, web: Running) -> None:
    leaving: list[str] = []

    def guard(route: Any) -> None:
        if route.request.url.startswith(web.url + "/"):
            route.continue_()
        else:
            leaving.append(route.request.url)
            route.abort()

    page.context.route("**/*", guard)
    search(page, web)
    show_graph(page)
    assert page.evaluate("typeof cytoscape") == "function"
    assert int(page.get_attribute("#cy", "data-nodes")) >= 3
    assert leaving == []


def test_keyboard_search_move_and_open(page: Any, web: Running) -> None:
    expected = api_search(web)["results"]
    page.goto(web.url + "/")
    page.wait_for_selector("body[data-ready]")
    page.locator("body").press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type(QUERY)
    page.keyboard.press("Enter")
    page.wait_for_selector("#results li[role=option]")
    page.keyboard.press("ArrowDown")  # from the query box into the results
    assert page.evaluate("document.activeElement.id") == "results"
    page.keyboard.press("ArrowDown")
    assert page.get_attribute("#result-1", "aria-selected") == "true"
    # Named briefly (the whole snippet and bar had been each option's name), and the code
    # view is no live region reading every file opened out.
    first = expected[0]
    assert page.get_attribute("#result-0", "aria-label") == (
        f"{first['path']}:{first['start_line']}-{first['end_line']}"
        + (f" {first['symbol']}" if first["symbol"] else "")
        + f", score {first['score']:.3f}"
    )
    assert page.get_attribute("#code", "aria-live") is None
    assert page.get_attribute("#result-0", "aria-selected") == "false"
    page.keyboard.press("Enter")
    hit = expected[1]
    page.wait_for_selector(
        f"#code-view[data-loaded='{hit['repo']}/{hit['path']}:{hit['start_line']}']"
    )


def contrast(page: Any, selector: str) -> float:
    """WCAG contrast ratio of an element's text colour on its (nearest opaque) background."""
    return float(
        page.evaluate(
            """sel => {
              const el = document.querySelector(sel);
              const rgb = s => s.match(/[\\d.]+/g).map(Number);
              const lum = ([r, g, b]) => {
                const c = [r, g, b].map(v => { v /= 255;
                  return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
                return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
              };
              let bg = el, colour;
              while (bg) { colour = getComputedStyle(bg).backgroundColor;
                if (rgb(colour).length < 4 || rgb(colour)[3] > 0) break; bg = bg.parentElement; }
              const fg = lum(rgb(getComputedStyle(el).color));
              const back = bg ? lum(rgb(colour)) : 1;
              return (Math.max(fg, back) + 0.05) / (Math.min(fg, back) + 0.05);
            }""",
            selector,
        )
    )


def test_labels_contrast_and_no_layout_break_at_1024(browser: Any, web: Running) -> None:
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    try:
        search(page, web)
        unlabelled = page.evaluate(
            "[...document.querySelectorAll('input, select')]"
            ".filter(e => !e.labels.length && !e.getAttribute('aria-label')).map(e => e.id)"
        )
        assert unlabelled == []
        for selector in (
            "#results li[role=option] .loc",
            "#results li[role=option] .why",
            "#search-status",
            "nav a[aria-current=page]",
            "form button[type=submit]",
            "#code .line .ln",
        ):
            assert contrast(page, selector) >= 4.5, selector
        for route in ("search", "graph", "explore", "links", "status"):
            page.goto(f"{web.url}/#/{route}")
            page.wait_for_selector("body[data-ready]")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 1024, (route, width)
    finally:
        context.close()


def test_screenshots_of_search_and_graph(page: Any, web: Running, tmp_path: Path) -> None:
    search(page, web)
    page.screenshot(path=str(tmp_path / "search.png"))
    show_graph(page)
    page.screenshot(path=str(tmp_path / "graph.png"))
    for name in ("search.png", "graph.png"):
        head = (tmp_path / name).read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(head[16:20], "big") == 1280  # the viewport's width


def test_level_of_detail_collapses_to_files_and_folders(page: Any, web: Running) -> None:
    nodes = api_search(web)["graph"]["nodes"]
    files = {f"{n['repo']}/{n['path']}" for n in nodes}
    folders = {f.rsplit("/", 1)[0] for f in files}
    assert len(files) < len(nodes)
    search(page, web)
    show_graph(page, "files")
    assert page.get_attribute("#cy", "data-nodes") == str(len(files))
    show_graph(page, "modules")
    assert page.get_attribute("#cy", "data-nodes") == str(len(folders))


# -- the links between services (the estate of conftest.ESTATE) -------------------------
def show_links(page: Any, via: str = "", repo: str = "", find: str = "") -> None:
    """Wait until the Links page shows the answer for this kind, repository and Find."""
    page.wait_for_selector(f"#page-links[data-loaded='{via}|{repo}|{find}']")


def link_rows(page: Any) -> list[list[str]]:
    """Each row: kind, name, confidence, how, and both ends as repo:path:line."""
    return [
        [*row.locator("td").all_inner_texts()[:4], *row.locator(".end").all_inner_texts()]
        for row in page.locator("#links-table tr.link").all()
    ]


def test_links_page_lists_the_links_by_kind_and_filters_them(page: Any, linked: Running) -> None:
    page.goto(linked.url + "/#/links")
    page.wait_for_selector("body[data-ready]")
    show_links(page)
    assert page.locator("nav a[aria-current=page]").inner_text() == "Links"
    assert page.locator("#l-counts").inner_text() == "14 links: 4 http · 4 rpc · 1 sdk · 5 event"
    assert page.locator("#links-table tr.group").all_inner_texts() == [
        "http · 4 links",
        "rpc · 4 links",
        "sdk · 1 link",
        "event · 5 links",
    ]
    rows = link_rows(page)
    assert len(rows) == 14
    assert rows[0] == [
        "http", "GET /users/{}", "0.80", "template", "web:client.py:10", "api:app.py:9"
    ]  # fmt: skip
    assert rows[8] == ["sdk", "api_sdk:Client", "1.00", "package", "web:client.py:4",
                       "api:pyproject.toml:2"]  # fmt: skip
    assert page.locator("#links-table tr.link").first.locator(".end-name").all_inner_texts() == [
        "load_user",
        "get_user",
    ]
    assert page.locator("#l-empty").is_hidden()

    page.select_option("#l-via", "rpc")
    show_links(page, "rpc")
    assert page.locator("#l-counts").inner_text() == "4 links: 4 rpc"
    assert link_rows(page) == [
        ["rpc", "shop.Checkout/PlaceOrder", "0.90", "servicer", "checkout:checkout/server.py:14",
         "checkout:protos/shop.proto:8"],
        ["rpc", "shop.Checkout/GetOrder", "0.90", "servicer", "checkout:checkout/server.py:19",
         "checkout:protos/shop.proto:9"],
        ["rpc", "shop.Checkout/PlaceOrder", "0.90", "stub", "storefront:orders/orders.go:21",
         "checkout:checkout/server.py:14"],
        ["rpc", "shop.Checkout/GetOrder", "0.90", "stub", "storefront:orders/orders.go:30",
         "checkout:checkout/server.py:19"],
    ]  # fmt: skip

    page.select_option("#l-repo", "storefront")
    show_links(page, "rpc", "storefront")
    assert page.locator("#l-counts").inner_text() == "2 links with an end in storefront: 2 rpc"
    assert [row[4] for row in link_rows(page)] == [
        "storefront:orders/orders.go:21",
        "storefront:orders/orders.go:30",
    ]

    page.select_option("#l-via", "event")
    show_links(page, "event", "storefront")
    assert link_rows(page) == []
    assert page.locator("#links-table").is_hidden()
    assert page.locator("#l-empty .empty-what").inner_text() == (
        "No event links between services with an end in storefront. Choose All to see the others."
    )

    page.select_option("#l-via", "")
    page.select_option("#l-repo", "shop")
    show_links(page, "", "shop")
    assert page.locator("#l-counts").inner_text() == (
        "5 links with an end in shop: 0 http · 0 rpc · 0 sdk · 5 event"
    )
    assert page.locator("#links-table tr.group").all_inner_texts() == ["event · 5 links"]


ROUTES = 130


@pytest.fixture(scope="module")
def many_links(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """An api of 130 routes and a front end calling each: 130 http links."""
    base = tmp_path_factory.mktemp("many")
    routes = "".join(
        f'@app.get("/items{i}/<int:key>")\ndef item_{i}(key: int) -> dict:\n    return {{}}\n\n\n'
        for i in range(ROUTES)
    )
    calls = "".join(
        f'def load_{i}(key: int) -> dict:\n    return requests.get(f"{{BASE}}/items{i}/{{key}}")'
        ".json()\n\n\n"
        for i in range(ROUTES)
    )
    make_git_repo(
        base / "api", {"app.py": f"from flask import Flask\n\napp = Flask(__name__)\n\n\n{routes}"}
    )
    make_git_repo(
        base / "web", {"client.py": f'import requests\n\nBASE = "http://api:8000"\n\n\n{calls}'}
    )
    with workspace(base) as engine:
        engine.add_repo(base / "api", name="api")
        engine.add_repo(base / "web", name="web")
    yield from start(settings_for(base / "data"), TinyEmbedder())


def test_many_links_come_a_page_at_a_time_and_find_narrows_them(
    page: Any, many_links: Running
) -> None:
    """130 links had been 260 tab stops at once, and nothing could pick one out."""
    page.goto(many_links.url + "/#/links")
    page.wait_for_selector("body[data-ready]")
    show_links(page)
    assert page.locator("#l-counts").inner_text() == (
        f"{ROUTES} links: {ROUTES} http · 0 rpc · 0 sdk · 0 event"
    )
    assert page.locator("#links-table tr.group").all_inner_texts() == [f"http · {ROUTES} links"]
    assert page.locator("#links-table tr.link").count() == 100
    more = page.locator("#links-table tr.more button")
    assert more.inner_text() == "Show 30 more (30 not shown)"
    more.click()
    assert page.locator("#links-table tr.link").count() == ROUTES
    assert page.locator("#links-table tr.more").count() == 0
    focused = page.evaluate("document.activeElement.closest('tr').rowIndex")
    assert focused == page.locator("#links-table tr.link").nth(100).evaluate("r => r.rowIndex")

    page.fill("#l-find", "items12/")
    show_links(page, find="items12/")
    assert page.locator("#l-counts").inner_text() == (
        f"1 of {ROUTES} links match “items12/”: 1 http · 0 rpc · 0 sdk · 0 event"
    )
    assert [row[1] for row in link_rows(page)] == ["GET /items12/{}"]
    page.fill("#l-find", "client.py:9")  # an end's place, as the table prints it
    show_links(page, find="client.py:9")
    assert [row[4] for row in link_rows(page)] == [f"web:client.py:{n}" for n in (91, 95, 99)]
    page.fill("#l-find", "nowhere")
    show_links(page, find="nowhere")
    assert page.locator("#links-table").is_hidden()
    assert page.locator("#l-empty .empty-what").inner_text() == "No link matches “nowhere”."
    page.fill("#l-find", "")
    show_links(page)
    assert page.locator("#links-table tr.link").count() == 100


def test_clicking_an_end_opens_its_file_at_that_line(page: Any, linked: Running) -> None:
    page.goto(linked.url + "/#/links")
    page.wait_for_selector("body[data-ready]")
    show_links(page)
    page.select_option("#l-via", "rpc")
    show_links(page, "rpc")
    stub = page.locator("#links-table tr.link").nth(2)
    stub.locator("button.end").nth(1).click()  # the server's side of Orders.Buy's stub call
    page.wait_for_selector("#code-view[data-loaded='checkout/checkout/server.py:14']")
    assert page.evaluate("location.hash") == "#/search"
    assert page.locator("#page-search").is_visible() and page.locator("#page-links").is_hidden()
    assert page.locator("#code-title").inner_text() == "checkout/checkout/server.py:14-14"
    hit = page.locator("#code .line.hit")
    assert hit.evaluate_all("lines => lines.map(l => l.dataset.line)") == ["14"]
    assert hit.locator(".src").inner_text() == "    def PlaceOrder(self, request, context):"
    # back to the links, then the other side: the rpc as the .proto declares it
    page.go_back()
    show_links(page, "rpc")
    page.locator("#links-table tr.link").first.locator("button.end").nth(1).click()
    page.wait_for_selector("#code-view[data-loaded='checkout/protos/shop.proto:8']")
    assert page.locator("#code .line.hit .src").inner_text() == (
        "  rpc PlaceOrder(OrderRequest) returns (Order);"
    )


def test_links_page_without_links_says_where_links_come_from(page: Any, web: Running) -> None:
    status, data = web.get("/api/links")
    assert (status, data) == (200, {"links": [], "counts": {"http": 0, "rpc": 0, "sdk": 0,
                                                            "event": 0}})  # fmt: skip
    page.goto(web.url + "/#/links")
    page.wait_for_selector("body[data-ready]")
    show_links(page)
    assert page.locator("#links-table").is_hidden()
    empty = page.locator("#l-empty")
    assert empty.is_visible()
    texts = empty.locator("p").all_inner_texts()
    assert texts[0] == "No links between services in this index."
    for source in ("HTTP routes", "OpenAPI", ".proto", "gRPC", "event producers and consumers"):
        assert source in texts[1], source
    assert page.locator("#l-counts").inner_text() == "0 links: 0 http · 0 rpc · 0 sdk · 0 event"


def edge_styles(page: Any) -> dict[str, list[str]]:
    """The explorer's edges by type: line colour and style, label colour."""
    styles: dict[str, list[str]] = page.evaluate(
        """() => Object.fromEntries(window.codecompassExplorer.edges().map(e => [e.data('type'),
             [e.style('line-color'), e.style('line-style'), e.style('color')]]))"""
    )
    return styles


def test_link_edges_are_drawn_apart_from_code_edges(page: Any, linked: Running) -> None:
    explore(page, linked.url, "shop/shop/events.py#place_order", "dependencies", 1)
    grey = "rgb(140,149,159)"
    assert edge_styles(page) == {
        "calls": [grey, "solid", "rgb(77,86,97)"],
        "references": [grey, "solid", "rgb(77,86,97)"],  # the topic's constant it reads
        "emits": ["rgb(149,56,0)", "dashed", "rgb(149,56,0)"],
        "event": ["rgb(191,57,137)", "solid", "rgb(191,57,137)"],
    }
    page.fill("#x-symbol", "checkout/checkout/server.py#CheckoutService.PlaceOrder")
    page.click("#explore-form button[type=submit]")
    page.wait_for_function(
        "() => window.codecompassExplorer.edges('[type = \"serves\"]').length === 1"
    )
    assert edge_styles(page)["serves"] == ["rgb(27,124,131)", "dashed", "rgb(27,124,131)"]
    page.select_option("#x-relation", "callers")
    page.click("#explore-form button[type=submit]")
    page.wait_for_function(
        "() => window.codecompassExplorer.edges('[type = \"rpc\"]').length === 1"
    )
    assert edge_styles(page) == {"rpc": ["rgb(130,80,223)", "solid", "rgb(130,80,223)"]}
    # the graph's edge filter shows each link type's colour and line beside its box
    page.click("nav a[data-page=graph]")
    swatch = page.locator("#edge-filter label:has(input[value=listens]) .swatch")
    assert swatch.evaluate("s => getComputedStyle(s).borderTopStyle") == "dotted"
    assert swatch.evaluate("s => getComputedStyle(s).borderTopColor") == "rgb(149, 56, 0)"
    assert page.locator("#edge-filter .swatch").count() == 7
    assert page.locator("#edge-filter label:has(input[value=calls]) .swatch").count() == 0


def test_every_ranking_feature_has_words_and_its_own_colour_in_the_score_bar() -> None:
    """The score bar names each part in words; a feature the page does not know would
    show its raw name (`ppr`) to a reader who never saw the ranking code."""
    script = (Path(web_package.__file__).parent / "static" / "app.js").read_text(encoding="utf-8")
    words = re.search(r"const FEATURE_WORDS = \{(.*?)\};", script, re.S)
    colours = re.search(r"const FEATURE_COLOURS = \{(.*?)\};", script, re.S)
    assert words is not None and colours is not None
    assert set(FEATURES) - set(re.findall(r"(\w+): \"", words[1])) == set()
    assert set(FEATURES) - set(re.findall(r"(\w+): \"", colours[1])) == set()
    # Parts of one bar are told apart by colour alone.
    shades = re.findall(r"\w+: \"(#[0-9a-f]{6})\"", colours[1])
    assert len(shades) == len(set(shades)) == len(re.findall(r"\w+: \"", colours[1]))


def test_a_failed_open_leaves_no_other_files_lines(page: Any, web: Running) -> None:
    """A result whose file is gone (deleted since indexing) kept the last file's lines,
    banner and editor link under the new title."""
    expected = api_search(web)["results"]
    search(page, web)
    page.locator("#results li[role=option]").nth(0).click()
    page.wait_for_selector("#code-view[data-loaded]")
    page.evaluate("([repo]) => openCode(repo, 'gone/away.py', 3, 5)", [expected[0]["repo"]])
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#code .line").count() == 0
    assert page.get_attribute("#code-view", "data-loaded") is None
    assert page.is_hidden("#open-editor")
    assert page.inner_text("#error") == (
        f"not_found: {expected[0]['repo']}/gone/away.py is no longer where the index saw it "
        "(deleted or moved); run codecompass index to refresh."
    )
    page.goto(web.url + "/#/status")  # the error belonged to the search page
    page.wait_for_function("document.title === 'Status · Code Compass'")
    assert page.is_hidden("#error")


def test_the_explorer_never_walks_another_symbol_than_the_one_named(
    page: Any, web: Running
) -> None:
    """`NoSuchThing` walked `NoSuchOption`, the one close match, under its own name."""
    page.goto(web.url + "/#/explore")
    page.wait_for_selector("body[data-ready]")
    page.fill("#x-symbol", "verify_tokn")
    page.click("#explore-form button[type=submit]")
    page.wait_for_selector("#x-matches li")
    assert page.inner_text("#x-status") == "No symbol named verify_tokn; did you mean:"
    assert "verify_token" in page.inner_text("#x-matches")
    assert page.locator("#x-tree [role=treeitem]").count() == 0


def test_slash_from_another_page_focuses_the_query(page: Any, web: Running) -> None:
    page.goto(web.url + "/#/status")
    page.wait_for_selector("body[data-ready]")
    page.locator("body").press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    assert page.is_visible("#page-search") and page.title() == "Search · Code Compass"


def test_a_phone_wide_page_stacks_its_panes(browser: Any, linked: Running) -> None:
    """At 390 px the Status page was 842 px wide (its tables), the Links page 443, and
    search and code, graph and details stood side by side, the code title one character
    a line."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        search(page, linked)
        results, code = (page.locator(s).bounding_box() for s in ("#results", "#code-view"))
        assert results is not None and code is not None
        assert code["y"] >= results["y"] + results["height"]  # below, not beside
        assert code["width"] >= 300
        for route in ("search", "graph", "explore", "links", "status"):
            page.goto(f"{linked.url}/#/{route}")
            page.wait_for_selector("body[data-ready]")
            if route in ("links", "status"):
                page.wait_for_selector(f"#page-{route} table:not([hidden]) tbody tr")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (route, width)
        # The links table scrolls within itself: its ends keep a readable width (they
        # had been squeezed to 35 px, a row 440 px tall).
        page.goto(f"{linked.url}/#/links")
        page.wait_for_selector("#page-links table:not([hidden]) tbody tr")
        # Laid out first: on a loaded machine the cells were measured at 0 px.
        page.wait_for_function(
            "() => [...document.querySelectorAll('#page-links td')]"
            ".every(c => c.getBoundingClientRect().width > 0)"
        )
        ends = page.eval_on_selector_all(
            "#page-links td", "cells => cells.map(c => c.getBoundingClientRect().width)"
        )
        assert ends and min(ends) >= 130, ends
    finally:
        context.close()
