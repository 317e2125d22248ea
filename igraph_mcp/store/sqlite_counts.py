"""Counts of a SQLite index's references, kept by the store's edge writes in the writer's transaction.

Status reports the resolved edges by kind and the unresolved ones. Counting them reads an index of every edge:
at 87k symbols (750k edges) the bound / unbound counts and the count by kind took 160 ms of a status call, and
they grow with the tree (4.2M edges at 1M symbols). Each edge write of the SQLite bulk writer (store/sqlite_bulk.py)
adds what it inserted, deleted or re-bound to the counters with one statement per batch, so a rolled-back write
leaves the counts as they were and reading them costs a few rows. Row triggers did the same one row at a time and
tripled the edge writes of a 15k-file Java tree (schema 9; schema 10 drops them). Files and nodes are not counted
here: count(*) of a table reads its smallest index's pages and stays under a millisecond at 87k nodes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from igraph_mcp.store.backend import WriteConnection

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


_TRIGGERS = ("count_edges_insert", "count_edges_delete", "count_bound_insert", "count_bound_delete")
_UPDATE_TRIGGERS = ("count_bound_unset", "count_bound_set")

# Schema 10: the triggers go (the writes keep the counts); the counts are taken again once.
DDL_V10: list[str] = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in (*_TRIGGERS, *_UPDATE_TRIGGERS)),
    "DELETE FROM row_counts",
    *DDL[1:3],
]


class EdgeTally:
    """What one batch of edge writes changed: edges added (or, negative, removed) and resolved edges by kind."""

    __slots__ = ("bound", "total")

    def __init__(self) -> None:
        self.total = 0
        self.bound: Counter[str] = Counter()

    def add(self, kind: str, bound: bool, n: int = 1) -> None:
        """Count ``n`` edges of ``kind`` (negative: removed), resolved or not."""
        self.total += n
        if bound:
            self.bound[kind] += n


def tally_rows(rows: Iterable[tuple[Any, ...]], tally: EdgeTally, *, sign: int) -> None:
    """Add (kind, bound) rows to ``tally``: +1 each (``sign`` 1) or -1 each (``sign`` -1)."""
    for kind, bound in rows:
        tally.add(str(kind), bool(bound), sign)


def apply(con: WriteConnection, tally: EdgeTally) -> None:
    """Add a batch's changes to the kept counts, in the caller's transaction."""
    names = [(EDGES, tally.total)] if tally.total else []
    names += [(BOUND_PREFIX + kind, n) for kind, n in sorted(tally.bound.items()) if n]
    # One row per statement: a statement that may write several rows opens a statement savepoint, and FTS5 answers
    # every savepoint by flushing its pending rows as a new segment (once per file written: 2.4 s of a 3,100-file
    # Java build).
    con.executemany(
        "INSERT INTO row_counts(name, n) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET n = n + excluded.n", names
    )


def bound_by_kind(con: WriteConnection, edge_ids_json: str) -> Counter[str]:
    """Resolved edges by kind among the edges listed (a JSON array of ids)."""
    rows = con.execute(
        "SELECT kind, count(*) FROM edges WHERE id IN (SELECT value FROM json_each(?)) AND target_id IS NOT NULL "
        "GROUP BY kind",
        (edge_ids_json,),
    )
    return Counter({str(kind): int(n) for kind, n in rows})


def clear(con: WriteConnection) -> None:
    """Every edge is gone: every count is 0."""
    con.execute("UPDATE row_counts SET n = 0")


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
