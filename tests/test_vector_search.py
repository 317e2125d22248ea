"""The in-memory vector search answers exactly like sqlite-vec, and reloads when the index changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.retrieve import vector_search
from igraph_mcp.retrieve.vector_search import MatrixSearch, StoreVectorSearch, VectorSearchCache
from igraph_mcp.service import IGraphService
from igraph_mcp.store import vectors as vec_store


def _indexed(tmp_path: Path, n_files: int = 12) -> IGraphService:
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(n_files):
        (root / f"mod{i}.py").write_text(
            f"def parse_item_{i}(text):\n    return text.split({i})\n\n"
            f"class Store{i}:\n    def save_{i}(self, row):\n        return row\n",
            encoding="utf-8",
        )
    svc = IGraphService(root, embedder=HashingEmbedder(64))
    svc.index()
    return svc


def test_matrix_search_matches_sqlite_vec(tmp_path: Path) -> None:
    svc = _indexed(tmp_path)
    db = svc.db
    matrix = VectorSearchCache().get(db)
    assert isinstance(matrix, MatrixSearch)
    exact = StoreVectorSearch(db)
    query = vec_store.to_blob(HashingEmbedder(64).embed_query("save a row to the store"))
    a, b = matrix.knn(query, 10), exact.knn(query, 10)
    assert [x[0] for x in a] == [x[0] for x in b]
    assert np.allclose([x[2] for x in a], [x[2] for x in b], atol=1e-5)
    files = sorted({fid for _nid, fid, _sim in b})[:3]
    a, b = matrix.in_files(query, files, 5), exact.in_files(query, files, 5)
    assert [x[0] for x in a] == [x[0] for x in b]
    assert {fid for _n, fid, _s in a} <= set(files)


def test_cache_reloads_after_an_index_change(tmp_path: Path) -> None:
    svc = _indexed(tmp_path, n_files=3)
    cache = VectorSearchCache()
    first = cache.get(svc.db)
    assert cache.get(svc.db) is first  # same version: no reload
    (svc.root / "extra.py").write_text("def brand_new_function():\n    return 1\n", encoding="utf-8")
    svc.index()
    second = cache.get(svc.db)
    assert second is not first
    assert isinstance(second, MatrixSearch) and isinstance(first, MatrixSearch)
    assert len(second.node_ids) > len(first.node_ids)


def test_a_large_matrix_is_scanned_in_two_halves_with_the_same_answers() -> None:
    rng = np.random.default_rng(7)
    n = vector_search.SPLIT_ROWS + 1_001
    matrix = rng.standard_normal((n, 32)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    file_ids = rng.integers(1, 400, size=n).astype(np.int64)
    search = MatrixSearch(np.arange(10, n + 10, dtype=np.int64), file_ids, matrix)
    queries = [matrix[5] + 0.1 * matrix[n - 3], matrix[n // 2]]
    for q in queries:
        blob = q.astype(np.float32).tobytes()
        sims = matrix @ q.astype(np.float32)
        best = np.argsort(-sims, kind="stable")[:20]
        assert [nb[0] for nb in search.knn(blob, 20)] == [int(i) + 10 for i in best]
        files = [int(f) for f in {file_ids[5], file_ids[n - 3], 399, 3}]
        rows = np.flatnonzero(np.isin(file_ids, files))
        in_files = rows[np.argsort(-sims[rows], kind="stable")[:15]]
        got = search.in_files(blob, files, 15)
        assert [nb[0] for nb in got] == [int(i) + 10 for i in in_files]
        assert {nb[1] for nb in got} <= set(files)
        np.testing.assert_allclose([nb[2] for nb in got], sims[in_files], rtol=1e-6)
    assert search.in_files(queries[0].astype(np.float32).tobytes(), [], 5) == []
