"""Learn a linear transform of query vectors on the frozen document vectors (no re-indexing).

    python training/train_query_transform.py ~/.cache/igraph-mcp-train/replay/commits.jsonl.gz \\
        --out ~/.cache/igraph-mcp-train/query-transform.npz

A 384 x 384 matrix ``W``, initialised at the identity, maps the embedded query ``q`` to ``normalize(W q)``; the
stored symbol vectors stay as indexed. Pairs: each replayed commit query's head vector (``replay_commits.py``'s
``qvec``, the vector the service searched with) and the stored vectors of the definitions the commit edited
(``gold_ids``), plus docstring pairs from the same snapshots (a symbol's docstring's first line, embedded as a
query, and that symbol's vector), so one-line questions keep working. Loss: softmax over the positive, the
query's in-repository hard negatives (the other candidates the dense and FTS channels returned for it) and the
other positives of the batch, at scale ``SCALE``; Adam; an L2 pull of ``W`` towards the identity. Only the
**train** split is learned from; the mined held-out split's dense MRR@10 over the whole snapshot (every stored
vector of that repository) chooses the pull and the number of epochs.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import snapshots as snap

DIM = 384
SCALE = 20.0  # cosine x 20 in the softmax, as the adapter's training used
HARD_NEGATIVES = 24  # per query, from its own candidates in its own repository
DOC_PAIRS_PER_REPO = 60
BATCH = 64
SEED = 21


class RepoVectors:
    """Every stored symbol vector of one snapshot, as a unit-row matrix with node id -> row."""

    def __init__(self, root: Path) -> None:
        from igraph_mcp.store import vectors as vec_store
        from igraph_mcp.store.db import Database

        db = Database.open_for_read(root / ".igraph" / "igraph.db")
        try:
            ids, _fids, blobs = vec_store.all_node_vectors(db)
        finally:
            db.close()
        self.row = {nid: i for i, nid in enumerate(ids)}
        mat = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), DIM) if ids else np.zeros((0, DIM))
        self.matrix = (mat / np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)).astype(np.float32)


def _qvec(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float16).astype(np.float32)


def load_examples(dumps: list[Path]) -> dict[str, list[dict[str, Any]]]:
    """Replayed queries with a vector and at least one edited definition, by repository."""
    by_repo: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in dumps:
        with gzip.open(p, "rt", encoding="utf-8") as fh:
            for line in fh:
                d = json.loads(line)
                if d.get("qvec") and d.get("gold_ids"):
                    by_repo[d["tree"]].append(d)
    return by_repo


def doc_pairs(root: Path, vectors: RepoVectors, embedder: Any, limit: int) -> list[tuple[np.ndarray, int]]:
    """(query vector, row) of up to ``limit`` symbols whose docstring's first line has 5-40 words."""
    from igraph_mcp.store import nodes as node_store
    from igraph_mcp.store.db import Database

    db = Database.open_for_read(root / ".igraph" / "igraph.db")
    try:
        rows = node_store.nodes_by_ids(db, [s.id for s in node_store.symbol_table(db)])
    finally:
        db.close()
    picked = []
    for nid in sorted(rows, key=lambda n: hashlib.sha256(str(n).encode()).digest()):
        first = rows[nid].docstring.strip().split("\n", 1)[0]
        if nid in vectors.row and 5 <= len(first.split()) <= 40:
            picked.append((first, vectors.row[nid]))
        if len(picked) >= limit:
            break
    if not picked:
        return []
    qs = np.asarray(embedder.embed([t for t, _ in picked]), dtype=np.float32)  # queries embed like documents here
    return [(q, r) for q, (_, r) in zip(qs, picked, strict=True)]


def build(
    by_repo: dict[str, list[dict[str, Any]]], split: str, with_docs: bool, embedder: Any
) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray]], dict[str, RepoVectors]]:
    """Training triples (query, positive vector, hard negative vectors) of one split, and its repositories'
    vectors."""
    plan = {p.repo: p for p in snap.read_plan()}
    triples = []
    repos: dict[str, RepoVectors] = {}
    for repo, recs in sorted(by_repo.items()):
        if recs[0]["half"] != split or repo not in plan:
            continue
        root = snap.snapshot_root(plan[repo])
        vecs = RepoVectors(root)
        repos[repo] = vecs
        for d in recs:
            q = _qvec(d["qvec"])
            golds = [vecs.row[g] for g in d["gold_ids"] if g in vecs.row]
            cands = [int(n) for ch in ("dense", "fts5") for n in d["lists"].get(ch, [])[:HARD_NEGATIVES]]
            gold_set = set(d["gold_ids"])
            hard = [vecs.row[n] for n in dict.fromkeys(cands) if n not in gold_set and n in vecs.row]
            if not golds or not hard:
                continue
            hard_m = vecs.matrix[hard[:HARD_NEGATIVES]]
            for g in golds[:4]:
                triples.append((q, vecs.matrix[g], hard_m))
        if with_docs and embedder is not None:
            for q, r in doc_pairs(root, vecs, embedder, DOC_PAIRS_PER_REPO):
                idx = np.random.default_rng(r).choice(len(vecs.matrix), size=min(HARD_NEGATIVES, len(vecs.matrix)))
                triples.append((q, vecs.matrix[r], vecs.matrix[[i for i in idx if i != r]]))
    return triples, repos


def apply(w: np.ndarray, q: np.ndarray) -> np.ndarray:
    """normalize(W q) for a batch of row vectors."""
    u = q @ w.T
    return u / np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)


def dense_mrr(by_repo: dict[str, list[dict[str, Any]]], repos: dict[str, RepoVectors], w: np.ndarray) -> float:
    """Mean reciprocal rank (cut at 10) of the first edited definition among every vector of its snapshot."""
    rr = []
    for repo, vecs in repos.items():
        recs = [d for d in by_repo[repo] if any(g in vecs.row for g in d["gold_ids"])]
        if not recs:
            continue
        qs = apply(w, np.stack([_qvec(d["qvec"]) for d in recs]))
        sims = qs @ vecs.matrix.T
        for d, s in zip(recs, sims, strict=True):
            best = max(s[vecs.row[g]] for g in d["gold_ids"] if g in vecs.row)
            rank = int((s > best).sum()) + 1
            rr.append(1.0 / rank if rank <= 10 else 0.0)
    return float(np.mean(rr)) if rr else 0.0


def train(
    triples: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    epochs: int,
    pull: float,
    lr: float,
    check: Any = None,
) -> tuple[np.ndarray, list[tuple[int, float]]]:
    """Adam on the softmax loss; ``check(w)`` after each epoch (the held-out score), returns (best W, curve)."""
    rng = np.random.default_rng(SEED)
    w = np.eye(DIM, dtype=np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    step = 0
    curve = [(0, check(w))] if check else []
    best_w, best = w.copy(), curve[0][1] if curve else -1.0
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(triples))
        for start in range(0, len(order), BATCH):
            batch = [triples[i] for i in order[start : start + BATCH]]
            q = np.stack([t[0] for t in batch]).astype(np.float64)
            pos = np.stack([t[1] for t in batch]).astype(np.float64)
            u = q @ w.T
            norm = np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
            qn = u / norm
            grad_qn = np.zeros_like(qn)
            for i, (_, _, hard) in enumerate(batch):
                cands = np.concatenate([pos, hard.astype(np.float64)])  # the batch's positives, then its negatives
                logits = SCALE * (cands @ qn[i])
                p = np.exp(logits - logits.max())
                p /= p.sum()
                p[i] -= 1.0  # its own positive is row i
                grad_qn[i] = SCALE * (p @ cands) / len(batch)
            grad_u = (grad_qn - (grad_qn * qn).sum(axis=1, keepdims=True) * qn) / norm
            grad = grad_u.T @ q + pull * (w - np.eye(DIM))
            step += 1
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad**2
            w -= lr * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        if check:
            score = check(w)
            curve.append((epoch, score))
            if score > best:
                best_w, best = w.copy(), score
    return (best_w if check else w), curve


def main(argv: list[str] | None = None) -> int:
    """Train on the train split, choose on the held-out split, save the matrix."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dumps", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--pulls", default="0.01,0.1,1.0", help="L2 pulls towards the identity to try (comma list)")
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--no-docs", action="store_true", help="commit pairs only")
    args = ap.parse_args(argv)
    embedder = None if args.no_docs else _embedder()
    started = time.perf_counter()
    by_repo = load_examples(args.dumps)
    triples, _ = build(by_repo, "train", not args.no_docs, embedder)
    _, held = build(by_repo, "heldout", False, None)
    print(f"{len(triples)} train pairs, {len(held)} held-out repositories, {time.perf_counter() - started:.0f}s")
    base = dense_mrr(by_repo, held, np.eye(DIM))
    print(f"held-out dense MRR@10 (whole snapshot), identity: {100 * base:.1f}", flush=True)
    results = []
    for pull in (float(x) for x in args.pulls.split(",")):
        w, curve = train(triples, args.epochs, pull, args.lr, lambda w: dense_mrr(by_repo, held, w))
        print(f"pull {pull:g}: " + ", ".join(f"epoch {e} {100 * s:.1f}" for e, s in curve), flush=True)
        results.append((max(s for _, s in curve), pull, w))
    best, pull, w = max(results, key=lambda r: r[0])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # The embedder id the document vectors came from: the package applies the transform to that embedder only.
    np.savez_compressed(args.out, weight=w.astype(np.float32), embedder=np.array(_embedder().id))
    print(f"chosen pull {pull:g}: held-out dense MRR@10 {100 * base:.1f} -> {100 * best:.1f}; saved {args.out}")
    return 0


def _embedder() -> Any:
    """The default embedder on one thread (as the snapshots were indexed)."""
    from igraph_mcp.embed.local import DEFAULT_MODEL
    from igraph_mcp.embed.onnx_local import OnnxEmbedder
    from igraph_mcp.embed.registry import AUTO_QUANTIZE

    return OnnxEmbedder(DEFAULT_MODEL, quantize=AUTO_QUANTIZE, threads=1)


if __name__ == "__main__":
    raise SystemExit(main())
