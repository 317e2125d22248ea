"""SQL for edges: references written with their nodes, bound by the resolver, and walked by retrieval."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import batches, placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import (
    EDGE_COLUMNS,
    AmbiguousEdge,
    BaseRef,
    EdgeBinding,
    EdgeRow,
    NewEdge,
    NewEdgeRow,
    NodeBaseRef,
    RefToResolve,
)


def insert_edges(con: WriteConnection, rows: Iterable[NewEdge]) -> None:
    """Insert edges; one bound at insertion (`contains`) is certain, a reference waits for the resolver."""
    # Confidence is computed here, not in SQL: PostgreSQL cannot type a bare `? IS NULL` parameter.
    con.db.bulk.insert_edges(con, (NewEdgeRow(*row, 0.0 if row.target_id is None else 1.0) for row in rows))


def set_candidates(con: WriteConnection, rows: Sequence[tuple[str, int]]) -> None:
    """Replace ambiguous edges' candidate lists: (candidates JSON, edge id)."""
    con.executemany("UPDATE edges SET candidates = ? WHERE id = ?", rows)


def set_edge_targets(con: WriteConnection, rows: Iterable[EdgeBinding]) -> None:
    """Bind edges to their resolved targets (or record why they stay unbound), with confidence and candidates."""
    # In edge id order, the updates walk the table's b-tree front to back instead of jumping around it.
    rows = sorted(rows, key=lambda b: b.edge_id)
    con.db.bulk.bind_edges(con, rows)


def defer_binding_indexes(con: WriteConnection) -> bool:
    """Before a build that binds every edge writes into an empty edges table: the bulk writer may set the indexes
    ``rebinding_every_edge`` rebuilds aside until then; True if it did."""
    return con.db.bulk.defer_binding_indexes(con)


def rebinding_every_edge(con: WriteConnection) -> AbstractContextManager[None]:
    """Around binding every edge again: the bulk writer may set the indexes on the binding aside meanwhile, inside
    the caller's transaction, so a reader never sees the table without them."""
    return con.db.bulk.rebinding(con)


_REF_COLUMNS = (
    "e.id, e.source_id, n.file_id, e.kind, e.target_name, e.qualifier, e.target_id, e.resolution, e.confidence, "
    "e.candidates, e.arity, e.arguments"
)


# Edges the resolver binds: not `contains` (bound at insertion) nor `declares` (index/declarations.py makes those).
_REFS = (
    f"SELECT {_REF_COLUMNS} FROM edges e JOIN nodes n ON n.id = e.source_id "  # noqa: S608 - fixed columns
    "WHERE e.kind NOT IN ('contains', 'declares')"
)


def edges_to_resolve(
    db: Database, file_ids: Sequence[int], names: set[str], edge_ids: Sequence[int] = ()
) -> list[RefToResolve]:
    """Reference edges needing (re-)resolution: all from the given files, any elsewhere naming ``names``, and the
    edges ``edge_ids`` (those a re-parse or a deletion left without their target)."""
    sql = _REFS + " AND "
    out: dict[int, RefToResolve] = {}
    # By the files' node ids, so both stores walk the edges from their source index (PostgreSQL would hash-join a
    # scan of every edge to the files' nodes).
    node_ids: list[int] = []
    for chunk in batches(list(file_ids)):
        node_ids += [
            int(r[0])
            for r in db.rows(f"SELECT id FROM nodes WHERE file_id IN ({placeholders(len(chunk))})", tuple(chunk))  # noqa: S608
        ]
    for chunk in batches(node_ids):
        for r in db.rows(sql + f"e.source_id IN ({placeholders(len(chunk))})", tuple(chunk)):
            out[int(r[0])] = RefToResolve(*r)
    for some_names in batches(sorted(names)):
        for r in db.rows(sql + f"e.target_name IN ({placeholders(len(some_names))})", tuple(some_names)):
            out[int(r[0])] = RefToResolve(*r)
    for some_ids in batches(sorted(set(edge_ids))):
        for r in db.rows(sql + f"e.id IN ({placeholders(len(some_ids))})", tuple(some_ids)):
            out[int(r[0])] = RefToResolve(*r)
    return list(out.values())


def all_reference_edges(db: Database) -> list[RefToResolve]:
    """Every reference edge (a full re-resolve)."""
    return [RefToResolve(*r) for r in db.rows(_REFS)]


def reference_edge_pages(db: Database, size: int) -> Iterator[list[RefToResolve]]:
    """Every reference edge, ``size`` at a time in id order: a large tree's million references as records took
    most of the memory of a full re-resolve. A page is read after the caller wrote the bindings of the one before."""
    last = 0
    while True:
        page = [RefToResolve(*r) for r in db.rows(_REFS + " AND e.id > ? ORDER BY e.id LIMIT ?", (last, size))]
        if not page:
            return
        last = page[-1].edge_id
        yield page
        del page  # before the next page is read, so two pages are never held at once (with the caller's ``del``)


def incoming_bindings(db: Database, node_ids: Sequence[int]) -> list[EdgeBinding]:
    """The bindings of edges from other files to the given nodes (one file's): by listed ids, which both stores
    answer from the target index."""
    mine = set(node_ids)
    out: list[EdgeBinding] = []
    for chunk in batches(list(node_ids)):
        for t, how, c, cands, e, source in db.rows(
            "SELECT target_id, resolution, confidence, candidates, id, source_id FROM edges "  # noqa: S608
            f"WHERE target_id IN ({placeholders(len(chunk))})",
            tuple(chunk),
        ):
            if int(source) not in mine:
                out.append(EdgeBinding(int(t), str(how), float(c), str(cands), int(e)))
    return out


def ambiguous_candidates(db: Database, names: Sequence[str]) -> list[AmbiguousEdge]:
    """(edge id, candidates JSON) of ambiguous edges (never bound) naming one of ``names``, by the name index."""
    out: list[AmbiguousEdge] = []
    for chunk in batches(sorted(names)):
        # No `target_id IS NULL` term: SQLite would take it to the target index and walk every unbound edge
        # (1M symbols: 1.4 s for two names).
        out.extend(
            AmbiguousEdge(int(e), str(c))
            for e, c in db.rows(
                "SELECT id, candidates FROM edges WHERE resolution = 'ambiguous' "  # noqa: S608
                f"AND target_name IN ({placeholders(len(chunk))})",
                tuple(chunk),
            )
        )
    return out


def base_refs_of_nodes(db: Database, node_ids: Sequence[int]) -> list[NodeBaseRef]:
    """(class node id, base name, qualifier) of the given nodes' bases (one file's classes), in the order written."""
    out: list[tuple[int, int, str, str]] = []
    for chunk in batches(list(node_ids)):
        out.extend(
            (int(e), int(c), str(name), str(qual))
            for e, c, name, qual in db.rows(
                "SELECT id, source_id, target_name, qualifier FROM edges "  # noqa: S608 - placeholders only
                f"WHERE source_id IN ({placeholders(len(chunk))}) AND kind IN ('inherits', 'implements')",
                tuple(chunk),
            )
        )
    return [NodeBaseRef(*row[1:]) for row in sorted(out)]


def base_refs_of(db: Database, class_id: int) -> list[BaseRef]:
    """One class's [(base name, qualifier)] in the order written (base_refs for one class, by its index)."""
    rows = db.rows(
        "SELECT target_name, qualifier FROM edges WHERE source_id = ? AND kind IN ('inherits', 'implements') "
        "ORDER BY id",
        (class_id,),
    )
    return [BaseRef(str(name), str(qual)) for name, qual in rows]


def base_refs(db: Database) -> dict[int, list[BaseRef]]:
    """class node id -> [(base name, qualifier)] in the order the bases are written."""
    out: dict[int, list[BaseRef]] = {}
    for sid, name, qual in db.rows(
        "SELECT source_id, target_name, qualifier FROM edges WHERE kind IN ('inherits', 'implements') ORDER BY id"
    ):
        out.setdefault(int(sid), []).append(BaseRef(str(name), str(qual)))
    return out


def edges_of(
    db: Database, node_ids: Sequence[int], *, outgoing: bool, kinds: Sequence[str], resolved_only: bool = True
) -> list[EdgeRow]:
    """Edges leaving (outgoing) or entering the given nodes, restricted to ``kinds``."""
    col = "source_id" if outgoing else "target_id"
    out: list[EdgeRow] = []
    kind_ph = placeholders(len(kinds))
    cond = " AND target_id IS NOT NULL" if resolved_only else ""
    for chunk in batches(list(node_ids)):
        out.extend(
            EdgeRow(*r)
            for r in db.rows(
                f"SELECT {EDGE_COLUMNS} FROM edges e "  # noqa: S608
                f"WHERE {col} IN ({placeholders(len(chunk))}) AND kind IN ({kind_ph}){cond}",
                (*chunk, *kinds),
            )
        )
    return out


def first_edges_of(
    db: Database, node_ids: Sequence[int], *, outgoing: bool, kinds: Sequence[str], per_node: int, certain: float
) -> list[EdgeRow]:
    """Resolved edges leaving (outgoing) or entering the given nodes: for each node, kind and certainty (confidence
    at least ``certain`` or not), only the first ``per_node`` by the other end's id and then the edge id.

    Each group is one range of an ``edges_*_order`` index read in that order and stopped early, so a hub's
    thousands of callers stay in the database. A group with ``per_node`` edges may hold more.
    """
    col, other = ("source_id", "target_id") if outgoing else ("target_id", "source_id")
    return [EdgeRow(*r) for r in db.first_edges(col, other, node_ids, list(kinds), per_node, certain)]
