"""How source bytes become the text the index counts in: one decoding and one line split for parser and reader."""

from __future__ import annotations

import contextlib


def normalize_source(raw: bytes) -> bytes:
    """Return the UTF-8 bytes the parser works on: UTF-16 (with BOM) and non-UTF-8 text transcoded.

    Symbol byte offsets refer to these bytes; line numbers are the same as in the raw file.
    Text that is not UTF-8 is read as latin-1, which maps every byte and so never fails.
    """
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        # A BOM-led file that is not valid UTF-16 falls through to the latin-1 reading below.
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode("utf-16").encode("utf-8")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1").encode("utf-8")
    return raw


def source_lines(raw: bytes) -> list[str]:
    """A file's lines exactly as the parser counts them: the same decoding, and only "\\n" ends a line.

    str.splitlines() would also split at form feeds and U+2028 and shift every line after one.
    """
    text = normalize_source(raw).decode("utf-8", "replace")
    return [line.removesuffix("\r") for line in text.split("\n")]
