"""Fusion tuning on the benchmark sets: channels run once per query, fusion variants evaluated from the cache.

    python benchmarks/tune_fusion.py --set docstrings
    python benchmarks/tune_fusion.py --set devset --max-trees 2

Trees must already be indexed with embeddings (run benchmarks/retrieval.py first). Each query's channels run once;
every variant is a RetrievalParams (the service's, with a few fields changed) passed to the service's own stages
(fuse -> boost -> rank files). Prints one line per variant.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # the checkout on sys.path, the download cache
import metrics as m
from baseline_bm25 import Bm25Index
from service_runs import TreeTask, devset_tasks, docstring_tasks

from igraph_mcp.retrieve import stages
from igraph_mcp.retrieve.analyze import QueryAnalysis
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.retrieve.vector_search import StoreVectorSearch
from igraph_mcp.service import IGraphService
from igraph_mcp.store import nodes as node_store

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
    query: stages.AnalyzedQuery
    lists: dict[str, list[int]]
    rows: dict[int, Any]
    gold_files: tuple[str, ...]
    golds: list[str]
    class_keys: frozenset[str]
    params: RetrievalParams


def collect(task: TreeTask) -> list[Cached]:
    """Run the FTS variants and the dense channel once per case of one tree."""
    bm25 = Bm25Index(task.root)
    svc = IGraphService(task.root)
    db, params, dense = svc.db, svc.retrieval_params, svc.dense_state()
    out: list[Cached] = []
    for case in task.cases:
        golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, bm25.class_keys)
        if task.set_name == "docstrings" and not golds:
            continue
        query = stages.analyze(db, case.text, params)
        lists = stages.search_channels(db, query, dense, params, ("fts",)).ranked
        for label, weights in FTS_WEIGHT_VARIANTS.items():
            lists[label] = [
                n for n, _ in stages.fts(db, query.analysis, params.with_value("fts_column_weights", weights))
            ]
        texts = stages.query_texts(query.analysis.text, params, params.dense_parts)
        vectors, _note = stages.embed_query_parts(dense, texts, int(db.get_meta("embedder_dim", "0") or 0))
        if vectors:
            lists["dense"] = stages.dense_ranking(dense.search or StoreVectorSearch(db), vectors, params)[0]
        ids = {i for v in lists.values() for i in v}
        rows = node_store.nodes_by_ids(db, list(ids))
        out.append(Cached(task.set_name, query, lists, rows, case.gold_files, golds, bm25.class_keys, params))
    svc.close()
    return out


Variant = Callable[[Cached], tuple[list[Any], list[Any]]]
_NO_BOOSTS = stages.AnalyzedQuery(QueryAnalysis(text=""), issue=False)


def evaluate(cases: list[Cached], variant: Variant) -> dict[str, float]:
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


def ranked(c: Cached, params: RetrievalParams, *, boosts: bool = True, depth: int = 100, fts: str = "fts5") -> Any:
    """The service's ranking of one cached query under ``params``: (hits, files)."""
    lists = {name: ids[:depth] for name, ids in c.lists.items() if name in ("fts5", "named", "graph", "dense")}
    lists["fts5"] = c.lists[fts][:depth]
    fused = stages.fuse(lists, c.query, params)
    hits = stages.boost(fused, c.rows, c.query if boosts else _NO_BOOSTS, params)
    files = stages.rank_files(hits, c.query, params)
    return stages.rerank_hits(hits, files, c.query, params), files.files


def make_variant(*assignments: str, boosts: bool = True, depth: int = 100, fts: str = "fts5") -> Variant:
    """A fusion configuration (``name=value`` parameter assignments) as a function of one cached query."""

    def run(c: Cached) -> tuple[list[Any], list[Any]]:
        return ranked(c, c.params.with_assignments(assignments), boosts=boosts, depth=depth, fts=fts)

    return run


def code_ratio(qa: QueryAnalysis) -> float:
    """Share of the query's words that are code-shaped (identifiers, dotted names, paths)."""
    words = len(qa.text.split()) or 1
    code = sum(1 for i in qa.identifiers if "_" in i or any(ch.isupper() for ch in i[1:])) + len(qa.paths)
    return min(1.0, code / words)


def make_adaptive(low: float, slope: float) -> Variant:
    """FTS weight grows with the query's share of code-shaped words; dense weight stays 1."""

    def run(c: Cached) -> tuple[list[Any], list[Any]]:
        wf = min(1.0, low + slope * code_ratio(c.query.analysis))
        return ranked(c, c.params.with_value("fts_weight", wf))

    return run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=("devset", "docstrings"), default="docstrings")
    ap.add_argument("--max-trees", type=int, default=bd.DEFAULT_MAX_TREES)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--docstring-sample", type=int, default=bd.DEFAULT_DOCSTRING_SAMPLE)
    ap.add_argument("--doc-projects", default=None, help="docstring set on these sdists, e.g. 'requests==2.32.3'")
    ap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    ap.add_argument("--fetch-tree", type=Path, default=None)
    args = ap.parse_args()
    cache = common.cache_root()
    tasks = devset_tasks(args, cache) if args.set == "devset" else docstring_tasks(args, cache)
    cases = [c for t in tasks for c in collect(t)]
    variants: dict[str, Variant] = {
        "shipped": make_variant(),
        "fts only": make_variant("fts_weight=1.0", "dense_weight=0.0"),
        "dense only": make_variant("fts_weight=0.0", "dense_weight=1.0"),
        "rrf 1/1 k60 no boosts": make_variant(boosts=False),
        "rrf 0.5/1 k60": make_variant("fts_weight=0.5"),
        "rrf 1/0.5 k60": make_variant("dense_weight=0.5"),
        "rrf 1/1 k10": make_variant("rrf_k=10"),
        "rrf 1/1 k60 depth30": make_variant(depth=30),
        "rrf 0.3/1 k60": make_variant("fts_weight=0.3"),
        "prose scale 1.0": make_variant("prose_fts_scale=1.0"),
        "no identifier boost": make_variant("boosts.identifier=1.0"),
        "no kind boost": make_variant("boosts.kind_hint=1.0"),
        "no ident+kind": make_variant("boosts.identifier=1.0", "boosts.kind_hint=1.0"),
        "no path boost": make_variant("boosts.path_mentioned=1.0"),
        "no qualified boost": make_variant("boosts.qualified_name=1.0"),
        "fts only body05": make_variant("fts_weight=1.0", "dense_weight=0.0", fts="fts_body05"),
        "tests x0.8": make_variant("boosts.test_code=0.8"),
        "tests x0.9": make_variant("boosts.test_code=0.9"),
        "ident any count": make_variant(f"boosts.rare_definitions={10**9}"),
        "ident rare<=1": make_variant("boosts.rare_definitions=1"),
        "fts only body2": make_variant("fts_weight=1.0", "dense_weight=0.0", fts="fts_body2"),
        "fts only flat": make_variant("fts_weight=1.0", "dense_weight=0.0", fts="fts_flat"),
        "rrf 1/1 body05": make_variant(fts="fts_body05"),
        "rrf 1/1 body2": make_variant(fts="fts_body2"),
        "rrf 1/1 flat": make_variant(fts="fts_flat"),
        "rrf 1/0.3 k60": make_variant("dense_weight=0.3"),
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
