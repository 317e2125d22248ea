"""Replay mined commit queries on their snapshot's index: the service's own candidates, with labels, for training.

    python training/replay_commits.py --out ~/.cache/igraph-mcp-train/replay/commits.jsonl.gz

For each indexed snapshot of ``snapshots.tsv`` (``snapshots.py``), the mined commits newer than the snapshot whose
edited definitions exist in it (same path and qualified name) become queries, at most ``--per-repo`` of them
(the newest first). Each runs through the service's analyze and channel stages with the shipped parameters
(``igraph_mcp/retrieve/stages.py``, as ``benchmarks/rerank_dump.py`` does for the devset), and one line is
written in ``rerank_dump.py``'s format, so ``benchmarks/rerank_train.py`` and ``training/train_rerank.py`` replay
fuse -> boost -> rank files -> rerank from it. Extra fields: ``spans`` (each candidate's first and last line),
``issue`` (whether the service treats the text as an issue), ``qvec`` (the head vector the dense channel
searched, float16, base64) and ``gold_ids`` (the node ids of the edited definitions, for the query transform).

The split (``half``) is the miner's, by repository: ``train`` or ``heldout``. Gold files are the edited source
files that exist in the snapshot; gold functions the edited definitions that do.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import metrics as m
import snapshots as snap
from mine_commits import MIRRORS, is_vendored, issue_text, mirror_dir

from igraph_mcp.vocab.languages import language_for_path

PER_REPO = 150  # queries per repository: no repository's vocabulary dominates the training set
ROW_FIELDS = ("path", "kind", "name", "qualified_name")
CLASS_KINDS = frozenset({"class", "interface", "struct", "trait", "enum"})


def newer_commits(p: snap.Planned) -> set[str]:
    """The commits reachable from HEAD that the snapshot does not contain."""
    git_dir = mirror_dir(p.repo, MIRRORS)
    assert git_dir is not None
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-list", f"{p.snapshot}..HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split())


def queries_of(p: snap.Planned, keys: dict[str, int], paths: set[str], limit: int = PER_REPO) -> list[dict[str, Any]]:
    """The snapshot's queries: newer mined commits with at least one edited definition in the snapshot."""
    newer = newer_commits(p)
    out = []
    for r in snap._records(p.repo):
        if r["commit"] not in newer:
            continue
        golds = m.dedupe(f"{f['path']}::{f['qualified_name']}" for f in r["functions"])  # type: ignore[attr-defined]
        golds = [g for g in golds if g in keys]
        if not golds:
            continue
        files = [
            f["parent_path"] or f["path"]
            for f in r["files"]  # type: ignore[attr-defined]
            if language_for_path(f["parent_path"] or f["path"]) and not is_vendored(f["path"])
        ]
        r = dict(r, golds=golds, gold_files=[f for f in m.dedupe(files) if f in paths])
        out.append(r)
        if len(out) >= limit:
            break
    return out


def dump_query(svc: Any, rec: dict[str, Any], keys: dict[str, int], class_keys: frozenset[str]) -> dict[str, Any]:
    """One query's channel lists, candidate rows and labels (rerank_dump.py's fields and the extras)."""
    from igraph_mcp.retrieve import stages
    from igraph_mcp.store import nodes as node_store

    db, params = svc.db, svc.retrieval_params
    text = issue_text(rec)
    query = stages.analyze(db, text, params)
    found = stages.search_channels(db, query, svc.dense_state(), params, ("fts", "dense"))
    lists = found.ranked
    ids = list(dict.fromkeys(n for ranked in lists.values() for n in ranked))
    rows = node_store.nodes_by_ids(db, ids)
    golds = rec["golds"]
    gold_of = {}
    for nid, row in rows.items():
        hit = (m.normalize_path(row.path), row.qualified_name)
        hits = [i for i, g in enumerate(golds) if m.function_match(g, hit, class_keys)]
        if hits:
            gold_of[str(nid)] = hits
    qvec = None
    if found.query_vector is not None:
        vec = np.frombuffer(found.query_vector, dtype=np.float32).astype(np.float16)
        qvec = base64.b64encode(vec.tobytes()).decode("ascii")
    return {
        "qid": f"{rec['repository']}@{rec['commit'][:12]}",
        "half": rec["split"],
        "tree": rec["repository"],
        "text": text,
        "issue": query.issue,
        "definition_counts": query.analysis.definition_counts,
        "lists": lists,
        "rows": {str(nid): [getattr(row, f) for f in ROW_FIELDS] for nid, row in rows.items()},
        "spans": {str(nid): [row.start_line, row.end_line] for nid, row in rows.items()},
        "gold_files": rec["gold_files"],
        "golds": golds,
        "gold_of": gold_of,
        "gold_ids": [keys[g] for g in golds],
        "class_keys": sorted(class_keys & ({*golds} | {f"{r.path}::{r.qualified_name}" for r in rows.values()})),
        "qvec": qvec,
    }


def symbol_keys(db: Any) -> tuple[dict[str, int], frozenset[str], set[str]]:
    """(path::qualified_name -> node id, the class keys, the indexed file paths) of a snapshot."""
    from igraph_mcp.store import files as file_store
    from igraph_mcp.store import nodes as node_store

    paths = file_store.file_paths(db)
    keys: dict[str, int] = {}
    classes = set()
    for s in node_store.symbol_table(db):
        key = f"{paths[s.file_id]}::{s.qualified_name}"
        keys.setdefault(key, s.id)
        if s.kind in CLASS_KINDS:
            classes.add(key)
    return keys, frozenset(classes), set(paths.values())


def main(argv: list[str] | None = None) -> int:
    """Dump every indexed snapshot's queries."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-repo", type=int, default=PER_REPO)
    ap.add_argument("--repos", default="", help="only these repositories (comma list)")
    args = ap.parse_args(argv)
    only = set(filter(None, args.repos.split(",")))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = 0
    with gzip.open(args.out, "wt", encoding="utf-8") as out:
        for p in snap.read_plan():
            root = snap.snapshot_root(p)
            if not (root / ".indexed").is_file() or (only and p.repo not in only):
                continue
            started = time.perf_counter()
            svc: Any = snap.open_service(root)
            try:
                keys, class_keys, paths = symbol_keys(svc.db)
                recs = queries_of(p, keys, paths, args.per_repo)
                for rec in recs:
                    out.write(json.dumps(dump_query(svc, rec, keys, class_keys)) + "\n")
                out.flush()
            finally:
                svc.close()
            done += len(recs)
            print(f"{p.repo}: {len(recs)} queries, {time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    print(f"{done} queries -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
