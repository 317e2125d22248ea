"""The int8 quality gate of issue 10: docstring MRR@10 and devset function Acc@10, fp32 against int8, one run.

    python benchmarks/int8_gate.py [--trees requests==2.0.1,...] [--systems dense,hybrid,default] [--json out.json]

Runs ``retrieval.py`` once per embedder (``IGRAPH_EMBED_QUANTIZE=none`` then ``int8``) on private copies of the
trees (``--work``), so the indexes of the shared benchmark cache are never switched to another embedder under
another run's feet; the embed cache is shared (it is keyed by embedder id, so int8 vectors get their own rows).
The gate holds when, for every system, int8 is within ``--max-drop`` points of fp32 on both measures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # the checkout on sys.path, the download cache

GATE_TREES = (
    "requests==2.0.1,requests==2.2.1,requests==2.9.0,requests==2.26.0,requests==2.27.0,Sphinx==3.1.2,"
    "Sphinx==4.0.3,Sphinx==4.1.2,Sphinx==4.2.0,xarray==0.16.2,xarray==2022.3.0,xarray==2022.6.0,pytest==7.1.2,"
    "pytest==7.1.3,astropy==5.2.2"
)
MEASURES = (("docstrings", "mrr@10"), ("devset", "func_acc@10"))


def private_cache(shared: Path, work: Path, trees: str) -> Path:
    """A benchmark cache holding copies of the named devset trees and the docstring trees, without indexes."""
    wanted = [f"{bd._norm(p)}-{v}" for p, _, v in (t.strip().partition("==") for t in trees.split(",") if t.strip())]
    copies = [(shared / "devset" / "trees" / name, work / "devset" / "trees" / name) for name in wanted]
    copies.append((shared / "docstrings", work / "docstrings"))
    for src, dest in copies:
        if src.is_dir() and not dest.exists():
            shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".igraph"))
    link = work / "devset" / "sdists"  # a tree missing from the copy is fetched from the shared downloads
    if not link.exists() and (shared / "devset" / "sdists").is_dir():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(shared / "devset" / "sdists")
    return work


def run_variant(set_name: str, quantize: str, args: argparse.Namespace, cache: Path) -> dict[str, Any]:
    """retrieval.py on one set with one embedder; returns its summary."""
    out = args.work / f"retrieval-{set_name}-{quantize}.json"
    env = {**os.environ, "IGRAPH_EMBED_QUANTIZE": quantize, "IGRAPH_BENCH_CACHE": str(cache)}
    cmd = [
        sys.executable,
        str(Path(__file__).with_name("retrieval.py")),
        "--set",
        set_name,
        "--half",
        "all",
        "--trees",
        args.trees,
        "--systems",
        args.systems,
        "--embed-cache",
        str(args.embed_cache),
        "--json",
        str(out),
    ]
    subprocess.run(cmd, env=env, check=True)
    summary: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))["summary"]
    return summary


def gate_table(fp32: dict[str, Any], int8: dict[str, Any], systems: list[str], max_drop: float) -> tuple[str, bool]:
    """One row per (measure, system): fp32, int8, delta in points; and whether every delta is within the gate."""
    lines = [f"{'measure':<24}{'system':<10}{'fp32':>7}{'int8':>7}{'delta':>7}  gate (max drop {max_drop} pt)"]
    ok = True
    for set_name, metric in MEASURES:
        for system in systems:
            a = fp32.get(set_name, {}).get(system, {}).get("metrics", {}).get(metric)
            b = int8.get(set_name, {}).get(system, {}).get("metrics", {}).get(metric)
            if a is None or b is None:
                lines.append(f"{set_name + ' ' + metric:<24}{system:<10}{'-':>7}{'-':>7}{'-':>7}  missing")
                ok = False
                continue
            delta = 100 * (b - a)
            passed = delta >= -max_drop
            ok &= passed
            n = fp32[set_name][system]["n"]
            lines.append(
                f"{set_name + ' ' + metric:<24}{system:<10}{100 * a:>7.1f}{100 * b:>7.1f}{delta:>+7.1f}  "
                f"{'pass' if passed else 'FAIL'} (n={n})"
            )
    return "\n".join(lines), ok


def main(argv: list[str] | None = None) -> int:
    """Run fp32 and int8 on the same trees and print the gate table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", default=GATE_TREES)
    ap.add_argument("--systems", default="dense,hybrid,default")
    ap.add_argument("--max-drop", type=float, default=1.0, help="points int8 may lose against fp32")
    ap.add_argument("--work", type=Path, default=common.cache_root() / "int8-gate", help="private tree copies")
    ap.add_argument("--embed-cache", type=Path, default=common.cache_root() / "embed-cache.sqlite")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    cache = private_cache(common.cache_root(), args.work, args.trees)
    systems = [s for s in args.systems.split(",") if s]
    fp32: dict[str, Any] = {}
    int8: dict[str, Any] = {}
    for set_name in ("docstrings", "devset"):  # the larger query set first: its verdict comes early
        fp32.update(run_variant(set_name, "none", args, cache))
        int8.update(run_variant(set_name, "int8", args, cache))
        table, _ = gate_table(fp32, int8, systems, args.max_drop)
        print(table, file=sys.stderr, flush=True)
    table, ok = gate_table(fp32, int8, systems, args.max_drop)
    print(table)
    print(f"int8 gate: {'PASS' if ok else 'FAIL'}")
    if args.json:
        args.json.write_text(json.dumps({"fp32": fp32, "int8": int8, "pass": ok}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
