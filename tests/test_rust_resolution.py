"""Rust calls bound as rustc binds them: `self.f()` and `Self::f()` to the impl's type, receivers typed by
parameters, `let`s, fields and results (aliases keep their own impls), `Type::f()` through the module written
before it, other crates of a workspace by their Cargo.toml names, `use` trees at any depth; where a name is bound
twice in one function, or a path starts at a crate outside the tree, nothing is guessed."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import (
    change_incrementally,
    index_repo,
    line_of,
    make_repo,
    migrates_and_reads_again,
    undo_schema_14,
    undo_schema_15,
)
from parse_helpers import parse

from igraph_mcp.index.rust_crates import library_root, module_folder, read_rust_crates
from igraph_mcp.store.db import Database

pytestmark = pytest.mark.both_stores

ALPHA_CARGO = """
    [package]
    name = "alpha-core"
    version = "0.1.0"
    """
LIB = """
    pub mod dfa;
    pub mod parse;
    pub mod prefilter;
    pub mod runner;

    pub fn run() -> u32 {
        let own = self::helper();
        parse::Parser::new().step() + own + crate::helper()
    }

    fn helper() -> u32 {
        std::mem::size_of::<u32>() as u32
    }
    """
PARSE = """
    pub struct Parser {
        depth: u32,
    }

    impl Parser {
        pub fn new() -> Self {
            Parser { depth: 0 }
        }
        pub fn step(&self) -> u32 {
            self.depth()
        }
        fn depth(&self) -> u32 {
            Self::base()
        }
        fn base() -> u32 {
            1
        }
    }

    pub struct Decoy;

    impl Decoy {
        pub fn new() -> Self {
            Decoy
        }
        pub fn step(&self) -> u32 {
            2
        }
        fn depth(&self) -> u32 {
            3
        }
        fn base() -> u32 {
            4
        }
    }
    """
DFA_MOD = """
    pub mod dense;
    pub mod sparse;
    """
DENSE = """
    pub struct Dfa<T> {
        table: T,
    }

    pub type OwnedDfa = Dfa<Vec<u32>>;

    impl<T> Dfa<T> {
        pub fn stride(&self) -> usize {
            1
        }
    }

    impl OwnedDfa {
        pub fn set(&mut self) {
            self.stride();
        }
        pub fn grow(&mut self) {
            self.set();
        }
    }
    """
SPARSE = """
    pub struct Dfa {
        n: usize,
    }

    impl Dfa {
        pub fn stride(&self) -> usize {
            2
        }
        pub fn set(&mut self) {}
    }
    """
RUNNER = """
    use crate::{
        dfa::{dense, sparse::Dfa as SparseDfa},
        parse::{Decoy, Parser},
    };

    pub trait Log {}
    impl<T> Log for &T {}

    pub struct Runner<'a> {
        dfa: &'a mut dense::OwnedDfa,
        parser: Parser,
    }

    impl<'a> Runner<'a> {
        pub fn go(&mut self, other: &SparseDfa) -> usize {
            self.dfa.set();
            self.parser.step();
            let fresh = Parser::new();
            fresh.step();
            other.stride()
        }
        pub fn shadowed(&self, items: Vec<Decoy>) {
            if let Some(e) = items.first() {
                e.step();
            }
            let e = Parser::new();
            e.step();
        }
        pub fn unknown<D>(&self, dfa: D) {
            dfa.stride();
        }
    }
    """
PREFILTER_MOD = """
    pub mod aho_corasick;
    """
AHO = """
    pub struct AhoCorasick;

    impl AhoCorasick {
        pub fn new() -> Self {
            AhoCorasick
        }
        pub fn find(&self) {}
    }

    pub fn build() {
        let ac = aho_corasick::AhoCorasick::new();
        ac.find();
    }
    """
BETA_CARGO = """
    [package]
    name = "beta"
    version = "0.1.0"
    """
BETA_LIB = """
    mod parse;
    use alpha_core::parse::Parser;

    pub fn start() -> u32 {
        let p = Parser::new();
        p.step() + alpha_core::run()
    }
    """
BETA_PARSE = """
    pub struct Parser;

    impl Parser {
        pub fn new() -> Self {
            Parser
        }
        pub fn step(&self) -> u32 {
            0
        }
    }
    """
ALPHA_TEST = """
    use alpha_core::parse::Parser;

    #[test]
    fn steps() {
        Parser::new().step();
        alpha_core::run();
    }
    """
FILES = {
    "alpha/Cargo.toml": ALPHA_CARGO,
    "alpha/src/lib.rs": LIB,
    "alpha/src/parse.rs": PARSE,
    "alpha/src/dfa/mod.rs": DFA_MOD,
    "alpha/src/dfa/dense.rs": DENSE,
    "alpha/src/dfa/sparse.rs": SPARSE,
    "alpha/src/runner.rs": RUNNER,
    "alpha/src/prefilter/mod.rs": PREFILTER_MOD,
    "alpha/src/prefilter/aho_corasick.rs": AHO,
    "alpha/tests/steps.rs": ALPHA_TEST,
    "beta/Cargo.toml": BETA_CARGO,
    "beta/src/lib.rs": BETA_LIB,
    "beta/src/parse.rs": BETA_PARSE,
}


def _calls(db: Database, caller: str, path: str) -> dict[tuple[int, str], tuple[str, str, str]]:
    """(line, callee name) -> (target path, target qualified name, resolution) of ``caller``'s calls in ``path``."""
    rows = db.rows(
        "SELECT e.line, e.target_name, ft.path, t.qualified_name, e.resolution FROM edges e "
        "JOIN nodes s ON s.id = e.source_id JOIN files fs ON fs.id = s.file_id "
        "LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files ft ON ft.id = t.file_id "
        "WHERE e.kind = 'calls' AND s.qualified_name = ? AND fs.path = ?",
        (caller, path),
    )
    return {(int(r[0]), str(r[1])): (str(r[2] or ""), str(r[3] or ""), str(r[4])) for r in rows}


def test_calls_bind_as_rustc_binds_them(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES, filler=False)
    svc = index_repo(root)
    try:
        db = svc.db
        parse_rs, dense_rs, sparse_rs = "alpha/src/parse.rs", "alpha/src/dfa/dense.rs", "alpha/src/dfa/sparse.rs"
        # self.f() and Self::f(): the impl's own type, not the decoy's methods of the same names
        assert _calls(db, "Parser.step", parse_rs)[(line_of(PARSE, "self.depth()"), "depth")] == (
            parse_rs,
            "Parser.depth",
            "inferred",
        )
        assert _calls(db, "Parser.depth", parse_rs)[(line_of(PARSE, "Self::base()"), "base")][:2] == (
            parse_rs,
            "Parser.base",
        )
        # an alias's impl sees its own methods and those of the type it stands for
        grow = _calls(db, "OwnedDfa.grow", dense_rs)
        assert grow[(line_of(DENSE, "self.set()"), "set")] == (dense_rs, "OwnedDfa.set", "inferred")
        assert _calls(db, "OwnedDfa.set", dense_rs)[(line_of(DENSE, "self.stride()"), "stride")] == (
            dense_rs,
            "Dfa.stride",
            "inferred",
        )
        go = _calls(db, "Runner.go", "alpha/src/runner.rs")
        # a field `dense::OwnedDfa` through the module the `use` tree names; sparse's Dfa has a set() too
        assert go[(line_of(RUNNER, "self.dfa.set()"), "set")] == (dense_rs, "OwnedDfa.set", "inferred")
        assert go[(line_of(RUNNER, "self.parser.step()"), "step")] == (parse_rs, "Parser.step", "inferred")
        # a `let` by its value `Parser::new()`, a parameter by its type `&SparseDfa` (an alias in a nested use)
        assert go[(line_of(RUNNER, "fresh.step()"), "step")] == (parse_rs, "Parser.step", "inferred")
        assert go[(line_of(RUNNER, "other.stride()"), "stride")] == (sparse_rs, "Dfa.stride", "inferred")
        # `e` is bound twice in one function: neither use is guessed
        shadowed = _calls(db, "Runner.shadowed", "alpha/src/runner.rs")
        assert shadowed[(line_of(RUNNER, "e.step()", 1), "step")][2] != "inferred"
        assert shadowed[(line_of(RUNNER, "e.step()", 2), "step")][2] != "inferred"
        assert {target for (_line, name), (target, _qn, _res) in shadowed.items() if name == "step"} == {""}
        # `dfa.stride()` on a value of unknown type: a method of some type, never the module dfa's
        unknown = _calls(db, "Runner.unknown", "alpha/src/runner.rs")[(line_of(RUNNER, "dfa.stride()"), "stride")]
        assert unknown[0] == "" and unknown[2] == "ambiguous"
        # a path from a crate outside the tree is that crate's, not the module of the same name here
        build = _calls(db, "build", "alpha/src/prefilter/aho_corasick.rs")
        assert build[(line_of(AHO, "AhoCorasick::new()"), "new")] == ("", "", "external")
        assert build[(line_of(AHO, "ac.find()"), "find")] == ("", "", "external")
        # another crate of the workspace by its name (`alpha-core` is `alpha_core`), not the crate's own Parser
        start = _calls(db, "start", "beta/src/lib.rs")
        assert start[(line_of(BETA_LIB, "Parser::new()"), "new")][:2] == (parse_rs, "Parser.new")
        assert start[(line_of(BETA_LIB, "p.step()"), "step")] == (parse_rs, "Parser.step", "inferred")
        assert start[(line_of(BETA_LIB, "alpha_core::run()"), "run")][:2] == ("alpha/src/lib.rs", "run")
        # `self::f()` and `crate::f()` are the module's function; `std::mem::size_of` the standard library's
        run = _calls(db, "run", "alpha/src/lib.rs")
        assert run[(line_of(LIB, "self::helper()"), "helper")] == ("alpha/src/lib.rs", "helper", "import")
        assert run[(line_of(LIB, "crate::helper()"), "helper")] == ("alpha/src/lib.rs", "helper", "import")
        size_of = _calls(db, "helper", "alpha/src/lib.rs")[(line_of(LIB, "size_of"), "size_of")]
        assert size_of == ("", "", "external")
        # a package's integration test uses its own library by name
        steps = _calls(db, "steps", "alpha/tests/steps.rs")
        assert steps[(line_of(ALPHA_TEST, "Parser::new().step()"), "step")][:2] == (parse_rs, "Parser.step")
        assert steps[(line_of(ALPHA_TEST, "alpha_core::run()"), "run")][:2] == ("alpha/src/lib.rs", "run")
        # `impl<T> Log for &T` makes no "module implements Log" edge
        implementers = db.rows(
            "SELECT s.kind FROM edges e JOIN nodes s ON s.id = e.source_id WHERE e.kind = 'implements' "
            "AND e.target_name = 'Log'"
        )
        assert implementers == []
    finally:
        svc.close()


def test_a_renamed_crate_binds_its_users_again(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES, filler=False)
    svc = index_repo(root)
    try:
        before = _calls(svc.db, "start", "beta/src/lib.rs")[(line_of(BETA_LIB, "alpha_core::run()"), "run")]
        assert before == ("alpha/src/lib.rs", "run", "import")
        # the manifest now names the library `alpha`: `alpha_core::run()` names a crate outside the tree; an
        # incremental run binds as a full one
        change_incrementally(svc, root, tmp_path, {"alpha/Cargo.toml": ALPHA_CARGO.replace("alpha-core", "alpha")})
        after = _calls(svc.db, "start", "beta/src/lib.rs")[(line_of(BETA_LIB, "alpha_core::run()"), "run")]
        assert after == ("", "", "external")
    finally:
        svc.close()


@pytest.mark.sqlite_only
def test_an_older_index_reads_its_rust_files_again(tmp_path: Path) -> None:
    def built(db: Database) -> None:  # the facts schema 14 brings: `go`'s parameter and `let`
        facts = db.rows("SELECT f.name FROM facts f JOIN nodes n ON n.id = f.node_id WHERE n.name = 'go'")
        assert {"other", "fresh"} <= {str(r[0]) for r in facts}

    sources = {path: text for path, text in FILES.items() if path.endswith(".rs")}
    migrates_and_reads_again(tmp_path, sources, undo_schema_14, built=built, languages=("rust",))


def test_use_trees_at_any_depth() -> None:
    pf = parse(
        "rust",
        """
        use crate::{dfa::{accel::Accel, determinize, sparse::Dfa as SparseDfa}, util::{wire::*, alphabet::{self}}};
        use regex_syntax::hir;
        use std::io as stdio;
        fn f() { use super::g; }
        """,
    )
    assert [(i.module, i.name, i.alias) for i in pf.imports] == [
        ("crate::dfa::accel", "Accel", ""),
        ("crate::dfa", "determinize", ""),
        ("crate::dfa::sparse", "Dfa", "SparseDfa"),
        ("crate::util::wire", "*", ""),
        ("crate::util::alphabet", "", ""),
        ("regex_syntax", "hir", ""),
        ("std", "io", "stdio"),
        ("super", "g", ""),
    ]


def test_crate_manifests_and_module_paths(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["core", "cli"]\n',
            "core/Cargo.toml": '[package]\nname = "my-core"\n\n[lib]\nname = "engine"\npath = "lib/engine.rs"\n',
            "core/lib/engine.rs": "pub fn go() {}\n",
            "cli/Cargo.toml": '[package]\nname = "my-cli"\n',
            "cli/src/main.rs": "fn main() {}\n",
            "broken/Cargo.toml": "[package\nname = ",
            "broken/src/lib.rs": "pub fn b() {}\n",
        },
        filler=False,
    )
    rust_files = ["core/lib/engine.rs", "cli/src/main.rs", "broken/src/lib.rs"]
    # `[lib] name` wins over the package's name; a binary-only package and an unreadable manifest name no crate
    assert read_rust_crates(root, rust_files) == {"engine": "core/lib"}
    assert library_root("", {"package": {"name": "a-b"}}, lambda _p: True) == ("a_b", "src")
    assert library_root("", {"workspace": {}}, lambda _p: True) is None
    crates = {"engine": "core/lib"}
    # self and super from a module file and from a mod.rs; crate from inside a crate's library
    assert module_folder("core/lib/x/y.rs", crates, ["self", "z"]) == "core/lib/x/y/z"
    assert module_folder("core/lib/x/y.rs", crates, ["super", "z"]) == "core/lib/x/z"
    assert module_folder("core/lib/x/mod.rs", crates, ["super", "z"]) == "core/lib/z"
    assert module_folder("core/lib/x/y.rs", crates, ["crate", "a", "b"]) == "core/lib/a/b"
    assert module_folder("cli/src/main.rs", crates, ["engine", "go"]) == "core/lib/go"
    assert module_folder("cli/src/main.rs", crates, ["serde", "de"]) is None


def test_calls_among_a_macros_tokens() -> None:
    pf = parse(
        "rust",
        """
        #[cfg(not(windows))]
        fn f(&self) {
            assert!(prev.map_or(true, |p| self.tt.next_state_id(p) == id));
            let v = vec![DEAD; self.dfa.state_len()];
            debug!("{} {}", crate::util::f(x), self.0.end());
            assert_eq!(self.char(), 'x');
            if cfg!(any(unix, windows)) {}
        }
        macro_rules! ids {
            ($name:ident) => {
                impl $name {
                    pub fn new_unchecked(v: usize) -> $name {
                        $name(SmallIndex::new(v))
                    }
                }
            };
        }
        """,
    )
    calls = {(r.name, r.qualifier) for r in pf.references if r.kind == "calls"}
    assert {
        ("map_or", "prev"),
        ("next_state_id", "self.tt"),
        ("state_len", "self.dfa"),
        ("f", "crate::util"),
        ("end", "self.0"),
        ("char", "self"),
        ("new", "SmallIndex"),
    } <= calls
    # an attribute's and cfg!'s predicates and a function the macro writes are no calls
    assert not {name for name, _q in calls} & {"not", "any", "new_unchecked"}


FLOW = """
    pub struct Hit {
        pub at: usize,
    }

    impl Hit {
        pub fn offset(&self) -> usize {
            self.at
        }
    }

    pub struct Miss;

    impl Miss {
        pub fn offset(&self) -> usize {
            0
        }
        pub fn write_u32(n: u32) {}
        pub fn find(&self) {}
    }

    pub struct Finder {
        pub kept: Vec<Hit>,
    }

    impl Finder {
        pub fn find(&self) -> Option<Hit> {
            None
        }
        pub fn try_find(&self) -> Result<Hit, String> {
            Err(String::new())
        }
        pub fn hits(&self) -> Vec<Hit> {
            Vec::new()
        }
    }

    pub struct Wrap(pub Finder);

    pub trait Endian {
        fn write_u32(n: u32);
    }

    pub fn flow<E: Endian>(f: &Finder, w: &Wrap) -> Result<usize, String> {
        if let Some(found) = f.find() {
            found.offset();
        }
        let tried = f.try_find()?;
        tried.offset();
        for each in f.hits() {
            each.offset();
        }
        f.kept.iter().filter(|k| k.at > 0).for_each(|kept| {
            kept.offset();
        });
        w.0.find();
        E::write_u32(1);
        Ok(0)
    }
    """


def test_values_a_result_an_element_a_bound_and_a_tuple_field_hold(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"src/lib.rs": FLOW}, filler=False)
    svc = index_repo(root)
    try:
        flow = _calls(svc.db, "flow", "src/lib.rs")

        def at(needle: str, name: str) -> tuple[str, str]:
            target, qualified, _how = flow[(line_of(FLOW, needle), name)]
            return target, qualified

        assert at("found.offset()", "offset") == ("src/lib.rs", "Hit.offset")  # `if let Some(found) = f.find()`
        assert at("tried.offset()", "offset") == ("src/lib.rs", "Hit.offset")  # `f.try_find()?`
        assert at("each.offset()", "offset") == ("src/lib.rs", "Hit.offset")  # `for each in f.hits()`: a Vec<Hit>
        assert at("kept.offset()", "offset") == ("src/lib.rs", "Hit.offset")  # an adaptor's closure over kept
        assert at("w.0.find()", "find") == ("src/lib.rs", "Finder.find")  # the tuple struct's field 0
        assert at("E::write_u32(1)", "write_u32") == ("src/lib.rs", "Endian.write_u32")  # the bound's method
    finally:
        svc.close()


REF_IMPL_FILES = {
    "src/lib.rs": """
        pub mod pattern;
        pub struct Regex;
        pub trait Pattern {
            fn find(self) -> usize;
        }
        pub fn first(re: &Regex) -> usize {
            re.find()
        }
        """,
    "src/pattern.rs": """
        use crate::{Pattern, Regex};
        impl<'r> Pattern for &'r Regex {
            fn find(self) -> usize {
                0
            }
        }
        """,
}


@pytest.mark.sqlite_only
def test_an_older_index_reads_its_reference_impls_again(tmp_path: Path) -> None:
    def built(db: Database) -> None:  # the method of `impl Pattern for &'r Regex` is Regex's, and a call binds it
        names = {str(r[0]) for r in db.rows("SELECT qualified_name FROM nodes WHERE name = 'find'")}
        assert names == {"Pattern.find", "Regex.find"}
        find = _calls(db, "first", "src/lib.rs")[(line_of(REF_IMPL_FILES["src/lib.rs"], "re.find()"), "find")]
        assert find[:2] == ("src/pattern.rs", "Regex.find")

    def check(db: Database) -> None:  # schema 15 marks the Rust files to be read again, nothing else
        assert db.rows("SELECT DISTINCT sha256 FROM files WHERE language = 'rust'") == [("",)]

    migrates_and_reads_again(tmp_path, REF_IMPL_FILES, undo_schema_15, check, built, languages=("rust",))
