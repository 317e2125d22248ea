"""Turning stored rows into the result models every front shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from igraph_mcp.models import Neighbour, NodeSummary
from igraph_mcp.retrieve.expand import Reached
from igraph_mcp.store import nodes as node_store
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


def neighbours(db: Database, reached: Sequence[Reached], seed_names: Mapping[int, str]) -> list[Neighbour]:
    """Result models for nodes reached by expansion, each naming the node it hangs off: a seed (named by
    ``seed_names``) or another of ``reached``, one hop nearer."""
    rows = node_store.nodes_by_ids(db, [r.node_id for r in reached])
    names = {**seed_names, **{i: row.qualified_name or row.name for i, row in rows.items()}}
    out: list[Neighbour] = []
    for r in reached:  # best first, so the node each one hangs off comes before it
        row = rows.get(r.node_id)
        if row is None or r.via not in names:  # gone since it was reached (or hangs off one that is)
            names.pop(r.node_id, None)
            continue
        out.append(
            Neighbour(
                **location(row),
                score=round(r.score, 6),
                viaNodeId=r.via,
                viaName=names[r.via],
                edgeKind=r.edge_kind,
                direction=r.direction,
                distance=r.distance,
                resolution=r.resolution,
                certain=r.certain,
            )
        )
    return out
