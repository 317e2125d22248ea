"""HTTP transports (streamable HTTP, legacy SSE): bind checks, Host/Origin validation, bearer-token auth.

Loopback binds are the default. A browser page can still reach 127.0.0.1 through DNS rebinding or a
cross-site request, so every request is checked for a loopback Host (when bound to loopback) and a loopback
Origin (whenever one is sent). Binding anything else needs --allow-remote and a token; with a token every
request must carry ``Authorization: Bearer <token>``, compared in constant time.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

log = logging.getLogger(__name__)

TOKEN_ENV = "IGRAPH_HTTP_TOKEN"  # noqa: S105 - the variable's name, not a secret
MIN_REMOTE_TOKEN_CHARS = 16
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


def http_token() -> str | None:
    """The bearer token from IGRAPH_HTTP_TOKEN (environment only, never a file or a flag); None when unset."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    return token or None


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1); other names could resolve elsewhere."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def bind_refusal(host: str, *, allow_remote: bool, token: str | None) -> str | None:
    """Why binding ``host`` is refused, or None when it is allowed."""
    if is_loopback(host):
        return None
    how = (
        f"pass --allow-remote and set {TOKEN_ENV} to a long random secret (clients then send "
        f"'Authorization: Bearer <token>'), or bind --host 127.0.0.1"
    )
    if not allow_remote:
        return f"refusing to bind {host}: a non-loopback address exposes the repository to the network; {how}"
    if token is None:
        return f"refusing to bind {host} without a token: {TOKEN_ENV} is not set; {how}"
    if len(token) < MIN_REMOTE_TOKEN_CHARS:
        return f"refusing to bind {host}: {TOKEN_ENV} is shorter than {MIN_REMOTE_TOKEN_CHARS} characters"
    return None


def _host_name(value: str) -> str:
    """The host part of a Host header value: 'localhost:8765' -> 'localhost', '[::1]:8765' -> '::1'."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def loopback_host_header(value: str | None) -> bool:
    """A Host header naming this machine's loopback interface (any port)."""
    return bool(value) and _host_name(value or "") in _LOOPBACK_NAMES


def loopback_origin(value: str) -> bool:
    """An Origin of a page served from this machine; 'null' (sandboxed frames, file://) is not."""
    try:
        parts = urlsplit(value.strip())
        return parts.scheme in ("http", "https") and (parts.hostname or "") in _LOOPBACK_NAMES
    except ValueError:
        return False


def token_matches(authorization: str | None, token: str) -> bool:
    """``Authorization: Bearer <token>``, compared in constant time."""
    scheme, _, presented = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer":
        presented = ""
    return hmac.compare_digest(presented.strip().encode("utf-8"), token.encode("utf-8"))


class RequestGuard:
    """ASGI middleware in front of every MCP route: Host, then Origin, then the bearer token."""

    def __init__(self, app: ASGIApp, *, loopback: bool, token: str | None) -> None:
        self.app = app
        self.loopback = loopback
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Reject a request that fails a check; pass everything else (and lifespan events) through."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if self.loopback and not loopback_host_header(headers.get("host")):
            # DNS rebinding: a foreign name resolving to 127.0.0.1 arrives with that foreign Host.
            await _reply(send, 421, "invalid Host header: this server answers only to localhost / 127.0.0.1")
        elif origin is not None and not loopback_origin(origin):
            await _reply(send, 403, "cross-origin request refused: only pages served from localhost may call it")
        elif self.token is not None and not token_matches(headers.get("authorization"), self.token):
            await _reply(
                send,
                401,
                f"missing or wrong bearer token: send 'Authorization: Bearer <{TOKEN_ENV}>'",
                [(b"www-authenticate", b'Bearer realm="igraph-mcp"')],
            )
        else:
            await self.app(scope, receive, send)


async def _reply(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": message}).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(server: MCPServer[Any], *, transport: str, host: str, token: str | None) -> ASGIApp:
    """The guarded ASGI app for 'http' (streamable HTTP at /mcp) or 'sse' (legacy: /sse and /messages/)."""
    # The SDK adds its own Host/Origin checks for loopback hosts too; the guard covers every route either way.
    inner = server.streamable_http_app(host=host) if transport == "http" else server.sse_app(host=host)
    return RequestGuard(inner, loopback=is_loopback(host), token=token)


def run_http(server: MCPServer[Any], *, transport: str, host: str, port: int, token: str | None) -> None:
    """Serve until interrupted; logs go to stderr through the root logger, no access log."""
    import uvicorn

    app = build_app(server, transport=transport, host=host, token=token)
    path = "/mcp" if transport == "http" else "/sse"
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(
        f"igraph-mcp: serving {'streamable HTTP' if transport == 'http' else 'SSE'} on "
        f"http://{shown}:{port}{path}{' (bearer token required)' if token else ''}\n"
    )
    sys.stderr.flush()
    config = uvicorn.Config(
        app, host=host, port=port, log_config=None, access_log=False, server_header=False, lifespan="auto"
    )
    uvicorn.Server(config).run()
