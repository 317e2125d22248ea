"""An ASCII name is split in one regular-expression pass: the same words as the character loop every name may take."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from igraph_mcp.text.identifiers import _ASCII_WORDS, _split_loop, split_identifier

ASCII_NAMES = st.text(alphabet="aAbBzZ09_-.$ xXyY", max_size=14)


@given(ASCII_NAMES)
def test_the_ascii_pass_cuts_where_the_loop_cuts(name: str) -> None:
    assert tuple(w.lower() for w in _ASCII_WORDS.findall(name)) == _split_loop(name)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("parseFile", ["parse", "file"]),
        ("HTTPServer", ["http", "server"]),
        ("HTTP2Server", ["http", "2", "server"]),
        ("utf8Decode", ["utf", "8", "decode"]),
        ("ABCDef", ["abc", "def"]),
        ("aBCd", ["a", "b", "cd"]),
        ("snake_case-kebab.dotted", ["snake", "case", "kebab", "dotted"]),
        ("Ünïcode_naïveName", ["ünïcode", "naïve", "name"]),  # not ASCII: the loop
        ("", []),
    ],
)
def test_split_identifier_table(name: str, words: list[str]) -> None:
    assert split_identifier(name) == words
