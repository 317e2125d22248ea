"""Cold structure-only index time per language, on the projects of benchmarks/definitions.py.

usage: python benchmarks/index_speed_langs.py [--lang python,go] [--repeat 3]

Each project's source folder is copied to a temporary directory and indexed from scratch without vectors
(walk, parse, store, resolve, FTS); the median of --repeat runs is printed, as wall time and as this process's CPU
time (which a machine loaded by other work disturbs much less). A project with more than
parse_pool.PARALLEL_MIN_BYTES of source is parsed in worker processes whose CPU time is not counted: compare wall
time there. To compare two versions of the
package, run this script twice with PYTHONPATH pointing at each checkout: it only uses IGraphService.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import common  # noqa: F401 - the checkout on sys.path
from definitions import PROJECTS, _source_root, fetch

from igraph_mcp.service import IGraphService


def cold_index_seconds(src: Path, repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of a cold structure-only index of a copy of `src`."""
    times = []
    cpu = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "tree"
            shutil.copytree(src, root, symlinks=True, ignore=shutil.ignore_patterns(".igraph"))
            svc = IGraphService(root, embed=False)
            t, c = time.perf_counter(), time.process_time()
            svc.index(full=True, embed=False)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            svc.close()
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    """Print one line per language: project, median wall and CPU seconds of a cold index."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="python,typescript,go,c,cpp,csharp,kotlin,bash")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    chosen = {x for x in args.lang.split(",") if x}
    print(f"{'language':<11} {'project':<40} {'wall s':>8} {'cpu s':>8}")
    for p in PROJECTS:
        if p.language in chosen:
            wall, cpu = cold_index_seconds(_source_root(fetch(p), p), args.repeat)
            print(f"{p.language:<11} {p.spec:<40} {wall:>8.2f} {cpu:>8.2f}")


if __name__ == "__main__":
    main()
