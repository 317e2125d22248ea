"""JavaScript query: ES modules, CommonJS, classes, calls, JSX, docs, exports, lines."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
import d, { a as b, c } from './m';
import * as ns from "lib";
import './polyfill';
export { x as y } from './re';
const fs = require('fs');
const { p, q: r } = require('z');

/**
 * Doc for Foo.
 * @class
 */
export class Foo extends Bar {
  #priv() {}
  method(a) {
    return this.svc.send(a);
  }
}

export default function main() {
  new Baz();
  new ns.Qux();
}
export const LIMIT = 5, fn = () => 1;
export let counter = 0;
// Generates.
function* gen() {}
const helper = function (x) { return path.join(x); };
class Outer extends mod.Base {
  static Inner = class {
    method() {}
  };
}
const el = <Comp prop={1}><ns.Sub /><div /></Comp>;
"""


@pytest.fixture(scope="module")
def pf():
    return parse("javascript", CODE)


def test_definition_kinds(pf) -> None:
    names = by_qname(pf)
    assert names["Foo"].kind == "class"
    assert names["Foo.method"].kind == "method"
    assert names["main"].kind == "function"
    assert names["gen"].kind == "function"
    assert names["helper"].kind == "function"
    assert names["fn"].kind == "function"
    assert names["LIMIT"].kind == "constant"
    assert "counter" not in names  # `let` is not a constant


def test_nested_class_method_qualified_name(pf) -> None:
    names = by_qname(pf)
    inner = names["Outer.Inner.method"]
    assert inner.kind == "method"
    assert pf.symbols[inner.parent].qualified_name == "Outer.Inner"


def test_lines_and_signatures(pf) -> None:
    names = by_qname(pf)
    assert (names["Foo"].start_line, names["Foo"].end_line) == (12, 17)
    assert names["Foo.method"].signature == "method(a)"
    assert names["main"].signature == "function main()"
    assert names["helper"].signature == "helper = function (x)"
    assert names["fn"].signature == "fn = () =>"


def test_doc_comments(pf) -> None:
    names = by_qname(pf)
    assert names["Foo"].docstring == "Doc for Foo.\n@class"
    assert names["gen"].docstring == "Generates."
    assert names["main"].docstring == ""


def test_exported_flags(pf) -> None:
    names = by_qname(pf)
    assert names["Foo"].exported
    assert names["Foo.method"].exported
    assert not names["Foo.#priv"].exported
    assert names["main"].exported
    assert names["LIMIT"].exported
    assert not names["gen"].exported  # the file has exports, and gen is not one
    assert not names["helper"].exported


def test_commonjs_exports() -> None:
    code = "function a() {}\nfunction b() {}\nfunction c() {}\nmodule.exports = { a };\nexports.b = b;\n"
    names = by_qname(parse("javascript", code))
    assert names["a"].exported and names["b"].exported
    assert not names["c"].exported


def test_script_without_exports_exports_its_top_level() -> None:
    names = by_qname(parse("javascript", "function onLoad() { function inner() {} }\n"))
    assert names["onLoad"].exported
    assert not names["onLoad.inner"].exported


def test_export_list_marks_names() -> None:
    names = by_qname(parse("javascript", "function a() {}\nfunction b() {}\nexport { a as default };\n"))
    assert names["a"].exported
    assert not names["b"].exported


def test_calls(pf) -> None:
    calls = refs(pf, "calls")
    assert ("this.svc", "send") in calls
    assert ("", "Baz") in calls
    assert ("ns", "Qux") in calls
    assert ("path", "join") in calls
    assert source_of(pf, ref_named(pf, "calls", "send")) == "Foo.method"
    assert ref_named(pf, "calls", "Baz").line == 20


def test_jsx_components_are_calls(pf) -> None:
    calls = refs(pf, "calls")
    assert ("", "Comp") in calls
    assert ("ns", "Sub") in calls
    assert ("", "div") not in calls


def test_inheritance(pf) -> None:
    assert {("", "Bar"), ("mod", "Base")} <= refs(pf, "inherits")
    assert source_of(pf, ref_named(pf, "inherits", "Bar")) == "Foo"


def test_imports(pf) -> None:
    assert imports(pf) == {
        ("./m", "default", "d"),
        ("./m", "a", "b"),
        ("./m", "c", ""),
        ("lib", "", "ns"),
        ("./polyfill", "", ""),
        ("./re", "x", "y"),
        ("fs", "", "fs"),
        ("z", "p", ""),
        ("z", "q", "r"),
    }
    assert {i.line for i in pf.imports if i.module == "./m"} == {1}


def test_dynamic_import() -> None:
    assert imports(parse("javascript", "async function f() { await import('./lazy.js'); }\n")) == {
        ("./lazy.js", "", "")
    }


def test_syntax_error_keeps_earlier_symbols() -> None:
    pf = parse("javascript", "function ok() {}\nfunction broken( {\n")
    assert pf.has_error
    assert "ok" in by_qname(pf)


ASSIGNED = """\
var app = exports = module.exports = {};
app.render = function render(name, cb) { tryRender(name); };
res.send = function (body) { this.end(body); };
View.prototype.lookup = function lookup(name) { return resolve(name); };
exports.compileETag = function (val) { return val; };
module.exports.y = () => 1;
const api = { a() { go(); }, b: function () {}, 'c-d': () => 2, n: 1 };
router.use(p, function mounted_app(req) {});
this.x = function () {};
"""


def test_assignment_style_definitions_get_the_names_a_reader_uses() -> None:
    pf = parse("javascript", ASSIGNED)
    names = by_qname(pf)
    assert names["app.render"].kind == "method" and names["app.render"].start_line == 2
    assert names["res.send"].kind == "method"
    assert names["View.lookup"].name == "lookup"
    assert names["compileETag"].kind == "function" and names["compileETag"].exported
    assert names["y"].exported
    assert {"api.a", "api.b", "api.c-d"} <= set(names)
    assert "api.n" not in names
    assert names["mounted_app"].kind == "function"
    assert "this.x" not in names and "x" not in names
    assert names["app.render"].exported  # a member of an object is as visible as the object
    assert source_of(pf, ref_named(pf, "calls", "tryRender")) == "app.render"
    assert source_of(pf, ref_named(pf, "calls", "resolve")) == "View.lookup"
    assert source_of(pf, ref_named(pf, "calls", "go")) == "api.a"


def test_module_exports_function_and_object() -> None:
    named = by_qname(parse("javascript", "module.exports = function query(o) { return function query(r) {}; };\n"))
    assert names_of(named) == ["query", "query.query"]
    assert named["query"].exported
    anonymous = by_qname(parse("javascript", "module.exports = function (o) {};\n"))
    assert names_of(anonymous) == ["exports"]
    obj = by_qname(parse("javascript", "function c() {}\nmodule.exports = { a() {}, b: function () {} };\n"))
    assert obj["a"].exported and obj["b"].exported
    assert not obj["c"].exported


def test_typescript_shares_the_assignment_shapes() -> None:
    names = by_qname(parse("typescript", "Foo.prototype.bar = function (x: number): number { return x; };\n"))
    assert names["Foo.bar"].kind == "method"


def names_of(names: dict[str, object]) -> list[str]:
    """Qualified names of the symbols, module left out."""
    return sorted(q for q in names if q)
