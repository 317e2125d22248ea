"""A static embedder: a text's vector is the mean of its word pieces' rows in a table distilled from the shipped
MiniLM (``training/distill_static.py``). No model runs, so a large tree gets every vector in seconds; the rows carry
what MiniLM makes of each piece alone, never of the pieces around it.

The table ships beside the model (``bundled/minilm-static-v1/table.npz``: int8 rows, a scale per row, a JSON header)
and is checked against its sha256 before use, like the model; ``embedder.model`` may name another table file.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from igraph_mcp.embed import shipped
from igraph_mcp.embed.base import Vectors
from igraph_mcp.errors import EmbedderError
from igraph_mcp.paths import file_sha256

if TYPE_CHECKING:
    from tokenizers import Tokenizer

FORMAT = 1
HEADER_KEY = "__header__"
NAME = "minilm-static-v1"
TABLE = Path(__file__).resolve().parent / "bundled" / NAME / "table.npz"
TABLE_SHA256 = "3848ebf128f87c38b71db3365e911bac38f1e17c5790bf3197ab408110ceeb7e"
"""sha256 of the shipped table (its README says how it was made)."""
MAX_PIECES = 128
"""Word pieces read per text, from its head (name, signature, docstring, the body's start). A mean over more pieces
drifts toward every long text's average: on the devset's tuning half 128 found more edited files and functions in the
answer than 512 (benchmarks/README.md, "Static vectors for very large trees")."""
_REINSTALL = (
    "reinstall igraph-mcp (pip install --force-reinstall --no-deps igraph-mcp), or set embedder.backend to 'local'"
)
_OWN_TABLE = "point embedder.model at a table made by training/distill_static.py, or leave it unset for the shipped one"


def write_table(path: Path, rows: np.ndarray, header: dict[str, object]) -> None:
    """Save float rows (pieces x dims) as a table: int8 rows and a float32 scale per row (row ~= int8 * scale), and
    ``header`` with this format's number. Uncompressed, so the same rows give the same bytes (and sha256)."""
    peak = np.abs(rows).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    quantized = np.round(rows / scale[:, None]).astype(np.int8)
    meta = np.frombuffer(json.dumps({**header, "format": FORMAT}, sort_keys=True).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez(fh, rows=quantized, scale=scale, __header__=meta)  # HEADER_KEY


_tables: dict[tuple[str, str], tuple[np.ndarray, Tokenizer]] = {}
_tables_lock = threading.Lock()


def _shared_table(path: Path, sha256: str | None) -> tuple[np.ndarray, Tokenizer]:
    """The table's rows and the tokenizer, read once per table and content in the process (a workspace's
    repositories share them); ``sha256``: what the file must hash to (None: not checked). EmbedderError if the table
    is missing, damaged, unreadable or does not fit the tokenizer."""
    way_out = _REINSTALL if path == TABLE else _OWN_TABLE
    if not path.is_file():
        raise EmbedderError(f"the static embedder's table {path} is missing; {way_out}")
    actual = file_sha256(path)
    if sha256 is not None and actual != sha256:
        raise EmbedderError(f"the static embedder's table {path} is damaged (checksum); {way_out}")
    key = (str(path), actual)
    with _tables_lock:
        found = _tables.get(key)
        if found is not None:
            return found
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(bytes(data[HEADER_KEY]).decode())
                rows = data["rows"].astype(np.float32) * data["scale"][:, None]
        except (OSError, KeyError, ValueError) as exc:
            raise EmbedderError(f"cannot read the static embedder's table {path} ({exc}); {way_out}") from None
        if header.get("format") != FORMAT:
            found_format = header.get("format")
            raise EmbedderError(f"the static embedder's table {path} has format {found_format}; {way_out}")
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(shipped.load().verify(shipped.TOKENIZER_FILE)))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        if tokenizer.get_vocab_size() != rows.shape[0]:
            raise EmbedderError(f"the static embedder's table {path} does not fit the tokenizer; {way_out}")
        _tables[key] = (rows, tokenizer)
        return rows, tokenizer


class StaticEmbedder:
    """Mean of word-piece rows, L2-normalised; same text, same vector, whatever it is batched with."""

    def __init__(self, table: Path = TABLE, sha256: str | None = None) -> None:
        self._table_path = table
        self._sha256 = TABLE_SHA256 if sha256 is None else sha256
        self._checked = bool(self._sha256)  # a sha256 given up front is the one the file must have
        self._rows: np.ndarray | None = None
        self._tokenizer: Tokenizer | None = None
        self._dimension: int | None = None
        self._lock = threading.Lock()

    @property
    def id(self) -> str:
        """``static:minilm-static-v1``, the table's sha256 prefix and the pieces read: another table or another
        limit re-embeds the index."""
        if not self._sha256 and self._table_path.is_file():  # a table of the user's: named by what it holds
            self._sha256 = file_sha256(self._table_path)
            self._checked = False
        return f"static:{NAME}:{(self._sha256 or 'missing')[:12]}:{MAX_PIECES}"

    @property
    def dimension(self) -> int:
        """The table's row length (reads the table's header on first use)."""
        self._load()
        assert self._dimension is not None
        return self._dimension

    def _load(self) -> None:
        if self._rows is not None:
            return
        with self._lock:
            if self._rows is None:
                self._rows, self._tokenizer = _shared_table(self._table_path, self._sha256 if self._checked else None)
                self._dimension = int(self._rows.shape[1])

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed documents; shape (len(texts), dimension), rows unit length."""
        self._load()
        assert self._rows is not None and self._tokenizer is not None
        out = np.zeros((len(texts), self._rows.shape[1]), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        for i, enc in enumerate(encodings):
            ids = enc.ids[:MAX_PIECES]
            if ids:
                out[i] = self._rows[ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1)
        empty = norms == 0.0
        out[empty, 0] = 1.0  # a text of no pieces (or of specials only) still needs a unit vector
        norms[empty] = 1.0
        unit: Vectors = out / norms[:, None]
        return unit

    def embed_query(self, text: str) -> Vectors:
        """Embed one query; shape (dimension,), unit length."""
        vector: Vectors = self.embed([text])[0]
        return vector
