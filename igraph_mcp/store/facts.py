"""SQL for facts: what a scope states about its names (an assignment's type, a decorator...), for the resolver."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import batches, placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import NodeFact, ScopeFact


def insert_facts(con: WriteConnection, rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Insert facts (node_id, name, kind, text) a scope states about its names."""
    con.db.bulk.insert_facts(con, rows)


def facts_by_node(db: Database) -> dict[int, list[ScopeFact]]:
    """scope node id -> [(name, kind, text)] in source order."""
    out: dict[int, list[ScopeFact]] = {}
    for nid, name, kind, text in db.rows("SELECT node_id, name, kind, text FROM facts ORDER BY id"):
        out.setdefault(int(nid), []).append(ScopeFact(str(name), str(kind), str(text)))
    return out


def facts_of_node(db: Database, node_id: int) -> list[ScopeFact]:
    """One scope's facts [(name, kind, text)] in source order (facts_by_node for one node, by its index)."""
    rows = db.rows("SELECT name, kind, text FROM facts WHERE node_id = ? ORDER BY id", (node_id,))
    return [ScopeFact(str(name), str(kind), str(text)) for name, kind, text in rows]


def facts_of_nodes(db: Database, node_ids: Sequence[int]) -> list[NodeFact]:
    """(scope node id, name, kind, text) of the facts of the given scopes (one file's nodes, read before it is
    re-parsed: index/interface.py), in insertion order."""
    out: list[tuple[int, int, str, str, str]] = []
    for chunk in batches(list(node_ids)):
        out.extend(
            (int(i), int(n), str(name), str(kind), str(text))
            for i, n, name, kind, text in db.rows(
                f"SELECT id, node_id, name, kind, text FROM facts WHERE node_id IN ({placeholders(len(chunk))})",  # noqa: S608
                tuple(chunk),
            )
        )
    return [NodeFact(*row[1:]) for row in sorted(out)]
