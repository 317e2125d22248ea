"""PHP query: namespaces, classes/interfaces/traits/enums, methods, constants, use/require, calls."""

from __future__ import annotations

import pytest
from parse_helpers import by_qname, imports, parse, ref_named, refs, source_of

CODE = r"""<?php
namespace App\Models;

use App\Contracts\Shape as ShapeContract;
use Psr\Log\LoggerInterface;
use function App\Support\helper;
use App\Traits\{Loggable, Cacheable as Cache};
require_once 'vendor/autoload.php';

const LIMIT = 5;
define('DEBUG', true);

/**
 * A circle.
 */
abstract class Circle extends \Base\Shape implements ShapeContract, \Countable
{
    use Loggable;

    const PI = 3.14;

    public function __construct(private float $r, LoggerInterface $log)
    {
        parent::__construct();
        $this->log("created");
        self::registry()->add($this);
        Util::calc(1);
        $p = new Point(1, 2);
        $q = new \Geo\Vector();
        strlen("abc");
    }

    private function secret(): void {}

    abstract protected function area(): float;
}

interface HasArea extends Countable
{
    public function area(): float;
}

trait Loggable
{
    public function log(string $m): void {}
}

enum Suit: string implements HasLabel
{
    case Hearts = 'H';
}

function top(array $a): int
{
    return count($a);
}
"""


# `namespace App\Models;` qualifies everything after it, as a braced namespace would.
NS = "App\\Models."


@pytest.fixture(scope="module")
def pf():
    return parse("php", CODE)


def test_parses_without_errors(pf) -> None:
    assert not pf.has_error
    assert pf.symbols[0].end_line == 56


def test_definition_kinds(pf) -> None:
    kinds = {s.qualified_name: s.kind for s in pf.symbols[1:]}
    assert kinds == {
        "App\\Models": "namespace",
        NS + "LIMIT": "constant",
        NS + "DEBUG": "constant",  # define('DEBUG', true)
        NS + "Circle": "class",
        NS + "Circle.PI": "constant",
        NS + "Circle.__construct": "method",
        NS + "Circle.secret": "method",
        NS + "Circle.area": "method",  # abstract, bodiless
        NS + "HasArea": "interface",
        NS + "HasArea.area": "method",
        NS + "Loggable": "trait",
        NS + "Loggable.log": "method",
        NS + "Suit": "enum",
        NS + "top": "function",
    }


def test_braced_namespace_qualifies_its_members() -> None:
    pf = parse("php", "<?php\nnamespace Shop {\n    class Item {\n        function price() {}\n    }\n}\n")
    names = by_qname(pf)
    assert names["Shop.Item.price"].kind == "method"
    assert pf.symbols[names["Shop.Item"].parent].qualified_name == "Shop"


def test_lines(pf) -> None:
    names = by_qname(pf)
    assert (names[NS + "Circle"].start_line, names[NS + "Circle"].end_line) == (16, 36)
    assert (names[NS + "Circle.__construct"].start_line, names[NS + "Circle.__construct"].end_line) == (22, 31)
    assert names[NS + "LIMIT"].start_line == 10


def test_signatures(pf) -> None:
    names = by_qname(pf)
    assert names[NS + "Circle"].signature == (
        "abstract class Circle extends \\Base\\Shape implements ShapeContract, \\Countable"
    )
    assert names[NS + "Circle.__construct"].signature == (
        "public function __construct(private float $r, LoggerInterface $log)"
    )
    assert names[NS + "top"].signature == "function top(array $a): int"
    assert names[NS + "Circle.PI"].signature == "const PI = 3.14;"


def test_doc_comments(pf) -> None:
    names = by_qname(pf)
    assert names[NS + "Circle"].docstring == "A circle."
    assert names[NS + "HasArea"].docstring == ""


def test_private_members_are_not_exported(pf) -> None:
    names = by_qname(pf)
    assert not names[NS + "Circle.secret"].exported
    assert names[NS + "Circle.area"].exported  # protected is still visible to subclasses elsewhere
    assert names[NS + "Circle.__construct"].exported


def test_extends_and_implements(pf) -> None:
    assert refs(pf, "inherits") == {("Base", "Shape"), ("", "Countable")}
    assert source_of(pf, ref_named(pf, "inherits", "Shape")) == NS + "Circle"
    assert source_of(pf, ref_named(pf, "inherits", "Countable")) == NS + "HasArea"  # interface extends
    implements = refs(pf, "implements")
    assert implements == {("", "ShapeContract"), ("", "Countable"), ("", "Loggable"), ("", "HasLabel")}
    loggable = ref_named(pf, "implements", "Loggable")  # `use Loggable;` in the class body
    assert source_of(pf, loggable) == NS + "Circle"
    assert loggable.line == 18
    assert source_of(pf, ref_named(pf, "implements", "HasLabel")) == NS + "Suit"


def test_calls_with_qualifiers(pf) -> None:
    calls = refs(pf, "calls")
    assert calls == {
        ("parent", "__construct"),
        ("$this", "log"),
        ("self", "registry"),
        ("self::registry()", "add"),
        ("Util", "calc"),
        ("", "Point"),  # new Point(1, 2)
        ("Geo", "Vector"),  # new \Geo\Vector()
        ("", "strlen"),
        ("", "count"),
    }
    log = ref_named(pf, "calls", "log")
    assert source_of(pf, log) == NS + "Circle.__construct"
    assert log.line == 25


def test_type_references(pf) -> None:
    assert ("", "LoggerInterface") in refs(pf, "references")


def test_imports(pf) -> None:
    assert imports(pf) == {
        ("App\\Contracts", "Shape", "ShapeContract"),
        ("Psr\\Log", "LoggerInterface", ""),
        ("App\\Support", "helper", ""),  # use function
        ("App\\Traits", "Loggable", ""),  # group use
        ("App\\Traits", "Cacheable", "Cache"),
        ("vendor/autoload.php", "", ""),
    }
    assert [i.line for i in pf.imports] == [4, 5, 6, 7, 7, 8]


def test_broken_code_keeps_what_parsed() -> None:
    pf = parse("php", "<?php\nclass Ok {}\nfunction broken( {\n")
    assert pf.has_error
    assert "Ok" in by_qname(pf)


def test_statement_namespace_matches_braced_form() -> None:
    statement = parse(
        "php", "<?php\nnamespace App\\Billing;\nclass Invoice {\n    function total() {}\n}\nfunction helper() {}\n"
    )
    braced = parse(
        "php", "<?php\nnamespace App\\Billing {\nclass Invoice {\n    function total() {}\n}\nfunction helper() {}\n}\n"
    )
    names = by_qname(statement)
    assert names["App\\Billing.Invoice.total"].kind == "method"
    assert names["App\\Billing.helper"].kind == "function"
    assert set(names) == set(by_qname(braced))
    assert pf_parent(statement, "App\\Billing.Invoice") == "App\\Billing"


def test_several_statement_namespaces_each_cover_their_part() -> None:
    code = "<?php\nnamespace First;\nfunction a() { b(); }\n\nnamespace Second;\nclass K {}\nfunction c() {}\n"
    pf = parse("php", code)
    names = by_qname(pf)
    assert {"First.a", "Second.K", "Second.c"} <= set(names)
    assert (names["First"].start_line, names["First"].end_line) == (2, 3)
    assert (names["Second"].start_line, names["Second"].end_line) == (5, 7)
    assert source_of(pf, ref_named(pf, "calls", "b")) == "First.a"


def pf_parent(pf, qname: str) -> str:
    """Qualified name of a symbol's parent."""
    return pf.symbols[by_qname(pf)[qname].parent].qualified_name
