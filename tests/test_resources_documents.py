"""Plain text, PDF and DOCX chunking. PDF and DOCX fixtures are generated here, not committed."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import docx
import pytest

from igraph_mcp.errors import ResourceError
from igraph_mcp.resources import documents
from igraph_mcp.resources.documents import chunk_docx, chunk_pdf, chunk_plain_text

# --- factories ---------------------------------------------------------------------------------


def make_pdf(pages: list[list[str]]) -> bytes:
    """A minimal valid PDF, one text line per entry, Helvetica; xref offsets computed."""
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    page_ids = [4 + 2 * n for n in range(len(pages))]
    kids = " ".join(f"{p} 0 R" for p in page_ids)
    objects[2] = f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode()
    for page_id, lines in zip(page_ids, pages, strict=True):
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        stream = "\n".join([*ops, "ET"]).encode("latin-1")
        objects[page_id] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (page_id + 1)
        )
        objects[page_id + 1] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offsets[n] for n in sorted(objects))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def make_docx(build: Callable[[object], None]) -> bytes:
    document = docx.Document()
    build(document)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


# --- plain text --------------------------------------------------------------------------------

NUMBERED = """\
Export orders PRD

1 Overview
Users need exports.

1.1 Scope
Only orders.

1.1.1 Out of scope
Refunds.

1.1.1.1 Deep detail
Stays inside.

2 Filters
Date and currency.
"""


def test_numbered_headings_nest_by_depth() -> None:
    chunks = chunk_plain_text(NUMBERED, "prd")
    assert [c.heading_path for c in chunks] == [
        ["prd"],
        ["1 Overview"],
        ["1 Overview", "1.1 Scope"],
        ["1 Overview", "1.1 Scope", "1.1.1 Out of scope"],
        ["2 Filters"],
    ]
    scope = chunks[2]
    assert (scope.start_line, scope.end_line) == (6, 13)
    assert "Stays inside." in scope.text and "Refunds." in scope.text


def test_caps_and_underlined_headings() -> None:
    text = "ACCEPTANCE CRITERIA\nmust pass\n\nDetails\n=======\nmore\n\nSub part\n--------\nleaf\n"
    chunks = chunk_plain_text(text, "doc")
    assert [c.heading_path for c in chunks] == [
        ["ACCEPTANCE CRITERIA"],
        ["Details"],
        ["Details", "Sub part"],
    ]
    assert chunks[1].start_line == 4


def test_rst_overline_titles() -> None:
    text = "=====\nTitle\n=====\n\nintro\n\nSection\n-------\nbody\n"
    chunks = chunk_plain_text(text, "doc")
    assert [c.heading_path for c in chunks] == [["Title"], ["Title", "Section"]]


@pytest.mark.parametrize(
    "line",
    [
        "1. buy milk and eggs",  # lower-case: a list item
        "2024 Roadmap review happened.",  # a year, and a sentence
        "3 The export must finish within five minutes for all of our largest customers.",
        "OK",  # too short for an ALL CAPS heading
        "NOTE: DO THIS.",
    ],
)
def test_lines_that_are_not_headings(line: str) -> None:
    assert [c.title for c in chunk_plain_text(f"intro\n\n{line}\nmore\n", "doc")] == ["doc"]


def test_headless_text_becomes_bounded_paragraph_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "GROUP_TARGET_CHARS", 200)
    paragraphs = [f"paragraph {n} " + "lorem ipsum " * 10 for n in range(12)]
    chunks = chunk_plain_text("\n\n".join(paragraphs), "notes")
    assert len(chunks) > 3
    assert chunks[0].title == "notes" and chunks[1].title == "notes (part 2)"
    assert all(c.heading_path == ["notes"] and len(c.text) <= documents.MAX_CHUNK_CHARS for c in chunks)
    # groups end on paragraph boundaries and keep their line numbers
    joined = [p.strip() for c in chunks for p in c.text.split("\n\n")]
    assert joined == [p.strip() for p in paragraphs]
    assert all(c.end_line < after.start_line for c, after in pairwise(chunks))


# --- PDF ---------------------------------------------------------------------------------------


def test_pdf_chunks_by_numbered_headings_and_keeps_pages() -> None:
    data = make_pdf(
        [
            [
                "ACME CONFIDENTIAL",
                "1 Overview",
                "Orders are exported nightly.",
                "1.1 Scope",
                "Only paid orders.",
            ],
            ["ACME CONFIDENTIAL", "2 Filters", "Filter by orders_export date."],
            ["ACME CONFIDENTIAL", "more filter text"],
        ]
    )
    chunks, problems = chunk_pdf(data, "spec")
    assert problems == []
    titles = {c.title: c for c in chunks}
    assert set(titles) >= {"1 Overview", "1.1 Scope", "2 Filters"}
    assert "ACME CONFIDENTIAL" not in titles  # a running header is not a heading
    assert titles["1.1 Scope"].heading_path == ["1 Overview", "1.1 Scope"]
    assert (titles["1 Overview"].page_start, titles["1 Overview"].page_end) == (1, 1)
    assert (titles["2 Filters"].page_start, titles["2 Filters"].page_end) == (2, 3)
    assert "orders_export" in titles["2 Filters"].identifiers
    assert all(c.start_line == 0 for c in chunks)  # PDFs have no source lines


def test_pdf_without_text_is_rejected() -> None:
    with pytest.raises(ResourceError, match="no extractable text"):
        chunk_pdf(make_pdf([[]]), "scan")


def test_corrupt_pdf_is_a_resource_error() -> None:
    with pytest.raises(ResourceError, match="could not be read as a PDF"):
        chunk_pdf(b"%PDF-1.4\n" + b"\x00garbage" * 50, "bad")


# --- DOCX --------------------------------------------------------------------------------------


def _spec(document: object) -> None:
    d = document
    d.add_paragraph("Export orders", style="Title")  # type: ignore[attr-defined]
    d.add_paragraph("Intro paragraph.")  # type: ignore[attr-defined]
    d.add_heading("Goals", level=1)  # type: ignore[attr-defined]
    d.add_paragraph("Ship `orders_export`.")  # type: ignore[attr-defined]
    d.add_heading("Filters", level=2)  # type: ignore[attr-defined]
    table = d.add_table(rows=2, cols=2)  # type: ignore[attr-defined]
    table.cell(0, 0).text, table.cell(0, 1).text = "Field", "Type"
    table.cell(1, 0).text, table.cell(1, 1).text = "currency", "EUR only"
    d.add_heading("Rounding detail", level=4)  # type: ignore[attr-defined]
    d.add_paragraph("Half up.")  # type: ignore[attr-defined]
    d.add_heading("Delivery", level=1)  # type: ignore[attr-defined]
    d.add_paragraph("To S3.")  # type: ignore[attr-defined]


def test_docx_headings_drive_sections_and_tables_are_text() -> None:
    chunks = chunk_docx(make_docx(_spec), "spec")
    assert [c.heading_path for c in chunks] == [["spec"], ["Goals"], ["Goals", "Filters"], ["Delivery"]]
    preamble, goals, filters, _ = chunks
    assert "Export orders" in preamble.text and "Intro paragraph." in preamble.text
    assert "currency | EUR only" in filters.text  # table rows as text
    assert "Half up." in filters.text and "Rounding detail" in filters.text  # Heading 4 stays inside
    assert "currency | EUR only" in goals.text and "orders_export" in goals.identifiers


def test_docx_merged_cells_are_written_once() -> None:
    def build(document: object) -> None:
        table = document.add_table(rows=1, cols=3)  # type: ignore[attr-defined]
        merged = table.cell(0, 0).merge(table.cell(0, 1))
        merged.text = "wide"
        table.cell(0, 2).text = "narrow"

    chunks = chunk_docx(make_docx(build), "t")
    assert "wide | narrow" in chunks[0].text


def test_docx_that_is_not_a_zip_is_rejected() -> None:
    with pytest.raises(ResourceError, match=r"not a valid \.docx"):
        chunk_docx(b"just text", "fake")


def test_zip_that_is_not_a_word_document_is_rejected() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hi")
    with pytest.raises(ResourceError, match="could not be read as a Word document"):
        chunk_docx(buffer.getvalue(), "fake")


def test_docx_zip_bomb_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_DOCX_UNZIPPED_BYTES", 1000)
    with pytest.raises(ResourceError, match="unpacks to"):
        chunk_docx(make_docx(_spec), "big")


def test_generated_fixture_round_trips_through_files(tmp_path: Path) -> None:
    path = tmp_path / "spec.pdf"
    path.write_bytes(make_pdf([["1 Overview", "text"]]))
    chunks, _ = chunk_pdf(path.read_bytes(), "spec")
    assert chunks[0].title == "1 Overview" and chunks[0].page_start == 1
