"""The real thing: `python -m igraph_mcp` as a stdio subprocess, driven by the SDK's client."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from _factories import subprocess_env
from mcp import Client, StdioServerParameters

from igraph_mcp.structured import entries

pytestmark = pytest.mark.anyio


def server_params(args: list[str], cwd: Path) -> StdioServerParameters:
    """Spawn this interpreter's igraph_mcp (the package under test) with the fast hashing embedder."""
    env = subprocess_env(inherit=False, IGRAPH_EMBEDDER="hash")
    return StdioServerParameters(command=sys.executable, args=["-m", "igraph_mcp", *args], env=env, cwd=cwd)


async def test_stdio_list_explore_and_index_with_progress(sample_repo: Path) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    params = server_params(["serve", "--root", str(sample_repo), "--no-auto-index"], cwd=sample_repo.parent)
    with anyio.fail_after(60):
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            before = await client.call_tool("igraph_explore", {"query": "login"})
            built = await client.call_tool("igraph_index", {"full": True}, progress_callback=on_progress)
            hits = await client.call_tool("igraph_explore", {"query": "check password", "topK": 3})
            bad = await client.call_tool("igraph_explore", {"query": "x", "hops": 99})
            still = await client.call_tool("igraph_status", {})
    assert "igraph_explore" in names and len(names) == 9
    assert before.is_error and "igraph_index" in before.content[0].text  # type: ignore[union-attr]
    assert not built.is_error and (built.structured_content or {})["files"] == 3
    assert progress and progress[-1][1] is not None and progress[-1][0] == progress[-1][1]
    assert "check_password" in [h["qualifiedName"] for h in entries((hits.structured_content or {})["hits"])]
    assert bad.is_error and not still.is_error


async def test_bare_command_auto_indexes_the_working_directory(sample_repo: Path) -> None:
    params = server_params([], cwd=sample_repo)  # bare `igraph-mcp`: serve stdio for the cwd
    with anyio.fail_after(60):
        async with Client(params) as client:
            status = await client.call_tool("igraph_status", {})
            while not (status.structured_content or {}).get("indexed"):
                await anyio.sleep(0.2)
                status = await client.call_tool("igraph_status", {})
            node = await client.call_tool("igraph_node", {"name": "login"})
    assert (node.structured_content or {})["found"] is True
    assert (sample_repo / ".igraph" / "igraph.db").exists()
