"""Counts for status answers and coverage figures, and the summary status reports, read in one call."""

from __future__ import annotations

from igraph_mcp.store.counts import counts, edge_kind_counts
from igraph_mcp.store.db import Database
from igraph_mcp.store.files import file_languages, recorded_stats
from igraph_mcp.store.records import IndexSummary
from igraph_mcp.store.skipped import skipped_counts
from igraph_mcp.store.vectors import node_vector_count


def node_count(db: Database) -> int:
    """All nodes, module nodes included (the denominator of dense coverage; the FTS channel's N, every query)."""
    return db.count_rows(("nodes",))["nodes"]


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


def index_summary(db: Database) -> IndexSummary:
    """Everything status reports of the index: counts, the embedder and its coverage, the last build, resources,
    skipped files and the index's size."""
    c = counts(db)
    dim = db.get_meta("embedder_dim")
    last = db.get_meta("last_build")
    return IndexSummary(
        files=c["files"],
        symbols=c["symbols"],
        edges=c["edges"],
        unresolved_refs=c["unresolvedRefs"],
        edge_kinds=edge_kind_counts(db),
        languages=file_languages(db),
        recorded=recorded_stats(db),
        nodes=node_count(db),
        vectors=node_vector_count(db) if db.vec_available else 0,
        embedder_id=db.get_meta("embedder_id"),
        embedder_dimension=int(dim) if dim else None,
        last_build=float(last) if last else None,
        schema_version=int(db.get_meta("schema_version", "0") or 0),
        resources=resource_count(db),
        resource_sources=resource_source_count(db),
        skipped=skipped_counts(db),
        db_bytes=db.size_bytes(),
    )
