"""Train the re-ranking step on mined commit queries; choose settings on held-out repositories and the devset.

    python training/train_rerank.py ~/.cache/igraph-mcp-train/replay/commits.jsonl.gz \\
        --devset ~/.cache/igraph-mcp-train/replay/devset-tuning.jsonl.gz

Reads ``replay_commits.py`` dumps (and, with ``--devset``, ``benchmarks/rerank_dump.py`` dumps of the devset) and
replays the service's stages on them (``benchmarks/rerank_train.py``: fuse -> boost -> rank files -> rerank).
The step is the service's own (``igraph_mcp/retrieve/rerank.py``): a linear score over ``rerank.FEATURES``,
fitted by pairwise logistic regression (plain numpy) on the issue-shaped queries of the **train** split of the
mined repositories. Feature sets and the L2 strength are chosen on the mined **held-out** split (other
repositories) and the devset's **tuning** half; the devset's held-out half is never read here. The chosen weights
are printed as ``rerank.WEIGHTS`` lines; they ship only if they beat the shipped ones on both.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import rerank_train as rt

from igraph_mcp.retrieve import rerank
from igraph_mcp.retrieve.params import DEFAULT_PARAMS, RetrievalParams

SHIPPED_SET = (
    "base_logrank,kind_function,kind_method,kind_class,kind_module,testCode,path_words,file_logrank"  # today's eight
)
# Feature sets tried (the shipped eight, then wider ones); every set is fitted on train and scored on the gates.
FEATURE_SETS: dict[str, str] = {
    "shipped-8": SHIPPED_SET,
    "8+new": SHIPPED_SET + ",named_logrank,graph_logrank,both_channels,non_source,lines_log,name_words,file_first",
    "all": ",".join(rerank.FEATURES),
}
L2S = (1e-4, 1e-3, 1e-2)


def load(paths: list[Path], issues_only: bool = True) -> list[rt.Query]:
    """Dumped queries (``rerank_train.load``), the issue-shaped ones only unless ``issues_only`` is off: the
    learned step re-ranks issues only."""
    queries = rt.load(paths)
    if not issues_only:
        return queries
    issue = {}
    for p in paths:
        with gzip.open(p, "rt", encoding="utf-8") as fh:
            try:
                for line in fh:
                    if line.endswith("\n"):
                        d = json.loads(line)
                        issue[d["qid"]] = d.get("issue", True)
            except EOFError:  # a dump still being written ends without the gzip trailer (as rerank_train.load)
                pass
    return [q for q in queries if issue.get(q.qid, True)]


def mask_of(names: str) -> np.ndarray:
    """1 for the named features, 0 for the others."""
    wanted = set(names.split(","))
    return np.array([float(f in wanted) for f in rerank.FEATURES])


def pair_rows(queries: list[rt.Query], params: RetrievalParams) -> tuple[np.ndarray, np.ndarray]:
    """(gold - other) feature differences within each query's top candidates, and pair weights (each query
    weighs alike): computed once, then every feature set and L2 is fitted on them."""
    diffs, weights = rt.pair_differences(queries, params)
    sw = np.concatenate(weights)
    return np.concatenate(diffs), sw / sw.sum()


def fit_newton(d: np.ndarray, sw: np.ndarray, l2: float, mask: np.ndarray, steps: int = 30) -> np.ndarray:
    """Weighted pairwise logistic regression with L2, by Newton's method on the masked features (features of
    very different scales, where plain gradient steps would need a tuned rate)."""
    cols = np.flatnonzero(mask)
    x = d[:, cols]
    w = np.zeros(len(cols))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = -(x * (sw * (1.0 - p))[:, None]).sum(axis=0) + l2 * w
        hess = (x * (sw * p * (1.0 - p))[:, None]).T @ x + l2 * np.eye(len(cols))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    out = np.zeros(d.shape[1])
    out[cols] = w
    return out


def score(queries: list[rt.Query], params: RetrievalParams) -> dict[str, float | None]:
    """The devset metrics of the service's ranking under ``params`` (rerank_train.evaluate)."""
    return rt.evaluate(queries, params) if queries else {}


def score_refiled(queries: list[rt.Query], params: RetrievalParams) -> dict[str, float | None]:
    """As ``score``, with the files ranked again from the re-ranked hits' scores (``rerank_files``)."""
    return score(queries, params.with_value("rerank_files", True))


def main(argv: list[str] | None = None) -> int:
    """Fit every feature set and L2 on the train split; print the gates' tables and the chosen weights."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dumps", nargs="+", type=Path)
    ap.add_argument("--devset", type=Path, action="append", default=[], help="rerank_dump.py dumps of the devset")
    ap.add_argument("--max-train", type=int, default=0, help="use at most this many train queries (0 = all)")
    args = ap.parse_args(argv)
    mined = load(args.dumps)
    train = [q for q in mined if q.half == "train"]
    if args.max_train:
        train = train[: args.max_train]
    gates: dict[str, list[rt.Query]] = {"mined held-out": [q for q in mined if q.half == "heldout"]}
    if args.devset:
        gates["devset tuning"] = [q for q in load(args.devset) if q.half == "tuning"]
    print(f"train {len(train)} issue-shaped queries; " + ", ".join(f"{k} {len(v)}" for k, v in gates.items()))
    print(rt.HEADER)
    hand = DEFAULT_PARAMS.with_value("rerank_weights", ())
    for label, params in (("no learned step", hand), ("shipped", DEFAULT_PARAMS)):
        for g, qs in [("train", train), *gates.items()]:
            print(rt.fmt(f"{g}: {label}", score(qs, params), len(qs)))
    d, sw = pair_rows(train, DEFAULT_PARAMS)
    print(f"{len(d)} pairs", flush=True)
    results: list[tuple[str, float, Any]] = []
    for name, names in FEATURE_SETS.items():
        for l2 in L2S:
            w = fit_newton(d, sw, l2, mask_of(names))
            params = rt.with_weights(DEFAULT_PARAMS, w)
            for g, qs in gates.items():
                print(rt.fmt(f"{g}: {name} l2={l2:g}", score(qs, params), len(qs)), flush=True)
            results.append((name, l2, w))
    for name, l2, w in results:
        params = rt.with_weights(DEFAULT_PARAMS, w)
        for g, qs in gates.items():
            print(rt.fmt(f"{g}: {name} l2={l2:g} refiled", score_refiled(qs, params), len(qs)), flush=True)
    for name, l2, w in results:
        print(f"# {name} l2={l2:g}: " + ", ".join(f"{n}={v:.3f}" for n, v in zip(rerank.FEATURES, w, strict=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
