"""The language-independent parse framework: table, robustness, caching, structure."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parse_helpers import by_qname, parse

from igraph_mcp.index import parse as parse_mod
from igraph_mcp.index.nesting import MAX_NESTING, CappedSource, cap_nesting, nesting_depth
from igraph_mcp.index.parse import QUERY_DIR, load_query, parse_source
from igraph_mcp.vocab import languages
from igraph_mcp.vocab.languages import LANGUAGES, get_spec, language_for_path
from igraph_mcp.vocab.source import normalize_source


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/b.py", "python"),
        ("x.pyi", "python"),
        ("web/app.JS", "javascript"),
        ("c.jsx", "javascript"),
        ("t.ts", "typescript"),
        ("types.d.ts", "typescript"),
        ("v.tsx", "tsx"),
        ("main.go", "go"),
        ("A.java", "java"),
        ("P.cs", "csharp"),
        ("lib.rs", "rust"),
        ("dir/Rakefile", "ruby"),
        ("win\\path\\m.py", "python"),
        ("README.md", None),
        ("Makefile", None),
        ("noext", None),
        ("", None),
    ],
)
def test_language_for_path(path: str, expected: str | None) -> None:
    assert language_for_path(path) == expected


def test_table_rows_are_consistent() -> None:
    for name, spec in LANGUAGES.items():
        assert spec.name == name
        assert spec.extensions and all(e.startswith(".") for e in spec.extensions)
        assert spec.docstring in {"python_string", "preceding_comment", "none"}
        assert spec.queries and all(q.endswith(".scm") for q in spec.queries)


@pytest.mark.parametrize("name", ["python", "javascript", "typescript", "tsx", "go", "java", "csharp"])
def test_my_queries_exist_and_compile(name: str) -> None:
    spec = get_spec(name)
    for fname in spec.queries:
        assert (QUERY_DIR / fname).is_file(), fname
    assert load_query(spec).pattern_count > 0


def test_unknown_language_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match=r"unknown language 'cobol'.*python"):
        parse_source(b"x", "cobol")


def test_module_symbol_shape() -> None:
    src = b"def f():\n    pass\n\n"
    pf = parse_source(src, "python")
    mod = pf.symbols[0]
    assert (mod.kind, mod.name, mod.qualified_name, mod.parent) == ("module", "", "", None)
    assert (mod.start_line, mod.end_line, mod.start_byte, mod.end_byte) == (1, 3, 0, len(src))
    assert pf.language == "python"


def test_empty_file() -> None:
    pf = parse_source(b"", "python")
    assert len(pf.symbols) == 1
    assert pf.symbols[0].end_line == 1
    assert not pf.references and not pf.imports and not pf.has_error


def test_syntax_error_keeps_symbols() -> None:
    pf = parse("python", "def broken(:\n    pass\n\nclass Fine:\n    def ok(self):\n        go()\n")
    assert pf.has_error
    names = by_qname(pf)
    assert names["Fine.ok"].kind == "method"
    assert any(r.name == "go" for r in pf.references)


def test_merge_conflict_markers_do_not_raise() -> None:
    code = "<<<<<<< HEAD\ndef a():\n    pass\n=======\ndef b():\n    pass\n>>>>>>> branch\n"
    pf = parse("python", code)
    assert pf.has_error
    assert pf.symbols[0].end_line == 7


def _nesting(index: int, n: int) -> tuple[str, bytes]:
    """One of four deeply nested sources (n levels), each followed by a definition named ``after``."""
    return [
        ("python", b"x = " + b"(" * n + b"1" + b")" * n + b"\ndef after():\n    pass\n"),
        ("python", b"x = " + b"[" * n + b"]" * n + b"\ndef after():\n    pass\n"),
        ("javascript", b"x = " + b"f(" * n + b")" * n + b";\nfunction after() {}\n"),
        ("go", b"package p\nvar x = " + b"(" * n + b"1" + b")" * n + b"\nfunc after() {}\n"),
    ][index]


@pytest.mark.parametrize("index", range(4))
def test_deep_nesting_under_the_limit_parses_whole(index: int) -> None:
    language, code = _nesting(index, MAX_NESTING - 10)
    pf = parse_source(code, language)
    assert "after" in by_qname(pf)
    assert pf.deep_regions == 0 and not pf.has_error


# A deep region between two ordinary definitions, per grammar family: (language, head, open, middle, close, tail).
# Every language goes through the same cap in parse_source; these cover the bracket styles that nest in practice.
_BETWEEN: dict[str, tuple[str, str, str, str, str, str]] = {
    "python-parens": ("python", "def before():\n    pass\n\nx = ", "(", "1", ")", "\n\ndef after():\n    pass\n"),
    "python-list": ("python", "def before():\n    pass\n\nx = ", "[\n", "", "]\n", "\ndef after():\n    pass\n"),
    "javascript": ("javascript", "function before() {}\nx = ", "f(", "", ")", ";\nfunction after() {}\n"),
    "typescript": ("typescript", "function before(): void {}\nconst x = ", "[", "", "]", ";\nfunction after() {}\n"),
    "go": ("go", "package p\n\nfunc before() {}\n\nvar x = ", "(", "1", ")", "\n\nfunc after() {}\n"),
    "rust": ("rust", "fn before() {}\nconst X: i32 = ", "(", "1", ")", ";\nfn after() {}\n"),
    "c": ("c", "void before(void) {}\nint x = ", "(", "1", ")", ";\nvoid after(void) {}\n"),
    "java": ("java", "class A {\n  void before() {}\n  int x = ", "(", "1", ")", ";\n  void after() {}\n}\n"),
    "ruby": ("ruby", "def before\nend\nx = ", "[", "", "]", "\ndef after\nend\n"),
    # a host grammar first finds the script, then the script's grammar reads it: both see the capped text
    "vue": (
        "vue",
        "<template><div/></template>\n<script>\nfunction before() {}\nconst x = ",
        "[",
        "",
        "]",
        ";\nfunction after() {}\n</script>\n",
    ),
}


def _between(case: str, n: int) -> tuple[str, bytes]:
    language, head, opening, middle, closing, tail = _BETWEEN[case]
    return language, (head + opening * n + middle + closing * n + tail).encode("utf-8")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("n", [3_000, 100_000])
@pytest.mark.parametrize("case", sorted(_BETWEEN))
def test_a_deep_region_between_two_definitions_hides_neither(
    case: str, n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    language, code = _between(case, n)
    seen: list[bytes] = []
    real = parse_mod._parse_document

    def spy(source: bytes, *args: Any) -> Any:
        seen.append(source)
        return real(source, *args)

    monkeypatch.setattr(parse_mod, "_parse_document", spy)
    pf = parse_source(code, language)
    names = {s.name for s in pf.symbols}
    assert {"before", "after"} <= names
    assert pf.deep_regions == 1 and pf.has_error  # counted, and stored as a partial parse
    # The bound, structurally: tree-sitter and the query only ever see text nested at most MAX_NESTING deep, of
    # the file's length, with every newline where it was (so the line numbers of both definitions hold).
    assert seen and all(nesting_depth(s) <= MAX_NESTING for s in seen)
    assert all(len(s) == len(code) and s.count(b"\n") == code.count(b"\n") for s in seen)
    after = next(s for s in pf.symbols if s.name == "after")
    assert after.start_line == code[: code.index(b"after")].count(b"\n") + 1


@pytest.mark.parametrize(
    "code",
    [
        b"def before():\n    pass\n\nx = '" + b"(" * 3_000 + b"'\n\ndef after():\n    pass\n",  # never closes
        b"def before():\n    pass\n\nx = (" + b"[" * 3_000 + b"\n\ndef after():\n    pass\n",  # truncated table
    ],
    ids=["string-of-brackets", "unclosed-brackets"],
)
def test_brackets_that_never_close_do_not_hide_what_follows(code: bytes) -> None:
    pf = parse_source(code, "python")
    assert {"before", "after"} <= {s.name for s in pf.symbols}
    assert pf.deep_regions == 1


def test_cap_nesting_blanks_only_past_the_limit() -> None:
    code = b"a(" + b"(" * 5 + b"x\ny" + b")" * 5 + b")\nb()"
    capped = cap_nesting(code, limit=3)
    assert capped.source == b"a(((0   \n    )))\nb()"
    assert (capped.regions, capped.depth) == (1, 6)
    assert cap_nesting(code, limit=6) == CappedSource(code, 0, 6)


@settings(max_examples=300, deadline=None, derandomize=bool(os.environ.get("CI")))  # CI replays a fixed sequence
@given(st.binary(max_size=300).map(lambda b: bytes(b"([{)]}\nx"[c % 8] for c in b)), st.integers(0, 8))
def test_cap_nesting_bounds_depth_and_keeps_offsets(code: bytes, limit: int) -> None:
    capped = cap_nesting(code, limit)
    assert nesting_depth(capped.source) <= limit
    assert len(capped.source) == len(code)
    assert [i for i, c in enumerate(capped.source) if c == 10] == [i for i, c in enumerate(code) if c == 10]
    assert all(new in (old, ord(" "), ord("0")) for old, new in zip(code, capped.source, strict=True))  # blanking
    assert (capped.regions > 0) == (nesting_depth(code) > limit)


def test_invalid_utf8_bytes_do_not_raise_and_lines_stay_right() -> None:
    src = b"def f():\n    '''\xff\xfe bad'''\n    return g()\n\ndef h():\n    pass\n"
    pf = parse_source(src, "python")
    names = by_qname(pf)
    assert names["h"].start_line == 5
    assert names["f"].docstring.endswith("bad")
    assert pf.references[0].line == 3


def test_latin1_text_is_transcoded() -> None:
    src = "def café():\n    '''Été.'''\n\nclass Ça:\n    pass\n".encode("latin-1")
    pf = parse_source(src, "python")
    names = by_qname(pf)
    assert names["café"].docstring == "Été."
    assert names["Ça"].start_line == 4


def test_utf16_with_bom_is_transcoded() -> None:
    src = "def f():\n    pass\n".encode("utf-16")
    assert normalize_source(src) == b"def f():\n    pass\n"
    assert by_qname(parse_source(src, "python"))["f"].kind == "function"


def test_normalize_source_keeps_utf8_identity() -> None:
    src = "x = 'ü'\n".encode()
    assert normalize_source(src) is src


def test_nul_bytes_do_not_raise() -> None:
    pf = parse_source(b"def f():\x00\n    pass\n\x00\x00", "python")
    assert pf.symbols[0].kind == "module"


def test_missing_query_file_degrades_to_module_only(monkeypatch: pytest.MonkeyPatch) -> None:
    row = languages.LanguageSpec(name="ghost", grammar="python", extensions=(".ghost",), queries=("ghost.scm",))
    monkeypatch.setitem(languages.LANGUAGES, "ghost", row)
    pf = parse_source(b"def f():\n    pass\n", "ghost")
    assert [s.kind for s in pf.symbols] == ["module"]


def test_symbols_are_ordered_and_parents_precede_children() -> None:
    pf = parse("python", "class A:\n    def m(self):\n        def inner():\n            pass\n\ndef z():\n    pass\n")
    starts = [s.start_byte for s in pf.symbols]
    assert starts == sorted(starts)
    for i, sym in enumerate(pf.symbols[1:], start=1):
        assert sym.parent is not None and sym.parent < i
        parent = pf.symbols[sym.parent]
        assert parent.start_byte <= sym.start_byte and sym.end_byte <= parent.end_byte


def test_nested_function_is_a_private_function_not_a_method() -> None:
    names = by_qname(parse("python", "class A:\n    def m(self):\n        def inner():\n            pass\n"))
    assert names["A.m.inner"].kind == "function"
    assert names["A.m.inner"].parent == 2
    assert names["A.m.inner"].exported is False


def test_signature_is_collapsed_and_capped() -> None:
    params = ", ".join(f"p{i}" for i in range(100))
    pf = parse("python", f"def long(\n    {params}\n):\n    pass\n")
    sig = by_qname(pf)["long"].signature
    assert sig.startswith("def long( p0, p1")
    assert len(sig) <= 200 and "\n" not in sig


def test_docstring_is_capped() -> None:
    pf = parse("python", 'def f():\n    """' + "word " * 1000 + '"""\n')
    assert len(by_qname(pf)["f"].docstring) == 2000


def test_parse_is_thread_safe() -> None:
    src = b"class A:\n    def m(self):\n        return self.x.y()\n" * 50
    results: list[int] = []

    def work() -> None:
        for _ in range(20):
            results.append(len(parse_source(src, "python").symbols))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [101] * 80
