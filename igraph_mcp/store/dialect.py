"""Which store a connection talks to, and the connection shape every store write function takes.

Store functions branch on ``db.dialect`` where their SQL must differ; nothing outside ``store/`` looks at it.
"""

from __future__ import annotations

from typing import Any, Final, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]

SQLITE: Final = "sqlite"
POSTGRESQL: Final = "postgresql"


class WriteConnection(Protocol):
    """What ``Database.atomic()`` yields: apsw's connection, or the PostgreSQL one wrapped to take ``?`` SQL."""

    def execute(self, sql: str, params: Any = ..., /) -> Any:
        """Run one statement; the result iterates over rows and has ``fetchone()``."""

    def executemany(self, sql: str, rows: Any, /) -> Any:
        """Run one statement for each parameter row."""


def inserted_id(con: WriteConnection, sql: str, params: Any) -> int:
    """Run an ``INSERT ... RETURNING id`` and return the id (both stores; no ``last_insert_rowid()``)."""
    row = con.execute(sql, params).fetchone()
    return int(row[0])


def connection_dialect(con: WriteConnection) -> Dialect:
    """The store behind a connection ``atomic()`` yielded (apsw's connection has no ``dialect``)."""
    dialect: Dialect = getattr(con, "dialect", SQLITE)
    return dialect


_TABLE_EXISTS = {
    SQLITE: "SELECT 1 FROM sqlite_master WHERE name = ?",
    # current_schema() is the repository's own schema (first on the search path), never the registry's.
    POSTGRESQL: "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?",
}


def table_exists_sql(dialect: Dialect) -> str:
    """A query with one row when the table named by its one parameter exists in the index."""
    return _TABLE_EXISTS[dialect]


# SQLite's LIKE ignores ASCII case; ILIKE gives PostgreSQL the same answers to a path or name suffix lookup.
_LIKE = {SQLITE: "LIKE", POSTGRESQL: "ILIKE"}


def like_operator(dialect: Dialect) -> str:
    """The operator that matches a LIKE pattern the way SQLite's LIKE does (ASCII case ignored) on ``dialect``."""
    return _LIKE[dialect]


def table_exists(con: WriteConnection, name: str) -> bool:
    """True when the table (SQLite: or index, view) ``name`` exists in the connection's index."""
    return con.execute(_TABLE_EXISTS[connection_dialect(con)], (name,)).fetchone() is not None
