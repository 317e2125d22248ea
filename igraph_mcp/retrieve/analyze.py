"""Query analysis: identifiers, dotted names, file paths, traceback frames, links to lines and kind hints in free
text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from igraph_mcp.paths import strip_dot_slash
from igraph_mcp.store.fts import fts_tokens
from igraph_mcp.text.identifiers import is_code_shaped, split_identifier
from igraph_mcp.text.inflections import word_forms
from igraph_mcp.vocab.languages import source_extension_pattern

MAX_QUERY_CHARS = 100_000  # issue-length text; a longer query is cut to this, with a note
# Bounds on what one query can make the ranker loop over (10,000 characters of dotted names, say).
MAX_IDENTIFIERS = 1000
MAX_DOTTED = 300
# Distinct FTS tokens looked up per query: every one is a vocabulary lookup, and a pasted log can hold tens of
# thousands; an issue of 10,000 characters has well under this many.
MAX_TOKENS = 2_000
MAX_PATHS = 100
MAX_FRAMES = 200
MAX_LINE_LINKS = 20
# FTS tokens per query. A long query also leaves out words found in more than FTS_COMMON_SHARE of the symbols:
# BM25 gives them little weight, yet their posting lists are most of the FTS channel's time on an issue (the
# measurement is in docs/ranking.md). Defaults of RetrievalParams.fts_max_tokens, fts_common_from, fts_common_share.
FTS_MAX_TOKENS = 48
FTS_COMMON_FROM = 16  # a query with more tokens than this in the index counts as long
FTS_COMMON_SHARE = 0.1
# Other inflections of a query's words ("equals" -> `equal`): 0 none, 1 only for a word the index lacks, 2 for every
# word (after it). Forms are looked up for the first FORMS_OF tokens only, so a pasted log adds no lookups.
FTS_WORD_FORMS = 0
FORMS_OF = 300

# Possessive quantifiers and a word-start lookbehind keep these linear on long runs of word characters.
_DOTTED = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]*+(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*+)+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# Generic arguments between a name and its member hide the member from _DOTTED: C++'s `StringMaker<float>::convert`,
# Rust's `Vec::<u8>::new` and `iter.collect::<Vec<_>>()`, Java's `List<String>.of`. The innermost list (one line,
# short, no `<>` inside) is dropped where a member, a call or an outer list follows; GENERIC_DEPTH passes undo nesting.
_GENERIC_ARGS = re.compile(r"(?<=[\w$])(?:::)?<[^<>\n]{0,80}>(?=::|->|\.[A-Za-z_$]|\(|>)")
GENERIC_DEPTH = 3
# Paths are found in two linear steps (candidate runs, then a suffix check): one nested regex would backtrack
# quadratically on a long run of word characters.
_PATH_RUN = re.compile(r"[\w./-]+")
_PATH_SUFFIX = re.compile(rf"(?:^|/)[\w-]+{source_extension_pattern().pattern}")
_FRAME = re.compile(r'File "([^"]+)", line \d+, in ([\w<>]+)')
# A permalink to lines of a file, as GitHub and GitLab write them: ".../blob/<ref>/<path>#L10" or "#L10-L20". Found
# as runs that may end in a line anchor (one linear pass: every run matches), then checked for "/blob/".
_LINK_RUN = re.compile(r"[\w.%+/-]+(?:#L(\d{1,7})(?:-L?(\d{1,7}))?)?")
_KIND_WORDS = {
    "class": "class",
    "classes": "class",
    "struct": "struct",
    "interface": "interface",
    "trait": "trait",
    "enum": "enum",
    "function": "function",
    "functions": "function",
    "method": "method",
    "methods": "method",
    "constant": "constant",
    "type": "type",
    "module": "module",
}
# Words too common in issue prose to help lexical matching; code identifiers are never dropped here.
STOPWORDS = frozenset(
    (
        "a an and are as at be been but by can could did do does doing for from had has have how i if in into "
        "is it its it's me my no not of on or our so such than that the their them then there these they this "
        "those to too was we were what when where which while who why will with would you your should also "
        "just like using use used get got any all some one two same other more most very there's here issue "
        "bug error fix works work expected actual behavior behaviour happens example following code see seems "
        "return returns"
    ).split()
)


@dataclass(frozen=True, slots=True)
class LineLink:
    """Lines of a file that the query links to. ``path`` is "<ref>/<path>" as the link writes it: a ref may hold
    slashes ("stable/1.11.x"), so the index decides where the file's path starts."""

    path: str
    start: int
    end: int


@dataclass(slots=True)
class QueryAnalysis:
    """What a query mentions that the ranker can use."""

    text: str
    tokens: list[str] = field(default_factory=list)  # FTS tokens (lowercased), identifiers first
    identifiers: list[str] = field(default_factory=list)  # code-shaped words as written: snake, camel, dotted parts
    dotted: list[str] = field(default_factory=list)  # "Session.request", "a.b.c" (normalised to dots)
    paths: list[str] = field(default_factory=list)  # file paths or names mentioned
    frames: list[tuple[str, str]] = field(default_factory=list)  # traceback (path, function)
    line_links: list[LineLink] = field(default_factory=list)  # permalinks to lines, in the order written
    kind_hints: set[str] = field(default_factory=set)
    is_identifier_query: bool = False  # the whole query is one identifier or dotted name
    mentions_tests: bool = False  # the query talks about tests, so test code is not demoted
    # identifier -> how many symbols define that name (filled from the index; empty = unknown)
    definition_counts: dict[str, int] = field(default_factory=dict)
    # A question's words in order, lowercased, " " around each ("how is an unknown option reported" ->
    # " how is an unknown option reported "), where a name written as words may be found (stages.analyze fills it
    # for questions, not issues); "" when none.
    phrase: str = ""


def cut_query(text: str) -> tuple[str, str | None]:
    """The query cut to MAX_QUERY_CHARS, and a note saying so when it was longer."""
    if len(text) <= MAX_QUERY_CHARS:
        return text, None
    return text[:MAX_QUERY_CHARS], f"query was {len(text)} characters; only the first {MAX_QUERY_CHARS} were used"


def printable(text: str) -> str:
    """The text with every unprintable character but newlines and tabs turned into a space (what the ranker reads)."""
    plain = text.replace("\n", "").replace("\t", "")
    if plain.isprintable():  # checked in C first: ~0.5 ms an issue text
        return text
    # Only the distinct characters are checked: a character at a time cost ~0.5 ms on an issue with one "\r" a line.
    return text.translate({ord(ch): " " for ch in set(plain) if not ch.isprintable()})


def line_links(text: str) -> list[LineLink]:
    """The permalinks to lines in ``text`` (each once, at most MAX_LINE_LINKS), in the order written."""
    found: dict[LineLink, None] = {}
    for m in _LINK_RUN.finditer(text):
        if m.group(1) is None or "/blob/" not in m.group(0):
            continue
        where = m.group(0).rsplit("/blob/", 1)[1].partition("#")[0].strip("/")
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) else start
        if "/" in where and start > 0:
            found.setdefault(LineLink(where, start, max(start, end)), None)
            if len(found) >= MAX_LINE_LINKS:
                break
    return list(found)


def without_generic_args(text: str) -> str:
    """``text`` with the generic argument lists that stand between a name and its member left out, so that
    `formatter<std::tm, Char>::format` reads `formatter::format` (see _GENERIC_ARGS)."""
    for _ in range(GENERIC_DEPTH):
        if "<" not in text:
            break
        text, found = _GENERIC_ARGS.subn("", text)
        if not found:
            break
    return text


def analyze_query(text: str) -> QueryAnalysis:
    """Extract identifiers, paths, frames and hints; the text is treated as data, never as FTS syntax."""
    clean = printable(text)
    qa = QueryAnalysis(text=clean)
    stripped = clean.strip()
    for path, func in _FRAME.findall(clean)[-MAX_FRAMES:]:  # the innermost frames are the last ones
        qa.frames.append((path.replace("\\", "/"), func))
    seen_paths: dict[str, None] = {}
    for m in _PATH_RUN.finditer(clean):
        run = m.group(0).rstrip(".")
        if _PATH_SUFFIX.search(run) and not run.startswith("http"):
            seen_paths.setdefault(strip_dot_slash(run), None)
    for path, _func in qa.frames:
        seen_paths.setdefault(path, None)
    qa.paths = list(seen_paths)[:MAX_PATHS]
    qa.line_links = line_links(clean)
    dotted: dict[str, None] = {}
    for m in _DOTTED.finditer(without_generic_args(clean)):
        norm = re.sub(r"::|->|#", ".", m.group(0))
        if not _PATH_SUFFIX.search(m.group(0)):
            dotted.setdefault(norm, None)
    qa.dotted = list(dotted)[:MAX_DOTTED]
    idents: dict[str, None] = {}
    for d in qa.dotted:
        for part in d.split("."):
            if len(part) > 1:
                idents.setdefault(part, None)
    for m in _IDENT.finditer(clean):
        w = m.group(0)
        # Only code-shaped words count: a capitalised prose word ("Render", "Session") is as often English as a
        # class name, and boosting it cost 2.5 points of Acc@1 on the docstring set; it still reaches FTS.
        if is_code_shaped(w):
            idents.setdefault(w, None)
    for _path, func in qa.frames:
        idents.setdefault(func, None)
    qa.identifiers = [i for i in idents if len(i) > 1][:MAX_IDENTIFIERS]
    qa.is_identifier_query = bool(re.fullmatch(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*", stripped))
    if qa.is_identifier_query and stripped not in idents:
        qa.identifiers.insert(0, stripped)
    lowered_words = re.findall(r"[A-Za-z]+", clean.lower())
    qa.mentions_tests = any(w.startswith("test") or w in ("pytest", "unittest", "spec") for w in lowered_words)
    for w in lowered_words:
        if w in _KIND_WORDS:
            qa.kind_hints.add(_KIND_WORDS[w])
    # FTS tokens: identifiers (whole and split into words) first, then the remaining non-stopwords.
    toks: dict[str, None] = {}
    for ident in qa.identifiers:
        for t in fts_tokens(ident):
            toks.setdefault(t, None)
        for w in split_identifier(ident):
            if len(w) > 1:
                toks.setdefault(w, None)
    for t in fts_tokens(clean):
        if t not in STOPWORDS and (len(t) > 1 or not t.isascii()):
            toks.setdefault(t, None)
    qa.tokens = list(toks)[:MAX_TOKENS]  # identifiers' tokens come first, so the cap drops prose words
    return qa


def token_forms(qa: QueryAnalysis, mode: int = FTS_WORD_FORMS) -> dict[str, tuple[str, ...]]:
    """The other inflections of the query's first ``FORMS_OF`` tokens (``word_forms``); {} when ``mode`` is 0."""
    if not mode:
        return {}
    return {t: forms for t in qa.tokens[:FORMS_OF] if (forms := word_forms(t))}


def with_forms(tokens: list[str], doc_freqs: dict[str, int], forms: dict[str, tuple[str, ...]], mode: int) -> list[str]:
    """``tokens`` the index holds, each followed by its forms the index holds: all of them (``mode`` 2) or only
    where the token itself is missing (``mode`` 1)."""
    out: dict[str, None] = {}
    for t in tokens:
        held = doc_freqs.get(t, 0) > 0
        if held:
            out.setdefault(t, None)
        if mode == 2 or (mode == 1 and not held):
            for f in forms.get(t, ()):
                if doc_freqs.get(f, 0) > 0:
                    out.setdefault(f, None)
    return list(out)


def select_fts_tokens(
    qa: QueryAnalysis,
    doc_freqs: dict[str, int],
    total_docs: int,
    limit: int | None = None,
    *,
    common_from: int = FTS_COMMON_FROM,
    common_share: float = FTS_COMMON_SHARE,
    forms: dict[str, tuple[str, ...]] | None = None,
    forms_mode: int = FTS_WORD_FORMS,
) -> list[str]:
    """Pick at most ``limit`` tokens that exist in the index: identifiers first, then the rarest words (past
    ``common_from`` tokens, only words in at most ``common_share`` of the symbols). ``forms`` (``token_forms``)
    adds the words' other inflections the index holds, as ``forms_mode`` says (``with_forms``)."""
    limit = FTS_MAX_TOKENS if limit is None else limit
    present = with_forms(qa.tokens, doc_freqs, forms or {}, forms_mode)
    if len(present) > common_from and common_share < 1.0:
        # The rarest common_from tokens stay whatever their counts; past those, only the uncommon ones.
        ceiling = common_share * total_docs
        keep = set(sorted(present, key=lambda t: doc_freqs[t])[:common_from])
        present = [t for t in present if t in keep or doc_freqs[t] <= ceiling]
    if len(present) <= limit:
        return present
    ident_tokens = {t for i in qa.identifiers for t in fts_tokens(i)}
    position = {t: n for n, t in enumerate(present)}
    # Very common tokens carry little evidence; prefer identifiers, then by rarity (stable for equal counts).
    ranked = sorted(
        present,
        key=lambda t: (
            t not in ident_tokens,
            doc_freqs.get(t, total_docs) / max(total_docs, 1),
            position[t],
        ),
    )
    return ranked[:limit]


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def phrase_of(text: str) -> str:
    """``text``'s words lowercased in order, one space between and around them (QueryAnalysis.phrase)."""
    words = [w.lower() for w in _WORD.findall(text)]
    return f" {' '.join(words)} " if words else ""
