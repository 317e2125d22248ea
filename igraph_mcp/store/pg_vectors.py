"""Vectors on PostgreSQL: pgvector tables with an HNSW index, KNN in the same shape as sqlite-vec's, and the
team's shared cache of vectors by text hash (``igraph.vector_cache``).

Storage and search settings were chosen on real MiniLM vectors by ``benchmarks/pg_dense.py`` (figures in
docs/postgresql_search.md): at 150k vectors halfvec gave the recall@10 of float4 `vector` (0.9905 / 0.9920 at
ef_search 64) with an index of 167 MB instead of 293 MB, built in 83 s instead of 107 s.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from igraph_mcp.errors import StorageError
from igraph_mcp.store.backend import StoreReader, VectorIndex, WriteConnection
from igraph_mcp.store.dialect import table_exists
from igraph_mcp.store.pg_text import Connection, Reader
from igraph_mcp.store.records import Neighbour, NodeVector

log = logging.getLogger(__name__)

VECTOR_TYPE = "halfvec"  # 2 bytes a dimension
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64  # 128 gained 0.005 recall@10 at ef_search 64 for 1.8x the build time
EF_SEARCH = 64  # recall@10 0.99 (40: 0.985, 20: 0.96); a query asking for more neighbours raises it to k
MAX_EF_SEARCH = 1000  # pgvector's ceiling
# Below this many vectors an exact scan is as fast as the index for the dense channel's 200-neighbour probe
# (~10 ms each at 10k rows) and never misses a neighbour.
EXACT_BELOW = 10_000
NODE_INDEX = "node_vectors_hnsw"
# Adding at least this many vectors, and no fewer than are stored: the HNSW index is dropped first and built once
# after (inserting vector by vector into the graph took 316 s for 115k vectors on 2 busy cores).
BULK_FROM = 20_000
# maintenance_work_mem for that build: the graph of 1M halfvec(384) vectors is ~1.1 GB; a build whose graph does
# not fit in memory is several times slower.
BUILD_MEMORY = "1536MB"

CACHE = "igraph.vector_cache"
# The shared cache holds float4 arrays, not pgvector types, so the registry can be created without pgvector.
REGISTRY_DDL = [
    f"""CREATE TABLE IF NOT EXISTS {CACHE}(
        embedder TEXT COLLATE "C" NOT NULL,
        text_hash TEXT COLLATE "C" NOT NULL,
        vector REAL[] NOT NULL,
        PRIMARY KEY (embedder, text_hash)
    )""",
]


def literal(blob: bytes) -> str:
    """A float32 vector as pgvector's text form; repr of each float32 round-trips exactly."""
    return "[" + ",".join(repr(float(x)) for x in np.frombuffer(blob, dtype=np.float32)) + "]"


def to_blob(value: Any) -> bytes:
    """float32 bytes of a vector read as ``::real[]`` (a list of floats)."""
    return np.asarray(value, dtype=np.float32).tobytes()


def as_floats(column: str) -> str:
    """SQL reading a vector column as a float4 array (no client-side pgvector types needed)."""
    return f"{column}::real[]"


def create_tables(con: Connection, dimension: int) -> None:
    """Create the vector tables for ``dimension`` with their HNSW indexes (cosine distance)."""
    d = int(dimension)
    t = VECTOR_TYPE
    with_ = f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
    for sql in (
        f"CREATE TABLE IF NOT EXISTS node_vectors(node_id bigint PRIMARY KEY, file_id bigint NOT NULL, "
        f"embedding {t}({d}) NOT NULL)",
        "CREATE INDEX IF NOT EXISTS node_vectors_file ON node_vectors(file_id)",
        _node_index_sql(),
        f"CREATE TABLE IF NOT EXISTS resource_vectors(resource_id bigint PRIMARY KEY, embedding {t}({d}) NOT NULL)",
        f"CREATE INDEX IF NOT EXISTS resource_vectors_hnsw ON resource_vectors USING hnsw (embedding {t}_cosine_ops) "
        f"{with_}",
    ):
        con.execute(sql)


def _node_index_sql() -> str:
    t = VECTOR_TYPE
    return (
        f"CREATE INDEX IF NOT EXISTS {NODE_INDEX} ON node_vectors USING hnsw (embedding {t}_cosine_ops) "
        f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
    )


def drop_node_index(con: Connection) -> None:
    """Drop the node vectors' HNSW index before a bulk load (searches scan exactly meanwhile)."""
    con.execute(f"DROP INDEX IF EXISTS {NODE_INDEX}")


def build_node_index(con: Connection) -> None:
    """Build the node vectors' HNSW index over what is stored (after a bulk load)."""
    con.execute("SELECT set_config('maintenance_work_mem', ?, true)", (BUILD_MEMORY,))
    con.execute(_node_index_sql())


def store_node_vectors(con: Connection, rows: Iterable[tuple[int, int, bytes, str]]) -> None:
    """Write (node id, file id, vector, text hash) rows, mark the nodes embedded and share the vectors."""
    batch = sorted(rows)
    _store(con, "node_vectors", "nodes", [(r[0], r[1]) for r in batch], [r[2] for r in batch], [r[3] for r in batch])


def store_resource_vectors(con: Connection, rows: Iterable[tuple[int, bytes, str]]) -> None:
    """Write (resource id, vector, text hash) rows and mark the chunks embedded."""
    batch = sorted(rows)
    _store(con, "resource_vectors", "resources", [(r[0],) for r in batch], [r[1] for r in batch], [r[2] for r in batch])


def _store(
    con: Connection, table: str, owners: str, keys: list[tuple[int, ...]], blobs: list[bytes], hashes: list[str]
) -> None:
    """Upsert vectors into ``table`` under their keys (owner id first, then node_vectors' file id), record each
    owner row's text hash and share the vectors."""
    if not keys:
        return
    columns = ["node_id", "file_id"] if table == "node_vectors" else ["resource_id"]
    names = ", ".join(columns)
    unnest = ", ".join(["?::bigint[]"] * len(columns) + ["?::text[]"])
    updates = ", ".join(f"{c} = excluded.{c}" for c in [*columns[1:], "embedding"])
    ids = [k[0] for k in keys]
    con.execute(
        f"INSERT INTO {table}({names}, embedding) SELECT {names}, v::{VECTOR_TYPE} "  # noqa: S608 - fixed names
        f"FROM unnest({unnest}) AS u({names}, v) ON CONFLICT ({columns[0]}) DO UPDATE SET {updates}",
        (*([k[i] for k in keys] for i in range(len(columns))), [literal(b) for b in blobs]),
    )
    con.execute(
        f"UPDATE {owners} SET embed_hash = u.h FROM unnest(?::bigint[], ?::text[]) AS u(i, h) "  # noqa: S608
        f"WHERE {owners}.id = u.i",
        (ids, hashes),
    )
    _share(con, list(zip(hashes, blobs, strict=True)))


# -- the shared cache ----------------------------------------------------------------------------------------------
def embedder_key(embedder_id: str, dimension: int | str) -> str:
    """The cache's key for one embedder: its id and dimension (a model at another size is another model)."""
    return f"{embedder_id}/{dimension}"


def _share(con: Connection, pairs: list[tuple[str, bytes]]) -> None:
    """Add vectors to the cache under the embedder recorded in the repository's meta (the one that made them)."""
    unique = dict(sorted(pairs))  # sorted keys: two writers sharing hashes lock them in the same order
    if not unique:
        return
    con.execute(
        f"INSERT INTO {CACHE}(embedder, text_hash, vector) "  # noqa: S608 - fixed name
        "SELECT (SELECT value FROM meta WHERE key = 'embedder_id') || '/' || "
        "(SELECT value FROM meta WHERE key = 'embedder_dim'), h, v "
        "FROM unnest(?::text[], ?::text[]) AS u(h, t) CROSS JOIN LATERAL (SELECT t::real[] AS v) x "
        "WHERE EXISTS (SELECT 1 FROM meta WHERE key = 'embedder_id') ON CONFLICT DO NOTHING",
        (list(unique), [literal(v).replace("[", "{").replace("]", "}") for v in unique.values()]),
    )


def shared_vectors(db: Reader, embedder_id: str, dimension: int, hashes: Sequence[str]) -> dict[str, bytes]:
    """text hash -> vector that any repository of this database already embedded with this embedder."""
    wanted = sorted(set(hashes))
    if not wanted:
        return {}
    rows = db.rows(
        f"SELECT text_hash, vector FROM {CACHE} WHERE embedder = ? AND text_hash = ANY(?::text[])",  # noqa: S608
        (embedder_key(embedder_id, dimension), wanted),
    )
    return {str(h): to_blob(v) for h, v in rows if len(v) == dimension}


# -- search --------------------------------------------------------------------------------------------------------
def _search_settings(db: Reader, k: int) -> None:
    """Let HNSW return ``k`` neighbours: it yields at most ef_search of them."""
    ef = min(MAX_EF_SEARCH, max(EF_SEARCH, int(k)))
    db.rows("SELECT set_config('hnsw.ef_search', ?, false)", (str(ef),))


def knn_nodes(db: Reader, query: bytes, k: int) -> list[tuple[int, int, float]]:
    """Nearest nodes overall: (node id, file id, cosine similarity) best first."""
    q = literal(query)
    if count(db, "node_vectors") < EXACT_BELOW:
        order = f"(embedding <=> ?::{VECTOR_TYPE}) + 0"  # an expression the index cannot serve: an exact scan
    else:
        _search_settings(db, k)
        order = f"embedding <=> ?::{VECTOR_TYPE}"
    rows = db.rows(
        f"SELECT node_id, file_id, embedding <=> ?::{VECTOR_TYPE} FROM node_vectors ORDER BY {order} LIMIT ?",  # noqa: S608
        (q, q, k),
    )
    return [(int(r[0]), int(r[1]), 1.0 - float(r[2])) for r in rows]


def similarities_in_files(db: Reader, query: bytes, file_ids: Sequence[int], k: int) -> list[tuple[int, int, float]]:
    """Exact cosine similarity of every node of some files, best first, at most ``k`` (by the file index)."""
    if not file_ids:
        return []
    rows = db.rows(
        f"SELECT node_id, file_id, 1.0 - (embedding <=> ?::{VECTOR_TYPE}) AS sim FROM node_vectors "  # noqa: S608
        "WHERE file_id = ANY(?::bigint[]) ORDER BY sim DESC, node_id LIMIT ?",
        (literal(query), list(file_ids), k),
    )
    return [(int(r[0]), int(r[1]), float(r[2])) for r in rows]


def knn_resources(db: Reader, query: bytes, k: int) -> list[tuple[int, float]]:
    """Nearest resource chunks: (resource id, cosine similarity) best first."""
    q = literal(query)
    if count(db, "resource_vectors") < EXACT_BELOW:
        order = f"(embedding <=> ?::{VECTOR_TYPE}) + 0"
    else:
        _search_settings(db, k)
        order = f"embedding <=> ?::{VECTOR_TYPE}"
    rows = db.rows(
        f"SELECT resource_id, embedding <=> ?::{VECTOR_TYPE} FROM resource_vectors ORDER BY {order} LIMIT ?",  # noqa: S608
        (q, q, k),
    )
    return [(int(r[0]), 1.0 - float(r[1])) for r in rows]


def count(db: Reader, table: str) -> int:
    """Rows of a vector table up to EXACT_BELOW (enough to choose the scan; counting all of a big one is slow)."""
    found = db.rows(f"SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT ?) s", (EXACT_BELOW,))  # noqa: S608
    return int(found[0][0])


def _stored(db: StoreReader) -> int:
    """Node vectors stored (0 before the table exists)."""
    return int(db.scalar("SELECT count(*) FROM node_vectors", default=0)) if db.has_table("node_vectors") else 0


class PgVectorIndex(VectorIndex):
    """pgvector tables with HNSW indexes in one repository's schema, and the database's shared cache."""

    indexed_knn = True

    def __init__(self, db: StoreReader) -> None:
        self.db = db

    def column_sql(self, column: str) -> str:
        """The column as a float4 array."""
        return as_floats(column)

    def to_bytes(self, value: Any) -> bytes:
        """float32 bytes of a float4 array."""
        return to_blob(value)

    def create_tables(self, con: WriteConnection, dimension: int) -> None:
        """Create the vector tables for ``dimension`` with their HNSW indexes."""
        create_tables(con, dimension)

    def clear_nodes(self, con: WriteConnection) -> None:
        """Delete the node vectors: a full rebuild runs in one transaction, and DROP TABLE would hold an ACCESS
        EXCLUSIVE lock on the table until it commits and stop every reader; deleted rows stay visible to readers'
        snapshots instead."""
        if table_exists(con, "node_vectors"):
            con.execute("DELETE FROM node_vectors")

    def store_nodes(self, con: WriteConnection, rows: Iterable[NodeVector]) -> None:
        """Write node vectors, mark the nodes embedded and share the vectors."""
        store_node_vectors(con, rows)

    def store_resources(self, con: WriteConnection, rows: Iterable[tuple[int, bytes, str]]) -> None:
        """Write resource vectors and mark the chunks embedded."""
        store_resource_vectors(con, rows)

    def shared(self, embedder_id: str, dimension: int, hashes: Sequence[str]) -> dict[str, bytes]:
        """text hash -> vector from the team-wide cache."""
        return shared_vectors(self.db, embedder_id, dimension, hashes) if hashes else {}

    @contextmanager
    def bulk_loading(self, adding: int) -> Iterator[None]:
        """When ``adding`` vectors are many and no fewer than those stored, drop the HNSW index first and build it
        once at the end, several times faster than growing the graph vector by vector; searches meanwhile scan
        exactly. A load stopped on the way leaves the index to the next run's ``create_tables``."""
        db = self.db
        bulk = adding >= BULK_FROM and adding >= _stored(db) and db.has_table("node_vectors")
        if bulk:
            with db.atomic() as con:
                drop_node_index(con)
        try:
            yield
        finally:
            if bulk:
                try:
                    with db.atomic() as con:
                        build_node_index(con)
                except StorageError as exc:  # the connection went: the next run builds it
                    log.warning("the vector index was not rebuilt (%s); the next index run builds it", exc)

    def node_count(self) -> int:
        """Stored node vectors."""
        return int(self.db.scalar("SELECT count(*) FROM node_vectors", default=0))

    def knn_nodes(self, query: bytes, k: int) -> list[Neighbour]:
        """Nearest nodes overall, best first."""
        return [Neighbour(*r) for r in knn_nodes(self.db, query, k)]

    def similarities_in_files(self, query: bytes, file_ids: Sequence[int], k: int) -> list[Neighbour]:
        """Exact similarity of the nodes of some files, best first."""
        return [Neighbour(*r) for r in similarities_in_files(self.db, query, file_ids, k)]

    def knn_resources(self, query: bytes, k: int) -> list[tuple[int, float]]:
        """Nearest resource chunks, best first."""
        return knn_resources(self.db, query, k)
