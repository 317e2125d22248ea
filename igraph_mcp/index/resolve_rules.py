"""Per-language resolution rules and how sure each resolution method is, as data.

Confidences are the precision measured for each method by benchmarks/graph_accuracy.py (Python; requests,
flask and click, jedi as the oracle); a method never measured keeps a conservative guess, noted as such.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

# An edge at or above this confidence is "certain": expansion, `related` and `node` prefer these.
CERTAIN = 0.9

# Resolution method -> confidence. Bound methods only; an unbound reference has confidence 0. The Python
# figures are the lowest precision per method over requests, flask, click and marshmallow (2026-11-30, jedi as
# the oracle, unknowns counted as wrong): import 0.999, inferred 1.000, same_file 0.996, self 0.949.
CONFIDENCE: dict[str, float] = {
    "same_file": 0.99,  # a definition in the caller's scope or file
    "import": 0.99,  # an import binding, followed through re-exports
    "self": 0.95,  # self/cls/super: a member of the enclosing class or of its bases, in MRO order
    "inferred": 0.99,  # receiver typed by an assignment, an annotation, a constructor or a return annotation
    "qualified_name": 0.9,  # `Type.member` where only one type of that name defines the member (not measured)
    # Name-only fallbacks, kept for languages whose receivers are not inferred. Measured on Python before
    # scope resolution: same directory 0.06-0.16, unique global name 0.84-0.92 (issue 12).
    "same_directory": 0.3,
    "unique_global": 0.6,
}


@dataclass(frozen=True, slots=True)
class ResolveRules:
    """How one language binds names.

    lexical: names are looked up by scope (locals, enclosing functions, module, imports, builtins) and a
    method call binds only when its receiver's type is inferred; nothing is bound by name alone.
    builtins: names the language itself defines; an unshadowed use of one is never repository code.
    self_names / class_names: receivers meaning this instance / this class; super_name: the parent's view.
    bind_unknown_receivers: whether a method call on a receiver of unknown type may be bound by name alone.
    """

    lexical: bool = False
    builtins: frozenset[str] = frozenset()
    self_names: frozenset[str] = frozenset({"self", "this", "Self", "@", "$this"})
    class_names: frozenset[str] = frozenset({"cls", "static", "parent"})
    super_name: str = "super"
    # Bind `x.m()` with x of unknown type to a same-named method by directory or unique name (a guess).
    bind_unknown_receivers: bool = False


PYTHON = ResolveRules(
    lexical=True,
    builtins=frozenset(dir(builtins)),
    self_names=frozenset({"self"}),
    class_names=frozenset({"cls"}),
    super_name="super",
)

RULES: dict[str, ResolveRules] = {"python": PYTHON}
DEFAULT_RULES = ResolveRules()

# Path parts that mark test code; library code is never bound to test code by a name-only fallback.
TEST_DIR_PARTS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "testdata", "fixtures"})


def is_test_path(path: str) -> bool:
    """A file of tests or test helpers (by directory or by the usual file-name conventions)."""
    parts = path.lower().split("/")
    name = parts[-1]
    stem = name.split(".", 1)[0]
    return (
        bool(set(parts[:-1]) & TEST_DIR_PARTS)
        or stem.startswith("test_")
        or stem.endswith(("_test", "_spec"))
        or ".test." in name
        or ".spec." in name
        or name == "conftest.py"
    )


def rules_for(language: str) -> ResolveRules:
    """The resolution rules of a language (name-only fallbacks for languages without their own row)."""
    return RULES.get(language, DEFAULT_RULES)
