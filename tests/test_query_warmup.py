"""The query embedder loaded on a thread before a one-shot search needs it: the search's own embedder finds the
session and tokenizer it loaded and embeds exactly as a cold one; nothing is loaded for other backends, and a broken
configuration is left for the search to report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from igraph_mcp.embed import onnx_local
from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.query_warmup import start_query_warmup

QUESTION = "how are redirects resolved for a session"


@pytest.fixture(autouse=True)
def cold_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A process that has loaded nothing yet, with the optimized model cached away from the user's cache.
    monkeypatch.setattr(onnx_local, "_sessions", {})
    monkeypatch.setattr(onnx_local, "_tokenizers", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    for var in ("IGRAPH_EMBEDDER", "IGRAPH_EMBED_MODEL", "IGRAPH_EMBED_RUNTIME", "IGRAPH_EMBED_QUANTIZE"):
        monkeypatch.delenv(var, raising=False)


def _repo(tmp_path: Path, config: str | None = None) -> Path:
    root = tmp_path / "repo"
    (root / ".igraph").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / ".igraph" / "config.json").write_text(config, encoding="utf-8")
    return root


@pytest.mark.model
def test_the_search_finds_what_the_warmup_loaded_and_embeds_as_a_cold_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = make_embedder("local")
    assert isinstance(cold, onnx_local.OnnxEmbedder)
    expected = cold.embed_query(QUESTION)
    monkeypatch.setattr(onnx_local, "_sessions", {})
    monkeypatch.setattr(onnx_local, "_tokenizers", {})

    start_query_warmup(str(_repo(tmp_path))).join()
    assert [threads for _, threads in onnx_local._sessions] == [onnx_local.RUN_THREADS]
    assert len(onnx_local._tokenizers) == 1
    searching = make_embedder("local")  # the search's own embedder, made after the warm-up
    assert isinstance(searching, onnx_local.OnnxEmbedder)
    np.testing.assert_array_equal(searching.embed_query(QUESTION), expected)
    assert searching._session(onnx_local.RUN_THREADS) is next(iter(onnx_local._sessions.values()))


def test_another_backend_loads_nothing(tmp_path: Path) -> None:
    start_query_warmup(str(_repo(tmp_path, json.dumps({"embedder": {"backend": "hash"}})))).join()
    assert onnx_local._sessions == {} and onnx_local._tokenizers == {}


def test_a_broken_configuration_is_left_for_the_search_to_report(tmp_path: Path) -> None:
    # An exception escaping the thread would fail this test (pytest reports unhandled thread exceptions).
    start_query_warmup(str(_repo(tmp_path, "{not json"))).join()
    start_query_warmup(str(_repo(tmp_path, json.dumps({"embedder": {"backend": "nope"}})))).join()
    assert onnx_local._sessions == {}


def test_an_unexpected_failure_stays_on_the_warmup_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from igraph_mcp.embed import registry

    def breaks(_config: object) -> None:
        raise RuntimeError("the runtime could not open the model")

    monkeypatch.setattr(registry, "open_for_queries", breaks)
    failures: list[BaseException | None] = []
    monkeypatch.setattr("threading.excepthook", lambda args: failures.append(args.exc_value))
    start_query_warmup(str(_repo(tmp_path))).join()
    assert failures == []
