"""Retrieval-quality benchmark: BM25 baseline and the igraph-mcp service on two query sets.

    python benchmarks/retrieval.py                        # both sets, both devset halves, default trees
    python benchmarks/retrieval.py --set devset --half tuning --systems bm25,hybrid --json out.json
    python benchmarks/retrieval.py --set multilang --half tuning   # per language: C, C++, Java, Rust, ...

Sets: ``devset`` (SWE-bench issues -> gold files/functions) and ``docstrings`` (first docstring
paragraph -> the symbol it documented, on trees with docstrings stripped). The devset is split once
into a tuning and a held-out half (devset_split.json); tables are printed per half. ``multilang`` (issues in
other languages, one tree per instance at its base commit, halves by repository) prints one row per half,
language and system. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # the checkout on sys.path, the download cache
import metrics as m
import service_runs as sr
from baseline_bm25 import Bm25Index, Ranking
from service_runs import TreeTask

ALL_SYSTEMS = ("bm25", "fts", "dense", "hybrid", "hybrid+graph", "default", "hybrid-hand", "default-hand", "fts-hand")
DEFAULT_SYSTEMS = ("bm25", "hybrid", "default")


def run_task(task: TreeTask, systems: list[str], log: Callable[[str], None]) -> dict[str, Any]:
    """Index one tree, run every case through every system, and return per-query records and timings."""
    code = task.set_name == "multilang"
    bm25 = Bm25Index(task.root, bd.extract_code_symbols) if code else Bm25Index(task.root)
    # other languages: our parser's outline names against the devset's spelling (metrics.code_function_match)
    match: m.Matcher = m.code_function_match if code else m.function_match
    class_keys = frozenset(m.code_key(k) for k in bm25.class_keys) if code else bm25.class_keys
    timings: dict[str, float] = {"bm25_build_s": bm25.build_seconds}
    searchers: dict[str, Callable[[str], Ranking]] = {}
    if "bm25" in systems:
        searchers["bm25"] = lambda q: bm25.search(q, top_k=sr.TOP_K)
    log(
        f"[{task.set_name}] {task.label}: {len(task.cases)} queries, {bm25.documents} bm25 docs "
        f"(built in {bm25.build_seconds:.1f}s)"
    )
    svc = None
    index_summary: dict[str, Any] = {}
    tokens: dict[str, sr.AnswerTokens] = {}  # query text -> tokens of the default call's answer
    if any(s.removesuffix("-hand") in sr.SERVICE_SYSTEMS or s.startswith("default") for s in systems):
        repo_name = sr.store_repo_name(task.set_name, task.label) if sr.STORE else None
        svc, timings["service_index_s"], index_summary = sr.open_service(task.root, repo_name)
        log(f"    service index {timings['service_index_s']:.1f}s: {_index_brief(index_summary)}")
        for system in (s for s in systems if s in sr.SERVICE_SYSTEMS):
            searchers[system] = functools.partial(sr._service_search_as, svc, system)
        if "default" in systems:

            def run_default(query: str, service: Any = svc) -> Ranking:
                ranking, tokens[query] = sr.default_call(service, query)
                return ranking

            searchers["default"] = run_default
        for system in ("hybrid-hand", "fts-hand"):
            if system in systems:

                def run_hand(query: str, service: Any = svc, base: str = system.removesuffix("-hand")) -> Ranking:
                    return sr.service_search(service, query, base, params=sr.params_of(service, hand=True))

                searchers[system] = run_hand
        if "default-hand" in systems:

            def run_default_hand(query: str, service: Any = svc) -> Ranking:
                ranking, tokens["hand:" + query] = sr.default_call(service, query, sr.params_of(service, hand=True))
                return ranking

            searchers["default-hand"] = run_default_hand
    records: list[dict[str, Any]] = []
    dropped = 0
    unreachable: list[str] = []
    try:
        for case in task.cases:
            golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, class_keys, match)
            dropped += len(case.gold_functions) - len(golds)
            unreachable += [g for g in case.gold_functions if g not in golds]
            if task.set_name == "docstrings" and not golds:
                continue
            for system, search in searchers.items():
                rec = _evaluate(task, case, golds, system, search, class_keys, match)
                key = "hand:" + case.text if system == "default-hand" else case.text
                if system.startswith("default") and key in tokens:
                    answer = tokens.pop(key)
                    rec["tokens"], rec["structured_tokens"] = answer.text, answer.structured
                    rec["total_tokens"] = answer.both
                    if golds:
                        ranked = rec["_ranked"]
                        found = [any(match(g, h, class_keys) for h in ranked) for g in golds]
                        rec["metrics"]["holds_edited"] = float(any(found))
                        rec["metrics"]["holds_all"] = float(all(found))
                rec.pop("_ranked", None)
                records.append(rec)
    finally:
        if svc is not None:
            sr.close_service(svc)
    headline = ("acc@1", "mrr@10") if task.set_name == "docstrings" else ("file_acc@5", "func_acc@10")
    for system in searchers:
        means = m.mean_metrics([r["metrics"] for r in records if r["system"] == system])
        log(f"    {system}: " + " ".join(f"{k}={_pct(means.get(k))}" for k in headline))
    return {
        "tree": task.label,
        "set": task.set_name,
        "root": str(task.root),
        "timings": timings,
        "unreachable_gold_functions": dropped,
        "gold_functions": sum(len(c.gold_functions) for c in task.cases),
        "unreachable": unreachable,
        "language": task.cases[0].language if task.cases else "",
        "service_index": index_summary,
        "records": records,
    }


def _evaluate(
    task: TreeTask,
    case: sr.Case,
    golds: list[str],
    system: str,
    search: Callable[[str], Ranking],
    class_keys: frozenset[str],
    match: m.Matcher = m.function_match,
) -> dict[str, Any]:
    started = time.perf_counter()
    error = None
    try:
        ranking = search(case.text)
    except Exception as exc:  # one failing query is recorded and counted, not fatal
        ranking, error = Ranking([], []), f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - started
    if task.set_name == "docstrings":
        scores = m.docstring_metrics(golds[0], ranking.functions, class_keys)
    else:
        scores = m.devset_metrics(case.gold_files, golds, ranking.files, ranking.functions, class_keys, match)
    return {
        "tree": task.label,
        "qid": case.qid,
        "half": case.half,
        "language": case.language,
        "_ranked": ranking.functions,
        "system": system,
        "seconds": seconds,
        "error": error,
        "metrics": scores,
        # Ten of each, so a miss can be read off the record (where the gold landed, if anywhere near).
        "top_functions": [f"{p}::{q}" for p, q in ranking.functions[:10]],
        "top_files": ranking.files[:10],
    }


def _index_brief(summary: dict[str, Any]) -> str:
    keys = ("files", "symbols", "edges", "embedded", "embedReused", "parseErrors", "embedNote")
    return " ".join(f"{k}={summary[k]}" for k in keys if summary.get(k) not in (None, ""))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def summarize(results: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Average metrics per (set, system) over all queries of that set; the devset per half, docstrings per tree."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for tree in results:
        for rec in tree["records"]:
            grouped[(tree["set"], rec["system"])].append(rec)
            if rec.get("half"):
                grouped[(f"{tree['set']}/{rec['half']}", rec["system"])].append(rec)
            if rec.get("language"):  # multilang: per half and language, and per language over both halves
                grouped[(f"{tree['set']}/{rec['half']}/{rec['language']}", rec["system"])].append(rec)
                grouped[(f"{tree['set']}/all/{rec['language']}", rec["system"])].append(rec)
            elif tree["set"] == "docstrings":
                grouped[(f"docstrings/{tree['tree']}", rec["system"])].append(rec)
    summary: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (set_name, system), recs in sorted(grouped.items()):

        def median_of(key: str, recs: list[dict[str, Any]] = recs) -> int | None:
            sizes = sorted(r[key] for r in recs if key in r)  # runs from before a column was added lack it
            return sizes[len(sizes) // 2] if sizes else None

        times = sorted(r["seconds"] for r in recs)
        summary[set_name][system] = {
            "n": len(recs),
            "errors": sum(r["error"] is not None for r in recs),
            "ms_per_query": 1000 * sum(times) / len(recs),
            "ms_p50": 1000 * times[len(times) // 2],
            "median_tokens": median_of("tokens"),
            "median_structured_tokens": median_of("structured_tokens"),
            "median_total_tokens": median_of("total_tokens"),
            "metrics": m.mean_metrics([r["metrics"] for r in recs]),
        }
    return dict(summary)


def format_table(set_name: str, rows: dict[str, dict[str, Any]], systems: list[str]) -> str:
    """Render one set's summary: rows = systems, columns = metrics in percent, n and ms/query."""
    columns = m.dedupe(c for row in rows.values() for c in row["metrics"])
    header = ["system", *columns, "n", "err", "ms/q", "p50", "tok", "stok", "tok+s"]
    body = []
    for system in (s for s in systems if s in rows):
        row = rows[system]
        cells = [_pct(row["metrics"].get(c)) for c in columns]
        toks = [row.get(f"median_{k}tokens") for k in ("", "structured_", "total_")]
        body.append(
            [
                system,
                *cells,
                str(row["n"]),
                str(row["errors"]),
                f"{row['ms_per_query']:.0f}",
                f"{row['ms_p50']:.0f}",
                *("-" if t is None else str(t) for t in toks),
            ]
        )
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [f"== {set_name} =="]
    for r in [header, *body]:
        lines.append(
            "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        )
    return "\n".join(lines)


def print_tables(summary: dict[str, dict[str, dict[str, Any]]], systems: list[str]) -> None:
    """Print one full table per set and half (multilang's per-language rows go to ``language_table`` instead)."""
    for set_name, rows in summary.items():
        if set_name.count("/") < 2:
            print(format_table(set_name, rows, systems))
            print()


LANGUAGE_COLUMNS = (
    ("file@1", "file_acc@1"),
    ("file@5", "file_acc@5"),
    ("file@10", "file_acc@10"),
    ("func@10", "func_acc@10"),
    ("holds", "holds_edited"),
)


def language_table(summary: dict[str, dict[str, dict[str, Any]]], systems: list[str]) -> str:
    """Multilang's figures in one table: a row per half, language (then all of them) and system, in percent.

    ``n`` counts issues (function columns use those with a gold function our index holds); ``holds`` is the share
    of issues whose default answer (hits and neighbours) holds a function the fix edits (default system only).
    """
    header = ["half", "language", "system", "n", *(name for name, _ in LANGUAGE_COLUMNS)]
    body = []
    halves = [h for h in ("tuning", "heldout") if any(k.startswith(f"multilang/{h}/") for k in summary)]
    halves += ["all"] if len(halves) == 2 else []  # both halves together only when both ran
    for half in halves:
        languages = sorted(k.split("/")[2] for k in summary if k.startswith(f"multilang/{half}/"))
        keys = [(f"multilang/{half}/{lang}", lang) for lang in languages]
        keys.append(("multilang" if half == "all" else f"multilang/{half}", "all"))
        for key, language in keys:
            rows = summary.get(key, {})
            for system in (s for s in systems if s in rows):
                means = rows[system]["metrics"]
                cells = [_pct(means.get(col)) for _, col in LANGUAGE_COLUMNS]
                body.append([half, language, system, str(rows[system]["n"]), *cells])
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = ["== multilang: per language (%) =="]
    for r in [header, *body]:
        lines.append(
            "  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        )
    return "\n".join(lines)


def reachability(results: list[dict[str, Any]]) -> str:
    """Per language: gold functions our index holds under some name, of all gold functions (the rest are listed)."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missing: list[str] = []
    for tree in (t for t in results if t["set"] == "multilang"):
        counts = totals[tree.get("language", "")]
        counts[0] += tree.get("gold_functions", 0) - tree["unreachable_gold_functions"]
        counts[1] += tree.get("gold_functions", 0)
        missing += [f"{tree['tree']}: {g}" for g in tree.get("unreachable", [])]
    line = "gold functions our index holds: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(totals.items()))
    return line + "".join(f"\n  not held: {g}" for g in missing)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--set", choices=("devset", "docstrings", "both", "multilang"), default="both", help="both: devset, docstrings"
    )
    ap.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS), help=f"comma list of {', '.join(ALL_SYSTEMS)}")
    ap.add_argument("--half", choices=("tuning", "heldout", "all"), default="all", help="devset/multilang half to run")
    ap.add_argument(
        "--multilang-file",
        type=Path,
        default=common.multilang_path(),
        help="multilang instances (default: benchmarks/multilang/instances.jsonl when it exists, else "
        "shared/devset/multilang_dev.jsonl)",
    )
    ap.add_argument("--mirrors", type=Path, default=common.mirrors_path(), help="multilang: the fetched git mirrors")
    ap.add_argument("--repos", default=None, help="multilang: only these repositories or instance ids (comma list)")
    ap.add_argument("--languages", default=None, help="multilang: only these languages, e.g. 'java,rust'")
    ap.add_argument(
        "--embed-cache",
        type=Path,
        default=common.cache_root() / "embed-cache.sqlite",
        help="vectors shared across trees and runs; 'off' to disable",
    )
    ap.add_argument("--max-trees", type=int, default=bd.DEFAULT_MAX_TREES, help="devset trees to use")
    ap.add_argument("--trees", default=None, help="explicit devset trees, e.g. 'xarray==0.16.2,Django==2.2.28'")
    ap.add_argument("--other-trees", default=None, help="every devset tree except these (same syntax as --trees)")
    ap.add_argument("--limit", type=int, default=None, help="at most N queries per set (round-robin over trees)")
    ap.add_argument(
        "--doc-projects",
        default=None,
        help="docstring set on these sdists instead of the evaluation three, e.g. 'attrs==26.1.0' (for tuning "
        "one-line queries without touching the evaluation set)",
    )
    ap.add_argument("--docstring-sample", type=int, default=bd.DEFAULT_DOCSTRING_SAMPLE, help="queries per project")
    ap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    ap.add_argument(
        "--fetch-tree",
        type=Path,
        default=None,
        help="default: fetch_tree.py next to --devset (multilang: fetch_tree.py or fetch_multilang_tree.py next to "
        "--multilang-file, else the shared one)",
    )
    ap.add_argument("--json", type=Path, default=None, help="write summary + per-query records here")
    ap.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="index into this postgresql:// database instead of each tree's SQLite file (one repository per tree, "
        "named <set>-<tree>); the embedding cache supplies the vectors the SQLite indexes already hold",
    )
    ap.add_argument(
        "--compare",
        type=Path,
        nargs=2,
        default=None,
        metavar=("A.json", "B.json"),
        help="print two --json runs side by side (e.g. SQLite and --store), with B - A per measure; a side may be "
        "several files, comma-separated",
    )
    ap.add_argument(
        "--pg-exact-below",
        type=int,
        default=None,
        metavar="N",
        help="--store: exact vector scan below N vectors instead of the store's threshold (0 = HNSW always), to "
        "measure the approximation on trees smaller than the threshold",
    )
    ap.add_argument("--parity", type=float, default=1.0, help="--compare: flag a difference above this many points")
    ap.add_argument("--reindex", action="store_true", help="full rebuild of each index (vectors reused)")
    ap.add_argument(
        "--no-part-vectors",
        action="store_true",
        help="the dense channel reads definitions' own vectors only, as if the parts of long definitions had none",
    )
    ap.add_argument(
        "--no-short-vectors",
        type=int,
        default=0,
        metavar="LINES",
        help="the dense channel leaves out functions and methods of at most LINES lines, as if they had no vector",
    )
    ap.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        default=None,
        metavar="RUN.json",
        help="print the tables of earlier --json runs taken together (a tree in two runs counts once: the last)",
    )
    ap.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="tuning: a retrieval parameter (igraph_mcp/retrieve/params.py), e.g. graph_weight=1.0 or "
        "boosts.identifier=2.0 (repeatable)",
    )
    args = ap.parse_args(argv)
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(args.systems) - set(ALL_SYSTEMS))
    if unknown:
        ap.error(f"unknown systems {unknown}; choose from {', '.join(ALL_SYSTEMS)}")
    return args


def _service_available() -> str | None:
    try:
        from igraph_mcp.service import IGraphService  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one table per set plus per-tree timings."""
    args = parse_args(argv)
    if args.merge:
        return merge_runs(args.merge, args.systems)
    if args.compare:
        return compare_runs(*args.compare, args.systems, args.parity)
    sr.REINDEX = args.reindex
    if args.no_part_vectors:
        sr.without_part_vectors()
    if args.no_short_vectors:
        sr.without_short_vectors(args.no_short_vectors)
    sr.STORE = args.store
    if args.pg_exact_below is not None:
        from igraph_mcp.store import pg_vectors

        pg_vectors.EXACT_BELOW = args.pg_exact_below  # read at every query
    sr.EMBED_CACHE = None if str(args.embed_cache) == "off" else args.embed_cache

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    missing = _service_available() if any(s != "bm25" for s in args.systems) else None
    if missing is not None:
        log(f"igraph_mcp.service not importable ({missing}); running only the BM25 baseline")
        args.systems = [s for s in args.systems if s == "bm25"]
    else:
        from igraph_mcp.explore_request import MAX_TOKENS_MAX
        from igraph_mcp.retrieve.analyze import MAX_QUERY_CHARS as service_limit

        sr.MAX_QUERY_CHARS, sr.MAX_TOKENS = service_limit, MAX_TOKENS_MAX
    if not args.systems:
        log("no system left to run")
        return 2
    if args.param:
        from igraph_mcp.retrieve.params import DEFAULT_PARAMS

        try:
            DEFAULT_PARAMS.with_assignments(args.param)  # refuse a misspelt name before any tree is indexed
        except ValueError as exc:
            log(f"--param: {exc}")
            return 2
        sr.PARAMS = tuple(args.param)
    cache = common.cache_root()
    tasks: list[TreeTask] = []
    if args.set in ("devset", "both"):
        tasks += sr.devset_tasks(args, cache)
    if args.set in ("docstrings", "both"):
        tasks += sr.docstring_tasks(args, cache)
    if args.set == "multilang":
        tasks += sr.multilang_tasks(args, cache)
    started = time.perf_counter()
    results = []
    for task in tasks:
        results.append(run_task(task, args.systems, log))
        if args.json:  # after every tree, so a long run that is stopped still leaves its figures
            _write_json(args, results)
    summary = summarize(results)
    print_tables(summary, args.systems)
    if args.set == "multilang":
        print(language_table(summary, args.systems))
        print(reachability(results))
    print(
        "timings (s): "
        + "; ".join(f"{r['tree']} " + " ".join(f"{k}={v:.1f}" for k, v in r["timings"].items()) for r in results)
    )
    dropped = sum(r["unreachable_gold_functions"] for r in results if r["set"] in ("devset", "multilang"))
    elapsed = time.perf_counter() - started
    print(f"gold functions absent from the trees (dropped): {dropped}; total {elapsed:.0f}s")
    if args.json:
        _write_json(args, results)
    return 0


def joined_runs(paths: list[Path]) -> list[dict[str, Any]]:
    """Several --json runs' trees, joined per tree; a (query, system) measured twice counts once, from the later."""
    by_tree: dict[tuple[str, str], dict[str, Any]] = {}
    for path in paths:
        for tree in json.loads(path.read_text(encoding="utf-8"))["trees"]:
            key = (tree["set"], tree["tree"])
            if key not in by_tree:
                by_tree[key] = tree
                continue
            fresh = {(r["qid"], r["system"]) for r in tree["records"]}
            kept = [r for r in by_tree[key]["records"] if (r["qid"], r["system"]) not in fresh]
            by_tree[key] = {**tree, "records": kept + tree["records"]}
    return list(by_tree.values())


def merge_runs(paths: list[Path], systems: list[str]) -> int:
    """Tables of several runs' per-query records taken together, one row per system as in a single run.

    Records are joined per tree; a (query, system) measured in two runs counts once, from the later file.
    """
    results = joined_runs(paths)
    summary = summarize(results)
    print_tables(summary, systems)
    if any(t["set"] == "multilang" for t in results):
        print(language_table(summary, systems))
        print(reachability(results))
    print(f"{len(results)} trees: " + ", ".join(t["tree"] for t in results))
    return 0


def compare_runs(a_path: Path, b_path: Path, systems: list[str], parity: float) -> int:
    """Two runs' summaries side by side per set and system: A, B and B - A per measure, in points.

    A side may be several --json files, comma-separated (joined as --merge joins them). Only the queries both sides
    answered count (joined on tree, query and system), so a run stopped early compares on what it measured. Exit 1
    when some measure differs by more than ``parity`` points.
    """
    runs = [joined_runs([Path(p) for p in str(side).split(",") if p]) for side in (a_path, b_path)]
    keys = [{(t["set"], t["tree"], r["qid"], r["system"]) for t in run for r in t["records"]} for run in runs]
    both = keys[0] & keys[1]
    kept = [
        [
            {**t, "records": [r for r in t["records"] if (t["set"], t["tree"], r["qid"], r["system"]) in both]}
            for t in run
        ]
        for run in runs
    ]
    summaries = [summarize(run) for run in kept]
    tops = [
        {(t["set"], t["tree"], r["qid"], r["system"]): r["top_functions"][:3] for t in run for r in t["records"]}
        for run in kept
    ]
    worst = 0.0
    names = [" + ".join(Path(p).name for p in str(side).split(",") if p) for side in (a_path, b_path)]
    print(f"A = {names[0]}, B = {names[1]}; figures in %, diff = B - A in points; * = more than {parity:g}")
    for set_name in summaries[0]:
        lines = []
        for system in (s for s in systems if s in summaries[0][set_name]):
            row_a, row_b = summaries[0][set_name][system], summaries[1].get(set_name, {}).get(system)
            if row_b is None:
                continue
            ms = f"ms/q {row_a['ms_per_query']:.0f} / {row_b['ms_per_query']:.0f}"
            tok = f"tok {row_a['median_tokens'] or '-'} / {row_b['median_tokens'] or '-'}"
            tok += f", tok+s {row_a.get('median_total_tokens') or '-'} / {row_b.get('median_total_tokens') or '-'}"
            mine = [k for k in both if k[3] == system and (k[0] == set_name or set_name.startswith(f"{k[0]}/"))]
            mine = [k for k in mine if _in_table(set_name, k, kept[0])]
            same = sum(tops[0][k] == tops[1][k] for k in mine)
            lines.append(
                f"  {system} (n {row_a['n']}, err {row_a['errors']} / {row_b['errors']}, same top 3 "
                f"{same}/{len(mine)}, {ms}, {tok})"
            )
            for measure, value in row_a["metrics"].items():
                other = row_b["metrics"].get(measure)
                if value is None or other is None:
                    continue
                diff = 100 * (other - value)
                worst = max(worst, abs(diff))
                flag = " *" if abs(diff) > parity + 1e-9 else ""
                lines.append(f"    {measure:<14} {100 * value:6.1f} {100 * other:6.1f} {diff:+6.1f}{flag}")
        if lines:
            print(f"== {set_name} ==")
            print("\n".join(lines))
    print(f"largest difference: {worst:.1f} points ({'within' if worst <= parity + 1e-9 else 'OVER'} {parity:g})")
    return 0 if worst <= parity + 1e-9 else 1


def _in_table(set_name: str, key: tuple[str, str, str, str], run: list[dict[str, Any]]) -> bool:
    """Whether the record ``key`` (set, tree, qid, system) counts in table ``set_name`` (as ``summarize`` groups)."""
    set_of, tree, qid, _ = key
    if set_name == set_of:
        return True
    part = set_name.split("/", 1)[1]
    if set_of == "docstrings":
        return part == tree
    half = next(
        r.get("half") for t in run if t["tree"] == tree and t["set"] == set_of for r in t["records"] if r["qid"] == qid
    )
    return part == half


def _write_json(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    args.json.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "summary": summarize(results),
        "trees": results,
    }
    args.json.write_text(json.dumps(payload, indent=1), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
