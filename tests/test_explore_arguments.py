"""Bad explore arguments get a clear answer: unknown kinds are an error that lists the valid ones (taken from the
vocabulary), context files outside the root or matching no indexed file are named in the note and the call answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _factories import as_agent, make_plain_repo
from mcp import Client

from igraph_mcp.cli import main
from igraph_mcp.errors import InvalidInput
from igraph_mcp.explore_request import checked_kinds
from igraph_mcp.retrieve.context_files import ContextFiles, check_context_files
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState
from igraph_mcp.service import IGraphService
from igraph_mcp.structured import entries
from igraph_mcp.vocab import kinds as kinds_vocab

VALID = ", ".join(kinds_vocab.filterable_kinds())


# -- kinds ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["function"], ("function",)),
        (["Method", " class "], ("method", "class")),  # case and blanks do not matter
        (list(kinds_vocab.NODE_KINDS), kinds_vocab.NODE_KINDS),
    ],
)
def test_known_kinds_pass(given: list[str], expected: tuple[str, ...]) -> None:
    assert checked_kinds(given) == expected


@pytest.mark.parametrize(
    ("given", "where"),
    [
        (["nonsense_kind"], "(entry 1 of 1)"),
        (["function", "funcs", "", "\0"], "(entries 2, 3, 4 of 4)"),
        (["методы"], "(entry 1 of 1)"),
    ],
)
def test_unknown_kinds_are_an_error_listing_the_valid_ones(given: list[str], where: str) -> None:
    with pytest.raises(InvalidInput) as err:
        checked_kinds(given)
    message = str(err.value)
    assert f"unknown symbol kind in kinds {where}; valid kinds: {VALID}." in message
    assert all(k not in message for k in given if k and k != "function")  # what the caller sent is never echoed


def test_valid_kinds_follow_the_vocabulary_and_never_offer_internal_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kinds_vocab, "NODE_KINDS", (*kinds_vocab.NODE_KINDS, "macro", "part"))
    monkeypatch.setattr(kinds_vocab, "INTERNAL_KINDS", frozenset({"part"}))
    assert checked_kinds(["macro"]) == ("macro",)
    with pytest.raises(InvalidInput) as err:
        checked_kinds(["part"])
    assert "macro" in str(err.value) and "part" not in str(err.value).split("valid kinds:")[1]


# -- context files -------------------------------------------------------------------------------------------------
def test_context_files_sorted_into_usable_outside_and_unmatched(indexed_service: IGraphService, tmp_path: Path) -> None:
    root = indexed_service.root
    evil = make_plain_repo(tmp_path, {"app/auth.py": "x = 1\n"}, name="repo_evil")  # a sibling sharing the prefix
    (root / "out_link").symlink_to(evil, target_is_directory=True)
    got = check_context_files(
        indexed_service.db,
        root,
        [
            "app/auth.py",  # exact
            "./db.py",  # a suffix of app/db.py
            f"{root}/main.py",  # absolute, inside
            "elsewhere/app/auth.py",  # a longer path ending in an indexed one (the boost matches it too)
            "app\\db.py",  # Windows separators
            "../outside.py",
            "/etc/passwd",
            f"{evil}/app/auth.py",  # P2: "/x/repo_evil" is not inside "/x/repo"
            "out_link/../out_link/app/auth.py",  # through a link that leaves the root
            "app/missing.py",
            "app",
            "",
        ],
    )
    assert got.usable == ["app/auth.py", "db.py", "main.py", "elsewhere/app/auth.py", "app/db.py"]
    assert got.outside == ["../outside.py", "/etc/passwd", f"{evil}/app/auth.py", "out_link/../out_link/app/auth.py"]
    assert got.unmatched == ["app/missing.py", "app", ""]


@pytest.mark.parametrize(
    ("files", "note"),
    [
        (ContextFiles(usable=["a.py"]), None),
        (
            ContextFiles(outside=["../x.py"], unmatched=["y.py", "z.py"]),
            "contextFiles not used: '../x.py' is outside the root; 'y.py', 'z.py' match no indexed file "
            "(pass repository-relative paths of indexed files)",
        ),
        (
            ContextFiles(unmatched=[f"f{i}.py" for i in range(7)]),
            "contextFiles not used: 'f0.py', 'f1.py', 'f2.py', 'f3.py', 'f4.py' and 2 more match no indexed file "
            "(pass repository-relative paths of indexed files)",
        ),
        (
            ContextFiles(outside=["/" + "d" * 300]),
            f"contextFiles not used: '/{'d' * 118}…' is outside the root (pass repository-relative paths of indexed "
            "files)",
        ),
    ],
)
def test_context_files_note(files: ContextFiles, note: str | None) -> None:
    got = files.note()
    assert (as_agent(got) if got else got) == note


# -- through the fronts --------------------------------------------------------------------------------------------
def _text(result: object) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_mcp_unknown_kinds_is_an_error_and_bad_context_files_are_named(indexed_service: IGraphService) -> None:
    async with Client(create_server(ServerState(indexed_service))) as client:
        bad = await client.call_tool("igraph_explore", {"query": "login", "kinds": ["function", "nonsense_kind"]})
        good = await client.call_tool("igraph_explore", {"query": "login", "kinds": ["Function"]})
        context = await client.call_tool(
            "igraph_explore",
            {"query": "password", "contextFiles": ["app/db.py", "../../etc/passwd", "app/nope.py"]},
        )
        after = await client.call_tool("igraph_explore", {"query": "login"})
    assert bad.is_error
    assert f"unknown symbol kind in kinds (entry 2 of 2); valid kinds: {VALID}." in _text(bad)
    assert "nonsense_kind" not in _text(bad)
    assert not good.is_error
    assert {h["kind"] for h in entries((good.structured_content or {})["hits"])} == {"function"}
    assert not context.is_error
    data = context.structured_content or {}
    expected = "contextFiles not used: '../../etc/passwd' is outside the root; 'app/nope.py' matches no indexed file"
    assert data["note"].startswith(expected)  # the compact structured form keeps one copy of the note
    assert f"note: {expected}" in _text(context)
    assert any("contextFile" in h["boosts"] for h in entries(data["hits"]) if h["filePath"] == "app/db.py")
    assert not after.is_error and "note" not in (after.structured_content or {})


def test_cli_unknown_kind_exits_1_and_context_file_note(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")
    assert main(["index", str(sample_repo)]) == 0
    capsys.readouterr()
    code = main(["search", "login", "--root", str(sample_repo), "--kind", "function", "--kind", "widget"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert f"igraph-mcp: unknown symbol kind in kinds (entry 2 of 2); valid kinds: {VALID}." in err
    code = main(["search", "login", "--root", str(sample_repo), "--context-file", "../x.py", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["note"].startswith("--context-file not used: '../x.py' is outside the root")
    code = main(["search", "login", "--root", str(sample_repo), "--context-file", "app/gone.py"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "note: --context-file not used: 'app/gone.py' matches no indexed file" in out
