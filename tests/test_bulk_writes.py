"""An index run's write settings: a larger SQLite page cache and fewer WAL checkpoints while it inserts, the usual
settings again after, whatever happens inside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.index import build
from igraph_mcp.service import IGraphService
from igraph_mcp.store.db import BULK_CACHE_KIB, BULK_CHECKPOINT_PAGES, SqliteDatabase
from tests._factories import make_repo


def _settings(db: SqliteDatabase) -> tuple[int, int]:
    return db.con.execute("PRAGMA cache_size").get, db.con.execute("PRAGMA wal_autocheckpoint").get


def test_bulk_writes_set_and_restore_the_settings(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "index.db")
    before = _settings(db)
    with db.bulk_writes():
        assert _settings(db) == (BULK_CACHE_KIB, BULK_CHECKPOINT_PAGES)
        with db.atomic() as con:
            db.set_meta(con, "probe", "1")
    assert _settings(db) == before != (BULK_CACHE_KIB, BULK_CHECKPOINT_PAGES)
    with pytest.raises(RuntimeError), db.bulk_writes():
        raise RuntimeError("a run that fails inside")
    assert _settings(db) == before
    assert db.get_meta("probe") == "1"
    db.close()


def test_an_index_run_inserts_under_the_bulk_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The SQLite store itself (no store argument), whichever store the rest of the suite runs on.
    root = make_repo(tmp_path, {"pkg/mod.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n"})
    seen: list[tuple[int, int]] = []
    run = build.Indexer.run

    def watched(self: build.Indexer, **kwargs: Any) -> Any:
        assert isinstance(self.db, SqliteDatabase)
        seen.append(_settings(self.db))
        return run(self, **kwargs)

    monkeypatch.setattr(build.Indexer, "run", watched)
    svc = IGraphService(root, embedder=HashingEmbedder(32))
    try:
        svc.index()
        assert seen == [(BULK_CACHE_KIB, BULK_CHECKPOINT_PAGES)]
        assert isinstance(svc.db, SqliteDatabase)
        assert _settings(svc.db) != (BULK_CACHE_KIB, BULK_CHECKPOINT_PAGES)
        assert svc.status().symbols >= 3
    finally:
        svc.close()
