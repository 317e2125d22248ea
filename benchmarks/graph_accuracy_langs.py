"""Call-graph accuracy against each language's compiler: TypeScript/JavaScript (the TypeScript compiler), Go
(go/types), Java (javac), C and C++ (clang), Rust (rustc), as graph_accuracy.py measures Python against jedi.

usage: python benchmarks/graph_accuracy_langs.py [--trees NAME,...] [--show-wrong N] [--json OUT]
       (trees: immer, ajv, commander, marked, toml, goldmark, viper, javapoet, jsoup, commons-cli, hiredis, zstd,
       libuv, cli11, log, regex; default all)

Trees are pinned: npm packages (``npm pack``, only their source folders kept) and Go modules from git tags (a
``fetch``ed mirror under ``$IGRAPH_BENCH_MIRRORS``, default ``.mirror`` beside the checkout, else a clone from
GitHub), unpacked
under ``$IGRAPH_BENCH_CACHE/langgraph/trees`` (default ``~/.cache/igraph-mcp-bench``). Each tree gets a
structure-only index. The oracles list every call the index can capture (a callee that is a name or a member
access; Go composite literals of a named type) with what the compiler resolves it to:
``benchmarks/ts_oracle.js`` (npm ``typescript``, installed once into ``langgraph/npm-ts``; Node 18 or later) and
``benchmarks/go_oracle`` (stdlib-only Go, built once into ``langgraph/bin``; Debian's ``golang-go`` will do) and
``benchmarks/java_oracle`` (the JDK's Compiler Tree API, compiled once into ``langgraph/bin``; JDK 11 or later) and
``benchmarks/c_oracle.py`` (libclang: ``pip install libclang``; a unit clang cannot read whole is not judged) and
``benchmarks/rust_oracle.py`` (a nightly rustc's typed bodies; only crates that need nothing from crates.io).

A stored `calls` edge and an oracle call meet on the same file, line and callee name (the n-th of each on a
line). A resolved edge is *correct* when the compiler names the same definition (same file and name, its line
inside the target's lines), *wrong* when it names another (in the tree or outside it: the language's library,
dependencies), *unknown* when it names nothing. precision = correct / edges; judged = correct / (correct + wrong).
Recall: calls in library files (not tests) that the compiler resolves to a definition the index holds; recalled
when the edge from that call binds to it. An edge at a call the compiler could not attribute at all (javac
without the tree's libraries) is left out of both and counted apart.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import common

BENCH = Path(__file__).resolve().parent
TYPESCRIPT = "typescript@5.6.3"


@dataclass(frozen=True, slots=True)
class TreeSpec:
    """One pinned tree: its language, where it comes from and which of its paths are kept."""

    language: str
    source: str  # "npm:<name>@<version>" or "git:<owner>/<name>@<tag>"
    keep: tuple[str, ...] = ()  # npm: the package's source paths (its built copies would double every definition)


TREES: dict[str, TreeSpec] = {
    "immer": TreeSpec("typescript", "npm:immer@10.1.1", ("src",)),
    "ajv": TreeSpec("typescript", "npm:ajv@8.17.1", ("lib",)),
    "commander": TreeSpec("javascript", "npm:commander@12.1.0", ("index.js", "lib")),
    "marked": TreeSpec("javascript", "npm:marked@4.3.0", ("src",)),
    "toml": TreeSpec("go", "git:BurntSushi/toml@v1.4.0"),
    "goldmark": TreeSpec("go", "git:yuin/goldmark@v1.7.8"),
    # Calls through a package's default instance (`var v *Viper`, and a wrapper function of every method).
    "viper": TreeSpec("go", "git:spf13/viper@v1.21.0"),
    "javapoet": TreeSpec("java", "git:square/javapoet@javapoet-1.13.0"),
    # Overloads of one count told apart by their types (`attr(String, String)` / `attr(String, boolean)`).
    "jsoup": TreeSpec("java", "git:jhy/jsoup@jsoup-1.17.2"),
    "commons-cli": TreeSpec("java", "git:apache/commons-cli@rel/commons-cli-1.9.0"),
    "hiredis": TreeSpec("c", "git:redis/hiredis@v1.2.0"),
    # A header's prototypes and their bodies in other folders; platform variants of one name (unix/, win/).
    "libuv": TreeSpec("c", "git:libuv/libuv@v1.48.0"),
    "zstd": TreeSpec("c", "git:facebook/zstd@v1.5.6"),
    # Header-only C++: templates, members defined in their class, overloads.
    "cli11": TreeSpec("cpp", "git:CLIUtils/CLI11@v2.4.2"),
    # Rust: one crate without dependencies, then a workspace whose crates use each other by name.
    "log": TreeSpec("rust", "git:rust-lang/log@0.4.22"),
    "regex": TreeSpec("rust", "git:rust-lang/regex@1.11.1"),
}
TARGET_PRECISION = 0.95
TARGET_RECALL = 0.80
TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
C_EXTENSIONS = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".inl")


def cache_dir() -> Path:
    """This script's part of the benchmark cache."""
    return common.cache_root() / "langgraph"


# --------------------------------------------------------------------------- trees and oracles
def _npm_tree(name: str, spec: TreeSpec, dest: Path) -> None:
    package = spec.source.removeprefix("npm:")
    tarballs = cache_dir() / "tarballs"
    tarballs.mkdir(parents=True, exist_ok=True)
    stem = package.replace("@", "-").lstrip("-").replace("/", "-")
    archive = tarballs / f"{stem}.tgz"
    if not archive.is_file():
        subprocess.run(["npm", "pack", "--silent", package], cwd=tarballs, check=True)  # pinned spec
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(archive) as tar:
        members = [
            m
            for m in tar.getmembers()
            if m.isfile() and any(m.name == f"package/{k}" or m.name.startswith(f"package/{k}/") for k in spec.keep)
        ]
        tar.extractall(tmp, members=members, filter="data")
    (tmp / "package").rename(dest)
    tmp.rmdir()


def _git_tree(spec: TreeSpec, dest: Path) -> None:
    repo, _, tag = spec.source.removeprefix("git:").partition("@")
    mirrors = Path(os.environ.get("IGRAPH_BENCH_MIRRORS", BENCH.parent.parent / ".mirror"))
    mirror = mirrors / repo.replace("/", "+") / "repo"
    if not mirror.is_dir():
        mirror = cache_dir() / "mirrors" / repo.replace("/", "+")
        if not mirror.is_dir():
            url = f"https://github.com/{repo}.git"
            subprocess.run(["git", "clone", "--bare", "--quiet", url, str(mirror)], check=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "--git-dir", str(mirror), "archive", tag], check=True, capture_output=True)
    subprocess.run(["tar", "x", "-C", str(dest)], input=archive.stdout, check=True)


def fetch_tree(name: str) -> Path:
    """The unpacked tree, made once."""
    spec = TREES[name]
    dest = cache_dir() / "trees" / f"{name}-{spec.source.rsplit('@', 1)[1].replace('/', '-')}"
    if not dest.is_dir():
        dest.parent.mkdir(parents=True, exist_ok=True)
        (_npm_tree(name, spec, dest) if spec.source.startswith("npm:") else _git_tree(spec, dest))
    return dest


def _typescript_module() -> Path:
    root = cache_dir() / "npm-ts"
    module = root / "node_modules" / "typescript"
    if not module.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", str(root), TYPESCRIPT], check=True)
    return module


def _go_oracle() -> Path:
    binary = cache_dir() / "bin" / "go_oracle"
    source = BENCH / "go_oracle"
    stamp = hashlib.sha256((source / "main.go").read_bytes()).hexdigest()[:16]
    built = binary.with_name(f"go_oracle-{stamp}")
    if not built.is_file():
        built.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["go", "build", "-o", str(built), "."], cwd=source, check=True)
    return built


def _java_oracle() -> Path:
    source = BENCH / "java_oracle" / "JavaOracle.java"
    stamp = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    classes = cache_dir() / "bin" / f"java_oracle-{stamp}"
    if not (classes / "JavaOracle.class").is_file():
        tmp = classes.with_name(classes.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["javac", "-d", str(tmp), str(source)], check=True)
        tmp.rename(classes)
    return classes


def _listing(tree: Path, extensions: tuple[str, ...]) -> Path:
    """The tree's files the oracle reads, as a JSON list of relative paths."""
    files = sorted(
        p.relative_to(tree).as_posix()
        for p in tree.rglob("*")
        if p.is_file() and p.name.endswith(extensions) and "node_modules" not in p.parts
    )
    listing = cache_dir() / "oracle" / f"{tree.name}.files.json"
    listing.parent.mkdir(parents=True, exist_ok=True)
    listing.write_text(json.dumps(files), encoding="utf-8")
    return listing


@dataclass(frozen=True, slots=True)
class Decl:
    """A definition the compiler names: path relative to the tree ("" = outside it), line, name, kind."""

    path: str
    line: int
    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class OracleCall:
    """One call as the compiler sees it."""

    path: str
    line: int
    col: int
    name: str
    decls: tuple[Decl, ...]
    failed: bool = False  # the compiler could not attribute the call (a library missing here): no answer


@dataclass(slots=True)
class Unread:
    """What the compiler did not read: whole files, and lines of others (C's `#if` branches left out)."""

    files: set[str] = field(default_factory=set)
    lines: dict[str, set[int]] = field(default_factory=dict)
    suffixes: tuple[str, ...] = ()  # the only files it reads (C: not the tree's scripts), when set

    def covers(self, path: str, line: int) -> bool:
        """Whether the compiler saw nothing at this place."""
        if self.suffixes and not path.endswith(self.suffixes):
            return True
        return path in self.files or line in self.lines.get(path, ())


def ask_oracle(language: str, tree: Path, name: str = "") -> tuple[list[OracleCall], Unread]:
    """Every call in the tree with the compiler's answer, and what it did not read (``name``: the tree's, for
    the Rust oracle's list of crates)."""
    if language in ("c", "cpp"):
        command = [sys.executable, str(BENCH / "c_oracle.py"), str(tree), str(_listing(tree, C_EXTENSIONS))]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
    elif language == "go":
        done = subprocess.run([str(_go_oracle()), str(tree)], check=True, capture_output=True, text=True)
    elif language == "rust":
        command = [sys.executable, str(BENCH / "rust_oracle.py"), str(tree), name]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
    elif language == "java":
        command = ["java", "-cp", str(_java_oracle()), "JavaOracle", str(tree), str(_listing(tree, (".java",)))]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
    else:
        listing = _listing(tree, TS_EXTENSIONS)
        env = {**os.environ, "TS_MODULE": str(_typescript_module())}
        done = subprocess.run(
            ["node", str(BENCH / "ts_oracle.js"), str(tree), str(listing)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
    out = []
    unread = Unread(suffixes=C_EXTENSIONS if language in ("c", "cpp") else (".rs",) if language == "rust" else ())
    for line in done.stdout.splitlines():
        r = json.loads(line)
        if "skipped" in r:
            unread.files.add(r["skipped"])
            continue
        if "inactive" in r:
            unread.lines[r["inactive"]] = {n for first, last in r["lines"] for n in range(first, last + 1)}
            continue
        decls = tuple(Decl(d["file"], int(d["line"]), d["name"], d["kind"]) for d in r["decls"])
        out.append(OracleCall(r["file"], int(r["line"]), int(r["col"]), r["name"], decls, bool(r.get("failed"))))
    return out, unread


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

    def add(self, other: Tally) -> None:
        """Sum another tally into this one."""
        self.edges += other.edges
        self.correct += other.correct
        self.wrong += other.wrong
        self.unknown += other.unknown


@dataclass(slots=True)
class TreeResult:
    """Everything measured on one tree."""

    name: str
    language: str
    by_method: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    recall_sites: int = 0
    recalled: int = 0
    unresolved_sites: int = 0
    unjudged: int = 0  # edges at calls the compiler could not attribute: counted nowhere
    wrong_patterns: Counter[str] = field(default_factory=Counter)
    missed_patterns: Counter[str] = field(default_factory=Counter)
    wrong_examples: list[str] = field(default_factory=list)
    missed_examples: list[str] = field(default_factory=list)
    index_seconds: float = 0.0
    oracle_seconds: float = 0.0

    def total(self) -> Tally:
        """All resolved edges together."""
        t = Tally()
        for m in self.by_method.values():
            t.add(m)
        return t

    def recall(self) -> float:
        """Library calls recalled / library calls the compiler resolves to an indexed definition."""
        return self.recalled / self.recall_sites if self.recall_sites else 1.0


def _shape(name: str, qualifier: str) -> str:
    """The form of a call site, for grouping misses: f(), this.f(), Type.f(), x.f()."""
    if not qualifier:
        return "f()"
    head = qualifier.split(".")[0]
    if head in ("this", "self", "super"):
        return f"{head}.f()"
    if len(qualifier.split(".")) > 1:
        return "a.b.f()"
    return "Cap.f()" if head[:1].isupper() else "x.f()"


def _matches(d: Decl, path: str, name: str, start: int, end: int) -> bool:
    return d.path == path and d.name == name and start <= d.line <= end


def measure(name: str, tree: Path, *, show_wrong: int) -> TreeResult:
    """Index one tree and judge its call edges with the language's compiler."""
    from igraph_mcp.service import IGraphService
    from igraph_mcp.store import call_sites
    from igraph_mcp.vocab.testcode import is_test_side

    spec = TREES[name]
    result = TreeResult(name, spec.language)
    svc = IGraphService(tree, embed=False)
    started = time.perf_counter()
    svc.index(full=True, embed=False)
    result.index_seconds = time.perf_counter() - started
    sites = call_sites.call_sites(svc.db)
    spans = call_sites.definition_spans(svc.db)
    svc.close()

    started = time.perf_counter()
    calls, unread = ask_oracle(spec.language, tree, name)
    result.oracle_seconds = time.perf_counter() - started

    by_place: dict[tuple[str, int, str], list[OracleCall]] = defaultdict(list)
    for c in calls:
        by_place[(c.path, c.line, c.name)].append(c)
    for found in by_place.values():
        found.sort(key=lambda c: c.col)
    defs_by_file_name: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for path, def_name, _kind, start, end in spans:
        defs_by_file_name[(path, def_name)].append((start, end))

    rank: Counter[tuple[str, int, str]] = Counter()
    edge_at: dict[tuple[str, int, str, int], call_sites.CallSite] = {}
    for s in sites:
        key = (s.path, s.line, s.name)
        edge_at[(*key, rank[key])] = s
        rank[key] += 1
        found = by_place.get(key, [])
        call = found[rank[key] - 1] if rank[key] <= len(found) else None
        decls = call.decls if call is not None else ()
        if s.target_id is None:
            continue
        if (
            unread.covers(s.path, s.line)
            or unread.covers(s.target_path, s.target_start)
            or (call is not None and call.failed)
        ):
            result.unjudged += 1
            continue
        tally = result.by_method[s.resolution]
        tally.edges += 1
        if any(_matches(d, s.target_path, s.target_name, s.target_start, s.target_end) for d in decls):
            tally.correct += 1
            continue
        if decls:
            tally.wrong += 1
        else:
            tally.unknown += 1
        said = ", ".join(f"{d.path or '<external>'}:{d.line} {d.name} ({d.kind})" for d in decls[:2]) or "nothing"
        where = "in tree" if any(d.path for d in decls) else ("outside" if decls else "nothing")
        result.wrong_patterns[f"{s.resolution:15} {_shape(s.name, s.qualifier):8} compiler: {where}"] += 1
        if len(result.wrong_examples) < show_wrong:
            result.wrong_examples.append(
                f"{s.resolution:15} {s.path}:{s.line} {s.qualifier + '.' if s.qualifier else ''}{s.name}"
                f" -> {s.target_path}:{s.target_start} {s.target_name}   compiler: {said}"
            )

    seen: Counter[tuple[str, int, str]] = Counter()
    for c in sorted(calls, key=lambda c: (c.path, c.line, c.col)):
        key = (c.path, c.line, c.name)
        nth = seen[key]
        seen[key] += 1
        if is_test_side(c.path):
            continue
        indexed = [
            d
            for d in c.decls
            if d.path and any(s <= d.line <= e for s, e in defs_by_file_name.get((d.path, d.name), []))
        ]
        if not indexed:
            continue
        result.recall_sites += 1
        edge = edge_at.get((*key, nth))
        if (
            edge is not None
            and edge.target_id is not None
            and any(
                _matches(d, edge.target_path, edge.target_name, edge.target_start, edge.target_end) for d in indexed
            )
        ):
            result.recalled += 1
            continue
        how = "no edge" if edge is None else ("unbound: " + edge.resolution if edge.target_id is None else "wrong")
        if edge is not None and edge.target_id is None:
            result.unresolved_sites += 1
        shape = _shape(c.name, edge.qualifier if edge is not None else "")
        result.missed_patterns[f"{how:22} {shape:8} -> {indexed[0].kind}"] += 1
        if len(result.missed_examples) < show_wrong:
            qual = edge.qualifier + "." if edge is not None and edge.qualifier else ""
            result.missed_examples.append(
                f"{how:22} {c.path}:{c.line} {qual}{c.name}   compiler: {indexed[0].path}:{indexed[0].line}"
                f" {indexed[0].name} ({indexed[0].kind})"
            )
    return result


def _fmt(t: Tally) -> str:
    return f"{t.edges:6d} {t.precision():6.3f} {t.judged():6.3f} {t.wrong:5d} {t.unknown:5d}"


def report(results: list[TreeResult], show: int) -> bool:
    """Print the tables; returns whether every target is met."""
    ok = True
    print(f"{'tree':10} {'lang':10} {'resolution':16} {'edges':>6} {'prec':>6} {'judged':>6} {'wrong':>5} {'unkn':>5}")
    languages: dict[str, list[TreeResult]] = defaultdict(list)
    for r in results:
        languages[r.language].append(r)
        for method, t in sorted(r.by_method.items()):
            print(f"{r.name:10} {r.language:10} {method:16} {_fmt(t)}")
        print(f"{r.name:10} {r.language:10} {'ALL resolved':16} {_fmt(r.total())}")
        print(
            f"{r.name:10} {r.language:10} {'recall (library)':16} {r.recall_sites:6d} {r.recall():6.3f}"
            f"   ({r.recalled} recalled, {r.unresolved_sites} left unbound"
            + (f", {r.unjudged} edges at calls the compiler could not attribute" if r.unjudged else "")
            + ")"
            f"   index {r.index_seconds:.1f}s oracle {r.oracle_seconds:.1f}s"
        )
        for title, patterns in (("wrong", r.wrong_patterns), ("missed", r.missed_patterns)):
            for pattern, n in patterns.most_common(show):
                print(f"    {title:6} {n:5d}  {pattern}")
    print()
    for language, rs in languages.items():
        total = Tally()
        for r in rs:
            total.add(r.total())
        sites = sum(r.recall_sites for r in rs)
        recall = sum(r.recalled for r in rs) / sites if sites else 1.0
        flags = ("" if total.precision() >= TARGET_PRECISION else " (precision < target)") + (
            "" if recall >= TARGET_RECALL else " (recall < target)"
        )
        ok &= not flags
        print(
            f"{language:10} edges {total.edges:6d}  precision {total.precision():.3f}  judged {total.judged():.3f}"
            f"  recall {recall:.3f} of {sites}{flags}"
        )
    print(
        f"targets: precision >= {TARGET_PRECISION}, recall >= {TARGET_RECALL} per language:"
        f" {'MET' if ok else 'NOT MET'}"
    )
    return ok


def main() -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--trees", default=",".join(TREES), help=f"comma-separated, of {', '.join(TREES)}")
    ap.add_argument("--show-wrong", type=int, default=0, help="print the N commonest wrong/missed patterns per tree")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    results = []
    for name in [t.strip() for t in args.trees.split(",") if t.strip()]:
        if name not in TREES:
            ap.error(f"unknown tree {name!r}; choose from {', '.join(TREES)}")
        r = measure(name, fetch_tree(name), show_wrong=args.show_wrong)
        results.append(r)
        for line in r.wrong_examples:
            print(f"  wrong  {name}: {line}", file=sys.stderr)
        for line in r.missed_examples:
            print(f"  missed {name}: {line}", file=sys.stderr)
    ok = report(results, args.show_wrong)
    if args.json:
        figures = {
            r.name: {
                "language": r.language,
                "methods": {
                    m: {"edges": t.edges, "correct": t.correct, "wrong": t.wrong} for m, t in r.by_method.items()
                },
                "precision": r.total().precision(),
                "recall": r.recall(),
                "recall_sites": r.recall_sites,
                "unjudged": r.unjudged,
            }
            for r in results
        }
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
