"""How to fuse the rankings of a workspace's repositories: docstring queries of several projects, one workspace.

    python benchmarks/workspace_fusion.py --tree ~/.cache/igraph-mcp-bench/devset/trees/requests-2.32.3 \
        --tree ~/.cache/igraph-mcp-bench/devset/trees/flask-2.2.5 [--sample 100]

Each tree is copied with its docstrings stripped (``bench_data.build_docstring_tree``) and indexed with the default
embedder; each query (a stripped docstring) is answered by every repository's own stages, as the workspace does,
and the per-repository lists are merged by each fusion method. Printed per method: Acc@1, Acc@5 and MRR@10 of the
documented symbol, over all queries and per project; ``alone`` is the gold repository searched by itself (the
ceiling: fusion can only add competitors); ``joint`` is one index holding every tree side by side (what one
repository of all the code would rank).
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import common
from bench_data import _keep_indexed_golds, build_docstring_tree, sample_queries

from igraph_mcp.explore_request import MAX_TOKENS_MAX
from igraph_mcp.models import Hit
from igraph_mcp.service import IGraphService
from igraph_mcp.workspace_fusion import Order, by_score


def by_rrf(scores: Mapping[str, Sequence[float]], k: int = 60) -> list[tuple[str, int]]:
    """Rank-only RRF over the repositories' lists (scores ignored)."""
    flat = [(1.0 / (k + i + 1), name, i) for name, values in scores.items() for i in range(len(values))]
    return [(name, i) for _, name, i in sorted(flat, key=lambda t: (-t[0], t[2]))]


def by_max_norm(scores: Mapping[str, Sequence[float]]) -> list[tuple[str, int]]:
    """Scores divided by each repository's best score."""
    flat = [(s / (v[0] or 1.0), name, i) for name, v in scores.items() for i, s in enumerate(v)]
    return [(name, i) for _, name, i in sorted(flat, key=lambda t: (-t[0], t[2]))]


def by_minmax(scores: Mapping[str, Sequence[float]]) -> list[tuple[str, int]]:
    """Min-max normalised scores per repository."""
    flat = []
    for name, v in scores.items():
        lo, hi = (min(v), max(v)) if v else (0.0, 1.0)
        flat += [((s - lo) / ((hi - lo) or 1.0), name, i) for i, s in enumerate(v)]
    return [(name, i) for _, name, i in sorted(flat, key=lambda t: (-t[0], t[2]))]


METHODS: dict[str, Order] = {"score": by_score, "rrf": by_rrf, "max-norm": by_max_norm, "min-max": by_minmax}


def _rank(order: list[tuple[str, int]], hits: Mapping[str, list[Hit]], repo: str, gold: str) -> int | None:
    path, qname = gold.split("::", 1)
    for pos, (name, i) in enumerate(order[:10], 1):
        if i >= len(hits[name]):
            break
        h = hits[name][i]
        if name == repo and h.filePath == path and h.qualifiedName == qname:
            return pos
    return None


def main() -> None:
    """Prepare, index, answer, print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", required=True, help="an unpacked project tree (repeat)")
    ap.add_argument("--sample", type=int, default=100, help="queries per project")
    args = ap.parse_args()
    work = common.cache_root() / "workspace_fusion"
    services: dict[str, IGraphService] = {}
    queries: list[tuple[str, str, str]] = []
    for tree in map(Path, args.tree):
        name = tree.name.split("-")[0]
        dest = work / name
        found = build_docstring_tree(tree, dest, tree.name)
        queries += [(name, q.query, q.gold) for q in sample_queries(_keep_indexed_golds(found, dest), args.sample)]
        services[name] = IGraphService(dest)
        services[name].index()
    joint = _joint_index(work, list(services))
    ranks: dict[str, list[tuple[str, int | None]]] = {m: [] for m in [*METHODS, "alone", "joint"]}
    for repo, query, gold in queries:
        # the workspace's own call: every repository answers topK hits of its own, uncut
        hits = {name: svc.explore(query, max_tokens=MAX_TOKENS_MAX).hits for name, svc in services.items()}
        scores = {name: [h.score for h in hs] for name, hs in hits.items()}
        for method, order in METHODS.items():
            ranks[method].append((repo, _rank(order(scores), hits, repo, gold)))
        ranks["alone"].append((repo, _rank([(repo, i) for i in range(len(hits[repo]))], hits, repo, gold)))
        together = {repo: joint.explore(query).hits}
        ranks["joint"].append((repo, _rank([(repo, i) for i in range(10)], together, repo, f"{repo}/{gold}")))
    print(f"{len(queries)} queries over {', '.join(services)}; Acc@1 / Acc@5 / MRR@10 (%)")
    for method, rows in ranks.items():
        cells = [_metrics(rows)] + [_metrics([r for r in rows if r[0] == name]) for name in services]
        print(f"{method:<9} all {cells[0]}  " + "  ".join(f"{n} {c}" for n, c in zip(services, cells[1:], strict=True)))


def _joint_index(work: Path, names: list[str]) -> IGraphService:
    """One index over all the stripped trees side by side (``<name>/...``): the ranking of one repository holding
    everything, which fusion should come close to."""
    root = work / ("joint-" + "+".join(names))
    for name in names:
        if not (root / name).is_dir():
            shutil.copytree(work / name, root / name, ignore=shutil.ignore_patterns(".igraph"))
    svc = IGraphService(root)
    svc.index()
    return svc


def _metrics(rows: Sequence[tuple[str, int | None]]) -> str:
    n = len(rows) or 1
    acc1 = sum(1 for _, r in rows if r == 1) / n
    acc5 = sum(1 for _, r in rows if r is not None and r <= 5) / n
    mrr = sum(1 / r for _, r in rows if r is not None) / n
    return f"{acc1 * 100:.1f} / {acc5 * 100:.1f} / {mrr * 100:.1f}"


if __name__ == "__main__":
    main()
