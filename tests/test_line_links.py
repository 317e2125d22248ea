"""Links to lines of a file in a query (GitHub and GitLab permalinks) point the ranking at the definitions there."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _factories import make_repo, open_service

from igraph_mcp.retrieve.analyze import MAX_LINE_LINKS, LineLink, analyze_query, line_links
from igraph_mcp.retrieve.channels import linked_channel
from igraph_mcp.service import IGraphService
from igraph_mcp.store import nodes as node_store

pytestmark = pytest.mark.both_stores

CACHE = """\
def make_key(name):
    return name.lower()


class Store:
    def remove_oldest(self, rows):
        keep = []
        for row in rows:
            if row.age < 10:
                keep.append(row)
        return keep

    def put(self, key, value):
        self.data[key] = value
"""
ONLY = """\
def parse_header(line):
    return line.split(":", 1)
"""
SRC = "https://github.com/acme/proj/blob/3f2a1b9c"


def test_permalinks_are_read_with_their_lines() -> None:
    text = (
        f"See {SRC}/src/pkg/cache.py#L8 and [this](https://github.com/django/django/blob/stable/1.11.x/"
        "django/db/backends/mysql/operations.py#L49-L55), GitLab's https://gitlab.com/a/b/-/blob/main/src/x.rs#L3-9, "
        f"again {SRC}/src/pkg/cache.py#L8. Not a line: https://github.com/a/b/blob/main/README.md, "
        "https://github.com/a/b/tree/main/src/x.py#L4, x.py#L3, https://github.com/a/b/blob/main/y.py#L0"
    )
    assert line_links(text) == [
        LineLink("3f2a1b9c/src/pkg/cache.py", 8, 8),
        LineLink("stable/1.11.x/django/db/backends/mysql/operations.py", 49, 55),
        LineLink("main/src/x.rs", 3, 9),
    ]
    assert analyze_query(text).line_links == line_links(text)
    many = " ".join(f"{SRC}/f{i}.py#L{i + 1}" for i in range(MAX_LINE_LINKS + 5))
    assert len(line_links(many)) == MAX_LINE_LINKS
    # A range written backwards is read as its first line.
    assert line_links(f"{SRC}/a/b.py#L9-L3") == [LineLink("3f2a1b9c/a/b.py", 9, 9)]


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IGraphService]:
    files = {"src/pkg/cache.py": CACHE, "app/pkg/cache.py": CACHE, "lib/only.py": ONLY, "deep/er/only.py": ONLY}
    files.update({f"n{i}/only.py": ONLY for i in range(12)})  # namesakes with shorter paths than deep/er/only.py
    root = make_repo(tmp_path_factory.mktemp("linked"), files, dedent=False)
    with open_service(root, index=True) as service:
        yield service


def _linked(svc: IGraphService, text: str) -> list[str]:
    ids = linked_channel(svc.reader.db, analyze_query(text), 100)
    rows = node_store.nodes_by_ids(svc.reader.db, ids)
    return [f"{rows[i].path}::{rows[i].qualified_name}" for i in ids]


def test_a_link_to_one_line_names_the_innermost_definition(svc: IGraphService) -> None:
    assert _linked(svc, f"the loop at {SRC}/src/pkg/cache.py#L8 keeps stale rows") == [
        "src/pkg/cache.py::Store.remove_oldest"
    ]
    # The ref may hold slashes; the link may name the file inside a larger repository.
    assert _linked(svc, "https://github.com/acme/proj/blob/release/2.x/src/pkg/cache.py#L14") == [
        "src/pkg/cache.py::Store.put"
    ]
    assert _linked(svc, "https://github.com/acme/mono/blob/v1/packages/app/lib/only.py#L2") == [
        "lib/only.py::parse_header"
    ]
    assert _linked(svc, f"{SRC}/deep/er/only.py#L1") == ["deep/er/only.py::parse_header"]


def test_a_range_names_what_holds_its_ends_and_lies_within(svc: IGraphService) -> None:
    assert _linked(svc, f"{SRC}/src/pkg/cache.py#L1-L9") == [
        "src/pkg/cache.py::make_key",
        "src/pkg/cache.py::Store.remove_oldest",
        "src/pkg/cache.py::Store",
    ]


def test_links_the_index_cannot_place_point_at_nothing(svc: IGraphService) -> None:
    # Two files end in pkg/cache.py and neither is all of the link; another project's file of the same name; a
    # line between definitions; a file the index does not hold.
    assert _linked(svc, "https://github.com/acme/proj/blob/main/pkg/cache.py#L8") == []
    assert _linked(svc, "https://github.com/python/cpython/blob/main/Lib/cache.py#L8") == []
    assert _linked(svc, f"{SRC}/src/pkg/cache.py#L3") == []
    assert _linked(svc, f"{SRC}/src/pkg/missing.py#L8") == []


def test_the_linked_definition_leads_the_answer(svc: IGraphService) -> None:
    question = (
        "Rows older than the limit survive a trim of the store.\n\n"
        f"The check in {SRC}/src/pkg/cache.py#L9 compares the wrong way round, so old entries stay behind."
    )
    result = svc.explore(question, top_k=5, hops=0)
    top = result.hits[0]
    # app/pkg/cache.py holds the same code, so the words alone cannot tell the two apart: the link does.
    assert (top.filePath, top.qualifiedName) == ("src/pkg/cache.py", "Store.remove_oldest")
    assert top.ranks.get("linked") == 1
    assert "linkedLine" in top.boosts
    plain = svc.explore(question.replace(f"{SRC}/src/pkg/cache.py#L9", "the store"), top_k=5, hops=0)
    assert all("linked" not in h.ranks and "linkedLine" not in h.boosts for h in plain.hits)


def test_a_query_without_links_has_no_linked_channel() -> None:
    assert analyze_query("where is the cache trimmed? see src/pkg/cache.py line 8").line_links == []
