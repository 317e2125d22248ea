"""Counts for status answers and coverage figures."""

from __future__ import annotations

from igraph_mcp.store import pg_counts
from igraph_mcp.store.db import Database
from igraph_mcp.store.dialect import POSTGRESQL


def node_count(db: Database) -> int:
    """All nodes, module nodes included (the denominator of dense coverage; the FTS channel's N, every query)."""
    if db.dialect == POSTGRESQL:  # count(*) reads every row: 80 ms a query at 1M symbols
        return pg_counts.row_counts(db)["nodes"]
    return int(db.scalar("SELECT count(*) FROM nodes", default=0))


def resource_count(db: Database) -> int:
    """Mounted resource chunks."""
    return int(db.scalar("SELECT count(*) FROM resources", default=0))


def resource_source_count(db: Database) -> int:
    """Mounted sources (documents and schemas)."""
    return int(db.scalar("SELECT count(*) FROM resource_sources", default=0))


def has_resource_sources(db: Database) -> bool:
    """True when at least one source is mounted."""
    return db.scalar("SELECT 1 FROM resource_sources LIMIT 1") is not None


def has_resources(db: Database) -> bool:
    """True when at least one resource chunk is stored."""
    return db.scalar("SELECT 1 FROM resources LIMIT 1") is not None
