"""Recovery from a syntax error that swallows the rest of a file (index/recover.py), on real grammars."""

from __future__ import annotations

import pytest

from igraph_mcp.index import parse as parse_mod
from igraph_mcp.index.model import Fact, ParsedFile, Reference, Symbol
from igraph_mcp.index.parse import parse_source
from igraph_mcp.index.recover import (
    bracket_group_end,
    find_errors,
    first_error_byte,
    hidden_lines,
    line_bounds,
    merge_missing,
    sort_symbols,
)

# tree-sitter-bash cannot read an indirect array length inside a double-quoted string: the whole file becomes one
# ERROR node and every function after `append_arrays` used to be lost (bats-core's common.bash does this).
BASH = b"""#!/usr/bin/env bash
first() {
  echo one
}

append_arrays() {
  local array=$1
  if eval "(( \\${#${array}[@]} > 0 ))"; then
    eval "out+=(\\"\\${${array}[@]}\\")"
  fi
}

second() {
  first
}

third() {
  second "$@"
}

fourth() {
  third "$@"
}

fifth() {
  local n=$1
  fourth "$n"
}
"""

# tree-sitter-kotlin reads `"st"` followed by a line starting with `(` as a call, and loses everything after.
KOTLIN = b"""class Ordinals {
  companion object {
    fun suffix(n: Int) = "$n" + when {
      (n % 10) == 1 -> "st"
      (n % 10) == 2 -> "nd"
      (n % 10) == 3 -> "rd"
      else -> "th"
    }
  }
}

class Loaded(
  name: String
) : Exception(
  message = "Cannot load '$name'"
)

fun helper(x: Int) = x + 1

class Saved(
  path: String
) : Exception(
  message = "Cannot save '$path'"
)

fun other(y: Int) = helper(y) * 2
"""


def _without_recovery(source: bytes, language: str, monkeypatch: pytest.MonkeyPatch) -> ParsedFile:
    with monkeypatch.context() as m:
        m.setattr(parse_mod, "MAX_RESTARTS", 0)
        return parse_source(source, language)


def test_bash_functions_after_a_swallowing_error_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _without_recovery(BASH, "bash", monkeypatch)
    assert [s.name for s in plain.symbols[1:]] == ["first"]  # the grammar's failure this recovers from
    pf = parse_source(BASH, "bash")
    assert pf.has_error
    got = {s.name: (s.start_line, s.end_line, s.kind, s.parent) for s in pf.symbols[1:]}
    assert got == {
        "first": (2, 4, "function", 0),
        "append_arrays": (6, 11, "function", 0),  # the function holding the broken line is kept too
        "second": (13, 15, "function", 0),
        "third": (17, 19, "function", 0),
        "fourth": (21, 23, "function", 0),
        "fifth": (25, 28, "function", 0),
    }
    second = next(s for s in pf.symbols if s.name == "second")
    assert BASH[second.start_byte : second.end_byte].startswith(b"second() {")
    calls = {(r.name, r.line, pf.symbols[r.source].name) for r in pf.references if r.kind == "calls"}
    assert {("first", 14, "second"), ("second", 18, "third")} <= calls


def test_kotlin_classes_after_a_swallowing_error_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _without_recovery(KOTLIN, "kotlin", monkeypatch).symbols[1:] == []
    pf = parse_source(KOTLIN, "kotlin")
    got = {s.qualified_name: (s.kind, s.start_line, s.end_line) for s in pf.symbols[1:]}
    assert got == {
        "Ordinals": ("class", 1, 10),
        "Ordinals.suffix": ("method", 3, 8),
        "Loaded": ("class", 12, 16),
        "helper": ("function", 18, 18),
        "Saved": ("class", 20, 24),
        "other": ("function", 26, 26),
    }
    assert pf.has_error  # still stored as a partial parse
    assert ("inherits", "Exception", 14, "Loaded") in {
        (r.kind, r.name, r.line, pf.symbols[r.source].name) for r in pf.references
    }


def test_an_error_free_file_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = parse_mod._parse_document

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parse_mod, "_parse_document", counting)
    parse_source(b"first() {\n  echo one\n}\n", "bash")
    assert len(calls) == 1
    parse_source(BASH, "bash")
    assert len(calls) == 3  # the broken file was parsed again once, with its broken line blanked


@pytest.mark.parametrize(
    ("pos", "expected"),
    [(0, (0, 5)), (4, (0, 5)), (5, (0, 5)), (6, (6, 8)), (9, (9, 9)), (10, (10, 13))],
)
def test_line_bounds(pos: int, expected: tuple[int, int]) -> None:
    assert line_bounds(b"ab(cd\nef\n\nxyz", pos) == expected


def test_first_error_is_the_innermost_earliest_one() -> None:
    tree = parse_mod._parser(parse_mod.get_spec("bash")).parse(BASH)
    errors = find_errors(tree.root_node)
    assert errors[0].start_point[0] < 7 and errors[0].end_point[0] > 15  # the ERROR that swallows the file ...
    line = BASH.count(b"\n", 0, first_error_byte(errors)) + 1
    assert line == 8  # ... starts above, but the error that made it is the `${#${array}[@]}` line
    assert hidden_lines(errors) >= 20
    small = parse_mod._parser(parse_mod.get_spec("python")).parse(b"def f(:\n    return 1\n\nx = 1\n")
    small_errors = find_errors(small.root_node)
    assert small_errors and not hidden_lines(small_errors)  # a one-line error is left alone


def _sym(name: str, kind: str, start: int, end: int, parent: int | None = 0, qualified: str = "") -> Symbol:
    return Symbol(kind, name, qualified or name, start, end, start * 10, end * 10 + 9, parent=parent)


def test_merge_adds_what_the_lead_lacks_and_places_it_in_the_lead_classes() -> None:
    head = ParsedFile(
        "python", [_sym("", "module", 1, 30, None), _sym("Box", "class", 2, 30), _sym("a", "function", 3, 4)]
    )
    head.symbols[2].parent = 1
    head.symbols[2].qualified_name = "Box.a"
    # the other reading missed the class Box (its first line was broken there) but saw `get` and `inner`
    tail = ParsedFile(
        "python",
        [
            _sym("", "module", 1, 30, None),
            _sym("a", "function", 3, 4),
            _sym("get", "function", 12, 15),
            _sym("inner", "function", 13, 14, parent=2, qualified="get.inner"),
        ],
        references=[Reference("calls", "helper", source=3, line=14), Reference("calls", "b", source=1, line=4)],
        facts=[Fact(source=2, name="x", kind="value", text="1")],
    )
    assert merge_missing(head, tail, class_kinds=frozenset({"class"})) == 2
    sort_symbols(head)
    got = [(s.qualified_name, s.kind, s.start_line, s.parent) for s in head.symbols[1:]]
    assert got == [
        ("Box", "class", 2, 0),
        ("Box.a", "function", 3, 1),
        ("Box.get", "method", 12, 1),
        ("Box.get.inner", "function", 13, 3),
    ]
    assert [(r.line, head.symbols[r.source].qualified_name) for r in head.references] == [
        (14, "Box.get.inner"),
        (4, "Box.a"),
    ]
    assert [head.symbols[f.source].qualified_name for f in head.facts] == ["Box.get"]


def test_merge_does_not_duplicate_what_the_lead_found() -> None:
    head = ParsedFile("bash", [_sym("", "module", 1, 9, None), _sym("f", "function", 5, 6)])
    head.references.append(Reference("calls", "g", source=1, line=6))
    tail = ParsedFile("bash", [_sym("", "module", 1, 9, None), _sym("f", "function", 5, 7)])
    tail.references.append(Reference("calls", "g", source=1, line=6))
    assert merge_missing(head, tail, class_kinds=frozenset()) == 0
    assert [(s.name, s.end_line) for s in head.symbols] == [("", 9), ("f", 6)] and len(head.references) == 1


def test_sort_symbols_renumbers_parents_references_and_facts() -> None:
    pf = ParsedFile(
        "python",
        [_sym("", "module", 1, 20, None), _sym("late", "function", 10, 12), _sym("early", "function", 2, 4)],
        references=[Reference("calls", "x", source=1, line=11)],
        facts=[Fact(source=2, name="y", kind="opaque")],
    )
    sort_symbols(pf)
    assert [s.name for s in pf.symbols] == ["", "early", "late"]
    assert pf.symbols[pf.references[0].source].name == "late" and pf.symbols[pf.facts[0].source].name == "early"


def test_recovery_inside_a_vue_script_keeps_file_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # the host file's included ranges stay on the parser through the incremental re-parses
    body = "".join(f"function f{i}(x: number) {{\n  return x + {i}\n}}\n\n" for i in range(8))
    head = (
        '<template><div/></template>\n<script lang="ts">\nfunction broken() {\n  const s = x as < y >>> (;\n  if (\n}\n'
    )
    source = (head + body + "</script>\n").encode()
    assert _without_recovery(source, "vue", monkeypatch).symbols[1:] == []
    pf = parse_source(source, "vue")
    lines = source.decode().splitlines()
    got = {s.name: s.start_line for s in pf.symbols[1:]}
    assert set(got) == {"f3", "f4", "f5", "f6", "f7"}  # f0-f2 sit in the broken region this grammar keeps
    assert all(lines[line - 1].startswith(f"function {name}(") for name, line in got.items())


# tree-sitter-groovy cannot read a map literal whose values are closures: one ERROR node from the field to the end of
# the file hides every method after it, and blanking its lines one at a time never shrinks it.
GROOVY_MAP_OF_CLOSURES = b"""class Viewer {
    static layouts = [
            mainWindow: {
                window(
                    title: 'Viewer',
                    closeOperation: 0,
                ) {
                    try {
                        current.placed = true
                    } catch (Exception e) {
                        current.place = [10, 10]
                    }
                }
            },
            menuBar: { arg ->
                menus(arg)
            }
    ];

    void show() {
        show(layouts)
    }

    void show(Map defaults) {
        defaults.each { k, v -> this[k] = v }
    }

    boolean closeAll() {
        return true
    }

    void refresh() {
        repaint()
    }

    int count() {
        return 0
    }

    void reset() {
        count = 0
    }
}
"""


def test_a_bracket_group_the_grammar_cannot_read_is_blanked_whole() -> None:
    from tree_sitter_language_pack import get_parser

    assert hidden_lines(find_errors(get_parser("groovy").parse(GROOVY_MAP_OF_CLOSURES).root_node)) >= 20
    pf = parse_source(GROOVY_MAP_OF_CLOSURES, "groovy")
    spans = [(s.qualified_name, s.start_line) for s in pf.symbols[1:]]
    assert spans == [
        ("Viewer", 1),
        ("Viewer.show", 20),
        ("Viewer.show", 24),
        ("Viewer.closeAll", 28),
        ("Viewer.refresh", 32),
        ("Viewer.count", 36),
        ("Viewer.reset", 40),
    ]


def test_bracket_group_end() -> None:
    src = b"x = [\n  a: '{',\n  b: { 1 }\n]\ny = 2\n"
    # from the line opening `[` to the line closing it; the quoted `{` opens nothing
    assert src[: bracket_group_end(src, 0, len(src))] == b"x = [\n  a: '{',\n  b: { 1 }\n]"
    # a line that opens nothing is its own group
    start = src.index(b"y")
    assert bracket_group_end(src, start, len(src)) == len(src) - 1
    # still open at the limit: only the first line
    assert bracket_group_end(src, 0, src.index(b"]")) == src.index(b"\n")
