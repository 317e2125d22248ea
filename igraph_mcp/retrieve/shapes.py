"""Turning stored rows into the result models every front shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from igraph_mcp.models import Neighbour, NodeSummary
from igraph_mcp.retrieve.expand import Reached
from igraph_mcp.store import graph
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import NodeRow


def location(row: NodeRow) -> dict[str, Any]:
    """The fields every symbol-shaped result carries (id, names, kind, file, lines, signature)."""
    return {
        "nodeId": row.id,
        "name": row.name,
        "qualifiedName": row.qualified_name,
        "kind": row.kind,
        "filePath": row.path,
        "startLine": row.start_line,
        "endLine": row.end_line,
        "signature": row.signature,
    }


def node_summary(row: NodeRow) -> NodeSummary:
    """A symbol's location as a result model."""
    return NodeSummary(**location(row))


def neighbours(db: Database, reached: Sequence[Reached], via_names: Mapping[int, str]) -> list[Neighbour]:
    """Result models for nodes reached by expansion, each naming the seed it came from."""
    rows = graph.nodes_by_ids(db, [r.node_id for r in reached])
    return [
        Neighbour(
            **location(row),
            score=round(r.score, 6),
            viaNodeId=r.via,
            viaName=via_names.get(r.via, ""),
            edgeKind=r.edge_kind,
            direction=r.direction,
            distance=r.distance,
            resolution=r.resolution,
            certain=r.certain,
        )
        for r in reached
        if (row := rows.get(r.node_id)) is not None
    ]
