"""Status's edge counts are kept by triggers, not counted per call: they must equal a count of the rows after
every kind of write (a build, an edit that unbinds, a deleted file's cascade), a rollback, and a migration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import pytest
from _factories import edit_file, make_repo, make_service

from igraph_mcp.config import CONFIG_DIR
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store.db import SqliteDatabase
from igraph_mcp.store.records import NewEdge
from igraph_mcp.store.schema import MIGRATIONS, SCHEMA_VERSION

pytestmark = pytest.mark.both_stores

FILES = {
    "pkg/core.py": "class Base:\n    def run(self):\n        return helper()\n\ndef helper():\n    return 1\n",
    "pkg/app.py": "from pkg.core import Base, helper\n\nclass App(Base):\n    def start(self):\n"
    "        return helper() + self.run()\n\ndef main():\n    return App().start()\n",
    "pkg/extra.py": "from pkg.core import helper\n\ndef twice():\n    return helper() + helper()\n",
}


def _live(db: Any) -> tuple[dict[str, int], dict[str, int]]:
    """What the kept counts must equal: the rows counted now."""
    bound = int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NOT NULL"))
    unbound = int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NULL"))
    kinds = {
        str(k): int(n) for k, n in db.rows("SELECT kind, count(*) FROM edges WHERE target_id IS NOT NULL GROUP BY kind")
    }
    return {"edges": bound, "unresolvedRefs": unbound}, kinds


def _assert_kept(db: Any) -> None:
    counts, kinds = _live(db)
    kept = count_store.counts(db)
    assert {"edges": kept["edges"], "unresolvedRefs": kept["unresolvedRefs"]} == counts
    assert count_store.edge_kind_counts(db) == kinds


def test_kept_counts_follow_builds_edits_and_deletes(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        _assert_kept(svc.db)
        assert count_store.edge_kind_counts(svc.db).get("calls", 0) >= 4
        # helper renamed: its callers' edges lose their target (bound -> unbound), in other files too
        edit_file(
            root, "pkg/core.py", "class Base:\n    def run(self):\n        return 2\n\ndef assist():\n    return 1\n"
        )
        svc.index(embed=False)
        _assert_kept(svc.db)
        before = count_store.counts(svc.db)
        (root / "pkg" / "extra.py").unlink()  # its edges go with its nodes (a cascade)
        svc.index(embed=False)
        _assert_kept(svc.db)
        assert count_store.counts(svc.db)["unresolvedRefs"] < before["unresolvedRefs"]
        edit_file(root, "pkg/core.py", FILES["pkg/core.py"])  # helper back: the callers bind again
        svc.index(embed=False)
        _assert_kept(svc.db)
        assert svc.status().edges == count_store.counts(svc.db)["edges"] > 0
    finally:
        svc.close()


@pytest.mark.sqlite_only
def test_a_rolled_back_write_leaves_the_counts(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        db = svc.db
        kept = count_store.counts(db), count_store.edge_kind_counts(db)
        node = int(db.scalar("SELECT id FROM nodes WHERE name = 'main'"))
        with pytest.raises(RuntimeError), svc._writer() as wdb, wdb.atomic() as con:
            con.execute("UPDATE edges SET target_id = NULL")
            con.execute(
                "INSERT INTO edges(source_id, target_id, kind, target_name, qualifier, resolution, line) "
                "VALUES(?, ?, 'calls', 'x', '', 'unique_global', 1)",
                (node, node),
            )
            raise RuntimeError("rolled back")
        assert (count_store.counts(db), count_store.edge_kind_counts(db)) == kept
        _assert_kept(db)
    finally:
        svc.close()


@pytest.mark.sqlite_only
def test_edge_writes_of_every_kind_move_the_counts(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "i.db")
    try:
        with db.atomic() as con:
            con.execute(
                "INSERT INTO files(path, language, sha256, size, indexed_at) VALUES('a.py', 'python', '', 1, 0)"
            )
            for name in ("a", "b"):
                con.execute(
                    "INSERT INTO nodes(file_id, kind, name, qualified_name, start_line, end_line, start_byte, "
                    "end_byte) VALUES(1, 'function', ?, ?, 1, 1, 0, 1)",
                    (name, name),
                )
        with db.atomic() as con:
            edge_store.insert_edges(
                con,
                [
                    NewEdge(1, 2, "calls", "b", "", "unique_global", 1),
                    NewEdge(1, None, "calls", "c", "", "unresolved", 2),
                    NewEdge(2, 1, "references", "a", "", "unique_global", 3),
                ],
            )
        _assert_kept(db)
        with db.atomic() as con:
            con.execute("UPDATE edges SET kind = 'imports' WHERE kind = 'references'")  # a kind change moves it
        _assert_kept(db)
        with db.atomic() as con:
            con.execute("DELETE FROM nodes WHERE name = 'b'")  # SET NULL on target_id, cascade on source_id
        _assert_kept(db)
        assert count_store.edge_kind_counts(db) == {}
    finally:
        db.close()


@pytest.mark.sqlite_only
def test_migration_counts_the_edges_an_older_index_holds(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        want = _live(svc.db)
    finally:
        svc.close()
    path = root / CONFIG_DIR / "igraph.db"
    con = apsw.Connection(str(path))  # back to schema 8: no counts table, no triggers
    con.execute("DROP TABLE row_counts")
    for (name,) in list(con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'count_%'")):
        con.execute(f"DROP TRIGGER {name}")
    con.execute("DELETE FROM migrations WHERE version = 9")
    con.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    con.close()
    assert [v for v, _ in MIGRATIONS][-1] == SCHEMA_VERSION == 9
    db = SqliteDatabase.open_for_write(path)  # migrates to 9: counts what is there, then keeps counting
    try:
        assert db.schema_version() == SCHEMA_VERSION and db.get_meta("schema_version") == "9"
        assert _live(db) == want
        _assert_kept(db)
        with db.atomic() as con:
            con.execute("DELETE FROM edges WHERE id = (SELECT min(id) FROM edges WHERE target_id IS NOT NULL)")
        _assert_kept(db)
    finally:
        db.close()
