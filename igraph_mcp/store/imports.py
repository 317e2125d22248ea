"""SQL for imports: each file's import statements as the resolver reads them, and who imports whom."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import batches
from igraph_mcp.store.db import Database
from igraph_mcp.store.fts import like_literal
from igraph_mcp.store.records import ImportRef, NewImport


def insert_imports(con: WriteConnection, rows: Iterable[NewImport]) -> None:
    """Insert a file's imports."""
    con.db.bulk.insert_imports(con, rows)


def imports_by_file(db: Database) -> dict[int, list[ImportRef]]:
    """file id -> [(module, name, alias)]."""
    out: dict[int, list[ImportRef]] = {}
    for fid, module, name, alias in db.rows("SELECT file_id, module, name, alias FROM imports"):
        out.setdefault(int(fid), []).append(ImportRef(str(module), str(name), str(alias)))
    return out


def imports_mentioning(db: Database, words: Sequence[str]) -> dict[int, list[ImportRef]]:
    """file id -> [(module, name, alias)] of the imports whose module or name contains one of ``words``, and the
    relative ones (module starting with ".") of files whose path contains one: one scan instead of every row."""
    out: dict[int, list[ImportRef]] = {}
    seen: set[int] = set()
    contains = db.contains  # a plain substring test, case kept: cheaper than LIKE
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
                out.setdefault(int(fid), []).append(ImportRef(str(module), str(name), str(alias)))
    return out


def imports_in_file(db: Database, file_id: int) -> list[ImportRef]:
    """(module, name, alias) of one file's imports, in insertion order."""
    rows = db.rows("SELECT module, name, alias FROM imports WHERE file_id = ? ORDER BY id", (file_id,))
    return [ImportRef(str(m), str(n), str(a)) for m, n, a in rows]


def imports_by_file_id(db: Database, file_id: int) -> list[ImportRef]:
    """(module, name, alias) imported by one file, in source order."""
    return [
        ImportRef(str(m), str(n), str(a))
        for m, n, a in db.rows(
            "SELECT module, name, alias FROM imports WHERE file_id = ? ORDER BY line, id", (file_id,)
        )
    ]


def import_fan_in(db: Database, path_prefix: str) -> dict[str, int]:
    """path -> how many other files have an import bound into it, for every file under ``path_prefix``."""
    like = like_literal(path_prefix) + "%"
    rows = db.rows(
        f"SELECT f.path, count(DISTINCT s.file_id) FROM files f "  # noqa: S608 - the operator only
        "LEFT JOIN nodes t ON t.file_id = f.id "
        "LEFT JOIN edges e ON e.target_id = t.id AND e.kind = 'imports' "
        "LEFT JOIN nodes s ON s.id = e.source_id AND s.file_id != f.id "
        f"WHERE f.path {db.like} ? ESCAPE '\\' GROUP BY f.path",
        (like,),
    )
    return {str(path): int(n) for path, n in rows}
