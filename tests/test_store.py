"""Tests for the store: connection, migrations, corruption, the write primitive, graph SQL, FTS, vectors."""

from __future__ import annotations

from pathlib import Path

import apsw
import numpy as np
import pytest

from igraph_mcp.errors import IndexBusy, SchemaTooNew
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import db as db_mod
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import files as file_store
from igraph_mcp.store import imports as import_store
from igraph_mcp.store import node_text
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store import status as status_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.bind import MAX_BOUND
from igraph_mcp.store.db import Database, SqliteDatabase
from igraph_mcp.store.fts import fts_or_query, fts_tokens, quote_token
from igraph_mcp.store.records import NewEdge, NewFile, NewImport, NewNode, NodeText
from igraph_mcp.store.schema import MIGRATIONS, SCHEMA_VERSION


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = SqliteDatabase(tmp_path / ".igraph" / "igraph.db")
    yield database
    database.close()


def _add_file(db: Database, path: str, names: list[str]) -> tuple[int, list[int]]:
    """A file with a module node plus one function per name, FTS rows included."""
    with db.atomic() as con:
        fid = file_store.insert_file(con, NewFile(path, "python", "sha-" + path, 10, 1, 5, "ok", 0.0))
        ids = [node_store.insert_node(con, NewNode(fid, None, "module", path, path, "", "", "", 1, 5, 0, 10, 1))]
        for i, name in enumerate(names):
            ids.append(
                node_store.insert_node(
                    con, NewNode(fid, ids[0], "function", name, name, f"def {name}()", "", "", i + 1, i + 1, 0, 1, 1)
                )
            )
        node_text.insert_fts(
            con, [NodeText(nid, n, n, n, path, "", "", "") for nid, n in zip(ids, [path, *names], strict=True)]
        )
    return fid, ids


# -- connection and migrations -------------------------------------------------------------------------------
def test_new_database_has_schema_wal_and_foreign_keys(db: Database) -> None:
    assert db.get_meta("schema_version") == str(SCHEMA_VERSION)
    assert db.scalar("PRAGMA journal_mode") == "wal"
    assert db.scalar("PRAGMA foreign_keys") == 1
    tables = {r[0] for r in db.rows("SELECT name FROM sqlite_master")}
    assert {"files", "nodes", "edges", "imports", "nodes_fts", "meta", "migrations", "resources"} <= tables


def test_reopening_does_not_reapply_migrations(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    SqliteDatabase(path).close()
    again = SqliteDatabase(path)
    try:
        assert again.rows("SELECT version FROM migrations") == [(v,) for v, _ in MIGRATIONS]
    finally:
        again.close()


def test_newer_schema_is_refused_with_upgrade_hint(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    first = SqliteDatabase(path)
    with first.atomic() as con:
        con.execute("INSERT INTO migrations(version, applied_at) VALUES(?, 0)", (SCHEMA_VERSION + 5,))
    first.close()
    with pytest.raises(SchemaTooNew, match="upgrade igraph-mcp"):
        SqliteDatabase(path)
    assert path.exists()  # refused, never moved aside or wiped


def test_sqlite_vec_loads_here(db: Database) -> None:
    assert db.vec_available, db.vec_error


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"this is not a database at all" * 100, "not a SQLite database"),
        (b"\x00\xff" * 4096, "not a SQLite database"),
    ],
)
def test_garbage_file_is_moved_aside_and_rebuilt(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "i.db"
    path.write_bytes(content)
    database = SqliteDatabase(path)
    try:
        assert database.recovered_from == reason
        assert database.get_meta("schema_version") == str(SCHEMA_VERSION)
    finally:
        database.close()
    aside = list(tmp_path.glob("i.db.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content  # nothing is deleted


def test_truncated_database_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    database = SqliteDatabase(path)
    _add_file(database, "a.py", [f"fn_{i}" for i in range(400)])
    database.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    database.close()
    data = path.read_bytes()
    assert len(data) > 8192
    path.write_bytes(data[: len(data) // 2])
    again = SqliteDatabase(path)
    try:
        assert again.recovered_from is not None
        assert again.scalar("SELECT count(*) FROM files") == 0
    finally:
        again.close()


def test_empty_file_is_treated_as_new_database(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    path.write_bytes(b"")
    database = SqliteDatabase(path)
    try:
        assert database.recovered_from is None
        assert database.get_meta("schema_version") == str(SCHEMA_VERSION)
    finally:
        database.close()


def test_readonly_connection_reads(tmp_path: Path) -> None:
    path = tmp_path / "i.db"
    writer = SqliteDatabase(path)
    _add_file(writer, "a.py", ["alpha"])
    ro = SqliteDatabase(path, readonly=True)
    try:
        assert ro.scalar("SELECT count(*) FROM files") == 1
    finally:
        ro.close()
        writer.close()


# -- the write primitive -------------------------------------------------------------------------------------
def test_atomic_commits(db: Database) -> None:
    with db.atomic() as con:
        db.set_meta(con, "k", "v")
    assert db.get_meta("k") == "v"


def test_atomic_rolls_back_on_error(db: Database) -> None:
    with pytest.raises(RuntimeError), db.atomic() as con:
        db.set_meta(con, "k", "v")
        raise RuntimeError("boom")
    assert db.get_meta("k") is None
    with db.atomic() as con:  # the connection is usable again
        db.set_meta(con, "k", "w")
    assert db.get_meta("k") == "w"


def test_atomic_raises_index_busy_when_another_connection_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_mod, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "i.db"
    first, second = SqliteDatabase(path), SqliteDatabase(path)
    try:
        with first.atomic() as con:
            db_mod.SqliteDatabase.set_meta(first, con, "held", "1")
            with pytest.raises(IndexBusy, match="another igraph-mcp process"), second.atomic():
                pass
        assert second.get_meta("held") == "1"  # readers see the committed write afterwards
    finally:
        first.close()
        second.close()


def test_meta_upsert(db: Database) -> None:
    with db.atomic() as con:
        db.set_meta(con, "gen", "1")
        db.set_meta(con, "gen", "2")
    assert db.get_meta("gen") == "2"
    assert db.get_meta("missing", "dflt") == "dflt"


# -- FTS helpers ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("parse_file", ["parse_file"]),
        ("Session.request", ["session", "request"]),
        ('foo" NEAR( a* ^x a:b', ["foo", "near", "a", "x", "b"]),
        ("__init__", ["init"]),
        ("dup Dup DUP", ["dup"]),
        ("", []),
        ("!!! ??? ...", []),
        ("用户登录", ["用户登录"]),
        ("café", ["café"]),
    ],
)
def test_fts_tokens(text: str, tokens: list[str]) -> None:
    assert fts_tokens(text) == tokens


@pytest.mark.parametrize(
    ("token", "quoted"),
    [("foo", '"foo"'), ('foo"', '"foo"""'), ("NEAR(", '"NEAR("'), ("a*", '"a*"'), ("", '""')],
)
def test_quote_token(token: str, quoted: str) -> None:
    assert quote_token(token) == quoted


def test_fts_or_query_skips_empty_tokens() -> None:
    assert fts_or_query(["a", "", "b"]) == '"a" OR "b"'
    assert fts_or_query([]) == ""


# -- graph SQL -----------------------------------------------------------------------------------------------
def test_fts_search_ranks_name_matches_first(db: Database) -> None:
    _add_file(db, "a.py", ["load_config", "save_config", "unrelated"])
    _add_file(db, "b.py", ["render", "paint"])
    hits = node_text.fts_search(db, ["load_config"], 10)
    rows = node_store.nodes_by_ids(db, [nid for nid, _ in hits])
    assert rows[hits[0][0]].name == "load_config"
    assert all(score > 0 for _, score in hits)
    assert node_text.fts_search(db, [], 10) == []


@pytest.mark.parametrize("token", ['foo"', "NEAR(", "a*", "^x", "a:b", "AND", "OR", "(", "don't", '"', "*"])
def test_fts_search_never_sees_syntax(db: Database, token: str) -> None:
    # Unquoted, "a*" would prefix-match "alpha" and "NEAR(" would be a syntax error; quoted, neither matches.
    _add_file(db, "mod.py", ["alpha"])
    assert node_text.fts_search(db, [token], 5) == []


def test_file_stats_of_every_file_and_of_a_few_agree(db: Database) -> None:
    # Status asks for every indexed path (one scan of the table); a lookup asks for a few (bound parameters).
    n = MAX_BOUND + 3
    with db.atomic() as con:
        for i in range(n):
            file_store.insert_file(con, NewFile(f"p/{i}.py", "python", "sha", 100 + i, 7 * i, 5, "ok", 0.0))
    every = [f"p/{i}.py" for i in range(n)] + ["not/indexed.py"]
    got = file_store.file_stats(db, every)
    assert len(got) == n and "not/indexed.py" not in got
    assert got["p/3.py"] == (103, 21) and got[f"p/{n - 1}.py"] == (100 + n - 1, 7 * (n - 1))
    few = ["p/3.py", "p/5.py", "not/indexed.py"]
    assert file_store.file_stats(db, few) == {p: got[p] for p in few if p in got}
    assert file_store.file_stats(db, every[:-1][1:]) == {p: v for p, v in got.items() if p != "p/0.py"}


def test_token_doc_freqs_counts_rows(db: Database) -> None:
    _add_file(db, "a.py", ["alpha", "beta"])
    _add_file(db, "b.py", ["alpha"])
    freqs = node_text.token_doc_freqs(db, ["alpha", "beta", "absent"])
    assert freqs == {"alpha": 2, "beta": 1}


def test_token_doc_freqs_follow_every_commit(db: Database, tmp_path: Path) -> None:
    # The counts are kept between queries: a reader must still see another connection's commit, its own
    # connection's, and not a rolled-back one.
    reader = SqliteDatabase.open_for_read(tmp_path / ".igraph" / "igraph.db")
    try:
        _add_file(db, "a.py", ["alpha"])
        assert node_text.token_doc_freqs(reader, ["alpha", "beta"]) == {"alpha": 1}
        assert node_text.token_doc_freqs(reader, ["alpha", "beta"]) == {"alpha": 1}  # the kept counts
        _add_file(db, "b.py", ["alpha", "beta"])  # the writer's connection commits
        assert node_text.token_doc_freqs(reader, ["alpha", "beta"]) == {"alpha": 2, "beta": 1}
        _add_file(db, "c.py", ["beta"])
        assert node_text.token_doc_freqs(db, ["beta"]) == {"beta": 2}  # the writer reads its own commits
        with pytest.raises(RuntimeError), db.atomic() as con:
            con.execute("DELETE FROM nodes_fts")
            raise RuntimeError("rolled back")
        assert node_text.token_doc_freqs(reader, ["alpha", "beta"]) == {"alpha": 2, "beta": 2}
        with db.atomic() as con:
            con.execute("DELETE FROM nodes_fts")
        assert node_text.token_doc_freqs(reader, ["alpha", "beta"]) == {}
        assert node_text.token_doc_freqs(db, ["alpha", "beta"]) == {}
    finally:
        reader.close()


def test_token_doc_freqs_folds_like_the_tokenizer(db: Database) -> None:
    # unicode61 with remove_diacritics stores "café" as "cafe"; the lookup must fold the same way or the
    # token is dropped as "absent" and an accented query never matches (Q3).
    _add_file(db, "a.py", ["café_total", "Größe"])
    freqs = node_text.token_doc_freqs(db, ["café_total", "größe"])
    assert freqs == {"café_total": 1, "größe": 1}


def test_delete_file_cascades_and_unbinds_incoming_edges(db: Database) -> None:
    _fa, ids_a = _add_file(db, "a.py", ["caller"])
    fb, ids_b = _add_file(db, "b.py", ["callee"])
    with db.atomic() as con:
        edge_store.insert_edges(con, [NewEdge(ids_a[1], ids_b[1], "calls", "callee", "", "unique_global", 1)])
        import_store.insert_imports(con, [NewImport(fb, "os", "", "", 1)])
    with db.atomic() as con:
        file_store.delete_file(con, fb, vectors=False)
    assert node_store.nodes_by_ids(db, ids_b) == {}
    assert db.scalar("SELECT count(*) FROM nodes_fts WHERE rowid IN (?, ?)", tuple(ids_b)) == 0
    assert db.scalar("SELECT count(*) FROM imports") == 0
    edge = db.one("SELECT target_id, resolution, target_name FROM edges WHERE source_id = ?", (ids_a[1],))
    assert edge == (None, "stale", "callee")  # kept, so a later run can re-bind it
    assert count_store.counts(db)["unresolvedRefs"] == 1


def test_deleting_a_source_node_removes_its_edges(db: Database) -> None:
    fa, ids_a = _add_file(db, "a.py", ["caller"])
    _fb, ids_b = _add_file(db, "b.py", ["callee"])
    with db.atomic() as con:
        edge_store.insert_edges(con, [NewEdge(ids_a[1], ids_b[1], "calls", "callee", "", "unique_global", 1)])
        file_store.delete_file(con, fa, vectors=False)
    assert db.scalar("SELECT count(*) FROM edges") == 0


def test_rename_file_updates_path_and_fts(db: Database) -> None:
    fid, ids = _add_file(db, "old/place.py", ["moved_fn"])
    with db.atomic() as con:
        file_store.rename_file(con, fid, "new/spot.py", 7)
    assert file_store.file_paths(db) == {fid: "new/spot.py"}
    assert node_store.nodes_by_ids(db, ids)[ids[1]].path == "new/spot.py"
    assert db.scalar("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH '\"spot\"'") == 2
    assert db.scalar("SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH 'path:\"old\"'") == 0


def test_file_paths_with_suffix_escapes_like_wildcards(db: Database) -> None:
    _add_file(db, "src/a_b.py", [])
    _add_file(db, "src/axb.py", [])
    _add_file(db, "lib/a_b.py", [])
    assert file_store.file_paths_with_suffix(db, "a_b.py") == ["lib/a_b.py", "src/a_b.py"]
    assert file_store.file_paths_with_suffix(db, "src/a_b.py") == ["src/a_b.py"]
    assert file_store.file_paths_with_suffix(db, "%.py") == []
    assert file_store.file_paths_with_suffix(db, "b.py") == []  # a suffix matches whole path segments only


def test_nodes_named_prefers_qualified_and_skips_modules(db: Database) -> None:
    with db.atomic() as con:
        fid = file_store.insert_file(con, NewFile("m.py", "python", "s", 1, 1, 1, "ok", 0.0))
        mod = node_store.insert_node(con, NewNode(fid, None, "module", "run", "m", "", "", "", 1, 9, 0, 1, 1))
        cls = node_store.insert_node(con, NewNode(fid, mod, "class", "Job", "Job", "", "", "", 1, 5, 0, 1, 1))
        meth = node_store.insert_node(con, NewNode(fid, cls, "method", "run", "Job.run", "", "", "", 2, 3, 0, 1, 1))
        fn = node_store.insert_node(con, NewNode(fid, mod, "function", "run", "run", "", "", "", 6, 7, 0, 1, 1))
    assert [n.id for n in node_store.nodes_named(db, "run")] == [fn, meth]
    assert [n.id for n in node_store.nodes_named(db, "Job.run")] == [meth]


def test_edges_to_resolve_collects_changed_named_and_listed(db: Database) -> None:
    fa, ids_a = _add_file(db, "a.py", ["one"])
    _fb, ids_b = _add_file(db, "b.py", ["two"])
    _fc, ids_c = _add_file(db, "c.py", ["three"])
    with db.atomic() as con:
        edge_store.insert_edges(
            con,
            [
                NewEdge(ids_a[1], None, "calls", "x", "", "unresolved", 1),
                NewEdge(ids_b[1], None, "calls", "wanted", "", "unresolved", 1),
                NewEdge(ids_c[1], None, "calls", "y", "", "stale", 1),
                NewEdge(ids_c[0], ids_c[1], "contains", "three", "", "same_file", 1),
            ],
        )
    stale = [r.edge_id for r in edge_store.all_reference_edges(db) if r.target_name == "y"]
    assert sorted(r.target_name for r in edge_store.edges_to_resolve(db, [fa], {"wanted"})) == ["wanted", "x"]
    rows = edge_store.edges_to_resolve(db, [fa], {"wanted"}, stale)
    assert sorted(r.target_name for r in rows) == ["wanted", "x", "y"]
    assert len(edge_store.all_reference_edges(db)) == 3


def test_edges_of_directions_and_kinds(db: Database) -> None:
    _fa, ids_a = _add_file(db, "a.py", ["caller"])
    _fb, ids_b = _add_file(db, "b.py", ["callee"])
    with db.atomic() as con:
        edge_store.insert_edges(
            con,
            [
                NewEdge(ids_a[1], ids_b[1], "calls", "callee", "", "unique_global", 3),
                NewEdge(ids_a[1], None, "calls", "ghost", "", "unresolved", 4),
            ],
        )
    out = edge_store.edges_of(db, [ids_a[1]], outgoing=True, kinds=("calls",))
    assert [(e.target_id, e.line) for e in out] == [(ids_b[1], 3)]
    assert len(edge_store.edges_of(db, [ids_a[1]], outgoing=True, kinds=("calls",), resolved_only=False)) == 2
    assert [e.source_id for e in edge_store.edges_of(db, [ids_b[1]], outgoing=False, kinds=("calls",))] == [ids_a[1]]
    assert edge_store.edges_of(db, [ids_a[1]], outgoing=True, kinds=("inherits",)) == []


def test_many_ids_are_chunked(db: Database) -> None:
    _fid, ids = _add_file(db, "big.py", [f"f{i}" for i in range(2000)])
    assert len(node_store.nodes_by_ids(db, ids)) == len(ids)
    assert len(node_store.node_bodies(db, ids)) == len(ids)


def test_counts(db: Database) -> None:
    _fa, ids_a = _add_file(db, "a.py", ["x", "y"])
    with db.atomic() as con:
        edge_store.insert_edges(
            con,
            [
                NewEdge(ids_a[1], ids_a[2], "calls", "y", "", "same_file", 1),
                NewEdge(ids_a[1], None, "calls", "z", "", "unresolved", 1),
            ],
        )
    assert count_store.counts(db) == {"files": 1, "symbols": 2, "edges": 1, "unresolvedRefs": 1}
    assert count_store.edge_kind_counts(db) == {"calls": 1}


def test_index_summary_reads_what_status_reports_in_one_call(db: Database) -> None:
    _fa, ids_a = _add_file(db, "a.py", ["x", "y"])
    _add_file(db, "b.py", ["z"])
    with db.atomic() as con:
        edge_store.insert_edges(con, [NewEdge(ids_a[1], None, "calls", "z", "", "unresolved", 1)])
        db.set_meta(con, "last_build", "12.5")
    vec_store.prepare_vector_tables(db, _Maker())
    with db.atomic() as con:
        vec_store.store_node_vectors(con, [(ids_a[1], _fa, vec_store.to_blob(_unit(1, 0, 0, 0)), "h")])
    summary = status_store.index_summary(db)
    assert (summary.files, summary.symbols, summary.edges, summary.unresolved_refs) == (2, 3, 0, 1)
    assert summary.recorded == {"a.py": (10, 1), "b.py": (10, 1)} and summary.languages == {"python": 2}
    assert (summary.nodes, summary.vectors) == (5, 1)  # module nodes count toward coverage's denominator
    assert (summary.embedder_id, summary.embedder_dimension) == ("unit-test", 4)
    assert summary.last_build == 12.5 and summary.schema_version == SCHEMA_VERSION
    assert (summary.resources, summary.resource_sources, summary.skipped) == (0, 0, {})
    assert summary.db_bytes == db.size_bytes() > 0


class _Maker:
    id = "unit-test"
    dimension = 4


# -- vectors -------------------------------------------------------------------------------------------------
def _unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_vectors_knn_prefilter_and_reuse(db: Database) -> None:
    fa, ids_a = _add_file(db, "a.py", ["x", "y"])
    fb, ids_b = _add_file(db, "b.py", ["z"])
    with db.atomic() as con:
        vec_store.create_vector_tables(con, 4)
        vec_store.store_node_vectors(
            con,
            [
                (ids_a[1], fa, vec_store.to_blob(_unit(1, 0, 0, 0)), "h1"),
                (ids_a[2], fa, vec_store.to_blob(_unit(0, 1, 0, 0)), "h2"),
                (ids_b[1], fb, vec_store.to_blob(_unit(1, 0.1, 0, 0)), "h3"),
            ],
        )
    assert vec_store.has_node_vectors(db) and vec_store.node_vector_count(db) == 3
    q = vec_store.to_blob(_unit(1, 0, 0, 0))
    best = vec_store.knn_nodes(db, q, 3)
    assert [b[0] for b in best] == [ids_a[1], ids_b[1], ids_a[2]]
    assert best[0][2] == pytest.approx(1.0, abs=1e-5) and best[2][2] == pytest.approx(0.0, abs=1e-5)
    assert [b[0] for b in vec_store.similarities_in_files(db, q, [fb], 3)] == [ids_b[1]]
    assert [b[0] for b in vec_store.similarities_in_files(db, q, [fa], 1)] == [ids_a[1]]
    assert vec_store.similarities_in_files(db, q, [], 3) == []
    assert set(vec_store.vectors_for_files(db, [fa])) == {"h1", "h2"}
    assert np.allclose(vec_store.from_blob(vec_store.node_vectors_by_id(db, [ids_a[2]])[ids_a[2]]), _unit(0, 1, 0, 0))
    with db.atomic() as con:  # rewriting a vector replaces it, never duplicates it
        vec_store.store_node_vectors(con, [(ids_a[1], fa, vec_store.to_blob(_unit(0, 0, 1, 0)), "h1b")])
    assert vec_store.node_vector_count(db) == 3
    assert vec_store.count_nodes_to_embed(db) == 2  # the two module nodes


def test_vector_count_follows_writes_and_deletes(db: Database) -> None:
    # Status counts vectors from vec0's row-id table, not by visiting every chunk: the two must agree.
    files = [_add_file(db, f"m{i}.py", ["x", "y", "z"]) for i in range(4)]
    with db.atomic() as con:
        vec_store.create_vector_tables(con, 4)
        for n, (fid, ids) in enumerate(files):
            rows = [(nid, fid, vec_store.to_blob(_unit(1, n, k, 0)), f"h{nid}") for k, nid in enumerate(ids)]
            vec_store.store_node_vectors(con, rows)
    assert vec_store.node_vector_count(db) == 16 == db.scalar("SELECT count(*) FROM node_vectors")
    with db.atomic() as con:
        file_store.delete_file(con, files[1][0], vectors=True)
        vec_store.store_node_vectors(con, [(files[0][1][1], files[0][0], vec_store.to_blob(_unit(0, 1, 0, 0)), "r")])
    assert vec_store.node_vector_count(db) == 12 == db.scalar("SELECT count(*) FROM node_vectors")
    with pytest.raises(RuntimeError), db.atomic() as con:
        file_store.delete_file(con, files[2][0], vectors=True)
        raise RuntimeError("rolled back")
    assert vec_store.node_vector_count(db) == 12 == db.scalar("SELECT count(*) FROM node_vectors")


def test_drop_node_vectors_forgets_hashes(db: Database) -> None:
    fa, ids = _add_file(db, "a.py", ["x"])
    with db.atomic() as con:
        vec_store.create_vector_tables(con, 2)
        vec_store.store_node_vectors(con, [(ids[1], fa, vec_store.to_blob(_unit(1, 0)), "h")])
        vec_store.drop_all_vectors(con)
    assert not vec_store.has_node_vectors(db)
    assert vec_store.node_vector_count(db) == 0
    assert db.scalar("SELECT count(*) FROM nodes WHERE embed_hash IS NOT NULL") == 0


def test_load_vec_reports_failure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sqlite_vec

    monkeypatch.setattr(sqlite_vec, "loadable_path", lambda: str(tmp_path / "no-such-extension"))
    con = apsw.Connection(":memory:")
    try:
        reason = db_mod._load_vec(con)
    finally:
        con.close()
    assert reason is not None and "dense retrieval is off" in reason


def test_imports_mentioning_finds_words_in_module_name_and_relative_importer_path(db: Database) -> None:
    fa, _ = _add_file(db, "app/models/user.py", [])
    fb, _ = _add_file(db, "app/views.py", [])
    fc, _ = _add_file(db, "lib/other.py", [])
    with db.atomic() as con:
        import_store.insert_imports(
            con,
            [
                NewImport(fa, ".", "base", "", 1),  # relative: found through the importer's path (models)
                NewImport(fb, "app.models.user", "User", "", 1),
                NewImport(fb, "app.Models.base", "Base", "", 3),  # case is kept, as module keys keep it
                NewImport(fb, "os", "path", "", 2),
                NewImport(fc, "lib_%", "x", "", 1),  # LIKE's wildcards in a word are literal
            ],
        )
    assert import_store.imports_mentioning(db, ["models"]) == {
        fa: [(".", "base", "")],
        fb: [("app.models.user", "User", "")],
    }
    assert import_store.imports_mentioning(db, ["path"]) == {fb: [("os", "path", "")]}
    assert import_store.imports_mentioning(db, ["i_"]) == {}  # no LIKE pattern: "_" would match the "b" of "lib"
    assert import_store.imports_mentioning(db, ["_%"]) == {fc: [("lib_%", "x", "")]}


def test_nodes_to_embed_pages_by_id(db: Database) -> None:
    """Batches start after the last id seen: a loop never walks past the embedded prefix again."""
    _fa, ids = _add_file(db, "a.py", ["x", "y", "z"])
    every = [row[0] for row in vec_store.nodes_to_embed(db, 100)]
    assert every == sorted(every) and set(ids) <= set(every)
    first = vec_store.nodes_to_embed(db, 2)
    rest = vec_store.nodes_to_embed(db, 100, after=first[-1][0])
    assert [r[0] for r in first + rest] == every  # the pages cover every node once, in order
    assert vec_store.nodes_to_embed(db, 100, after=every[-1]) == []


def test_nodes_without_a_vector_are_counted_from_their_own_index(db: Database) -> None:
    """Status and progress polls count what is left to embed; the count reads the partial index (what is left), not
    every row with its body (0.25 s a poll at 59k nodes, taken from the embedder on a 2-core machine)."""
    _fa, ids = _add_file(db, "a.py", ["x", "y", "z"])
    plan = " ".join(
        str(r[-1]) for r in db.rows("EXPLAIN QUERY PLAN SELECT count(*) FROM nodes WHERE embed_hash IS NULL")
    )
    assert "nodes_unembedded" in plan
    assert vec_store.count_nodes_to_embed(db) == len(ids)
    with db.atomic() as con:
        con.execute("UPDATE nodes SET embed_hash = 'h' WHERE id = ?", (ids[0],))
    assert vec_store.count_nodes_to_embed(db) == len(ids) - 1
    assert db.scalar("SELECT count(*) FROM nodes INDEXED BY nodes_unembedded WHERE embed_hash IS NULL") == len(ids) - 1
