"""Mine (natural-language query, code document) pairs from PyPI sdists for the code adapter.

    python training/mine_pairs.py                      # download + unpack + mine into ~/.cache/igraph-mcp-train
    python training/mine_pairs.py --no-download        # mine the sdists already in the cache

Pairs: a docstring's first paragraph (at most 60 words) -> the function, method or class it documents,
with every docstring of the file removed. The document side is rendered by the indexer's own code path
(``parse_source`` + the body cut of ``index/rows.py`` + ``symbol_embedding_text``), so training sees the
text shape the server embeds; the query side is the text as a search query embeds it (one short line).

The packages and versions used are in ``training/packages.txt``; downloads, trees and pairs stay in the cache
directory, never in the repository. Benchmark projects (SWE-bench's twelve, the docstring set's libraries and
their families) are refused by name, and vendored directories are skipped so nothing of theirs slips in.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

_SRC = Path(__file__).resolve().parents[1]
if str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from igraph_mcp.embed.text import collapse_whitespace, symbol_embedding_text  # noqa: E402
from igraph_mcp.index.parse import parse_source  # noqa: E402
from igraph_mcp.index.rows import first_child_starts, stored_body  # noqa: E402

CACHE = Path.home() / ".cache" / "igraph-mcp-train"
PACKAGES_FILE = Path(__file__).with_name("packages.txt")
MAX_QUERY_WORDS = 60
MIN_QUERY_WORDS = 4
MAX_FILE_BYTES = 400_000  # generated tables and the like: little prose, much parse time
HELDOUT_PER_MILLE = 20  # 2% of files (not pairs: a file's pairs share context) checked during training

# Never trained on: benchmark repositories and their families (see COMMON.md / issue 11).
EXCLUDED = re.compile(
    r"^(django|sympy|sphinx|xarray|astropy|pytest|pytest-.*|pylint|astroid|requests|flask|seaborn|matplotlib|"
    r"scikit-learn|sklearn|click|rich|rich-.*|jinja2|werkzeug|itsdangerous|markupsafe|quart|blinker|textual|"
    r"textual-.*|pip)$"
)
SKIP_DIRS = frozenset(
    {"_vendor", "vendor", "vendored", "extern", "_extern", "third_party", "thirdparty", ".git", "build", "node_modules"}
)
_BOILERPLATE = re.compile(r"^(todo|fixme|xxx|deprecated|see |alias |same as |docstring|internal|private)", re.I)


def normalise_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def download(names: list[str], dest: Path) -> None:
    """Fetch each sdist with pip (no wheels, no dependencies)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        if EXCLUDED.match(normalise_name(name.split("==")[0])):
            raise SystemExit(f"{name} is a benchmark project (or its family); it must not be trained on")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", name, "-d", str(dest)],
            check=False,
        )


def sdist_name_version(archive: Path) -> tuple[str, str]:
    stem = archive.name.removesuffix(".tar.gz").removesuffix(".zip").removesuffix(".tar.bz2")
    name, _, version = stem.rpartition("-")
    return name, version


def unpack(archive: Path, trees: Path) -> Path:
    """Unpack an sdist once; returns its top directory."""
    name, version = sdist_name_version(archive)
    dest = trees / f"{name}-{version}"
    if dest.is_dir():
        return dest
    tmp = trees / f".{name}-{version}.tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)  # noqa: S202 - zipfile itself drops absolute and '..' member paths
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
    inner = [p for p in tmp.iterdir() if p.is_dir()]
    (inner[0] if len(inner) == 1 else tmp).rename(dest)
    if tmp.exists():
        tmp.rmdir()
    return dest


def python_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).parts
        if SKIP_DIRS.intersection(p.lower() for p in rel[:-1]) or any(p.startswith(".") for p in rel[:-1]):
            continue
        if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
            yield path


def query_from_docstring(doc: str) -> str | None:
    """The docstring's first paragraph on one line, at most 60 words; None when it says too little."""
    para = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]
    words = collapse_whitespace(para).split(" ")
    if len(words) < MIN_QUERY_WORDS or para.lstrip().startswith((":", "..", ">>>", "@", "#")):
        return None
    text = " ".join(words[:MAX_QUERY_WORDS])
    if _BOILERPLATE.match(text) or "copyright" in text.lower() or "license" in text.lower():
        return None
    return text


def _line_offsets(source: bytes) -> list[int]:
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def strip_docstrings(source: bytes) -> tuple[bytes, dict[tuple[str, int], str]] | None:
    """Blank every def/class docstring (``pass`` when it was the whole body) and return them by (name, line)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    offsets = _line_offsets(source)
    cuts: list[tuple[int, int, bytes]] = []
    docs: dict[tuple[str, int], str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            continue
        body = node.body
        if not body or not isinstance(body[0], ast.Expr):
            continue
        value = body[0].value
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        expr = body[0]
        if expr.end_lineno is None or expr.end_col_offset is None:
            continue
        # ast columns are UTF-8 byte offsets, which is what we slice.
        start = offsets[expr.lineno - 1] + expr.col_offset
        end = offsets[expr.end_lineno - 1] + expr.end_col_offset
        filler = b"pass" if len(body) == 1 else b""
        cuts.append((start, end, filler))
        if not isinstance(node, ast.Module):
            docs[(node.name, node.lineno)] = ast.get_docstring(node, clean=True) or ""
    out = bytearray(source)
    for start, end, filler in sorted(cuts, reverse=True):
        # Keep line breaks so line numbers still match the original file.
        kept = b"\n" * source[start:end].count(b"\n")
        out[start:end] = filler + kept
    return bytes(out), docs


def mine_file(path: Path, rel: str) -> Iterator[tuple[str, str]]:
    """(query, document) pairs of one Python file, the document rendered as the indexer embeds it."""
    raw = path.read_bytes()
    stripped = strip_docstrings(raw)
    if stripped is None:
        return
    source, docs = stripped
    if not docs:
        return
    try:
        pf = parse_source(source, "python")
    except ValueError:
        return
    symbols = pf.symbols
    first_child = first_child_starts(symbols, source)
    for i, s in enumerate(symbols):
        if i == 0 or s.kind not in ("function", "method", "class"):
            continue
        doc = next((docs[(s.name, ln)] for ln in range(s.start_line, s.start_line + 12) if (s.name, ln) in docs), None)
        if not doc:
            continue
        query = query_from_docstring(doc)
        if query is None:
            continue
        body = stored_body(source, s, first_child.get(i))
        if len(collapse_whitespace(body)) < 40:
            continue
        document = symbol_embedding_text(
            kind=s.kind,
            name=s.name,
            qualified_name=s.qualified_name,
            path=rel,
            signature=s.signature,
            docstring=s.docstring,  # empty: the docstrings were stripped before parsing
            body=body,
        )
        yield query, document


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--no-download", action="store_true", help="use the sdists already in the cache")
    ap.add_argument("--packages", type=Path, default=PACKAGES_FILE, help="name==version per line")
    args = ap.parse_args(argv)
    sdists = args.cache / "sdists"
    wanted = [ln.strip() for ln in args.packages.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    if not args.no_download:
        download(wanted, sdists)
    wanted_keys = {normalise_name(w.split("==")[0]) + "==" + w.split("==")[1] for w in wanted if "==" in w}
    out_dir = args.cache / "pairs"
    out_dir.mkdir(parents=True, exist_ok=True)
    seen_q: set[str] = set()
    seen_d: set[str] = set()
    counts: dict[str, int] = {}
    n_train = n_held = 0
    with (out_dir / "train.jsonl").open("w") as train, (out_dir / "heldout.jsonl").open("w") as held:
        for archive in sorted(sdists.iterdir()):
            name, version = sdist_name_version(archive)
            key = normalise_name(name) + "==" + version
            if EXCLUDED.match(normalise_name(name)):
                raise SystemExit(f"{archive.name} is a benchmark project (or its family); remove it from the cache")
            if wanted_keys and key not in wanted_keys:
                continue
            root = unpack(archive, args.cache / "trees")
            got = 0
            for path in python_files(root):
                rel = path.relative_to(root).as_posix()
                h = int(hashlib.sha256(f"{key}/{rel}".encode()).hexdigest()[:8], 16)
                sink = held if h % 1000 < HELDOUT_PER_MILLE else train
                for query, document in mine_file(path, rel):
                    qk, dk = query.lower(), hashlib.sha256(document.encode()).hexdigest()
                    if qk in seen_q or dk in seen_d:  # duplicates make false in-batch negatives
                        continue
                    seen_q.add(qk)
                    seen_d.add(dk)
                    sink.write(json.dumps({"q": query, "d": document, "pkg": key}) + "\n")
                    got += 1
                    if sink is held:
                        n_held += 1
                    else:
                        n_train += 1
            counts[key] = got
            print(f"{key:40s} {got:6d} pairs", flush=True)
    print(f"total: {n_train} train + {n_held} held-out pairs from {len(counts)} packages -> {out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
