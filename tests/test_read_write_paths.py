"""One open-for-read path and one open-for-write path: a reader never recovers, migrates or destroys an index."""

from __future__ import annotations

import os
from pathlib import Path

import apsw
import pytest
from _factories import index_repo, make_repo, make_service

from igraph_mcp.config import CONFIG_DIR
from igraph_mcp.errors import NotIndexed
from igraph_mcp.store import db as db_module
from igraph_mcp.store.db import SqliteDatabase

FILES = {
    "pkg/core.py": "def alpha():\n    return beta()\n\n\ndef beta():\n    return 1\n",
    ".ci/tool.py": "def ci_helper():\n    return 2\n",
}


def _aside(repo: Path) -> list[Path]:
    return list((repo / CONFIG_DIR).glob("igraph.db.corrupt-*"))


def test_reader_answers_while_another_connection_holds_the_write_lock(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, FILES)
    index_repo(repo).close()
    writer = SqliteDatabase.open_for_write(repo / CONFIG_DIR / "igraph.db")
    reader = make_service(repo)
    try:
        with writer.atomic() as con:  # an uncommitted write, as a rebuild in another process holds one
            con.execute("DELETE FROM nodes")
            assert reader.node("alpha").found  # the reader sees the last committed state
            assert reader.status().symbols > 0
        assert not _aside(repo)
    finally:
        reader.close()
        writer.close()


def test_busy_database_is_not_mistaken_for_a_corrupt_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A rollback-journal database locked EXCLUSIVE by another connection answers BusyError to any reader:
    # that says nothing about the file's health, so it must surface as an error, never as a move-aside.
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "i.db"
    holder = apsw.Connection(str(path))
    holder.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO meta VALUES('k', 'v')")
    try:
        with pytest.raises(apsw.BusyError):
            SqliteDatabase.open_for_write(path)
        with pytest.raises(apsw.BusyError):
            db_module._looks_corrupt(path)
        assert not list(tmp_path.glob("i.db.corrupt-*"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert path.exists() and not list(tmp_path.glob("i.db.corrupt-*"))


def test_reader_never_creates_or_migrates(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, FILES)
    svc = make_service(repo)
    try:
        with pytest.raises(NotIndexed):
            svc.explore("alpha")
        assert not (repo / CONFIG_DIR / "igraph.db").exists()  # a query created nothing
        assert svc.status().indexed is False
    finally:
        svc.close()


def test_reader_follows_an_index_that_was_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, FILES)
    reader = index_repo(repo)
    try:
        assert reader.node("alpha").found
        db_path = repo / CONFIG_DIR / "igraph.db"
        (repo / "pkg" / "core.py").write_text("def gamma():\n    return 3\n", encoding="utf-8")
        # Another process replaces the file (as the writer's recovery does): the reader must read the new one.
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(db_path) + suffix)
            if p.exists():
                os.replace(p, Path(str(db_path) + ".old" + suffix))
        other = make_service(repo)
        other.index()
        other.close()
        assert reader.node("gamma").found
        assert not reader.node("alpha").found
    finally:
        reader.close()


def test_paths_starting_with_a_dot_directory_are_found(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, FILES)
    svc = index_repo(repo)
    try:
        assert svc.file(".ci/tool.py").found
        assert svc.file("./.ci/tool.py").filePath == ".ci/tool.py"
        assert svc.node("ci_helper", file="./.ci/tool.py").found
        assert svc.node("ci_helper", file=".ci/tool.py").found
    finally:
        svc.close()
