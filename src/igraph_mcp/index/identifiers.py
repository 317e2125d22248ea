"""Splitting identifiers into words: camelCase, PascalCase, snake_case, kebab-case, digits, dotted paths."""

from __future__ import annotations

import re

# An uppercase run followed by a capitalised word splits before the last capital: "HTTPServer" -> HTTP, Server.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEPARATORS = re.compile(r"[^0-9A-Za-z]+")


def split_identifier(name: str) -> list[str]:
    """Split ``name`` into lowercase words: ``parseHTTPRequest_v2`` -> ["parse", "http", "request", "v", "2"]."""
    words: list[str] = []
    for part in _SEPARATORS.split(name):
        if part:
            words.extend(w.lower() for w in _WORD.findall(part))
    return words


def identifier_words(*names: str) -> str:
    """Space-joined words of several identifiers, for the FTS ``words`` column; repeated words kept once."""
    seen: dict[str, None] = {}
    for name in names:
        for word in split_identifier(name):
            seen.setdefault(word, None)
    return " ".join(seen)
