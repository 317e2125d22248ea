"""SQL for nodes: the symbols of each file (a module node first) and the parts of long definitions, written in
batches under reserved ids and read by id, name or file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import batches, placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.dialect import inserted_id
from igraph_mcp.store.records import NewNode, NodeRow, PartSpan, SymbolKey
from igraph_mcp.vocab.languages import PART_KIND

# Parts of long definitions (index/parts.py) are nodes for search only: every listing, count and name lookup of
# symbols leaves them out.
NOT_PART = f"kind != '{PART_KIND}'"


_NODE_COLUMNS = (
    "n.id, n.file_id, f.path, n.kind, n.name, n.qualified_name, n.signature, n.docstring, "
    "n.start_line, n.end_line, n.parent_id, n.exported, n.declaration"
)


def _node(row: Sequence[Any]) -> NodeRow:
    return NodeRow(*row[:11], bool(row[11]), bool(row[12]))  # type: ignore[call-arg]  # 13 typed fields from one SQL row


def insert_node(con: WriteConnection, node: NewNode) -> int:
    """Insert one node and return its id."""
    return inserted_id(
        con,
        "INSERT INTO nodes(file_id, parent_id, kind, name, qualified_name, signature, docstring, body, "
        "start_line, end_line, start_byte, end_byte, exported, declaration, min_args, max_args) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        node,
    )


def reserve_node_ids(con: WriteConnection, n: int, *, above: int = 0) -> list[int]:
    """``n`` fresh node ids, ascending and greater than ``above``, for ``insert_nodes`` (inside the writer's
    transaction)."""
    if n <= 0:
        return []
    return con.db.bulk.reserve_node_ids(con, n, above)


def insert_nodes(con: WriteConnection, ids: Sequence[int], nodes: Sequence[NewNode]) -> None:
    """Insert nodes under ids from ``reserve_node_ids``, in one batch."""
    rows = [(nid, *node) for nid, node in zip(ids, nodes, strict=True)]
    con.db.bulk.insert_nodes(con, rows)


def nodes_by_ids(db: Database, ids: Sequence[int]) -> dict[int, NodeRow]:
    """Fetch symbols by id (a part's id finds nothing: see ``part_spans``)."""
    out: dict[int, NodeRow] = {}
    for chunk in batches(list(ids)):
        for r in db.rows(
            f"SELECT {_NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id "  # noqa: S608 - placeholders only
            f"WHERE n.id IN ({placeholders(len(chunk))}) AND n.{NOT_PART}",
            tuple(chunk),
        ):
            out[int(r[0])] = _node(r)
    return out


def nodes_named(db: Database, name: str, limit: int = 50) -> list[NodeRow]:
    """Nodes whose name or qualified name equals ``name`` (qualified first)."""
    return [
        _node(r)
        for r in db.rows(
            f"SELECT {_NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id "  # noqa: S608
            f"WHERE (n.qualified_name = ? OR (n.name = ? AND n.kind != 'module')) AND n.{NOT_PART} "
            "ORDER BY (n.qualified_name = ?) DESC, f.path, n.start_line LIMIT ?",
            (name, name, name, limit),
        )
    ]


def name_counts(db: Database, names: Sequence[str]) -> dict[str, int]:
    """name -> number of (non-module) symbols with that name, for the given names."""
    if not names:
        return {}
    return {
        str(n): int(c)
        for n, c in db.rows(
            f"SELECT name, count(*) FROM nodes WHERE kind != 'module' AND {NOT_PART} "  # noqa: S608
            f"AND name IN ({placeholders(len(names))}) "
            "GROUP BY name",
            tuple(names),
        )
    }


def nodes_in_file(db: Database, file_id: int) -> list[NodeRow]:
    """All symbols of one file in source order."""
    return [
        _node(r)
        for r in db.rows(
            f"SELECT {_NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id "  # noqa: S608
            f"WHERE n.file_id = ? AND n.{NOT_PART} ORDER BY n.start_line, n.id",
            (file_id,),
        )
    ]


def definitions_at_lines(db: Database, file_id: int, start: int, end: int, limit: int = 5) -> list[NodeRow]:
    """The definitions of one file (modules and parts left out) that hold line ``start`` or ``end`` or lie within
    them, innermost (fewest lines) first: what a link to those lines points at."""
    return [
        _node(r)
        for r in db.rows(
            f"SELECT {_NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id "  # noqa: S608
            f"WHERE n.file_id = ? AND n.{NOT_PART} AND n.kind != 'module' AND ("
            "(n.start_line <= ? AND n.end_line >= ?) OR (n.start_line <= ? AND n.end_line >= ?) "
            "OR (n.start_line >= ? AND n.end_line <= ?)) "
            "ORDER BY n.end_line - n.start_line, n.start_line, n.id LIMIT ?",
            (file_id, start, start, end, end, start, end, limit),
        )
    ]


def node_bodies(db: Database, ids: Sequence[int]) -> dict[int, str]:
    """Stored (bounded) source text of nodes (parts included: a hit's snippet may come from its matching part)."""
    out: dict[int, str] = {}
    for chunk in batches(list(ids)):
        for nid, body in db.rows(
            f"SELECT id, body FROM nodes WHERE id IN ({placeholders(len(chunk))})",  # noqa: S608 - placeholders only
            tuple(chunk),
        ):
            out[int(nid)] = str(body)
    return out


def part_spans(db: Database, ids: Sequence[int]) -> dict[int, PartSpan]:
    """Of some node ids, those of parts: part id -> its definition and lines (a channel's hits mapped back)."""
    out: dict[int, PartSpan] = {}
    for chunk in batches(list(ids)):
        for nid, owner, start, end in db.rows(
            "SELECT id, parent_id, start_line, end_line FROM nodes "  # noqa: S608 - placeholders only
            f"WHERE id IN ({placeholders(len(chunk))}) AND kind = '{PART_KIND}'",
            tuple(chunk),
        ):
            out[int(nid)] = PartSpan(int(owner), int(start), int(end))
    return out


# A SymbolKey's columns, in its field order.
_SYMBOL_COLUMNS = "id, file_id, kind, name, qualified_name, parent_id, min_args, max_args, declaration"
_SYMBOL_COLUMNS_N = ", ".join(f"n.{c}" for c in _SYMBOL_COLUMNS.split(", "))


def symbol_table(db: Database) -> list[SymbolKey]:
    """Every symbol as the resolver sees it."""
    rows = db.rows(f"SELECT {_SYMBOL_COLUMNS} FROM nodes WHERE {NOT_PART}")  # noqa: S608
    return list(map(SymbolKey._make, rows))


def file_symbols(db: Database, file_id: int) -> list[SymbolKey]:
    """One file's nodes as the resolver sees them, in id order (symbol_table for one file, by its index)."""
    rows = db.rows(
        f"SELECT {_SYMBOL_COLUMNS} FROM nodes WHERE file_id = ? AND {NOT_PART} "  # noqa: S608
        "ORDER BY id",
        (file_id,),
    )
    return list(map(SymbolKey._make, rows))


def symbols_named(db: Database, name: str) -> list[SymbolKey]:
    """The non-module nodes called ``name`` as the resolver sees them, by file path, then id (by the name index)."""
    rows = db.rows(
        f"SELECT {_SYMBOL_COLUMNS_N} FROM nodes n "  # noqa: S608
        f"JOIN files f ON f.id = n.file_id WHERE n.name = ? AND n.kind != 'module' AND n.{NOT_PART} "
        "ORDER BY f.path, n.id",
        (name,),
    )
    return list(map(SymbolKey._make, rows))


def node_file(db: Database, node_id: int) -> int | None:
    """The file id of one node, or None when there is no such node."""
    row = db.one("SELECT file_id FROM nodes WHERE id = ?", (node_id,))
    return int(row[0]) if row is not None else None


def names_in_files(db: Database, file_ids: Sequence[int]) -> set[str]:
    """Simple names defined in the given files."""
    out: set[str] = set()
    for chunk in batches(list(file_ids)):
        out.update(
            str(r[0])
            for r in db.rows(
                f"SELECT DISTINCT name FROM nodes WHERE file_id IN ({placeholders(len(chunk))}) AND {NOT_PART}",  # noqa: S608
                tuple(chunk),
            )
        )
    return out
