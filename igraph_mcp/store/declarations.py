"""SQL for declarations (nodes flagged ``declaration``) and the ``declares`` edges to their implementations.

A ``declares`` edge runs from a declaration to one implementation; its ``target_name`` is the shared simple name
(every link joins two nodes of one name, so a run that changed some names re-links only those), its
``resolution`` the rule that made it (index/declarations.py). The resolver never binds these edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from igraph_mcp.store import edges as edge_store
from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import batches, placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.fts import like_literal
from igraph_mcp.store.records import LinkNode, NewEdge

DECLARES = "declares"
HERITAGE = ("inherits", "implements")

_COLUMNS = "n.id, n.file_id, f.path, f.language, n.kind, n.name, n.qualified_name, n.parent_id, n.declaration"
_FROM = "FROM nodes n JOIN files f ON f.id = n.file_id"


def _link_node(r: Sequence[Any]) -> LinkNode:
    parent = None if r[7] is None else int(r[7])
    return LinkNode(int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), str(r[6]), parent, bool(r[8]))


def declarations(db: Database, names: Iterable[str] | None = None) -> list[LinkNode]:
    """The declarations called one of ``names`` (every declaration when None), by id."""
    if names is None:
        rows = db.rows(f"SELECT {_COLUMNS} {_FROM} WHERE n.declaration = 1 ORDER BY n.id")
        return [_link_node(r) for r in rows]
    out: list[LinkNode] = []
    for chunk in batches(sorted(set(names))):
        out += [
            _link_node(r)
            for r in db.rows(
                f"SELECT {_COLUMNS} {_FROM} WHERE n.declaration = 1 AND n.name IN ({placeholders(len(chunk))})",
                tuple(chunk),
            )
        ]
    return sorted(out, key=lambda n: n.id)


def nodes_named(db: Database, names: Iterable[str]) -> list[LinkNode]:
    """Every non-module node called one of ``names`` (declarations too), by id."""
    out: list[LinkNode] = []
    for chunk in batches(sorted(set(names))):
        out += [
            _link_node(r)
            for r in db.rows(
                f"SELECT {_COLUMNS} {_FROM} WHERE n.kind != 'module' AND n.name IN ({placeholders(len(chunk))})",
                tuple(chunk),
            )
        ]
    return sorted(out, key=lambda n: n.id)


def nodes_by_ids(db: Database, ids: Iterable[int]) -> dict[int, LinkNode]:
    """The given nodes."""
    out: dict[int, LinkNode] = {}
    for chunk in batches(sorted(set(ids))):
        for r in db.rows(f"SELECT {_COLUMNS} {_FROM} WHERE n.id IN ({placeholders(len(chunk))})", tuple(chunk)):
            node = _link_node(r)
            out[node.id] = node
    return out


def declared_children(db: Database, parent_ids: Iterable[int]) -> dict[int, list[LinkNode]]:
    """parent id -> its declaration members (an interface's method set), by id."""
    out: dict[int, list[LinkNode]] = {}
    for chunk in batches(sorted(set(parent_ids))):
        for r in db.rows(
            f"SELECT {_COLUMNS} {_FROM} WHERE n.declaration = 1 "
            f"AND n.parent_id IN ({placeholders(len(chunk))}) ORDER BY n.id",
            tuple(chunk),
        ):
            node = _link_node(r)
            out.setdefault(node.parent_id or 0, []).append(node)
    return out


def subtypes(db: Database, type_ids: Iterable[int]) -> dict[int, list[int]]:
    """type id -> the nodes whose bound `inherits` / `implements` edge names it, by id."""
    out: dict[int, list[int]] = {}
    for chunk in batches(sorted(set(type_ids))):
        for target, source in db.rows(
            "SELECT target_id, source_id FROM edges "  # noqa: S608 - placeholders only
            f"WHERE target_id IN ({placeholders(len(chunk))}) AND kind IN ('inherits', 'implements') "
            "ORDER BY source_id",
            tuple(chunk),
        ):
            out.setdefault(int(target), []).append(int(source))
    return out


def methods_in_directory(db: Database, directory: str) -> list[LinkNode]:
    """The implemented methods (not declarations) of the files directly in ``directory`` ("" = the root), by id."""
    if directory:
        pattern = like_literal(directory) + "/%"
        rows = db.rows(
            f"SELECT {_COLUMNS} {_FROM} WHERE f.path {db.like} ? ESCAPE '\\' "
            "AND n.kind = 'method' AND n.declaration = 0 ORDER BY n.id",
            (pattern,),
        )
    else:
        rows = db.rows(
            f"SELECT {_COLUMNS} {_FROM} WHERE f.path NOT LIKE '%/%' AND n.kind = 'method' "
            "AND n.declaration = 0 ORDER BY n.id"
        )
    nodes = [_link_node(r) for r in rows]
    cut = len(directory) + 1 if directory else 0
    return [n for n in nodes if "/" not in n.path[cut:] and n.path.startswith(directory)]


def importers(db: Database, file_ids: Iterable[int]) -> set[tuple[int, int]]:
    """(importing file, imported file) for every bound import of one of ``file_ids`` (a C file including a header)."""
    out: set[tuple[int, int]] = set()
    for chunk in batches(sorted(set(file_ids))):
        for src, dst in db.rows(
            "SELECT DISTINCT s.file_id, t.file_id FROM nodes t JOIN edges e ON e.target_id = t.id "  # noqa: S608
            "JOIN nodes s ON s.id = e.source_id "
            f"WHERE t.file_id IN ({placeholders(len(chunk))}) AND t.kind = 'module' AND e.kind = 'imports'",
            tuple(chunk),
        ):
            out.add((int(src), int(dst)))
    return out


def replace_links(
    con: WriteConnection, declaration_ids: Sequence[int] | None, links: Iterable[tuple[LinkNode, int, str]]
) -> None:
    """Drop the ``declares`` edges of the given declarations (all when None) and any left without a target, then
    insert ``links``: (declaration, implementation id, rule)."""
    if declaration_ids is None:
        con.db.bulk.delete_edges(con, "kind = ?", (DECLARES,))
    else:
        for chunk in batches(list(declaration_ids)):
            con.db.bulk.delete_edges(con, f"source_id IN ({placeholders(len(chunk))}) AND kind = ?", (*chunk, DECLARES))
        con.db.bulk.delete_edges(con, "target_id IS NULL AND kind = ?", (DECLARES,))
    # Bound at insertion (confidence 1.0), by COPY on PostgreSQL.
    edge_store.insert_edges(
        con, [NewEdge(decl.id, impl, DECLARES, decl.name, "", rule, 0) for decl, impl, rule in links]
    )


def implementations(db: Database, ids: Sequence[int]) -> dict[int, list[int]]:
    """declaration id -> its implementations' ids (in link order), for those of ``ids`` that have any; one query
    per 900 ids (the explore call asks once for all its candidates)."""
    out: dict[int, list[int]] = {}
    for chunk in batches(list(ids)):
        for src, dst in db.rows(
            "SELECT source_id, target_id FROM edges "  # noqa: S608 - placeholders only
            f"WHERE source_id IN ({placeholders(len(chunk))}) AND kind = ? AND target_id IS NOT NULL ORDER BY id",
            (*chunk, DECLARES),
        ):
            out.setdefault(int(src), []).append(int(dst))
    return out
