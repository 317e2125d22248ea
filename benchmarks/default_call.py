"""How big should the default igraph_explore call be? Sweep its sizes on the devset and print what each costs.

    python benchmarks/default_call.py --half tuning --trees "$T"
    python benchmarks/default_call.py --half tuning --trees "$T" --variants 5/5/8,10/5/10,10/10/10

A variant is ``hits/snippets/neighbours[/lines]``: ranked symbols returned, how many of them carry a source snippet
(the rest are one line: name, place, signature), how many graph neighbours are listed, and optionally how many lines
a snippet shows at most (default: the configured ``snippet_lines``). For each it prints the share
of issues whose answer holds a function the fix edits (any / all of them), function Acc@10 of the answer's list
(hits, then neighbours; every edited function within the first 10, as retrieval.py counts it) and the median
and 90th-percentile tokens of the rendered text an agent reads, the median tokens of its structuredContent (the
compact form MCP clients get) and of both together. Where the answer holds an edited function: "in hits" is the
share held by the hits alone (the rest only by a neighbour), and "part hits" the mean number of hits per answer found
through a part of a long definition (``partLines``; docs/ranking.md says what they cost).

Only the tuning half chooses defaults (issue 11's protocol); run the held-out half to confirm a choice, not to make it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # the checkout on sys.path, the download cache
import metrics as m
import service_runs as sr
from baseline_bm25 import Bm25Index

DEFAULT_VARIANTS = "5/5/8,5/5/10,7/5/10,8/5/10,10/5/10,10/4/10,10/6/10,12/5/10,8/8/10,10/10/10"


Variant = tuple[int, ...]


def parse_variant(text: str) -> Variant:
    """'10/5/10' -> (hits, snippet hits, neighbours); '10/3/10/8' adds snippet lines."""
    values = tuple(int(x) for x in text.split("/"))
    if len(values) not in (3, 4):
        raise SystemExit(f"a variant is hits/snippets/neighbours[/lines], not {text!r}")
    return values


@dataclass(frozen=True)
class Answer:
    """What one default call put where: its hits and neighbours as (path, qualified name), its hits found
    through a part of a long definition, and the same-named definitions its hits list (``alsoAt``)."""

    hits: list[tuple[str, str]]
    neighbours: list[tuple[str, str]]
    part_hits: int
    also: list[tuple[str, str]]

    @property
    def ranked(self) -> list[tuple[str, str]]:
        """Hits, then neighbours, then the places the hits list (named, but not ranked: service_runs.also_places)."""
        return self.hits + self.neighbours + self.also


def run_variant(svc: Any, query: str, variant: Variant) -> tuple[Answer, sr.AnswerTokens]:
    """One default call (graph hops from the config) at this size: (where it put what, tokens of its answer)."""
    hits, snippets, neighbours, *lines = variant
    assignments = [f"snippet_hits={snippets}", f"neighbour_limit={neighbours}"] + [f"snippet_lines={n}" for n in lines]
    params = svc.retrieval_params.with_assignments(assignments)
    result, tokens = sr.default_answer(svc, query, params, top_k=hits)
    return answer_of(result), tokens


def answer_of(result: Any) -> Answer:
    """The places of an ExploreResult's hits and neighbours."""
    return Answer(
        [(h.filePath, h.qualifiedName) for h in result.hits],
        [(n.filePath, n.qualifiedName) for n in result.neighbours],
        sum(1 for h in result.hits if h.partLines is not None),
        sr.also_places(result.hits),
    )


def main() -> None:
    """Sweep the variants over the chosen trees and half; print one row per variant."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", required=True, help="devset trees, e.g. 'xarray==0.16.2,Django==2.2.28'")
    ap.add_argument("--half", choices=("tuning", "heldout", "all"), default="tuning")
    ap.add_argument("--variants", default=DEFAULT_VARIANTS, help="comma list of hits/snippets/neighbours")
    ap.add_argument("--devset", type=Path, default=bd.DEFAULT_DEVSET)
    args = ap.parse_args()
    variants = [parse_variant(v) for v in args.variants.split(",")]
    args.other_trees = None
    args.limit = None
    args.fetch_tree = None
    cache = common.cache_root()
    sr.EMBED_CACHE = cache / "embed-cache.sqlite"
    # (half, variant) -> per-issue values
    holds: dict[tuple[str, Variant], list[float]] = defaultdict(list)
    holds_all: dict[tuple[str, Variant], list[float]] = defaultdict(list)
    acc10: dict[tuple[str, Variant], list[float]] = defaultdict(list)
    in_hits: dict[tuple[str, Variant], list[float]] = defaultdict(list)  # of the answers that hold one
    part_hits: dict[tuple[str, Variant], list[float]] = defaultdict(list)
    tokens: dict[tuple[str, Variant], list[sr.AnswerTokens]] = defaultdict(list)
    for task in sr.devset_tasks(args, cache):
        bm25 = Bm25Index(task.root)
        svc, _, _ = sr.open_service(task.root)
        try:
            for case in task.cases:
                golds = m.reachable_golds(case.gold_functions, bm25.symbol_keys, bm25.class_keys)
                if not golds:
                    continue
                for variant in variants:
                    got, n_tokens = run_variant(svc, case.text, variant)
                    found = [any(m.function_match(g, h, bm25.class_keys) for h in got.ranked) for g in golds]
                    ranks = m.function_ranks(golds, got.ranked, bm25.class_keys)
                    key = (case.half, variant)
                    holds[key].append(float(any(found)))
                    if any(found):
                        hit = any(m.function_match(g, h, bm25.class_keys) for g in golds for h in got.hits)
                        in_hits[key].append(float(hit))
                    part_hits[key].append(float(got.part_hits))
                    holds_all[key].append(float(all(found)))
                    acc10[key].append(m.strict_accuracy(ranks, 10))
                    tokens[key].append(n_tokens)
        finally:
            sr.close_service(svc)
        print(f"{task.label}: {len(task.cases)} issues", file=sys.stderr, flush=True)
    head = (
        "half",
        "hits/snip/nbrs",
        "issues",
        "holds",
        "all",
        "fAcc@10",
        "tok p50",
        "tok p90",
        "stok p50",
        "tok+s p50",
        "in hits",
        "part hits",
    )
    widths = (8, 15, 6, 6, 6, 8, 8, 8, 9, 10, 7, 9)
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, widths, strict=True)))
    for half in ("tuning", "heldout"):
        for variant in variants:
            key = (half, variant)
            if not holds[key]:
                continue
            toks = sorted(t.text for t in tokens[key])
            p90 = toks[min(len(toks) - 1, int(0.9 * len(toks)))]
            structured = statistics.median(t.structured for t in tokens[key])
            both = statistics.median(t.both for t in tokens[key])
            print(
                f"{half:>8} {'/'.join(map(str, variant)):>15} {len(holds[key]):>6}"
                f" {100 * statistics.fmean(holds[key]):>6.1f} {100 * statistics.fmean(holds_all[key]):>6.1f}"
                f" {100 * statistics.fmean(acc10[key]):>8.1f} {statistics.median(toks):>8.0f} {p90:>8}"
                f" {structured:>9.0f} {both:>10.0f}"
                f" {100 * statistics.fmean(in_hits[key] or [0.0]):>7.1f} {statistics.fmean(part_hits[key]):>9.2f}"
            )


if __name__ == "__main__":
    main()
