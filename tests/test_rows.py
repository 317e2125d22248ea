"""Row building's shortcuts give what the long way gives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from igraph_mcp.index.rows import _one_word, fts_body
from igraph_mcp.text.identifiers import split_identifier

IDENTIFIERS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{3,12}", fullmatch=True)


@given(IDENTIFIERS)
def test_a_name_taken_for_one_word_splits_into_one(name: str) -> None:
    if _one_word(name):
        assert len(split_identifier(name)) == 1


@pytest.mark.parametrize(
    ("name", "one"),
    [
        ("parse", True),
        ("PARSE", True),
        ("Parse", True),
        ("PaRse", False),
        ("parseFile", False),
        ("HTTPServer", False),
        ("parse_file", False),
        ("utf8", False),
        ("_parse", False),
    ],
)
def test_one_word_table(name: str, one: bool) -> None:
    assert _one_word(name) is one


def test_fts_body_adds_the_words_of_compound_names_only() -> None:
    body = "return parseFile(path) + Parse + HTTPServer + XMLHttp_request + PARSE"
    assert fts_body(body) == body + "\nhttp server xml request parse file"
