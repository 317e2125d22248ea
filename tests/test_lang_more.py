"""Languages added in one row and one query file each: definitions, qualified names, calls and imports."""

from __future__ import annotations

import pytest
from parse_helpers import imports, parse, refs

from igraph_mcp.index.model import ParsedFile

SOURCES = {
    "bash": """\
source ./lib.sh
. /etc/profile
greet() { echo "$1"; helper 1; }
function helper { local x=1; }
greet world
""",
    "clojure": """\
(ns geo.shape
  (:require [clojure.string :as str]
            [geo.util :refer [helper]])
  (:import (java.util Date)))
(defn area [s] (helper (str/join s)))
(defn- secret [x] x)
(defmacro mac [x] x)
(defprotocol Drawable (draw [this]))
(defrecord Point [x y])
(def value 1)
(defmulti speak :kind)
""",
    "dart": """\
import 'package:foo/bar.dart';
import 'src/util.dart' as util;
class Shape extends Base implements Drawable {
  int draw(int x) { return helper(x); }
  Shape();
  static Shape create() => Shape();
}
mixin M {}
enum Color { red }
abstract class Drawable { void draw(int x); }
void top() { final s = Shape(); s.draw(1); }
extension E on Shape { void ext() {} }
""",
    "elixir": """\
defmodule Geo.Shape do
  alias Geo.Util
  import Enum
  require Logger
  def draw(x), do: Util.helper(x)
  defp secret(y) do
    map(y, &(&1))
  end
  defmacro mac(a), do: a
end
defprotocol Geo.Drawable do
  def draw(x)
end
""",
    "erlang": """\
-module(shape).
-export([area/1]).
-import(lists, [map/2]).
-include("shape.hrl").
-record(point, {x, y}).
area({circle, R}) -> helper(R), lists:sum([R]);
area(_) -> 0.
helper(X) -> X.
""",
    "groovy": """\
package geo
import java.util.List
import static java.lang.Math.max
class Shape extends Base implements Drawable {
    int draw(int x) { return helper(x) }
    def untyped(y) { println y }
}
interface Drawable { int draw(int x) }
def top() { new Shape().draw(1) }
def pick(a) {
    if (a) {
        return 1
    } else if (a == null) {
        return 2
    }
}
""",
    "haskell": """\
module Geo.Shape (draw) where
import Data.Map (Map, fromList)
import qualified Data.Set as S
data Shape = Circle Double | Square Double
class Drawable a where
  draw :: a -> Int
instance Drawable Shape where
  draw s = helper s
helper :: Shape -> Int
helper _ = length (S.toList S.empty)
type Name = String
newtype Wrap = Wrap Int
""",
    "julia": """\
module Geo
using LinearAlgebra
import Base: show
struct Point
    x::Int
end
abstract type Shape end
function area(p::Point)
    helper(p.x)
end
short(x) = x + 1
macro mymac(x) end
end
""",
    "lua": """\
local util = require("pl.utils")
local M = {}
function M.greet(name) return util.fmt(name) end
function M:method(x) self:other(x) end
local function helper(x) return x end
function globalfn() helper(1) end
M.assigned = function(a) end
local f = function() end
return M
""",
    "objc": """\
#import <Foundation/Foundation.h>
#import "Shape.h"
@interface Shape : NSObject <Drawable>
- (int)draw:(int)x;
+ (instancetype)shapeWithSize:(int)size;
@end
@implementation Shape
- (int)draw:(int)x { return [self helper:x] + compute(x); }
+ (instancetype)shapeWithSize:(int)size { return [[Shape alloc] init]; }
@end
@protocol Drawable
- (int)draw:(int)x;
@end
int compute(int x) { return x; }
""",
    "ocaml": """\
open Printf
module Shape = struct
  type t = { x : int }
  let area s = helper s.x
  let rec loop n = if n > 0 then loop (n - 1)
end
let helper x = Printf.printf "%d" x
class point = object method move d = d end
""",
    "perl": """\
package Geo::Shape;
use strict;
use Geo::Util qw(helper);
require Carp;
sub new { my ($class) = @_; return bless {}, $class; }
sub area { my $self = shift; return helper($self->{x}); }
sub method_call { $_[0]->area(); Geo::Util::other(1); }
1;
""",
    "r": """\
library(dplyr)
require(stats)
source("util.R")
greet <- function(name) { paste("hi", name); helper(1) }
helper = function(x) x
setClass("Person", representation(name = "character"))
""",
    "scala": """\
package geo
import scala.collection.mutable.Map
import geo.util.{Helper, Other => O}
class Shape(x: Int) extends Base with Drawable {
  def draw(y: Int): Int = helper(y)
}
object Shape { def apply(): Shape = new Shape(1) }
trait Drawable { def draw(y: Int): Int }
case class Point(x: Int)
def top(): Unit = println(Shape().draw(1))
""",
    "solidity": """\
pragma solidity ^0.8.0;
import "./Base.sol";
import {IERC20} from "./IERC20.sol";
contract Token is Base, IERC20 {
    struct Holder { uint amount; }
    event Moved(address a);
    modifier onlyOwner() { _; }
    function transfer(address to) public returns (bool) { _move(to); return helper(1); }
    function _move(address to) internal {}
}
interface IThing { function f() external; }
library Math { function max(uint a) internal pure returns (uint) { return a; } }
""",
    "svelte": """\
<script>
  import { onMount } from 'svelte';
  import Child from './Child.svelte';
  export let name;
  function greet() { helper(name); }
  const f = () => 1;
</script>
<h1>Hello {name}</h1>
""",
    "swift": """\
import Foundation
class Shape: Base, Drawable {
    func draw(x: Int) -> Int { return helper(x) }
    init() {}
}
struct Point { func len() -> Double { return sqrt(1) } }
protocol Drawable { func draw(x: Int) -> Int }
enum Color { case red }
extension Point { func moved() -> Point { return Point() } }
func top() { let s = Shape(); s.draw(x: 1) }
""",
    "vue": """\
<template>
  <div>{{ msg }}</div>
</template>
<script setup lang="ts">
import { ref } from 'vue'
import Child from './Child.vue'
const msg = ref('hi')
function greet(name: string) { return helper(name) }
</script>
""",
    "zig": """\
const std = @import("std");
const util = @import("util.zig");
pub const Point = struct {
    x: i32,
    pub fn len(self: Point) i32 { return util.helper(self.x); }
};
const Color = enum { red };
pub const Handle = opaque {};
fn top() void { const p = Point{ .x = 1 }; _ = p.len(); std.debug.print("", .{}); }
test "x" { top(); }
""",
}

# language -> (definitions as (kind, qualified name), calls as (qualifier, name), imports as (module, name, alias))
EXPECTED: dict[str, tuple[set[tuple[str, str]], set[tuple[str, str]], set[tuple[str, str, str]]]] = {
    "bash": (
        {("function", "greet"), ("function", "helper")},
        {("", "helper"), ("", "greet")},
        {("./lib.sh", "", ""), ("/etc/profile", "", "")},
    ),
    "clojure": (
        {("namespace", "geo.shape"), ("function", "area"), ("function", "mac"), ("interface", "Drawable")},
        {("", "helper"), ("str", "join")},
        {("clojure.string", "", "str"), ("geo.util", "", "")},
    ),
    "dart": (
        {("class", "Shape"), ("method", "Shape.draw"), ("method", "Shape.create"), ("function", "top")},
        {("", "helper"), ("", "draw")},
        {("package:foo/bar.dart", "", ""), ("src/util.dart", "", "util")},
    ),
    "elixir": (
        {("namespace", "Geo.Shape"), ("function", "Geo.Shape.draw"), ("function", "Geo.Shape.secret")},
        {("Util", "helper"), ("", "map")},
        {("Geo.Util", "", ""), ("Enum", "", "")},
    ),
    "erlang": (
        {("function", "area"), ("function", "helper"), ("struct", "point")},
        {("", "helper"), ("lists", "sum")},
        {("lists", "map", ""), ("shape.hrl", "", "")},
    ),
    "groovy": (
        {
            ("class", "Shape"),
            ("method", "Shape.draw"),
            ("method", "Shape.untyped"),
            ("function", "top"),
            ("function", "pick"),
        },
        {("", "helper")},
        {("java.util", "List", "")},
    ),
    "haskell": (
        {("struct", "Shape"), ("interface", "Drawable"), ("method", "Drawable.draw"), ("function", "helper")},
        {("", "helper"), ("", "length")},
        {("Data.Map", "Map", ""), ("Data.Map", "fromList", ""), ("Data.Set", "", "S")},
    ),
    "julia": (
        {("namespace", "Geo"), ("struct", "Geo.Point"), ("function", "Geo.area"), ("function", "Geo.short")},
        {("", "helper")},
        {("LinearAlgebra", "", ""), ("Base", "show", "")},
    ),
    "lua": (
        {("method", "M.greet"), ("method", "M.method"), ("function", "helper"), ("method", "M.assigned")},
        {("util", "fmt"), ("self", "other"), ("", "helper")},
        {("pl.utils", "", "util")},
    ),
    "objc": (
        {("class", "Shape"), ("method", "Shape.draw"), ("interface", "Drawable"), ("function", "compute")},
        {("self", "helper"), ("", "compute"), ("Shape", "alloc")},
        {("Foundation/Foundation.h", "", ""), ("Shape.h", "", "")},
    ),
    "ocaml": (
        {("namespace", "Shape"), ("function", "Shape.area"), ("function", "helper"), ("method", "point.move")},
        {("", "helper"), ("Printf", "printf")},
        {("Printf", "", "")},
    ),
    "perl": (
        {("namespace", "Geo::Shape"), ("function", "Geo::Shape.area"), ("function", "Geo::Shape.new")},
        {("", "helper"), ("$_[0]", "area")},
        {("Geo::Util", "", ""), ("Carp", "", "")},
    ),
    "r": (
        {("function", "greet"), ("function", "helper"), ("class", "Person")},
        {("", "helper"), ("", "paste")},
        {("dplyr", "", ""), ("stats", "", ""), ("util.R", "", "")},
    ),
    "scala": (
        {("class", "Shape"), ("method", "Shape.draw"), ("trait", "Drawable"), ("function", "top")},
        {("", "helper"), ("", "println")},
        {("scala.collection.mutable.Map", "", ""), ("geo.util", "Helper", ""), ("geo.util", "Other", "O")},
    ),
    "solidity": (
        {("class", "Token"), ("method", "Token.transfer"), ("interface", "IThing"), ("struct", "Token.Holder")},
        {("", "_move"), ("", "helper")},
        {("./Base.sol", "", ""), ("./IERC20.sol", "IERC20", "")},
    ),
    "svelte": (
        {("function", "greet"), ("function", "f")},
        {("", "helper")},
        {("svelte", "onMount", ""), ("./Child.svelte", "default", "Child")},
    ),
    "swift": (
        {("class", "Shape"), ("method", "Shape.draw"), ("struct", "Point"), ("method", "Point.moved")},
        {("", "helper"), ("s", "draw")},
        {("Foundation", "", "")},
    ),
    "vue": (
        {("function", "greet")},
        {("", "helper"), ("", "ref")},
        {("vue", "ref", ""), ("./Child.vue", "default", "Child")},
    ),
    "zig": (
        {("struct", "Point"), ("method", "Point.len"), ("enum", "Color"), ("type", "Handle"), ("function", "top")},
        {("util", "helper"), ("p", "len")},
        {("std", "", "std"), ("util.zig", "", "util")},
    ),
}


@pytest.fixture(scope="module", params=sorted(SOURCES))
def parsed(request: pytest.FixtureRequest) -> tuple[str, ParsedFile]:
    return request.param, parse(request.param, SOURCES[request.param])


def test_definitions_and_qualified_names(parsed: tuple[str, ParsedFile]) -> None:
    language, pf = parsed
    found = {(s.kind, s.qualified_name) for s in pf.symbols[1:]}
    assert EXPECTED[language][0] <= found
    assert not pf.has_error


def test_calls(parsed: tuple[str, ParsedFile]) -> None:
    language, pf = parsed
    assert EXPECTED[language][1] <= refs(pf, "calls")


def test_imports(parsed: tuple[str, ParsedFile]) -> None:
    language, pf = parsed
    assert EXPECTED[language][2] <= imports(pf)


def test_calls_come_from_their_definition() -> None:
    pf = parse("elixir", SOURCES["elixir"])
    call = next(r for r in pf.references if r.name == "helper")
    assert pf.symbols[call.source].qualified_name == "Geo.Shape.draw"
    assert not any(r.name == "draw" for r in pf.references)  # a def head is not a call


def test_private_definitions() -> None:
    names = {s.qualified_name: s for s in parse("elixir", SOURCES["elixir"]).symbols}
    assert names["Geo.Shape.draw"].exported and not names["Geo.Shape.secret"].exported


def test_component_without_script_has_only_its_module() -> None:
    pf = parse("vue", "<template><div/></template>\n")
    assert [s.kind for s in pf.symbols] == ["module"]


def test_component_lines_are_the_files_lines() -> None:
    names = {s.qualified_name: s for s in parse("vue", SOURCES["vue"]).symbols}
    assert names["greet"].start_line == 8


def test_dart_body_beside_its_signature_belongs_to_the_function() -> None:
    names = {s.qualified_name: s for s in parse("dart", SOURCES["dart"]).symbols}
    assert names["top"].end_line == 11 and "void top()" in names["top"].signature


def test_lua_table_fields_holding_functions() -> None:
    names = {s.qualified_name for s in parse("lua", "local mt = { __index = function (t, k) return k end }\n").symbols}
    assert "__index" in names


def test_ocaml_each_and_binding_starts_on_its_own_line() -> None:
    pf = parse("ocaml", "let rec f x = g x\nand g y = f y\n\nlet ( ^^ ) a b = a\n")
    lines = {s.qualified_name: s.start_line for s in pf.symbols[1:]}
    assert lines == {"f": 1, "g": 2, "( ^^ )": 4}


def test_haskell_function_starts_at_its_type_signature() -> None:
    pf = parse("haskell", "module M where\nhelper :: Int -> Int\nhelper x = x\n\narea (C r) = r\narea _ = 0\n")
    spans = [(s.qualified_name, s.start_line, s.end_line) for s in pf.symbols[1:]]
    assert spans == [("helper", 2, 3), ("area", 5, 5), ("area", 6, 6)]


def test_haskell_record_fields_and_multi_name_signatures() -> None:
    pf = parse("haskell", "module M where\ndata R = R { name :: String }\nf, g :: Int\nf = 1\ng = 2\n")
    spans = {s.qualified_name: (s.kind, s.start_line) for s in pf.symbols[1:]}
    assert spans == {"R": ("struct", 2), "R.name": ("method", 2), "f": ("function", 3), "g": ("function", 5)}


def test_groovy_else_if_is_not_a_definition() -> None:
    # `} else if (x) {` has the shape of a typed method header `Type name(args) {`
    pf = parse("groovy", SOURCES["groovy"])
    assert "if" not in {s.name for s in pf.symbols}
    assert {s.name for s in pf.symbols} >= {"pick", "top"}


def test_groovy_class_without_clause_and_generic_return_type() -> None:
    # `class Name {` puts the name inside the block in tree-sitter-groovy; `List<String> f()` is a generics_class
    pf = parse("groovy", "class Builder {\n    List<String> names(int n) {\n        return []\n    }\n}\n")
    assert [(s.qualified_name, s.start_line) for s in pf.symbols[1:]] == [("Builder", 1), ("Builder.names", 2)]


def test_scala_operator_methods_are_definitions() -> None:
    pf = parse("scala", "trait Num {\n  def +(x: Int): Int\n  def unary_! : Num\n  def <<(n: Int): Int = n\n}\n")
    assert {s.qualified_name for s in pf.symbols[1:]} == {"Num", "Num.+", "Num.unary_!", "Num.<<"}


def test_dart_abstract_getters_and_setters() -> None:
    pf = parse("dart", "abstract class Socket {\n  bool get isOpen;\n  set timeout(int t);\n  int get size => 1;\n}\n")
    assert {s.qualified_name for s in pf.symbols[1:]} == {"Socket", "Socket.isOpen", "Socket.timeout", "Socket.size"}


def test_groovy_headers_without_body_with_throws_or_empty_body() -> None:
    code = (
        "interface Command {\n    String describe()\n    boolean all() default true\n}\n"
        "class Stream {\n    void close() throws IOException {\n        shut()\n    }\n"
        "    void hidden(Event e) { }\n}\nprintln format(x)\n"
    )
    pf = parse("groovy", code)
    assert [(s.qualified_name, s.start_line) for s in pf.symbols[1:]] == [
        ("Command", 1),
        ("Command.describe", 2),
        ("Command.all", 3),
        ("Stream", 5),
        ("Stream.close", 6),
        ("Stream.hidden", 9),
    ]


def test_groovy_wildcard_import_and_parameter_annotation_do_not_swallow_definitions() -> None:
    # both are blanked before parsing (LanguageSpec.blank_before_parse); lines and offsets stay where they were
    code = (
        "import javax.swing.*\n\nclass Frame extends Base {\n"
        "    void later(@DelegatesTo(Frame) Closure c) {\n        run(c)\n    }\n}\n"
    )
    pf = parse("groovy", code)
    assert not pf.has_error
    spans = [(s.qualified_name, s.start_line, s.start_byte) for s in pf.symbols[1:]]
    assert spans == [("Frame", 3, code.index("class")), ("Frame.later", 4, code.index("void"))]


def test_blank_matches_keeps_offsets() -> None:
    from igraph_mcp.index.parse import blank_matches

    src = b"import a.b.*\nimport c.D\nf(@Ann(x) int y, @Other z)\n"
    assert blank_matches(src, r"^import [\w.]+?(\.\*)$") == b"import a.b  \nimport c.D\nf(@Ann(x) int y, @Other z)\n"
    out = blank_matches(src, r"[(,][ \t]*(@[\w.]+(?:\([^()\n]*\))?)")
    assert out == b"import a.b.*\nimport c.D\nf(        int y,        z)\n"
    assert len(out) == len(src)


def test_groovy_array_return_type() -> None:
    pf = parse("groovy", "class Finder {\n    public File[] found(String dir) {\n        list(dir)\n    }\n}\n")
    assert [(s.qualified_name, s.start_line) for s in pf.symbols[1:]] == [("Finder", 1), ("Finder.found", 2)]


# Each fixture holds text tree-sitter-groovy misreads; LanguageSpec.rewrite_before_parse turns it into text of the same
# length that it reads, so the file parses cleanly and every definition sits on its own line.
GROOVY_REWRITES = {
    "slashy string": (
        "class Log {\n    def split(String text) {\n        def lines = text.split(/(\\n|\\r)/)\n        lines\n"
        "    }\n    void after() {\n        run()\n    }\n}\n",
        [("Log", 1), ("Log.split", 2), ("Log.after", 6)],
    ),
    "elvis and line-leading safe navigation": (
        "class Grab {\n    def loader(Map args) {\n        def l = (args.ref?.class\n"
        "            ?:Finder.calling(args.depth?:1)\n        )?.classLoader\n        l\n    }\n"
        "    void after() {\n        run()\n    }\n}\n",
        [("Grab", 1), ("Grab.loader", 2), ("Grab.after", 8)],
    ),
    "nested generics with a comma": (
        "class Deps {\n    Map<ClassLoader, Set<Record>> loaded = new WeakHashMap<ClassLoader, Set<Record>>()\n"
        "    public Deps() {\n        run()\n    }\n}\n",
        [("Deps", 1), ("Deps.Deps", 3)],
    ),
    "cast, comparison and append": (
        "class Cli {\n    def expand(List args) {\n        def r = (List) args\n"
        "        if (r.size() > 1) { r << args[0] }\n        r\n    }\n    void after() {\n        run()\n    }\n}\n",
        [("Cli", 1), ("Cli.expand", 2), ("Cli.after", 7)],
    ),
    "annotation arguments": (
        "@Transform('groovy.beans.Listener')\nclass Listener {\n    void after() {\n        run()\n    }\n}\n",
        [("Listener", 2), ("Listener.after", 3)],
    ),
}


@pytest.mark.parametrize("case", sorted(GROOVY_REWRITES))
def test_groovy_rewrites_keep_definitions(case: str) -> None:
    code, expected = GROOVY_REWRITES[case]
    pf = parse("groovy", code)
    assert not pf.has_error
    assert [(s.qualified_name, s.start_line) for s in pf.symbols[1:]] == expected


def test_rewrite_matches_keeps_offsets() -> None:
    from igraph_mcp.index.parse import rewrite_matches

    src = b"x = a ?: b\ny = f(/a\\/b+/)\n"
    assert rewrite_matches(src, r"\?:", ("||",)) == b"x = a || b\ny = f(/a\\/b+/)\n"
    out = rewrite_matches(src, r"\((/)((?:\\.|[^/\\\n])+)(/)\)", ('"', " ", '"'))
    assert out == b'x = a ?: b\ny = f("     ")\n'
    with pytest.raises(ValueError, match="fills"):
        rewrite_matches(src, r"(a)(b)", ("x",))


def test_groovy_method_whose_body_starts_with_a_comment() -> None:
    code = (
        "class Grab {\n    public Record create(Map deps) {\n        // parse the arguments\n        x(deps)\n    }\n"
        "    void after() {\n        /* nothing yet */\n    }\n}\n"
    )
    pf = parse("groovy", code)
    assert [(s.qualified_name, s.start_line) for s in pf.symbols[1:]] == [
        ("Grab", 1),
        ("Grab.create", 2),
        ("Grab.after", 6),
    ]
