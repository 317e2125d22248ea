"""What every benchmark script shares: the checkout on ``sys.path``, the download cache, sdist download and unpacking.

A script imports this module before anything from ``igraph_mcp``, so a plain clone runs ``python benchmarks/<x>.py``
without installing the package. Downloads go to the cache (``$IGRAPH_BENCH_CACHE``, default
``~/.cache/igraph-mcp-bench``), never into the repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
if (CHECKOUT / "igraph_mcp").is_dir() and str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))
# As igraph_mcp sets it when it loads first (igraph_mcp/__init__.py): a script that imports numpy before the
# package would otherwise time the queries with OpenBLAS's spinning threads on the other core, which doubled both
# FTS and the question's embedding (42-45 ms against 38 ms, 2026-12-05).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def devset_path() -> Path:
    """The devset: $IGRAPH_DEVSET, else shared/devset/ beside the checkout (where the project's machines keep it)."""
    env = os.environ.get("IGRAPH_DEVSET")
    return Path(env) if env else CHECKOUT.parent / "shared" / "devset" / "swebench_verified_dev.jsonl"


def multilang_path() -> Path:
    """The multi-language devset: $IGRAPH_MULTILANG, else the project's benchmarks/multilang/instances.jsonl when it
    exists, else shared/devset/multilang_dev.jsonl beside the checkout."""
    env = os.environ.get("IGRAPH_MULTILANG")
    if env:
        return Path(env)
    project = CHECKOUT / "benchmarks" / "multilang" / "instances.jsonl"
    return project if project.is_file() else CHECKOUT.parent / "shared" / "devset" / "multilang_dev.jsonl"


def mirrors_path() -> Path:
    """Where the fetched git mirrors are: $IGRAPH_MIRRORS or $MIRRORS, else .mirror beside the checkout."""
    env = os.environ.get("IGRAPH_MIRRORS") or os.environ.get("MIRRORS")
    return Path(env) if env else CHECKOUT.parent / ".mirror"


def cache_root() -> Path:
    """The download cache root: $IGRAPH_BENCH_CACHE, else ~/.cache/igraph-mcp-bench."""
    env = os.environ.get("IGRAPH_BENCH_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "igraph-mcp-bench"


def pip_download(spec: str, dest: Path, *, binary: bool = False, quiet: bool = False) -> None:
    """``pip download --no-deps`` of one pinned distribution into ``dest`` (the sdist unless ``binary``)."""
    dest.mkdir(parents=True, exist_ok=True)
    only = ["--only-binary", ":all:"] if binary else ["--no-binary", ":all:"]
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        *(["-q"] if quiet else []),
        "--no-deps",
        *only,
        spec,
        "-d",
        str(dest),
    ]
    subprocess.run(cmd, check=True)  # fixed arguments, pinned versions


def sdist_archive(spec: str, dest: Path, *, quiet: bool = True) -> Path:
    """The ``name==version`` sdist's ``.tar.gz`` in ``dest``, downloaded once."""
    name, _, version = spec.partition("==")

    def found() -> list[Path]:
        prefixes = {f"{name}-{version}".lower(), f"{name.replace('-', '_')}-{version}".lower()}
        return sorted(p for p in dest.glob("*.tar.gz") if p.name.lower()[: -len(".tar.gz")] in prefixes)

    if not found():
        pip_download(spec, dest, quiet=quiet)
    have = found()
    if not have:
        raise FileNotFoundError(f"pip downloaded no sdist named {name}-{version}.tar.gz into {dest}")
    return have[-1]


def unpack(archive: Path, dest: Path) -> Path:
    """Unpack a ``.tar.gz`` into ``dest`` once (tar's data filter: no links out, no device files); return its top
    folder, named as the archive."""
    top = dest / archive.name[: -len(".tar.gz")]
    if not top.is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tf:
            tf.extractall(dest, filter="data")
    return top


def fetch_sdist(spec: str, sdists: Path, trees: Path | None = None) -> Path:
    """Download ``name==version``'s sdist into ``sdists`` and unpack it into ``trees`` (default: beside it);
    return the unpacked top folder."""
    return unpack(sdist_archive(spec, sdists), trees or sdists)
