"""Make the static embedder's table from the shipped int8 MiniLM: one vector per word piece, no corpus, no torch.

    python training/distill_static.py --out /tmp/static-v1.npz [--dims 256] [--sif 1e-4]

Each word piece of the bundled tokenizer is run through the shipped ONNX model as a text of its own
(``[CLS] piece [SEP]``) and mean-pooled as the model's own vectors are. The rows are then centred and rotated onto
their principal axes (the first ``--dims`` kept), and each is weighted by how rare its piece is, read from its place
in the vocabulary (a BERT vocabulary lists pieces roughly by frequency after its specials and single characters):
``sif / (sif + p)`` with ``p`` a Zipf probability of that rank. A text's static vector is then the mean of its
pieces' rows (``igraph_mcp/embed/static.py``). This follows the recipe model2vec published for distilling a
sentence transformer into a table; the code is ours and reads nothing but the shipped model.

The output is a table as ``static.write_table`` saves it; its header records the dims, the weighting and the sha256
of the model and tokenizer it came from.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from igraph_mcp.embed import shipped  # noqa: E402
from igraph_mcp.embed.static import write_table  # noqa: E402

BATCH = 256
# Token ids below this are [PAD], [unusedN], [UNK], [CLS], [SEP] and [MASK] in the uncased BERT vocabulary; the
# single characters follow, then the word pieces by frequency.
FIRST_PIECE = 999


def piece_vectors(model: Path, pieces: int, cls: int, sep: int) -> np.ndarray:
    """Each piece's mean-pooled vector as a one-piece text (``cls`` piece ``sep``): (pieces, model width) float32."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    out: np.ndarray | None = None
    for start in range(0, pieces, BATCH):
        ids = np.arange(start, min(start + BATCH, pieces), dtype=np.int64)
        n = len(ids)
        input_ids = np.stack([np.full(n, cls), ids, np.full(n, sep)], axis=1)
        mask = np.ones_like(input_ids)
        hidden = session.run(
            ["last_hidden_state"],
            {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)},
        )[0]
        if out is None:
            out = np.empty((pieces, hidden.shape[2]), dtype=np.float32)
        out[start : start + n] = hidden.mean(axis=1)
    assert out is not None
    return out


def zipf_weights(pieces: int, sif: float) -> np.ndarray:
    """``sif / (sif + p)`` per piece, p the Zipf probability of its rank among the pieces from FIRST_PIECE on; the
    specials before it weigh nothing (they never stand for a word of a text)."""
    ranks = np.arange(1, pieces - FIRST_PIECE + 1, dtype=np.float64)
    p = (1.0 / ranks) / np.sum(1.0 / ranks)
    weights = np.zeros(pieces, dtype=np.float64)
    weights[FIRST_PIECE:] = sif / (sif + p)
    return weights


def principal_axes(vectors: np.ndarray, dims: int) -> np.ndarray:
    """The vectors centred and projected onto their first ``dims`` principal axes."""
    centred = vectors - vectors.mean(axis=0, keepdims=True)
    _, _, vt = np.linalg.svd(centred.astype(np.float64), full_matrices=False)
    return (centred @ vt[:dims].T).astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--sif", type=float, default=1e-4)
    args = ap.parse_args(argv)
    model = shipped.load()
    onnx_file = model.verify(shipped.MODEL_FILE)
    tokenizer_file = model.verify(shipped.TOKENIZER_FILE)
    vocab = json.loads(tokenizer_file.read_text(encoding="utf-8"))["model"]["vocab"]
    pieces = len(vocab)
    started = time.perf_counter()
    vectors = piece_vectors(onnx_file, pieces, vocab["[CLS]"], vocab["[SEP]"])
    print(f"{pieces} pieces through the model in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    rows = principal_axes(vectors, args.dims) * zipf_weights(pieces, args.sif)[:, None].astype(np.float32)
    header = {
        "dims": args.dims,
        "sif": args.sif,
        "first_piece": FIRST_PIECE,
        "from_model_sha256": model.sha256[shipped.MODEL_FILE],
        "tokenizer_sha256": model.sha256[shipped.TOKENIZER_FILE],
    }
    write_table(args.out, rows, header)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB): {pieces} x {args.dims}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
