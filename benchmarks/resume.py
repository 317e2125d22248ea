"""Resume after a kill: how long a restarted, idle server takes to finish the vectors a killed one left missing.

usage: python benchmarks/resume.py [--tree PATH] [--fraction 0.3] [--repeat 1] [--json out.json]

The tree (default: this checkout's igraph_mcp/ and benchmarks/, about 2.7k symbols) is copied to a temporary
directory, never indexed in place. Then:

1. `igraph-mcp serve` (stdio, no client request ever) indexes the copy on its own, with the configured embedder
   (the bundled ONNX model by default); when the store holds ``fraction`` of the vectors it is SIGKILLed from
   outside, at whatever point of a batch it is.
2. The texts still without a vector are read from the store, and a second server is started; the store is polled
   every 0.1 s until every symbol has a vector: the time from its start is the time to coverage 1.0, so it includes
   the interpreter's start, the model's load and the resume's own look at the index.
3. The embedder alone embeds exactly those texts in this process, just before step 2 (model loaded and warmed
   first, batches of the indexer's size): remaining / that rate is what the vectors themselves take. The overhead
   is how much longer the server took: the target is at most 10 %.

With ``--repeat N`` steps 3 and 2 run N times, each restart from a copy of the same killed index, so the figures
of a shared, busy machine can be told from its noise. The rate the server itself reported in the store (the writer
lock's progress record, what igraph_status shows) is printed beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common  # the checkout on sys.path

from igraph_mcp.config import load_config
from igraph_mcp.embed.registry import embedder_from_config
from igraph_mcp.embed.text import symbol_embedding_text
from igraph_mcp.errors import NotIndexed
from igraph_mcp.service import IGraphService
from igraph_mcp.store import vectors as vec_store

POLL_S = 0.1
DEADLINE_S = 3600.0


def _copy_tree(tree: Path | None, dest: Path) -> Path:
    """The tree to index, copied (default: this checkout's package and benchmarks, no tests or index)."""
    ignore = shutil.ignore_patterns(".igraph", "__pycache__", ".git")
    if tree is not None:
        shutil.copytree(tree, dest, ignore=ignore)
        return dest
    dest.mkdir(parents=True)
    for part in ("igraph_mcp", "benchmarks"):
        shutil.copytree(common.CHECKOUT / part, dest / part, ignore=ignore)
    return dest


def _serve(root: Path, log: Path) -> subprocess.Popen[bytes]:
    """A stdio server on ``root`` whose stdin stays open and idle: no request is ever sent."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("IGRAPH_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(common.CHECKOUT))
    with open(log, "ab") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "igraph_mcp", "serve", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env,
        )


def _counts(svc: IGraphService) -> tuple[int, int] | None:
    """(nodes, nodes without a vector), or None before the first structure commit."""
    try:
        db = svc.db
        if db.get_meta("last_build") is None:
            return None
        return int(db.scalar("SELECT count(*) FROM nodes", default=0)), vec_store.count_nodes_to_embed(db)
    except NotIndexed:
        return None


def _poll(svc: IGraphService, proc: subprocess.Popen[bytes], done: float, log: Path) -> tuple[float, float, float]:
    """Poll until the share of nodes with a vector reaches ``done``: (time.monotonic() it was seen, the last
    embedding rate the server recorded, when its record first said it embeds)."""
    deadline = time.monotonic() + DEADLINE_S
    rate, embedding = 0.0, 0.0
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}): {log.read_text(errors='replace')[-1500:]}")
        counts = _counts(svc)
        activity = svc.activity()
        if activity is not None and activity.phase == "embed":
            embedding = embedding or time.monotonic()
            rate = activity.rate or rate
        if counts is not None and counts[0] and (counts[0] - counts[1]) / counts[0] >= done:
            return time.monotonic(), rate, embedding
        if time.monotonic() > deadline:
            raise SystemExit(f"coverage {done} not reached in {DEADLINE_S} s")
        time.sleep(POLL_S)


def _missing_texts(svc: IGraphService) -> list[str]:
    """The embedding texts of the nodes (symbols, then parts) without a vector, as the indexer builds them."""
    rows = vec_store.nodes_to_embed(svc.db, 10**9) + vec_store.nodes_to_embed(svc.db, 10**9, parts=True)
    return [
        symbol_embedding_text(
            kind=kind, name=name, qualified_name=qname, path=path, signature=sig, docstring=doc, body=body
        )
        for _id, _fid, kind, name, qname, path, sig, doc, body in rows
    ]


def _embed_rate(root: Path, texts: list[str]) -> float:
    """Texts per second of the configured embedder on ``texts`` (warmed, batches of the indexer's size)."""
    config = load_config(root)
    embedder = embedder_from_config(config.embedder)
    if embedder is None:
        raise SystemExit("no embedder is configured: this benchmark measures resuming the embedding phase")
    embedder.embed(texts[:8])  # load and warm the model: not part of what the vectors take
    batch = max(256, config.embedder.batchSize)
    started = time.perf_counter()
    for i in range(0, len(texts), batch):
        embedder.embed(texts[i : i + batch])
    return len(texts) / (time.perf_counter() - started)


def run(tree: Path | None, fraction: float, repeat: int = 1) -> list[dict[str, float | int]]:
    """Index, kill at ``fraction`` of the vectors; then ``repeat`` times, from that same killed state: the embedder's
    own rate on the remaining texts, and a restarted server's time to coverage 1.0 (interleaved, so the load of a
    shared machine drifts alike for both)."""
    out: list[dict[str, float | int]] = []
    with tempfile.TemporaryDirectory(prefix="igraph-resume-") as tmp:
        root = _copy_tree(tree, Path(tmp) / "tree")
        log = Path(tmp) / "serve.log"
        killed = Path(tmp) / "killed-index"
        svc = IGraphService(root, embed=False)  # a reader of the store; it embeds nothing itself
        try:
            first = _serve(root, log)
            _poll(svc, first, fraction, log)
            first.send_signal(signal.SIGKILL)
            first.wait()
            counts = _counts(svc)
            assert counts is not None
            nodes, remaining = counts
            texts = _missing_texts(svc)
        finally:
            svc.close()
        shutil.copytree(root / ".igraph", killed)
        for _ in range(repeat):
            rate = _embed_rate(root, texts)
            shutil.rmtree(root / ".igraph")
            shutil.copytree(killed, root / ".igraph")
            svc = IGraphService(root, embed=False)
            try:
                started = time.monotonic()
                second = _serve(root, log)
                finished, server_rate, embedding = _poll(svc, second, 1.0, log)
                second.stdin.close()  # type: ignore[union-attr]
                second.wait(timeout=60)
            finally:
                svc.close()
            took = finished - started
            expected = remaining / rate
            out.append(
                {
                    "nodes": nodes,
                    "remaining": remaining,
                    "secondsToCoverage1": round(took, 2),
                    "secondsToFirstBatch": round(embedding - started, 2) if embedding else -1,
                    "embedderRate": round(rate, 1),
                    "serverReportedRate": round(server_rate, 1),
                    "vectorsSeconds": round(expected, 2),
                    "overheadPercent": round(100 * (took / expected - 1), 1),
                }
            )
    return out


def main() -> None:
    """Run once and print the figures (and write them as JSON with --json)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=None, help="a source tree (default: this checkout's code)")
    ap.add_argument("--fraction", type=float, default=0.3, help="share of the vectors stored when it is killed")
    ap.add_argument("--repeat", type=int, default=1, help="restarts from the same killed state (default 1)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if not 0 < args.fraction < 1:
        raise SystemExit("--fraction must lie between 0 and 1")
    runs = run(args.tree, args.fraction, max(1, args.repeat))
    for out in runs:
        print(
            f"{out['nodes']} nodes to embed; killed at {args.fraction:.0%}: {out['remaining']} vectors remaining\n"
            f"restarted idle server: coverage 1.0 after {out['secondsToCoverage1']} s "
            f"(it was embedding {out['secondsToFirstBatch']} s after its start; it reported "
            f"{out['serverReportedRate']} vectors/s)\n"
            f"embedder alone on those texts: {out['embedderRate']} vectors/s = {out['vectorsSeconds']} s\n"
            f"overhead: {out['overheadPercent']} % (target <= 10 %)"
        )
    if len(runs) > 1:
        took = sum(float(r["secondsToCoverage1"]) for r in runs)
        expected = sum(float(r["vectorsSeconds"]) for r in runs)
        print(f"all {len(runs)} restarts: {took:.1f} s against {expected:.1f} s: {100 * (took / expected - 1):.1f} %")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
