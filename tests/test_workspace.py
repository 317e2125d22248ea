"""A workspace: one server over several repositories, real SQLite indexes, the real service and the SDK's client."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from _factories import as_agent, make_repo, make_service, subprocess_env
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from igraph_mcp.access import Identity, Repository, RequestAccess, acting_as
from igraph_mcp.errors import ConfigError, InvalidInput, NotIndexed, UnknownRepository
from igraph_mcp.render import render_explore
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState, WorkspaceState
from igraph_mcp.service import IGraphService
from igraph_mcp.structured import compact, entries
from igraph_mcp.workspace import Workspace, load_workspace_file, name_roots, parse_root, workspace_roots
from igraph_mcp.workspace_fusion import by_score

pytestmark = pytest.mark.anyio

API = {
    "billing/invoice.py": '''
        def compute_invoice_total(items):
            """Sum the invoice lines, taxes included."""
            return sum(i.price for i in items)

        def shared_helper(value):
            return value
        ''',
}
WEB = {
    "ui/invoice_page.py": '''
        def render_invoice_page(invoice):
            """Render the invoice page with its lines and total."""
            return str(invoice)

        def shared_helper(value):
            return value

        def only_in_web(x):
            return shared_helper(x)
        ''',
}
QUERY = "invoice total page"


def text_of(result: CallToolResult) -> str:
    """The text content of a tool result."""
    return "\n".join(c.text for c in result.content if c.type == "text")


@pytest.fixture
def roots(tmp_path: Path) -> dict[str, Path]:
    """Two indexed repositories, api and web, whose best hits for QUERY are split between them."""
    out = {"api": make_repo(tmp_path, API, name="api"), "web": make_repo(tmp_path, WEB, name="web")}
    for root in out.values():
        svc = make_service(root)
        svc.index()
        svc.close()
    return out


@pytest.fixture
def workspace(roots: dict[str, Path]) -> Iterator[Workspace]:
    """The two repositories as one workspace (hashing embedder)."""
    ws = Workspace({name: make_service(root) for name, root in roots.items()})
    yield ws
    ws.close()


# -- naming the roots ------------------------------------------------------------------------------------------
def test_roots_are_named_by_directory_or_explicitly(roots: dict[str, Path]) -> None:
    named = name_roots([(None, str(roots["api"])), ("front", str(roots["web"]))])
    assert [(r.name, r.root) for r in named] == [("api", roots["api"].resolve()), ("front", roots["web"].resolve())]
    assert parse_root(f"front={roots['web']}") == ("front", str(roots["web"]))
    assert parse_root(str(roots["web"])) == (None, str(roots["web"]))


def test_duplicate_names_and_roots_are_refused(tmp_path: Path, roots: dict[str, Path]) -> None:
    other = make_repo(tmp_path / "elsewhere", {"a.py": "x = 1\n"}, name="api")
    with pytest.raises(InvalidInput, match=r"two repositories are named 'api'.*NAME=PATH"):
        name_roots([(None, str(roots["api"])), (None, str(other))])
    with pytest.raises(InvalidInput, match="given twice"):
        name_roots([("a", str(roots["api"])), ("b", str(roots["api"]))])
    with pytest.raises(InvalidInput, match="not usable as a repo argument"):
        name_roots([("bad name", str(roots["api"]))])
    assert [r.name for r in name_roots([(None, str(roots["api"])), ("api2", str(other))])] == ["api", "api2"]


def test_workspace_file(tmp_path: Path, roots: dict[str, Path]) -> None:
    path = tmp_path / "ws.json"
    path.write_text(json.dumps({"repos": [{"name": "backend", "root": "api"}, {"root": str(roots["web"])}]}))
    assert [(r.name, r.root) for r in workspace_roots(None, str(path))] == [
        ("backend", roots["api"].resolve()),
        ("web", roots["web"].resolve()),
    ]
    path.write_text('{"repos": [{"path": "api"}]}')
    with pytest.raises(ConfigError, match="workspace file"):
        load_workspace_file(path)
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_workspace_file(path)


def test_one_plain_root_is_named_as_before(tmp_path: Path) -> None:
    odd = make_repo(tmp_path, {"a.py": "x = 1\n"}, name="my repo")  # a name no repo argument could carry
    assert [r.name for r in workspace_roots([str(odd)])] == ["my repo"]


# -- explore: fusion, labels, filters --------------------------------------------------------------------------
def test_explore_fuses_both_repositories_by_score(workspace: Workspace) -> None:
    alone = {name: svc.explore(QUERY, max_tokens=100_000) for name, svc in workspace.items()}
    fused = workspace.explore(QUERY, repos=workspace.names, top_k=4)
    assert {h.repo for h in fused.hits} == {"api", "web"}  # the best hits are split between the two
    assert [h.score for h in fused.hits] == sorted((h.score for h in fused.hits), reverse=True)
    expected = by_score({name: [h.score for h in r.hits] for name, r in alone.items()})[:4]
    assert [(h.repo, h.qualifiedName) for h in fused.hits] == [
        (name, alone[name].hits[i].qualifiedName) for name, i in expected
    ]
    assert len(fused.hits) == 4
    assert all(f.repo in ("api", "web") for f in fused.files) and fused.files
    assert all(n.repo in ("api", "web") for n in fused.neighbours)
    assert set(fused.diagnostics.timingsMs) >= {"api.total", "web.total", "total"}
    text = render_explore(fused)
    assert "api:billing/invoice.py" in text and "web:ui/invoice_page.py" in text


def test_the_budget_applies_once_to_the_fused_answer(workspace: Workspace) -> None:
    fused = workspace.explore(QUERY, repos=workspace.names, top_k=20, max_tokens=400)
    assert fused.truncated and fused.budgetNote and "maxTokens=400" in as_agent(fused.budgetNote)
    assert len(fused.model_dump_json()) // 4 <= 400


def test_repo_filter_and_unknown_repo(workspace: Workspace) -> None:
    only = workspace.explore(QUERY, repos=workspace.select("web"))
    assert only.hits and {h.repo for h in only.hits} == {"web"}
    with pytest.raises(UnknownRepository, match=r"no repository 'nope' on this server; repositories: api, web"):
        workspace.select("nope")


def test_a_repository_without_an_index_leaves_the_others_answering(tmp_path: Path, roots: dict[str, Path]) -> None:
    fresh = make_repo(tmp_path, {"x.py": "def invoice_total_page(): pass\n"}, name="fresh")
    ws = Workspace({"api": make_service(roots["api"]), "fresh": make_service(fresh)})
    try:
        result = ws.explore(QUERY, repos=ws.names)
        assert result.hits and {h.repo for h in result.hits} == {"api"}
        assert result.degraded and result.note and "repository 'fresh' left out" in result.note
        with pytest.raises(NotIndexed):
            ws.explore(QUERY, repos=["fresh"])  # alone, its own error (and its exit code) comes back
    finally:
        ws.close()


def test_lookups_name_the_repository_or_ask_for_one(workspace: Workspace) -> None:
    found = workspace.lookup(workspace.names, lambda svc: svc.node("only_in_web"), "the name")
    assert found.found and found.repo == "web" and found.node is not None and found.node.repo == "web"
    both = workspace.lookup(workspace.names, lambda svc: svc.node("shared_helper"), "the name")
    assert not both.found and both.message and "several repositories (api, web)" in both.message
    assert sorted(c.repo or "" for c in both.candidates) == ["api", "web"]
    picked = workspace.lookup(["api"], lambda svc: svc.node("shared_helper"), "the name")
    assert picked.found and picked.repo == "api"
    outline = workspace.lookup(workspace.names, lambda svc: svc.file("invoice_page.py"), "the path")
    assert outline.found and outline.repo == "web"
    related = workspace.lookup(workspace.names, lambda svc: svc.related("only_in_web", "callees"), "the name")
    assert related.found and {n.repo for n in related.related} == {"web"}


def test_single_root_answers_are_unchanged(roots: dict[str, Path]) -> None:
    svc = make_service(roots["api"])
    try:
        ws = Workspace.single(svc)
        direct, through = svc.explore(QUERY), ws.explore(QUERY, repos=ws.names)
        assert through.model_dump_json(exclude={"diagnostics"}) == direct.model_dump_json(exclude={"diagnostics"})
        assert '"repo"' not in direct.model_dump_json()
        assert render_explore(through) == render_explore(direct)
    finally:
        svc.close()


# -- the MCP server --------------------------------------------------------------------------------------------
def _server(roots: dict[str, Path]) -> tuple[WorkspaceState, Any]:
    ws = Workspace({name: make_service(root) for name, root in roots.items()})
    state = WorkspaceState.open(ws)
    return state, create_server(state)


async def test_workspace_server_labels_filters_and_lists(roots: dict[str, Path]) -> None:
    state, server = _server(roots)
    try:
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            explore = await client.call_tool("igraph_explore", {"query": QUERY, "topK": 4})
            web = await client.call_tool("igraph_explore", {"query": QUERY, "repo": "web"})
            unknown = await client.call_tool("igraph_node", {"name": "x", "repo": "nope"})
            ambiguous = await client.call_tool("igraph_node", {"name": "shared_helper"})
            status = await client.call_tool("igraph_status", {})
            resources = await client.call_tool("igraph_list_resources", {"repo": "api"})
    finally:
        state.workspace.close()
    assert all("repo" in t.input_schema["properties"] for t in tools.values())
    assert server.instructions and "2 repositories: api, web" in server.instructions
    hits = entries((explore.structured_content or {})["hits"])
    assert {h["repo"] for h in hits} == {"api", "web"} and "api:billing/invoice.py" in text_of(explore)
    assert {h["repo"] for h in entries((web.structured_content or {})["hits"])} == {"web"}
    assert unknown.is_error and "no repository 'nope' on this server; repositories: api, web" in text_of(unknown)
    detail = ambiguous.structured_content or {}
    assert detail["found"] is False and sorted(c["repo"] for c in entries(detail["candidates"])) == ["api", "web"]
    summary = (status.structured_content or {})["extra"]["repos"]
    assert [row["repo"] for row in summary] == ["api", "web"] and "repositories: api (indexed)" in text_of(status)
    assert not resources.is_error


async def test_a_repository_being_built_does_not_stop_the_others(roots: dict[str, Path]) -> None:
    state, server = _server(roots)
    web = state.repos["web"]
    web.has_index, web._building = False, "initial index"  # as during its first build
    try:
        async with Client(server) as client:
            explore = await client.call_tool("igraph_explore", {"query": QUERY})
            alone = await client.call_tool("igraph_explore", {"query": QUERY, "repo": "web"})
            node = await client.call_tool("igraph_node", {"name": "compute_invoice_total"})
    finally:
        web._building = None
        state.workspace.close()
    data = explore.structured_content or {}
    assert not explore.is_error and {h["repo"] for h in entries(data["hits"])} == {"api"}
    assert data["degraded"] and "repository 'web' left out" in data["note"]
    assert alone.is_error and "being built" in text_of(alone)
    found = node.structured_content or {}
    assert found["found"] and found["repo"] == "api" and "repository 'web' did not answer" in found["message"]


async def test_an_allow_list_hides_the_other_repositories(roots: dict[str, Path]) -> None:
    state, server = _server(roots)
    api = state.workspace.repository("api")
    access = RequestAccess(Identity("bob", role="read", repos=("api",)), api)
    try:
        with acting_as(access):
            async with Client(server) as client:
                explore = await client.call_tool("igraph_explore", {"query": QUERY})
                hidden = await client.call_tool("igraph_node", {"name": "only_in_web", "repo": "web"})
                absent = await client.call_tool("igraph_node", {"name": "only_in_web", "repo": "wex"})
                unscoped = await client.call_tool("igraph_node", {"name": "only_in_web"})
                status = await client.call_tool("igraph_status", {})
    finally:
        state.workspace.close()
    assert {h["repo"] for h in entries((explore.structured_content or {})["hits"])} == {"api"}
    assert hidden.is_error and "no repository 'web' on this server; repositories: api" in text_of(hidden)
    assert text_of(hidden).replace("'web'", "'wex'") == text_of(absent)  # as if it did not exist
    assert (unscoped.structured_content or {})["found"] is False  # web's symbol is not even a candidate
    assert [row["repo"] for row in (status.structured_content or {})["extra"]["repos"]] == ["api"]


async def test_single_root_server_output_is_unchanged(roots: dict[str, Path]) -> None:
    svc = make_service(roots["api"])
    try:
        expected = svc.explore(QUERY)
        async with Client(create_server(ServerState(svc))) as client:
            tools = (await client.list_tools()).tools
            got = await client.call_tool("igraph_explore", {"query": QUERY})
    finally:
        svc.close()
    assert not any("repo" in t.input_schema["properties"] for t in tools)
    assert got.structured_content == compact(expected)  # timings differ from run to run: compact leaves them out
    assert text_of(got) == render_explore(expected)


# -- the real thing: two roots over stdio ------------------------------------------------------------------
async def test_stdio_server_with_two_roots(roots: dict[str, Path]) -> None:
    env = subprocess_env(inherit=False, IGRAPH_EMBEDDER="hash")
    args = ["-m", "igraph_mcp", "serve", "--root", str(roots["api"]), "--root", f"front={roots['web']}"]
    params = StdioServerParameters(command=sys.executable, args=[*args, "--no-auto-index"], env=env)
    with anyio.fail_after(60):
        async with Client(params) as client:
            explore = await client.call_tool("igraph_explore", {"query": QUERY, "topK": 4})
            node = await client.call_tool("igraph_node", {"name": "only_in_web", "repo": "front"})
    assert {h["repo"] for h in entries((explore.structured_content or {})["hits"])} == {"api", "front"}
    assert (node.structured_content or {})["repo"] == "front"


async def test_the_guard_runs_a_request_as_the_first_repository_its_token_sees(tmp_path: Path) -> None:
    import httpx

    from igraph_mcp.access import current_access
    from igraph_mcp.tokens import TokenTable, add_token
    from igraph_mcp.transport import RequestGuard

    path = tmp_path / "tokens.json"
    web_only = add_token(path, "wendy", role="read", repos=("web",))[0]
    outsider = add_token(path, "otto", role="read", repos=("other",))[0]
    table = TokenTable(path=path)
    table.load()
    seen: list[RequestAccess | None] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(current_access())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    repos = [Repository("api", "/x/api"), Repository("web", "/x/web")]
    guard = RequestGuard(app, loopback=True, tokens=table, repos=repos)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=guard), base_url="http://127.0.0.1") as c:
        wendy = await c.get("/mcp", headers={"authorization": f"Bearer {web_only}"})
        otto = await c.get("/mcp", headers={"authorization": f"Bearer {outsider}"})
    assert wendy.status_code == 200 and [a.repo.name if a else None for a in seen] == ["web"]
    assert otto.status_code == 403  # sees none of the workspace's repositories


def test_service_kwargs_reach_every_repository(roots: dict[str, Path]) -> None:
    ws = Workspace.open(name_roots([(None, str(r)) for r in roots.values()]), embed=False)
    try:
        assert all(isinstance(svc, IGraphService) and svc.embedder() is None for _, svc in ws.items())
    finally:
        ws.close()


# -- the CLI ---------------------------------------------------------------------------------------------------
def test_cli_over_a_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from igraph_mcp.cli import EXIT_AMBIGUOUS, EXIT_ERROR, main

    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")
    api, web = make_repo(tmp_path, API, name="api"), make_repo(tmp_path, WEB, name="web")
    both = ["--root", str(api), "--root", str(web)]
    assert main(["index", *both]) == 0  # every repository in turn
    out = capsys.readouterr().out
    assert out.count("files,") == 2 and out.startswith("api: ") and "\nweb: " in out
    assert main(["search", QUERY, *both, "--top-k", "4", "--json"]) == 0
    assert {h["repo"] for h in json.loads(capsys.readouterr().out)["hits"]} == {"api", "web"}
    assert main(["search", QUERY, *both, "--repo", "web"]) == 0
    text = capsys.readouterr().out
    assert "web:ui/invoice_page.py" in text and "api:" not in text
    assert main(["node", "shared_helper", *both]) == EXIT_AMBIGUOUS
    assert "several repositories (api, web)" in capsys.readouterr().out
    assert main(["node", "shared_helper", *both, "--repo", "api"]) == 0
    assert main(["status", *both, "--repo", "nope"]) == EXIT_ERROR
    assert "repositories: api, web" in capsys.readouterr().err


def test_cli_single_root_json_has_no_repo_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from igraph_mcp.cli import main

    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")
    api = make_repo(tmp_path, API, name="api")
    assert main(["index", str(api)]) == 0
    assert not capsys.readouterr().out.startswith("api: ")
    assert main(["search", QUERY, "--root", str(api), "--json"]) == 0
    assert '"repo"' not in capsys.readouterr().out


def test_the_access_log_names_the_repository_a_call_names(caplog: pytest.LogCaptureFixture) -> None:
    from igraph_mcp.access import access_log, log_call

    access = RequestAccess(Identity("ann"), Repository("api", "/x/api"))
    with caplog.at_level("INFO", logger=access_log.name):
        log_call(access, "igraph_explore", 0.001, "ok", {"query": "q", "repo": "web"})
        log_call(access, "igraph_explore", 0.001, "ok", {"query": "q"})
    assert [r.getMessage().split()[4] for r in caplog.records] == ["repo=web", "repo=api"]


async def test_index_mount_and_a_locked_repository(roots: dict[str, Path]) -> None:
    (roots["web"] / "docs").mkdir()
    (roots["web"] / "docs" / "PRD.md").write_text("# Invoice page\n\nThe invoice page shows the total of the lines.\n")
    state, server = _server(roots)
    other_writer = make_service(roots["api"])  # a second process's writer, as `igraph-mcp index` would be
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    try:
        async with Client(server) as client:
            built = await client.call_tool("igraph_index", {"repo": "web"}, progress_callback=on_progress)
            mounted = await client.call_tool("igraph_mount_resource", {"path": "docs/PRD.md", "repo": "web"})
            listed = await client.call_tool("igraph_list_resources", {})
            with other_writer._writer():
                busy = await client.call_tool("igraph_index", {"repo": "api"})
                explore = await client.call_tool("igraph_explore", {"query": QUERY, "topK": 4})
    finally:
        other_writer.close()
        state.workspace.close()
    assert not built.is_error and (built.structured_content or {})["repo"] == "web" and progress
    assert text_of(built).startswith("web: ")
    assert (mounted.structured_content or {})["repo"] == "web"
    assert [s["repo"] for s in entries((listed.structured_content or {})["sources"])] == ["web"]
    assert busy.is_error and "repository 'api': another igraph-mcp process is indexing" in text_of(busy)
    data = explore.structured_content or {}
    assert not explore.is_error and {h["repo"] for h in entries(data["hits"])} == {
        "api",
        "web",
    }  # readers keep answering
    assert any(r["repo"] == "web" for r in entries(data["resources"]))
