"""`codecompass ui`: a local web app over the engine — search with why each result came
back, the graph that explains the results, a symbol explorer and the index's status.

The page is plain HTML, CSS and JavaScript shipped in the package (`static/`), with
Cytoscape.js vendored in `static/vendor/` (no CDN: it works offline); the JSON endpoints
it calls are in `app.py` and documented in docs/web.md.
"""

from __future__ import annotations

import sys
import webbrowser

from codecompass.protocols import Embedder
from codecompass.service import Service, check_http_binding, run_http
from codecompass.settings import Settings
from codecompass.web.app import create_app

__all__ = ["create_app", "serve_ui"]


def serve_ui(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    open_browser: bool = False,
    embedder: Embedder | None = None,
) -> None:
    """Run the web app until the process is stopped."""
    bind = host or settings.server.host
    token = settings.server.token
    service = Service(settings, embedder=embedder, transport="web")
    check_http_binding(bind, token, bool(service.principals.principals()))
    app = create_app(service, token=token)
    needs_token = bool(token or service.principals.principals())

    def started(where: str, bound: int) -> None:
        url = f"http://{f'[{where}]' if ':' in where else where}:{bound}/"
        print(
            f"Code Compass UI on {url}"
            + (" (append #token=<your token> to the address)" if needs_token else "")
            + f". Data: {settings.data_dir}. Ctrl-C stops it.",
            file=sys.stderr,
            flush=True,
        )
        if open_browser:  # the server's own token rides in the fragment, never sent
            webbrowser.open(url + (f"#/search&token={token}" if token else ""))

    run_http(app, bind, settings.ui.port if port is None else port, started)
