"""Which store a repository's index lives in, and its reader and writer there.

The selection is made once, here, at the edge: ``--store URL`` on the command line, else ``IGRAPH_DATABASE_URL``,
else ``IGRAPH_DATABASE_URL_FILE`` (a file holding the URL), else the SQLite file in the state directory.
Credentials come only from those or from libpq's own environment (PGPASSWORD, PGPASSFILE, PGSERVICEFILE); a
repository's config can never name a store (``config.load_config`` refuses it). Nothing here prints a password.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from igraph_mcp.config import DB_FILE
from igraph_mcp.errors import ConfigError, IndexDamaged, InvalidInput
from igraph_mcp.models import BuildActivity
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.repo_identity import read_identity
from igraph_mcp.store.db import Database
from igraph_mcp.store.dialect import POSTGRESQL, SQLITE, Dialect
from igraph_mcp.store.lock import WriterLock
from igraph_mcp.store.reader import IndexReader, SqliteSource
from igraph_mcp.store.url import is_pg_url, safe_url

ENV_URL = "IGRAPH_DATABASE_URL"
ENV_URL_FILE = "IGRAPH_DATABASE_URL_FILE"
REPO_NAME_MAX = 200
_NEEDS_EXTRA = f"the PostgreSQL store needs its client: {ask(NextStep.INSTALL_EXTRA, 'postgres')}"


class IndexWriter(Protocol):
    """One writer per repository: ``hold()`` yields the write connection or raises IndexBusy at once."""

    def hold(self, *, replace: bool = False) -> AbstractContextManager[Database]:
        """The exclusive write connection; in a shared store, NameTaken when the repository's name is bound to
        another repository (``replace`` takes it over)."""

    def report(self, phase: str, done: int, total: int, rate: float = 0.0) -> None:
        """Record the holder's progress (``rate``: items per second of this phase) for rivals and status."""

    def activity(self, db: Database | None = None) -> BuildActivity | None:
        """What the live lock holder (this process or another) recorded; ``db``: a connection to read it on."""


def chosen_url(store: str | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The PostgreSQL URL selected (``--store``, then the environment), or None for the SQLite file.

    ``--store sqlite`` picks the SQLite file even when the environment names a database.
    """
    env = os.environ if env is None else env
    if store is not None:
        value = store.strip()
        if value.lower() == SQLITE:
            return None
        if not is_pg_url(value):
            raise ConfigError("--store takes a postgresql:// URL, or `sqlite` for the index file beside the repository")
        return value
    if env.get(ENV_URL, "").strip():
        value = env[ENV_URL].strip()
        if not is_pg_url(value):
            raise ConfigError(f"{ENV_URL} must hold a postgresql:// URL; fix it or unset it to use the SQLite file")
        return value
    if env.get(ENV_URL_FILE, "").strip():
        path = Path(env[ENV_URL_FILE].strip())
        try:
            value = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"{ENV_URL_FILE} names {path}, which cannot be read ({type(exc).__name__}); fix the path or its "
                "permissions"
            ) from exc
        if not is_pg_url(value):
            raise ConfigError(f"the file {path} ({ENV_URL_FILE}) must hold one postgresql:// URL")
        return value
    return None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def repo_name_for(root: Path, name: str | None = None) -> str:
    """The repository's name in a shared store: ``name`` (``--repo-name``) or the root folder's name."""
    value = (name if name is not None else root.name).strip()
    if not value or len(value) > REPO_NAME_MAX or _CONTROL.search(value):
        raise InvalidInput(
            f"a repository name must be 1-{REPO_NAME_MAX} printable characters; pass another with --repo-name"
        )
    return value


def git_revision(root: Path) -> str:
    """The commit checked out at ``root`` (read from .git, no subprocess), or '' without one."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree or submodule: "gitdir: <path>"
            pointer = git.read_text(encoding="utf-8").strip()
            git = (root / pointer.removeprefix("gitdir:").strip()).resolve()
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return head[:64]
        ref = head.removeprefix("ref:").strip()
        common = git
        if (git / "commondir").is_file():
            common = (git / (git / "commondir").read_text(encoding="utf-8").strip()).resolve()
        for base in (git, common):
            if (base / ref).is_file():
                return (base / ref).read_text(encoding="utf-8").strip()[:64]
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if name == ref:
                    return sha[:64]
    except (OSError, UnicodeDecodeError):
        return ""
    return ""


class PgSource:
    """One repository of a PostgreSQL store, as a reader opens it."""

    def __init__(self, url: str, repo: str) -> None:
        self.url = url
        self.repo = repo

    @property
    def where(self) -> str:
        """The URL without password, and the repository's name."""
        return f"{safe_url(self.url)} (repository {self.repo})"

    def open_reader(self) -> Database:
        """A read-only connection with the repository's schema on its search path."""
        try:
            from igraph_mcp.store.pg_db import PgDatabase
        except ImportError as exc:
            raise ConfigError(_NEEDS_EXTRA) from exc
        return PgDatabase.open_for_read(self.url, self.repo)

    def damage(self, exc: BaseException) -> IndexDamaged | None:
        """PostgreSQL keeps its own files whole: no error of its means the index is damaged."""
        return None


@dataclass
class IndexStore:
    """A repository's index in its store: the reader, the writer, and how status names it."""

    dialect: Dialect
    where: str  # the SQLite file, or the URL without password and the repository's name
    reader: IndexReader
    writer: IndexWriter
    sqlite_path: Path | None  # the file, on SQLite only

    def present(self) -> bool:
        """False when there is certainly no index yet (no file); a PostgreSQL store asks its registry."""
        return self.sqlite_path.exists() if self.sqlite_path is not None else True

    def tree_is_source(self, db: Database, root: str) -> bool:
        """Whether the tree at ``root`` is the one this index was built from (``Database.is_source_of``)."""
        return db.is_source_of(root)


def open_store(
    root: Path,
    state_dir: Path,
    *,
    store: str | None = None,
    repo_name: str | None = None,
    env: Mapping[str, str] | None = None,
) -> IndexStore:
    """The index store of the repository at ``root`` (see the module docstring for the selection)."""
    url = chosen_url(store, env)
    if url is None:
        db_path = state_dir / DB_FILE
        return IndexStore(
            SQLITE, str(db_path), IndexReader(SqliteSource(db_path)), WriterLock(state_dir, db_path), db_path
        )
    name = repo_name_for(root, repo_name)
    try:
        from igraph_mcp.store.pg_lock import PgWriterLock
    except ImportError as exc:
        raise ConfigError(_NEEDS_EXTRA) from exc
    source = PgSource(url, name)
    revision = functools.partial(git_revision, root)
    writer = PgWriterLock(url, name, identity=lambda: read_identity(root, revision()), revision=revision)
    return IndexStore(POSTGRESQL, source.where, IndexReader(source), writer, None)
