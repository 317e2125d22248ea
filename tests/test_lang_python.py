"""Python query: definitions, names, calls, imports, inheritance, docs, exports, lines."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = '''\
"""Module doc."""
import os.path as osp, sys
from a.b import c, d as e
from .. import rel
from x import *
MAX_SIZE = 10
_PRIVATE_LIMIT = 1
lower = 2
type Alias = list[int]
Y: TypeAlias = int


class Color(enum.Enum):
    RED = 1


class Shape(Protocol):
    def area(self) -> float: ...


class Outer(Base, models.Model, metaclass=Meta):
    """Outer doc.

    More.
    """

    class Inner:
        @property
        def method(self, x: Foo) -> int:
            \'\'\'Inner method.\'\'\'
            return self.session.send(os.path.join(x))

    def _hidden(self):
        return helper()

    def __init__(self):
        super().__init__()


@decorator(1)
def top(a, b=2):
    r"""Top doc."""
    return Outer()


async def fetch():
    await client.get()
'''


@pytest.fixture(scope="module")
def pf():
    return parse("python", CODE)


def test_definition_kinds(pf) -> None:
    names = by_qname(pf)
    assert names["Outer"].kind == "class"
    assert names["Color"].kind == "enum"
    assert names["Shape"].kind == "interface"
    assert names["Shape.area"].kind == "method"
    assert names["top"].kind == "function"
    assert names["fetch"].kind == "function"
    assert names["Alias"].kind == "type"
    assert names["Y"].kind == "type"
    assert names["MAX_SIZE"].kind == "constant"
    assert "lower" not in names  # only UPPER_CASE module assignments are constants


def test_nested_qualified_names_and_parents(pf) -> None:
    names = by_qname(pf)
    method = names["Outer.Inner.method"]
    assert method.kind == "method"
    assert method.name == "method"
    assert pf.symbols[method.parent].qualified_name == "Outer.Inner"
    assert pf.symbols[names["Outer.Inner"].parent].qualified_name == "Outer"


def test_lines_cover_decorators_and_bodies(pf) -> None:
    names = by_qname(pf)
    assert (names["Outer"].start_line, names["Outer"].end_line) == (21, 37)
    assert (names["Outer.Inner.method"].start_line, names["Outer.Inner.method"].end_line) == (28, 31)
    assert names["top"].start_line == 40  # the decorator line
    assert names["MAX_SIZE"].start_line == names["MAX_SIZE"].end_line == 6
    assert pf.symbols[0].end_line == 47


def test_signatures(pf) -> None:
    names = by_qname(pf)
    assert names["top"].signature == "@decorator(1) def top(a, b=2)"
    assert names["Outer"].signature == "class Outer(Base, models.Model, metaclass=Meta)"
    assert names["Outer.Inner.method"].signature == "@property def method(self, x: Foo) -> int"
    assert names["fetch"].signature == "async def fetch()"
    assert names["MAX_SIZE"].signature == "MAX_SIZE = 10"


def test_docstrings(pf) -> None:
    names = by_qname(pf)
    assert pf.symbols[0].docstring == "Module doc."
    assert names["Outer"].docstring == "Outer doc.\n\nMore."
    assert names["Outer.Inner.method"].docstring == "Inner method."
    assert names["top"].docstring == "Top doc."
    assert names["fetch"].docstring == ""


def test_exported_flags(pf) -> None:
    names = by_qname(pf)
    assert names["top"].exported
    assert names["Outer.Inner.method"].exported
    assert names["Outer.__init__"].exported  # dunder methods are public
    assert not names["Outer._hidden"].exported
    assert not names["_PRIVATE_LIMIT"].exported


def test_calls_with_qualifiers_and_sources(pf) -> None:
    calls = refs(pf, "calls")
    assert ("self.session", "send") in calls
    assert ("os.path", "join") in calls
    assert ("", "helper") in calls
    assert ("", "Outer") in calls
    assert ("client", "get") in calls
    assert ("super()", "__init__") in calls
    send = ref_named(pf, "calls", "send")
    assert source_of(pf, send) == "Outer.Inner.method"
    assert send.line == 31
    assert source_of(pf, ref_named(pf, "calls", "decorator")) == "top"


def test_inheritance(pf) -> None:
    inherits = refs(pf, "inherits")
    assert {("", "Base"), ("models", "Model"), ("enum", "Enum"), ("", "Protocol")} <= inherits
    assert ("", "Meta") not in inherits  # keyword arguments are not bases
    assert source_of(pf, ref_named(pf, "inherits", "Model")) == "Outer"


def test_type_references(pf) -> None:
    types = refs(pf, "references")
    assert ("", "Foo") in types
    assert ("", "Alias") not in types  # the defined name is not a use


def test_imports(pf) -> None:
    assert imports(pf) == {
        ("os.path", "", "osp"),
        ("sys", "", ""),
        ("a.b", "c", ""),
        ("a.b", "d", "e"),
        ("..", "rel", ""),
        ("x", "*", ""),
    }
    assert [i.line for i in pf.imports] == [2, 2, 3, 3, 4, 5]


def test_generic_base_and_dotted_import_alias() -> None:
    pf = parse("python", "import a.b.c\nclass Box(Generic[T], typing.Sized):\n    pass\n")
    assert ("a.b.c", "", "") in imports(pf)
    assert {("", "Generic"), ("typing", "Sized")} <= refs(pf, "inherits")


def test_decorated_class_keeps_class_kind() -> None:
    names = by_qname(parse("python", "@dataclass\nclass Point:\n    x: int\n    def norm(self):\n        pass\n"))
    assert names["Point"].kind == "class"
    assert names["Point"].start_line == 1
    assert names["Point.norm"].kind == "method"
