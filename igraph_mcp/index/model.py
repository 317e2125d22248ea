"""Plain data produced by parsing one file, before anything is stored or resolved."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, TypeVar

_Record = TypeVar("_Record")

# Node kinds (NODE_KINDS) live in vocab/kinds.py, shared with the filters that name them.

# Reference kinds; each becomes an edge once its target is resolved.
REF_KINDS = ("calls", "imports", "inherits", "implements", "references")


def _pickled_as_tuple(cls: type[_Record]) -> type[_Record]:
    """Pickle a slotted record as its class and field values: parse workers send every file's records to the
    indexer, and the default form (a dict of slot names per record) doubled the time to pickle and unpickle them."""
    values = attrgetter(*(f.name for f in fields(cls)))  # type: ignore[arg-type]

    def __reduce__(self: Any) -> tuple[type[_Record], tuple[Any, ...]]:
        return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls


@_pickled_as_tuple
@dataclass(slots=True)
class Symbol:
    """One definition found in a file. ``parent`` indexes into ``ParsedFile.symbols``."""

    kind: str
    name: str
    qualified_name: str  # dotted path of enclosing definitions inside the file, e.g. "Outer.Inner.method"
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    start_byte: int
    end_byte: int
    signature: str = ""  # the definition's header line(s), trimmed, at most ~200 chars
    docstring: str = ""  # docstring or leading doc comment, cleaned of comment markers
    parent: int | None = None  # index of the enclosing symbol (None for the module symbol)
    exported: bool = True  # visible outside the file (language rules: _private, lowercase Go, static C ...)
    # Says what but not how: an overload or ambient signature, an interface/trait/abstract member without a body,
    # a C/C++ prototype, anything in a declaration file (`.d.ts`); its implementation is linked by index/declarations.
    declaration: bool = False
    # How many arguments a call of it may pass (methods and constructors whose query captures @parameters):
    # max_args -1 is no upper bound (varargs); the default pair is "unknown", which accepts any call.
    min_args: int = 0
    max_args: int = -1
    # The line a doc comment written right above the definition starts on (0: none, or a Python docstring, which is
    # inside): those lines are the definition's, not the top-level code's or its class's (index/parts.py).
    doc_line: int = 0


@_pickled_as_tuple
@dataclass(slots=True)
class Reference:
    """A use of a name that may point at a definition elsewhere (a call, a base class, ...)."""

    kind: str  # one of REF_KINDS
    name: str  # the referenced simple name as written, e.g. "register_hook" for self.register_hook()
    source: int  # index of the innermost enclosing symbol in ParsedFile.symbols (0 = the module)
    line: int  # 1-based
    qualifier: str = ""  # receiver or module path written before the name: "self", "os.path", "Foo"
    arity: int = -1  # arguments at a call whose query captures @arguments; -1 = unknown
    arguments: str = ""  # Java: what each argument's form says of its type (index/argument_hints.py)


@_pickled_as_tuple
@dataclass(slots=True)
class Import:
    """One imported binding: ``from pkg.mod import name as alias`` or ``import x from './y'``."""

    module: str  # module path as written: "pkg.mod", "./utils", "java.util.List", "fmt"
    name: str = ""  # imported member, "" when the whole module is bound
    alias: str = ""  # local binding name ("" = same as name, or the module's last segment)
    line: int = 0


@_pickled_as_tuple
@dataclass(slots=True)
class Fact:
    """What a scope says about a name, for inferring receivers: ``x = Session()``, ``x: Session``, ``-> Session``.

    ``kind`` is "value" (``text`` is an expression), "type" (``text`` is an annotation), "element" (``text`` is
    an expression the name is an element of: Go's `for _, x := range xs`) or "opaque" (the name is bound here, by
    a parameter or loop, to something unknown: it shadows outer names). A function's return
    annotation is stored under the name ``()``; ``self.x = ...`` inside a method under ``.x`` (an attribute of
    the instance, written in that method's scope); a Java method's parameter types under ``()p``, kind "params"
    (``String,Object...``).
    """

    source: int  # index of the scope symbol in ParsedFile.symbols
    name: str
    kind: str
    text: str = ""


@dataclass(slots=True)
class ParsedFile:
    """Everything extracted from one source file."""

    language: str
    symbols: list[Symbol] = field(default_factory=list)  # symbols[0] is always the module
    references: list[Reference] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    has_error: bool = False  # tree-sitter reported syntax errors; what parsed is still kept
    deep_regions: int = 0  # regions nested past MAX_NESTING, parsed as blank text (index/nesting.py)
