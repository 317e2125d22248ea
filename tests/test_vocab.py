"""The shared vocabulary: one answer to "is this test code?" for the resolver and the ranker, one decoding and line
split of source bytes, and the link cut-offs (that vocab/ imports nothing else is lint-imports' check)."""

from __future__ import annotations

import pytest

from igraph_mcp.index.resolve import Resolver
from igraph_mcp.index.symbols import Sym, SymbolTable
from igraph_mcp.retrieve.analyze import analyze_query
from igraph_mcp.retrieve.boosts import IDENTIFIER, SIDE_COPY, TEST_CODE, BoostFactors, Candidate, boost
from igraph_mcp.vocab.links import Thresholds
from igraph_mcp.vocab.source import normalize_source, source_lines
from igraph_mcp.vocab.testcode import (
    is_generated_code,
    is_generated_copy,
    is_non_source,
    is_side_copy,
    is_test_path,
    is_test_side,
)

# Paths where the resolver's old rule and the ranker's disagreed, then some where they always agreed: is it test
# code (one answer for both), and may library code guess into it (no for tests and for the inputs of tests).
TEST_PATHS = [
    ("src/test/java/FooTest.java", True, True),
    ("pkg/foo_tests.py", True, True),
    ("web/WidgetSpec.ts", True, True),
    ("src/main/java/com/squareup/javapoet/TypeSpec.java", False, False),  # a Java value class, not a Spock spec
    ("lib/ParserSpec.kt", True, True),  # Kotest / Spek
    ("conftest.pyi", True, True),
    ("web/app.spec.ts", True, True),
    ("pkg/testdata/input.go", False, True),  # inputs of tests: not demoted, never called from library code
    ("web/fixtures/user.js", False, True),
    ("web/foo.test.d.ts", False, False),
    ("pkg/latest.py", False, False),
    ("pkg/Contest.java", False, False),
    # where both rules always agreed
    ("tests/test_models.py", True, True),
    ("pkg/tests/helpers.py", True, True),
    ("src/server_test.go", True, True),
    ("conftest.py", True, True),
    ("test.c", True, True),  # a file that is all tests by its name alone
    ("src/dfa/tests.rs", True, True),
    ("src/contest.c", False, False),
    ("myapp/tests.py", True, True),
    ("django/core/management/commands/test.py", False, False),  # the command that runs the tests
    ("pkg/test.go", False, False),  # Go's tests end in _test.go
    ("pkg/attest.py", False, False),
    ("src/app.py", False, False),
    # test folders by their last word, and Catch2's `.tests.cpp`
    ("projects/SelfTest/UsageTests/Message.tests.cpp", True, True),
    ("projects/SelfTest/SurrogateCpps/catch_option.cpp", True, True),
    ("jib-core/src/integration-test/java/com/x/Registry.java", True, True),
    ("pkg/unit_tests/helpers.py", True, True),
    ("lib/latest/version.py", False, False),
    ("net/httptest/server.go", False, False),
]


@pytest.mark.parametrize(("path", "expected", "_test_side"), TEST_PATHS)
def test_ranker_demotes_exactly_the_test_paths(path: str, expected: bool, _test_side: bool) -> None:
    assert is_test_path(path) is expected
    _factor, why = boost(Candidate("helper", "helper", "function", path), analyze_query("where is the cache reset"))
    assert ("testCode" in why) is (expected and TEST_CODE != 1.0)


def _guess_from_library(path: str) -> tuple[int | None, str]:
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
    return b.target, b.how


@pytest.mark.parametrize(("path", "_expected", "test_side"), TEST_PATHS)
def test_resolver_never_guesses_into_tests_or_their_inputs(path: str, _expected: bool, test_side: bool) -> None:
    assert is_test_side(path) is test_side
    assert _guess_from_library(path) == ((None, "unresolved") if test_side else (21, "unique_global"))


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


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("single_include/catch2/catch.hpp", True),  # Catch2 2.x, nlohmann/json
        ("extras/catch_amalgamated.cpp", True),  # Catch2 3.x
        ("singleheader/simdjson.h", True),
        ("dist/js-yaml.js", True),  # a committed bundle of lib/
        ("packages/core/dist/index.mjs", True),
        ("include/nlohmann/json.hpp", False),
        ("lib/distance.js", False),  # the original the copies are made from
        ("src/catch2/internal/catch_run_context.cpp", False),
        ("pkg/single.py", False),
    ],
)
def test_generated_copies_are_non_source(path: str, expected: bool) -> None:
    assert is_generated_copy(path) is expected
    assert is_non_source(path) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("benchmark/implementations/current/loader.js", True),  # js-yaml's older copy of its library
        ("benches/parse.rs", True),
        ("sympy/core/benchmarks/bench_basic.py", True),
        ("demo/app.js", True),
        ("docs/conf.py", True),
        ("src/benchmarking.ts", False),
        ("lib/demolish.js", False),
        ("src/bench.go", False),  # a file, not a folder, of that name
    ],
)
def test_docs_demos_and_benchmarks_are_non_source(path: str, expected: bool) -> None:
    assert is_non_source(path) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("contrib/linux-kernel/lib/zstd/decompress.c", True),  # a port of lib/decompress/zstd_decompress.c
        ("lib/legacy/zstd_v05.c", True),  # the decoder of an old format
        ("contrib/pzstd/Pzstd.cpp", True),
        ("third_party/clara.hpp", True),  # vendored
        ("django/contrib/admin/options.py", False),  # a Python package's contrib/ is the library
        ("lib/decompress/zstd_decompress.c", False),
        ("src/legacy.c", False),
    ],
)
def test_c_side_copies_are_non_source(path: str, expected: bool) -> None:
    assert is_side_copy(path) is expected
    assert is_non_source(path) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("pb/badgerpb4.pb.go", True),
        ("api/service_pb2.py", True),
        ("pkg/apis/v1/zz_generated.deepcopy.go", True),
        ("src/schema.generated.ts", True),
        ("src/api_generated.rs", True),
        ("pb/badgerpb4.proto", False),  # the source it is written from
        ("levels.go", False),
        ("src/generator.ts", False),
    ],
)
def test_generated_code_is_non_source(path: str, expected: bool) -> None:
    assert is_generated_code(path) is expected
    assert is_non_source(path) is expected


def test_side_copies_are_demoted_unless_the_query_names_them() -> None:
    cand = Candidate("ZSTD_decompressStream", "ZSTD_decompressStream", "function", "contrib/linux-kernel/decompress.c")
    factor, why = boost(cand, analyze_query("ZSTD_decompressStream fails on a short buffer"))
    assert factor == pytest.approx(SIDE_COPY * IDENTIFIER) and why == ["identifier", "sideCopy"]
    named = analyze_query("contrib/linux-kernel/decompress.c fails on a short buffer")
    assert "sideCopy" not in boost(cand, named)[1]
    original = Candidate(
        "ZSTD_decompressStream", "ZSTD_decompressStream", "function", "lib/decompress/zstd_decompress.c"
    )
    assert "sideCopy" not in boost(original, analyze_query("ZSTD_decompressStream fails"))[1]


def test_generated_copies_are_demoted_unless_the_query_names_them() -> None:
    factors = BoostFactors(generated_copy=0.5)
    cand = Candidate("convert", "Catch.StringMaker.convert", "method", "single_include/catch2/catch.hpp")
    factor, why = boost(cand, analyze_query("StringMaker prints a char array wrongly"), factors=factors)
    assert factor == pytest.approx(0.5) and why == ["generatedCopy"]
    factor, why = boost(cand, analyze_query("catch2/catch.hpp prints a char array wrongly"), factors=factors)
    assert "generatedCopy" not in why
    original = Candidate("convert", "Catch.StringMaker.convert", "method", "include/internal/catch_tostring.cpp")
    assert "generatedCopy" not in boost(original, analyze_query("StringMaker prints wrongly"), factors=factors)[1]
