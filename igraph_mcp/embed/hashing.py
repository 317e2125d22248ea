"""A deterministic, model-free embedder (feature hashing) for tests and fast CI runs.

Texts sharing words or character trigrams get similar vectors, which is enough to exercise the dense
channel's plumbing end to end. It is not a semantic model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from igraph_mcp.embed.base import Vectors
from igraph_mcp.text.identifiers import split_identifier

_TOKEN = re.compile(r"\w+")
_WORD_WEIGHT = 1.0
_TRIGRAM_WEIGHT = 0.5
_EMPTY_FEATURE = "\x00empty"  # gives empty text a fixed, non-zero vector so it can still be normalised


def _features(text: str) -> list[tuple[str, float]]:
    """Words (identifiers split too) and boundary-marked character trigrams of each word, with weights."""
    feats: list[tuple[str, float]] = []
    for token in _TOKEN.findall(text):
        words = split_identifier(token)
        if len(words) > 1:
            feats.append(("w:" + token.lower(), _WORD_WEIGHT))
        for word in words:
            feats.append(("w:" + word, _WORD_WEIGHT))
            padded = f"^{word}$"
            feats.extend(("t:" + padded[i : i + 3], _TRIGRAM_WEIGHT) for i in range(len(padded) - 2))
    return feats or [(_EMPTY_FEATURE, 1.0)]


class HashingEmbedder:
    """Signed feature hashing into ``dimension`` buckets, L2-normalised; same text, same vector."""

    def __init__(self, dimension: int = 64) -> None:
        if not isinstance(dimension, int) or isinstance(dimension, bool) or dimension < 2:
            raise ValueError("HashingEmbedder dimension must be an integer >= 2")
        self._dimension = dimension

    @property
    def id(self) -> str:
        """Stable id, ``hash:<dimension>``."""
        return f"hash:{self._dimension}"

    @property
    def dimension(self) -> int:
        """Vector length."""
        return self._dimension

    def _vector(self, text: str) -> Vectors:
        vec = np.zeros(self._dimension, dtype=np.float32)
        for feature, weight in _features(text):
            # blake2b, not hash(): Python's str hash is salted per process and would break determinism.
            digest = hashlib.blake2b(feature.encode("utf-8", "surrogatepass"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            vec[(value >> 1) % self._dimension] += sign * weight
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            # Every feature cancelled out (rare with signed hashing); fall back to one fixed bucket.
            vec[0] = 1.0
            return vec
        return vec / np.float32(norm)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents; shape (len(texts), dimension), rows unit length."""
        out = np.empty((len(texts), self._dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._vector(text)
        return out

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; shape (dimension,), unit length."""
        return self._vector(text)

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimension={self._dimension})"
