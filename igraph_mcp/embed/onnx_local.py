"""The local model through ONNX Runtime + ``tokenizers``: no torch on the query or indexing path.

The default (all-MiniLM-L6-v2, int8, no adapter) runs the graph, tokenizer and config that ship inside the package
(see ``shipped``); any other model, fp32 or adapter uses the torch backend's model directory and an ONNX file
made from its weights once per user (see onnx_export; that export needs the torch extra). The vectors follow
sentence-transformers: mean of the last hidden state over the attention mask, then L2-normalised. Texts are sorted
by token count before batching so a batch pads to similar lengths (code symbols range from 10 to 128 word pieces).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from igraph_mcp.embed import adapter as adapters
from igraph_mcp.embed import local, shipped
from igraph_mcp.embed.base import Vectors
from igraph_mcp.embed.onnx_export import TORCH_EXTRA_HINT, ensure_onnx_model, ensure_shipped_onnx
from igraph_mcp.errors import EmbedderError
from igraph_mcp.paths import file_sha256

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Tokenizer

DEFAULT_THREADS = 2
"""Document batches run this many at a time, each on one thread of the same session (ONNX Runtime lets go of the
GIL in a run): a run's small matrix products keep one thread busy but leave a second intra-op thread waiting between
them. Measured on 4,000 sympy 1.12 texts in calls of 256, as the indexer makes them (2026-12-06, idle 2-core
machine): 201-211 texts/s against 156-173 for one run at a time on two intra-op threads (benchmarks/README.md)."""
DEFAULT_BATCH_SIZE = 16
"""Texts per ONNX run after sorting by length. int8 activations are quantized per run, so a text's vector depends on
the texts it runs with: kept at 16, the vectors are bit-identical to those of one run at a time. Smaller batches
run faster side by side (8: ~236 texts/s on the texts above) but change every vector slightly (cosine 0.978-1.0)."""
RUN_THREADS = 1
"""Every run, a query's or a document batch's, is on one thread: one short query gains nothing from a second thread
and waits for it when another process holds the core, and documents use the cores by running side by side."""
QUANTIZATIONS = ("none", "int8")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_RUNTIME_HINT = "set embedder.runtime to 'torch' (IGRAPH_EMBED_RUNTIME=torch; needs the torch extra)"


def _weights_sha256(model_dir: Path, bundled: bool) -> str:
    """The cache key of a model directory: its weights' sha256 (known in advance for the bundled copy)."""
    if bundled:
        return local.BUNDLED_WEIGHTS_SHA256  # resolve_model_source verified the file against it
    for name in _WEIGHT_FILES:
        if (model_dir / name).is_file():
            return file_sha256(model_dir / name)
    raise EmbedderError(f"no weights file ({' or '.join(_WEIGHT_FILES)}) in {model_dir}; {_RUNTIME_HINT}")


def _check_mean_pooling(model_dir: Path) -> None:
    """Only mean pooling is reproduced here; another pooling would give different vectors than the model's own."""
    try:
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # a plain transformers directory: sentence-transformers itself would default to mean pooling
    if not pooling.get("pooling_mode_mean_tokens", False):
        raise EmbedderError(f"the model in {model_dir} does not use mean pooling; {_RUNTIME_HINT}")


class OnnxEmbedder:
    """A local sentence-transformers model run by ONNX Runtime on CPU; loads lazily; unit-normalised float32."""

    def __init__(
        self,
        model: str = local.DEFAULT_MODEL,
        *,
        quantize: str = "none",
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_seq_length: int | None = None,
        threads: int = DEFAULT_THREADS,
        adapter: str | None = None,
    ) -> None:
        if quantize not in QUANTIZATIONS:
            raise ValueError(f"quantize must be one of {', '.join(QUANTIZATIONS)}")
        if batch_size < 1 or threads < 1:
            raise ValueError("batch_size and threads must be positive")
        if max_seq_length is not None and max_seq_length < 8:
            raise ValueError("max_seq_length must be at least 8")
        self._name = model
        self._adapter = local.resolve_adapter(model, adapter)
        self._quantize = quantize
        self._batch_size = batch_size
        self._max_seq_length = max_seq_length
        self._threads = threads
        self._model_dir: Path | None = None
        self._shipped: shipped.ShippedModel | None = None
        self._onnx_path: Path | None = None
        self._tokenizer: Tokenizer | None = None
        self._tokenizer_file: tuple[Path, int] | None = None  # the tokenizer's file and truncation length
        self._sessions: dict[int, onnxruntime.InferenceSession] = {}
        self._input_names: tuple[str, ...] = ()
        self._dimension: int | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"OnnxEmbedder(model={self._name!r}, adapter={self._adapter!r}, quantize={self._quantize!r}, "
            f"threads={self._threads})"
        )

    @property
    def id(self) -> str:
        """``local:<model>`` as the torch backend (fp32 vectors agree to cosine >= 0.999), ``+int8`` if quantized."""
        base = local.LocalEmbedder(self._name, max_seq_length=self._max_seq_length, adapter=self._adapter).id
        return f"{base}+int8" if self._quantize == "int8" else base

    @property
    def adapter(self) -> str:
        """The adapter merged into the exported weights (``none`` for the plain model)."""
        return self._adapter

    @property
    def dimension(self) -> int:
        """Vector length (the model's hidden size); reads the model directory on first access."""
        self._prepare()
        assert self._dimension is not None
        return self._dimension

    @property
    def loaded(self) -> bool:
        """Whether a session is already in memory."""
        return bool(self._sessions)

    @property
    def onnx_path(self) -> Path | None:
        """The verified ONNX file in use (None until loaded)."""
        return self._onnx_path

    def load(self) -> None:
        """Make (if needed) and load the ONNX model now; raises EmbedderError when it is unavailable."""
        self._session(RUN_THREADS)

    def open_for_queries(self) -> None:
        """Load the session queries run on and the tokenizer, embedding nothing; raises EmbedderError as ``load``.
        The session first: opening it lets go of the GIL, loading the tokenizer does not."""
        self._session(RUN_THREADS)
        self._prepare()

    # -- loading ------------------------------------------------------------------------------------------------
    def _prepare(self) -> None:
        """``_locate``, and the tokenizer (no session yet)."""
        if self._tokenizer is not None:
            return
        self._locate()
        assert self._tokenizer_file is not None
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = _shared_tokenizer(*self._tokenizer_file)

    def _locate(self) -> None:
        """Find the model directory, its dimension and its tokenizer file (cheap: nothing loaded yet)."""
        if self._model_dir is not None:
            return
        with self._lock:
            if self._model_dir is not None:
                return
            if shipped.fits(local.is_default_model(self._name), self._quantize, self._adapter):
                self._shipped = shipped.load()
                model_dir = self._shipped.directory
                config_file = self._shipped.verify(shipped.CONFIG_FILE)
                tokenizer_file = self._shipped.verify(shipped.TOKENIZER_FILE)
            else:
                model_dir = self._weights_dir()
                config_file, tokenizer_file = model_dir / "config.json", model_dir / "tokenizer.json"
            try:
                config = json.loads(config_file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise EmbedderError(
                    f"cannot read the config of {model_dir} ({type(exc).__name__}); {_RUNTIME_HINT}"
                ) from None
            native = int(config.get("max_position_embeddings") or 512)
            limit = min(self._max_seq_length or local.DEFAULT_MAX_SEQ_LENGTH, native)
            self._dimension = int(config.get("hidden_size") or 0) or None
            if self._dimension is None:
                raise EmbedderError(f"the config of {model_dir} has no hidden_size; {_RUNTIME_HINT}")
            self._tokenizer_file = (tokenizer_file, limit)
            self._model_dir = model_dir  # last: it marks the rest as found

    def _weights_dir(self) -> Path:
        """The directory of a model that has to be exported from its weights (not the shipped graph)."""
        try:
            source, local_only = local.resolve_model_source(self._name)
        except EmbedderError as exc:
            raise EmbedderError(f"{exc} Exporting it to ONNX also needs torch: {TORCH_EXTRA_HINT}.") from None
        if not local_only:
            raise EmbedderError(
                f"the embedding model {self._name!r} is not on this machine and the ONNX runtime never "
                f"downloads; {_RUNTIME_HINT} to let sentence-transformers fetch it, or install it locally"
            )
        model_dir = Path(source)
        _check_mean_pooling(model_dir)
        return model_dir

    def _session(self, threads: int) -> onnxruntime.InferenceSession:
        session = self._sessions.get(threads)
        if session is not None:
            return session
        self._locate()
        assert self._model_dir is not None
        with self._lock:
            if threads in self._sessions:
                return self._sessions[threads]
            if self._onnx_path is None and self._shipped is not None:
                self._onnx_path = ensure_shipped_onnx(self._shipped)
            if self._onnx_path is None:
                bundled = self._model_dir == local.bundled_model_dir()
                sha = _weights_sha256(self._model_dir, bundled)
                variant = "int8" if self._quantize == "int8" else "fp32"
                merged: tuple[Path, str] | None = None
                if self._adapter != adapters.NONE:
                    found = local.load_adapter_for(self._adapter, self._model_dir)  # checked before the export
                    merged = (adapters.adapter_path(self._adapter), found.sha256)
                self._onnx_path = ensure_onnx_model(self._model_dir, sha, variant, merged)
            session = _shared_session(self._onnx_path, threads)
            self._input_names = tuple(i.name for i in session.get_inputs())
            self._sessions[threads] = session
            return session

    # -- encoding -------------------------------------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents; shape (len(texts), dimension), rows unit length."""
        return self._encode(texts, self._threads)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query on one thread; shape (dimension,), unit length (no query prefix for this model)."""
        row: Vectors = self._encode([text], 1)[0]
        return row

    def _encode(self, texts: Sequence[str], side_by_side: int) -> Vectors:
        """``side_by_side``: how many batches run at a time."""
        session = self._session(RUN_THREADS)
        self._prepare()
        assert self._tokenizer is not None and self._dimension is not None
        out: Vectors = np.empty((len(texts), self._dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        # Longest first: the first batch shows at once whether the largest shape fits.
        order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))
        chunks = [order[start : start + self._batch_size] for start in range(0, len(order), self._batch_size)]

        def run(chunk: list[int]) -> Vectors:
            feeds, mask = _pad([encodings[i] for i in chunk], self._input_names)
            try:
                (hidden,) = session.run(["last_hidden_state"], feeds)
            except Exception as exc:  # onnxruntime raises its own exception types for any run failure
                raise EmbedderError(f"ONNX Runtime failed to embed a batch ({type(exc).__name__}: {exc})") from exc
            return mean_pool_normalise(np.asarray(hidden, dtype=np.float32), mask)

        if side_by_side <= 1 or len(chunks) == 1:
            for chunk in chunks:
                out[chunk] = run(chunk)
            return out
        runner = _side_by_side(side_by_side)
        pending = [runner.submit(run, chunk) for chunk in chunks]
        try:
            for chunk, job in zip(chunks, pending, strict=True):
                out[chunk] = job.result()
        except BaseException:
            # A failed batch or an interrupt: the batches not yet started are dropped, not run to the end first.
            for job in pending:
                job.cancel()
            raise
        return out


_shared_lock = threading.Lock()
_tokenizers: dict[tuple[str, int], Tokenizer] = {}
_sessions: dict[tuple[str, int], onnxruntime.InferenceSession] = {}
_runners: dict[int, ThreadPoolExecutor] = {}


def _side_by_side(runs: int) -> ThreadPoolExecutor:
    """One pool of ``runs`` workers in the process for document batches: the repositories of a workspace that embed
    at once share the cores instead of each adding ``runs`` more threads."""
    with _shared_lock:
        found = _runners.get(runs)
        if found is None:
            found = _runners[runs] = ThreadPoolExecutor(max_workers=runs, thread_name_prefix="igraph-embed-run")
        return found


def _shared_tokenizer(path: Path, limit: int) -> Tokenizer:
    """One tokenizer per file and truncation length in the process: every repository of a workspace, and a
    warm-up thread, use the same (loading one costs ~20 ms and its vocabulary's memory)."""
    key = (str(path), limit)
    with _shared_lock:
        found = _tokenizers.get(key)
        if found is not None:
            return found
        try:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:  # OSError, JSON errors, and tokenizers' own Exception type
            raise EmbedderError(f"cannot read the tokenizer {path} ({type(exc).__name__}); {_RUNTIME_HINT}") from None
        tokenizer.no_padding()  # the shipped tokenizer pads to 128: padding is done per sorted batch instead
        tokenizer.enable_truncation(max_length=limit)
        _tokenizers[key] = tokenizer
        return tokenizer


def _shared_session(path: Path, threads: int) -> onnxruntime.InferenceSession:
    """One ORT session per model file and thread count in the process (sessions are safe to run from several
    threads): a workspace of many repositories holds the model once, and a session a warm-up thread opened is
    the one the first question runs on."""
    key = (str(path), threads)
    with _shared_lock:
        found = _sessions.get(key)
        if found is None:
            found = _sessions[key] = _open_session(path, threads)
        return found


def _open_session(path: Path, threads: int) -> onnxruntime.InferenceSession:
    """An ORT CPU session with ``threads`` intra-op threads that do not spin while idle (the cores are shared)."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise EmbedderError(f"onnxruntime is not installed (pip install onnxruntime), or {_RUNTIME_HINT}") from None
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Spinning workers burn the other core between batches; on a shared 2-core machine that slows everyone.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    # The cached file is already optimized (onnx_export): optimizing it again at every load costs ~0.5 s.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # ORT reports a bad model file with its own exception types
        raise EmbedderError(f"ONNX Runtime cannot load {path} ({type(exc).__name__}); delete it and retry") from exc


_Ints = np.ndarray[Any, np.dtype[np.int64]]


def _pad(encodings: list[Any], input_names: tuple[str, ...]) -> tuple[dict[str, _Ints], _Ints]:
    """Right-pad a batch of encodings with zeros to its longest member (pad id and pad type id are 0)."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    types = np.zeros_like(ids)
    for row, enc in enumerate(encodings):
        n = len(enc.ids)
        ids[row, :n] = enc.ids
        mask[row, :n] = enc.attention_mask
        types[row, :n] = enc.type_ids
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    return {name: feeds[name] for name in input_names}, mask


def mean_pool_normalise(hidden: Vectors, mask: _Ints) -> Vectors:
    """sentence-transformers' mean pooling over real tokens, then L2 normalisation (rows of unit length)."""
    weights = mask.astype(np.float32)[:, :, None]
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    out: Vectors = (pooled / norms).astype(np.float32)
    return out
