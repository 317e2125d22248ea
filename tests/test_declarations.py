"""Declarations: flagged by the parser, linked to their implementations by `declares` edges (both stores, kept right
by incremental runs), and folded into those implementations in explore answers (one name once per answer)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _factories import change_incrementally, edit_file, index_repo, make_repo, make_service, write_file
from parse_helpers import parse

from igraph_mcp.index.parse import parse_source
from igraph_mcp.models import ExploreResult
from igraph_mcp.render import render_explore
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.service import IGraphService
from igraph_mcp.store.db import Database

pytestmark = pytest.mark.both_stores

REPO: dict[str, str] = {
    "ts/lib/parse.d.ts": """
        /** Parse the request body. */
        export declare function parseBody(raw: string): object;
        export declare class BodyReader { read(size: number): string; }
        export interface ParseOptions { strict: boolean; limit: number; }
        """,
    "ts/lib/parse.js": """
        function parseBody(raw) {
          const trimmed = raw.trim();
          return JSON.parse(trimmed);
        }
        class BodyReader {
          read(size) { return this.buffer.slice(0, size); }
        }
        module.exports = { parseBody, BodyReader };
        """,
    "ts/src/format.ts": """
        export function formatValue(v: string): string;
        export function formatValue(v: number): string;
        export function formatValue(v: any): string {
          return String(v).padStart(4);
        }
        """,
    "java/Shape.java": """
        package geo;
        public interface Shape {
            double area();
        }
        """,
    "java/Circle.java": """
        package geo;
        public class Circle implements Shape {
            private double r;
            public double area() { return Math.PI * r * r; }
        }
        """,
    "go/store/store.go": """
        package store

        type Reader interface {
            Read(key string) string
            Close() error
        }

        type FileStore struct{}

        func (f *FileStore) Read(key string) string { return key }

        func (f *FileStore) Close() error { return nil }

        type Half struct{}

        func (h *Half) Read(key string) string { return "" }
        """,
    "rust/src/lib.rs": """
        pub trait Greeter {
            fn greet(&self) -> String;
        }

        pub struct English;

        impl Greeter for English {
            fn greet(&self) -> String { String::from("hello") }
        }
        """,
    # Another crate with its own Greeter and English (regex's crates each have a Replacer and a NoExpand): each
    # trait's method links to its own crate's English.greet only.
    "rust_lite/src/lib.rs": """
        pub trait Greeter {
            fn greet(&self) -> String;
        }

        pub struct English;

        impl Greeter for English {
            fn greet(&self) -> String { String::from("hi") }
        }
        """,
    "c/counter.h": """
        #ifndef COUNTER_H
        #define COUNTER_H
        int counter_next(int step);
        #endif
        """,
    "c/counter.c": """
        #include "counter.h"
        int counter_next(int step) { static int n; n += step; return n; }
        """,
    # C++ members defined relative to the namespaces in scope: Session::applyCommandLine after `using namespace app`
    # is app.Session.applyCommandLine; tools.Session and app.Widget declare the same method name and must not fold.
    "cpp/session.hpp": """
        namespace app {
        class Session { public: int applyCommandLine(int argc); };
        class Widget { public: int applyCommandLine(int argc); };
        }
        """,
    "cpp/session.cpp": """
        #include "session.hpp"
        using namespace app;
        int Session::applyCommandLine(int argc) { return argc > 1 ? parseArguments(argc) : 0; }
        """,
    "cpp/tools.hpp": """
        namespace tools {
        class Session { public: int applyCommandLine(int argc); };
        }
        """,
    "cpp/tools.cpp": """
        #include "tools.hpp"
        namespace tools { int Session::applyCommandLine(int argc) { return -argc; } }
        """,
}

LINKS = {
    ("ts/lib/parse.d.ts", "parseBody", "ts/lib/parse.js", "parseBody", "companion"),
    ("ts/lib/parse.d.ts", "BodyReader", "ts/lib/parse.js", "BodyReader", "companion"),
    ("ts/lib/parse.d.ts", "BodyReader.read", "ts/lib/parse.js", "BodyReader.read", "companion"),
    ("ts/src/format.ts", "formatValue", "ts/src/format.ts", "formatValue", "same_file"),
    ("java/Shape.java", "Shape.area", "java/Circle.java", "Circle.area", "inherits"),
    # Half has Read but not Close: it does not satisfy Reader.
    ("go/store/store.go", "Reader.Read", "go/store/store.go", "FileStore.Read", "method_set"),
    ("go/store/store.go", "Reader.Close", "go/store/store.go", "FileStore.Close", "method_set"),
    ("rust/src/lib.rs", "Greeter.greet", "rust/src/lib.rs", "English.greet", "inherits"),
    ("rust_lite/src/lib.rs", "Greeter.greet", "rust_lite/src/lib.rs", "English.greet", "inherits"),
    ("c/counter.h", "counter_next", "c/counter.c", "counter_next", "companion"),
    ("cpp/session.hpp", "app.Session.applyCommandLine", "cpp/session.cpp", "Session.applyCommandLine", "companion"),
    ("cpp/tools.hpp", "tools.Session.applyCommandLine", "cpp/tools.cpp", "tools.Session.applyCommandLine", "companion"),
}


def _links(db: Database) -> set[tuple[str, ...]]:
    """Every declares edge as (declaration path, qualified name, implementation path, qualified name, rule)."""
    rows = db.rows(
        "SELECT fs.path, s.qualified_name, ft.path, t.qualified_name, e.resolution FROM edges e "
        "JOIN nodes s ON s.id = e.source_id JOIN files fs ON fs.id = s.file_id "
        "JOIN nodes t ON t.id = e.target_id JOIN files ft ON ft.id = t.file_id WHERE e.kind = 'declares'"
    )
    return {tuple(str(c) for c in r) for r in rows}


def _dangling(db: Database) -> int:
    return int(db.rows("SELECT count(*) FROM edges WHERE kind = 'declares' AND target_id IS NULL")[0][0])


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = make_repo(tmp_path_factory.mktemp("decls"), REPO)
    svc = index_repo(root)
    yield svc
    svc.close()


# -- the parser's flag ---------------------------------------------------------------------------------------------
@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("language", "code", "path", "declared"),
    [
        ("typescript", "function f(a: string): void;\nfunction f(a: any) {}\n", "", {"f"}),
        ("typescript", "interface I { m(): void; p: number }\nclass C implements I { m() {} }\n", "", {"I.m"}),
        ("typescript", "abstract class A { abstract run(): void; stop() {} }\n", "", {"A.run"}),
        ("typescript", "declare class D { m(): void; }\n", "", {"D", "D.m"}),
        ("typescript", "export function g(): void;\ninterface O { a: 1 }\n", "types/x.d.ts", {"", "g", "O"}),
        ("typescript", "export function g(): void {}\n", "src/x.ts", set()),
        ("java", "interface I { void m(); default void d() {} }\n", "", {"I.m"}),
        ("java", "abstract class A { abstract void k(); void j() {} }\n", "", {"A.k"}),
        ("go", "package p\ntype R interface { Read() int }\nfunc (s *S) Read() int { return 0 }\n", "", {"R.Read"}),
        ("rust", "trait T { fn a(&self); fn b(&self) {} }\n", "", {"T.a"}),
        (
            "c",
            "int add(int a);\nchar *name(void);\nint add(int a) { int local(int); return a; }\n",
            "",
            {"add", "name"},
        ),
        (
            "cpp",
            "namespace g { int f(int); class S { virtual int v() = 0; int w() { return 1; } }; }\n",
            "",
            {"g.f", "g.S.v"},
        ),
        ("python", "def f():\n    return 1\n", "", set()),
    ],
)
def test_the_parser_flags_declarations(language: str, code: str, path: str, declared: set[str]) -> None:
    pf = parse_source(code.encode(), language, path) if path else parse(language, code)
    assert {s.qualified_name for s in pf.symbols if s.declaration} == declared


# -- the links ---------------------------------------------------------------------------------------------------
def test_each_declaration_is_linked_to_its_implementations(indexed: IGraphService) -> None:
    assert _links(indexed.db) == LINKS


def test_the_flag_is_stored(indexed: IGraphService) -> None:
    flagged = {
        (str(p), str(q))
        for p, q in indexed.db.rows(
            "SELECT f.path, n.qualified_name FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.declaration = 1"
        )
    }
    assert ("ts/lib/parse.d.ts", "ParseOptions") in flagged and ("ts/lib/parse.js", "parseBody") not in flagged
    assert ("c/counter.h", "counter_next") in flagged and ("c/counter.c", "counter_next") not in flagged


STEPS: list[tuple[str, dict[str, str | None], set[tuple[str, ...]], set[tuple[str, ...]]]] = [
    # (label, change, links that must appear, links that must be gone)
    (
        "the implementation's body is edited (new node ids, same links)",
        {"ts/lib/parse.js": REPO["ts/lib/parse.js"].replace("raw.trim()", "raw.trim().toString()")},
        {("ts/lib/parse.d.ts", "BodyReader.read", "ts/lib/parse.js", "BodyReader.read", "companion")},
        set(),
    ),
    (
        "the declaration file is edited",
        {"ts/lib/parse.d.ts": REPO["ts/lib/parse.d.ts"].replace("raw: string", "raw: string | Buffer")},
        {("ts/lib/parse.d.ts", "parseBody", "ts/lib/parse.js", "parseBody", "companion")},
        set(),
    ),
    (
        "the implementation moves to another file",
        {
            "ts/lib/parse.js": "class BodyReader {\n  read(size) { return ''; }\n}\nmodule.exports = { BodyReader };\n",
            "ts/lib/body.js": "function parseBody(raw) {\n  return JSON.parse(raw);\n}\n",
        },
        {("ts/lib/parse.d.ts", "parseBody", "ts/lib/body.js", "parseBody", "qualified_name")},
        {("ts/lib/parse.d.ts", "parseBody", "ts/lib/parse.js", "parseBody", "companion")},
    ),
    (
        "a type gains the missing method of an interface",
        {"go/store/half.go": "package store\n\nfunc (h *Half) Close() error { return nil }\n"},
        {
            ("go/store/store.go", "Reader.Read", "go/store/store.go", "Half.Read", "method_set"),
            ("go/store/store.go", "Reader.Close", "go/store/half.go", "Half.Close", "method_set"),
        },
        set(),
    ),
    (
        "a class stops implementing the interface",
        {"java/Circle.java": REPO["java/Circle.java"].replace(" implements Shape", "")},
        set(),
        {("java/Shape.java", "Shape.area", "java/Circle.java", "Circle.area", "inherits")},
    ),
    (
        "the declaration is renamed",
        {"c/counter.h": REPO["c/counter.h"].replace("counter_next", "counter_step")},
        set(),
        {("c/counter.h", "counter_next", "c/counter.c", "counter_next", "companion")},
    ),
    ("the header is deleted", {"c/counter.h": None}, set(), set()),
    (
        "a second implementation of the trait",
        {
            "rust/src/french.rs": "use crate::Greeter;\npub struct French;\nimpl Greeter for French {\n"
            '    fn greet(&self) -> String { String::from("bonjour") }\n}\n'
        },
        {("rust/src/lib.rs", "Greeter.greet", "rust/src/french.rs", "French.greet", "inherits")},
        set(),
    ),
]


def _full_links(root: Path, tmp_path: Path) -> set[tuple[str, ...]]:
    copy = tmp_path / "full-copy"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".igraph"))
    svc = make_service(copy)
    try:
        svc.index(full=True)
        return _links(svc.db)
    finally:
        svc.close()


def test_incremental_runs_keep_the_links_of_a_full_index(tmp_path: Path) -> None:
    root = make_repo(tmp_path, REPO)
    svc = index_repo(root)
    try:
        for label, change, appear, gone in STEPS:
            for rel, text in change.items():
                if text is None:
                    (root / rel).unlink()
                elif (root / rel).exists():
                    edit_file(root, rel, text)
                else:
                    write_file(root, rel, text)
            svc.index()
            got = _links(svc.db)
            assert got == _full_links(root, tmp_path), label
            assert appear <= got and not (gone & got), label
            assert _dangling(svc.db) == 0, label
    finally:
        svc.close()


# -- the answers -----------------------------------------------------------------------------------------------------
def _names(r: ExploreResult) -> list[str]:
    return [h.qualifiedName for h in r.hits] + [n.qualifiedName for n in r.neighbours]


def test_a_behaviour_question_gets_the_implementation_once_with_its_declaration(indexed: IGraphService) -> None:
    r = indexed.explore("where is the request body parsed", top_k=5, hops=1)
    parse_hits = [h for h in r.hits if h.name == "parseBody"]
    assert [(h.filePath, h.declaredAt) for h in parse_hits] == [("ts/lib/parse.js", "ts/lib/parse.d.ts:2")]
    assert "parseBody(raw: string): object" in parse_hits[0].declaredSignature
    assert "declared at ts/lib/parse.d.ts:2" in render_explore(r)
    off = indexed.explore(  # unfolded, both are hits (the modules `parse` and `parse.d` rank between them)
        "where is the request body parsed",
        top_k=10,
        hops=1,
        params=RetrievalParams(fold_declarations=False, unique_names=False),
    )
    assert sorted(h.filePath for h in off.hits if h.name == "parseBody") == ["ts/lib/parse.d.ts", "ts/lib/parse.js"]


def test_an_overload_folds_into_its_implementation(indexed: IGraphService) -> None:
    r = indexed.explore("format a value padded to four characters", top_k=5, hops=0)
    formats = [h for h in r.hits if h.name == "formatValue"]
    assert len(formats) == 1 and formats[0].startLine == 3 and formats[0].declaredAt.startswith("ts/src/format.ts:")


def test_an_interface_method_folds_into_the_implementing_method(indexed: IGraphService) -> None:
    r = indexed.explore("how is the area of a shape computed", top_k=5, hops=0)
    areas = [h for h in r.hits if h.name == "area"]
    assert [(h.qualifiedName, h.declaredAt) for h in areas] == [("Circle.area", "java/Shape.java:3")]


def test_a_cpp_header_method_folds_into_its_definition_written_relative_to_the_namespace(
    indexed: IGraphService,
) -> None:
    r = indexed.explore("applyCommandLine parse the command line arguments", top_k=10, hops=0)
    applied = {(h.filePath, h.qualifiedName, h.declaredAt) for h in r.hits if h.name == "applyCommandLine"}
    assert applied == {
        ("cpp/session.cpp", "Session.applyCommandLine", "cpp/session.hpp:2"),
        ("cpp/tools.cpp", "tools.Session.applyCommandLine", "cpp/tools.hpp:2"),
        # Widget's has no definition: it stays, as a declaration.
        ("cpp/session.hpp", "app.Widget.applyCommandLine", ""),
    }


def test_a_type_question_still_gets_the_type_first(indexed: IGraphService) -> None:
    r = indexed.explore("ParseOptions interface fields", top_k=5, hops=0)
    assert r.hits[0].qualifiedName == "ParseOptions"
    r = indexed.explore("what does the Shape interface declare", top_k=5, hops=0)
    assert any(h.qualifiedName == "Shape.area" and h.filePath == "java/Shape.java" for h in r.hits)


@pytest.mark.parametrize(
    "query",
    ["where is the request body parsed", "read a body", "greet in English", "Read a key from the store", "area"],
)
def test_no_name_appears_twice_in_an_answer(indexed: IGraphService, query: str) -> None:
    names = _names(indexed.explore(query, top_k=10, hops=2))
    assert len(names) == len(set(names)), names


# -- calls bind to the body, not to its declaration ------------------------------------------------------------------
CALLS_REPO: dict[str, str] = {
    "lib/counter.h": "int counter_next(int step);\nint counter_reset(void);\n",
    "lib/impl/counter.c": '#include "../counter.h"\nint counter_next(int step) { return step + 1; }\n',
    # a static function of the same name in two files: the prototype goes, the two bodies stay candidates
    "lib/impl/reset_a.c": "static int counter_reset(void) { return 0; }\n",
    "lib/impl/reset_b.c": "static int counter_reset(void) { return 1; }\n",
    "app/main.c": '#include "../lib/counter.h"\nint run(void) { return counter_next(2) + counter_reset(); }\n',
    # a forward declaration, then the call, then the body, in one file
    "app/forward.c": "static int helper(int a);\nint start(void) { return helper(3); }\n"
    "static int helper(int a) { return a * 2; }\n",
    # a member declared in its class and defined outside it
    "cpp/widget.hpp": "class Widget {\n public:\n  static int draw(int x);\n  int size();\n"
    "  int area() { return this->size() * 2; }\n};\n",
    "cpp/src/widget.cpp": '#include "../widget.hpp"\nint Widget::draw(int x) { return x; }\n'
    "int Widget::size() { return 3; }\n",
    # overloads defined outside their class: two bodies, neither chosen by the declarations
    "cpp/shape.hpp": "class Shape { public: static int grow(int x); static int grow(double x); };\n",
    "cpp/src/shape.cpp": '#include "../shape.hpp"\nint Shape::grow(int x) { return x; }\n'
    "int Shape::grow(double x) { return 1; }\n",
    "cpp/app.cpp": '#include "widget.hpp"\nint paint() { return Widget::draw(4) + Shape::grow(2); }\n',
}


def _calls(db: Database, caller: str) -> dict[str, tuple[str, str, str, list[int]]]:
    """callee name -> (target path, target qualified name, resolution, candidate count) of ``caller``'s calls."""
    rows = db.rows(
        "SELECT e.target_name, ft.path, t.qualified_name, e.resolution, e.candidates FROM edges e "
        "JOIN nodes s ON s.id = e.source_id LEFT JOIN nodes t ON t.id = e.target_id "
        "LEFT JOIN files ft ON ft.id = t.file_id WHERE e.kind = 'calls' AND s.qualified_name = ?",
        (caller,),
    )
    return {str(r[0]): (str(r[1] or ""), str(r[2] or ""), str(r[3]), json.loads(r[4]) if r[4] else []) for r in rows}


def test_a_call_binds_the_body_its_declaration_stands_for(tmp_path: Path) -> None:
    svc = index_repo(make_repo(tmp_path, CALLS_REPO, filler=False))
    try:
        db = svc.db
        run = _calls(db, "run")
        assert run["counter_next"][:2] == ("lib/impl/counter.c", "counter_next")
        # two bodies are still two candidates, but the prototype no longer is a third
        target, _, resolution, candidates = run["counter_reset"]
        assert (target, resolution, len(candidates)) == ("", "ambiguous", 2)
        paths = {
            str(r[0])
            for r in db.rows(
                "SELECT f.path FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id IN (?, ?)", tuple(candidates)
            )
        }
        assert paths == {"lib/impl/reset_a.c", "lib/impl/reset_b.c"}
        assert _calls(db, "start")["helper"][:2] == ("app/forward.c", "helper")
        assert _calls(db, "paint")["draw"][:2] == ("cpp/src/widget.cpp", "Widget.draw")
        # of two overloads of one count, the one whose parameter is the argument's very type (int, not double),
        # and of their two bodies outside the class, the one with that parameter
        grow = _calls(db, "paint")["grow"]
        assert grow[:2] == ("cpp/src/shape.cpp", "Shape.grow")
        lines = db.rows(
            "SELECT t.start_line FROM edges e JOIN nodes t ON t.id = e.target_id JOIN nodes s ON s.id = e.source_id "
            "WHERE e.kind = 'calls' AND e.target_name = 'grow' AND s.qualified_name = 'paint'"
        )
        assert [int(r[0]) for r in lines] == [2]
        # a member found in its class is the declaration; the call binds the body defined outside it
        assert _calls(db, "Widget.area")["size"][:2] == ("cpp/src/widget.cpp", "Widget.size")
    finally:
        svc.close()


def test_a_call_follows_its_body_through_incremental_runs(tmp_path: Path) -> None:
    root = make_repo(tmp_path, CALLS_REPO, filler=False)
    svc = index_repo(root)
    try:
        steps: list[tuple[dict[str, str | None], tuple[str, str]]] = [
            # the body goes: the call binds the one declaration left
            ({"lib/impl/counter.c": None}, ("lib/counter.h", "counter_next")),
            # it comes back elsewhere: the call follows it
            ({"lib/more/counter.c": CALLS_REPO["lib/impl/counter.c"]}, ("lib/more/counter.c", "counter_next")),
        ]
        for change, expected in steps:
            change_incrementally(svc, root, tmp_path, change)
            assert _calls(svc.db, "run")["counter_next"][:2] == expected
    finally:
        svc.close()


# -- C and C++: of several definitions of one name, the one the includes make visible --------------------------------
INCLUDES_REPO: dict[str, str] = {
    # one macro name in two folders, as zstd's `DEBUGLOG` or `assert`
    "lib/a/debug.h": "#define TRACE(x) ((void)0)\n",
    "lib/b/debug.h": '#define TRACE(x) puts("b")\n',
    "lib/a/api.h": '#include "debug.h"\nint api_open(void);\n',
    # reached through another header, from a folder that holds neither definition
    "app/main.c": '#include "../lib/a/api.h"\nint run(void) { TRACE(1); return api_open(); }\n',
    "lib/a/sub/x.c": '#include "../debug.h"\nint sub_x(void) { TRACE(2); return 0; }\n',
    # included nowhere: the name-only steps still decide (here, several candidates: no guess)
    "tools/free.c": "int tool(void) { TRACE(3); return 0; }\n",
    # a body counts as visible where its prototype is; a method of its name in a header nobody includes is not
    "lib/a/api.c": '#include "api.h"\nint api_open(void) { return 1; }\n',
    "lib/b/other.hpp": "struct Other {\n  int api_open() { return 2; }\n};\n",
    # C++: one helper name in two headers
    "cpp/one.hpp": "inline int clampit(int x) { return x; }\n",
    "cpp/two.hpp": "inline int clampit(int x) { return -x; }\n",
    "cpp/use/use.cpp": '#include "../two.hpp"\nint use() { return clampit(3); }\n',
}


def test_a_bare_name_binds_what_the_includes_make_visible(tmp_path: Path) -> None:
    svc = index_repo(make_repo(tmp_path, INCLUDES_REPO, filler=False))
    try:
        db = svc.db
        run = _calls(db, "run")
        assert run["TRACE"][:3] == ("lib/a/debug.h", "TRACE", "import")
        assert run["api_open"][:3] == ("lib/a/api.c", "api_open", "import")
        assert _calls(db, "sub_x")["TRACE"][:3] == ("lib/a/debug.h", "TRACE", "import")
        tool = _calls(db, "tool")["TRACE"]
        assert (tool[0], tool[2], len(tool[3])) == ("", "ambiguous", 2)
        assert _calls(db, "use")["clampit"][:3] == ("cpp/two.hpp", "clampit", "import")
    finally:
        svc.close()


def test_a_changed_include_binds_again_as_a_full_index_would(tmp_path: Path) -> None:
    root = make_repo(tmp_path, INCLUDES_REPO, filler=False)
    svc = index_repo(root)
    try:
        steps: list[tuple[dict[str, str | None], str]] = [
            # the header reached through api.h now includes the other folder's
            ({"lib/a/api.h": '#include "../b/debug.h"\nint api_open(void);\n'}, "lib/b/debug.h"),
            # that header goes: nothing the includes reach defines TRACE, the name-only steps decide
            ({"lib/b/debug.h": None}, "lib/a/debug.h"),
        ]
        for change, expected in steps:
            change_incrementally(svc, root, tmp_path, change)
            assert _calls(svc.db, "run")["TRACE"][0] == expected
    finally:
        svc.close()
