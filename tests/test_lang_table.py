"""The language table: one row per language, every query file compiles, and the facts other rooms read from it."""

from __future__ import annotations

import pytest

from igraph_mcp.index.parse import QUERY_DIR, load_query
from igraph_mcp.index.symbols import module_candidates
from igraph_mcp.text.identifiers import is_code_shaped
from igraph_mcp.vocab.languages import (
    LANGUAGES,
    SOURCE_EXTENSIONS,
    language_for_path,
    source_extension,
    source_extension_pattern,
    spec_for_path,
)


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_every_row_has_its_query_files_and_they_compile(name: str) -> None:
    spec = LANGUAGES[name]
    for fname in spec.queries:
        assert (QUERY_DIR / fname).is_file(), fname
    assert load_query(spec).pattern_count > 0


def test_extensions_belong_to_one_row() -> None:
    seen: dict[str, str] = {}
    for spec in LANGUAGES.values():
        for ext in spec.extensions:
            assert ext == ext.lower() and ext.startswith(".")
            assert ext not in seen, f"{ext} in {seen.get(ext)} and {spec.name}"
            seen[ext] = spec.name
    assert set(SOURCE_EXTENSIONS) == set(seen)


@pytest.mark.parametrize(
    ("path", "language", "extension"),
    [
        ("pkg/mod.py", "python", ".py"),
        ("web/App.TSX", "tsx", ".TSX"),
        ("lib/Rakefile", "ruby", ""),
        ("README.md", None, ""),
        ("src/x.c++", "cpp", ".c++"),
    ],
)
def test_path_facts(path: str, language: str | None, extension: str) -> None:
    assert language_for_path(path) == language
    assert source_extension(path) == extension
    spec = spec_for_path(path)
    assert (spec.name if spec else None) == language


def test_extension_pattern_matches_only_known_extensions() -> None:
    pattern = source_extension_pattern()
    assert pattern.search("src/app.tsx")
    assert pattern.search("geo.hpp")
    assert not pattern.search("notes.md")
    assert not pattern.search("session.request")


@pytest.mark.parametrize(
    ("module", "importer", "expected_first"),
    [
        ("App\\Models\\User", "src/Http/Kernel.php", "App/Models/User"),
        ("java.util.List", "src/Main.java", "java/util/List"),
        ("pkg.mod", "a.py", "pkg/mod"),
        ("lodash.merge", "src/a.js", "lodash.merge"),  # a JS package name is not a dotted path
        ("github.com/spf13/cobra", "main.go", "github.com/spf13/cobra"),
        ("crate::a::b", "src/lib.rs", "a/b"),
        ("a::b", "notes.txt", "a/b"),  # importer of no known language: every usual separator splits
    ],
)
def test_module_separators_come_from_the_importer_row(module: str, importer: str, expected_first: str) -> None:
    assert module_candidates(module, importer)[0] == expected_first


@pytest.mark.parametrize(
    ("word", "shaped"),
    [
        ("snake_case", True),
        ("camelCase", True),
        ("HTTPServer", True),
        ("$el", True),
        ("Render", False),
        ("URL", False),
        ("render", False),
    ],
)
def test_is_code_shaped(word: str, shaped: bool) -> None:
    assert is_code_shaped(word) is shaped
