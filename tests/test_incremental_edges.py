"""Every edge after an incremental update (target, resolution, confidence, candidates in their order) equals a fresh
full index of the same tree: edits, additions, deletions and renames across cross-file calls, imports, inheritance,
type facts, re-exports and ambiguous names (more candidates than are kept, too), in Python (scope inference) and Go
(name-only rules, a package-level variable another file of the package calls through); and an edit other files
cannot see (a function body) binds only the edited file's references."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from _factories import (
    edges_by_place,
    edit_file,
    index_repo,
    make_repo,
    make_service,
    marked_for_reparse,
    undo_schema_15,
    write_file,
)

from igraph_mcp.service import IGraphService
from igraph_mcp.store.db import Database
from igraph_mcp.store.schema import MIGRATIONS

pytestmark = pytest.mark.both_stores

REPO = {
    "pkg/__init__.py": "from .models import Base, Session\n",
    "pkg/models.py": """
        class Base:
            def save(self):
                return 1

            def close(self):
                return 2

        class Session(Base):
            def query(self, q):
                return q

            def close(self):
                return super().close()
        """,
    "pkg/store.py": """
        from pkg import Session

        class Store:
            def __init__(self):
                self.session = Session()

            def run(self, q):
                return self.session.query(q)
        """,
    "pkg/api.py": """
        from pkg.store import Store
        from pkg.models import Base

        class Handler(Base):
            def handle(self, q):
                self.save()
                return Store().run(q)

        def unknown(thing):
            return thing.close()

        def helper():
            return 3
        """,
    "pkg/cli.py": """
        from pkg.api import Handler, helper

        def main():
            Handler().handle("x")
            return helper()
        """,
    **{f"many/m{i}.py": f"class C{i}:\n    def close(self):\n        return {i}\n" for i in range(10)},
    # `import util` names two files equally near: an ambiguous import whose candidates are module nodes.
    "amb/one/util.py": "def f():\n    return 1\n",
    "amb/two/util.py": "def f():\n    return 2\n",
    "amb/main.py": "import util\n",
    "go/util/util.go": """
        package util

        func Shared() int { return 1 }

        type Box struct{}

        func (b *Box) Open() int { return Shared() }
        """,
    "go/app/app.go": """
        package app

        import "go/util"

        func Run() int {
            b := &util.Box{}
            b.Open()
            return util.Shared()
        }
        """,
    # A Go package-level variable types receivers in the package's other files too.
    "go/conf/conf.go": """
        package conf

        type Conf struct{}

        type Store struct{}

        var v *Conf

        func (c *Conf) Log() {}

        func (s *Store) Log() {}

        func Split() (int, *Conf) { return 0, nil }
        """,
    "go/conf/use.go": """
        package conf

        func Use() { v.Log() }

        func UseSecond() {
            _, c := Split()
            c.Log()
        }
        """,
    # A module's root package, imported by the path its go.mod declares (nothing of a folder's name left to match).
    "go/mod/go.mod": "module example.com/mod/v2\n\ngo 1.21\n",
    "go/mod/mod.go": """
        package mod

        type Client struct{}

        func (c *Client) Send() int { return 1 }

        func Dial() *Client { return &Client{} }
        """,
    "go/mod/cmd/main.go": """
        package main

        import "example.com/mod/v2"

        func main() { mod.Dial().Send() }
        """,
}

# Each step changes the tree, then the incremental index must equal a fresh full index of it.
STEPS: list[tuple[str, dict[str, str | None]]] = [
    # Bodies only (lines move, no definition, import, base or outside-visible fact changes): the fast path.
    (
        "edit function bodies",
        {
            "pkg/models.py": REPO["pkg/models.py"].replace("return 1", "n = 1\n\n                return n"),
            "many/m0.py": "class C0:\n    def close(self):\n\n        x = 10\n        return x\n",
            "amb/one/util.py": "def f():\n    x = 3\n    return x\n",
        },
    ),
    # A method's local names reach other files through the attribute it types: not a body-only edit.
    (
        "type an attribute through a local",
        {
            "pkg/store.py": REPO["pkg/store.py"].replace(
                "self.session = Session()", "s = Session()\n                self.session = s"
            )
        },
    ),
    # Same name, another kind: edges naming it elsewhere see another definition.
    ("turn a function into a class", {"pkg/api.py": REPO["pkg/api.py"].replace("def helper():", "class helper:")}),
    ("and back", {"pkg/api.py": REPO["pkg/api.py"]}),
    # Two same-named methods swap places in one file: candidate lists keep source order.
    (
        "reorder same-named definitions",
        {
            "many/m1.py": "class D1:\n    def close(self):\n        return 0\n\n"
            "class C1:\n    def close(self):\n        return 1\n"
        },
    ),
    # Deleting a file binds its importers again without a pass over every edge; adding it back likewise.
    ("delete a file others import", {"pkg/store.py": None}),
    ("add it back", {"pkg/store.py": REPO["pkg/store.py"]}),
    # A second `helper` elsewhere: unbound references to that name now see two candidates.
    (
        "add a same-named definition",
        {"pkg/extra.py": "def helper():\n    return 4\n\nclass Other:\n    def close(self):\n        return 5\n"},
    ),
    # The type fact in Store changes: self.session's calls bind elsewhere although store.py's callers are unchanged.
    (
        "edit a class others call through",
        {
            "pkg/models.py": """
                class Base:
                    def save(self):
                        return 1

                class Session(Base):
                    def query(self, q, limit=None):
                        return q

                    def close(self):
                        return 0

                    def flush(self):
                        return self.query(None)
                """
        },
    ),
    # A re-export disappears: `from pkg import Session` binds nothing any more.
    ("edit a re-export", {"pkg/__init__.py": "from .models import Base\n"}),
    ("delete a file", {"pkg/extra.py": None}),
    ("rename a file", {"pkg/api.py": "->pkg/handlers.py"}),
    (
        "fix the importer of the renamed file",
        {
            "pkg/cli.py": "from pkg.handlers import Handler, helper\n\n"
            "def main():\n    Handler().handle('x')\n    return helper()\n"
        },
    ),
    (
        "change a Go file",
        {
            "go/util/util.go": "package util\n\nfunc Shared() int { return 2 }\n\nfunc Extra() int { return 3 }\n",
            "go/app/more.go": "package app\n\nfunc Open() int { return Extra() }\n",
        },
    ),
    # Only conf.go changes, and only a function's second result type: use.go's `c.Log()` is Store's now.
    (
        "retype a Go function's second result",
        {"go/conf/conf.go": REPO["go/conf/conf.go"].replace("Split() (int, *Conf)", "Split() (int, *Store)")},
    ),
    # Only conf.go changes, and only a variable's type: use.go's `v.Log()` is Store's now.
    (
        "retype a Go package variable",
        {"go/conf/conf.go": REPO["go/conf/conf.go"].replace("var v *Conf", "var v *Store")},
    ),
    ("delete the Go file declaring it", {"go/conf/conf.go": None}),
    # Only go.mod changes (no source file): the import names no package of the tree any more, and back.
    ("bump a Go module's major version", {"go/mod/go.mod": "module example.com/mod/v3\n\ngo 1.21\n"}),
    ("import the new version", {"go/mod/cmd/main.go": REPO["go/mod/cmd/main.go"].replace("/v2", "/v3")}),
]


def _full_index_edges(root: Path, tmp_path: Path) -> list[tuple[Any, ...]]:
    copy = tmp_path / "full-copy"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".igraph"))
    svc: IGraphService = make_service(copy)
    try:
        svc.index(full=True)
        return edges_by_place(svc.db)
    finally:
        svc.close()


def _apply(root: Path, change: dict[str, str | None]) -> None:
    for rel, text in change.items():
        if text is None:
            (root / rel).unlink()
        elif text.startswith("->"):
            os.rename(root / rel, root / text[2:])
        elif (root / rel).exists():
            edit_file(root, rel, text)
        else:
            write_file(root, rel, text)


def test_every_incremental_step_leaves_the_edges_of_a_full_index(tmp_path: Path) -> None:
    root = make_repo(tmp_path, REPO)
    svc = index_repo(root)
    try:
        assert edges_by_place(svc.db) == _full_index_edges(root, tmp_path)
        resolutions = {e[6] for e in edges_by_place(svc.db)}
        assert {"import", "ambiguous"} <= resolutions  # the fixture exercises bound and ambiguous references
        assert any(e[1] == "imports" and e[6] == "ambiguous" and len(e[8]) == 2 for e in edges_by_place(svc.db))
        failures: list[str] = []
        for label, change in STEPS:
            _apply(root, change)
            svc.index()
            got, want = edges_by_place(svc.db), _full_index_edges(root, tmp_path)
            extra = [e for e in got if e not in want]
            missing = [e for e in want if e not in got]
            failures.extend(f"after '{label}': incremental only {e}" for e in extra)
            failures.extend(f"after '{label}': full only {e}" for e in missing)
        assert not failures, "\n".join(failures)
    finally:
        svc.close()


def _references_from(db: Database, path: str) -> int:
    rows = db.rows(
        "SELECT count(*) FROM edges e JOIN nodes n ON n.id = e.source_id JOIN files f ON f.id = n.file_id "
        "WHERE f.path = ? AND e.kind != 'contains'",
        (path,),
    )
    return int(rows[0][0])


def test_a_body_edit_binds_only_the_edited_files_references(tmp_path: Path) -> None:
    root = make_repo(tmp_path, REPO)
    svc = index_repo(root)
    try:
        closed = [e for e in edges_by_place(svc.db) if e[2] == "close" and e[6] == "ambiguous"]
        assert closed and all(len(e[8]) == 8 for e in closed)  # more `close` methods than candidates kept
        edit_file(root, "pkg/models.py", REPO["pkg/models.py"].replace("return 1", "n = 1\n\n                return n"))
        done = svc.index()
        assert done.parsed == 1
        assert done.rebound == _references_from(svc.db, "pkg/models.py")  # not store.py, api.py or cli.py
        assert edges_by_place(svc.db) == _full_index_edges(root, tmp_path)
        # A new top-level name is seen by importers: those are bound again too.
        edit_file(root, "pkg/models.py", REPO["pkg/models.py"] + "\n\ndef added():\n    return 4\n")
        assert svc.index().rebound > _references_from(svc.db, "pkg/models.py")
        assert edges_by_place(svc.db) == _full_index_edges(root, tmp_path)
    finally:
        svc.close()


def test_files_edited_together_keep_no_edge_of_each_other(tmp_path: Path) -> None:
    # A header's prototypes declare the bodies of a source file read after it. Both edited in one run: the
    # header's old `declares` edges into the source go with the header, and SQLite hands their ids to the
    # header's new edges; carried over as the source's bindings they rebound those (`contains` -> a function).
    files = {
        "inc/api.h": "int open_it(int x);\nint close_it(int x);\nstruct conn { int fd; };\n",
        "src/api.c": '#include "../inc/api.h"\nint open_it(int x) { return close_it(x); }\n'
        "int close_it(int x) { return x; }\n",
    }
    root = make_repo(tmp_path, files, filler=False)
    svc = index_repo(root)
    try:
        assert any(e[1] == "declares" for e in edges_by_place(svc.db))  # the fixture links across the two files
        _apply(root, {path: text + "/* edited */\n" for path, text in files.items()})
        assert svc.index().parsed == 2
        got, want = edges_by_place(svc.db), _full_index_edges(root, tmp_path)
        assert [e for e in got if e not in want] == [] and [e for e in want if e not in got] == []
    finally:
        svc.close()


@pytest.mark.sqlite_only
def test_schema_15_reads_again_the_files_that_bug_left_wrong(tmp_path: Path) -> None:
    import apsw  # the SQLite driver, for the hand-made older index

    files = {"inc/api.h": "int open_it(int x);\n", "src/api.c": "int open_it(int x) { return x; }\n"}
    root = make_repo(tmp_path, files)
    svc = index_repo(root)
    try:
        want = edges_by_place(svc.db)
    finally:
        svc.close()
    con = apsw.Connection(str(root / ".igraph" / "igraph.db"))
    undo_schema_15(con)
    # What the bug left: the header's `contains` edge bound to the source file's function.
    con.execute(
        "UPDATE edges SET target_id = (SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id "
        "WHERE f.path = 'src/api.c' AND n.name = 'open_it'), resolution = 'include' WHERE kind = 'contains' "
        "AND source_id = (SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = 'inc/api.h' "
        "AND n.kind = 'module')"
    )
    for sql in dict(MIGRATIONS)[15]:  # version 15 alone marks the file the bug left wrong ...
        con.execute(sql)
    assert {str(p) for (p,) in con.execute("SELECT path FROM files WHERE sha256 = ''")} == {"inc/api.h"}
    con.close()
    # ... and version 16 every file but Python's (its doc comments: store/schema.py).
    assert marked_for_reparse(root / ".igraph" / "igraph.db") == {"inc/api.h", "src/api.c"}
    svc = make_service(root)
    try:
        assert svc.index().parsed == 2
        assert edges_by_place(svc.db) == want
    finally:
        svc.close()
