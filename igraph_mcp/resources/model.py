"""Plain data produced by reading a mounted document or schema, before it is stored."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Chunk:
    """One retrievable piece of a mounted source: a PRD section or one database table."""

    kind: str  # "prd_section" or "db_table"
    title: str  # heading text, or the table name
    heading_path: list[str]  # e.g. ["PRD-023", "Filters", "Currency"]; for a table: [schema name, table]
    text: str  # the section text (including subsections) or a readable rendering of the table
    start_line: int = 0  # 1-based line in the source where the chunk starts (0 if unknown, e.g. PDF)
    end_line: int = 0
    identifiers: list[str] = field(default_factory=list)  # table/column names, quoted identifiers
    columns: list[dict[str, str]] = field(default_factory=list)  # db_table only: name, type, notes
    page_start: int = 0  # PDF only: 1-based first and last page the chunk comes from (0 if not a PDF)
    page_end: int = 0


@dataclass(slots=True)
class ParseProblem:
    """A part of the source that could not be read; the rest is still mounted."""

    line: int
    message: str


@dataclass(slots=True)
class ParsedResource:
    """All chunks of one source plus the problems met while reading it."""

    source_type: str  # "prd" or "db"
    chunks: list[Chunk] = field(default_factory=list)
    problems: list[ParseProblem] = field(default_factory=list)
