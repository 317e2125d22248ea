"""Call-graph accuracy against jedi: precision of resolved `calls` edges and recall on library call sites.

usage: python benchmarks/graph_accuracy.py [--trees attrs,tomlkit,marshmallow] [--show-wrong N]
                                           [--json OUT] [--no-oracle-cache]

Each tree is a PyPI sdist downloaded (`pip download --no-deps --no-binary :all:`) into
``$IGRAPH_BENCH_CACHE/graph/sdists`` (default ``~/.cache/igraph-mcp-bench``) and unpacked into
``graph/trees``; a structure-only index (no embeddings) is built inside the unpacked tree.

For every `calls` edge the call site is located on its line (the n-th `name(` of that name on the line, n
being the edge's rank among same-name edges of that line) and jedi is asked what the name there refers to:
``Script.goto(line, col, follow_imports=True)``; when that lands on no function or class (a variable,
an alias), ``Script.infer`` at the same place. jedi's sys.path is the tree's source roots (``src/`` first,
then every directory holding a top-level package, e.g. an example project) plus the standard library, never
site-packages, so an installed copy of the project cannot answer for the tree.
jedi's answers are cached per file hash in ``graph/oracle/<tree>.json``: re-runs after a resolver change
only re-index.

A resolved edge is *correct* when jedi names the same definition (same file, same name, jedi's line inside
the target's lines; a class and its ``__init__`` count as the same callee), *wrong* when jedi names another
definition (in the repository or outside it: builtins, stdlib, dependencies), and *unknown* when jedi
names nothing. precision = correct / (correct + wrong + unknown): an edge nobody can confirm is not
counted as right. ``judged`` is correct / (correct + wrong).
Recall: call sites in library files (not tests, docs or examples) where jedi names a function or class in
the repository; recalled when our edge from that site binds to it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import sysconfig
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import common

# requests, flask and click, this benchmark's first trees, are reserved for checks now: never fetched again.
TREES: dict[str, str] = {
    "attrs": "24.2.0",
    "tomlkit": "0.13.2",
    # Untuned: chosen before any resolver change, never looked at while changing it; reported separately.
    "marshmallow": "3.23.1",
}
DEFAULT_TREES = ("attrs", "tomlkit", "marshmallow")
UNTUNED = frozenset({"marshmallow"})
NON_LIBRARY_PARTS = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks"})
ORACLE_VERSION = 2
TARGET_PRECISION = 0.97
TARGET_METHOD_PRECISION = 0.93
TARGET_RECALL = 0.85


def cache_dir() -> Path:
    """This script's part of the benchmark cache."""
    return common.cache_root() / "graph"


def fetch_tree(name: str, version: str) -> Path:
    """Download and unpack one sdist; returns the unpacked directory."""
    return common.fetch_sdist(f"{name}=={version}", cache_dir() / "sdists", cache_dir() / "trees")


def is_library(path: str) -> bool:
    """Library code: not tests, docs, examples or benchmarks."""
    parts = path.split("/")
    stem = parts[-1]
    return not (set(parts[:-1]) & NON_LIBRARY_PARTS) and not stem.startswith("test_") and stem != "conftest.py"


# --------------------------------------------------------------------------- oracle
@dataclass(frozen=True, slots=True)
class Def:
    """A definition jedi names: path relative to the tree ("" = outside it), line, name, type."""

    path: str
    line: int
    name: str
    type: str


def _source_roots(tree: Path) -> list[str]:
    """Directories holding a top-level package (examples/tutorial for examples/tutorial/flaskr/__init__.py)."""
    roots = set()
    for init in tree.rglob("__init__.py"):
        package = init.parent
        while (package.parent / "__init__.py").is_file():
            package = package.parent
        roots.add(package.parent)
    return [str(r) for r in sorted(roots, key=lambda r: (r != tree / "src", len(r.parts), str(r)))]


def _jedi_sys_path(tree: Path) -> list[str]:
    stdlib = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
    roots = _source_roots(tree)
    return [*roots, str(tree), *sorted(stdlib), *(p for p in sys.path if p.endswith("lib-dynload"))]


def _defs(names: list[object], tree: Path) -> list[Def]:
    out: list[Def] = []
    for n in names:
        mp = getattr(n, "module_path", None)
        line = getattr(n, "line", None) or 0
        rel = ""
        if mp is not None:
            try:
                rel = Path(mp).resolve().relative_to(tree.resolve()).as_posix()
            except ValueError:
                rel = ""
        out.append(Def(rel, int(line), str(getattr(n, "name", "")), str(getattr(n, "type", ""))))
    return out


def ask_jedi(tree: Path, path: str, source: str, sites: list[tuple[int, int]]) -> dict[tuple[int, int], list[Def]]:
    """jedi's definitions for each (line, column) in one file."""
    import jedi

    project = jedi.Project(tree, sys_path=_jedi_sys_path(tree), smart_sys_path=False)
    out: dict[tuple[int, int], list[Def]] = {}
    script = None
    for i, (line, col) in enumerate(sites):
        if i % 25 == 0:  # a reused Script runs out of inference budget; renew it now and then
            script = jedi.Script(source, path=tree / path, project=project)
        assert script is not None
        try:
            found = _defs(script.goto(line, col, follow_imports=True), tree)
            if not any(d.type in ("function", "class") for d in found):
                inferred = _defs(script.infer(line, col), tree)
                if inferred:
                    found = inferred
        except Exception:  # jedi bugs on odd code must not stop the measurement
            found = []
        out[(line, col)] = found
    return out


# --------------------------------------------------------------------------- measuring
@dataclass(slots=True)
class Tally:
    """Counts for one tree and one resolution method."""

    edges: int = 0
    correct: int = 0
    wrong: int = 0
    unknown: int = 0

    def precision(self) -> float:
        """correct / edges (unknown counts against)."""
        return self.correct / self.edges if self.edges else 1.0

    def judged(self) -> float:
        """correct / (correct + wrong)."""
        n = self.correct + self.wrong
        return self.correct / n if n else 1.0


@dataclass(slots=True)
class TreeResult:
    """Everything measured on one tree."""

    name: str
    by_method: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    recall_sites: int = 0
    recalled: int = 0
    unresolved_lib_sites: int = 0
    wrong_examples: list[str] = field(default_factory=list)
    missed_examples: list[str] = field(default_factory=list)
    index_seconds: float = 0.0
    oracle_seconds: float = 0.0

    def total(self) -> Tally:
        """All resolved edges together."""
        t = Tally()
        for m in self.by_method.values():
            t.edges += m.edges
            t.correct += m.correct
            t.wrong += m.wrong
            t.unknown += m.unknown
        return t

    def recall(self) -> float:
        """Library call sites recalled / library call sites jedi resolves into the tree."""
        return self.recalled / self.recall_sites if self.recall_sites else 1.0


def _matches(d: Def, path: str, name: str, kind: str, start: int, end: int) -> bool:
    if d.path != path or not start <= d.line <= end:
        return False
    if d.name == name:
        return True
    # A class and its constructor are the same callee.
    return (kind == "class" and d.name == "__init__") or (name == "__init__" and d.type == "class")


def _column(line_text: str, name: str, nth: int) -> int | None:
    hits = [m.start(1) for m in re.finditer(rf"(?<![\w.])(?:[\w.\])]*\.)?({re.escape(name)})\s*\(", line_text)]
    hits = hits or [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", line_text)]
    return hits[nth] if nth < len(hits) else None


def measure(name: str, tree: Path, *, use_cache: bool, show_wrong: int) -> TreeResult:
    """Index one tree and judge its call edges with jedi."""
    from igraph_mcp.service import IGraphService
    from igraph_mcp.store import call_sites

    result = TreeResult(name)
    svc = IGraphService(tree, embed=False)
    started = time.perf_counter()
    svc.index(full=True, embed=False)
    result.index_seconds = time.perf_counter() - started
    sites = call_sites.call_sites(svc.db)
    svc.close()

    oracle_path = cache_dir() / "oracle" / f"{tree.name}.json"
    oracle: dict[str, dict[str, list[list[object]]]] = {}
    if use_cache and oracle_path.is_file():
        cached = json.loads(oracle_path.read_text(encoding="utf-8"))
        if cached.get("version") == ORACLE_VERSION:
            oracle = cached["files"]

    by_file: dict[str, list[call_sites.CallSite]] = defaultdict(list)
    for s in sites:
        by_file[s.path].append(s)
    started = time.perf_counter()
    located: list[tuple[call_sites.CallSite, list[Def]]] = []
    for path, file_sites in sorted(by_file.items()):
        source = (tree / path).read_text(encoding="utf-8", errors="replace")
        lines = source.splitlines()
        sha = hashlib.sha256(source.encode()).hexdigest()
        rank: Counter[tuple[int, str]] = Counter()
        cols: list[tuple[call_sites.CallSite, int | None]] = []
        for s in file_sites:
            nth = rank[(s.line, s.name)]
            rank[(s.line, s.name)] += 1
            text = lines[s.line - 1] if 0 < s.line <= len(lines) else ""
            cols.append((s, _column(text, s.name, nth)))
        entry = oracle.get(path)
        if entry is None or entry.get("sha") != [sha]:
            wanted = sorted({(s.line, c) for s, c in cols if c is not None})
            answers = ask_jedi(tree, path, source, wanted)
            entry = {
                "sha": [sha],
                "sites": [[ln, c, [[d.path, d.line, d.name, d.type] for d in ds]] for (ln, c), ds in answers.items()],
            }
            oracle[path] = entry
        answers_by_pos = {(int(r[0]), int(r[1])): [Def(*d) for d in r[2]] for r in entry["sites"]}  # type: ignore[misc]
        for s, c in cols:
            located.append((s, answers_by_pos.get((s.line, c), []) if c is not None else []))
    result.oracle_seconds = time.perf_counter() - started
    oracle_path.parent.mkdir(parents=True, exist_ok=True)
    oracle_path.write_text(json.dumps({"version": ORACLE_VERSION, "files": oracle}), encoding="utf-8")

    for s, defs in located:
        defs = [d for d in defs if d.type in ("function", "class")] or defs
        if s.target_id is not None:
            tally = result.by_method[s.resolution]
            tally.edges += 1
            if any(
                _matches(d, s.target_path, s.target_name, s.target_kind, s.target_start, s.target_end) for d in defs
            ):
                tally.correct += 1
            else:
                if defs:
                    tally.wrong += 1
                else:
                    tally.unknown += 1
                if len(result.wrong_examples) < show_wrong:
                    said = ", ".join(f"{d.path or '<external>'}:{d.line} {d.name}" for d in defs[:2]) or "nothing"
                    result.wrong_examples.append(
                        f"{s.resolution:15} {s.path}:{s.line} {s.qualifier + '.' if s.qualifier else ''}{s.name}"
                        f" -> {s.target_path}:{s.target_start} {s.target_name}   jedi: {said}"
                    )
        if is_library(s.path):
            inside = [d for d in defs if d.path and d.type in ("function", "class")]
            if inside:
                result.recall_sites += 1
                if s.target_id is not None and any(
                    _matches(d, s.target_path, s.target_name, s.target_kind, s.target_start, s.target_end)
                    for d in inside
                ):
                    result.recalled += 1
                else:
                    if s.target_id is None:
                        result.unresolved_lib_sites += 1
                    if len(result.missed_examples) < show_wrong:
                        result.missed_examples.append(
                            f"{s.resolution:15} {s.path}:{s.line} {s.qualifier + '.' if s.qualifier else ''}{s.name}"
                            f"   jedi: {inside[0].path}:{inside[0].line} {inside[0].name}"
                        )
    return result


def _fmt(t: Tally) -> str:
    return f"{t.edges:6d} {t.precision():6.3f} {t.judged():6.3f} {t.wrong:5d} {t.unknown:5d}"


def report(results: list[TreeResult]) -> bool:
    """Print the tables; returns whether every target is met."""
    ok = True
    print(f"{'tree':12} {'resolution':16} {'edges':>6} {'prec':>6} {'judged':>6} {'wrong':>5} {'unkn':>5}")
    for r in results:
        for method, t in sorted(r.by_method.items()):
            flag = "" if t.precision() >= TARGET_METHOD_PRECISION else "  < target"
            ok &= not flag
            print(f"{r.name:12} {method:16} {_fmt(t)}{flag}")
        total = r.total()
        flag = "" if total.precision() >= TARGET_PRECISION else "  < target"
        ok &= not flag
        print(f"{r.name:12} {'ALL resolved':16} {_fmt(total)}{flag}")
        rflag = "" if r.recall() >= TARGET_RECALL else "  < target"
        ok &= not rflag
        print(
            f"{r.name:12} {'recall (library)':16} {r.recall_sites:6d} {r.recall():6.3f}"
            f"   ({r.recalled} recalled, {r.unresolved_lib_sites} left unresolved){rflag}"
            f"   index {r.index_seconds:.1f}s oracle {r.oracle_seconds:.1f}s"
        )
        if r.name in UNTUNED:
            print(f"{r.name:12} (untuned tree)")
    print(
        f"targets: precision >= {TARGET_PRECISION}, every method >= {TARGET_METHOD_PRECISION},"
        f" library recall >= {TARGET_RECALL}: {'MET' if ok else 'NOT MET'}"
    )
    return ok


def main() -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--trees", default=",".join(DEFAULT_TREES), help=f"comma-separated, of {', '.join(TREES)}")
    ap.add_argument("--show-wrong", type=int, default=0, help="print up to N wrong edges and missed sites per tree")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--no-oracle-cache", action="store_true", help="ask jedi again for every call site")
    args = ap.parse_args()
    results = []
    for name in [t.strip() for t in args.trees.split(",") if t.strip()]:
        if name not in TREES:
            ap.error(f"unknown tree {name!r}; choose from {', '.join(TREES)}")
        tree = fetch_tree(name, TREES[name])
        r = measure(name, tree, use_cache=not args.no_oracle_cache, show_wrong=args.show_wrong)
        results.append(r)
        for line in r.wrong_examples:
            print(f"  wrong  {name}: {line}", file=sys.stderr)
        for line in r.missed_examples:
            print(f"  missed {name}: {line}", file=sys.stderr)
    ok = report(results)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    r.name: {
                        "methods": {m: asdict(t) for m, t in r.by_method.items()},
                        "recall": r.recall(),
                        "recall_sites": r.recall_sites,
                        "untuned": r.name in UNTUNED,
                    }
                    for r in results
                },
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
