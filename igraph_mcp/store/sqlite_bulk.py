"""The SQLite bulk writer: one prepared statement run for every row (``executemany``) by the single writer.

Its edge writes keep the edge counts (store/sqlite_counts.py): each adds what it changed with one statement.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from igraph_mcp.store import sqlite_counts
from igraph_mcp.store.backend import BulkWriter, WriteConnection
from igraph_mcp.store.bind import placeholders
from igraph_mcp.store.records import EdgeBinding, NewEdgeRow, NewImport

# Indexes on what a binding changes. Rebinding every edge of a large repository spent more time keeping them up to
# date row by row than building them afresh (sympy 1.1.1, ~200k reference edges, loaded machine: 3.1 s of CPU
# against 1.4 s).
_BINDING_INDEXES = ("edges_source_order", "edges_target_order", "edges_target_name")
# Set aside with them before a first build, though a binding never changes it: the name index. Only an incremental
# pass looks edges up by name, so a first build's inserts kept it up to date for nothing until the binding's end.
_FIRST_BUILD_INDEXES = (*_BINDING_INDEXES, "edges_name_all")
_DEFERRED_META = "deferred_binding_indexes"  # meta key: JSON name -> schema text, while set aside


class ExecuteManyWriter(BulkWriter):
    """Rows by ``executemany`` inside the writer's transaction."""

    def reserve_node_ids(self, con: WriteConnection, n: int, above: int) -> list[int]:
        """The ids SQLite would give one insert after another: the single writer holds the transaction."""
        top = max(int(con.execute("SELECT coalesce(max(id), 0) FROM nodes").fetchone()[0]), above)
        return list(range(top + 1, top + 1 + n))

    def insert_nodes(self, con: WriteConnection, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert (id, *NewNode) rows."""
        con.executemany(
            "INSERT INTO nodes(id, file_id, parent_id, kind, name, qualified_name, signature, docstring, body, "
            "start_line, end_line, start_byte, end_byte, exported, declaration, min_args, max_args) "
            "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )

    def insert_edges(self, con: WriteConnection, rows: Iterable[NewEdgeRow]) -> None:
        """Insert edges with their confidence, counting them as they go by."""
        tally = sqlite_counts.EdgeTally()

        def counted() -> Iterator[NewEdgeRow]:
            for row in rows:
                tally.add(row.kind, row.target_id is not None)
                yield row

        con.executemany(
            "INSERT INTO edges(source_id, target_id, kind, target_name, qualifier, resolution, line, arity, "
            "arguments, confidence) VALUES(?,?,?,?,?,?,?,?,?,?)",
            counted(),
        )
        sqlite_counts.apply(con, tally)

    def delete_edges(self, con: WriteConnection, where: str, params: Sequence[Any]) -> None:
        """Delete the edges matching ``where``, taking them off the counts."""
        tally = sqlite_counts.EdgeTally()
        gone = con.execute(f"DELETE FROM edges WHERE {where} RETURNING kind, target_id IS NOT NULL", params)  # noqa: S608
        sqlite_counts.tally_rows(gone, tally, sign=-1)
        sqlite_counts.apply(con, tally)

    def unbind_edges(self, con: WriteConnection, where: str, params: Sequence[Any], resolution: str) -> None:
        """Set the edges matching ``where`` (all bound) unbound, labelled ``resolution``, off the resolved counts."""
        tally = sqlite_counts.EdgeTally()
        for (kind,) in con.execute(
            f"UPDATE edges SET target_id = NULL, resolution = ? WHERE ({where}) AND target_id IS NOT NULL "  # noqa: S608
            "RETURNING kind",
            (resolution, *params),
        ):
            tally.bound[str(kind)] -= 1
        sqlite_counts.apply(con, tally)

    def clear_edges(self, con: WriteConnection) -> None:
        """Delete every edge; every count is 0."""
        con.execute("DELETE FROM edges")
        sqlite_counts.clear(con)

    def insert_imports(self, con: WriteConnection, rows: Iterable[NewImport]) -> None:
        """Insert imports."""
        con.executemany("INSERT INTO imports(file_id, module, name, alias, line) VALUES(?,?,?,?,?)", rows)

    def insert_facts(self, con: WriteConnection, rows: Iterable[tuple[int, str, str, str]]) -> None:
        """Insert facts."""
        con.executemany("INSERT INTO facts(node_id, name, kind, text) VALUES(?,?,?,?)", rows)

    def bind_edges(self, con: WriteConnection, rows: list[EdgeBinding]) -> None:
        """One UPDATE per edge; the resolved counts move by what the rows bound less what they unbound (the listed
        edges' resolved edges by kind before and after: two reads by id)."""
        if not rows:
            return
        listed = json.dumps([b.edge_id for b in rows])
        tally = sqlite_counts.EdgeTally()
        tally.bound.subtract(sqlite_counts.bound_by_kind(con, listed))
        con.executemany(
            "UPDATE edges SET target_id = ?, resolution = ?, confidence = ?, candidates = ? WHERE id = ?", rows
        )
        tally.bound.update(sqlite_counts.bound_by_kind(con, listed))
        sqlite_counts.apply(con, tally)

    def defer_binding_indexes(self, con: WriteConnection) -> bool:
        """Drops the binding's indexes and the name index while the edges table is empty, keeping their schema text
        in the meta table until ``rebinding`` builds them again: a first build binds every edge, so they were kept up
        to date row by row only to be dropped there (OpenJDK's java.base: 1.6 s of CPU to insert 350k edges with
        them, 0.7 s without). A run that dies before binding leaves ``resolve_pending`` set, and the next one binds
        every edge."""
        if con.execute("SELECT 1 FROM edges LIMIT 1").fetchone() is not None:
            return False
        found = _present_indexes(con, _FIRST_BUILD_INDEXES)
        if not found:
            return False
        deferred = {**_deferred_indexes(con), **found}
        _set_deferred(con, deferred)
        for name in found:
            con.execute(f'DROP INDEX "{name}"')
        return True

    @contextmanager
    def rebinding(self, con: WriteConnection) -> Iterator[None]:
        """Drops the indexes on the binding and builds them again from their own schema text at the end (with any
        ``defer_binding_indexes`` set aside), inside the caller's transaction, so a reader never sees the table
        without them (left as they were on an error: the caller's transaction rolls back)."""
        found = _present_indexes(con, _BINDING_INDEXES)
        deferred = _deferred_indexes(con)
        for name in found:
            con.execute(f'DROP INDEX "{name}"')
        yield
        for sql in {**deferred, **found}.values():
            con.execute(sql)
        if deferred:
            con.execute("DELETE FROM meta WHERE key = ?", (_DEFERRED_META,))


def _present_indexes(con: WriteConnection, names: tuple[str, ...]) -> dict[str, str]:
    """name -> schema text of those of ``names`` the table has now."""
    found = (
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' "  # noqa: S608 - placeholders only
        f"AND name IN ({placeholders(len(names))})"
    )
    return {str(name): str(sql) for name, sql in con.execute(found, names)}


def _deferred_indexes(con: WriteConnection) -> dict[str, str]:
    """name -> schema text of the binding's indexes ``defer_binding_indexes`` set aside and not yet built again."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", (_DEFERRED_META,)).fetchone()
    return dict(json.loads(row[0])) if row is not None and row[0] else {}


def _set_deferred(con: WriteConnection, indexes: dict[str, str]) -> None:
    con.execute(
        "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (_DEFERRED_META, json.dumps(indexes)),
    )
