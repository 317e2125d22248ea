"""Build an embedding backend from its configured name."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from igraph_mcp.embed.base import Embedder
from igraph_mcp.errors import ConfigError

if TYPE_CHECKING:
    from igraph_mcp.config import EmbedderConfig

BACKENDS = ("local", "static", "openai", "hash", "none")
RUNTIMES = ("onnx", "torch")
DEFAULT_BACKEND = "local"
DEFAULT_RUNTIME = "onnx"
AUTO_QUANTIZE = "int8"
"""What quantize "auto" (the default) means on ONNX: int8 kept docstring MRR@10 and devset function Acc@10 within
one point of fp32 (benchmarks/int8_gate.py, see benchmarks/README.md) and embeds about twice as fast."""
DEFAULT_HASH_DIMENSION = 64
GATE_ENV = "IGRAPH_TEST_EMBED_GATE"
"""Tests only: with the hash backend, document batches wait until this file exists (see embed/gated.py)."""


def make_embedder(
    backend: str = DEFAULT_BACKEND,
    *,
    model: str | None = None,
    base_url: str | None = None,
    dimension: int | None = None,
    runtime: str = DEFAULT_RUNTIME,
    quantize: str = "auto",
    adapter: str | None = None,
) -> Embedder | None:
    """Return the embedder for ``backend`` ("local", "static", "openai", "hash") or None for "none" (FTS only).

    Nothing is loaded or contacted here: backends load their model or probe their endpoint on first use.
    ``dimension`` applies to "openai" (expected size; discovered when omitted) and "hash" (default 64);
    ``runtime`` ("onnx" or "torch"), ``quantize`` ("none" or "int8", ONNX only; "auto" = int8 on ONNX, none on
    torch) and ``adapter`` (a shipped adapter's name or "none"; None = the default adapter of the default model)
    apply to "local"; ``model`` is a table file for "static" (default: the shipped one).
    """
    name = (backend or "").strip().lower()
    if name == "none":
        return None
    if name == "local":
        from igraph_mcp.embed.local import DEFAULT_MODEL, LocalEmbedder

        if quantize == "auto":
            quantize = AUTO_QUANTIZE if runtime == "onnx" else "none"

        if runtime == "torch":
            if quantize != "none":
                raise ConfigError("embedder.quantize needs embedder.runtime 'onnx'; torch runs the model as is.")
            try:
                return LocalEmbedder(model or DEFAULT_MODEL, adapter=adapter)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        if runtime != "onnx":
            raise ConfigError(f"Unknown embedder runtime {runtime!r}; valid runtimes are: {', '.join(RUNTIMES)}.")
        from igraph_mcp.embed.onnx_local import OnnxEmbedder

        try:
            return OnnxEmbedder(model or DEFAULT_MODEL, quantize=quantize, adapter=adapter)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if name == "static":
        from igraph_mcp.embed.static import StaticEmbedder

        return StaticEmbedder() if model is None else StaticEmbedder(Path(model).expanduser(), sha256="")
    if name == "openai":
        if not base_url or not model:
            raise ConfigError(
                "The openai embedder needs both a base URL (e.g. http://127.0.0.1:8080/v1) and a model name."
            )
        from igraph_mcp.embed.openai_compat import OpenAICompatEmbedder

        return OpenAICompatEmbedder(base_url, model, dimension=dimension)
    if name == "hash":
        from igraph_mcp.embed.hashing import HashingEmbedder

        try:
            hashing = HashingEmbedder(dimension if dimension is not None else DEFAULT_HASH_DIMENSION)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        gate = os.environ.get(GATE_ENV)
        if gate:
            from igraph_mcp.embed.gated import GatedEmbedder

            return GatedEmbedder(hashing, Path(gate))
        return hashing
    raise ConfigError(f"Unknown embedder backend {backend!r}; valid backends are: {', '.join(BACKENDS)}.")


def embedder_from_config(e: EmbedderConfig) -> Embedder | None:
    """``make_embedder`` with every key of an ``embedder`` config section: the one place that maps them."""
    from igraph_mcp.embed.query_transform import with_query_transform

    embedder = make_embedder(
        e.backend,
        model=e.model,
        base_url=e.baseUrl,
        dimension=e.dimension,
        runtime=e.runtime,
        quantize=e.quantize,
        adapter=e.adapter,
    )
    return with_query_transform(embedder, e.queryTransform)


def open_for_queries(e: EmbedderConfig) -> None:
    """Load what the first query of ``embedder_from_config(e)`` waits for, into the process's shared caches: the ONNX
    session and tokenizer (onnx_local keeps one per model file). Other backends keep nothing across instances, so
    there is nothing to load ahead for them."""
    from igraph_mcp.embed.onnx_local import OnnxEmbedder
    from igraph_mcp.embed.query_transform import TransformedQueries

    embedder = embedder_from_config(e)
    if isinstance(embedder, TransformedQueries):
        embedder = embedder.inner
    if isinstance(embedder, OnnxEmbedder):
        embedder.open_for_queries()
