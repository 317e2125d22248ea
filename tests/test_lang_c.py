"""C query: functions, structs/unions/enums, typedefs, macros, constants, calls, includes, docs."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
#include <stdio.h>
#include "util/list.h"

#define MAX_ITEMS 64
#define SQUARE(x) ((x) * (x))

/**
 * A 2D point.
 */
struct Point {
    int x;
    int y;
};

typedef struct {
    int w;
} Size;

typedef struct Node {
    struct Node *next;
} Node;

typedef unsigned long ulong;
typedef int (*compare_fn)(const void *, const void *);

union Value {
    int i;
    float f;
};

enum Color { RED, GREEN };

const int LIMIT = 5;
int counter = 0;

static int helper(int a);

// Adds two numbers.
static int add(int a, int b) {
    return helper(a) + b;
}

struct Point *make_point(Size s, struct Point *origin) {
    struct Point *p = malloc(sizeof *p);
    origin->ops->move(p);
    list_push(p);
    return p;
}

int main(void) {
    printf("%d\\n", add(1, SQUARE(2)));
    return 0;
}
"""


@pytest.fixture(scope="module")
def pf():
    return parse("c", CODE)


def test_parses_without_errors(pf) -> None:
    assert not pf.has_error
    assert pf.symbols[0].end_line == 53


def test_definition_kinds(pf) -> None:
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds == {
        "MAX_ITEMS": "constant",
        "SQUARE": "function",  # function-like macro
        "Point": "struct",
        "Size": "struct",  # anonymous struct known by its typedef name
        "Node": "struct",  # `typedef struct Node {...} Node;` is one symbol, not two nested ones
        "ulong": "type",
        "compare_fn": "type",  # function-pointer typedef
        "Value": "struct",  # union
        "Color": "enum",
        "LIMIT": "constant",
        "helper": "function",  # the prototype `static int helper(int a);`: a declaration
        "add": "function",
        "make_point": "function",  # name under a pointer declarator
        "main": "function",
    }
    # Not a definition: the mutable global `counter`.
    assert [s.qualified_name for s in pf.symbols if s.declaration] == ["helper"]


def test_all_symbols_are_top_level(pf) -> None:
    assert all(s.parent == 0 for s in pf.symbols[1:])


def test_lines(pf) -> None:
    names = by_qname(pf)
    assert (names["Point"].start_line, names["Point"].end_line) == (10, 13)
    assert (names["add"].start_line, names["add"].end_line) == (39, 41)
    assert (names["Size"].start_line, names["Size"].end_line) == (15, 17)
    assert names["MAX_ITEMS"].start_line == 4


def test_signatures(pf) -> None:
    names = by_qname(pf)
    assert names["add"].signature == "static int add(int a, int b)"
    assert names["make_point"].signature == "struct Point *make_point(Size s, struct Point *origin)"
    assert names["Point"].signature == "struct Point"
    assert names["ulong"].signature == "typedef unsigned long ulong;"
    assert names["MAX_ITEMS"].signature == "#define MAX_ITEMS 64"


def test_doc_comments(pf) -> None:
    names = by_qname(pf)
    assert names["Point"].docstring == "A 2D point."
    assert names["add"].docstring == "Adds two numbers."
    assert names["main"].docstring == ""


def test_static_is_not_exported(pf) -> None:
    names = by_qname(pf)
    assert not names["add"].exported
    assert names["make_point"].exported
    assert names["Point"].exported


def test_calls(pf) -> None:
    calls = refs(pf, "calls")
    assert calls == {
        ("", "helper"),
        ("", "malloc"),
        ("origin.ops", "move"),  # call through a struct member (`->` reads as `.`)
        ("", "list_push"),
        ("", "printf"),
        ("", "add"),
        ("", "SQUARE"),
    }
    move = ref_named(pf, "calls", "move")
    assert source_of(pf, move) == "make_point"
    assert move.line == 45
    assert source_of(pf, ref_named(pf, "calls", "add")) == "main"


def test_type_references(pf) -> None:
    types = refs(pf, "references")
    assert {("", "Point"), ("", "Size")} <= types
    assert source_of(pf, ref_named(pf, "references", "Size")) == "make_point"


def test_includes(pf) -> None:
    assert imports(pf) == {("stdio.h", "", ""), ("util/list.h", "", "")}
    assert [i.line for i in pf.imports] == [1, 2]


def test_doc_comment_right_after_a_preprocessor_line() -> None:
    # Preprocessor nodes end at the start of the next line; the comment there is still a doc.
    pf = parse("c", "#include <a.h>\n/* Opens a file. */\nint open_file(void) { return 0; }\n")
    assert by_qname(pf)["open_file"].docstring == "Opens a file."


def test_header_guard_is_not_a_constant() -> None:
    pf = parse("c", "#ifndef LIST_H\n#define LIST_H\nstruct List { int n; };\n#endif\n")
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds == {"List": "struct"}


def test_broken_code_keeps_what_parsed() -> None:
    pf = parse("c", "int ok(void) { return 1; }\nint broken( {\n")
    assert pf.has_error
    assert "ok" in by_qname(pf)
