"""Measure ranking levers on the devset's tuning half: each tree indexed and opened once, every variant run on it.

    python benchmarks/tune_levers.py --trees 'xarray==0.16.2,Sphinx==4.0.3' \\
        --variant base: --variant graph1:graph_weight=1.0 --variant ident2:boosts.identifier=2.0,graph_weight=1.0
    python benchmarks/tune_levers.py --set multilang --variant base: --variant k30:rrf_k=30   # per language too

A variant is ``label:NAME=VALUE[,NAME=VALUE...]`` (fields of igraph_mcp/retrieve/params.py; nothing after the colon =
the shipped parameters). Only the tuning half is run: the held-out half is for reporting the chosen setting once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # the checkout on sys.path, the download cache
import metrics as m
import service_runs as sr
from baseline_bm25 import Bm25Index


def assignments_of(text: str) -> list[str]:
    """``a=1,b=(("c", 1.5), ("cpp", 1.5))`` -> its assignments: commas inside brackets belong to a value."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    return [a for a in out if a]


def main(argv: list[str] | None = None) -> int:
    """Run every variant on every tuning case; print one table per variant."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("devset", "multilang"), default="devset")
    ap.add_argument("--trees", default=None, help="devset: these trees (required); multilang: these repositories")
    ap.add_argument("--languages", default=None, help="multilang: only these languages, e.g. 'c,cpp'")
    ap.add_argument("--multilang-file", type=Path, default=common.multilang_path())
    ap.add_argument("--mirrors", type=Path, default=common.mirrors_path())
    ap.add_argument("--variant", action="append", required=True)
    ap.add_argument("--systems", default="hybrid,default")
    ap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    ap.add_argument(
        "--linked-only", action="store_true", help="only the cases whose text links to lines of a file (a permalink)"
    )
    ap.add_argument("--embed-cache", type=Path, default=common.cache_root() / "embed-cache.sqlite")
    args = ap.parse_args(argv)
    args.half, args.limit, args.fetch_tree, args.max_trees = "tuning", None, None, 0
    code = args.set == "multilang"
    if not code and not args.trees and not args.linked_only:
        ap.error("--trees is required for the devset (a comma list of tuning trees), or --linked-only")
    args.other_trees = None if args.trees else "none==0"  # --linked-only without --trees: every tuning tree
    args.repos = args.trees
    sr.EMBED_CACHE = args.embed_cache
    from igraph_mcp.retrieve.analyze import MAX_QUERY_CHARS

    sr.MAX_QUERY_CHARS = MAX_QUERY_CHARS
    systems = [s for s in args.systems.split(",") if s]
    variants = [v.partition(":") for v in args.variant]
    from igraph_mcp.retrieve.params import DEFAULT_PARAMS

    for label, _, assignments in variants:  # a misspelt name fails here, before any tree is indexed
        try:
            DEFAULT_PARAMS.with_assignments(assignments_of(assignments))
        except ValueError as exc:
            ap.error(f"--variant {label}: {exc}")
    records: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in variants}
    tokens: dict[str, list[int]] = {label: [] for label, _, _ in variants}
    tasks = sr.multilang_tasks(args, common.cache_root()) if code else sr.devset_tasks(args, common.cache_root())
    match: m.Matcher = m.code_function_match if code else m.function_match
    if args.linked_only:
        from igraph_mcp.retrieve.analyze import line_links

        tasks = [t for t in (sr.only_cases(t, lambda c: bool(line_links(c.text))) for t in tasks) if t.cases]
    for task in tasks:
        bm25 = Bm25Index(task.root, bd.extract_code_symbols) if code else Bm25Index(task.root)
        class_keys = frozenset(m.code_key(k) for k in bm25.class_keys) if code else bm25.class_keys
        svc, seconds, _ = sr.open_service(task.root)
        print(f"{task.label}: {len(task.cases)} cases, opened in {seconds:.0f}s", file=sys.stderr, flush=True)
        for label, _, assignments in variants:
            params = svc.retrieval_params.with_assignments(assignments_of(assignments))
            for case in task.cases:
                golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, class_keys, match)
                for system in systems:
                    if system == "default":
                        ranking, size = sr.default_call(svc, case.text, params)
                        tokens[label].append(size.text)
                    else:
                        ranking = sr.service_search(svc, case.text, system, params=params)
                    scores = m.devset_metrics(
                        case.gold_files, golds, ranking.files, ranking.functions, class_keys, match
                    )
                    if system == "default" and golds:
                        found = [any(match(g, h, class_keys) for h in ranking.functions) for g in golds]
                        scores["holds_edited"] = float(any(found))
                    records[label].append({"system": system, "metrics": scores, "language": case.language})
        sr.close_service(svc)
    keys = ("file_acc@1", "file_acc@5", "file_acc@10", "file_mrr", "func_acc@5", "func_acc@10", "holds_edited")
    print("variant/system".ljust(28) + "".join(k.rjust(13) for k in keys) + "    n  tok")
    languages = sorted({x["language"] for x in records[variants[0][0]]}) if code else []
    groups = [(lang, lang) for lang in languages] + [("", "")]
    for label, _, _ in variants:
        for (language, name), system in ((g, s) for g in groups for s in systems):
            recs = [x["metrics"] for x in records[label] if x["system"] == system and language in ("", x["language"])]
            means = m.mean_metrics(recs)
            sizes = sorted(tokens[label])
            tok = str(sizes[len(sizes) // 2]) if system == "default" and sizes else "-"
            cells = "".join(("-" if means.get(k) is None else f"{100 * means[k]:.1f}").rjust(13) for k in keys)
            row = f"{label}/{system}" + (f" {name}" if name else "")
            print(row.ljust(28) + cells + f" {len(recs):4d}  {tok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
