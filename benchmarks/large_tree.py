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
   memory of the whole process tree (parse workers included, sampled every 0.1 s), the index's size on disk, the
   indexer's own per-phase seconds, and both phases taken apart (``--child``: the same run in a process that
   times the indexer's steps): waiting for parsed files, building and writing rows (the file layout, row building,
   nodes, FTS rows, edges, facts, imports, bind scopes), and the resolve phase's symbol table, facts, binding,
   writing the bindings and linking declarations.
3. With --vectors, `igraph-mcp index` again on that index: the time to every vector (long: an hour or more for
   this tree on 2 cores).

The ratio of 2 to 1 is the figure issue 33 targets (within 4x, peak at most 1.5 GB).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

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


def timed_index(root: Path, embed: bool) -> None:
    """Index ``root`` through the CLI in this process with the parse phase's steps timed; prints the CLI's JSON
    summary with a ``steps`` entry (seconds per step, summed over the run)."""
    from igraph_mcp import cli
    from igraph_mcp.index import bind, indexer, parse_pool, write
    from igraph_mcp.store import edges, facts, imports, node_text, nodes

    steps: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                steps[name] = steps.get(name, 0.0) + time.perf_counter() - started

        return run

    def waited(outcomes: Any) -> Any:
        # The time the indexer waits for the next parsed file: parsing it did not overlap with writing.
        try:
            while True:
                started = time.perf_counter()
                try:
                    outcome = next(outcomes)
                except StopIteration:
                    return
                finally:
                    steps["wait for parsed files"] = (
                        steps.get("wait for parsed files", 0.0) + time.perf_counter() - started
                    )
                yield outcome
        finally:
            outcomes.close()

    parse_all = parse_pool.parse_all
    parse_pool.parse_all = lambda *a, **k: waited(parse_all(*a, **k))  # type: ignore[assignment]
    # The parse phase's steps (each row a part of the one above it when indented), then the resolve phase's.
    patched = [
        (indexer, "write_batch", "rows and writes"),
        (write, "draft_file", "  of which drafting rows (files no worker drafted)"),
        (write, "file_rows", "  of which ids into the drafted rows"),
        (nodes, "insert_nodes", "  of which nodes"),
        (node_text, "insert_fts", "  of which FTS rows"),
        (edges, "insert_edges", "  of which edges"),
        (facts, "insert_facts", "  of which facts"),
        (imports, "insert_imports", "  of which imports"),
        (write, "_file_scope", "  of which bind scopes"),
        (bind, "_table", "resolve: symbol table"),
        (bind.fact_store, "facts_by_node", "resolve: facts"),
        (bind, "_bindings", "resolve: binding"),
        (bind.edge_store, "set_edge_targets", "resolve: writing bindings"),
        (bind, "link_declarations", "resolve: declarations"),
    ]
    for module, name, label in patched:
        setattr(module, name, timed(label, getattr(module, name)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["index", str(root), "--json", *([] if embed else ["--no-embed"])])
    summary = json.loads(out.getvalue())
    order = ["wait for parsed files", *(label for _module, _name, label in patched)]
    summary["steps"] = {k: round(steps[k], 2) for k in order if k in steps}
    print(json.dumps(summary))
    raise SystemExit(code)


def run_index(root: Path, *, embed: bool) -> dict[str, object]:
    """Wall seconds, peak RSS of the process tree and the summary of `igraph-mcp index` on ``root``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(root)]
    if embed:
        cmd.append("--vectors")
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
        "steps": summary.get("steps"),
    }


def main() -> None:
    """Copy the tree, run ctags and the indexer on it, print the figures side by side."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=None, help="a source tree (default: OpenJDK 17's class library)")
    ap.add_argument("--vectors", action="store_true", help="also time every vector (an hour or more)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        timed_index(args.child, args.vectors)
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
    print("  by step (s; indented: part of the row above):")
    for step, seconds in (searchable["steps"] or {}).items():
        print(f"    {step:<34} {seconds:8.2f}")
    if "vectors" in out:
        vectors = out["vectors"]
        assert isinstance(vectors, dict)
        print(f"every vector: {vectors['seconds']} s more, peak {vectors['peak_rss_mb']} MB")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
