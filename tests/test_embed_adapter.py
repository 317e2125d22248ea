"""LoRA adapters of the local model: file format and checks, embedder ids, and the merged weights on both runtimes.

The model tests use a small random adapter written to a temporary directory and registered as shipped, so they
test the mechanism whatever adapter the package ships; the shipped ones are checked by name below.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from igraph_mcp.config import load_config
from igraph_mcp.embed import adapter as adapters
from igraph_mcp.embed.local import BUNDLED_WEIGHTS_SHA256, LocalEmbedder, bundled_model_dir
from igraph_mcp.embed.onnx_local import OnnxEmbedder
from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.errors import ConfigError, EmbedderError
from igraph_mcp.paths import file_sha256

TEXTS = [
    "Open a pooled database connection and retry when the server is busy.",
    "function open_connection\nfile db/pool.py\ndef open_connection(url, retries=3)\n: for attempt in range(retries):",
    "class LruCache (lru cache)\nfile cache.py\nclass LruCache(dict)",
]
TARGETS = [f"encoder.layer.{i}.attention.self.query" for i in range(6)] + ["encoder.layer.5.output.dense"]


def _random_adapter(path: Path, base_sha256: str = BUNDLED_WEIGHTS_SHA256, seed: int = 7) -> str:
    rng = np.random.default_rng(seed)
    factors = {}
    for t in TARGETS:
        in_f, out_f = (1536, 384) if t.endswith("output.dense") else (384, 384)
        factors[t] = (rng.normal(0, 0.05, (4, in_f)), rng.normal(0, 0.05, (out_f, 4)))
    adapters.save_adapter(path, factors, rank=4, alpha=8.0, base_sha256=base_sha256)
    return file_sha256(path)


@pytest.fixture
def fake_shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A random adapter 'test-v0' registered as shipped (in a temporary adapter directory)."""
    monkeypatch.setattr(adapters, "ADAPTER_DIR", tmp_path)
    sha = _random_adapter(tmp_path / "test-v0.npz")
    monkeypatch.setitem(adapters.SHIPPED, "test-v0", sha)
    yield tmp_path / "test-v0.npz"


def test_file_round_trip_and_delta(tmp_path: Path) -> None:
    sha = _random_adapter(tmp_path / "a.npz")
    got = adapters.read_adapter(tmp_path / "a.npz", expected_sha256=sha)
    assert sorted(got.factors) == sorted(TARGETS) and got.rank == 4 and got.scale == 2.0
    a, b = got.factors[TARGETS[0]]
    np.testing.assert_allclose(got.delta(TARGETS[0]), 2.0 * (b @ a), rtol=1e-5, atol=1e-7)
    assert got.base_sha256 == BUNDLED_WEIGHTS_SHA256 and got.sha256 == sha


def test_corrupt_or_missing_adapter_names_the_file_and_the_fix(fake_shipped: Path) -> None:
    with pytest.raises(EmbedderError, match="missing") as missing:
        adapters.read_adapter(fake_shipped.with_name("gone.npz"))
    assert "gone.npz" in str(missing.value) and "IGRAPH_EMBED_ADAPTER=none" in str(missing.value)
    data = bytearray(fake_shipped.read_bytes())
    data[len(data) // 2] ^= 0xFF
    fake_shipped.write_bytes(bytes(data))
    with pytest.raises(EmbedderError, match="corrupt") as corrupt:
        adapters.load_shipped("test-v0", BUNDLED_WEIGHTS_SHA256)
    assert str(fake_shipped) in str(corrupt.value) and "force-reinstall" in str(corrupt.value)
    fake_shipped.write_bytes(b"not an npz file")
    with pytest.raises(EmbedderError, match="unreadable"):
        adapters.read_adapter(fake_shipped)


def test_adapter_for_other_base_weights_is_refused(fake_shipped: Path) -> None:
    with pytest.raises(EmbedderError, match="other base weights"):
        adapters.load_shipped("test-v0", "0" * 64)


def test_ids_name_the_adapter(fake_shipped: Path) -> None:
    assert LocalEmbedder(adapter="none").id == "local:all-MiniLM-L6-v2"
    assert LocalEmbedder(adapter="test-v0").id == "local:all-MiniLM-L6-v2+test-v0"
    assert OnnxEmbedder(adapter="test-v0").id == "local:all-MiniLM-L6-v2+test-v0"
    assert OnnxEmbedder(adapter="test-v0", quantize="int8").id == "local:all-MiniLM-L6-v2+test-v0+int8"
    assert OnnxEmbedder(adapter="none", quantize="int8").id == "local:all-MiniLM-L6-v2+int8"
    # The default is the shipped default adapter for the bundled model, and none for any other model.
    assert LocalEmbedder().adapter == adapters.DEFAULT_ADAPTER
    assert LocalEmbedder("/some/other/model").adapter == "none"


def test_unknown_or_misplaced_adapter_is_a_config_error(fake_shipped: Path) -> None:
    with pytest.raises(ConfigError, match="valid adapters are: none, "):
        make_embedder("local", adapter="code-v999")
    with pytest.raises(ConfigError, match="valid adapters"):
        make_embedder("local", runtime="torch", adapter="nope")
    with pytest.raises(ConfigError, match="fits only all-MiniLM-L6-v2"):
        make_embedder("local", model="paraphrase-MiniLM-L3-v2", adapter="test-v0")


def test_config_reads_the_adapter_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IGRAPH_EMBED_ADAPTER", "none")
    assert load_config(tmp_path).embedder.adapter == "none"
    monkeypatch.delenv("IGRAPH_EMBED_ADAPTER")
    assert load_config(tmp_path).embedder.adapter is None


def test_every_shipped_adapter_verifies() -> None:
    assert "code-v1" in adapters.SHIPPED
    for name, sha in adapters.SHIPPED.items():
        got = adapters.load_shipped(name, BUNDLED_WEIGHTS_SHA256)
        assert got.sha256 == sha and got.factors
        assert adapters.adapter_path(name).stat().st_size < 4_000_000  # "a few MB at most"
    assert adapters.DEFAULT_ADAPTER == "none" or adapters.DEFAULT_ADAPTER in adapters.SHIPPED


@pytest.mark.model
@pytest.mark.torch
def test_adapter_changes_vectors_and_none_is_the_plain_model(
    fake_shipped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sentence_transformers import SentenceTransformer

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    plain = SentenceTransformer(str(bundled_model_dir()), device="cpu", local_files_only=True)
    plain.max_seq_length = 128
    expected = plain.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    none = LocalEmbedder(adapter="none").embed(TEXTS)
    assert np.array_equal(none, expected)  # bit for bit
    adapted_torch = LocalEmbedder(adapter="test-v0").embed(TEXTS)
    assert (adapted_torch * none).sum(axis=1).max() < 0.999  # the delta really moved every vector


@pytest.mark.model
@pytest.mark.torch
def test_shipped_adapters_agree_across_runtimes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ONNX export merges the same delta as the torch runtime; its cache entry is keyed by the adapter's sha256."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    plain = LocalEmbedder(adapter="none").embed(TEXTS)
    for name, sha in adapters.SHIPPED.items():
        torch_vectors = LocalEmbedder(adapter=name).embed(TEXTS)
        onnx = OnnxEmbedder(adapter=name)
        onnx_vectors = onnx.embed(TEXTS)
        assert (torch_vectors * onnx_vectors).sum(axis=1).min() >= 0.999
        assert (torch_vectors * plain).sum(axis=1).max() < 0.999  # the shipped delta moves every vector
        assert onnx.onnx_path is not None and onnx.onnx_path.parent.name.endswith(f"-adapter-{sha}")
