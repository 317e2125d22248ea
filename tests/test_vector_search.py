"""The in-memory vector search answers exactly like sqlite-vec, and reloads when the index changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from igraph_mcp.embed.hashing import HashingEmbedder
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
