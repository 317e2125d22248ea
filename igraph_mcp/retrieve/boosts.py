"""Multiplicative boosts applied after fusion: exact names, dotted names, mentioned identifiers and files."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from igraph_mcp.retrieve.analyze import STOPWORDS, QueryAnalysis
from igraph_mcp.text.identifiers import split_identifier
from igraph_mcp.vocab.languages import FUNCTION_LIKE
from igraph_mcp.vocab.testcode import is_generated_copy, is_side_copy, is_test_path

EXACT_NAME = 3.0  # the whole query is this symbol's name
QUALIFIED_NAME = 3.0  # a dotted name in the query ends with this symbol's qualified name
IDENTIFIER = 1.5  # the symbol's name is an identifier mentioned in the query ...
RARE_DEFINITIONS = 10  # ... and at most this many symbols carry that name (`save` or `get` say little)
# A question (not an issue) writes a function's name of two or more words as those words in a row: "how is an
# unknown option reported" and `unknownOption`. Not a class: "how does the retry handler decide" asks about
# what RetryHandler's methods do, and lifting the class took their places.
NAME_PHRASE = 1.5
FRAME = 1.6  # the symbol is a function named in a traceback frame of the query, in that file
LINKED_LINE = 1.6  # a link to lines of the query points at this definition
PATH_MENTIONED = 1.4  # the symbol's file is mentioned in the query
KIND_HINT = 1.15  # the query says "class", "method"... and this is one
CONTEXT_FILE = 1.5  # the caller said this file is in context
TEST_CODE = 0.6  # a symbol in test code, when the query does not mention tests (best of 0.6-0.9 on both sets)
# A symbol in a generated copy of the project's code (an amalgamation), unless the query names it: off, as the file
# ranking already demotes such files (non-source); 0.5 and 0.2 lost a gold file from the top 10 on Catch2 (tuning).
GENERATED_COPY = 1.0
# A symbol in a C/C++ side copy (contrib/, legacy/: vocab/testcode.is_side_copy), unless the query names its file.
SIDE_COPY = 0.6


@dataclass(frozen=True, slots=True)
class BoostFactors:
    """The factors ``boost`` multiplies by (defaults: the constants above); retrieve.params carries one."""

    exact_name: float = EXACT_NAME
    qualified_name: float = QUALIFIED_NAME
    identifier: float = IDENTIFIER
    rare_definitions: int = RARE_DEFINITIONS
    name_phrase: float = NAME_PHRASE
    frame: float = FRAME
    linked_line: float = LINKED_LINE
    path_mentioned: float = PATH_MENTIONED
    kind_hint: float = KIND_HINT
    context_file: float = CONTEXT_FILE
    test_code: float = TEST_CODE
    generated_copy: float = GENERATED_COPY
    side_copy: float = SIDE_COPY


DEFAULT_FACTORS = BoostFactors()


@dataclass(frozen=True, slots=True)
class Candidate:
    """What the booster needs to know about a fused candidate."""

    name: str
    qualified_name: str
    kind: str
    path: str
    linked: bool = False  # a link to lines of the query points at it


def _written_as_words(name: str, phrase: str) -> bool:
    """Whether ``phrase`` (QueryAnalysis.phrase) holds ``name``'s words in a row, two of them words of substance:
    "elements from iterable" says little of `from_iterable`, "exactly n items" of `exactly_n`."""
    words = split_identifier(name)
    if sum(1 for w in words if len(w) > 2 and w not in STOPWORDS) < 2:
        return False
    return f" {' '.join(words)} " in phrase


def _path_matches(path: str, mentioned: str) -> bool:
    mentioned = mentioned.lstrip("/")
    return path == mentioned or path.endswith("/" + mentioned) or mentioned.endswith("/" + path)


@dataclass(frozen=True, slots=True)
class PathFacts:
    """What the boosts read from a candidate's file alone: the same for every candidate in it."""

    mentioned: bool
    test: bool
    generated_copy: bool
    side_copy: bool
    context_file: bool


def path_facts(path: str, qa: QueryAnalysis, context_files: Sequence[str] = ()) -> PathFacts:
    """The file-level facts ``boost`` reads (a ranking computes them once per file, not once per candidate)."""
    mentioned = any(_path_matches(path, p) for p in qa.paths)
    return PathFacts(
        mentioned=mentioned,
        test=not qa.mentions_tests and is_test_path(path),
        generated_copy=not mentioned and is_generated_copy(path),
        side_copy=not mentioned and is_side_copy(path),
        context_file=any(_path_matches(path, p) for p in context_files),
    )


def boost(
    c: Candidate,
    qa: QueryAnalysis,
    context_files: Sequence[str] = (),
    factors: BoostFactors = DEFAULT_FACTORS,
    facts: PathFacts | None = None,
) -> tuple[float, list[str]]:
    """Factor to multiply the fused score by, and the names of the boosts that applied (``facts``: c.path's, when
    the caller has them)."""
    if facts is None:
        facts = path_facts(c.path, qa, context_files)
    factor = 1.0
    why: list[str] = []
    stripped = qa.text.strip()
    if qa.is_identifier_query and c.kind != "module":
        norm = stripped.replace("::", ".").replace("->", ".").replace("#", ".")
        if c.name == norm or c.qualified_name == norm:
            factor *= factors.exact_name
            why.append("exactName")
        elif c.name.lower() == norm.lower():
            factor *= factors.exact_name * 0.8
            why.append("exactNameCaseInsensitive")
    if c.kind != "module" and "." in c.qualified_name:
        for d in qa.dotted:
            if d == c.qualified_name or d.endswith("." + c.qualified_name) or c.qualified_name.endswith("." + d):
                factor *= factors.qualified_name
                why.append("qualifiedName")
                break
    if (
        c.kind != "module"
        and "exactName" not in why
        and c.name in qa.identifiers
        and qa.definition_counts.get(c.name, 0) <= factors.rare_definitions
    ):
        factor *= factors.identifier
        why.append("identifier")
    if qa.phrase and c.kind in FUNCTION_LIKE and not why and _written_as_words(c.name, qa.phrase):
        factor *= factors.name_phrase
        why.append("namePhrase")
    if qa.frames and c.kind in FUNCTION_LIKE:
        for path, func in qa.frames:
            if (func == c.name and _path_matches(c.path, path)) or (
                func == c.name and posixpath.basename(path) == posixpath.basename(c.path)
            ):
                factor *= factors.frame
                why.append("tracebackFrame")
                break
    if c.linked:
        factor *= factors.linked_line
        why.append("linkedLine")
    if facts.mentioned:
        factor *= factors.path_mentioned
        why.append("pathMentioned")
    if c.kind in qa.kind_hints:
        factor *= factors.kind_hint
        why.append("kindHint")
    if factors.test_code != 1.0 and facts.test:
        factor *= factors.test_code
        why.append("testCode")
    if factors.generated_copy != 1.0 and facts.generated_copy:
        factor *= factors.generated_copy
        why.append("generatedCopy")
    if factors.side_copy != 1.0 and facts.side_copy:
        factor *= factors.side_copy
        why.append("sideCopy")
    if facts.context_file:
        factor *= factors.context_file
        why.append("contextFile")
    return factor, why
