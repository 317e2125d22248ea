"""Tests for incremental indexing: edits, deletes, renames, re-binding, --full, --dry-run, crash."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import apsw
import pytest
from _factories import (
    edge_target,
    edit_file,
    fts_names,
    index_repo,
    make_repo,
    make_service,
    snapshot,
    write_file,
)

from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.errors import EmbedderError
from igraph_mcp.index import indexer as indexer_mod
from igraph_mcp.index.indexer import Indexer
from igraph_mcp.index.rows import module_names
from igraph_mcp.service import IGraphService

pytestmark = pytest.mark.both_stores

APP = {
    "app/util.py": '''
        def helper_value(x):
            """Double a value."""
            return x * 2

        def unused_thing():
            return 0
        ''',
    "app/main.py": """
        from app.util import helper_value

        def run_main():
            return helper_value(3)
        """,
    "app/other.py": """
        from app.late import later_defined

        def other_entry():
            return later_defined()
        """,
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, APP)


def _clean_build(root: Path, tmp_path: Path) -> dict[str, object]:
    """Snapshot of a from-scratch index of a copy of ``root``."""
    copy = tmp_path / "clean-copy"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".igraph"))
    svc = make_service(copy)
    try:
        svc.index(full=True)
        snap = snapshot(svc.db)
    finally:
        svc.close()
    return snap


def _integrity_ok(svc: IGraphService) -> None:
    """SQLite's own check of the file; PostgreSQL's pages are checked by the server, its rows by the snapshots."""
    if svc.db.dialect != "sqlite":
        return
    con = apsw.Connection(str(svc.db_path))
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        con.close()


# -- pure helpers --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("pkg/mod.py", ("mod", "pkg.mod")),
        ("top.py", ("top", "top")),
        ("a/b/Makefile", ("Makefile", "a.b.Makefile")),
        ("x.y/z.ts", ("z", "x.y.z")),
    ],
)
def test_module_names(path: str, expected: tuple[str, str]) -> None:
    assert module_names(path) == expected


# -- first build and no-op runs ------------------------------------------------------------------------------
def test_first_build_then_noop(repo: Path) -> None:
    svc = make_service(repo)
    try:
        first = svc.index()
        assert first.added == first.files == first.parsed == len(list(repo.rglob("*.py")))
        assert sorted(first.reparsedPaths) == first.reparsedPaths
        assert first.embedded > 0 and first.embedNote is None
        second = svc.index()
        assert (second.parsed, second.added, second.modified, second.deleted, second.renamed) == (0, 0, 0, 0, 0)
        assert second.reparsedPaths == [] and second.unchanged == first.files and second.embedded == 0
        assert int(svc.db.get_meta("generation")) == 2
    finally:
        svc.close()


def test_touch_without_content_change_is_not_reparsed(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        target = repo / "app/util.py"
        st = target.stat()
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
        r = svc.index()
        assert r.parsed == 0 and r.unchanged == r.files
        assert svc.db.scalar("SELECT mtime_ns FROM files WHERE path = 'app/util.py'") == st.st_mtime_ns + 5_000_000_000
    finally:
        svc.close()


# -- incremental changes -------------------------------------------------------------------------------------
def test_editing_one_file_reparses_exactly_that_file(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        edit_file(repo, "app/util.py", "def renamed_helper(x):\n    return x * 3\n")
        r = svc.index()
        assert r.reparsedPaths == ["app/util.py"]
        assert (r.modified, r.added, r.deleted, r.parsed) == (1, 0, 0, 1)
        assert fts_names(svc.db, "renamed_helper") == {"renamed_helper"}
        assert fts_names(svc.db, "helper_value") <= {"run_main"}  # only the caller's body still says it
        assert svc.db.scalar("SELECT count(*) FROM nodes WHERE name = 'helper_value'") == 0
        assert snapshot(svc.db)["fts_rows"] == snapshot(svc.db)["node_rows"]
    finally:
        svc.close()


def test_edit_reuses_vectors_of_unchanged_symbols(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        edit_file(repo, "app/util.py", (repo / "app/util.py").read_text() + "\ndef brand_new():\n    return 1\n")
        r = svc.index()
        # unused_thing keeps its text; helper_value, brand_new and the module changed
        assert r.embedReused >= 1 and r.embedded >= 2
        total = svc.db.scalar("SELECT count(*) FROM nodes")
        assert svc.db.scalar("SELECT count(*) FROM node_vectors") == total
        assert svc.db.scalar("SELECT count(*) FROM nodes WHERE embed_hash IS NULL") == 0
    finally:
        svc.close()


def test_deleting_a_file_removes_it_everywhere(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        (repo / "app/util.py").unlink()
        r = svc.index()
        assert (r.deleted, r.parsed) == (1, 0)
        assert "app/util.py" not in svc.db.rows("SELECT path FROM files")
        assert fts_names(svc.db, "unused_thing") == set()
        assert svc.db.scalar("SELECT count(*) FROM node_vectors") == svc.db.scalar("SELECT count(*) FROM nodes")
        # the caller's edge stays, unbound, ready to bind again if the definition comes back; its import now names
        # a module outside the repository, so it is labelled external
        assert edge_target(svc.db, "run_main", "helper_value") == (None, None, "external")
    finally:
        svc.close()


def test_rename_keeps_node_ids_and_updates_paths(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        before = {r[0]: r[1] for r in svc.db.rows("SELECT qualified_name, id FROM nodes WHERE kind != 'module'")}
        os.rename(repo / "app/util.py", repo / "app/tools.py")
        r = svc.index()
        assert (r.renamed, r.deleted, r.added, r.parsed) == (1, 0, 0, 0)
        after = {r[0]: r[1] for r in svc.db.rows("SELECT qualified_name, id FROM nodes WHERE kind != 'module'")}
        assert after == before
        assert (
            svc.db.scalar("SELECT f.path FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.name = 'helper_value'")
            == "app/tools.py"
        )
        assert "helper_value" in fts_names(svc.db, "tools")  # FTS path column follows
        assert fts_names(svc.db, "util") <= {"run_main"}  # no symbol row is still filed under the old path
        assert svc.file("app/tools.py").found and not svc.file("app/util.py").found
    finally:
        svc.close()


def test_rename_renames_the_module_node(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        os.rename(repo / "app/util.py", repo / "app/tools.py")
        svc.index()
        mods = {r[0] for r in svc.db.rows("SELECT qualified_name FROM nodes WHERE kind = 'module'")}
        assert "app.tools" in mods and "app.util" not in mods
        assert svc.node("app.tools").found
        assert "app.tools" in fts_names(svc.db, "tools")
    finally:
        svc.close()


def test_rename_refreshes_vectors_whose_text_named_the_old_path(repo: Path, tmp_path: Path) -> None:
    svc = index_repo(repo)
    try:
        os.rename(repo / "app/util.py", repo / "app/tools.py")
        r = svc.index()
        assert r.embedded >= 3  # module, helper_value, unused_thing: their embedded text includes the path
        hashes = "SELECT n.qualified_name, n.embed_hash FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = ?"
        got = sorted(svc.db.rows(hashes, ("app/tools.py",)))
        # Another folder name: on PostgreSQL a tree is named by its folder, and this one is another repository.
        clean = make_service(make_repo(tmp_path, {**APP, "app/tools.py": APP["app/util.py"]}, name="clean"))
        del_path = clean.root / "app/util.py"
        del_path.unlink()
        clean.index()
        assert got == sorted(clean.db.rows(hashes, ("app/tools.py",)))
    finally:
        svc.close()


def test_rename_rebinds_imports_of_the_new_module_name(repo: Path) -> None:
    # A caller already importing the new name was unresolved; after the rename it binds like in a clean build.
    write_file(
        repo,
        "app/later.py",
        "from app.tools import helper_value\n\ndef later_user():\n    return helper_value(1)\n",
    )
    svc = index_repo(repo)
    try:
        assert edge_target(svc.db, "later_user", "helper_value")[2] != "import"
        os.rename(repo / "app/util.py", repo / "app/tools.py")
        svc.index()
        assert edge_target(svc.db, "later_user", "helper_value") == ("app/tools.py", "helper_value", "import")
    finally:
        svc.close()


def test_unchanged_callers_are_rebound_to_changed_definitions(repo: Path) -> None:
    svc = index_repo(repo)
    old_id = svc.db.scalar("SELECT id FROM nodes WHERE name = 'helper_value'")
    edit_file(repo, "app/util.py", "# moved down\n\n" + (repo / "app/util.py").read_text())
    r = svc.index()
    assert r.reparsedPaths == ["app/util.py"]
    new_id = svc.db.scalar("SELECT id FROM nodes WHERE name = 'helper_value'")
    assert new_id != old_id
    bound = svc.db.one(
        "SELECT e.target_id, e.resolution FROM edges e JOIN nodes s ON s.id = e.source_id "
        "WHERE s.name = 'run_main' AND e.target_name = 'helper_value'"
    )
    assert bound == (new_id, "import")
    assert svc.node("helper_value").callers[0].name == "run_main"


def test_new_definition_binds_waiting_references(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        # app/late.py does not exist yet: the import names a module outside the repository
        assert edge_target(svc.db, "other_entry", "later_defined")[2] == "external"
        write_file(repo, "app/late.py", "def later_defined():\n    return 1\n")
        r = svc.index()
        assert r.reparsedPaths == ["app/late.py"]
        assert edge_target(svc.db, "other_entry", "later_defined") == ("app/late.py", "later_defined", "import")
    finally:
        svc.close()


def test_second_definition_makes_a_unique_global_ambiguous(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            # JavaScript: a language still resolved by name (Python binds only what scope and imports say)
            "a/caller.js": "function go() {\n  return target_fn();\n}\n",
            "b/one.js": "function target_fn() {\n  return 1;\n}\n",
        },
    )
    svc = index_repo(root)
    try:
        assert edge_target(svc.db, "go", "target_fn")[2] == "unique_global"
        write_file(root, "c/two.js", "function target_fn() {\n  return 2;\n}\n")
        svc.index()
        assert edge_target(svc.db, "go", "target_fn") == (None, None, "ambiguous")
    finally:
        svc.close()


def test_incremental_equals_clean_build_after_mixed_changes(repo: Path, tmp_path: Path) -> None:
    svc = index_repo(repo)
    try:
        edit_file(repo, "app/util.py", (repo / "app/util.py").read_text() + "\ndef later_defined():\n    return 5\n")
        (repo / "filler/colors.py").unlink()
        os.rename(repo / "filler/geometry.py", repo / "filler/shapes.py")
        write_file(
            repo,
            "app/extra.py",
            "from app.util import unused_thing\n\ndef use_it():\n    return unused_thing()\n",
        )
        r = svc.index()
        assert (r.modified, r.deleted, r.renamed, r.added) == (1, 1, 1, 1)
        got = snapshot(svc.db)
        want = _clean_build(repo, tmp_path)
        assert got == want
    finally:
        svc.close()


def test_full_rebuild_reparses_everything_and_equals_incremental(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        inc = snapshot(svc.db)
        r = svc.index(full=True)
        assert r.parsed == r.files and sorted(r.reparsedPaths) == sorted(p[0] for p in inc["files"])
        assert snapshot(svc.db) == inc
        assert svc.db.scalar("SELECT count(*) FROM node_vectors") == svc.db.scalar("SELECT count(*) FROM nodes")
    finally:
        svc.close()


def test_dry_run_writes_nothing(repo: Path) -> None:
    svc = index_repo(repo)
    try:
        before = snapshot(svc.db)
        gen = svc.db.get_meta("generation")
        on_file = svc.db.dialect == "sqlite"
        mtime = svc.db_path.stat().st_mtime_ns if on_file else 0
        edit_file(repo, "app/util.py", "def changed():\n    return 1\n")
        (repo / "app/other.py").unlink()
        r = svc.index(dry_run=True)
        assert r.dryRun and r.reparsedPaths == ["app/util.py"] and r.deleted == 1 and r.embedded == 0
        assert snapshot(svc.db) == before and svc.db.get_meta("generation") == gen
        assert not on_file or svc.db_path.stat().st_mtime_ns == mtime
        full = svc.index(full=True, dry_run=True)
        assert full.dryRun and snapshot(svc.db) == before
    finally:
        svc.close()


def test_dry_run_on_a_fresh_repo_builds_no_index(tmp_path: Path) -> None:
    root = make_repo(tmp_path, APP)
    svc = make_service(root)
    try:
        r = svc.index(dry_run=True)
        assert r.added == len(list(root.rglob("*.py")))
        assert not svc.is_indexed()
        assert svc.status().files == 0
    finally:
        svc.close()


# -- crashes -------------------------------------------------------------------------------------------------
def _many_files(root: Path, n: int) -> None:
    for i in range(n):
        nxt = (i + 1) % n
        write_file(
            root,
            f"gen/pkg{i % 7}/mod_{i}.py",
            f"from gen.pkg{nxt % 7}.mod_{nxt} import func_{nxt}\n\n"
            f"class Thing{i}:\n    def method_{i}(self):\n        return func_{nxt}()\n\n"
            f'def func_{i}():\n    """Function number {i}."""\n    return shared_name()\n\n'
            f"def shared_name():\n    return {i}\n",
        )


def test_exception_inside_a_batch_leaves_a_consistent_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path, APP)
    _many_files(root, 30)
    monkeypatch.setattr(indexer_mod, "FILES_PER_TRANSACTION", 7)
    real_write = Indexer._write_file
    calls = {"n": 0}

    def crashing_write(self: Indexer, con: object, item: object, **kw: Any) -> tuple[int, list[int]]:
        calls["n"] += 1
        if calls["n"] == 17:
            raise KeyboardInterrupt  # like Ctrl-C in the middle of the third batch
        return real_write(self, con, item, **kw)  # type: ignore[arg-type]

    svc = make_service(root)
    try:
        monkeypatch.setattr(Indexer, "_write_file", crashing_write)
        with pytest.raises(KeyboardInterrupt):
            svc.index()
        _integrity_ok(svc)
        assert svc.db.scalar("SELECT count(*) FROM files") == 14  # two whole batches, never part of one
        assert snapshot(svc.db)["fts_rows"] == snapshot(svc.db)["node_rows"]
        assert svc.db.get_meta("resolve_pending") == "1"
        monkeypatch.setattr(Indexer, "_write_file", real_write)
        r = svc.index()
        assert r.parsed == r.files - 14
        assert snapshot(svc.db) == _clean_build(root, tmp_path)
    finally:
        svc.close()


def test_crash_during_incremental_run_then_recovery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path, APP)
    _many_files(root, 20)
    svc = index_repo(root)
    try:
        for i in range(0, 20, 3):
            edit_file(root, f"gen/pkg{i % 7}/mod_{i}.py", f"def func_{i}():\n    return shared_name() + {i}\n")
        (root / "gen/pkg1/mod_1.py").unlink()
        monkeypatch.setattr(indexer_mod, "FILES_PER_TRANSACTION", 2)
        real_write = Indexer._write_file
        calls = {"n": 0}

        def crashing_write(self: Indexer, con: object, item: object, **kw: Any) -> tuple[int, list[int]]:
            calls["n"] += 1
            if calls["n"] == 4:
                raise RuntimeError("simulated crash")
            return real_write(self, con, item, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(Indexer, "_write_file", crashing_write)
        with pytest.raises(RuntimeError):
            svc.index()
        _integrity_ok(svc)
        monkeypatch.setattr(Indexer, "_write_file", real_write)
        svc.index()
        assert snapshot(svc.db) == _clean_build(root, tmp_path)
    finally:
        svc.close()


def test_crash_before_resolve_is_finished_next_run(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = index_repo(repo)
    try:
        write_file(repo, "app/late.py", "def later_defined():\n    return 1\n")

        def boom(*_a: object, **_k: object) -> int:
            raise RuntimeError("crash before resolving")

        monkeypatch.setattr(Indexer, "_resolve", boom)
        with pytest.raises(RuntimeError):
            svc.index()
        monkeypatch.undo()
        r = svc.index()  # nothing changed on disk, but the pending resolve must still run
        assert r.parsed == 0
        assert edge_target(svc.db, "other_entry", "later_defined")[2] == "import"
        assert snapshot(svc.db) == _clean_build(repo, tmp_path)
    finally:
        svc.close()


class _FlakyEmbedder:
    """Hashing embedder that fails after ``ok_batches`` batches."""

    def __init__(self, ok_batches: int) -> None:
        from igraph_mcp.embed.hashing import HashingEmbedder

        self.inner = HashingEmbedder(64)
        self.left = ok_batches
        self.id, self.dimension = self.inner.id, self.inner.dimension

    def embed(self, texts: list[str]) -> object:
        if self.left <= 0:
            raise EmbedderError("backend went away")
        self.left -= 1
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> object:
        return self.inner.embed_query(text)


def test_embedding_failure_keeps_structure_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path, APP)
    _many_files(root, 120)
    svc = make_service(root, embedder=_FlakyEmbedder(1))
    try:
        r = svc.index()
        assert r.embedNote is not None and "embedding stopped" in r.embedNote
        total = svc.db.scalar("SELECT count(*) FROM nodes")
        done = svc.db.scalar("SELECT count(*) FROM node_vectors")
        assert 0 < done < total and svc.is_indexed()
    finally:
        svc.close()
    again = make_service(root)
    try:
        r2 = again.index()
        assert r2.parsed == 0 and r2.embedded == total - done
        assert again.db.scalar("SELECT count(*) FROM node_vectors") == total
    finally:
        again.close()


def test_same_size_same_mtime_edit_right_after_a_build_is_detected(tmp_path: Path) -> None:
    # A "racily clean" file: edited within the same timestamp tick as the build, size unchanged.
    root = tmp_path / "racy"
    root.mkdir()
    target = root / "calc.py"
    target.write_text("def alpha_value():\n    return 1\n", encoding="utf-8")
    svc = make_service(root, embedder=HashingEmbedder(16))
    try:
        svc.index()
        before = target.stat()
        target.write_text("def omega_value():\n    return 1\n", encoding="utf-8")  # same length
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        result = svc.index()
        assert result.reparsedPaths == ["calc.py"]
        assert svc.node("omega_value").found and not svc.node("alpha_value").found
    finally:
        svc.close()


def test_a_written_batch_lets_its_files_bytes_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path, APP)
    _many_files(root, 12)
    monkeypatch.setattr(indexer_mod, "FILES_PER_TRANSACTION", 5)
    real_write_batch = indexer_mod.write_batch
    held: list[int] = []  # bytes still held by the files written before each batch
    written: list[Any] = []

    def recording(db: Any, parsed: Any, **kwargs: Any) -> Any:
        held.append(sum(len(c.data) for c in written))
        assert all(c.data for c, *_ in parsed)  # a batch is written from its files' bytes
        written.extend(c for c, *_ in parsed)
        return real_write_batch(db, parsed, **kwargs)

    monkeypatch.setattr(indexer_mod, "write_batch", recording)
    svc = make_service(root)
    try:
        svc.index(embed=False)
        assert len(held) >= 3 and held == [0] * len(held)
        assert len(written) == svc.status().files and all(c.data == b"" for c in written)
    finally:
        svc.close()
