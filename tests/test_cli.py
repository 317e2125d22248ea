"""Tests for the CLI: index summary, the `search --json` contract, clean one-line errors, --version."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _factories import PACKAGE_PARENT, make_repo, make_service, subprocess_env

from igraph_mcp import __version__
from igraph_mcp.cli import EXIT_AMBIGUOUS, EXIT_BUSY, EXIT_NOT_FOUND, PERSON_WORDS, main
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.errors import NotIndexed
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.next_step import NextStep, ask, steps, word
from igraph_mcp.retrieve.vector_search import VectorSearchCache
from igraph_mcp.store.reader import NO_INDEX

FILES = {
    "app/auth.py": '''
        def verify_token(token):
            """Check a signed token."""
            return decode_token(token) is not None

        def decode_token(token):
            return token.split(".")
        ''',
}
HIT_KEYS = {
    "nodeId",
    "name",
    "qualifiedName",
    "kind",
    "filePath",
    "startLine",
    "endLine",
    "signature",
    "score",
    "matchChannel",
}


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI builds its embedder from configuration; the hashing backend keeps these tests offline and fast.
    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, FILES)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_index_summary_text(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "index", str(repo))
    assert code == 0, err
    assert "files," in out and "symbols," in out and "edges" in out
    assert f"{len(list(repo.rglob('*.py')))} added" in out and "embedded" in out
    code, out, _ = _run(capsys, "index", "--root", str(repo))
    assert code == 0 and "0 added, 0 modified, 0 deleted, 0 renamed" in out


def test_index_summary_names_the_whole_run_and_each_phase(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "index", str(repo), "--json")
    data = json.loads(out)
    assert code == 0 and list(data["phases"]) == ["scan", "parse", "resolve", "embed", "link"]
    # The total covers every phase (embedding included), not only the structure pass.
    assert data["seconds"] >= sum(data["phases"].values()) - 0.01
    code, out, _ = _run(capsys, "index", str(repo))
    first = out.splitlines()[0]
    assert "(scan " in first and ", embed " in first


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.4, "0.40s"), (12.34, "12.3s"), (245, "4m05s"), (3725, "1h02m")],
)
def test_duration_reads_like_a_clock(seconds: float, text: str) -> None:
    from igraph_mcp.render import duration

    assert duration(seconds) == text


def test_index_json_and_dry_run(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "index", str(repo), "--json", "--dry-run")
    data = json.loads(out)
    assert code == 0 and data["dryRun"] is True and data["added"] > 0
    code, out, _ = _run(capsys, "index", str(repo), "--json", "--no-embed")
    data = json.loads(out)
    assert data["embedded"] == 0 and data["files"] > 0 and "app/auth.py" in data["reparsedPaths"]


def test_search_json_contract(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "index", str(repo))[0] == 0
    code, out, err = _run(capsys, "search", "verify_token", "--root", str(repo), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert {"query", "degraded", "note", "hits", "files", "diagnostics"} <= set(data)
    assert data["query"] == "verify_token" and data["degraded"] is False and data["note"] is None
    assert data["hits"], "expected at least one hit"
    for hit in data["hits"]:
        assert set(hit) >= HIT_KEYS
        assert isinstance(hit["nodeId"], int) and isinstance(hit["score"], float)
        assert isinstance(hit["startLine"], int) and isinstance(hit["endLine"], int)
        assert hit["matchChannel"] in {"dense+fts5", "dense", "fts5"}
    assert data["hits"][0]["qualifiedName"] == "verify_token" and data["hits"][0]["filePath"] == "app/auth.py"
    assert data["files"] and all(set(f) == {"filePath", "score"} for f in data["files"])
    assert set(data["diagnostics"]["channels"]) == {"fts5", "dense"}


def test_search_scans_the_stored_vectors_without_reading_them_all_into_memory(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One question, one process: reading every vector into a matrix would cost the command more than it saves
    (sympy: 0.77 s); the server keeps the matrix, and both answer alike."""
    assert _run(capsys, "index", str(repo))[0] == 0
    server = make_service(repo, embedder=HashingEmbedder(64))
    try:
        kept = server.explore("check the session token", channels=("fts", "dense"))
    finally:
        server.close()

    def no_matrix(self: VectorSearchCache, db: object) -> None:
        raise AssertionError("the command read every vector into memory")

    monkeypatch.setattr(VectorSearchCache, "get", no_matrix)
    code, out, err = _run(capsys, "search", "check the session token", "--root", str(repo), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert "dense" in data["diagnostics"]["channels"]
    assert [h["nodeId"] for h in data["hits"]] == [h.nodeId for h in kept.hits]


def test_search_text_and_options(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "index", str(repo))
    code, out, _ = _run(
        capsys,
        "search",
        "verify token",
        "--root",
        str(repo),
        "--top-k",
        "1",
        "--hops",
        "1",
        "--channels",
        "fts",
        "--kind",
        "function",
    )
    assert code == 0 and out.startswith("1. function verify_token  app/auth.py:1-3")
    assert "related:" in out and "decode_token" in out


def test_search_degraded_without_embedder_is_not_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IGRAPH_EMBEDDER", "none")
    _run(capsys, "index", str(repo))
    code, out, _ = _run(capsys, "search", "verify_token", "--root", str(repo), "--json")
    data = json.loads(out)
    assert code == 0 and data["degraded"] is True and data["note"] and data["hits"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", "   "], "query is empty"),
        (["search", "ok", "--top-k", "500"], "--top-k must be between 1 and 50"),
        (["node", "verify_token", "--root", "/definitely/not/here"], "not a directory"),
        (["file", "../../etc/passwd"], "outside the repository root"),
    ],
)
def test_errors_are_one_clean_line(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    _run(capsys, "index", str(repo))
    if "--root" not in argv:
        argv = [*argv, "--root", str(repo)]
    code, out, err = _run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.startswith("igraph-mcp: ") and err.endswith("\n") and err.count("\n") == 1
    assert message in err and "Traceback" not in err


def test_next_steps_reach_a_person_as_commands(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for json_flag in ([], ["--json"]):
        code, out, _ = _run(capsys, "status", "--root", str(repo), *json_flag)
        assert code == 0 and "no index yet: run `igraph-mcp index`" in out
        assert "igraph_index" not in out and "\u27e6" not in out  # neither a tool call nor a slot


def test_search_before_index_says_what_to_do(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _run(capsys, "search", "x", "--root", str(repo))
    assert code == 1 and "igraph-mcp index" in err and err.count("\n") == 1


def test_bad_config_is_one_clean_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".igraph").mkdir()
    (repo / ".igraph" / "config.json").write_text('{"embedder": {"apiKey": "sk-secret"}}')
    code, _out, err = _run(capsys, "status", "--root", str(repo))
    assert code == 1 and "credential-like key" in err and "sk-secret" not in err


def test_undecodable_argument_bytes_do_not_crash(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "index", str(repo))
    # On POSIX, argv bytes that are not UTF-8 arrive as lone surrogates (surrogateescape).
    code, out, _ = _run(capsys, "search", "verify_token \udcff", "--root", str(repo), "--json")
    assert code == 0 and json.loads(out)["hits"]


def test_node_file_related_status_commands(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "index", str(repo))
    code, out, _ = _run(capsys, "node", "verify_token", "--root", str(repo), "--json")
    assert code == 0 and json.loads(out)["found"] is True
    code, out, _ = _run(capsys, "node", "nope_nothing", "--root", str(repo))
    assert code == EXIT_NOT_FOUND and "no symbol named" in out and "`igraph-mcp search`" in out
    code, out, _ = _run(capsys, "file", "auth.py", "--root", str(repo))
    assert code == 0 and out.startswith("app/auth.py (python")
    code, out, _ = _run(capsys, "related", "decode_token", "--root", str(repo), "--direction", "callers")
    assert code == 0 and "caller d=1  decode_token <-[calls] verify_token  app/auth.py:1" in out
    code, out, _ = _run(capsys, "status", "--root", str(repo), "--json")
    assert code == 0 and json.loads(out)["indexed"] is True


def test_init_writes_a_config_the_cli_accepts(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "init", "--root", str(repo))
    assert code == 0 and "config.json" in out
    code, _out, err = _run(capsys, "init", "--root", str(repo))
    assert code == 1 and "--force" in err
    code, _out, err = _run(capsys, "index", str(repo))
    assert code == 0, err


def test_version_in_a_subprocess() -> None:
    env = subprocess_env()
    proc = subprocess.run(
        [sys.executable, "-m", "igraph_mcp", "--version"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"igraph-mcp {__version__}"
    # The child ran the package under test, not another installed copy.
    where = subprocess.run(
        [sys.executable, "-c", "import igraph_mcp; print(igraph_mcp.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert Path(where.stdout.strip()).resolve().is_relative_to(PACKAGE_PARENT)


AMBIGUOUS_FILES = {
    "store/kv.py": """
        def get(key):
            return key

        class Cache:
            def get(self, key):
                return key
        """,
    "store/remote.py": """
        class Remote:
            def get(self, key):
                return key
        """,
}


def test_not_found_and_ambiguous_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, {**FILES, **AMBIGUOUS_FILES})
    assert _run(capsys, "index", str(repo))[0] == 0
    root = ["--root", str(repo)]
    # A bare name shared by a function and two methods lists all three instead of picking the function.
    code, out, _ = _run(capsys, "node", "get", *root)
    assert code == EXIT_AMBIGUOUS and "ambiguous (3 symbols)" in out and "--file" in out
    assert {"get", "Cache.get", "Remote.get"} <= {line.split()[1] for line in out.splitlines()[1:]}
    code, out, _ = _run(capsys, "node", "get", "--file", "store/kv.py", *root)
    assert code == EXIT_AMBIGUOUS and "Remote.get" not in out
    code, out, _ = _run(capsys, "node", "Cache.get", *root)
    assert code == 0 and out.startswith("method Cache.get")
    code, out, _ = _run(capsys, "file", "nothere.py", *root)
    assert code == EXIT_NOT_FOUND and "no indexed file matches" in out and "igraph_index" not in out
    code, out, _ = _run(capsys, "related", "NoSuchThing", *root)
    assert code == EXIT_NOT_FOUND
    # related narrows by file as node does, and its candidates carry their lines.
    code, out, _ = _run(capsys, "related", "get", *root)
    assert code == EXIT_AMBIGUOUS and "--file" in out and "store/remote.py:" in out
    code, out, _ = _run(capsys, "related", "get", "--file", "store/remote.py", *root)
    assert code == 0 and out.startswith("method Remote.get")
    code, out, _ = _run(capsys, "unmount", "99", *root)
    assert code == EXIT_NOT_FOUND and "`igraph-mcp resources`" in out


def test_a_held_index_lock_exits_busy(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    holder = make_service(repo)
    try:
        with holder._writer():
            code, out, err = _run(capsys, "index", str(repo))
    finally:
        holder.close()
    assert code == EXIT_BUSY and out == "" and "indexing this repository" in err


def test_search_has_one_default_shape_with_the_tool(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(capsys, "index", str(repo))[0] == 0
    code, out, _ = _run(capsys, "search", "token", "--root", str(repo), "--json")
    hits = json.loads(out)["hits"]
    # As igraph_explore: retrieval.nodeTopK hits (10) by default, the first 3 with a source snippet, the rest one
    # line each; the fixture has more than 10 symbols that mention tokens.
    assert code == 0 and len(hits) == 10
    assert all(h["snippet"] for h in hits[:3]) and not any(h["snippet"] for h in hits[3:])
    monkeypatch.setenv("IGRAPH_NODE_TOP_K", "7")
    code, out, _ = _run(capsys, "search", "token", "--root", str(repo), "--json")
    assert code == 0 and len(json.loads(out)["hits"]) == 7
    # ... expanded along the call graph by default (graphHops of the config), not only with --hops.
    code, out, _ = _run(capsys, "search", "verify_token", "--top-k", "1", "--root", str(repo), "--json")
    assert "decode_token" in {n["name"] for n in json.loads(out)["neighbours"]}
    code, out, _ = _run(capsys, "search", "verify_token", "--top-k", "1", "--hops", "0", "--root", str(repo), "--json")
    assert json.loads(out)["neighbours"] == []


@pytest.mark.parametrize(
    ("message", "cli", "agent"),
    [
        (
            f"no index yet: run {ask(NextStep.INDEX)}",
            "no index yet: run `igraph-mcp index`",
            "no index yet: run igraph_index",
        ),
        (
            f"no symbol named 'x'; try {ask(NextStep.EXPLORE)} with a description",
            "no symbol named 'x'; try `igraph-mcp search` with a description",
            "no symbol named 'x'; try igraph_explore with a description",
        ),
        (
            f"raise {ask(NextStep.MAX_TOKENS)} or use {ask(NextStep.NODE)} for full source",
            "raise --max-tokens or use `igraph-mcp node` for full source",
            "raise maxTokens or use igraph_node for full source",
        ),
        (
            f"call again with a qualified name or {ask(NextStep.NARROW_FILE)}",
            "call again with a qualified name or --file",
            "call again with a qualified name or the file argument",
        ),
        (
            f"index again with {ask(NextStep.ALLOW_MASS_DELETE)}",
            "index again with --allow-mass-delete",
            "index again with igraph_index(allowMassDelete=true)",
        ),
        (
            f"needs its client: {ask(NextStep.INSTALL_EXTRA, 'postgres')}",
            "needs its client: pip install 'igraph-mcp[postgres]'",
            "needs its client: pip install 'igraph-mcp[postgres]'",
        ),
        ("a path named igraph_indexes/x.py stays", "a path named igraph_indexes/x.py stays", None),
    ],
)
def test_each_front_words_the_next_step(message: str, cli: str, agent: str | None) -> None:
    assert word(message, PERSON_WORDS) == cli
    assert word(message, AGENT_WORDS) == (agent or cli)


def test_every_next_step_has_words_in_both_fronts() -> None:
    assert set(PERSON_WORDS) == set(NextStep) == set(AGENT_WORDS)
    assert NotIndexed(NO_INDEX).next_steps == [(NextStep.INDEX, "")]  # an error carries its step as data
    slot = ask(NextStep.INSTALL_EXTRA, "view")
    assert steps(f"run {ask(NextStep.INDEX)}, or {slot}") == [(NextStep.INDEX, ""), (NextStep.INSTALL_EXTRA, "view")]
