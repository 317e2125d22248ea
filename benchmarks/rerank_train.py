"""Study ranking levers offline and train the re-ranking step, from ``rerank_dump.py``'s candidate dumps.

    python benchmarks/rerank_train.py cands.jsonl.gz [more.jsonl.gz ...] --levers      # hand-set levers per half
    python benchmarks/rerank_train.py cands.jsonl.gz --train                           # fit on tuning, report both

The hand-set score replays the service's ranking (weighted RRF of the channels, then the multiplicative
boosts; files by their best symbols with decaying credit, times the path-word factor) from the dumped ranks, so
a lever can be swept without re-running queries. The learned step is a pairwise logistic regression (plain
numpy) over the hand-set top ``RERANK_DEPTH`` candidates of each tuning-half query: it learns weights for a
few features (channel ranks, boosts, kind, path words, the file's aggregate) and its coefficients are printed
as the constants ``igraph_mcp/retrieve/rerank.py`` ships. The held-out half is only ever scored.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

_SRC = Path(__file__).resolve().parents[1]
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from igraph_mcp.retrieve import ranking, rerank  # noqa: E402

Query = dict[str, Any]
BOOSTS = {
    "exactName": 3.0,
    "exactNameCaseInsensitive": 2.4,
    "qualifiedName": 3.0,
    "identifier": 1.5,
    "tracebackFrame": 1.6,
    "pathMentioned": 1.4,
    "kindHint": 1.15,
    "testCode": 0.6,
}


# A learned file re-ranker, studied and left out of the service: it lost file Acc@1 on the tuning half (issue 11,
# 55.9 -> 50.0 on 34 issues), so files keep the hand-set ranking. Its features stay here for further study.
FILE_RERANK_DEPTH = 30  # files re-ranked; the rest keep their order below them
FILE_FEATURES: tuple[str, ...] = (
    "file_logrank",
    "best_symbol_logrank",
    "symbols_top50",
    "symbols_top10",
    "path_words",
    "path_word_rarity",
    "best_fts_logrank",
    "best_dense_logrank",
    "module_hit",
    "named",
    "graph",
    "path_mentioned",
    "traceback_frame",
    "test_code",
)


def file_feature_row(
    *,
    file_rank: int,
    best_symbol_rank: int,
    symbols_top50: int,
    symbols_top10: int,
    path_words: int,
    path_word_rarity: float,
    best_fts_rank: int,
    best_dense_rank: int,
    module_hit: bool,
    named: bool,
    graph: bool,
    boosts: set[str],
) -> list[float]:
    """One file's features in FILE_FEATURES order (ranks from 1; 0 = none)."""
    return [
        rerank.neg_log_rank(file_rank),
        rerank.neg_log_rank(best_symbol_rank),
        math.log1p(symbols_top50),
        math.log1p(symbols_top10),
        float(min(path_words, 3)),
        min(path_word_rarity, 3.0),
        rerank.neg_log_rank(best_fts_rank),
        rerank.neg_log_rank(best_dense_rank),
        float(module_hit),
        float(named),
        float(graph),
        float("pathMentioned" in boosts),
        float("tracebackFrame" in boosts),
        float("testCode" in boosts),
    ]


def load(paths: Iterable[Path]) -> list[Query]:
    """Every dumped query of the given files."""
    out = []
    for p in paths:
        with gzip.open(p, "rt", encoding="utf-8") as fh:
            try:
                for line in fh:
                    if line.endswith("\n"):
                        out.append(json.loads(line))
            except EOFError:  # a dump still being written (or stopped) ends without the gzip trailer
                pass
    return out


# --------------------------------------------------------------------------- hand-set ranking, replayed
def hand_scores(q: Query, p: dict[str, float]) -> dict[int, float]:
    """The service's fused-and-boosted score of every candidate, under lever settings ``p``."""
    k = p.get("rrfK", 60)
    out = {}
    for c in q["cands"]:
        s = 0.0
        if c["fts"][0]:
            s += p.get("fts", 1.0) / (k + c["fts"][0])
        if c["dense"][0]:
            s += p.get("dense", 1.0) / (k + c["dense"][0])
        if c["named"]:
            s += p.get("named", 0.0) / (k + c["named"])
        if c["graph"]:
            s += p.get("graph", 0.0) / (k + c["graph"])
        if s <= 0:
            continue
        for w in c["why"]:
            s *= p.get(w, BOOSTS.get(w, 1.0))
        out[c["id"]] = s
    return out


def path_word_weights(q: Query, p: dict[str, float]) -> dict[str, float]:
    """path -> the path-word evidence of a file: matched words, each weighted by its rarity among paths when
    ``pw_idf`` is set (``django`` is in every Django path and says nothing; ``autodoc`` names a place)."""
    files = {f: words for f, words in q.get("path_files", []) if isinstance(words, list)}
    if not p.get("pw_idf"):
        return {f: float(len(w)) for f, w in files.items()}
    df: dict[str, int] = defaultdict(int)
    for words in files.values():
        for w in words:
            df[w] += 1
    n = max(q.get("n_files", 1), 2)
    idf = {w: math.log(n / d) / math.log(n) for w, d in df.items()}
    return {f: sum(idf[w] for w in words) for f, words in files.items()}


def rank_files(q: Query, scores: dict[int, float], p: dict[str, float]) -> list[str]:
    """Files by best symbol plus decaying credit, times the path-word factor; optional path-only files."""
    by_file: dict[str, list[float]] = defaultdict(list)
    for c in q["cands"]:
        if c["id"] in scores:
            by_file[c["path"]].append(scores[c["id"]])
    pww = path_word_weights(q, p)
    decay, nsym = p.get("decay", 0.5), int(p.get("file_symbols", 5))
    path_word, pw_max = p.get("path_word", 0.5), p.get("pw_max", 3)
    non_source = p.get("non_source", ranking.ISSUE_NON_SOURCE)
    demoted = {c["path"] for c in q["cands"] if c.get("ns")}
    ranked = {}
    for path, vals in by_file.items():
        vals.sort(reverse=True)
        s = sum(v * decay**i for i, v in enumerate(vals[:nsym]))
        ranked[path] = s * (1 + path_word * min(pw_max, pww.get(path, 0.0))) * (non_source if path in demoted else 1.0)
    only = p.get("path_only", 0.0)
    if only and ranked:
        top = max(ranked.values())
        for path, w in pww.items():
            if path not in ranked and w >= p.get("path_only_min", 1.0):
                ranked[path] = only * top * min(pw_max, w) / pw_max
    return sorted(ranked, key=lambda f: (-ranked[f], f))


# --------------------------------------------------------------------------- metrics
def metrics(q: Query, functions: list[int], files: list[str]) -> dict[str, float | None]:
    """Devset metrics of one query (same definitions as metrics.py: strict Acc@k, MRR cut at 10)."""
    by_id = {c["id"]: c for c in q["cands"]}
    pos = {f: i + 1 for i, f in enumerate(files)}
    fr = [pos.get(g.removeprefix("./")) for g in q["gold_files"]]

    def acc(ranks: list[int | None], n: int) -> float:
        return float(bool(ranks) and all(r is not None and r <= n for r in ranks))

    def mrr(ranks: list[int | None]) -> float:
        found = [r for r in ranks if r is not None and r <= 10]
        return 1.0 / min(found) if found else 0.0

    out: dict[str, float | None] = {f"file@{n}": acc(fr, n) for n in (1, 3, 5, 10)} | {"file_mrr": mrr(fr)}
    if q["golds"]:
        gr: list[int | None] = [None] * len(q["golds"])
        for i, nid in enumerate(functions):
            for g in by_id[nid]["gold"]:
                if gr[g] is None:
                    gr[g] = i + 1
        out |= {"fn@5": acc(gr, 5), "fn@10": acc(gr, 10), "fn_mrr": mrr(gr)}
        out["fn_any@10"] = float(any(r is not None and r <= 10 for r in gr))
    return out


def mean(rows: list[dict[str, float | None]]) -> dict[str, float]:
    """Mean of each metric over the rows that have it."""
    keys = dict.fromkeys(k for r in rows for k in r)
    out = {}
    for k in keys:
        vals = [v for r in rows if (v := r.get(k)) is not None]
        out[k] = sum(vals) / len(vals) if vals else float("nan")
    return out


MASK: np.ndarray | None = None  # --features: the features the learned step may use
Scorer = Callable[[Query], dict[int, float]]


def evaluate(
    queries: list[Query], scorer: Scorer, p: dict[str, float], file_scorer: Scorer | None = None
) -> dict[str, float]:
    """Mean metrics of a scorer (functions = top 10 by score; files from all scored candidates, or from
    ``file_scorer``'s scores when given)."""
    rows = []
    for q in queries:
        scores = scorer(q)
        order = sorted(scores, key=lambda n: (-scores[n], n))
        files = rank_files(q, scores if file_scorer is None else file_scorer(q), p)
        rows.append(metrics(q, order[:10], files))
    return mean(rows)


def fmt(label: str, res: dict[str, float], n: int) -> str:
    """One table row."""
    cols = ("file@1", "file@3", "file@5", "file@10", "file_mrr", "fn@5", "fn@10", "fn_mrr")
    return f"{label:<28}" + " ".join(f"{100 * res.get(c, float('nan')):6.1f}" for c in cols) + f"  n={n}"


HEADER = f"{'':<28}" + " ".join(f"{c:>6}" for c in ("f@1", "f@3", "f@5", "f@10", "fMRR", "fn@5", "fn@10", "fnMRR"))


# --------------------------------------------------------------------------- learned re-ranking
def features(q: Query, base: dict[int, float], p: dict[str, float]) -> tuple[list[int], np.ndarray]:
    """The hand-set top RERANK_DEPTH candidates of a query and their feature rows (rerank.feature_row)."""
    order = sorted(base, key=lambda n: (-base[n], n))[: rerank.RERANK_DEPTH]
    by_id = {c["id"]: c for c in q["cands"]}
    file_pos = {f: i + 1 for i, f in enumerate(rank_files(q, base, p))}
    file_count: dict[str, int] = defaultdict(int)
    for nid in order:
        file_count[by_id[nid]["path"]] += 1
    rows = []
    for rank, nid in enumerate(order, start=1):
        c = by_id[nid]
        rows.append(
            rerank.feature_row(
                base_rank=rank,
                fts_rank=c["fts"][0],
                dense_rank=c["dense"][0],
                named_rank=c["named"],
                graph_rank=c["graph"],
                boosts=c["why"],
                kind=c["kind"],
                path_words=c["pw"],
                file_candidates=file_count[c["path"]],
                file_rank=file_pos.get(c["path"], 0),
            )
        )
    return order, np.asarray(rows, dtype=np.float64)


def train_pairwise(queries: list[Query], p: dict[str, float], l2: float, epochs: int) -> np.ndarray:
    """Pairwise logistic regression: every (gold, non-gold) pair within a query's top candidates."""
    diffs, weights = [], []
    for q in queries:
        base = hand_scores(q, p)
        order, x = features(q, base, p)
        if not len(order):
            continue
        by_id = {c["id"]: c for c in q["cands"]}
        pos = [i for i, n in enumerate(order) if by_id[n]["gold"]]
        neg = [i for i, n in enumerate(order) if not by_id[n]["gold"]]
        if not pos or not neg:
            continue
        for i in pos:
            diffs.append(x[i] - x[neg])
            weights.append(np.full(len(neg), 1.0 / (len(pos) * len(neg))))  # every query weighs alike
    return fit_pairs(diffs, weights, l2, epochs)


def file_features(q: Query, base: dict[int, float], p: dict[str, float]) -> tuple[list[str], np.ndarray]:
    """The hand-set top FILE_RERANK_DEPTH files of a query and their feature rows (file_feature_row)."""
    files = rank_files(q, base, p)[:FILE_RERANK_DEPTH]
    order = sorted(base, key=lambda n: (-base[n], n))
    sym_rank = {n: i + 1 for i, n in enumerate(order)}
    rarity = path_word_weights(q, {"pw_idf": 1})
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in q["cands"]:
        if c["id"] in base:
            by_file[c["path"]].append(c)
    rows = []
    for rank, f in enumerate(files, start=1):
        cs = by_file[f]
        ranks = [sym_rank[c["id"]] for c in cs]
        boosts = {w for c in cs for w in c["why"]}
        rows.append(
            file_feature_row(
                file_rank=rank,
                best_symbol_rank=min(ranks),
                symbols_top50=sum(r <= 50 for r in ranks),
                symbols_top10=sum(r <= 10 for r in ranks),
                path_words=max((c["pw"] for c in cs), default=0),
                path_word_rarity=rarity.get(f, 0.0),
                best_fts_rank=min((c["fts"][0] for c in cs if c["fts"][0]), default=0),
                best_dense_rank=min((c["dense"][0] for c in cs if c["dense"][0]), default=0),
                module_hit=any(c["kind"] == "module" for c in cs),
                named=any(c["named"] for c in cs),
                graph=any(c["graph"] for c in cs),
                boosts=boosts,
            )
        )
    return files, np.asarray(rows, dtype=np.float64)


def fit_pairs(diffs: list[np.ndarray], weights: list[np.ndarray], l2: float, epochs: int) -> np.ndarray:
    """Gradient descent on the weighted logistic loss of (gold - other) feature differences, with L2."""
    d = np.concatenate(diffs)
    sw = np.concatenate(weights)
    sw /= sw.sum()
    w = np.zeros(d.shape[1])
    if MASK is not None and len(MASK) == d.shape[1]:
        d = d * MASK
    for _ in range(epochs):
        z = d @ w
        g = -(d * (sw / (1.0 + np.exp(z)))[:, None]).sum(axis=0) + l2 * w
        w -= 1.0 * g
    return w


def train_files(queries: list[Query], p: dict[str, float], l2: float, epochs: int) -> np.ndarray:
    """Pairwise logistic regression over each tuning query's top files: gold files above the others."""
    diffs, weights = [], []
    for q in queries:
        files, x = file_features(q, hand_scores(q, p), p)
        gold = {g.removeprefix("./") for g in q["gold_files"]}
        pos = [i for i, f in enumerate(files) if f in gold]
        neg = [i for i, f in enumerate(files) if f not in gold]
        if not pos or not neg:
            continue
        for i in pos:
            diffs.append(x[i] - x[neg])
            weights.append(np.full(len(neg), 1.0 / (len(pos) * len(neg))))
    return fit_pairs(diffs, weights, l2, epochs)


def evaluate_files(queries: list[Query], wf: np.ndarray, p: dict[str, float], scorer: Scorer) -> dict[str, float]:
    """Metrics with files re-ranked by the learned file score (functions from ``scorer``)."""
    rows = []
    for q in queries:
        base = hand_scores(q, p)
        files, x = file_features(q, base, p)
        if len(files):
            s = x @ wf
            files = [files[i] for i in sorted(range(len(files)), key=lambda i: (-s[i], i))]
        scores = scorer(q)
        order = sorted(scores, key=lambda n: (-scores[n], n))
        rows.append(metrics(q, order[:10], files))
    return mean(rows)


def learned_scorer(w: np.ndarray, p: dict[str, float]) -> Scorer:
    """Re-rank the hand-set top RERANK_DEPTH by the learned score; the rest keep their order below them."""

    def score(q: Query) -> dict[int, float]:
        base = hand_scores(q, p)
        order, x = features(q, base, p)
        out = dict(base)
        if len(order):
            s = x @ w
            top = float(max(base[n] for n in order))
            # learned scores mapped into (0, top * e^...) so files aggregate them as they do fused scores
            for n, v in zip(order, s, strict=True):
                out[n] = top * math.exp(float(v) - float(s.max()))
            floor = min(out[n] for n in order)
            for n in base:
                if n not in set(order):
                    out[n] = min(base[n], floor * 0.999)
        return out

    return score


def main(argv: list[str] | None = None) -> int:
    """Print lever tables (tuning and held-out) and, with --train, the learned step's coefficients and tables."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dumps", nargs="+", type=Path)
    ap.add_argument("--levers", action="store_true")
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--base", default="", help="hand-set levers under the learned step, e.g. 'graph=0.5'")
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=300)
    ap.add_argument("--features", default="", help="train only these features (comma list; others stay 0)")
    ap.add_argument("--report", action="store_true", help="hand-set, + graph channel, + the shipped learned step")
    ap.add_argument("--cv", type=int, default=0, help="k-fold cross-validation of the learned step on tuning only")
    args = ap.parse_args(argv)
    queries = load(args.dumps)
    halves = {h: [q for q in queries if q["half"] == h] for h in ("tuning", "heldout")}
    global MASK
    if args.features:
        wanted = set(args.features.split(","))
        MASK = np.array([float(f in wanted) for f in rerank.FEATURES])
    base_p: dict[str, float] = {k: float(v) for k, _, v in (a.partition("=") for a in args.base.split(",") if a)}
    print(HEADER)
    for h, qs in halves.items():
        print(
            fmt(
                f"{h}: hand-set {args.base or '(today)'}",
                evaluate(qs, lambda q: hand_scores(q, base_p), base_p),
                len(qs),
            )
        )
    if args.levers:
        variants: dict[str, dict[str, float]] = {
            "path_word 0": {"path_word": 0.0},
            "pw_idf": {"pw_idf": 1},
            "pw_idf pw 1.0": {"pw_idf": 1, "path_word": 1.0},
            "pw_idf pw 2.0": {"pw_idf": 1, "path_word": 2.0},
            "pw_idf pw 1.0 max 2": {"pw_idf": 1, "path_word": 1.0, "pw_max": 2},
            "path_only 0.3": {"path_only": 0.3},
            "pw_idf pw 1 path_only 0.3": {"pw_idf": 1, "path_word": 1.0, "path_only": 0.3},
            "pw_idf pw 1 path_only 0.6": {"pw_idf": 1, "path_word": 1.0, "path_only": 0.6},
            "path_word 1.0": {"path_word": 1.0},
            "named 0.5": {"named": 0.5},
            "named 1.0": {"named": 1.0},
            "named 0.5 graph 0.5": {"named": 0.5, "graph": 0.5},
            "named 1 graph 0.5": {"named": 1.0, "graph": 0.5},
            "graph 0.25": {"graph": 0.25},
            "graph 0.5": {"graph": 0.5},
            "graph 0.75": {"graph": 0.75},
            "graph 1.0": {"graph": 1.0},
            "graph 1.5": {"graph": 1.5},
            "graph 2.0": {"graph": 2.0},
            "graph 0.5 pw_idf": {"graph": 0.5, "pw_idf": 1},
            "decay 0.3": {"decay": 0.3},
            "decay 0.7": {"decay": 0.7},
            "file_symbols 10": {"file_symbols": 10},
            "identifier 2.0": {"identifier": 2.0},
            "pathMentioned 2.0": {"pathMentioned": 2.0},
            "kindHint 1.0": {"kindHint": 1.0},
            "fts 1.5": {"fts": 1.5},
            "dense 1.5": {"dense": 1.5},
        }
        for label, p in variants.items():
            p = base_p | p
            for h, qs in halves.items():
                print(fmt(f"{h}: {label}", evaluate(qs, lambda q, p=p: hand_scores(q, p), p), len(qs)))
    if args.report:
        from igraph_mcp.retrieve import explore

        graph = {"graph": explore.GRAPH_WEIGHT}
        shipped = np.asarray(rerank.WEIGHTS, dtype=np.float64)
        for h, qs in halves.items():
            print(
                fmt(
                    f"{h}: + graph {explore.GRAPH_WEIGHT}",
                    evaluate(qs, lambda q: hand_scores(q, graph), graph),
                    len(qs),
                )
            )
            hand = lambda q: hand_scores(q, graph)  # noqa: E731
            res = evaluate(qs, learned_scorer(shipped, graph), graph, hand)
            print(fmt(f"{h}: + graph + learned (shipped)", res, len(qs)))
    if args.cv:
        tuning = sorted(halves["tuning"], key=lambda q: q["qid"])
        for l2 in (1e-4, 1e-3, 1e-2, 3e-2, 1e-1):
            rows = []
            for k in range(args.cv):
                test = tuning[k :: args.cv]
                train = [q for i, q in enumerate(tuning) if i % args.cv != k]
                w = train_pairwise(train, base_p, l2, args.epochs)
                hand = lambda q: hand_scores(q, base_p)  # noqa: E731
                rows.append((evaluate(test, learned_scorer(w, base_p), base_p, hand), len(test)))
            pooled = {
                c: sum(r[c] * n for r, n in rows if r.get(c) == r.get(c)) / sum(n for _, n in rows) for c in rows[0][0]
            }
            print(fmt(f"tuning {args.cv}-fold CV l2={l2:g}", pooled, len(tuning)))
    if args.train:
        w = train_pairwise(halves["tuning"], base_p, args.l2, args.epochs)
        print("coefficients:", ", ".join(f"{n}={v:.3f}" for n, v in zip(rerank.FEATURES, w, strict=True)))
        for h, qs in halves.items():
            print(fmt(f"{h}: learned", evaluate(qs, learned_scorer(w, base_p), base_p), len(qs)))
            hand = lambda q: hand_scores(q, base_p)  # noqa: E731
            print(fmt(f"{h}: learned, files hand-set", evaluate(qs, learned_scorer(w, base_p), base_p, hand), len(qs)))
        wf = train_files(halves["tuning"], base_p, args.l2, args.epochs)
        print("file coefficients:", ", ".join(f"{n}={v:.3f}" for n, v in zip(FILE_FEATURES, wf, strict=True)))
        for h, qs in halves.items():
            res = evaluate_files(qs, wf, base_p, learned_scorer(w, base_p))
            print(fmt(f"{h}: learned fn + learned files", res, len(qs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
