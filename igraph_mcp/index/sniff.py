"""What a file's bytes say before it is parsed: binary (a NUL byte, a known header, many control bytes) or minified
(decided on the file as a whole, never on one line), and what shows it; pure functions of the bytes."""

from __future__ import annotations

import re
from dataclasses import dataclass

BINARY_SNIFF_BYTES = 8192
# Whole-file minification check: the file's lines taken together, never one line alone (RELIABILITY.md H2). A file
# up to this size is read whole; a larger one by this much of its head (a bundle is one long line from its start).
MINIFIED_SAMPLE_BYTES = 256 * 1024
LONG_LINE = 500  # chars: hand-written code rarely passes it, a minifier's lines run to thousands
MINIFIED_MEAN_LINE = 300  # mean non-blank line length above which the long lines hold most of the text
# Long lines that make a file minified (or generated) by their number alone: at least this many, and this share of
# the non-blank lines (a minifier that wraps its output, highlight.js's bundled grammars).
MINIFIED_LONG_LINES = 3
MINIFIED_LONG_SHARE = 0.2
# ... when they are also dense: spaces and tabs per char of the long lines below this. Minified code: 0.013-0.025;
# generated declarations (hono's types.d.ts, lines of 2,400 chars): 0.15.
MINIFIED_SPACES = 0.05
# Semicolons per char of the long lines. Minified JavaScript: 0.0057-0.0096 and minified CSS 0.015 (jQuery, select2,
# elasticlunr, clipboard.js, ace, rustdoc); a data URI, a long regex or a data table: under 0.001. Below it a long
# line is a literal in a hand-written file, not code.
MINIFIED_SEMICOLONS = 0.003
# Binary without NUL bytes: control bytes other than whitespace, backspace and escape; random bytes hold 11%,
# text (ASCII, UTF-8, Latin-1, cp1251 ...) next to none.
BINARY_CONTROL_SHARE = 0.05
_CONTROL_BYTES = bytes([*range(0, 8), *range(14, 27), *range(28, 32), 127])
# Formats whose header says what they are, whatever follows (some headers are NUL-free).
_BINARY_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x7fELF", "ELF executable"),
    (b"\x1f\x8b", "gzip data"),
    (b"GIF8", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"%PDF-", "PDF document"),
    (b"\xca\xfe\xba\xbe", "Java class or Mach-O file"),
    (b"\x00asm", "WebAssembly module"),
)
# Content-based minification check only for text that bundlers minify; a long line in Python is not that.
MINIFIABLE_SUFFIXES = frozenset(
    {".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".css", ".scss", ".less", ".html", ".htm"}
)
_MINIFIED_NAME = re.compile(r"[.-]min\.(?:js|mjs|cjs|css)$|\.(?:bundle|chunk)\.js$", re.IGNORECASE)
# UTF-16/32 text is full of NUL bytes; a BOM tells it apart from binary data (UTF-8's BOM: text as well).
_TEXT_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff", b"\xef\xbb\xbf")


def is_minified_name(name: str) -> bool:
    """True for bundler output recognisable by name alone (``app.min.js``, ``x.bundle.js``)."""
    return _MINIFIED_NAME.search(name) is not None


def binary_sign(head: bytes) -> str | None:
    """What shows the first block of a file to be binary (a NUL byte, a known header, many control bytes), or None
    for text: ASCII, UTF-8 with or without a BOM, UTF-16/32 with a BOM, Latin-1 and other 8-bit encodings."""
    if not head or head.startswith(_TEXT_BOMS):
        return None
    for magic, what in _BINARY_MAGIC:
        if head.startswith(magic):
            return what
    if b"\0" in head:
        return "NUL bytes"
    control = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if control / len(head) > BINARY_CONTROL_SHARE:
        return f"{control / len(head):.0%} control bytes"
    return None


def looks_binary(head: bytes) -> bool:
    """True when the first block of a file is binary (see ``binary_sign``)."""
    return binary_sign(head) is not None


@dataclass(frozen=True, slots=True)
class LineStats:
    """The non-blank lines of a text: how many, how many are long, their mean length, and the density of
    semicolons and of blanks (spaces, tabs) in the long ones."""

    lines: int
    long_lines: int
    mean_length: float
    long_semicolons: float
    long_blanks: float


def line_stats(data: bytes, *, complete: bool = True) -> LineStats:
    """Line statistics of ``data`` (``complete`` False: a sample cut off mid-line, whose last line is left out unless
    it is the only one). CRLF counts as one line break; blank lines are not counted."""
    lines = data.split(b"\n")
    if not complete and len(lines) > 1:
        lines.pop()  # cut by the sample size; its length says nothing
    sizes: list[int] = []
    long_chars = semicolons = blanks = 0
    for line in lines:
        line = line.rstrip(b"\r")
        if not line.strip():
            continue
        sizes.append(len(line))
        if len(line) > LONG_LINE:
            long_chars += len(line)
            semicolons += line.count(b";")
            blanks += line.count(b" ") + line.count(b"\t")
    if not sizes:
        return LineStats(0, 0, 0.0, 0.0, 0.0)
    long_lines = sum(1 for size in sizes if size > LONG_LINE)
    per_char = 1 / long_chars if long_chars else 0.0
    return LineStats(len(sizes), long_lines, sum(sizes) / len(sizes), semicolons * per_char, blanks * per_char)


def minified_sign(data: bytes, *, complete: bool = True) -> str | None:
    """Why ``data`` (a whole file, or its head when ``complete`` is False) reads as minified, or None.

    Decided on the file as a whole: the long lines must hold most of the text (mean line length) and either read as
    code (semicolons) or be many and dense (a share of the lines, few blanks). So a hand-written file with one long
    literal (a data URI, a regex) is indexed, and so is one with a long line of code among enough ordinary lines to
    keep the mean low, and generated declarations with long signatures.
    """
    s = line_stats(data, complete=complete)
    if s.long_lines == 0 or s.mean_length <= MINIFIED_MEAN_LINE:
        return None
    many = s.long_lines >= MINIFIED_LONG_LINES and s.long_lines / s.lines >= MINIFIED_LONG_SHARE
    many = many and s.long_blanks < MINIFIED_SPACES
    if not many and s.long_semicolons < MINIFIED_SEMICOLONS:
        return None
    return f"mean line length {round(s.mean_length)} chars, {s.long_lines} of {s.lines} lines over {LONG_LINE}"


def looks_minified(data: bytes, *, complete: bool = True) -> bool:
    """True when ``data`` reads as a minifier's output as a whole (see ``minified_sign``)."""
    return minified_sign(data, complete=complete) is not None
