"""Long queries in parts: title, prose paragraphs, code blocks and tracebacks, and which of them to embed.

The bundled model reads 256 word pieces (about 1,000 characters of English, fewer of code); an issue is often
several thousand characters. Embedding the whole text would keep only its start, so the text is split into
parts the model can read, the most telling ones are embedded one by one, and their rankings are fused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PART_CHARS = 1000  # about what the model reads of English prose (256 word pieces)
# A query costs one embedding and one KNN per part: the head alone (title and prose filled to PART_CHARS) measured
# as well as six parts at a third of the latency (docs/ranking.md).
MAX_DENSE_PARTS = 1
# An issue-shaped query (a title line and a body, like every devset issue) gets the levers tuned on issues; a
# one-line question keeps the hand-set ranking, which the re-ranker made worse on the docstring set.
ISSUE_MIN_LINES = 2
ISSUE_MIN_WORDS = 12
MIN_PART_CHARS = 40  # shorter parts ("Thanks!", "Hi,") say nothing on their own

_FENCE = re.compile(r"^\s*(```|~~~)")
_TRACEBACK_START = re.compile(r"^\s*Traceback \(most recent call last\):")
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+, in (\S+)')
_CODE_LINE = re.compile(r"^(?: {4}|\t|>>> |\.\.\. |In \[\d+\]:|Out\[\d+\]:|\$ )")


@dataclass(frozen=True, slots=True)
class QueryPart:
    """A piece of the query: kind is "title", "prose", "code" or "traceback"."""

    kind: str
    text: str


def is_issue_shaped(text: str, min_lines: int = ISSUE_MIN_LINES, min_words: int = ISSUE_MIN_WORDS) -> bool:
    """True for issue-like text: at least ``min_lines`` non-empty lines and ``min_words`` words."""
    lines = 0
    for line in text.splitlines():
        if line.strip():
            lines += 1
            if lines >= min_lines:
                break
    return lines >= min_lines and len(text.split(None, min_words)) >= min_words


def split_query(text: str) -> list[QueryPart]:
    """Split a query into title, prose paragraphs, code blocks and tracebacks, in order (linear in the text)."""
    lines = text.splitlines()
    parts: list[QueryPart] = []
    buf: list[str] = []
    kind = "prose"

    def flush() -> None:
        nonlocal buf
        body = "\n".join(buf).strip()
        if body:
            parts.append(QueryPart(kind, body))
        buf = []

    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            flush()
            fence = _FENCE.match(line)
            assert fence is not None
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(fence.group(1)):
                buf.append(lines[i])
                i += 1
            kind = "traceback" if any(_TRACEBACK_START.match(b) for b in buf) else "code"
            flush()
            kind = "prose"
            i += 1
            continue
        if _TRACEBACK_START.match(line):
            flush()
            kind = "traceback"
            buf.append(line)
            i += 1
            # Frames and their source lines are indented; the exception line that ends it is not.
            while i < len(lines) and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
                buf.append(lines[i])
                i += 1
            if i < len(lines):
                buf.append(lines[i])
                i += 1
            flush()
            kind = "prose"
            continue
        if not line.strip():
            flush()
            kind = "prose"
        else:
            code_line = bool(_CODE_LINE.match(line))
            if buf and code_line != (kind == "code"):
                flush()
            kind = "code" if code_line else "prose"
            buf.append(line)
        i += 1
    flush()
    first = parts[0] if parts else None
    if first is not None and first.kind == "prose" and len(parts) > 1:
        title, _, rest = first.text.partition("\n")
        if len(title) <= 200:
            parts[0] = QueryPart("title", title.strip())
            if rest.strip():
                parts.insert(1, QueryPart("prose", rest.strip()))
    return parts


def traceback_gist(text: str) -> str:
    """The exception line and the innermost frames of a traceback: what a reader of the log looks at first."""
    lines = text.splitlines()
    frames = [f"{m.group(1).rsplit('/', 1)[-1]} {m.group(2)}" for ln in lines if (m := _FRAME.match(ln))]
    last = next((ln.strip() for ln in reversed(lines) if ln.strip() and not ln.startswith((" ", "\t"))), "")
    return "\n".join([last, *frames[-4:]]).strip()


def dense_texts(
    text: str, max_parts: int | None = None, part_chars: int = PART_CHARS, min_part_chars: int = MIN_PART_CHARS
) -> list[str]:
    """The texts to embed for a query, most telling first: the head (title and opening prose), then
    traceback gists, further prose and code, each at most ``part_chars`` long (and, past the head, at least
    ``min_part_chars``). A short query is itself."""
    max_parts = MAX_DENSE_PARTS if max_parts is None else max_parts
    stripped = text.strip()
    if len(stripped) <= part_chars:
        return [stripped or text[:part_chars]] if text else []  # all-blank text still gets a vector, as before
    parts = split_query(stripped)
    head: list[str] = []
    used = 0
    rest: list[QueryPart] = []
    for p in parts:
        # The head is the title and the prose (code and tracebacks skipped), filled up to what the model reads; a
        # paragraph that does not fit whole gives its start to the head and the rest of it stays a part of its own.
        if p.kind in ("title", "prose") and used < part_chars:
            room = part_chars - used
            head.append(p.text[:room])
            used += min(len(p.text), room) + 1
            if len(p.text) > room:
                rest.append(QueryPart(p.kind, p.text[room:]))
        else:
            rest.append(p)
    texts = ["\n".join(head)] if head else []
    tracebacks = [traceback_gist(p.text) for p in rest if p.kind == "traceback"]
    prose = _merged([p.text for p in rest if p.kind in ("title", "prose")], part_chars)
    code = [p.text[:part_chars] for p in rest if p.kind == "code"]
    if not texts:  # opening with code: its start is the head
        texts.append(stripped[:part_chars])
    for t in [*tracebacks, *prose, *code]:
        if len(texts) >= max_parts:
            break
        t = t.strip()
        if len(t) >= min_part_chars and t not in texts:
            texts.append(t[:part_chars])
    return texts[:max_parts]


def _merged(paragraphs: list[str], part_chars: int) -> list[str]:
    """Consecutive paragraphs joined up to part_chars each, so short ones are read with their neighbours."""
    out: list[str] = []
    cur = ""
    for p in paragraphs:
        if cur and len(cur) + len(p) + 1 > part_chars:
            out.append(cur)
            cur = ""
        cur = f"{cur}\n{p}" if cur else p
    if cur:
        out.append(cur)
    return out
