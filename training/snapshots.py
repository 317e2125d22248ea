"""Index one snapshot per mined repository, so mined commit queries can be replayed on the service's own index.

    python training/snapshots.py --plan --budget-symbols 90000      # choose repositories and snapshots
    nice -n 15 python training/snapshots.py --index                 # export and index the planned snapshots

A snapshot is the **parent of an older mined commit** of the repository (``SNAPSHOT_DEPTH`` mined commits before
HEAD), exported with ``git archive`` from the bare mirror and indexed by the service with the default bundled
embedder (one ONNX thread, one parse worker), so the candidate generation replayed later is the service's own.
The queries of a snapshot are the mined commits that are *not* contained in it (``git rev-list snapshot..HEAD``):
their fixes came after the snapshot, so the indexed code never holds the change the query asks for (the leakage a
snapshot at HEAD would have). ``replay_commits.py`` keeps those whose edited definitions exist in the snapshot.

The plan (``training/snapshots.tsv``: repository, split, language, snapshot commit, estimated symbols, candidate
queries) is committed; the trees and their indexes stay in ``~/.cache/igraph-mcp-train/snapshots/``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

_SRC = Path(__file__).resolve().parents[1]
if str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mine_commits import CACHE as COMMITS  # noqa: E402
from mine_commits import MIRRORS, is_vendored, mirror_dir, refusal  # noqa: E402

from igraph_mcp.vocab.languages import language_for_path  # noqa: E402

SNAPSHOTS = COMMITS.parent / "snapshots"
PLAN_FILE = Path(__file__).with_name("snapshots.tsv")
SNAPSHOT_DEPTH = 200  # mined commits (with definitions) newer than the snapshot: the queries it can answer
MAX_FILE_BYTES = 1_000_000  # the indexer's default maxFileBytes
BYTES_PER_SYMBOL = 450  # estimate of indexed symbols from source bytes (measured on the first snapshots)
MIN_SYMBOLS, MAX_SYMBOLS = 400, 9_000  # many mid-size repositories over a few big ones
# The order languages are taken in while the budget lasts (Python first, as the devset is Python).
LANGUAGE_ORDER = ("python", "typescript", "javascript", "go", "java", "rust")
HELDOUT_SHARE = 0.3  # of the budget, kept for held-out repositories so the held-out split is not a handful


@dataclass(frozen=True)
class Planned:
    """One repository's snapshot: where it is cut and how big it is expected to be."""

    repo: str
    split: str
    language: str
    snapshot: str
    symbols: int
    queries: int

    def row(self) -> str:
        """The line of snapshots.tsv."""
        return "\t".join((self.repo, self.split, self.language, self.snapshot, str(self.symbols), str(self.queries)))


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True, text=True).stdout


def _records(repo: str) -> list[dict[str, object]]:
    path = COMMITS / f"{repo.replace('/', '+')}.jsonl"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as fh:
        return [r for line in fh if (r := json.loads(line))["functions"]]


def tree_size(git_dir: Path, commit: str) -> tuple[str, int]:
    """(main language, source bytes) of a commit's tree: indexed-language files the walker would read."""
    by_language: Counter[str] = Counter()
    for line in _git(git_dir, "ls-tree", "-r", "-l", commit).splitlines():
        meta, _, path = line.partition("\t")
        size = meta.split()[3]
        language = language_for_path(path)
        # "-" is a submodule, "BAD" a blob the mirror lacks (too large for the snapshot fetch)
        if language is None or not size.isdigit() or int(size) > MAX_FILE_BYTES or is_vendored(path):
            continue
        by_language[language] += int(size)
    if not by_language:
        return "", 0
    return by_language.most_common(1)[0][0], sum(by_language.values())


def plan_repo(repo: str) -> Planned | None:
    """The snapshot of one mined repository, or None (no mirror, refused, too few mined commits)."""
    git_dir = mirror_dir(repo, MIRRORS)
    records = _records(repo)
    if git_dir is None or refusal(repo) or len(records) < 30:
        return None
    cut = records[min(SNAPSHOT_DEPTH, len(records) - 1)]
    snapshot = str(cut["parent"])
    language, size = tree_size(git_dir, snapshot)
    newer = set(_git(git_dir, "rev-list", f"{snapshot}..HEAD").split())
    queries = sum(r["commit"] in newer for r in records)
    return Planned(repo, str(cut["split"]), language, snapshot, size // BYTES_PER_SYMBOL, queries)


def choose(candidates: list[Planned], budget: int) -> list[Planned]:
    """Fill the symbol budget: held-out repositories up to their share, then train ones, by language order."""
    fit = [c for c in candidates if MIN_SYMBOLS <= c.symbols <= MAX_SYMBOLS and c.language in LANGUAGE_ORDER]
    fit.sort(key=lambda c: (LANGUAGE_ORDER.index(c.language), c.symbols, c.repo))
    chosen: list[Planned] = []
    for split, share in (("heldout", HELDOUT_SHARE), ("train", 1.0)):
        room = budget * share if split == "heldout" else budget - sum(c.symbols for c in chosen)
        # Round-robin over languages so a small budget still spans more than Python.
        queues = {lang: [c for c in fit if c.split == split and c.language == lang] for lang in LANGUAGE_ORDER}
        while room > 0 and any(queues.values()):
            for lang in LANGUAGE_ORDER:
                # Python twice per round: the devset (and the gates) are Python.
                for _ in range(2 if lang == "python" else 1):
                    if queues[lang] and queues[lang][0].symbols <= room:
                        c = queues[lang].pop(0)
                        chosen.append(c)
                        room -= c.symbols
                    elif queues[lang]:
                        queues[lang].pop(0)
    # Indexing order: held-out and train interleaved, so a run stopped early still has both splits.
    held = [c for c in chosen if c.split == "heldout"]
    train = [c for c in chosen if c.split == "train"]
    step = max(1, round(len(train) / max(1, len(held))))
    ordered: list[Planned] = []
    for i, c in enumerate(held):
        ordered += [c, *train[i * step : (i + 1) * step]]
    return ordered + train[len(held) * step :]


def read_plan(path: Path = PLAN_FILE) -> list[Planned]:
    """The committed plan."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    return [Planned(r[0], r[1], r[2], r[3], int(r[4]), int(r[5])) for r in rows]


def snapshot_root(p: Planned) -> Path:
    """Where a snapshot's tree (and its .igraph index) lives."""
    return SNAPSHOTS / p.repo.replace("/", "+") / p.snapshot[:12]


def export(p: Planned) -> Path:
    """Unpack the snapshot's tree from the mirror (once)."""
    root = snapshot_root(p)
    if (root / ".exported").is_file():
        return root
    git_dir = mirror_dir(p.repo, MIRRORS)
    if git_dir is None:
        raise SystemExit(f"{p.repo}: no mirror under {MIRRORS}; fetch it or set IGRAPH_MIRRORS")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    archive = subprocess.Popen(["git", "--git-dir", str(git_dir), "archive", p.snapshot], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(root)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"{p.repo}: git archive {p.snapshot} failed")
    (root / ".exported").write_text(p.snapshot, encoding="utf-8")
    return root


def open_service(root: Path, embed: bool = True) -> object:
    """The service on a snapshot with the default bundled embedder, on one thread (the cores are shared)."""
    from igraph_mcp.config import load_config
    from igraph_mcp.embed.local import DEFAULT_MODEL
    from igraph_mcp.embed.onnx_local import OnnxEmbedder
    from igraph_mcp.embed.query_transform import with_query_transform
    from igraph_mcp.embed.registry import AUTO_QUANTIZE, embedder_from_config
    from igraph_mcp.service import IGraphService

    os.environ.setdefault("IGRAPH_PARSE_WORKERS", "1")
    config = load_config(root)
    e = config.embedder
    if e.backend != "local" or e.runtime != "onnx":
        raise SystemExit(f"expected the default local ONNX embedder, config says {e.backend}/{e.runtime}")
    quantize = AUTO_QUANTIZE if e.quantize == "auto" else e.quantize
    embedder = OnnxEmbedder(e.model or DEFAULT_MODEL, quantize=quantize, threads=1, adapter=e.adapter)
    default = embedder_from_config(e)
    if default is None or default.id != embedder.id:
        raise SystemExit(f"the one-thread embedder {embedder.id} is not the configured one")
    # The configured query transform (IGRAPH_EMBED_QUERY_TRANSFORM), as embedder_from_config applies it.
    return IGraphService(root, config=config, embedder=with_query_transform(embedder, e.queryTransform))


def index_all(plan: list[Planned], minutes: float) -> None:
    """Export and index each planned snapshot in order, until the time budget is spent (resumable)."""
    deadline = time.monotonic() + minutes * 60
    # Python first (the devset's language), then small before large: a run stopped early holds the most queries.
    for p in sorted(plan, key=lambda p: (p.language != "python", p.symbols)):
        root = snapshot_root(p)
        if (root / ".indexed").is_file():
            continue
        if time.monotonic() > deadline:
            print(f"time budget spent before {p.repo}", file=sys.stderr)
            break
        started = time.perf_counter()
        export(p)
        svc = open_service(root)
        summary = svc.index()  # type: ignore[attr-defined]
        close = getattr(svc, "close", None)
        if callable(close):
            close()
        seconds = time.perf_counter() - started
        dump = getattr(summary, "model_dump", None)
        info = dump() if callable(dump) else {"summary": str(summary)}
        info |= {"seconds": round(seconds, 1), "repo": p.repo, "snapshot": p.snapshot}
        (root / ".indexed").write_text(json.dumps(info, default=str), encoding="utf-8")
        print(f"{p.repo}: {seconds:.0f}s {json.dumps(info, default=str)[:300]}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Plan the snapshots or index them."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plan", action="store_true", help="choose repositories and snapshots; write snapshots.tsv")
    ap.add_argument("--budget-symbols", type=int, default=90_000)
    ap.add_argument("--index", action="store_true", help="export and index the planned snapshots")
    ap.add_argument("--minutes", type=float, default=40.0, help="stop starting new snapshots after this long")
    args = ap.parse_args(argv)
    if args.plan:
        repos = sorted(p.name.removesuffix(".jsonl").replace("+", "/", 1) for p in COMMITS.glob("*.jsonl"))
        candidates = [c for r in repos if (c := plan_repo(r)) is not None]
        chosen = choose(candidates, args.budget_symbols)
        header = "repository\tsplit\tlanguage\tsnapshot\test_symbols\tcandidate_queries"
        PLAN_FILE.write_text("\n".join([header, *(c.row() for c in chosen)]) + "\n", encoding="utf-8")
        by = Counter((c.split, c.language) for c in chosen)
        print(f"{len(chosen)} of {len(candidates)} repositories, {sum(c.symbols for c in chosen)} symbols: {by}")
    if args.index:
        index_all(read_plan(), args.minutes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
