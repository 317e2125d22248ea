"""Nearest-neighbour search over node vectors: the store's vector index (sqlite-vec, pgvector), or a cached
in-memory matrix.

A brute-force scan inside sqlite-vec costs ~25 ms for 36k 384-d vectors on this machine (50+ ms when the other
core is busy); the same scan as one numpy matrix-vector product costs a few ms. The matrix is loaded once per
index version and used up to MATRIX_MAX_VECTORS; beyond that (memory), or where the database has a KNN index
(pgvector's HNSW), the database does the work.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np

from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import Neighbour

MATRIX_MAX_VECTORS = 250_000  # ~370 MB at 384-d float32; above this, stay in SQLite
SPLIT_ROWS = 20_000
"""From this many vectors a scan is cut in two halves, one on a worker thread: numpy lets go of the GIL in the
product and the scan is bound by memory, which two cores stream faster (86k x 384 on this 2-core machine: 8.2 ms
on one thread, 3.6 ms in two halves; numpy's own BLAS threads stay off, their spinning slows the query's other
threads)."""

Neighbours = list[Neighbour]  # best first


class VectorSearch(Protocol):
    """What the dense channel needs from a vector store."""

    def knn(self, query: bytes, k: int) -> Neighbours:
        """The k nearest nodes overall."""
        ...

    def in_files(self, query: bytes, file_ids: Sequence[int], k: int) -> Neighbours:
        """The k nearest nodes among those of some files."""
        ...


class StoreVectorSearch:
    """Search done by the database's own vector index (sqlite-vec's scan, pgvector's HNSW)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def knn(self, query: bytes, k: int) -> Neighbours:
        """The k nearest nodes overall."""
        return vec_store.knn_nodes(self.db, query, k)

    def in_files(self, query: bytes, file_ids: Sequence[int], k: int) -> Neighbours:
        """The k nearest nodes among those of some files."""
        return vec_store.similarities_in_files(self.db, query, file_ids, k)


TIE_DIGITS = 6  # decimals of a cosine that rank two nodes; closer ones go in node id order


class MatrixSearch:
    """All node vectors as one float32 matrix (rows are unit length, so a dot product is the cosine)."""

    def __init__(self, node_ids: np.ndarray, file_ids: np.ndarray, matrix: np.ndarray) -> None:
        self.node_ids = node_ids
        self.file_ids = file_ids
        self.matrix = matrix
        self._last = threading.local()  # this thread's last query and its similarities: in_files follows knn
        self._by_file: tuple[np.ndarray, np.ndarray] | None = None  # rows sorted by file id, and those file ids

    def similarities(self, query: bytes) -> np.ndarray:
        """Every row's cosine to ``query`` (kept for the asking thread's next call with the same query)."""
        last = getattr(self._last, "scan", None)
        if last is not None and last[0] == query:
            sims: np.ndarray = last[1]
            return sims
        q = np.frombuffer(query, dtype=np.float32)
        n = self.matrix.shape[0]
        if n < SPLIT_ROWS:
            sims = self.matrix @ q
        else:
            sims = np.empty(n, dtype=np.float32)
            half = n // 2
            other = _scan_worker().submit(np.matmul, self.matrix[:half], q, sims[:half])
            np.matmul(self.matrix[half:], q, sims[half:])
            other.result()
        self._last.scan = (query, sims)
        return sims

    def _top(self, sims: np.ndarray, rows: np.ndarray | None, k: int) -> Neighbours:
        if sims.size == 0:
            return []
        k = min(k, sims.size)
        part = np.argpartition(-sims, k - 1)[:k]
        idx = part if rows is None else rows[part]
        # Similarities equal to TIE_DIGITS in node id order, as the stored scan ranks them (store/sqlite_vectors.py):
        # the two compute a cosine in different float steps, and a CLI search should rank as the server does.
        order = part[np.lexsort((self.node_ids[idx], -np.round(sims[part], TIE_DIGITS)))]
        idx = order if rows is None else rows[order]
        # tolist() turns a whole column into Python numbers at once (float32 -> the same value as float())
        columns = zip(self.node_ids[idx].tolist(), self.file_ids[idx].tolist(), sims[order].tolist(), strict=True)
        return list(map(Neighbour._make, columns))

    def knn(self, query: bytes, k: int) -> Neighbours:
        """The k nearest nodes overall."""
        return self._top(self.similarities(query), None, k)

    def in_files(self, query: bytes, file_ids: Sequence[int], k: int) -> Neighbours:
        """The k nearest nodes among those of some files."""
        rows = self._rows_of(file_ids)
        return self._top(self.similarities(query)[rows], rows, k)

    def _rows_of(self, file_ids: Sequence[int]) -> np.ndarray:
        """The rows of some files, in row order (np.isin over every row cost ~0.4 ms a query)."""
        if self._by_file is None:
            order = np.argsort(self.file_ids, kind="stable")
            self._by_file = (order, self.file_ids[order])
        order, sorted_files = self._by_file
        wanted = np.asarray(sorted(set(file_ids)), dtype=np.int64)
        if not len(wanted):
            return np.empty(0, dtype=np.int64)
        starts = np.searchsorted(sorted_files, wanted, side="left")
        ends = np.searchsorted(sorted_files, wanted, side="right")
        return np.sort(np.concatenate([order[a:b] for a, b in zip(starts, ends, strict=True)]))


@functools.cache
def _scan_worker() -> ThreadPoolExecutor:
    """The thread that scans the first half of a large matrix while the asking thread scans the second."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="igraph-vector-scan")


class VectorSearchCache:
    """Hands out a MatrixSearch for the current index version, reloading it only when vectors changed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: tuple[str | None, ...] | None = None
        self._search: MatrixSearch | None = None

    def get(self, db: Database) -> VectorSearch:
        """The fastest search valid for the index as it is now."""
        version = (db.get_meta("generation"), db.get_meta("vectors_version"), db.get_meta("embedder_id"))
        with self._lock:
            if version == self._version and self._search is not None:
                return self._search
            if vec_store.indexed_knn(db) or vec_store.node_vector_count(db) > MATRIX_MAX_VECTORS:
                self._version, self._search = None, None
                return StoreVectorSearch(db)
            ids, fids, blobs = vec_store.all_node_vectors(db)
            if not ids:
                return StoreVectorSearch(db)
            matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1)
            self._search = MatrixSearch(np.asarray(ids, dtype=np.int64), np.asarray(fids, dtype=np.int64), matrix)
            self._version = version
            return self._search
