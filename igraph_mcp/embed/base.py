"""The embedding backend protocol shared by the local, OpenAI-compatible and null backends."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into unit-normalised float32 vectors of a fixed dimension."""

    @property
    def id(self) -> str:
        """Stable id stored in the index, e.g. ``local:all-MiniLM-L6-v2``; a change forces re-embedding."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every vector this backend returns."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents; returns an array of shape (len(texts), dimension), rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; returns shape (dimension,), L2-normalised."""
        ...
