"""Skipped files are visible: the index run names them with what to do, the store keeps the last run's list (both
stores), status counts them, and a lookup of a skipped file says why it is not indexed (service, CLI, MCP)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _factories import as_agent, as_person, edit_file, make_plain_repo, make_service, open_service, snapshot, write_file
from mcp import Client

from igraph_mcp import crashpoints
from igraph_mcp.cli import EXIT_NOT_FOUND, main
from igraph_mcp.models import IndexResult, SkippedFile
from igraph_mcp.render import render_index
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState
from igraph_mcp.store import skipped as skipped_store
from igraph_mcp.vocab.skips import SkippedPath

pytestmark = pytest.mark.both_stores

HAND_WRITTEN = "export function add(a, b) {\n  return a + b;\n}\n"
BUNDLE = "/*! lib v1 | MIT */\n!function(){" + "var a=f(1);if(a){b=c}" * 80 + "}();\n"
MAX_BYTES = 2000  # index.maxFileBytes of these repositories (the smallest the config allows is 1000)


def _repo(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    config = {".igraph/config.json": json.dumps({"index": {"maxFileBytes": MAX_BYTES}})}
    return make_plain_repo(tmp_path, {"main.py": "def main():\n    return 1\n", **config, **files})


def _many_minified(n: int) -> dict[str, str | bytes]:
    return {f"web/lib{i:02d}.min.js": "let a;\n" for i in range(n)}


# -- the store: replaced whole by each run, read consistently --------------------------------------------------------
def test_each_run_replaces_the_list_and_lookups_say_why(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"web/app.js": HAND_WRITTEN, "data/table.py": "x = 1\n"})
    with open_service(root, index=True) as svc:
        assert svc.status().skipped == {}
        assert svc.file("web/app.js").found
        edit_file(root, "web/app.js", BUNDLE)
        edit_file(root, "data/table.py", "ROWS = [\n" + "    (1, 2, 3),\n" * 200 + "]\n")
        write_file(root, "logo.png.py", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
        result = svc.index()
        assert result.skippedFilesTotal == 3
        assert [(s.path, s.reason) for s in result.skippedFiles] == [
            ("logo.png.py", "binary"),
            ("web/app.js", "minified"),
            ("data/table.py", "too_large"),
        ]
        status = svc.status()
        assert status.skipped == {"binary": 1, "minified": 1, "too_large": 1}
        assert [s.path for s in status.skippedFiles] == ["logo.png.py", "web/app.js", "data/table.py"]
        assert status.files == 1  # main.py alone: the two skipped files left the index

        minified = svc.file("app.js")  # a suffix finds a skipped file as it finds an indexed one
        assert not minified.found and minified.skipped is not None and minified.skipped.reason == "minified"
        assert minified.message is not None
        assert "'web/app.js' is not indexed" in minified.message and "mean line length" in minified.message
        assert "`!web/app.js` to .igraphignore" in minified.message
        large = svc.file("data/table.py")
        assert large.skipped is not None and large.skipped.detail == "3.0 KB; index.maxFileBytes is 2000"
        assert large.message is not None and "raise index.maxFileBytes in .igraph/config.json" in large.message
        absent = svc.file("nowhere.py")
        assert not absent.found and absent.skipped is None and "no indexed file matches" in (absent.message or "")

        # An incremental run replaces the list: the file made hand-written again is indexed and no longer listed.
        edit_file(root, "web/app.js", HAND_WRITTEN)
        (root / "logo.png.py").unlink()
        again = svc.index()
        assert again.skippedFilesTotal == 1 and svc.status().skipped == {"too_large": 1}
        assert svc.file("web/app.js").found


def test_a_dry_run_lists_skips_and_stores_nothing(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"web/app.js": BUNDLE})
    with open_service(root, index=True) as svc:
        assert svc.status().skipped == {"minified": 1}
        edit_file(root, "web/app.js", HAND_WRITTEN)
        dry = svc.index(dry_run=True)
        assert dry.skippedFilesTotal == 0 and dry.skipped.get("minified") is None
        assert svc.status().skipped == {"minified": 1}  # the stored list is the last real run's


def test_a_run_that_dies_after_listing_leaves_a_consistent_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path, {"web/app.js": HAND_WRITTEN, "web/other.js": HAND_WRITTEN})
    with open_service(root, index=True) as svc:
        edit_file(root, "web/app.js", BUNDLE)

        def die_at_delete(site: str) -> None:
            if site == "index.delete":  # after the list was replaced, inside the deletion of the skipped file
                raise RuntimeError("killed")

        monkeypatch.setattr(crashpoints, "reached", die_at_delete)
        with pytest.raises(RuntimeError):
            svc.index()
        # The new list is committed, the file still indexed: the store answers from the old state of that file.
        assert svc.status().skipped == {}
        assert svc.file("web/app.js").found
        monkeypatch.undo()
        svc.index()
        assert svc.status().skipped == {"minified": 1}
        assert not svc.file("web/app.js").found


def test_replace_keeps_one_row_per_path(tmp_path: Path) -> None:
    root = _repo(tmp_path, {})
    with open_service(root, index=True) as svc:
        with svc._writer() as db, db.atomic() as con:
            skipped_store.replace_skipped(
                con,
                [
                    SkippedPath("b.js", "minified", "x"),
                    SkippedPath("a.py", "unreadable", "Permission denied"),
                    SkippedPath("b.js", "unreadable", "later"),
                ],
            )
        assert skipped_store.skipped_list(svc.db) == [
            SkippedPath("b.js", "minified", "x"),
            SkippedPath("a.py", "unreadable", "Permission denied"),
        ]
        assert skipped_store.skipped_list(svc.db, per_reason=1) == skipped_store.skipped_list(svc.db)
        assert skipped_store.skipped_matching(svc.db, "js") == []  # a suffix is whole path segments
        assert skipped_store.skipped_matching(svc.db, "b.js") == [SkippedPath("b.js", "minified", "x")]


# -- the fronts ----------------------------------------------------------------------------------------------------
def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code in (0, EXIT_NOT_FOUND), err
    return code, out


@pytest.mark.sqlite_only
def test_cli_index_names_the_first_20_then_counts_and_verbose_names_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")
    root = _repo(
        tmp_path,
        {**_many_minified(30), "data/big.py": "x = 1\n" * 400, "node_modules/dep/index.js": "let a;\n"},
    )
    _, out = _cli(capsys, "index", str(root))
    assert "skipped 31 files: minified 30, too_large 1" in out
    assert "  too_large: raise index.maxFileBytes in .igraph/config.json" in out
    assert "    data/big.py  (2.4 KB; index.maxFileBytes is 2000)" in out  # every reason is named, however many
    assert "  minified: if it is hand-written, add a line `!<path>` to .igraphignore" in out
    named = [line.strip().split("  ")[0] for line in out.splitlines() if line.startswith("    web/")]
    assert named == [f"web/lib{i:02d}.min.js" for i in range(19)]
    assert "  … and 11 more (`igraph-mcp index --verbose` lists them all)" in out
    # A folder skipped by rule is counted, never named.
    assert "default_excluded 2 (dependency, build and VCS folders" in out and "node_modules" not in out

    _, verbose = _cli(capsys, "index", "--verbose", str(root))
    named = [line.strip().split("  ")[0] for line in verbose.splitlines() if line.startswith("    web/")]
    assert named == [f"web/lib{i:02d}.min.js" for i in range(30)] and "more (" not in verbose

    _, as_json = _cli(capsys, "index", "--json", str(root))
    data = json.loads(as_json)
    assert data["skippedFilesTotal"] == 31 and len(data["skippedFiles"]) == 20

    _, status = _cli(capsys, "status", "--root", str(root))
    assert "skipped files: minified 30, too_large 1 (e.g. web/lib00.min.js" in status
    assert "data/big.py" in status and "`igraph-mcp file` on one says why" in status

    code, file_out = _cli(capsys, "file", "lib07.min.js", "--root", str(root))
    assert code == EXIT_NOT_FOUND
    assert file_out.startswith("'web/lib07.min.js' is not indexed: the last index run skipped it as minified")


@pytest.mark.sqlite_only
@pytest.mark.anyio
async def test_mcp_file_and_status_on_a_skipped_file(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"web/app.js": BUNDLE})
    svc = make_service(root)
    try:
        svc.index()
        async with Client(create_server(ServerState(svc, auto_index=False))) as client:
            built = await client.call_tool("igraph_index", {})
            answer = await client.call_tool("igraph_file", {"path": "web/app.js"})
            status = await client.call_tool("igraph_status", {})
    finally:
        svc.close()
    built_text = "\n".join(c.text for c in built.content if c.type == "text")
    assert "skipped 1 files: minified 1" in built_text and "    web/app.js  (mean line length" in built_text
    assert not answer.is_error
    data = answer.structured_content or {}
    assert data["found"] is False and data["skipped"]["reason"] == "minified"
    text = "\n".join(c.text for c in answer.content if c.type == "text")
    assert "'web/app.js' is not indexed: the last index run skipped it as minified (mean line length" in text
    assert "igraph_file on one says why" in "\n".join(c.text for c in status.content if c.type == "text")
    assert (status.structured_content or {})["skipped"] == {"minified": 1}


def test_incremental_runs_leave_the_list_a_clean_build_makes(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"web/app.js": HAND_WRITTEN, "web/b.js": HAND_WRITTEN, "data/t.py": "x = 1\n"})
    steps = [
        {"web/app.js": BUNDLE},
        {"data/t.py": "x = 1\n" * 400, "web/b.js": BUNDLE},
        {"web/app.js": HAND_WRITTEN, ".igraphignore": "!web/b.js\n"},  # b.js re-included by name: indexed
    ]
    with open_service(root, index=True) as svc:
        for n, step in enumerate(steps):
            for rel, text in step.items():
                edit_file(root, rel, text)
            svc.index()
            clean_root = tmp_path / f"clean{n}"
            shutil.copytree(root, clean_root, ignore=shutil.ignore_patterns(".igraph"))
            shutil.copytree(root / ".igraph", clean_root / ".igraph", ignore=shutil.ignore_patterns("igraph.db*"))
            with open_service(clean_root, index=True) as clean:
                assert snapshot(svc.db) == snapshot(clean.db)
        assert svc.status().skipped == {"too_large": 1}


def test_the_rest_of_the_skipped_files_is_pointed_to_in_each_fronts_terms() -> None:
    """Past the first files named, a person is told the command that lists them all, an agent the tools that
    count them and say why one was skipped (it cannot pass --verbose)."""
    result = IndexResult(
        skipped={"minified": 25},
        skippedFiles=[SkippedFile(path=f"web/lib{i}.min.js", reason="minified") for i in range(20)],
        skippedFilesTotal=25,
    )
    text = render_index(result)
    assert "  … and 5 more (`igraph-mcp index --verbose` lists them all)" in as_person(text)
    assert "  … and 5 more (igraph_status counts them; igraph_file on one says why)" in as_agent(text)


def test_files_the_grammar_read_in_part_are_said_to_be_indexed() -> None:
    """A C file full of macros has stretches the grammar cannot read; the summary says its definitions are in the
    index, so a person does not take "errors" for files left out (and says nothing when there are none)."""
    clean = render_index(IndexResult(files=3, parsed=3, added=3))
    assert "(3 parsed)" in clean and "grammar" not in clean
    partial = render_index(IndexResult(files=3, parsed=3, added=3, parseErrors=2))
    assert "2 of them have stretches the grammar could not read" in partial
    assert "the definitions found around them are indexed" in partial
