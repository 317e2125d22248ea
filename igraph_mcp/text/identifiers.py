"""Splitting identifiers into words: camelCase, PascalCase, snake_case, kebab-case, digits, dotted paths."""

from __future__ import annotations

import re
from functools import lru_cache


def split_identifier(name: str) -> list[str]:
    """Split an identifier into lower-case words: camelCase, PascalCase, snake_case, kebab, dots, digits."""
    return list(_split_cached(name))


# Indexing splits the same names over and over (every `self`, `node`, `expr` of a large repository): a cache
# took the splitting of sympy's 516k identifiers from ~3 s to a fraction of that.
# The same cuts for an ASCII name in one pass of C: an acronym before a capitalised word, a word with at most one
# leading capital, an acronym, a run of digits (tests/test_identifiers.py checks it against the loop below).
_ASCII_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@lru_cache(maxsize=1 << 16)
def _split_cached(name: str) -> tuple[str, ...]:
    if name.isascii():
        # A large tree's bodies hold hundreds of thousands of distinct names: most are split once, outside the cache.
        return tuple(w.lower() for w in _ASCII_WORDS.findall(name))
    return _split_loop(name)


def _split_loop(name: str) -> tuple[str, ...]:
    """Any name, one character at a time (Unicode letters, digits and cases)."""
    words: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            words.append("".join(current).lower())
            current.clear()

    for i, ch in enumerate(name):
        if not ch.isalnum():
            flush()
            continue
        if current:
            prev = current[-1]
            if ch.isdigit() != prev.isdigit():
                flush()  # letter <-> digit boundary: utf8Decode -> utf 8 decode
            elif ch.isupper() and not prev.isupper():
                flush()  # camelCase boundary (also after caseless scripts): parseFile -> parse file
            elif ch.isupper() and prev.isupper():
                nxt = name[i + 1] if i + 1 < len(name) else ""
                if nxt.islower():
                    flush()  # end of an acronym: HTTPServer -> http server
        current.append(ch)
    flush()
    return tuple(words)


def identifier_words(*names: str) -> str:
    """Space-joined words of several identifiers, for the FTS ``words`` column; repeated words kept once."""
    seen: dict[str, None] = {}
    for name in names:
        for word in _split_cached(name):
            seen.setdefault(word, None)
    return " ".join(seen)


def is_code_shaped(word: str) -> bool:
    """True for a word only code writes (snake_case, camelCase, `$el`); "Render" or "URL" could be prose."""
    if "_" in word or "$" in word:
        return True
    return any(c.isupper() for c in word[1:]) and any(c.islower() for c in word)
