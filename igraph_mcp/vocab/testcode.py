"""What a test path is: one answer for the resolver (no name-only guess from library code into tests) and the
ranker (test code is demoted unless the query mentions tests)."""

from __future__ import annotations

# Directory names that hold tests, compared in lower case.
TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})


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
