"""The one place that decides whether a text needs the model: a vector is reused when its text hash matches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from igraph_mcp.embed.base import Embedder
from igraph_mcp.embed.text import text_hash
from igraph_mcp.errors import EmbedderError


class Embedded(NamedTuple):
    """Vectors (float32 bytes) and text hashes in input order, and how many came from ``reuse``."""

    vectors: list[bytes]
    hashes: list[str]
    reused: int


def embed_reusing(embedder: Embedder, texts: list[str], reuse: Mapping[str, bytes], *, batch_size: int) -> Embedded:
    """Embed ``texts``, taking the vector of any text whose hash is in ``reuse`` instead of calling the model."""
    hashes = [text_hash(t) for t in texts]
    vectors: dict[int, bytes] = {i: reuse[h] for i, h in enumerate(hashes) if h in reuse}
    fresh = [i for i in range(len(texts)) if i not in vectors]
    for start in range(0, len(fresh), max(1, batch_size)):
        batch = fresh[start : start + batch_size]
        out = np.asarray(embedder.embed([texts[i] for i in batch]), dtype=np.float32)
        if out.shape != (len(batch), embedder.dimension):
            # A backend returning the wrong shape must never get vectors stored under another node's id.
            raise EmbedderError(f"embedder returned shape {out.shape}, expected ({len(batch)}, {embedder.dimension})")
        for j, i in enumerate(batch):
            vectors[i] = out[j].tobytes()
    return Embedded([vectors[i] for i in range(len(texts))], hashes, len(texts) - len(fresh))
