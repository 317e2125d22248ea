"""What a test path is: one answer for the resolver (no name-only guess from library code into tests) and the
ranker (test code is demoted unless the query mentions tests); where tests keep their inputs; and which files are
generated copies of the project's own code."""

from __future__ import annotations

from functools import lru_cache

# The ranker asks these of the same few hundred paths for every question: each answer is kept per path.
_PATHS_KEPT = 1 << 16

# Directory names that hold tests, compared in lower case.
TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})
# Directory names that hold the inputs of tests (Go's testdata, JavaScript's fixtures): not tests, so the ranker
# does not demote them, but no library code calls into them either.
TEST_INPUT_DIRS = frozenset({"testdata", "fixtures"})
# Java names specifications of values `...Spec` (javapoet's TypeSpec, java.security.spec's KeySpec) and keeps its
# tests under src/test as `...Test`: there, and only there, a `Spec` stem is library code (Spock, Kotest, Jasmine
# name tests `FooSpec`).
_SPEC_IS_CODE = (".java",)


@lru_cache(maxsize=_PATHS_KEPT)
def is_test_path(path: str) -> bool:
    """True for files that hold tests by the usual conventions of the supported languages."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    low = stem.lower()
    return (
        any(is_test_dir(p) for p in parts[:-1])
        or low.startswith("test_")
        or low == "conftest"
        or (low in ("test", "tests") and _named_test_is_tests(parts[-1], low))
        or low.endswith(("_test", "_tests", ".test", ".tests", ".spec", "_spec"))  # Catch2: Message.tests.cpp
        or stem.endswith(("Test", "Tests"))  # Java, Kotlin, C#: FooTest.java
        or (stem.endswith("Spec") and not parts[-1].endswith(_SPEC_IS_CODE))
    )


def _named_test_is_tests(filename: str, stem: str) -> bool:
    """Whether a file named test or tests holds tests: hiredis's `test.c`, a Rust module's `tests.rs`, Django's
    `tests.py`; not Django's `commands/test.py` (the command that runs them) nor Go's `test.go` (Go's are _test)."""
    ext = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if ext == "go":
        return False
    return not (stem == "test" and ext in ("py", "pyi"))


def is_test_dir(name: str) -> bool:
    """A directory of tests: one of TEST_DIRS, or a name whose last word is "test(s)" (Catch2's SelfTest and
    UsageTests, jib's integration-test, unit_tests); "latest" and "contest" are no such name."""
    low = name.lower()
    if low in TEST_DIRS:
        return True
    for word in ("tests", "test"):
        head = name[: -len(word)]
        if low.endswith(word) and head:
            starts_word = head[-1] in "-_." or (name[-len(word)].isupper() and head[-1].islower())
            if starts_word:
                return True
    return False


@lru_cache(maxsize=_PATHS_KEPT)
def is_test_side(path: str) -> bool:
    """Test code or the inputs of tests: what library code never calls (the resolver's name-only guesses)."""
    return is_test_path(path) or any(p.lower() in TEST_INPUT_DIRS for p in path.split("/")[:-1])


# Documentation, examples, demos and benchmarks: code about the project, where an issue's fix rarely is (js-yaml keeps
# a whole older copy of its library under benchmark/implementations/).
_NON_SOURCE_DIRS = frozenset(
    {"doc", "docs", "example", "examples", "demo", "demos", "benchmark", "benchmarks", "bench", "benches"}
)
# Generated single-file copies of a C/C++ library (Catch2's single_include/ and extras/catch_amalgamated.*,
# nlohmann/json's single_include/, simdjson's singleheader/): every definition twice, and the fix is in the original.
# JavaScript packages that commit their built bundles keep them in dist/ (js-yaml's dist/js-yaml.js is its lib/ again).
_GENERATED_COPY_DIRS = frozenset({"single_include", "singleheader", "dist"})
_GENERATED_COPY_STEM = "amalgamated"


@lru_cache(maxsize=_PATHS_KEPT)
def is_generated_copy(path: str) -> bool:
    """A generated copy of the project's code (an amalgamation, a built bundle), by the conventions above."""
    parts = path.split("/")
    return _GENERATED_COPY_STEM in parts[-1].lower() or any(p.lower() in _GENERATED_COPY_DIRS for p in parts[:-1])


# Code a tool writes from another source (a .proto, a schema): the fix is in the source or the tool, never here.
# Protocol Buffers and gRPC outputs by language, and the usual `generated` file names (Go's zz_generated.deepcopy.go).
_GENERATED_SUFFIXES = (
    ".pb.go",
    ".pb.gw.go",
    "_pb2.py",
    "_pb2_grpc.py",
    "_pb2.pyi",
    ".pb.cc",
    ".pb.h",
    "_pb.js",
    "_pb.d.ts",
    "_grpc_pb.js",
    ".g.dart",
)
_GENERATED_STEM_MARKS = ("zz_generated", ".generated", "_generated")


@lru_cache(maxsize=_PATHS_KEPT)
def is_generated_code(path: str) -> bool:
    """A file a code generator wrote (protobuf and gRPC outputs, `*.generated.*`, `zz_generated*`), by name."""
    name = path.rsplit("/", 1)[-1].lower()
    stem = name.rsplit(".", 1)[0]
    return name.endswith(_GENERATED_SUFFIXES) or stem.startswith("zz_generated") or stem.endswith(_GENERATED_STEM_MARKS)


# C and C++ trees keep other code beside the library: contributed ports and wrappers (zstd's contrib/linux-kernel
# holds a second decompress.c), decoders of old formats (lib/legacy/zstd_v05.c) and vendored dependencies
# (third_party/clara.hpp). Only for C/C++ files: a Python package's contrib/ (django.contrib) is the library itself.
_C_FAMILY = (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".inl", ".ipp")
_C_SIDE_COPY_DIRS = frozenset({"contrib", "legacy", "third_party", "thirdparty", "3rdparty"})


@lru_cache(maxsize=_PATHS_KEPT)
def is_side_copy(path: str) -> bool:
    """A C/C++ file in a folder of code beside the library (contrib/, legacy/, third_party/), as above."""
    parts = path.split("/")
    return parts[-1].lower().endswith(_C_FAMILY) and any(p.lower() in _C_SIDE_COPY_DIRS for p in parts[:-1])


@lru_cache(maxsize=_PATHS_KEPT)
def is_non_source(path: str) -> bool:
    """Tests, documentation, examples, generated copies and code, C/C++ side copies: where an issue's fix rarely is."""
    return (
        is_test_path(path)
        or is_generated_copy(path)
        or is_side_copy(path)
        or is_generated_code(path)
        or any(part.lower() in _NON_SOURCE_DIRS for part in path.split("/")[:-1])
    )
