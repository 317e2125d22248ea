"""SQL for files: the rows that say what was indexed, and deleting, renaming or clearing them with their nodes."""

from __future__ import annotations

from collections.abc import Sequence

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import MAX_BOUND, batches, placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.dialect import inserted_id
from igraph_mcp.store.fts import like_literal
from igraph_mcp.store.nodes import NOT_PART
from igraph_mcp.store.records import FileRow, FileStat, FileState, NewFile


def file_states(db: Database) -> dict[str, FileState]:
    """All indexed files keyed by path."""
    return {r[1]: FileState._make(r) for r in db.rows("SELECT id, path, sha256, size, mtime_ns FROM files")}


def recorded_stats(db: Database) -> dict[str, FileStat]:
    """Every indexed file's path -> (size, mtime_ns) recorded at indexing, in one scan of the table."""
    return {path: FileStat(size, mtime) for path, size, mtime in db.rows("SELECT path, size, mtime_ns FROM files")}


def file_stats(db: Database, paths: Sequence[str]) -> dict[str, FileStat]:
    """path -> (size, mtime_ns) recorded at indexing, for the given paths that are indexed."""
    out: dict[str, FileStat] = {}
    if len(paths) > MAX_BOUND:
        # Many files: one scan of the table, not a lookup per batch of bound paths.
        wanted = set(paths)
        return {path: stat for path, stat in recorded_stats(db).items() if path in wanted}
    for chunk in batches(list(paths)):
        for path, size, mtime in db.rows(
            f"SELECT path, size, mtime_ns FROM files WHERE path IN ({placeholders(len(chunk))})",  # noqa: S608
            tuple(chunk),
        ):
            out[str(path)] = FileStat(int(size), int(mtime))
    return out


def insert_file(con: WriteConnection, file: NewFile) -> int:
    """Insert a file row and return its id."""
    return inserted_id(
        con,
        "INSERT INTO files(path, language, sha256, size, mtime_ns, line_count, parse_status, indexed_at) "
        "VALUES(?,?,?,?,?,?,?,?)",
        file,
    )


def delete_file(con: WriteConnection, file_id: int, *, vectors: bool) -> None:
    """Delete a file with its nodes, their FTS rows and vectors; edges into it become unresolved."""
    # The node ids are listed, not asked for by `IN (SELECT ...)`: PostgreSQL may plan that as a scan of every edge
    # (or text row) hash-joined to the file's nodes, the more so once a statement is prepared (100k symbols: 0.26 s).
    ids = [int(r[0]) for r in con.execute("SELECT id FROM nodes WHERE file_id = ?", (file_id,))]
    con.db.text.delete_file_nodes(con, file_id, ids)
    if vectors:
        con.execute("DELETE FROM node_vectors WHERE node_id IN (SELECT id FROM nodes WHERE file_id = ?)", (file_id,))
    # Unbind incoming edges explicitly so their resolution label does not claim a target they no longer have; the
    # file's own edges are deleted by the bulk writer (not left to the cascade) so the kept counts follow.
    for chunk in batches(ids):
        where = f"target_id IN ({placeholders(len(chunk))})"
        con.db.bulk.unbind_edges(con, where, tuple(chunk), "stale")
    for chunk in batches(ids):
        con.db.bulk.delete_edges(con, f"source_id IN ({placeholders(len(chunk))})", tuple(chunk))
    con.execute("DELETE FROM files WHERE id = ?", (file_id,))


def clear_code_tables(con: WriteConnection) -> None:
    """Empty files, nodes, edges and the node FTS index (a full rebuild; vectors are the caller's choice)."""
    con.db.text.clear_nodes(con)
    con.db.bulk.clear_edges(con)
    con.execute("DELETE FROM facts")
    con.execute("DELETE FROM nodes")
    con.execute("DELETE FROM files")


def rename_file(con: WriteConnection, file_id: int, new_path: str, mtime_ns: int) -> None:
    """Move a file whose content did not change: its nodes and vectors are kept, paths updated."""
    con.execute("UPDATE files SET path = ?, mtime_ns = ? WHERE id = ?", (new_path, mtime_ns, file_id))
    # A part's text row has no path (index/parts.py): only the symbols' rows name it.
    symbols = f"SELECT id FROM nodes WHERE file_id = ? AND {NOT_PART}"  # noqa: S608 - a fixed condition
    con.db.text.set_path(con, file_id, new_path, symbols)
    # The embedded text names the path: forget the hashes so the vectors are refreshed (node ids stay).
    con.execute("UPDATE nodes SET embed_hash = NULL WHERE file_id = ?", (file_id,))


def rename_module_node(con: WriteConnection, file_id: int, name: str, qualified_name: str, words: str) -> None:
    """Give a renamed file's module node the name its new path implies, in the table and in FTS."""
    con.execute(
        "UPDATE nodes SET name = ?, qualified_name = ? WHERE file_id = ? AND kind = 'module'",
        (name, qualified_name, file_id),
    )
    con.db.text.rename_module(con, file_id, name, qualified_name, words)


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
            f"SELECT path FROM files WHERE path = ? OR path {db.like} ? ESCAPE '\\' "  # noqa: S608
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


def file_language_ids(db: Database) -> dict[int, str]:
    """file id -> language."""
    return {int(r[0]): str(r[1]) for r in db.rows("SELECT id, language FROM files")}
