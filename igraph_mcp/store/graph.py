"""SQL for files, nodes, edges, imports and the node FTS index."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from igraph_mcp.store import pg_counts, pg_text
from igraph_mcp.store.bind import batches, placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.dialect import (
    POSTGRESQL,
    SQLITE,
    WriteConnection,
    connection_dialect,
    inserted_id,
    like_operator,
)
from igraph_mcp.store.fts import NODE_BM25_WEIGHTS, fts_or_query, fts_terms, like_literal
from igraph_mcp.store.records import (
    EdgeBinding,
    EdgeRow,
    FileRow,
    FileState,
    NewEdge,
    NewFile,
    NewImport,
    NewNode,
    NodeRow,
    NodeText,
    PartSpan,
    RefToResolve,
    SymbolKey,
)
from igraph_mcp.vocab.languages import PART_KIND

# Parts of long definitions (index/parts.py) are nodes for search only: every listing, count and name lookup of
# symbols leaves them out.
_NOT_PART = f"kind != '{PART_KIND}'"

_NODE_COLUMNS = (
    "n.id, n.file_id, f.path, n.kind, n.name, n.qualified_name, n.signature, n.docstring, "
    "n.start_line, n.end_line, n.parent_id, n.exported, n.declaration"
)


def _node(row: Sequence[Any]) -> NodeRow:
    return NodeRow(*row[:11], bool(row[11]), bool(row[12]))  # type: ignore[call-arg]  # 13 typed fields from one SQL row


# -- files ---------------------------------------------------------------------------------------------------
def file_states(db: Database) -> dict[str, FileState]:
    """All indexed files keyed by path."""
    return {r[1]: FileState._make(r) for r in db.rows("SELECT id, path, sha256, size, mtime_ns FROM files")}


def file_stats(db: Database, paths: Sequence[str]) -> dict[str, tuple[int, int]]:
    """path -> (size, mtime_ns) recorded at indexing, for the given paths that are indexed."""
    out: dict[str, tuple[int, int]] = {}
    for chunk in batches(list(paths)):
        for path, size, mtime in db.rows(
            f"SELECT path, size, mtime_ns FROM files WHERE path IN ({placeholders(len(chunk))})",  # noqa: S608
            tuple(chunk),
        ):
            out[str(path)] = (int(size), int(mtime))
    return out


def insert_file(con: WriteConnection, file: NewFile) -> int:
    """Insert a file row and return its id."""
    return inserted_id(
        con,
        "INSERT INTO files(path, language, sha256, size, mtime_ns, line_count, parse_status, indexed_at) "
        "VALUES(?,?,?,?,?,?,?,?) RETURNING id",
        file,
    )


def delete_file(con: WriteConnection, file_id: int, *, vectors: bool) -> None:
    """Delete a file with its nodes, their FTS rows and vectors; edges into it become unresolved."""
    # The node ids are listed, not asked for by `IN (SELECT ...)`: PostgreSQL may plan that as a scan of every edge
    # (or text row) hash-joined to the file's nodes, the more so once a statement is prepared (100k symbols: 0.26 s).
    ids = [int(r[0]) for r in con.execute("SELECT id FROM nodes WHERE file_id = ?", (file_id,))]
    if connection_dialect(con) == POSTGRESQL:
        pg_text.delete_rows(con, pg_text.NODE_TEXT, "SELECT unnest(?::bigint[])", (ids,))
    else:
        con.execute("DELETE FROM nodes_fts WHERE rowid IN (SELECT id FROM nodes WHERE file_id = ?)", (file_id,))
    if vectors:
        con.execute("DELETE FROM node_vectors WHERE node_id IN (SELECT id FROM nodes WHERE file_id = ?)", (file_id,))
    # Unbind incoming edges explicitly so their resolution label does not claim a target they no longer have.
    for chunk in batches(ids):
        con.execute(
            "UPDATE edges SET target_id = NULL, resolution = 'stale' "  # noqa: S608 - placeholders only
            f"WHERE target_id IN ({placeholders(len(chunk))})",
            tuple(chunk),
        )
    con.execute("DELETE FROM files WHERE id = ?", (file_id,))


def clear_code_tables(con: WriteConnection) -> None:
    """Empty files, nodes, edges and the node FTS index (a full rebuild; vectors are the caller's choice)."""
    if connection_dialect(con) == POSTGRESQL:
        pg_text.clear(con, pg_text.NODE_TEXT)
    else:
        con.execute("DELETE FROM nodes_fts")
    con.execute("DELETE FROM edges")
    con.execute("DELETE FROM facts")
    con.execute("DELETE FROM nodes")
    con.execute("DELETE FROM files")


def rename_file(con: WriteConnection, file_id: int, new_path: str, mtime_ns: int) -> None:
    """Move a file whose content did not change: its nodes and vectors are kept, paths updated."""
    con.execute("UPDATE files SET path = ?, mtime_ns = ? WHERE id = ?", (new_path, mtime_ns, file_id))
    # A part's text row has no path (index/parts.py): only the symbols' rows name it.
    symbols = f"SELECT id FROM nodes WHERE file_id = ? AND {_NOT_PART}"  # noqa: S608 - a fixed condition
    if connection_dialect(con) == POSTGRESQL:
        pg_text.update_rows(con, pg_text.NODE_TEXT, {"path": new_path}, symbols, (file_id,))
    else:
        con.execute(f"UPDATE nodes_fts SET path = ? WHERE rowid IN ({symbols})", (new_path, file_id))  # noqa: S608
    # The embedded text names the path: forget the hashes so the vectors are refreshed (node ids stay).
    con.execute("UPDATE nodes SET embed_hash = NULL WHERE file_id = ?", (file_id,))


def rename_module_node(con: WriteConnection, file_id: int, name: str, qualified_name: str, words: str) -> None:
    """Give a renamed file's module node the name its new path implies, in the table and in FTS."""
    con.execute(
        "UPDATE nodes SET name = ?, qualified_name = ? WHERE file_id = ? AND kind = 'module'",
        (name, qualified_name, file_id),
    )
    if connection_dialect(con) == POSTGRESQL:
        pg_text.update_rows(
            con,
            pg_text.NODE_TEXT,
            {"name": name, "qualified_name": qualified_name, "words": words},
            "SELECT id FROM nodes WHERE file_id = ? AND kind = 'module'",
            (file_id,),
        )
        return
    con.execute(
        "UPDATE nodes_fts SET name = ?, qualified_name = ?, words = ? "
        "WHERE rowid IN (SELECT id FROM nodes WHERE file_id = ? AND kind = 'module')",
        (name, qualified_name, words, file_id),
    )


def touch_file(con: WriteConnection, file_id: int, mtime_ns: int) -> None:
    """Record a new mtime for a file whose content hash did not change."""
    con.execute("UPDATE files SET mtime_ns = ? WHERE id = ?", (mtime_ns, file_id))


def file_row(db: Database, path: str) -> FileRow | None:
    """One indexed file, or None."""
    r = db.one(
        "SELECT id, path, language, sha256, size, line_count, parse_status, indexed_at FROM files WHERE path = ?",
        (path,),
    )
    if r is None:
        return None
    return FileRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4]), int(r[5]), str(r[6]), float(r[7]))


def file_paths_with_suffix(db: Database, suffix: str, limit: int = 20) -> list[str]:
    """Indexed paths equal to ``suffix`` or ending in ``/suffix``."""
    like = "%/" + like_literal(suffix)
    return [
        r[0]
        for r in db.rows(
            f"SELECT path FROM files WHERE path = ? OR path {like_operator(db.dialect)} ? ESCAPE '\\' "  # noqa: S608
            "ORDER BY length(path), path LIMIT ?",
            (suffix, like, limit),
        )
    ]


def file_paths(db: Database) -> dict[int, str]:
    """file id -> path for every file."""
    return {int(r[0]): str(r[1]) for r in db.rows("SELECT id, path FROM files")}


def file_languages(db: Database) -> dict[str, int]:
    """language -> file count."""
    return {str(r[0]): int(r[1]) for r in db.rows("SELECT language, count(*) FROM files GROUP BY language")}


# -- nodes ---------------------------------------------------------------------------------------------------
def insert_node(con: WriteConnection, node: NewNode) -> int:
    """Insert one node and return its id."""
    return inserted_id(
        con,
        "INSERT INTO nodes(file_id, parent_id, kind, name, qualified_name, signature, docstring, body, "
        "start_line, end_line, start_byte, end_byte, exported, declaration) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
        "RETURNING id",
        node,
    )


def _pg_bulk() -> ModuleType:
    """The PostgreSQL bulk writer, imported on first use (it needs psycopg, which a SQLite install lacks)."""
    from igraph_mcp.store import pg_bulk

    return pg_bulk


def reserve_node_ids(con: WriteConnection, n: int, *, above: int = 0) -> list[int]:
    """``n`` fresh node ids, ascending and greater than ``above``, for ``insert_nodes`` (inside the writer's
    transaction)."""
    if n <= 0:
        return []
    if connection_dialect(con) == SQLITE:
        # The ids SQLite would give one insert after another: the single writer holds the transaction.
        top = max(int(con.execute("SELECT coalesce(max(id), 0) FROM nodes").fetchone()[0]), above)
        return list(range(top + 1, top + 1 + n))
    rows = con.execute(
        "SELECT nextval(pg_get_serial_sequence('nodes', 'id')) FROM generate_series(1, ?)", (n,)
    ).fetchall()
    return sorted(int(r[0]) for r in rows)


def insert_nodes(con: WriteConnection, ids: Sequence[int], nodes: Sequence[NewNode]) -> None:
    """Insert nodes under ids from ``reserve_node_ids``, in one batch."""
    rows = [(nid, *node) for nid, node in zip(ids, nodes, strict=True)]
    if connection_dialect(con) == POSTGRESQL:
        _pg_bulk().copy_rows(con, "nodes", ("id", *NewNode._fields), rows)
        return
    con.executemany(
        "INSERT INTO nodes(id, file_id, parent_id, kind, name, qualified_name, signature, docstring, body, "
        "start_line, end_line, start_byte, end_byte, exported, declaration) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )


def insert_fts(con: WriteConnection, rows: Iterable[NodeText]) -> None:
    """Insert the FTS rows of new nodes."""
    if connection_dialect(con) == POSTGRESQL:
        pg_text.insert_rows(con, pg_text.NODE_TEXT, rows)
        return
    con.executemany(
        "INSERT INTO nodes_fts(rowid, name, words, qualified_name, path, signature, docstring, body) "
        "VALUES(?,?,?,?,?,?,?,?)",
        rows,
    )


def nodes_by_ids(db: Database, ids: Sequence[int]) -> dict[int, NodeRow]:
    """Fetch symbols by id (a part's id finds nothing: see ``part_spans``)."""
    out: dict[int, NodeRow] = {}
    for chunk in batches(list(ids)):
        for r in db.rows(
            f"SELECT {_NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id "  # noqa: S608 - placeholders only
            f"WHERE n.id IN ({placeholders(len(chunk))}) AND n.{_NOT_PART}",
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
            f"WHERE (n.qualified_name = ? OR (n.name = ? AND n.kind != 'module')) AND n.{_NOT_PART} "
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
            f"SELECT name, count(*) FROM nodes WHERE kind != 'module' AND {_NOT_PART} "  # noqa: S608
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
            f"WHERE n.file_id = ? AND n.{_NOT_PART} ORDER BY n.start_line, n.id",
            (file_id,),
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


def symbol_table(db: Database) -> list[SymbolKey]:
    """Every symbol as the resolver sees it."""
    rows = db.rows(f"SELECT id, file_id, kind, name, qualified_name, parent_id FROM nodes WHERE {_NOT_PART}")  # noqa: S608
    return list(map(SymbolKey._make, rows))


def file_symbols(db: Database, file_id: int) -> list[SymbolKey]:
    """One file's nodes as the resolver sees them, in id order (symbol_table for one file, by its index)."""
    rows = db.rows(
        f"SELECT id, file_id, kind, name, qualified_name, parent_id FROM nodes WHERE file_id = ? AND {_NOT_PART} "  # noqa: S608
        "ORDER BY id",
        (file_id,),
    )
    return list(map(SymbolKey._make, rows))


def symbols_named(db: Database, name: str) -> list[SymbolKey]:
    """The non-module nodes called ``name`` as the resolver sees them, by file path, then id (by the name index)."""
    rows = db.rows(
        "SELECT n.id, n.file_id, n.kind, n.name, n.qualified_name, n.parent_id FROM nodes n "  # noqa: S608
        f"JOIN files f ON f.id = n.file_id WHERE n.name = ? AND n.kind != 'module' AND n.{_NOT_PART} "
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
                f"SELECT DISTINCT name FROM nodes WHERE file_id IN ({placeholders(len(chunk))}) AND {_NOT_PART}",  # noqa: S608
                tuple(chunk),
            )
        )
    return out


# -- edges and imports ----------------------------------------------------------------------------------------
def insert_edges(con: WriteConnection, rows: Iterable[NewEdge]) -> None:
    """Insert edges; one bound at insertion (`contains`) is certain, a reference waits for the resolver."""
    # Confidence is computed here, not in SQL: PostgreSQL cannot type a bare `? IS NULL` parameter.
    values = ((*row, 0.0 if row.target_id is None else 1.0) for row in rows)
    if connection_dialect(con) == POSTGRESQL:
        _pg_bulk().copy_rows(con, "edges", (*NewEdge._fields, "confidence"), values)
        return
    con.executemany(
        "INSERT INTO edges(source_id, target_id, kind, target_name, qualifier, resolution, line, confidence) "
        "VALUES(?,?,?,?,?,?,?,?)",
        values,
    )


def insert_imports(con: WriteConnection, rows: Iterable[NewImport]) -> None:
    """Insert a file's imports."""
    if connection_dialect(con) == POSTGRESQL:
        _pg_bulk().copy_rows(con, "imports", NewImport._fields, rows)
        return
    con.executemany("INSERT INTO imports(file_id, module, name, alias, line) VALUES(?,?,?,?,?)", rows)


def imports_by_file(db: Database) -> dict[int, list[tuple[str, str, str]]]:
    """file id -> [(module, name, alias)]."""
    out: dict[int, list[tuple[str, str, str]]] = {}
    for fid, module, name, alias in db.rows("SELECT file_id, module, name, alias FROM imports"):
        out.setdefault(int(fid), []).append((str(module), str(name), str(alias)))
    return out


# `x contains y` as each store spells it (a plain substring test, case kept: cheaper than LIKE's patterns).
_CONTAINS = {SQLITE: "instr({0}, ?) > 0", POSTGRESQL: "strpos({0}, ?) > 0"}


def imports_mentioning(db: Database, words: Sequence[str]) -> dict[int, list[tuple[str, str, str]]]:
    """file id -> [(module, name, alias)] of the imports whose module or name contains one of ``words``, and the
    relative ones (module starting with ".") of files whose path contains one: one scan instead of every row."""
    out: dict[int, list[tuple[str, str, str]]] = {}
    seen: set[int] = set()
    contains = _CONTAINS[db.dialect]
    path = "(SELECT f.path FROM files f WHERE f.id = i.file_id)"  # asked only of relative imports
    for chunk in batches(list(words), 100):
        clause = " OR ".join(
            f"{contains.format('i.module')} OR {contains.format('i.name')} "
            f"OR (substr(i.module, 1, 1) = '.' AND {contains.format(path)})"
            for _ in chunk
        )
        params = tuple(p for w in chunk for p in (w, w, w))
        for iid, fid, module, name, alias in db.rows(
            f"SELECT i.id, i.file_id, i.module, i.name, i.alias FROM imports i WHERE {clause} ORDER BY i.id",  # noqa: S608
            params,
        ):
            if iid not in seen:
                seen.add(iid)
                out.setdefault(int(fid), []).append((str(module), str(name), str(alias)))
    return out


_REF_COLUMNS = (
    "e.id, e.source_id, n.file_id, e.kind, e.target_name, e.qualifier, e.target_id, e.resolution, e.confidence, "
    "e.candidates"
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


# -- one file as other files see it (index/interface.py), read before it is re-parsed ------------------------
def facts_of_nodes(db: Database, node_ids: Sequence[int]) -> list[tuple[int, str, str, str]]:
    """(scope node id, name, kind, text) of the facts of the given scopes (one file's nodes), in insertion order."""
    out: list[tuple[int, int, str, str, str]] = []
    for chunk in batches(list(node_ids)):
        out.extend(
            (int(i), int(n), str(name), str(kind), str(text))
            for i, n, name, kind, text in db.rows(
                f"SELECT id, node_id, name, kind, text FROM facts WHERE node_id IN ({placeholders(len(chunk))})",  # noqa: S608
                tuple(chunk),
            )
        )
    return [row[1:] for row in sorted(out)]


def imports_in_file(db: Database, file_id: int) -> list[tuple[str, str, str]]:
    """(module, name, alias) of one file's imports, in insertion order."""
    rows = db.rows("SELECT module, name, alias FROM imports WHERE file_id = ? ORDER BY id", (file_id,))
    return [(str(m), str(n), str(a)) for m, n, a in rows]


def base_refs_of_nodes(db: Database, node_ids: Sequence[int]) -> list[tuple[int, str, str]]:
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
    return [row[1:] for row in sorted(out)]


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


def ambiguous_candidates(db: Database, names: Sequence[str]) -> list[tuple[int, str]]:
    """(edge id, candidates JSON) of ambiguous edges (never bound) naming one of ``names``, by the name index."""
    out: list[tuple[int, str]] = []
    for chunk in batches(sorted(names)):
        # No `target_id IS NULL` term: SQLite would take it to the target index and walk every unbound edge
        # (1M symbols: 1.4 s for two names).
        out.extend(
            (int(e), str(c))
            for e, c in db.rows(
                "SELECT id, candidates FROM edges WHERE resolution = 'ambiguous' "  # noqa: S608
                f"AND target_name IN ({placeholders(len(chunk))})",
                tuple(chunk),
            )
        )
    return out


def set_candidates(con: WriteConnection, rows: Sequence[tuple[str, int]]) -> None:
    """Replace ambiguous edges' candidate lists: (candidates JSON, edge id)."""
    con.executemany("UPDATE edges SET candidates = ? WHERE id = ?", rows)


def import_fan_in(db: Database, path_prefix: str) -> dict[str, int]:
    """path -> how many other files have an import bound into it, for every file under ``path_prefix``."""
    like = like_literal(path_prefix) + "%"
    rows = db.rows(
        f"SELECT f.path, count(DISTINCT s.file_id) FROM files f "  # noqa: S608 - the operator only
        "LEFT JOIN nodes t ON t.file_id = f.id "
        "LEFT JOIN edges e ON e.target_id = t.id AND e.kind = 'imports' "
        "LEFT JOIN nodes s ON s.id = e.source_id AND s.file_id != f.id "
        f"WHERE f.path {like_operator(db.dialect)} ? ESCAPE '\\' GROUP BY f.path",
        (like,),
    )
    return {str(path): int(n) for path, n in rows}


def all_reference_edges(db: Database) -> list[RefToResolve]:
    """Every reference edge (a full re-resolve)."""
    return [RefToResolve(*r) for r in db.rows(_REFS)]


# Indexes on what a binding changes. Rebinding every edge of a large repository spent more time keeping them up to
# date row by row than building them afresh (sympy 1.1.1, ~200k reference edges, loaded machine: 3.1 s of CPU
# against 1.4 s).
_BINDING_INDEXES = ("edges_source_order", "edges_target_order", "edges_target_name")


def set_edge_targets(con: WriteConnection, rows: Iterable[EdgeBinding], *, bulk: bool = False) -> None:
    """Bind edges to their resolved targets (or record why they stay unbound), with confidence and candidates.

    ``bulk`` (rebinding all edges) drops the indexes on the binding first and rebuilds them from their own schema
    text afterwards, inside the caller's transaction, so a reader never sees the table without them.
    """
    # In edge id order, the updates walk the table's b-tree front to back instead of jumping around it.
    rows = sorted(rows, key=lambda b: b.edge_id)
    if connection_dialect(con) == POSTGRESQL:
        # DROP INDEX would lock readers out of the table until commit: the indexes stay, the rows come by COPY.
        _pg_bulk().rebind_edges(con, rows)
        return
    found = (
        f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ({placeholders(len(_BINDING_INDEXES))})"  # noqa: S608
    )
    indexes = list(con.execute(found, _BINDING_INDEXES)) if bulk else []
    for name, _sql in indexes:
        con.execute(f'DROP INDEX "{name}"')
    con.executemany("UPDATE edges SET target_id = ?, resolution = ?, confidence = ?, candidates = ? WHERE id = ?", rows)
    for _name, sql in indexes:
        con.execute(sql)


def insert_facts(con: WriteConnection, rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Insert facts (node_id, name, kind, text) a scope states about its names."""
    if connection_dialect(con) == POSTGRESQL:
        _pg_bulk().copy_rows(con, "facts", ("node_id", "name", "kind", "text"), rows)
        return
    con.executemany("INSERT INTO facts(node_id, name, kind, text) VALUES(?,?,?,?)", rows)


def facts_by_node(db: Database) -> dict[int, list[tuple[str, str, str]]]:
    """scope node id -> [(name, kind, text)] in source order."""
    out: dict[int, list[tuple[str, str, str]]] = {}
    for nid, name, kind, text in db.rows("SELECT node_id, name, kind, text FROM facts ORDER BY id"):
        out.setdefault(int(nid), []).append((str(name), str(kind), str(text)))
    return out


def facts_of_node(db: Database, node_id: int) -> list[tuple[str, str, str]]:
    """One scope's facts [(name, kind, text)] in source order (facts_by_node for one node, by its index)."""
    rows = db.rows("SELECT name, kind, text FROM facts WHERE node_id = ? ORDER BY id", (node_id,))
    return [(str(name), str(kind), str(text)) for name, kind, text in rows]


def base_refs_of(db: Database, class_id: int) -> list[tuple[str, str]]:
    """One class's [(base name, qualifier)] in the order written (base_refs for one class, by its index)."""
    rows = db.rows(
        "SELECT target_name, qualifier FROM edges WHERE source_id = ? AND kind IN ('inherits', 'implements') "
        "ORDER BY id",
        (class_id,),
    )
    return [(str(name), str(qual)) for name, qual in rows]


def base_refs(db: Database) -> dict[int, list[tuple[str, str]]]:
    """class node id -> [(base name, qualifier)] in the order the bases are written."""
    out: dict[int, list[tuple[str, str]]] = {}
    for sid, name, qual in db.rows(
        "SELECT source_id, target_name, qualifier FROM edges WHERE kind IN ('inherits', 'implements') ORDER BY id"
    ):
        out.setdefault(int(sid), []).append((str(name), str(qual)))
    return out


def file_language_ids(db: Database) -> dict[int, str]:
    """file id -> language."""
    return {int(r[0]): str(r[1]) for r in db.rows("SELECT id, language FROM files")}


# An EdgeRow's columns, in its field order, of `edges e`.
_EDGE_COLUMNS = (
    "e.id, e.source_id, e.target_id, e.kind, e.target_name, e.qualifier, e.resolution, e.line, e.confidence, "
    "e.candidates"
)


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
                f"SELECT {_EDGE_COLUMNS} FROM edges e "  # noqa: S608
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
    kinds = list(kinds)
    out: list[EdgeRow] = []
    if db.dialect == POSTGRESQL:
        # One statement: per (node, kind) a LATERAL index range per certainty class, then the rows by id.
        group = (
            f"CROSS JOIN LATERAL (SELECT id FROM edges WHERE {col} = s.node AND kind = k.kind "  # noqa: S608
            f"AND target_id IS NOT NULL AND confidence {{op}} ? ORDER BY {other}, id LIMIT ?) x"
        )
        sql = " UNION ALL ".join(
            f"SELECT {_EDGE_COLUMNS} FROM unnest(?::bigint[]) AS s(node) CROSS JOIN unnest(?::text[]) AS k(kind) "  # noqa: S608
            f"{group.format(op=op)} JOIN edges e ON e.id = x.id"
            for op in (">=", "<")
        )
        ids = [int(n) for n in node_ids]
        rows = db.rows(sql, (ids, kinds, certain, per_node, ids, kinds, certain, per_node))
        return [EdgeRow(*r) for r in rows]
    for op in (">=", "<"):
        sql = (
            f"SELECT {_EDGE_COLUMNS} FROM edges e WHERE e.{col} = ? AND e.kind = ? AND e.target_id IS NOT NULL "  # noqa: S608
            f"AND e.confidence {op} ? ORDER BY e.{other}, e.id LIMIT ?"
        )
        for node in node_ids:
            for kind in kinds:
                out.extend(EdgeRow(*r) for r in db.rows(sql, (node, kind, certain, per_node)))
    return out


# -- FTS -------------------------------------------------------------------------------------------------------
def fts_search(
    db: Database, tokens: list[str], limit: int, weights: tuple[float, ...] = NODE_BM25_WEIGHTS
) -> list[tuple[int, float]]:
    """Rank nodes by BM25 over an OR of the quoted tokens; returns (node id, score) best first (score > 0)."""
    if db.dialect == POSTGRESQL:
        return pg_text.search(db, pg_text.NODE_TEXT, tokens, limit, weights)
    query = fts_or_query(tokens)
    if not query:
        return []
    weight_args = ",".join(str(float(w)) for w in weights)
    rows = db.rows(
        f"SELECT rowid, -bm25(nodes_fts, {weight_args}) AS s FROM nodes_fts WHERE nodes_fts MATCH ? "  # noqa: S608
        "ORDER BY bm25(nodes_fts, " + weight_args + ") LIMIT ?",
        (query, limit),
    )
    return [(int(r[0]), float(r[1])) for r in rows]


def _vocab_terms(tokens: list[str]) -> dict[str, list[str]]:
    """token -> the terms the FTS tokenizer stores for it ("café" -> ["cafe"]: diacritics removed, case folded)."""
    return {t: fts_terms(t, query=True) for t in tokens}


def _doc_counts(db: Database, terms: list[str]) -> dict[str, int]:
    """term -> FTS rows holding it, for the terms the index has (fts5vocab's 'row' table on SQLite)."""
    if db.dialect == POSTGRESQL:
        return pg_text.doc_freqs(db, pg_text.NODE_TEXT, terms)
    docs: dict[str, int] = {}
    for chunk in batches(terms):
        for term, doc in db.rows(
            f"SELECT term, doc FROM nodes_fts_vocab WHERE term IN ({placeholders(len(chunk))})",  # noqa: S608
            tuple(chunk),
        ):
            docs[str(term)] = int(doc)
    return docs


def token_doc_freqs(db: Database, tokens: list[str]) -> dict[str, int]:
    """Number of FTS rows containing each token (tokens absent from the index are left out)."""
    # The vocabulary holds tokenizer output, so look tokens up in that form, not as Python lowercased them.
    terms = _vocab_terms(tokens)
    wanted = sorted({term for ts in terms.values() for term in ts})
    docs = _doc_counts(db, wanted)
    out: dict[str, int] = {}
    for token, ts in terms.items():
        if ts and all(term in docs for term in ts):
            out[token] = min(docs[term] for term in ts)  # a phrase is no more frequent than its rarest term
    return out


# -- counts ----------------------------------------------------------------------------------------------------
def index_totals(db: Database) -> tuple[int, int, int]:
    """(files, symbols, bound edges): what an index run reports, without counting the unbound references."""
    if db.dialect == POSTGRESQL:  # the trigger-kept counts: status's own, read in one query
        kept = counts(db)
        return kept["files"], kept["symbols"], kept["edges"]
    files = int(db.scalar("SELECT count(*) FROM files", default=0))
    nodes = int(db.scalar("SELECT count(*) FROM nodes", default=0))  # one module node per file: see counts
    edges = int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NOT NULL", default=0))
    return files, nodes - files - part_count(db), edges


def part_count(db: Database) -> int:
    """How many parts of long definitions the index holds (nodes that are not symbols)."""
    if db.dialect == POSTGRESQL:
        return pg_counts.row_counts(db).get("parts", 0)
    # Read from the partial index nodes_parts, not the table.
    return int(db.scalar(f"SELECT count(*) FROM nodes WHERE kind = '{PART_KIND}'", default=0))  # noqa: S608


def counts(db: Database) -> dict[str, int]:
    """Row counts for status output."""
    if db.dialect == POSTGRESQL:
        kept = pg_counts.row_counts(db)
        return {
            "files": kept["files"],
            "symbols": kept["nodes"] - kept["files"] - kept.get("parts", 0),
            "edges": kept["bound_edges"],
            "unresolvedRefs": kept["edges"] - kept["bound_edges"],
        }
    files = int(db.scalar("SELECT count(*) FROM files", default=0))
    # Every file has exactly one module node (the indexer writes it first): counting the rows reads an index, where
    # `kind != 'module'` reads the whole table (1M symbols: 0.04 s against 1.5 s).
    nodes = int(db.scalar("SELECT count(*) FROM nodes", default=0))
    return {
        "files": files,
        "symbols": nodes - files - part_count(db),
        "edges": int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NOT NULL", default=0)),
        "unresolvedRefs": int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NULL", default=0)),
    }


def edge_kind_counts(db: Database) -> dict[str, int]:
    """Resolved edges by kind."""
    return {
        str(k): int(c) for k, c in db.rows("SELECT kind, count(*) FROM edges WHERE target_id IS NOT NULL GROUP BY kind")
    }


def imports_by_file_id(db: Database, file_id: int) -> list[tuple[str, str, str]]:
    """(module, name, alias) imported by one file, in source order."""
    return [
        (str(m), str(n), str(a))
        for m, n, a in db.rows(
            "SELECT module, name, alias FROM imports WHERE file_id = ? ORDER BY line, id", (file_id,)
        )
    ]


@dataclass(frozen=True, slots=True)
class CallSite:
    """One `calls` edge with its call site and, when bound, its target's location (for measuring the graph)."""

    edge_id: int
    path: str  # the caller's file
    line: int  # the call site's line in that file
    name: str
    qualifier: str
    resolution: str
    target_id: int | None
    target_path: str
    target_name: str
    target_kind: str
    target_start: int
    target_end: int


def definition_spans(db: Database) -> list[tuple[str, str, str, int, int]]:
    """Every definition but modules as (file path, name, kind, start line, end line), for measuring the graph."""
    return [
        (str(r[0]), str(r[1]), str(r[2]), int(r[3]), int(r[4]))
        for r in db.rows(
            "SELECT f.path, n.name, n.kind, n.start_line, n.end_line FROM nodes n JOIN files f ON f.id = n.file_id "  # noqa: S608
            f"WHERE n.kind != 'module' AND n.{_NOT_PART}"
        )
    ]


def call_sites(db: Database) -> list[CallSite]:
    """Every `calls` edge (resolved or not) in source order, with the target's file and line range."""
    return [
        CallSite(
            int(r[0]),
            str(r[1]),
            int(r[2]),
            str(r[3]),
            str(r[4]),
            str(r[5]),
            r[6],
            str(r[7] or ""),
            str(r[8] or ""),
            str(r[9] or ""),
            int(r[10] or 0),
            int(r[11] or 0),
        )
        for r in db.rows(
            "SELECT e.id, f.path, e.line, e.target_name, e.qualifier, e.resolution, e.target_id, "
            "tf.path, t.name, t.kind, t.start_line, t.end_line FROM edges e "
            "JOIN nodes s ON s.id = e.source_id JOIN files f ON f.id = s.file_id "
            "LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id "
            "WHERE e.kind = 'calls' ORDER BY f.path, e.id"
        )
    ]
