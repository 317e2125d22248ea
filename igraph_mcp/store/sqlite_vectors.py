"""The SQLite vector index: sqlite-vec's vec0 tables, searched by brute force (a reader may keep the vectors in
memory instead: retrieve/vector_search.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from igraph_mcp.store.backend import Ranked, StoreReader, VectorIndex, WriteConnection
from igraph_mcp.store.bind import placeholders
from igraph_mcp.store.records import Neighbour, NodeVector


class SqliteVecIndex(VectorIndex):
    """vec0 tables with cosine distance; file_id is a metadata column so KNN can be pre-filtered."""

    indexed_knn = False

    def __init__(self, db: StoreReader) -> None:
        self.db = db

    def column_sql(self, column: str) -> str:
        """vec0 returns float32 bytes as they are."""
        return column

    def to_bytes(self, value: Any) -> bytes:
        """The column's bytes."""
        return bytes(value)

    def node_count(self) -> int:
        """Stored node vectors, from vec0's table of row ids (one row per vector): a count(*) of the virtual table
        visits every chunk of vectors (42 ms at 62k vectors), this B-tree count stays under a millisecond."""
        return int(self.db.scalar("SELECT count(*) FROM node_vectors_rowids", default=0))

    def create_tables(self, con: WriteConnection, dimension: int) -> None:
        """Create the vec0 tables for ``dimension``."""
        con.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS node_vectors USING vec0("
            f"node_id INTEGER PRIMARY KEY, file_id INTEGER, embedding float[{int(dimension)}] distance_metric=cosine)"
        )
        con.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS resource_vectors USING vec0("
            f"resource_id INTEGER PRIMARY KEY, embedding float[{int(dimension)}] distance_metric=cosine)"
        )

    def clear_nodes(self, con: WriteConnection) -> None:
        """Drop the node vector table (created again for the embedder in use)."""
        con.execute("DROP TABLE IF EXISTS node_vectors")

    def store_nodes(self, con: WriteConnection, rows: Iterable[NodeVector]) -> None:
        """Write node vectors, replacing any the nodes had, and record their text hashes."""
        for node_id, file_id, blob, text_hash in rows:
            con.execute("DELETE FROM node_vectors WHERE node_id = ?", (node_id,))
            con.execute("INSERT INTO node_vectors(node_id, file_id, embedding) VALUES(?,?,?)", (node_id, file_id, blob))
            con.execute("UPDATE nodes SET embed_hash = ? WHERE id = ?", (text_hash, node_id))

    def store_resources(self, con: WriteConnection, rows: Iterable[tuple[int, bytes, str]]) -> None:
        """Write resource vectors and record their text hashes."""
        for rid, blob, text_hash in rows:
            con.execute("DELETE FROM resource_vectors WHERE resource_id = ?", (rid,))
            con.execute("INSERT INTO resource_vectors(resource_id, embedding) VALUES(?,?)", (rid, blob))
            con.execute("UPDATE resources SET embed_hash = ? WHERE id = ?", (text_hash, rid))

    def shared(self, embedder_id: str, dimension: int, hashes: Sequence[str]) -> dict[str, bytes]:
        """A SQLite file shares its vectors with no one."""
        return {}

    @contextmanager
    def bulk_loading(self, adding: int) -> Iterator[None]:
        """vec0 has no graph to rebuild: nothing to do around a large load."""
        yield

    def knn_nodes(self, query: bytes, k: int) -> list[Neighbour]:
        """Nearest nodes overall, best first."""
        rows = self.db.rows(
            "SELECT node_id, file_id, distance FROM node_vectors WHERE embedding MATCH ? AND k = ?",
            (query, k),
        )
        # Similarities equal to 6 decimals in node id order, as the server's matrix ranks them (rounded the same
        # quantity the same way: retrieve/vector_search.TIE_DIGITS).
        ranked = sorted(rows, key=lambda r: (-round(1.0 - float(r[2]), 6), int(r[0])))
        return [Neighbour(int(r[0]), int(r[1]), 1.0 - float(r[2])) for r in ranked]

    def similarities_in_files(self, query: bytes, file_ids: Sequence[int], k: int) -> list[Neighbour]:
        """Exact similarity by point lookups of the files' nodes: a filtered vec0 KNN would still scan every
        vector, and the files' nodes are few."""
        ph = placeholders(len(file_ids))
        rows = self.db.rows(
            "SELECT n.id, n.file_id, 1.0 - vec_distance_cosine(v.embedding, ?) AS sim FROM nodes n "  # noqa: S608
            f"JOIN node_vectors v ON v.node_id = n.id WHERE n.file_id IN ({ph}) ORDER BY sim DESC LIMIT ?",
            (query, *file_ids, k),
        )
        return [Neighbour(int(r[0]), int(r[1]), float(r[2])) for r in rows]

    def knn_resources(self, query: bytes, k: int) -> Ranked:
        """Nearest resource chunks, best first."""
        rows = self.db.rows(
            "SELECT resource_id, distance FROM resource_vectors WHERE embedding MATCH ? AND k = ?", (query, k)
        )
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]
