"""HTTP transports: bind refusal (S3), Host/Origin validation (S1, S2), bearer token (S4), a real session."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio
import httpx
import httpx2
import pytest
from _factories import store_for, subprocess_env
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from igraph_mcp.cli import main
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState
from igraph_mcp.service import IGraphService
from igraph_mcp.structured import entries
from igraph_mcp.tokens import add_token, revoke_token
from igraph_mcp.transport import bind_refusal, build_app, is_loopback, loopback_origin, token_matches

pytestmark = pytest.mark.anyio

TOKEN = "test-token-0123456789abcdef"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


# -- pure checks ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("127.0.0.2", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_bind_refusal_rules() -> None:
    assert bind_refusal("127.0.0.1", allow_remote=False, token=None) is None
    assert "--allow-remote" in (bind_refusal("0.0.0.0", allow_remote=False, token=TOKEN) or "")
    assert "IGRAPH_HTTP_TOKEN is not set" in (bind_refusal("0.0.0.0", allow_remote=True, token=None) or "")
    assert "shorter" in (bind_refusal("0.0.0.0", allow_remote=True, token="short") or "")
    assert bind_refusal("0.0.0.0", allow_remote=True, token=TOKEN) is None


@pytest.mark.parametrize(
    ("origin", "ok"),
    [
        ("http://localhost:3000", True),
        ("http://127.0.0.1", True),
        ("https://[::1]:8443", True),
        ("http://evil.example", False),
        ("null", False),
        ("http://localhost.evil.example", False),
        ("file://", False),
        ("http://[", False),
    ],
)
def test_loopback_origin(origin: str, ok: bool) -> None:
    assert loopback_origin(origin) is ok


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        (f"Bearer {TOKEN}", True),
        (f"bearer {TOKEN}", True),
        (None, False),
        ("Bearer wrong", False),
        (TOKEN, False),
        (f"Basic {TOKEN}", False),
        ("Bearer ", False),
    ],
)
def test_token_matches(header: str | None, ok: bool) -> None:
    assert token_matches(header, TOKEN) is ok


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--transport", "http", "--host", "0.0.0.0"],
        ["serve", "--transport", "sse", "--host", "0.0.0.0", "--allow-remote"],
    ],
)
def test_non_loopback_bind_without_opt_in_and_token_exits_2(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("IGRAPH_HTTP_TOKEN", raising=False)
    assert main([*argv, "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "refusing to bind 0.0.0.0" in err and "IGRAPH_HTTP_TOKEN" in err
    assert not (tmp_path / ".igraph").exists()  # refused before touching the repository


def test_non_loopback_refusal_as_a_process(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "igraph_mcp",
            "serve",
            "--transport",
            "http",
            "--host",
            "0.0.0.0",
            "--root",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(IGRAPH_HTTP_TOKEN=""),
    )
    assert proc.returncode == 2 and "refusing to bind" in proc.stderr and proc.stdout == ""


# -- the guard in front of both apps, in process -------------------------------------------------------------
@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_guard_rejects_foreign_host_and_origin(indexed_service: IGraphService, transport: str) -> None:
    app = build_app(create_server(ServerState(indexed_service)), transport=transport, host="127.0.0.1", token=None)
    path = "/mcp" if transport == "http" else "/messages/?session_id=00"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:9") as c:
        foreign_host = await c.post(path, json=INIT, headers={**MCP_HEADERS, "host": "evil.example"})
        rebinding = await c.post(path, json=INIT, headers={**MCP_HEADERS, "host": "evil.example:9"})
        evil_origin = await c.post(path, json=INIT, headers={**MCP_HEADERS, "origin": "http://evil.example"})
        null_origin = await c.post(path, json=INIT, headers={**MCP_HEADERS, "origin": "null"})
    assert foreign_host.status_code == 421 and rebinding.status_code == 421  # the Host check comes first
    assert evil_origin.status_code == 403 and null_origin.status_code == 403


async def test_guard_requires_the_token(indexed_service: IGraphService) -> None:
    app = build_app(create_server(ServerState(indexed_service)), transport="sse", host="127.0.0.1", token=TOKEN)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:9") as c:
        missing = await c.get("/sse")
        wrong = await c.get("/sse", headers={"authorization": "Bearer nope"})
    assert missing.status_code == 401 and wrong.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")


DISCOVERY = [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource/sse",
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-authorization-server/mcp",
    "/.well-known/openid-configuration",
]


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_oauth_discovery_is_answered_404_before_the_token(indexed_service: IGraphService, transport: str) -> None:
    # 401 here sent clients into an OAuth flow we do not serve; 404 lets them fall back to the bearer token.
    app = build_app(create_server(ServerState(indexed_service)), transport=transport, host="127.0.0.1", token=TOKEN)
    endpoint = "/mcp" if transport == "http" else "/sse"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:9") as c:
        for path in DISCOVERY:
            for headers in ({}, {"authorization": f"Bearer {TOKEN}"}, {"authorization": "Bearer nope"}):
                answer = await c.get(path, headers=headers)
                assert answer.status_code == 404, (path, headers)
                assert "www-authenticate" not in answer.headers
                assert "bearer token" in answer.json()["error"]["message"]
        # The endpoint itself still says 401, with its challenge header; lookalike paths are not discovery.
        refused = await c.post(endpoint, json=INIT, headers=MCP_HEADERS)
        lookalike = await c.get("/.well-knownx/oauth-protected-resource")
        foreign = await c.get(DISCOVERY[0], headers={"host": "evil.example"})
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == 'Bearer realm="igraph-mcp"'
    assert "missing, wrong or revoked bearer token" in refused.json()["error"]["message"]
    assert lookalike.status_code == 401
    assert foreign.status_code == 421  # the Host check still comes first


# -- a real server process -----------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(
    root: Path, transport: str, token: str | None, *, args: Sequence[str] = (), stderr: IO[bytes] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = subprocess_env(IGRAPH_EMBEDDER="hash", IGRAPH_HTTP_TOKEN=token or "")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "igraph_mcp",
            "serve",
            "--transport",
            transport,
            "--port",
            str(port),
            "--root",
            str(root),
            # the server reads the index the test built, on the test's store
            *(["--store", url] if (url := store_for(root).url) else []),
            *args,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr if stderr is not None else subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read().decode() if proc.stderr else proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("server did not start listening")


@pytest.fixture
def http_server(indexed_service: IGraphService) -> Iterator[str]:
    """A streamable-HTTP server process with a token, over the indexed sample repository."""
    proc, url = _start(indexed_service.root, "http", TOKEN)
    yield url
    proc.terminate()
    proc.wait(timeout=10)
    if proc.stderr:
        proc.stderr.close()


@pytest.mark.both_stores
async def test_http_server_end_to_end(http_server: str, store_kind: str) -> None:
    async with httpx.AsyncClient(base_url=http_server, timeout=10) as c:
        no_token = await c.post("/mcp", json=INIT, headers=MCP_HEADERS)
        wrong = await c.post("/mcp", json=INIT, headers={**MCP_HEADERS, "authorization": "Bearer wrong"})
        auth = {**MCP_HEADERS, "authorization": f"Bearer {TOKEN}"}
        foreign_host = await c.post("/mcp", json=INIT, headers={**auth, "host": "evil.example"})
        evil_origin = await c.post("/mcp", json=INIT, headers={**auth, "origin": "http://evil.example"})
        null_origin = await c.post("/mcp", json=INIT, headers={**auth, "origin": "null"})
        local_origin = await c.post("/mcp", json=INIT, headers={**auth, "origin": "http://localhost:5173"})
    assert no_token.status_code == 401 and wrong.status_code == 401
    assert foreign_host.status_code == 421
    assert evil_origin.status_code == 403 and null_origin.status_code == 403
    assert local_origin.status_code == 200
    # a real MCP session (no Origin header: allowed), with the bearer token
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{http_server}/mcp", http_client=http)) as client,
    ):
        names = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("igraph_node", {"name": "login"})
        bad = await client.call_tool("igraph_explore", {"query": "x", "topK": 10**9})
        after = await client.call_tool("igraph_status", {})
    assert "igraph_explore" in names
    assert (result.structured_content or {})["found"] is True
    assert bad.is_error and "topK" in bad.content[0].text  # type: ignore[union-attr]
    assert not after.is_error
    where = str((after.structured_content or {}).get("store"))
    assert where.startswith("postgresql://") if store_kind == "postgresql" else where.endswith("igraph.db")


async def test_sse_server_streams_and_checks_origin(indexed_service: IGraphService) -> None:
    proc, url = _start(indexed_service.root, "sse", None)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as c:
            evil = await c.get("/sse", headers={"origin": "http://evil.example"})
            foreign = await c.get("/sse", headers={"host": "evil.example"})
            async with c.stream("GET", "/sse") as stream:
                status, ctype = stream.status_code, stream.headers.get("content-type", "")
                first = await stream.aiter_lines().__anext__()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()
    assert evil.status_code == 403 and foreign.status_code == 421
    assert status == 200 and ctype.startswith("text/event-stream") and first.startswith("event: endpoint")


# -- named tokens against a real server (P4): revocation, read-only, allow-list, a malformed file, the log --------
@dataclass
class TeamServer:
    """A streamable-HTTP server with a token file: alice writes, bob reads (this repo only), eve is elsewhere."""

    url: str
    root: Path
    tokens: Path
    log: Path
    secrets: dict[str, str]

    def auth(self, name: str) -> dict[str, str]:
        """MCP request headers carrying ``name``'s token."""
        return {**MCP_HEADERS, "authorization": f"Bearer {self.secrets[name]}"}

    def log_text(self, *, waiting_for: str = "") -> str:
        """The server's stderr so far; waits (bounded) until it holds ``waiting_for``."""
        deadline = time.monotonic() + 10
        text = self.log.read_text(encoding="utf-8", errors="replace")
        while waiting_for not in text and time.monotonic() < deadline:
            time.sleep(0.05)
            text = self.log.read_text(encoding="utf-8", errors="replace")
        return text


@pytest.fixture
def team_server(indexed_service: IGraphService, tmp_path: Path) -> Iterator[TeamServer]:
    """The server process, stopped at the end of the test."""
    tokens = tmp_path / "tokens.json"
    secrets = {
        "alice": add_token(tokens, "alice", role="write", repos=None)[0],
        "bob": add_token(tokens, "bob", role="read", repos=("repo",))[0],
        "eve": add_token(tokens, "eve", role="write", repos=("some-other-repo",))[0],
        "env": TOKEN,
    }
    (indexed_service.root / "docs").mkdir()
    (indexed_service.root / "docs" / "prd.md").write_text("# Login\n\nUsers sign in with a password.\n")
    log = tmp_path / "server.log"
    with log.open("wb") as stderr:
        proc, url = _start(indexed_service.root, "http", TOKEN, args=["--tokens", str(tokens)], stderr=stderr)
    try:
        yield TeamServer(url, indexed_service.root, tokens, log, secrets)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.both_stores
async def test_revoked_token_is_refused_while_the_server_runs(team_server: TeamServer) -> None:
    s = team_server
    async with httpx.AsyncClient(base_url=s.url, timeout=10) as c:
        status = {name: (await c.post("/mcp", json=INIT, headers=s.auth(name))).status_code for name in s.secrets}
        assert status == {"alice": 200, "bob": 200, "eve": 403, "env": 200}
        eve = await c.post("/mcp", json=INIT, headers=s.auth("eve"))
        assert "allow-list" in eve.json()["error"]["message"]

        # an open MCP session of bob's stops at his next request once he is revoked
        headers = {"authorization": f"Bearer {s.secrets['bob']}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(f"{s.url}/mcp", http_client=http)) as client,
        ):
            assert not (await client.call_tool("igraph_status", {})).is_error
            revoke_token(s.tokens, "bob")
            with anyio.fail_after(20), pytest.raises(Exception, match=r"error response|revoked"):
                await client.call_tool("igraph_status", {})
        assert (await c.post("/mcp", json=INIT, headers=s.auth("bob"))).status_code == 401

        # a malformed file keeps the last good table (alice still in, bob still out) and logs why
        good = s.tokens.read_text()
        s.tokens.write_text(good[: len(good) // 3])
        assert (await c.post("/mcp", json=INIT, headers=s.auth("alice"))).status_code == 200
        assert (await c.post("/mcp", json=INIT, headers=s.auth("bob"))).status_code == 401
        assert "keeping the last good table" in s.log_text(waiting_for="keeping the last good table")
        s.tokens.write_text('{"version": 1, "tokens": []}')  # fixed by hand, everyone revoked
        assert (await c.post("/mcp", json=INIT, headers=s.auth("alice"))).status_code == 401
        assert (await c.post("/mcp", json=INIT, headers=s.auth("env"))).status_code == 200  # IGRAPH_HTTP_TOKEN
        for bad in ({}, {"authorization": "Bearer nope"}, {"x-igraph-user": "alice"}):
            assert (await c.post("/mcp", json=INIT, headers={**MCP_HEADERS, **bad})).status_code == 401
        rebinding = await c.post("/mcp", json=INIT, headers={**s.auth("env"), "host": "evil.example"})
        assert rebinding.status_code == 421
    log = s.log_text(waiting_for="status=401")
    assert "access user=- repo=repo status=401 outcome=refused" in log
    assert "access user=eve repo=repo status=403 outcome=refused reason=repository not in the token's allow-list" in log
    assert "client=127.0.0.1" in log and "status=421 outcome=refused reason=foreign Host header" in log
    assert not any(secret in log for secret in s.secrets.values())


@pytest.mark.both_stores
async def test_read_only_token_never_writes(team_server: TeamServer) -> None:
    s = team_server
    headers = {"authorization": f"Bearer {s.secrets['bob']}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{s.url}/mcp", http_client=http)) as client,
    ):
        reads = {
            "igraph_explore": {"query": "zebra-quartz-query login"},
            "igraph_node": {"name": "login"},
            "igraph_status": {},
            "igraph_list_resources": {},
        }
        for tool, arguments in reads.items():
            assert not (await client.call_tool(tool, arguments)).is_error, tool
        writes = {
            "igraph_index": {"full": True},
            "igraph_mount_resource": {"path": "docs/prd.md"},
            "igraph_unmount_resource": {"path": "docs/prd.md"},
        }
        for tool, arguments in writes.items():
            refused = await client.call_tool(tool, arguments)
            assert refused.is_error and "'bob' is read-only" in _text(refused), tool
            assert "igraph_explore" in _text(refused)  # says what to use instead
        listed = await client.call_tool("igraph_list_resources", {})
        assert "sources" not in (listed.structured_content or {})  # the mount never ran

        # the identity is the token of each request, not of the session: alice's token mounts in the same
        # session, and bob's token riding alice's session still cannot unmount
        http.headers["authorization"] = f"Bearer {s.secrets['alice']}"
        assert not (await client.call_tool("igraph_mount_resource", {"path": "docs/prd.md"})).is_error
        http.headers["authorization"] = f"Bearer {s.secrets['bob']}"
        refused = await client.call_tool("igraph_unmount_resource", {"path": "docs/prd.md"})
        assert refused.is_error and "read-only" in _text(refused)
        listed = await client.call_tool("igraph_list_resources", {})
        assert len(entries((listed.structured_content or {})["sources"])) == 1

    log = s.log_text(waiting_for="tool=igraph_unmount_resource repo=repo")
    lines = [line for line in log.splitlines() if "access user=" in line and "tool=" in line]
    assert any(
        re.search(r"access user=bob role=read tool=igraph_explore repo=repo ms=\d+\.\d outcome=ok$", line)
        for line in lines
    )
    assert any("user=bob role=read tool=igraph_index repo=repo" in x and "outcome=refused" in x for x in lines)
    assert any("user=alice role=write tool=igraph_mount_resource" in x and "outcome=ok" in x for x in lines)
    assert len([x for x in lines if "outcome=refused" in x]) == 4
    assert "zebra-quartz-query" not in log  # no query text without --log-queries
    assert not any(secret in log for secret in s.secrets.values())


async def test_sse_transport_carries_the_identity_too(indexed_service: IGraphService, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    reader = add_token(tokens, "bob", role="read", repos=None)[0]
    log = tmp_path / "server.log"
    with log.open("wb") as stderr:
        proc, url = _start(indexed_service.root, "sse", None, args=["--tokens", str(tokens)], stderr=stderr)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as c:
            assert (await c.get("/sse")).status_code == 401
        async with Client(sse_client(f"{url}/sse", headers={"authorization": f"Bearer {reader}"})) as client:
            assert not (await client.call_tool("igraph_node", {"name": "login"})).is_error
            refused = await client.call_tool("igraph_index", {})
        assert refused.is_error and "'bob' is read-only" in _text(refused)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_passes_the_token_file_repo_and_log_queries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indexed_service: IGraphService
) -> None:
    from igraph_mcp import transport

    tokens = tmp_path / "tokens.json"
    add_token(tokens, "alice", role="write", repos=None)
    seen: dict[str, Any] = {}
    monkeypatch.setattr(transport, "run_http", lambda server, **kw: seen.update(kw))
    monkeypatch.setenv("IGRAPH_HTTP_TOKENS_FILE", str(tokens))
    monkeypatch.delenv("IGRAPH_HTTP_TOKEN", raising=False)
    argv = ["serve", "--transport", "http", "--host", "0.0.0.0", "--allow-remote", "--log-queries"]
    assert main([*argv, "--no-auto-index", "--root", str(indexed_service.root)]) == 0
    assert seen["tokens"].path == tokens and seen["tokens"].names() == ("alice",)
    assert seen["repo"].name == "repo" and seen["log_queries"] is True
