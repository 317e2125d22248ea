"""Embedding throughput (raw model vs indexer; torch vs ONNX fp32 vs ONNX int8), cold CLI search, query latency.

usage: python benchmarks/query_latency.py --latency-tree PATH [--throughput-sdist click==8.1.8] [--json out.json]
       python benchmarks/query_latency.py --latency-tree PATH --long-queries 20 --throughput-sdist ''
       python benchmarks/query_latency.py --runtimes [--runtime-tree PATH] [--texts 400] [--sweep]
                                          [--cli-sdist requests==2.32.3]
       python benchmarks/query_latency.py --int8-sweep --runtime-tree PATH --texts 4000 --throughput-sdist ''

--runtimes: on the same symbol texts (default: this checkout's own package, so no benchmark project is tuned
against), one process embeds with sentence-transformers on torch, ONNX Runtime fp32 and ONNX Runtime int8, and
prints texts/s and the cosine of each vector to torch's. --sweep adds ONNX fp32 batch sizes x batches side by side.
--int8-sweep: the shipped int8 model alone (no torch), batch sizes x batches run one at a time or two side by side,
texts/s and each setting's lowest cosine to the vectors of one run at a time at the shipped batch size.
--cli-sdist: cold `igraph-mcp search` wall time (a new process per call) on an indexed copy of the tree, for each
runtime, plus hybrid query latency in-process on the same index.

--long-queries N: with --latency-tree, also the agent's default call on N issue-length questions: the devset's
tuning-half problem statements of at least 2,500 characters (any project; latency only), cut to 2,500, each asked
once to warm up, then timed --rounds times; prints their p50 / p95 and each stage's median (the answer's timingsMs).

Throughput: a fresh copy of a small real project is indexed structure-only, then the same symbol texts are
embedded twice in one process: once by calling the model's encode directly (raw), once through the indexer's
embedding phase (text building, batching, vector writes, commits). Latency: queries against an index that is
already embedded (e.g. a Django tree the retrieval benchmark indexed), after the model is loaded.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import common  # the checkout on sys.path, the download cache
import numpy as np
from index_speed import fetch_sdist, percentile

from igraph_mcp.config import load_config
from igraph_mcp.embed.text import symbol_embedding_text
from igraph_mcp.index.embedding import embed_nodes
from igraph_mcp.service import IGraphService
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.vectors import prepare_vector_tables

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
        # Every text the indexer embeds: the symbols', then the parts' of long definitions.
        rows = vec_store.nodes_to_embed(db, 1_000_000) + vec_store.nodes_to_embed(db, 1_000_000, parts=True)
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


DEVSET = common.devset_path()
ISSUES = 20  # issue texts timed in the "issue" modes (Django's devset issues: latency only, never tuning)


def issue_texts(devset: Path = DEVSET, project: str = "Django", limit: int = ISSUES) -> list[str]:
    """The first ``limit`` problem statements of ``project`` in the devset (empty when the file is absent)."""
    if not devset.is_file():
        return []
    out = []
    for line in devset.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        if row.get("pypi_name") == project:
            out.append(str(row["problem_statement"]))
    return out[:limit]


LONG_QUERY_CHARS = 2_500  # an issue-length question (issue 33's figure)


def long_issue_texts(devset: Path = DEVSET, limit: int = ISSUES, chars: int = LONG_QUERY_CHARS) -> list[str]:
    """The first ``limit`` tuning-half problem statements of at least ``chars`` characters, cut to ``chars``."""
    from devset_half import load_split

    if not devset.is_file():
        return []
    half = load_split()
    out = []
    for line in devset.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        text = str(row.get("problem_statement", ""))
        if half.get(str(row.get("instance_id"))) == "tuning" and len(text) >= chars:
            out.append(text[:chars])
    return out[:limit]


def long_latency(svc: IGraphService, texts: list[str], rounds: int) -> dict[str, Any]:
    """p50 / p95 of the default call on issue-length questions, and each stage's median time."""
    for text in texts:  # warm: first reads of each question's terms and rows
        svc.explore(text)
    lat: list[float] = []
    stages: dict[str, list[float]] = {}
    for _ in range(rounds):
        for text in texts:
            t = time.perf_counter()
            answer = svc.explore(text)
            lat.append((time.perf_counter() - t) * 1000)
            for stage, ms in answer.diagnostics.timingsMs.items():
                stages.setdefault(stage, []).append(ms)
    return {
        "long_issue_queries": len(texts),
        "long_issue_chars": LONG_QUERY_CHARS,
        "long_issue_p50_ms": round(statistics.median(lat), 2),
        "long_issue_p95_ms": round(percentile(lat, 95), 2),
        "long_issue_stage_p50_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()},
    }


def latency(tree: Path, rounds: int, long_queries: int = 0) -> dict[str, Any]:
    """p50/p95 of FTS-only, hybrid and hybrid + 2-hop expansion queries on an embedded index.

    The ``issue`` modes time whole issue texts (title + body): the query head is embedded, and the graph
    channel and the learned re-ranking run, as they do for every issue-shaped query. ``default_issue`` is the
    agent's default call (nodeTopK hits, graph hops).
    """
    svc = IGraphService(tree)
    status = svc.status()
    svc.explore("warm up the model", top_k=10)
    out: dict[str, Any] = {"symbols": status.symbols, "vectors": status.vectors}
    issues = issue_texts()
    for label, channels, hops, queries in (
        ("fts", ("fts",), 0, QUERIES),
        ("hybrid", ("fts", "dense"), 0, QUERIES),
        ("hybrid_hops2", ("fts", "dense"), 2, QUERIES),
        ("hybrid_issue", ("fts", "dense"), 0, issues),
        ("default_issue", ("fts", "dense"), 2, issues),
    ):
        if not queries:
            continue
        lat: list[float] = []
        for _ in range(rounds):
            for q in queries:
                t = time.perf_counter()
                svc.explore(q, top_k=None if label == "default_issue" else 10, hops=hops, channels=channels)
                lat.append((time.perf_counter() - t) * 1000)
        out[f"{label}_p50_ms"] = round(statistics.median(lat), 2)
        out[f"{label}_p95_ms"] = round(percentile(lat, 95), 2)
    if long_queries:
        out.update(long_latency(svc, long_issue_texts(limit=long_queries), rounds))
    svc.close()
    return out


def _symbol_texts(tree: Path, limit: int) -> list[str]:
    """The texts the indexer would embed for ``tree`` (a structure-only index of a temporary copy)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / tree.name
        shutil.copytree(tree, root, ignore=shutil.ignore_patterns(".igraph", "__pycache__"))
        svc = IGraphService(root, embed=False)
        svc.index(full=True, embed=False)
        rows = vec_store.nodes_to_embed(svc.db, 1_000_000) + vec_store.nodes_to_embed(svc.db, 1_000_000, parts=True)
        svc.close()
    texts = [
        symbol_embedding_text(kind=k, name=n, qualified_name=q, path=p, signature=s, docstring=d, body=b)
        for _i, _f, k, n, q, p, s, d, b in rows
    ]
    step = max(1, len(texts) // limit)  # spread over the tree rather than the first files only
    return texts[::step][:limit]


def _rate(embedder: Any, texts: list[str]) -> tuple[float, np.ndarray[Any, Any]]:
    embedder.embed(texts[:32])  # load and warm outside the timing
    t = time.perf_counter()
    vectors = np.concatenate([embedder.embed(texts[i : i + 256]) for i in range(0, len(texts), 256)])
    return len(texts) / (time.perf_counter() - t), vectors


def runtimes(tree: Path, limit: int, sweep: bool) -> dict[str, Any]:
    """Texts/s of torch, ONNX fp32 and ONNX int8 on the same texts, and each one's cosine to torch's vectors."""
    from igraph_mcp.embed.local import LocalEmbedder
    from igraph_mcp.embed.onnx_local import OnnxEmbedder

    texts = _symbol_texts(tree, limit)
    out: dict[str, Any] = {"texts": len(texts), "tree": tree.name}
    torch_rate, torch_vecs = _rate(LocalEmbedder(), texts)
    out["torch_texts_per_s"] = round(torch_rate, 1)
    for label, embedder in (("onnx_fp32", OnnxEmbedder()), ("onnx_int8", OnnxEmbedder(quantize="int8"))):
        rate, vecs = _rate(embedder, texts)
        cos = (vecs * torch_vecs).sum(axis=1)
        out[f"{label}_texts_per_s"] = round(rate, 1)
        out[f"{label}_vs_torch"] = round(rate / torch_rate, 2)
        out[f"{label}_cosine_mean"] = round(float(cos.mean()), 4)
        out[f"{label}_cosine_min"] = round(float(cos.min()), 4)
    if sweep:
        part = texts[: max(64, len(texts) // 2)]
        for runs in (1, 2):
            for batch in (16, 32, 64, 128):
                rate, _ = _rate(OnnxEmbedder(threads=runs, batch_size=batch), part)
                out[f"sweep_runs{runs}_batch{batch}_texts_per_s"] = round(rate, 1)
    return out


def cold_cli(sdist: str, rounds: int) -> dict[str, Any]:
    """Wall time of a fresh `igraph-mcp search` process on an indexed tree, per runtime; then hybrid latency.

    Each runtime searches an index of its own vectors: int8 (the default) for ONNX int8, fp32 for ONNX fp32 and for
    torch (whose vectors carry the same id). A hybrid cell whose answer did not use the dense channel is an error,
    not a figure: it would time an FTS-only search.
    """
    src = fetch_sdist(sdist)
    out: dict[str, Any] = {"tree": src.name}
    with tempfile.TemporaryDirectory() as tmp:
        roots: dict[str, Path] = {}
        # fp32 vectors (and the torch runtime that searches them) need the torch extra to export the model.
        has_torch = importlib.util.find_spec("torch") is not None
        for quantize in ("auto", "none") if has_torch else ("auto",):
            root = Path(tmp) / quantize / src.name
            shutil.copytree(src, root, ignore=shutil.ignore_patterns(".igraph"))
            config = load_config(root, env={**os.environ, "IGRAPH_EMBED_QUANTIZE": quantize})
            svc = IGraphService(root, config=config)
            built = svc.index(full=True)
            svc.close()
            out[f"symbols_{quantize}"], out[f"embedded_{quantize}"] = built.symbols, built.embedded
            roots[quantize] = root
        cases = (
            ("onnx_int8_hybrid", "onnx", "auto", "hybrid"),
            ("onnx_fp32_hybrid", "onnx", "none", "hybrid"),
            ("torch_hybrid", "torch", "none", "hybrid"),
            ("fts_only", "onnx", "auto", "fts"),
        )
        for label, runtime, quantize, channels in cases:
            if quantize not in roots:
                out[f"cli_{label}_median_s"] = "skipped: torch is not installed (the torch extra)"
                continue
            env = {
                # An installed package has its bytecode: a child that may not write it would time compiling too.
                **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                "IGRAPH_EMBED_RUNTIME": runtime,
                "IGRAPH_EMBED_QUANTIZE": quantize,
                "HF_HUB_OFFLINE": "1",
            }
            walls = []
            for i in range(-1, rounds):  # round -1 writes the bytecode and is not timed
                query = ["send a prepared request through a session", "parse the retry header", "cookie jar"][i % 3]
                cmd = [sys.executable, "-m", "igraph_mcp", "search", query, "--root", str(roots[quantize])]
                cmd += ["--channels", channels, "--json"]
                t = time.perf_counter()
                done = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
                if i >= 0:
                    walls.append(time.perf_counter() - t)
                used = json.loads(done.stdout)["diagnostics"]["channels"]
                if channels == "hybrid" and "dense" not in used:
                    raise SystemExit(f"{label}: the search ran without its dense channel ({used}); not a hybrid figure")
            out[f"cli_{label}_median_s"] = round(statistics.median(walls), 2)
            out[f"cli_{label}_runs_s"] = [round(w, 2) for w in walls]
        out.update({f"requests_{k}": v for k, v in latency(roots["auto"], rounds).items()})
    return out


def int8_sweep(tree: Path, limit: int) -> dict[str, Any]:
    """Texts/s of the shipped int8 model (no torch) on the same texts, in calls of 256 as the indexer makes them:
    batches run one at a time or two side by side (each on one thread), per batch size; and whether each setting's
    vectors are bit-identical to those of one run at a time at the shipped batch size."""
    from igraph_mcp.embed.onnx_local import DEFAULT_BATCH_SIZE, OnnxEmbedder

    texts = _symbol_texts(tree, limit)
    out: dict[str, Any] = {"texts": len(texts), "tree": tree.name}
    _, reference = _rate(OnnxEmbedder(quantize="int8", threads=1), texts)
    for batch in (4, 8, 16, 32):
        for runs in (1, 2):
            rate, vectors = _rate(OnnxEmbedder(quantize="int8", threads=runs, batch_size=batch), texts)
            key = f"runs{runs}_batch{batch}"
            out[f"{key}_texts_per_s"] = round(rate, 1)
            out[f"{key}_cosine_min"] = round(float((vectors * reference).sum(axis=1).min()), 4)
            if batch == DEFAULT_BATCH_SIZE:
                out[f"{key}_identical"] = bool(np.array_equal(vectors, reference))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency-tree", type=Path, help="an already embedded tree with >= 20k symbols")
    ap.add_argument("--runtimes", action="store_true", help="torch vs ONNX fp32 vs ONNX int8 on the same texts")
    ap.add_argument("--runtime-tree", type=Path, default=common.CHECKOUT / "igraph_mcp")
    ap.add_argument("--texts", type=int, default=400)
    ap.add_argument("--sweep", action="store_true", help="with --runtimes: ONNX batch sizes x batches side by side")
    ap.add_argument("--int8-sweep", action="store_true", help="shipped int8: batch sizes x runs side by side")
    ap.add_argument("--cli-sdist", default=None, help="e.g. requests==2.32.3: cold CLI search + hybrid latency")
    ap.add_argument("--throughput-sdist", default="click==8.1.8")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--long-queries", type=int, default=0, help="with --latency-tree: N issue-length questions")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    figures: dict[str, object] = {}
    if args.runtimes:
        figures["runtimes"] = runtimes(args.runtime_tree, args.texts, args.sweep)
    if args.int8_sweep:
        figures["int8_sweep"] = int8_sweep(args.runtime_tree, args.texts)
    if args.cli_sdist:
        figures["cold_cli"] = cold_cli(args.cli_sdist, args.rounds)
    if args.throughput_sdist:
        figures["throughput"] = throughput(args.throughput_sdist)
    if args.latency_tree:
        figures["latency"] = latency(args.latency_tree, args.rounds, args.long_queries)
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
