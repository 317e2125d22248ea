"""Binding every edge page by page: the edges a full build leaves do not depend on the page size, on either store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _counts import assert_counts_exact
from _factories import make_repo, make_service
from test_neighbour_truth import FIXTURES

from igraph_mcp.index import bind

pytestmark = pytest.mark.both_stores


def _edges(db: Any) -> list[tuple[Any, ...]]:
    """Every edge with its binding, node and edge ids counted from the build's first (PostgreSQL's sequences go on
    across rebuilds; a build writes in the same order)."""
    node0 = int(db.scalar("SELECT min(id) FROM nodes"))
    edge0 = int(db.scalar("SELECT min(id) FROM edges"))
    out = []
    for e, s, t, kind, name, qual, how, line, conf, cands in db.rows(
        "SELECT id, source_id, target_id, kind, target_name, qualifier, resolution, line, confidence, candidates "
        "FROM edges"
    ):
        listed = [c - node0 for c in json.loads(cands)] if cands else []
        target = None if t is None else t - node0
        out.append((e - edge0, s - node0, target, kind, name, qual, how, line, round(conf, 6), listed))
    return sorted(out, key=repr)


def _built(root: Path) -> list[tuple[Any, ...]]:
    svc = make_service(root)
    try:
        svc.index(embed=False, full=True)
        assert_counts_exact(svc.db)
        return _edges(svc.db)
    finally:
        svc.close()


@pytest.mark.parametrize("language", ["java", "typescript", "python"])
def test_pages_of_three_references_bind_as_one_page(
    language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, FIXTURES[language], filler=False, name=language)
    whole = _built(root)
    references = [e for e in whole if e[3] not in ("contains", "declares")]
    assert len(references) > 9 and any(e[2] is not None for e in references)
    monkeypatch.setattr(bind, "REFERENCES_PER_PAGE", 3)
    assert _built(root) == whole
