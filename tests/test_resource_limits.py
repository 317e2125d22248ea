"""Per-request resource limits (RELIABILITY I2, I5, Q4): a pathological file or query is capped by counts and the
cap is reported, instead of a hang. No timings: the bounds are on bytes held, statements run and rows bound."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _factories import index_repo, make_repo, make_service, subprocess_env

from igraph_mcp.retrieve.analyze import MAX_QUERY_CHARS
from igraph_mcp.service import IGraphService

MB = 1_000_000


def _pathological(root: Path) -> None:
    # 100,000 nested calls, one per line (short lines, so it does not look minified): ~0.4 MB of generated code
    # whose syntax query alone would run for minutes.
    (root / "gen").mkdir()
    (root / "gen" / "deep_calls.js").write_text("a(\n" * 100_000 + "1" + ")" * 100_000 + ";\n", encoding="utf-8")
    deep = (
        "def before_deep():\n    pass\n\nx = " + "(" * 50_000 + "1" + ")" * 50_000 + "\n\ndef after_deep():\n    pass\n"
    )
    (root / "gen" / "deep_parens.py").write_text(deep, encoding="utf-8")
    with open(root / "gen" / "huge_table.py", "wb") as fh:  # 50 MB, sparse: costs no disk
        fh.truncate(50 * MB)
    (root / "gen" / "bundle.js").write_text("var a=function(){return 1};" * 30_000, encoding="utf-8")  # 0.8 MB line


def test_pathological_files_are_capped_and_reported(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"app/ok.py": "def still_indexed():\n    return 1\n"})
    _pathological(root)
    svc = make_service(root)
    tracemalloc.start()
    try:
        result = svc.index()
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    try:
        assert result.skipped.get("too_large") == 1  # the 50 MB file: never read whole
        assert result.skipped.get("minified") == 1
        assert result.skipped.get("too_deeply_nested") == 2  # the deep regions parsed as blank text, and counted
        assert peak < 40 * MB, f"indexing held {peak / MB:.0f} MB of Python objects"
        assert svc.node("still_indexed").found
        deep = svc.file("gen/deep_calls.js")
        assert deep.found and deep.parseStatus == "partial" and deep.symbols == []
        # H1: the definitions around a deep region are indexed, and the region's text stays searchable
        assert svc.node("before_deep").found and svc.node("after_deep").found
        assert svc.file("gen/deep_parens.py").parseStatus == "partial"
    finally:
        svc.close()


_DEEP_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
from igraph_mcp.index.parse import parse_source
parse_source(b"x = 1\\n", "python")  # imports and the compiled query, before the stack is bounded
sys.setrecursionlimit(80)  # nothing recurses over the input: 500,000 levels run in a few dozen frames
n = int(sys.argv[2])
code = b"def before():\\n    pass\\n\\nx = " + b"[\\n" * n + b"]\\n" * n + b"\\ndef after():\\n    pass\\n"
pf = parse_source(code, "python")
print(sorted(s.name for s in pf.symbols if s.name), pf.deep_regions)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS bounds a process's memory on Linux")
@pytest.mark.timeout(180)
def test_a_deep_region_parses_in_bounded_memory_and_stack() -> None:
    # 2 MB of one list literal nested 500,000 deep between two functions, parsed in a process that may map no more
    # than 768 MB (the interpreter with numpy and the grammars maps ~150 MB) and hold no more than 80 Python frames:
    # it finishes, with both functions.
    limit = 768 * 1024 * 1024
    done = subprocess.run(
        [sys.executable, "-c", _DEEP_CHILD, str(limit), "500000"],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == "['after', 'before'] 1"


class _Counter:
    """Counts the statements a connection runs and the values bound to them."""

    def __init__(self) -> None:
        self.statements = 0
        self.bindings = 0

    def __call__(self, _cursor: Any, _sql: str, bindings: Any) -> bool:
        self.statements += 1
        self.bindings += len(bindings) if isinstance(bindings, (tuple, list, dict)) else 0
        return True


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IGraphService]:
    files = {f"pkg/mod_{i}.py": f"def func_{i}(x):\n    return helper_{i}(x)\n" for i in range(60)}
    service = index_repo(make_repo(tmp_path_factory.mktemp("limits"), files))
    yield service
    service.close()


def _work(svc: IGraphService, query: str) -> tuple[_Counter, int]:
    counter = _Counter()
    db = svc.db
    db.con.exec_trace = counter
    tracemalloc.start()
    try:
        result = svc.explore(query, channels=("fts", "dense"))
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        db.con.exec_trace = None
    assert not result.diagnostics.degraded
    return counter, peak


@pytest.mark.parametrize(
    "query",
    [
        "x" * 10_000,  # 10,000 characters of one identifier
        "x" * MAX_QUERY_CHARS,  # and as many as a query may hold
        ("a.b " * 25_000)[:MAX_QUERY_CHARS],  # thousands of dotted names
        " ".join(f"mod_{i}.func_{i}" for i in range(8_000))[:MAX_QUERY_CHARS],  # thousands of distinct ones
        "(" * 5_000 + ")" * 5_000,
    ],
    ids=["identifier-10k", "identifier-max", "repeated-dotted", "distinct-dotted", "brackets"],
)
def test_pathological_queries_do_bounded_work(svc: IGraphService, query: str) -> None:
    normal, _ = _work(svc, "how does func_3 call its helper")
    worst, peak = _work(svc, query)
    # The work of a query is capped by counts, not by its length: a few times the statements of an ordinary
    # question (measured: 27 for it, at most 61 here), a bounded number of bound values (the identifier and
    # dotted-name caps; measured at most ~3,000) and a few MB of Python objects.
    assert worst.statements <= 4 * normal.statements, (worst.statements, normal.statements)
    assert worst.bindings <= 5_000, worst.bindings
    assert peak <= 20 * MB, f"{peak / MB:.1f} MB"


def test_the_query_limit_is_reported(svc: IGraphService) -> None:
    result = svc.explore("y" * (MAX_QUERY_CHARS + 5), channels=("fts",))
    notes = " ".join(filter(None, [result.note, result.diagnostics.note]))
    assert str(MAX_QUERY_CHARS) in notes
