"""First start on an unindexed tree: a real stdio server answers (degraded) while the vectors are still missing.

The embedding phase is held open by a gate file (IGRAPH_TEST_EMBED_GATE with the hashing embedder), so the
order of events is fixed by the test, not by how fast this machine happens to be.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult
from test_server_stdio import server_params

from igraph_mcp.structured import entries

pytestmark = pytest.mark.anyio


def _data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content or {}


async def test_degraded_answer_before_embedding_finishes_then_dense_joins(sample_repo: Path, tmp_path: Path) -> None:
    gate = tmp_path / "open-the-gate"
    params = server_params(["serve", "--root", str(sample_repo)], cwd=sample_repo)
    params.env = {**(params.env or {}), "IGRAPH_TEST_EMBED_GATE": str(gate)}
    refusals = 0
    with anyio.fail_after(120):
        async with Client(params) as client:
            # Structure + FTS land first; until then the only acceptable refusal is "being built".
            while True:
                early = await client.call_tool("igraph_explore", {"query": "check password", "topK": 3})
                if not early.is_error:
                    break
                assert "being built" in early.content[0].text  # type: ignore[union-attr]
                refusals += 1
                await anyio.sleep(0.1)
            during = _data(await client.call_tool("igraph_status", {}))
            gate.touch()  # let the embedding phase run
            status = during
            while status.get("denseCoverage") != 1.0:
                await anyio.sleep(0.1)
                status = _data(await client.call_tool("igraph_status", {}))
            late = _data(await client.call_tool("igraph_explore", {"query": "check password", "topK": 3}))

    first = _data(early)
    assert first["degraded"] is True
    assert "dense channel: 0/" in first["note"] and "symbols embedded" in first["note"]
    assert "check_password" in [h["qualifiedName"] for h in entries(first["hits"])]  # FTS + graph already answer
    assert first["diagnostics"]["channels"] == ["fts5"]
    # While the gate is shut the status shows the phases done so far and the embed phase at 0.
    phases = {p["phase"]: p for p in entries(during["phases"])}
    assert {"scan", "parse", "resolve", "embed"} <= set(phases)
    to_embed = phases["embed"]["total"]  # every node, module nodes included
    assert phases["embed"]["done"] == 0 and to_embed >= during["symbols"] > 0
    assert f"dense channel: 0/{to_embed} symbols embedded" in first["note"]
    assert during.get("vectors", 0) == 0  # a field left out of structuredContent is empty
    # Once the vectors are in, the dense channel joins and the answer is whole.
    assert "degraded" not in late and "dense" in late["diagnostics"]["channels"]
    assert {p["phase"] for p in entries(status["phases"])} >= {"scan", "parse", "resolve", "embed"}
