"""Who is asking: bearer parsing, roles, allow-lists, refusals, the access log, and the guard that sets the identity."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from igraph_mcp.access import Identity, Repository, RequestAccess, current_access, log_call, log_refusal, refusal
from igraph_mcp.tokens import TokenTable, add_token
from igraph_mcp.transport import RequestGuard, bearer

pytestmark = pytest.mark.anyio


def test_bearer_header_parsing() -> None:
    assert bearer("Bearer abc") == "abc" and bearer("bearer  abc ") == "abc"
    assert bearer(None) is None and bearer("Basic abc") is None and bearer("Bearer ") is None and bearer("abc") is None


def test_allow_list_by_name_or_real_path(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "link").symlink_to(root)
    repo = Repository.of(tmp_path / "link")
    assert repo == Repository("repo", str(root.resolve()))
    assert Identity("a", repos=("repo",)).may_see(repo)
    assert Identity("a", repos=(str(tmp_path / "link"),)).may_see(repo)
    assert Identity("a").may_see(repo)
    assert not Identity("a", repos=("other", str(tmp_path))).may_see(repo)
    assert not Identity("a", repos=("repo_evil",)).may_see(repo)
    assert not Identity("a", repos=(".",)).may_see(Repository.of("."))  # "." is a name here, never the cwd
    assert not Identity("a", repos=("repo",)).may_see(Repository("", ""))  # no repository known: fail closed


def test_refusal_messages_say_what_to_do() -> None:
    repo = Repository("repo", "/x/repo")
    reader = RequestAccess(Identity("bob", "read"), repo)
    message = refusal(reader, "igraph_index", writes=True) or ""
    assert "'bob' is read-only" in message and "igraph_explore" in message and "token add" in message
    assert refusal(reader, "igraph_explore", writes=False) is None
    assert refusal(RequestAccess(Identity("w"), repo), "igraph_index", writes=True) is None
    assert refusal(None, "igraph_index", writes=True) is None  # stdio: the user's own process
    outsider = RequestAccess(Identity("eve", repos=("other",)), repo)
    assert "may not use this repository" in (refusal(outsider, "igraph_explore", writes=False) or "")
    # a repository a call names (a server of several): one the token may not see reads as one that is not there
    insider = RequestAccess(Identity("ann", repos=("repo",)), repo)
    secret = Repository("payroll", "/x/payroll")
    assert refusal(insider, "igraph_explore", writes=False, repo=secret) == "no repository 'payroll' on this server"
    assert refusal(insider, "igraph_explore", writes=False, repo=repo) is None


def test_log_line_fields_and_no_arguments_unless_asked(caplog: pytest.LogCaptureFixture) -> None:
    repo = Repository("repo", "/x/repo")
    args = {"query": "secret plans\n access user=root"}
    with caplog.at_level(logging.INFO, logger="igraph_mcp.access"):
        log_call(RequestAccess(Identity("bob", "read"), repo), "igraph_explore", 0.0123, "ok", args)
        log_call(RequestAccess(Identity("bob", "read"), repo, log_queries=True), "igraph_explore", 0.0, "ok", args)
        log_call(None, "igraph_explore", 0.0, "ok", args)
        odd = Repository("my repo\nINFO forged", "/x/odd")
        log_call(RequestAccess(Identity("bob", "read"), odd), "igraph_node", 0.0, "error", {})
        log_refusal("-", odd, 401, "missing, wrong or revoked token", "203.0.113.7")
    first, second, third, fourth = caplog.messages
    assert first == "access user=bob role=read tool=igraph_explore repo=repo ms=12.3 outcome=ok"
    assert "secret" not in first
    assert second.endswith('args={"query": "secret plans\\n access user=root"}') and "\n" not in second
    assert 'repo="my repo\\nINFO forged" ms=0.0 outcome=error' in third and "\n" not in third
    assert fourth.endswith("status=401 outcome=refused reason=missing, wrong or revoked token client=203.0.113.7")


async def test_the_guard_sets_the_identity_and_a_header_cannot(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    reader, _ = add_token(path, "bob", role="read", repos=None)
    outsider, _ = add_token(path, "eve", role="write", repos=("other",))
    table = TokenTable(env_token="env-token-0123456789", path=path)
    table.load()
    seen: list[RequestAccess | None] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(current_access())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guard = RequestGuard(app, loopback=True, tokens=table, repo=Repository("repo", "/x/repo"))
    spoof = {"x-igraph-user": "env", "x-forwarded-user": "env", "igraph_request_access": "env"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guard), base_url="http://127.0.0.1") as c:
        anonymous = await c.get("/mcp", headers=spoof)
        as_bob = await c.get("/mcp", headers={**spoof, "authorization": f"Bearer {reader}"})
        as_eve = await c.get("/mcp", headers={"authorization": f"Bearer {outsider}"})
    assert anonymous.status_code == 401 and "revoked" in anonymous.json()["error"]["message"]
    assert as_eve.status_code == 403 and "allow-list" in as_eve.json()["error"]["message"]
    assert as_bob.status_code == 200
    assert [a.identity if a else None for a in seen] == [Identity("bob", "read")]  # only bob reached the app
    assert current_access() is None  # and nothing leaked out of the request


@pytest.mark.parametrize("header", ["x-forwarded-for", "forwarded", "x-real-ip"])
async def test_a_proxied_request_to_a_server_without_tokens_is_refused(header: str) -> None:
    reached: list[RequestAccess | None] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(current_access())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    guard = RequestGuard(app, loopback=True, repo=Repository("repo", "/x/repo"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guard), base_url="http://127.0.0.1") as c:
        proxied = await c.get("/mcp", headers={header: "203.0.113.7"})
        local = await c.get("/mcp")
    assert proxied.status_code == 403 and "--tokens FILE" in proxied.json()["error"]["message"]
    assert local.status_code == 200 and [a.identity.name if a else None for a in reached] == ["anonymous"]


async def test_a_websocket_never_reaches_the_app() -> None:
    reached: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope["type"])

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "websocket.connect"}

    guard = RequestGuard(app, loopback=True, token="env-token-0123456789")
    await guard({"type": "websocket", "path": "/mcp", "headers": []}, receive, send)
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]
