"""C# query: namespaces, classes, structs, interfaces, records, calls, bases, usings, XML docs."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
using System;
using System.Collections.Generic;
using IO = System.IO;
using static System.Math;

namespace Acme.App
{
    /// <summary>
    /// Outer doc.
    /// </summary>
    [Serializable]
    public class Outer : Base, IRunnable, Ns.IThing
    {
        public const int MaxSize = 10;
        public class Inner
        {
            public void Method(Widget w)
            {
                this.svc.Send(w);
                Helper();
                new List<int>();
                new Ns.Thing();
            }
        }
        void Secret() {}
        public Outer() : base() {}
    }

    // Shapes.
    public interface IShape : IBase { double Area(); }
    public struct Point : IShape { public double Area() => 0; }
    public enum Color { Red }
    public record Person(string Name) : Entity, IAudit;
    public delegate void Handler(int x);
}
"""


@pytest.fixture(scope="module")
def pf():
    return parse("csharp", CODE)


def test_definition_kinds(pf) -> None:
    names = by_qname(pf)
    assert names["Acme.App"].kind == "namespace"
    assert names["Acme.App.Outer"].kind == "class"
    assert names["Acme.App.IShape"].kind == "interface"
    assert names["Acme.App.IShape.Area"].kind == "method"
    assert names["Acme.App.Point"].kind == "struct"
    assert names["Acme.App.Color"].kind == "enum"
    assert names["Acme.App.Person"].kind == "class"
    assert names["Acme.App.Handler"].kind == "type"
    assert names["Acme.App.Outer.MaxSize"].kind == "constant"
    assert names["Acme.App.Outer.Outer"].kind == "method"


def test_nested_class_method(pf) -> None:
    names = by_qname(pf)
    method = names["Acme.App.Outer.Inner.Method"]
    assert method.kind == "method" and method.name == "Method"
    assert pf.symbols[method.parent].qualified_name == "Acme.App.Outer.Inner"
    assert (method.start_line, method.end_line) == (17, 23)


def test_signatures_and_docs(pf) -> None:
    names = by_qname(pf)
    assert names["Acme.App.Outer"].signature == "[Serializable] public class Outer : Base, IRunnable, Ns.IThing"
    assert names["Acme.App.Outer.Inner.Method"].signature == "public void Method(Widget w)"
    assert names["Acme.App.Outer"].docstring == "Outer doc."
    assert names["Acme.App.IShape"].docstring == "Shapes."


def test_exported_flags(pf) -> None:
    names = by_qname(pf)
    assert names["Acme.App.Outer"].exported
    assert names["Acme.App.Outer.Inner.Method"].exported
    assert not names["Acme.App.Outer.Secret"].exported  # members default to private
    assert names["Acme.App.IShape.Area"].exported  # interface members are public


def test_calls(pf) -> None:
    calls = refs(pf, "calls")
    assert {("this.svc", "Send"), ("", "Helper"), ("", "List"), ("Ns", "Thing")} <= calls
    assert source_of(pf, ref_named(pf, "calls", "Send")) == "Acme.App.Outer.Inner.Method"
    assert ref_named(pf, "calls", "Send").line == 19


def test_bases(pf) -> None:
    assert refs(pf, "inherits") == {("", "Base"), ("", "IBase"), ("", "Entity")}
    assert refs(pf, "implements") == {("", "IRunnable"), ("Ns", "IThing"), ("", "IShape"), ("", "IAudit")}
    assert source_of(pf, ref_named(pf, "implements", "IShape")) == "Acme.App.Point"
    assert ("", "Widget") in refs(pf, "references")


def test_usings(pf) -> None:
    assert imports(pf) == {
        ("System", "", ""),
        ("System.Collections.Generic", "", ""),
        ("System.IO", "", "IO"),
        ("System.Math", "", ""),
    }


def test_file_scoped_namespace() -> None:
    pf = parse("csharp", "namespace Acme;\ninternal class Late { private int x; }\n")
    names = by_qname(pf)
    assert names["Acme"].kind == "namespace"
    assert names["Acme.Late"].exported  # internal is visible in the assembly


FILE_SCOPED = """\
using System;

namespace Acme.Billing;

/// <summary>An invoice.</summary>
public class Invoice
{
    public int Total() { return Sum(1); }

    private class Line { }
}

public interface IPayable { }
"""


def test_file_scoped_namespace_qualifies_like_braced_form() -> None:
    scoped = by_qname(parse("csharp", FILE_SCOPED))
    braced_code = FILE_SCOPED.replace("namespace Acme.Billing;", "namespace Acme.Billing {") + "}\n"
    braced = by_qname(parse("csharp", braced_code))
    expected = {
        "Acme.Billing.Invoice",
        "Acme.Billing.Invoice.Total",
        "Acme.Billing.Invoice.Line",
        "Acme.Billing.IPayable",
    }
    assert expected <= set(scoped)
    assert set(scoped) == set(braced)
    assert scoped["Acme.Billing.Invoice.Total"].kind == "method"
    assert scoped["Acme.Billing.Invoice"].docstring == "An invoice."
    assert (scoped["Acme.Billing.Invoice"].start_line, scoped["Acme.Billing.Invoice"].end_line) == (6, 11)


def test_file_scoped_namespace_spans_rest_of_file() -> None:
    pf = parse("csharp", FILE_SCOPED)
    names = by_qname(pf)
    ns = names["Acme.Billing"]
    assert (ns.start_line, ns.end_line) == (3, 13)
    assert ns.signature == "namespace Acme.Billing;"
    assert pf.symbols[names["Acme.Billing.Invoice"].parent] is ns
    assert pf.symbols[names["Acme.Billing.IPayable"].parent] is ns
    assert source_of(pf, ref_named(pf, "calls", "Sum")) == "Acme.Billing.Invoice.Total"
    assert imports(pf) == {("System", "", "")}


def test_operators_conversions_and_finalizers_are_methods() -> None:
    code = (
        "class C {\n"
        "  public static C operator +(C a, C b) { return a; }\n"
        "  public static implicit operator int(C a) { return 1; }\n"
        "  ~C() { Release(); }\n"
        "}\n"
    )
    pf = parse("csharp", code)
    methods = {(s.name, s.start_line) for s in pf.symbols if s.kind == "method"}
    assert {("+", 2), ("int", 3), ("C", 4)} <= methods
