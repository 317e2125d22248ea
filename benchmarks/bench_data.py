"""Benchmark data: the SWE-bench dev split (issue -> code) and a docstring-query set.

Everything downloaded goes to a cache outside the repository: ``$IGRAPH_BENCH_CACHE`` or
``~/.cache/igraph-mcp-bench``. Trees are fetched by running the shared ``fetch_tree.py`` script
(next to the devset file) as a subprocess, so its download logic is reused, not copied.

    python benchmarks/bench_data.py                 # warm the cache for the default selection
    python benchmarks/bench_data.py --max-trees 8 --docstring-sample 100
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import common

DEFAULT_DEVSET = common.devset_path()
DEFAULT_MAX_TREES = 6
DEFAULT_DOCSTRING_SAMPLE = 300
# Pinned so the docstring set is the same on every machine; medium projects with good docstrings.
DEFAULT_DOC_PROJECTS: tuple[tuple[str, str], ...] = (
    ("requests", "2.32.3"),
    ("click", "8.1.8"),
    ("rich", "13.9.4"),
)
# Directories never walked: our own index, VCS and caches.
SKIP_DIRS = frozenset({".igraph", ".git", "__pycache__", ".tox", ".venv", "venv", "node_modules"})
# Path parts that mark code which is not the project's library (excluded from docstring queries only).
NON_LIBRARY_PARTS = frozenset({"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks"})
MIN_QUERY_WORDS = 4
# Bump when stripping or query extraction changes, so cached stripped trees are rebuilt.
STRIP_VERSION = 1
MAX_QUERY_WORDS = 60


T = TypeVar("T")
DefNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


# --------------------------------------------------------------------------- devset


@dataclass(frozen=True)
class DevInstance:
    """One issue with the files and functions its reference fix edits."""

    instance_id: str
    project: str
    version: str
    query: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...]


@dataclass(frozen=True)
class TreeSelection:
    """One source tree (an sdist) and the chosen instances that run against it."""

    project: str
    version: str
    instances: tuple[DevInstance, ...]

    @property
    def key(self) -> str:
        """Return the cache key used by fetch_tree.py (normalised name + version)."""
        return f"{_norm(self.project)}-{self.version}"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def load_devset(path: Path = DEFAULT_DEVSET) -> list[DevInstance]:
    """Read the devset JSONL file into DevInstance rows (file order kept)."""
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            r = json.loads(line)
            rows.append(
                DevInstance(
                    instance_id=r["instance_id"],
                    project=r["pypi_name"],
                    version=r["version"],
                    query=r["problem_statement"],
                    gold_files=tuple(r["gold_files"]),
                    gold_functions=tuple(r["gold_functions"]),
                )
            )
    return rows


def select_devset(
    rows: list[DevInstance], max_trees: int = DEFAULT_MAX_TREES, max_instances: int | None = None
) -> list[TreeSelection]:
    """Choose trees greedily: gain = instances / (1 + trees already taken from that project).

    The diminishing return per project keeps several projects while still preferring trees that
    cover many instances (default 6 -> Django x3, sympy, Sphinx, xarray). Ties break on project
    and version so the choice is deterministic. ``max_instances`` then caps the total by taking
    instances round-robin across the chosen trees (sorted by instance_id within a tree).
    """
    by_tree: dict[tuple[str, str], list[DevInstance]] = defaultdict(list)
    for row in rows:
        by_tree[(row.project, row.version)].append(row)
    taken: Counter[str] = Counter()
    chosen: list[tuple[str, str]] = []
    remaining = set(by_tree)
    while remaining and len(chosen) < max_trees:
        best = min(remaining, key=lambda t: (-len(by_tree[t]) / (1 + taken[t[0]]), t[0].lower(), t[1]))
        chosen.append(best)
        remaining.discard(best)
        taken[best[0]] += 1
    queues = [sorted(by_tree[t], key=lambda r: r.instance_id) for t in chosen]
    kept = round_robin(queues, max_instances)
    return [TreeSelection(p, v, tuple(k)) for (p, v), k in zip(chosen, kept, strict=True) if k]


def round_robin(queues: list[list[T]], limit: int | None) -> list[list[T]]:
    """Keep at most limit items in all, taken one per queue in turn so every queue keeps a share."""
    kept: list[list[T]] = [[] for _ in queues]
    budget = sum(map(len, queues)) if limit is None else limit
    depth = 0
    while budget > 0 and any(depth < len(q) for q in queues):
        for i, q in enumerate(queues):
            if depth < len(q) and budget > 0:
                kept[i].append(q[depth])
                budget -= 1
        depth += 1
    return kept


def fetch_tree(name: str, version: str, cache: Path, fetch_script: Path) -> Path:
    """Download and unpack ``name==version`` with the shared fetch_tree.py; return the tree root."""
    if not fetch_script.is_file():
        raise FileNotFoundError(f"fetch_tree.py not found at {fetch_script}; pass --fetch-tree")
    proc = subprocess.run(
        [sys.executable, str(fetch_script), name, version, "--cache", str(cache)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"fetch_tree.py failed for {name}=={version}: {proc.stderr.strip()[-500:]}")
    return _sdist_top(Path(proc.stdout.strip().splitlines()[-1]))


def _sdist_top(root: Path) -> Path:
    """The sdist's own top folder even when an index was made beside it: fetch_tree.py returns the outer folder once
    it holds more than that folder, and the tree's paths would then never match the gold files."""
    entries = [p for p in root.iterdir() if p.name != ".igraph"] if root.is_dir() else []
    if (root / ".igraph").is_dir() and len(entries) == 1 and entries[0].is_dir():
        print(f"note: {root}/.igraph is an index of the outer folder; using {entries[0].name}/", file=sys.stderr)
        return entries[0]
    return root


def devset_fetch_script(devset: Path) -> Path:
    """Return the fetch_tree.py that ships next to the devset file."""
    return devset.parent / "fetch_tree.py"


# --------------------------------------------------------------------------- multi-language devset


@dataclass(frozen=True)
class MultilangInstance:
    """One issue of the multi-language devset: a repository at a base commit, the files and functions its fix edits."""

    instance_id: str
    repo: str
    language: str
    half: str  # "tuning" or "heldout" (the row's split: by repository)
    query: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...]


def load_multilang(path: Path) -> list[MultilangInstance]:
    """Read a multilang_dev.jsonl-format file into rows (file order kept)."""
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                rows.append(
                    MultilangInstance(
                        instance_id=r["instance_id"],
                        repo=r["repo"],
                        language=r["language"],
                        half=r["split"],
                        query=r["problem_statement"],
                        gold_files=tuple(r["gold_files"]),
                        gold_functions=tuple(r["gold_functions"]),
                    )
                )
    return rows


def multilang_fetch_script(data: Path) -> Path:
    """The tree writer for an instance file: the project's fetch_tree.py beside it, else the shared
    fetch_multilang_tree.py (which reads any file of the format through --data)."""
    for name in ("fetch_tree.py", "fetch_multilang_tree.py"):
        if (data.parent / name).is_file():
            return data.parent / name
    return common.CHECKOUT.parent / "shared" / "devset" / "fetch_multilang_tree.py"


def fetch_multilang_tree(instance_id: str, data: Path, cache: Path, fetch_script: Path, mirrors: Path) -> Path:
    """Write one instance's tree at its base commit from a fetched mirror (with ``fetch_script``); return its root."""
    if not fetch_script.is_file():
        raise FileNotFoundError(f"no tree writer at {fetch_script}; pass --fetch-tree")
    # the project's fetch_tree.py reads its own instances.jsonl; the shared script is told which file
    where = ["--data", str(data)] if fetch_script.name == "fetch_multilang_tree.py" else []
    where += ["--mirrors", str(mirrors), "--cache", str(cache)]
    proc = subprocess.run(
        [sys.executable, str(fetch_script), instance_id, *where],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{fetch_script.name} failed for {instance_id}: {proc.stderr.strip()[-500:]}")
    return Path(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- python symbols


@dataclass(frozen=True)
class PySymbol:
    """A function, method or class found with ``ast`` (lines are 1-based, inclusive)."""

    path: str
    qualname: str
    kind: str  # "function" | "class"
    start_line: int
    end_line: int

    @property
    def key(self) -> str:
        """Return the gold-style key ``path::Qualified.name``."""
        return f"{self.path}::{self.qualname}"


def iter_python_files(root: Path) -> Iterator[Path]:
    """Yield the .py files under root in sorted order, skipping index, VCS and cache folders."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield Path(dirpath) / name


def parse_python(source: bytes) -> ast.Module | None:
    """Parse source quietly (old trees raise SyntaxWarnings); None when it is not valid Python 3."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError):
            return None


def walk_definitions(module: ast.Module) -> Iterator[tuple[str, str, DefNode]]:
    """Yield (qualname, kind, node) for classes, methods and module functions, outermost first.

    Functions nested inside functions are part of their parent and not yielded; classes nested in
    classes are (``Outer.Inner.method``), matching the gold style of the devset.
    """

    def visit(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, str, DefNode]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + node.name, "function", node
            elif isinstance(node, ast.ClassDef):
                qn = prefix + node.name
                yield qn, "class", node
                yield from visit(node.body, qn + ".")
            elif isinstance(node, ast.If | ast.Try):
                # Definitions under `if TYPE_CHECKING:` / `try: ... except ImportError:` are still top level.
                for part in (node.body, node.orelse, getattr(node, "finalbody", [])):
                    yield from visit(part, prefix)
                for handler in getattr(node, "handlers", []):
                    yield from visit(handler.body, prefix)

    yield from visit(module.body, "")


def extract_symbols(root: Path) -> tuple[list[PySymbol], dict[str, bytes], int]:
    """Return (symbols, file sources by relative path, number of unparsable files) for a tree."""
    symbols: list[PySymbol] = []
    sources: dict[str, bytes] = {}
    failed = 0
    for file in iter_python_files(root):
        rel = file.relative_to(root).as_posix()
        data = file.read_bytes()
        sources[rel] = data
        module = parse_python(data)
        if module is None:
            failed += 1
            continue
        for qn, kind, node in walk_definitions(module):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            symbols.append(PySymbol(rel, qn, kind, start, node.end_lineno or node.lineno))
    return symbols, sources, failed


# --------------------------------------------------------------------------- other languages' symbols


def iter_source_files(root: Path) -> Iterator[tuple[Path, str]]:
    """Yield (file, language) for every file under root that a grammar of ours reads, in sorted order."""
    from igraph_mcp.vocab.languages import language_for_path

    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            language = language_for_path(name)
            if language is not None:
                yield Path(dirpath) / name, language


def extract_code_symbols(root: Path) -> tuple[list[PySymbol], dict[str, bytes], int]:
    """``extract_symbols`` for a tree in any language, read with igraph_mcp's own parser: its outline names.

    Class-like definitions (the language's ``class_kinds``, namespaces too for C++) are "class"; every other
    named definition is "function". Returns (symbols, sources, files the parser refused).
    """
    from igraph_mcp.index.parse import parse_source
    from igraph_mcp.index.sniff import looks_minified
    from igraph_mcp.vocab.languages import get_spec

    symbols: list[PySymbol] = []
    sources: dict[str, bytes] = {}
    failed = 0
    for file, language in iter_source_files(root):
        rel = file.relative_to(root).as_posix()
        try:
            data = file.read_bytes()
        except OSError:  # a broken link (Leaflet's debug/leaflet-include.js) is no source, as for the index
            failed += 1
            continue
        sources[rel] = data
        if looks_minified(data):
            # one document, its whole text: each definition's lines would be the one line of the file (a 3.8 MB
            # bundle of 3,682 definitions in blueprint's docs came to 14 GB of text)
            continue
        try:
            parsed = parse_source(data, language, rel)
        except (ValueError, RecursionError):  # one unreadable file is counted, not fatal
            failed += 1
            continue
        classes = get_spec(parsed.language).class_kinds  # a `.h` header C++ reads better is C++
        for sym in parsed.symbols:
            if sym.qualified_name:  # the module symbol has no name
                kind = "class" if sym.kind in classes else "function"
                symbols.append(PySymbol(rel, sym.qualified_name, kind, sym.start_line, sym.end_line))
    return symbols, sources, failed


# --------------------------------------------------------------------------- docstring set


@dataclass(frozen=True)
class DocQuery:
    """A query made from a docstring, with the symbol it documents as gold."""

    project: str
    query: str
    gold: str  # "path::Qualified.name"


@dataclass
class StripResult:
    """Stripped source plus the docstrings removed from it, keyed by qualname ('' = module)."""

    source: bytes
    docstrings: dict[str, str] = field(default_factory=dict)
    ok: bool = True


def _docstring_expr(node: ast.AST) -> ast.Expr | None:
    body = getattr(node, "body", None)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def strip_docstrings(source: bytes) -> StripResult:
    """Replace every docstring literal with ``...``, keeping line numbers and all other code intact.

    ``ast`` gives exact spans (UTF-8 byte columns); the first line keeps its prefix, the literal
    becomes ``...`` followed by whatever followed it on its last line, and the literal's other
    lines become empty lines. The result is re-parsed; on failure the source is returned unchanged
    with ``ok=False`` so callers can drop its queries.
    """
    module = parse_python(source)
    if module is None:
        return StripResult(source, ok=False)
    text = source.decode(_encoding(source))
    lines = text.encode("utf-8").splitlines(keepends=True)
    targets: list[tuple[str, ast.Expr, DefNode | ast.Module]] = []
    expr = _docstring_expr(module)
    if expr is not None:
        targets.append(("", expr, module))
    for qn, _kind, node in _walk_all_definitions(module):
        expr = _docstring_expr(node)
        if expr is not None:
            targets.append((qn, expr, node))
    docs: dict[str, str] = {}
    # Rewrite bottom-up so earlier spans keep their coordinates.
    for qn, expr, owner in sorted(targets, key=lambda t: -t[1].lineno):
        docs[qn] = ast.get_docstring(owner, clean=True) or ""
        l1, l2 = expr.lineno - 1, (expr.end_lineno or expr.lineno) - 1
        c1, c2 = expr.col_offset, expr.end_col_offset or 0
        lines[l1] = lines[l1][:c1] + b"..." + lines[l2][c2:]
        for i in range(l1 + 1, l2 + 1):
            lines[i] = _line_ending(lines[i])
    stripped = b"".join(lines)
    if parse_python(stripped) is None or stripped.count(b"\n") != text.encode("utf-8").count(b"\n"):
        return StripResult(source, ok=False)
    return StripResult(stripped.decode("utf-8").encode(_encoding(source)), docs)


def _walk_all_definitions(module: ast.Module) -> Iterator[tuple[str, str, DefNode]]:
    """Like walk_definitions but also descends into functions, so nested docstrings are stripped."""

    def visit(node: ast.AST, prefix: str) -> Iterator[tuple[str, str, DefNode]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qn = prefix + child.name
                yield qn, "class" if isinstance(child, ast.ClassDef) else "function", child
                yield from visit(child, qn + ".")
            else:
                yield from visit(child, prefix)

    yield from visit(module, "")


def _encoding(source: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        return "utf-8"


def _line_ending(line: bytes) -> bytes:
    return b"\r\n" if line.endswith(b"\r\n") else b"\n" if line.endswith(b"\n") else b""


def docstring_to_query(doc: str) -> str | None:
    """Return the docstring's first paragraph as one line, or None when it is too trivial."""
    para = doc.strip().split("\n\n", 1)[0]
    words = para.split()
    if len(words) < MIN_QUERY_WORDS or para.lstrip().startswith((":", "..", ">>>")):
        return None
    return " ".join(words[:MAX_QUERY_WORDS])


def is_library_path(rel: str) -> bool:
    """True for package code: not tests/docs/examples, not a top-level build script."""
    parts = rel.split("/")
    name = parts[-1]
    if len(parts) == 1 or NON_LIBRARY_PARTS.intersection(parts[:-1]):
        return False
    return not (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def build_docstring_tree(src_root: Path, dest_root: Path, project: str) -> list[DocQuery]:
    """Copy the .py files of src_root to dest_root with docstrings stripped; return all candidate queries.

    Only Python files are copied so prose elsewhere (README, docs) cannot leak the answers.
    Queries whose text is shared by several symbols are dropped as ambiguous.
    """
    tmp = dest_root.with_name(dest_root.name + ".part")
    if tmp.exists():
        shutil.rmtree(tmp)
    candidates: dict[str, list[str]] = defaultdict(list)
    for file in iter_python_files(src_root):
        rel = file.relative_to(src_root).as_posix()
        result = strip_docstrings(file.read_bytes())
        out = tmp / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(result.source)
        if not result.ok or not is_library_path(rel):
            continue
        for qn, doc in result.docstrings.items():
            if not qn or _is_dunder(qn.rsplit(".", 1)[-1]):
                continue
            query = docstring_to_query(doc)
            if query is not None:
                candidates[query].append(f"{rel}::{qn}")
    if dest_root.exists():
        shutil.rmtree(dest_root)
    tmp.rename(dest_root)
    return [DocQuery(project, q, golds[0]) for q, golds in candidates.items() if len(golds) == 1]


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def sample_queries(queries: list[DocQuery], n: int) -> list[DocQuery]:
    """Deterministically keep up to n queries (by a hash of the gold key), returned sorted by gold."""
    # sha1 is only a stable shuffle key here, not a security measure.
    ranked = sorted(queries, key=lambda q: hashlib.sha1(q.gold.encode()).hexdigest())
    return sorted(ranked[:n], key=lambda q: q.gold)


def _keep_indexed_golds(queries: list[DocQuery], root: Path) -> list[DocQuery]:
    """Keep queries whose gold is a symbol the benchmark indexes (not a function nested in a function)."""
    symbols, _, _ = extract_symbols(root)
    known = {s.key for s in symbols}
    return [q for q in queries if q.gold in known]


def prepare_docstring_project(
    name: str, version: str, cache: Path, fetch_script: Path, sample: int = DEFAULT_DOCSTRING_SAMPLE
) -> tuple[Path, list[DocQuery]]:
    """Fetch one sdist, build (or reuse) its stripped tree, and return (stripped root, sampled queries)."""
    base = cache / "docstrings"
    src = fetch_tree(name, version, base, fetch_script)
    dest = base / "stripped" / f"{_norm(name)}-{version}"
    queries_file = base / "stripped" / f"{_norm(name)}-{version}.queries.v{STRIP_VERSION}.json"
    if dest.is_dir() and queries_file.is_file():
        data = json.loads(queries_file.read_text(encoding="utf-8"))
        queries = [DocQuery(**q) for q in data]
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        queries = _keep_indexed_golds(build_docstring_tree(src, dest, name), dest)
        queries_file.write_text(json.dumps([q.__dict__ for q in queries], indent=1), encoding="utf-8")
    return dest, sample_queries(queries, sample)


# --------------------------------------------------------------------------- CLI


def tree_size(root: Path) -> tuple[int, int, int]:
    """Return (all files, .py files, bytes) under root, ignoring an .igraph index."""
    files = py = size = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".igraph"]
        for name in filenames:
            files += 1
            py += name.endswith(".py")
            size += (Path(dirpath) / name).stat().st_size
    return files, py, size


def main(argv: list[str] | None = None) -> int:
    """Warm the cache: fetch the selected devset trees and build the docstring set; print a summary."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devset", type=Path, default=DEFAULT_DEVSET)
    ap.add_argument("--fetch-tree", type=Path, default=None, help="default: fetch_tree.py next to --devset")
    ap.add_argument("--max-trees", type=int, default=DEFAULT_MAX_TREES)
    ap.add_argument("--max-instances", type=int, default=None)
    ap.add_argument("--docstring-sample", type=int, default=DEFAULT_DOCSTRING_SAMPLE)
    ap.add_argument("--set", choices=("devset", "docstrings", "both"), default="both")
    args = ap.parse_args(argv)
    cache = common.cache_root()
    script = args.fetch_tree or devset_fetch_script(args.devset)
    if args.set in ("devset", "both"):
        selection = select_devset(load_devset(args.devset), args.max_trees, args.max_instances)
        print(f"devset: {sum(len(t.instances) for t in selection)} instances on {len(selection)} trees")
        for tree in selection:
            root = fetch_tree(tree.project, tree.version, cache / "devset", script)
            files, py, size = tree_size(root)
            print(
                f"  {tree.project}=={tree.version}: {len(tree.instances)} inst, {files} files, {py} .py, "
                f"{size / 1e6:.1f} MB  {root}"
            )
    if args.set in ("docstrings", "both"):
        for name, version in DEFAULT_DOC_PROJECTS:
            root, queries = prepare_docstring_project(name, version, cache, script, args.docstring_sample)
            files, py, size = tree_size(root)
            print(f"docstrings {name}=={version}: {len(queries)} queries, {py} .py, {size / 1e6:.1f} MB  {root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
