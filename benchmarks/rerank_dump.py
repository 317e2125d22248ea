"""Dump every devset query's channel lists and candidates, for offline lever study and training.

    python benchmarks/rerank_dump.py --trees 'xarray==0.16.2,Sphinx==4.0.3' --out cands.jsonl.gz

Each tree is indexed and opened once; every query of both halves runs through the service's analyze and channel
stages (``igraph_mcp/retrieve/stages.py``) with the shipped parameters, and what the later stages read is written:
the query text, the definition counts of its identifiers, each channel's ranked node ids, the candidates' stored
rows, the gold labels and which of the golds and candidates are classes (what metrics.py needs). ``rerank_train.py``
replays fuse -> boost -> rank files -> rerank from these with other parameters; the ``half`` field says which half a
query belongs to (training uses the tuning half only).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # the checkout on sys.path, the download cache
import metrics as m
import service_runs as sr
from baseline_bm25 import Bm25Index

# The stored fields of a candidate that the boost and file stages read (the rest of a NodeRow is not dumped).
ROW_FIELDS = ("path", "kind", "name", "qualified_name")


def dump_case(svc: Any, case: Any, golds: list[str], class_keys: frozenset[str]) -> dict[str, Any]:
    """One query's channel lists, candidate rows and gold labels."""
    from igraph_mcp.retrieve import stages
    from igraph_mcp.store import nodes as node_store

    db, params = svc.db, svc.retrieval_params
    query = stages.analyze(db, case.text, params)
    lists = stages.search_channels(db, query, svc.dense_state(), params, ("fts", "dense")).ranked
    ids = list(dict.fromkeys(n for ranked in lists.values() for n in ranked))
    rows = node_store.nodes_by_ids(db, ids)
    gold_of = {}
    keys = set(golds)
    for nid, row in rows.items():
        hit = (m.normalize_path(row.path), row.qualified_name)
        keys.add(f"{hit[0]}::{hit[1]}")
        found = [i for i, g in enumerate(golds) if m.function_match(g, hit, class_keys)]
        if found:
            gold_of[str(nid)] = found
    return {
        "qid": case.qid,
        "half": case.half,
        "text": case.text,
        "definition_counts": query.analysis.definition_counts,
        "lists": lists,
        "rows": {str(nid): [getattr(row, f) for f in ROW_FIELDS] for nid, row in rows.items()},
        # first and last line of each candidate (the re-ranker's size feature reads them)
        "spans": {str(nid): [row.start_line, row.end_line] for nid, row in rows.items()},
        "issue": query.issue,
        "gold_files": list(case.gold_files),
        "golds": golds,
        "gold_of": gold_of,
        # the classes among the golds and candidates: what metrics.function_match needs to know
        "class_keys": sorted(keys & class_keys),
    }


def main(argv: list[str] | None = None) -> int:
    """Dump candidates of every devset query of the given trees (both halves)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    ap.add_argument("--embed-cache", type=Path, default=common.cache_root() / "embed-cache.sqlite")
    args = ap.parse_args(argv)
    args.half, args.limit, args.fetch_tree, args.max_trees, args.other_trees = "all", None, None, 0, None
    sr.EMBED_CACHE = None if str(args.embed_cache) == "off" else args.embed_cache
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8") as out:
        for task in sr.devset_tasks(args, common.cache_root()):
            started = time.perf_counter()
            bm25 = Bm25Index(task.root)
            svc, seconds, _ = sr.open_service(task.root)
            try:
                for case in task.cases:
                    golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, bm25.class_keys)
                    rec = dump_case(svc, case, golds, bm25.class_keys)
                    rec["tree"] = task.label
                    out.write(json.dumps(rec) + "\n")
                out.flush()
            finally:
                sr.close_service(svc)
            total = time.perf_counter() - started
            print(
                f"{task.label}: {len(task.cases)} cases, index {seconds:.0f}s, total {total:.0f}s",
                file=sys.stderr,
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
