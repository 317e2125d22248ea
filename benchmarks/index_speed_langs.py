"""Cold structure-only index time per language, on the projects of benchmarks/definitions.py.

usage: python benchmarks/index_speed_langs.py [--lang python,go] [--repeat 3]

Each project's source folder is copied to a temporary directory and indexed from scratch without vectors
(walk, parse, store, resolve, FTS); the median of --repeat runs is printed. To compare two versions of the
package, run this script twice with PYTHONPATH pointing at each checkout: it only uses IGraphService.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from definitions import PROJECTS, _source_root, fetch

from igraph_mcp.service import IGraphService


def cold_index_seconds(src: Path, repeat: int) -> float:
    """The median wall time of a cold structure-only index of a copy of `src`."""
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "tree"
            shutil.copytree(src, root, symlinks=True, ignore=shutil.ignore_patterns(".igraph"))
            svc = IGraphService(root, embed=False)
            t = time.perf_counter()
            svc.index(full=True, embed=False)
            times.append(time.perf_counter() - t)
            svc.close()
    return statistics.median(times)


def main() -> None:
    """Print one line per language: project and median cold index seconds."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="python,javascript,go,java,c,ruby,bash,kotlin")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    chosen = {x for x in args.lang.split(",") if x}
    print(f"{'language':<11} {'project':<40} {'seconds':>8}")
    for p in PROJECTS:
        if p.language in chosen:
            seconds = cold_index_seconds(_source_root(fetch(p), p), args.repeat)
            print(f"{p.language:<11} {p.spec:<40} {seconds:>8.2f}")


if __name__ == "__main__":
    main()
