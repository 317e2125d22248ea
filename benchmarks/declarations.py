"""Do declarations crowd out implementations? Type-only share of the top 5 and repeated names, before and after.

    python benchmarks/declarations.py [--questions benchmarks/decl_questions.json] [--packages undici,commander]
        [--type-only 0.5,1.0] [--json OUT]

Each package of the questions file (npm name and pinned version) is fetched once with `npm pack` into the download
cache (``common.cache_root()/npm``, never the repository), indexed with the configured embedder (the bundled model by
default), and asked its "where/how is X done" questions with the default explore call (FTS + dense, 2 hops), once
per variant:

- ``before``: ``RetrievalParams(fold_declarations=False, unique_names=False)``, the hits as fused;
- ``after``: the shipped parameters (declarations folded into implementations, type-only hits demoted, each
  qualified name once);
- ``type_only=X``: the shipped ones with another demotion factor (``--type-only``; 1.0 = folding only).

Per package and overall it prints: ``type-only@5`` (share of the top-5 hit slots held by declaration-flagged nodes,
interfaces and type aliases), ``dup/answer`` (qualified names repeated in an answer, hits and neighbours together,
per answer) and ``answers with dup``, ``impl@5`` (questions with an expected implementation in the top 5),
``folded@5`` (top-5 hits that carry a folded declaration) and the median tokens of the answer's text.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common

from igraph_mcp.config import load_config
from igraph_mcp.embed.registry import embedder_from_config
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.next_step import word
from igraph_mcp.render import render_explore
from igraph_mcp.retrieve.budget import estimate_tokens
from igraph_mcp.retrieve.folding import TYPE_ONLY_KINDS, name_key
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.service import IGraphService
from igraph_mcp.store import nodes as node_store

QUESTIONS = Path(__file__).with_name("decl_questions.json")
DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")


def fetch_package(name: str, version: str) -> Path:
    """The unpacked npm package ``name@version`` in the download cache (``npm pack`` once)."""
    dest = common.cache_root() / "npm"
    tree = dest / f"{name.replace('/', '+').lstrip('@')}-{version}"
    if tree.is_dir():
        return tree
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not on PATH: install Node.js (npm) to fetch the packages")
    dest.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(  # fixed arguments, a pinned version
        [npm, "pack", f"{name}@{version}", "--json", "--pack-destination", str(dest)],
        check=True,
        capture_output=True,
        text=True,
    )
    archive = dest / json.loads(out.stdout)[0]["filename"]
    staging = tree.with_name(tree.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    with tarfile.open(archive) as tf:
        tf.extractall(staging, filter="data")
    (staging / "package").rename(tree)
    shutil.rmtree(staging)
    return tree


@dataclass
class Tally:
    """What one variant's answers held, summed over questions."""

    questions: int = 0
    slots: int = 0
    type_only: int = 0
    duplicates: int = 0
    answers_with_dup: int = 0
    implemented: int = 0
    folded: int = 0
    tokens: list[int] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Add another tally's counts to this one."""
        for name in ("questions", "slots", "type_only", "duplicates", "answers_with_dup", "implemented", "folded"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.tokens += other.tokens

    def row(self) -> list[str]:
        """The printed figures."""
        pct = lambda n, d: f"{100 * n / d:.1f}%" if d else "-"  # noqa: E731
        median = int(statistics.median(self.tokens)) if self.tokens else 0
        return [
            pct(self.type_only, self.slots),
            f"{self.duplicates / max(self.questions, 1):.2f}",
            f"{self.answers_with_dup}/{self.questions}",
            f"{self.implemented}/{self.questions}",
            str(self.folded),
            str(median),
        ]


def ask(svc: IGraphService, question: dict[str, Any], params: RetrievalParams, tally: Tally) -> dict[str, Any]:
    """One default explore call; its figures go into ``tally``; returns the top 5 for the JSON dump."""
    r = svc.explore(question["q"], params=params)
    top = r.hits[:5]
    rows = node_store.nodes_by_ids(svc.db, [h.nodeId for h in top])
    type_only = [
        h for h in top if h.kind in TYPE_ONLY_KINDS or ((row := rows.get(h.nodeId)) is not None and row.declaration)
    ]
    keys = [name_key(h.kind, h.qualifiedName, h.name, h.filePath) for h in r.hits]
    keys += [name_key(n.kind, n.qualifiedName, n.name, n.filePath) for n in r.neighbours]
    repeated = sum(c - 1 for c in Counter(keys).values() if c > 1)
    expect = set(question["expect"])
    found = any(h.qualifiedName in expect and not h.filePath.endswith(DECLARATION_SUFFIXES) for h in top)
    tally.questions += 1
    tally.slots += len(top)
    tally.type_only += len(type_only)
    tally.duplicates += repeated
    tally.answers_with_dup += int(repeated > 0)
    tally.implemented += int(found)
    tally.folded += sum(1 for h in top if h.declaredAt)
    tally.tokens.append(estimate_tokens(word(render_explore(r), AGENT_WORDS)))  # as the agent reads it
    return {
        "q": question["q"],
        "top5": [f"{h.kind} {h.qualifiedName} {h.filePath}:{h.startLine}" for h in top],
        "typeOnly": len(type_only),
        "repeated": repeated,
        "found": found,
    }


def main() -> None:
    """Index each package, ask its questions per variant, print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--packages", default="", help="comma-separated npm names (default: every package in the file)")
    ap.add_argument("--type-only", default="1.0", help="extra variants: other type_only factors (comma-separated)")
    ap.add_argument("--json", type=Path, help="write every answer's top 5 here")
    ap.add_argument(
        "--param",
        action="append",
        default=[],
        help="an extra variant: the shipped parameters with NAME=VALUE[;NAME=VALUE] (retrieve/params.py fields)",
    )
    args = ap.parse_args()

    spec = json.loads(args.questions.read_text(encoding="utf-8"))
    wanted = {p for p in args.packages.split(",") if p}
    packages = [p for p in spec["packages"] if not wanted or p["name"] in wanted]
    factors = [float(x) for x in args.type_only.split(",") if x]
    totals: dict[str, Tally] = {}
    dump: dict[str, Any] = {}
    header = ["variant", "type-only@5", "dup/answer", "answers with dup", "impl@5", "folded@5", "tokens (median)"]
    for package in packages:
        root = fetch_package(package["name"], package["version"])
        config = load_config(root)
        svc = IGraphService(root, config=config, embedder=embedder_from_config(config.embedder))
        try:
            summary = svc.index()
            print(f"\n{package['name']}@{package['version']}: {summary.files} files, {summary.symbols} symbols")
            shipped = RetrievalParams.from_config(config.retrieval)
            variants = {
                "before": RetrievalParams.from_config(config.retrieval, fold_declarations=False, unique_names=False),
                "after": shipped,
                **{f"type_only={f}": shipped.with_value("type_only", f) for f in factors if f != shipped.type_only},
                **{spec: shipped.with_assignments(spec.split(";")) for spec in args.param},
            }
            print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
            for label, params in variants.items():
                tally = Tally()
                dump[f"{package['name']}/{label}"] = [ask(svc, q, params, tally) for q in package["questions"]]
                totals.setdefault(label, Tally()).add(tally)
                print("| " + " | ".join([label, *tally.row()]) + " |")
        finally:
            svc.close()
    print("\nall packages")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for label, tally in totals.items():
        print("| " + " | ".join([label, *tally.row()]) + " |")
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1), encoding="utf-8")
        print(f"answers: {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
