"""Fusion tuning on the benchmark sets: channels run once per query, fusion variants evaluated from the cache.

    python benchmarks/tune_fusion.py --set docstrings
    python benchmarks/tune_fusion.py --set devset --max-trees 2

Trees must already be indexed with embeddings (run benchmarks/retrieval.py first). Prints one line per variant.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SRC = Path(__file__).resolve().parents[1]
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

import bench_data as bd  # noqa: E402
import metrics as m  # noqa: E402
from baseline_bm25 import Bm25Index  # noqa: E402
from retrieval import TreeTask, devset_tasks, docstring_tasks  # noqa: E402

from igraph_mcp.retrieve import explore as explore_mod  # noqa: E402
from igraph_mcp.retrieve.analyze import QueryAnalysis, analyze_query  # noqa: E402
from igraph_mcp.retrieve.channels import count_definitions, dense_channel, fts_channel  # noqa: E402
from igraph_mcp.retrieve.fusion import rrf  # noqa: E402
from igraph_mcp.retrieve.ranking import rank_files, rank_hits  # noqa: E402
from igraph_mcp.retrieve.vector_search import SqliteVecSearch  # noqa: E402
from igraph_mcp.service import IGraphService  # noqa: E402
from igraph_mcp.store import graph  # noqa: E402
from igraph_mcp.store import vectors as vec_store  # noqa: E402

# bm25 column weights: name, words, qualified_name, path, signature, docstring, body
FTS_WEIGHT_VARIANTS = {
    "fts_body05": (10.0, 4.0, 6.0, 2.0, 2.0, 1.0, 0.5),
    "fts_body2": (10.0, 4.0, 6.0, 2.0, 2.0, 1.0, 2.0),
    "fts_flat": (3.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0),
}


@dataclass
class Cached:
    """One query's channel outputs and gold."""

    set_name: str
    qa: QueryAnalysis
    lists: dict[str, list[int]]
    rows: dict[int, Any]
    gold_files: tuple[str, ...]
    golds: list[str]
    class_keys: frozenset[str]


def collect(task: TreeTask, depth: int) -> list[Cached]:
    """Run FTS and dense once per case of one tree."""
    bm25 = Bm25Index(task.root)
    svc = IGraphService(task.root)
    db = svc.db
    total = int(db.scalar("SELECT count(*) FROM nodes", default=0))
    embedder = svc.dense_state().embedder
    out: list[Cached] = []
    for case in task.cases:
        golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, bm25.class_keys)
        if task.set_name == "docstrings" and not golds:
            continue
        qa = analyze_query(case.text[:8000])
        count_definitions(db, qa)
        lists = {"fts5": [n for n, _ in fts_channel(db, qa, depth, total)]}
        for label, weights in FTS_WEIGHT_VARIANTS.items():
            lists[label] = [n for n, _ in fts_channel(db, qa, depth, total, weights)]
        if embedder is not None:
            qv = vec_store.to_blob(embedder.embed_query(qa.text))
            dres = dense_channel(SqliteVecSearch(db), qv, limit=depth, file_top_k=10, fallback_threshold=0.75)
            lists["dense"] = [n for n, _ in dres.ranked]
        ids = {i for v in lists.values() for i in v}
        out.append(
            Cached(task.set_name, qa, lists, graph.nodes_by_ids(db, list(ids)), case.gold_files, golds, bm25.class_keys)
        )
    svc.close()
    return out


def evaluate(cases: list[Cached], variant: Callable[[Cached], tuple[list[Any], list[Any]]]) -> dict[str, float]:
    """Mean metrics of one variant over cached cases."""
    rows = []
    for c in cases:
        hits, files = variant(c)
        functions = [(h.filePath, h.qualifiedName) for h in hits[:10]]
        if c.set_name == "docstrings":
            rows.append(m.docstring_metrics(c.golds[0], functions, c.class_keys))
        else:
            rows.append(m.devset_metrics(c.gold_files, c.golds, [f.filePath for f in files], functions, c.class_keys))
    return {k: v for k, v in m.mean_metrics(rows).items() if v is not None}


def make_variant(
    wf: float, wd: float, k: int, boosts: bool = True, depth: int = 100, fts: str = "fts5"
) -> Callable[[Cached], tuple[list[Any], list[Any]]]:
    """A fusion configuration as a function of one cached query."""

    def run(c: Cached) -> tuple[list[Any], list[Any]]:
        lists = {"fts5": c.lists[fts][:depth]}
        if "dense" in c.lists:
            lists["dense"] = c.lists["dense"][:depth]
        fused = rrf(lists, {"fts5": wf, "dense": wd}, k)
        qa = c.qa if boosts else QueryAnalysis(text="")
        hits = rank_hits(fused, c.rows, qa)
        return hits, rank_files(hits)

    return run


def with_boosts(
    inner: Callable[[Cached], tuple[list[Any], list[Any]]], **factors: float
) -> Callable[[Cached], tuple[list[Any], list[Any]]]:
    """Run a variant with some boost factors replaced (e.g. IDENTIFIER=1.0 switches that boost off)."""
    from igraph_mcp.retrieve import boosts

    def run(c: Cached) -> tuple[list[Any], list[Any]]:
        saved = {k: getattr(boosts, k) for k in factors}
        for k, v in factors.items():
            setattr(boosts, k, v)
        try:
            return inner(c)
        finally:
            for k, v in saved.items():
                setattr(boosts, k, v)

    return run


def code_ratio(qa: QueryAnalysis) -> float:
    """Share of the query's words that are code-shaped (identifiers, dotted names, paths)."""
    words = len(qa.text.split()) or 1
    code = sum(1 for i in qa.identifiers if "_" in i or any(ch.isupper() for ch in i[1:])) + len(qa.paths)
    return min(1.0, code / words)


def make_adaptive(low: float, slope: float, k: int = 60) -> Callable[[Cached], tuple[list[Any], list[Any]]]:
    """FTS weight grows with the query's share of code-shaped words; dense weight stays 1."""

    def run(c: Cached) -> tuple[list[Any], list[Any]]:
        wf = min(1.0, low + slope * code_ratio(c.qa))
        fused = rrf({k_: v for k_, v in c.lists.items() if k_ in ("fts5", "dense")}, {"fts5": wf, "dense": 1.0}, k)
        hits = rank_hits(fused, c.rows, c.qa)
        return hits, rank_files(hits)

    return run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=("devset", "docstrings"), default="docstrings")
    ap.add_argument("--max-trees", type=int, default=bd.DEFAULT_MAX_TREES)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--docstring-sample", type=int, default=bd.DEFAULT_DOCSTRING_SAMPLE)
    ap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    ap.add_argument("--fetch-tree", type=Path, default=None)
    args = ap.parse_args()
    cache = bd.cache_dir()
    tasks = devset_tasks(args, cache) if args.set == "devset" else docstring_tasks(args, cache)
    cases = [c for t in tasks for c in collect(t, explore_mod.CHANNEL_DEPTH)]
    variants: dict[str, Callable[[Cached], tuple[list[Any], list[Any]]]] = {
        "fts only": make_variant(1, 0, 60),
        "dense only": make_variant(0, 1, 60),
        "rrf 1/1 k60": make_variant(1, 1, 60),
        "rrf 1/1 k60 no boosts": make_variant(1, 1, 60, boosts=False),
        "rrf 0.5/1 k60": make_variant(0.5, 1, 60),
        "rrf 1/0.5 k60": make_variant(1, 0.5, 60),
        "rrf 1/1 k10": make_variant(1, 1, 10),
        "rrf 1/1 k60 depth30": make_variant(1, 1, 60, depth=30),
        "rrf 0.3/1 k60": make_variant(0.3, 1, 60),
        "1/1 no identifier boost": with_boosts(make_variant(1, 1, 60), IDENTIFIER=1.0),
        "1/1 no kind boost": with_boosts(make_variant(1, 1, 60), KIND_HINT=1.0),
        "1/1 no ident+kind": with_boosts(make_variant(1, 1, 60), IDENTIFIER=1.0, KIND_HINT=1.0),
        "1/1 no path boost": with_boosts(make_variant(1, 1, 60), PATH_MENTIONED=1.0),
        "1/1 no qualified boost": with_boosts(make_variant(1, 1, 60), QUALIFIED_NAME=1.0),
        "fts only body05": make_variant(1, 0, 60, fts="fts_body05"),
        "1/1 tests x0.8": with_boosts(make_variant(1, 1, 60), TEST_CODE=0.8),
        "1/1 tests x0.6": with_boosts(make_variant(1, 1, 60), TEST_CODE=0.6),
        "1/1 tests x0.9": with_boosts(make_variant(1, 1, 60), TEST_CODE=0.9),
        "1/1 ident any count": with_boosts(make_variant(1, 1, 60), RARE_DEFINITIONS=10**9),
        "1/1 ident rare<=1": with_boosts(make_variant(1, 1, 60), RARE_DEFINITIONS=1),
        "1/1 ident rare<=10": with_boosts(make_variant(1, 1, 60), RARE_DEFINITIONS=10),
        "fts only body2": make_variant(1, 0, 60, fts="fts_body2"),
        "fts only flat": make_variant(1, 0, 60, fts="fts_flat"),
        "rrf 1/1 body05": make_variant(1, 1, 60, fts="fts_body05"),
        "rrf 1/1 body2": make_variant(1, 1, 60, fts="fts_body2"),
        "rrf 1/1 flat": make_variant(1, 1, 60, fts="fts_flat"),
        "rrf 1/0.3 k60": make_variant(1, 0.3, 60),
        "adaptive 0.3+4r": make_adaptive(0.3, 4),
        "adaptive 0.5+4r": make_adaptive(0.5, 4),
        "adaptive 0.3+8r": make_adaptive(0.3, 8),
    }
    keys = (
        ("acc@1", "acc@5", "acc@10", "mrr@10")
        if args.set == "docstrings"
        else ("file_acc@1", "file_acc@5", "func_acc@5", "func_acc@10", "func_recall@10", "file_mrr")
    )
    print(f"{len(cases)} queries; " + " ".join(keys))
    for name, fn in variants.items():
        res = evaluate(cases, fn)
        print(f"{name:<28}" + " ".join(f"{100 * res.get(k, 0):6.1f}" for k in keys))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
