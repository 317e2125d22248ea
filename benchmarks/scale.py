"""Scale: real repositories replicated to ~100k and ~1M symbols, indexed and queried on each store.

usage: python benchmarks/scale.py [--sizes 100k,1m] [--stores sqlite,postgresql] [--pg-url URL]
                                  [--base SQLAlchemy==2.0.36 ...] [--embedder replicated|hash|none]
                                  [--indexers N] [--work DIR] [--json out.json]

A repository of a size is built from the sdists of real projects (``--base``, from benchmarks/common.py's cache;
never the twelve SWE-bench projects, pallets or Textualize), copied as often as the size needs, each copy under a
distinct package name (``sqlalchemy`` -> ``sqlalchemy_r3`` in its folder and in every ``.py`` file), so the
copies' symbols, imports and calls resolve within their own copy. Per size and store it prints: the cold structure
index (no vectors), one-file incremental updates of five kinds (one line each, UPDATE_KINDS: a function appended to
the middle file, which is ``one_file_update_s``; a body edit and a new top-level name in the middle copy's most
imported file; a file nobody imports deleted, then added back), the embedding phase, FTS / dense / hybrid
``igraph_explore`` p50 and p95 (each query once to warm up, then timed), and the store's size. ``--indexers N``
then starts N ``igraph-mcp index`` processes at once, on N single-copy repositories, into one database (on SQLite:
N files), and checks that each finished without an error with the symbol count of a solo build.

Vectors (``--embedder replicated``, the default): the real default model embeds each distinct text of the base
projects once; a copy's text gets its base text's vector plus a small deterministic perturbation (cosine ~0.995),
because embedding a million texts on CPU does not fit a run. ``hash`` uses the tests' hashing embedder (fast, not
semantic: dense figures are plumbing only), ``none`` skips the dense channel.

On PostgreSQL, ``--pg-url`` (default: $IGRAPH_DATABASE_URL) names a server whose user may create databases; each
size indexes into a fresh database ``igraph_scale_<size>``, dropped first. Trees and the base vectors stay in
``--work`` (default: the benchmark cache's ``scale/``), never in the repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import common  # the checkout on sys.path, the download cache
import numpy as np
from index_speed import percentile

from igraph_mcp.config import EmbedderConfig
from igraph_mcp.embed.base import Embedder, Vectors
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.embed.registry import embedder_from_config
from igraph_mcp.service import IGraphService
from igraph_mcp.store import imports as import_store
from igraph_mcp.store import pg_text

DEFAULT_BASES = ["SQLAlchemy==2.0.36"]
REFUSED = re.compile(
    r"^(django|sympy|sphinx|xarray|astropy|pytest|pylint|requests|flask|seaborn|matplotlib|scikit-learn|"
    r"click|jinja2|werkzeug|itsdangerous|markupsafe|quart|rich|textual)$",
    re.IGNORECASE,
)
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}  # 10k: one copy, a smoke run
QUERIES = [
    "create_engine",
    "Session.commit",
    "relationship lazy loading strategy",
    "compile a select statement to SQL",
    "ForeignKey constraint",
    "declarative base mapped class",
    "bulk insert of many rows",
    "reflect table metadata from the database",
    "before_flush event listener",
    "hybrid_property",
    "connection pool recycle timeout",
    "identity map",
    "eager load with joinedload",
    "unit of work flush order",
    "type decorator process_bind_param",
    "sqlite dialect pragma",
    "result row mapping",
    "scalar subquery correlate",
    "alembic style migration of a column",
    "with_for_update row locking",
]
_NOISE = 0.005  # per-dimension sigma: a 384-d unit vector moves by ~0.1, cosine to its base ~0.995


def _copy_name(package: str, k: int) -> str:
    return f"{package}_r{k}"


class ReplicatedEmbedder:
    """The base projects' real vectors for every copy: a copy's text maps back to its base text (package names
    restored), whose vector is embedded once and perturbed deterministically per copy text."""

    def __init__(self, base: Embedder, packages: Sequence[str]) -> None:
        self._base = base
        # A copy's package names and its folder (copy<k>/, in every path) back to one base text.
        self._undo = re.compile(r"\b(?:(" + "|".join(map(re.escape, packages)) + r")_r\d+|copy\d{3})\b")
        self._cache: dict[str, Vectors] = {}
        self.embedded_by_model = 0

    @property
    def id(self) -> str:
        """Its own id, so its vectors are never mixed with the model's own."""
        return f"replicated:{self._base.id}"

    @property
    def dimension(self) -> int:
        """The base model's dimension."""
        return self._base.dimension

    def _perturbed(self, text: str, vector: Vectors) -> Vectors:
        seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big")
        noisy = vector + np.random.default_rng(seed).normal(0.0, _NOISE, vector.shape).astype(np.float32)
        return (noisy / np.linalg.norm(noisy)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors of ``texts``: the model embeds only base texts it has not seen."""
        bases = [self._undo.sub(lambda m: m.group(1) or "copy000", t) for t in texts]
        missing = sorted({b for b in bases if b not in self._cache})
        if missing:
            for text, vector in zip(missing, self._base.embed(missing), strict=True):
                self._cache[text] = vector
            self.embedded_by_model += len(missing)
        return np.stack([self._perturbed(t, self._cache[b]) for t, b in zip(texts, bases, strict=True)])

    def embed_query(self, text: str) -> Vectors:
        """A query is embedded by the model as it is."""
        return self._base.embed_query(text)


def _packages(tree: Path) -> list[Path]:
    """The importable top-level packages of an unpacked sdist (``src/`` and ``lib/`` layouts too)."""
    found: list[Path] = []
    for top in (tree, tree / "src", tree / "lib"):
        if top.is_dir():
            found += [p for p in sorted(top.iterdir()) if p.is_dir() and (p / "__init__.py").is_file()]
    return found


def replicate(bases: Sequence[Path], dest: Path, copies: int) -> Path:
    """``dest`` holding ``copies`` copies of every base's packages, copy k's packages renamed ``<name>_r<k>``."""
    if (dest / ".complete").is_file():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    packages = [p for base in bases for p in _packages(base)]
    names = sorted({p.name for p in packages})
    word = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    for k in range(copies):
        for package in packages:
            target = dest / f"copy{k:03d}" / _copy_name(package.name, k)
            for src in package.rglob("*.py"):
                out = target / src.relative_to(package)
                out.parent.mkdir(parents=True, exist_ok=True)
                text = src.read_text(encoding="utf-8", errors="replace")
                out.write_text(word.sub(lambda m, k=k: _copy_name(m.group(1), k), text), encoding="utf-8")
    (dest / ".complete").write_text("", encoding="utf-8")
    return dest


def _service(root: Path, store: str | None, embedder: Embedder | None) -> closing[IGraphService]:
    kwargs: dict[str, Any] = {"embedder": embedder, "embed": embedder is not None}
    if store is not None:
        kwargs["store"] = store
    return closing(IGraphService(root, **kwargs))


def _with_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def fresh_pg_database(url: str, name: str) -> str:
    """A new empty database ``name`` with pgvector on the server of ``url`` (dropped first); its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        con.execute(f'CREATE DATABASE "{name}"')
    target = _with_database(url, name)
    with psycopg.connect(target, autocommit=True) as con:
        con.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return target


def _resident_text(svc: IGraphService) -> dict[str, Any] | None:
    """A PostgreSQL reader's in-memory copy of a large text index (store/pg_resident.py): waited for, since a
    server answers from it a few minutes after start; how long it took to load and its size."""
    holder = getattr(svc.db, "resident_text", None)
    resident = holder(pg_text.NODE_TEXT) if callable(holder) else None
    if resident is None:
        return None
    t = time.perf_counter()
    resident.wait()
    snap = resident.held
    if snap is None:
        return {"held": False, "error": resident.error}
    return {"held": True, "waited_s": round(time.perf_counter() - t, 1), "mb": round(snap.nbytes / 2**20)}


def _timed_queries(svc: IGraphService, channels: tuple[str, ...]) -> dict[str, Any]:
    for q in QUERIES:  # warm-up: caches, prepared plans, the query embedder, a resident copy's load
        svc.explore(q, channels=channels)
    resident = _resident_text(svc) if "fts" in channels else None
    ms = []
    for q in QUERIES:
        t = time.perf_counter()
        svc.explore(q, channels=channels)
        ms.append((time.perf_counter() - t) * 1000)
    out: dict[str, Any] = {"p50_ms": round(statistics.median(ms), 1), "p95_ms": round(percentile(ms, 95), 1)}
    if resident is not None:
        out["resident_text"] = resident
    return out


_ADDED_FUNCTION = b"\n\ndef scale_benchmark_added_function():\n    return 1\n"
_RETURN_LINE = re.compile(rb"^([ \t]+)return\b", re.MULTILINE)
UPDATE_ROUNDS = 2  # each kind twice in one warm process; the better one counts (a server's steady state)
UPDATE_KINDS = ("append_function", "body_edit", "widely_imported_new_name", "delete_file", "new_file")


def _update_victims(svc: IGraphService, root: Path) -> dict[str, Path]:
    """The file each update kind edits: the middle file (the benchmark's first kind, a function appended); of the
    middle copy, the most imported file with a function body (a line added in it: definitions, imports and
    signatures unchanged), the most imported file (a new top-level name), and a middle file nobody imports
    (deleted, then added back: the new-file kind)."""
    sources = sorted(root.rglob("*.py"))
    middle = len(sources) // 2
    copy = sources[middle].relative_to(root).parts[0]
    fan_in = import_store.import_fan_in(svc.db, copy + "/")
    widest = sorted(fan_in, key=lambda path: (-fan_in[path], path))
    with_body = next(path for path in widest if _RETURN_LINE.search((root / path).read_bytes()))
    leaves = sorted(path for path, n in fan_in.items() if n == 0 and not path.endswith("__init__.py"))
    return {
        "append_function": sources[middle],
        "body_edit": root / with_body,
        "widely_imported_new_name": root / widest[0],
        "delete_file": root / leaves[len(leaves) // 2],
    }


def update_kinds(svc: IGraphService, root: Path) -> dict[str, dict[str, Any]]:
    """One timed incremental update per kind (UPDATE_KINDS), each undone (and indexed) before the next: seconds,
    files parsed, reference edges bound again, the edited file and the run's phases."""
    out: dict[str, dict[str, Any]] = {}

    def timed(kind: str, path: Path) -> None:
        t = time.perf_counter()
        done = svc.index(embed=False)
        seconds = round(time.perf_counter() - t, 3)
        out[kind] = {
            "s": seconds,
            "parsed": done.parsed,
            "rebound": done.rebound,
            "file": str(path.relative_to(root)),
            "phases": done.phases,
        }

    for kind, path in _update_victims(svc, root).items():
        original = path.read_bytes()
        try:
            if kind == "delete_file":
                path.unlink()
            elif kind == "body_edit":
                m = _RETURN_LINE.search(original)
                assert m is not None
                path.write_bytes(original[: m.start()] + m.group(1) + b"pass\n" + original[m.start() :])
            else:
                path.write_bytes(original + _ADDED_FUNCTION)
            timed(kind, path)
        finally:
            path.write_bytes(original)  # the next kind and the next store index the same tree
        if kind == "delete_file":
            timed("new_file", path)  # the deleted file added back
        else:
            svc.index(embed=False)
    return out


def measure(root: Path, store: str | None, embedder: Embedder | None, *, keep: bool = False) -> dict[str, Any]:
    """Cold structure index, one-file updates, embedding, query latencies and size of one repository on one store
    (``keep``: on the index an earlier run left, brought up to date instead of built cold)."""
    out: dict[str, Any] = {}
    with _service(root, store, None) as svc:
        t = time.perf_counter()
        built = svc.index(full=not keep, embed=False)
        out["kept_index_update_s" if keep else "cold_structure_s"] = round(time.perf_counter() - t, 2)
        out["files"], out["symbols"], out["edges"] = built.files, built.symbols, built.edges
        rounds = [update_kinds(svc, root) for _ in range(UPDATE_ROUNDS)]
        out["updates"] = {
            kind: {**min((r[kind] for r in rounds), key=lambda u: u["s"]), "s_rounds": [r[kind]["s"] for r in rounds]}
            for kind in rounds[0]
        }
        out["one_file_update_s"] = out["updates"]["append_function"]["s"]
    if embedder is not None:
        with _service(root, store, embedder) as svc:
            t = time.perf_counter()
            done = svc.index()
            out["embed_s"] = round(time.perf_counter() - t, 1)
            out["vectors"] = done.embedded + done.embedReused
    with _service(root, store, embedder) as svc:
        out["fts"] = _timed_queries(svc, ("fts",))
        if embedder is not None:
            out["dense"] = _timed_queries(svc, ("dense",))
            out["hybrid"] = _timed_queries(svc, ("fts", "dense"))
        out["db_mb"] = round(svc.status().dbBytes / 2**20, 1)
    out["status"] = _timed_status(root, store, embedder)
    return out


STATUS_ROUNDS = 5


def _timed_status(root: Path, store: str | None, embedder: Embedder | None) -> dict[str, Any]:
    """igraph_status as a server answers it (its first call in a new service, then warm) and the ``status``
    command as a person runs it (a new process each time: interpreter, imports and the call)."""
    with _service(root, store, embedder) as svc:
        t = time.perf_counter()
        svc.status()
        first = (time.perf_counter() - t) * 1000
        warm = []
        for _ in range(STATUS_ROUNDS):
            t = time.perf_counter()
            svc.status()
            warm.append((time.perf_counter() - t) * 1000)
    command = [sys.executable, "-m", "igraph_mcp", "status", "--root", str(root)]
    if store is not None:
        command += ["--store", store]
    cli = []
    for _ in range(STATUS_ROUNDS):
        t = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=common.CHECKOUT)
        cli.append((time.perf_counter() - t) * 1000)
    return {
        "first_call_ms": round(first, 1),
        "warm_p50_ms": round(statistics.median(warm), 1),
        "cli_p50_ms": round(statistics.median(cli), 1),
    }


# Issue 20's targets at 1M symbols (dense recall@10 >= 0.95 is pg_dense.py's: it needs exact KNN ground truth).
TARGETS = (
    ("1m", "postgresql", ("hybrid", "p50_ms"), 50.0, "hybrid igraph_explore p50 <= 50 ms"),
    ("1m", "postgresql", ("hybrid", "p95_ms"), 150.0, "hybrid igraph_explore p95 <= 150 ms"),
    ("1m", "postgresql", ("one_file_update_s",), 1.0, "one-file update <= 1 s"),
    ("1m", "sqlite", ("one_file_update_s",), 1.0, "one-file update <= 1 s"),
    # issue 33: status stays instant at any size (a server's first and later igraph_status calls)
    ("1m", "sqlite", ("status", "first_call_ms"), 100.0, "igraph_status, first call <= 100 ms"),
    ("1m", "sqlite", ("status", "warm_p50_ms"), 100.0, "igraph_status, warm p50 <= 100 ms"),
    ("1m", "postgresql", ("status", "first_call_ms"), 100.0, "igraph_status, first call <= 100 ms"),
    ("1m", "postgresql", ("status", "warm_p50_ms"), 100.0, "igraph_status, warm p50 <= 100 ms"),
)


def target_lines(report: dict[str, Any]) -> list[str]:
    """One line per target whose size and store this run measured: the figure and MET or NOT MET."""
    lines = []
    for size, store, path, limit, what in TARGETS:
        value: Any = report["sizes"].get(size, {}).get(store)
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            lines.append(f"target {size} {store}: {what}: {value} -> {'MET' if value <= limit else 'NOT MET'}")
    return lines


def parallel_indexers(roots: Sequence[Path], store: str | None) -> dict[str, Any]:
    """N `igraph-mcp index --no-embed` processes at once, one repository each, into one store."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("IGRAPH_")}
    env["PYTHONPATH"] = str(common.CHECKOUT)

    def cmd(root: Path) -> list[str]:
        extra = ["--store", store, "--repo-name", root.parent.name] if store else []
        return [sys.executable, "-m", "igraph_mcp", "index", str(root), "--no-embed", "--json", *extra]

    t = time.perf_counter()
    procs = [
        subprocess.Popen(cmd(r), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in roots
    ]
    results = [p.communicate() for p in procs]
    wall = time.perf_counter() - t
    errors = [err.strip()[-300:] for p, (_, err) in zip(procs, results, strict=True) if p.returncode != 0]
    symbols = [json.loads(o)["symbols"] for p, (o, _) in zip(procs, results, strict=True) if p.returncode == 0]
    return {"processes": len(roots), "wall_s": round(wall, 1), "errors": errors, "symbols": symbols}


def _solo_symbols(root: Path) -> int:
    with _service(root, None, None) as svc:
        return svc.index(embed=False).symbols  # incremental: a kept one-copy index is reused


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print one JSON report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100k,1m")
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--pg-url", default=os.environ.get("IGRAPH_DATABASE_URL"))
    ap.add_argument("--base", action="append", help="name==version of an sdist to replicate (repeatable)")
    ap.add_argument("--embedder", choices=("replicated", "hash", "none"), default="replicated")
    ap.add_argument("--indexers", type=int, default=0, help="N parallel indexers into one store (0: skip)")
    ap.add_argument("--work", type=Path, default=common.cache_root() / "scale")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--keep",
        action="store_true",
        help="measure on the trees and indexes an earlier run left (no cold build; the database is not dropped)",
    )
    args = ap.parse_args(argv)

    specs = args.base or DEFAULT_BASES
    refused = [s for s in specs if REFUSED.match(s.partition("==")[0])]
    if refused:
        ap.error(f"{refused}: benchmark and tuning projects may not be replicated here; choose other sdists")
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    if "postgresql" in stores and not args.pg_url:
        ap.error("the postgresql store needs --pg-url or IGRAPH_DATABASE_URL")
    bases = [common.fetch_sdist(s, common.cache_root() / "sdists") for s in specs]
    packages = sorted({p.name for b in bases for p in _packages(b)})

    one = replicate(bases, args.work / "one-copy", 1) / "copy000"
    per_copy = _solo_symbols(one)
    embedder: Embedder | None = None
    if args.embedder == "replicated":
        model = embedder_from_config(EmbedderConfig())
        embedder = ReplicatedEmbedder(model, packages) if model is not None else None
    elif args.embedder == "hash":
        embedder = HashingEmbedder(384)

    report: dict[str, Any] = {"bases": specs, "symbols_per_copy": per_copy, "embedder": args.embedder, "sizes": {}}
    for size in [s.strip().lower() for s in args.sizes.split(",") if s.strip()]:
        copies = max(1, round(SIZES[size] / per_copy))
        root = replicate(bases, args.work / f"tree-{size}", copies)
        row: dict[str, Any] = {"copies": copies}
        for store in stores:
            name = f"igraph_scale_{size}"
            if store != "postgresql":
                url = None
            elif args.keep:
                url = _with_database(args.pg_url, name)
            else:
                url = fresh_pg_database(args.pg_url, name)
            if not args.keep:
                shutil.rmtree(root / ".igraph", ignore_errors=True)
            row[store] = measure(root, url, embedder, keep=args.keep)
            for kind, update in row[store]["updates"].items():  # one line per kind of one-file update
                print(json.dumps({size: {store: {"update": kind, **update}}}), flush=True)
            print(json.dumps({size: {store: row[store]}}), flush=True)
        report["sizes"][size] = row

    if args.indexers > 0:
        # One copy each, named by its folder (indexer-<i>) in the shared database.
        roots = [replicate(bases, args.work / f"indexer-{i}", 1) / "copy000" for i in range(args.indexers)]
        report["indexers"] = {}
        for store in stores:
            for r in roots:
                shutil.rmtree(r / ".igraph", ignore_errors=True)
            url = fresh_pg_database(args.pg_url, "igraph_scale_indexers") if store == "postgresql" else None
            got = parallel_indexers(roots, url)
            got["consistent"] = not got["errors"] and all(s == per_copy for s in got["symbols"])
            report["indexers"][store] = got
            print(json.dumps({"indexers": {store: got}}), flush=True)

    if isinstance(embedder, ReplicatedEmbedder):
        report["texts_embedded_by_the_model"] = embedder.embedded_by_model
    print(json.dumps(report, indent=2))
    for line in target_lines(report):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
