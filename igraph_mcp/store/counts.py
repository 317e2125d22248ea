"""Counts of what an index holds: for an index run's report, status and coverage figures."""

from __future__ import annotations

from igraph_mcp.store.db import Database
from igraph_mcp.store.records import IndexTotals


def index_totals(db: Database) -> IndexTotals:
    """(files, symbols, bound edges): what an index run reports, without counting the unbound references."""
    kept = db.count_rows(("files", "nodes", "parts", "bound_edges"))
    # One module node per file: see counts.
    return IndexTotals(kept["files"], kept["nodes"] - kept["files"] - kept["parts"], kept["bound_edges"])


def part_count(db: Database) -> int:
    """How many parts of long definitions the index holds (nodes that are not symbols)."""
    return db.count_rows(("parts",))["parts"]


def counts(db: Database) -> dict[str, int]:
    """Row counts for status output."""
    # Every file has exactly one module node (the indexer writes it first): symbols are the nodes less the files
    # and the parts, which the backend counts from an index or keeps counted.
    kept = db.count_rows(("files", "nodes", "parts", "bound_edges", "unbound_edges"))
    return {
        "files": kept["files"],
        "symbols": kept["nodes"] - kept["files"] - kept["parts"],
        "edges": kept["bound_edges"],
        "unresolvedRefs": kept["unbound_edges"],
    }


def edge_kind_counts(db: Database) -> dict[str, int]:
    """Resolved edges by kind."""
    return db.bound_edge_kinds()
