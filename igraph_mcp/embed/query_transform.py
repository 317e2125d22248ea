"""A learned linear map of query vectors onto the frozen document vectors, shipped in the package.

A transform file (``transforms/<name>.npz``) holds ``weight`` (dimension x dimension, float32) and ``embedder``
(the embedder id whose vectors it was trained on). A query is embedded as usual, then mapped to
``normalize(weight @ q)``; documents and the index are untouched, so switching it on or off needs no re-indexing.
``training/train_query_transform.py`` fits it on mined commit -> edited-function pairs. Every shipped file's
sha256 is recorded in ``SHIPPED`` and checked before use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from igraph_mcp.embed.base import Embedder, Vectors
from igraph_mcp.errors import ConfigError, EmbedderError
from igraph_mcp.paths import file_sha256

TRANSFORM_DIR = Path(__file__).with_name("transforms")
NONE = "none"
SHIPPED: dict[str, str] = {}
"""Transform name -> sha256 of its file, for every transform in ``transforms/``. None ships yet: commits-v1
(training/README.md) lifted dense MRR@10 on held-out repositories' commit queries 24.9 -> 30.3 but lost docstring
MRR@10 on rich (hybrid 61.7 -> 60.1) and moved issue-shaped queries less than a point, so it stays out."""
DEFAULT_TRANSFORM = NONE
"""Applied when embedder.queryTransform is unset (and the embedder is the one it was trained on)."""
_OFF = "or set embedder.queryTransform to 'none' (IGRAPH_EMBED_QUERY_TRANSFORM=none)"


@dataclass(frozen=True)
class QueryTransform:
    """A verified transform: its name, the embedder id it maps queries of, and the matrix."""

    name: str
    embedder_id: str
    weight: np.ndarray[Any, Any]

    def apply(self, vector: Vectors) -> Vectors:
        """``normalize(weight @ vector)`` as float32."""
        u = self.weight @ np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(u))
        out: Vectors = (u / norm if norm > 0 else u).astype(np.float32)
        return out


def check_name(name: str) -> str:
    """The name if it is ``none`` or a shipped transform; ConfigError naming the choices otherwise."""
    if name == NONE or name in SHIPPED:
        return name
    valid = ", ".join([NONE, *sorted(SHIPPED)])
    raise ConfigError(f"Unknown embedder.queryTransform {name!r}; valid transforms are: {valid}.")


def read_transform(path: Path, *, name: str, expected_sha256: str | None = None) -> QueryTransform:
    """Load and check a transform file; EmbedderError naming the file and the fix when it is missing or bad."""
    try:
        if expected_sha256 is not None and file_sha256(path) != expected_sha256:
            raise EmbedderError(f"The query transform file {path} is corrupt (checksum mismatch); reinstall, {_OFF}.")
        with np.load(path, allow_pickle=False) as data:
            weight = np.asarray(data["weight"], dtype=np.float32)
            embedder_id = str(data["embedder"])
    except OSError as exc:
        raise EmbedderError(f"The query transform {name!r} is unreadable ({path}: {exc}); {_OFF}.") from None
    except (KeyError, ValueError) as exc:
        raise EmbedderError(f"The query transform file {path} is malformed ({exc}); {_OFF}.") from None
    if weight.ndim != 2 or weight.shape[0] != weight.shape[1]:
        raise EmbedderError(f"The query transform file {path} holds a {weight.shape} matrix, not a square one.")
    return QueryTransform(name, embedder_id, weight)


def shipped_transform(name: str) -> QueryTransform:
    """The shipped transform ``name``, verified."""
    return read_transform(TRANSFORM_DIR / f"{name}.npz", name=name, expected_sha256=SHIPPED[name])


class TransformedQueries:
    """An embedder whose query vectors go through a transform; documents, id and dimension are the inner one's
    (the index is the same), so it is a drop-in wherever the inner embedder is used."""

    def __init__(self, inner: Embedder, transform: QueryTransform) -> None:
        self.inner = inner
        self.transform = transform

    @property
    def id(self) -> str:
        """The inner embedder's id: the stored vectors are its own."""
        return self.inner.id

    @property
    def dimension(self) -> int:
        """The inner embedder's dimension."""
        return self.inner.dimension

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Documents exactly as the inner embedder embeds them."""
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> Vectors:
        """The inner query vector, mapped by the transform."""
        return self.transform.apply(self.inner.embed_query(text))


def with_query_transform(embedder: Embedder | None, name: str | None) -> Embedder | None:
    """``embedder`` with the named (None = default) transform applied to its queries; unchanged when the name is
    ``none`` or the transform was trained on another embedder's vectors (another model, runtime or adapter)."""
    chosen = check_name(DEFAULT_TRANSFORM if name is None else name)
    if embedder is None or chosen == NONE:
        return embedder
    transform = shipped_transform(chosen)
    if transform.embedder_id != embedder.id:
        if name is None:
            return embedder  # the default fits the default embedder only; another one runs as it is
        raise ConfigError(
            f"The query transform {chosen!r} was trained on {transform.embedder_id} vectors, the embedder is "
            f"{embedder.id}; {_OFF}."
        )
    return TransformedQueries(embedder, transform)
