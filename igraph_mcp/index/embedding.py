"""The second indexing phase: embed symbols without a vector, batch by batch, each batch committed."""

from __future__ import annotations

import logging

from igraph_mcp import crashpoints
from igraph_mcp.embed.base import Embedder
from igraph_mcp.embed.reuse import embed_reusing
from igraph_mcp.embed.text import symbol_embedding_text
from igraph_mcp.index.phases import Progress
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database

log = logging.getLogger(__name__)


def made_by(db: Database, embedder: Embedder) -> bool:
    """True when the stored vectors (if any) came from ``embedder``: only then may a text's old vector be reused."""
    return db.get_meta("embedder_id") == embedder.id and db.get_meta("embedder_dim") == str(embedder.dimension)


def prepare_vector_tables(db: Database, embedder: Embedder) -> bool:
    """Create vector tables for this embedder; vectors of another embedder are dropped, never mixed.

    Returns True when existing vectors had to be discarded.
    """
    stored_id = db.get_meta("embedder_id")
    stored_dim = db.get_meta("embedder_dim")
    changed = stored_id is not None and (stored_id != embedder.id or stored_dim != str(embedder.dimension))
    with db.atomic() as con:
        if changed:
            log.warning("embedder changed from %s to %s: re-embedding everything", stored_id, embedder.id)
            vec_store.drop_all_vectors(con)
        elif stored_id is None:
            # Vectors of unknown origin (interrupted first run) cannot be trusted either.
            vec_store.drop_all_vectors(con)
        vec_store.create_vector_tables(con, embedder.dimension)
        db.set_meta(con, "embedder_id", embedder.id)
        db.set_meta(con, "embedder_dim", str(embedder.dimension))
        crashpoints.reached("embed.prepare")
    return changed


def embed_nodes(
    db: Database,
    embedder: Embedder,
    *,
    reuse: dict[str, bytes] | None = None,
    batch_size: int = 256,
    progress: Progress | None = None,
) -> tuple[int, int]:
    """Embed every node lacking a vector; returns (embedded by the model, reused from unchanged text)."""
    report = progress or (lambda _p, _d, _t: None)
    reuse = reuse or {}
    total = vec_store.count_nodes_to_embed(db)
    done = embedded = reused = 0
    report("embed", 0, total)
    while True:
        rows = vec_store.nodes_to_embed(db, batch_size)
        if not rows:
            break
        texts = [
            symbol_embedding_text(
                kind=kind,
                name=name,
                qualified_name=qname,
                path=path,
                signature=signature,
                docstring=docstring,
                body=body,
            )
            for _id, _fid, kind, name, qname, path, signature, docstring, body in rows
        ]
        got = embed_reusing(embedder, texts, reuse, batch_size=len(texts))
        with db.atomic() as con:
            vec_store.store_node_vectors(
                con, ((rows[i][0], rows[i][1], got.vectors[i], got.hashes[i]) for i in range(len(rows)))
            )
            # Readers keep an in-memory copy of the vectors; a new version tells them to reload it.
            db.set_meta(con, "vectors_version", str(int(db.get_meta("vectors_version", "0") or 0) + 1))
            crashpoints.reached("embed.batch")
        embedded += len(rows) - got.reused
        reused += got.reused
        done += len(rows)
        report("embed", min(done, total), total)
    return embedded, reused
