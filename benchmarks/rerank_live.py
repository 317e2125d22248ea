"""Fit the learned re-ranking step from what the service itself hands it, per set and language.

    python benchmarks/rerank_live.py capture --set multilang --half all --out ml.pkl.gz      # one default call each
    python benchmarks/rerank_live.py fit ml.pkl.gz --cv-by repo                             # folds by repository
    python benchmarks/rerank_live.py fit ml.pkl.gz --train --group other                    # the coefficients

``rerank_dump.py`` stores the channels' lists and replays the stages after them; the stages have since grown
(declarations folded, one hit per name, files ranked again per language), so that replay no longer equals the
default call. ``capture`` runs the real default call on every query of the chosen set and keeps what the learned step
and the file ranking after it read (the hits before the step, the first file ranking, the repeated names); ``fit``
re-ranks those with other weights through the service's own ``stages.rerank_hits`` and ``stages.refile``, so the
shipped weights reproduce the captured answer's files and top hits exactly (checked for every query at load).

``--group`` picks the queries a fit sees: ``python`` (the hits' top files mostly Python), ``other`` (the rest) or
``all``. Training reads the tuning half only; ``--score-heldout`` prints the held-out half once for weights chosen.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import pickle
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # the checkout on sys.path, the download cache
import metrics as m
import numpy as np
import service_runs as sr
from baseline_bm25 import Bm25Index
from rerank_train import HEADER, fit_pairs, fmt

from igraph_mcp.retrieve import rerank, stages
from igraph_mcp.retrieve.params import DEFAULT_PARAMS, RetrievalParams


@dataclass
class Captured:
    """One default call's input to the learned step, and the gold it is scored against."""

    qid: str
    repo: str
    set_name: str
    half: str
    language: str
    hits: list[Any]  # models.Hit, best first, before the learned step
    files: Any  # stages.RankedFiles: the first file ranking
    query: Any  # stages.AnalyzedQuery
    params: RetrievalParams
    repeats: list[Any]
    top_k: int
    gold_files: list[str]
    golds: list[str]
    class_keys: frozenset[str]
    code: bool  # multilang's matcher (metrics.code_function_match)
    live: dict[str, Any] = field(default_factory=dict)  # the captured answer's functions and files

    @property
    def group(self) -> str:
        return "python" if stages.hits_language(self.hits) == "python" else "other"


@contextmanager
def tapped(into: dict[str, Any]) -> Iterator[None]:
    """The stages' learned step and second file ranking, recording their inputs into ``into``."""
    real_rerank, real_refile = stages.rerank_hits, stages.refile

    def rerank_hits(hits: list[Any], files: Any, query: Any, params: RetrievalParams) -> list[Any]:
        into.update(hits=copy.deepcopy(hits), files=copy.deepcopy(files), query=query, params=params)
        return real_rerank(hits, files, query, params)

    def refile(hits: list[Any], files: Any, query: Any, params: RetrievalParams, repeats: Sequence[Any] = ()) -> Any:
        into["repeats"] = copy.deepcopy(list(repeats))
        return real_refile(hits, files, query, params, repeats)

    stages.rerank_hits, stages.refile = rerank_hits, refile
    try:
        yield
    finally:
        stages.rerank_hits, stages.refile = real_rerank, real_refile


def capture(args: argparse.Namespace) -> int:
    """One default call per query of the chosen set and half, its learned step's input written to ``--out``."""
    args.limit, args.fetch_tree, args.max_trees = None, None, 0
    args.other_trees = None if args.trees else "none==0"
    args.repos = args.trees
    sr.EMBED_CACHE = args.embed_cache
    from igraph_mcp.retrieve.analyze import MAX_QUERY_CHARS

    sr.MAX_QUERY_CHARS = MAX_QUERY_CHARS
    code = args.set == "multilang"
    tasks = sr.multilang_tasks(args, common.cache_root()) if code else sr.devset_tasks(args, common.cache_root())
    match: m.Matcher = m.code_function_match if code else m.function_match
    out: list[Captured] = []
    for task in tasks:
        bm25 = Bm25Index(task.root, bd.extract_code_symbols) if code else Bm25Index(task.root)
        class_keys = frozenset(m.code_key(k) for k in bm25.class_keys) if code else bm25.class_keys
        svc, seconds, _ = sr.open_service(task.root)
        print(f"{task.label}: {len(task.cases)} cases, opened in {seconds:.0f}s", file=sys.stderr, flush=True)
        try:
            for case in task.cases:
                golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, class_keys, match)
                seen: dict[str, Any] = {}
                with tapped(seen):
                    ranking, _ = sr.default_call(svc, case.text)
                if "hits" not in seen:
                    continue  # not issue-shaped: the learned step never ran
                repo = case.qid.rsplit("-", 1)[0] if code else task.label.split("==")[0]
                out.append(
                    Captured(
                        case.qid,
                        repo,
                        task.set_name,
                        case.half,
                        case.language or "python",
                        seen["hits"],
                        seen["files"],
                        seen["query"],
                        seen["params"],
                        seen.get("repeats", []),
                        sr.TOP_K,
                        list(case.gold_files),
                        list(golds),
                        frozenset(class_keys),
                        code,
                        {"functions": ranking.functions[: sr.TOP_K], "files": ranking.files[:10]},
                    )
                )
        finally:
            sr.close_service(svc)
    with gzip.open(args.out, "wb") as fh:
        pickle.dump(out, fh)
    print(f"{len(out)} queries captured into {args.out}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------- replay and fit
def params_for(weights: tuple[float, ...] | None) -> RetrievalParams:
    """The shipped parameters with ``weights`` as the learned step's (None: as shipped; (): the step off)."""
    return DEFAULT_PARAMS if weights is None else DEFAULT_PARAMS.with_value("rerank_weights", weights)


def replay(c: Captured, weights: tuple[float, ...] | None) -> tuple[list[tuple[str, str]], list[str]]:
    """(top functions, files) of a captured call with ``weights`` in the learned step (None: as shipped)."""
    params = params_for(weights)
    hits = stages.rerank_hits(copy.deepcopy(c.hits), c.files, c.query, params)
    files = stages.refile(hits, c.files, c.query, params, c.repeats)
    return [(h.filePath, h.qualifiedName) for h in hits[: c.top_k]], [f.filePath for f in files.files[:10]]


def scores(c: Captured, weights: tuple[float, ...] | None) -> dict[str, float | None]:
    functions, files = replay(c, weights)
    match: m.Matcher = m.code_function_match if c.code else m.function_match
    return m.devset_metrics(c.gold_files, c.golds, files, functions, c.class_keys, match)


def evaluate(cases: Sequence[Captured], weights: tuple[float, ...] | None) -> dict[str, float | None]:
    return m.mean_metrics([scores(c, weights) for c in cases])


def gold_mask(c: Captured, top: Sequence[Any]) -> list[bool]:
    match: m.Matcher = m.code_function_match if c.code else m.function_match
    return [any(match(g, (h.filePath, h.qualifiedName), c.class_keys) for g in c.golds) for h in top]


def pairs(cases: Sequence[Captured]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(gold - other) feature differences within each case's top candidates, each case weighing alike."""
    diffs, weights = [], []
    for c in cases:
        top = c.hits[: DEFAULT_PARAMS.rerank_depth]
        words = {path: len(w) for path, w in c.files.words.items()}
        rows = rerank.feature_rows(top, [f.filePath for f in c.files.files], words, frozenset(c.query.analysis.tokens))
        x = np.asarray(rows, dtype=np.float64).reshape(len(top), len(rerank.FEATURES))
        gold = gold_mask(c, top)
        pos = [i for i, g in enumerate(gold) if g]
        neg = [i for i, g in enumerate(gold) if not g]
        for i in pos if neg else ():
            diffs.append(x[i] - x[neg])
            weights.append(np.full(len(neg), 1.0 / (len(pos) * len(neg))))
    return diffs, weights


def fit(cases: Sequence[Captured], l2: float, epochs: int, mask: Any, prior: Sequence[float] = ()) -> tuple[float, ...]:
    """Pairwise logistic regression on the cases' (gold - other) pairs, L2 towards ``prior`` (zeros when empty):
    with few cases, the shipped weights moved only as far as the new cases ask."""
    diffs, w = pairs(cases)
    if not diffs:
        raise SystemExit("no case has both a gold and a non-gold candidate in its top hits")
    if not prior:
        return tuple(round(float(v), 3) for v in fit_pairs(diffs, w, l2, epochs, mask))
    d, sw = np.concatenate(diffs), np.concatenate(w)
    sw = sw / sw.sum()
    w0 = np.asarray(prior, dtype=np.float64)
    base = d @ w0
    if mask is not None:
        d = d * mask
    delta = np.zeros(d.shape[1])
    for _ in range(epochs):
        z = base + d @ delta
        g = -(d * (sw / (1.0 + np.exp(z)))[:, None]).sum(axis=0) + l2 * delta
        delta -= g
    return tuple(round(float(v), 3) for v in w0 + delta)


def load(paths: Sequence[Path]) -> list[Captured]:
    """Every captured case, each checked to replay to the answer it was captured from."""
    cases: list[Captured] = []
    for p in paths:
        with gzip.open(p, "rb") as fh:
            cases += pickle.load(fh)
    off = [c.qid for c in cases if replay(c, None) != (c.live["functions"], c.live["files"])]
    if off:
        print(f"{len(off)} cases do not replay to their captured answer: {off[:5]}", file=sys.stderr)
    return cases


def reach(cases: Sequence[Captured]) -> str:
    """Where each case's best-placed edited function sits after the shipped step: what any weights can move (a gold
    at 11-50 can rise into the top 10; one below the depth or absent cannot)."""
    bands = {"1-10": 0, "11-50": 0, "below 50": 0, "absent": 0}
    for c in (c for c in cases if c.golds):
        hits = stages.rerank_hits(copy.deepcopy(c.hits), c.files, c.query, DEFAULT_PARAMS)
        first = next((i for i, g in enumerate(gold_mask(c, hits)) if g), None)
        band = "absent" if first is None else "1-10" if first < 10 else "11-50" if first < 50 else "below 50"
        bands[band] += 1
    return ", ".join(f"{k}: {v}" for k, v in bands.items())


def table(label: str, cases: Sequence[Captured], weights: tuple[float, ...] | None, by_language: bool) -> None:
    print(fmt(label, evaluate(cases, weights), len(cases)))
    if by_language:
        for lang in sorted({c.language for c in cases}):
            sub = [c for c in cases if c.language == lang]
            print(fmt(f"  {lang}", evaluate(sub, weights), len(sub)))


def run_fit(args: argparse.Namespace) -> int:
    cases = load(args.captures)
    if args.group != "all":
        cases = [c for c in cases if c.group == args.group]
    tuning = sorted((c for c in cases if c.half == "tuning"), key=lambda c: c.qid)
    heldout = [c for c in cases if c.half == "heldout"]
    mask = None
    if args.features:
        wanted = set(args.features.split(","))
        if unknown := wanted - set(rerank.FEATURES):
            raise SystemExit(f"unknown features {sorted(unknown)}; choose from {', '.join(rerank.FEATURES)}")
        mask = np.array([float(f in wanted) for f in rerank.FEATURES])
    prior = DEFAULT_PARAMS.rerank_weights if args.from_shipped else ()
    print(HEADER)
    table("tuning: shipped", tuning, None, args.by_language)
    table("tuning: off", tuning, (), args.by_language)
    print(f"tuning, best-placed edited function after the shipped step: {reach(tuning)}")
    if args.cv:
        key = (lambda c: c.repo) if args.cv_by == "repo" else (lambda c: c.qid)
        groups = sorted({key(c) for c in tuning})
        for l2 in (1e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0):
            rows: list[dict[str, float | None]] = []
            for k in range(args.cv):
                held = set(groups[k :: args.cv])
                train = [c for c in tuning if key(c) not in held]
                w = fit(train, l2, args.epochs, mask, prior)
                rows += [scores(c, w) for c in tuning if key(c) in held]
            print(fmt(f"CV {args.cv}-fold by {args.cv_by} l2={l2:g}", m.mean_metrics(rows), len(rows)))
    if args.train:
        w = fit(tuning, args.l2, args.epochs, mask, prior)
        print("coefficients:", ", ".join(f"{n}={v:.3f}" for n, v in zip(rerank.FEATURES, w, strict=True)))
        print("as a tuple:", w)
        table("tuning: fitted", tuning, w, args.by_language)
        if args.score_heldout:
            table("held-out: shipped", heldout, None, args.by_language)
            table("held-out: fitted", heldout, w, args.by_language)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture", help="one default call per query, the learned step's input kept")
    cap.add_argument("--set", choices=("devset", "multilang"), default="multilang")
    cap.add_argument("--half", choices=("tuning", "heldout", "all"), default="tuning")
    cap.add_argument("--trees", default=None, help="devset: these trees; multilang: these repositories")
    cap.add_argument("--languages", default=None)
    cap.add_argument("--multilang-file", type=Path, default=common.multilang_path())
    cap.add_argument("--mirrors", type=Path, default=common.mirrors_path())
    cap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    cap.add_argument("--embed-cache", type=Path, default=common.cache_root() / "embed-cache.sqlite")
    cap.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit", help="cross-validate and fit weights on captured tuning cases")
    f.add_argument("captures", nargs="+", type=Path)
    f.add_argument("--group", choices=("python", "other", "all"), default="all")
    f.add_argument("--cv", type=int, default=0)
    f.add_argument("--cv-by", choices=("repo", "query"), default="repo")
    f.add_argument("--train", action="store_true")
    f.add_argument("--l2", type=float, default=1e-2)
    f.add_argument("--epochs", type=int, default=300)
    f.add_argument("--features", default="")
    f.add_argument("--by-language", action="store_true")
    f.add_argument("--from-shipped", action="store_true", help="L2 towards the shipped weights instead of zero")
    f.add_argument("--score-heldout", action="store_true", help="print the held-out half once for the fitted weights")
    args = ap.parse_args(argv)
    return capture(args) if args.command == "capture" else run_fit(args)


if __name__ == "__main__":
    import rerank_live  # the pickled cases name their class by this module, not by __main__

    raise SystemExit(rerank_live.main())
