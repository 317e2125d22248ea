"""Tests for the indexer's steps as plain functions: diffing (index/diff.py), row building (index/rows.py) and the
binding scope that storing hands to binding (index/bind.py)."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest

from igraph_mcp.index.bind import BindScope, binds_everything
from igraph_mcp.index.diff import Change, diff_files, lost_paths, match_renames, racy_ns
from igraph_mcp.index.parse import parse_source
from igraph_mcp.index.rows import MODULE_HEAD_CHARS, draft_file, file_layout, file_rows, stored_body
from igraph_mcp.index.walk import WalkedFile
from igraph_mcp.store.records import FileState


def _walked(root: Path, path: str, text: str, mtime_ns: int = 1_000) -> WalkedFile:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)
    return WalkedFile(path, str(file), len(text.encode()), mtime_ns, "python")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _change(path: str, text: str, old_id: int | None = None) -> Change:
    return Change(WalkedFile(path, "/nowhere/" + path, len(text), 0, "python"), text.encode(), _sha(text), old_id)


def test_diff_trusts_the_stat_hashes_the_rest_and_lists_unreadable_files(tmp_path: Path) -> None:
    same = _walked(tmp_path, "same.py", "x = 1\n")
    touched = _walked(tmp_path, "touched.py", "y = 2\n", mtime_ns=5_000)
    edited = _walked(tmp_path, "edited.py", "z = 4\n")
    new = _walked(tmp_path, "new.py", "w = 5\n")
    unreadable = WalkedFile("gone.py", str(tmp_path / "gone.py"), 3, 1_000, "python")
    states = {
        "same.py": FileState(1, "same.py", _sha("x = 1\n"), same.size, 1_000),
        "touched.py": FileState(2, "touched.py", _sha("y = 2\n"), touched.size, 1_000),
        "edited.py": FileState(3, "edited.py", _sha("z = 3\n"), edited.size, 999),
    }
    reports: list[tuple[str, int, int]] = []
    files = [edited, unreadable, new, same, touched]
    diff = diff_files(files, states, racy_ns(100.0), lambda *r: reports.append(r))
    assert [(c.walked.path, c.old_id) for c in diff.changes] == [("edited.py", 3), ("new.py", None)]
    assert diff.unchanged == 2
    assert diff.touched == [(2, 5_000)]
    assert [(s.path, s.reason) for s in diff.unreadable] == [("gone.py", "unreadable")]
    assert diff.seen == {"edited.py", "gone.py", "new.py", "same.py", "touched.py"}
    assert reports[-1] == ("scan", 5, 5)


def test_a_file_written_right_before_the_last_build_is_hashed_not_trusted(tmp_path: Path) -> None:
    racy = _walked(tmp_path, "racy.py", "a = 2\n", mtime_ns=int(9.5e9))
    states = {"racy.py": FileState(1, "racy.py", _sha("a = 1\n"), racy.size, racy.mtime_ns)}
    diff = diff_files([racy], states, racy_ns(10.0), lambda *r: None)
    assert [c.old_id for c in diff.changes] == [1]


def test_renames_take_only_a_content_match_with_exactly_one_deleted_file() -> None:
    gone = {
        "old/a.py": FileState(1, "old/a.py", _sha("a"), 1, 0),
        "old/b1.py": FileState(2, "old/b1.py", _sha("b"), 1, 0),
        "old/b2.py": FileState(3, "old/b2.py", _sha("b"), 1, 0),
    }
    changes = [_change("new/a.py", "a"), _change("new/a2.py", "a"), _change("new/b.py", "b"), _change("m.py", "a", 9)]
    renames = match_renames(changes, gone)
    assert [(fid, w.path) for fid, w in renames.moved] == [(1, "new/a.py")]
    assert [c.walked.path for c in renames.changes] == ["new/a2.py", "new/b.py", "m.py"]
    assert list(renames.gone) == ["old/b1.py", "old/b2.py"]
    assert len(changes) == 4 and len(gone) == 3  # the inputs are left as they were


def test_a_moved_file_is_not_lost() -> None:
    indexed = {"a.py": FileState(1, "a.py", _sha("a"), 1, 0), "b.py": FileState(2, "b.py", _sha("b"), 1, 0)}
    assert lost_paths(indexed, {"c.py"}, [_change("c.py", "a")]) == {"b.py"}


@pytest.mark.parametrize(
    ("changed", "added", "gone", "indexed", "expected"),
    [
        (3, [], [], 1000, False),
        (51, [], [], 1000, True),  # past SCOPED_MAX_FILES
        (30, [], ["x.py"] * 30, 1000, True),  # deletions count too
        (80, [], [], 2000, False),  # under 5% of a large index
        (1, ["pkg/__init__.py"], [], 1000, True),  # a package marker comes
        (0, [], ["pkg/__init__.pyi"], 1000, True),  # or goes
    ],
)
def test_binds_everything(changed: int, added: list[str], gone: list[str], indexed: int, expected: bool) -> None:
    assert binds_everything(changed, added, gone, indexed) is expected


def test_bind_scopes_join_in_the_order_the_steps_ran() -> None:
    deleted = BindScope(names=frozenset({"gone_fn"}), edge_ids=(7, 8), scope=frozenset({4}))
    batch = BindScope(changed_ids=(10, 11), reach=(10,), names=frozenset({"f"}), edge_ids=(2,))
    joined = BindScope.join([deleted, batch, BindScope(changed_ids=(12,))])
    assert joined == BindScope((10, 11, 12), (10,), frozenset({"gone_fn", "f"}), (7, 8, 2), frozenset({4}))
    assert BindScope().empty and not joined.empty
    assert BindScope(reach=(1,)).empty  # a file reaches importers only with its own id among changed_ids


SOURCE = textwrap.dedent(
    '''\
    """Module doc."""
    import os

    class Shape:
        """A shape."""
        sides = 0

        def area(self):
            return os.sep

    def helper_name():
        return Shape().area()
    '''
)


def test_file_rows_give_the_module_its_path_names_and_contains_edges_their_parents() -> None:
    pf = parse_source(SOURCE.encode(), "python", "geo/shapes.py")
    layout = file_layout(SOURCE.encode(), pf)
    draft = draft_file(SOURCE.encode(), pf, "geo/shapes.py")  # as a parse worker drafts it
    assert (draft.node_count, draft.symbol_count) == (layout.node_count, len(layout.symbols))
    ids = [100 + i for i in range(draft.node_count)]
    rows = file_rows(draft, pf, 7, ids)
    module, shape, area, helper = rows.nodes[:4]
    assert (module.name, module.qualified_name, module.parent_id) == ("shapes", "geo.shapes", None)
    assert module.body == SOURCE[:MODULE_HEAD_CHARS]
    assert shape.body.rstrip().endswith("sides = 0")  # a class is cut where its first member starts
    assert shape.body == stored_body(layout.source, layout.symbols[1], layout.symbols[2].start_byte)
    assert (shape.parent_id, area.parent_id, helper.parent_id) == (100, 101, 100)
    assert all(n.file_id == 7 for n in rows.nodes)
    contains = [(e.source_id, e.target_id, e.target_name) for e in rows.edges if e.kind == "contains"]
    assert contains == [(100, 101, "Shape"), (101, 102, "area"), (100, 103, "helper_name")]
    calls = {(e.source_id, e.target_name) for e in rows.edges if e.kind == "calls"}
    assert (103, "area") in calls
    assert [(e.source_id, e.target_name, e.qualifier) for e in rows.edges if e.kind == "imports"] == [(100, "", "os")]
    assert [(i.file_id, i.module) for i in rows.imports] == [(7, "os")]
    assert [t.node_id for t in rows.texts] == ids
    assert rows.texts[0].body == ""  # the module's text is searched through its parts, not its head
    assert rows.texts[3].path == "geo/shapes.py"


@pytest.mark.parametrize(
    ("language", "path", "source"),
    [
        (
            "java",
            "Quota.java",
            "/** The quota. */\npublic class Quota {\n    private int limit = 1;\n\n"
            "    /**\n     * Spends a token of the bucket.\n     */\n    @Override\n"
            "    public boolean check(int n) { return n < limit; }\n}\n",
        ),
        (
            "rust",
            "quota.rs",
            "pub trait Quota {\n    // limit: set by the caller\n\n    /// Spends a token of the bucket.\n"
            "    #[inline]\n    fn check(&self, n: u32) -> bool;\n}\n",
        ),
    ],
)
def test_a_class_body_stops_above_its_first_members_doc_comment(language: str, path: str, source: str) -> None:
    data = source.encode()
    pf = parse_source(data, language, path)
    rows = file_rows(draft_file(data, pf, path), pf, 1, list(range(1, file_layout(data, pf).node_count + 1)))
    container, member = rows.nodes[1], rows.nodes[2]
    assert "limit" in container.body.lower() and "Spends a token" not in container.body
    assert member.docstring == "Spends a token of the bucket."


def test_a_file_without_symbols_still_gets_its_module_node() -> None:
    pf = parse_source(b"", "python", "empty.py")
    pf.symbols = []
    draft = draft_file(b"", pf, "empty.py")
    assert draft.node_count == 1
    rows = file_rows(draft, pf, 1, [5])
    assert [(n.kind, n.name, n.end_line) for n in rows.nodes] == [("module", "empty", 1)]
