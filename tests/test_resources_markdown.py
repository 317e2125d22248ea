"""Markdown PRD chunking: heading paths, line numbers, fences, setext, preamble, caps, identifiers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from igraph_mcp.resources import documents
from igraph_mcp.resources.documents import extract_identifiers
from igraph_mcp.resources.markdown import chunk_markdown
from igraph_mcp.resources.model import Chunk

PRD = """\
Owner: payments team. See `orders_export`.

# PRD-023

Users export orders with `OrderExporter.run`.

## Filters

Filter by date range.

### Currency

Only EUR; call "convert_currency()".

#### Rounding rules

Round half up.

## Delivery

Files go to S3.
"""


def by_title(chunks: list[Chunk]) -> dict[str, Chunk]:
    return {c.title: c for c in chunks}


def test_sections_heading_paths_and_lines() -> None:
    chunks = by_title(chunk_markdown(PRD, "PRD-023.md"))
    assert list(chunks) == ["PRD-023.md", "PRD-023", "Filters", "Currency", "Delivery"]
    assert chunks["Currency"].heading_path == ["PRD-023", "Filters", "Currency"]
    assert chunks["Delivery"].heading_path == ["PRD-023", "Delivery"]
    assert (chunks["PRD-023"].start_line, chunks["PRD-023"].end_line) == (3, 21)
    assert (chunks["Filters"].start_line, chunks["Filters"].end_line) == (7, 17)
    assert (chunks["Currency"].start_line, chunks["Currency"].end_line) == (11, 17)
    assert (chunks["Delivery"].start_line, chunks["Delivery"].end_line) == (19, 21)
    assert all(c.kind == "prd_section" for c in chunks.values())


def test_section_text_includes_subsections_and_h4_stays_inside() -> None:
    chunks = by_title(chunk_markdown(PRD, "PRD-023"))
    assert "Only EUR" in chunks["Filters"].text  # parent contains its child's text
    assert "Round half up" in chunks["Currency"].text  # H4 is not a chunk of its own
    assert "Rounding rules" not in chunks
    assert "Files go to S3" not in chunks["Filters"].text  # a sibling is not included
    assert chunks["Currency"].text.startswith("### Currency")


def test_preamble_titled_by_document_name() -> None:
    preamble = chunk_markdown(PRD, "PRD-023 export")[0]
    assert (preamble.title, preamble.heading_path) == ("PRD-023 export", ["PRD-023 export"])
    assert (preamble.start_line, preamble.end_line) == (1, 1)
    assert preamble.identifiers == ["orders_export"]


def test_document_without_preamble_has_no_empty_chunk() -> None:
    chunks = chunk_markdown("\n\n# Only\nbody\n", "doc")
    assert [c.title for c in chunks] == ["Only"]
    assert chunks[0].start_line == 3


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_hash_inside_fenced_code_is_not_a_heading(fence: str) -> None:
    text = f"# Real\n\n{fence}bash\n# install deps\npip install x\n## also not\n{fence}\n\ntext after\n"
    chunks = chunk_markdown(text, "doc")
    assert [c.title for c in chunks] == ["Real"]
    assert "# install deps" in chunks[0].text and "text after" in chunks[0].text


def test_fence_closes_only_with_same_character() -> None:
    text = "# A\n```\n~~~\n# still code\n```\n# B\nb\n"
    assert [c.title for c in chunk_markdown(text, "doc")] == ["A", "B"]


def test_unclosed_fence_runs_to_end() -> None:
    text = "# A\n```\n# not a heading\n"
    assert [c.title for c in chunk_markdown(text, "doc")] == ["A"]


def test_setext_headings() -> None:
    text = "Overview\n========\n\nintro\n\nScope\n-----\n\nscope text\n"
    chunks = chunk_markdown(text, "doc")
    assert [(c.title, c.heading_path) for c in chunks] == [
        ("Overview", ["Overview"]),
        ("Scope", ["Overview", "Scope"]),
    ]
    assert (chunks[1].start_line, chunks[1].end_line) == (6, 9)


@pytest.mark.parametrize(
    "text",
    [
        "---\n\ntext\n",  # a rule after a blank line
        "- item\n---\n",  # a list item followed by a rule
        "    # indented code\n",  # four spaces: code, not a heading
        "#hashtag is not a heading\n",
        "> # quoted heading\n",
    ],
)
def test_things_that_are_not_headings(text: str) -> None:
    chunks = chunk_markdown("intro\n\n" + text, "doc")
    assert [c.title for c in chunks] == ["doc"]


def test_atx_closing_hashes_and_empty_heading() -> None:
    chunks = chunk_markdown("## Title ##\nx\n#\ny\n", "doc")
    assert [c.title for c in chunks] == ["Title", "(untitled)"]


def test_front_matter_is_preamble_not_headings() -> None:
    text = "---\ntitle: Export\nowner: me\n---\n# Body\ntext\n"
    chunks = chunk_markdown(text, "doc")
    assert [c.title for c in chunks] == ["doc", "Body"]
    assert "owner: me" in chunks[0].text


def test_crlf_is_not_required_but_tabs_and_unicode_survive() -> None:
    chunks = chunk_markdown("# Überblick 概要\n\tbody ✓\n", "doc")
    assert chunks[0].title == "Überblick 概要" and "✓" in chunks[0].text


def test_long_section_is_capped_and_its_rest_kept_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_CHUNK_CHARS", 300)
    monkeypatch.setattr(documents, "GROUP_TARGET_CHARS", 100)
    paragraphs = "\n\n".join(f"paragraph {n} " + "word " * 10 for n in range(20))
    text = f"# Big\n\n{paragraphs}\n\n## Child\n\nchild text\n"
    chunks = chunk_markdown(text, "doc")
    big = chunks[0]
    assert big.title == "Big" and "more characters of this section were cut" in big.text
    assert len(big.text) < 450
    parts = [c for c in chunks if c.title.startswith("Big (part")]
    assert parts and all(len(c.text) <= 300 for c in parts)
    assert parts[0].title == "Big (part 2)" and parts[0].heading_path == ["Big"]
    assert any("paragraph 19" in c.text for c in parts)
    assert chunks[-1].title == "Child" and chunks[-1].heading_path == ["Big", "Child"]


def test_parent_cut_at_subsections_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_CHUNK_CHARS", 200)
    text = "# Top\nshort\n" + "".join(f"## Sub {n}\n" + "x" * 80 + "\n" for n in range(5))
    top = chunk_markdown(text, "doc")[0]
    assert "subsections have their own chunks" in top.text
    assert not any(c.title.startswith("Top (part") for c in chunk_markdown(text, "doc"))


def test_huge_preamble_without_headings_is_grouped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_CHUNK_CHARS", 500)
    text = "\n\n".join("line " * 30 for _ in range(20)) + "\n" + "z" * 2000  # plus one minified line
    chunks = chunk_markdown(text, "notes")
    assert len(chunks) > 3 and all(len(c.text) <= 500 for c in chunks)
    assert chunks[0].title == "notes" and chunks[1].title == "notes (part 2)"
    assert sum(c.text.count("z") for c in chunks) == 2000  # nothing lost when a line is sliced


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use `orders_export` now", ["orders_export"]),
        ("call `OrderExporter.run`", ["OrderExporter.run"]),
        ("call `export_orders()` or `export_orders(limit=5)`", ["export_orders"]),
        ('the "orders_export" job', ["orders_export"]),
        ("'OrderExporter' class and \"Export\" button", ["OrderExporter"]),
        ("see `src/export/jobs.py`", ["src/export/jobs.py"]),
        ("`SELECT * FROM x` is not a name", []),
        ("plain prose with no names", []),
        ("bare snake_case_name and run_job()", ["snake_case_name", "run_job"]),
        ("`Foo::bar` and `a->b`", ["Foo::bar", "a->b"]),
    ],
)
def test_identifiers(text: str, expected: list[str]) -> None:
    assert extract_identifiers(text) == expected


def test_identifiers_are_bounded() -> None:
    text = " ".join(f"`name_{n}`" for n in range(500))
    assert len(extract_identifiers(text)) == documents.MAX_IDENTIFIERS


_LINES = st.sampled_from(
    [
        "# H1",
        "## H2",
        "### H3",
        "#### H4",
        "text",
        "",
        "```",
        "~~~",
        "---",
        "===",
        "- item",
        "    code",
        "`x_y`",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINES, max_size=40))
def test_every_non_blank_line_lands_in_a_chunk(lines: list[str]) -> None:
    text = "\n".join(lines)
    chunks = chunk_markdown(text, "doc")
    covered = set()
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= len(lines)
        assert c.heading_path and c.title
        covered.update(range(c.start_line, c.end_line + 1))
    assert {n for n, t in enumerate(lines, 1) if t.strip()} <= covered
