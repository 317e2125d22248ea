"""C++ query: namespaces, classes, templates, out-of-class methods, bases, calls, includes/using."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
#include <vector>
#include "shapes/base.hpp"

using namespace std;
using std::string;
namespace fs = std::filesystem;

namespace geo {
namespace detail {

/// Abstract shape.
class Shape {
public:
    virtual double area() const = 0;
    static Shape *create();
    class Visitor {
        void visit(Shape &s);
    };
};

struct Circle : public Shape, private util::Named<Circle> {
    double area() const override { return helper(r) * std::sqrt(2.0); }
    double r;
};

}  // namespace detail

/**
 * A generic box.
 */
template <typename T>
class Box : Container {
    T value;
};

enum class Mode { Fast, Slow };
using Points = std::vector<int>;
typedef unsigned int uint;
constexpr int LIMIT = 4;

double detail::Shape::area() const { return 0.0; }

void Shape::Visitor::visit(Shape &s) {
    this->log();
    s.area();
    geo::detail::Shape::create();
    auto c = new Circle();
    Box<int> b;
    render<int>(b);
}

/// Largest of two.
template <typename T>
T max_of(T a, T b) {
    return a > b ? a : b;
}

}  // namespace geo

int main() {
    geo::max_of(1, 2);
    return 0;
}
"""


@pytest.fixture(scope="module")
def pf():
    return parse("cpp", CODE)


def test_parses_without_errors(pf) -> None:
    assert not pf.has_error
    assert pf.symbols[0].end_line == 63


def test_definition_kinds(pf) -> None:
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds["geo"] == "namespace"
    assert kinds["geo.detail"] == "namespace"
    assert kinds["geo.detail.Shape"] == "class"
    assert kinds["geo.detail.Circle"] == "struct"
    assert kinds["geo.Box"] == "class"  # a class template
    assert kinds["geo.Mode"] == "enum"
    assert kinds["geo.Points"] == "type"  # using alias
    assert kinds["geo.uint"] == "type"  # typedef
    assert kinds["geo.LIMIT"] == "constant"
    assert kinds["geo.max_of"] == "function"  # a function template
    assert kinds["main"] == "function"


def test_methods_and_nested_classes(pf) -> None:
    names = by_qname(pf)
    assert names["geo.detail.Shape.area"].kind == "method"  # pure virtual declaration
    assert names["geo.detail.Shape.create"].kind == "method"
    assert names["geo.detail.Circle.area"].kind == "method"  # inline definition
    visit = names["geo.detail.Shape.Visitor.visit"]
    assert visit.kind == "method"
    assert pf.symbols[visit.parent].qualified_name == "geo.detail.Shape.Visitor"


def test_out_of_class_definitions_are_qualified_by_their_class(pf) -> None:
    # `double detail::Shape::area() const` and `void Shape::Visitor::visit(...)` inside
    # `namespace geo`: the enclosing namespace, then every scope written before the name.
    area = [s for s in pf.symbols if s.qualified_name == "geo.detail.Shape.area" and s.start_line == 41]
    assert len(area) == 1 and area[0].kind == "method"
    visit = by_qname(pf)["geo.Shape.Visitor.visit"]
    assert (visit.start_line, visit.end_line) == (43, 50)
    assert "Shape.area" not in by_qname(pf)


def test_template_lines_signature_and_docs_start_at_template(pf) -> None:
    names = by_qname(pf)
    box = names["geo.Box"]
    assert (box.start_line, box.end_line) == (31, 34)
    assert box.signature == "template <typename T> class Box : Container"
    assert box.docstring == "A generic box."
    max_of = names["geo.max_of"]
    assert max_of.signature == "template <typename T> T max_of(T a, T b)"
    assert max_of.docstring == "Largest of two."


def test_signatures_and_docs(pf) -> None:
    names = by_qname(pf)
    assert names["geo.detail.Circle"].signature == "struct Circle : public Shape, private util::Named<Circle>"
    # The in-class declaration and the out-of-class definition share a qualified name.
    decl, defn = (s for s in pf.symbols if s.qualified_name == "geo.detail.Shape.area")
    assert decl.signature == "virtual double area() const = 0;"
    assert defn.signature == "double detail::Shape::area() const"
    assert names["geo.Shape.Visitor.visit"].signature == "void Shape::Visitor::visit(Shape &s)"
    assert names["geo.detail.Shape"].docstring == "Abstract shape."
    assert names["geo.Mode"].docstring == ""


def test_static_members_stay_exported(pf) -> None:
    assert by_qname(pf)["geo.detail.Shape.create"].exported


def test_base_classes(pf) -> None:
    assert refs(pf, "inherits") == {("", "Shape"), ("util", "Named"), ("", "Container")}
    named = ref_named(pf, "inherits", "Named")
    assert source_of(pf, named) == "geo.detail.Circle"
    assert named.line == 21
    assert source_of(pf, ref_named(pf, "inherits", "Container")) == "geo.Box"
    assert refs(pf, "implements") == set()


def test_calls_with_qualifiers(pf) -> None:
    calls = refs(pf, "calls")
    assert {
        ("", "helper"),
        ("std", "sqrt"),
        ("this", "log"),
        ("s", "area"),
        ("Shape", "create"),  # `geo::detail::Shape::create()`: the innermost scope qualifies
        ("", "Circle"),  # `new Circle()`
        ("", "render"),  # `render<int>(b)`
        ("geo", "max_of"),
    } <= calls
    log = ref_named(pf, "calls", "log")
    assert source_of(pf, log) == "geo.Shape.Visitor.visit"
    assert log.line == 44
    assert source_of(pf, ref_named(pf, "calls", "sqrt")) == "geo.detail.Circle.area"


def test_imports(pf) -> None:
    assert imports(pf) == {
        ("vector", "", ""),
        ("shapes/base.hpp", "", ""),
        ("std", "", ""),  # using namespace std;
        ("std", "string", ""),  # using std::string;
        ("std::filesystem", "", "fs"),  # namespace alias
    }
    assert [i.line for i in pf.imports] == [1, 2, 4, 5, 6]


def test_broken_code_keeps_what_parsed() -> None:
    pf = parse("cpp", "class Ok { int a; };\nvoid broken( {\n")
    assert pf.has_error
    assert "Ok" in by_qname(pf)


def test_out_of_class_definition_in_namespace_is_qualified_by_it() -> None:
    pf = parse("cpp", "namespace geo {\nclass Shape { void draw(); };\nvoid Shape::draw() {}\n}\n")
    defs = [s for s in pf.symbols if s.qualified_name == "geo.Shape.draw"]
    assert [s.start_line for s in defs] == [2, 3]  # the declaration and the definition
    assert all(s.kind == "method" for s in defs)
    assert pf.symbols[defs[1].parent].qualified_name == "geo"


def test_receiver_spanning_several_scopes() -> None:
    pf = parse(
        "cpp",
        """\
        void A::B::f() {}
        void A<T>::B::C::g() {}
        int *A::B::p() { return 0; }
        template <class T> T &Box<T>::Inner::get() { return v; }
        void ::X::h() {}
        namespace outer { namespace inner { Obj::~Obj() {} } }
        void Plain::m() {}
        """,
    )
    names = by_qname(pf)
    for qname in ("A.B.f", "A.B.C.g", "A.B.p", "Box.Inner.get", "X.h", "outer.inner.Obj.~Obj", "Plain.m"):
        assert names[qname].kind == "method", qname
    assert names["Box.Inner.get"].start_line == 4


def test_free_functions_in_namespaces_unchanged() -> None:
    pf = parse("cpp", "namespace n { int f() { return 1; } }\nint g() { return 2; }\n")
    names = by_qname(pf)
    assert names["n.f"].kind == "function"
    assert names["g"].kind == "function"


def test_partial_specialisation_defines_its_template() -> None:
    code = "template <typename T> struct is_vec<std::vector<T>> { static const bool value = true; };\n"
    names = {s.qualified_name: s.kind for s in parse("cpp", code).symbols}
    assert names["is_vec"] == "struct"
