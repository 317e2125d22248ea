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
