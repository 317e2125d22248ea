"""What a test path is: one answer for the resolver (no name-only guess from library code into tests) and the
ranker (test code is demoted unless the query mentions tests); where tests keep their inputs; and which files are
generated copies of the project's own code."""

from __future__ import annotations

# Directory names that hold tests, compared in lower case.
TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})
# Directory names that hold the inputs of tests (Go's testdata, JavaScript's fixtures): not tests, so the ranker
# does not demote them, but no library code calls into them either.
TEST_INPUT_DIRS = frozenset({"testdata", "fixtures"})


def is_test_path(path: str) -> bool:
    """True for files that hold tests by the usual conventions of the supported languages."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    low = stem.lower()
    return (
        any(p.lower() in TEST_DIRS for p in parts[:-1])
        or low.startswith("test_")
        or low == "conftest"
        or low.endswith(("_test", "_tests", ".test", ".spec", "_spec"))
        or stem.endswith(("Test", "Tests", "Spec"))  # Java, Kotlin, C#: FooTest.java
    )


def is_test_side(path: str) -> bool:
    """Test code or the inputs of tests: what library code never calls (the resolver's name-only guesses)."""
    return is_test_path(path) or any(p.lower() in TEST_INPUT_DIRS for p in path.split("/")[:-1])


_NON_SOURCE_DIRS = frozenset({"doc", "docs", "example", "examples"})
# Generated single-file copies of a C/C++ library (Catch2's single_include/ and extras/catch_amalgamated.*,
# nlohmann/json's single_include/, simdjson's singleheader/): every definition twice, and the fix is in the original.
_GENERATED_COPY_DIRS = frozenset({"single_include", "singleheader"})
_GENERATED_COPY_STEM = "amalgamated"


def is_generated_copy(path: str) -> bool:
    """A generated single-file copy of the project's code (an amalgamation), by the C/C++ conventions above."""
    parts = path.split("/")
    return _GENERATED_COPY_STEM in parts[-1].lower() or any(p.lower() in _GENERATED_COPY_DIRS for p in parts[:-1])


def is_non_source(path: str) -> bool:
    """Tests, documentation, examples and generated copies: where an issue's fix rarely is."""
    return (
        is_test_path(path)
        or is_generated_copy(path)
        or any(part.lower() in _NON_SOURCE_DIRS for part in path.split("/")[:-1])
    )
