"""The compact structuredContent (structured.py) and what every session pays for it: tools/list bytes, the answer's
structured half against its text, and every answer conforming to the output schema its tool publishes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from _factories import make_plain_repo, make_repo, make_service, open_service
from mcp import Client
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from igraph_mcp.models import (
    NOT_STRUCTURED,
    Diagnostics,
    EdgeRef,
    ExploreResult,
    FileDetail,
    FileHit,
    Hit,
    Neighbour,
    NodeDetail,
    NodeSummary,
    RelatedResult,
)
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState, WorkspaceState
from igraph_mcp.service import IGraphService
from igraph_mcp.structured import compact, entries, output_schema
from igraph_mcp.workspace import Workspace

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
    assert data["hits"] == {  # no snippet, docstring, signature, ranks or channel: the text shows those
        "columns": ["nodeId", "qualifiedName", "kind", "filePath", "startLine", "endLine", "score"],  # name: its end
        "rows": [[4, "auth.login", "function", "app/auth.py", 3, 9, 0.0246]],
    }
    first, second = entries(data["neighbours"])
    assert "viaName" not in first and first["viaNodeId"] == 4  # the via entry is a hit of this answer
    assert second["viaName"] == "elsewhere"  # node 99 is not listed: its name stays
    assert "certain" not in first and second["certain"] is False  # the schema says certain defaults to true
    assert not {"signature", "resolution", "score"} & (first.keys() | second.keys())  # order and distance say it
    # What both neighbours share is given once; a cell a row leaves out is null.
    assert data["neighbours"]["same"] == {"qualifiedName": "main", "kind": "function", "filePath": "main.py"} | {
        "startLine": 4,
        "endLine": 5,
        "edgeKind": "calls",
        "direction": "caller",
        "distance": 1,
    }
    assert data["neighbours"]["columns"] == ["nodeId", "viaNodeId", "viaName", "certain"]
    assert data["neighbours"]["rows"] == [[11, 4, None, None], [12, 99, "elsewhere", False]]


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
    assert compact(outline)["symbols"] == {
        "columns": ["nodeId", "qualifiedName", "kind", "startLine", "endLine"],
        "rows": [[1, "f", "function", 1, 2]],
    }
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
    assert entries(data["callers"]) == [{"name": "g", "edgeKind": "calls", "resolution": "unresolved"}]  # nodeId: null


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
async def test_tools_list_fits_the_budget(indexed_service: IGraphService, tmp_path: Path) -> None:
    async with Client(create_server(ServerState(indexed_service))) as client:
        tools = (await client.list_tools()).tools
    listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    assert wire({"tools": listed}) <= TOOLS_LIST_MAX_BYTES
    for tool in listed:
        assert len(tool["description"]) <= 300, tool["name"]  # a sentence or two
        assert "\n" not in tool["description"]
        assert all("title" not in p for p in tool["inputSchema"]["properties"].values()), tool["name"]
        assert all("null" not in json.dumps(p) for p in tool["inputSchema"]["properties"].values()), tool["name"]
        assert wire(tool["outputSchema"]) <= 1_000, tool["name"]
    # A workspace server adds a `repo` argument to every tool: the budget holds there too.
    roots = {name: make_repo(tmp_path, {f"{name}.py": "def f():\n    pass\n"}, name=name) for name in ("api", "web")}
    workspace = WorkspaceState.open(Workspace({name: make_service(root) for name, root in roots.items()}))
    try:
        async with Client(create_server(workspace)) as client:
            wide = [
                t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in (await client.list_tools()).tools
            ]
    finally:
        workspace.workspace.close()
    assert all("repo" in t["inputSchema"]["properties"] for t in wide)
    assert wire({"tools": wide}) <= TOOLS_LIST_MAX_BYTES


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
        ("igraph_related", {"name": "login", "file": "app/auth.py"}),
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


# Code of a realistic shape for the size test: a module of a dozen functions, most calling one helper.
BILLING = {
    "billing/money.py": "def format_amount(cents, currency):\n    return f'{cents / 100:.2f} {currency}'\n",
    "billing/invoices.py": "from billing.money import format_amount\n\n\n"
    + "".join(
        f"def {name}(invoice):\n    return format_amount(invoice.{name}_cents, invoice.currency)\n\n\n"
        for name in (
            "invoice_subtotal",
            "invoice_tax_total",
            "invoice_discount_total",
            "invoice_shipping_total",
            "invoice_grand_total",
            "invoice_amount_paid",
            "invoice_amount_due",
            "invoice_refunded_total",
        )
    )
    + "class InvoiceRenderer:\n    def render_lines(self, invoice):\n        return [invoice_subtotal(invoice)]\n\n"
    + "    def render_footer(self, invoice):\n        return invoice_amount_due(invoice)\n",
}


async def test_structured_half_is_small_next_to_the_text(tmp_path: Path, indexed_service: IGraphService) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("igraph_explore", {"query": "total amount due on an invoice"}),
        ("igraph_related", {"name": "format_amount"}),
        ("igraph_related", {"name": "format_amount", "hops": 2}),
        ("igraph_file", {"path": "billing/invoices.py"}),
    ]
    with open_service(make_plain_repo(tmp_path, BILLING, name="billing"), index=True) as svc:
        async with Client(create_server(ServerState(svc))) as client:
            answers = [(tool, args, await client.call_tool(tool, args)) for tool, args in calls]
    for tool, args, result in answers:
        assert not result.is_error, (tool, result.content)
        assert wire(result.structured_content) <= 1.5 * text_bytes(result), (tool, args)
    related = entries((answers[1][2].structured_content or {})["related"])
    assert len(related) == 8 and {e["direction"] for e in related} == {"caller"}  # the eight invoice_* callers
    # The sample repository's answers list two to six short entries: the root symbol and the column names, paid
    # once per answer, keep them above 1.5x (README); what must hold is that they no longer carry the full model.
    async with Client(create_server(ServerState(indexed_service))) as client:
        small = {tool: await client.call_tool(tool, args) for tool, args in SAMPLE_CALLS}
    full = {
        "igraph_node": indexed_service.node("login"),
        "igraph_related": indexed_service.related("login", "both", 2, None),
        "igraph_file": indexed_service.file("app/auth.py"),
    }
    for tool, model in full.items():
        assert wire(small[tool].structured_content) <= 0.5 * wire(model.model_dump(mode="json")), tool
        assert wire(small[tool].structured_content) <= 2 * text_bytes(small[tool]), tool


SAMPLE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("igraph_node", {"name": "login"}),
    ("igraph_related", {"name": "login", "hops": 2}),
    ("igraph_file", {"path": "app/auth.py"}),
]


# -- tables round-trip to the model ------------------------------------------------------------------------
def assert_entries_match(table: dict[str, Any], items: list[BaseModel], holder: BaseModel, listed: set[int]) -> None:
    """Each entry of ``table`` holds its item's fields as the model has them (floats rounded); every field it
    leaves out is one the rules leave out: not structured, at its default, ``name`` at the end of the qualified
    name, ``viaName`` of a listed symbol, or the holder's own ``filePath`` / ``repo``."""
    decoded = entries(table)
    assert len(decoded) == len(items)
    for entry, item in zip(decoded, items, strict=True):
        dumped = item.model_dump(mode="json")
        for key, value in entry.items():
            want = dumped[key]
            assert value == (round(want, 4) if isinstance(want, float) else want), (key, value, want)
        for name, field in type(item).model_fields.items():
            if name in entry:
                continue
            value = getattr(item, name)
            assert (
                NOT_STRUCTURED in field.metadata
                or (not field.is_required() and value == field.get_default(call_default_factory=True))
                or value is None
                or (name == "name" and str(getattr(item, "qualifiedName", "")).endswith(value))
                or (name == "viaName" and getattr(item, "viaNodeId", None) in listed)
                or (name in ("filePath", "repo") and getattr(holder, name, None) == value)
            ), (type(item).__name__, name, value)


def test_tables_round_trip_to_the_answers_entries(indexed_service: IGraphService) -> None:
    explored = indexed_service.explore("log a user in and check the password")
    related = indexed_service.related("login", "both", 2, None)
    detail = indexed_service.node("login")
    outline = indexed_service.file("app/auth.py")
    assert explored.hits and explored.neighbours and len(related.related) >= 4 and detail.callers
    listed = {h.nodeId for h in explored.hits} | {n.nodeId for n in explored.neighbours}
    data = compact(explored)
    assert_entries_match(data["hits"], list(explored.hits), explored, listed)
    assert_entries_match(data["neighbours"], list(explored.neighbours), explored, listed)
    on_root = {related.node.nodeId} if related.node else set()
    assert_entries_match(
        compact(related)["related"], list(related.related), related, on_root | {n.nodeId for n in related.related}
    )
    assert_entries_match(compact(detail)["callers"], list(detail.callers), detail, set())
    assert_entries_match(compact(detail)["callees"], list(detail.callees), detail, set())
    assert_entries_match(compact(outline)["symbols"], list(outline.symbols), outline, set())
    # The outline's entries share their file with the answer: the table has no filePath column.
    assert "filePath" not in compact(outline)["symbols"]["columns"]


def test_a_table_with_one_entry_has_no_same_and_an_empty_list_is_left_out() -> None:
    one = compact(RelatedResult(found=True, related=[neighbour(11, 4, "auth.login")]))
    assert set(one["related"]) == {"columns", "rows"} and len(one["related"]["rows"]) == 1
    assert "related" not in compact(RelatedResult(found=True))


def test_a_table_field_is_published_as_a_table() -> None:
    schema = output_schema(RelatedResult)
    table = {"type": "object", "required": ["columns", "rows"]}
    assert schema["properties"]["related"] == table | {"description": "left out: certain=true"}
    assert schema["properties"]["candidates"] == table
    assert output_schema(FileDetail)["properties"]["imports"] == {"type": "array"}  # a list of strings stays one
    data = compact(RelatedResult(found=True, related=[neighbour(11, 4, "x"), neighbour(12, 4, "x", certain=False)]))
    jsonschema.validate(data, schema)
    jsonschema.validate({"found": True, "related": [{"nodeId": 1}]}, {"type": "object"})  # the schema's own sanity
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"found": True, "related": [{"nodeId": 1}]}, schema)  # objects per entry are not it


def test_files_a_hit_is_in_are_left_out() -> None:
    files = [FileHit(filePath=p, score=1.0 / i) for i, p in enumerate(["app/auth.py", "app/db.py", "app/x.py"], 1)]
    data = compact(ExploreResult(query="q", hits=[hit(4, "login", "auth.login")], files=files))
    assert data["files"] == {"columns": ["filePath"], "rows": [["app/db.py"], ["app/x.py"]]}  # ranked, no score
    only_hit_files = compact(ExploreResult(query="q", hits=[hit(4, "login", "auth.login")], files=files[:1]))
    assert "files" not in only_hit_files
