"""Indexing speed on a real tree: cold structure-only index, one-file update, DB size, peak RSS, FTS latency.

usage: python benchmarks/index_speed.py [--tree PATH | --sdist Django==3.2.25] [--json out.json]

The sdist is downloaded from PyPI into ~/.cache/igraph-mcp-bench/sdists (override: IGRAPH_BENCH_CACHE) and
copied to a temporary directory, so the cache is never modified and nothing lands in the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from igraph_mcp.service import IGraphService

QUERIES = [
    "QuerySet",
    "get_or_create",
    "Session.request",
    "render_to_string",
    "csrf",
    "middleware",
    "urlpatterns",
    "ForeignKey",
    "on_delete",
    "migrations autodetector",
    "HttpResponseRedirect",
    "cache_page",
    "TemplateSyntaxError",
    "validate_email",
    "password hashing",
    "select_related",
    "prefetch_related",
    "paginator",
    "signals post_save",
    "database router",
    "transaction.atomic",
    "json response",
    "file upload handler",
    "timezone aware datetime",
    "parseHTTPRequest",
    "snake_case_name",
    "admin site register",
    "form clean method",
    "test client login",
    "static files finder",
    "sessions backend",
    "management command",
    "ORM aggregation annotate",
    "reverse url",
]


def _cache() -> Path:
    return Path(os.environ.get("IGRAPH_BENCH_CACHE", Path.home() / ".cache" / "igraph-mcp-bench"))


def fetch_sdist(spec: str) -> Path:
    """Download and unpack an sdist once; returns the unpacked top folder."""
    dest = _cache() / "sdists"
    dest.mkdir(parents=True, exist_ok=True)
    name = spec.split("==")[0].lower()
    have = [p for p in dest.glob("*.tar.gz") if p.name.lower().startswith(name) and spec.split("==")[-1] in p.name]
    if not have:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                spec,
                "-d",
                str(dest),
            ],
            check=True,
        )
        have = [p for p in dest.glob("*.tar.gz") if p.name.lower().startswith(name)]
    archive = sorted(have)[-1]
    top = dest / archive.name[: -len(".tar.gz")]
    if not top.exists():
        with tarfile.open(archive) as t:
            t.extractall(dest, filter="data")
    return top


def percentile(values: list[float], p: float) -> float:
    """p-th percentile (0-100) by nearest rank."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", type=Path)
    ap.add_argument("--sdist", default="Django==3.2.25")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    src = args.tree or fetch_sdist(args.sdist)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / src.name
        shutil.copytree(src, root, symlinks=True, ignore=shutil.ignore_patterns(".igraph"))
        svc = IGraphService(root, embed=False)
        t = time.perf_counter()
        cold = svc.index(full=True, embed=False)
        cold_s = time.perf_counter() - t

        # One-file incremental update: append a function to a mid-sized Python file.
        target = next(p for p in sorted(root.rglob("*.py")) if 2_000 < p.stat().st_size < 20_000)
        with target.open("a", encoding="utf-8") as fh:
            fh.write("\n\ndef benchmark_added_function(x):\n    return x + 1\n")
        t = time.perf_counter()
        inc = svc.index(embed=False)
        inc_s = time.perf_counter() - t
        t = time.perf_counter()
        noop = svc.index(embed=False)
        noop_s = time.perf_counter() - t

        lat: list[float] = []
        for _ in range(3):
            for q in QUERIES:
                t = time.perf_counter()
                svc.explore(q, top_k=10, hops=0, channels=("fts",))
                lat.append((time.perf_counter() - t) * 1000)
        db_bytes = svc.db_path.stat().st_size + sum(
            p.stat().st_size for p in svc.db_path.parent.glob("igraph.db-*") if p.exists()
        )
        svc.close()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {
        "tree": src.name,
        "files": cold.files,
        "symbols": cold.symbols,
        "edges": cold.edges,
        "skipped": cold.skipped,
        "cold_seconds": round(cold_s, 2),
        "files_per_s": round(cold.files / cold_s, 1),
        "symbols_per_s": round(cold.symbols / cold_s, 1),
        "one_file_update_seconds": round(inc_s, 3),
        "one_file_update_reparsed": inc.reparsedPaths,
        "noop_update_seconds": round(noop_s, 3),
        "noop_reparsed": noop.parsed,
        "db_mb": round(db_bytes / 1e6, 1),
        "peak_rss_mb": round(rss_mb, 1),
        "fts_p50_ms": round(statistics.median(lat), 2),
        "fts_p95_ms": round(percentile(lat, 95), 2),
        "fts_queries": len(lat),
    }
    for k, v in figures.items():
        print(f"{k:>26}: {v}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
