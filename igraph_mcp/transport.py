"""HTTP transports (streamable HTTP, legacy SSE): bind checks, Host/Origin validation, bearer-token auth, and
an honest 404 for OAuth discovery (there is no authorization server here, only bearer tokens).

Loopback binds are the default. A browser page can still reach 127.0.0.1 through DNS rebinding or a
cross-site request, so every request is checked for a loopback Host (when bound to loopback) and a loopback
Origin (whenever one is sent). Binding anything else needs --allow-remote and a token. With tokens configured
(IGRAPH_HTTP_TOKEN, a token file, or both) every request must carry ``Authorization: Bearer <token>``; the
guard finds whose token it is (tokens.TokenTable, constant-time), refuses a token not allowed for this
repository with 403, and runs the request as that identity (access.acting_as) so the tools can refuse writes
to read-only tokens and log each call.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from igraph_mcp.access import Identity, Repository, RequestAccess, acting_as, log_refusal
from igraph_mcp.tokens import TOKENS_FILE_ENV, TokenTable

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

log = logging.getLogger(__name__)

TOKEN_ENV = "IGRAPH_HTTP_TOKEN"  # noqa: S105 - the variable's name, not a secret
MIN_REMOTE_TOKEN_CHARS = 16
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}
_PROXY_HEADERS = ("forwarded", "x-forwarded-for", "x-real-ip")
_WELL_KNOWN = "/.well-known/"
_GUARD_ERROR = -32001  # JSON-RPC server-error range: the request was refused before it reached MCP
# who a request is when no token is configured (loopback only): the user's own machine, full access
ANONYMOUS = Identity("anonymous")
# where no repository is given, one that no allow-list names: a token with an allow-list fails closed
_NO_REPO = Repository(name="", path="")


def http_token() -> str | None:
    """The bearer token from IGRAPH_HTTP_TOKEN (environment only, never a file or a flag); None when unset."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    return token or None


def tokens_file(flag: str | None) -> Path | None:
    """The token file from --tokens, else from IGRAPH_HTTP_TOKENS_FILE; None when neither is given."""
    value = flag if flag else os.environ.get(TOKENS_FILE_ENV, "").strip()
    return Path(value).expanduser() if value else None


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1); other names could resolve elsewhere."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def bind_refusal(host: str, *, allow_remote: bool, token: str | None, tokens_file: Path | None = None) -> str | None:
    """Why binding ``host`` is refused, or None when it is allowed (a token or a token file is required)."""
    if is_loopback(host):
        return None
    how = (
        f"pass --allow-remote and either set {TOKEN_ENV} to a long random secret or pass --tokens FILE "
        "(made with `igraph-mcp token add NAME --tokens FILE`); clients then send 'Authorization: Bearer "
        "<token>'. Or bind --host 127.0.0.1"
    )
    if not allow_remote:
        return f"refusing to bind {host}: a non-loopback address exposes the repository to the network; {how}"
    if token is None and tokens_file is None:
        return f"refusing to bind {host} without a token: {TOKEN_ENV} is not set and no --tokens file is given; {how}"
    if token is not None and len(token) < MIN_REMOTE_TOKEN_CHARS:
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


def is_discovery_path(path: str) -> bool:
    """A well-known discovery document (OAuth protected-resource / authorization-server metadata, OpenID), which
    this server does not publish: anything under ``/.well-known/``."""
    return path == _WELL_KNOWN.rstrip("/") or path.startswith(_WELL_KNOWN)


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None for a missing or other scheme."""
    scheme, _, presented = (authorization or "").strip().partition(" ")
    presented = presented.strip()
    return presented if scheme.lower() == "bearer" and presented else None


def token_matches(authorization: str | None, token: str) -> bool:
    """``Authorization: Bearer <token>``, compared in constant time."""
    presented = bearer(authorization) or ""
    return hmac.compare_digest(presented.encode("utf-8"), token.encode("utf-8"))


class RequestGuard:
    """ASGI middleware in front of every MCP route: Host, then Origin, then the bearer token and its rights."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        loopback: bool,
        token: str | None = None,
        tokens: TokenTable | None = None,
        repo: Repository | None = None,
        repos: Sequence[Repository] = (),
        log_queries: bool = False,
    ) -> None:
        self.app = app
        self.loopback = loopback
        self.tokens = tokens if tokens is not None else TokenTable(env_token=token)
        # A workspace serves several repositories: a token must see at least one, and runs as the first it sees.
        self.repos = tuple(repos) or (repo or _NO_REPO,)
        self.repo = self.repos[0]
        self.log_queries = log_queries

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Reject a request that fails a check; run everything else as its token's identity."""
        if scope["type"] == "websocket":
            # no MCP route speaks WebSocket: close before accepting (the client sees 403), never pass it on unchecked
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan events
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if self.loopback and not loopback_host_header(headers.get("host")):
            # DNS rebinding: a foreign name resolving to 127.0.0.1 arrives with that foreign Host.
            self._log_refusal(scope, "-", 421, "foreign Host header")
            await _reply(send, 421, "invalid Host header: this server answers only to localhost / 127.0.0.1")
            return
        if origin is not None and not loopback_origin(origin):
            self._log_refusal(scope, "-", 403, "cross-origin request")
            await _reply(send, 403, "cross-origin request refused: only pages served from localhost may call it")
            return
        if is_discovery_path(str(scope.get("path", ""))):
            # We run no OAuth authorization server. Answering these with 401 sent clients (MCP Inspector) into an
            # OAuth flow; a 404 lets them fall back to the bearer token and show the 401 below.
            await _reply(
                send,
                404,
                "no OAuth metadata here: this server takes a bearer token from its admin (igraph-mcp token add), "
                "sent as 'Authorization: Bearer <token>'",
            )
            return
        if not self.tokens.required and any(name in headers for name in _PROXY_HEADERS):
            # Behind a reverse proxy every caller arrives from loopback; without tokens all would be anonymous
            # writers. A client can add the header itself, but only to refuse itself.
            self._log_refusal(scope, "-", 403, "proxied request to a server without tokens")
            await _reply(
                send,
                403,
                "this request came through a proxy and the server has no tokens: start it with --tokens FILE "
                f"or {TOKEN_ENV} (README: 'For teams')",
            )
            return
        identity = self._identity(headers.get("authorization"))
        if identity is None:
            self._log_refusal(scope, "-", 401, "missing, wrong or revoked token")
            await _reply(
                send,
                401,
                "missing, wrong or revoked bearer token: send 'Authorization: Bearer <token>' with a token "
                f"from the server's admin (igraph-mcp token add) or {TOKEN_ENV}",
                [(b"www-authenticate", b'Bearer realm="igraph-mcp"')],
            )
            return
        visible = [r for r in self.repos if identity.may_see(r)]
        if not visible:
            self._log_refusal(scope, identity.name, 403, "repository not in the token's allow-list")
            await _reply(
                send,
                403,
                f"token '{identity.name}' may not use this repository; ask the server's admin to add it to the "
                "token's allow-list (igraph-mcp token add NAME --repo ...)",
            )
            return
        with acting_as(RequestAccess(identity, visible[0], self.log_queries)):
            await self.app(scope, receive, send)

    def _identity(self, authorization: str | None) -> Identity | None:
        if not self.tokens.required:
            return ANONYMOUS  # loopback without tokens (bind_refusal allows nothing else)
        return self.tokens.authenticate(bearer(authorization))

    def _log_refusal(self, scope: Scope, who: str, status: int, reason: str) -> None:
        client = scope.get("client")
        log_refusal(who, self.repo, status, reason, str(client[0]) if client else "-")


async def _reply(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    # A JSON-RPC error body: an MCP client shows its message to the agent instead of a bare status code.
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": _GUARD_ERROR, "message": message}}
    body = json.dumps(error).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    server: MCPServer[Any],
    *,
    transport: str,
    host: str,
    token: str | None = None,
    tokens: TokenTable | None = None,
    repo: Repository | None = None,
    repos: Sequence[Repository] = (),
    log_queries: bool = False,
) -> ASGIApp:
    """The guarded ASGI app for 'http' (streamable HTTP at /mcp) or 'sse' (legacy: /sse and /messages/)."""
    # The SDK adds its own Host/Origin checks for loopback hosts too; the guard covers every route either way.
    inner = server.streamable_http_app(host=host) if transport == "http" else server.sse_app(host=host)
    return RequestGuard(
        inner,
        loopback=is_loopback(host),
        token=token,
        tokens=tokens,
        repo=repo,
        repos=repos,
        log_queries=log_queries,
    )


def run_http(
    server: MCPServer[Any],
    *,
    transport: str,
    host: str,
    port: int,
    token: str | None = None,
    tokens: TokenTable | None = None,
    repo: Repository | None = None,
    repos: Sequence[Repository] = (),
    log_queries: bool = False,
) -> None:
    """Serve until interrupted; logs and the access log (one line per call) go to stderr."""
    import uvicorn

    table = tokens if tokens is not None else TokenTable(env_token=token)
    app = build_app(
        server, transport=transport, host=host, tokens=table, repo=repo, repos=repos, log_queries=log_queries
    )
    path = "/mcp" if transport == "http" else "/sse"
    shown = f"[{host}]" if ":" in host else host
    required = f" (bearer token required: {len(table.names())} accepted now)" if table.required else ""
    sys.stderr.write(
        f"igraph-mcp: serving {'streamable HTTP' if transport == 'http' else 'SSE'} on "
        f"http://{shown}:{port}{path}{required}\n"
    )
    sys.stderr.flush()
    config = uvicorn.Config(
        app, host=host, port=port, log_config=None, access_log=False, server_header=False, lifespan="auto"
    )
    uvicorn.Server(config).run()
