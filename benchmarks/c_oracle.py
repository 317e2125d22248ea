"""Clang's answer at every call of a C or C++ tree, for graph_accuracy_langs.py (libclang from PyPI: ``pip install
libclang``; not a runtime dependency).

usage: python benchmarks/c_oracle.py TREE FILES.json > calls.jsonl
(needs ``pip install libclang`` and Debian's ``libclang-common-14-dev`` for clang's own headers)

Each source file of FILES.json (``.c``, ``.cc``, ``.cpp``, ``.cxx``) is one translation unit, parsed with every
folder of the tree that holds a header on the quoted include path (nearest first; folders named include on the
angled one too) and clang's own headers (the PyPI wheel brings none). A call is reported at its callee's name, with
the definitions it reaches: the body in the same unit for a `static` function, else every definition of the same
external name in any unit of the tree (platform variants give several); a name defined nowhere in the tree is the
library's (an empty path). A call through a variable or a field names that variable, which no function edge matches.
A macro used as `NAME(...)` is a call of the macro. Calls that a macro's expansion makes are left out: the index sees
the macro's name at that place, not theirs. A file that no unit read whole (a unit stopped at a fatal error, a
header only another platform's or a missing library's units include) is listed as skipped; the benchmark judges no
edge there, nor at a call clang could not attribute.

Lines out: ``{"file", "line", "col", "name", "decls": [{"file", "line", "name", "kind"}], "failed"}`` per call, and
``{"skipped": path}`` per listed file that no unit read whole, ``{"inactive": path, "lines": [[first, last], ...]}``
for the `#if` branches that this configuration (Linux, no other defines) leaves out. Neither a call there nor an edge
to a definition there is judged: clang sees neither.
"""

from __future__ import annotations

import ctypes
import glob
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

SOURCE_SUFFIXES = {".c": "c", ".cc": "c++", ".cpp": "c++", ".cxx": "c++"}
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".inl")
FUNCTIONS = {
    ci.CursorKind.FUNCTION_DECL,
    ci.CursorKind.CXX_METHOD,
    ci.CursorKind.CONSTRUCTOR,
    ci.CursorKind.DESTRUCTOR,
    ci.CursorKind.FUNCTION_TEMPLATE,
}
REFERENCES = (ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR, ci.CursorKind.OVERLOADED_DECL_REF)
ASIDE = {"contrib", "test", "tests", "fuzz", "example", "examples", "doc", "docs", "build", "third_party", "vendor"}
VARIABLES = {ci.CursorKind.VAR_DECL, ci.CursorKind.FIELD_DECL, ci.CursorKind.PARM_DECL}


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


def _skipped_lines(tu: ci.TranslationUnit) -> list[tuple[str, int, int]]:
    """The `#if` branches this configuration leaves out, in every file of the unit, as (file, first, last line)
    (libclang's C call; the Python bindings do not wrap it)."""
    lib = ci.conf.lib
    lib.clang_getAllSkippedRanges.restype = ctypes.POINTER(_RangeList)
    lib.clang_getAllSkippedRanges.argtypes = [ci.TranslationUnit]
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_RangeList)]
    found = lib.clang_getAllSkippedRanges(tu)
    try:
        out = []
        for i in range(found.contents.count):
            r = found.contents.ranges[i]
            start, end = r.start, r.end  # read before the list is freed
            if start.file is not None:
                out.append((start.file.name, start.line, end.line))
        return out
    finally:
        lib.clang_disposeSourceRangeList(found)


def _spelled_at(location: ci.SourceLocation) -> tuple[str, int, int]:
    """Where the text of a location is written (inside a macro's argument: there, not at the macro's name)."""
    lib = ci.conf.lib
    lib.clang_getSpellingLocation.argtypes = [
        ci.SourceLocation,
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
        ctypes.POINTER(ctypes.c_uint),
    ]
    file, line, col, offset = ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    found = (ctypes.byref(file), ctypes.byref(line), ctypes.byref(col), ctypes.byref(offset))
    lib.clang_getSpellingLocation(location, *found)
    if not file.value:
        return "", 0, 0
    lib.clang_getFileName.argtypes = [ctypes.c_void_p]
    return str(lib.clang_getFileName(file)), line.value, col.value  # the bindings turn the CXString into str


@dataclass(frozen=True, slots=True)
class Place:
    """A definition clang knows: tree-relative path ("" outside the tree), line of its name, name, kind."""

    file: str
    line: int
    name: str
    kind: str


def _system_includes() -> list[str]:
    """Clang's own stddef.h, intrinsics and friends, which the libclang wheel lacks: Debian's
    libclang-common-NN-dev, else GCC's (whose intrinsics clang cannot read: units including them are skipped)."""
    found = sorted(glob.glob("/usr/lib/llvm-*/lib/clang/*/include")) or sorted(glob.glob("/usr/lib/gcc/*/*/include"))
    return ["-isystem", found[-1]] if found else []


class Oracle:
    """Parses a tree's units and answers for their calls."""

    def __init__(self, tree: Path, files: list[str]) -> None:
        self.tree = tree.resolve()
        self.files = files
        found = {Path(f).parent for f in files if f.endswith(HEADER_SUFFIXES)}
        # an include folder holding only subfolders (`include/CLI/App.hpp`, included as "CLI/App.hpp") too
        found |= {a for d in found for a in d.parents if a.name == "include"}
        self.header_dirs = sorted(found)
        self.system = _system_includes()
        self.index = ci.Index.create()
        self.external: dict[str, set[Place]] = defaultdict(set)  # USR -> bodies with external linkage
        self.calls: list[tuple[str, int, int, str, ci.Cursor | None, str]] = []
        self.read: set[str] = set()  # files some unit read whole
        self.inactive: dict[str, set[int]] = {}  # lines that no unit reading the file compiles
        self.seen: set[tuple[str, int, int]] = set()
        self.lines: dict[str, list[str]] = {}

    def _rel(self, location: ci.SourceLocation) -> str:
        return self._rel_file(location.file)

    def _rel_file(self, file: ci.File | None) -> str:
        return "" if file is None else self._rel_path(file.name)

    def _rel_path(self, name: str) -> str:
        path = Path(name).resolve()
        try:
            return path.relative_to(self.tree).as_posix()
        except ValueError:
            return ""

    def _text_at(self, rel: str, line: int, col: int, name: str) -> bool:
        """Whether the source really names `name` there (not a call a macro's expansion made)."""
        if rel not in self.lines:
            self.lines[rel] = (self.tree / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        text = self.lines[rel]
        return 0 < line <= len(text) and text[line - 1][col - 1 : col - 1 + len(name)] == name

    def _place(self, cursor: ci.Cursor, kind: str) -> Place:
        return Place(self._rel(cursor.location), cursor.location.line, cursor.spelling, kind)

    def _callee_name(self, call: ci.Cursor) -> ci.Cursor | None:
        """The reference to the called name inside a call (its place is where the index sees the call); for a
        temporary object (`CLI::Range(1, 10)`), the class named."""
        for child in call.get_children():
            if child.kind == ci.CursorKind.NAMESPACE_REF:  # `CLI::` before the class a temporary names
                continue
            for c in child.walk_preorder():
                if c.kind in REFERENCES and c.spelling == call.spelling:
                    return c
                made = c.referenced if c.kind == ci.CursorKind.TYPE_REF else None
                if made is not None and made.spelling == call.spelling:
                    return c
            break
        return None

    def includes(self, rel: str) -> list[str]:
        """Every folder holding a header, nearest to the unit first and a library's before contrib, test or
        example folders (zstd's contrib/linux-kernel/mem.h must not shadow lib/common/mem.h), as compiler flags."""
        here = Path(rel).parent.parts

        def key(d: Path) -> tuple[int, int, int, str]:
            shared = 0
            for a, b in zip(here, d.parts, strict=False):
                if a != b:
                    break
                shared += 1
            aside = any(part.lower() in ASIDE for part in d.parts)
            return (-shared, int(aside), len(d.parts), d.as_posix())

        ordered = sorted(self.header_dirs, key=key)
        # `#include "x.h"` searches them all; `<x.h>` only folders named include (libuv's `<uv.h>`), so that a
        # folder of stand-ins for system headers (zstd's test/include/linux/stddef.h) shadows nothing
        quoted = [a for d in ordered for a in ("-iquote", str(self.tree / d))]
        angled = [a for d in ordered if d.name == "include" for a in ("-I", str(self.tree / d))]
        return quoted + angled + self.system

    def parse(self, rel: str) -> None:
        """Read one unit: its external bodies and its calls."""
        language = SOURCE_SUFFIXES[Path(rel).suffix]
        standard = "-std=gnu11" if language == "c" else "-std=gnu++17"
        args = ["-x", language, standard, "-D_GNU_SOURCE", "-ferror-limit=0", *self.includes(rel)]
        options = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
        tu = self.index.parse(str(self.tree / rel), args=args, options=options)
        if any(d.severity >= ci.Diagnostic.Fatal for d in tu.diagnostics):
            return
        read = {rel} | {r for r in (self._rel_file(i.include) for i in tu.get_includes()) if r}
        self.read |= read
        left_out: dict[str, set[int]] = defaultdict(set)
        for name, first, last in _skipped_lines(tu):
            where = self._rel_path(name)
            if where:
                left_out[where].update(range(first, last + 1))
        for where in read:  # a branch one unit leaves out and another compiles is compiled
            lines = left_out.get(where, set())
            self.inactive[where] = self.inactive[where] & lines if where in self.inactive else lines
        for cursor in tu.cursor.walk_preorder():
            kind = cursor.kind
            if kind in FUNCTIONS and cursor.is_definition():
                where = self._rel(cursor.location)
                if where and cursor.linkage == ci.LinkageKind.EXTERNAL:
                    self.external[cursor.get_usr()].add(self._place(cursor, "function"))
            elif kind == ci.CursorKind.CALL_EXPR and cursor.spelling:
                ref = self._callee_name(cursor)
                at = ref.location if ref is not None else cursor.location
                self._call(at, cursor.spelling, cursor.referenced, "call")
            elif kind == ci.CursorKind.MACRO_INSTANTIATION:
                self._call(cursor.location, cursor.spelling, cursor.referenced, "macro")

    def _call(self, at: ci.SourceLocation, name: str, target: ci.Cursor | None, how: str) -> None:
        file, line, col = _spelled_at(at)
        rel = self._rel_path(file) if file else ""
        if not rel or not self._text_at(rel, line, col, name):
            return
        key = (rel, line, col)
        if key in self.seen:  # a header's call, seen again from each unit that includes it
            return
        if how == "macro" and not self.lines[rel][line - 1][col - 1 + len(name) :].lstrip().startswith("("):
            return  # a macro used as a value; `s_malloc(n)` with `#define s_malloc hi_malloc` is a call of it
        self.seen.add(key)
        self.calls.append((rel, line, col, name, target, how))

    def answer(self, target: ci.Cursor | None, name: str, how: str) -> tuple[list[Place], bool]:
        """The definitions a call reaches, and whether clang could not tell."""
        if target is None:
            return [], True
        if how == "macro":
            return [self._place(target, "macro")], False
        if target.kind in VARIABLES:
            return [self._place(target, "variable")], False
        if target.kind not in FUNCTIONS:
            return [self._place(target, target.kind.name.lower())], False
        if target.kind == ci.CursorKind.CONSTRUCTOR and target.semantic_parent is not None:
            # constructing a Foo calls Foo's constructor; the index names the class, which holds its constructors
            made = self._place(target.semantic_parent, "class")
            return [made, *(p for p in self._function_places(target, name) if p != made)], False
        return self._function_places(target, name), False

    def _function_places(self, target: ci.Cursor, name: str) -> list[Place]:
        """The bodies a call of the function ``target`` reaches: a body in its unit, else every external body of
        that name in any unit, else its declaration."""
        body = target.get_definition()
        if body is not None and self._rel(body.location) and body.linkage != ci.LinkageKind.EXTERNAL:
            return [self._place(body, "function")]
        bodies = sorted(self.external.get(target.get_usr(), ()), key=lambda p: (p.file, p.line))
        if bodies:
            return bodies
        if body is not None and self._rel(body.location):
            return [self._place(body, "function")]
        if body is None and self._rel(target.location):  # a pure virtual member: the call names its declaration
            return [self._place(target, "function")]
        return [Place("", 0, name, "function")]


def _runs(lines: list[int]) -> list[list[int]]:
    """Sorted line numbers as [first, last] runs."""
    runs: list[list[int]] = []
    for n in lines:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return runs


def main() -> int:
    """Print clang's answer for every call of the listed files."""
    tree, listing = Path(sys.argv[1]), Path(sys.argv[2])
    files = json.loads(listing.read_text(encoding="utf-8"))
    oracle = Oracle(tree, files)
    for rel in files:
        if Path(rel).suffix in SOURCE_SUFFIXES:
            oracle.parse(rel)
    out = sys.stdout
    for rel in files:
        if rel not in oracle.read:
            out.write(json.dumps({"skipped": rel}) + "\n")
    for rel, lines in sorted(oracle.inactive.items()):
        if lines:
            out.write(json.dumps({"inactive": rel, "lines": _runs(sorted(lines))}) + "\n")
    for rel, line, col, name, target, how in oracle.calls:
        decls, failed = oracle.answer(target, name, how)
        record = {
            "file": rel,
            "line": line,
            "col": col,
            "name": name,
            "decls": [{"file": d.file, "line": d.line, "name": d.name, "kind": d.kind} for d in decls],
            "failed": failed,
        }
        out.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
