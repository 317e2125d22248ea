"""A client nobody here wrote: the official MCP Inspector CLI (npm @modelcontextprotocol/inspector, --cli) drives
`igraph-mcp serve` over stdio and over streamable HTTP with a bearer token. It lists the tools, calls every one, and
each answer must be the answer the Python SDK's client gets from the same server code on the same index; a call
without a token must show our 401 message, not an OAuth prompt.

The inspector and the Node 22 it needs come from `bash .ci/inspector` (pinned in .ci/node/package.json), or from
IGRAPH_INSPECTOR. Without them the tests skip locally with the reason; under CI=true they fail, since CI installs
them (.ci/run).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from _factories import subprocess_env
from mcp import Client

from igraph_mcp.cli import main
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState
from igraph_mcp.service import IGraphService
from igraph_mcp.structured import entries
from igraph_mcp.tokens import add_token

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "orders_repo"
INSPECTOR = Path(
    os.environ.get("IGRAPH_INSPECTOR") or REPO_ROOT / ".ci" / "node" / "node_modules" / ".bin" / "mcp-inspector"
)
CALL_TIMEOUT_S = 120
# What differs between two runs of the same call: wall-clock timings.
VARYING = {"timingsMs", "seconds", "phases"}
# One call of every tool with arguments that find something in the fixture.
READ_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("igraph_explore", {"query": "export orders as csv", "topK": 3}),
    ("igraph_node", {"name": "fetch_orders"}),
    ("igraph_file", {"path": "orders/export.py"}),
    ("igraph_related", {"name": "fetch_orders", "direction": "callers"}),
    ("igraph_status", {}),
    ("igraph_list_resources", {}),
]


def _inspector() -> Path:
    """The inspector's path; skips (fails under CI=true) when it is not installed."""
    if not INSPECTOR.exists():
        why = f"the MCP Inspector CLI is not installed at {INSPECTOR}: run `bash .ci/inspector` or set IGRAPH_INSPECTOR"
        if os.environ.get("CI") == "true":
            pytest.fail(f"the Inspector tests must run in CI: {why}")
        pytest.skip(why)
    return INSPECTOR


def _env() -> dict[str, str]:
    """The inspector's environment: its own Node 22 first on PATH, our package importable, offline, hash vectors."""
    env = subprocess_env(IGRAPH_EMBEDDER="hash", MCP_INSPECTOR_SECRET_STORE="memory")
    env["PATH"] = f"{INSPECTOR.parent}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = env.get("HOME") or str(REPO_ROOT)
    return env


@dataclass
class Target:
    """Where the inspector reaches the server: a command to spawn (stdio) or a URL with its headers (HTTP)."""

    argv: list[str]
    options: list[str]

    def run(self, method: str, *extra: str) -> subprocess.CompletedProcess[str]:
        """One inspector run of ``method`` (``--format json``: one JSON object on stdout, an error on stderr)."""
        command = [str(_inspector()), "--cli", "--format", "json", "--method", method, *extra, *self.options]
        return subprocess.run(
            [*command, "--", *self.argv],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=CALL_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def call(self, tool: str, args: dict[str, Any], *, error: bool = False) -> dict[str, Any]:
        """The CallToolResult the inspector printed for one tool call (exit 5 for a tool's isError answer)."""
        done = self.run("tools/call", "--tool-name", tool, "--tool-args-json", json.dumps(args))
        assert done.returncode == (5 if error else 0), (tool, done.stdout, done.stderr)
        result: dict[str, Any] = json.loads(done.stdout)["result"]  # --format json: {"result": ...}
        return result


def _strip(value: Any) -> Any:
    """``value`` without the wall-clock fields (VARYING), at any depth."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _text(result: dict[str, Any]) -> str:
    return "\n".join(c["text"] for c in result["content"] if c["type"] == "text")


async def _reference(root: Path, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The same call through the Python SDK's client, in process, on the same index (as JSON)."""
    svc = IGraphService(root)
    try:
        async with Client(create_server(ServerState(svc))) as client:
            if tool == "tools/list":
                return {"tools": [t.model_dump(mode="json", by_alias=True) for t in (await client.list_tools()).tools]}
            result = await client.call_tool(tool, args)
    finally:
        svc.close()
    assert not result.is_error, (tool, result.content)
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.fixture
def orders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The orders fixture, indexed with hash vectors (the servers below find an index and build nothing)."""
    _inspector()
    for var in ("IGRAPH_DATABASE_URL", "IGRAPH_DATABASE_URL_FILE"):
        monkeypatch.delenv(var, raising=False)  # the client is under test here, not the store: SQLite
    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")
    root = tmp_path / "orders"
    shutil.copytree(FIXTURE, root)
    assert main(["index", str(root), "--store", "sqlite"]) == 0
    return root


def _stdio(root: Path) -> Target:
    argv = [sys.executable, "-m", "igraph_mcp", "serve", "--root", str(root), "--store", "sqlite"]
    # The inspector hands a stdio server only the variables it is given (-e); these make it our package, offline.
    keep = ("PYTHONPATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "IGRAPH_EMBEDDER", "HOME", "PATH")
    env = _env()
    return Target(argv, [part for k in keep if k in env for part in ("-e", f"{k}={env[k]}")])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(orders: Path, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """`serve --transport http --tokens FILE` on a free port: (URL, token), stopped at the end."""
    tokens = tmp_path / "tokens.json"
    token = add_token(tokens, "ci", role="write", repos=None)[0]
    port = _free_port()
    log = (tmp_path / "server.log").open("wb")
    argv = [sys.executable, "-m", "igraph_mcp", "serve", "--root", str(orders), "--store", "sqlite"]
    argv += ["--transport", "http", "--port", str(port), "--tokens", str(tokens)]
    proc = subprocess.Popen(argv, env=_env(), stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:  # ready once it answers at all (401 without a token)
            try:
                if httpx.post(url, json={}, timeout=2).status_code == 401:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            assert time.monotonic() < deadline, "the server did not start within 60 s"
            time.sleep(0.1)
        yield url, token
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


async def _list_and_read(target: Target, root: Path, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """List the tools and make ``calls`` through the inspector: each answer is the SDK client's answer."""
    listed = target.run("tools/list")
    assert listed.returncode == 0, listed.stderr
    ours = {t["name"]: t for t in json.loads(listed.stdout)["result"]["tools"]}
    reference = {t["name"]: t for t in (await _reference(root, "tools/list", {}))["tools"]}
    assert set(ours) == set(reference) and len(ours) == 9
    for name, tool in ours.items():
        assert tool["inputSchema"] == reference[name]["inputSchema"], name
        assert tool["description"] == reference[name]["description"], name
    for tool, args in calls:
        got = target.call(tool, args)
        want = await _reference(root, tool, args)
        assert _strip(got["structuredContent"]) == _strip(want["structuredContent"]), tool
        assert _text(got) == "\n".join(c["text"] for c in want["content"]), tool
    bad = target.call("igraph_node", {"name": "fetch_orders", "nope": 1}, error=True)  # a tool error stays one
    assert bad["isError"] is True and "nope: unknown argument" in _text(bad)


async def test_inspector_over_stdio(orders: Path) -> None:
    # Each inspector run starts a server process here, so stdio makes the calls that prove the transport; the
    # HTTP test below calls every tool.
    await _list_and_read(_stdio(orders), orders, [c for c in READ_CALLS if c[0] in ("igraph_explore", "igraph_node")])


async def test_inspector_over_http_with_a_token_calls_every_tool(http_server: tuple[str, str], orders: Path) -> None:
    url, token = http_server
    target = Target([url], ["--transport", "http", "--header", f"Authorization: Bearer {token}"])
    await _list_and_read(target, orders, READ_CALLS)
    assert "fetch_orders" in _text(target.call("igraph_node", {"name": "fetch_orders"}))

    summary = target.call("igraph_index", {})["structuredContent"]
    # The structured half leaves out what is at its default (0 changes): structured.py.
    assert [summary.get(k, 0) for k in ("added", "modified", "deleted")] == [0, 0, 0] and summary["unchanged"] > 0
    assert summary["files"] == (await _reference(orders, "igraph_status", {}))["structuredContent"]["files"]

    mounted = target.call("igraph_mount_resource", {"path": "docs/PRD.md"})["structuredContent"]
    assert mounted["path"] == "docs/PRD.md" and mounted["chunks"] > 0
    listing = target.call("igraph_list_resources", {})["structuredContent"]
    assert _strip(listing) == _strip((await _reference(orders, "igraph_list_resources", {}))["structuredContent"])
    assert [s["path"] for s in entries(listing["sources"])] == ["docs/PRD.md"]
    assert target.call("igraph_unmount_resource", {"path": "docs/PRD.md"})["structuredContent"]["found"] is True
    assert target.call("igraph_list_resources", {})["structuredContent"].get("sources", []) == []


async def test_inspector_without_a_token_shows_our_401(http_server: tuple[str, str]) -> None:
    url, _token = http_server
    for headers in ([], ["--header", "Authorization: Bearer wrong-token"]):
        # --stored-auth-only is the inspector's way for scripts: never start an interactive OAuth login.
        done = Target([url], ["--transport", "http", "--stored-auth-only", *headers]).run("tools/list")
        assert done.returncode != 0 and done.stdout == ""
        error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
        assert "missing, wrong or revoked bearer token" in error["message"], error
        assert "igraph-mcp token add" in error["message"]
        assert "OAuth" not in error["message"]
