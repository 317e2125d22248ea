"""Switching the embedder (fp32 -> int8, or another adapter): the next index run re-embeds, never mixes vectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from _factories import edit_file, make_repo, make_service

from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.embed.text import symbol_embedding_text
from igraph_mcp.service import IGraphService
from igraph_mcp.store import vectors as vec_store

FILES = {
    "shop/orders.py": '''
        """Orders."""

        def place_order(items):
            """Place an order for the given items."""
            return sum(items)

        class Basket:
            def add_item(self, item):
                self.items.append(item)
        ''',
}


class _QuantizedLike(HashingEmbedder):
    """Same dimension as the base, another id and other vectors: what the int8 model is to the fp32 one."""

    @property
    def id(self) -> str:
        """The base id with a suffix, as ``local:all-MiniLM-L6-v2+int8``."""
        return f"{super().id}+int8"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The base vectors reversed: far from them, so a reused base vector is told apart."""
        return np.asarray(super().embed(texts))[:, ::-1].copy()


def _stored_vectors_match(svc: IGraphService, embedder: HashingEmbedder) -> bool:
    """Every node has a vector, and it is the one ``embedder`` gives for the node's text."""
    rows = svc.db.rows(
        "SELECT n.id, n.kind, n.name, n.qualified_name, f.path, n.signature, n.docstring, n.body "
        "FROM nodes n JOIN files f ON f.id = n.file_id ORDER BY n.id"
    )
    texts = [
        symbol_embedding_text(kind=k, name=n, qualified_name=q, path=p, signature=s, docstring=d, body=b)
        for _id, k, n, q, p, s, d, b in rows
    ]
    stored = vec_store.node_vectors_by_id(svc.db, [int(r[0]) for r in rows])
    assert len(stored) == len(rows)
    got = np.stack([np.frombuffer(stored[int(r[0])], dtype=np.float32) for r in rows])
    return bool(np.allclose(got, np.asarray(embedder.embed(texts), dtype=np.float32), atol=1e-6))


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_next_index_run_after_an_embedder_switch_re_embeds_everything(tmp_path: Path, full: bool) -> None:
    root = make_repo(tmp_path, FILES)
    base, quantized = HashingEmbedder(64), _QuantizedLike(64)
    first = make_service(root, embedder=base)
    try:
        first.index()
        assert _stored_vectors_match(first, base)
    finally:
        first.close()

    # An edited file too: its unchanged symbols' old vectors are offered for reuse by text hash.
    edit_file(root, "shop/orders.py", FILES["shop/orders.py"] + "\n        def helper():\n            return 1\n")
    second = make_service(root, embedder=quantized)
    try:
        result = second.index(full=full)
        assert result.embedReused == 0  # nothing of the base model's is taken over
        assert result.embedded == second.db.scalar("SELECT count(*) FROM nodes")  # every node, the module nodes too
        assert second.db.get_meta("embedder_id") == quantized.id
        assert _stored_vectors_match(second, quantized)
        assert not second.explore("place order", top_k=3).degraded
    finally:
        second.close()

    # The old embedder now meets vectors of another model: refused (degraded), never mixed (RELIABILITY D8).
    back = make_service(root, embedder=base)
    try:
        answer = back.explore("place order", top_k=3)
        assert answer.degraded and "+int8" in (answer.note or "")
    finally:
        back.close()
