"""Rust query: items, impl-qualified methods, calls, use/extern/mod imports, traits, docs, lines."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
use std::collections::HashMap;
use crate::shapes::{Circle, Square as Sq};
use std::io::*;
use serde;
extern crate log as logging;
mod geometry;

/// A point in space.
/// Second line.
#[derive(Debug, Clone)]
pub struct Point {
    x: i32,
}

pub enum Shape {
    Round,
}

/// Things that can be drawn.
pub trait Draw: Debug + fmt::Display {
    fn draw(&self) -> String;
}

pub type Grid = Vec<Point>;

pub const MAX_SIZE: usize = 10;
static COUNTER: i32 = 0;

impl Point {
    /// Makes a point.
    pub fn new(x: i32) -> Self {
        let p = Point { x };
        p.validate();
        helper::check(x);
        Self::log(x);
        p
    }

    fn validate(&self) {}
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.x)
    }
}

impl<T> Draw for Wrapper<T> {
    fn draw(&self) -> String {
        String::new()
    }
}

pub mod outer {
    pub mod inner {
        pub fn deep() {}
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

fn area(p: Point) -> Shape {
    let m: HashMap<i32, i32> = HashMap::new();
    let v = vec![1, 2].iter().map(|x| x + 1).collect::<Vec<_>>();
    outer::inner::deep();
    Shape::Round
}
"""


@pytest.fixture(scope="module")
def pf():
    return parse("rust", CODE)


def test_parses_without_errors(pf) -> None:
    assert not pf.has_error
    assert pf.symbols[0].kind == "module"
    assert pf.symbols[0].end_line == 71


def test_definition_kinds(pf) -> None:
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds["Point"] == "struct"
    assert kinds["Shape"] == "enum"
    assert kinds["Draw"] == "trait"
    assert kinds["Draw.draw"] == "method"  # a bodiless trait signature is still a definition
    assert kinds["Grid"] == "type"
    assert kinds["MAX_SIZE"] == "constant"
    assert kinds["COUNTER"] == "constant"
    assert kinds["outer"] == "namespace"
    assert kinds["outer.inner.deep"] == "function"  # a module is not class-like
    assert kinds["square"] == "function"  # macro_rules!
    assert kinds["area"] == "function"


def test_locals_are_not_constants() -> None:
    pf = parse("rust", "fn f() {\n    const LOCAL: i32 = 1;\n}\n")
    assert [s.qualified_name for s in pf.symbols[1:]] == ["f"]


def test_impl_blocks_qualify_methods(pf) -> None:
    names = by_qname(pf)
    assert names["Point.new"].kind == "method"
    assert names["Point.validate"].kind == "method"
    assert names["Point.fmt"].kind == "method"  # `impl fmt::Display for Point`
    assert names["Wrapper.draw"].kind == "method"  # generic self type `Wrapper<T>`
    assert "new" not in names


def test_impls_for_references_and_primitives_qualify_methods() -> None:
    code = """\
pub struct Regex;
impl<'r> Pattern for &'r Regex {
    fn find(self) {}
}
impl<'a> Replacer for &'a mut Cache<u8> {
    fn replace(&mut self) {}
}
impl<'a> Replacer for &'a std::borrow::Cow<'a, str> {
    fn append(&mut self) {}
}
impl Int for u32 {
    fn as_usize(self) -> usize { self as usize }
}
impl<'a> Replacer for &'a str {
    fn no_expansion(&mut self) {}
}
impl<'a> Replacer for &'a [u8] {
    fn from_slice(&mut self) {}
}
"""
    pf = parse("rust", code)
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds["Regex.find"] == "method"  # through the reference, the type's own name
    assert kinds["Cache.replace"] == "method"
    assert kinds["Cow.append"] == "method"
    assert kinds["u32.as_usize"] == "method"
    assert kinds["str.no_expansion"] == "method"
    # A slice is no name to qualify by: its methods stay free functions.
    assert kinds["from_slice"] == "function"
    assert {"find", "replace", "append", "as_usize", "no_expansion"}.isdisjoint(kinds)
    # The type is defined here, so it is the one implementing the trait, not the module.
    assert source_of(pf, ref_named(pf, "implements", "Pattern")) == "Regex"


def test_nested_modules(pf) -> None:
    names = by_qname(pf)
    deep = names["outer.inner.deep"]
    assert pf.symbols[deep.parent].qualified_name == "outer.inner"
    assert pf.symbols[names["outer.inner"].parent].qualified_name == "outer"


def test_lines(pf) -> None:
    names = by_qname(pf)
    assert (names["Point"].start_line, names["Point"].end_line) == (11, 13)
    assert (names["Point.new"].start_line, names["Point.new"].end_line) == (31, 37)
    assert (names["outer"].start_line, names["outer"].end_line) == (54, 58)
    assert names["MAX_SIZE"].start_line == names["MAX_SIZE"].end_line == 26


def test_signatures(pf) -> None:
    names = by_qname(pf)
    assert names["Point.new"].signature == "pub fn new(x: i32) -> Self"
    assert names["Draw"].signature == "pub trait Draw: Debug + fmt::Display"
    assert names["Draw.draw"].signature == "fn draw(&self) -> String;"
    assert names["MAX_SIZE"].signature == "pub const MAX_SIZE: usize = 10;"
    assert names["Point.fmt"].signature == "fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result"


def test_doc_comments(pf) -> None:
    names = by_qname(pf)
    assert names["Point"].docstring == "A point in space.\nSecond line."  # across #[derive]
    assert names["Draw"].docstring == "Things that can be drawn."
    assert names["Point.new"].docstring == "Makes a point."
    assert names["Shape"].docstring == ""


def test_exported_follows_pub(pf) -> None:
    names = by_qname(pf)
    assert names["Point"].exported
    assert names["Point.new"].exported
    assert names["outer.inner.deep"].exported
    assert not names["COUNTER"].exported
    assert not names["Point.validate"].exported
    assert not names["area"].exported


def test_calls_with_qualifiers(pf) -> None:
    calls = refs(pf, "calls")
    assert {
        ("p", "validate"),
        ("helper", "check"),
        ("Self", "log"),
        ("", "Point"),  # struct literal `Point { x }`
        ("HashMap", "new"),
        ("outer::inner", "deep"),
        ("", "vec"),  # macro invocation
        ("", "write"),
    } <= calls
    assert any(name == "collect" for _, name in calls)  # turbofish `collect::<Vec<_>>()`
    validate = ref_named(pf, "calls", "validate")
    assert source_of(pf, validate) == "Point.new"
    assert validate.line == 33
    assert source_of(pf, ref_named(pf, "calls", "deep")) == "area"


def test_impl_trait_for_type_implements(pf) -> None:
    implements = refs(pf, "implements")
    assert implements == {("fmt", "Display"), ("", "Draw")}
    display = ref_named(pf, "implements", "Display")
    assert source_of(pf, display) == "Point"  # the struct defined in this file
    assert display.line == 42
    # Wrapper is not defined in this file, so its impl stays attached to the module.
    assert ref_named(pf, "implements", "Draw").source == 0


def test_supertraits_inherit(pf) -> None:
    assert refs(pf, "inherits") == {("", "Debug"), ("fmt", "Display")}
    assert source_of(pf, ref_named(pf, "inherits", "Debug")) == "Draw"


def test_type_references(pf) -> None:
    types = refs(pf, "references")
    assert {("", "Point"), ("", "Shape")} <= types
    assert ("", "Self") not in types


def test_imports(pf) -> None:
    assert imports(pf) == {
        ("std::collections", "HashMap", ""),
        ("crate::shapes", "Circle", ""),
        ("crate::shapes", "Square", "Sq"),
        ("std::io", "*", ""),
        ("serde", "", ""),
        ("log", "", "logging"),
        ("geometry", "", ""),  # `mod geometry;` loads geometry.rs
    }
    assert [i.line for i in pf.imports] == [1, 2, 2, 3, 4, 5, 6]


def test_broken_code_keeps_what_parsed() -> None:
    pf = parse("rust", "pub struct Ok1 { a: i32 }\nfn broken( {\n")
    assert pf.has_error
    assert "Ok1" in by_qname(pf)
