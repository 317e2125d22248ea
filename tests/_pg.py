"""A minimal connection with the Database API the store code uses, over a fresh test database."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


class _Con:
    """`?` placeholders over a psycopg connection, as Database.atomic() yields them."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Any = ()) -> Any:
        return self.raw.execute(re.sub(r"\?", "%s", sql), params or None)


class PgShim:
    """rows/one/scalar/atomic over one psycopg connection (the store's read and write API)."""

    dialect = "postgresql"

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.con = _Con(raw)

    def rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        with self.raw.transaction():
            return list(self.con.execute(sql, params).fetchall())

    def one(self, sql: str, params: Any = ()) -> tuple[Any, ...] | None:
        rows = self.rows(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Any = (), default: Any = None) -> Any:
        row = self.one(sql, params)
        return default if row is None else row[0]

    @contextmanager
    def atomic(self) -> Iterator[_Con]:
        with self.raw.transaction():
            yield self.con


@contextmanager
def pg_shim(url: str) -> Iterator[PgShim]:
    """A connection to the database at ``url`` whose search path is a schema of its own."""
    import psycopg

    raw = psycopg.connect(url, autocommit=True)
    try:
        raw.execute("CREATE SCHEMA IF NOT EXISTS t")
        raw.execute("SET search_path = t, public")
        yield PgShim(raw)
    finally:
        raw.close()


@pytest.fixture
def pg_schema(pg_url: str) -> Iterator[PgShim]:
    """A PgShim on a fresh database (the harness's ``pg_url``)."""
    with pg_shim(pg_url) as db:
        yield db
