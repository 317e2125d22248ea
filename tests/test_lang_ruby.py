"""Ruby query: modules, classes, methods, constants, mixins, calls, requires, comments, lines."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
require 'json'
require_relative '../lib/helpers'
load "tasks.rb"
autoload :Parser, "shapes/parser"

# Geometry helpers.
module Geometry
  VERSION = "1.0"

  # A round shape.
  # Has a radius.
  class Circle < Base::Shape
    include Comparable
    extend Forwardable
    prepend Mixins::Tracing

    def initialize(radius)
      super(radius)
      @radius = radius
      validate!(radius)
      self.class.registry.add(self)
      Geometry::Point.new(0, 0)
      Logger.new.info "created"
    end

    def self.unit
      new(1)
    end

    class << self
      def named(name); end
    end

    def area
      3.14 * @radius**2
    end
  end

  def helper; end
end

class Square < Shape; end

class Geometry::Polygon
end

Point = Struct.new(:x, :y)

def top_level(a, b = 2)
  Square.new
end
"""


@pytest.fixture(scope="module")
def pf():
    return parse("ruby", CODE)


def test_parses_without_errors(pf) -> None:
    assert not pf.has_error
    assert pf.symbols[0].end_line == 51


def test_definition_kinds(pf) -> None:
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds == {
        "Geometry": "namespace",  # a Ruby module
        "Geometry.VERSION": "constant",
        "Geometry.Circle": "class",
        "Geometry.Circle.initialize": "method",
        "Geometry.Circle.unit": "method",  # def self.unit
        "Geometry.Circle.named": "method",  # inside `class << self`
        "Geometry.Circle.area": "method",
        "Geometry.helper": "method",  # module methods are methods too
        "Square": "class",
        "Geometry.Polygon": "class",  # `class Geometry::Polygon`
        "Point": "class",  # Point = Struct.new(...)
        "top_level": "function",
    }


def test_nesting(pf) -> None:
    names = by_qname(pf)
    area = names["Geometry.Circle.area"]
    assert area.name == "area"
    assert pf.symbols[area.parent].qualified_name == "Geometry.Circle"
    assert pf.symbols[names["Geometry.Circle"].parent].qualified_name == "Geometry"


def test_lines(pf) -> None:
    names = by_qname(pf)
    assert (names["Geometry"].start_line, names["Geometry"].end_line) == (7, 40)
    assert (names["Geometry.Circle"].start_line, names["Geometry.Circle"].end_line) == (12, 37)
    init = names["Geometry.Circle.initialize"]
    assert (init.start_line, init.end_line) == (17, 24)
    assert names["Geometry.VERSION"].start_line == 8


def test_signatures(pf) -> None:
    names = by_qname(pf)
    assert names["Geometry.Circle"].signature == "class Circle < Base::Shape"
    assert names["Geometry.Circle.initialize"].signature == "def initialize(radius)"
    assert names["Geometry.Circle.unit"].signature == "def self.unit"
    assert names["top_level"].signature == "def top_level(a, b = 2)"
    assert names["Geometry"].signature == "module Geometry"


def test_comments(pf) -> None:
    names = by_qname(pf)
    assert names["Geometry"].docstring == "Geometry helpers."
    assert names["Geometry.Circle"].docstring == "A round shape.\nHas a radius."
    assert names["Geometry.Circle.area"].docstring == ""


def test_superclass_and_mixins(pf) -> None:
    assert refs(pf, "inherits") == {("Base", "Shape"), ("", "Shape")}
    assert source_of(pf, ref_named(pf, "inherits", "Shape")) == "Geometry.Circle"
    assert refs(pf, "implements") == {("", "Comparable"), ("", "Forwardable"), ("Mixins", "Tracing")}
    tracing = ref_named(pf, "implements", "Tracing")
    assert source_of(pf, tracing) == "Geometry.Circle"
    assert tracing.line == 15


def test_calls_with_receivers(pf) -> None:
    calls = refs(pf, "calls")
    assert {
        ("", "validate!"),
        ("self.class.registry", "add"),
        ("Geometry", "Point"),  # Geometry::Point.new is a call to the class
        ("", "Logger"),
        ("Logger.new", "info"),
        ("", "Square"),
    } <= calls
    names = {name for _, name in calls}
    assert not names & {"require", "require_relative", "include", "extend", "prepend", "autoload"}
    assert "super" not in names
    validate = ref_named(pf, "calls", "validate!")
    assert source_of(pf, validate) == "Geometry.Circle.initialize"
    assert validate.line == 20


def test_requires(pf) -> None:
    assert imports(pf) == {
        ("json", "", ""),
        ("../lib/helpers", "", ""),
        ("tasks.rb", "", ""),
        ("shapes/parser", "", ""),  # autoload
    }
    assert [i.line for i in pf.imports] == [1, 2, 3, 4]


def test_broken_code_keeps_what_parsed() -> None:
    pf = parse("ruby", "class Ok\nend\ndef broken(\n")
    assert pf.has_error
    assert "Ok" in by_qname(pf)
