"""A throw-away PostgreSQL schema per test and a minimal connection with the Database API the store code uses."""

from __future__ import annotations

import os
import re
import uuid
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


def database_url() -> str:
    """The test server's URL; under CI a missing one is a failure, not a skip."""
    url = os.environ.get("IGRAPH_TEST_DATABASE_URL", "")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("IGRAPH_TEST_DATABASE_URL is not set: CI must run the PostgreSQL tests (.ci/postgres start)")
        pytest.skip("no PostgreSQL server: set IGRAPH_TEST_DATABASE_URL")
    return url


@pytest.fixture
def pg_schema() -> Iterator[PgShim]:
    """A connection whose search_path is a fresh schema, dropped afterwards."""
    import psycopg

    raw = psycopg.connect(database_url(), autocommit=True)
    name = "t_" + uuid.uuid4().hex[:12]
    raw.execute(f"CREATE SCHEMA {name}")
    raw.execute(f"SET search_path = {name}, public")
    try:
        yield PgShim(raw)
    finally:
        raw.execute(f"DROP SCHEMA {name} CASCADE")
        raw.close()
