"""Status's edge counts are kept by the store's edge writes, not counted per call: they must equal a count of the
rows after every kind of write (a build, an edit that unbinds, a deleted file, a mass delete, a full rebuild), a
rollback, a run that dies midway and the run after it, and the migration from the triggers of schema 9."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import pytest
from _counts import assert_counts_exact, live_counts
from _factories import edit_file, make_repo, make_service, undo_schema_11

from igraph_mcp.config import CONFIG_DIR
from igraph_mcp.errors import MassDelete
from igraph_mcp.index.indexer import Indexer
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import files as file_store
from igraph_mcp.store import sqlite_counts
from igraph_mcp.store.db import SqliteDatabase
from igraph_mcp.store.declarations import replace_links
from igraph_mcp.store.records import EdgeBinding, NewEdge
from igraph_mcp.store.schema import MIGRATIONS, SCHEMA_VERSION

pytestmark = pytest.mark.both_stores

FILES = {
    "pkg/core.py": "class Base:\n    def run(self):\n        return helper()\n\ndef helper():\n    return 1\n",
    "pkg/app.py": "from pkg.core import Base, helper\n\nclass App(Base):\n    def start(self):\n"
    "        return helper() + self.run()\n\ndef main():\n    return App().start()\n",
    "pkg/extra.py": "from pkg.core import helper\n\ndef twice():\n    return helper() + helper()\n",
    # TypeScript overloads: `declares` edges, which the declaration linker deletes and writes again
    "web/shapes.ts": "export function area(x: number): number;\nexport function area(x: string): number;\n"
    "export function area(x: any): number { return helper(x); }\nfunction helper(x: any) { return 1; }\n",
    "web/use.ts": "import { area } from './shapes';\nexport function total() { return area(1) + area('a'); }\n",
}


def test_kept_counts_follow_builds_edits_and_deletes(tmp_path: Path) -> None:
    call = "from pkg.core import helper\n\ndef f_{0}():\n    return helper() + {0}\n"
    generated = {f"gen/mod_{i}.py": call.format(i) for i in range(24)}
    root = make_repo(tmp_path, {**FILES, **generated}, filler=False)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        assert_counts_exact(svc.db)
        assert count_store.edge_kind_counts(svc.db).get("calls", 0) >= 4
        assert count_store.edge_kind_counts(svc.db).get("declares", 0) >= 2
        # helper renamed: its callers' edges lose their target (bound -> unbound), in other files too
        edit_file(
            root, "pkg/core.py", "class Base:\n    def run(self):\n        return 2\n\ndef assist():\n    return 1\n"
        )
        svc.index(embed=False)
        assert_counts_exact(svc.db)
        before = count_store.counts(svc.db)
        (root / "pkg" / "extra.py").unlink()  # its edges go with its nodes (a cascade)
        svc.index(embed=False)
        assert_counts_exact(svc.db)
        assert count_store.counts(svc.db)["unresolvedRefs"] < before["unresolvedRefs"]
        edit_file(root, "pkg/core.py", FILES["pkg/core.py"])  # helper back: the callers bind again
        svc.index(embed=False)
        assert_counts_exact(svc.db)
        assert svc.status().edges == count_store.counts(svc.db)["edges"] > 0
        edit_file(root, "web/shapes.ts", FILES["web/shapes.ts"].replace("x: string", "x: boolean"))
        svc.index(embed=False)  # the overloads' declares edges replaced
        assert_counts_exact(svc.db)
        svc.index(embed=False, full=True)  # every edge deleted, written and bound again in one transaction
        assert_counts_exact(svc.db)
        for rel in generated:
            (root / rel).unlink()
        with pytest.raises(MassDelete):
            svc.index(embed=False)  # 24 of 28 files: refused, nothing written
        assert_counts_exact(svc.db)
        svc.index(embed=False, allow_mass_delete=True)  # most of the index deleted at once
        assert_counts_exact(svc.db)
        assert count_store.counts(svc.db)["files"] == 4
    finally:
        svc.close()


def test_kept_counts_after_a_run_that_died_and_the_run_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        edit_file(root, "pkg/core.py", FILES["pkg/core.py"].replace("helper", "aid"))
        (root / "pkg" / "extra.py").unlink()
        real_write, real_resolve = Indexer._write_file, Indexer._resolve

        def dies_writing(self: Indexer, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("killed while writing a batch")

        def dies_binding(self: Indexer, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("killed before binding")

        monkeypatch.setattr(Indexer, "_write_file", dies_writing)
        with pytest.raises(RuntimeError):
            svc.index(embed=False)  # the deletion committed, the batch rolled back
        assert_counts_exact(svc.db)
        monkeypatch.setattr(Indexer, "_write_file", real_write)
        monkeypatch.setattr(Indexer, "_resolve", dies_binding)
        with pytest.raises(RuntimeError):
            svc.index(embed=False)  # the batch committed, its edges left unbound
        assert_counts_exact(svc.db)
        assert svc.db.get_meta("resolve_pending") == "1"
        with pytest.raises(RuntimeError):
            svc.index(embed=False, full=True)  # a full rebuild is one transaction: all of it rolled back
        assert_counts_exact(svc.db)
        monkeypatch.setattr(Indexer, "_resolve", real_resolve)
        svc.index(embed=False)  # the pending binding finished
        assert_counts_exact(svc.db)
        resumed = count_store.counts(svc.db), count_store.edge_kind_counts(svc.db)
        svc.index(embed=False, full=True)
        assert (count_store.counts(svc.db), count_store.edge_kind_counts(svc.db)) == resumed
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
        edge = int(db.scalar("SELECT min(id) FROM edges WHERE target_id IS NOT NULL AND kind = 'calls'"))
        with pytest.raises(RuntimeError), svc._writer() as wdb, wdb.atomic() as con:
            file_store.delete_file(con, 1, vectors=False)
            edge_store.set_edge_targets(con, [EdgeBinding(None, "unresolved", 0.0, "", edge)])  # type: ignore[arg-type]
            edge_store.insert_edges(con, [NewEdge(node, node, "calls", "x", "", "unique_global", 1)])
            assert count_store.counts(wdb) != kept[0]  # the writes moved the counts inside the transaction
            raise RuntimeError("rolled back")
        assert (count_store.counts(db), count_store.edge_kind_counts(db)) == kept
        assert_counts_exact(db)
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
            con.execute(  # every file has its module node (status counts symbols as nodes less files)
                "INSERT INTO nodes(file_id, kind, name, qualified_name, start_line, end_line, start_byte, end_byte) "
                "VALUES(1, 'module', 'a', 'a', 1, 1, 0, 1)"
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
        assert_counts_exact(db)
        assert count_store.edge_kind_counts(db) == {"calls": 1, "references": 1}
        with db.atomic() as con:  # bind the unbound call, unbind the reference
            edge_store.set_edge_targets(
                con,
                [EdgeBinding(1, "import", 1.0, "", 2), EdgeBinding(None, "unresolved", 0.0, "", 3)],  # type: ignore[arg-type]
            )
        assert_counts_exact(db)
        assert count_store.edge_kind_counts(db) == {"calls": 2}
        with db.atomic() as con:
            replace_links(con, None, [])  # deletes no declares edge: there is none
            con.db.bulk.unbind_edges(con, "target_id = ?", (2,), "stale")
        assert_counts_exact(db)
        assert count_store.edge_kind_counts(db) == {"calls": 1}
        with db.atomic() as con:
            file_store.delete_file(con, 1, vectors=False)  # its edges, bound or not
        assert_counts_exact(db)
        assert count_store.counts(db)["unresolvedRefs"] == 0
        assert count_store.edge_kind_counts(db) == {}
    finally:
        db.close()


@pytest.mark.sqlite_only
def test_migration_counts_the_edges_an_older_index_holds(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        want = live_counts(svc.db)
    finally:
        svc.close()
    path = root / CONFIG_DIR / "igraph.db"
    con = apsw.Connection(str(path))  # back to schema 9: the row triggers, and counts that have drifted
    for sql in sqlite_counts.DDL[3:]:
        con.execute(sql)
    con.execute("UPDATE row_counts SET n = n + 7")
    undo_schema_11(con)
    con.execute("DELETE FROM migrations WHERE version = 10")
    con.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    con.close()
    assert [v for v, _ in MIGRATIONS][-1] == SCHEMA_VERSION == 16
    db = SqliteDatabase.open_for_write(path)  # migrates to 10 (the triggers go, the edges are counted once) and 11
    try:
        assert db.schema_version() == SCHEMA_VERSION and db.get_meta("schema_version") == "16"
        assert db.rows("SELECT name FROM sqlite_master WHERE type = 'trigger'") == []
        assert live_counts(db) == want
        assert_counts_exact(db)
        with db.atomic() as con:
            file_store.delete_file(con, 1, vectors=False)
        assert_counts_exact(db)
    finally:
        db.close()


@pytest.mark.sqlite_only
def test_an_index_from_before_the_counts_migrates_to_kept_counts(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        want = live_counts(svc.db)
    finally:
        svc.close()
    path = root / CONFIG_DIR / "igraph.db"
    con = apsw.Connection(str(path))  # back to schema 8: no counts table
    con.execute("DROP TABLE row_counts")
    undo_schema_11(con)
    con.execute("DELETE FROM migrations WHERE version >= 9")
    con.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    con.close()
    db = SqliteDatabase.open_for_write(path)
    try:
        assert db.schema_version() == SCHEMA_VERSION
        assert db.rows("SELECT name FROM sqlite_master WHERE type = 'trigger'") == []
        assert live_counts(db) == want
        assert_counts_exact(db)
    finally:
        db.close()


def test_row_counts_a_reader_keeps_follow_every_commit(tmp_path: Path) -> None:
    """count_rows answers from what it counted while the database is as it was, and counts again after any
    commit: the writer's own, or another connection's."""
    root = make_repo(tmp_path, FILES, filler=False)
    svc = make_service(root)
    try:
        svc.index()
        reader = svc.db
        before = reader.count_rows(("files", "nodes"))
        assert before == reader.count_rows(("files", "nodes"))
        edit_file(root, "pkg/more.py", "def fresh():\n    return 2\n\ndef other():\n    return fresh()\n")
        writer = make_service(root)
        try:
            writer.index()  # another service: its own connection commits the new file
        finally:
            writer.close()
        after = reader.count_rows(("files", "nodes"))
        assert after == {"files": before["files"] + 1, "nodes": before["nodes"] + 3}
        assert after == {
            "files": reader.scalar("SELECT count(*) FROM files"),
            "nodes": reader.scalar("SELECT count(*) FROM nodes"),
        }
    finally:
        svc.close()
