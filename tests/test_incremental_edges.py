"""Every edge after an incremental update (target, resolution, confidence, candidates) equals a fresh full index of
the same tree: edits, additions, deletions and renames across cross-file calls, imports, inheritance, type facts,
re-exports and ambiguous names, in Python (scope inference) and Go (name-only rules)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from _factories import edit_file, index_repo, make_repo, make_service, write_file

from igraph_mcp.service import IGraphService
from igraph_mcp.store.db import Database

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
}

# Each step changes the tree, then the incremental index must equal a fresh full index of it.
STEPS: list[tuple[str, dict[str, str | None]]] = [
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
]


def _edges(db: Database) -> list[tuple[Any, ...]]:
    """Every edge keyed by paths, qualified names and lines instead of row ids; candidates translated likewise."""
    key_of = {
        int(nid): (str(path), str(qname), int(line))
        for nid, path, qname, line in db.rows(
            "SELECT n.id, f.path, n.qualified_name, n.start_line FROM nodes n JOIN files f ON f.id = n.file_id"
        )
    }
    out = []
    for sid, tid, kind, name, qualifier, resolution, confidence, candidates, line in db.rows(
        "SELECT source_id, target_id, kind, target_name, qualifier, resolution, confidence, candidates, line FROM edges"
    ):
        # Candidates follow node id order, which differs between an incremental and a full build: compared as a set.
        cands = tuple(
            sorted(key_of.get(int(c), ("?", str(c), 0)) for c in (json.loads(candidates) if candidates else []))
        )
        target = key_of.get(int(tid), ("?", str(tid), 0)) if tid is not None else None
        out.append(
            (key_of[int(sid)], kind, name, qualifier, line, target, resolution, round(float(confidence), 6), cands)
        )
    return sorted(out, key=repr)


def _full_index_edges(root: Path, tmp_path: Path) -> list[tuple[Any, ...]]:
    copy = tmp_path / "full-copy"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".igraph"))
    svc: IGraphService = make_service(copy)
    try:
        svc.index(full=True)
        return _edges(svc.db)
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
        assert _edges(svc.db) == _full_index_edges(root, tmp_path)
        resolutions = {e[6] for e in _edges(svc.db)}
        assert {"import", "ambiguous"} <= resolutions  # the fixture exercises bound and ambiguous references
        failures: list[str] = []
        for label, change in STEPS:
            _apply(root, change)
            svc.index()
            got, want = _edges(svc.db), _full_index_edges(root, tmp_path)
            extra = [e for e in got if e not in want]
            missing = [e for e in want if e not in got]
            failures.extend(f"after '{label}': incremental only {e}" for e in extra)
            failures.extend(f"after '{label}': full only {e}" for e in missing)
        assert not failures, "\n".join(failures)
    finally:
        svc.close()
