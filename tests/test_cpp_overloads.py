"""C++ overloads of one argument count told apart by what the arguments' types surely rule out, a member and its
`const` twin by the receiver's constness, each declaration's body by its parameter types; where a conversion or a
template leaves a doubt, the call stays ambiguous."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import (
    call_edges,
    change_incrementally,
    index_repo,
    line_of,
    make_repo,
    migrates_and_reads_again,
    undo_schema_13,
)
from parse_helpers import parse

from igraph_mcp.store.db import Database

pytestmark = pytest.mark.both_stores

APP = """
    #pragma once
    #include <functional>
    #include <memory>
    #include <string>
    #include <vector>
    namespace cli {
    class App;
    class Base {};
    class Other {};
    class Derived : public Base {};
    using callback_t = std::function<bool(const std::vector<std::string> &)>;
    class Option {
     public:
      void add_result(std::string value);
      void add_result(std::vector<std::string> values);
      bool excludes(Option *opt);
      bool excludes(App *app);
    };
    class App {
      App *parent_{nullptr};
      std::vector<Option *> options_;
     public:
      Option *get(std::string name);
      const Option *get(std::string name) const;
      App *sub(std::string name);
      App *sub(App *app);
      void take(Base *b);
      void take(Other *o);
      void flag(std::string name, callback_t cb);
      void flag(std::string name, std::vector<std::string> &into);
      void set(int n);
      void set(std::string s);
      void toggle(bool on);
      void toggle(std::string s);
      void adopt(std::shared_ptr<App> app);
      void adopt(Option *opt);
      template <typename T> void store(T &value);
      void store(std::string &value);
      void run();
      void look() const;
      void walk();
    };
    }  // namespace cli
    """

IMPL = """
    #pragma once
    #include "App.hpp"
    namespace cli {
    void Option::add_result(std::string value) {}
    void Option::add_result(std::vector<std::string> values) {}
    bool Option::excludes(Option *opt) { return true; }
    bool Option::excludes(App *app) { return false; }
    Option *App::get(std::string name) { return nullptr; }
    const Option *App::get(std::string name) const { return nullptr; }
    void App::run() {
      std::string text;
      std::vector<std::string> many;
      Option *opt = get("x");
      opt->add_result(text);
      opt->add_result(many);
      opt->add_result("literal");
      opt->excludes(this);
      opt->excludes(opt);
      parent_->get(text);
      Derived *d = nullptr;
      take(d);
      flag("f", many);
      set(3);
      set(text);
      toggle("on");
      store(text);
      const App *frozen = this;
      frozen->get("y");
      App *open = parent_;
      open->get("z");
      auto *guess = parent_;
      guess->get("w");
      auto child = sub("c");
      child->run();
      std::unique_ptr<App> owned;
      adopt(std::move(owned));
    }
    void App::look() const { get("q"); }
    void App::walk() {
      for (auto *each : options_) each->add_result("x");
    }
    }  // namespace cli
    """


_STD = frozenset({"string", "move"})


def _bound(db: Database, caller: str) -> list[tuple[int, str, str, int, str]]:
    """(call line, callee name, target path, target start line, resolution) of ``caller``'s calls in line order;
    an unbound call has "" and 0."""
    rows = db.rows(
        "SELECT e.line, e.target_name, ft.path, t.start_line, e.resolution FROM edges e "
        "JOIN nodes s ON s.id = e.source_id LEFT JOIN nodes t ON t.id = e.target_id "
        "LEFT JOIN files ft ON ft.id = t.file_id WHERE e.kind = 'calls' AND s.qualified_name = ? "
        "ORDER BY e.line, e.id",
        (caller,),
    )
    return [(int(r[0]), str(r[1]), str(r[2] or ""), int(r[3] or 0), str(r[4])) for r in rows]


def _callee_lines(db: Database, caller: str) -> dict[int, tuple[str, int, str]]:
    """Call line -> (target path, target start line, resolution) of the repository's callee on each line (the
    standard library's `std::string(..)` and `std::move(..)` left out)."""
    return {line: (path, start, how) for line, name, path, start, how in _bound(db, caller) if name not in _STD}


def test_argument_types_choose_among_overloads_of_one_count(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"include/cli/App.hpp": APP, "include/cli/impl/App_inl.hpp": IMPL}, filler=False)
    svc = index_repo(root)
    try:
        db = svc.db
        impl, header = "include/cli/impl/App_inl.hpp", "include/cli/App.hpp"
        calls = _callee_lines(db, "cli.App.run")

        def at(needle: str) -> tuple[str, int, str]:
            return calls[line_of(IMPL, needle)]

        # the body outside the class with the chosen parameters, not the other one of the same count
        assert at("opt->add_result(text)") == (impl, line_of(IMPL, "add_result(std::string value)"), "inferred")
        assert at("opt->add_result(many)") == (impl, line_of(IMPL, "std::vector<std::string> values)"), "inferred")
        assert at('add_result("literal")') == (impl, line_of(IMPL, "add_result(std::string value)"), "inferred")
        # pointers: `this` is an App*, an Option* local, a Derived* fits the parameter of its base
        assert at("excludes(this)") == (impl, line_of(IMPL, "excludes(App *app)"), "inferred")
        assert at("excludes(opt)") == (impl, line_of(IMPL, "excludes(Option *opt)"), "inferred")
        assert at("take(d)") == (header, line_of(APP, "take(Base *b)"), "inferred")
        # a vector is no callable, a number no string
        assert at('flag("f", many)') == (header, line_of(APP, "std::vector<std::string> &into"), "inferred")
        assert at("set(3)") == (header, line_of(APP, "set(int n)"), "inferred")
        assert at("set(text)") == (header, line_of(APP, "set(std::string s)"), "inferred")
        # a shared_ptr may be made from a unique_ptr, an Option* may not
        assert at("adopt(std::move(owned))") == (header, line_of(APP, "adopt(std::shared_ptr<App> app)"), "inferred")
        # a string literal converts to bool before std::string, and a template may take anything: no guess
        assert at('toggle("on")')[2] == "ambiguous"
        assert at("store(text)")[2] == "ambiguous"
        # const twins: the receiver's constness chooses; a pointer field in a non-const member is non-const
        non_const = (impl, line_of(IMPL, "Option *App::get(std::string name)"), "inferred")
        const = (impl, line_of(IMPL, "const Option *App::get(std::string name) const"), "inferred")
        assert at("parent_->get(text)") == non_const
        assert at('frozen->get("y")') == const
        assert at('open->get("z")') == non_const
        assert at('guess->get("w")')[2] == "ambiguous"  # `auto *`: its constness is not read
        assert at('Option *opt = get("x")') == non_const
        assert _callee_lines(db, "cli.App.look")[line_of(IMPL, 'get("q")')] == const
        # overloads that state one result type type the receiver; a range-for element of a field in a body
        # written outside its class
        assert at("child->run()") == (impl, line_of(IMPL, "void App::run()"), "inferred")
        walk = _callee_lines(db, "cli.App.walk")
        assert walk[line_of(IMPL, "each->add_result")] == (
            impl,
            line_of(IMPL, "add_result(std::string value)"),
            "inferred",
        )
    finally:
        svc.close()


INIT = {
    "include/err.hpp": """
        #pragma once
        #include <functional>
        #include <memory>
        #include <string>
        enum class Level { Low, High };
        class Error {
         public:
          Error(std::string name, std::string msg) {}
          Error(std::string name, std::string msg, int code) : Error(name, msg) {}
        };
        class Failure : public Error {
         public:
          Failure(std::string msg) : Error("Failure", msg), count_(1), label_{msg} {}
          int count_;
          std::string label_;
        };
        class Check {
         public:
          bool operator()(const std::string &s) const { return true; }
        };
        class Plain {};
        class Validator {
         public:
          std::string operator()(const std::string &s) const { return s; }
        };
        class Range : public Validator {
         public:
          Range(int lo, int hi) {}
        };
        namespace rules {
        const Range Small{1, 2};
        }
        class Registry {
         public:
          void on(std::string name, std::function<bool(const std::string &)> fn);
          void on(std::string name, Level level);
          void with(std::string name, std::function<bool(const std::string &)> fn);
          void with(std::string name, const Plain &plain);
          template <typename T> void keep(std::string name, T &value);
          void keep(std::string name, std::function<bool(const std::string &)> fn);
          void check(Validator v);
          void check(std::function<std::string(const std::string &)> fn);
          void run();
        };
        inline void use() {
          auto reg = std::make_shared<Registry>();
          reg->run();
          Level level = Level::Low;
          reg->on("a", level);
          Check check;
          reg->with("b", check);
          Plain plain;
          reg->with("c", plain);
          reg->check(Range(1, 5));
          reg->check(rules::Small);
        }
        """,
    # an enum the caller's file declares, which the header cannot see (another file has one of that name too)
    "src/other_mode.cpp": "enum class Mode { X, Y };\n",
    "src/mode.cpp": """
        #include "../include/err.hpp"
        enum class Mode { A, B };
        void choose(Registry &reg) {
          Mode mode = Mode::A;
          reg.keep("m", mode);
        }
        """,
}


def test_initialisers_made_objects_enums_and_functors(tmp_path: Path) -> None:
    svc = index_repo(make_repo(tmp_path, INIT, filler=False))
    try:
        db = svc.db
        text = INIT["include/err.hpp"]
        # a constructor's initialisers: the base class and, delegating, the class itself; fields are no calls
        assert [(n, p, s) for _l, n, p, s, _h in _bound(db, "Failure.Failure")] == [
            ("Error", "include/err.hpp", line_of(text, "class Error {"))
        ]
        assert [(n, s) for _l, n, _p, s, _h in _bound(db, "Error.Error")] == [("Error", line_of(text, "class Error {"))]
        use = {line: (name, start, how) for line, name, _p, start, how in _bound(db, "use")}
        # `std::make_shared<Registry>()` makes a Registry
        assert use[line_of(text, "reg->run()")] == ("run", line_of(text, "void run();"), "inferred")
        # an enum is no callable, and a class without an operator() neither; one with it may be
        assert use[line_of(text, 'reg->on("a", level)')] == ("on", line_of(text, "Level level);"), "inferred")
        assert use[line_of(text, 'reg->with("b", check)')][2] == "ambiguous"
        # a class taken as its base is a standard conversion, preferred to any std::function's: a temporary, and a
        # namespace's constant
        checks = {line: (name, start, how) for line, name, _p, start, how in _bound(db, "use") if name == "check"}
        validator = ("check", line_of(text, "void check(Validator v);"), "inferred")
        assert checks[line_of(text, "reg->check(Range(1, 5))")] == validator
        assert checks[line_of(text, "reg->check(rules::Small)")] == validator
        mode = INIT["src/mode.cpp"]
        assert [(n, p, s) for line, n, p, s, _h in _bound(db, "choose") if line == line_of(mode, "reg.keep")] == [
            ("keep", "include/err.hpp", line_of(text, "T &value);"))
        ]
        assert use[line_of(text, 'reg->with("c", plain)')] == ("with", line_of(text, "Plain &plain);"), "inferred")
    finally:
        svc.close()


def test_a_changed_parameter_type_binds_the_callers_again(tmp_path: Path) -> None:
    files = {"include/cli/App.hpp": APP, "include/cli/impl/App_inl.hpp": IMPL}
    root = make_repo(tmp_path, files, filler=False)
    svc = index_repo(root)
    try:
        before = call_edges(svc.db)
        # set(std::string) now takes a vector: the string argument fits neither overload, and the call is
        # ambiguous in the other file as after a full index (change_incrementally compares them)
        changed = APP.replace("void set(std::string s);", "void set(std::vector<std::string> s);")
        change_incrementally(svc, root, tmp_path, {"include/cli/App.hpp": changed})
        after = call_edges(svc.db)
        assert after != before
        assert (
            "cli.App.run",
            str(line_of(IMPL, "set(text)")),
            "set",
            "include/cli/App.hpp",
            "cli.App.set",
            "inferred",
        ) in before
        set_text = line_of(IMPL, "set(text)")
        assert {e for e in after if e[0] == "cli.App.run" and e[1] == str(set_text)} == {
            ("cli.App.run", str(set_text), "set", "None", "None", "ambiguous")
        }
    finally:
        svc.close()


def test_parameter_texts_and_argument_hints() -> None:
    pf = parse(
        "cpp",
        """
        template <typename T> class Box {
         public:
          bool f(const std::string &s, ns::App *a, int x = 2, T t, int (*cb)(int), char buf[], Args &&...rest) const;
          int none(void);
          int printf_like(const char *fmt, ...);
          void g() {
            f("a", 1, 2.5, this, &x, *p, s.c_str(), std::string("x"), 'c', true, nullptr, a + 1, !b, (App *)p,
              this->x, p->y, 0, 1L, static_cast<unsigned>(x), std::move(q));
          }
        };
        """,
    )
    params = {pf.symbols[f.source].name: f.text for f in pf.facts if f.name == "()p"}
    assert params == {
        "f": "(std::string,App*,int,?,?,char*,?...) const",
        "none": "()",
        "printf_like": "(char*,...)",
        "g": "()",
    }
    call = next(r for r in pf.references if r.kind == "calls" and r.name == "f")
    assert call.arguments.split(",") == [
        "char*", "int", "double", "=this", "=&x", "=*p", "?", "std::string", "char", "bool", "nullptr", "?",
        "bool", "App*", "=this.x", "=p.y", "?", "long", "unsigned", "=q",
    ]  # fmt: skip


def test_declarators_state_pointer_levels_and_constness() -> None:
    pf = parse(
        "cpp",
        """
        void f(const App *a, App *p, App &r, const App &cr) {
          const Option *o = nullptr;
          Option plain;
          for (const auto *each : items) each->run();
        }
        """,
    )
    declared = {(f.name, f.text) for f in pf.facts if f.kind == "declarator"}
    assert declared == {("a", "const*"), ("p", "*"), ("cr", "const"), ("o", "const*")}


@pytest.mark.sqlite_only
def test_a_schema_12_index_reads_its_c_and_cpp_files_again_and_binds_as_a_fresh_build(tmp_path: Path) -> None:
    files = {"include/cli/App.hpp": APP, "include/cli/impl/App_inl.hpp": IMPL, "src/util.c": "int one(void) {}\n"}

    def check(db: Database) -> None:  # what a 0.3 index holds: no C++ parameter types, argument forms, declarators
        assert db.rows("SELECT count(*) FROM facts WHERE kind = 'declarator'") == [(0,)]

    migrates_and_reads_again(tmp_path, files, undo_schema_13, check, languages=("c", "cpp"))


def test_deep_generated_arguments_are_read_without_recursing_past_the_limit() -> None:
    chain = "->".join(["b"] * 3000)
    nested = "(" * 2000 + "x" + ")" * 2000
    pf = parse("cpp", f"void m() {{ f(a->{chain}, {nested}); }}")
    assert next(r.arguments for r in pf.references if r.name == "f") == "?,?"
