"""A tree where the walk finds no file to index is an error that says why, on every front, and an existing index is
left as it was (the usual cause is a wrong root or an ignore rule that leaves out everything)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from _factories import make_plain_repo, open_service
from mcp import Client

from igraph_mcp.cli import EXIT_ERROR, main
from igraph_mcp.errors import NothingToIndex
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState

# issue 31's shape: the root .gitignore ignores everything and forgets to re-include directories or sources
IGNORED_ALL = {".gitignore": "*\n!*/\n", "main.go": "package main\n", "pkg/util.go": "package pkg\n"}
SOURCES = {"app/main.py": "def serve():\n    return 1\n", "app/util.py": "def helper():\n    return 2\n"}


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")


def _poll(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within 60 s"
        threading.Event().wait(0.05)


def test_cli_names_the_root_the_count_and_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_plain_repo(tmp_path, IGNORED_ALL)
    code = main(["index", "--root", str(root)])
    err = capsys.readouterr().err
    assert code == EXIT_ERROR
    assert f"found no file to index in {root}" in err
    assert "the walk saw 3 files and folders" in err  # .gitignore, main.go, pkg/util.go (pkg itself is re-included)
    assert "`.gitignore:1: *` (3)" in err
    assert "!*.go" in err and "The index was not changed" in err
    assert "index again with --allow-mass-delete" in err  # the CLI's name for allowMassDelete=true


def test_cli_unsupported_files_and_an_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_plain_repo(tmp_path, {"Makefile": "all:\n", "docs/notes.txt": "hello\n"})
    assert main(["index", "--root", str(root)]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "2 unsupported_language (no grammar for the file type), e.g. Makefile, docs/notes.txt" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["index", "--root", str(empty)]) == EXIT_ERROR
    assert "the folder is empty" in capsys.readouterr().err


def test_an_existing_index_survives_a_run_that_finds_nothing(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, SOURCES)
    with open_service(root, index=True) as svc:
        before = svc.status()
        assert before.files == 2
        (root / ".gitignore").write_text("*\n")
        for full in (False, True):
            with pytest.raises(NothingToIndex, match=r"`.gitignore:1: \*` \(2\)"):
                svc.index(full=full)
        after = svc.status()
        assert after.files == 2 and after.symbols == before.symbols
        assert svc.node("helper").found
        svc.index(allow_mass_delete=True)  # asked for: the index is emptied
        assert svc.status().files == 0


@pytest.mark.anyio
async def test_igraph_index_over_mcp_is_an_error_with_the_reasons(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, IGNORED_ALL)
    with open_service(root) as svc:
        async with Client(create_server(ServerState(svc))) as client:
            answer = await client.call_tool("igraph_index", {})
    text = "\n".join(c.text for c in answer.content if c.type == "text")
    assert answer.is_error
    assert f"found no file to index in {root}" in text and "`.gitignore:1: *`" in text


def test_the_servers_first_build_reports_it(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, IGNORED_ALL)
    with open_service(root) as svc:
        state = ServerState(svc, auto_index=True)
        state.attach()
        try:
            _poll(lambda: state.last_error is not None, "the first build's error")
        finally:
            state.detach()
            for thread in threading.enumerate():  # its last look at the index must end before the service closes
                if thread.name == "igraph-resume":
                    thread.join(60)
        assert not state.has_index
        assert state.last_error is not None and "found no file to index" in state.last_error
