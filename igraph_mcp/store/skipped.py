"""The files the last index run skipped for a reason a user is told about: replaced whole by each run, read by
status (counts, a few names) and by file lookups (why a path is not indexed).

A path that is also in ``files`` is left out of every answer: a run that stopped between writing this list and
deleting a newly skipped file still answers consistently (the file is indexed until the next run removes it).
"""

from __future__ import annotations

from collections.abc import Sequence

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.db import Database
from igraph_mcp.store.fts import like_literal
from igraph_mcp.vocab.skips import SkippedPath

_NOT_INDEXED = "NOT EXISTS (SELECT 1 FROM files f WHERE f.path = s.path)"


def replace_skipped(con: WriteConnection, skips: Sequence[SkippedPath]) -> None:
    """Make ``skips`` the whole list (one path once: the first reason given for it wins)."""
    con.execute("DELETE FROM skipped_files")
    rows: dict[str, tuple[str, str, str]] = {}
    for skip in skips:
        rows.setdefault(skip.path, (skip.path, skip.reason, skip.detail))
    if rows:
        con.executemany("INSERT INTO skipped_files(path, reason, detail) VALUES(?, ?, ?)", list(rows.values()))


def skipped_counts(db: Database) -> dict[str, int]:
    """reason -> how many files the last run skipped for it."""
    sql = f"SELECT s.reason, count(*) FROM skipped_files s WHERE {_NOT_INDEXED} GROUP BY s.reason"  # noqa: S608
    return {str(r[0]): int(r[1]) for r in db.rows(sql)}


def skipped_list(db: Database, per_reason: int | None = None) -> list[SkippedPath]:
    """The skipped files by reason, then path: all of them, or the first ``per_reason`` of each reason."""
    rows = f"SELECT s.path, s.reason, s.detail FROM skipped_files s WHERE {_NOT_INDEXED}"  # noqa: S608
    if per_reason is None:
        return [SkippedPath(str(r[0]), str(r[1]), str(r[2])) for r in db.rows(rows + " ORDER BY s.reason, s.path")]
    ranked = rows.replace(" FROM ", ", row_number() OVER (PARTITION BY s.reason ORDER BY s.path) AS n FROM ", 1)
    sql = f"SELECT path, reason, detail FROM ({ranked}) t WHERE n <= ? ORDER BY reason, path"  # noqa: S608
    return [SkippedPath(str(r[0]), str(r[1]), str(r[2])) for r in db.rows(sql, (per_reason,))]


def skipped_matching(db: Database, path: str, limit: int = 20) -> list[SkippedPath]:
    """Skipped files whose path is ``path`` or ends in ``/path`` (shortest first), as file lookups match."""
    like = "%/" + like_literal(path)
    matches = f"(s.path = ? OR s.path {db.like} ? ESCAPE '\\')"
    rows = db.rows(
        f"SELECT s.path, s.reason, s.detail FROM skipped_files s WHERE {matches} AND {_NOT_INDEXED} "  # noqa: S608
        "ORDER BY length(s.path), s.path LIMIT ?",
        (path, like, limit),
    )
    return [SkippedPath(str(r[0]), str(r[1]), str(r[2])) for r in rows]
