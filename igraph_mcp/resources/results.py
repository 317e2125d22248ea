"""Results of mount, unmount and list (field names match render.py and the MCP tools' camelCase)."""

from __future__ import annotations

from pydantic import Field

from igraph_mcp.models import RepoLabel, ResultShape


class Problem(ResultShape):
    """A part of a source that could not be read; the rest is mounted."""

    line: int
    message: str


class MountResult(ResultShape):
    """One source mounted (or re-mounted)."""

    repo: RepoLabel = None
    id: int
    name: str
    path: str = Field(description="Path relative to the repository root (absolute for an allowed directory)")
    sourceType: str = Field(description="'prd' or 'db'")
    chunks: int
    links: int = Field(default=0, description="Links from this source's chunks to code")
    replaced: bool = Field(default=False, description="The source was mounted before; the old copy was replaced")
    unchanged: bool = Field(default=False, description="Re-mounted with the same content")
    embedded: int = Field(default=0, description="Chunks embedded now")
    reusedVectors: int = Field(default=0, description="Chunks whose text was unchanged, so their vectors were kept")
    problems: list[Problem] = Field(default_factory=list)
    note: str | None = Field(default=None, description="Why vectors are missing, when they are")


class UnmountResult(ResultShape):
    """What unmount removed; ``found`` is false when nothing matched."""

    repo: RepoLabel = None
    found: bool
    id: int | None = None
    name: str | None = None
    path: str | None = None
    chunks: int = 0
    links: int = 0
    message: str


class SourceInfo(ResultShape):
    """One mounted source as listed."""

    repo: RepoLabel = None
    id: int = Field(description="Source id (0 when the source is listed in mounts.json but not in the index)")
    name: str
    path: str
    sourceType: str
    chunks: int = 0
    links: int = 0
    mountedAt: float | None = None
    missing: bool = Field(default=False, description="The file is gone from disk; the index keeps its last copy")
    changed: bool = Field(
        default=False, description="The file changed since it was mounted; the next index run updates it"
    )
    indexed: bool = Field(default=True, description="The source's chunks are in the index")
    problems: list[Problem] = Field(default_factory=list)


class ResourceList(ResultShape):
    """Every mounted source."""

    sources: list[SourceInfo] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
