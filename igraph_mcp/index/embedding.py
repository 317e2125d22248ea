"""The second indexing phase: embed symbols without a vector, batch by batch, each batch committed."""

from __future__ import annotations

from collections import ChainMap

from igraph_mcp import crashpoints
from igraph_mcp.embed.base import Embedder
from igraph_mcp.embed.reuse import embed_reusing
from igraph_mcp.embed.text import symbol_embedding_text, text_hash
from igraph_mcp.index.phases import Progress
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import NodeToEmbed, NodeVector


def embed_nodes(
    db: Database,
    embedder: Embedder,
    *,
    reuse: dict[str, bytes] | None = None,
    batch_size: int = 256,
    progress: Progress | None = None,
) -> tuple[int, int]:
    """Embed every node lacking a vector, symbols before parts; returns (embedded by the model, reused from unchanged
    text)."""
    report = progress or (lambda _p, _d, _t: None)
    reuse = reuse or {}
    total = vec_store.count_nodes_to_embed(db)
    done = embedded = reused = 0
    report("embed", 0, total)
    with vec_store.bulk_loading(db, total):
        # Symbols first, the parts of long definitions after: a build stopped early has every symbol's own vector.
        for parts in (False, True):
            after = 0
            while rows := vec_store.nodes_to_embed(db, batch_size, parts=parts, after=after):
                after = rows[-1][0]
                batch_reused = _embed_batch(db, embedder, rows, reuse)
                embedded += len(rows) - batch_reused
                reused += batch_reused
                done += len(rows)
                report("embed", min(done, total), total)
    return embedded, reused


def _embed_batch(db: Database, embedder: Embedder, rows: list[NodeToEmbed], reuse: dict[str, bytes]) -> int:
    """Embed and store one batch of nodes in one transaction; returns how many vectors were reused."""
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
    # Texts another repository of the same store already embedded (a team's shared cache) are not embedded again.
    missing = [h for h in map(text_hash, texts) if h not in reuse]
    shared = vec_store.shared_vectors(db, embedder, missing)
    got = embed_reusing(embedder, texts, ChainMap(reuse, shared), batch_size=len(texts))
    with db.atomic() as con:
        vec_store.store_node_vectors(
            con, (NodeVector(row.id, row.file_id, got.vectors[i], got.hashes[i]) for i, row in enumerate(rows))
        )
        # Readers keep an in-memory copy of the vectors; a new version tells them to reload it.
        db.set_meta(con, "vectors_version", str(int(db.get_meta("vectors_version", "0") or 0) + 1))
        crashpoints.reached("embed.batch")
    return got.reused
