"""The MCP front: tools over IGraphService, create_server() and serve().

Every tool validates its (flat, camelCase) arguments, calls one service method in a worker thread, and
returns a compact text rendering (what models read) plus the model's compact structured form (structured.py:
each fact once, no snippets or source; the CLI's --json keeps the full model). Expected failures
(IGraphError) become isError results whose message says what to do next; anything else is logged with its
traceback on stderr and reported generically, and the server keeps serving. Every tool calls one object, the
workspace (its ``*_for`` methods pick the repositories and label answers); the background indexing lives in
server_state; the instructions text is built in instructions.
A server over a workspace (several roots) gives every tool a ``repo`` argument naming one of its repositories
(never a path; see workspace); a one-root server has no such argument and answers exactly as before.
Over HTTP each call runs as the holder of the request's token (access.current_access, set by the transport's
guard): a read-only token calling a tool whose annotations say it writes is refused before the tool runs, and
every call leaves one access-log line.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Annotated, Any, Literal, TypeVar, cast

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from igraph_mcp import __version__, render
from igraph_mcp.access import Repository, current_access, log_call, refusal
from igraph_mcp.errors import IGraphError
from igraph_mcp.explore_request import (
    DEFAULT_HOPS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TOP_K,
    HOPS_MAX,
    MAX_TOKENS_MAX,
    MAX_TOKENS_MIN,
    SNIPPET_HITS,
    TOP_K_MAX,
)
from igraph_mcp.instructions import AGENT_WORDS, build_instructions
from igraph_mcp.models import ExploreResult, FileDetail, IndexResult, NodeDetail, RelatedResult, StatusResult
from igraph_mcp.next_step import word, word_data
from igraph_mcp.resources.results import MountResult, ResourceList, UnmountResult
from igraph_mcp.server_state import BuildProgress, ServerState, WorkspaceState, open_state
from igraph_mcp.structured import compact, output_schema
from igraph_mcp.workspace import Workspace, workspace_roots

log = logging.getLogger(__name__)

SERVER_NAME = "igraph"
PROGRESS_INTERVAL_S = 0.25
_T = TypeVar("_T")


# -- helpers -------------------------------------------------------------------------------------------------
def _redact(text: str) -> str:
    """Never echo the API key, whatever a lower layer put into a message."""
    key = os.environ.get("IGRAPH_API_KEY")
    return text.replace(key, "***") if key and len(key) >= 4 else text


def _workspace(ctx: Context) -> Workspace:
    workspace = ctx.request_context.lifespan_context
    if not isinstance(workspace, Workspace):
        raise RuntimeError("igraph tools need the server created by create_server()")
    return workspace


async def _call(tool: str, fn: Callable[[], _T]) -> _T:
    """Run one workspace call in a worker thread (the event loop stays free) and map its failures, their next
    steps worded as the tool calls to make."""
    try:
        return await anyio.to_thread.run_sync(fn)
    except IGraphError as exc:
        raise ToolError(word(_redact(str(exc)), AGENT_WORDS)) from None
    except Exception:
        log.exception("%s failed unexpectedly", tool)
        raise ToolError(
            f"{tool} failed with an internal error (details are in the server log on stderr); the "
            "server keeps running: retry, or check igraph_status"
        ) from None


def _answer(model: BaseModel, text: str) -> CallToolResult:
    """The text models read, and the compact structured form (``structured.compact``) programs read, with every
    next step worded as the tool call to make."""
    structured = word_data(compact(model), AGENT_WORDS)
    return CallToolResult(
        content=[TextContent(type="text", text=word(text, AGENT_WORDS))], structured_content=structured
    )


class _ForbidExtra(ArgModelBase):
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")


class _StrictTool(Tool):
    """A tool that checks the caller's rights, rejects unknown arguments, and explains invalid ones field by field."""

    async def run(self, arguments: dict[str, Any], context: Context[Any, Any], convert_result: bool = False) -> Any:
        """Run the tool as the request's identity (HTTP); one access-log line per call, whatever the outcome."""
        access = current_access()
        started, outcome = time.perf_counter(), "error"
        try:
            writes = not (self.annotations and self.annotations.read_only_hint)  # the annotation is the one list
            refused = refusal(access, self.name, writes=writes)
            if refused is not None:
                outcome = "refused"
                raise ToolError(refused)
            result = await self._run_checked(arguments, context, convert_result)
            outcome = "error" if isinstance(result, CallToolResult) and result.is_error else "ok"
            return result
        finally:
            log_call(access, self.name, time.perf_counter() - started, outcome, arguments)

    async def _run_checked(self, arguments: dict[str, Any], context: Context[Any, Any], convert_result: bool) -> Any:
        try:
            return await super().run(arguments, context, convert_result=convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError) and not isinstance(exc, UnexpectedToolError):
                raise ToolError(describe_invalid(self.name, exc.__cause__, self.parameters)) from exc.__cause__
            raise

    @classmethod
    def strict(
        cls, fn: Callable[..., Any], title: str, annotations: ToolAnnotations, drop: tuple[str, ...] = ()
    ) -> _StrictTool:
        """Register ``fn`` with ``extra='forbid'`` arguments (the schema says additionalProperties: false),
        without the arguments named in ``drop`` (the function's defaults apply), and with the terse output schema
        of its answer's compact form (``structured.output_schema``)."""
        description = " ".join((fn.__doc__ or "").split())  # the docstring on one line: bytes every session pays
        tool = cls.from_function(fn, title=title, description=description, annotations=annotations)
        base = tool.fn_metadata.arg_model
        fields: dict[str, Any] = {n: (f.annotation, f) for n, f in base.model_fields.items() if n not in drop}
        model = cast(type[BaseModel], create_model(base.__name__, __base__=_ForbidExtra, __module__=__name__, **fields))
        answer = tool.fn_metadata.output_model
        assert isinstance(answer, type) and issubclass(answer, BaseModel), f"{tool.name} must answer with a model"
        # No output model: the SDK would validate the compact form against the full one; clients check the schema.
        meta = tool.fn_metadata.model_copy(
            update={"arg_model": model, "output_model": None, "output_schema": output_schema(answer)}
        )
        parameters = _terse(model.model_json_schema(by_alias=True))
        strict = tool.model_copy(update={"fn_metadata": meta, "parameters": parameters})
        assert isinstance(strict, cls)
        return strict


def _terse(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema without pydantic's generated titles (``"title": "Topk"``) and with an optional argument
    (``int | None = None``) as its plain type, since leaving it out is the null: bytes every session pays for."""
    properties = {name: _optional_as_plain(prop) for name, prop in schema["properties"].items()}
    return {k: v for k, v in schema.items() if k != "title"} | {"properties": properties}


def _optional_as_plain(prop: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in prop.items() if k != "title"}
    members: list[dict[str, Any]] = [m for m in kept.get("anyOf", []) if m != {"type": "null"}]
    if kept.get("default", 0) is not None or len(members) != 1 or len(kept["anyOf"]) != 2:
        return kept
    return members[0] | {k: v for k, v in kept.items() if k not in ("anyOf", "default")}


def describe_invalid(tool: str, error: ValidationError, schema: dict[str, Any]) -> str:
    """'invalid arguments for <tool>: <field>: <problem>; ...' plus what to do, without echoing the values."""
    allowed = ", ".join(schema.get("properties", {})) or "none"
    problems = []
    for err in error.errors(include_url=False, include_input=False):
        field = ".".join(str(p) for p in err["loc"]) or "arguments"
        problem = f"unknown argument (allowed: {allowed})" if err["type"] == "extra_forbidden" else err["msg"]
        problems.append(f"{field}: {problem}")
    return f"invalid arguments for {tool}: {'; '.join(problems)}. Fix them and call {tool} again."


# -- tools ---------------------------------------------------------------------------------------------------
Name = Annotated[
    str,
    Field(
        description="Symbol name, plain or qualified (`Session.request`)",
        max_length=500,
    ),
]
# The file, or file and line, that picks one symbol of an ambiguous name (igraph_node, igraph_related).
PickFile = Annotated[
    str | None,
    Field(
        max_length=4096,
        description="File (path suffix, or path:LINE for overloads) that picks one symbol of an ambiguous name",
    ),
]


_REPO_DOC = "Repository name (igraph_status lists them); default: "
RepoAll = Annotated[str | None, Field(max_length=100, description=_REPO_DOC + "all, rankings fused")]
RepoLookup = Annotated[
    str | None, Field(max_length=100, description=_REPO_DOC + "all; a name in several gives candidates")
]
RepoFirst = Annotated[str | None, Field(max_length=100, description=_REPO_DOC + "the first")]


async def igraph_explore(
    ctx: Context,
    query: Annotated[
        str,
        Field(
            description="A question, a behaviour, identifiers or pasted issue text (tracebacks and links to lines help)"
        ),
    ],
    topK: Annotated[
        int | None,
        Field(
            ge=1,
            le=TOP_K_MAX,
            description=f"Ranked symbols to return (default {DEFAULT_TOP_K}); the first {SNIPPET_HITS} with a snippet",
        ),
    ] = None,
    hops: Annotated[
        int, Field(ge=0, le=HOPS_MAX, description="Call-graph hops to expand around the hits")
    ] = DEFAULT_HOPS,
    kinds: Annotated[
        list[str] | None,
        Field(max_length=20, description="Only these symbol kinds, e.g. ['function', 'method', 'class']"),
    ] = None,
    contextFiles: Annotated[
        list[str] | None,
        Field(
            max_length=50,
            description="Repository-relative files you are working on; their symbols are boosted",
        ),
    ] = None,
    maxTokens: Annotated[
        int | None,
        Field(
            ge=MAX_TOKENS_MIN,
            le=MAX_TOKENS_MAX,
            description=f"Token budget of the answer (default {DEFAULT_MAX_TOKENS})",
        ),
    ] = None,
    repo: RepoAll = None,
) -> Annotated[CallToolResult, ExploreResult]:
    """Find the code that matters for a question, in one call: ranked symbols with snippets (hybrid keyword +
    semantic search), their callers and callees, and linked requirement documents / DB tables. Start here."""
    result = await _call(
        "igraph_explore",
        partial(
            _workspace(ctx).explore_for,
            query,
            repo=repo,
            access=current_access(),
            top_k=topK,
            hops=hops,
            kinds=kinds or None,
            context_files=contextFiles or (),
            max_tokens=maxTokens,
        ),
    )
    return _answer(result, render.render_explore(result))


async def igraph_node(
    ctx: Context,
    name: Name,
    file: PickFile = None,
    repo: RepoLookup = None,
) -> Annotated[CallToolResult, NodeDetail]:
    """One symbol in full: source, signature, docstring, callers, callees and base classes. Not found and
    ambiguous names are normal answers (found: false, with candidates)."""
    lookup = partial(_workspace(ctx).node_for, name, file, repo=repo, access=current_access())
    result = await _call("igraph_node", lookup)
    return _answer(result, render.render_node(result))


async def igraph_file(
    ctx: Context,
    path: Annotated[
        str,
        Field(
            max_length=4096,
            description="Repository-relative path or an unambiguous suffix (`auth/session.py`)",
        ),
    ],
    repo: RepoLookup = None,
) -> Annotated[CallToolResult, FileDetail]:
    """Outline of one file: its symbols with line ranges, and its imports."""
    lookup = partial(_workspace(ctx).file_for, path, repo=repo, access=current_access())
    result = await _call("igraph_file", lookup)
    return _answer(result, render.render_file(result))


async def igraph_related(
    ctx: Context,
    name: Name,
    direction: Annotated[
        Literal["both", "callers", "callees"],
        Field(description="'callers' (who uses it), 'callees' (what it uses) or 'both'"),
    ] = "both",
    hops: Annotated[int | None, Field(ge=1, le=5, description="Graph hops to follow (default 1)")] = None,
    limit: Annotated[
        int | None,
        Field(ge=1, le=1000, description="Symbols to list, best first (default 100)"),
    ] = None,
    file: PickFile = None,
    repo: RepoLookup = None,
) -> Annotated[CallToolResult, RelatedResult]:
    """Callers and/or callees of a symbol up to several hops away: the impact of changing it."""
    lookup = partial(
        _workspace(ctx).related_for, name, direction, hops, limit, file, repo=repo, access=current_access()
    )
    result = await _call("igraph_related", lookup)
    return _answer(result, render.render_related(result))


async def igraph_status(ctx: Context, repo: RepoFirst = None) -> Annotated[CallToolResult, StatusResult]:
    """Index health: files, symbols, edges, languages, embedder and dense coverage, mounted resources, last
    build, stale files, and any build in progress."""
    status = partial(_workspace(ctx).status_for, repo, access=current_access())
    result = await _call("igraph_status", status)
    return _answer(result, render.render_status(result))


async def igraph_index(
    ctx: Context,
    full: Annotated[bool, Field(description="Rebuild from scratch instead of updating changed files")] = False,
    repo: RepoFirst = None,
    replace: Annotated[
        bool, Field(description="Take over a shared store's name bound to another repository (only when told to)")
    ] = False,
    allowMassDelete: Annotated[
        bool, Field(description="Allow deleting over half of the indexed files (only when told to)")
    ] = False,
) -> Annotated[CallToolResult, IndexResult]:
    """Build or update the index (incremental: only changed files are re-parsed and re-embedded). Sends
    progress notifications; other tools keep answering from the last committed index while it runs."""
    workspace, access = _workspace(ctx), current_access()
    progress = BuildProgress()
    finished = anyio.Event()

    async def pump() -> None:
        last: tuple[float, float | None, str] | None = None
        while not finished.is_set():
            with anyio.move_on_after(PROGRESS_INTERVAL_S):
                await finished.wait()
            snap = progress.snapshot()
            if snap is not None and snap != last:
                await ctx.report_progress(snap[0], snap[1], snap[2])
                last = snap

    outcome: IndexResult | ToolError | None = None
    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        try:
            outcome = await _call(
                "igraph_index",
                partial(
                    workspace.index_for,
                    repo,
                    access=access,
                    progress=progress,
                    full=full,
                    replace=replace,
                    allow_mass_delete=allowMassDelete,
                ),
            )
        except ToolError as exc:  # kept until the progress pump stops, so it is not wrapped in an ExceptionGroup
            outcome = exc
        finally:
            finished.set()
    if isinstance(outcome, ToolError):
        raise outcome
    assert outcome is not None
    return _answer(outcome, render.render_index(outcome))


async def igraph_mount_resource(
    ctx: Context,
    path: Annotated[
        str,
        Field(
            max_length=4096,
            description="Repository-relative path of a PRD (markdown, text, pdf, docx) or DB schema (SQL DDL, JSON)",
        ),
    ],
    type: Annotated[
        Literal["auto", "prd", "db"], Field(description="'prd', 'db', or 'auto' to decide from the file")
    ] = "auto",
    name: Annotated[str | None, Field(max_length=200, description="Display name (default: the file name)")] = None,
    repo: RepoFirst = None,
) -> Annotated[CallToolResult, MountResult]:
    """Attach a requirements document or DB schema so explore answers include the relevant sections/tables.
    Mounting the same file again updates it."""
    mount = partial(_workspace(ctx).mount_for, path, type, name, repo=repo, access=current_access())
    result = await _call("igraph_mount_resource", mount)
    return _answer(result, render.render_mount(result))


async def igraph_unmount_resource(
    ctx: Context,
    id: Annotated[int | None, Field(ge=1, description="Resource source id (from igraph_list_resources)")] = None,
    path: Annotated[
        str | None, Field(max_length=4096, description="Repository-relative path of the mounted file")
    ] = None,
    repo: RepoFirst = None,
) -> Annotated[CallToolResult, UnmountResult]:
    """Detach a mounted document or schema, by id or by path (give exactly one)."""
    if (id is None) == (path is None):
        raise ToolError("give exactly one of 'id' or 'path'; igraph_list_resources shows both")
    target = str(id) if id is not None else str(path)
    unmount = partial(_workspace(ctx).unmount_for, target, repo=repo, access=current_access())
    result = await _call("igraph_unmount_resource", unmount)
    return _answer(result, render.render_unmount(result))


async def igraph_list_resources(ctx: Context, repo: RepoAll = None) -> Annotated[CallToolResult, ResourceList]:
    """List mounted documents and schemas: ids, types, chunk counts, and whether the file is missing."""
    listed = partial(_workspace(ctx).resources_for, repo, access=current_access())
    result = await _call("igraph_list_resources", listed)
    return _answer(result, render.render_resources(result))


_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_TOOLS: list[tuple[Callable[..., Any], str, ToolAnnotations]] = [
    (igraph_explore, "Explore the code for a question", _READ_ONLY),
    (igraph_node, "Symbol details", _READ_ONLY),
    (igraph_file, "File outline", _READ_ONLY),
    (igraph_related, "Callers and callees", _READ_ONLY),
    (igraph_status, "Index status", _READ_ONLY),
    (igraph_list_resources, "List mounted resources", _READ_ONLY),
    (
        igraph_index,
        "Build or update the index",
        ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False),
    ),
    (
        igraph_mount_resource,
        "Mount a PRD or DB schema",
        ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False),
    ),
    (
        igraph_unmount_resource,
        "Unmount a resource",
        ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False),
    ),
]


# -- server --------------------------------------------------------------------------------------------------
def _startup_instructions(workspace: WorkspaceState) -> str:
    state = workspace.primary
    try:
        status = state.service.status() if state.has_index else None
    except IGraphError as exc:
        log.warning("index not readable at start: %s", exc)
        text = build_instructions(None, auto_indexing=False, watching=state.watch, problem=str(exc))
    else:
        text = build_instructions(status, auto_indexing=state.auto_index, watching=state.watch)
    if workspace.workspace.multi:
        text += (
            f"\n\nThis server answers over {len(workspace.workspace)} repositories: "
            f"{', '.join(workspace.workspace.names)} (the first is described above). igraph_explore searches all "
            "of them and labels every hit with its `repo`; every tool takes `repo` to name one."
        )
    return text


def create_server(state: ServerState | WorkspaceState) -> MCPServer[Workspace]:
    """The MCP server for one repository or a workspace; the roots are fixed by the state's services and no tool
    can change them (a workspace's ``repo`` argument only picks one of its own repositories)."""
    workspace = state if isinstance(state, WorkspaceState) else WorkspaceState.of(state)

    @asynccontextmanager
    async def lifespan(_: MCPServer[Workspace]) -> AsyncIterator[Workspace]:
        workspace.attach()
        try:
            yield workspace.workspace  # the one object the tools call
        finally:
            workspace.detach()

    drop = () if workspace.workspace.multi else ("repo",)  # one repository: nothing to choose (S6)
    tools: list[Tool] = [_StrictTool.strict(fn, title, ann, drop) for fn, title, ann in _TOOLS]
    return MCPServer(
        SERVER_NAME,
        title="igraph code graph",
        version=__version__,
        instructions=_startup_instructions(workspace),
        tools=tools,
        lifespan=lifespan,
        log_level="WARNING",
    )


def serve(args: argparse.Namespace, *, started: ServerState | WorkspaceState | None = None) -> int:
    """`igraph-mcp serve`: stdio by default, or streamable HTTP / legacy SSE with bind and token checks.

    ``started``: the state ``open_state(args)`` made and attached already (its background work running)."""
    from igraph_mcp.access import access_log
    from igraph_mcp.errors import ConfigError
    from igraph_mcp.tokens import TokenTable
    from igraph_mcp.transport import bind_refusal, http_token, run_http, tokens_file

    token = http_token()
    table = TokenTable(env_token=token, path=tokens_file(getattr(args, "tokens", None)))
    if args.transport != "stdio":
        refused = bind_refusal(args.host, allow_remote=args.allow_remote, token=token, tokens_file=table.path)
        if refused is not None:
            sys.stderr.write(f"igraph-mcp: {refused}\n")
            return 2
        try:
            table.load()  # a missing or malformed token file stops the start; later ones keep the last good table
        except ConfigError as exc:
            sys.stderr.write(f"igraph-mcp: {exc}\n")
            return 2
        access_log.setLevel(logging.INFO)  # one line per call on stderr, whatever -v says
    roots = workspace_roots(args.root, getattr(args, "workspace", None))
    state = started if started is not None else open_state(args)
    server = create_server(state)
    repos = [Repository(name=r.name, path=str(r.root)) for r in roots]
    if args.transport == "stdio":
        try:
            server.run()
        finally:
            if started is not None:
                started.detach()
        return 0
    state.attach()  # HTTP: one runtime for all sessions, started before the first connection
    try:
        run_http(
            server,
            transport=args.transport,
            host=args.host,
            port=args.port,
            tokens=table,
            repo=repos[0],
            repos=repos,
            log_queries=getattr(args, "log_queries", False),
        )
    finally:
        state.detach()
    return 0
