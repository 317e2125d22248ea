"""PRD documents: the heading-aware section chunker every format shares, plus plain text, PDF and DOCX.

Every format is first turned into a list of `DocLine`s (text, source line, page, heading level);
`build_sections` then cuts those into chunks, so markdown, text, PDF and DOCX follow one set of rules.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate

from igraph_mcp.errors import ResourceError
from igraph_mcp.resources.model import Chunk, ParseProblem

MAX_CHUNK_CHARS = 6000  # a section's text is cut here, with a note saying what was left out
GROUP_TARGET_CHARS = 2000  # heading-less text is grouped into paragraphs of about this size
MAX_IDENTIFIERS = 100
MAX_EXTRACTED_CHARS = 20_000_000  # PDF/DOCX text can be far larger than the file; stop there
MAX_DOCX_UNZIPPED_BYTES = 200 * 1024 * 1024  # a zip bomb dressed as .docx is refused before parsing

_KIND = "prd_section"


@dataclass(slots=True)
class DocLine:
    """One line of a document, where it came from, and whether it opens a section."""

    text: str
    line: int = 0  # 1-based source line; 0 when the format has none (PDF, DOCX)
    page: int = 0  # 1-based PDF page; 0 otherwise
    level: int = 0  # 1-3 opens a section; 0 is body text (H4+ stays inside its parent)
    title: str = ""


# --- identifiers -------------------------------------------------------------------------------

_IDENT = r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*"
_IDENT_CALL = re.compile(rf"^({_IDENT})(?:\([^()]*\))?$")
_FILE_PATH = re.compile(r"^(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}$")
_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
_QUOTED = re.compile(r"[\"“'‘]([A-Za-z_][\w.:>()#$-]{1,100})[\"”'’]")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_BARE_CALL = re.compile(rf"(?<![\w.])({_IDENT})\(\)")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")


def _as_identifier(raw: str, *, strict: bool) -> str | None:
    """Normalise a candidate (`export_orders()` -> `export_orders`); None if it is not identifier-like."""
    raw = raw.strip().rstrip(";")
    match = _IDENT_CALL.match(raw)
    if match:
        name = match.group(1)
        # Quoted plain words ("Export", 'paid') are prose, not names: demand some code-like shape.
        if strict and not ("_" in name or "." in name or "::" in name or "(" in raw or _CAMEL.search(name)):
            return None
        return name
    if _FILE_PATH.match(raw):
        return raw
    return None


def extract_identifiers(text: str) -> list[str]:
    """Backquoted identifiers, identifier-like quoted names, snake_case words and `name()` calls."""
    found: dict[str, None] = {}
    candidates: list[str | None] = [_as_identifier(m.group(1), strict=False) for m in _CODE_SPAN.finditer(text)]
    candidates += [_as_identifier(m.group(1), strict=True) for m in _QUOTED.finditer(text)]
    candidates += [m.group(0) for m in _SNAKE.finditer(text)]
    candidates += [m.group(1) for m in _BARE_CALL.finditer(text)]
    for name in candidates:
        if name and len(name) > 1 and name not in found:
            found[name] = None
            if len(found) >= MAX_IDENTIFIERS:
                break
    return list(found)


# --- sections ----------------------------------------------------------------------------------


def build_sections(
    lines: list[DocLine], doc_name: str, *, split_headless: bool = False, max_chunks: int | None = None
) -> list[Chunk]:
    """Cut lines into a preamble chunk plus one chunk per H1-H3 section (subsections included)."""
    limit = max_chunks if max_chunks is not None else len(lines) + 1
    heads = [i for i, ln in enumerate(lines) if 1 <= ln.level <= 3]
    sizes = [0, *accumulate(len(ln.text) + 1 for ln in lines)]
    first = heads[0] if heads else len(lines)
    chunks: list[Chunk] = []
    preamble_size = sizes[first]
    if (split_headless and not heads) or preamble_size > MAX_CHUNK_CHARS:
        chunks += _groups(lines[:first], doc_name, [doc_name], first_part=1)
    else:
        chunks += _groups(lines[:first], doc_name, [doc_name], first_part=1, target=MAX_CHUNK_CHARS)
    ends = _section_ends(lines, heads)
    stack: list[tuple[int, str]] = []
    for n, start in enumerate(heads):
        if len(chunks) >= limit:  # the caller keeps only so many; do not build the rest
            break
        head = lines[start]
        while stack and stack[-1][0] >= head.level:
            stack.pop()
        stack.append((head.level, head.title))
        path = [title for _, title in stack]
        own_end = heads[n + 1] if n + 1 < len(heads) else len(lines)
        chunk, stop = _section_chunk(lines, sizes, start, ends[n], own_end, head.title, path)
        chunks.append(chunk)
        if stop < own_end:  # the section's own text did not fit: keep the rest searchable
            chunks += _groups(lines[stop:own_end], head.title, path, first_part=2)
    return chunks[:limit]


def _section_ends(lines: list[DocLine], heads: list[int]) -> list[int]:
    """For each heading, the index where its section (subsections included) ends; O(n) with a stack."""
    ends = [len(lines)] * len(heads)
    open_heads: list[int] = []
    for n, start in enumerate(heads):
        while open_heads and lines[heads[open_heads[-1]]].level >= lines[start].level:
            ends[open_heads.pop()] = start
        open_heads.append(n)
    return ends


def _section_chunk(
    lines: list[DocLine], sizes: list[int], start: int, end: int, own_end: int, title: str, path: list[str]
) -> tuple[Chunk, int]:
    """The chunk for lines[start:end], cut at MAX_CHUNK_CHARS; also returns the first line left out."""
    stop = start + 1
    while stop < end and sizes[stop + 1] - sizes[start] <= MAX_CHUNK_CHARS:
        stop += 1
    taken = lines[start:stop]
    if len(taken[0].text) > MAX_CHUNK_CHARS:  # a pathological one-line heading
        taken = [_replace_text(taken[0], taken[0].text[:MAX_CHUNK_CHARS])]
    chunk = _make_chunk(taken, title, path)
    if stop < end:
        left = sizes[end] - sizes[stop]
        where = f"continues in '{title} (part 2)'" if stop < own_end else "subsections have their own chunks"
        chunk.text += f"\n[… {left:,} more characters of this section were cut; {where}]"
    return chunk, stop


def _groups(
    lines: list[DocLine], title: str, path: list[str], *, first_part: int, target: int | None = None
) -> list[Chunk]:
    """Paragraph groups of about `target` characters (never over MAX_CHUNK_CHARS), titled by part."""
    target = GROUP_TARGET_CHARS if target is None else target
    groups: list[list[DocLine]] = []
    current: list[DocLine] = []
    size = 0
    for ln in _sliced(lines):
        blank = not ln.text.strip()
        if current and ((blank and size >= target) or size + len(ln.text) > MAX_CHUNK_CHARS):
            groups.append(current)
            current, size = [], 0
        current.append(ln)
        size += len(ln.text) + 1
    groups.append(current)
    groups = [g for g in groups if any(ln.text.strip() for ln in g)]
    chunks = []
    for k, group in enumerate(groups):
        part = first_part + k
        chunks.append(_make_chunk(group, title if part == 1 else f"{title} (part {part})", path))
    return chunks


def _sliced(lines: list[DocLine]) -> Iterator[DocLine]:
    """Yield lines, cutting any single line longer than a chunk (minified text) into pieces."""
    for ln in lines:
        if len(ln.text) <= MAX_CHUNK_CHARS:
            yield ln
            continue
        for at in range(0, len(ln.text), MAX_CHUNK_CHARS):
            yield _replace_text(ln, ln.text[at : at + MAX_CHUNK_CHARS])


def _replace_text(ln: DocLine, text: str) -> DocLine:
    return DocLine(text, ln.line, ln.page, ln.level, ln.title)


def _make_chunk(lines: list[DocLine], title: str, path: list[str]) -> Chunk:
    """A chunk from lines, leading and trailing blank lines dropped."""
    body = list(lines)
    while body and not body[-1].text.strip():
        body.pop()
    lead = 0
    while lead < len(body) and not body[lead].text.strip():
        lead += 1
    body = body[lead:]
    text = "\n".join(ln.text for ln in body)
    pages = [ln.page for ln in body if ln.page]
    return Chunk(
        kind=_KIND,
        title=title,
        heading_path=list(path),
        text=text,
        start_line=body[0].line if body else 0,
        end_line=body[-1].line if body else 0,
        identifiers=extract_identifiers(text),
        page_start=min(pages, default=0),
        page_end=max(pages, default=0),
    )


# --- plain text --------------------------------------------------------------------------------

_NUMBERED = re.compile(r"^\s{0,3}(\d{1,2}(?:\.\d{1,2}){0,5})\.?\s+(\S.*)$")
_ADORNMENT = re.compile(r"^\s*([=\-~^*+#\"'`:._])\1{2,}\s*$")


def _numbered_level(text: str) -> int:
    """Level of a "1.2 Title" heading (depth of the number), or 0 if the line is not one."""
    match = _NUMBERED.match(text)
    if not match or len(text) > 80:
        return 0
    title = match.group(2).strip()
    if len(title.split()) > 12 or not title[0].isalpha() or title[0].islower() or title[-1] in ".,;":
        return 0
    return min(match.group(1).count(".") + 1, 4)


def _is_caps_heading(text: str) -> bool:
    """An ALL CAPS line of a few words ("ACCEPTANCE CRITERIA")."""
    letters = sum(c.isalpha() for c in text)
    return (
        letters >= 4 and text.upper() == text and len(text) <= 80 and len(text.split()) <= 10 and text[-1] not in ".,;:"
    )


def detect_text_headings(
    lines: list[DocLine], *, need_blank_before: bool = True, ignore: frozenset[str] = frozenset()
) -> None:
    """Mark heading lines in place: numbered "1.2 Title", ALL CAPS lines, underlined (===, ---) lines."""
    styles: dict[tuple[str, bool], int] = {}  # adornment styles take levels in order of appearance

    def style_level(char: str, overline: bool) -> int:
        return styles.setdefault((char, overline), len(styles) + 1)

    prev_blank, i = True, 0
    while i < len(lines):
        text = lines[i].text.strip()
        nxt = lines[i + 1].text.strip() if i + 1 < len(lines) else ""
        boundary_ok = prev_blank or not need_blank_before
        prev_blank = not text
        if not text:
            i += 1
            continue
        adornment = _ADORNMENT.match(text)
        if adornment:
            after = lines[i + 2].text.strip() if i + 2 < len(lines) else ""
            if nxt and not _ADORNMENT.match(nxt) and after and after[0] == text[0] and _ADORNMENT.match(after):
                _mark(lines[i], style_level(text[0], True), nxt)  # overline + title + underline (reST)
                i += 3
                continue
            prev_blank = True  # a lone rule separates blocks like a blank line does
        elif nxt and _ADORNMENT.match(nxt) and boundary_ok and len(text) <= 120:
            _mark(lines[i], style_level(nxt[0], False), text)
            i += 2
            continue
        elif boundary_ok and text not in ignore:
            level = _numbered_level(text) or (1 if _is_caps_heading(text) else 0)
            if level:
                _mark(lines[i], level, text)
        i += 1


def _mark(line: DocLine, level: int, title: str) -> None:
    line.level = level
    line.title = title


def chunk_plain_text(text: str, doc_name: str, *, max_chunks: int | None = None) -> list[Chunk]:
    """Chunk plain text (.txt, .rst) by heuristic headings, else by paragraph groups."""
    lines = [DocLine(t, n) for n, t in enumerate(text.split("\n"), 1)]
    detect_text_headings(lines)
    return build_sections(lines, doc_name, split_headless=True, max_chunks=max_chunks)


# --- PDF ---------------------------------------------------------------------------------------


def chunk_pdf(data: bytes, doc_name: str, *, max_chunks: int | None = None) -> tuple[list[Chunk], list[ParseProblem]]:
    """Chunk a PDF's extracted text by headings or paragraphs; chunks carry their page numbers."""
    from pypdf import PdfReader  # imported lazily: only PDF mounts pay for it

    problems: list[ParseProblem] = []
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ResourceError(f"{doc_name} is a password-protected PDF; remove the password and mount again")
        pages = list(reader.pages)
    except ResourceError:
        raise
    except Exception as exc:  # pypdf raises many exception types on malformed files
        raise ResourceError(
            f"{doc_name} could not be read as a PDF ({type(exc).__name__}); re-export it or mount a text version"
        ) from exc
    page_lines: list[list[str]] = []
    total = 0
    for number, page in enumerate(pages, 1):
        try:
            text = page.extract_text() or ""
        except Exception as exc:  # one broken page must not lose the others
            problems.append(ParseProblem(0, f"page {number}: text could not be extracted ({type(exc).__name__})"))
            text = ""
        total += len(text)
        if total > MAX_EXTRACTED_CHARS:
            problems.append(ParseProblem(0, f"text extraction stopped at page {number}: document too large"))
            break
        page_lines.append(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    if not any(ln.strip() for lines in page_lines for ln in lines):
        raise ResourceError(
            f"{doc_name} has no extractable text (a scanned or image-only PDF?); OCR it or mount a text export"
        )
    # Running headers and footers repeat on many pages: noise in every chunk, and false headings.
    repeated = _repeated_lines(page_lines)
    lines: list[DocLine] = []
    for number, texts in enumerate(page_lines, 1):
        lines += [DocLine(t.rstrip(), page=number) for t in texts if t.strip() not in repeated]
        lines.append(DocLine("", page=number))  # pages are paragraph boundaries
    # PDF text has few blank lines, so headings need no blank line before them.
    detect_text_headings(lines, need_blank_before=False)
    return build_sections(lines, doc_name, split_headless=True, max_chunks=max_chunks), problems


def _repeated_lines(page_lines: list[list[str]]) -> frozenset[str]:
    """Lines that appear on many pages (running headers and footers)."""
    if len(page_lines) < 3:
        return frozenset()
    counts = Counter(t for lines in page_lines for t in {ln.strip() for ln in lines if ln.strip()})
    return frozenset(t for t, c in counts.items() if c >= max(3, len(page_lines) // 2))


# --- DOCX --------------------------------------------------------------------------------------


def chunk_docx(data: bytes, doc_name: str, *, max_chunks: int | None = None) -> list[Chunk]:
    """Chunk a Word document: Heading 1-3 styles open sections; table rows are included as text."""
    import docx  # imported lazily: only DOCX mounts pay for it
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    _check_zip(data, doc_name)
    try:
        document = docx.Document(io.BytesIO(data))
        blocks = list(document.iter_inner_content())
    except Exception as exc:  # python-docx/lxml raise many exception types on malformed files
        raise ResourceError(
            f"{doc_name} could not be read as a Word document ({type(exc).__name__}); "
            "re-save it as .docx or mount a text export"
        ) from exc
    lines: list[DocLine] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            text = block.text.strip()
            level = _docx_heading_level(block) if text else 0
            if level > 3:  # Heading 4+ stays inside its parent section
                level = 0
            lines.append(DocLine(text, level=level, title=text if level else ""))
        elif isinstance(block, Table):
            lines += [DocLine(row) for row in _table_rows(block)]
        lines.append(DocLine(""))
    return build_sections(lines, doc_name, split_headless=True, max_chunks=max_chunks)


def _check_zip(data: bytes, doc_name: str) -> None:
    """Refuse a .docx that is not a zip or would unpack to an unreasonable size."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ResourceError(f"{doc_name} is not a valid .docx (not a zip archive); re-save it from Word") from exc
    if unpacked > MAX_DOCX_UNZIPPED_BYTES:
        raise ResourceError(f"{doc_name} unpacks to {unpacked // 2**20} MB; split the document and mount the parts")


def _docx_heading_level(paragraph: object) -> int:
    """1-9 for "Heading N" styles, 0 for anything else (Title stays in the preamble)."""
    style = getattr(paragraph, "style", None)
    name = (getattr(style, "name", "") or "").strip().lower()
    match = re.fullmatch(r"heading\s*([1-9])", name)
    return int(match.group(1)) if match else 0


def _table_rows(table: object) -> Iterator[str]:
    """Each table row as "cell | cell", merged cells written once."""
    for row in getattr(table, "rows", []):
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            key = id(cell._tc)  # a merged cell is returned once per grid column it spans
            if key in seen:
                continue
            seen.add(key)
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            yield " | ".join(cells)
