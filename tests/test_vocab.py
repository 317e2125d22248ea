"""The shared vocabulary: one answer to "is this test code?" for the resolver and the ranker, one decoding and line
split of source bytes, and the link cut-offs (that vocab/ imports nothing else is lint-imports' check)."""

from __future__ import annotations

import pytest

from igraph_mcp.index.resolve import Resolver
from igraph_mcp.index.symbols import Sym, SymbolTable
from igraph_mcp.retrieve.analyze import analyze_query
from igraph_mcp.retrieve.boosts import TEST_CODE, Candidate, boost
from igraph_mcp.vocab.links import Thresholds
from igraph_mcp.vocab.source import normalize_source, source_lines
from igraph_mcp.vocab.testcode import is_test_path

# Paths where the resolver's old rule and the ranker's disagreed (the last two: where both said no), with the one
# answer both give now.
TEST_PATHS = [
    ("src/test/java/FooTest.java", True),
    ("pkg/foo_tests.py", True),
    ("web/WidgetSpec.ts", True),
    ("conftest.pyi", True),
    ("web/app.spec.ts", True),
    ("pkg/testdata/input.go", False),  # inputs of tests, not tests
    ("web/fixtures/user.js", False),
    ("web/foo.test.d.ts", False),
    ("pkg/latest.py", False),
    ("pkg/Contest.java", False),
]


@pytest.mark.parametrize(("path", "expected"), TEST_PATHS)
def test_ranker_demotes_exactly_the_test_paths(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected
    _factor, why = boost(Candidate("helper", "helper", "function", path), analyze_query("where is the cache reset"))
    assert ("testCode" in why) is (expected and TEST_CODE != 1.0)


@pytest.mark.parametrize(("path", "expected"), TEST_PATHS)
def test_resolver_never_guesses_into_the_same_test_paths(path: str, expected: bool) -> None:
    # JavaScript: a language whose calls may still bind by a unique global name.
    files = {1: "lib/app.js", 2: path}
    syms = [
        Sym(10, 1, "module", "app", "lib.app", None),
        Sym(11, 1, "function", "main", "main", 10),
        Sym(20, 2, "module", "other", "other", None),
        Sym(21, 2, "function", "helper", "helper", 20),
    ]
    b = Resolver(SymbolTable(syms, files, {}, languages={1: "javascript", 2: "javascript"})).resolve(
        11, 1, "calls", "helper", ""
    )
    assert (b.target, b.how) == ((None, "unresolved") if expected else (21, "unique_global"))


@pytest.mark.parametrize(
    ("raw", "lines"),
    [
        (b"a\r\nb\n", ["a", "b", ""]),
        ("x = '\u2028'\x0c\ny".encode(), ["x = '\u2028'\x0c", "y"]),  # only "\n" ends a line
        ("\u00e9t\u00e9\n".encode("utf-16"), ["\u00e9t\u00e9", ""]),
        ("caf\u00e9\n".encode("latin-1"), ["caf\u00e9", ""]),
        (b"", [""]),
    ],
)
def test_source_lines_count_as_the_parser_does(raw: bytes, lines: list[str]) -> None:
    assert source_lines(raw) == lines
    assert normalize_source(raw).count(b"\n") == len(lines) - 1


def test_weak_link_threshold_is_never_above_strong() -> None:
    class Settings:
        strongLinkThreshold = 0.6  # the config's own names
        weakLinkThreshold = 0.8

    assert Thresholds.from_config(Settings()) == Thresholds(strong=0.6, weak=0.6)
