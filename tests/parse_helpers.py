"""Small helpers shared by the parser tests."""

from __future__ import annotations

import textwrap

from igraph_mcp.index.model import Import, ParsedFile, Reference, Symbol
from igraph_mcp.index.parse import parse_source


def parse(language: str, code: str) -> ParsedFile:
    """Parse dedented inline code."""
    return parse_source(textwrap.dedent(code).encode("utf-8"), language)


def by_qname(pf: ParsedFile) -> dict[str, Symbol]:
    """Map qualified name -> symbol (the module is under "")."""
    return {s.qualified_name: s for s in pf.symbols}


def refs(pf: ParsedFile, kind: str) -> set[tuple[str, str]]:
    """The (qualifier, name) pairs of one reference kind."""
    return {(r.qualifier, r.name) for r in pf.references if r.kind == kind}


def ref_named(pf: ParsedFile, kind: str, name: str) -> Reference:
    """The first reference of a kind with this simple name."""
    return next(r for r in pf.references if r.kind == kind and r.name == name)


def imports(pf: ParsedFile) -> set[tuple[str, str, str]]:
    """The (module, name, alias) triples."""
    return {(i.module, i.name, i.alias) for i in pf.imports}


def import_named(pf: ParsedFile, module: str) -> Import:
    """The first import of a module."""
    return next(i for i in pf.imports if i.module == module)


def source_of(pf: ParsedFile, ref: Reference) -> str:
    """Qualified name of the symbol a reference comes from."""
    return pf.symbols[ref.source].qualified_name
