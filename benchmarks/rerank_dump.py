"""Dump every devset query's candidates with their channel ranks and features, for offline lever study and training.

    python benchmarks/rerank_dump.py --trees 'xarray==0.16.2,Sphinx==4.0.3' --out cands.jsonl.gz

Each tree is indexed and opened once; every query of both halves is run through all candidate channels (FTS,
dense head part, named symbols, graph neighbours of the named ones), and the union of their candidates is
written with the boosts that apply, the file's path-word overlap with the query, and gold labels. The
``half`` field says which half a query belongs to: ``rerank_train.py`` trains on the tuning half only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

_SRC = Path(__file__).resolve().parents[1]
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

import bench_data as bd  # noqa: E402
import metrics as m  # noqa: E402
import retrieval as r  # noqa: E402
from baseline_bm25 import Bm25Index  # noqa: E402

DEPTH = 100  # candidates taken from each channel, as the service does


def dump_case(svc: Any, explorer: Any, case: Any, golds: list[str], class_keys: frozenset[str]) -> dict[str, Any]:
    """All channels' candidates of one query with features and labels."""
    from igraph_mcp.retrieve import explore, ranking
    from igraph_mcp.retrieve.analyze import analyze_query, cut_query
    from igraph_mcp.retrieve.boosts import Candidate, boost
    from igraph_mcp.retrieve.channels import count_definitions, fts_channel, graph_channel, named_channel
    from igraph_mcp.retrieve.query_parts import dense_texts, is_issue_shaped
    from igraph_mcp.store import graph
    from igraph_mcp.store.status import node_count

    db = explorer.db
    text, _ = cut_query(case.text)
    qa = analyze_query(text)
    count_definitions(db, qa)
    fts = fts_channel(db, qa, DEPTH, node_count(db))
    named = named_channel(db, qa, DEPTH)
    graphc = graph_channel(db, named, DEPTH)
    vectors, _note = explorer._query_vectors(dense_texts(qa.text), {})
    # The service's dense ranking: every part of the query searched and fused, as igraph_explore does.
    dense = explorer.dense_ranked(vectors)[0] if vectors else []
    ids = dict.fromkeys([n for n, _ in fts] + dense + named + graphc)
    rows = graph.nodes_by_ids(db, list(ids))
    issue = is_issue_shaped(qa.text)
    if issue and explore.ISSUE_TESTS_BY_PATH:  # as Explorer.explore: only a named repository test file counts
        qa.mentions_tests = ranking.names_non_source({row.path for row in rows.values()}, qa)
    fts_rank = {n: (i + 1, s) for i, (n, s) in enumerate(fts)}
    dense_rank = {n: (i + 1, 0.0) for i, n in enumerate(dense)}
    named_rank = {n: i + 1 for i, n in enumerate(named)}
    graph_rank = {n: i + 1 for i, n in enumerate(graphc)}
    qwords = set(qa.tokens)
    cands = []
    for nid in ids:
        row = rows.get(nid)
        if row is None:
            continue
        _, why = boost(Candidate(row.name, row.qualified_name, row.kind, row.path), qa)
        hit = (m.normalize_path(row.path), row.qualified_name)
        cands.append(
            {
                "id": nid,
                "path": row.path,
                "qn": row.qualified_name,
                "kind": row.kind,
                "fts": fts_rank.get(nid, (0, 0.0)),
                "dense": dense_rank.get(nid, (0, 0.0)),
                "named": named_rank.get(nid, 0),
                "graph": graph_rank.get(nid, 0),
                "why": why,
                "pw": len(ranking.path_words(row.path) & qwords),
                # the file gets ranking.ISSUE_NON_SOURCE (test, doc or example file the issue does not name)
                "ns": issue and ranking.is_non_source(row.path) and not ranking.names_non_source([row.path], qa),
                "gold": [i for i, g in enumerate(golds) if m.function_match(g, hit, class_keys)],
            }
        )
    # Every file of the index with path words the query uses (a file channel needs no symbol hit).
    files = []
    all_paths = svc_file_paths(svc)
    for path in all_paths:
        words = ranking.path_words(path) & qwords
        if words:
            files.append((path, sorted(words)))
    return {
        "qid": case.qid,
        "half": case.half,
        "gold_files": list(case.gold_files),
        "golds": golds,
        "n_tokens": len(qa.tokens),
        "idents": len(qa.identifiers),
        "cands": cands,
        "path_files": files,
        "n_files": len(all_paths),
    }


_FILE_PATHS: dict[int, list[str]] = {}


def svc_file_paths(svc: Any) -> list[str]:
    """The index's file paths (cached per service)."""
    from igraph_mcp.store import graph

    key = id(svc)
    if key not in _FILE_PATHS:
        _FILE_PATHS.clear()
        _FILE_PATHS[key] = sorted(graph.file_paths(svc.db).values())
    return _FILE_PATHS[key]


def main(argv: list[str] | None = None) -> int:
    """Dump candidates of every devset query of the given trees (both halves)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    ap.add_argument("--embed-cache", type=Path, default=bd.cache_dir() / "embed-cache.sqlite")
    args = ap.parse_args(argv)
    args.half, args.limit, args.fetch_tree, args.max_trees = "all", None, None, 0
    r.EMBED_CACHE = None if str(args.embed_cache) == "off" else args.embed_cache
    from igraph_mcp.retrieve.explore import Explorer

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8") as out:
        for task in r.devset_tasks(args, bd.cache_dir()):
            started = time.perf_counter()
            bm25 = Bm25Index(task.root)
            svc, seconds, _ = r.open_service(task.root)
            try:
                explorer = Explorer(svc.db, svc.config.retrieval, svc.dense_state())
                for case in task.cases:
                    golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, bm25.class_keys)
                    rec = dump_case(svc, explorer, case, golds, bm25.class_keys)
                    rec["tree"] = task.label
                    out.write(json.dumps(rec) + "\n")
                out.flush()
            finally:
                r.close_service(svc)
            total = time.perf_counter() - started
            print(
                f"{task.label}: {len(task.cases)} cases, index {seconds:.0f}s, total {total:.0f}s",
                file=sys.stderr,
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
