"""What the kept row counts must equal at any committed state: the rows counted now."""

from __future__ import annotations

from typing import Any

from igraph_mcp.store import counts as count_store


def live_counts(db: Any) -> tuple[dict[str, int], dict[str, int]]:
    """(status's edge counts, resolved edges by kind) counted from the rows."""
    bound = int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NOT NULL"))
    unbound = int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NULL"))
    kinds = {
        str(k): int(n) for k, n in db.rows("SELECT kind, count(*) FROM edges WHERE target_id IS NOT NULL GROUP BY kind")
    }
    return {"edges": bound, "unresolvedRefs": unbound}, kinds


def assert_counts_exact(db: Any) -> None:
    """The kept counts (status, index totals) equal count(*) of the rows."""
    counts, kinds = live_counts(db)
    kept = count_store.counts(db)
    assert {"edges": kept["edges"], "unresolvedRefs": kept["unresolvedRefs"]} == counts
    assert count_store.edge_kind_counts(db) == kinds
    assert kept["files"] == int(db.scalar("SELECT count(*) FROM files"))
    assert kept["symbols"] == int(db.scalar("SELECT count(*) FROM nodes WHERE kind NOT IN ('module', 'part')"))
