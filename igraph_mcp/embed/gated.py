"""A test double: an embedder whose document batches wait until a gate file exists.

A real server started by a test (with ``IGRAPH_EMBEDDER=hash`` and ``IGRAPH_TEST_EMBED_GATE=<path>``) then
stays in its embedding phase for exactly as long as the test wants, so "answers before the vectors are done"
is checked by the order of events, never by timing. Queries are not gated.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from igraph_mcp.embed.base import Embedder, Vectors

POLL_S = 0.05
MAX_WAIT_S = 300.0  # a test that forgets to open the gate still ends, with its vectors late rather than never


class GatedEmbedder:
    """Wraps another embedder; ``embed`` blocks until ``gate`` exists (or MAX_WAIT_S passed)."""

    def __init__(self, inner: Embedder, gate: Path) -> None:
        self._inner = inner
        self._gate = gate

    @property
    def id(self) -> str:
        """The wrapped embedder's id: the vectors are the same."""
        return self._inner.id

    @property
    def dimension(self) -> int:
        """The wrapped embedder's dimension."""
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Wait for the gate, then embed."""
        deadline = time.monotonic() + MAX_WAIT_S
        while not self._gate.exists() and time.monotonic() < deadline:
            time.sleep(POLL_S)
        return self._inner.embed(texts)

    def embed_query(self, text: str) -> Vectors:
        """Embed a query at once."""
        return self._inner.embed_query(text)
