"""Go query: structs, interfaces, receivers, constants, embedding, imports, docs, exports."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = """\
// Package srv serves.
package srv

import (
	"fmt"
	f "os"
	_ "embed"
)
import "net/http"

// MaxConn is the limit.
const MaxConn = 10

const (
	minConn = 1
	Timeout, Retries = 5, 3
)

// Server serves
// requests.
type Server struct {
	Base
	*pkg.Embedded
	name string
}

type Handler interface {
	io.Reader
	Serve(w Writer) error
}

type ID = string
type Count int

// Start starts.
func (s *Server) Start(ctx context.Context) error {
	fmt.Println("x")
	cfg := Config{Port: 1}
	return s.handler.Serve(cfg)
}

func (b Box[T]) Get() T { return b.v }

func helper() { http.ListenAndServe(":80", nil) }
"""


@pytest.fixture(scope="module")
def pf():
    return parse("go", CODE)


def test_definition_kinds(pf) -> None:
    names = by_qname(pf)
    assert names["Server"].kind == "struct"
    assert names["Handler"].kind == "interface"
    assert names["Handler.Serve"].kind == "method"
    assert names["ID"].kind == "type"
    assert names["Count"].kind == "type"
    assert names["MaxConn"].kind == "constant"
    assert names["Timeout"].kind == names["Retries"].kind == "constant"
    assert names["helper"].kind == "function"


def test_receiver_methods_are_qualified_by_type(pf) -> None:
    names = by_qname(pf)
    assert names["Server.Start"].kind == "method"
    assert names["Server.Start"].name == "Start"
    assert names["Box.Get"].kind == "method"  # generic receiver Box[T]
    assert names["Handler.Serve"].parent == pf.symbols.index(names["Handler"])


def test_signatures_lines_docs(pf) -> None:
    names = by_qname(pf)
    assert names["Server.Start"].signature == "func (s *Server) Start(ctx context.Context) error"
    assert names["Server"].signature == "type Server struct"
    assert names["Handler"].signature == "type Handler interface"
    assert names["MaxConn"].signature == "const MaxConn = 10"
    assert (names["Server"].start_line, names["Server"].end_line) == (21, 25)
    assert (names["Server.Start"].start_line, names["Server.Start"].end_line) == (36, 40)
    assert names["Server"].docstring == "Server serves\nrequests."
    assert names["Server.Start"].docstring == "Start starts."
    assert names["MaxConn"].docstring == "MaxConn is the limit."
    assert names["helper"].docstring == ""


def test_exported_by_capitalisation(pf) -> None:
    names = by_qname(pf)
    assert names["Server"].exported and names["Server.Start"].exported
    assert not names["helper"].exported
    assert not names["minConn"].exported


def test_calls(pf) -> None:
    calls = refs(pf, "calls")
    assert {("fmt", "Println"), ("s.handler", "Serve"), ("http", "ListenAndServe"), ("", "Config")} <= calls
    assert source_of(pf, ref_named(pf, "calls", "Println")) == "Server.Start"
    assert ref_named(pf, "calls", "Println").line == 37


def test_embedding_is_inheritance(pf) -> None:
    assert refs(pf, "inherits") == {("", "Base"), ("pkg", "Embedded"), ("io", "Reader")}
    assert source_of(pf, ref_named(pf, "inherits", "Reader")) == "Handler"


def test_type_references_skip_predeclared(pf) -> None:
    types = refs(pf, "references")
    assert {("", "Writer"), ("context", "Context")} <= types
    assert not {name for _, name in types} & {"string", "error", "int"}


def test_imports(pf) -> None:
    assert imports(pf) == {("fmt", "", ""), ("os", "", "f"), ("embed", "", "_"), ("net/http", "", "")}
    assert [i.line for i in pf.imports] == [5, 6, 7, 9]
