"""The live view: a small Starlette app on loopback, behind the HTTP transport's Host/Origin guard and a token.

``transport.RequestGuard`` refuses foreign Host headers (DNS rebinding) and foreign Origins; on top of it every
request must carry this run's random token, in the page URL (``?token=``) or, from the page's own calls, as
``Authorization: Bearer``. Handlers are plain functions run in Starlette's bounded thread pool; a request that
fails answers with one JSON error and the server keeps serving.
"""

from __future__ import annotations

import logging
import secrets
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from igraph_mcp.errors import IGraphError, InvalidInput
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.next_step import word
from igraph_mcp.transport import RequestGuard, is_loopback, token_matches
from igraph_mcp.view.aggregate import MAX_UNITS
from igraph_mcp.view.assets import VisAssets
from igraph_mcp.view.data import ViewData
from igraph_mcp.view.page import render_page

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 32  # uvicorn answers 503 beyond this: one person's browser needs a handful
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def new_token() -> str:
    """This run's secret for the page URL (192 random bits)."""
    return secrets.token_urlsafe(24)


class TokenGuard:
    """Every request must show the token: ``?token=`` (the page itself) or ``Authorization: Bearer`` (its calls)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 403 to a request without the right token; pass the rest."""
        if scope["type"] == "http":
            request = Request(scope)
            presented = request.query_params.get("token")
            header = request.headers.get("authorization") if presented is None else f"Bearer {presented}"
            if not token_matches(header, self.token):
                response = JSONResponse(
                    {"error": "wrong or missing token: open the URL that `igraph-mcp view` printed"},
                    status_code=403,
                    headers=_HEADERS,
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _int(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise InvalidInput(f"{name} must be a whole number") from None


Handler = Callable[[Request], Any]


def _json(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """A JSON endpoint: the handler runs in a worker thread; expected failures answer 400, others 500."""
    from starlette.concurrency import run_in_threadpool

    async def endpoint(request: Request) -> Response:
        try:
            body = await run_in_threadpool(handler, request)
        except IGraphError as exc:
            return JSONResponse({"error": word(str(exc), AGENT_WORDS)}, status_code=400, headers=_HEADERS)
        except Exception:
            # One bad request must not take the view down: log the trace (no arguments) and answer 500.
            log.exception("view request %s failed", request.url.path)
            return JSONResponse(
                {"error": "internal error; see the terminal running `igraph-mcp view`"},
                status_code=500,
                headers=_HEADERS,
            )
        return JSONResponse(body, headers=_HEADERS)

    return endpoint


def build_view_app(data: ViewData, vis: VisAssets, *, token: str, host: str, title: str) -> ASGIApp:
    """The guarded app: the page at '/', its JSON API under '/api/'."""

    def page(request: Request) -> Response:
        html = render_page(vis, title=title, boot={"mode": "live"}, live=True)
        return HTMLResponse(html, headers=_HEADERS)

    routes = [
        Route("/", page),
        Route("/api/status", _json(lambda r: data.status())),
        Route("/api/search", _json(lambda r: data.search(r.query_params.get("q", "")))),
        Route("/api/node", _json(lambda r: data.node(_int(r, "id", -1)))),
        Route("/api/file", _json(lambda r: data.file(r.query_params.get("path", "")))),
        Route("/api/map", _json(lambda r: data.map(r.query_params.get("focus", ""), _int(r, "units", MAX_UNITS)))),
        Route("/api/resources", _json(lambda r: data.resources(_int(r, "offset", 0)))),
    ]
    app = Starlette(routes=routes)
    return RequestGuard(TokenGuard(app, token), loopback=is_loopback(host), token=None)


def view_url(host: str, port: int, token: str) -> str:
    """The address to open (the token is in it)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def run_view(app: ASGIApp, *, host: str, port: int, token: str, open_browser: bool) -> None:
    """Serve until interrupted; the URL goes to stderr (and to a browser when asked)."""
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))  # port 0: the system picks a free one, printed below
    sock.listen(128)  # before the URL is shown: a browser opened at once must find the port accepting
    url = view_url(host, sock.getsockname()[1], token)
    sys.stderr.write(f"igraph-mcp view: open {url}\n(Ctrl+C stops it)\n")
    sys.stderr.flush()
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        server_header=False,
        lifespan="off",
        limit_concurrency=MAX_CONNECTIONS,
    )
    uvicorn.Server(config).run(sockets=[sock])
