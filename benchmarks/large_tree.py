"""A large real tree, indexed cold, against universal-ctags over the same files in the same run (issue 33).

usage: python benchmarks/large_tree.py [--tree PATH] [--vectors] [--json out.json]

The default tree is the Java class library of OpenJDK 17 as Debian ships it: `src.zip` of the package
`openjdk-17-source` (pinned below), 15,143 `.java` files, 228 MB, fetched with `apt-get download` (apt checks it
against the signed archive index) and unpacked into ~/.cache/igraph-mcp-bench/large/. Any other tree can be given
with --tree.

For each run the tree is copied to a temporary directory (the copy is not timed), then:

1. `ctags -R` (universal-ctags, Debian `universal-ctags`) lists every definition of the copy into a tags file:
   wall seconds and tag count. This is the reference: a lister at disk speed, no resolution, no search index.
2. `igraph-mcp index --no-embed --json` builds structure and FTS (searchable): wall seconds, the peak resident
   memory of the whole process tree (parse workers included, sampled every 0.1 s), the index's size on disk, and
   the indexer's own per-phase seconds.
3. With --vectors, `igraph-mcp index` again on that index: the time to every vector (long: an hour or more for
   this tree on 2 cores).

The ratio of 2 to 1 is the figure issue 33 targets (within 4x, peak at most 1.5 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import common
from index_speed import _run_sampling_tree_rss

PACKAGE = "openjdk-17-source=17.0.21.1+2-1~deb12u1"


def jdk_tree() -> Path:
    """The unpacked `src.zip` of the pinned openjdk-17-source package (downloaded once)."""
    cache = common.cache_root() / "large"
    tree = cache / "jdk17-src"
    if (tree / "java.base").is_dir():
        return tree
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", PACKAGE], cwd=cache, check=True)
    deb = next(cache.glob("openjdk-17-source_*.deb"))
    unpacked = cache / "pkg"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    with zipfile.ZipFile(next(unpacked.rglob("src.zip"))) as archive:
        archive.extractall(tree)
    return tree


def source_files(root: Path) -> int:
    """Regular files under ``root`` (the tree's size as a user would count it)."""
    return sum(len(files) for _dirs, _sub, files in os.walk(root))


def run_ctags(root: Path) -> dict[str, float | int]:
    """Wall seconds and tag count of `ctags -R` over ``root``."""
    tags = root.parent / "tags"
    started = time.perf_counter()
    subprocess.run(["ctags", "-R", "-f", str(tags), "."], cwd=root, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    with tags.open(encoding="utf-8", errors="replace") as fh:
        count = sum(1 for line in fh if not line.startswith("!_TAG_"))
    tags.unlink()
    return {"seconds": round(seconds, 2), "tags": count}


def run_index(root: Path, *, embed: bool) -> dict[str, object]:
    """Wall seconds, peak RSS of the process tree and the summary of `igraph-mcp index` on ``root``."""
    cmd = [sys.executable, "-m", "igraph_mcp", "index", str(root), "--json"]
    if not embed:
        cmd.append("--no-embed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("IGRAPH_")}
    env.update(HF_HUB_OFFLINE="1", PYTHONPATH=str(common.CHECKOUT))
    started = time.perf_counter()
    done, peak_mb = _run_sampling_tree_rss(cmd, env)
    seconds = time.perf_counter() - started
    summary = json.loads(done.stdout)
    db = root / ".igraph" / "igraph.db"
    size = sum(p.stat().st_size for p in db.parent.glob("igraph.db*"))
    return {
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak_mb, 1),
        "index_mb": round(size / 2**20, 1),
        "files": summary.get("files"),
        "symbols": summary.get("symbols"),
        "edges": summary.get("edges"),
        "phases": summary.get("phases"),
    }


def main() -> None:
    """Copy the tree, run ctags and the indexer on it, print the figures side by side."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=None, help="a source tree (default: OpenJDK 17's class library)")
    ap.add_argument("--vectors", action="store_true", help="also time every vector (an hour or more)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if shutil.which("ctags") is None:
        raise SystemExit("universal-ctags is needed: apt-get install universal-ctags")
    tree = args.tree.resolve() if args.tree else jdk_tree()
    out: dict[str, object] = {"tree": str(tree), "package": None if args.tree else PACKAGE}
    with tempfile.TemporaryDirectory(prefix="igraph-large-") as tmp:
        root = Path(tmp) / "tree"
        shutil.copytree(tree, root, symlinks=True, ignore=shutil.ignore_patterns(".igraph", ".git"))
        out["files_in_tree"] = source_files(root)
        out["ctags"] = run_ctags(root)
        out["searchable"] = run_index(root, embed=False)
        if args.vectors:
            out["vectors"] = run_index(root, embed=True)
    ctags_s = float(out["ctags"]["seconds"])  # type: ignore[index]
    searchable = out["searchable"]
    assert isinstance(searchable, dict)
    print(f"tree: {tree} ({out['files_in_tree']} files)")
    print(f"ctags -R: {ctags_s} s, {out['ctags']['tags']} tags")  # type: ignore[index]
    print(
        f"igraph-mcp index --no-embed: {searchable['seconds']} s = {searchable['seconds'] / ctags_s:.1f}x ctags; "
        f"peak {searchable['peak_rss_mb']} MB; index {searchable['index_mb']} MB; {searchable['files']} files, "
        f"{searchable['symbols']} symbols, {searchable['edges']} edges"
    )
    print(f"  phases (s): {json.dumps(searchable['phases'])}")
    if "vectors" in out:
        vectors = out["vectors"]
        assert isinstance(vectors, dict)
        print(f"every vector: {vectors['seconds']} s more, peak {vectors['peak_rss_mb']} MB")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
