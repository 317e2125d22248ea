"""Build an embedding backend from its configured name."""

from __future__ import annotations

from igraph_mcp.embed.base import Embedder
from igraph_mcp.errors import ConfigError

BACKENDS = ("local", "openai", "hash", "none")
DEFAULT_BACKEND = "local"
DEFAULT_HASH_DIMENSION = 64


def make_embedder(
    backend: str = DEFAULT_BACKEND,
    *,
    model: str | None = None,
    base_url: str | None = None,
    dimension: int | None = None,
) -> Embedder | None:
    """Return the embedder for ``backend`` ("local", "openai", "hash") or None for "none" (FTS only).

    Nothing is loaded or contacted here: backends load their model or probe their endpoint on first use.
    ``dimension`` applies to "openai" (expected size; discovered when omitted) and "hash" (default 64).
    """
    name = (backend or "").strip().lower()
    if name == "none":
        return None
    if name == "local":
        from igraph_mcp.embed.local import DEFAULT_MODEL, LocalEmbedder

        return LocalEmbedder(model or DEFAULT_MODEL)
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
            return HashingEmbedder(dimension if dimension is not None else DEFAULT_HASH_DIMENSION)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    raise ConfigError(f"Unknown embedder backend {backend!r}; valid backends are: {', '.join(BACKENDS)}.")
