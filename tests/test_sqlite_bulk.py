"""The SQLite bulk writer's binding indexes: set aside while a first build stores its edges, built again by binding."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import make_repo, open_service

from igraph_mcp.index.indexer import Indexer
from igraph_mcp.service import IGraphService

# More files than a scoped run binds (index/bind.py SCOPED_MAX_FILES): a first build of them binds every edge.
FILES = {
    "app/base.py": "class Base:\n    def run(self):\n        return 1\n",
    "app/child.py": "from app.base import Base\n\n\nclass Child(Base):\n    def go(self):\n        return self.run()\n",
    **{f"app/m{i}.py": f"from app.base import Base\n\n\ndef use_{i}():\n    return Base().run()\n" for i in range(60)},
}
BINDING = ("edges_source_order", "edges_target_order", "edges_target_name")
# A first build sets the name index aside as well: only an incremental pass reads it, and no binding changes it.
FIRST_BUILD = (*BINDING, "edges_name_all")


def _indexes(svc: IGraphService) -> dict[str, str]:
    return {str(n): str(s) for n, s in svc.db.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index'")}


def _meta(svc: IGraphService, key: str) -> str | None:
    return svc.db.get_meta(key)


def _clean_indexes(tmp_path: Path) -> dict[str, str]:
    with open_service(make_repo(tmp_path / "clean", FILES), index=True) as svc:
        return _indexes(svc)


def test_first_build_ends_with_every_index(tmp_path: Path) -> None:
    with open_service(make_repo(tmp_path, FILES), index=True) as svc:
        indexes = _indexes(svc)
        assert set(FIRST_BUILD) <= set(indexes)
        assert _meta(svc, "deferred_binding_indexes") is None


def test_build_dying_before_binding_leaves_indexes_to_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_service(make_repo(tmp_path, FILES)) as svc:

        def boom(*_a: object, **_k: object) -> int:
            raise RuntimeError("crash before binding")

        monkeypatch.setattr(Indexer, "_resolve", boom)
        with pytest.raises(RuntimeError):
            svc.index()
        # Set aside, remembered, and the run marked unfinished so the next one binds every edge.
        assert not set(FIRST_BUILD) & set(_indexes(svc))
        assert _meta(svc, "resolve_pending") == "1"
        assert _meta(svc, "deferred_binding_indexes")
        monkeypatch.undo()
        svc.index()
        assert set(FIRST_BUILD) <= set(_indexes(svc))
        assert _indexes(svc) == _clean_indexes(tmp_path)
        assert _meta(svc, "deferred_binding_indexes") is None


def test_a_run_replacing_files_keeps_the_indexes(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    with open_service(root, index=True) as svc:
        (root / "app" / "child.py").write_text("from app.base import Base\n\n\nclass Child(Base):\n    pass\n")
        svc.index(full=True)
        assert set(BINDING) <= set(_indexes(svc))
        assert _indexes(svc) == _clean_indexes(tmp_path)
