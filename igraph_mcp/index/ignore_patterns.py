"""Ignore-file patterns read and matched exactly as git reads and matches them (dir.c and wildmatch.c).

A line is split on "\\n" only (a CR before it is dropped, a UTF-8 BOM at the file's start skipped); a line whose
first character is "#" is a comment; unescaped trailing spaces are trimmed; "!" negates; a trailing "/" matches
directories only. A pattern without a slash (trailing one aside) matches a path's last component at any depth;
any other pattern is anchored at the ignore file's directory and matched with wildmatch's WM_PATHNAME rules:
"*", "?" and "[...]" never match "/", "**" spans directories only between slashes (or the pattern's ends).
Inside one file the last matching pattern decides.

Each pattern becomes one regular expression that accepts what wildmatch accepts. git strips a pattern's literal
head (up to its first "*?[\\\\") before calling wildmatch, so "**" right after that head counts as a leading one
("a**/b" matches "a/x/b" and "ab"); the expression does the same. A pattern wildmatch can never match (an
unclosed "[", an unknown "[:class:]", a trailing lone backslash) matches nothing, so a bad line costs nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_GLOB_SPECIAL = frozenset("*?[\\")
# POSIX classes as wildmatch tests them: ASCII only (ISASCII(c) && isalpha(c), ...).
_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\x0b\\x0c",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


@dataclass(frozen=True, slots=True)
class IgnorePattern:
    """One compiled line of an ignore file."""

    text: str  # the line as written (trailing spaces trimmed), for messages
    line: int  # 1-based line number in its file
    negative: bool  # "!pattern": re-includes
    dir_only: bool  # "pattern/": matches directories only
    basename: bool  # no slash: matched against the last path component at any depth
    regex: re.Pattern[str] | None  # None: wildmatch can never match it

    def matches(self, rel: str, is_dir: bool) -> bool:
        """Whether this pattern matches ``rel`` (relative to the ignore file's directory, no trailing slash)."""
        if self.regex is None or (self.dir_only and not is_dir):
            return False
        subject = rel.rsplit("/", 1)[-1] if self.basename else rel
        return self.regex.fullmatch(subject) is not None


@dataclass(frozen=True, slots=True)
class PatternList:
    """The patterns of one ignore file (or of configured lines), in file order."""

    source: str  # where they come from, e.g. "pkg/.gitignore" or "index.exclude"
    patterns: tuple[IgnorePattern, ...]

    def last_match(self, rel: str, is_dir: bool) -> IgnorePattern | None:
        """The last pattern matching ``rel``, which decides for this file (git's rule), or None."""
        for pattern in reversed(self.patterns):
            if pattern.matches(rel, is_dir):
                return pattern
        return None


def read_patterns(text: str, source: str) -> PatternList | None:
    """Compile an ignore file's text as git reads it; None when it holds no pattern."""
    text = text.removeprefix("\ufeff")
    patterns = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.removesuffix("\r")
        pattern = compile_pattern(line, number)
        if pattern is not None:
            patterns.append(pattern)
    return PatternList(source, tuple(patterns)) if patterns else None


def compile_pattern(line: str, number: int = 0) -> IgnorePattern | None:
    """Compile one ignore line (no newline); None for a blank line or a comment."""
    if not line or line.startswith("#"):
        return None
    line = _trim_trailing_spaces(line)
    if not line:
        return None
    body, negative = (line[1:], True) if line.startswith("!") else (line, False)
    dir_only = body.endswith("/")
    if dir_only:
        body = body[:-1]
    basename = "/" not in body
    if basename:
        expression = _wildmatch(body)
    else:
        # git compares the literal head itself and hands wildmatch the rest, as a pattern of its own
        head = _literal_length(body)
        if body.startswith("/"):
            body, head = body[1:], head - 1
        tail = _wildmatch(body[head:])
        expression = None if tail is None else re.escape(body[:head]) + tail
    regex = None if expression is None else re.compile(expression, re.DOTALL)
    return IgnorePattern(line, number, negative, dir_only, basename, regex)


def _trim_trailing_spaces(line: str) -> str:
    """Drop trailing spaces unless escaped with a backslash (git's trim_trailing_spaces)."""
    last_space = -1
    i = 0
    while i < len(line):
        c = line[i]
        if c == " ":
            if last_space < 0:
                last_space = i
        elif c == "\\":
            i += 1
            if i >= len(line):
                return line
            last_space = -1
        else:
            last_space = -1
        i += 1
    return line if last_space < 0 else line[:last_space]


def _literal_length(pattern: str) -> int:
    """Length of the head before the first glob-special character (git's simple_length)."""
    for i, c in enumerate(pattern):
        if c in _GLOB_SPECIAL:
            return i
    return len(pattern)


def _wildmatch(pattern: str) -> str | None:
    """A regular expression accepting exactly what wildmatch(pattern, WM_PATHNAME) accepts; None for nothing."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return None  # a trailing lone backslash never matches
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            before_ok = i == 0 or pattern[i - 1] == "/"
            after = pattern[j:]
            if j - i >= 2 and before_ok and (not after or after.startswith(("/", "\\/"))):
                if after.startswith("/"):
                    out.append("(?:.*/)?")  # "**/" also matches no directory at all
                    j += 1
                else:
                    out.append(".*")
            else:
                out.append("[^/]*")
            i = j
        elif c == "[":
            bracket = _bracket(pattern, i)
            if bracket is None:
                return None
            expression, i = bracket
            out.append(expression)
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


def _bracket(pattern: str, start: int) -> tuple[str, int] | None:
    """The character class opened at ``start``, and the index after its "]"; None when wildmatch aborts."""
    n = len(pattern)
    j = start + 1
    negated = j < n and pattern[j] in "!^"
    if negated:
        j += 1
    members: list[str] = []
    prev = ""  # the previous single member, for a range; "" after a range or a class (git's prev_ch = 0)
    while True:
        if j >= n:
            return None
        c = pattern[j]
        if c == "\\":
            j += 1
            if j >= n:
                return None
            prev = pattern[j]
            members.append(_class_char(prev))
        elif c == "-" and prev and j + 1 < n and pattern[j + 1] != "]":
            j += 1
            high = pattern[j]
            if high == "\\":
                j += 1
                if j >= n:
                    return None
                high = pattern[j]
            if prev <= high:
                members.append(f"{_class_char(prev)}-{_class_char(high)}")
            prev = ""
        elif c == "[" and j + 1 < n and pattern[j + 1] == ":":
            close = pattern.find("]", j + 2)
            if close < 0:
                return None
            if close - (j + 2) - 1 < 0 or pattern[close - 1] != ":":
                members.append("\\[")  # no ":]": a plain "[" member, reading on from the ":"
                prev = "["
            else:
                members_class = _CLASSES.get(pattern[j + 2 : close - 1])
                if members_class is None:
                    return None
                members.append(members_class)
                prev = ""
                j = close
        else:
            prev = c
            members.append(_class_char(c))
        j += 1
        if j < n and pattern[j] == "]":
            break
    body = "".join(members)
    if negated:
        return f"[^/{body}]", j + 1
    return (f"(?!/)[{body}]" if body else "(?!)"), j + 1
