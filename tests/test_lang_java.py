"""Java query: classes, interfaces, enums, records, constants, calls, heritage, imports, javadoc."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
package com.acme.app;

import java.util.List;
import java.util.*;
import static org.junit.Assert.assertEquals;

/**
 * Outer doc.
 * @param <T> item type
 */
@Entity
public class Outer<T> extends Base<T> implements Runnable, java.io.Serializable {
    public static final int MAX_SIZE = 10;
    private int count;

    public static class Inner {
        /** Inner method. */
        @Override
        public void method(Widget w) {
            this.svc.send(w);
            helper();
            new ArrayList<String>();
            new com.acme.Thing();
        }
    }

    private void secret() {}
    Outer() { super(); }
}

// Shapes have areas.
interface Shape extends Comparable<Shape>, Other {
    double area();
}
enum Color { RED, GREEN; void paint() {} }
record Point(int x, int y) implements Shape { public double area() { return 0; } }
@interface Marker {}
"""


@pytest.fixture(scope="module")
def pf():
    return parse("java", CODE)


def test_definition_kinds(pf) -> None:
    names = by_qname(pf)
    assert names["com.acme.app"].kind == "namespace"
    assert names["Outer"].kind == "class"
    assert names["Shape"].kind == "interface"
    assert names["Shape.area"].kind == "method"
    assert names["Color"].kind == "enum"
    assert names["Color.paint"].kind == "method"
    assert names["Point"].kind == "class"
    assert names["Marker"].kind == "interface"
    assert names["Outer.MAX_SIZE"].kind == "constant"
    assert names["Outer.Outer"].kind == "method"  # constructor
    assert "Outer.count" not in names


def test_nested_class_method(pf) -> None:
    names = by_qname(pf)
    method = names["Outer.Inner.method"]
    assert method.kind == "method"
    assert pf.symbols[method.parent].qualified_name == "Outer.Inner"
    assert (method.start_line, method.end_line) == (18, 24)


def test_signatures_and_docs(pf) -> None:
    names = by_qname(pf)
    assert names["Outer"].signature == (
        "@Entity public class Outer<T> extends Base<T> implements Runnable, java.io.Serializable"
    )
    assert names["Outer.Inner.method"].signature == "@Override public void method(Widget w)"
    assert names["Outer"].docstring == "Outer doc.\n@param <T> item type"
    assert names["Outer.Inner.method"].docstring == "Inner method."
    assert names["Shape"].docstring == "Shapes have areas."
    assert names["Color"].docstring == ""


def test_exported_flags(pf) -> None:
    names = by_qname(pf)
    assert names["Outer"].exported and names["Outer.Inner.method"].exported
    assert not names["Outer.secret"].exported
    assert names["Shape.area"].exported  # interface members are public


def test_calls(pf) -> None:
    calls = refs(pf, "calls")
    assert {("this.svc", "send"), ("", "helper"), ("", "ArrayList"), ("com.acme", "Thing")} <= calls
    assert source_of(pf, ref_named(pf, "calls", "send")) == "Outer.Inner.method"
    assert ref_named(pf, "calls", "send").line == 20


def test_inheritance_and_implementation(pf) -> None:
    assert refs(pf, "inherits") == {("", "Base"), ("", "Comparable"), ("", "Other")}
    assert refs(pf, "implements") == {("", "Runnable"), ("java.io", "Serializable"), ("", "Shape")}
    assert source_of(pf, ref_named(pf, "inherits", "Base")) == "Outer"


def test_type_references(pf) -> None:
    assert ("", "Widget") in refs(pf, "references")


def test_imports(pf) -> None:
    assert imports(pf) == {
        ("java.util", "List", ""),
        ("java.util", "*", ""),
        ("org.junit.Assert", "assertEquals", ""),
    }
    assert [i.line for i in pf.imports] == [3, 4, 5]
