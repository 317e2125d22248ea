"""Tests for reference resolution: each method, ambiguity kept unresolved, Python and JS relative imports."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import edge_target, index_repo, make_repo

from igraph_mcp.index.resolve import Resolver
from igraph_mcp.index.symbols import OnDemand, Sym, SymbolTable, module_candidates, submodule
from igraph_mcp.vocab.edges import CONFIDENCE


# -- module_candidates (pure) --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("module", "importer", "expected_first"),
    [
        ("pkg.sub.leaf", "x/y.py", "pkg/sub/leaf"),
        (".util", "pkg/core/a.py", "pkg/core/util"),
        ("..base", "pkg/core/a.py", "pkg/base"),
        ("...top", "pkg/core/deep/a.py", "pkg/top"),
        (".", "pkg/core/a.py", "pkg/core"),
        ("./lib/util", "web/src/app.js", "web/src/lib/util"),
        ("../shared/index.js", "web/src/app.js", "web/shared"),
        ("./helpers.ts", "web/a.ts", "web/helpers"),
        ("crate::store::db", "src/main.rs", "store/db"),
        ("'quoted.leaf'", "a.py", "quoted/leaf"),
    ],
)
def test_module_candidates(module: str, importer: str, expected_first: str) -> None:
    assert module_candidates(module, importer)[0] == expected_first


def test_extensionless_index_import_names_its_folder() -> None:
    # `import type {SchemaCxt} from "./index"` is lib/compile/index.ts, whose module key is its folder.
    assert "lib/compile" in module_candidates("./index", "lib/compile/errors.ts")
    assert "lib/compile" not in module_candidates("./indexes", "lib/compile/errors.ts")


def test_module_candidates_empty() -> None:
    assert module_candidates("  ", "a.py") == []


# -- Resolver on a hand-made symbol table --------------------------------------------------------------------
def _resolver() -> Resolver:
    # JavaScript paths: the name-only fallbacks are tested on a language that still uses them.
    files = {1: "a/one.js", 2: "a/two.js", 3: "b/three.js", 4: "c/four.js"}
    syms = [
        Sym(10, 1, "module", "one", "a.one", None),
        Sym(11, 1, "function", "local_fn", "local_fn", 10),
        Sym(12, 1, "class", "Box", "Box", 10),
        Sym(13, 1, "method", "open", "Box.open", 12),
        Sym(14, 1, "method", "close", "Box.close", 12),
        Sym(20, 2, "module", "two", "a.two", None),
        Sym(21, 2, "function", "dir_fn", "dir_fn", 20),
        Sym(22, 2, "function", "shared", "shared", 20),
        Sym(30, 3, "module", "three", "b.three", None),
        Sym(31, 3, "function", "global_fn", "global_fn", 30),
        Sym(32, 3, "function", "shared", "shared", 30),
        Sym(33, 3, "function", "twice", "twice", 30),
        Sym(40, 4, "module", "four", "c.four", None),
        Sym(41, 4, "function", "twice", "twice", 40),
        Sym(42, 4, "function", "local_fn", "local_fn", 40),
    ]
    imports = {1: [("../b/three", "shared", "")], 4: [("../b/three", "", "three")]}
    return Resolver(SymbolTable(syms, files, imports))


@pytest.mark.parametrize(
    ("source", "file", "name", "qualifier", "expected"),
    [
        (13, 1, "local_fn", "", (11, "same_file")),  # a same-named function in c/four.py does not matter
        (13, 1, "close", "self", (14, "same_file")),
        (11, 1, "shared", "", (32, "import")),  # imported beats the same-directory definition in a/two.py
        (11, 1, "dir_fn", "", (21, "same_directory")),
        (11, 1, "global_fn", "", (31, "unique_global")),
        (11, 1, "twice", "", (None, "ambiguous")),  # b/three.py and c/four.py: no guess
        (11, 1, "nowhere", "", (None, "unresolved")),
        (41, 4, "twice", "three", (33, "import")),  # three.twice() through `import b.three as three`
        (11, 1, "open", "Box", (13, "inferred")),  # Box is a class of this file: its member, not a guess
        (11, 1, "Box", "", (12, "same_file")),
    ],
)
def test_resolution_methods(
    source: int, file: int, name: str, qualifier: str, expected: tuple[int | None, str]
) -> None:
    b = _resolver().resolve(source, file, "calls", name, qualifier)
    assert (b.target, b.how) == expected


def test_inherits_only_binds_type_like_targets() -> None:
    # `local_fn` is a function: a class cannot inherit from it, so it stays unresolved rather than guessed.
    b = _resolver().resolve(12, 1, "inherits", "local_fn", "")
    assert (b.target, b.how) == (None, "unresolved")
    b = _resolver().resolve(41, 4, "inherits", "Box", "")
    assert (b.target, b.how, b.confidence) == (12, "unique_global", CONFIDENCE["unique_global"])


def test_resolve_import_targets() -> None:
    r = _resolver()
    got = [
        r.resolve_import(1, "../b/three", "shared"),
        r.resolve_import(4, "../b/three", ""),
        r.resolve_import(1, "./m/x", "x"),
    ]
    assert [(b.target, b.how) for b in got] == [(32, "import"), (30, "import"), (None, "unresolved")]


# -- end to end: Python --------------------------------------------------------------------------------------
PY = {
    "pkg/__init__.py": "",
    "pkg/core/__init__.py": "",
    "pkg/core/base.py": """
        class Base:
            def run(self):
                return self.step()

            def step(self):
                return 1
        """,
    "pkg/core/util.py": """
        def fmt(value):
            return str(value)

        def parse(text):
            return text.strip()
        """,
    "pkg/core/engine.py": """
        from .util import fmt
        from . import util
        from ..helpers import tidy
        from .base import Base

        class Engine(Base):
            def go(self):
                return fmt(util.parse(tidy("x")))
        """,
    "pkg/helpers.py": """
        def tidy(s):
            return s
        """,
    "other/util.py": """
        def fmt(value):
            return repr(value)

        def parse(text):
            return text
        """,
    "other/use.py": """
        from pkg.core.util import fmt as core_fmt

        def use():
            return core_fmt(1) + parse("x")
        """,
}


@pytest.fixture(scope="module")
def py_db(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    svc = index_repo(make_repo(tmp_path_factory.mktemp("py"), PY))
    try:
        yield svc.db
    finally:
        svc.close()


def test_python_relative_from_import(py_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(py_db, "Engine.go", "fmt") == ("pkg/core/util.py", "fmt", "import")


def test_python_relative_module_import(py_db) -> None:  # type: ignore[no-untyped-def]
    # `from . import util` then `util.parse(...)`: the package's module, not other/util.py
    assert edge_target(py_db, "Engine.go", "parse") == ("pkg/core/util.py", "parse", "import")


def test_python_parent_relative_import(py_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(py_db, "Engine.go", "tidy") == ("pkg/helpers.py", "tidy", "import")


def test_python_relative_base_class(py_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(py_db, "Engine", "Base", "inherits") == ("pkg/core/base.py", "Base", "import")


def test_python_self_call_same_file(py_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(py_db, "Base.run", "step") == ("pkg/core/base.py", "Base.step", "self")


def test_python_aliased_absolute_import(py_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(py_db, "use", "core_fmt") == ("pkg/core/util.py", "fmt", "import")


def test_python_never_binds_by_directory(py_db) -> None:  # type: ignore[no-untyped-def]
    # `parse` is neither defined nor imported in other/use.py: a NameError at run time, not other/util.parse
    assert edge_target(py_db, "use", "parse") == (None, None, "unresolved")


def test_python_import_edges_point_at_symbols_and_modules(py_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(py_db, "pkg.core.engine", "fmt", "imports") == ("pkg/core/util.py", "fmt", "import")
    assert edge_target(py_db, "pkg.core.engine", "util", "imports") == (
        "pkg/core/util.py",
        "pkg.core.util",
        "import",
    )


def test_ambiguous_references_are_kept_unresolved(tmp_path: Path) -> None:
    svc = index_repo(
        make_repo(
            tmp_path,
            {
                "x/a.js": "function dup() {\n  return 1;\n}\n",
                "y/b.js": "function dup() {\n  return 2;\n}\n",
                "z/c.js": "function caller() {\n  return dup() + missing();\n}\n",
            },
        )
    )
    try:
        assert edge_target(svc.db, "caller", "dup") == (None, None, "ambiguous")
        assert edge_target(svc.db, "caller", "missing") == (None, None, "unresolved")
        refs = svc.node("caller").callees
        assert {(e.name, e.nodeId, e.resolution) for e in refs} >= {
            ("dup", None, "ambiguous"),
            ("missing", None, "unresolved"),
        }
        assert svc.status().unresolvedRefs >= 2
    finally:
        svc.close()


# -- end to end: JavaScript ----------------------------------------------------------------------------------
JS = {
    "web/src/lib/util.js": "export function format(v) { return String(v); }\nexport function other() {}\n",
    "web/src/lib/index.js": "export function fromIndex() { return 1; }\n",
    "web/src/shared/math.js": "export function add(a, b) { return a + b; }\n",
    "web/src/shared/widget.js": "export default function makeWidget() { return {}; }\n",
    "web/other/util.js": "export function format(v) { return v; }\n",
    "web/src/app/main.js": """
        import { format } from '../lib/util';
        import { fromIndex } from '../lib';
        import * as math from '../shared/math.js';
        import makeWidget from '../shared/widget';

        export function main() {
          return format(fromIndex()) + math.add(1, 2) + makeWidget();
        }
        """,
}


@pytest.fixture(scope="module")
def js_db(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    svc = index_repo(make_repo(tmp_path_factory.mktemp("js"), JS))
    try:
        yield svc.db
    finally:
        svc.close()


def test_js_relative_named_import(js_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(js_db, "main", "format") == ("web/src/lib/util.js", "format", "import")


def test_js_directory_index_import(js_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(js_db, "main", "fromIndex") == ("web/src/lib/index.js", "fromIndex", "import")


def test_js_namespace_import_with_extension(js_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(js_db, "main", "add") == ("web/src/shared/math.js", "add", "import")


def test_js_default_import(js_db) -> None:  # type: ignore[no-untyped-def]
    assert edge_target(js_db, "main", "makeWidget") == ("web/src/shared/widget.js", "makeWidget", "import")


def test_python_module_named_main_is_not_its_package(tmp_path: Path) -> None:
    svc = index_repo(
        make_repo(
            tmp_path,
            {
                "app/__init__.py": "VERSION = 1\n",
                "app/main.py": "def start():\n    return 1\n",
                "cli.py": "import app.main\n\ndef entry():\n    return app.main.start()\n",
            },
        )
    )
    try:
        assert edge_target(svc.db, "cli", "", "imports") == ("app/main.py", "app.main", "import")
    finally:
        svc.close()


def test_method_on_unknown_receiver_is_not_bound_by_directory() -> None:
    # a/two.js calls `thing.close()`: Box.close in a/one.js is the only `close` nearby, but nothing says `thing`
    # is a Box, so the call stays unbound with Box.close recorded as a candidate.
    b = _resolver().resolve(21, 2, "calls", "close", "thing")
    assert (b.target, b.how, b.candidates) == (None, "ambiguous", (14,))


def _importers_by_brute_force(table: SymbolTable, start: int) -> set[int]:
    """importers_closure without its shortcut: every import of every file asked where it points."""
    seen, todo = {start}, [start]
    while todo:
        f = todo.pop()
        for importer, rows in table.imports.items():
            for module, name, _alias in rows:
                targets = table.files_for_module(module, importer)
                if name and name != "*":
                    targets += table.files_for_module(submodule(module, name), importer)
                if f in targets and importer not in seen:
                    seen.add(importer)
                    todo.append(importer)
    return seen


class _ByWord:
    """ImportRows over a dict, matching words as the store's imports_mentioning does (substrings, case kept)."""

    def __init__(self, files: dict[int, str], imports: dict[int, list[tuple[str, str, str]]]) -> None:
        self.files, self.imports = files, imports

    def mentioning(self, words: list[str]) -> dict[int, list[tuple[str, str, str]]]:
        def hit(importer: int, module: str, name: str) -> bool:
            texts = [module, name] + ([self.files[importer]] if module.startswith(".") else [])
            return any(w in t for w in words for t in texts)

        found = {f: [r for r in rows if hit(f, r[0], r[1])] for f, rows in self.imports.items()}
        return {f: rows for f, rows in found.items() if rows}

    def every(self) -> dict[int, list[tuple[str, str, str]]]:
        return self.imports


def test_importers_closure_equals_asking_every_import() -> None:
    paths = [
        "main.py",
        "pkg/__init__.py",
        "pkg/models.py",
        "pkg/sub/store.py",
        "pkg/sub/__init__.py",
        "web/src/app.ts",
        "web/src/util/index.ts",
        "web/src/util/fmt.ts",
        "native/include/box.h",
        "native/src/box.c",
        "rs/src/lib.rs",
        "rs/src/net/mod.rs",
        ".hidden/x.py",
        "crates/rx-syntax/src/lib.rs",
        "crates/rx-syntax/src/hir/mod.rs",
    ]
    files = dict(enumerate(paths, start=1))
    imports: dict[int, list[tuple[str, str, str]]] = {
        1: [("pkg", "Session", ""), ("pkg.sub", "store", "")],
        2: [(".models", "Session", ""), (".", "sub", "")],
        3: [("..", "main", "")],
        4: [("pkg.models", "", "m"), ("...", "x", "")],
        6: [("./util", "", ""), ('"./util/fmt"', "", ""), ("../src/app", "", "")],
        7: [("./fmt", "", "")],
        10: [("box.h", "", ""), ("<include/box.h>", "", "")],
        11: [("crate::net", "", ""), ("self::net::Client", "", ""), ("rx_syntax::hir", "Hir", "")],
        12: [("super", "", "")],
        13: [("main", "", "")],
        14: [("crate::hir", "", "")],
    }
    # A Rust crate of the tree by its Cargo.toml name: `rx_syntax` is the folder crates/rx-syntax/src.
    crates = {"rx_syntax": "crates/rx-syntax/src"}
    table = SymbolTable([], files, imports, rust_crates=crates)
    on_demand = SymbolTable(
        [], files, OnDemand(lambda f: imports.get(f, [])), import_rows=_ByWord(files, imports), rust_crates=crates
    )
    for f in files:
        assert table.importers_closure([f]) == _importers_by_brute_force(table, f), files[f]
        assert on_demand.importers_closure([f]) == table.importers_closure([f]), files[f]
    assert table.importers_closure([3]) >= {1, 2, 4}  # store.py <- pkg.sub.store, the package, a sibling
    assert table.importers_closure([12]) >= {11}  # net/mod.rs <- `crate::net` in lib.rs
    assert table.importers_closure([11]) >= {12}  # lib.rs <- `super` in net/mod.rs
    assert table.importers_closure([15]) >= {11, 14}  # hir/mod.rs <- another crate's `rx_syntax::hir`, its own


def test_repeated_references_bind_every_edge_in_its_own_scope(tmp_path: Path) -> None:
    # The binder resolves a source's repeated reference once; each edge must still be bound, and a name that a
    # nested definition shadows in one function must not take that binding into another function of the file.
    svc = index_repo(
        make_repo(
            tmp_path,
            {
                "pkg/m.py": """
                    def helper():
                        return 1

                    def outer():
                        def helper():
                            return 2
                        return helper() + helper()

                    def user():
                        a = helper()
                        b = helper()
                        return a + b + helper()
                    """,
            },
        )
    )
    try:
        rows = svc.db.rows(
            "SELECT s.qualified_name, t.qualified_name, count(*) FROM edges e JOIN nodes s ON s.id = e.source_id "
            "LEFT JOIN nodes t ON t.id = e.target_id WHERE e.kind = 'calls' AND e.target_name = 'helper' "
            "GROUP BY 1, 2"
        )
        assert sorted(rows) == [("outer", "outer.helper", 2), ("user", "helper", 3)]
    finally:
        svc.close()
