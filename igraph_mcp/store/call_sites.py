"""Call sites and definition spans of a whole index, for measuring the graph (benchmarks/graph_accuracy*.py)."""

from __future__ import annotations

from dataclasses import dataclass

from igraph_mcp.store.db import Database
from igraph_mcp.store.nodes import NOT_PART
from igraph_mcp.store.records import DefinitionSpan


@dataclass(frozen=True, slots=True)
class CallSite:
    """One `calls` edge with its call site and, when bound, its target's location (for measuring the graph)."""

    edge_id: int
    path: str  # the caller's file
    line: int  # the call site's line in that file
    name: str
    qualifier: str
    resolution: str
    target_id: int | None
    target_path: str
    target_name: str
    target_kind: str
    target_start: int
    target_end: int


def definition_spans(db: Database) -> list[DefinitionSpan]:
    """Every definition but modules as (file path, name, kind, start line, end line), for measuring the graph."""
    return [
        DefinitionSpan(str(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4]))
        for r in db.rows(
            "SELECT f.path, n.name, n.kind, n.start_line, n.end_line FROM nodes n JOIN files f ON f.id = n.file_id "  # noqa: S608
            f"WHERE n.kind != 'module' AND n.{NOT_PART}"
        )
    ]


def call_sites(db: Database) -> list[CallSite]:
    """Every `calls` edge (resolved or not) in source order, with the target's file and line range."""
    return [
        CallSite(
            int(r[0]),
            str(r[1]),
            int(r[2]),
            str(r[3]),
            str(r[4]),
            str(r[5]),
            r[6],
            str(r[7] or ""),
            str(r[8] or ""),
            str(r[9] or ""),
            int(r[10] or 0),
            int(r[11] or 0),
        )
        for r in db.rows(
            "SELECT e.id, f.path, e.line, e.target_name, e.qualifier, e.resolution, e.target_id, "
            "tf.path, t.name, t.kind, t.start_line, t.end_line FROM edges e "
            "JOIN nodes s ON s.id = e.source_id JOIN files f ON f.id = s.file_id "
            "LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id "
            "WHERE e.kind = 'calls' ORDER BY f.path, e.id"
        )
    ]
