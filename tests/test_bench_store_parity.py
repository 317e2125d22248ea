"""The retrieval benchmark's store-parity pieces: the side-by-side comparison of two runs and the embed-cache seed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _factories import make_repo

from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.embed.text import symbol_embedding_text
from igraph_mcp.service import IGraphService

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import retrieval  # benchmarks/ is not a package: imported via sys.path
from embed_cache import CachedEmbedder


def _run(path: Path, mrr: list[float], top: list[str]) -> Path:
    """A --json run of one docstring tree with one 'default' record per MRR value."""
    records: list[dict[str, Any]] = [
        {
            "tree": "t==1",
            "qid": f"q{i}",
            "half": "",
            "system": "default",
            "seconds": 0.01,
            "error": None,
            "metrics": {"acc@1": float(v == 1.0), "mrr@10": v},
            "top_functions": [top[i]],
            "top_files": [],
        }
        for i, v in enumerate(mrr)
    ]
    path.write_text(json.dumps({"trees": [{"tree": "t==1", "set": "docstrings", "records": records}]}))
    return path


def test_compare_passes_equal_runs_and_counts_equal_tops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _run(tmp_path / "a.json", [1.0, 0.5], ["x", "y"])
    b = _run(tmp_path / "b.json", [1.0, 0.5], ["x", "z"])
    assert retrieval.compare_runs(a, b, ["default"], 1.0) == 0
    out = capsys.readouterr().out
    assert "same top 3 1/2" in out
    assert "largest difference: 0.0 points (within 1)" in out


def test_compare_flags_a_difference_above_parity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _run(tmp_path / "a.json", [1.0, 1.0, 0.5, 0.5], list("abcd"))
    b = _run(tmp_path / "b.json", [1.0, 0.5, 0.5, 0.5], list("abcd"))  # one query down: -25 points of acc@1
    assert retrieval.compare_runs(a, b, ["default"], 1.0) == 1
    out = capsys.readouterr().out
    assert "acc@1            50.0   25.0  -25.0 *" in out
    assert "OVER 1" in out


def test_compare_counts_only_queries_both_runs_answered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _run(tmp_path / "a.json", [1.0, 0.0], ["x", "y"])
    b = _run(tmp_path / "b.json", [1.0], ["x"])  # a run stopped after one query
    assert retrieval.compare_runs(a, b, ["default"], 1.0) == 0
    assert "n 1," in capsys.readouterr().out


def test_seed_from_index_copies_the_vectors_of_a_sqlite_index(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"pkg/a.py": "def alpha(x):\n    return x + 1\n"})
    embedder = HashingEmbedder(64)
    svc = IGraphService(root, embedder=embedder, store="sqlite")
    try:
        svc.index(full=True)
        rows = svc.db.rows(
            "SELECT n.kind, n.name, n.qualified_name, f.path, n.signature, n.docstring, n.body "
            "FROM nodes n JOIN files f ON f.id = n.file_id"
        )
    finally:
        svc.close()
    texts = [
        symbol_embedding_text(kind=k, name=n, qualified_name=q, path=p, signature=s, docstring=d, body=b)
        for k, n, q, p, s, d, b in rows
    ]
    cache = CachedEmbedder(embedder, tmp_path / "cache.sqlite")
    assert cache.seed_from_index(root / ".igraph" / "igraph.db") == len(texts) > 0
    assert cache.seed_from_index(root / ".igraph" / "igraph.db") == 0  # already there
    got = cache.embed(texts)
    assert cache.misses == 0  # every vector came from the seed, none from the model
    assert np.allclose(got, np.asarray(embedder.embed(texts), dtype=np.float32), atol=1e-6)
    other = CachedEmbedder(HashingEmbedder(32), tmp_path / "other.sqlite")
    assert other.seed_from_index(root / ".igraph" / "igraph.db") == 0  # another embedder's index seeds nothing
