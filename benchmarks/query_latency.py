"""Embedding throughput of the indexer vs the raw model, and query latency on a large embedded index.

usage: python benchmarks/query_latency.py --latency-tree PATH [--throughput-sdist click==8.1.8] [--json out.json]

Throughput: a fresh copy of a small real project is indexed structure-only, then the same symbol texts are
embedded twice in one process: once by calling the model's encode directly (raw), once through the indexer's
embedding phase (text building, batching, vector writes, commits). Latency: queries against an index that is
already embedded (e.g. a Django tree the retrieval benchmark indexed), after the model is loaded.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

_SRC = Path(__file__).resolve().parents[1]
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from index_speed import fetch_sdist, percentile  # noqa: E402

from igraph_mcp.embed.text import symbol_embedding_text  # noqa: E402
from igraph_mcp.index.embedding import embed_nodes, prepare_vector_tables  # noqa: E402
from igraph_mcp.service import IGraphService  # noqa: E402
from igraph_mcp.store import vectors as vec_store  # noqa: E402

QUERIES = [
    "QuerySet.get_or_create",
    "how are database transactions committed or rolled back",
    "render a template with a context",
    "csrf token validation failed",
    "ForeignKey on_delete cascade",
    "parse the Accept-Language header",
    "send email with attachments",
    "migration autodetector renamed field",
    "password reset token generator",
    "paginate a queryset",
    "cache key for a view",
    "validate an email address",
    "timezone aware datetime conversion",
    "admin changelist filters",
    "URL resolver reverse with arguments",
    "serialize model instances to json",
    "file upload handler memory limit",
    "select_related prefetch_related",
    "signal sent after a model is saved",
    "middleware that sets security headers",
]


def throughput(sdist: str) -> dict[str, float]:
    """Texts/s of the raw model vs the indexer's embedding phase on the same texts, in one process."""
    src = fetch_sdist(sdist)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / src.name
        shutil.copytree(src, root, ignore=shutil.ignore_patterns(".igraph"))
        svc = IGraphService(root)
        svc.index(full=True, embed=False)
        embedder = svc.embedder()
        assert embedder is not None, "the local embedder is needed"
        db = svc.db
        rows = vec_store.nodes_to_embed(db, 1_000_000)
        texts = [
            symbol_embedding_text(kind=k, name=n, qualified_name=q, path=p, signature=s, docstring=d, body=b)
            for _i, _f, k, n, q, p, s, d, b in rows
        ]
        embedder.embed(texts[:64])  # load and warm the model outside both timings
        t = time.perf_counter()
        for i in range(0, len(texts), 256):
            embedder.embed(texts[i : i + 256])
        raw_s = time.perf_counter() - t
        with svc._writer() as wdb:  # the same write path `igraph-mcp index` uses
            prepare_vector_tables(wdb, embedder)
            t = time.perf_counter()
            embedded, _reused = embed_nodes(wdb, embedder, batch_size=256)
            pipe_s = time.perf_counter() - t
        svc.close()
    return {
        "texts": len(texts),
        "raw_texts_per_s": round(len(texts) / raw_s, 1),
        "indexer_texts_per_s": round(embedded / pipe_s, 1),
        "indexer_vs_raw": round((embedded / pipe_s) / (len(texts) / raw_s), 3),
    }


def latency(tree: Path, rounds: int) -> dict[str, float]:
    """p50/p95 of FTS-only, hybrid and hybrid + 2-hop expansion queries on an embedded index."""
    svc = IGraphService(tree)
    status = svc.status()
    svc.explore("warm up the model", top_k=10)
    out: dict[str, float] = {"symbols": status.symbols, "vectors": status.vectors}
    for label, channels, hops in (
        ("fts", ("fts",), 0),
        ("hybrid", ("fts", "dense"), 0),
        ("hybrid_hops2", ("fts", "dense"), 2),
    ):
        lat: list[float] = []
        for _ in range(rounds):
            for q in QUERIES:
                t = time.perf_counter()
                svc.explore(q, top_k=10, hops=hops, channels=channels)
                lat.append((time.perf_counter() - t) * 1000)
        out[f"{label}_p50_ms"] = round(statistics.median(lat), 2)
        out[f"{label}_p95_ms"] = round(percentile(lat, 95), 2)
    svc.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency-tree", type=Path, help="an already embedded tree with >= 20k symbols")
    ap.add_argument("--throughput-sdist", default="click==8.1.8")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    figures: dict[str, object] = {}
    if args.throughput_sdist:
        figures["throughput"] = throughput(args.throughput_sdist)
    if args.latency_tree:
        figures["latency"] = latency(args.latency_tree, args.rounds)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
