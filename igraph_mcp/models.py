"""Result shapes shared by the service, the CLI (--json) and the MCP tools' output schemas.

Field names are camelCase because they are the wire format (IGraph-compatible) and the `search --json` contract.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from igraph_mcp.vocab.skips import SkippedPath


class ResultShape(BaseModel):
    """A result shape, built on first use: one command needs a few of them, and building every one at import cost
    ~30 ms of a cold CLI call."""

    model_config = ConfigDict(defer_build=True)


def _unlabelled(value: str | None) -> bool:
    return value is None


class _NotStructured:
    """Marks a field that MCP structuredContent leaves out (igraph_mcp.structured): the answer's text holds it, or
    it is a debug figure. The CLI's --json keeps every field."""

    def __repr__(self) -> str:
        return "NOT_STRUCTURED"


NOT_STRUCTURED = _NotStructured()


# The repository a result belongs to, in a server over several repositories (a workspace). Left out of the wire
# form when unset, so the answers of a one-repository server stay exactly what they were.
RepoLabel = Annotated[
    str | None,
    Field(exclude_if=_unlabelled, description="The repository (its workspace name) this comes from"),
]


class Hit(ResultShape):
    """A ranked symbol."""

    repo: RepoLabel = None
    nodeId: int
    name: str
    qualifiedName: str
    kind: str
    filePath: str
    startLine: int
    endLine: int
    signature: Annotated[str, NOT_STRUCTURED] = ""  # the text shows it, or the snippet that starts with it
    score: float
    matchChannel: Annotated[str, NOT_STRUCTURED] = Field(
        description="Which channels found it: 'dense+fts5', 'dense' or 'fts5' ('named', 'graph' or 'linked' "
        "when only the lookup of names the query mentions, their call graph, or a link to lines found it; see ranks)"
    )
    ranks: Annotated[dict[str, int], NOT_STRUCTURED] = Field(
        default_factory=dict, description="Rank (from 1) in each channel that found it"
    )
    boosts: list[str] = Field(default_factory=list, description="Boosts applied after fusion")
    docstring: Annotated[str, NOT_STRUCTURED] = ""
    snippet: Annotated[str, NOT_STRUCTURED] = ""
    partLines: list[int] | None = Field(
        None,
        description="[start, end] of the part of a long definition that matched (the snippet shows that part)",
    )
    stale: bool = Field(False, description="The file changed on disk since it was indexed")
    # A declaration folded into this implementation ('' when there is none).
    declaredAt: str = Field("", description="path:line of its declaration (.d.ts, interface...)")
    declaredSignature: str = Field("", description="The declaration's signature")
    alsoAt: list[str] = Field(
        default_factory=list,
        description="path:line of other definitions of its name (not hits): in other files, or wrappers calling it",
    )


class FileHit(ResultShape):
    """A ranked file (aggregated from its symbols)."""

    repo: RepoLabel = None
    filePath: str
    score: Annotated[float, NOT_STRUCTURED]  # the list's order says it; a fusion figure, not a probability


class Neighbour(ResultShape):
    """A symbol reached from a hit along same-side edges (callees of callees, callers of callers)."""

    repo: RepoLabel = None
    nodeId: int
    name: str
    qualifiedName: str
    kind: str
    filePath: str
    startLine: int
    endLine: int
    signature: Annotated[str, NOT_STRUCTURED] = ""
    score: Annotated[float, NOT_STRUCTURED]  # the list's order and the distance say it
    viaNodeId: int = Field(description="The node it hangs off: the hit at distance 1, else one at distance-1")
    viaName: str
    edgeKind: str = Field(description="calls, inherits, implements or imports")
    direction: str = Field(description="'callee' (via uses it) or 'caller' (it uses via); via's side too")
    distance: int
    resolution: Annotated[str, NOT_STRUCTURED] = Field("", description="How the edge from via was resolved")
    certain: bool = Field(True, description="False when an edge on the way is a name-only guess")


class ResourceHit(ResultShape):
    """A mounted PRD section or DB table attached to the answer."""

    repo: RepoLabel = None
    resourceId: int
    kind: str
    title: str
    headingPath: list[str]
    sourceName: str
    sourcePath: str
    startLine: int = 0
    endLine: int = 0
    score: float
    reason: str = Field(description="'linked' (via code in this answer) or 'direct' (matched the query itself)")
    linkedVia: list[str] = Field(default_factory=list, description="Code this resource is linked to, with method")
    text: str = ""
    columns: list[dict[str, str]] = Field(default_factory=list)


class Diagnostics(ResultShape):
    """How the answer was produced."""

    channels: list[str] = Field(default_factory=list)
    degraded: Annotated[bool, NOT_STRUCTURED] = False  # the answer's own degraded and note say it
    note: Annotated[str | None, NOT_STRUCTURED] = None
    fallbackTriggered: bool = False
    denseCoverage: float | None = None
    candidates: Annotated[dict[str, int], NOT_STRUCTURED] = Field(default_factory=dict)
    timingsMs: Annotated[dict[str, float], NOT_STRUCTURED] = Field(default_factory=dict)
    staleFiles: list[str] = Field(default_factory=list)
    resourceNote: str | None = None


class ExploreResult(ResultShape):
    """The answer to one explore/search call."""

    query: Annotated[str, NOT_STRUCTURED]  # the caller's own words, possibly a whole issue
    degraded: bool = False
    note: str | None = None
    hits: list[Hit] = Field(default_factory=list)
    files: list[FileHit] = Field(default_factory=list)
    neighbours: list[Neighbour] = Field(default_factory=list)
    resources: list[ResourceHit] = Field(default_factory=list)
    diagnostics: Diagnostics = Field(default_factory=Diagnostics)
    truncated: bool = False
    budgetNote: str | None = None


class EdgeRef(ResultShape):
    """One end of an edge as shown in node details."""

    nodeId: int | None
    name: str
    qualifiedName: str = ""
    kind: str = ""
    filePath: str = Field("", description="Where the other end is defined ('' when the reference is unbound)")
    line: int = Field(0, description="The other end's definition line (0 when unbound)")
    callSite: str = Field("", description="file:line of the call or reference, in the caller's file")
    edgeKind: str
    resolution: str
    confidence: Annotated[float, NOT_STRUCTURED] = Field(
        0.0, description="How sure the binding is (0 for an unbound reference)"
    )
    certain: bool = Field(False, description="Bound by scope, import or inferred type, not guessed by name")
    candidates: list[str] = Field(default_factory=list, description="What an ambiguous reference may mean")


class NodeSummary(ResultShape):
    """Location of a symbol, used for candidates and file outlines."""

    repo: RepoLabel = None
    nodeId: int
    name: str
    qualifiedName: str
    kind: str
    filePath: str
    startLine: int
    endLine: int
    signature: Annotated[str, NOT_STRUCTURED] = ""


class NodeDetail(ResultShape):
    """Everything about one symbol (igraph_node)."""

    repo: RepoLabel = None
    found: bool
    message: str | None = None
    node: NodeSummary | None = None
    docstring: Annotated[str, NOT_STRUCTURED] = ""
    source: Annotated[str, NOT_STRUCTURED] = ""
    sourceTruncated: bool = False
    callers: list[EdgeRef] = Field(default_factory=list)
    callees: list[EdgeRef] = Field(default_factory=list)
    bases: list[EdgeRef] = Field(default_factory=list)
    candidates: list[NodeSummary] = Field(default_factory=list)
    stale: bool = False


class SkippedFile(ResultShape):
    """A file the last index run skipped: why, and what showed it."""

    path: str
    reason: str
    detail: str = ""

    @classmethod
    def of(cls, skip: SkippedPath) -> SkippedFile:
        """The wire form of one skip (vocab/skips.py)."""
        return cls(path=skip.path, reason=skip.reason, detail=skip.detail)


class FileDetail(ResultShape):
    """A file's outline (igraph_file)."""

    repo: RepoLabel = None
    found: bool
    message: str | None = None
    filePath: str | None = None
    language: str | None = None
    lines: int = 0
    parseStatus: str | None = None
    symbols: list[NodeSummary] = Field(default_factory=list)
    imports: list[str] = Field(default_factory=list)
    candidates: list[str] = Field(default_factory=list)
    stale: bool = False
    skipped: SkippedFile | None = Field(None, description="why the last index run skipped it")


class RelatedResult(ResultShape):
    """Callers and/or callees of a symbol, several hops out (igraph_related)."""

    repo: RepoLabel = None
    found: bool
    message: str | None = None
    node: NodeSummary | None = None
    related: list[Neighbour] = Field(default_factory=list)
    candidates: list[NodeSummary] = Field(default_factory=list)
    truncated: bool = False
    omitted: int = Field(0, description="symbols reached but not listed (at least this many); see message")


class PhaseTiming(ResultShape):
    """One phase of an index run: how far it got and how long it took."""

    phase: str
    done: int
    total: int
    seconds: float


class BuildActivity(ResultShape):
    """What the live holder of a repository's writer lock (this process or another) recorded it is doing."""

    phase: str
    done: int
    total: int
    rate: float = Field(0.0, description="items of this phase per second so far (vectors/s while embedding)")
    secondsLeft: float | None = Field(None, description="estimate at the current rate; None until measured")
    pid: int
    host: str = ""
    since: float = Field(0.0, description="when the holder took the lock (Unix time)")

    @classmethod
    def measured(
        cls, *, phase: str, done: int, total: int, rate: float, pid: int, host: str = "", since: float = 0.0
    ) -> BuildActivity:
        """A record with ``secondsLeft`` worked out from the rate (None before any item was timed)."""
        left = max(total - done, 0)
        seconds = round(left / rate, 1) if rate > 0 else None
        return cls(
            phase=phase,
            done=done,
            total=total,
            rate=round(rate, 2),
            secondsLeft=seconds,
            pid=pid,
            host=host,
            since=since,
        )


def _absent(value: object) -> bool:
    return value is None


class IndexResult(ResultShape):
    """Summary of an index run (the indexer fills it in as it goes)."""

    repo: RepoLabel = None
    files: int = 0
    symbols: int = 0
    edges: int = 0
    added: int = 0
    modified: int = 0
    deleted: int = 0
    renamed: int = 0
    unchanged: int = 0
    parsed: int = 0
    parseErrors: int = 0
    rebound: int = Field(0, description="reference edges bound again (all of them after a deletion or a rename)")
    parseWorkers: int = Field(1, description="processes that parsed the changed files (1 = the indexer alone)")
    skipped: dict[str, int] = Field(default_factory=dict)
    skippedFiles: list[SkippedFile] = Field(default_factory=list, description="the first 20, by reason")
    skippedFilesTotal: int = 0
    embedded: int = 0
    embedReused: int = 0
    embedNote: str | None = None
    seconds: float = Field(0.0, description="wall time of the whole run")
    phases: dict[str, float] = Field(
        default_factory=dict, description="seconds per phase, in order: scan, parse, resolve, embed, link"
    )
    dryRun: bool = False
    reparsedPaths: list[str] = Field(default_factory=list)
    recoveredFrom: str | None = None


class StatusResult(ResultShape):
    """State of the index (igraph_status)."""

    repo: RepoLabel = None
    root: str
    indexed: bool
    files: int = 0
    symbols: int = 0
    edges: int = 0
    unresolvedRefs: int = 0
    edgeKinds: dict[str, int] = Field(default_factory=dict)
    languages: dict[str, int] = Field(default_factory=dict)
    embedder: str | None = None
    embedderDimension: int | None = None
    denseCoverage: float = 0.0
    vectors: int = 0
    lastBuild: float | None = None
    schemaVersion: int | None = None
    resources: int = 0
    resourceSources: int = 0
    staleFiles: list[str] = Field(default_factory=list)
    staleCount: int = 0
    skipped: dict[str, int] = Field(default_factory=dict, description="files the last index run skipped, by reason")
    skippedFiles: list[SkippedFile] = Field(default_factory=list)
    dbBytes: int = 0
    store: str | None = None  # where the index lives: the SQLite file, or the store URL (never its password)
    phases: list[PhaseTiming] = Field(default_factory=list)  # of the running build, else the last one here
    # The running build of whichever process holds the writer lock (a resume, igraph_index, a CLI run, a watcher).
    activity: BuildActivity | None = Field(None, exclude_if=_absent)
    notes: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
