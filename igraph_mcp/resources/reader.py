"""Entry point for mounted resources: check, decode and dispatch one file to its chunker.

Nothing here touches a database: SQL is parsed as text and never executed.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from igraph_mcp.errors import ResourceError
from igraph_mcp.resources.documents import chunk_docx, chunk_pdf, chunk_plain_text
from igraph_mcp.resources.json_schema import looks_like_schema, parse_json_schema
from igraph_mcp.resources.markdown import chunk_markdown
from igraph_mcp.resources.model import Chunk, ParsedResource, ParseProblem
from igraph_mcp.resources.sql_schema import parse_sql_schema

MAX_RESOURCE_BYTES = 20 * 1024 * 1024
MAX_CHUNKS = 5000  # a mount beyond this is almost certainly the wrong file; the rest is reported
SOURCE_TYPES = ("auto", "prd", "db")

_PRD_FORMATS = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".rst": "text"}
_PRD_FORMATS |= {".pdf": "pdf", ".docx": "docx"}
_DB_FORMATS = {".sql": "sql", ".ddl": "sql", ".json": "json"}
_SNIFF_BYTES = 8192
_BINARY_MAGIC = (
    (b"%PDF-", "a PDF file; rename it to .pdf and mount it again"),
    (b"PK\x03\x04", "a zip archive (a .docx?); rename it to its real extension and mount it again"),
    (b"SQLite format 3\x00", "a SQLite database; export its schema (sqlite3 FILE .schema > schema.sql)"),
    (b"\x89PNG", "a PNG image; mount a text document instead"),
    (b"\xff\xd8\xff", "a JPEG image; mount a text document instead"),
    (b"GIF8", "a GIF image; mount a text document instead"),
    (b"\x7fELF", "an executable; mount a text document instead"),
    (b"\x1f\x8b", "a gzip archive; decompress it first"),
)
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
# A valid multi-byte UTF-8 sequence: if any is present, invalid bytes are damage inside UTF-8 text
# (replace them); if none is, the file is a legacy 8-bit encoding (read it as Windows-1252).
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


def read_resource(path: Path, source_type: str = "auto", *, name: str | None = None) -> ParsedResource:
    """Read one PRD or schema file into chunks; raises ResourceError with what to do when it cannot."""
    if source_type not in SOURCE_TYPES:
        raise ResourceError(f"unknown source type {source_type!r}; use one of: {', '.join(SOURCE_TYPES)}")
    path = Path(path)
    doc_name = name or path.stem or path.name
    kind, fmt = _format_for(path, source_type)
    data = _read_capped(path)
    if not data.strip():
        raise ResourceError(f"{path.name} is empty; add content to it before mounting")
    if fmt == "pdf":
        if b"%PDF-" not in data[:1024]:
            raise ResourceError(f"{path.name} is not a PDF (no %PDF header); mount the original document")
        chunks, problems = chunk_pdf(data, doc_name, max_chunks=MAX_CHUNKS + 1)
    elif fmt == "docx":
        if not data.startswith(b"PK\x03\x04"):
            raise ResourceError(f"{path.name} is not a .docx (not a zip archive); re-save it from Word")
        chunks, problems = chunk_docx(data, doc_name, max_chunks=MAX_CHUNKS + 1), []
    else:
        text = decode_text(data, path.name)
        kind, chunks, problems = _parse_text(text, fmt, kind, doc_name, path.name)
    if not chunks:
        raise ResourceError(_nothing_found(path.name, kind, problems))
    if len(chunks) > MAX_CHUNKS:
        problems.append(ParseProblem(0, f"only the first {MAX_CHUNKS} chunks were kept; split the file"))
        chunks = chunks[:MAX_CHUNKS]
    return ParsedResource(kind, chunks, problems)


def _format_for(path: Path, source_type: str) -> tuple[str, str]:
    """(source kind, format) from the extension and the requested source type."""
    ext = path.suffix.lower()
    if source_type in ("auto", "prd") and ext in _PRD_FORMATS:
        return "prd", _PRD_FORMATS[ext]
    if source_type in ("auto", "db") and ext in _DB_FORMATS:
        return "db", _DB_FORMATS[ext]
    docs, schemas = ", ".join(_PRD_FORMATS), ", ".join(_DB_FORMATS)
    if source_type == "prd":
        raise ResourceError(f"{path.name}: '{ext}' is not a document format; use {docs} (or source type 'db')")
    if source_type == "db":
        raise ResourceError(f"{path.name}: '{ext}' is not a schema format; use {schemas} (or source type 'prd')")
    raise ResourceError(
        f"cannot mount {path.name}: unsupported file type '{ext or '(none)'}'. "
        f"Documents: {docs}; schemas: {schemas}. Convert or rename the file."
    )


def _read_capped(path: Path) -> bytes:
    """The file's bytes, refusing non-regular files and anything over MAX_RESOURCE_BYTES."""
    cap = MAX_RESOURCE_BYTES
    try:
        # O_NONBLOCK: opening a FIFO must not hang the server; regular files are unaffected.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError as exc:
        raise ResourceError(f"{path.name} does not exist; check the path, or unmount it if it was deleted") from exc
    except OSError as exc:
        raise ResourceError(f"cannot read {path.name}: {exc.strerror}; check that it is a readable file") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ResourceError(f"{path.name} is not a regular file; mount a document or schema file")
        if info.st_size > cap:
            raise ResourceError(_too_large(path.name, info.st_size, cap))
        data = _read_at_most(fd, cap + 1)
    except OSError as exc:
        raise ResourceError(f"cannot read {path.name}: {exc.strerror}; check the file and retry") from exc
    finally:
        os.close(fd)
    if len(data) > cap:  # the file grew after fstat
        raise ResourceError(_too_large(path.name, len(data), cap))
    return data


def _read_at_most(fd: int, limit: int) -> bytes:
    """Read until end of file or `limit` bytes, whichever comes first."""
    parts: list[bytes] = []
    remaining = limit
    while remaining > 0 and (block := os.read(fd, min(remaining, 1 << 20))):
        parts.append(block)
        remaining -= len(block)
    return b"".join(parts)


def _too_large(name: str, size: int, cap: int) -> str:
    return (
        f"{name} is {size / 2**20:.1f} MB, over the {cap / 2**20:g} MB limit for mounted resources; "
        "split it or mount only the relevant part"
    )


def decode_text(data: bytes, name: str = "file") -> str:
    """Bytes to text: BOMs honoured, UTF-8 with replacement, Windows-1252 fallback; binary refused."""
    for magic, what in _BINARY_MAGIC:
        if data.startswith(magic):
            raise ResourceError(f"{name} is not text but {what}")
    encoding = next((enc for bom, enc in _BOMS if data.startswith(bom)), None)
    if encoding is not None:
        text = data[len(next(b for b, e in _BOMS if e == encoding)) :].decode(encoding, errors="replace")
    elif b"\x00" in data[:_SNIFF_BYTES]:
        encoding = _bomless_utf16(data[:_SNIFF_BYTES])
        if encoding is None:
            raise ResourceError(f"{name} contains binary data (NUL bytes), not text; mount the original document")
        text = data.decode(encoding, errors="replace")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            legacy = _UTF8_MULTIBYTE.search(data) is None
            text = data.decode("cp1252" if legacy else "utf-8", errors="replace")
    # One newline convention keeps line numbers equal to what an editor shows; NULs cannot be stored.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    return text.removeprefix("\ufeff")


def _bomless_utf16(head: bytes) -> str | None:
    """utf-16-le/be when NULs sit on one side of almost every byte pair (ASCII text in UTF-16)."""
    pairs = len(head) // 2
    if pairs < 2:
        return None
    even_nuls = head[0 : pairs * 2 : 2].count(0)
    odd_nuls = head[1 : pairs * 2 : 2].count(0)
    if odd_nuls >= 0.9 * pairs and even_nuls == 0:
        return "utf-16-le"
    if even_nuls >= 0.9 * pairs and odd_nuls == 0:
        return "utf-16-be"
    return None


def _parse_text(
    text: str, fmt: str, kind: str, doc_name: str, file_name: str
) -> tuple[str, list[Chunk], list[ParseProblem]]:
    """Dispatch decoded text to its chunker; returns (source kind, chunks, problems)."""
    if not text.strip():
        raise ResourceError(f"{file_name} is empty (only whitespace); add content to it before mounting")
    if fmt == "markdown":
        return kind, chunk_markdown(text, doc_name, max_chunks=MAX_CHUNKS + 1), []
    if fmt == "text":
        return kind, chunk_plain_text(text, doc_name, max_chunks=MAX_CHUNKS + 1), []
    if fmt == "sql":
        chunks, problems = parse_sql_schema(text, doc_name)
        return kind, chunks, problems
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResourceError(f"{file_name} is not valid JSON (line {exc.lineno}: {exc.msg}); fix it and retry") from exc
    except RecursionError as exc:
        raise ResourceError(f"{file_name} is nested too deeply to be a schema dump") from exc
    if not looks_like_schema(data):
        raise ResourceError(
            f"{file_name} does not look like a database schema dump; expected a list of tables with "
            '"name" and "columns", or {"tables": ...}'
        )
    chunks, problems = parse_json_schema(data, doc_name)
    return "db", chunks, problems


def _nothing_found(file_name: str, kind: str, problems: list[ParseProblem]) -> str:
    if kind == "prd":
        return f"{file_name} has no readable text; check the document or mount a text export of it"
    listed = "; ".join(f"line {p.line}: {p.message}" for p in problems[:3])
    return f"{file_name} has no readable table definitions (CREATE TABLE or JSON tables)" + (
        f"; first problems: {listed}" if listed else "; check that it is a schema dump"
    )
