"""C++ calls through a receiver bind the member its type has: parameters, locals, fields, `auto` locals by their
value, range-for elements, results of calls, aliases and the standard library's smart pointers; a member defined
outside its class sees that class's members. A C call through a struct field binds no function of that name."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from _factories import change_incrementally, index_repo, make_repo
from parse_helpers import parse

from igraph_mcp.service import IGraphService
from igraph_mcp.store.db import Database

pytestmark = pytest.mark.both_stores

REPO: dict[str, str] = {
    "include/cli/Option.hpp": """
        #pragma once
        #include <memory>
        #include <string>
        namespace cli {
        class App;
        class Option {
         public:
          Option *required(bool on = true);
          Option *each(int n) { return this; }
          App *parent_;
          std::string name_;
          void check() {
            name_.size();
            parent_->run();
            each(1);
          }
        };
        using Option_p = std::unique_ptr<Option>;
        }  // namespace cli
        """,
    "include/cli/App.hpp": """
        #pragma once
        #include <vector>
        #include "Option.hpp"
        namespace cli {
        class App;
        using App_p = std::shared_ptr<App>;
        class App {
         public:
          Option *add_option(std::string name);
          void run();
          App *subcommand(int i);
          void parse(int argc, const char *const *argv, int flags);
          void parse(std::string line, bool with_name = false);
          std::vector<App_p> subcommands_;
          std::vector<Option_p> options_;
          void each_child() {
            for (const App_p &child : subcommands_) child->run();
            for (auto &opt : options_) opt->required();
          }
        };
        }  // namespace cli
        """,
    "include/cli/impl/App_inl.hpp": """
        #pragma once
        #include "../App.hpp"
        namespace cli {
        Option *App::add_option(std::string name) {
          Option *made = new Option();
          made->required();
          return made;
        }
        void App::run() {
          auto *opt = add_option("x");
          opt->each(2);
          subcommand(0)->add_option("y");
          this->add_option("z")->required();
          subcommand(1)->run();
        }
        Option *Option::required(bool on) { return this; }
        App *App::subcommand(int i) { return this; }
        void App::parse(int argc, const char *const *argv, int flags) {}
        void App::parse(std::string line, bool with_name) {}
        }  // namespace cli
        """,
    "include/cli/Error.hpp": """
        #pragma once
        namespace cli {
        class NotFound {
         public:
          explicit NotFound(const char *name) {}
        };
        inline int clamp(int x) { return x; }
        inline int clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
        }  // namespace cli
        """,
    # the same member names on other classes: a name alone could not tell which one a call means
    "include/other/Widget.hpp": """
        #pragma once
        class Widget {
         public:
          void run() {}
          Widget *required(bool on) { return this; }
          Widget *each(int n) { return this; }
          void add_option(int n) {}
        };
        """,
    "src/main.cpp": """
        #include "cli/App.hpp"
        #include "cli/Error.hpp"
        #include "other/Widget.hpp"
        int checked(int n) {
          if (n < 0) throw cli::NotFound("n");
          return cli::clamp(n, 0, 9) + clamp(n);
        }
        template <typename Handler>
        void dispatch(Handler &handler, cli::App &app) {
          handler.run();  // whatever Handler stands for: not known here, not the library's either
          handler.reset();  // a member of it, never the free function of that name
          app.run();
        }
        void reset() {}
        void run_all(cli::App &app, const cli::App_p &shared, Widget *widget) {
          app.add_option("--x")->required();
          shared->run();
          widget->run();
          auto found = app.add_option("y");
          found->each(3);
          std::string text;
          text.size();
          auto made = std::make_shared<cli::App>();
          auto each = [](int n) { return n; };
          each(4);
          app.parse(1, nullptr, 0);
          app.parse("--x=1", true);
        }
        """,
    "c/timer.c": """
        struct handle { void (*timer_cb)(void); };
        void timer_cb(void) {}
        void fire(struct handle *h) {
          h->timer_cb();
          timer_cb();
        }
        """,
}


def _calls(db: Database, caller: str) -> list[tuple[int, str, str, str, str]]:
    """(line, callee name, target path, target qualified name, resolution) of ``caller``'s calls, in line order."""
    rows = db.rows(
        "SELECT e.line, e.target_name, ft.path, t.qualified_name, e.resolution FROM edges e "
        "JOIN nodes s ON s.id = e.source_id LEFT JOIN nodes t ON t.id = e.target_id "
        "LEFT JOIN files ft ON ft.id = t.file_id WHERE e.kind = 'calls' AND s.qualified_name = ? "
        "ORDER BY e.line, e.target_name",
        (caller,),
    )
    return [(int(r[0]), str(r[1]), str(r[2] or ""), str(r[3] or ""), str(r[4])) for r in rows]


def _targets(db: Database, caller: str) -> list[tuple[str, str]]:
    """(callee name, target qualified name or the resolution where nothing is bound) of ``caller``'s calls."""
    return [(name, target or resolution) for _line, name, _path, target, resolution in _calls(db, caller)]


def test_parameters_locals_fields_and_results_type_the_receiver(tmp_path: Path) -> None:
    svc = index_repo(make_repo(tmp_path, REPO, filler=False))
    try:
        db = svc.db
        assert _targets(db, "run_all") == [
            ("add_option", "cli.App.add_option"),  # a reference parameter through a namespace
            ("required", "cli.Option.required"),  # the result the member declares, then its body outside the class
            ("run", "cli.App.run"),  # an alias of std::shared_ptr<App>
            ("run", "Widget.run"),  # a pointer parameter of another class
            ("add_option", "cli.App.add_option"),
            ("each", "cli.Option.each"),  # `auto found = app.add_option(...)`
            ("size", "external"),  # std::string is the library's
            ("make_shared", "external"),  # std::make_shared too
            ("each", "unresolved"),  # a local lambda hides every member called each
            ("parse", "cli.App.parse"),  # of two overloads, the one its three arguments fit
            ("parse", "cli.App.parse"),  # and the one two fit (a default counted)
        ]
        # each overload's body outside the class: the one with as many parameters as the declaration chosen
        impl = textwrap.dedent(REPO["include/cli/impl/App_inl.hpp"]).lstrip("\n").splitlines()
        three, two = (next(i for i, line in enumerate(impl, 1) if end in line) for end in ("flags)", "with_name)"))
        bound = db.rows(
            "SELECT f.path, t.start_line FROM edges e JOIN nodes s ON s.id = e.source_id "
            "JOIN nodes t ON t.id = e.target_id JOIN files f ON f.id = t.file_id "
            "WHERE s.qualified_name = 'run_all' AND e.target_name = 'parse' ORDER BY e.line"
        )
        assert [(str(r[0]), int(r[1])) for r in bound] == [
            ("include/cli/impl/App_inl.hpp", three),
            ("include/cli/impl/App_inl.hpp", two),
        ]
        # constructing a class binds the class; of two visible overloads, the one the argument count fits
        assert _targets(db, "checked") == [("NotFound", "cli.NotFound"), ("clamp", "cli.clamp"), ("clamp", "cli.clamp")]
        clamps = db.rows(
            "SELECT t.max_args FROM edges e JOIN nodes s ON s.id = e.source_id JOIN nodes t ON t.id = e.target_id "
            "WHERE s.qualified_name = 'checked' AND e.target_name = 'clamp' ORDER BY e.line, e.id"
        )
        assert [int(r[0]) for r in clamps] == [3, 1]
        assert _targets(db, "dispatch") == [("run", "ambiguous"), ("reset", "unresolved"), ("run", "cli.App.run")]
        # the body outside its class sees the class: a bare call is its member, `auto *` from its result
        assert _targets(db, "cli.App.run") == [
            ("add_option", "cli.App.add_option"),
            ("each", "cli.Option.each"),
            ("add_option", "cli.App.add_option"),
            ("subcommand", "cli.App.subcommand"),
            ("add_option", "cli.App.add_option"),
            ("required", "cli.Option.required"),
            ("run", "cli.App.run"),  # recursive, on another App
            ("subcommand", "cli.App.subcommand"),
        ]
        # the definitions bound are the bodies in the implementation file, not the declarations in the class
        bodies = {(name, path) for _line, name, path, _t, _r in _calls(db, "cli.App.run")}
        assert ("add_option", "include/cli/impl/App_inl.hpp") in bodies
        assert ("subcommand", "include/cli/impl/App_inl.hpp") in bodies
        assert ("run", "include/cli/impl/App_inl.hpp") in bodies
        # fields, a field through its class, range-for elements of containers of aliases
        assert _targets(db, "cli.Option.check") == [
            ("size", "external"),
            ("run", "cli.App.run"),
            ("each", "cli.Option.each"),
        ]
        assert _targets(db, "cli.App.each_child") == [("run", "cli.App.run"), ("required", "cli.Option.required")]
        assert _targets(db, "cli.App.add_option") == [("Option", "cli.Option"), ("required", "cli.Option.required")]
        # C: a call through a struct field is the function pointer it holds, not the function of that name
        assert _targets(db, "fire") == [("timer_cb", "unresolved"), ("timer_cb", "timer_cb")]
    finally:
        svc.close()


def test_a_changed_field_type_binds_again_as_a_full_index_would(tmp_path: Path) -> None:
    root = make_repo(tmp_path, REPO, filler=False)
    svc: IGraphService = index_repo(root)
    try:
        before = _targets(svc.db, "cli.Option.check")
        assert ("run", "cli.App.run") in before
        # the field now holds a Widget: the call in the class's other member binds Widget's run
        option = REPO["include/cli/Option.hpp"]
        changed = option.replace("App *parent_;", "Widget *parent_;").replace(
            "#include <string>", '#include <string>\n#include "../other/Widget.hpp"'
        )
        change_incrementally(svc, root, tmp_path, {"include/cli/Option.hpp": changed})
        assert ("run", "Widget.run") in _targets(svc.db, "cli.Option.check")
    finally:
        svc.close()


def test_receiver_facts_read_through_pointers_references_and_auto() -> None:
    pf = parse(
        "cpp",
        """
        Widget *make(const ns::Widget &w, Widget *p, std::unique_ptr<Widget> u) {
          auto *a = p->child()->next();
          ns::Widget local, *other = &local;
          for (auto &item : items) item.run();
          return p;
        }
        using WidgetRef = std::shared_ptr<Widget>;
        """,
    )
    facts = {(f.name, f.kind, f.text) for f in pf.facts}
    assert {
        ("()", "type", "Widget"),
        ("w", "type", "ns::Widget"),
        ("p", "type", "Widget"),
        ("u", "type", "std::unique_ptr<Widget>"),
        ("a", "value", "p.child().next()"),  # `->` reads `.`, arguments `()`
        ("local", "type", "ns::Widget"),
        ("other", "type", "ns::Widget"),
        ("item", "element", "items"),
        ("()", "type", "std::shared_ptr<Widget>"),  # the alias's "()": the type it stands for
    } <= facts


def test_a_declaration_behind_a_macro_is_no_call_of_itself() -> None:
    pf = parse(
        "cpp",
        """
        class Counter {
            API_NODISCARD std::size_t count() const;
            API_NODISCARD std::string label() const { return make_label(); }
        };
        """,
    )
    assert {s.qualified_name for s in pf.symbols} >= {"Counter.count", "Counter.label"}
    calls = sorted(r.name for r in pf.references if r.kind == "calls")
    assert calls == ["make_label"]


def test_overloads_count_defaults_varargs_and_void() -> None:
    pf = parse(
        "cpp",
        """
        class App {
         public:
          void parse(int argc, const char *const *argv);
          void parse(std::string line, bool with_name = false);
          int none(void);
          int format(const char *fmt, ...);
        };
        void App::parse(int argc, const char *const *argv) { parse(std::string("x")); }
        """,
    )
    ranges = sorted((s.qualified_name, s.min_args, s.max_args) for s in pf.symbols if s.kind == "method")
    assert ranges == [
        ("App.format", 1, -1),
        ("App.none", 0, 0),
        ("App.parse", 1, 2),
        ("App.parse", 2, 2),
        ("App.parse", 2, 2),
    ]
    assert [(r.name, r.arity) for r in pf.references if r.kind == "calls"] == [("parse", 1), ("string", 1)]


def test_template_members_declared_with_pointer_or_reference_results_are_definitions() -> None:
    pf = parse(
        "cpp",
        """
        class App {
         public:
          template <typename... Args> App *add(Args &&...args);
          template <typename T> const T &get(int i) const;
          template <typename T> T value() const;
        };
        """,
    )
    members = {(s.qualified_name, s.declaration, s.min_args, s.max_args) for s in pf.symbols if s.kind == "method"}
    assert members == {("App.add", True, 0, -1), ("App.get", True, 1, 1), ("App.value", True, 0, 0)}
    assert ("()", "type", "App") in {(f.name, f.kind, f.text) for f in pf.facts if pf.symbols[f.source].name == "add"}
