"""index/parts.py: which lines of a file become parts, and that they cover every owned line past a head."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from igraph_mcp.index import parts as P
from igraph_mcp.index.docstrings import MAX_DOCSTRING
from igraph_mcp.index.model import ParsedFile, Symbol
from igraph_mcp.index.parse import parse_source
from igraph_mcp.index.parts import GAP_MARK, Part, split_parts


def _parsed(text: str, language: str = "python") -> tuple[bytes, ParsedFile]:
    source = textwrap.dedent(text).lstrip("\n").encode()
    return source, parse_source(source, language)


def _parts(text: str, language: str = "python") -> tuple[bytes, ParsedFile, list[Part]]:
    source, pf = _parsed(text, language)
    return source, pf, split_parts(source, pf.symbols, skip_lines={i.line for i in pf.imports})


def _long_function(name: str, statements: int, *, tail: str = "") -> str:
    body = "".join(f"    value_{i} = compute_step_{i}(value_{i - 1}, factor={i})\n" for i in range(1, statements))
    return f"def {name}(value_0):\n    '''Run the steps.'''\n{body}{tail}    return value_{statements - 1}\n"


def _weight(text: str) -> int:
    return sum(P._weight(line) for line in text.splitlines())


def test_a_short_definition_has_no_parts() -> None:
    _, _, parts = _parts(_long_function("short", 8))
    assert parts == []


def test_parts_cover_every_owned_line_past_the_head_once() -> None:
    source, pf, parts = _parts(_long_function("long", 80))
    fn = pf.symbols[1]
    assert parts and all(p.owner == 1 for p in parts)
    covered = [n for p in parts for n in range(p.start_line, p.end_line + 1)]
    assert covered == sorted(set(covered)), "parts overlap or come out of order"
    head = range(fn.start_line, parts[0].start_line)
    # The head is what the definition's own vector reads: about HEAD_CHARS, never a whole part.
    head_text = "\n".join(source.decode().splitlines()[head.start - 1 : head.stop - 1])
    assert 0 < _weight(head_text) <= P.HEAD_CHARS
    assert [*head, *covered] == list(range(fn.start_line, fn.end_line + 1))
    for p in parts:
        assert _weight(p.text) <= P.PART_CHARS * 3 // 2
        lines = source.decode().splitlines()[p.start_line - 1 : p.end_line]
        assert p.text == "\n".join(lines)
        assert source[p.start_byte : p.end_byte].decode() == p.text


def test_inner_definitions_are_left_to_themselves() -> None:
    inner = _long_function("inner", 40).replace("\n", "\n    ")
    outer = _long_function("outer", 30, tail=f"    {inner.rstrip()}\n")
    _, pf, parts = _parts(outer)
    names = [s.qualified_name for s in pf.symbols]
    assert names == ["", "outer", "outer.inner"]
    inner_sym = pf.symbols[2]
    for p in parts:
        lines = set(range(p.start_line, p.end_line + 1))
        if p.owner == 1:
            # The outer function's parts may span the inner one (a gap mark) but never hold its text.
            assert "inner_" not in p.text.replace("def inner", "")
        else:
            assert p.owner == 2 and lines <= set(range(inner_sym.start_line, inner_sym.end_line + 1))


def test_a_part_spanning_an_inner_definition_marks_the_gap() -> None:
    helper = "    def helper(x):\n" + "".join(f"        x = twist_{i}(x)\n" for i in range(3)) + "        return x\n"
    text = _long_function("outer", 30, tail=helper + "".join(f"    after_{i} = helper({i})\n" for i in range(30)))
    parts = _parts(text)[2]
    spanning = [p for p in parts if GAP_MARK in p.text]
    assert spanning and all("twist_" not in p.text for p in parts)
    assert all(p.owner == 1 for p in parts)


def test_an_edit_in_the_tail_leaves_the_parts_before_it_unchanged() -> None:
    before = _parts(_long_function("long", 80))[2]
    after = _parts(_long_function("long", 80, tail="    audit_log.append('edited tail')\n"))[2]
    # Cuts are greedy from the first line: only the part holding the edit changes (and the last two, which may merge).
    assert len(before) > 5 and after[: len(before) - 2] == before[:-2]
    assert "edited tail" in after[-1].text


def test_a_class_needs_no_parts_for_its_methods() -> None:
    methods = "".join(
        f"    def method_{i}(self, a, b):\n        return combine(a, b, weight={i}, label='m{i}')\n\n"
        for i in range(40)
    )
    _, pf, parts = _parts(f"class Big:\n    '''Many methods.'''\n\n{methods}")
    assert len(pf.symbols) == 42
    assert parts == []  # every line of the class lies in one of its methods (or is blank)


def test_top_level_code_becomes_parts_of_the_module_without_its_imports() -> None:
    routes = "".join(
        f"app.get('/items/{i}', (req, res) => {{\n  res.json(loadItem(req.params.id, {{ shelf: {i} }}))\n}})\n"
        for i in range(20)
    )
    text = "const express = require('express')\nconst { loadItem } = require('./items')\n\nconst app = express()\n"
    parts = _parts(text + routes + "app.listen(3000)\n", "javascript")[2]
    assert parts and all(p.owner == 0 for p in parts)
    joined = "\n".join(p.text for p in parts)
    assert "require(" not in joined
    assert "app.listen(3000)" in joined and "/items/19" in joined


def _doc(prefix: str, i: int) -> str:
    line = f"{prefix} Step {i} of the sequence checks quota bucket {i} before the retry window"
    return "".join(f"{line} {w}.\n" for w in range(3))


def _note(prefix: str, i: int) -> str:
    """A comment that documents no definition (a blank line after it)."""
    return "".join(f"{prefix} A free note {i}: buckets refill at window {w} of the hour.\n" for w in range(3)) + "\n"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        # Go: top-level functions, each with its doc comment (chi's middleware files), and other comments between.
        (
            "go",
            "package quota\n\n"
            + "".join(
                _note("//", i) + _doc("//", i) + f"func check{i}(n int) bool {{ return n < {i} }}\n\n"
                for i in range(12)
            ),
        ),
        # Java: a class whose methods carry Javadoc, other comments between them (the class's own lines).
        (
            "java",
            "class Quota {\n"
            + "".join(
                _note("    //", i)
                + "    /**\n"
                + _doc("     *", i)
                + "     */\n"
                + f"    boolean check{i}(int n) {{ return n < {i}; }}\n\n"
                for i in range(12)
            )
            + "}\n",
        ),
        # Rust: `///` comments above free functions.
        (
            "rust",
            "".join(
                _note("//", i) + _doc("///", i) + f"fn check_{i}(n: u32) -> bool {{ n < {i} }}\n\n" for i in range(12)
            ),
        ),
    ],
)
def test_a_doc_comment_is_its_definitions_not_a_part_of_the_code_around_it(language: str, text: str) -> None:
    _, pf, parts = _parts(text, language)
    checks = [s for s in pf.symbols if s.name.startswith("check")]
    assert len(checks) == 12
    for s in checks:
        assert "quota bucket" in s.docstring
        assert s.doc_line == s.start_line - (5 if language == "java" else 3)  # where the comment starts
    # The other comments are still their owner's lines (the module's, the class's), and so parts.
    joined = "\n".join(p.text for p in parts)
    assert "free note 11" in joined and "quota bucket" not in joined


def test_a_doc_comment_cut_at_the_docstring_limit_stays_in_the_parts() -> None:
    long_doc = "".join(f"// line {i}: the retry budget of quota bucket {i} is spent in order.\n" for i in range(60))
    tail = "".join(f'var limit{i} = newLimit({i}, "bucket-{i}", defaultWindow*{i})\n' for i in range(20))
    _, pf, parts = _parts(f"package quota\n\n{tail}\n{long_doc}func check(n int) bool {{ return n < 1 }}\n", "go")
    check = next(s for s in pf.symbols if s.name == "check")
    assert len(check.docstring) == MAX_DOCSTRING  # cut: the part of the comment past it is found through the parts
    assert "line 59" in "\n".join(p.text for p in parts)


@pytest.mark.parametrize(
    "text",
    ["", "\n\n\n", "x = 1\n", "\x00\x01 garbage \udcff".encode("utf-8", "surrogatepass").decode("utf-8", "replace")],
)
def test_small_or_odd_files_have_no_parts(text: str) -> None:
    assert _parts(text)[2] == []


def test_a_single_very_long_line_is_one_part_not_a_crash() -> None:
    long_line = "    payload = [" + ", ".join(f"'item_{i}'" for i in range(400)) + "]\n"
    _, _, parts = _parts(_long_function("packs", 20, tail=long_line))
    assert any("item_399" in p.text for p in parts)


line_text = st.one_of(
    st.just(""),
    st.text(alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=120),
    st.from_regex(r"[ \t]{0,8}[a-z_]{1,12}\(\w{0,6}\)", fullmatch=True),
)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(line_text, min_size=1, max_size=160), cuts=st.lists(st.integers(1, 160), max_size=8))
def test_parts_hold_only_their_owners_lines_in_order(lines: list[str], cuts: list[int]) -> None:
    source = "\n".join(lines).encode()
    count = len(lines)
    bounds = sorted({min(c, count) for c in cuts})
    symbols = [Symbol("module", "", "", 1, count, 0, len(source))]
    # Top-level definitions between consecutive cut points, each with one nested definition in its middle.
    for lo, hi in zip(bounds[::2], bounds[1::2], strict=False):
        top = len(symbols)
        symbols.append(Symbol("function", f"f{top}", f"f{top}", lo, hi, 0, 0, parent=0))
        if hi - lo >= 4:
            symbols.append(Symbol("function", "g", f"f{top}.g", lo + 1, hi - 1, 0, 0, parent=top))
    owners = P.line_owners(symbols, count)
    parts = split_parts(source, symbols)
    seen: set[int] = set()
    for p in parts:
        assert 1 <= p.start_line <= p.end_line <= count
        own = [n for n in range(p.start_line, p.end_line + 1) if owners[n - 1] == p.owner]
        assert own and own[0] == p.start_line and own[-1] == p.end_line
        assert seen.isdisjoint(own)
        seen.update(own)
        assert source[p.start_byte : p.end_byte].decode() == "\n".join(lines[p.start_line - 1 : p.end_line])


def test_a_huge_definition_gets_fewer_bigger_parts_not_hundreds() -> None:
    _, pf, parts = _parts(_long_function("enormous", 3000))
    assert P.MAX_PARTS // 2 <= len(parts) <= P.MAX_PARTS + 1
    covered = {n for p in parts for n in range(p.start_line, p.end_line + 1)}
    assert max(covered) == pf.symbols[1].end_line  # still every line past the head, in FTS at least
    assert "value_2999" in parts[-1].text


@pytest.mark.parametrize(("total", "size"), [(0, 280), (10752, 280), (10753, 560), (10752 * 5, 280 * 8)])
def test_part_size_doubles_past_max_parts(total: int, size: int) -> None:
    assert P.PART_CHARS * P.MAX_PARTS * 0.6 == 10752  # 280 characters, 64 parts, each at least 60% full
    assert P.part_size(total) == size
