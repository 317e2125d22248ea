"""Aggregates for the browser view: symbols per file, edges between files, a node's edge totals, resource links.

Each query returns small typed rows; the view folds them into folders and pages them (``igraph_mcp.view``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from igraph_mcp.store.db import Database
from igraph_mcp.vocab.languages import PART_KIND

# Edge kinds that tie one file to another on the map ("contains" never leaves a file).
MAP_EDGE_KINDS = ("calls", "imports", "inherits", "implements", "references")


@dataclass(frozen=True, slots=True)
class FileSummary:
    """One indexed file with the number of symbols defined in it (its module node not counted)."""

    id: int
    path: str
    language: str
    symbols: int
    lines: int
    parse_status: str


@dataclass(frozen=True, slots=True)
class FileEdge:
    """Resolved edges of one kind from symbols of one file to symbols of another, and how many of them are certain."""

    source_file: int
    target_file: int
    kind: str
    count: int
    certain: int


@dataclass(frozen=True, slots=True)
class EdgeTotals:
    """How many callers, callees, bases and imports one symbol has in all (the view lists only the first ones)."""

    callers: int
    callees: int
    bases: int
    imports: int
    imported_by: int


@dataclass(frozen=True, slots=True)
class ResourceChunk:
    """A mounted PRD section or schema table, with its source and how many code links it has."""

    id: int
    source_name: str
    source_path: str
    source_type: str
    kind: str
    title: str
    heading_path: str
    start_line: int
    end_line: int
    links: int
    columns: str  # a schema table's columns, as stored (JSON list of {name, type, ...}); '[]' for prose


@dataclass(frozen=True, slots=True)
class ResourceLink:
    """A link from a resource chunk to a code symbol, with the score and method that made it."""

    resource_id: int
    node_id: int
    name: str
    qualified_name: str
    kind: str
    path: str
    start_line: int
    score: float
    method: str


def file_summaries(db: Database) -> list[FileSummary]:
    """Every indexed file with its symbol count, by path."""
    rows = db.rows(
        "SELECT f.id, f.path, f.language, "  # noqa: S608
        f"(SELECT count(*) FROM nodes n WHERE n.file_id = f.id AND n.kind NOT IN ('module', '{PART_KIND}')), "
        "f.line_count, f.parse_status "
        "FROM files f ORDER BY f.path"
    )
    return [FileSummary(int(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4]), str(r[5])) for r in rows]


def file_edges(db: Database, *, certain_at: float, kinds: Sequence[str] = MAP_EDGE_KINDS) -> list[FileEdge]:
    """Resolved edges between different files, counted per (source file, target file, kind).

    ``certain_at`` is the confidence from which an edge counts as certain (the resolver's threshold).
    """
    marks = ",".join("?" * len(kinds))
    rows = db.rows(
        "SELECT s.file_id, t.file_id, e.kind, count(*), count(CASE WHEN e.confidence >= ? THEN 1 END) "  # noqa: S608 - only placeholders
        "FROM edges e JOIN nodes s ON s.id = e.source_id JOIN nodes t ON t.id = e.target_id "
        f"WHERE e.target_id IS NOT NULL AND e.kind IN ({marks}) AND s.file_id != t.file_id "
        "GROUP BY s.file_id, t.file_id, e.kind",
        (certain_at, *kinds),
    )
    return [FileEdge(int(r[0]), int(r[1]), str(r[2]), int(r[3]), int(r[4] or 0)) for r in rows]


def edge_totals(db: Database, node_id: int) -> EdgeTotals:
    """All resolved callers, all calls made (bound or not), all bases, resolved imports made and received."""
    row = db.one(
        "SELECT "
        "(SELECT count(*) FROM edges WHERE target_id = ? AND kind = 'calls'), "
        "(SELECT count(*) FROM edges WHERE source_id = ? AND kind = 'calls'), "
        "(SELECT count(*) FROM edges WHERE source_id = ? AND kind IN ('inherits', 'implements')), "
        "(SELECT count(*) FROM edges WHERE source_id = ? AND kind = 'imports' AND target_id IS NOT NULL), "
        "(SELECT count(*) FROM edges WHERE target_id = ? AND kind = 'imports')",
        (node_id,) * 5,
    )
    return EdgeTotals(*(int(v) for v in row)) if row else EdgeTotals(0, 0, 0, 0, 0)


def resource_chunk_count(db: Database) -> int:
    """Mounted resource chunks in all."""
    return int(db.scalar("SELECT count(*) FROM resources", default=0))


def resource_chunks(db: Database, *, limit: int, offset: int = 0) -> list[ResourceChunk]:
    """One page of resource chunks in source and document order, each with its number of code links."""
    rows = db.rows(
        "SELECT r.id, s.name, s.path, s.source_type, r.kind, r.title, r.heading_path, r.start_line, r.end_line, "
        "(SELECT count(*) FROM resource_links l WHERE l.resource_id = r.id), r.columns "
        "FROM resources r JOIN resource_sources s ON s.id = r.source_id "
        "ORDER BY s.path, r.start_line, r.id LIMIT ? OFFSET ?",
        (limit, offset),
    )
    return [
        ResourceChunk(
            id=int(r[0]),
            source_name=str(r[1]),
            source_path=str(r[2]),
            source_type=str(r[3]),
            kind=str(r[4]),
            title=str(r[5]),
            heading_path=str(r[6]),
            start_line=int(r[7]),
            end_line=int(r[8]),
            links=int(r[9]),
            columns=str(r[10]),
        )
        for r in rows
    ]


def resource_links(db: Database, resource_ids: Sequence[int], *, per_resource: int) -> list[ResourceLink]:
    """The best ``per_resource`` code links of each given chunk, best first."""
    if not resource_ids:
        return []
    out: list[ResourceLink] = []
    for start in range(0, len(resource_ids), 500):
        chunk = list(resource_ids[start : start + 500])
        rows = db.rows(
            "SELECT resource_id, node_id, name, qualified_name, kind, path, start_line, score, method FROM ("  # noqa: S608
            "SELECT l.resource_id, l.node_id, n.name, n.qualified_name, n.kind, f.path, n.start_line, l.score, "
            "l.method, row_number() OVER (PARTITION BY l.resource_id ORDER BY l.score DESC, l.node_id) AS k "
            "FROM resource_links l JOIN nodes n ON n.id = l.node_id JOIN files f ON f.id = n.file_id "
            f"WHERE l.resource_id IN ({','.join('?' * len(chunk))})) AS ranked WHERE k <= ? ORDER BY resource_id, k",
            (*chunk, per_resource),
        )
        out.extend(
            ResourceLink(
                int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), int(r[6]), float(r[7]), str(r[8])
            )
            for r in rows
        )
    return out
