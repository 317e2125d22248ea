"""The small primitives with one home each: LIKE escaping, path containment, reuse-by-text-hash."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.embed.reuse import embed_reusing
from igraph_mcp.embed.text import text_hash
from igraph_mcp.errors import EmbedderError
from igraph_mcp.store import files as file_store
from igraph_mcp.store.db import SqliteDatabase
from igraph_mcp.store.fts import like_literal
from igraph_mcp.store.records import NewFile


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("plain.py", "plain.py"),
        ("a_b.py", "a\\_b.py"),
        ("100%.txt", "100\\%.txt"),
        ("back\\slash", "back\\\\slash"),
        ("", ""),
    ],
)
def test_like_literal(text: str, escaped: str) -> None:
    assert like_literal(text) == escaped


def test_suffix_lookup_treats_wildcards_as_text(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "i.db")
    try:
        with db.atomic() as con:
            for path in ("pkg/a_b.py", "pkg/axb.py", "pkg/100%.py", "pkg/1000.py"):
                file_store.insert_file(con, NewFile(path, "python", "s", 1, 1, 1, "ok", 0.0))
        assert file_store.file_paths_with_suffix(db, "a_b.py") == ["pkg/a_b.py"]
        assert file_store.file_paths_with_suffix(db, "100%.py") == ["pkg/100%.py"]
    finally:
        db.close()


class _CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.seen: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:  # type: ignore[override]
        self.seen.extend(texts)
        return super().embed(texts)


def test_embed_reusing_calls_the_model_only_for_new_text() -> None:
    emb = _CountingEmbedder()
    old = np.arange(8, dtype=np.float32).tobytes()
    got = embed_reusing(emb, ["kept", "new one", "new two"], {text_hash("kept"): old}, batch_size=1)
    assert emb.seen == ["new one", "new two"]
    assert got.reused == 1 and got.vectors[0] == old
    assert got.hashes == [text_hash(t) for t in ("kept", "new one", "new two")]
    assert all(len(v) == 8 * 4 for v in got.vectors)


class _WrongShape(HashingEmbedder):
    def embed(self, texts: list[str]) -> np.ndarray:  # type: ignore[override]
        return np.zeros((len(texts) + 1, self.dimension), dtype=np.float32)


def test_embed_reusing_refuses_a_wrong_shape() -> None:
    with pytest.raises(EmbedderError, match="shape"):
        embed_reusing(_WrongShape(dimension=8), ["a"], {}, batch_size=4)
