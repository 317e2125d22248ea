"""TypeScript and TSX queries: types, interfaces, enums, namespaces, heritage, JSX, exports."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
import type { Shape as S } from './types';
import fs = require('fs');
import React from 'react';

/** A drawable shape. */
export interface Shape extends Base, Other<T> {
  area(): number;
}
export type Id = string | number;
export enum Color { Red, Green }

export abstract class Square<T> extends Poly<T> implements Shape, ns.Named {
  private secret(): void {}
  public area(): number {
    return this.geo.scale(this.side, 2);
  }
  abstract draw(): void;
  constructor(private side: number) { super(); }
  handler = (e: Event): void => {};
}

export namespace Geo {
  export class Point {
    norm(): number { return Math.sqrt(2); }
  }
}
export const MAX: number = 3;
function helper(v: Vector): Result<Item> { return new Result<Item>(v); }
"""


@pytest.fixture(scope="module")
def pf():
    return parse("typescript", CODE)


def test_definition_kinds(pf) -> None:
    names = by_qname(pf)
    assert names["Shape"].kind == "interface"
    assert names["Shape.area"].kind == "method"
    assert names["Id"].kind == "type"
    assert names["Color"].kind == "enum"
    assert names["Square"].kind == "class"
    assert names["Square.draw"].kind == "method"
    assert names["Square.handler"].kind == "method"
    assert names["Geo"].kind == "namespace"
    assert names["MAX"].kind == "constant"
    assert names["helper"].kind == "function"


def test_nested_qualified_names(pf) -> None:
    names = by_qname(pf)
    assert names["Geo.Point.norm"].kind == "method"
    assert pf.symbols[names["Geo.Point.norm"].parent].qualified_name == "Geo.Point"


def test_signatures_and_lines(pf) -> None:
    names = by_qname(pf)
    assert names["Square"].signature == "abstract class Square<T> extends Poly<T> implements Shape, ns.Named"
    assert names["Square.area"].signature == "public area(): number"
    assert names["helper"].signature == "function helper(v: Vector): Result<Item>"
    assert names["Id"].signature == "type Id = string | number;"
    assert (names["Square"].start_line, names["Square"].end_line) == (12, 20)


def test_docstring(pf) -> None:
    assert by_qname(pf)["Shape"].docstring == "A drawable shape."


def test_exported_flags(pf) -> None:
    names = by_qname(pf)
    assert names["Shape"].exported and names["Square"].exported
    assert names["Square.area"].exported
    assert not names["Square.secret"].exported  # private modifier
    assert names["Geo.Point.norm"].exported
    assert not names["helper"].exported


def test_heritage(pf) -> None:
    assert {("", "Base"), ("", "Other"), ("", "Poly")} <= refs(pf, "inherits")
    assert refs(pf, "implements") == {("", "Shape"), ("ns", "Named")}
    assert source_of(pf, ref_named(pf, "implements", "Named")) == "Square"


def test_calls_and_type_references(pf) -> None:
    calls = refs(pf, "calls")
    assert ("this.geo", "scale") in calls
    assert ("Math", "sqrt") in calls
    assert ("", "Result") in calls
    assert source_of(pf, ref_named(pf, "calls", "scale")) == "Square.area"
    types = refs(pf, "references")
    assert {("", "Vector"), ("", "Result"), ("", "Item")} <= types


def test_imports(pf) -> None:
    assert imports(pf) == {("./types", "Shape", "S"), ("fs", "", "fs"), ("react", "default", "React")}


TSX = """\
import { Button } from './ui';

type Props = { label: string };

/** Renders the toolbar. */
export function Toolbar({ label }: Props) {
  const onClick = () => track('click');
  return <ui.Panel><Button label={label} onClick={onClick} /><span /></ui.Panel>;
}

export const Memo = React.memo(Toolbar);
"""


def test_tsx_components_and_jsx_calls() -> None:
    pf = parse("tsx", TSX)
    names = by_qname(pf)
    assert names["Toolbar"].kind == "function"
    assert names["Toolbar"].docstring == "Renders the toolbar."
    assert names["Toolbar.onClick"].kind == "function"
    assert not names["Toolbar.onClick"].exported
    assert names["Props"].kind == "type" and not names["Props"].exported
    assert names["Memo"].kind == "constant"
    calls = refs(pf, "calls")
    assert {("", "Button"), ("ui", "Panel"), ("", "track"), ("React", "memo")} <= calls
    assert ("", "span") not in calls
    assert source_of(pf, ref_named(pf, "calls", "Button")) == "Toolbar"
    assert imports(pf) == {("./ui", "Button", "")}


def test_type_arguments_in_generic_tsx_arrow() -> None:
    pf = parse("tsx", "export const id = <T,>(x: T): T => x;\n")
    assert by_qname(pf)["id"].kind == "function"


def test_construct_signature_is_a_method_named_new() -> None:
    names = by_qname(parse("typescript", "interface ErrorCtor { new (message: string): Error; }\n"))
    assert names["ErrorCtor.new"].kind == "method"


def test_an_exported_object_of_data_is_a_constant_and_one_of_functions_a_scope() -> None:
    # `Build` and `defaults` hold data: each is a symbol of its own. `api` holds functions: it stays the scope that
    # names them `api.get`, not a symbol that would repeat their text.
    code = (
        "import type * as d from './declarations';\n"
        "export const Build: d.UserBuildConditionals = {\n"
        "  isDev: BUILD.isDev ? true : false,\n  isBrowser: true,\n};\n"
        "export const defaults = { retries: 3, nested: { deep: 1 } };\n"
        "export const api = {\n  get(key: string) { return key; },\n};\n"
    )
    names = by_qname(parse("typescript", code))
    assert (names["Build"].kind, names["Build"].start_line, names["Build"].end_line) == ("constant", 2, 5)
    assert names["defaults"].kind == "constant"
    assert names["api.get"].kind == "method" and "api" not in names
