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
        "LIMIT": "constant",
        "DEBUG": "constant",  # define('DEBUG', true)
        "Circle": "class",
        "Circle.PI": "constant",
        "Circle.__construct": "method",
        "Circle.secret": "method",
        "Circle.area": "method",  # abstract, bodiless
        "HasArea": "interface",
        "HasArea.area": "method",
        "Loggable": "trait",
        "Loggable.log": "method",
        "Suit": "enum",
        "top": "function",
    }


def test_braced_namespace_qualifies_its_members() -> None:
    pf = parse("php", "<?php\nnamespace Shop {\n    class Item {\n        function price() {}\n    }\n}\n")
    names = by_qname(pf)
    assert names["Shop.Item.price"].kind == "method"
    assert pf.symbols[names["Shop.Item"].parent].qualified_name == "Shop"


def test_lines(pf) -> None:
    names = by_qname(pf)
    assert (names["Circle"].start_line, names["Circle"].end_line) == (16, 36)
    assert (names["Circle.__construct"].start_line, names["Circle.__construct"].end_line) == (22, 31)
    assert names["LIMIT"].start_line == 10


def test_signatures(pf) -> None:
    names = by_qname(pf)
    assert names["Circle"].signature == (
        "abstract class Circle extends \\Base\\Shape implements ShapeContract, \\Countable"
    )
    assert names["Circle.__construct"].signature == (
        "public function __construct(private float $r, LoggerInterface $log)"
    )
    assert names["top"].signature == "function top(array $a): int"
    assert names["Circle.PI"].signature == "const PI = 3.14;"


def test_doc_comments(pf) -> None:
    names = by_qname(pf)
    assert names["Circle"].docstring == "A circle."
    assert names["HasArea"].docstring == ""


def test_private_members_are_not_exported(pf) -> None:
    names = by_qname(pf)
    assert not names["Circle.secret"].exported
    assert names["Circle.area"].exported  # protected is still visible to subclasses elsewhere
    assert names["Circle.__construct"].exported


def test_extends_and_implements(pf) -> None:
    assert refs(pf, "inherits") == {("Base", "Shape"), ("", "Countable")}
    assert source_of(pf, ref_named(pf, "inherits", "Shape")) == "Circle"
    assert source_of(pf, ref_named(pf, "inherits", "Countable")) == "HasArea"  # interface extends
    implements = refs(pf, "implements")
    assert implements == {("", "ShapeContract"), ("", "Countable"), ("", "Loggable"), ("", "HasLabel")}
    loggable = ref_named(pf, "implements", "Loggable")  # `use Loggable;` in the class body
    assert source_of(pf, loggable) == "Circle"
    assert loggable.line == 18
    assert source_of(pf, ref_named(pf, "implements", "HasLabel")) == "Suit"


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
    assert source_of(pf, log) == "Circle.__construct"
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
