"""Lookups (retrieve/lookup.py): related never drops symbols silently; what is cut is counted and explained."""

from __future__ import annotations

import pytest
from _factories import index_repo, make_repo, open_service
from test_receivers import GO_GLOBALS

from igraph_mcp.errors import InvalidInput
from igraph_mcp.render import render_node
from igraph_mcp.retrieve.expand import PER_NODE_CAP

pytestmark = pytest.mark.both_stores

CALLERS = 12  # more than expansion's per-node cap for explore answers
HUB = {
    "hub/core.py": "def hub(x):\n    return x\n",
    **{f"hub/user_{i}.py": f"from hub.core import hub\n\ndef use_{i}(x):\n    return hub(x)\n" for i in range(CALLERS)},
    # top -> wide -> use_0..use_11: a fan-out two hops out on one side.
    "hub/wide.py": "".join(f"from hub.user_{i} import use_{i}\n" for i in range(CALLERS))
    + "\n\ndef wide(x):\n"
    + "".join(f"    use_{i}(x)\n" for i in range(CALLERS)),
    "hub/top.py": "from hub.wide import wide\n\n\ndef top(x):\n    return wide(x)\n",
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, store_kind: str):  # type: ignore[no-untyped-def]
    """HUB indexed once per store: the tests only read it."""
    service = index_repo(make_repo(tmp_path_factory.mktemp("lookup"), HUB))
    yield service
    service.close()


def test_all_callers_of_a_hub_are_listed(svc) -> None:  # type: ignore[no-untyped-def]
    assert CALLERS > PER_NODE_CAP  # explore's cap must not apply to an explicit related question
    result = svc.related("hub", "callers")
    assert {n.name for n in result.related} == {f"use_{i}" for i in range(CALLERS)}
    assert result.truncated is False and result.omitted == 0 and result.message is None


def test_a_cut_answer_says_how_many_and_how_to_get_them(svc) -> None:  # type: ignore[no-untyped-def]
    result = svc.related("hub", "callers", limit=5)
    assert len(result.related) == 5 and result.truncated is True and result.omitted == CALLERS - 5
    assert result.message is not None and f"{CALLERS - 5} more" in result.message and "larger limit" in result.message
    again = svc.related("hub", "callers", limit=CALLERS)
    assert len(again.related) == CALLERS and again.omitted == 0


def test_a_capped_fan_out_two_hops_out_is_counted(svc) -> None:  # type: ignore[no-untyped-def]
    # top -> wide -> use_0..use_11: wide is one hop out and its callees two; with limit 3 wide's fan-out is cut
    # by the per-node cap, and every cut symbol is in `omitted`.
    result = svc.related("top", "callees", hops=2, limit=3)
    full = svc.related("top", "callees", hops=2, limit=1000)
    assert len(result.related) == 3 and result.truncated
    assert len(result.related) + result.omitted == len(full.related) == 1 + CALLERS and full.omitted == 0
    assert [(n.name, n.distance, n.viaName) for n in result.related[:1]] == [("wide", 1, "top")]
    assert all((n.distance, n.viaName) == (2, "wide") for n in full.related if n.name.startswith("use_"))


def test_a_caller_of_a_callee_is_not_listed(svc) -> None:  # type: ignore[no-untyped-def]
    # use_0 -> hub <- use_1: use_1 shares a callee with use_0 but neither calls the other.
    result = svc.related("use_0", "both", hops=2)
    assert {(n.name, n.direction, n.distance) for n in result.related} == {
        ("hub", "callee", 1),
        ("wide", "caller", 1),
        ("top", "caller", 2),
    }
    assert not result.truncated


def test_limit_is_validated(svc) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput, match="limit must be between 1 and 1000"):
        svc.related("hub", "callers", limit=0)


def test_suffix_lookups_ignore_ascii_case_the_same_way_on_both_stores(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from igraph_mcp.store import files as file_store
    from igraph_mcp.store import resources

    nested = "class Outer:\n    class Panel:\n        def draw(self):\n            return 1\n"
    root = make_repo(tmp_path, {"pkg/Widgets.py": nested})
    svc = index_repo(root)
    try:
        assert file_store.file_paths_with_suffix(svc.db, "widgets.py") == ["pkg/Widgets.py"]
        assert file_store.file_paths_with_suffix(svc.db, "WIDGETS.PY") == ["pkg/Widgets.py"]
        assert file_store.file_paths_with_suffix(svc.db, "gadgets.py") == []
        assert len(resources.nodes_with_qualified_name(svc.db, "panel.DRAW")) == 1
        assert len(resources.module_nodes_for_path(svc.db, "widgets.py")) == 1
    finally:
        svc.close()


# viper's shape (test_receivers.GO_GLOBALS): a package-level wrapper `Get` beside the methods `Conf.Get` and
# `Store.Get`, all in conf/conf.go.


def test_a_top_level_function_beside_methods_of_its_name_can_be_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with open_service(make_repo(tmp_path, GO_GLOBALS), index=True) as svc:
        # The bare name stays ambiguous, and the answer says how to name the top-level one.
        d = svc.node("Get")
        assert not d.found and sorted(c.qualifiedName for c in d.candidates) == ["Conf.Get", "Get", "Store.Get"]
        assert "`conf.conf.Get` for the top-level one in conf/conf.go" in d.message
        # That form is the function (the file alone does not pick it: the methods are in it too); the methods keep
        # their own names.
        one = svc.node("conf.conf.Get")
        assert one.found and (one.node.qualifiedName, one.node.kind) == ("Get", "function")
        assert not svc.node("Get", file="conf/conf.go").found
        assert svc.node("conf.conf.Store.Get").node.qualifiedName == "Store.Get"
        related = svc.related("conf.conf.Get", "callees")
        assert [(n.qualifiedName, n.distance) for n in related.related] == [("Conf.Get", 1)]
        assert "`conf.conf.Get`" in (svc.related("Get").message or "")


# Overloads share a qualified name and a file, so neither a qualified name nor a file picks one: a line does.
OVERLOADS = {
    "src/Box.java": """public class Box {
    public void put(int a) {
        System.out.println(a);
    }

    public void put(int a, int b) {
        System.out.println(a + b);
    }
}
""",
    "src/Use.java": """public class Use {
    public void one(Box box) {
        box.put(1);
    }

    public void two(Box box) {
        box.put(1, 2);
    }
}
""",
    "a/jobs.py": "def run():\n    return 1\n",
    "b/tasks.py": "def run():\n    return 2\n",
}


def test_overloads_are_picked_by_their_line_and_the_answer_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with open_service(make_repo(tmp_path, OVERLOADS), index=True) as svc:
        for ambiguous in (svc.node("Box.put"), svc.related("Box.put"), svc.related("Box.put", file="src/Box.java")):
            assert not ambiguous.found
            assert sorted(c.startLine for c in ambiguous.candidates) == [2, 6]
            assert "`src/Box.java:2`" in (ambiguous.message or "") and "qualified name" not in (ambiguous.message or "")
        # The text lists the overloads with their signatures: what an agent chooses a line by.
        text = render_node(svc.node("Box.put"))
        assert (
            "src/Box.java:2  public void put(int a)" in text and "src/Box.java:6  public void put(int a, int b)" in text
        )
        # `run` in two files: the path tells them apart, and no signature is added.
        assert [line.rsplit("  ", 1)[-1] for line in render_node(svc.node("run")).splitlines()[1:]] == [
            "a/jobs.py:1",
            "b/tasks.py:1",
        ]
        second = svc.node("Box.put", file="src/Box.java:6")
        assert second.found and (second.node.startLine, second.node.endLine) == (6, 8)
        inside = svc.node("Box.put", file="Box.java:3")  # a line inside the first one's body
        assert inside.found and inside.node.startLine == 2
        callers = svc.related("Box.put", "callers", file="src/Box.java:6")
        assert callers.found and [(n.qualifiedName, n.distance) for n in callers.related] == [("Use.two", 1)]
        assert [n.qualifiedName for n in svc.related("Box.put", "callers", file="src/Box.java:2").related] == [
            "Use.one"
        ]
        nowhere = svc.related("Box.put", file="src/Box.java:40")
        assert not nowhere.found and "in 'src/Box.java:40'" in (nowhere.message or "")


def test_a_name_in_two_files_is_picked_by_its_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with open_service(make_repo(tmp_path, OVERLOADS), index=True) as svc:
        both = svc.related("run")
        assert not both.found and sorted(c.filePath for c in both.candidates) == ["a/jobs.py", "b/tasks.py"]
        # Both are called `run`: a qualified name cannot tell them apart, the path can.
        assert "the path of the one you mean" in (both.message or "") and "qualified name" not in (both.message or "")
        one = svc.related("run", file="b/tasks.py")
        assert one.found and one.node is not None and one.node.filePath == "b/tasks.py"
        # A bare `put` names Box.put twice in one file: they share a qualified name and a path, so only a line
        # tells them apart.
        assert "`src/Box.java:2`" in (svc.node("put").message or "")


# A prototype beside the body it declares: a lookup by name answers with the body, and the calls bound to the
# prototype (main.c declares `add` itself and calls it) are the body's callers.
HEADERS = {
    "src/calc.h": "int twice(int a);\n",
    "src/add.c": "int add(int a, int b) {\n    return a + b;\n}\n",
    "src/main.c": "int add(int a, int b);\n\nint main(void) {\n    return add(1, 2);\n}\n",
    "old/copy.c": "int twice(int a) {\n    return a * 2;\n}\n",
    "lib/twice.c": "int twice(int a) {\n    return 2 * a;\n}\n",
}


def test_a_declaration_stands_aside_for_its_body(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with open_service(make_repo(tmp_path, HEADERS), index=True) as svc:
        body = svc.node("add")
        assert body.found and body.node is not None and (body.node.filePath, body.node.startLine) == ("src/add.c", 1)
        assert "declared at src/main.c:1" in (body.message or "")
        assert [(c.qualifiedName, c.callSite) for c in body.callers] == [("main", "src/main.c:4")]
        prototype = svc.node("add", file="src/main.c")  # still reachable by its file
        assert prototype.found and prototype.node is not None and prototype.node.startLine == 1
        callers = svc.related("add", "callers")
        assert callers.found and callers.node is not None and callers.node.filePath == "src/add.c"
        assert [(n.qualifiedName, n.distance) for n in callers.related] == [("main", 1)]
        # Two bodies stay two candidates; the prototype in calc.h is not a third.
        two = svc.node("twice")
        assert not two.found and sorted(c.filePath for c in two.candidates) == ["lib/twice.c", "old/copy.c"]


def test_a_qualified_name_and_a_file_together_when_each_alone_falls_short(tmp_path) -> None:  # type: ignore[no-untyped-def]
    files = {
        "a/m.py": "class Left:\n    def go(self):\n        return 1\n\n\n"
        "class Right:\n    def go(self):\n        return 2\n",
        "b/m.py": "class Left:\n    def go(self):\n        return 3\n",
    }
    with open_service(make_repo(tmp_path, files), index=True) as svc:
        d = svc.node("go")
        assert not d.found and len(d.candidates) == 3
        assert "a qualified name and" in (d.message or "") and "line" not in (d.message or "")
        picked = svc.node("Left.go", file="b/m.py")
        assert picked.found and picked.node is not None and picked.node.filePath == "b/m.py"
