"""Low-rank weight deltas (LoRA) for the local model, shipped in the package and merged into its weights.

An adapter file (``adapters/<name>.npz``) holds, for each adapted linear layer ``T``, the matrices ``T.A``
(rank x in) and ``T.B`` (out x rank), plus a JSON header: format, rank, alpha, the targets and the sha256 of the
base weights it was trained on. Applying it adds ``(alpha / rank) * B @ A`` to each target's weight, once, before
the model runs (torch) or is exported (ONNX): inference costs exactly what the plain model costs.

Every shipped adapter's sha256 is recorded here and checked before use, like the bundled weights.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from igraph_mcp.errors import EmbedderError
from igraph_mcp.paths import file_sha256

ADAPTER_DIR = Path(__file__).with_name("adapters")
FORMAT = 1
NONE = "none"
HEADER_KEY = "__header__"
SHIPPED: dict[str, str] = {
    # training/README.md: 40 min, 1,632 mined docstring -> code pairs from 60 PyPI sdists (training/packages.txt).
    "code-v1": "14279ee9da96f5f294186ddd11ce91342938262f9ae8bdc06be71d196f95d5ae",
}
"""Adapter name -> sha256 of its file, for every adapter in ``adapters/``."""
DEFAULT_ADAPTER = NONE
"""Applied to the bundled model unless embedder.adapter says otherwise. code-v1 (40 min of training, 5% of its
pairs) raised docstring MRR@10 (dense 55.3 -> 60.5, default 58.4 -> 58.8, fp32) but lost on the devset tuning half,
which decides defaults: with int8, file Acc@1 60.3 -> 56.9 and the default call's function Acc@10 53.6 -> 50.0 (58
issues, 19 trees; README, "Retrieval quality"). So it ships opt-in (embedder.adapter: code-v1). commits-v1 (issue-shaped
commit pairs) no longer ships: its mined repositories listed benchmark projects (issue 31; training/README.md)."""
_REINSTALL = "reinstall igraph-mcp (pip install --force-reinstall --no-deps igraph-mcp)"
_PLAIN = "or set embedder.adapter to 'none' (IGRAPH_EMBED_ADAPTER=none) for the plain model"


@dataclass(frozen=True)
class Adapter:
    """A verified adapter: its name, file sha256, scale and the low-rank factors per target weight."""

    name: str
    sha256: str
    rank: int
    alpha: float
    base_sha256: str
    factors: dict[str, tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]  # target -> (A, B)

    @property
    def scale(self) -> float:
        return self.alpha / self.rank

    def delta(self, target: str) -> np.ndarray[Any, Any]:
        """The float32 weight delta of one target, shape (out, in)."""
        a, b = self.factors[target]
        out: np.ndarray[Any, Any] = (self.scale * (b.astype(np.float64) @ a.astype(np.float64))).astype(np.float32)
        return out


def adapter_path(name: str) -> Path:
    """Where the shipped adapter ``name`` lives."""
    return ADAPTER_DIR / f"{name}.npz"


def check_name(name: str) -> str:
    """Return the adapter name if it is ``none`` or a shipped adapter; ValueError naming the choices otherwise."""
    if name == NONE or name in SHIPPED:
        return name
    valid = ", ".join([NONE, *sorted(SHIPPED)])
    raise ValueError(f"Unknown embedder adapter {name!r}; valid adapters are: {valid}.")


def save_adapter(
    path: Path,
    factors: dict[str, tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]],
    *,
    rank: int,
    alpha: float,
    base_sha256: str,
) -> None:
    """Write an adapter file (used by training/train_adapter.py)."""
    header = {"format": FORMAT, "rank": rank, "alpha": alpha, "base_sha256": base_sha256, "targets": sorted(factors)}
    arrays: dict[str, np.ndarray[Any, Any]] = {HEADER_KEY: np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)}
    for target, (a, b) in factors.items():
        arrays[f"{target}.A"] = np.ascontiguousarray(a, dtype=np.float32)
        arrays[f"{target}.B"] = np.ascontiguousarray(b, dtype=np.float32)
    with path.open("wb") as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]


def read_adapter(path: Path, *, name: str | None = None, expected_sha256: str | None = None) -> Adapter:
    """Load and check an adapter file; EmbedderError naming the file and the fix when it is missing or bad."""
    label = name or path.stem
    try:
        actual = file_sha256(path)
    except OSError as exc:
        raise EmbedderError(
            f"The embedding adapter {label!r} is missing ({path}: {exc.strerror}); {_REINSTALL}, {_PLAIN}."
        ) from None
    if expected_sha256 is not None and actual != expected_sha256:
        raise EmbedderError(
            f"The embedding adapter file {path} is corrupt (checksum mismatch); {_REINSTALL}, {_PLAIN}."
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(bytes(data[HEADER_KEY]).decode())
            targets = [str(t) for t in header["targets"]]
            factors = {t: (np.asarray(data[f"{t}.A"]), np.asarray(data[f"{t}.B"])) for t in targets}
            rank, alpha, base = int(header["rank"]), float(header["alpha"]), str(header["base_sha256"])
            fmt = int(header["format"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EmbedderError(
            f"The embedding adapter file {path} is unreadable ({exc}); {_REINSTALL}, {_PLAIN}."
        ) from None
    if fmt != FORMAT:
        raise EmbedderError(
            f"The embedding adapter file {path} has format {fmt}, this version reads {FORMAT}; {_PLAIN}."
        )
    for t, (a, b) in factors.items():
        if a.ndim != 2 or b.ndim != 2 or a.shape[0] != rank or b.shape[1] != rank:
            raise EmbedderError(f"The embedding adapter file {path} has malformed factors for {t}; {_REINSTALL}.")
    return Adapter(name=label, sha256=actual, rank=rank, alpha=alpha, base_sha256=base, factors=factors)


def load_shipped(name: str, base_sha256: str) -> Adapter:
    """The shipped adapter ``name``, verified, for the base weights with ``base_sha256``."""
    check_name(name)
    adapter = read_adapter(adapter_path(name), name=name, expected_sha256=SHIPPED[name])
    if adapter.base_sha256 != base_sha256:
        raise EmbedderError(
            f"The embedding adapter {name!r} was trained for other base weights than the model in use; {_PLAIN}."
        )
    return adapter


def merge_into(module: Any, adapter: Adapter) -> None:
    """Add the adapter's deltas to a torch transformer's weights in place (``module`` is a BertModel)."""
    import torch

    params = dict(module.named_parameters())
    with torch.no_grad():
        for target in adapter.factors:
            weight = params.get(f"{target}.weight")
            if weight is None:
                raise EmbedderError(f"The embedding adapter {adapter.name!r} targets {target}, absent from the model.")
            delta = torch.from_numpy(adapter.delta(target))
            if tuple(delta.shape) != tuple(weight.shape):
                raise EmbedderError(f"The embedding adapter {adapter.name!r} does not fit {target}'s shape.")
            weight.add_(delta.to(weight.dtype))
