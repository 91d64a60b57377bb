"""Page load and time to first results of `codecompass ui`, in headless chromium, warm.

Starts `codecompass ui` as a subprocess over an index (by default the installed `rich`
package, copied and indexed first), drives Debian's chromium through Playwright (no
browser download) and times, over N rounds after a warm-up:
- page load: navigation until the page is ready (config loaded, scripts run);
- first results: from pressing Enter in the query box until the results are drawn;
- graph view: from clicking the Graph tab until the canvas holds the results' graph.
With --screenshots DIR it also saves the search page and the graph view as PNGs.

    .venv/bin/python benchmarks/web_ui.py [--data-dir .demo/rich] [--rounds 10] \
        [--screenshots docs/images]
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from index_rich import QUERIES  # benchmarks/ is on the path when run as a script
from playwright.sync_api import sync_playwright

from codecompass.engine import Engine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def index_rich(base: Path) -> Path:
    source = base / "rich"
    shutil.copytree(
        Path(importlib.import_module("rich").__file__ or "").parent,
        source,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    engine, root = Engine.for_repo(source, data_dir=base / "data")
    with engine:
        engine.index(root)
    return base / "data"


def wait_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=5):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("codecompass ui did not start") from None
            time.sleep(0.2)


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name:<14} median {statistics.median(values):7.0f} ms   "
        f"min {min(values):6.0f}   max {max(values):6.0f}   (n={len(values)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, help="an existing index (default: rich)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--screenshots", type=Path, help="save search and graph PNGs here")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data_dir or index_rich(Path(tmp))
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPASS_")}
        command = [sys.executable, "-m", "codecompass", "ui", "--data-dir", str(data)]
        process = subprocess.Popen([*command, "--port", str(port)], env=env)
        try:
            wait_up(url, process)
            load, first, graph = measure(url, args.rounds, args.chromium, args.screenshots)
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"index: {data}")
    print(summary("page load", load))
    print(summary("first results", first))
    print(summary("graph view", graph))


def measure(
    url: str, rounds: int, chromium: str, screenshots: Path | None
) -> tuple[list[float], list[float], list[float]]:
    load: list[float] = []
    first: list[float] = []
    graph: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        for n in range(rounds + 1):  # round 0 warms the server and the browser's cache
            began = time.perf_counter()
            page.goto(url)
            page.wait_for_selector("body[data-ready]")
            loaded = (time.perf_counter() - began) * 1000
            page.fill("#q", QUERIES[n % len(QUERIES)])
            began = time.perf_counter()
            page.press("#q", "Enter")
            page.wait_for_selector("#results li[role=option]")
            answered = (time.perf_counter() - began) * 1000
            page.wait_for_selector("#code .line")
            began = time.perf_counter()
            page.click("nav a[data-page=graph]")
            page.wait_for_function("Number(document.querySelector('#cy').dataset.nodes) > 0")
            drawn = (time.perf_counter() - began) * 1000
            if n:
                load.append(loaded)
                first.append(answered)
                graph.append(drawn)
            page.click("nav a[data-page=search]")
        if screenshots is not None:
            screenshots.mkdir(parents=True, exist_ok=True)
            page.goto(url)
            page.wait_for_selector("body[data-ready]")
            page.fill("#q", QUERIES[0])
            page.press("#q", "Enter")
            page.wait_for_selector("#code .line")
            page.screenshot(path=str(screenshots / "ui-search.png"))
            page.click("nav a[data-page=graph]")
            page.wait_for_function("Number(document.querySelector('#cy').dataset.nodes) > 0")
            first_node = "window.codecompassGraph.nodes('[size > 20]')[0]"
            x, y = page.evaluate(
                f"(() => {{ const p = {first_node}.renderedPosition(); return [p.x, p.y]; }})()"
            )
            box = page.locator("#cy").bounding_box()
            assert box is not None
            page.mouse.click(box["x"] + x, box["y"] + y)
            page.wait_for_selector("#details[data-node]")
            page.screenshot(path=str(screenshots / "ui-graph.png"))
            print(f"screenshots: {screenshots / 'ui-search.png'}, {screenshots / 'ui-graph.png'}")
        browser.close()
    return load, first, graph


if __name__ == "__main__":
    main()
