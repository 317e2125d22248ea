"""Every line of code is findable: the tails of long definitions and code in callbacks, closures and func literals
(stored as parts, index/parts.py) are found by FTS and the dense channel, and answered as their definition with the
matching part's lines (retrieve/parts.py); parts never show up as symbols; incremental indexing keeps them like a
clean build, re-embedding only the part that changed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from _factories import edit_file, make_repo, make_service, marked_for_reparse, snapshot, undo_schema_16

from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.render import render_explore, render_index
from igraph_mcp.service import IGraphService
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import nodes as node_store
from igraph_mcp.vocab.languages import PART_KIND

pytestmark = pytest.mark.both_stores

SERVER_JS = (Path(__file__).parent / "fixtures" / "parts" / "server.js").read_text(encoding="utf-8")
SERVER_LINES = SERVER_JS.splitlines()
CALLBACK = (
    next(i for i, line in enumerate(SERVER_LINES, 1) if "instance.onClose(function" in line),
    next(i for i, line in enumerate(SERVER_LINES, 1) if "server.close(done)" in line),
)


def _python_tail() -> str:
    steps = "".join(
        f"    total_{i} = apply_adjustment(total_{i - 1}, rate={i}, label='step {i}')\n" for i in range(1, 90)
    )
    return (
        "def settle_accounts(total_0):\n    '''Apply every adjustment to a running total.'''\n"
        f"{steps}    return reconcile_ledger_drift(total_89)\n"
    )


def _go_routes() -> str:
    lines = "".join(f'\tmux.HandleFunc("/v1/resource{i}", handlerFor({i}, store, logger))\n' for i in range(60))
    return (
        'package server\n\nimport "net/http"\n\n'
        "func setupRoutes(mux *http.ServeMux, store *Store, logger *Logger) {\n"
        f"{lines}"
        '\tmux.HandleFunc("/drain", func(w http.ResponseWriter, r *http.Request) {\n'
        "\t\tcount := drainPendingWebhooks(store)\n"
        "\t\tw.WriteHeader(http.StatusAccepted)\n"
        '\t\tlogger.Printf("drained %d", count)\n'
        "\t})\n}\n"
    )


def _rust_workers() -> str:
    stages = "".join(f"    let stage_{i} = pipeline.stage({i}, &config, registry.clone());\n" for i in range(60))
    return (
        "pub fn spawn_workers(config: Config, registry: Registry) -> Pool {\n"
        "    let pipeline = Pipeline::new(&config);\n"
        f"{stages}"
        "    let on_shutdown = move |code: i32| {\n"
        "        flush_quarantine_queue(code);\n"
        "    };\n"
        "    Pool::new(pipeline, on_shutdown)\n}\n"
    )


def _app_js() -> str:
    routes = "".join(
        f"app.get('/items/{i}', async (req, res) => {{\n  res.json(await store.load('item', {i}, req.query))\n}})\n\n"
        for i in range(25)
    )
    return (
        "const express = require('express')\nconst store = require('./store')\n\nconst app = express()\n\n"
        f"{routes}"
        "app.get('/metrics', (req, res) => {\n  res.type('text/plain').send(prometheusRegistryDump())\n})\n\n"
        "module.exports = app\n"
    )


FILES = {
    "server.js": SERVER_JS,
    "ledger.py": _python_tail(),
    "routes.go": _go_routes(),
    "workers.rs": _rust_workers(),
    "app.js": _app_js(),
}


def _lines_of(text: str, word: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if word in line]


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IGraphService]:
    root = make_repo(tmp_path_factory.mktemp("parts"), FILES, dedent=False)
    service = make_service(root)
    service.index()
    yield service
    service.close()


@pytest.mark.parametrize(
    ("word", "path", "qualified_name"),
    [
        ("forceCloseConnections", "server.js", "createServer"),  # a callback passed to instance.onClose(...)
        ("reconcile_ledger_drift", "ledger.py", "settle_accounts"),  # the last line of a long function
        ("drainPendingWebhooks", "routes.go", "setupRoutes"),  # a Go func literal
        ("flush_quarantine_queue", "workers.rs", "spawn_workers"),  # a Rust closure
        ("prometheusRegistryDump", "app.js", "app"),  # a module-level callback
    ],
)
def test_fts_finds_the_definition_around_a_word_past_its_head(
    svc: IGraphService, word: str, path: str, qualified_name: str
) -> None:
    out = svc.explore(word, channels=("fts",), hops=0)
    top = out.hits[0]
    assert (top.filePath, top.qualifiedName) == (path, qualified_name)
    assert top.kind != PART_KIND
    lo, hi = top.partLines or (0, 0)
    assert any(lo <= line <= hi for line in _lines_of(FILES[path], word))
    assert word in top.snippet  # the snippet is the matching part, not the definition's head
    assert len({(h.filePath, h.qualifiedName) for h in out.hits}) == len(out.hits)  # each definition once


def test_the_dense_channel_reaches_a_callback_in_a_long_factory(svc: IGraphService) -> None:
    # The hashing embedder (words and trigrams) only proves the plumbing; the real model is tested below.
    query = "options.forceCloseConnections server.closeIdleConnections"
    out = svc.explore(query, channels=("dense",), hops=0)
    top = out.hits[0]
    assert (top.filePath, top.name) == ("server.js", "createServer")
    assert top.partLines is not None
    assert top.partLines[0] <= CALLBACK[1] and top.partLines[1] >= CALLBACK[0]
    assert top.ranks == {"dense": 1}


def test_the_text_answer_names_the_definition_and_the_matching_lines(svc: IGraphService) -> None:
    out = svc.explore("forceCloseConnections", channels=("fts",), hops=0)
    first = render_explore(out).splitlines()[0]
    lo, hi = out.hits[0].partLines or (0, 0)
    assert first.startswith(
        f"1. function createServer  server.js:14-{len(SERVER_LINES) - 2}  (match in lines {lo}-{hi})"
    )


def test_parts_are_never_listed_counted_or_named_as_symbols(svc: IGraphService) -> None:
    db = svc.db
    parts = count_store.part_count(db)
    assert parts > 0
    stored = int(db.scalar("SELECT count(*) FROM nodes", default=0))
    files = int(db.scalar("SELECT count(*) FROM files", default=0))
    assert svc.status().symbols == stored - files - parts
    outline = svc.file("server.js")
    assert outline.found and PART_KIND not in {s.kind for s in outline.symbols}
    assert {s.name for s in outline.symbols} >= {"createServer", "close"}
    found = svc.node("createServer")
    assert found.found and found.node is not None and found.node.kind == "function"
    part_ids = [int(r[0]) for r in db.rows("SELECT id FROM nodes WHERE kind = ?", (PART_KIND,))]
    assert node_store.nodes_by_ids(db, part_ids) == {}
    assert node_store.nodes_named(db, "") == [] and node_store.name_counts(db, [""]) == {}
    assert all(s.kind != PART_KIND for s in node_store.symbol_table(db))
    # No edge starts or ends at a part: expansion and the call graph never meet one.
    assert (
        db.scalar(
            "SELECT count(*) FROM edges e JOIN nodes n ON n.id IN (e.source_id, e.target_id) WHERE n.kind = ?",
            (PART_KIND,),
            default=0,
        )
        == 0
    )
    # Every part belongs to a symbol of its own file, and is embedded after the symbols (all are, here).
    orphans = db.scalar(
        "SELECT count(*) FROM nodes p LEFT JOIN nodes o ON o.id = p.parent_id "
        "WHERE p.kind = ? AND (o.id IS NULL OR o.file_id != p.file_id OR o.kind = ?)",
        (PART_KIND, PART_KIND),
        default=0,
    )
    assert orphans == 0
    assert svc.status().vectors == stored


def _embed_hashes(svc: IGraphService) -> dict[tuple[str, int, str], str]:
    """(kind, start line, first line of the body) -> text hash of every node of server.js."""
    rows = svc.db.rows(
        "SELECT n.kind, n.start_line, n.body, n.embed_hash FROM nodes n JOIN files f ON f.id = n.file_id "
        "WHERE f.path = 'server.js'"
    )
    return {(str(k), int(s), str(b).splitlines()[0] if b else ""): str(h) for k, s, b, h in rows}


def test_an_edit_in_the_tail_re_embeds_only_its_part_and_equals_a_clean_build(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"server.js": SERVER_JS}, dedent=False)
    with_tail = SERVER_JS.replace("    server.close(done)\n", "    server.close(done) // the last word: goodbye\n")
    assert with_tail != SERVER_JS
    svc = make_service(root)
    try:
        svc.index()
        before = _embed_hashes(svc)
        edit_file(root, "server.js", with_tail)
        result = svc.index()
        after = _embed_hashes(svc)
        assert result.embedded == 1  # one part's text changed; every other text (and vector) is reused
        changed = {key for key in after if before.get(key) != after[key]}
        assert len(changed) == 1 and next(iter(changed))[0] == PART_KIND
        inc = snapshot(svc.db)
    finally:
        svc.close()
    copy = tmp_path / "clean"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".igraph"))
    clean = make_service(copy)
    try:
        clean.index(full=True)
        assert snapshot(clean.db) == inc
        assert _embed_hashes(clean) == after
    finally:
        clean.close()


def test_a_renamed_file_keeps_its_parts_as_a_clean_build_has_them(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"server.js": SERVER_JS}, dedent=False)
    svc = make_service(root)
    try:
        svc.index()
        (root / "lib").mkdir()
        (root / "server.js").rename(root / "lib" / "server.js")
        assert svc.index().renamed == 1
        inc = snapshot(svc.db)
        found = svc.explore("forceCloseConnections", channels=("fts",), hops=0).hits[0]
        assert (found.filePath, found.name) == ("lib/server.js", "createServer") and found.partLines
    finally:
        svc.close()
    copy = tmp_path / "clean"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".igraph"))
    clean = make_service(copy)
    try:
        clean.index(full=True)
        assert snapshot(clean.db) == inc
    finally:
        clean.close()


@pytest.mark.model
@pytest.mark.sqlite_only
def test_the_real_model_finds_the_shutdown_callback_by_what_it_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = make_repo(tmp_path, FILES)  # with the factories' filler code around it
    svc = make_service(root, embedder=make_embedder("local"))
    try:
        svc.index()
        out = svc.explore("force open connections to close when the server shuts down", channels=("dense",), hops=0)
    finally:
        svc.close()
    top3 = [(h.filePath, h.name, h.partLines) for h in out.hits[:3]]
    factory = next((h for h in out.hits[:3] if h.name == "createServer"), None)
    assert factory is not None, top3
    assert factory.partLines is not None and factory.partLines[0] <= CALLBACK[1], top3
    assert factory.partLines[1] >= CALLBACK[0], top3


def test_the_index_summary_counts_vectors_not_symbols(tmp_path: Path) -> None:
    """Parts get vectors too: the summary's embedding line counts vectors, which outnumber the symbols here."""
    service = make_service(make_repo(tmp_path, FILES, dedent=False))
    try:
        result = service.index()
        vectors = service.status().vectors
        assert result.embedded == vectors > result.symbols
        line = next(x for x in render_index(result).splitlines() if "embedded" in x)
        assert line == f"{vectors} vectors embedded, definitions and parts of long ones (0 reused)"
    finally:
        service.close()


def _commented_go() -> str:
    """A Go file whose functions each carry a doc comment, with notes between them: the module's own lines."""
    blocks = "".join(
        f"// A note on bucket {i}: it refills at the top of the hour.\n// Nothing else reads it.\n\n"
        f"// check{i} spends a token of quota bucket {i} before the retry window closes.\n"
        f"func check{i}(n int) bool {{ return n < {i} }}\n\n"
        for i in range(12)
    )
    return f"package quota\n\n{blocks}"


def _module_parts(svc: IGraphService, path: str) -> str:
    rows = svc.db.rows(
        "SELECT p.body FROM nodes p JOIN nodes m ON m.id = p.parent_id JOIN files f ON f.id = m.file_id "
        "WHERE p.kind = ? AND m.kind = 'module' AND f.path = ?",
        (PART_KIND, path),
    )
    return "\n".join(str(body) for (body,) in rows)


@pytest.mark.sqlite_only
def test_schema_16_reads_again_the_files_whose_doc_comments_were_their_neighbours(tmp_path: Path) -> None:
    import apsw  # the SQLite driver, for the hand-made older index

    root = make_repo(tmp_path, {"quota.go": _commented_go(), "ledger.py": _python_tail()}, dedent=False)
    svc = make_service(root)
    try:
        svc.index()
        parts = _module_parts(svc, "quota.go")
        assert "refills at the top of the hour" in parts and "spends a token" not in parts
        out = svc.explore("spends a token of quota bucket", channels=("fts",), hops=0)
        assert out.hits[0].qualifiedName.startswith("check") and "module" not in {h.kind for h in out.hits}
    finally:
        svc.close()
    con = apsw.Connection(str(root / ".igraph" / "igraph.db"))
    undo_schema_16(con)
    con.close()
    marked = marked_for_reparse(root / ".igraph" / "igraph.db")
    assert marked == {"quota.go"}  # not the Python file: its docstrings lie inside its definitions
    svc = make_service(root)
    try:
        assert svc.index().parsed == 1
    finally:
        svc.close()
