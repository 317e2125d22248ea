"""Node and resource vectors through the database's vector index (sqlite-vec: store/sqlite_vectors.py, pgvector:
store/pg_vectors.py): which embedder made them, what is left to embed, what can be reused, and KNN."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from igraph_mcp import crashpoints
from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import Neighbour, NodeToEmbed, NodeVector
from igraph_mcp.vocab.languages import PART_KIND

log = logging.getLogger(__name__)


class VectorMaker(Protocol):
    """What the store records about the embedder that made its vectors (embed.base.Embedder is one)."""

    @property
    def id(self) -> str: ...

    @property
    def dimension(self) -> int: ...


def _table_exists(db: Database, name: str) -> bool:
    return db.has_table(name)


def embedding_sql(db: Database, column: str) -> str:
    """SQL reading a vector column so that ``vector_bytes`` turns the value into float32 bytes."""
    return db.vectors.column_sql(column)


def vector_bytes(db: Database, value: Any) -> bytes:
    """float32 bytes of a vector column read through ``embedding_sql``."""
    return db.vectors.to_bytes(value)


def indexed_knn(db: Database) -> bool:
    """True when the database answers KNN from an index (pgvector's HNSW): no reader needs the vectors in memory."""
    return db.vectors.indexed_knn


def shared_vectors(db: Database, embedder: VectorMaker, hashes: Sequence[str]) -> dict[str, bytes]:
    """text hash -> vector another repository of the same store already has from this embedder (PostgreSQL's
    team-wide cache; a SQLite file shares with no one)."""
    return db.vectors.shared(embedder.id, embedder.dimension, hashes)


def has_node_vectors(db: Database) -> bool:
    """True when the node vector table exists."""
    return _table_exists(db, "node_vectors")


def has_resource_vectors(db: Database) -> bool:
    """True when the resource vector table exists."""
    return _table_exists(db, "resource_vectors")


def create_vector_tables(con: WriteConnection, dimension: int) -> None:
    """Create the vector tables for ``dimension``; node_vectors keeps each vector's file so KNN can be filtered."""
    con.db.vectors.create_tables(con, dimension)


def drop_node_vectors(con: WriteConnection) -> None:
    """Drop the node vectors and forget which texts were embedded (a full rebuild, same embedder)."""
    con.db.vectors.clear_nodes(con)
    con.execute("UPDATE nodes SET embed_hash = NULL")


def drop_all_vectors(con: WriteConnection) -> None:
    """Drop node and resource vectors (embedder changed: the tables' dimension may change with it)."""
    con.execute("DROP TABLE IF EXISTS node_vectors")
    con.execute("UPDATE nodes SET embed_hash = NULL")
    con.execute("DROP TABLE IF EXISTS resource_vectors")
    con.execute("UPDATE resources SET embed_hash = NULL")


def to_blob(vector: np.ndarray[Any, Any]) -> bytes:
    """float32 bytes as sqlite-vec expects."""
    return np.asarray(vector, dtype=np.float32).tobytes()


def from_blob(blob: bytes) -> np.ndarray[Any, Any]:
    """Vector from float32 bytes."""
    return np.frombuffer(blob, dtype=np.float32)


# -- nodes -------------------------------------------------------------------------------------------------------
def nodes_to_embed(db: Database, limit: int, *, parts: bool = False, after: int = 0) -> list[NodeToEmbed]:
    """Symbols (or with ``parts``, parts of long definitions) without a vector.

    A part is embedded as its definition's kind and names with the part's own text (no signature or docstring: the
    definition's own vector has those). ``after``: only ids above it, so a loop over batches starts where the last
    one ended instead of walking past every embedded node again (quadratic in the tree's size).
    """
    if parts:
        rows = db.rows(
            "SELECT n.id, n.file_id, o.kind, o.name, o.qualified_name, f.path, '', '', n.body FROM nodes n "  # noqa: S608
            f"JOIN nodes o ON o.id = n.parent_id JOIN files f ON f.id = n.file_id "
            f"WHERE n.embed_hash IS NULL AND n.kind = '{PART_KIND}' AND n.id > ? ORDER BY n.id LIMIT ?",
            (after, limit),
        )
    else:
        rows = db.rows(
            "SELECT n.id, n.file_id, n.kind, n.name, n.qualified_name, f.path, n.signature, n.docstring, n.body "  # noqa: S608
            f"FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.embed_hash IS NULL AND n.kind != '{PART_KIND}' "
            "AND n.id > ? ORDER BY n.id LIMIT ?",
            (after, limit),
        )
    return list(map(NodeToEmbed._make, rows))


def count_nodes_to_embed(db: Database) -> int:
    """How many nodes still lack a vector."""
    return int(db.scalar("SELECT count(*) FROM nodes WHERE embed_hash IS NULL", default=0))


def vectors_for_files(db: Database, file_ids: Sequence[int]) -> dict[str, bytes]:
    """embed_hash -> vector of the nodes of some files (kept before re-parsing them, to reuse unchanged ones)."""
    if not file_ids or not has_node_vectors(db):
        return {}
    ph = placeholders(len(file_ids))
    return {
        str(h): vector_bytes(db, v)
        for h, v in db.rows(
            f"SELECT n.embed_hash, {embedding_sql(db, 'v.embedding')} FROM nodes n "  # noqa: S608
            f"JOIN node_vectors v ON v.node_id = n.id WHERE n.file_id IN ({ph}) AND n.embed_hash IS NOT NULL",
            tuple(file_ids),
        )
    }


def all_vectors_by_hash(db: Database) -> dict[str, bytes]:
    """embed_hash -> vector of every embedded node (kept across a full rebuild)."""
    return {
        str(h): vector_bytes(db, v)
        for h, v in db.rows(
            f"SELECT n.embed_hash, {embedding_sql(db, 'v.embedding')} FROM nodes n "  # noqa: S608
            "JOIN node_vectors v ON v.node_id = n.id WHERE n.embed_hash IS NOT NULL"
        )
    }


def store_node_vectors(con: WriteConnection, rows: Iterable[NodeVector]) -> None:
    """Write vectors: rows of (node id, file id, vector bytes, hash of the embedded text)."""
    con.db.vectors.store_nodes(con, rows)


def all_node_vectors(db: Database) -> tuple[list[int], list[int], list[bytes]]:
    """Every node vector as parallel lists (node ids, file ids, float32 bytes)."""
    ids: list[int] = []
    fids: list[int] = []
    blobs: list[bytes] = []
    if not has_node_vectors(db):
        return ids, fids, blobs
    for nid, fid, blob in db.rows(f"SELECT node_id, file_id, {embedding_sql(db, 'embedding')} FROM node_vectors"):  # noqa: S608
        ids.append(int(nid))
        fids.append(int(fid))
        blobs.append(vector_bytes(db, blob))
    return ids, fids, blobs


def node_vector_count(db: Database) -> int:
    """Number of stored node vectors."""
    if not has_node_vectors(db):
        return 0
    return db.vectors.node_count()


def bulk_loading(db: Database, adding: int) -> AbstractContextManager[None]:
    """Around adding ``adding`` node vectors (pgvector builds its HNSW index once after a large load)."""
    return db.vectors.bulk_loading(adding)


def knn_nodes(db: Database, query: bytes, k: int) -> list[Neighbour]:
    """Nearest nodes overall: (node id, file id, cosine similarity) best first (within some files:
    ``similarities_in_files``)."""
    return db.vectors.knn_nodes(query, k)


def similarities_in_files(db: Database, query: bytes, file_ids: Sequence[int], k: int) -> list[Neighbour]:
    """Exact cosine similarity of every node of some files, best first, at most ``k``."""
    if not file_ids:
        return []
    return db.vectors.similarities_in_files(query, file_ids, k)


def node_vectors_by_id(db: Database, ids: Sequence[int]) -> dict[int, bytes]:
    """Stored vectors of some nodes."""
    if not ids or not has_node_vectors(db):
        return {}
    ph = placeholders(len(ids))
    return {
        int(r[0]): vector_bytes(db, r[1])
        for r in db.rows(
            f"SELECT node_id, {embedding_sql(db, 'embedding')} FROM node_vectors WHERE node_id IN ({ph})",  # noqa: S608
            tuple(ids),
        )
    }


# -- resources -----------------------------------------------------------------------------------------------------
def store_resource_vectors(con: WriteConnection, rows: Iterable[tuple[int, bytes, str]]) -> None:
    """Write resource vectors: rows of (resource id, vector bytes, text hash)."""
    con.db.vectors.store_resources(con, rows)


def knn_resources(db: Database, query: bytes, k: int) -> list[tuple[int, float]]:
    """Nearest resource chunks: (resource id, cosine similarity) best first."""
    if not has_resource_vectors(db):
        return []
    return db.vectors.knn_resources(query, k)


# -- which embedder made the vectors ------------------------------------------------------------------------
def made_by(db: Database, embedder: VectorMaker) -> bool:
    """True when the stored vectors (if any) came from ``embedder``: only then may a text's old vector be reused."""
    return db.get_meta("embedder_id") == embedder.id and db.get_meta("embedder_dim") == str(embedder.dimension)


def prepare_vector_tables(db: Database, embedder: VectorMaker) -> bool:
    """Create vector tables for this embedder; vectors of another embedder are dropped, never mixed.

    Returns True when existing vectors had to be discarded.
    """
    stored_id = db.get_meta("embedder_id")
    stored_dim = db.get_meta("embedder_dim")
    changed = stored_id is not None and (stored_id != embedder.id or stored_dim != str(embedder.dimension))
    with db.atomic() as con:
        if changed:
            log.warning("embedder changed from %s to %s: re-embedding everything", stored_id, embedder.id)
            drop_all_vectors(con)
        elif stored_id is None:
            # Vectors of unknown origin (interrupted first run) cannot be trusted either.
            drop_all_vectors(con)
        create_vector_tables(con, embedder.dimension)
        db.set_meta(con, "embedder_id", embedder.id)
        db.set_meta(con, "embedder_dim", str(embedder.dimension))
        crashpoints.reached("embed.prepare")
    return changed
