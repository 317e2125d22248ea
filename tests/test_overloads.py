"""Java calls bind the overload their argument count and argument types fit: counts, argument hints and parameter
types read by real tree-sitter parsing, stored on both stores, used by every resolution step that would otherwise
leave the call ambiguous; an incremental run leaves the edges of a full build, and older indexes migrate."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from _factories import (
    edges_by_place,
    edit_file,
    index_repo,
    make_repo,
    migrates_and_reads_again,
    undo_schema_11,
    undo_schema_12,
)

from igraph_mcp.index.overloads import Fits, by_arity, by_types
from igraph_mcp.index.parse import parse_source
from igraph_mcp.index.symbols import Sym
from igraph_mcp.store.db import Database

pytestmark = pytest.mark.both_stores

OUT = """
    package p;

    public class Out {
      public Out() {}
      public Out(int indent) {}
      public Out(int indent, String prefix) {}

      public void emit(String s) {}
      public void emit(String s, Object... args) {}
      public void emit(String s, int n) {}
      public void emit(String s, String t) {}

      public void line(int a) {}
      public void line(int a, int b) {}

      public static Out of(String s) { return new Out(); }
      public static Out of(String s, int indent) { return of(s); }

      void selfCalls() {
        line(1);
        this.line(1, 2);
        emit("a", "b", "c");
        emit("a", 1);
        emit("a");
        line(/* none */);
      }
    }
    """

USE = """
    package p;

    public class Use {
      void run(Out out) {
        out.line(1, 2);
        out.emit("x", 1);
        Out.of("x", 2);
        new Out(2);
      }
    }
    """

FILES = {"src/p/Out.java": OUT, "src/p/Use.java": USE}


def _line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line holding ``needle`` in a fixture as written (dedented, leading newline)."""
    lines = text.split("\n")[1:]
    return next(i for i, line in enumerate(lines, start=1) if needle in line)


def _calls(db: Database, path: str) -> dict[tuple[int, str, str], tuple[str, int | None, str]]:
    """(line, name, qualifier) -> (resolution, target's start line, target's kind) of one file's calls."""
    rows = db.rows(
        "SELECT e.line, e.target_name, e.qualifier, e.resolution, t.start_line, t.kind FROM edges e "
        "JOIN nodes n ON n.id = e.source_id JOIN files f ON f.id = n.file_id LEFT JOIN nodes t ON t.id = e.target_id "
        "WHERE f.path = ? AND e.kind = 'calls'",
        (path,),
    )
    return {
        (int(line), str(name), str(qual)): (str(how), int(start) if start is not None else None, str(kind or ""))
        for line, name, qual, how, start, kind in rows
    }


# -- the pure choice ---------------------------------------------------------------------------------------------
def _sym(i: int, low: int, high: int, kind: str = "method") -> Sym:
    return Sym(i, 1, kind, "f", f"C.f{i}", 0, low, high)


ONE, TWO, VARARGS, ANY = _sym(1, 1, 1), _sym(2, 2, 2), _sym(3, 1, -1), _sym(4, 0, -1)


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("candidates", "arity", "chosen"),
    [
        ([ONE, TWO], 1, [ONE]),
        ([ONE, TWO], 2, [TWO]),
        ([ONE, TWO], 3, [ONE, TWO]),  # none fits: all, as before
        ([ONE, TWO], -1, [ONE, TWO]),  # an uncounted call chooses nothing
        ([ONE, VARARGS], 1, [ONE, VARARGS]),  # both fit; which one the types choose is not known
        ([ONE, TWO, VARARGS], 1, [ONE, VARARGS]),  # an ambiguous call's candidates: those its count fits
        ([ONE, VARARGS], 3, [VARARGS]),
        ([TWO, VARARGS], 0, [TWO, VARARGS]),  # varargs after one parameter still needs one argument
        ([ONE, ANY], 2, [ANY]),  # unknown range: accepts any call
        ([ONE], 5, [ONE]),  # a single definition is never dropped
        ([_sym(5, 0, -1, "class"), ONE, TWO], 1, [_sym(5, 0, -1, "class"), ONE, TWO]),  # `new C(x)`: the class
    ],
)
def test_by_arity_keeps_the_one_overload_that_fits(candidates: list[Sym], arity: int, chosen: list[Sym]) -> None:
    assert by_arity(candidates, arity) == chosen


# -- parsing -----------------------------------------------------------------------------------------------------
@pytest.mark.sqlite_only
def test_java_parse_counts_arguments_and_parameter_ranges() -> None:
    source = b"""class A {
  A(int a) {}
  void f(/* c */ String s, Object... xs) {}
  void g(A this, int y) {}
  void h() { f("a", /* x */ b, c); new A(1); g(); this.g(2); }
}
interface I { void k(int a, int b); }
"""
    pf = parse_source(source, "java")
    ranges = {(s.name, s.start_line): (s.min_args, s.max_args) for s in pf.symbols[1:]}
    assert ranges == {
        ("A", 1): (0, -1),  # the class: unknown, accepts anything
        ("A", 2): (1, 1),
        ("f", 3): (1, -1),
        ("g", 4): (1, 1),  # a receiver parameter takes no argument
        ("h", 5): (0, 0),
        ("I", 7): (0, -1),
        ("k", 7): (2, 2),  # a declaration without a body too
    }
    assert [(r.name, r.qualifier, r.arity) for r in pf.references if r.kind == "calls"] == [
        ("f", "", 3),
        ("A", "", 1),
        ("g", "", 0),
        ("g", "this", 1),
    ]


@pytest.mark.sqlite_only
def test_other_languages_count_nothing() -> None:
    pf = parse_source(b"def f(a, b):\n    return g(1, 2)\n", "python")
    assert [(s.min_args, s.max_args) for s in pf.symbols] == [(0, -1), (0, -1)]
    assert [r.arity for r in pf.references] == [-1]


# -- binding -----------------------------------------------------------------------------------------------------
def test_each_call_binds_the_overload_its_argument_count_fits(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES, filler=False)
    svc = index_repo(root)
    try:
        out = _calls(svc.db, "src/p/Out.java")
        at = partial(_line_of, OUT)
        assert out[(at("line(1);"), "line", "")] == ("inferred", at("void line(int a) {}"), "method")
        assert out[(at("this.line(1, 2)"), "line", "this")] == ("same_file", at("line(int a, int b)"), "method")
        assert out[(at('emit("a", "b", "c")'), "emit", "")] == ("inferred", at("Object... args"), "method")
        assert out[(at("return of(s)"), "of", "")] == ("inferred", at("Out of(String s) {"), "method")
        # Several fit the count, (String, Object...), (String, int), (String, String): the types choose (String, int);
        # of (String) and the varargs one, Java's first phase takes (String) before it looks at varargs.
        assert out[(at('emit("a", 1)'), "emit", "")] == ("inferred", at("emit(String s, int n)"), "method")
        assert out[(at('emit("a");'), "emit", "")] == ("inferred", at("void emit(String s) {}"), "method")
        assert out[(at("line(/* none */)"), "line", "")][:2] == ("ambiguous", None)  # none fits
        use = _calls(svc.db, "src/p/Use.java")
        at = partial(_line_of, USE)
        assert use[(at("out.line"), "line", "out")] == ("inferred", _line_of(OUT, "line(int a, int b)"), "method")
        assert use[(at("Out.of"), "of", "Out")] == ("qualified_name", _line_of(OUT, "of(String s, int"), "method")
        assert use[(at("out.emit"), "emit", "out")] == ("inferred", _line_of(OUT, "emit(String s, int n)"), "method")
        # `new Out(2)` names the class, never a constructor (they share its name and are ranged all the same): the
        # same-package guess sees the class and its three constructors, and the constructors are no candidates.
        assert use[(at("new Out(2)"), "Out", "")] == ("same_directory", _line_of(OUT, "public class Out"), "class")
        ctors = svc.db.rows(
            "SELECT min_args, max_args FROM nodes WHERE name = 'Out' AND kind = 'method' ORDER BY start_line"
        )
        assert [tuple(map(int, r)) for r in ctors] == [(0, 0), (1, 1), (2, 2)]
    finally:
        svc.close()


STEPS: list[tuple[str, dict[str, str]]] = [
    # Another overload: `line(1)` and `this.line(1, 2)` still fit one; `out.line(1, 2)` now fits two.
    (
        "add an overload",
        {
            "src/p/Out.java": OUT.replace(
                "public void line(int a) {}", "public void line(int a) {}\n      public void line(int a, String b) {}"
            )
        },
    ),
    # Same names, kinds and places, another parameter count: the callers in Use.java, not re-parsed, bind again.
    ("change a parameter count", {"src/p/Out.java": OUT.replace("line(int a, int b)", "line(int a, int b, int c)")}),
    ("and back", {"src/p/Out.java": OUT}),
    ("edit a call's arguments", {"src/p/Use.java": USE.replace("out.line(1, 2)", "out.line(1)")}),
    # Same count, another type: `out.emit("x", 1)` in Use.java, not re-parsed, fits (String, Object...) only now.
    ("change a parameter type", {"src/p/Out.java": OUT.replace("emit(String s, int n)", "emit(String s, Out n)")}),
    ("an argument of another type", {"src/p/Use.java": USE.replace('out.emit("x", 1)', 'out.emit("x", "y")')}),
]


def test_incremental_steps_leave_the_edges_of_a_full_build(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES, filler=False)
    svc = index_repo(root)
    failures: list[str] = []
    try:
        for step, (label, change) in enumerate(STEPS):
            for rel, text in change.items():
                edit_file(root, rel, text)
            svc.index()
            # A name of its own: on PostgreSQL the repository's name is its index.
            fresh = make_repo(tmp_path, {r: (root / r).read_text() for r in FILES}, filler=False, name=f"full{step}")
            full = index_repo(fresh)
            try:
                got, want = edges_by_place(svc.db), edges_by_place(full.db)
            finally:
                full.close()
            failures += [f"after '{label}': incremental only {e}" for e in got if e not in want]
            failures += [f"after '{label}': full only {e}" for e in want if e not in got]
        assert not failures, "\n".join(failures)
    finally:
        svc.close()


@pytest.mark.sqlite_only
def test_a_schema_10_index_migrates_and_binds_by_count_after_its_java_files_are_read_again(tmp_path: Path) -> None:
    def check(db: Database) -> None:
        assert db.rows("SELECT DISTINCT arity FROM edges") == [(-1,)]  # unknown: bound as before
        assert db.rows("SELECT DISTINCT min_args, max_args FROM nodes") == [(0, -1)]

    migrates_and_reads_again(tmp_path, FILES, undo_schema_11, check)


@pytest.mark.sqlite_only
def test_a_schema_11_index_migrates_and_binds_by_type_after_its_java_files_are_read_again(tmp_path: Path) -> None:
    def built(db: Database) -> None:
        assert db.rows("SELECT count(*) FROM edges WHERE arguments != ''")[0][0] > 0

    def check(db: Database) -> None:
        assert db.rows("SELECT DISTINCT arguments FROM edges") == [("",)]  # no hints: bound by count, as before

    migrates_and_reads_again(tmp_path, {**TYPED, "src/p/Caller.java": CALLER}, undo_schema_12, check, built)


# -- argument types ----------------------------------------------------------------------------------------------
@pytest.mark.sqlite_only
def test_java_parse_records_argument_hints_and_parameter_types() -> None:
    source = b"""class A {
  <T> void f(final java.util.Map<String, T> m, int[] xs, T t, Object... rest) {}
  void g() {}
  void h(A a) {
    f("s" + 1, 'c', 2L, 1.5f, null, A.class, new java.util.ArrayList<>(), (Runnable) a, this, a, this.a, a.g().h,
      x -> x, a == null, !ok, 1 + 2.0, new int[2][], ok ? "y" : "n", ok ? a : null, xs[0], new A(1).g());
    new java.util.ArrayList<String>(List.of("a.b")).add("c");
  }
}
"""
    pf = parse_source(source, "java")
    params = {pf.symbols[f.source].name: f.text for f in pf.facts if f.name == "()p"}
    assert params == {"f": "Map,int[],T,Object...", "h": "A"}  # g takes nothing: no fact
    hints = next(r.arguments for r in pf.references if r.name == "f").split(",")
    assert hints == [
        "String", "char", "long", "float", "null", "Class", "ArrayList", "Runnable", "=this", "=a", "=this.a",
        "=a.g().h", "?", "boolean", "boolean", "double", "int[][]", "String", "?", "?", "=A.new().g()",
    ]  # fmt: skip
    # A Java receiver path reads arguments as `()` and `new T(..)` as `T.new()` (whitespace is dropped).
    assert next(r.qualifier for r in pf.references if r.name == "add") == "ArrayList.new()"
    assert next(r.arguments for r in pf.references if r.name == "g") == ""  # no arguments, nothing to record


@pytest.mark.sqlite_only
def test_deep_generated_arguments_are_read_without_recursing_past_the_limit() -> None:
    # Generated code: a 5,000-term string concatenation and a 3,000-call chain as arguments, deeper than Python's
    # recursion limit if read node by node. The file parses whole; what lies too deep is unknown.
    concatenation = " + ".join(['"a"'] * 5000)
    chain = ".".join(["b()"] * 3000)
    source = f"class A {{ void m() {{ f({concatenation}); g(x.{chain}); }} void n() {{}} }}".encode()
    pf = parse_source(source, "java")
    assert [s.name for s in pf.symbols[1:]] == ["A", "m", "n"]
    hints = {r.name: r.arguments for r in pf.references if r.name in ("f", "g")}
    assert hints == {"f": "String", "g": "?"}


NODE = "package p;\npublic class Node {}\n"
LEAF = """
    package p;

    public class Leaf extends Node {
      public static class Builder {
        public Leaf build() { return new Leaf(); }
      }
      public static Builder builder() { return new Builder(); }
      public String name() { return ""; }
    }
    """
KIND = "package p;\npublic enum Kind { A, B }\n"
BASE = """
    package p;

    public class Base {
      public static String get(java.lang.reflect.Type type) { return ""; }
    }
    """
SINK = """
    package p;

    import java.util.List;

    public class Sink extends Base {
      public void put(String s) {}
      public void put(Node n) {}
      public void put(int i) {}
      public void put(long l) {}
      public void take(Object o) {}
      public void take(Node n) {}
      public void boxed(Integer i) {}
      public void boxed(String s) {}
      public void fmt(String s) {}
      public void fmt(String s, Object... args) {}
      public void each(List<String> names) {}
      public void each(Node n) {}
      public void each(Iterable<String> xs) {}
      public void mark(Kind k) {}
      public void mark(Node n) {}
      public static String get(Class<?> raw, java.lang.reflect.Type... args) { return ""; }
    }
    """
CALLER = """
    package p;

    import java.util.List;

    public class Caller {
      private Node field;

      void label(String text) {}

      void relabel(String label) {
        label(label);
      }

      void loop(Sink sink, List<Node> nodes, java.util.Set<String> set) {
        for (Node each : nodes) {
          sink.put(each);
        }
        sink.each(set);
        sink.mark(Kind.A);
      }

      void run(Sink sink, Leaf leaf, List<String> names, Object o, boolean ok) {
        sink.put("a");
        sink.put(leaf);
        sink.put(1);
        sink.put(2L);
        sink.put(field);
        sink.put(ok ? "a" : "b");
        sink.put(o.toString());
        sink.put(leaf.name());
        sink.take(leaf);
        sink.take(o);
        sink.boxed(3);
        sink.fmt("x");
        sink.each(names);
        Sink.get(String.class);
        Leaf.builder().build();
        Leaf.Builder b = Leaf.builder();
        b.build();
        new Sink().put(leaf);
      }
    }
    """
TYPED = {
    "src/p/Node.java": NODE,
    "src/p/Leaf.java": LEAF,
    "src/p/Kind.java": KIND,
    "src/p/Base.java": BASE,
    "src/p/Sink.java": SINK,
}


def test_argument_types_choose_the_overload_java_would(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {**TYPED, "src/p/Caller.java": CALLER}, filler=False)
    svc = index_repo(root)
    try:
        calls = _calls(svc.db, "src/p/Caller.java")
        at = partial(_line_of, CALLER)

        def target(needle: str, name: str, qualifier: str) -> tuple[str, int | None, str]:
            return calls[(at(needle), name, qualifier)]

        sink = partial(_line_of, SINK)
        assert target('sink.put("a")', "put", "sink") == ("inferred", sink("put(String s)"), "method")
        assert target("sink.put(leaf)", "put", "sink") == ("inferred", sink("put(Node n)"), "method")  # a subclass
        assert target("sink.put(1)", "put", "sink") == ("inferred", sink("put(int i)"), "method")  # not widened
        assert target("sink.put(2L)", "put", "sink") == ("inferred", sink("put(long l)"), "method")
        assert target("sink.put(field)", "put", "sink") == ("inferred", sink("put(Node n)"), "method")  # a field
        assert target("sink.put(ok ?", "put", "sink") == ("inferred", sink("put(String s)"), "method")
        # The most specific of those that apply; an Object is no Node.
        assert target("sink.take(leaf)", "take", "sink") == ("inferred", sink("take(Node n)"), "method")
        assert target("sink.take(o)", "take", "sink") == ("inferred", sink("take(Object o)"), "method")
        assert target("sink.boxed(3)", "boxed", "sink") == ("inferred", sink("boxed(Integer i)"), "method")
        # Fixed arity applies before varargs; a library type is no repository class.
        assert target('sink.fmt("x")', "fmt", "sink") == ("inferred", sink("fmt(String s)"), "method")
        assert target("sink.each(names)", "each", "sink") == ("inferred", sink("each(List<String> names)"), "method")
        # An inherited overload that applies without varargs beats the class's own varargs one.
        assert target("Sink.get(String.class)", "get", "Sink") == ("qualified_name", _line_of(BASE, "get("), "method")
        # A class's static method starts a receiver path; `Leaf.Builder` is a type declared inside Leaf.
        build = _line_of(LEAF, "public Leaf build()")
        assert target("Leaf.builder().build()", "build", "Leaf.builder()") == ("inferred", build, "method")
        assert target("b.build()", "build", "b") == ("inferred", build, "method")
        assert target("new Sink().put(leaf)", "put", "Sink.new()") == ("inferred", sink("put(Node n)"), "method")
        # An argument of unknown type (a library method's result) may fit any of them: nothing is chosen.
        assert target("sink.put(o.toString())", "put", "sink")[:2] == ("ambiguous", None)
        # The result type a repository method states; a loop variable's type; an enum's constant.
        assert target("sink.put(leaf.name())", "put", "sink") == ("inferred", sink("put(String s)"), "method")
        assert target("sink.put(each)", "put", "sink") == ("inferred", sink("put(Node n)"), "method")
        assert target("sink.mark(Kind.A)", "mark", "sink") == ("inferred", sink("mark(Kind k)"), "method")
        # A Set is an Iterable, and no List (the JDK's types whose every supertype is known).
        assert target("sink.each(set)", "each", "sink") == ("inferred", sink("each(Iterable<String> xs)"), "method")
        # Java keeps methods and variables apart: `label(label)` calls the method whatever the parameter's name.
        assert target("label(label)", "label", "") == ("inferred", at("void label(String text)"), "method")
    finally:
        svc.close()


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("fits", "chosen"),
    [
        ({1: (("same",), False), 2: (("yes",), False)}, 1),  # the very types: the most specific there is
        ({1: (("yes",), False), 2: (("maybe",), False)}, None),  # 2 may apply too: not known which is chosen
        ({1: (("box",), False), 2: (("no",), False)}, 1),  # the only one that can apply
        ({1: (("box",), False), 2: (("yes",), True)}, 1),  # boxing (phase 2) before varargs (phase 3)
        ({1: (("maybe",), True), 2: (("yes",), False)}, 2),  # a phase that decides ends the search
        ({1: (("yes",), False), 2: None}, None),  # parameters unknown: may apply anywhere
        ({1: (("no",), False), 2: (("no",), False)}, None),  # nothing applies: left ambiguous
    ],
)
def test_by_types_follows_javas_phases(fits: dict[int, Fits], chosen: int | None) -> None:
    candidates = [_sym(i, 1, 1) for i in fits]
    got = by_types(candidates, lambda s: fits[s.id], lambda _a, _b: False)
    assert (got.id if got is not None else None) == chosen


@pytest.mark.sqlite_only
def test_by_types_takes_the_most_specific_of_those_that_surely_apply() -> None:
    a, b, c = _sym(1, 1, 1), _sym(2, 1, 1), _sym(3, 1, 1)
    below = {(1, 2), (1, 3), (2, 3)}  # a is more specific than b and c, b than c
    assert by_types([c, b, a], lambda _s: (("yes",), False), lambda x, y: (x.id, y.id) in below) == a
    tied: set[tuple[int, int]] = set()
    assert by_types([a, b], lambda _s: (("yes",), False), lambda x, y: (x.id, y.id) in tied) is None


SHOW = """
    package p;

    public class Show {
      void show(String s) {
        show("again");
        show(3);
      }

      void show(int n) {
        show(n);
        show("text");
      }
    }
"""


def test_a_call_the_arguments_bind_to_its_own_overload_is_recursive(tmp_path: Path) -> None:
    svc = index_repo(make_repo(tmp_path, {"src/p/Show.java": SHOW}, filler=False))
    try:
        calls = _calls(svc.db, "src/p/Show.java")
        text, number = _line_of(SHOW, "void show(String s)"), _line_of(SHOW, "void show(int n)")
        # each call binds the overload its argument's type chooses, the caller itself included, never "the other one"
        assert calls[(_line_of(SHOW, 'show("again")'), "show", "")] == ("inferred", text, "method")
        assert calls[(_line_of(SHOW, "show(3)"), "show", "")] == ("inferred", number, "method")
        assert calls[(_line_of(SHOW, "show(n);"), "show", "")] == ("inferred", number, "method")
        assert calls[(_line_of(SHOW, 'show("text")'), "show", "")] == ("inferred", text, "method")
    finally:
        svc.close()
