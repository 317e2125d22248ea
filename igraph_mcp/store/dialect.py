"""Which backend a store is, by name, and two writes every backend answers alike.

The name is for messages and the store's selection (store/target.py); query code never branches on it: it calls
the database's parts instead (store/backend.py, docs/store-backends.md).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from igraph_mcp.store.backend import WriteConnection

Dialect = Literal["sqlite", "postgresql"]

SQLITE: Final = "sqlite"
POSTGRESQL: Final = "postgresql"


def inserted_id(con: WriteConnection, sql: str, params: Any) -> int:
    """Run one ``INSERT`` (``sql`` without a RETURNING clause) and return the new row's id, the way the backend
    reads it best (``Database.last_id_sql``)."""
    if con.db.last_id_sql:
        con.execute(sql, params)
        return int(con.execute(con.db.last_id_sql).fetchone()[0])
    return int(con.execute(sql + " RETURNING id", params).fetchone()[0])


def table_exists(con: WriteConnection, name: str) -> bool:
    """True when the table (SQLite: or index, view) ``name`` exists in the connection's index."""
    return con.execute(con.db.table_exists_sql, (name,)).fetchone() is not None
