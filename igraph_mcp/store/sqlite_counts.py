"""Counts of a SQLite index's references, kept by triggers in the writer's transaction.

Status reports the resolved edges by kind and the unresolved ones. Counting them reads an index of every edge:
at 87k symbols (750k edges) the bound / unbound counts and the count by kind took 160 ms of a status call, and
they grow with the tree (4.2M edges at 1M symbols). Row triggers add or take one from a counter as each edge is
written, deleted (cascades from a deleted file included) or bound, so a rolled-back write leaves the counts as
they were and reading them costs a few rows. Files and nodes are not counted here: count(*) of a table reads its
smallest index's pages and stays under a millisecond at 87k nodes.
"""

from __future__ import annotations

from typing import Any

EDGES = "edges"
BOUND_PREFIX = "bound:"  # + an edge kind: the resolved edges of that kind

_BOUND = (
    "INSERT INTO row_counts(name, n) VALUES('bound:' || {row}.kind, {delta}) "
    "ON CONFLICT(name) DO UPDATE SET n = n + {delta}"
)

# Schema 9: the counts as of now, then the triggers that keep them.
DDL: list[str] = [
    "CREATE TABLE row_counts(name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID",
    "INSERT INTO row_counts(name, n) SELECT 'edges', count(*) FROM edges",
    "INSERT INTO row_counts(name, n) SELECT 'bound:' || kind, count(*) FROM edges WHERE target_id IS NOT NULL "
    "GROUP BY kind",
    "CREATE TRIGGER count_edges_insert AFTER INSERT ON edges BEGIN "
    "UPDATE row_counts SET n = n + 1 WHERE name = 'edges'; END",
    "CREATE TRIGGER count_edges_delete AFTER DELETE ON edges BEGIN "
    "UPDATE row_counts SET n = n - 1 WHERE name = 'edges'; END",
    "CREATE TRIGGER count_bound_insert AFTER INSERT ON edges WHEN NEW.target_id IS NOT NULL BEGIN "
    f"{_BOUND.format(row='NEW', delta=1)}; END",
    "CREATE TRIGGER count_bound_delete AFTER DELETE ON edges WHEN OLD.target_id IS NOT NULL BEGIN "
    f"{_BOUND.format(row='OLD', delta=-1)}; END",
    # Binding sets target_id, a deleted target sets it back to NULL (ON DELETE SET NULL fires this too).
    "CREATE TRIGGER count_bound_unset AFTER UPDATE OF target_id, kind ON edges "
    "WHEN OLD.target_id IS NOT NULL AND (NEW.target_id IS NULL OR NEW.kind IS NOT OLD.kind) BEGIN "
    f"{_BOUND.format(row='OLD', delta=-1)}; END",
    "CREATE TRIGGER count_bound_set AFTER UPDATE OF target_id, kind ON edges "
    "WHEN NEW.target_id IS NOT NULL AND (OLD.target_id IS NULL OR NEW.kind IS NOT OLD.kind) BEGIN "
    f"{_BOUND.format(row='NEW', delta=1)}; END",
]


def edge_counts(db: Any) -> tuple[int, dict[str, int]]:
    """(all edges, resolved edges by kind) from the kept counts."""
    total = 0
    kinds: dict[str, int] = {}
    for name, n in db.rows("SELECT name, n FROM row_counts"):
        if name == EDGES:
            total = int(n)
        elif str(name).startswith(BOUND_PREFIX) and int(n):
            kinds[str(name)[len(BOUND_PREFIX) :]] = int(n)
    return total, kinds
