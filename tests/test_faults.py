"""Rows of the fault matrix that had no test of their own: an index from an older schema (D6) and a file that
disappears between the walk and the read (I7)."""

from __future__ import annotations

import time
from pathlib import Path

import apsw
import pytest
from _factories import make_repo, make_service, snapshot

from igraph_mcp.config import CONFIG_DIR, DB_FILE
from igraph_mcp.errors import NotIndexed
from igraph_mcp.store.schema import MIGRATIONS, SCHEMA_VERSION

FILES = {"pkg/a.py": "def alpha():\n    return beta()\n", "pkg/b.py": "def beta():\n    return 1\n"}


def test_older_schema_is_refused_by_readers_and_migrated_by_the_next_index(tmp_path: Path) -> None:
    assert SCHEMA_VERSION >= 2, "this test needs an older version to start from"
    root = make_repo(tmp_path, FILES)
    (root / CONFIG_DIR).mkdir()
    con = apsw.Connection(str(root / CONFIG_DIR / DB_FILE))
    con.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("CREATE TABLE migrations(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
    for version, statements in MIGRATIONS[:1]:  # an index written by the igraph-mcp of schema 1
        for sql in statements:
            con.execute(sql)
        con.execute("INSERT INTO migrations VALUES(?, ?)", (version, time.time()))
    con.execute("INSERT INTO meta VALUES('last_build', '1'), ('schema_version', '1')")
    con.close()
    svc = make_service(root)
    try:
        with pytest.raises(NotIndexed, match="older igraph-mcp"):
            svc.explore("alpha")  # a reader never migrates: it says what to run
        svc.index()
        assert svc.db.schema_version() == SCHEMA_VERSION and svc.db.recovered_from is None
        assert svc.node("alpha").found
    finally:
        svc.close()


def test_file_deleted_between_walk_and_read_is_skipped_then_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, FILES)
    doomed = root / "pkg" / "b.py"
    real_read = Path.read_bytes

    def vanishing(self: Path) -> bytes:
        if self == doomed:
            doomed.unlink()  # deleted after the walk listed it, before the indexer read it
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", vanishing)
    svc = make_service(root)
    try:
        first = svc.index()
        assert first.skipped.get("unreadable") == 1 and first.files == len(FILES) - 1 + 4  # + filler modules
        monkeypatch.setattr(Path, "read_bytes", real_read)
        svc.index()
        got = snapshot(svc.db)
    finally:
        svc.close()
    clean = make_service(make_repo(tmp_path / "clean", {"pkg/a.py": FILES["pkg/a.py"]}))
    try:
        clean.index()
        assert got == snapshot(clean.db)
    finally:
        clean.close()
