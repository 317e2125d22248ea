"""The text and dense channels through the store functions: a tree indexed into SQLite and into PostgreSQL answers
the same, through incremental edits, and a second repository reuses the first one's vectors from the cache."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from _factories import edit_file

from igraph_mcp.config import Config
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.index.build import build_index
from igraph_mcp.models import IndexResult
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import node_text, pg_counts, pg_vectors
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store import resources as res_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database, SqliteDatabase

PACKAGE = Path(__file__).resolve().parent.parent / "igraph_mcp"
QUERIES = [
    ["bm25", "weights"],
    ["snapshot", "transaction", "reader"],
    ["embed_hash", "vector"],
    ["fts5", "tokenizer", "unicode61"],
    ["x.y", "rrf", "fusion", "k"],
    ["café", "nothing_here"],
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small real tree: two of this package's rooms."""
    root = tmp_path / "repo"
    for room in ("store", "retrieve"):
        shutil.copytree(PACKAGE / room, root / "pkg" / room, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _index(root: Path, db: Database, *, full: bool = False) -> IndexResult:
    return build_index(
        root,
        db,
        Config(),
        full=full,
        dry_run=False,
        embedder=HashingEmbedder(64),
        embedder_note=None,
        progress=None,
    )


def _pg(url: str, name: str) -> Database:
    from igraph_mcp.store.pg_db import PgDatabase

    return PgDatabase.open_for_write(url, name)


@pytest.fixture
def stores(tree: Path, tmp_path: Path, pg_url: str) -> Iterator[tuple[Database, Database]]:
    """The tree indexed into a SQLite file and into a repository of a fresh PostgreSQL database."""
    lite = SqliteDatabase.open_for_write(tmp_path / "index.db")
    pg = _pg(pg_url, "repo")
    try:
        _index(tree, lite)
        _index(tree, pg)
        yield lite, pg
    finally:
        lite.close()
        pg.close()


def _qnames(db: Database, ranked: list[tuple[int, float]]) -> list[tuple[str, float]]:
    ids = [i for i, _ in ranked]
    parts = node_store.part_spans(db, ids)  # a part of a long definition is named by its definition and its lines
    rows = node_store.nodes_by_ids(db, [*ids, *(p.owner_id for p in parts.values())])
    names = {n.id: f"{n.path}:{n.qualified_name}:{n.start_line}" for n in rows.values()}
    names |= {i: f"{names[p.owner_id]}:part:{p.start_line}-{p.end_line}" for i, p in parts.items()}
    return [(names[i], round(s, 9)) for i, s in ranked]


def _assert_same_text(lite: Database, pg: Database) -> None:
    for tokens in QUERIES:
        a = _qnames(lite, node_text.fts_search(lite, tokens, 50))
        b = _qnames(pg, node_text.fts_search(pg, tokens, 50))
        assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-9)
        assert {n for n, _ in a} == {n for n, _ in b} or len({s for _, s in a}) < len(a)  # ties may swap at the cut
        assert node_text.token_doc_freqs(lite, tokens) == node_text.token_doc_freqs(pg, tokens)


def test_text_channel_matches_sqlite(stores: tuple[Database, Database]) -> None:
    lite, pg = stores
    _assert_same_text(lite, pg)
    assert node_text.fts_search(pg, ["bm25"], 5)  # the query finds something
    lite_ids = res_store.nodes_mentioning(lite, ["snapshot", "reader"], 20)
    pg_ids = res_store.nodes_mentioning(pg, ["snapshot", "reader"], 20)
    assert _qnames(lite, [(i, 0.0) for i in lite_ids]) == _qnames(pg, [(i, 0.0) for i in pg_ids])


def test_text_channel_follows_edits_renames_and_deletes(stores: tuple[Database, Database], tree: Path) -> None:
    lite, pg = stores
    edit_file(tree, "pkg/store/fts.py", "def bm25_weights_changed(x_y):\n    return 'café bm25 weights'\n")
    (tree / "pkg/retrieve/fusion.py").rename(tree / "pkg/retrieve/fusion_moved.py")
    (tree / "pkg/store/lock.py").unlink()
    for db in (lite, pg):
        _index(tree, db)
    _assert_same_text(lite, pg)
    best = _qnames(pg, node_text.fts_search(pg, ["bm25_weights_changed"], 5))[0][0]
    assert best.startswith("pkg/store/fts.py:")
    assert pg.scalar("SELECT count(*) FROM nodes_fts") == lite.scalar("SELECT count(*) FROM nodes_fts")


def _counted(db: Database) -> dict[str, int]:
    return {
        "files": int(db.scalar("SELECT count(*) FROM files")),
        "nodes": int(db.scalar("SELECT count(*) FROM nodes")),
        "edges": int(db.scalar("SELECT count(*) FROM edges")),
        "bound_edges": int(db.scalar("SELECT count(*) FROM edges WHERE target_id IS NOT NULL")),
        "parts": int(db.scalar("SELECT count(*) FROM nodes WHERE kind = 'part'")),
    }


def test_trigger_kept_counts_follow_every_kind_of_write(stores: tuple[Database, Database], tree: Path) -> None:
    lite, pg = stores
    assert pg_counts.row_counts(pg) == _counted(pg) and _counted(pg)["bound_edges"] > 100 and _counted(pg)["parts"] > 0
    steps = [
        lambda: edit_file(tree, "pkg/store/fts.py", "def bm25_weights_changed(x_y):\n    return x_y\n"),
        lambda: (tree / "pkg/store/lock.py").unlink(),  # its nodes and edges cascade, edges into it lose targets
        lambda: edit_file(
            tree,
            "pkg/store/new_mod.py",
            "from pkg.store.node_text import fts_search\n\n\ndef uses():\n    return fts_search(None, [], 1)\n",
        ),
        lambda: (tree / "pkg/store/db.py").unlink(),  # a widely imported file: many edges re-bound
    ]
    for step in steps:
        step()
        for db in (lite, pg):
            _index(tree, db)
        assert pg_counts.row_counts(pg) == _counted(pg)
        assert count_store.counts(pg) == count_store.counts(lite)
        # The resolved edges by kind, kept on both stores (pg_counts, sqlite_counts), as a GROUP BY counts them.
        kinds = {
            str(k): int(n)
            for k, n in pg.rows("SELECT kind, count(*) FROM edges WHERE target_id IS NOT NULL GROUP BY kind")
        }
        assert count_store.edge_kind_counts(pg) == count_store.edge_kind_counts(lite) == kinds
    _index(tree, pg, full=True)
    assert pg_counts.row_counts(pg) == _counted(pg)
    assert count_store.index_totals(pg) == count_store.index_totals(lite)


def test_dense_channel_matches_sqlite(stores: tuple[Database, Database]) -> None:
    lite, pg = stores
    assert vec_store.node_vector_count(pg) == vec_store.node_vector_count(lite) > 100
    ids = sorted(vec_store.all_node_vectors(lite)[0])[:5]
    for nid in ids:
        query = vec_store.node_vectors_by_id(lite, [nid])[nid]
        a = vec_store.knn_nodes(lite, query, 10)
        b = vec_store.knn_nodes(pg, query, 10)
        assert b[0][0] == nid and b[0][2] == pytest.approx(1.0, abs=1e-3)
        assert len({i for i, _, _ in a} & {i for i, _, _ in b}) >= 8  # halfvec rounding may swap near-ties
        files = sorted({f for _, f, _ in a})[:3]
        in_a = vec_store.similarities_in_files(lite, query, files, 5)
        in_b = vec_store.similarities_in_files(pg, query, files, 5)
        assert [s for *_, s in in_b] == pytest.approx([s for *_, s in in_a], abs=2e-3)


def test_second_repository_reuses_the_first_ones_vectors(
    stores: tuple[Database, Database], tree: Path, pg_url: str
) -> None:
    lite, pg = stores
    # The first repository embedded everything itself (a fresh database: an empty cache), as SQLite did.
    assert pg.scalar("SELECT count(*) FROM igraph.vector_cache") == lite.scalar(
        "SELECT count(DISTINCT embed_hash) FROM nodes"
    )
    other = _pg(pg_url, "other")
    try:
        result = _index(tree, other)
        assert result.embedded == 0
        assert result.embedReused == vec_store.node_vector_count(pg)
        assert vec_store.node_vector_count(other) == vec_store.node_vector_count(pg)
        assert vec_store.all_vectors_by_hash(other) == vec_store.all_vectors_by_hash(pg)
    finally:
        other.close()


def test_hnsw_path_answers_like_the_exact_scan(
    stores: tuple[Database, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    _lite, pg = stores
    ids = sorted(vec_store.all_node_vectors(pg)[0])[:5]
    queries = vec_store.node_vectors_by_id(pg, ids)
    exact = {nid: vec_store.knn_nodes(pg, q, 10) for nid, q in queries.items()}
    monkeypatch.setattr(pg_vectors, "EXACT_BELOW", 0)  # every table counts as large: the HNSW order is asked for
    # With statistics the planner scans a table this small instead; the index must still be able to answer.
    pg.rows("SELECT set_config('enable_seqscan', 'off', false)")
    plan = pg.rows(
        "EXPLAIN SELECT node_id FROM node_vectors ORDER BY embedding <=> ?::halfvec LIMIT 10",
        (pg_vectors.literal(queries[ids[0]]),),
    )
    assert "node_vectors_hnsw" in " ".join(str(r[0]) for r in plan)
    for nid, q in queries.items():
        got = vec_store.knn_nodes(pg, q, 10)
        assert got[0][0] == nid
        assert len({i for i, _, _ in got} & {i for i, _, _ in exact[nid]}) >= 9
    assert len(vec_store.knn_nodes(pg, queries[ids[0]], 300)) == min(300, vec_store.node_vector_count(pg))
    pg.rows("SELECT set_config('enable_seqscan', 'on', false)")


def _has_hnsw(db: Database) -> bool:
    return bool(db.scalar("SELECT count(*) FROM pg_indexes WHERE indexname = ?", (pg_vectors.NODE_INDEX,)))


def test_a_bulk_load_builds_the_vector_index_once_at_the_end(
    tree: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_vectors, "BULK_FROM", 50)  # the tree's few hundred vectors count as a bulk load
    events: list[str] = []
    real_drop, real_build = pg_vectors.drop_node_index, pg_vectors.build_node_index
    monkeypatch.setattr(pg_vectors, "drop_node_index", lambda con: (events.append("drop"), real_drop(con)))
    monkeypatch.setattr(pg_vectors, "build_node_index", lambda con: (events.append("build"), real_build(con)))
    pg = _pg(pg_url, "bulk")
    try:
        first = _index(tree, pg)
        assert first.embedded > 100 and events == ["drop", "build"] and _has_hnsw(pg)
        edit_file(tree, "pkg/store/fts.py", "def one_more_function():\n    return 1\n")
        _index(tree, pg)  # a few vectors added to many: into the graph as they come
        assert events == ["drop", "build"] and _has_hnsw(pg)
        ids = sorted(vec_store.all_node_vectors(pg)[0])[:3]
        for nid, q in vec_store.node_vectors_by_id(pg, ids).items():
            assert vec_store.knn_nodes(pg, q, 5)[0][0] == nid
    finally:
        pg.close()


def test_a_bulk_load_stopped_on_the_way_leaves_the_index_to_the_next_run(
    tree: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pg_vectors, "BULK_FROM", 50)
    pg = _pg(pg_url, "stopped")
    try:
        monkeypatch.setattr(
            pg_vectors, "build_node_index", lambda con: con.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        )
        with caplog.at_level("WARNING"):
            result = _index(tree, pg)  # every vector is committed; only the index build lost its connection
        assert result.embedded > 100 and "the next index run builds it" in caplog.text
    finally:
        pg.close()
    monkeypatch.undo()
    again = _pg(pg_url, "stopped")
    try:
        assert not _has_hnsw(again)
        _index(tree, again)
        assert _has_hnsw(again) and vec_store.node_vector_count(again) == again.scalar("SELECT count(*) FROM nodes")
    finally:
        again.close()
