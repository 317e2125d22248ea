"""read_resource: dispatch, size cap, binary and empty files, decoding, unreadable paths, idempotence."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import docx
import pytest

from igraph_mcp.errors import ResourceError
from igraph_mcp.resources import reader
from igraph_mcp.resources.reader import decode_text, read_resource

PRD = "# Export\nIntro `orders_export`.\n\n## Filters\nBy date.\n"
DDL = "CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer REFERENCES customers(id));\n"


def make_file(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


@pytest.mark.parametrize(
    ("name", "content", "kind", "first_title"),
    [
        ("PRD-023.md", PRD, "prd", "Export"),
        ("PRD-023.markdown", PRD, "prd", "Export"),
        ("notes.txt", "SCOPE\nall orders\n", "prd", "SCOPE"),
        ("guide.rst", "Title\n=====\n\nbody\n", "prd", "Title"),
        ("schema.sql", DDL, "db", "orders"),
        ("schema.DDL", DDL, "db", "orders"),
        ("dump.json", json.dumps({"tables": [{"name": "orders", "columns": ["id"]}]}), "db", "orders"),
    ],
)
def test_auto_dispatch_by_extension(tmp_path: Path, name: str, content: str, kind: str, first_title: str) -> None:
    parsed = read_resource(make_file(tmp_path, name, content))
    assert parsed.source_type == kind
    assert parsed.chunks[0].title == first_title


def test_pdf_and_docx_dispatch(tmp_path: Path) -> None:
    from test_resources_documents import make_pdf

    pdf = read_resource(make_file(tmp_path, "spec.pdf", make_pdf([["1 Overview", "text"]])))
    assert (pdf.source_type, pdf.chunks[0].title, pdf.chunks[0].page_start) == ("prd", "1 Overview", 1)
    document = docx.Document()
    document.add_heading("Goals", level=1)
    buffer = io.BytesIO()
    document.save(buffer)
    word = read_resource(make_file(tmp_path, "spec.docx", buffer.getvalue()), "prd")
    assert [c.title for c in word.chunks] == ["Goals"]


def test_name_overrides_document_name(tmp_path: Path) -> None:
    parsed = read_resource(make_file(tmp_path, "x.md", "intro only\n"), name="PRD-7 Exports")
    assert parsed.chunks[0].title == "PRD-7 Exports" and parsed.chunks[0].heading_path == ["PRD-7 Exports"]


@pytest.mark.parametrize(
    ("name", "source_type", "message"),
    [
        ("image.png", "auto", "unsupported file type '.png'"),
        ("Makefile", "auto", r"unsupported file type '\(none\)'"),
        ("schema.sql", "prd", "not a document format"),
        ("prd.md", "db", "not a schema format"),
        ("prd.md", "code", "unknown source type"),
    ],
)
def test_wrong_type_is_a_clear_error(tmp_path: Path, name: str, source_type: str, message: str) -> None:
    with pytest.raises(ResourceError, match=message):
        read_resource(make_file(tmp_path, name, "x"), source_type)


def test_huge_file_is_rejected_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_RESOURCE_BYTES", 1024)
    path = make_file(tmp_path, "big.md", "# H\n" + "x" * 2000)
    with pytest.raises(ResourceError, match=r"over the .* limit.*split it"):
        read_resource(path)
    assert read_resource(make_file(tmp_path, "small.md", "# H\nok\n")).chunks  # under the cap still works


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.md", b"# Title\n\x00\x01\x02binary", "binary data"),
        ("notes.md", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "rename it to .pdf"),
        ("notes.txt", b"PK\x03\x04\x14\x00" + bytes(30), "zip archive"),
        ("schema.sql", b"SQLite format 3\x00" + bytes(100), "export its schema"),
        ("spec.pdf", b"# not really a pdf\n", "not a PDF"),
        ("spec.docx", b"# not really a docx\n", r"not a \.docx"),
    ],
)
def test_binary_disguised_as_text_is_rejected(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    with pytest.raises(ResourceError, match=message):
        read_resource(make_file(tmp_path, name, content))


@pytest.mark.parametrize("content", [b"", b"   \n\n\t\n", "\ufeff\n".encode()])
def test_empty_document_is_rejected(tmp_path: Path, content: bytes) -> None:
    with pytest.raises(ResourceError, match="empty"):
        read_resource(make_file(tmp_path, "empty.md", content))


def test_schema_without_tables_is_an_error_listing_problems(tmp_path: Path) -> None:
    with pytest.raises(ResourceError, match=r"no readable table definitions.*line 1: ignored statement ATTACH"):
        read_resource(make_file(tmp_path, "evil.sql", "ATTACH DATABASE 'x.db' AS x;\n"))
    assert not (tmp_path / "x.db").exists()


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-8", b"\xef\xbb\xbf"), ("utf-32-le", b"")],
)
def test_bom_encodings_decode_with_correct_line_numbers(tmp_path: Path, encoding: str, bom: bytes) -> None:
    text = "Préambule ✓\r\n\r\n# Überblick\r\nText\r\n\r\n## Währung\r\nNur EUR\r\n"
    data = text.encode("utf-32") if encoding == "utf-32-le" else bom + text.encode(encoding)
    chunks = read_resource(make_file(tmp_path, "prd.md", data)).chunks
    assert [(c.title, c.start_line, c.end_line) for c in chunks] == [
        ("prd", 1, 1),
        ("Überblick", 3, 7),
        ("Währung", 6, 7),
    ]
    assert chunks[0].text == "Préambule ✓"


def test_utf16_without_bom_is_recognised() -> None:
    assert decode_text("# Title\nbody\n".encode("utf-16-le")) == "# Title\nbody\n"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("café au lait".encode("latin-1"), "café au lait"),  # legacy 8-bit text
        ("smart “quotes” – dash".encode("cp1252"), "smart “quotes” – dash"),
        ("naïve ".encode() + b"\xff broken", "naïve \ufffd broken"),  # damaged UTF-8 keeps its good parts
        (b"line1\rline2\r\nline3", "line1\nline2\nline3"),
        (b"a" * 9000 + b"\x00tail", "a" * 9000 + "\ufffdtail"),  # a NUL far from the start is replaced
    ],
)
def test_bad_encodings_are_replaced_not_rejected(data: bytes, expected: str) -> None:
    assert decode_text(data) == expected


def test_missing_file_and_directory_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ResourceError, match="does not exist"):
        read_resource(tmp_path / "gone.md")
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(ResourceError, match=r"dir\.md"):
        read_resource(tmp_path / "dir.md")


def test_unreadable_file_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_file(tmp_path, "secret.md", "# x\n")

    def denied(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(reader.os, "open", denied)  # chmod 000 would not stop root
    with pytest.raises(ResourceError, match=r"cannot read secret\.md: Permission denied"):
        read_resource(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.timeout(10)
def test_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(ResourceError, match="not a regular file"):
        read_resource(fifo)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"tables": [', r"not valid JSON \(line 1"),
        ('{"name": "not a schema"}', "does not look like a database schema dump"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply|does not look like"),
    ],
)
def test_bad_json(tmp_path: Path, content: str, message: str) -> None:
    with pytest.raises(ResourceError, match=message):
        read_resource(make_file(tmp_path, "dump.json", content))


def test_problems_are_returned_with_chunks(tmp_path: Path) -> None:
    parsed = read_resource(make_file(tmp_path, "s.sql", DDL + "CREATE TABLE broken (a text DEFAULT 'x);\n"))
    assert [c.title for c in parsed.chunks] == ["orders", "broken"]
    assert [p.line for p in parsed.problems] == [2]


def test_chunk_count_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_CHUNKS", 3)
    parsed = read_resource(make_file(tmp_path, "many.md", "".join(f"# S{n}\nx\n" for n in range(10))))
    assert len(parsed.chunks) == 3
    assert "only the first 3 chunks" in parsed.problems[-1].message


def test_reading_is_idempotent_and_follows_edits(tmp_path: Path) -> None:
    path = make_file(tmp_path, "prd.md", PRD)
    assert read_resource(path) == read_resource(path)
    path.write_text(PRD + "\n## Delivery\nS3\n")
    assert read_resource(path).chunks[-1].title == "Delivery"
    path.unlink()
    with pytest.raises(ResourceError, match="unmount"):
        read_resource(path)
