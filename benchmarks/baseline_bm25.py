"""Plain BM25 baseline (bm25s) over Python symbols extracted with ``ast`` (other languages: igraph_mcp's parser).

One document per function, method and class (``path::Qualified.name``) plus one per file for
module-level code, so files made only of constants or imports can still be ranked. A class
document holds the class without its methods' bodies (their ``def`` lines stay), so a method's
text is not counted twice. Each document starts with its path and qualified name.
Tokens: identifiers split on ``_`` and camelCase, lowercased, English stopwords and 1-char
tokens dropped; a compound identifier is also kept whole (``validate_number``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np
from bench_data import PySymbol, extract_symbols
from bm25s.stopwords import STOPWORDS_EN

MODULE_QUALNAME = "<module>"
_WORD_RUN = re.compile(r"[A-Za-z0-9_]+")
_SUBWORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOP = frozenset(STOPWORDS_EN)


def tokenize_code(text: str) -> list[str]:
    """Split text into lowercase identifier words; compounds are also kept whole."""
    out: list[str] = []
    for run in _WORD_RUN.findall(text):
        parts = [p.lower() for p in _SUBWORD.findall(run)]
        if len(parts) > 1:
            parts.append(run.strip("_").lower())
        out.extend(p for p in parts if len(p) > 1 and p not in _STOP)
    return out


@dataclass(frozen=True)
class Ranking:
    """A system's answer to one query: ranked (path, qualname) symbols and ranked file paths."""

    functions: list[tuple[str, str]]
    files: list[str]


def symbol_documents(symbols: list[PySymbol], sources: dict[str, bytes]) -> list[tuple[str, str, str]]:
    """Build (path, qualname, text) documents: one per symbol plus one module residue per file."""
    by_file: dict[str, list[PySymbol]] = {}
    for s in symbols:
        by_file.setdefault(s.path, []).append(s)
    docs: list[tuple[str, str, str]] = []
    for path, data in sources.items():
        lines = data.decode("utf-8", errors="replace").splitlines()
        syms = by_file.get(path, [])
        for s in syms:
            keep = range(s.start_line - 1, s.end_line)
            if s.kind == "class":
                # Drop the bodies of direct children; keep their first line (decorator or def).
                children = [c for c in syms if c.qualname.startswith(s.qualname + ".")]
                hidden = {i for c in children for i in range(c.start_line, c.end_line)}
                keep = [i for i in keep if i not in hidden]  # type: ignore[assignment]
            body = "\n".join(lines[i] for i in keep if i < len(lines))
            docs.append((path, s.qualname, f"{path} {s.qualname}\n{body}"))
        covered = {i for s in syms if "." not in s.qualname for i in range(s.start_line - 1, s.end_line)}
        residue = "\n".join(line for i, line in enumerate(lines) if i not in covered)
        docs.append((path, MODULE_QUALNAME, f"{path}\n{residue}"))
    return docs


class Bm25Index:
    """BM25 over one tree's symbols; ``search`` returns ranked symbols and files."""

    def __init__(
        self,
        root: Path,
        extract: Callable[[Path], tuple[list[PySymbol], dict[str, bytes], int]] = extract_symbols,
    ) -> None:
        """Extract symbols from root and build the index (timed in ``build_seconds``); ``extract``:
        bench_data.extract_code_symbols for trees in other languages."""
        started = time.perf_counter()
        symbols, sources, self.unparsable_files = extract(root)
        self.class_keys = frozenset(s.key for s in symbols if s.kind == "class")
        self.symbol_keys = frozenset(s.key for s in symbols)
        docs = symbol_documents(symbols, sources)
        self._paths = [d[0] for d in docs]
        self._qualnames = [d[1] for d in docs]
        self._retriever = bm25s.BM25()
        self._retriever.index([tokenize_code(d[2]) for d in docs], show_progress=False)
        self.build_seconds = time.perf_counter() - started
        self.documents = len(docs)

    def search(self, query: str, top_k: int = 100) -> Ranking:
        """Return up to top_k symbols and top_k files with a positive score, best first."""
        tokens = tokenize_code(query)
        if not tokens:
            return Ranking([], [])
        scores = self._retriever.get_scores(tokens)
        order = np.argsort(-scores, kind="stable")
        functions: list[tuple[str, str]] = []
        files: list[str] = []
        seen_files: set[str] = set()
        for idx in order:
            if scores[idx] <= 0 or (len(functions) >= top_k and len(files) >= top_k):
                break
            path, qn = self._paths[idx], self._qualnames[idx]
            if qn != MODULE_QUALNAME and len(functions) < top_k:
                functions.append((path, qn))
            if path not in seen_files:
                seen_files.add(path)
                files.append(path)
        return Ranking(functions, files[:top_k])
