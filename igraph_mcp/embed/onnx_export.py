"""The ONNX file of a local sentence-transformers model: optimized or exported offline once per user, cached, checked.

The default model ships as an int8 graph inside the package (see ``shipped``): it is only optimized by ONNX
Runtime into the cache, in-process, with no torch. Any other model, fp32 or adapter needs an export from its
weights, and that needs torch (the ``torch`` extra), which costs seconds to import and hundreds of MB to hold,
so it runs in a child process (``python -m igraph_mcp.embed.onnx_export``): the server or CLI that asked for it
never imports torch and gets that memory back. The result lives under
``$XDG_CACHE_HOME/igraph-mcp/onnx/<weights sha256>/v<format>-<variant>/model.onnx`` with its own sha256
next to it; a directory is only ever renamed into place complete, so a reader sees a whole export or none,
and a file that no longer matches its recorded sha256 is exported again. No network is used, ever.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from igraph_mcp.embed import shipped
from igraph_mcp.embed.local import TORCH_EXTRA
from igraph_mcp.errors import EmbedderError
from igraph_mcp.paths import file_sha256

log = logging.getLogger(__name__)

EXPORT_FORMAT = 1
"""Bump when the exported graph changes (wrapper, opset, inputs, outputs): older cache entries are then ignored."""
OPSET = 17
VARIANTS = ("fp32", "int8")
MODEL_FILE = "model.onnx"
SHA_FILE = "model.onnx.sha256"
CHECKED_FILE = "model.onnx.checked"
"""The size, mtime and inode the model had when it last matched its sha256: hashing 22 MB costs ~20 ms of every
cold CLI call, and a file that kept all three has not been rewritten since."""
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"
EXPORT_TIMEOUT_S = 900.0  # torch import + trace + (int8) quantization on a busy 2-core machine stays far below


def cache_root() -> Path:
    """Where exported models are kept: ``$XDG_CACHE_HOME/igraph-mcp/onnx`` (``~/.cache`` by default)."""
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "igraph-mcp" / "onnx"


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def variant_dir(weights_sha256: str, variant: str, adapter_sha256: str | None = None) -> Path:
    """The cache directory of one export of the weights with this sha256 (and the adapter with that one).

    The saved graph is already optimized by ONNX Runtime (loads in ~0.25 s instead of ~0.7 s), and such a graph
    is only promised to load in the version that wrote it, hence the version in the name.
    """
    name = f"v{EXPORT_FORMAT}-{variant}-ort{_version('onnxruntime')}"
    return cache_root() / weights_sha256 / (f"{name}-adapter-{adapter_sha256}" if adapter_sha256 else name)


def verified_model(directory: Path) -> Path | None:
    """The model file in ``directory`` if it is there and matches its recorded sha256, else None."""
    model, recorded, checked = directory / MODEL_FILE, directory / SHA_FILE, directory / CHECKED_FILE
    try:
        expected = recorded.read_text(encoding="ascii").strip()
        stat = model.stat()
        stamp = f"{expected} {stat.st_size} {stat.st_mtime_ns} {stat.st_ino}\n"
        if expected and _read_quietly(checked) == stamp:
            return model
        actual = file_sha256(model)
    except (OSError, UnicodeDecodeError):
        return None
    if not expected or actual != expected:
        return None
    with contextlib.suppress(OSError):  # a read-only cache still works, it hashes every time
        checked.write_text(stamp, encoding="ascii")
    return model


def _read_quietly(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None


def _cached(target: Path) -> Path | None:
    """The verified model in the cache entry ``target``; a damaged entry is removed so it can be made again."""
    found = verified_model(target)
    if found is None and target.exists():
        log.warning("the cached ONNX model in %s does not match its checksum: making it again", target)
        shutil.rmtree(target, ignore_errors=True)
    return found


def ensure_onnx_model(
    model_dir: Path, weights_sha256: str, variant: str = "fp32", adapter: tuple[Path, str] | None = None
) -> Path:
    """Return the verified ONNX file for ``model_dir`` (exporting or quantizing it first if needed).

    ``adapter`` is (file, sha256) of a LoRA adapter merged into the weights before the export.
    """
    if variant not in VARIANTS:
        raise EmbedderError(f"unknown ONNX variant {variant!r}; use one of {', '.join(VARIANTS)}")
    target = variant_dir(weights_sha256, variant, adapter[1] if adapter else None)
    found = _cached(target)
    if found is not None:
        return found
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
        raise EmbedderError(
            f"making the {variant} ONNX model of {model_dir.name} needs torch and transformers: {TORCH_EXTRA_HINT}"
        )
    command = ["export" if variant == "fp32" else "quantize", str(model_dir)]
    if adapter is not None:
        command += ["--adapter", str(adapter[0]), adapter[1]]
    log.info("making the %s ONNX model of %s once (cached in %s)", variant, model_dir.name, target)
    return _build(target, command)


def ensure_shipped_onnx(model: shipped.ShippedModel) -> Path:
    """The verified, ORT-optimized copy of the shipped int8 graph (made in-process on first use; no torch).

    It lands where the export path puts the int8 model of the same weights: the bytes are the same either way,
    so a cache filled by an earlier export is reused as it is.
    """
    target = variant_dir(model.weights_sha256, "int8")
    found = _cached(target)
    if found is not None:
        return found
    source = model.verify(shipped.MODEL_FILE)

    def optimize(out: Path) -> None:
        try:
            _optimize(str(source), str(out))
        except Exception as exc:  # ORT reports a bad graph or a full disk with its own exception types
            raise EmbedderError(f"ONNX Runtime could not prepare the shipped model ({type(exc).__name__})") from exc

    return _into_cache(target, optimize)


def _build(target: Path, command: list[str]) -> Path:
    """Run the export child (torch) into the cache entry ``target``."""

    def export(out: Path) -> None:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        argv = [sys.executable, "-m", "igraph_mcp.embed.onnx_export", *command[:2], str(out), *command[2:]]
        try:
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EmbedderError(f"exporting the embedding model to ONNX failed ({exc}); {_TORCH_HINT}") from None
        if done.returncode != 0 or not out.is_file():
            tail = " | ".join(done.stderr.strip().splitlines()[-3:])
            raise EmbedderError(f"exporting the embedding model to ONNX failed ({tail}); {_TORCH_HINT}")

    return _into_cache(target, export)


def _into_cache(target: Path, make: Callable[[Path], None]) -> Path:
    """Make the model file in a temporary directory beside ``target``, record its sha256, rename it into place."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".make-", dir=target.parent))
    except OSError as exc:
        raise EmbedderError(
            f"cannot write the model cache under {target.parent} ({exc.strerror}); set XDG_CACHE_HOME to a "
            "writable directory"
        ) from None
    try:
        make(work / MODEL_FILE)
        (work / SHA_FILE).write_text(file_sha256(work / MODEL_FILE) + "\n", encoding="ascii")
        # Fails when another process put a complete copy there first: then that one is used if it verifies.
        with contextlib.suppress(OSError):
            work.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    found = verified_model(target)
    if found is None:
        raise EmbedderError(f"the ONNX model cached in {target} does not verify; delete that directory and retry")
    return found


TORCH_EXTRA_HINT = (
    f"install the torch extra ({TORCH_EXTRA}), or use the shipped model (embedder.model, quantize and adapter at "
    "their defaults)"
)
_TORCH_HINT = (
    "set embedder.runtime to 'torch' (IGRAPH_EMBED_RUNTIME=torch) to use sentence-transformers directly "
    "(the torch extra), or use the shipped model (embedder.quantize 'auto', adapter 'none')"
)


# -- the child process ------------------------------------------------------------------------------------------
def _export(model_dir: str, out: str, adapter: tuple[str, str] | None = None) -> None:
    """Trace the transformer (token ids in, last hidden state out) with torch's TorchScript exporter."""
    import warnings

    import torch
    from transformers import AutoModel

    class _KeywordCall(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Any without the torch extra
        # transformers 5.x: positional arguments collide with use_cache, so the model is called by keyword.
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = AutoModel.from_pretrained(model_dir, local_files_only=True).eval()
    if adapter is not None:
        from igraph_mcp.embed.adapter import merge_into, read_adapter

        merge_into(model, read_adapter(Path(adapter[0]), expected_sha256=adapter[1]))
    ids = torch.ones((2, 8), dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, OUTPUT)}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer notes about shapes that are dynamic here by design
        torch.onnx.export(
            _KeywordCall(model),
            (ids, ids, torch.zeros_like(ids)),
            out,
            input_names=list(INPUTS),
            output_names=[OUTPUT],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )


def _quantize(fp32: str, out: str) -> None:
    """int8 dynamic quantization of the weights (activations are quantized per batch at run time)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(fp32, out, weight_type=QuantType.QInt8)


def _optimize(raw: str, out: str) -> None:
    """Save ONNX Runtime's extended graph optimizations (fused attention, layer norm, GELU) into ``out``."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = out
    ort.InferenceSession(raw, sess_options=options, providers=["CPUExecutionProvider"])


def bundle(model_dir: Path, out_dir: Path) -> None:
    """Make the shipped model directory from the bundled weights: int8 graph (unoptimized), tokenizer, config.

    The graph is kept as quantized, before ORT's optimizations, because an optimized graph is only promised to
    load in the ORT version that wrote it; users optimize it once into their cache (``ensure_shipped_onnx``).
    """
    from igraph_mcp.embed import local

    local.verify_bundled_weights(model_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = out_dir / (shipped.MODEL_FILE + ".raw")
    _export(str(model_dir), str(raw))
    _quantize(str(raw), str(out_dir / shipped.MODEL_FILE))
    raw.unlink()
    for name in (shipped.TOKENIZER_FILE, shipped.CONFIG_FILE):
        shutil.copyfile(model_dir / name, out_dir / name)
    versions = {name: _version(name) for name in ("torch", "transformers", "onnx", "onnxruntime")}
    shipped.write_manifest(out_dir, local.BUNDLED_WEIGHTS_SHA256, {**versions, "opset": OPSET})


def main(argv: list[str]) -> int:
    """Child entry point: ``export|quantize <model dir> <out.onnx> [--adapter <file> <sha256>]`` (fp32 or int8).

    ``bundle <model dir> <out dir>`` makes the directory that ships inside the package (maintainers only).
    """
    if len(argv) == 3 and argv[0] == "bundle":
        bundle(Path(argv[1]), Path(argv[2]))
        return 0
    if len(argv) not in (3, 6) or argv[0] not in ("export", "quantize") or (len(argv) == 6 and argv[3] != "--adapter"):
        sys.stderr.write(
            "usage: python -m igraph_mcp.embed.onnx_export export|quantize <model dir> <out.onnx> "
            "[--adapter <file> <sha256>]\n       python -m igraph_mcp.embed.onnx_export bundle <model dir> <out dir>\n"
        )
        return 2
    raw = argv[2] + ".raw"
    _export(argv[1], raw, (argv[4], argv[5]) if len(argv) == 6 else None)
    if argv[0] == "quantize":
        # Quantization reads the plain exported graph (ORT's fused one has ops it cannot type).
        _quantize(raw, raw + ".int8")
        os.replace(raw + ".int8", raw)
    _optimize(raw, argv[2])
    os.unlink(raw)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
