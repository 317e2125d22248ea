"""C and C++ definitions are never lost because macros make a region "partial".

The fixtures (tests/fixtures/cpp_partial, written for these tests) wrap ordinary definitions in the macros real
libraries use: namespace and export macros on their own lines, attribute macros before declarations, `noexcept`
macros after parameter lists, macros inside class bodies. Two references for each file:
- its "twin": the same file with those macros replaced by spaces by hand (lines and offsets unchanged), which is
  what tree-sitter reads when nothing is in its way: every definition of the twin is in the file's outline, with
  the same kind, qualified name and first line;
- the raw tree: every definition the language's query finds in the file parsed whole, errors or not, is kept.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _factories import make_plain_repo, open_service

from igraph_mcp.index.parse import _parse_document, load_query, parse_source
from igraph_mcp.vocab.languages import get_spec

FIXTURES = Path(__file__).parent / "fixtures" / "cpp_partial"
# the macro families each fixture uses; the twin blanks every one of them (and the `#if` line no grammar reads)
CASES = {
    "chrono_like.h": ("cpp", "CLOCKFMT"),
    "widgets.hpp": ("cpp", "WIDGET"),
    "ring.c": ("c", "RING"),
    "guarded.cpp": ("cpp", "GUARD"),
    "locked.h": ("cpp", "GUARDED"),
}
# Macros the raw tree reads as definitions (`} GUARD_CATCH (E& e) {`, `GUARD_REQUIRES(mu) {`): the outline leaves
# them out, and keeps every other definition the raw tree holds (the fixtures' `#define`s among them).
MACROS_READ_AS_DEFINITIONS = {"guarded.cpp": {"GUARD_CATCH", "GUARD_REQUIRES"}, "locked.h": {"GUARDED_BY"}}


def _twin(source: bytes, family: str) -> bytes:
    def spaces(m: re.Match[bytes]) -> bytes:
        return b" " * len(m.group(0))

    macro = rb"\b" + family.encode() + rb"_[A-Z0-9_]+(?:[ \t]*\([^()\n]*\))?[;:]?"
    lines = source.split(b"\n")
    kept = [line if line.lstrip().startswith(b"#") else re.sub(macro, spaces, line) for line in lines]
    return re.sub(rb"^#if .*$", spaces, b"\n".join(kept), flags=re.M)


def _outline(name: str) -> tuple[str, bytes, set[tuple[str, str, int]]]:
    language, _family = CASES[name]
    source = (FIXTURES / name).read_bytes()
    parsed = parse_source(source, language, name)
    return language, source, {(s.kind, s.qualified_name, s.start_line) for s in parsed.symbols[1:]}


@pytest.mark.parametrize("name", list(CASES))
def test_every_definition_of_the_macro_free_twin_is_in_the_outline(name: str) -> None:
    language, source, outline = _outline(name)
    assert parse_source(source, language, name).has_error  # the fixture does trip tree-sitter up
    twin = parse_source(_twin(source, CASES[name][1]), language, name)
    expected = {(s.kind, s.qualified_name, s.start_line) for s in twin.symbols[1:]}
    assert len(expected) >= 5
    assert expected - outline == set()


@pytest.mark.parametrize("name", list(CASES))
def test_what_the_raw_tree_holds_is_kept(name: str) -> None:
    language, source, outline = _outline(name)
    spec = get_spec(language)
    raw, _tree = _parse_document(source, spec, load_query(spec), [])
    names_and_ends = {(q.rsplit(".", 1)[-1], line) for _kind, q, line in outline}
    parsed = parse_source(source, language, name)
    ends = {(s.name, s.end_line) for s in parsed.symbols[1:]}
    dropped = MACROS_READ_AS_DEFINITIONS.get(name, set())
    assert not dropped & {s.name for s in parsed.symbols}
    for sym in raw.symbols[1:]:
        if sym.name in dropped:
            continue
        # the same definition, read with or without a macro line before it, starts or ends on the same line
        assert (sym.name, sym.start_line) in names_and_ends or (sym.name, sym.end_line) in ends, sym.qualified_name


def test_the_methods_of_a_template_specialisation_reach_the_outline() -> None:
    _language, _source, outline = _outline("chrono_like.h")
    # issue 31: `template <typename Char> struct formatter<std::tm, Char>` after an export macro
    assert {
        ("struct", "formatter", 50),
        ("method", "formatter.parse", 55),
        ("method", "formatter.format", 62),
        ("class", "detail.tm_writer", 27),
        ("method", "detail.tm_writer.on_month", 41),
    } <= outline
    assert ("function", "format", 62) not in outline  # not a free function any more
    # one definition read from two lines (after a macro line, or not) is listed once
    assert [line for _kind, q, line in outline if q == "localtime"] == [85]


def test_blocks_opened_by_macros_keep_their_namespace() -> None:
    _language, _source, outline = _outline("guarded.cpp")
    # `GUARD_TRY { ... }` read as an initializer list closed `namespace store` early: every later method lost it
    assert {
        ("method", "store.Session.Session", 8),
        ("method", "store.Session.open", 15),
        ("method", "store.Session.close", 24),
        ("method", "store.Session.ready", 41),
        ("function", "store.detail.retries", 46),
    } <= outline
    assert not [q for _kind, q, _line in outline if "GUARD_" in q]  # no macro is read as a definition


def test_a_lock_annotation_after_a_field_is_no_method() -> None:
    _language, _source, outline = _outline("locked.h")
    # `int size_ GUARDED_BY(mu_);` read as a method named GUARDED_BY, once per annotated field
    assert not [q for _kind, q, _line in outline if "GUARDED_BY" in q]
    assert {("method", "store.Cache.evict", 17), ("method", "store.Cache.insert", 20)} <= outline


def test_a_catch_after_an_if_block_is_no_function() -> None:
    _language, _source, outline = _outline("guarded.cpp")
    # `try { ... }` then `#if ...` then `catch (E& e) { ... }`: the grammar reads the catch as a function named catch
    assert ("method", "store.Session.run", 29) in outline
    assert not [q for _kind, q, _line in outline if q.rsplit(".", 1)[-1] in {"catch", "try", "if"}]


def test_signatures_keep_the_macros_as_written() -> None:
    source = (FIXTURES / "chrono_like.h").read_bytes()
    parsed = parse_source(source, "cpp", "chrono_like.h")
    on_month = next(s for s in parsed.symbols if s.qualified_name == "detail.tm_writer.on_month")
    assert on_month.signature == "void on_month() CLOCKFMT_NOEXCEPT"
    assert parsed.has_error  # still stored as a partial parse: the file is not one tree-sitter reads whole


def test_error_free_files_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from igraph_mcp.index import parse

    calls: list[bytes] = []
    real = parse._parse_document

    def counting(source: bytes, *args: object, **kwargs: object) -> object:
        calls.append(source)
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parse, "_parse_document", counting)
    # a line the macro patterns match (an upper-case name alone), in a file tree-sitter reads without an error
    parsed = parse_source(b"void f(void) {\n  int n = 1 +\n    EXTRA_PAD;\n}\n", "c", "x.h")
    assert not parsed.has_error and len(calls) == 1 and parsed.language == "c"


def test_a_cpp_header_named_h_is_read_as_cpp() -> None:
    source = (FIXTURES / "chrono_like.h").read_bytes()
    parsed = parse_source(source, "c", "include/chrono_like.h")  # the walk calls every `.h` C
    assert parsed.language == "cpp"
    assert {("method", "formatter.format", 62), ("class", "detail.tm_writer", 27)} <= {
        (s.kind, s.qualified_name, s.start_line) for s in parsed.symbols
    }
    as_c_source = parse_source(source, "c", "include/chrono_like.c")  # only headers are shared
    assert as_c_source.language == "c"


def test_a_c_header_that_cpp_reads_worse_stays_c() -> None:
    source = (
        b"struct obj { int new; int class; };\n"
        b"int make(struct obj *this, int template) { return this->new + template; }\n"
        b"static int g(int x) { return x + ; }\n"
    )
    parsed = parse_source(source, "c", "obj.h")
    assert parsed.language == "c" and parsed.has_error
    assert [s.qualified_name for s in parsed.symbols[1:]] == ["obj", "make", "g"]


def test_the_file_outline_of_an_indexed_tree(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"include/chrono_like.h": (FIXTURES / "chrono_like.h").read_text()})
    with open_service(root, index=True) as svc:
        detail = svc.file("include/chrono_like.h")
    assert detail.found and detail.parseStatus == "partial" and detail.language == "cpp"
    names = {s.qualifiedName for s in detail.symbols}
    assert {"formatter.format", "formatter.parse", "detail.tm_writer.on_year"} <= names
