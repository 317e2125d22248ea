"""Indexing speed on a real tree: cold structure-only index, one-file update, DB size, peak RSS, FTS latency.

usage: python benchmarks/index_speed.py [--tree PATH | --sdist Django==3.2.25] [--json out.json]
       python benchmarks/index_speed.py --embed-sdist requests==2.32.3 [--runtimes onnx,torch]
       python benchmarks/index_speed.py --embed-tree PATH [--runtimes onnx,onnx+int8|none]
                                        [--server-runtime onnx|none] [--server-first-only]
       python benchmarks/index_speed.py --parse-crossover PATH

--parse-crossover: parse the first N MB of a tree's Python files serially and with 2 worker processes, each in a
fresh process (so starting the fork server and the workers is counted), for N from 0.25 to 8: where the pool
starts to pay (parse_pool.PARALLEL_MIN_BYTES).

--embed-sdist / --embed-tree: a full index with vectors by a fresh `igraph-mcp index` process per runtime
(`onnx`, `onnx+int8`, `torch`): wall, seconds per phase, structure + FTS searchable time, texts/s, the process's
peak RSS and the peak RSS of its whole process tree (parse workers included, sampled every 0.1 s); then a real
MCP server (stdio) started on another unindexed copy: time to the first igraph_explore answer, how long after
structure + FTS were committed it came, time to full vectors, and the server's peak RSS. A summary of the
headline figures ends the output.

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
import tempfile
import time
from pathlib import Path

import common  # the checkout on sys.path, the download cache

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


def fetch_sdist(spec: str) -> Path:
    """Download and unpack an sdist once; returns the unpacked top folder."""
    return common.fetch_sdist(spec, common.cache_root() / "sdists")


def percentile(values: list[float], p: float) -> float:
    """p-th percentile (0-100) by nearest rank."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


_RSS_CHILD = (
    "import json, resource, sys\n"
    "from igraph_mcp.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stderr.write(json.dumps({'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    "raise SystemExit(code)\n"
)


def _fresh_copy(src: Path, tmp: str, name: str) -> Path:
    root = Path(tmp) / name / src.name
    shutil.copytree(src, root, symlinks=True, ignore=shutil.ignore_patterns(".igraph"))
    return root


def runtime_env(spec: str) -> dict[str, str]:
    """Environment selecting an embedder variant: ``onnx``, ``onnx+int8`` or ``torch``."""
    runtime, _, quantize = spec.partition("+")
    return {"IGRAPH_EMBED_RUNTIME": runtime, "IGRAPH_EMBED_QUANTIZE": quantize or "none"}


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (0 once it is gone)."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total


def _run_sampling_tree_rss(cmd: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``cmd``; return its result and the peak RSS (MB) of its process tree, sampled every 0.1 s."""
    peak = 0
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, text=True)
        while proc.poll() is None:
            peak = max(peak, _tree_rss_kb(proc.pid))
            time.sleep(0.1)
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read())
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd[:4])} failed: {done.stderr[-2000:]}")
    return done, peak / 1024


def full_index_per_runtime(src: Path, runtimes: list[str]) -> dict[str, dict[str, object]]:
    """`igraph-mcp index --json` in a fresh process per runtime on a fresh copy: wall, phases, peak RSS."""
    out: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for spec in runtimes:
            root = _fresh_copy(src, tmp, spec.replace("+", "-"))
            env = {**os.environ, **runtime_env(spec), "HF_HUB_OFFLINE": "1"}
            t = time.perf_counter()
            done, tree_rss = _run_sampling_tree_rss(
                [sys.executable, "-c", _RSS_CHILD, "index", str(root), "--json"], env
            )
            wall = time.perf_counter() - t
            result = json.loads(done.stdout)
            rss = json.loads(done.stderr.strip().splitlines()[-1])["peak_rss_mb"]
            phases = result.get("phases") or {}
            out[spec] = {
                "wall_s": round(wall, 2),
                "files": result["files"],
                "symbols": result["symbols"],
                "embedded": result["embedded"],
                "parse_workers": result.get("parseWorkers"),
                "phases_s": phases,
                "structure_searchable_s": round(sum(phases.get(k, 0.0) for k in ("scan", "parse", "resolve")), 2),
                "embed_texts_per_s": round(result["embedded"] / max(phases.get("embed", 0.0), 1e-9), 1),
                "peak_rss_mb": round(rss, 1),
                "peak_tree_rss_mb": round(tree_rss, 1),
            }
    return out


def _peak_rss_mb(marker: str) -> float | None:
    """VmHWM of the process whose command line contains ``marker`` (the server we started), from /proc."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if marker not in (proc / "cmdline").read_bytes().decode(errors="replace"):
                continue
            for line in (proc / "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            continue
    return None


async def _first_answer(root: Path, runtime: str, first_only: bool = False) -> dict[str, object]:
    import anyio
    from mcp import Client, StdioServerParameters

    from igraph_mcp.structured import entries  # structuredContent lists are tables

    env = {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        **runtime_env(runtime),
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")) if p
        ),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "igraph_mcp", "serve", "--root", str(root)], env=env, cwd=root
    )
    t0 = time.perf_counter()
    out: dict[str, object] = {}
    structure_seen: float | None = None
    async with Client(params) as client:
        out["connected_s"] = round(time.perf_counter() - t0, 2)
        while True:
            status = (await client.call_tool("igraph_status", {})).structured_content or {}
            if structure_seen is None and any(
                p["phase"] == "embed" for p in entries(status.get("phases", {"columns": [], "rows": []}))
            ):
                structure_seen = time.perf_counter()
            t = time.perf_counter()
            answer = await client.call_tool("igraph_explore", {"query": "send a prepared request", "topK": 5})
            if not answer.is_error:
                first = time.perf_counter()
                data = answer.structured_content or {}
                out["first_answer_s"] = round(first - t0, 2)
                out["first_answer_call_s"] = round(first - t, 2)
                out["first_answer_after_structure_s"] = round(first - (structure_seen or t), 2)
                out["first_answer_degraded"] = data.get("degraded", False)
                out["first_answer_note"] = data.get("note")
                break
            await anyio.sleep(0.05)
        if first_only:  # --server-first-only: stop the server without waiting for the vectors
            out["server_peak_rss_mb"] = _peak_rss_mb(str(root))
            return out
        while status.get("denseCoverage") != 1.0:
            await anyio.sleep(0.25)
            status = (await client.call_tool("igraph_status", {})).structured_content or {}
        out["full_vectors_s"] = round(time.perf_counter() - t0, 2)
        out["phases"] = entries(status["phases"]) if "phases" in status else None
        lat = []
        for q in ("send a prepared request", "parse the retry header", "cookie jar", "proxy from environment"):
            t = time.perf_counter()
            await client.call_tool("igraph_explore", {"query": q, "topK": 5})
            lat.append((time.perf_counter() - t) * 1000)
        out["explore_call_ms_median_after_full"] = round(statistics.median(lat), 1)
        out["server_peak_rss_mb"] = _peak_rss_mb(str(root))
    return out


def server_first_answer(src: Path, runtime: str, first_only: bool = False) -> dict[str, object]:
    """A real stdio server on an unindexed copy: first answer, and (unless ``first_only``) when all vectors are in."""
    import anyio

    with tempfile.TemporaryDirectory() as tmp:
        root = _fresh_copy(src, tmp, "server")
        return anyio.run(_first_answer, root, runtime, first_only)


_CROSSOVER_CHILD = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from igraph_mcp.index.parse_pool import ParseJob, parse_all\n"
    "root, limit, workers = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])\n"
    "jobs, total = [], 0\n"
    "for p in sorted(root.rglob('*.py')):\n"
    "    if total >= limit: break\n"
    "    data = p.read_bytes(); total += len(data)\n"
    "    jobs.append(ParseJob(p.relative_to(root).as_posix(), 'python', data))\n"
    "t = time.perf_counter()\n"
    "for _ in parse_all(jobs, workers): pass\n"
    "print(time.perf_counter() - t)\n"
)


def parse_crossover(tree: Path) -> None:
    """Serial against 2 parse workers on growing prefixes of a tree's Python files, a fresh process each."""
    print(f"{'MB':>6} {'serial s':>9} {'2 workers s':>12}")
    for mb in (0.25, 0.5, 1, 2, 4, 8):
        cells = []
        for workers in (1, 2):
            done = subprocess.run(
                [sys.executable, "-c", _CROSSOVER_CHILD, str(tree), str(int(mb * 1e6)), str(workers)],
                capture_output=True,
                text=True,
                check=True,
            )
            cells.append(float(done.stdout.strip()))
        print(f"{mb:>6} {cells[0]:>9.2f} {cells[1]:>12.2f}")


def headline(
    tree: str, per_runtime: dict[str, dict[str, object]], server_runtime: str, server: dict[str, object]
) -> str:
    """The issue-10 figures, one line per runtime and one for the server."""
    lines = [f"== {tree} =="]
    for spec, r in per_runtime.items():
        phases = r["phases_s"]
        assert isinstance(phases, dict)
        detail = " ".join(f"{k} {v:.1f}" for k, v in phases.items())
        lines.append(
            f"{spec:<10} searchable (structure+FTS) {r['structure_searchable_s']} s | all vectors {r['wall_s']} s wall "
            f"({r['embedded']} texts, {r['embed_texts_per_s']}/s) | peak RSS {r['peak_rss_mb']} MB "
            f"(process tree {r['peak_tree_rss_mb']} MB) | parse workers {r['parse_workers']} | phases: {detail}"
        )
    if server:
        g = server.get
        lines.append(
            f"server ({server_runtime}): first answer {g('first_answer_after_structure_s')} s after structure was "
            f"committed ({g('first_answer_s')} s after start, degraded={g('first_answer_degraded')}), "
            f"all vectors {g('full_vectors_s')} s after start, peak RSS {g('server_peak_rss_mb')} MB"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embed-sdist", default=None, help="e.g. requests==2.32.3: index with vectors + server start")
    ap.add_argument("--parse-crossover", type=Path, default=None, help="a tree: serial vs 2 parse workers by size")
    ap.add_argument("--embed-tree", type=Path, default=None, help="an unpacked tree instead of --embed-sdist")
    ap.add_argument("--runtimes", default="onnx,torch", help="comma list of onnx, onnx+int8, torch")
    ap.add_argument("--server-first-only", action="store_true", help="stop the server after its first answer")
    ap.add_argument("--server-runtime", default=None, help="runtime of the server run (default: the first); none")
    ap.add_argument("--tree", type=Path)
    ap.add_argument("--sdist", default="Django==3.2.25")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.parse_crossover:
        parse_crossover(args.parse_crossover)
        return 0
    if args.embed_sdist or args.embed_tree:
        tree = args.embed_tree or fetch_sdist(args.embed_sdist)
        runtimes = [r for r in args.runtimes.split(",") if r and r != "none"]  # none: the server run only
        figures_e: dict[str, object] = {"tree": tree.name}
        per_runtime = full_index_per_runtime(tree, runtimes)
        figures_e["index_with_vectors"] = per_runtime
        server_runtime = args.server_runtime or (runtimes[0] if runtimes else "none")
        server = server_first_answer(tree, server_runtime, args.server_first_only) if server_runtime != "none" else {}
        figures_e[f"server_{server_runtime}"] = server
        print(json.dumps(figures_e, indent=2))
        print(headline(tree.name, per_runtime, server_runtime, server))
        if args.json:
            args.json.write_text(json.dumps(figures_e, indent=2))
        return 0
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
        "cold_phases_s": cold.phases,
        "parse_workers": cold.parseWorkers,
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
