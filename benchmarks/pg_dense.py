"""pgvector on real MiniLM vectors: recall@10 and latency per storage type, HNSW build setting and ef_search.

Vectors are read out of existing SQLite indexes built with the default embedder (every ``igraph.db`` under the
given folders whose vectors came from ``local:all-MiniLM-L6-v2+int8``), de-duplicated, and replicated with a
small Gaussian perturbation (then re-normalised) up to ``--size``: random vectors are HNSW's worst case and
say nothing about code embeddings. Queries are real vectors held out of the table together with their replicas.
Ground truth is an exact scan over the float4 column: an unprepared query (a prepared one keeps its HNSW plan)
with ``enable_indexscan = off``.

    python benchmarks/pg_dense.py --url postgresql://user@host/db [--size 100000] [--queries 200]

Prints one line per setting: build seconds, index MB, recall@10, p50/p95 ms; then exact-scan latency by table size
and the dense channel's 200-neighbour probe.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import common
import numpy as np

MODEL = "local:all-MiniLM-L6-v2+int8"
SCHEMA = "bench_pg_dense"


def real_vectors(folders: list[Path]) -> np.ndarray:
    """Distinct unit vectors of the default model from every SQLite index under ``folders``."""
    import apsw
    import sqlite_vec

    chunks: list[np.ndarray] = []
    for folder in folders:
        for path in sorted(folder.expanduser().rglob("igraph.db")):
            con = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
            try:
                con.enable_load_extension(True)
                con.load_extension(sqlite_vec.loadable_path())
                meta = dict(con.execute("SELECT key, value FROM meta WHERE key LIKE 'embedder_%'"))
                if meta.get("embedder_id") != MODEL:
                    continue
                blobs = [bytes(r[0]) for r in con.execute("SELECT embedding FROM node_vectors")]
            except apsw.Error:
                continue
            finally:
                con.close()
            if blobs:
                chunks.append(np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1))
    if not chunks:
        sys.exit(f"no index with {MODEL} vectors under {', '.join(map(str, folders))}")
    vecs = np.unique(np.concatenate(chunks), axis=0)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def replicate(base: np.ndarray, size: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """``base`` then perturbed copies of it, ``size`` rows in all, each row unit length."""
    out = [base]
    total = len(base)
    while total < size:
        take = base[: size - total]
        noisy = take + rng.normal(0.0, sigma, take.shape).astype(np.float32)
        out.append(noisy / np.linalg.norm(noisy, axis=1, keepdims=True))
        total += len(take)
    return np.concatenate(out)[:size].astype(np.float32)


def lit(v: np.ndarray) -> str:
    """pgvector's text form."""
    return "[" + ",".join(repr(float(x)) for x in v) + "]"


def load(con: Any, table: np.ndarray) -> None:
    """The table with one float4 and one half-precision column holding the same vectors."""
    con.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    con.execute(f"CREATE SCHEMA {SCHEMA}")
    con.execute(f"SET search_path = {SCHEMA}, public")
    d = table.shape[1]
    con.execute(f"CREATE TABLE v(id bigint PRIMARY KEY, e vector({d}) NOT NULL, h halfvec({d}) NOT NULL)")
    with con.cursor().copy("COPY v(id, e, h) FROM STDIN") as copy:
        for i, row in enumerate(table):
            s = lit(row)
            copy.write_row((i, s, s))
    con.execute("VACUUM ANALYZE v")


def timed(con: Any, sql: str, params: tuple[Any, ...]) -> tuple[list[int], float]:
    """Ids returned and milliseconds taken by one query."""
    t = time.perf_counter()
    ids = [int(r[0]) for r in con.execute(sql, params).fetchall()]
    return ids, (time.perf_counter() - t) * 1000


def pct(xs: list[float], q: float) -> float:
    """The q-quantile of xs."""
    return statistics.quantiles(xs, n=100)[int(q * 100) - 1] if len(xs) > 1 else xs[0]


def main() -> None:
    """Run the measurement and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="PostgreSQL URL (a scratch schema is created and dropped)")
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--sigma", type=float, default=0.015, help="per-dimension noise of a replica (unit vectors)")
    ap.add_argument("--ef", default="20,40,64,100,200", help="ef_search values")
    ap.add_argument(
        "--settings", default="vector:16:64,halfvec:16:64,halfvec:16:128", help="type:m:ef_construction list"
    )
    ap.add_argument("--from", dest="folders", nargs="*", type=Path, help="folders holding igraph.db files")
    ap.add_argument("--keep", action="store_true", help="keep the scratch schema")
    args = ap.parse_args()

    import psycopg

    cache = common.cache_root()
    folders = args.folders or [cache, cache.parent / "igraph-mcp-train"]
    rng = np.random.default_rng(20261201)
    vecs = real_vectors(folders)
    order = rng.permutation(len(vecs))
    queries, base = vecs[order[: args.queries]], vecs[order[args.queries :]]
    table = replicate(base, args.size, args.sigma, rng)
    print(f"{len(vecs)} distinct real vectors; table {len(table)} rows (sigma {args.sigma}), {len(queries)} queries")

    con = psycopg.connect(args.url, autocommit=True, prepare_threshold=None)  # never prepared: see the docstring
    con.execute("CREATE EXTENSION IF NOT EXISTS vector")
    t = time.perf_counter()
    load(con, table)
    print(f"load {time.perf_counter() - t:.1f} s")
    qlits = [lit(q) for q in queries]

    con.execute("SET enable_indexscan = off")
    truth: list[set[int]] = []
    exact_ms: list[float] = []
    for q in qlits:
        ids, ms = timed(con, "SELECT id FROM v ORDER BY e <=> %s::vector LIMIT 10", (q,))
        truth.append(set(ids))
        exact_ms.append(ms)
    con.execute("RESET enable_indexscan")
    sims = table @ queries.T  # cross-check the database's exact answer with numpy
    agree = np.mean([len(set(np.argsort(-sims[:, j])[:10].tolist()) & truth[j]) / 10 for j in range(len(queries))])
    print(f"exact scan (float4, {len(table)} rows): p50 {pct(exact_ms, 0.5):.1f} ms p95 {pct(exact_ms, 0.95):.1f} ms;")
    print(f"  agreement with numpy {agree:.4f}")

    con.execute("SET maintenance_work_mem = '1GB'")
    con.execute("SET max_parallel_maintenance_workers = 0")  # the machine is shared
    print(
        f"{'type':8} {'m':>3} {'efc':>4} {'build_s':>8} {'index_MB':>9} {'ef':>4} {'recall@10':>9} {'p50_ms':>7} "
        f"{'p95_ms':>7}"
    )
    for setting in args.settings.split(","):
        kind, m, efc = setting.split(":")
        col, ops = ("e", "vector_cosine_ops") if kind == "vector" else ("h", "halfvec_cosine_ops")
        con.execute("DROP INDEX IF EXISTS v_hnsw")
        t = time.perf_counter()
        con.execute(
            f"CREATE INDEX v_hnsw ON v USING hnsw ({col} {ops}) WITH (m = {int(m)}, ef_construction = {int(efc)})"
        )
        build = time.perf_counter() - t
        size_mb = con.execute("SELECT pg_relation_size('v_hnsw')").fetchone()[0] / 2**20
        for ef in (int(x) for x in args.ef.split(",")):
            con.execute(f"SET hnsw.ef_search = {ef}")
            recalls, lat = [], []
            for q, want in zip(qlits, truth, strict=True):
                ids, ms = timed(con, f"SELECT id FROM v ORDER BY {col} <=> %s::{kind} LIMIT 10", (q,))
                recalls.append(len(set(ids) & want) / 10)
                lat.append(ms)
            print(
                f"{kind:8} {m:>3} {efc:>4} {build:8.1f} {size_mb:9.1f} {ef:>4} {statistics.mean(recalls):9.4f} "
                f"{pct(lat, 0.5):7.2f} {pct(lat, 0.95):7.2f}"
            )
        # The dense channel's probe: 200 neighbours (ef_search raised to 200); recall of the true top 10 in it.
        con.execute("SET hnsw.ef_search = 200")
        recalls, lat = [], []
        for q, want in zip(qlits, truth, strict=True):
            ids, ms = timed(con, f"SELECT id FROM v ORDER BY {col} <=> %s::{kind} LIMIT 200", (q,))
            recalls.append(len(set(ids[:10]) & want) / 10)
            lat.append(ms)
        print(
            f"{'':8} {'':>3} {'':>4} {'':>8} {'':>9} {'k200':>4} {statistics.mean(recalls):9.4f} "
            f"{pct(lat, 0.5):7.2f} {pct(lat, 0.95):7.2f}"
        )

    print("exact scan (halfvec) by table size:")
    for n in (2_000, 5_000, 10_000, 20_000, 50_000):
        if n > len(table):
            break
        lat = [
            timed(con, "SELECT id FROM v WHERE id < %s ORDER BY (h <=> %s::halfvec) + 0 LIMIT 10", (n, q))[1]
            for q in qlits[:50]
        ]
        print(f"  {n:>7} rows: p50 {pct(lat, 0.5):6.2f} ms p95 {pct(lat, 0.95):6.2f} ms")
    if not args.keep:
        con.execute(f"DROP SCHEMA {SCHEMA} CASCADE")
    con.close()


if __name__ == "__main__":
    main()
