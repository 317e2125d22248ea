"""Tests for pure retrieval pieces (RRF, match channels, boosts, query analysis) and nasty queries."""

from __future__ import annotations

import pytest
from _factories import as_agent, index_repo, make_repo

from igraph_mcp.errors import InvalidInput
from igraph_mcp.explore_request import QUERY_ECHO_CHARS, validate
from igraph_mcp.retrieve.analyze import FTS_COMMON_FROM, MAX_QUERY_CHARS, analyze_query, select_fts_tokens
from igraph_mcp.retrieve.boosts import Candidate, boost
from igraph_mcp.retrieve.budget import estimate_tokens, snippet_of
from igraph_mcp.retrieve.fusion import Fused, rrf
from igraph_mcp.retrieve.params import DEFAULT_PARAMS
from igraph_mcp.retrieve.stages import analyze
from igraph_mcp.store.fts import fts_tokens


# -- RRF -----------------------------------------------------------------------------------------------------
def _scores(fused: list[Fused]) -> dict[int, float]:
    return {f.id: f.score for f in fused}


def test_rrf_formula_with_ranks_from_one() -> None:
    fused = rrf({"fts5": [7, 8], "dense": [8, 9]}, {}, k=60)
    s = _scores(fused)
    assert s[8] == pytest.approx(1 / 62 + 1 / 61)
    assert s[7] == pytest.approx(1 / 61)
    assert s[9] == pytest.approx(1 / 62)
    assert [f.id for f in fused] == [8, 7, 9]
    assert fused[0].ranks == {"fts5": 2, "dense": 1}


@pytest.mark.parametrize(
    ("weights", "k", "order"),
    [
        ({"fts5": 1.0, "dense": 1.0}, 60, [1, 2]),  # tie on score: best single rank, then id
        ({"fts5": 2.0, "dense": 1.0}, 60, [1, 2]),
        ({"fts5": 1.0, "dense": 2.0}, 60, [2, 1]),
        ({"fts5": 0.0, "dense": 1.0}, 60, [2, 1]),
        ({"fts5": 1.0, "dense": 1.0}, 1, [1, 2]),
    ],
)
def test_rrf_weights_and_ties(weights: dict[str, float], k: int, order: list[int]) -> None:
    fused = rrf({"fts5": [1, 2], "dense": [2, 1]}, weights, k)
    assert [f.id for f in fused] == order


def test_rrf_exact_weighted_score() -> None:
    s = _scores(rrf({"fts5": [1], "dense": [1]}, {"fts5": 0.5, "dense": 2.0}, 10))
    assert s[1] == pytest.approx(0.5 / 11 + 2.0 / 11)


def test_rrf_tie_broken_by_id_when_ranks_equal() -> None:
    fused = rrf({"fts5": [5], "dense": [3]}, {}, 60)
    assert [f.id for f in fused] == [3, 5]


def test_rrf_duplicates_keep_best_rank_and_do_not_count_twice() -> None:
    fused = rrf({"fts5": [4, 4, 5]}, {}, 60)
    assert _scores(fused) == pytest.approx({4: 1 / 61, 5: 1 / 62})


def test_rrf_empty_and_invalid_k() -> None:
    assert rrf({}, {}, 60) == []
    assert rrf({"fts5": []}, {}, 60) == []
    with pytest.raises(ValueError, match="rrfK"):
        rrf({"fts5": [1]}, {}, 0)


@pytest.mark.parametrize(
    ("ranks", "channel"),
    [
        ({"fts5": 1, "dense": 3}, "dense+fts5"),
        ({"dense": 2}, "dense"),
        ({"fts5": 2}, "fts5"),
        ({"graph": 1, "fts5": 2, "dense": 4}, "dense+fts5"),  # extra channels stay in ranks
        ({"graph": 1}, "graph"),
        ({"named": 1, "graph": 3}, "graph+named"),
    ],
)
def test_match_channel(ranks: dict[str, int], channel: str) -> None:
    assert Fused(1, 0.0, ranks).match_channel() == channel


# -- boosts --------------------------------------------------------------------------------------------------
B = DEFAULT_PARAMS.boosts  # the shipped factors


@pytest.mark.parametrize(
    ("query", "cand", "context", "factor", "why"),
    [
        (
            "parse_file",
            Candidate("parse_file", "parse_file", "function", "a.py"),
            (),
            B.exact_name,
            ["exactName"],
        ),
        (
            "Foo::bar",
            Candidate("bar", "Foo.bar", "method", "a.py"),
            (),
            B.exact_name * B.qualified_name,
            ["exactName", "qualifiedName"],
        ),
        (
            "PARSE_FILE",
            Candidate("parse_file", "parse_file", "function", "a.py"),
            (),
            B.exact_name * 0.8,
            ["exactNameCaseInsensitive"],
        ),
        (
            "why does parse_file fail",
            Candidate("parse_file", "parse_file", "function", "a.py"),
            (),
            B.identifier,
            ["identifier"],
        ),
        (
            "where is the HTTPParser class",
            Candidate("HTTPParser", "HTTPParser", "class", "p.py"),
            (),
            B.identifier * B.kind_hint,
            ["identifier", "kindHint"],
        ),
        (
            "where is the Parser class",  # a capitalised prose word is not an identifier
            Candidate("Parser", "Parser", "class", "p.py"),
            (),
            B.kind_hint,
            ["kindHint"],
        ),
        (
            "jwt.ts token check",
            Candidate("check", "check", "function", "src/auth/jwt.ts"),
            (),
            B.path_mentioned,
            ["pathMentioned"],
        ),
        (
            "anything",
            Candidate("x", "x", "function", "src/a.py"),
            ("src/a.py",),
            B.context_file,
            ["contextFile"],
        ),
        ("anything", Candidate("x", "x", "function", "src/a.py"), ("a.py",), B.context_file, ["contextFile"]),
        ("anything", Candidate("x", "x", "function", "src/b.py"), ("a.py",), 1.0, []),
        ("parse_file", Candidate("parse_file", "pkg.parse_file", "module", "parse_file.py"), (), 1.0, []),
        (
            'File "src/app.py", line 3, in handle',
            Candidate("handle", "handle", "function", "src/app.py"),
            (),
            None,
            ["identifier", "tracebackFrame", "pathMentioned"],
        ),
    ],
)
def test_boosts_table(
    query: str, cand: Candidate, context: tuple[str, ...], factor: float | None, why: list[str]
) -> None:
    got, names = boost(cand, analyze_query(query), context)
    assert names == why
    if factor is not None:
        assert got == pytest.approx(factor)
    else:
        assert got > B.identifier


@pytest.mark.parametrize(
    ("cand", "factor", "why"),
    [
        (Candidate("unknownOption", "Command.unknownOption", "method", "cmd.js"), B.name_phrase, ["namePhrase"]),
        (Candidate("unknown_option", "unknown_option", "function", "cli.py"), B.name_phrase, ["namePhrase"]),
        # its words, but not in a row in the question
        (Candidate("allowUnknownOption", "Command.allowUnknownOption", "method", "lib/command.js"), 1.0, []),
        (Candidate("optionUnknown", "optionUnknown", "function", "lib/a.js"), 1.0, []),
        (Candidate("option", "option", "function", "lib/a.js"), 1.0, []),  # one word says little
        (Candidate("for_unknown", "for_unknown", "function", "lib/a.js"), 1.0, []),  # nor one and a stop word
        # a class the question names is what it asks about, not the answer
        (Candidate("UnknownOption", "UnknownOption", "class", "lib/a.js"), 1.0, []),
    ],
)
def test_a_question_writing_a_function_name_as_words(cand: Candidate, factor: float, why: list[str]) -> None:
    query = analyze(None, "Where is an error reported for an unknown option?", DEFAULT_PARAMS)
    assert not query.issue
    assert boost(cand, query.analysis) == (pytest.approx(factor), why)


def test_an_issue_or_a_written_identifier_gets_no_name_phrase_boost() -> None:
    cand = Candidate("unknownOption", "Command.unknownOption", "method", "lib/command.js")
    issue_text = "An unknown option crashes the parser\n\n" + "\n".join(
        f"Running `cli --bogus{i}` prints a stack trace instead of the usage message." for i in range(6)
    )
    issue = analyze(None, issue_text, DEFAULT_PARAMS)
    assert issue.issue and boost(cand, issue.analysis) == (1.0, [])
    named = analyze(None, "where does unknownOption report an unknown option", DEFAULT_PARAMS)
    assert boost(cand, named.analysis) == (pytest.approx(B.identifier), ["identifier"])
    off = analyze(None, "where is an unknown option reported", DEFAULT_PARAMS.with_value("boosts.name_phrase", 1.0))
    assert off.analysis.phrase == "" and boost(cand, off.analysis) == (1.0, [])


def test_sibling_prefix_path_is_not_a_context_file() -> None:
    _f, why = boost(Candidate("x", "x", "function", "src/repo_evil/a.py"), analyze_query("x y"), ("repo/a.py",))
    assert "contextFile" not in why


# -- query analysis ------------------------------------------------------------------------------------------
def test_analyze_identifier_query() -> None:
    qa = analyze_query("parse_file")
    assert qa.is_identifier_query and qa.identifiers[0] == "parse_file"
    assert qa.tokens[:3] == ["parse_file", "parse", "file"]


def test_analyze_camel_and_pascal() -> None:
    qa = analyze_query("how does getUserName call HttpClient")
    assert {"getUserName", "HttpClient"} <= set(qa.identifiers)
    assert {"getusername", "get", "user", "name", "httpclient", "http", "client"} <= set(qa.tokens)
    assert "how" not in qa.tokens and "does" not in qa.tokens
    assert not qa.is_identifier_query


@pytest.mark.parametrize(
    ("query", "dotted"),
    [
        ("a.b.c", ["a.b.c"]),
        ("Foo::bar", ["Foo.bar"]),
        ("obj->method", ["obj.method"]),
        ("Klass#run", ["Klass.run"]),
        ("see Session.request and os.path.join", ["Session.request", "os.path.join"]),
        # Generic arguments between a name and its member are left out (C++, Rust's turbofish, Java).
        ("std::string StringMaker<float>::convert(float v)", ["std.string", "StringMaker.convert"]),
        ("formatter<std::tm, Char>::format", ["formatter.format"]),
        ("Foo<Bar<int>>::baz", ["Foo.baz"]),
        ("Vec::<u8>::with_capacity(3) and it.collect::<Vec<_>>()", ["Vec.with_capacity", "it.collect"]),
        ("List<String>.of(x)", ["List.of"]),
        # Comparisons and a type written alone are not generic arguments before a member.
        ("if (a<b && c>d) return; Vec<T> is fine", []),
    ],
)
def test_analyze_dotted(query: str, dotted: list[str]) -> None:
    assert analyze_query(query).dotted == dotted


@pytest.mark.parametrize(
    ("query", "paths"),
    [
        ("bug in jwt.ts", ["jwt.ts"]),
        ("./src/auth/jwt.ts and lib/util.py", ["src/auth/jwt.ts", "lib/util.py"]),
        ("version 1.2.3 of numpy", []),
        ("fix main.go please", ["main.go"]),
    ],
)
def test_analyze_paths(query: str, paths: list[str]) -> None:
    qa = analyze_query(query)
    assert qa.paths == paths
    assert all(p not in qa.dotted for p in paths)


def test_analyze_traceback() -> None:
    tb = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/proj/src/app/views.py", line 12, in render_page\n'
        "    return build(ctx)\n"
        '  File "C:\\proj\\src\\app\\build.py", line 3, in build\nKeyError: "x"'
    )
    qa = analyze_query(tb)
    assert qa.frames == [
        ("/home/u/proj/src/app/views.py", "render_page"),
        ("C:/proj/src/app/build.py", "build"),
    ]
    assert {"render_page", "build"} <= set(qa.identifiers)
    assert "/home/u/proj/src/app/views.py" in qa.paths


def test_analyze_kind_hints() -> None:
    assert analyze_query("which class handles retries").kind_hints == {"class"}
    assert analyze_query("methods and functions").kind_hints == {"method", "function"}


def test_select_fts_tokens_prefers_identifiers_then_rare() -> None:
    qa = analyze_query("parse_config common rare " + " ".join(f"w{i}x" for i in range(60)))
    freqs = {t: 5 for t in qa.tokens} | {"common": 900, "rare": 1}
    chosen = select_fts_tokens(qa, freqs, 1000, limit=5)
    assert chosen[0] == "parse_config" and "rare" in chosen and "common" not in chosen
    assert select_fts_tokens(qa, {"rare": 1}, 1000) == ["rare"]  # absent tokens are dropped


def test_long_query_leaves_out_common_words_but_keeps_enough() -> None:
    words = [f"w{i}x" for i in range(30)]
    qa = analyze_query(" ".join(words))
    # Words 0-9 are in half of the 1,000 symbols, the other 20 in 5 each: past FTS_COMMON_FROM tokens, the common
    # ones are left out (their posting lists are the cost, BM25 gives them little weight).
    freqs = {w: (500 if i < 10 else 5) for i, w in enumerate(words)}
    chosen = select_fts_tokens(qa, freqs, 1000)
    assert chosen == words[10:]
    # When too few rare ones remain, the least common of the rest fill up to FTS_COMMON_FROM, in query order.
    freqs = {w: (500 + i if i < 25 else 5) for i, w in enumerate(words)}
    chosen = select_fts_tokens(qa, freqs, 1000)
    assert len(chosen) == FTS_COMMON_FROM and chosen == words[:11] + words[25:]
    # A short query keeps its common words: it has few tokens to rank by.
    short = analyze_query("w0x w1x w25x")
    assert select_fts_tokens(short, freqs, 1000) == ["w0x", "w1x", "w25x"]


# -- validation and budget helpers ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "top_k", "hops", "message"),
    [
        ("", 5, 1, "empty"),
        ("   \n\t", 5, 1, "empty"),
        ("ok", 0, 1, "topK"),
        ("ok", 51, 1, "topK"),
        ("ok", 5, -1, "hops"),
        ("ok", 5, 6, "hops"),
    ],
)
def test_validate_rejects(query: str, top_k: int, hops: int, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        validate(query, top_k, hops)
    assert message in as_agent(str(caught.value))


def test_validate_accepts_the_limit_exactly() -> None:
    validate("x" * MAX_QUERY_CHARS, 50, 5)


def test_snippet_and_token_estimate() -> None:
    body = "\n".join(f"line {i}" for i in range(40))
    snip = snippet_of(body, 3, 900)
    assert snip.splitlines()[:3] == ["line 0", "line 1", "line 2"] and snip.endswith("…")
    assert len(snippet_of("x" * 5000)) <= 902
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2


# -- nasty inputs end to end (Q1-Q3) -------------------------------------------------------------------------
NASTY = [
    'foo"',
    "NEAR(",
    "NEAR(a b)",
    "a*",
    "^x",
    "a:b",
    "AND",
    "OR x",
    "x OR",
    "NOT",
    "(",
    ")",
    "don't",
    '"unbalanced',
    '""',
    "'",
    "-x",
    "+x",
    "{a b}",
    "col:term",
    "a AND (b OR",
    "*",
    "\\",
    "%_%",
    "'; DROP TABLE nodes; --",
    "!!!",
    "?",
    "...",
    "foo\x00bar",
    "\x01\x02\x1f",
    "abc\u202edef",
    "zero\u200bwidth",
    "emoji 🚀🔥 parse_file",
    "用户登录处理",
    "ユーザー認証",
    "مرحبا بالعالم",
    "café größe",
    "İstanbul",
    "a" * 3000,
    "parse_file " * 900,
    "\ud800",
    "x\ty\nz\r",
    "<script>alert(1)</script>",
]


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = make_repo(
        tmp_path_factory.mktemp("nasty"),
        {
            "src/parser.py": '''
            def parse_file(path):
                """Parse one file; handles NEAR and AND keywords."""
                return open(path).read()

            def café_total(größe):
                """Berechnet die Größe für das Café."""
                return größe
            ''',
            "src/login.py": '''
            def 用户登录处理(user):
                """用户登录"""
                return user
            ''',
        },
    )
    service = index_repo(root)
    yield service
    service.close()


@pytest.mark.parametrize("query", NASTY, ids=range(len(NASTY)))
@pytest.mark.parametrize("channels", [("fts",), ("fts", "dense")], ids=["fts", "hybrid"])
def test_nasty_queries_never_crash(svc, query: str, channels: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    # Every row is non-empty and within the length limit, so every row must be answered (Q1, Q3): none is
    # refused, none raises. Text with no word in it matches nothing lexically, rather than everything.
    result = svc.explore(query, channels=channels)
    if channels == ("fts",) and not fts_tokens(query):
        assert result.hits == []
    assert result.diagnostics.degraded is False
    assert len(result.query) <= QUERY_ECHO_CHARS + 1  # the echo and its ellipsis
    result.model_dump_json()  # serialisable (no lone surrogates leaking into the wire format)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("parse_file", "parse_file"),
        ('parse_file"', "parse_file"),
        ("NEAR(parse_file", "parse_file"),
        ("parse_file*", "parse_file"),
        ("foo\x00parse_file", "parse_file"),
        ("emoji 🚀 parse_file", "parse_file"),
        ("用户登录处理", "用户登录处理"),
        ("café", "café_total"),
        ("größe", "café_total"),
    ],
)
def test_nasty_queries_still_find_the_literal_text(svc, query: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    hits = svc.explore(query, channels=("fts",)).hits
    assert hits and hits[0].name == expected


@pytest.mark.parametrize("query", ["", "   ", "\n\t "])
def test_empty_queries_are_refused_clearly(svc, query: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput, match="query is empty"):
        svc.explore(query)


def test_long_query_is_answered_and_a_cut_is_noted(svc) -> None:  # type: ignore[no-untyped-def]
    long_ok = ("parse_file fails when the path is missing. " * 3000)[:MAX_QUERY_CHARS]
    result = svc.explore(long_ok)
    assert result.hits and result.hits[0].name == "parse_file"
    assert result.query.endswith("…") and len(result.query) == 201
    assert not (result.note or "").startswith("query was")
    over = svc.explore("parse_file " * 10_000)
    assert over.hits and over.hits[0].name == "parse_file"
    assert over.note and f"only the first {MAX_QUERY_CHARS} were used" in over.note


def test_names_at_the_end_of_a_long_issue_are_used(svc) -> None:  # type: ignore[no-untyped-def]
    filler = "The tool misbehaves in a way that is hard to describe in a few words.\n\n" * 400
    result = svc.explore("Something is wrong\n\n" + filler + "It happens inside parse_file.")
    assert len(filler) > 20_000
    assert result.hits and result.hits[0].name == "parse_file"


def test_test_code_is_demoted_unless_the_query_mentions_tests() -> None:
    cand = Candidate("helper", "helper", "function", "tests/test_x.py")
    factor, why = boost(cand, analyze_query("how is the cache invalidated"))
    assert factor == pytest.approx(B.test_code) and why == ["testCode"]
    factor, why = boost(cand, analyze_query("which test covers cache invalidation"))
    assert factor == 1.0 and "testCode" not in why
