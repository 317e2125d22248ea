"""Property-based tests (hypothesis) for the pure functions that meet untrusted text: query analysis and FTS
quoting (Q1-Q3), path containment (P1-P5), document chunking (R3) and the SQL schema reader (R1, R2)."""

from __future__ import annotations

import os
import sqlite3
import unicodedata
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from igraph_mcp.errors import InvalidInput
from igraph_mcp.paths import resolve_inside
from igraph_mcp.resources.documents import chunk_plain_text
from igraph_mcp.resources.markdown import chunk_markdown
from igraph_mcp.resources.sql_schema import parse_sql_schema
from igraph_mcp.retrieve.analyze import analyze_query, printable
from igraph_mcp.store.fts import fts_or_query, fts_tokens, quote_token

# Text an agent or a document can contain: any unicode (lone surrogates included, as JSON can carry them),
# weighted towards the characters that mean something to FTS5, SQL, Markdown and paths.
SYNTAX = [*"\"'`*^:()[]{}-+#.\\/;,_ \t\n\r\x00\u200b\u202e", "NEAR", "AND", "OR", "NOT", "::", "->", "../"]
nasty_text = st.lists(
    st.one_of(st.sampled_from(SYNTAX), st.text(min_size=1, max_size=8), st.from_regex(r"[A-Za-z_][\w.]{0,12}")),
    max_size=40,
).map("".join)
# CI replays a fixed sequence of examples (a landing must not depend on luck); a developer's run explores anew.
IN_CI = bool(os.environ.get("CI"))
PROFILE = settings(
    max_examples=300,
    deadline=None,
    derandomize=IN_CI,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


# -- FTS quoting -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fts() -> apsw.Connection:
    con = apsw.Connection(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = \"unicode61 remove_diacritics 2 tokenchars '_'\")")
    return con


def _terms(con: apsw.Connection, text: str) -> list[str]:
    """What the index's own tokenizer stores for ``text``."""
    tokenize = con.fts5_tokenizer("unicode61", ["remove_diacritics", "2", "tokenchars", "_"])
    data = text.encode("utf-8", "replace")
    return [t[2] for t in tokenize(data, apsw.FTS5_TOKENIZE_DOCUMENT, None)]


@PROFILE
@given(text=nasty_text)
def test_query_tokens_are_cut_where_the_index_cuts(fts: apsw.Connection, text: str) -> None:
    # A query token the index tokenizes differently can never match: every token must be one of the text's own
    # terms (underscores at its ends aside: "__init__" is also searched as "init", which the words column holds).
    stored = _terms(fts, text)
    for token in fts_tokens(text):
        (term,) = _terms(fts, token)  # each token is one term, never a phrase the tokenizer splits again
        assert term in stored or term in {s.strip("_") for s in stored}, (token, stored)


@PROFILE
@given(text=nasty_text)
def test_any_text_becomes_a_valid_fts_query_that_finds_itself(fts: apsw.Connection, text: str) -> None:
    query = fts_or_query(fts_tokens(text))
    with fts:
        fts.execute("DELETE FROM t")
        fts.execute("INSERT INTO t(rowid, body) VALUES (1, ?)", (text.encode("utf-8", "replace").decode(),))
        if not query:
            assert not [t for t in _terms(fts, text) if t.strip("_")]  # nothing searchable was dropped
            return
        rows = [r[0] for r in fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,))]  # never a syntax error
    # Quoting never turns data into syntax: the text finds itself through any token stored as it is searched.
    # A token stored only with underscores around it ("__init__" searched as "init") is found through the words
    # column of the real index, which this one-column table lacks: then, and only then, nothing matches.
    stored = set(_terms(fts, text))
    findable = [t for t in fts_tokens(text) if _terms(fts, t)[0] in stored]
    assert rows == ([1] if findable else []), (query, stored)


@PROFILE
@given(token=st.text(min_size=1, max_size=30))
def test_quote_token_is_one_fts_string(fts: apsw.Connection, token: str) -> None:
    assume("\x00" not in token)
    quoted = quote_token(token)
    assert quoted.startswith('"') and quoted.endswith('"') and '"' not in quoted[1:-1].replace('""', "")
    fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (quoted.encode("utf-8", "replace").decode(),)).fetchall()


# -- query analysis ----------------------------------------------------------------------------------------
@PROFILE
@given(text=nasty_text)
def test_printable_turns_each_unprintable_character_but_newline_and_tab_into_a_space(text: str) -> None:
    assert printable(text) == "".join(ch if ch.isprintable() or ch in "\n\t" else " " for ch in text)


@PROFILE
@given(text=nasty_text)
def test_query_analysis_is_total_and_stays_within_the_text(text: str) -> None:
    qa = analyze_query(text)
    assert all(ch.isprintable() or ch in "\n\t" for ch in qa.text)  # control characters never reach ranking
    for ident in qa.identifiers:
        assert ident and (ident in qa.text or ident in {f for _p, f in qa.frames})
    for d in qa.dotted:
        assert all(part for part in d.split("."))
    if qa.is_identifier_query and len(qa.text.strip()) > 1:  # the whole query is one name: it is searched as one
        assert qa.text.strip().replace("::", ".").replace("->", ".").replace("#", ".") in [
            i.replace("::", ".").replace("->", ".").replace("#", ".") for i in qa.identifiers + qa.dotted
        ]
    assert len(qa.tokens) == len(set(qa.tokens))


@settings(max_examples=30, deadline=None, derandomize=IN_CI)
@given(unit=st.sampled_from(["a", "parse_file", "Foo.", "a.b", "x::", "é", "_"]), n=st.integers(1000, 10_000))
def test_long_repetitive_queries_are_analysed_with_bounded_output(unit: str, n: int) -> None:
    text = (unit * n)[:10_000]
    qa = analyze_query(text)
    assert sum(len(i) for i in qa.identifiers) <= 3 * len(text)
    assert len(qa.tokens) <= len(text)


# -- path containment --------------------------------------------------------------------------------------
SEGMENTS = [
    "..",
    ".",
    "",
    "docs",
    "spec.md",
    "out_link",
    "in_link",
    "loop",
    "dangling",
    "café",
    "cafe\u0301",
    "a\\..\\..",
    "C:",
    "~",
    "repo_evil",
    "\u202e",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("contain")
    root = base / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "spec.md").write_text("# spec\n", encoding="utf-8")
    (root / "café").mkdir()
    outside = base / "repo_evil"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n", encoding="utf-8")
    (root / "out_link").symlink_to(outside)
    (root / "in_link").symlink_to(root / "docs")
    (root / "loop").symlink_to(root / "loop")
    (root / "dangling").symlink_to(base / "nowhere")
    root_link = base / "root_link"
    root_link.symlink_to(root)
    return root, root_link


@PROFILE
@given(
    parts=st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6),
    sep=st.sampled_from(["/", "\\"]),
    absolute=st.sampled_from(["", "root", "other"]),
    via_link=st.booleans(),
)
def test_containment_never_lets_a_path_out(
    tree: tuple[Path, Path], parts: list[str], sep: str, absolute: str, via_link: bool
) -> None:
    root, root_link = tree
    given_root = root_link if via_link else root  # P5: the root itself reached through a symlink
    user = sep.join(parts)
    if absolute == "root":
        user = str(given_root) + "/" + user
    elif absolute == "other":
        user = str(root.parent / "repo_evil") + "/" + user
    try:
        got = resolve_inside(given_root, user)
    except InvalidInput:
        expected = os.path.realpath(os.path.join(root, user.replace("\\", "/")))
        # Inside only if every link resolved: realpath leaves a looping link unresolved, and such a path is refused.
        looped = any(q.is_symlink() for q in (Path(expected), *Path(expected).parents))
        inside = os.path.commonpath([expected, str(root)]) == str(root) and not looped
        assert not inside or not user.strip() or "\x00" in user, f"{user!r} was refused but resolves inside"
        return
    real_root = os.path.realpath(root)
    assert os.path.commonpath([str(got), real_root]) == real_root, f"{user!r} escaped to {got}"
    assert str(got) == os.path.realpath(got)  # symlinks already followed: what is checked is what is read


@PROFILE
@given(text=st.text(st.characters(exclude_categories=()), max_size=60))  # lone surrogates included
def test_containment_is_total(tree: tuple[Path, Path], text: str) -> None:
    root, _ = tree
    try:
        got = resolve_inside(root, text)
    except InvalidInput:
        return
    assert os.path.commonpath([str(got), os.path.realpath(root)]) == os.path.realpath(root)


# -- document chunking ---------------------------------------------------------------------------------------
markdown_line = st.one_of(
    st.sampled_from(["", "# Title", "## Sub", "###### Deep", "```", "~~~", "---", "===", "> quote", "- item"]),
    st.from_regex(r"#{1,7} [\w `*]{0,20}", fullmatch=True),
    st.text(max_size=30).map(lambda s: s.replace("\n", " ").replace("\r", " ")),
)
markdown_doc = st.lists(markdown_line, max_size=60).map("\n".join)


@PROFILE
@given(text=markdown_doc)
def test_markdown_chunks_are_well_formed(text: str) -> None:
    chunks = chunk_markdown(text, "doc")
    lines = text.split("\n")  # only "\n" ends a line (a form feed does not), as in an editor
    for c in chunks:
        assert c.text.strip(), "an empty chunk was produced"
        assert 1 <= c.start_line <= c.end_line <= max(len(lines), 1)
        assert c.heading_path and c.title == c.heading_path[-1]
        # The chunk is the document's own text at the lines it names: line numbers a reader can follow.
        span = {ln.rstrip() for ln in lines[c.start_line - 1 : c.end_line]}
        assert all(ln.rstrip() in span for ln in c.text.split("\n") if ln.strip()), (c.start_line, c.text)
    words = {w for ln in lines for w in ln.split() if w.strip("#`~=->*_")}
    if words:
        assert chunks, "a document with text produced no chunk"


@PROFILE
@given(text=st.text(max_size=400))
def test_plain_text_chunking_is_total(text: str) -> None:
    for c in chunk_plain_text(text, "doc"):
        assert c.text.strip() and c.start_line <= c.end_line


# -- SQL schema reader ---------------------------------------------------------------------------------------
SQL_PIECES = [
    "CREATE TABLE ",
    "t",
    '"q""t"',
    "`b`",
    "[s]",
    "(",
    ")",
    ",",
    ";",
    " ",
    "\n",
    "id INT PRIMARY KEY",
    "REFERENCES t(id)",
    "'str",
    "'",
    "--",
    "/*",
    "*/",
    "$$",
    "$tag$",
    "ATTACH DATABASE 'x.db' AS x",
    "VACUUM INTO 'y.db'",
    "SELECT load_extension('z')",
    "CREATE INDEX i ON t(a)",
    "ALTER TABLE t ADD COLUMN c TEXT",
    "DEFAULT",
    "CHECK (a > 0)",
]
sql_text = st.lists(st.one_of(st.sampled_from(SQL_PIECES), st.text(max_size=5)), max_size=50).map("".join)


def _no_connection(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the DDL reader opened a database connection")


# A table that closes before the random text starts: whatever follows, it is read, on its own line.
SENTINEL = "CREATE TABLE sentinel_table (id INT PRIMARY KEY);\n"


@PROFILE
@given(text=sql_text)
def test_sql_schema_reader_is_total_and_reports_real_lines(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # R2 as a property: the reader is a lexer, and no input, hostile DDL included, makes it open a database.
    monkeypatch.setattr(sqlite3, "connect", _no_connection)
    monkeypatch.setattr(apsw, "Connection", _no_connection)
    source = SENTINEL + text
    chunks, problems = parse_sql_schema(source, "db")
    n_lines = source.count("\n") + 1
    sentinel = [c for c in chunks if c.title == "sentinel_table"]
    assert len(sentinel) == 1 and (sentinel[0].start_line, sentinel[0].end_line) == (1, 1), chunks
    for c in chunks:
        assert c.kind == "db_table" and c.title
        assert 1 <= c.start_line <= c.end_line <= n_lines
    for p in problems:
        assert 2 <= p.line <= n_lines and p.message  # the sentinel's line has nothing wrong with it


def test_unicode_normalisation_does_not_change_containment(tree: tuple[Path, Path]) -> None:
    # Both spellings of one name stay inside: the NFC one is the directory on disk, the NFD one (other bytes on
    # Linux) a path inside the root that does not exist; neither is refused, and neither leaves.
    root, _ = tree
    for form in ("NFC", "NFD"):
        name = unicodedata.normalize(form, "café")
        got = resolve_inside(root, name)
        assert got == Path(os.path.realpath(root)) / name
    assert resolve_inside(root, unicodedata.normalize("NFC", "café")).is_dir()


def test_symlink_loop_cannot_smuggle_a_path_out(tree: tuple[Path, Path]) -> None:
    # Found by the containment property: realpath stops at a looping link and returns the rest unresolved, so
    # "loop/../out_link/secret.md" came back as "<root>/out_link/secret.md" and read a file outside the root.
    root, _ = tree
    for user in ("loop/../out_link/secret.md", "nowhere/../loop/../out_link/secret.md", "loop\\..\\out_link"):
        with pytest.raises(InvalidInput):
            resolve_inside(root, user)
    assert resolve_inside(root, "in_link/spec.md") == (root / "docs" / "spec.md").resolve()
