"""The explore text says each thing once: files the hits name are not listed again, snippets lose only their
common indentation, a long signature line is clipped."""

from __future__ import annotations

from typing import Any

from igraph_mcp.models import ExploreResult, FileHit, Hit
from igraph_mcp.render import SIGNATURE_CHARS, render_explore


def hit(node_id: int, path: str, **more: Any) -> Hit:
    """A ranked function in ``path``."""
    fields: dict[str, Any] = {
        "nodeId": node_id,
        "name": f"f{node_id}",
        "qualifiedName": f"f{node_id}",
        "kind": "function",
        "filePath": path,
        "startLine": 1,
        "endLine": 30,
        "signature": f"def f{node_id}()",
        "score": 0.5,
        "matchChannel": "fts5",
    }
    return Hit(**(fields | more))


def test_files_line_names_only_files_no_hit_is_in() -> None:
    files = [FileHit(filePath=p, score=1.0 / i) for i, p in enumerate(["a.py", "c.py", "b.py", "d.py"], 1)]
    text = render_explore(ExploreResult(query="q", hits=[hit(1, "a.py"), hit(2, "b.py")], files=files))
    assert text.splitlines()[-1] == "more files: c.py, d.py"  # the file ranking's order, without a.py and b.py
    every_file_a_hit = render_explore(ExploreResult(query="q", hits=[hit(1, "a.py")], files=files[:1]))
    assert "files" not in every_file_a_hit


def test_workspace_files_are_told_apart_by_repository() -> None:
    files = [FileHit(repo="api", filePath="a.py", score=1.0), FileHit(repo="web", filePath="a.py", score=0.5)]
    text = render_explore(ExploreResult(query="q", hits=[hit(1, "a.py", repo="api")], files=files))
    assert text.splitlines()[-1] == "more files: web:a.py"


def test_snippet_keeps_relative_indentation_without_the_common_one() -> None:
    part = "        if ready:\n            go()\n        # done\n"
    text = render_explore(ExploreResult(query="q", hits=[hit(1, "a.py", snippet=part, partLines=[10, 12])]))
    assert text.splitlines()[-3:] == ["   | if ready:", "   |     go()", "   | # done"]


def test_long_signature_is_clipped_short_one_kept() -> None:
    long_sig = "def f1(): # " + "a comment that the signature extraction ran into " * 5
    text = render_explore(ExploreResult(query="q", hits=[hit(1, "a.py", signature=long_sig), hit(2, "b.py")]))
    lines = text.splitlines()
    assert len(lines[1]) == 3 + SIGNATURE_CHARS and lines[1].endswith("…") and lines[1].startswith("   def f1():")
    assert lines[3] == "   def f2()"
