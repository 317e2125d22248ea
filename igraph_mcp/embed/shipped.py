"""The int8 all-MiniLM-L6-v2 that ships inside igraph-mcp: the default embedder needs no torch and no weights package.

``igraph_mcp/embed/bundled/all-MiniLM-L6-v2-int8/`` holds the int8 ONNX graph, the tokenizer and the model config, made
from the published weights by ``python -m igraph_mcp.embed.onnx_export bundle`` (the same export and quantization
as the per-user export path, so its vectors are the ones an index of ``local:all-MiniLM-L6-v2+int8`` already
holds). ``manifest.json`` records each file's sha256 and the sha256 of the weights it was made from; a file that
does not match is refused with the way out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from igraph_mcp.errors import EmbedderError
from igraph_mcp.paths import file_sha256

DIRECTORY = Path(__file__).resolve().parent / "bundled" / "all-MiniLM-L6-v2-int8"
MANIFEST_FILE = "manifest.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "config.json"
FILES = (MODEL_FILE, TOKENIZER_FILE, CONFIG_FILE)
_REINSTALL_HINT = "reinstall igraph-mcp (pip install --force-reinstall igraph-mcp), or run with embedder none"


@dataclass(frozen=True)
class ShippedModel:
    """The shipped model directory as its manifest describes it."""

    directory: Path
    weights_sha256: str
    """sha256 of the safetensors weights the graph was made from: the key of its optimized copy in the cache."""
    sha256: dict[str, str]

    @property
    def onnx(self) -> Path:
        """The int8 graph as quantized (not yet optimized by ONNX Runtime, so any ORT version can load it)."""
        return self.directory / MODEL_FILE

    def verify(self, name: str) -> Path:
        """The path of one shipped file after checking it against the manifest; EmbedderError if it differs."""
        path = self.directory / name
        try:
            actual = file_sha256(path)
        except OSError as exc:
            raise EmbedderError(
                f"the model shipped with igraph-mcp lacks {name} ({exc.strerror}); {_REINSTALL_HINT}"
            ) from None
        if actual != self.sha256.get(name):
            raise EmbedderError(f"the model shipped with igraph-mcp is damaged ({name} checksum); {_REINSTALL_HINT}")
        return path


def fits(default_model: bool, quantize: str, adapter: str) -> bool:
    """Whether the shipped graph is the model asked for: the default model, int8, no adapter."""
    return default_model and quantize == "int8" and adapter == "none"


def load(directory: Path = DIRECTORY) -> ShippedModel:
    """Read the manifest of the shipped model; EmbedderError when it is missing or unreadable."""
    try:
        data = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
        model = ShippedModel(directory, str(data["weights_sha256"]), {k: str(v) for k, v in data["sha256"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EmbedderError(
            f"the model shipped with igraph-mcp is missing or damaged ({directory / MANIFEST_FILE}: "
            f"{type(exc).__name__}); {_REINSTALL_HINT}"
        ) from None
    missing = [name for name in FILES if name not in model.sha256]
    if missing:
        raise EmbedderError(f"the shipped model's manifest does not list {', '.join(missing)}; {_REINSTALL_HINT}")
    return model


def write_manifest(directory: Path, weights_sha256: str, made_with: dict[str, Any]) -> None:
    """Record the sha256 of every shipped file (the bundle step's last act)."""
    manifest = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "variant": "int8 (onnxruntime quantize_dynamic, QInt8 weights)",
        "weights_sha256": weights_sha256,
        "made_by": "python -m igraph_mcp.embed.onnx_export bundle <weights dir> <this dir>",
        "made_with": made_with,
        "sha256": {name: file_sha256(directory / name) for name in FILES},
    }
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
