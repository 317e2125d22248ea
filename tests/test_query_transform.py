"""The shipped query transform: checked files, queries mapped, documents and ids untouched, off by config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from igraph_mcp.config import EmbedderConfig
from igraph_mcp.embed import query_transform as qt
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.embed.registry import embedder_from_config
from igraph_mcp.errors import ConfigError, EmbedderError
from igraph_mcp.paths import file_sha256


def _save(path: Path, weight: np.ndarray, embedder_id: str) -> Path:
    np.savez(path, weight=weight.astype(np.float32), embedder=np.array(embedder_id))
    return path


def test_queries_are_mapped_and_documents_are_not(tmp_path: Path) -> None:
    inner = HashingEmbedder(8)
    swap = np.eye(8)[::-1]  # reverses the vector: easy to see, norm kept
    t = qt.read_transform(_save(tmp_path / "t.npz", swap, inner.id), name="t")
    wrapped = qt.TransformedQueries(inner, t)
    q = inner.embed_query("parse a config file")
    assert np.allclose(wrapped.embed_query("parse a config file"), q[::-1])
    assert np.allclose(wrapped.embed(["a b", "c"]), inner.embed(["a b", "c"]))
    assert wrapped.id == inner.id and wrapped.dimension == 8


def test_output_is_unit_length(tmp_path: Path) -> None:
    inner = HashingEmbedder(8)
    t = qt.read_transform(_save(tmp_path / "t.npz", 3.0 * np.eye(8) + 0.5, inner.id), name="t")
    assert np.linalg.norm(t.apply(inner.embed_query("x y z"))) == pytest.approx(1.0, abs=1e-5)


def test_a_changed_file_is_refused(tmp_path: Path) -> None:
    path = _save(tmp_path / "t.npz", np.eye(4), "hash:4")
    sha = file_sha256(path)
    _save(path, 2 * np.eye(4), "hash:4")
    with pytest.raises(EmbedderError, match="checksum mismatch"):
        qt.read_transform(path, name="t", expected_sha256=sha)


def test_a_non_square_matrix_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="not a square"):
        qt.read_transform(_save(tmp_path / "t.npz", np.ones((4, 3)), "hash:4"), name="t")


def test_unknown_names_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="valid transforms are: none"):
        qt.check_name("no-such-transform")


def test_none_switches_it_off() -> None:
    embedder = embedder_from_config(EmbedderConfig(backend="hash", dimension=8, queryTransform="none"))
    assert isinstance(embedder, HashingEmbedder)


def test_the_default_is_off_or_shipped_and_every_shipped_file_matches() -> None:
    assert qt.DEFAULT_TRANSFORM == qt.NONE or qt.DEFAULT_TRANSFORM in qt.SHIPPED
    for name, sha in qt.SHIPPED.items():
        assert file_sha256(qt.TRANSFORM_DIR / f"{name}.npz") == sha


def test_the_default_skips_other_embedders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = _save(tmp_path / "t.npz", np.eye(8), "local:some-other-model")
    monkeypatch.setattr(qt, "SHIPPED", {"t": file_sha256(path)})
    monkeypatch.setattr(qt, "TRANSFORM_DIR", tmp_path)
    monkeypatch.setattr(qt, "DEFAULT_TRANSFORM", "t")
    inner = HashingEmbedder(8)
    assert qt.with_query_transform(inner, None) is inner  # the default fits its own embedder only
    with pytest.raises(ConfigError, match="trained on local:some-other-model"):
        qt.with_query_transform(inner, "t")  # asked for by name: say why it cannot apply
