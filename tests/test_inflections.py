"""Other inflections of a query's words, and how the FTS channel takes the ones the index holds."""

from __future__ import annotations

import pytest

from igraph_mcp.retrieve.analyze import analyze_query, select_fts_tokens, token_forms, with_forms
from igraph_mcp.text.inflections import word_forms


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("equals", "equal"),
        ("equal", "equals"),
        ("properties", "property"),
        ("property", "properties"),
        ("matches", "match"),
        ("match", "matches"),
        ("parsing", "parse"),
        ("parsed", "parse"),
        ("parse", "parsing"),
        ("running", "run"),
        ("stopped", "stop"),
        ("retried", "retry"),
        ("encode", "encoding"),
        ("values", "value"),
    ],
)
def test_a_word_has_its_other_inflections(word: str, expected: str) -> None:
    forms = word_forms(word)
    assert expected in forms
    assert word not in forms


@pytest.mark.parametrize("word", ["class", "status", "bus", "is", "box", "x86", "Equals", "naïve", ""])
def test_no_forms_for_short_words_non_plurals_or_non_ascii(word: str) -> None:
    # "class" and "status" end in s but are not plurals; short, mixed-case, digit or non-ASCII words are left alone.
    assert word_forms(word) == ()


def test_base_forms_ending_in_eed_are_not_past_tenses() -> None:
    assert "see" not in word_forms("seed")
    assert "seeds" in word_forms("seed")


def test_forms_replace_a_missing_word_or_join_every_word() -> None:
    qa = analyze_query("options with equals and values")
    forms = token_forms(qa, 1)
    assert forms["equals"] == ("equal",)
    freqs = {"options": 4, "equal": 9, "values": 3, "value": 40}
    # mode 1: "equals" is not in the index, so its form stands in; "values" is, so "value" stays out.
    assert with_forms(qa.tokens, freqs, forms, 1) == ["options", "equal", "values"]
    # mode 2: every word's held forms follow it.
    assert with_forms(qa.tokens, freqs, forms, 2) == ["options", "equal", "values", "value"]
    assert with_forms(qa.tokens, freqs, forms, 0) == ["options", "values"]
    assert select_fts_tokens(qa, freqs, 1000, forms=forms, forms_mode=1) == ["options", "equal", "values"]
    assert token_forms(qa, 0) == {}
