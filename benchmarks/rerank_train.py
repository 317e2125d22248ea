"""Study ranking levers offline and train the re-ranking step, from ``rerank_dump.py``'s candidate dumps.

    python benchmarks/rerank_train.py cands.jsonl.gz [more.jsonl.gz ...] --levers      # parameters per half
    python benchmarks/rerank_train.py cands.jsonl.gz --train                           # fit on tuning, report both

Every score is the service's own: the dumped channel lists go through the stages of
``igraph_mcp/retrieve/stages.py`` (fuse -> boost -> rank files -> rerank) under a ``RetrievalParams``, so a lever
is swept by changing one parameter, without re-running queries. The learned step is a pairwise logistic
regression (plain numpy) over the feature rows the service computes (``rerank.feature_rows``) for the top
``rerank_depth`` hits of each tuning-half query without the learned step; its coefficients are printed as the
constants ``igraph_mcp/retrieve/rerank.py`` ships. The held-out half is only ever scored.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import common  # noqa: F401 - the checkout on sys.path
import metrics as m
import numpy as np

from igraph_mcp.retrieve import rerank, stages
from igraph_mcp.retrieve.params import DEFAULT_PARAMS, RetrievalParams
from igraph_mcp.store.records import NodeRow

# Lever settings swept by --levers (parameter assignments on top of --base).
LEVERS: dict[str, tuple[str, ...]] = {
    "graph 0": ("graph_weight=0.0",),
    "graph 0.25": ("graph_weight=0.25",),
    "graph 1.0": ("graph_weight=1.0",),
    "graph 2.0": ("graph_weight=2.0",),
    "path_word 0": ("path_word=0.0",),
    "path_word 1.0": ("path_word=1.0",),
    "non_source 1.0": ("issue_non_source=1.0",),
    "non_source 0.5": ("issue_non_source=0.5",),
    "decay 0.3": ("file_score_decay=0.3",),
    "decay 0.7": ("file_score_decay=0.7",),
    "file_symbols 10": ("file_symbols=10",),
    "identifier 2.0": ("boosts.identifier=2.0",),
    "pathMentioned 2.0": ("boosts.path_mentioned=2.0",),
    "kindHint 1.0": ("boosts.kind_hint=1.0",),
    "testCode 1.0": ("boosts.test_code=1.0",),
    "fts 1.5": ("fts_weight=1.5",),
    "dense 1.5": ("dense_weight=1.5",),
    "rrfK 30": ("rrf_k=30",),
}


@dataclass
class Query:
    """One dumped query, ready for the stages."""

    qid: str
    half: str
    text: str
    definition_counts: dict[str, int]
    lists: dict[str, list[int]]
    rows: dict[int, NodeRow]
    gold_files: list[str]
    golds: list[str]
    gold_of: dict[int, list[int]]
    class_keys: frozenset[str]


def _row(nid: int, path: str, kind: str, name: str, qualified_name: str, span: list[int] | None = None) -> NodeRow:
    start, end = span or (0, 0)
    return NodeRow(nid, 0, path, kind, name, qualified_name, "", "", start, end, None, False)


def load(paths: Iterable[Path]) -> list[Query]:
    """Every dumped query of the given files."""
    out = []
    for p in paths:
        with gzip.open(p, "rt", encoding="utf-8") as fh:
            try:
                for line in fh:
                    if not line.endswith("\n"):
                        continue
                    d = json.loads(line)
                    spans = d.get("spans", {})  # older dumps have none: every candidate then counts one line
                    out.append(
                        Query(
                            d["qid"],
                            d["half"],
                            d["text"],
                            d["definition_counts"],
                            d["lists"],
                            {int(k): _row(int(k), *v, spans.get(k)) for k, v in d["rows"].items()},
                            d["gold_files"],
                            d["golds"],
                            {int(k): v for k, v in d["gold_of"].items()},
                            frozenset(d["class_keys"]),
                        )
                    )
            except EOFError:  # a dump still being written (or stopped) ends without the gzip trailer
                pass
    return out


# --------------------------------------------------------------------------- the service's ranking, replayed
def ranking(q: Query, params: RetrievalParams) -> tuple[list[Any], stages.RankedFiles]:
    """(hits best first, files) of one dumped query under ``params``, through the service's stages."""
    query = stages.analyze(None, q.text, params, definition_counts=q.definition_counts)
    fused = stages.fuse(q.lists, query, params)
    hits = stages.boost(fused, q.rows, query, params)
    files = stages.rank_files(hits, query, params)
    hits = stages.rerank_hits(hits, files, query, params)
    return hits, stages.refile(hits, files, query, params)


# --------------------------------------------------------------------------- metrics
def evaluate(queries: list[Query], params: RetrievalParams) -> dict[str, float | None]:
    """Mean devset metrics (metrics.py, as retrieval.py computes them) of the service's ranking under ``params``:
    functions = the top 10 hits, files = the file ranking."""
    rows = []
    for q in queries:
        hits, files = ranking(q, params)
        functions = [(h.filePath, h.qualifiedName) for h in hits[:10]]
        rows.append(m.devset_metrics(q.gold_files, q.golds, [f.filePath for f in files.files], functions, q.class_keys))
    return m.mean_metrics(rows)


COLUMNS = ("file_acc@1", "file_acc@3", "file_acc@5", "file_acc@10", "file_mrr", "func_acc@5", "func_acc@10", "func_mrr")


def fmt(label: str, res: dict[str, float | None], n: int) -> str:
    """One table row."""
    cells = ("     -" if (v := res.get(c)) is None else f"{100 * v:6.1f}" for c in COLUMNS)
    return f"{label:<28}" + " ".join(cells) + f"  n={n}"


HEADER = f"{'':<28}" + " ".join(f"{c:>6}" for c in ("f@1", "f@3", "f@5", "f@10", "fMRR", "fn@5", "fn@10", "fnMRR"))


# --------------------------------------------------------------------------- learned re-ranking
def features(q: Query, params: RetrievalParams) -> tuple[list[int], np.ndarray]:
    """The top ``rerank_depth`` hits of a query without the learned step, and their feature rows (the rows the
    service's step scores)."""
    hand = params.with_value("rerank_weights", ())
    hits, files = ranking(q, hand)
    top = hits[: params.rerank_depth]
    words = {path: len(w) for path, w in files.words.items()}
    query = stages.analyze(None, q.text, hand, definition_counts=q.definition_counts)
    rows = rerank.feature_rows(top, [f.filePath for f in files.files], words, frozenset(query.analysis.tokens))
    return [h.nodeId for h in top], np.asarray(rows, dtype=np.float64).reshape(len(top), len(rerank.FEATURES))


def pair_differences(queries: list[Query], params: RetrievalParams) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(gold - other) feature differences for every (gold, non-gold) pair within each query's top candidates,
    and their weights (each query weighs alike); SystemExit when no query has such a pair."""
    diffs, weights = [], []
    for q in queries:
        order, x = features(q, params)
        pos = [i for i, n in enumerate(order) if q.gold_of.get(n)]
        neg = [i for i, n in enumerate(order) if not q.gold_of.get(n)]
        if not pos or not neg:
            continue
        for i in pos:
            diffs.append(x[i] - x[neg])
            weights.append(np.full(len(neg), 1.0 / (len(pos) * len(neg))))
    if not diffs:
        raise SystemExit("no query has both a gold and a non-gold candidate in its top hits")
    return diffs, weights


def train_pairwise(queries: list[Query], params: RetrievalParams, l2: float, epochs: int, mask: Any) -> np.ndarray:
    """Pairwise logistic regression: every (gold, non-gold) pair within a query's top candidates."""
    diffs, weights = pair_differences(queries, params)
    return fit_pairs(diffs, weights, l2, epochs, mask)


def fit_pairs(diffs: list[np.ndarray], weights: list[np.ndarray], l2: float, epochs: int, mask: Any) -> np.ndarray:
    """Gradient descent on the weighted logistic loss of (gold - other) feature differences, with L2."""
    d = np.concatenate(diffs)
    sw = np.concatenate(weights)
    sw /= sw.sum()
    w = np.zeros(d.shape[1])
    if mask is not None:
        d = d * mask
    for _ in range(epochs):
        z = d @ w
        g = -(d * (sw / (1.0 + np.exp(z)))[:, None]).sum(axis=0) + l2 * w
        w -= 1.0 * g
    return w


def with_weights(params: RetrievalParams, w: np.ndarray) -> RetrievalParams:
    """``params`` with these learned weights (rounded as they would be pasted into rerank.py)."""
    return params.with_value("rerank_weights", tuple(round(float(v), 3) for v in w))


def main(argv: list[str] | None = None) -> int:
    """Print lever tables (tuning and held-out) and, with --train, the learned step's coefficients and tables."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dumps", nargs="+", type=Path)
    ap.add_argument("--levers", action="store_true", help="each setting of LEVERS on top of --base")
    ap.add_argument("--train", action="store_true")
    ap.add_argument(
        "--base",
        default="",
        help="parameters under the levers and the learned step, e.g. 'graph_weight=0.5' (comma list of "
        "name=value; default: the shipped parameters)",
    )
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--features", default="", help="train only these features (comma list; others stay 0)")
    ap.add_argument("--report", action="store_true", help="hand-set, + graph channel, + the shipped learned step")
    ap.add_argument("--cv", type=int, default=0, help="k-fold cross-validation of the learned step on tuning only")
    args = ap.parse_args(argv)
    queries = load(args.dumps)
    halves = {h: [q for q in queries if q.half == h] for h in ("tuning", "heldout")}
    mask = None
    if args.features:
        wanted = set(args.features.split(","))
        unknown = wanted - set(rerank.FEATURES)
        if unknown:
            ap.error(f"unknown features {sorted(unknown)}; choose from {', '.join(rerank.FEATURES)}")
        mask = np.array([float(f in wanted) for f in rerank.FEATURES])
    try:
        base = DEFAULT_PARAMS.with_assignments(a for a in args.base.split(",") if a)
    except ValueError as exc:
        ap.error(f"--base: {exc}")
    print(HEADER)
    for h, qs in halves.items():
        print(fmt(f"{h}: {args.base or 'shipped'}", evaluate(qs, base), len(qs)))
    if args.levers:
        for label, assignments in LEVERS.items():
            p = base.with_assignments(assignments)
            for h, qs in halves.items():
                print(fmt(f"{h}: {label}", evaluate(qs, p), len(qs)))
    if args.report:
        hand = DEFAULT_PARAMS.with_assignments(["graph_weight=0.0", "rerank_weights=()"])
        graph = DEFAULT_PARAMS.with_value("rerank_weights", ())
        for h, qs in halves.items():
            print(fmt(f"{h}: hand-set", evaluate(qs, hand), len(qs)))
            print(fmt(f"{h}: + graph {graph.graph_weight}", evaluate(qs, graph), len(qs)))
            print(fmt(f"{h}: + learned (shipped)", evaluate(qs, DEFAULT_PARAMS), len(qs)))
    if args.cv:
        tuning = sorted(halves["tuning"], key=lambda q: q.qid)
        for l2 in (1e-4, 1e-3, 1e-2, 3e-2, 1e-1):
            rows = []
            for k in range(args.cv):
                test = tuning[k :: args.cv]
                train = [q for i, q in enumerate(tuning) if i % args.cv != k]
                w = train_pairwise(train, base, l2, args.epochs, mask)
                rows.append((evaluate(test, with_weights(base, w)), len(test)))
            pooled: dict[str, float | None] = {}
            for c in COLUMNS:  # each metric over the queries that have it
                have = [(v, n) for r, n in rows if (v := r.get(c)) is not None]
                pooled[c] = sum(v * n for v, n in have) / sum(n for _, n in have) if have else None
            print(fmt(f"tuning {args.cv}-fold CV l2={l2:g}", pooled, len(tuning)))
    if args.train:
        w = train_pairwise(halves["tuning"], base, args.l2, args.epochs, mask)
        print("coefficients:", ", ".join(f"{n}={v:.3f}" for n, v in zip(rerank.FEATURES, w, strict=True)))
        for h, qs in halves.items():
            print(fmt(f"{h}: learned", evaluate(qs, with_weights(base, w)), len(qs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
