"""Load a repository's query embedder on a background thread while a one-shot search imports and opens its index.

A cold search waits for ONNX Runtime to open its session and for the tokenizer, and both let go of the GIL for much
of it: started first, they run beside the imports of the retrieval stages and the store instead of after them. What
is loaded lands in onnx_local's per-process caches, where the search's own embedder finds it, so the warm-up
changes no answer: one that fails, or that loaded another model than the search uses, costs only its own time (the
search then loads its embedder itself and reports any error in its own words).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from igraph_mcp.errors import IGraphError

log = logging.getLogger(__name__)


def start_query_warmup(root: str) -> threading.Thread:
    """Start loading the embedder that the configuration of ``root`` (``--root``'s ``PATH`` or ``NAME=PATH``) names,
    on a thread; returns it, already started. Everything else is imported there: pydantic alone is tens of ms."""
    # Not a daemon: an interpreter that finalizes under a thread inside ONNX Runtime may crash; a search that
    # fails early waits the tenth of a second the warm-up takes to finish.
    thread = threading.Thread(target=_warm_up, args=(root,), name="igraph-query-warmup")
    thread.start()
    return thread


def _warm_up(root: str) -> None:
    from igraph_mcp.config import load_config
    from igraph_mcp.embed.registry import open_for_queries
    from igraph_mcp.workspace_roots import parse_root

    try:
        open_for_queries(load_config(Path(parse_root(root)[1])).embedder)
    except IGraphError as exc:
        log.debug("query embedder not warmed up: %s", exc)
    except Exception:  # best effort: the search loads its embedder again and reports what fails in its own words
        log.debug("query embedder not warmed up", exc_info=True)
