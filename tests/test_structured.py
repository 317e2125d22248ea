"""The compact structuredContent (structured.py) and what every session pays for it: tools/list bytes, the answer's
structured half against its text, and every answer conforming to the output schema its tool publishes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from _factories import open_service
from mcp import Client
from mcp_types import CallToolResult
from pydantic import Field

from igraph_mcp.models import Diagnostics, EdgeRef, ExploreResult, FileDetail, Hit, Neighbour, NodeDetail, NodeSummary
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState
from igraph_mcp.service import IGraphService
from igraph_mcp.structured import compact, output_schema

pytestmark = pytest.mark.anyio

TOOLS_LIST_MAX_BYTES = 12_000


def wire(value: Any) -> int:
    """Bytes of ``value`` as compact JSON, as the transports send it."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def text_bytes(result: CallToolResult) -> int:
    """Bytes of a result's text content."""
    return sum(len(c.text.encode()) for c in result.content if c.type == "text")


def hit(node_id: int, name: str, qualified: str, **more: Any) -> Hit:
    """A hit in app/auth.py with a snippet and docstring the text carries."""
    return Hit(
        nodeId=node_id,
        name=name,
        qualifiedName=qualified,
        kind="function",
        filePath="app/auth.py",
        startLine=3,
        endLine=9,
        signature=f"def {name}()",
        score=0.024590163934426,
        matchChannel="dense+fts5",
        ranks={"fts5": 1, "dense": 2},
        docstring="Log a user in.",
        snippet=f"def {name}():\n    ...",
        **more,
    )


def neighbour(node_id: int, via: int, via_name: str, **more: Any) -> Neighbour:
    """A caller reached from ``via``."""
    fields: dict[str, Any] = {
        "nodeId": node_id,
        "name": "main",
        "qualifiedName": "main",
        "kind": "function",
        "filePath": "main.py",
        "startLine": 4,
        "endLine": 5,
        "signature": "def main()",
        "score": 0.5,
        "viaNodeId": via,
        "viaName": via_name,
        "edgeKind": "calls",
        "direction": "caller",
        "distance": 1,
        "resolution": "import",
    }
    return Neighbour(**(fields | more))


# -- the rules, on models ------------------------------------------------------------------------------------
def test_compact_leaves_out_text_defaults_and_repeats() -> None:
    result = ExploreResult(
        query="how does a user log in " * 50,
        hits=[hit(4, "login", "auth.login")],
        neighbours=[neighbour(11, 4, "auth.login"), neighbour(12, 99, "elsewhere", certain=False)],
        diagnostics=Diagnostics(timingsMs={"fts": 1.5}, candidates={"fts": 20}),
    )
    data = compact(result)
    # No query echo, no false/empty/None fields, no diagnostics: timings and candidate counts are debug figures.
    assert set(data) == {"hits", "neighbours"}
    assert data["hits"] == [  # no snippet, docstring, signature, ranks or channel: the text shows those
        {
            "nodeId": 4,
            "qualifiedName": "auth.login",  # name is its last part
            "kind": "function",
            "filePath": "app/auth.py",
            "startLine": 3,
            "endLine": 9,
            "score": 0.0246,
        }
    ]
    first, second = data["neighbours"]
    assert "viaName" not in first and first["viaNodeId"] == 4  # the via entry is a hit of this answer
    assert second["viaName"] == "elsewhere"  # node 99 is not listed: its name stays
    assert "certain" not in first and second["certain"] is False  # the schema says certain defaults to true
    assert not {"signature", "resolution"} & (first.keys() | second.keys())


@pytest.mark.parametrize(
    ("qualified", "name", "left_out"),
    [
        ("login", "login", True),
        ("auth.login", "login", True),
        ("Session::refresh", "refresh", True),
        ("Session#refresh", "refresh", True),
        ("Session.prefresh", "refresh", False),
        ("app.auth", "auth_app", False),
        ("", "login", False),
    ],
)
def test_name_is_left_out_only_where_the_qualified_name_ends_with_it(qualified: str, name: str, left_out: bool) -> None:
    summary = NodeSummary(
        nodeId=1, name=name, qualifiedName=qualified, kind="function", filePath="a.py", startLine=1, endLine=2
    )
    assert ("name" not in compact(summary)) is left_out


def test_nested_objects_inherit_file_and_repo_and_floats_are_rounded() -> None:
    outline = FileDetail(
        found=True,
        filePath="app/auth.py",
        lines=30,
        symbols=[
            NodeSummary(
                nodeId=1, name="f", qualifiedName="f", kind="function", filePath="app/auth.py", startLine=1, endLine=2
            )
        ],
    )
    assert "filePath" not in compact(outline)["symbols"][0]
    detail = NodeDetail(
        repo="api",
        found=True,
        node=NodeSummary(
            repo="api", nodeId=1, name="f", qualifiedName="f", kind="function", filePath="a.py", startLine=1, endLine=2
        ),
        source="def f(): ...",
        callers=[
            EdgeRef(
                nodeId=None, name="g", edgeKind="calls", resolution="unresolved", confidence=0.123456, certain=False
            )
        ],
    )
    data = compact(detail)
    assert data["repo"] == "api" and "repo" not in data["node"] and "source" not in data
    assert data["callers"] == [{"nodeId": None, "name": "g", "edgeKind": "calls", "resolution": "unresolved"}]


def test_a_new_field_needs_nothing_in_structured() -> None:
    class LaterHit(Hit):
        partStartLine: int | None = Field(None, description="a field another change adds")
        declarations: list[str] = Field(default_factory=list)

    schema = output_schema(LaterHit)
    assert {"partStartLine", "declarations"} <= set(schema["properties"])
    assert "snippet" not in schema["properties"] and "qualifiedName" in schema["required"]
    plain = compact(LaterHit(**hit(1, "f", "f").model_dump()))
    assert not {"partStartLine", "declarations"} & set(plain)
    filled = compact(LaterHit(**hit(1, "f", "f").model_dump(), partStartLine=40, declarations=["f.d.ts"]))
    assert filled["partStartLine"] == 40 and filled["declarations"] == ["f.d.ts"]
    jsonschema.validate(filled, schema)


# -- through a real client -----------------------------------------------------------------------------------
async def test_tools_list_fits_the_budget(indexed_service: IGraphService) -> None:
    async with Client(create_server(ServerState(indexed_service))) as client:
        tools = (await client.list_tools()).tools
    listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    assert wire({"tools": listed}) <= TOOLS_LIST_MAX_BYTES
    for tool in listed:
        assert len(tool["description"]) <= 300, tool["name"]  # a sentence or two
        assert "\n" not in tool["description"]
        assert all("title" not in p for p in tool["inputSchema"]["properties"].values()), tool["name"]
        assert wire(tool["outputSchema"]) <= 1_000, tool["name"]


async def test_every_answer_conforms_to_its_published_schema(sample_repo: Path) -> None:
    (sample_repo / "docs").mkdir()
    (sample_repo / "docs" / "prd.md").write_text("# Login\n\nUsers log in with a password.\n")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("igraph_index", {}),
        ("igraph_status", {}),
        ("igraph_explore", {"query": "log a user in and check the password"}),
        ("igraph_explore", {"query": "nothing like this exists", "kinds": ["class"]}),
        ("igraph_node", {"name": "login"}),
        ("igraph_node", {"name": "no_such_symbol"}),
        ("igraph_file", {"path": "app/auth.py"}),
        ("igraph_file", {"path": "app/nothing.py"}),
        ("igraph_related", {"name": "login", "hops": 2}),
        ("igraph_related", {"name": "nothing_here"}),
        ("igraph_mount_resource", {"path": "docs/prd.md"}),
        ("igraph_list_resources", {}),
        ("igraph_unmount_resource", {"path": "docs/prd.md"}),
        ("igraph_unmount_resource", {"id": 999}),
    ]
    with open_service(sample_repo, index=True) as svc:
        async with Client(create_server(ServerState(svc))) as client:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            answers = [(tool, await client.call_tool(tool, args)) for tool, args in calls]
    assert {tool for tool, _ in calls} == set(schemas)
    for tool, result in answers:
        assert not result.is_error, (tool, result.content)
        schema = schemas[tool]
        assert schema is not None, tool
        jsonschema.validate(result.structured_content, schema)  # the client checks this too; say it here
        assert set(schema.get("required", [])) <= set(result.structured_content or {}), tool


async def test_structured_half_is_small_next_to_the_text(indexed_service: IGraphService) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("igraph_explore", {"query": "log a user in and check the password"}),
        ("igraph_explore", {"query": "open a database connection"}),
        ("igraph_node", {"name": "login"}),
        ("igraph_related", {"name": "login", "hops": 2}),
        ("igraph_file", {"path": "app/auth.py"}),
    ]
    async with Client(create_server(ServerState(indexed_service))) as client:
        answers = [(tool, await client.call_tool(tool, args)) for tool, args in calls]
    ratios: dict[str, list[float]] = {}
    for tool, result in answers:
        ratios.setdefault(tool, []).append(wire(result.structured_content) / text_bytes(result))
    assert max(ratios["igraph_explore"]) <= 1.5, ratios
    # Answers that are lists of one-line entries pay a JSON key per fact, so they stay above 1.5x their terse text
    # (see README); what must hold is that they no longer carry the full model.
    full = {
        "igraph_node": indexed_service.node("login"),
        "igraph_related": indexed_service.related("login", "both", 2, None),
        "igraph_file": indexed_service.file("app/auth.py"),
    }
    for tool, result in answers:
        if tool in full:
            assert wire(result.structured_content) <= 0.7 * wire(full[tool].model_dump(mode="json")), tool
