"""Kotlin query: classes/interfaces/objects/enums, members, extensions, supertypes, calls, imports."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
package com.example.shapes

import kotlin.math.max
import java.util.*
import com.example.util.Logger as Log

/** Anything with an area. */
interface Shape {
    fun area(): Double
}

abstract class Base(val id: Int) : Shape, java.io.Serializable

/**
 * A circle.
 */
@Serializable
data class Circle(val r: Double) : Base(1), Shape, Comparable<Circle> {
    companion object {
        const val PI = 3.14

        fun unit() = Circle(1.0)
    }

    override fun area(): Double = PI * r * r

    private fun secret() {}

    class Renderer {
        fun draw(log: Log) {
            helper()
            this.prepare()
            log.info("draw")
            com.example.util.Metrics.count()
        }
    }
}

object Registry {
    fun register(shape: Shape) {}
}

enum class Color {
    RED,
    GREEN,
}

typealias Handler = (Shape) -> Unit

const val MAX_SHAPES = 10

fun String.shout(): String = uppercase()

fun biggest(a: Shape, b: Shape): Double = max(a.area(), b.area())
"""


@pytest.fixture(scope="module")
def pf():
    return parse("kotlin", CODE)


def test_parses_without_errors(pf) -> None:
    assert not pf.has_error
    assert pf.symbols[0].end_line == 54


def test_definition_kinds(pf) -> None:
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds == {
        "Shape": "interface",
        "Shape.area": "method",
        "Base": "class",
        "Circle": "class",
        "Circle.PI": "constant",  # companion members read as members of the class
        "Circle.unit": "method",
        "Circle.area": "method",
        "Circle.secret": "method",
        "Circle.Renderer": "class",
        "Circle.Renderer.draw": "method",
        "Registry": "class",  # object declaration
        "Registry.register": "method",
        "Color": "enum",
        "Handler": "type",
        "MAX_SHAPES": "constant",
        "String.shout": "method",  # extension function, qualified by its receiver type
        "biggest": "function",
    }


def test_nesting(pf) -> None:
    names = by_qname(pf)
    draw = names["Circle.Renderer.draw"]
    assert draw.name == "draw"
    assert pf.symbols[draw.parent].qualified_name == "Circle.Renderer"


def test_lines(pf) -> None:
    names = by_qname(pf)
    assert (names["Circle"].start_line, names["Circle"].end_line) == (17, 37)  # from the annotation
    assert (names["Circle.Renderer.draw"].start_line, names["Circle.Renderer.draw"].end_line) == (30, 35)
    assert (names["Color"].start_line, names["Color"].end_line) == (43, 46)


def test_signatures(pf) -> None:
    names = by_qname(pf)
    assert names["Circle"].signature == (
        "@Serializable data class Circle(val r: Double) : Base(1), Shape, Comparable<Circle>"
    )
    assert names["Circle.area"].signature == "override fun area(): Double"
    assert names["Shape"].signature == "interface Shape"
    assert names["String.shout"].signature == "fun String.shout(): String"
    assert names["MAX_SHAPES"].signature == "const val MAX_SHAPES = 10"


def test_doc_comments(pf) -> None:
    names = by_qname(pf)
    # The grammar nests this KDoc inside the preceding import; it still belongs to Shape.
    assert names["Shape"].docstring == "Anything with an area."
    assert names["Circle"].docstring == "A circle."
    assert names["Registry"].docstring == ""


def test_comment_trailing_an_import_is_not_a_doc() -> None:
    pf = parse("kotlin", "import a.B // needed for B\nclass A\n")
    assert by_qname(pf)["A"].docstring == ""


def test_private_members_are_not_exported(pf) -> None:
    names = by_qname(pf)
    assert not names["Circle.secret"].exported
    assert names["Circle.area"].exported


def test_supertypes(pf) -> None:
    # A constructor call marks the superclass; the other supertypes are interfaces.
    assert refs(pf, "inherits") == {("", "Base")}
    assert source_of(pf, ref_named(pf, "inherits", "Base")) == "Circle"
    assert refs(pf, "implements") == {("", "Shape"), ("", "Serializable"), ("", "Comparable")}
    comparable = ref_named(pf, "implements", "Comparable")
    assert source_of(pf, comparable) == "Circle"
    assert comparable.line == 18


def test_calls_with_qualifiers(pf) -> None:
    calls = refs(pf, "calls")
    assert {
        ("", "Circle"),  # constructor call
        ("", "helper"),
        ("this", "prepare"),
        ("log", "info"),
        ("com.example.util.Metrics", "count"),
        ("", "max"),
        ("a", "area"),
    } <= calls
    info = ref_named(pf, "calls", "info")
    assert source_of(pf, info) == "Circle.Renderer.draw"
    assert info.line == 33


def test_type_references(pf) -> None:
    assert {("", "Shape"), ("", "Log")} <= refs(pf, "references")


def test_imports(pf) -> None:
    assert imports(pf) == {
        ("kotlin.math", "max", ""),
        ("java.util", "", ""),  # wildcard
        ("com.example.util", "Logger", "Log"),
    }
    assert [i.line for i in pf.imports] == [3, 4, 5]


def test_broken_code_keeps_what_parsed() -> None:
    pf = parse("kotlin", "class Ok {\n}\nfun broken( {\n")
    assert pf.has_error
    assert "Ok" in by_qname(pf)
